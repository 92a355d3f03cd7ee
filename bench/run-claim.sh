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
# Columns: 1 store, 2 mode, 3 K, 4 via, 5 calls/s, 6 won/s, 7 p50,
# 8 p99, 9 client CPU us per call.
cat "$T/sqlite.out" "$T/mysql.out" | awk '
	$1 == "store" { next }
	{ key = $1 " " $2 " " $3; if (!(key in seen)) order[n++] = key
	  seen[key] = 1 }
	$4 == "store" { s[key] = $6; sp[key] = $7; sc[key] = $9 }
	$4 == "raw" { r[key] = $6; rp[key] = $7; rc[key] = $9 }
	$1 == "mysql" && $4 == "store" && $2 == "single" { single[$3] = $6 }
	$1 == "mysql" && $4 == "store" && $2 == "batch" { batch[$3] = $6 }
	END {
		print "# store over raw: fires won/s (raw/store - 1), p50" \
		    " latency, client CPU per call added as a share of p50:"
		for (i = 0; i < n; i++)
			if ((k = order[i]) in s && r[k] > 0 && s[k] > 0 &&
			    rp[k] > 0)
				printf "#   %-16s won %+6.1f%%  p50 %+6.1f%%" \
				    "  cpu %+5.1f us = %+5.1f%% of p50\n", k, \
				    (r[k] / s[k] - 1) * 100, \
				    (sp[k] / rp[k] - 1) * 100, \
				    sc[k] - rc[k], (sc[k] - rc[k]) / rp[k] * 100
		print "# MariaDB batched vs single, fires won/s, store:"
		for (k = 1; k <= 256; k++)
			if (single[k] > 0)
				printf "#   K=%-3s %.1fx\n", k, \
				    batch[k] / single[k]
	}'
