#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-memory.sh: the store's unit test programs (tests/unit/store and
# tests/unit/store_at), run against a memory store (memory:NAME, test
# builds) instead of a SQLite file: the memory backend answers every
# case as SQLite does, fault walks included.

: "${top_builddir:?run through make check}"
log=$(mktemp "${TMPDIR:-/tmp}/ccstore-memory.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT
CLUSTERCRON_TEST_STORE=memory:unit
export CLUSTERCRON_TEST_STORE
for prog in store store_at; do
	"$top_builddir/tests/unit/$prog" >"$log" 2>&1
	rc=$?
	cat "$log"
	if [ $rc -ne 0 ] || grep -q '^not ok' "$log"; then
		echo "$prog unit test failed on a memory store"
		exit 1
	fi
	if ! grep -q '^# store memory:unit$' "$log"; then
		echo "$prog did not run on the memory store"
		exit 1
	fi
done
exit 0
