#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# dropped.sh: fires dropped while the store was down are settled once
# it answers; deterministically, through the store's fault hook
# (CLUSTERCRON_TEST_FAULTS) rather than a server stopped at some moment
# (tests/cluster/outage.sh).
#
# Two every-second jobs, one with the default misfire policy (skip),
# one with CLUSTERCRON_MISFIRE=catchup, are claimed together in one
# batch per second.  The third batch fails (the store is down from
# then on, its two fires in doubt), and so does reading the claims of
# the fires in doubt at the next four fires, which are therefore
# dropped unclaimed.  At the fire after, the store answers: the two
# fires in doubt are ours and on time, so they run.  A dropped fire
# still as recent as the misfire pass leaves to the nodes firing on
# time (a second or two) runs, late; an older one is a misfire: the
# skip job's are recorded missed, and of the catch-up job's the latest
# runs once while the earlier ones are recorded missed.  Every other
# fire runs once.

. "$top_srcdir/tests/daemon/lib.sh"
# The settling of fires is timed by the log's stamps.
DMN_STAMPED=1
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8); -d adds each fire's steps).
DMN_FLAGS="-L 31 -d"

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

f=claim.read.before:1:fail
CLUSTERCRON_TEST_FAULTS=batch.update.before:3:fail,$f,$f,$f,$f dmn_start a
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
contains "the recent dropped fires logged as run late" "$log" \
    'CLAIMED \(a [0-9T:-]+Z late, held through an outage; '

# state JOB: "fire attempt state" of each row of the job, by fire.
state()
{
	printf '%s\n' "$r" | awk -v j="$1" '$1 == j { print $2, $3, $5 }' |
	    sort -n
}

# dropped ID: "fire gap" of each fire of job ID that was dropped, by
# fire: the seconds from its instant to the log line that settled it.
dropped()
{
	printf '%s\n' "$log" | awk -v j="$1" '
	    $0 ~ "due -> dropped on held; " j "\\)" { d[$6] = 1 }
	    $0 ~ "dropped -> .*; " j "\\)" { s[$6] = $1 }
	    END { for (f in d) print f, s[f] }' |
	    while read -r _f _s; do
		_f=$(date -u -d "$_f" +%s)
		echo "$_f $(($(date -u -d "$_s" +%s) - _f))"
	    done | sort -n
}

# check NAME: the job of file $O/NAME.
check()
{
	_id=$(head -n 1 "$O/$1" | cut -d' ' -f1)
	_s=$(state "$_id")
	same "$1: each fire recorded once" \
	    "$(printf '%s\n' "$_s" | cut -d' ' -f1 | uniq -d)" ""
	same "$1: no fire skipped over, first to last" \
	    "$(printf '%s\n' "$_s" | awk 'NR > 1 && $1 != last + 1 {
		print "gap after", last } { last = $1 }')" ""
	same "$1: every other fire ran once and finished" \
	    "$(printf '%s\n' "$_s" | grep -cv -e ' 1 finished$' -e ' 0 missed$')" 0
	same "$1: what ran is what the runs table says" \
	    "$(cut -d' ' -f2 "$O/$1" | sort -n | tr '\n' ' ')" \
	    "$(printf '%s\n' "$_s" | awk '$3 == "finished" { print $1 }' |
	    tr '\n' ' ')"
	# Its dropped fires, with the state each ended in.
	_d=$(dropped "$_id" | while read -r _f _g; do
		echo "$_f $_g $(printf '%s\n' "$_s" | awk -v f="$_f" \
		    '$1 == f { print $3 }')"
	done)
	same "$1: four fires dropped, one after the other" \
	    "$(printf '%s\n' "$_d" | awk 'NR > 1 && $1 != last + 1 {
		print "gap after", last } { last = $1 } END { print NR }')" 4
	# Settled a second after its instant, a fire is on time; four
	# seconds after, it is a misfire (recover_limit() in claim.c: two
	# seconds and the claim deferral; the log's stamp, the second its
	# loop's turn began, is a second earlier at most).
	same "$1: the dropped fires still recent ran" \
	    "$(printf '%s\n' "$_d" | awk '$2 <= 1 && $3 != "finished"')" ""
	contains "$1: one dropped fire still recent" "$_d" \
	    '^[0-9]+ [01] finished$'
	# The first held, settled four seconds after it at least (the log
	# may say three: its stamp is the loop's turn's), is a misfire.
	_m=$(printf '%s\n' "$_d" | awk 'NR == 1 && $3 == "missed" { print $1 }')
	ntest=$((ntest + 1))
	if [ -n "$_m" ] && printf '%s\n' "$_s" |
	    grep -q "^$((_m - 1)) 1 finished$"; then
		echo "ok: $1: the fire in doubt before the dropped ones ran"
	else
		fail "$1: the fire in doubt before the dropped ones did not run"
	fi
	missed_at=$_m
	drops=$_d
}

r=$(runs)
check skip
skip_first=$missed_at
same "skip: every dropped fire four seconds old was recorded missed" \
    "$(printf '%s\n' "$drops" | awk '$2 >= 4 && $3 != "missed"')" ""
same "skip: the dropped fires: missed, then run" \
    "$(printf '%s\n' "$drops" | awk '{ print $3 }' | uniq | tr '\n' ' ')" \
    "missed finished "
check catchup
# Of the catch-up job's misfires, the latest ran (catching up).
c=$(printf '%s\n' "$drops" | awk '$3 == "missed" { m = $1 }
    END { print m + 1 }')
same "catchup: the dropped fires: missed, then run" \
    "$(printf '%s\n' "$drops" | awk '{ print $3 }' | uniq | tr '\n' ' ')" \
    "missed finished "
same "catchup: its first dropped fire missed like the skip job's" \
    "$missed_at" "$skip_first"
contains "the caught-up fire is logged as such" "$log" \
    "CLAIMED \\(a $(date -u -d @"$c" +%Y-%m-%dT%H:%M:%SZ) catching up; "
# (The in-doubt fire before them is logged catching up too.)
same "catchup: one dropped fire caught up, the latest misfire" \
    "$(printf '%s\n' "$drops" | while read -r f g st; do
	printf '%s\n' "$log" | grep -F "; $(head -n 1 "$O/catchup" |
	    cut -d' ' -f1):" | grep -q "CLAIMED (a $(date -u -d @"$f" \
	    +%Y-%m-%dT%H:%M:%SZ) catching up" && echo "$f"
    done)" "$c"
finish
