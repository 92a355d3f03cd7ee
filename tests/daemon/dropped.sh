#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# dropped.sh: fires dropped while the store was down are settled, by
# their misfire policy, once it answers; deterministically, through the
# store's fault hook (CLUSTERCRON_TEST_FAULTS) rather than a server
# stopped at some moment (tests/cluster/outage.sh).
#
# Two every-second jobs, one with the default misfire policy (skip),
# one with CLUSTERCRON_MISFIRE=catchup, are claimed together in one
# batch per second.  The third batch fails (the store is down from
# then on, its two fires in doubt), and so does reading the claims of
# the fires in doubt at the next two fires, which are therefore dropped
# unclaimed.  At the fire after, the store answers: the two fires in
# doubt are ours and on time, so they run; of the dropped fires, the
# skip job's are both recorded missed, and the catch-up job's latest
# runs once while the earlier one is recorded missed.  Every other fire
# runs once.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup a </dev/null
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID \$(date -u -d \$CLUSTERCRON_FIRE_TIME +\%s) >>$O/skip
CLUSTERCRON_MISFIRE=catchup
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID \$(date -u -d \$CLUSTERCRON_FIRE_TIME +\%s) >>$O/catchup
EOF

CLUSTERCRON_TEST_FAULTS=batch.update.before:3:fail,claim.read.before:1:fail,claim.read.before:1:fail \
    dmn_start a
wait_for 30 in_log a 'STORE BACK' || fail "the store never came back"
n=$(count_lines "$O/catchup")
wait_for 20 at_least $((n + 4)) "$O/catchup" ||
    fail "the catch-up job stopped running"
wait_for 20 at_least $((n + 4)) "$O/skip" || fail "the skip job stopped running"
dmn_stop a

log=$(cat "$T/a.log")
contains "the batch failed: store down" "$log" 'STORE DOWN \(claiming fires'
contains "the fires in doubt were found free and run" "$log" \
    'CLAIMED \(a [0-9T:-]+Z catching up; '

# state JOB: "fire attempt state" of each row of the job, by fire.
state()
{
	printf '%s\n' "$r" | awk -v j="$1" '$1 == j { print $2, $3, $5 }' |
	    sort -n
}

# check NAME MISSED: the job of file $O/NAME.
check()
{
	_id=$(head -n 1 "$O/$1" | cut -d' ' -f1)
	_s=$(state "$_id")
	same "$1: each fire recorded once" \
	    "$(printf '%s\n' "$_s" | cut -d' ' -f1 | uniq -d)" ""
	same "$1: no fire skipped over, first to last" \
	    "$(printf '%s\n' "$_s" | awk 'NR > 1 && $1 != last + 1 {
		print "gap after", last } { last = $1 }')" ""
	same "$1: the fires recorded missed" \
	    "$(printf '%s\n' "$_s" | awk '$3 == "missed" { print $2 }' |
	    tr '\n' ' ')" "$2"
	same "$1: every other fire ran once and finished" \
	    "$(printf '%s\n' "$_s" | grep -cv -e ' 1 finished$' -e ' 0 missed$')" 0
	same "$1: what ran is what the runs table says" \
	    "$(cut -d' ' -f2 "$O/$1" | sort -n | tr '\n' ' ')" \
	    "$(printf '%s\n' "$_s" | awk '$3 == "finished" { print $1 }' |
	    tr '\n' ' ')"
	# The missed fires: the two after the fires in doubt, which ran.
	_m=$(printf '%s\n' "$_s" | awk '$3 == "missed" { print $1; exit }')
	ntest=$((ntest + 1))
	if [ -n "$_m" ] && printf '%s\n' "$_s" |
	    grep -q "^$((_m - 1)) 1 finished$"; then
		echo "ok: $1: the fire before the dropped ones ran"
	else
		fail "$1: the fire in doubt before the dropped ones did not run"
	fi
	missed_at=$_m
}

r=$(runs)
check skip "0 0 "
skip_m=$missed_at
check catchup "0 "
same "the catch-up job missed the first dropped fire, and ran the second" \
    "$missed_at $(state "$(head -n 1 "$O/catchup" | cut -d' ' -f1)" |
    awk -v m="$missed_at" '$1 == m + 1 { print $3 }')" \
    "$skip_m finished"
contains "the caught-up fire is logged as such" "$log" \
    "CLAIMED \\(a $(date -u -d @$((skip_m + 1)) +%Y-%m-%dT%H:%M:%SZ) catching up; "
finish
