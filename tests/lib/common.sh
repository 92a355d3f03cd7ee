# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# common.sh: helpers for shell tests run by the automake harness.
# A test sources it, calls same/contains and ends with finish; it skips
# only through skip, skip_part or needs (tests/lib/skip.sh).

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
. "$top_srcdir/tests/lib/skip.sh"
CLUSTERCRON=$top_builddir/clustercron/clustercron
CTAB=$top_builddir/ctab/ctab
T=$(mktemp -d "${TMPDIR:-/tmp}/cctest.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
nfail=0
ntest=0

fail() {
	nfail=$((nfail + 1))
	echo "FAIL: $*"
}

# same NAME GOT WANT: compare two texts.
same() {
	ntest=$((ntest + 1))
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		fail "$1"
		printf -- '--- want\n%s\n--- got\n%s\n' "$3" "$2"
	fi
}

# run CMD...: run a command, leaving its output in $out, its standard
# error in $err and its exit status in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# contains NAME TEXT PATTERN: TEXT has a line matching the grep -E PATTERN.
contains() {
	ntest=$((ntest + 1))
	if printf '%s\n' "$2" | grep -qE -- "$3"; then
		echo "ok: $1"
	else
		fail "$1: no line matches /$3/ in:"
		printf '%s\n' "$2"
	fi
}

# shadow CMD ARGS...: useradd, groupadd or userdel, tried again for up
# to 20 s while another test holds the lock on /etc/passwd or
# /etc/group (shadow's tools then fail at once, "cannot lock"): tests
# run side by side.  Its standard error is passed on.
shadow() {
	_sh_i=0
	while :; do
		"$@" 2>"$T/shadow.err" && { cat "$T/shadow.err" >&2; return 0; }
		_sh_rc=$?
		if ! grep -q 'lock' "$T/shadow.err" || [ $_sh_i -ge 200 ]; then
			cat "$T/shadow.err" >&2
			return $_sh_rc
		fi
		_sh_i=$((_sh_i + 1))
		sleep 0.1
	done
}

finish() {
	echo "$ntest checks, $nfail failed"
	[ "$nfail" -eq 0 ] || exit 1
	exit 0
}
