#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-storm.sh: the claim storm of claim-storm-mysql.sh through the
# store on a private three-node Galera cluster (tests/lib/galera.sh),
# its contenders on different servers: six processes, two on each
# server, claim 30 jobs x 20 fires one by one, then 20 more fires in
# batches (FOR UPDATE SKIP LOCKED, which does not lock across servers:
# the batches conflict at certification instead).  Every fire must be
# won exactly once, by the contenders' logs and by the store read on
# another server (tests/integration/storm.sh).  The same storm on a
# plain server started beside it gives the claims per second of both.
# Then 1,000 claims through one server, each checked at once by the same
# node through another (what settles a claim in doubt after a failover):
# every check sees its claim, as its read is causal.  And six nodes on
# the three servers register and let go of the same jobs at once.

. "${top_srcdir:-.}/tests/lib/galera.sh"
gal_init 1
. "${top_srcdir:-.}/tests/integration/storm.sh"

# storm URL... : two contenders per URL, single then batch; prints the
# seconds each half took.
storm()
{
	_t0=$(gal_now)
	for _m in single batch; do
		_k=1
		for _u in "$@"; do
			for _j in 1 2; do
				eval "_c=\$GAL_CNF_$_u _url=\$GAL_URL_$_u"
				case $_m in
				single)	_f=1 _l=20 ;;
				batch)	_f=21 _l=40 ;;
				esac
				"$CLAIMER" claim "$_url" "$_c" "node$_u.$_j" 30 \
				    $_f $_l "$T/won.$_u.$_j" $_m \
				    2>>"$T/claimer.$_u.$_j.log" &
				STORM_PIDS="${STORM_PIDS:-} $!"
				gal_bg $!
			done
			_k=$((_k + 1))
		done
		storm_wait
		eval "_ms_$_m=$(($(gal_now) - _t0))"
		_t0=$(gal_now)
	done
}

gal_plain p1
"$CLAIMER" register "$GAL_URL_p1" "$GAL_CNF_p1" 30 >/dev/null ||
    gal_fail "register on p1"
# Three contenders' worth of URLs on one server: six processes too.
GAL_URL_a=$GAL_URL_p1 GAL_CNF_a=$GAL_CNF_p1
GAL_URL_b=$GAL_URL_p1 GAL_CNF_b=$GAL_CNF_p1
storm p1 a b
storm_check "$GAL_URL_p1" "$GAL_CNF_p1" 30 40 1200
single_one=$_ms_single batch_one=$_ms_batch
gal_stop p1
rm -f "$T"/won.*

gal_cluster
"$CLAIMER" register "$GAL_URL_1" "$GAL_CNF_1" 30 >/dev/null ||
    gal_fail "register on node 1"
storm 1 2 3
# Read back through another server than the one that registered.
storm_check "$GAL_URL_3" "$GAL_CNF_3" 30 40 1200
for n in 1 2 3; do
	echo "$0: server $n: $(cat "$T"/won.$n.* | wc -l) fires won through it"
done
# A claim through server 1, at once checked by the same node through
# server 2 (a claim in doubt settled after moving on): the check's read
# is causal, so it always sees the claim.
"$CLAIMER" causal "$GAL_URL_1" "$GAL_URL_2" "$GAL_CNF" 1000 \
    >"$T/causal.out" 2>&1 || gal_fail "$(cat "$T/causal.out")"
echo "$0: $(cat "$T/causal.out")"
# Writers of jobs on different servers take turns through the lease row
# jobs.writer (a named lock would be each server's own): six nodes, two
# per server, register and let go of the same six jobs at random in the
# second database; none finds a job gone while it holds it, and the
# store ends with the jobs they hold (tests/integration/holds.sh).
t0=$(gal_now)
pids=
for n in 1 2 3; do
	for j in 1 2; do
		eval "_s=\$GAL_SOCK_$n"
		"$CLAIMER" hold "mysql:///cctest2?socket=$_s" "$GAL_CNF" \
		    "holder$n.$j" 6 150 >"$T/held.$n.$j" 2>"$T/holder.$n.$j.log" &
		pids="$pids $!"
		gal_bg $!
	done
done
bad=0
for p in $pids; do
	wait "$p" || bad=1
done
[ $bad -eq 0 ] || { cat "$T"/holder.*.log >&2
    gal_fail "a node found a job gone while it held it"; }
cat "$T"/held.* | sort -u >"$T/held.all"
"$CLAIMER" jobs "mysql:///cctest2?socket=$GAL_SOCK_3" "$GAL_CNF" |
    awk '{ print $1 }' | sort >"$T/jobs.all" || gal_fail "cannot list jobs"
cmp -s "$T/held.all" "$T/jobs.all" || { diff "$T/held.all" "$T/jobs.all"
    gal_fail "the store's jobs are not those the nodes hold"; }
echo "$0: six holders on three servers, 150 rounds each over 6 jobs in" \
    "$(($(gal_now) - t0)) ms; $(wc -l <"$T/jobs.all" | tr -d ' ') held at the end"
echo "$0: 600 single claims in $single_one ms on one server," \
    "$_ms_single ms on Galera; 600 batched in $batch_one ms and" \
    "$_ms_batch ms (six contenders)"
echo "$0: certification failures: $(gal_status 1 wsrep_local_cert_failures)" \
    "$(gal_status 2 wsrep_local_cert_failures)" \
    "$(gal_status 3 wsrep_local_cert_failures); BF aborts:" \
    "$(gal_status 1 wsrep_local_bf_aborts)" \
    "$(gal_status 2 wsrep_local_bf_aborts)" \
    "$(gal_status 3 wsrep_local_bf_aborts)"
exit 0
