#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-cluster.sh: the three-node Galera cluster of tests/lib/galera.sh
# does what a real one does under each fault the clustercron tests will
# need, and keeps every committed write:
#   - it forms (bootstrap, then two joiners by rsync SST) and replicates;
#   - a node killed with -9 leaves the primary component, the other two
#     go on writing, and it rejoins by IST (not a full SST) from the
#     position InnoDB recovers;
#   - a node stopped with SIGSTOP past the group's timeouts is dropped by
#     the others, who go on writing; after SIGCONT it rejoins by itself;
#   - a node alone (the two others killed) is not primary: it refuses
#     queries with 1047 and says so in wsrep_ready and
#     wsrep_cluster_status, until the others come back;
#   - the whole cluster, stopped cleanly or killed at once, comes back
#     bootstrapped from the node with the highest seqno (the last to
#     leave; not a node that had missed writes).
# It prints how long each step took.

. "${top_srcdir:-.}/tests/lib/galera.sh"
gal_init

gal_cluster
echo "$0: three nodes Synced in $GAL_FORMED ms"
for n in 1 2 3; do
	[ "$(gal_state $n)" = "ON 4 Synced Primary 3" ] ||
	    gal_fail "node $n: $(gal_state $n)"
done

# writes NODE K: insert row K through NODE.
writes()
{
	gal_sql "$1" "INSERT INTO w (k) VALUES ($2)" ||
	    gal_fail "cannot write row $2 through node $1"
}

# holds NODE N: NODE holds rows 1..N, read causally.
holds()
{
	_got=$(gal_sql "$1" "SET SESSION wsrep_sync_wait = 1;
	    SELECT COUNT(*), COALESCE(SUM(k), 0) FROM w" 2>"$T/holds.err") ||
	    gal_fail "cannot read through node $1: $(cat "$T/holds.err")"
	[ "$_got" = "$2	$(($2 * ($2 + 1) / 2))" ] ||
	    gal_fail "node $1 holds '$_got', not rows 1..$2"
}

gal_sql 1 "CREATE TABLE w (k INT PRIMARY KEY)" || gal_fail "create"
writes 1 1
writes 2 2
writes 3 3
for n in 1 2 3; do holds $n 3; done

# kill -9, the others go on, IST back.
t0=$(gal_now)
gal_kill 2
gal_size 1 2
echo "$0: node 2 killed: the others are a primary component of 2" \
    "after $(($(gal_now) - t0)) ms"
writes 1 4
writes 3 5
lines=$(wc -l <"$T/n2/mariadbd.log")
gal_rejoin 2
echo "$0: node 2 rejoined in $GAL_TOOK ms"
tail -n +$((lines + 1)) "$T/n2/mariadbd.log" >"$T/rejoin.log"
# (The rsync script runs for an IST too, and says which it did.)
grep -q 'Receiving IST: [0-9]* writesets' "$T/rejoin.log" ||
    gal_fail "node 2 did not catch up by IST"
if grep -q 'rsync SST completed on joiner' "$T/rejoin.log"; then
	gal_fail "node 2 needed a full SST after kill -9"
fi
holds 2 5

# SIGSTOP past the timeouts: dropped; SIGCONT: back by itself.
t0=$(gal_now)
gal_pause 3
gal_size 1 2
echo "$0: node 3 stopped: dropped after $(($(gal_now) - t0)) ms"
writes 2 6
writes 1 7
t0=$(gal_now)
gal_resume 3
gal_size 1 3
gal_together
echo "$0: node 3 continued: Synced again after $(($(gal_now) - t0)) ms"
holds 3 7

# A node alone is not primary and refuses queries.
gal_kill 2
gal_kill 3
gal_wait eval 'gal_state 1 | grep -q " non-Primary "' ||
    gal_fail "node 1 alone is still $(gal_state 1)"
st=$(gal_state 1)
case $st in
"OFF "*" non-Primary 1")	;;
*)	gal_fail "node 1 alone: $st" ;;
esac
if gal_sql 1 "SELECT COUNT(*) FROM w" >"$T/alone.out" 2>&1; then
	gal_fail "node 1 answers a query outside the primary component"
fi
grep -q 'ERROR 1047' "$T/alone.out" ||
    gal_fail "node 1 alone: $(cat "$T/alone.out")"
echo "$0: node 1 alone: $st; a query gets:" \
    "$(grep ERROR "$T/alone.out")"
# The two others come back and the primary component with them (the
# last one, restored from gvwstate.dat: pc.recovery).
t0=$(gal_now)
gal_start 2
gal_start 3
gal_size 1 3
gal_together
echo "$0: primary component restored in $(($(gal_now) - t0)) ms"
holds 1 7
writes 3 8

# The whole cluster, stopped cleanly, then killed at once.
gal_restart clean
echo "$0: clean restart in $GAL_TOOK ms, bootstrapped from node" \
    "$GAL_BOOT (seqnos $GAL_SEQNOS)"
[ "$GAL_BOOT" = 1 ] || gal_fail "node 1 left last but node $GAL_BOOT led"
for n in 1 2 3; do holds $n 8; done
# Node 3 misses a write before the crash: it must not lead.
gal_kill 3
gal_size 1 2
writes 2 9
gal_restart crash
echo "$0: restart after kill -9 of every node in $GAL_TOOK ms," \
    "bootstrapped from node $GAL_BOOT (seqnos $GAL_SEQNOS)"
[ "$GAL_BOOT" != 3 ] || gal_fail "node 3, which missed a write, led"
for n in 1 2 3; do holds $n 9; done
exit 0
