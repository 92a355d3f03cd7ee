#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-beat-stall.sh: the heartbeat goes on while the loop is stuck.
# n1 and n2 on MariaDB (heartbeat-interval 1s, node-timeout 3s) run a
# CLUSTERCRON_LOST=rerun job every second that lasts three seconds.  n2
# starts first and heartbeats long enough to hold the right to reap
# dead nodes.  n1 then starts with its loop made to stall 7 s (the
# store's fault hook, kind stall) just after the record of its first
# run's start: for more than twice node-timeout its loop makes no turn,
# with that run recorded running and its job still at work.  Its
# heartbeat thread renews meanwhile, so n2 does not take n1 for dead:
# no run is marked lost, nothing is rerun, each fire runs once.  n1
# says the stall in its log.  (Driven from the loop, as before, the
# heartbeat stalled with it: n2 marked n1's run lost and ran the fire a
# second time while the first run went on.)

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2; do
	dmn_setup $n <<EOF2
heartbeat-interval = 1s
node-timeout = 3s
EOF2
	cat >"$T/$n/crontab" <<EOF2
CLUSTERCRON_SECONDS=yes
CLUSTERCRON_LOST=rerun
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/every1; sleep 3
EOF2
done

# n2 may reap once it has renewed for node-timeout, plus the 5 s a node
# may take to reconnect, plus a heartbeat-interval: 9 s.
dmn_start n2
wait_for 40 at_least 11 "$O/every1" || fail "n2 ran too few fires"
CLUSTERCRON_TEST_FAULTS=run_start.after:1:stall:7 dmn_start n1
n1run() { [ -n "$(run_rows 'node == "n1"')" ]; }
wait_for 30 n1run || fail "n1 started no run"
stall_s=$(date +%s)
echo "n1's loop stalls from about $stall_s ($(elapsed))"
# Past the stall: n1 claims again.
after() { [ "$(last_claim n1)" -gt $((stall_s + 8)) ]; }
wait_for 40 after || fail "n1 claims nothing after its stall"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 4)) "$O/every1" || fail "no fires at the end"
dmn_stop n1
dmn_stop n2

same "no run marked lost" "$(run_rows 'state == "lost"')" ""
same "n2 took no node for dead" "$(grep -E 'LOST|node dead' "$T/n2.log")" ""
same "no fire rerun" "$(awk '$3 != 1' "$O/every1")" ""
same "no fire twice" "$(dups_of "$O/every1")" ""
same "n1's lease never lapsed" "$(grep -E 'FENCED \(no heartbeat|renewed after' \
    "$T/n1.log")" ""
contains "n1 says its loop stalled while the heartbeat went on" \
    "$(cat "$T/n1.log")" \
    'STALL \(the loop was away [0-9]+\.[0-9] s; the heartbeat went on\)'
finish
