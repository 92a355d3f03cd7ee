#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run-claim.sh: claims per second and latency on both backends, with 1,
# 4 and 16 contenders, single and batched, through the store and
# through a raw client issuing the same SQL, in one run.  MariaDB runs
# privately (tests/lib/mariadb.sh) with durable commits.  Build first
# with "make bench".  Usage: bench/run-claim.sh [-a attempts] [-j jobs]
# [-k 1,4,16]

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
BENCH=$top_builddir/bench/claim
[ -x "$BENCH" ] || { echo "$0: run make bench first" >&2; exit 1; }

. "$top_srcdir/tests/lib/mariadb.sh"
mdb_init
mdb_start

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores"
echo "# $("$MDB_SERVER" --version)"
echo "# SQLite: synchronous=FULL, WAL; MariaDB: innodb_flush_log_at_trx_commit=$(mdb_sql 'SELECT @@innodb_flush_log_at_trx_commit')"
"$BENCH" "$@" "sqlite:$T/bench.db" | tee "$T/sqlite.out"
"$BENCH" "$@" "$MDB_URL" "$MDB_CNF" | tail -n +2 | tee "$T/mysql.out"

# Overhead of the store over the raw client, and batched vs single.
cat "$T/sqlite.out" "$T/mysql.out" | awk '
	$1 == "store" { next }
	{ key = $1 " " $2 " " $3 }
	$4 == "store" { s[key] = $6 }
	$4 == "raw" { r[key] = $6 }
	$1 == "mysql" && $4 == "store" && $2 == "single" { single[$3] = $6 }
	$1 == "mysql" && $4 == "store" && $2 == "batch" { batch[$3] = $6 }
	END {
		print "# store overhead over raw (fires won/s, raw/store - 1):"
		for (k in s)
			if (r[k] > 0 && s[k] > 0)
				printf "#   %-16s %+6.1f%%\n", k, \
				    (r[k] / s[k] - 1) * 100
		print "# MariaDB batched vs single, fires won/s, store:"
		for (k in single)
			if (single[k] > 0)
				printf "#   K=%-3s %.1fx\n", k, \
				    batch[k] / single[k]
	}'
