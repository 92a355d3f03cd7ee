# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# common.sh: helpers for shell tests run by the automake harness.
# A test sources it, calls expect/expect_fail and ends with finish.

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
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

finish() {
	echo "$ntest checks, $nfail failed"
	[ "$nfail" -eq 0 ] || exit 1
	exit 0
}

# needs PROGRAM: skip (77) without it, or fail hard (99) in CI.
needs() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "$1 not found"
	[ -n "${CI:-}" ] && exit 99
	exit 77
}
