#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run.sh: claims per second and the latency of one claim on a three-node
# Galera cluster against a single MariaDB server, in one run on this
# machine (tests/lib/galera.sh starts both, with the same lean settings).
# Each contender (tests/integration/sqlrace bench, a thread with its own
# connection) claims every job at every fire in the store's shape: the
# conditional UPDATE of the job's row and the INSERT of its claims row
# in one transaction, tried again on 1213.  Set-ups:
#
#	single  K=1	one contender on the single server
#	single  K=3	three contenders on the single server
#	galera1 K=1	one contender on Galera node 1
#	galera1 K=3	three contenders, all on node 1 (one writer node)
#	galera3 K=3	three contenders, one per node (multi-primary: the
#			losers find out at certification)
#
# and the same in batches (-b: every contender at each fire at once,
# batches of up to jobs/3+1 in the shape of store_claim_batch(): SELECT
# ... FOR UPDATE SKIP LOCKED, conditional UPDATE ... IN, claims rows),
# where the figures are batches/s and the latency of one batch:
#
#	single-b K=3, galera1-b K=3, galera3-b K=3
#
# and then the ratios Galera / single for the same K.  Fire latency of
# the daemon on Galera comes with phase B of issue 14 (the store on
# Galera).  Build first: make tests/integration/sqlrace (or make bench).
#
#	top_builddir=BUILD bench/galera/run.sh [-f fires] [-j jobs] \
#	    [-F innodb_flush_log_at_trx_commit] [-n repeats]

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
SQLRACE=$top_builddir/tests/integration/sqlrace
[ -x "$SQLRACE" ] || {
	echo "$0: make tests/integration/sqlrace first" >&2
	exit 1
}
FIRES=10
JOBS=200
FLUSH=
REPEATS=3
while getopts f:F:j:n: ch; do
	case $ch in
	f)	FIRES=$OPTARG ;;
	F)	FLUSH=$OPTARG ;;
	j)	JOBS=$OPTARG ;;
	n)	REPEATS=$OPTARG ;;
	*)	echo "usage: $0 [-f fires] [-j jobs] [-F flush] [-n repeats]" >&2
		exit 2 ;;
	esac
done

. "$top_srcdir/tests/lib/galera.sh"
gal_init 1
gal_cluster
gal_plain p1
if [ -n "$FLUSH" ]; then
	for n in 1 2 3 p1; do
		gal_root $n "SET GLOBAL innodb_flush_log_at_trx_commit = $FLUSH"
	done
fi

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores"
echo "# $("$MDB_SERVER" --version)"
echo "# galera $(gal_root 1 "SHOW STATUS LIKE 'wsrep_provider_version'" |
    awk '{ print $2 }'), cluster formed in $GAL_FORMED ms"
echo "# innodb_flush_log_at_trx_commit" \
    "$(gal_root 1 'SELECT @@innodb_flush_log_at_trx_commit'), sync_binlog" \
    "off, buffer pool 32M; $JOBS jobs x $FIRES fires, best of $REPEATS"

# one LABEL CNF...: the best (most claims/s) of REPEATS runs.
one()
{
	_label=$1
	shift
	_r=1
	: >"$T/runs"
	while [ $_r -le "$REPEATS" ]; do
		"$SQLRACE" bench -j "$JOBS" -f "$FIRES" -l "$_label" "$@" \
		    >"$T/out" 2>&1 || {
			cat "$T/out" >&2
			gal_fail "$_label failed"
		}
		grep '^bench ' "$T/out" >>"$T/runs"
		_r=$((_r + 1))
	done
	sort -k 14 -n -r "$T/runs" | head -n 1 | tee -a "$T/best"
}

printf '%-9s %2s %9s %9s %9s %9s %8s\n' set-up K claims/s won/s \
    'p50 us' 'p99 us' retries
: >"$T/best"
one single "$GAL_CNF_p1" >/dev/null
one single "$GAL_CNF_p1" "$GAL_CNF_p1" "$GAL_CNF_p1" >/dev/null
one galera1 "$GAL_CNF_1" >/dev/null
one galera1 "$GAL_CNF_1" "$GAL_CNF_1" "$GAL_CNF_1" >/dev/null
one galera3 "$GAL_CNF_1" "$GAL_CNF_2" "$GAL_CNF_3" >/dev/null
B=$((JOBS / 3 + 1))
[ $B -le 100 ] || B=100
one single-b -b $B "$GAL_CNF_p1" "$GAL_CNF_p1" "$GAL_CNF_p1" >/dev/null
one galera1-b -b $B "$GAL_CNF_1" "$GAL_CNF_1" "$GAL_CNF_1" >/dev/null
one galera3-b -b $B "$GAL_CNF_1" "$GAL_CNF_2" "$GAL_CNF_3" >/dev/null
# Fields: 2 label, 4 K, 14 claims/s, 16 won/s, 18 p50, 20 p99, 22 retries.
awk '{ printf "%-9s %2s %9s %9s %9s %9s %8s\n", $2, $4, $14, $16, $18,
    $20, $22 }' "$T/best"
echo "# (the -b rows: batches/s, and the latency of one batch)"
awk '
	{ cs[$2 " " $4] = $14; p50[$2 " " $4] = $18; p99[$2 " " $4] = $20
	  w[$2 " " $4] = $16 }
	function ratio(a, b) {
		if (!(a in cs) || !(b in cs) || cs[b] == 0 || p50[b] == 0 ||
		    p99[b] == 0)
			return
		printf "#   %-10s / %-9s claims/s %5.2fx  p50 %5.2fx  " \
		    "p99 %5.2fx\n", a, b, cs[a] / cs[b], p50[a] / p50[b],
		    p99[a] / p99[b]
	}
	END {
		print "# Galera against the single server:"
		ratio("galera1 1", "single 1")
		ratio("galera1 3", "single 3")
		ratio("galera3 3", "single 3")
		ratio("galera3 3", "galera1 3")
		print "# fires won/s in batches, Galera against the single" \
		    " server:"
		printf "#   galera1-b %.2fx, galera3-b %.2fx\n",
		    w["galera1-b 3"] / w["single-b 3"],
		    w["galera3-b 3"] / w["single-b 3"]
	}' "$T/best"
