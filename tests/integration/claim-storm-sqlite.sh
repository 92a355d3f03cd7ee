#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# claim-storm-sqlite.sh: six processes claim 40 jobs x 100 fires on one
# SQLite file, one by one and then in batches; every fire must be won
# exactly once, by the contenders' logs and by the store.

T=$(mktemp -d "${TMPDIR:-/tmp}/ccstorm.XXXXXX") || exit 99
trap 'rc=$?; [ $rc -ne 0 ] && tail -n 5 "$T"/*.log >&2; rm -rf "$T"; exit $rc' EXIT
. "${top_srcdir:-.}/tests/integration/storm.sh"

URL="sqlite:$T/storm.db"
"$CLAIMER" register "$URL" "" 40 || storm_fail "register"
storm_start "$URL" "" 6 40 1 50 single
storm_wait
storm_start "$URL" "" 6 40 51 100 batch
storm_wait
storm_check "$URL" "" 40 100 4000
