#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# claim-storm-mysql.sh: eight processes claim 50 jobs x 80 fires on a
# private MariaDB, one by one and then in batches (SKIP LOCKED); every
# fire must be won exactly once, by the contenders' logs and by the
# store.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"
mdb_init
mdb_start
. "${top_srcdir:-.}/tests/integration/storm.sh"

"$CLAIMER" register "$MDB_URL" "$MDB_CNF" 50 || mdb_fail "register"
storm_start "$MDB_URL" "$MDB_CNF" 8 50 1 40 single
storm_wait
storm_start "$MDB_URL" "$MDB_CNF" 8 50 41 80 batch
storm_wait
storm_check "$MDB_URL" "$MDB_CNF" 50 80 4000
