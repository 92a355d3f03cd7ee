#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# outage-rerun.sh: three daemons on one private MariaDB, a job with
# CLUSTERCRON_LOST=rerun that runs twelve seconds.  MariaDB is killed
# while it runs and started again after node-timeout has passed: every
# node was alive all along, only cut off, so no run of theirs is lost
# and no fire is rerun; the fire in flight at the kill runs once.
# Checked from the jobs' files and the runs table while all three nodes
# are still up (what a stop does is stop-grace.sh's business).

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

nodes="n1 n2 n3"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
store-retry-interval = 1s
claim-defer-ms = 150
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
CLUSTERCRON_LOST=rerun
*/4 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rr.start; sleep 12; echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rr.end
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/local.\$CLUSTERCRON_NODE
EOF
done
for n in $nodes; do
	dmn_start $n
done
wait_for 30 at_least 3 "$O/every1" || fail "too few fires before the outage"

# The store dies while a long run is recorded in flight.
k=$(count_lines "$O/rr.start")
wait_for 10 at_least $((k + 1)) "$O/rr.start" || fail "no long job started"
line=$(sed -n "$((k + 1))p" "$O/rr.start")
iso=${line%% *}
fire=$(echo "$iso" | iso_epochs)
owner=$(echo "$line" | cut -d' ' -f2)
rr_id=$(job_of '/rr\.start;')
recorded() { [ -n "$(run_rows "fire == $fire && node == \"$owner\" && \
    state == \"running\" && job == \"$rr_id\"")" ]; }
wait_for 10 recorded || fail "the store does not show the run"
mdb_kill
echo "store killed ($(elapsed)) while $owner runs $iso"

# Away for longer than node-timeout: every node says so and runs its
# node-local job meanwhile, four of them.
all_log() { for _n in $nodes; do in_log $_n "$1" || return 1; done; }
wait_for 20 all_log 'STORE DOWN' || fail "nodes did not notice the store went"
l=$(count_lines "$O/local.n1")
wait_for 20 at_least $((l + 4)) "$O/local.n1" ||
    fail "node-local jobs stopped with the store"
mdb_start
echo "store back ($(elapsed))"
wait_for 40 all_log 'STORE BACK' || fail "nodes did not notice the store came back"

# The run in flight at the kill ends (twelve seconds after its start);
# then the checks, all three nodes up.
wait_for 20 grep -q "^$iso " "$O/rr.end" || fail "the run did not end"
n=$(count_lines "$O/every1")
wait_for 10 at_least $((n + 3)) "$O/every1" || fail "cluster jobs did not resume"
local_id=$(job_of '/local\.')
r=$(run_rows | awk -v l="$local_id" '$1 != l')
starts=$(grep "^$iso " "$O/rr.start")
lost=$(grep -h 'LOST (.*node dead' "$T"/n?.log)
for n in $nodes; do
	dmn_stop $n
done

echo "$iso started: $starts"
echo "marked lost: $lost"
# The reaper waits, after an outage, until the others could renew
# (2c84477): before, the first node back took every other node for dead,
# their heartbeats being as old as the outage, and reran their fires
# while the first attempts still ran.
same "no run of a live node marked lost" "$lost" ""
same "the fire in flight at the kill started once" \
    "$(echo "$starts" | grep -c .)" 1
same "no duplicate but lost-and-rerun" "$(echo "$r" | awk '$3 >= 1 {
	n[$1 " " $2]++; if ($5 == "lost") l[$1 " " $2] = 1 } END {
	for (f in n) if (n[f] > 2 || (n[f] == 2 && !(f in l))) print f }')" ""
same "every1: no fire twice" "$(dups_of "$O/every1")" ""

echo "runtime: $(elapsed)"
finish
