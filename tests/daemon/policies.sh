#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# policies.sh: the per-job options on one daemon: a timeout kills the
# job's process group, retries are attempts of the same fire, overlap
# forbidden records skipped fires, and after a stop the misfire policy
# either catches up once or notes the fire missed.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"

cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_TIMEOUT=1s
*/3 * * * * * $ME echo \$CLUSTERCRON_JOB_ID >$O/timeout.id; (sleep 30; touch $O/child.survived) & sleep 30
CLUSTERCRON_TIMEOUT=0
CLUSTERCRON_RETRY=1s,1s
*/10 * * * * * $ME echo \$CLUSTERCRON_JOB_ID >$O/retry.id; echo \$CLUSTERCRON_ATTEMPT >>$O/retry.attempts; exit 3
CLUSTERCRON_RETRY=0
@reboot $ME echo \$CLUSTERCRON_NODE >>$O/reboot
CLUSTERCRON_SPREAD=7s
*/10 * * * * * $ME echo \$CLUSTERCRON_FIRE_TIME \$(date -u +\%s) >>$O/spread
CLUSTERCRON_SPREAD=0
CLUSTERCRON_OVERLAP=forbid
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID >$O/forbid.id; mkdir $O/lock || touch $O/overlapped; sleep 2.5; rmdir $O/lock
EOF

dmn_start a

has_run() # ID STATE-PATTERN
{
	runs | grep -qE "^$1 [0-9]+ $2"
}

wait_for 10 test -s "$O/timeout.id" || fail "timeout job did not start"
tid=$(cat "$O/timeout.id")
wait_for 15 has_run "$tid" "1 a finished -?[0-9]+ 15 " ||
    fail "timeout: no run ended by SIGTERM"
contains "timeout logged" "$(cat "$T/a.log")" "TIMEOUT \("

wait_for 15 test -s "$O/retry.id" || fail "retry job did not start"
rid=$(cat "$O/retry.id")
wait_for 15 has_run "$rid" "3 a finished 3 0 " ||
    fail "retry: no third attempt"
fire=$(runs | awk -v id="$rid" '$1 == id && $3 == 1 { print $2; exit }')
same "retry: three attempts of one fire, each exit 3" \
    "$(runs | awk -v id="$rid" -v f="$fire" '$1 == id && $2 == f {
	print $3, $6 }')" "1 3
2 3
3 3"
contains "retry logged" "$(cat "$T/a.log")" "RETRY \(a [0-9T:-]+Z attempt 2 in 1s; "
same "CLUSTERCRON_ATTEMPT counts" "$(head -n 3 "$O/retry.attempts")" "1
2
3"

wait_for 10 test -s "$O/forbid.id" || fail "overlap job did not start"
fid=$(cat "$O/forbid.id")
wait_for 10 has_run "$fid" "0 a skipped" ||
    fail "overlap forbidden: no skipped fire recorded"
test -f "$O/overlapped" && fail "overlap forbidden: two runs at once"

# Spreading: each fire starts the same delay after its instant, the
# delay derived from the job's identity (so the same on every node).
wait_for 30 at_least 2 "$O/spread" || fail "spread job did not run twice"
delays=$(while read -r fire start; do
	echo $((start - $(date -u -d "$(echo "$fire" | sed 's/T/ /; s/Z$//')" \
	    +%s)))
done <"$O/spread" | sort -u)
contains "spread: one delay, below the spread" "$delays" '^[0-6]$'
same "spread: the same delay each time" "$(echo "$delays" | wc -l |
    tr -d ' ')" 1
same "@reboot ran once" "$(cat "$O/reboot")" a

test -f "$O/child.survived" && fail "timeout left a child of the job"

# A daemon killed while a forbidden-overlap job runs leaves that run
# "running" in the store.  Restarted, it must wait for the job it left
# behind, then run the job again rather than skip it for ever.
wait_for 10 test -d "$O/lock" || fail "overlap job not seen running"
kill -9 "$(cat "$T/a/pid.shell")"
wait_for 10 dmn_dead a || fail "daemon did not die"
rm -f "$O/forbid.id"
dmn_start a
wait_for 10 test -s "$O/forbid.id" ||
    fail "a run left by a killed daemon forbids its job for ever"
test -f "$O/overlapped" && fail "overlap forbidden: two runs after a restart"
same "@reboot not again on a restart" "$(cat "$O/reboot")" a
dmn_stop a

# Misfires: a second daemon, stopped while fires pass.
STORE=sqlite:$T/b.db
dmn_setup b </dev/null
cat >"$T/b/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_MISFIRE=catchup:1m
*/4 * * * * * $ME echo \$CLUSTERCRON_FIRE_TIME >>$O/catchup
CLUSTERCRON_MISFIRE=skip
*/4 * * * * * $ME echo \$CLUSTERCRON_JOB_ID >$O/skip.id
EOF
dmn_start b
wait_for 10 test -s "$O/skip.id" || fail "misfire jobs did not run"
wait_for 10 test -s "$O/catchup" || fail "misfire jobs did not run"
dmn_stop b
stopped=$(date +%s)
# Fires are missed once 5 s past, the margin left to on-time nodes.
past() { [ "$(date +%s)" -ge $((stopped + 11)) ]; }
wait_for 15 past
n=$(count_lines "$O/catchup")
dmn_start b
wait_for 10 in_log b "CLAIMED \(b [0-9T:-]+Z catching up; " ||
    fail "no catch-up run"
wait_for 10 at_least $((n + 1)) "$O/catchup" || fail "catch-up did not run"
sid=$(cat "$O/skip.id")
wait_for 10 has_run "$sid" "0 b missed" || fail "missed fire not noted"
contains "missed logged" "$(cat "$T/b.log")" "MISSED \(b [0-9T:-]+Z [0-9a-f]{32}: "
same "one catch-up only" "$(grep -c 'catching up' "$T/b.log")" 1
dmn_stop b

finish
