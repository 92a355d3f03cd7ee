#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# sigstop-jobs.sh: a user stops his own jobs (issue 12, points 1 and 6).
# The hostile user's table starts 40 jobs every second, and every
# process of his is stopped (SIGSTOP) as soon as it is seen, wherever it
# is between its runner's fork and the job's end, as he may do to his
# own processes.  It once held the daemon's loop for up to 10 s per 32
# jobs; now a job's start is its runner's business.  Beside him the good
# user's every-second job runs every second exactly once, on time
# (tests/hostile/good.sh), and the daemon answers SIGTERM at once with
# hundreds of stopped jobs behind it.

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock
. "$top_srcdir/tests/hostile/good.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
needs pgrep
H=cchs$$
dmn_useradd "$H" "$T/home/$H"

dmn_setup a </dev/null
dmn_start a
good_start ccgs$$ "$T/a/sock"

{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=1
	while [ $i -le 40 ]; do
		echo "* * * * * * sleep 1000 # $i"
		i=$((i + 1))
	done
} >"$T/hostile.tab"
chmod 644 "$T/hostile.tab"

# The stopper: every process of H, stopped as soon as it is seen.  It
# starts once his table is in: ctab runs as H too, and stopped it would
# hold the test (and the flood lock) for good.
stopper()
{
	while [ ! -e "$T/stop.end" ]; do
		pgrep -u "$H" | xargs -r kill -STOP 2>/dev/null
		sleep 0.05
	done
}
STOPPER=
trap '_st=$?; touch "$T/stop.end"; [ -z "$STOPPER" ] || wait $STOPPER;
    pkill -KILL -u "$H";
    (exit $_st); dmn_cleanup' EXIT

good_begin
runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" "$T/hostile.tab" 8>&- ||
    fail "the hostile table was not installed"
stopper &
STOPPER=$!
stopped()
{
	[ "$(ps -o stat= -u "$H" | grep -c '^T')" -ge "$1" ]
}
past() { [ "$(date +%s)" -gt $((GOOD_FROM + $1)) ]; }
wait_for 60 stopped 400 ||
    fail "the hostile jobs did not pile up: $(ps -o stat= -u "$H" |
    grep -c '^T') stopped"
wait_for 60 past 20
echo "$(ps -o stat= -u "$H" | grep -c '^T') processes of $H stopped"
good_end
good_check "40 jobs a second, each stopped"

# SIGTERM with all of it behind: the daemon goes at once.  Ordering,
# not time: it is gone while every stopped job is still there.
n=$(ps -o stat= -u "$H" | grep -c '^T')
kill -TERM "$(cat "$T/a/pid.shell")"
wait_for 30 dmn_dead a || fail "the daemon did not stop on SIGTERM"
left=$(ps -o stat= -u "$H" | grep -c '^T')
[ "$left" -ge "$n" ] ||
    fail "the stopped jobs were ended before the daemon left ($left of $n)"
ntest=$((ntest + 1))
finish
