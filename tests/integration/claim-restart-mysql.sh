#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# claim-restart-mysql.sh: the MariaDB server is killed (-9) and started
# again in the middle of claim storms of four contenders, twice while
# they claim one by one and once while they claim in batches.
# Contenders whose claims are in flight learn the outcome from the
# claims table once the server is back, though others may have claimed
# later fires of the job meanwhile.  No fire may be won twice; every fire is won
# once; the store's runs match the contenders' logs.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"
mdb_init
mdb_start
. "${top_srcdir:-.}/tests/integration/storm.sh"

"$CLAIMER" register "$MDB_URL" "$MDB_CNF" 40 || mdb_fail "register"
storm_start "$MDB_URL" "$MDB_CNF" 4 40 1 60 single
storm_until 600
mdb_kill
mdb_start
storm_until 1400
mdb_kill
mdb_start
storm_wait
# Batches, whose transactions the kill cuts in the middle.
storm_start "$MDB_URL" "$MDB_CNF" 4 40 61 120 batch
storm_until 3200
mdb_kill
mdb_start
storm_wait
storm_check "$MDB_URL" "$MDB_CNF" 40 120 4800
# The kills did land in the middle of the storm.
cat "$T"/claimer.*.log
grep -q 'lost connections' "$T"/claimer.*.log ||
    mdb_fail "no contender saw the server go away"
