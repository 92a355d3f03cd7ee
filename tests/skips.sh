#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# skips.sh: no test skips silently.  A script skips only through
# tests/lib/skip.sh and a unit test only through tests/tap.h, both
# saying why, and both are errors when CI is set; tests/lib/skipped.sh,
# which tests/run-all.sh runs last, lists every skip with its reason
# and fails on any with CI set.  And the tree holds no other way: no
# test exits 77 or prints a TAP SKIP by itself, and no test nor bench
# script decides what to do by grepping the daemon's binary or sources
# for a feature, or reads the store with SQL of its own (the store is
# read through tests/daemon/ccstore; mdb_sql is for the test server's
# own business, such as its variables).

. "$top_srcdir/tests/lib/common.sh"

SKIPSH=$top_srcdir/tests/lib/skip.sh

# in_sh CI SCRIPT: SCRIPT run by sh after skip.sh, CI set to CI (empty:
# unset); its output in $out, its status in $rc.
in_sh()
{
	if [ -n "$1" ]; then
		run env CI="$1" sh -c ". '$SKIPSH'; $2"
	else
		run env -u CI sh -c ". '$SKIPSH'; $2"
	fi
}

# ---- skip, skip_part and needs.
in_sh "" 'skip "no frobnicator here"; echo went on'
same "skip outside CI: 77, saying why" "$rc $out" "77 SKIP: no frobnicator here"
in_sh 1 'skip "no frobnicator here"; echo went on'
same "skip with CI set: 99, saying why" "$rc $out" "99 SKIP: no frobnicator here
CI is set: a test that cannot run is an error"
in_sh true 'skip "x"'
same "CI=true is set too" "$rc" 99
in_sh "" 'skip_part "no frob for the second half"; echo went on'
same "skip_part outside CI: says why and goes on" "$rc $out" \
    "0 SKIP: part: no frob for the second half
went on"
in_sh 1 'skip_part "no frob for the second half"; echo went on'
same "skip_part with CI set: 99" "$rc $out" \
    "99 SKIP: part: no frob for the second half
CI is set: a test that cannot run in full is an error"
in_sh "" 'needs sh; echo has sh'
same "needs: a program that is there" "$rc $out" "0 has sh"
in_sh "" 'needs cc-no-such-program; echo went on'
same "needs: one that is not, outside CI" "$rc $out" \
    "77 SKIP: cc-no-such-program not found"
in_sh 1 'needs cc-no-such-program; echo went on'
same "needs: one that is not, with CI set" "$rc" 99

# ---- tests/tap.h: a unit test without what it needs (the zone files).
run env -u CI TZDIR="$T/nozones" "$top_builddir/tests/unit/tz"
same "tap_skip_all outside CI: a TAP skip with the reason" "$rc $out" \
    "0 1..0 # SKIP no zone files under \$TZDIR (install tzdata)"
run env CI=1 TZDIR="$T/nozones" "$top_builddir/tests/unit/tz"
same "tap_skip_all with CI set: bail out, 99" "$rc $out" \
    "99 Bail out! cannot run here, and CI is set: no zone files under \$TZDIR (install tzdata)"

# ---- tests/lib/skipped.sh on the results of a run.
R=$T/results
mkdir -p "$R/tests/unit" "$R/tests/daemon"
# trs NAME RESULT...: the harness's record of test NAME.
trs()
{
	_n=$1
	shift
	for _r; do
		echo ":test-result: $_r"
	done >"$R/$_n.trs"
}
trs tests/unit/all PASS PASS
printf 'ok 1 - a\nok 2 - b\n1..2\n' >"$R/tests/unit/all.log"
trs tests/unit/some PASS SKIP
printf 'ok 1 - a\nok 2 # SKIP needs root\nSKIP: tests/unit/some 2 # SKIP needs root\n' \
    >"$R/tests/unit/some.log"
trs tests/daemon/whole SKIP
printf 'SKIP: no frobnicator here\nSKIP tests/daemon/whole.sh (exit status: 77)\n' \
    >"$R/tests/daemon/whole.sh.log"
mv "$R/tests/daemon/whole.trs" "$R/tests/daemon/whole.sh.trs"
trs tests/daemon/part PASS
printf 'ok: a\nSKIP: part: no tmux\nok: b\n' >"$R/tests/daemon/part.sh.log"
mv "$R/tests/daemon/part.trs" "$R/tests/daemon/part.sh.trs"
trs tests/daemon/mute SKIP
: >"$R/tests/daemon/mute.log"
printf 'ok - built\n' >"$T/package.log"
printf 'SKIP: lintian not found\n' >"$T/other.log"

want="skipped: $T/other
    SKIP: lintian not found
skipped: $R/tests/daemon/mute
    (its log gives no reason)
skipped: $R/tests/daemon/part.sh
    SKIP: part: no tmux
skipped: $R/tests/daemon/whole.sh
    SKIP: no frobnicator here
    SKIP tests/daemon/whole.sh (exit status: 77)
skipped: $R/tests/unit/some
    SKIP: tests/unit/some 2 # SKIP needs root"
run env -u CI sh "$top_srcdir/tests/lib/skipped.sh" "$R" "$T/package.log" \
    "$T/other.log" "$T/absent.log"
same "skipped.sh outside CI: exit 0" "$rc" 0
same "... each skip with its reasons" "$out" "$want
5 tests skipped (outside CI; each would fail with CI set)"
run env CI=1 sh "$top_srcdir/tests/lib/skipped.sh" "$R" "$T/package.log" \
    "$T/other.log"
same "skipped.sh with CI set: exit 1" "$rc" 1
same "... saying why" "$out" "$want
FAIL: 5 tests skipped, and CI is set: each must run there"
rm -f "$R/tests/daemon/mute.trs" "$R/tests/daemon/part.sh.log" \
    "$R/tests/daemon/whole.sh.trs" "$R/tests/unit/some.trs" \
    "$R/tests/unit/some.log"
run env CI=1 sh "$top_srcdir/tests/lib/skipped.sh" "$R" "$T/package.log"
same "skipped.sh with CI set and nothing skipped: exit 0, quiet" \
    "$rc$out" 0

# ---- the tree: no other way to skip, no feature greps, no SQL.
cd "$top_srcdir" || exit 99
files=$(find tests bench -type f \( -name '*.sh' -o -name '*.c' \
    -o -name '*.h' \) | sort)
# lint NAME ERE [FILE...]: no line of the files, but of the FILEs
# allowed, matches ERE.
lint()
{
	_name=$1
	_re=$2
	shift 2
	_hits=$(for _f in $files; do
		for _ok; do
			[ "$_f" = "$_ok" ] && continue 2
		done
		grep -nE -- "$_re" "$_f" /dev/null
	done)
	same "$_name" "$_hits" ""
}
lint "no test exits 77 but through tests/lib/skip.sh" \
    'exit[[:space:]]+77' tests/lib/skip.sh tests/skips.sh \
    $(echo "$files" | grep '^bench/')
lint "no TAP skip but in tests/tap.h" '# SKIP|1\.\.0' tests/tap.h \
    tests/skips.sh
lint "no test greps the daemon's binary" \
    'grep[^|;]*("?\$(CLUSTERCRON|CTAB|CC_BIN)|/clustercron/clustercron)' \
    tests/skips.sh
lint "no test greps the sources for a feature" \
    'grep[^|;]*(top_srcdir|\.\.)"?/(clustercron|common|lock|parser|ctab)/' \
    tests/skips.sh
lint "no has_feature" 'has_feature' tests/skips.sh
lint "no SQL on clustercron's tables in scripts" \
    '(FROM|INTO|UPDATE|JOIN)[[:space:]]+(runs|claims|jobs|jobs_gone|nodes|holds|leases|ctables|meta)([^a-z_]|$)' \
    $(echo "$files" | grep '\.c$\|\.h$') tests/skips.sh
lint "no sqlite3 client" '(^|[^_a-z.])sqlite3[[:space:]]' \
    $(echo "$files" | grep '\.c$\|\.h$') tests/skips.sh

finish
