#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# skipped.sh: what a run of the tests skipped, and why.
#
#	sh tests/lib/skipped.sh DIR|LOG...
#
# Lists every test of the build directories DIR... that was skipped,
# whole or in part, and every LOG (the output of a script run outside
# make check, such as tests/package.sh) that says it skipped, each
# with the lines of its log that give the reason.  A test was skipped
# when its .trs holds a SKIP result (the program, or one of its TAP
# checks) or its log a line beginning with SKIP (tests/lib/skip.sh and
# tests/tap.h print the reason so; the harness adds "SKIP name").
#
# Exits 0, or 1 when something was skipped and CI is set: CI has every
# tool the tests use and runs them as root, so a skip there means that
# something was not tested that should have been.  tests/run-all.sh
# runs it last; tests/skips.sh tests it.

found=$(for _a; do
	if [ -d "$_a" ]; then
		find "$_a" -name '*.trs' ! -path '*/_build/*'
	elif [ -f "$_a" ]; then
		echo "$_a"
	fi
done | sort | while read -r _f; do
	case $_f in
	*.trs)
		_log=${_f%.trs}.log
		_whole=$(grep -c '^:test-result: SKIP' "$_f")
		;;
	*)
		_log=$_f
		_whole=0
		;;
	esac
	_why=$(grep -E '^SKIP' "$_log" 2>/dev/null)
	[ "$_whole" -gt 0 ] || [ -n "$_why" ] || continue
	echo "skipped: ${_log%.log}"
	printf '%s\n' "${_why:-(its log gives no reason)}" | head -n 5 |
	    cut -c 1-200 | sed 's/^/    /'
done)

[ -n "$found" ] || exit 0
echo "$found"
n=$(echo "$found" | grep -c '^skipped: ')
if [ -n "${CI:-}" ]; then
	echo "FAIL: $n tests skipped, and CI is set: each must run there"
	exit 1
fi
echo "$n tests skipped (outside CI; each would fail with CI set)"
exit 0
