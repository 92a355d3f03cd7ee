#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-memory.sh: the store's unit test program, run against a memory
# store (memory:NAME, test builds) instead of a SQLite file: the memory
# backend answers every case as SQLite does, fault walks included.

: "${top_builddir:?run through make check}"
log=$(mktemp "${TMPDIR:-/tmp}/ccstore-memory.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT
CLUSTERCRON_TEST_STORE=memory:unit
export CLUSTERCRON_TEST_STORE
"$top_builddir/tests/unit/store" >"$log" 2>&1
rc=$?
cat "$log"
if [ $rc -ne 0 ] || grep -q '^not ok' "$log"; then
	echo "store unit test failed on a memory store"
	exit 1
fi
if ! grep -q '^# store memory:unit$' "$log"; then
	echo "the program did not run on the memory store"
	exit 1
fi
exit 0
