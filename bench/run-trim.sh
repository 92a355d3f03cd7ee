#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run-trim.sh: how long a pass of trimming takes on a store of many runs
# (bench/trim), SQLite then a private MariaDB (tests/lib/mariadb.sh), and
# how many bytes a run takes in each.  Build first with "make bench".
# Usage: bench/run-trim.sh [-r runs] [-u users] [-j jobs] [-o bytes]

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
BENCH=$top_builddir/bench/trim
[ -x "$BENCH" ] || { echo "$0: run make bench first" >&2; exit 1; }

. "$top_srcdir/tests/lib/mariadb.sh"
mdb_init
mdb_start

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores"
echo "# $("$MDB_SERVER" --version)"
"$BENCH" "$@" "sqlite:$T/bench.db"
echo "sqlite: $(($(stat -c %s "$T/bench.db") / 1024)) KiB in the file"
"$BENCH" "$@" "$MDB_URL" "$MDB_CNF"
mdb_sql "SELECT CONCAT('mysql: runs ', table_rows, ' rows, data ', \
    data_length DIV 1024, ' KiB, indexes ', index_length DIV 1024, \
    ' KiB') FROM information_schema.tables WHERE table_name = 'runs'"
