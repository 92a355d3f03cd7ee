#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# stop-grace.sh: three daemons on one private MariaDB, a job with
# CLUSTERCRON_LOST=rerun that runs eight seconds.  One node is told to
# stop (SIGTERM) while it runs it: it waits for the run within its
# shutdown-grace and then exits.  It is alive all that time, so the
# others mark none of its runs lost and rerun nothing: the fire runs
# once and its run ends finished.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

nodes="n1 n2 n3"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
claim-defer-ms = 150
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
CLUSTERCRON_LOST=rerun
*/5 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rr.start; sleep 8; echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rr.end
EOF
done
for n in $nodes; do
	dmn_start $n
done
wait_for 30 at_least 3 "$O/every1" || fail "too few fires"

# The node running the next long job is told to stop once the store
# shows the run.
k=$(count_lines "$O/rr.start")
wait_for 10 at_least $((k + 1)) "$O/rr.start" || fail "no long job started"
line=$(sed -n "$((k + 1))p" "$O/rr.start")
iso=${line%% *}
fire=$(echo "$iso" | iso_epochs)
victim=$(echo "$line" | cut -d' ' -f2)
rr_id=$(job_of '/rr\.start;')
recorded() { [ -n "$(run_rows "fire == $fire && node == \"$victim\" && \
    state == \"running\" && job == \"$rr_id\"")" ]; }
wait_for 10 recorded || fail "the store does not show the run"
kill -TERM "$(dmn_pid "$victim")"
echo "told $victim to stop ($(elapsed)) while it runs $iso"
wait_for 30 dmn_dead "$victim" || fail "$victim did not stop"
echo "$victim stopped ($(elapsed))"
# A node-timeout and more after it exits, with the others up.
n=$(count_lines "$O/every1")
wait_for 10 at_least $((n + 4)) "$O/every1" || fail "the others did not go on"
starts=$(grep "^$iso " "$O/rr.start")
state=$(run_rows "job == \"$rr_id\" && fire == $fire && \
    node == \"$victim\" && attempt == 1" | cut -d' ' -f5)
lost=$(grep -h "LOST ($victim .*node dead" "$T"/n?.log)
r=$(run_rows)
for n in $nodes; do
	[ "$n" = "$victim" ] || dmn_stop $n
done

echo "$iso started: $starts"
contains "$victim waited for its run" "$(cat "$T/$victim.log")" 'STOPPING \([1-9][0-9]* running'
# A stopping daemon heartbeats while its jobs run (2c84477): before,
# node_beat() returned at once when stopping, so the others took the
# node for dead past node-timeout and reran its fires.
same "no run of the stopping node marked lost" "$lost" ""
same "the fire started once" "$(echo "$starts" | grep -c .)" 1
same "its run ended finished" "$state" finished
same "every1: no fire twice" "$(dups_of "$O/every1")" ""
same "runs: no duplicate but lost-and-rerun" "$(echo "$r" | awk '$3 >= 1 {
	n[$1 " " $2]++; if ($5 == "lost") l[$1 " " $2] = 1 } END {
	for (f in n) if (n[f] > 2 || (n[f] == 2 && !(f in l))) print f }')" ""

echo "runtime: $(elapsed)"
finish
