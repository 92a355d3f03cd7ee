#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# overlap.sh: CLUSTERCRON_OVERLAP=forbid holds across two daemons on a
# private MariaDB while a run is in flight but not yet recorded.  A node
# records a run only after it won the claim and forked; through the
# store's fault hook each node's first run start fails to be written
# three times, so its run stays unrecorded for seconds while the other
# node claims the job's next fires, every second.  Those must be skipped,
# seen from the claims in flight (fire.c, overlapping()): the job's
# runs, as its own file tells them, never overlap in time.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

cat >"$T/job" <<EOF
#!/bin/sh
echo "s \$(date +%s.%N) \$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/runs
sleep 4
echo "e \$(date +%s.%N) \$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/runs
EOF
chmod 755 "$T/job"

nodes="n1 n2"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 4s
node-timeout = 12s
store-retry-interval = 4s
claim-defer-ms = 150
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_OVERLAP=forbid
* * * * * * $ME $T/job
EOF
done
for n in $nodes; do
	CLUSTERCRON_TEST_FAULTS=run_start.before:1:fail,run_start.before:2:fail,run_start.before:3:fail \
	    dmn_start $n
done

# Three runs end, so both nodes ran while the other's run was unrecorded
# or at least one did and the other skipped meanwhile.
ends() { [ "$(grep -c '^e ' "$O/runs" 2>/dev/null)" -ge "$1" ]; }
wait_for 60 ends 3 || fail "the job did not run three times"
for n in $nodes; do
	dmn_stop $n
done

cat "$O/runs"
late=$(cat "$T"/n?.log | grep -c 'STORE DOWN (recording a run')
same "a run start failed to be written at least once" \
    "$([ "$late" -ge 1 ] && echo yes)" yes
# Starts and ends in the order they happened; a start while another run
# is open is an overlap.
same "no two runs at once" "$(sort -k2,2n "$O/runs" | awk '
	$1 == "s" { if (open > 0) print "overlap at " $3 " on " $4; open++ }
	$1 == "e" { open-- }')" ""
skipped=$(runs | awk '$5 == "skipped"' | wc -l | tr -d ' ')
same "fires were skipped meanwhile" "$([ "$skipped" -ge 1 ] && echo yes)" yes
finish
