#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-beat-wedged.sh: a heartbeat does not keep a wedged daemon alive.
# As node-beat-stall.sh, but n1's loop stalls 30 s, far past the four
# times node-timeout (12 s) its heartbeat thread goes on without a turn
# of the loop: the thread then withholds its renewals, n2 takes n1 for
# dead, marks its run lost and, as the job asks, runs the fire again.
# n1, back, says its heartbeat was withheld.  (A thread that renewed
# whatever the loop did would keep n1 looking alive for as long as its
# loop was stuck, and n2 would mark nothing lost.)

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

dmn_start n2
wait_for 40 at_least 11 "$O/every1" || fail "n2 ran too few fires"
CLUSTERCRON_TEST_FAULTS=run_start.after:1:stall:30 dmn_start n1
n1run() { [ -n "$(run_rows 'node == "n1"')" ]; }
wait_for 30 n1run || fail "n1 started no run"
echo "n1's loop stalls ($(elapsed))"
run1=$(run_rows 'node == "n1"' | head -n 1)
job=$(echo "$run1" | cut -d' ' -f1)
fire=$(echo "$run1" | cut -d' ' -f2)
iso=$(date -u -d "@$fire" +%Y-%m-%dT%H:%M:%SZ)
lost() {
	[ -n "$(run_rows "job == \"$job\" && fire == $fire && \
	    node == \"n1\" && attempt == 1 && state == \"lost\"")" ]
}
wait_for 60 lost || fail "n2 did not take n1 for dead: $iso not lost"
echo "n1's run of $iso marked lost ($(elapsed))"
wait_for 20 grep -q "^$iso n2 2\$" "$O/every1" || fail "n2 did not rerun $iso"
wait_for 60 in_log n1 'HEARTBEAT \(withheld: the loop made no turn for [0-9]+\.[0-9] s, past the 12 s a heartbeat goes on without it' ||
    fail "n1 did not say it withheld its heartbeat"
dmn_stop n1
dmn_stop n2

contains "n2 took n1 for dead" "$(cat "$T/n2.log")" \
    "LOST \\(n1 $iso attempt 1, node dead"
same "n1's run of $iso ran once on n1, then on n2" \
    "$(grep "^$iso " "$O/every1")" "$iso n1 1
$iso n2 2"
finish
