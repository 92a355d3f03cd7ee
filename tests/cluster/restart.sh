#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# restart.sh: two daemons on one private MariaDB, a job with
# CLUSTERCRON_LOST=rerun that runs six seconds.  The node running it is
# restarted (SIGTERM, then started again, as an upgrade does) while the
# job runs: the daemon is gone at once, the job runs on under its
# runner, the last heartbeat of the leaving daemon keeps the other node
# from taking the node for dead within node-timeout, and the restarted
# daemon records the job's end.  The fire runs once, its run ends
# finished with its exit status, nothing is marked lost or rerun.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

nodes="n1 n2"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 4s
claim-defer-ms = 150
EOF
	sed -i '/^shutdown-grace = /d' "$T/$n/clustercron.conf"
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_LOST=rerun
*/10 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rr.start; sleep 6; exit 4
EOF
done
for n in $nodes; do
	dmn_start $n
done

# The node running the next long job is restarted once the store shows
# the run.
k=$(count_lines "$O/rr.start")
wait_for 25 at_least $((k + 1)) "$O/rr.start" || fail "no long job started"
line=$(sed -n "$((k + 1))p" "$O/rr.start")
iso=${line%% *}
fire=$(echo "$iso" | iso_epochs)
victim=$(echo "$line" | cut -d' ' -f2)
rr_id=$(job_of '/rr\.start;')
state() {
	run_rows "fire == $fire && job == \"$rr_id\"" | cut -d' ' -f5 |
	    sort | tr '\n' ' '
}
is_state() { [ "$(state)" = "$1" ]; }
wait_for 10 is_state "running " || fail "the store does not show the run"
kill -TERM "$(dmn_pid "$victim")"
wait_for 2 dmn_dead "$victim" || fail "$victim did not stop at once"
dmn_restart "$victim"
echo "restarted $victim ($(elapsed)) while it runs $iso"
wait_for 20 is_state "finished " ||
    fail "the end is not recorded once, finished: $(state)"
end=$(ccs runs | awk -v j="$rr_id" -v f="$fire" '$1 == j && $2 == f {
    print $5, $6 }')
lost=$(grep -h "LOST (" "$T"/n?.log "$T"/n?.log.* 2>/dev/null)
starts=$(grep "^$iso " "$O/rr.start")
for n in $nodes; do
	dmn_stop $n
done

same "the fire started once" "$(echo "$starts" | grep -c .)" 1
same "its end recorded by the restarted daemon, with its exit status" \
    "$end" "finished 4"
same "no run marked lost" "$lost" ""
same "no fire twice" "$(cut -d' ' -f1 "$O/rr.start" | sort | uniq -d)" ""
finish
