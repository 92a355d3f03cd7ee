#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-daemons.sh: three clustercron daemons on a private three-node
# Galera cluster (tests/lib/galera.sh), each pointed at its own database
# node first and at the two others after it (a store URL of three
# servers), running every-second cluster jobs, through every fault of
# issue 14 on one cluster (started once, which saves the minute a
# cluster of its own per fault would cost).  One database node is
# killed with -9 and rejoins by IST; the one d3 is on then is frozen
# with SIGSTOP past the group's timeout, then resumed; the one d1 is on
# then is desynced; the one d2 is on then is cut off from the others'
# group traffic, its server alive, and so leaves the primary component
# (it answers 1047 to every statement).  The daemon whose database node
# went moves on to another within seconds (its heartbeat goes through
# another, and it claims fires again).  Then the whole cluster is
# restarted, cleanly and after a kill -9 of all three servers.  Every
# fire runs once: no fire twice in the jobs' files nor in the runs
# table, none missed but while the cluster had no primary component
# (and the seconds around it that the group and a daemon take), and
# every run has its claims row naming the node that ran it (read
# through tests/daemon/ccstore, as the cluster tests do).

. "$top_srcdir/tests/daemon/lib.sh"
rm -rf "$T"
. "$top_srcdir/tests/lib/galera.sh"
GALD_STAMP='s\%3N'
. "$top_srcdir/tests/lib/galera-daemons.sh"

# Each daemon's heartbeat went through its own database node.
on_node() { ccs servers | grep -q "^$1 127.0.0.1:$2 (node$3) | Synced"; }
for i in 1 2 3; do
	eval "p=\$GAL_PORT_$i"
	wait_for 10 on_node d$i "$p" $i ||
	    fail "d$i is not on database node $i: $(ccs servers | tr '\n' ';')"
done
# clustercron status shows it too.
run "$CLUSTERCRON" status -c "$T/d1/clustercron.conf"
for i in 1 2 3; do
	eval "p=\$GAL_PORT_$i"
	contains "status: d$i on database node $i" "$out" \
	    "^d$i .* 127\.0\.0\.1:$p \(node$i\), Synced, primary of 3\$"
done

healthy_end=$(date +%s)

# kill -9 of database node 2: d2 goes on through another node (its
# heartbeat names another, and it wins fires again).
off_node() { ccs servers | grep "^$1 127.0.0.1:" | grep -vq "(node$2)"; }
f=$(last_claim d2)
t0=$(gal_now)
gal_kill 2
wait_for 30 off_node d2 2 ||
    fail "d2's heartbeat still names node 2: $(ccs servers | grep '^d2 ')"
echo "d2 beat through another node $(($(gal_now) - t0)) ms after database node 2 died"
wait_for 30 claims_after d2 "$f" || fail "d2 did not claim again after node 2 died"
echo "d2 won a fire again $(($(gal_now) - t0)) ms after database node 2 died"
gal_size 1 2
gal_rejoin 2
echo "node 2 back by IST in $GAL_TOOK ms"

# The database node a daemon's last heartbeat went through: a daemon
# may have moved on already (a view change of the cluster is a moment
# when its node is not Synced), so each fault below hits the node the
# daemon is on now.
node_of() { ccs servers | sed -n "s/^$1 .*(node\([0-9]\)) |.*/\1/p"; }

# SIGSTOP of d3's database node past the group's timeout: d3 moves on
# once its read times out (8 s); the others stall while it is dropped.
z=$(node_of d3)
[ -n "$z" ] || fail "d3's database node unknown: $(ccs servers | tr '\n' ';')"
f=$(last_claim d3)
t0=$(gal_now)
gal_pause "$z"
wait_for 30 off_node d3 "$z" ||
    fail "d3's heartbeat still names node $z: $(ccs servers | grep '^d3 ')"
echo "d3 beat through another node $(($(gal_now) - t0)) ms after database node $z froze"
wait_for 30 claims_after d3 "$f" || fail "d3 did not claim again while node $z froze"
echo "d3 won a fire again $(($(gal_now) - t0)) ms after database node $z froze"
[ "$z" = 1 ] && w=2 || w=1
gal_size $w 2
c=$(count_lines "$O/a")
wait_for 20 at_least $((c + 3)) "$O/a" || fail "fires stopped while node $z froze"
gal_resume "$z"
gal_together
echo "node $z back in the cluster $(($(gal_now) - t0)) ms after it froze"
c=$(count_lines "$O/a")
wait_for 20 at_least $((c + 3)) "$O/a" || fail "fires stopped after node $z came back"

# d1's database node desynced (as a donor of a state transfer is): d1
# leaves it at its next look at its server (every 5 s of use).
z=$(node_of d1)
[ -n "$z" ] || fail "d1's database node unknown: $(ccs servers | tr '\n' ';')"
t0=$(gal_now)
gal_root "$z" "SET GLOBAL wsrep_desync = ON" || fail "cannot desync node $z"
wait_for 20 off_node d1 "$z" ||
    fail "d1's heartbeat still names node $z: $(ccs servers | grep '^d1 ')"
echo "d1 beat through another node $(($(gal_now) - t0)) ms after database node $z was desynced"
gal_root "$z" "SET GLOBAL wsrep_desync = OFF" || fail "cannot resync node $z"

# d2's database node leaves the primary component, its server alive
# (cut off from the others' group traffic): the others drop it, and it
# refuses every statement with 1047.  d2 takes that for an outage of
# its server, not a fatal error, and moves on.
z=$(node_of d2)
[ -n "$z" ] || fail "d2's database node unknown: $(ccs servers | tr '\n' ';')"
f=$(last_claim d2)
lines=$(wc -l <"$T/d2.log")
t0=$(gal_now)
gal_isolate "$z" || fail "cannot isolate node $z"
[ "$z" = 1 ] && w=2 || w=1
gal_size $w 2
nonprimary() { gal_state "$1" | grep -q '^OFF .* non-Primary 1$'; }
wait_for 20 nonprimary "$z" || fail "node $z cut off is $(gal_state "$z")"
wait_for 30 off_node d2 "$z" ||
    fail "d2's heartbeat still names node $z: $(ccs servers | grep '^d2 ')"
echo "d2 beat through another node $(($(gal_now) - t0)) ms after database node $z was cut off"
wait_for 30 claims_after d2 "$f" || fail "d2 did not claim again after node $z was cut off"
echo "d2 won a fire again $(($(gal_now) - t0)) ms after database node $z was cut off"
# (Taken for an error, 1047 or 1180 would stop d2's cluster jobs until
# its next look at its server, and say so.)
same "d2 took node $z's refusal for an outage of that server" \
    "$(tail -n +$((lines + 1)) "$T/d2.log" |
    grep -E 'STORE DOWN .*\((1047|1180)\)')" ""
gal_unisolate "$z" || fail "cannot let node $z back"
gal_together
echo "node $z back in the cluster $(($(gal_now) - t0)) ms after it was cut off"

# The whole cluster restarted, cleanly (node 3 first), then after a
# kill -9 of all three at once, each time bootstrapped again from the
# most advanced server (gal_restart).  While no primary component
# exists the daemons run no cluster job (fail closed); once one exists
# again they reconnect and go on.
restart()
{
	gal_restart "$1"
	c=$(count_lines "$O/a")
	up=$(((GAL_UP + 999) / 1000))
	echo "$1 restart: no primary component for $((GAL_UP - GAL_DOWN)) ms," \
	    "three servers Synced $GAL_TOOK ms after the bootstrap began" \
	    "(node $GAL_BOOT, seqnos $GAL_SEQNOS)"
	wait_for 30 at_least $((c + 3)) "$O/a" ||
	    fail "fires did not resume after the $1 restart"
	back=$(fires_of "$O/a" | awk -v b="$((GAL_START / 1000))" '$1 >= b' |
	    head -n 1)
	echo "$1 restart: first fire run again $((back - up)) s after a" \
	    "primary component was back"
	if [ "$1" = crash ]; then
		same "crash: nothing started with every server dead" \
		    "$(cat "$O/a" "$O/b" | awk -v a="$GAL_DOWN" \
		    -v b="$GAL_START" '$3 > a + 1000 && $3 < b')" ""
	fi
}
restart clean
restart crash
for i in 1 2 3; do
	dmn_stop d$i
done
gal_together

# Exactly once: no fire twice in the files or the runs table; every run
# is its claim's winner's.
for f in a b; do
	same "$f: no fire twice" "$(dups_of "$O/$f")" ""
done
r=$(run_rows)
same "runs: no fire started twice" \
    "$(echo "$r" | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
runs_n=$(echo "$r" | awk 'NF && $3 >= 1' | wc -l)
files_n=$(($(count_lines "$O/a") + $(count_lines "$O/b")))
same "runs: one per line written by the jobs" "$runs_n" "$files_n"
claim_rows | awk '{ print $1, $2, $3 }' | sort >"$T/claims"
same "runs: each run's node holds its claim" \
    "$(echo "$r" | awk 'NF && $3 >= 1 { print $1, $2, $4 }' | sort |
    comm -23 - "$T/claims")" ""
# And every fire from the first to the last ran, but those due while
# no primary component existed, by the servers' logs (gal_noprim): the
# restarts; a primary view stuck in its state exchange, which takes no
# write (after a bootstrap, the two others joining at once have held
# it up for 3 to 19 s here); any moment the group lost it otherwise
# (on a loaded machine its short timeouts have split it, the servers
# all alive).  Around each such span: PRE seconds before it, as the
# group's writes wait for it to decide (up to its evs.inactive_timeout,
# 4 s here, and a claim then in flight; 3 s have been seen), and HELD
# after it, as a daemon tries its servers again at its first store
# call 5 s at most after its last failed try (the store's back-off; a
# call a second here) and then runs the fires it held unclaimed that
# are not yet 3 s old (claim.c's recover_limit(): 2 s, and
# claim-defer-ms rounded up).  Nothing else: the servers that stop,
# freeze, leave or rejoin while a primary component exists cost no
# fire (a claim that waits for the cluster runs late).
PRE=5
HELD=3
nop=$(gal_noprim | tr '\n' ' ')
echo "no primary component (by the servers' logs): $nop"
for f in a b; do
	from=$(fires_of "$O/$f" | head -n 1)
	to=$(fires_of "$O/$f" | tail -n 1)
	gaps=$(fires_of "$O/$f" | gaps_in 1 "$from" "$to" | awk '{ print $2 }')
	echo "$f: $(count_lines "$O/$f") fires from $from to $to;" \
	    "by node: $(cut -d' ' -f2 "$O/$f" | sort | uniq -c | tr -s ' \n' ' ')"
	echo "$f: missed: $(echo $gaps)"
	same "$f: misses only while no primary component existed" \
	    "$(echo "$gaps" | awk -v w="$nop" -v p="$PRE" -v h="$HELD" '
		BEGIN { n = split(w, x, " ") }
		NF {
			for (i = 1; i < n; i += 2)
				if ($1 >= x[i] - p && (x[i + 1] == "now" ||
				    $1 <= x[i + 1] + h))
					next
			print
		}')" ""
done
# A fire's latency, from its instant to its command's start (the
# claim-defer-ms of 100 included): before the faults, and over the run.
latency()
{
	cut -d' ' -f1 "$O/$1" | iso_epochs >"$T/fires.$1"
	cut -d' ' -f3 "$O/$1" | paste -d' ' "$T/fires.$1" - |
	    awk -v from="${2:-0}" -v to="${3:-9999999999}" \
	    '$1 >= from && $1 <= to { print $2 - $1 * 1000 }' | sort -n |
	    awk '{ v[NR] = $1 }
		END {
			if (NR == 0)
				exit
			m = int(NR * 0.5) + 1
			q = int(NR * 0.99) + 1
			if (q > NR)
				q = NR
			printf "p50 %d ms, p99 %d ms, max %d ms (%d fires)",
			    v[m], v[q], v[NR], NR
		}'
}
echo "fire latency before the faults: $(latency a 0 "$healthy_end")"
echo "fire latency over the run: $(latency a)"
echo "took $(elapsed)"
finish
