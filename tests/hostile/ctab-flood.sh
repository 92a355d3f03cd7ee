#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-flood.sh: the daemon's loop never waits on a ctab client (issue
# 12, point 1).  One hostile user opens 1,000 connections to ctab's
# socket and holds them idle; another opens 100 that send a byte a
# second of a request they never finish.  Meanwhile a good user's ctab
# -l and ctab FILE are served before any of those connections is closed
# at its deadline, that is while they are all still held: the daemon
# serves its clients side by side, not one after another.  The good
# user's every-second job runs each second of the attack, once.  Each
# hostile user keeps a few connections (the most a user may have) and
# is refused the rest at once; the log says so, and later that the held
# ones timed out, without a line for each.

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
needs setpriv
G=ccfg$$
H=ccfh$$
S=ccfs$$
for u in "$G" "$H" "$S"; do
	dmn_useradd "$u" "$T/home/$u"
done
HOG=$top_builddir/tests/hostile/cchog
trap 'rc=$?; for p in idle drip; do [ -f "$T/$p.pid" ] &&
    kill "$(cat "$T/$p.pid")" 2>/dev/null; done; (exit $rc); dmn_cleanup' EXIT

dmn_setup a </dev/null
dmn_start a
SOCK=$T/a/sock
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$SOCK" "$@"; }
mkdir -m 777 "$T/hog"
# field FILE NAME: a number of a hog's status line.
field()
{
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}
hog_ready() { [ -f "$1" ] && [ "$(field "$1" ready)" = 1 ]; }

printf '%s\n' 'CLUSTERCRON_SECONDS=yes' 'MAILTO=""' \
    '* * * * * * echo good-every-second >/dev/null' >"$T/good"
chmod 644 "$T/good"
run as "$G" "$CTAB" "$T/good"
same "$G installs an every-second job" "$rc$err" 0
has_job() { [ -n "$(job_of good-every-second)" ]; }
wait_for 10 has_job || fail "$G's job is not in the store"
job=$(job_of good-every-second)
# fires: the fires of $G's job that ran, in seconds, sorted.
fires() { run_rows "job == \"$job\"" | awk '{ print $2 }' | sort -n; }
ran_after() { [ "$(fires | tail -n 1)" -ge "$1" ] 2>/dev/null; }
wait_for 15 ran_after 1 || fail "$G's job does not run"

# The attack.
from=$(($(date +%s) + 1))
hog() { _u=$1; shift; setpriv --reuid="$_u" --regid="$_u" --clear-groups \
    "$HOG" "$@"; }
hog "$H" "$SOCK" 1000 "$T/hog/idle" &
echo $! >"$T/idle.pid"
hog "$S" -d "$SOCK" 100 "$T/hog/drip" &
echo $! >"$T/drip.pid"
wait_for 30 hog_ready "$T/hog/idle" || fail "the idle hog never got going"
wait_for 30 hog_ready "$T/hog/drip" ||
    fail "the dripping hog never got going"
echo "attack: idle $(cat "$T/hog/idle"); drip $(cat "$T/hog/drip")"

t0=$(date +%s%N)
run as "$G" "$CTAB" -l
t1=$(date +%s%N)
same "$G's ctab -l during the attack" "$rc:$out" "0:$(cat "$T/good")"
{ cat "$T/good"; echo "0 0 1 1 * * true"; } >"$T/good2"
chmod 644 "$T/good2"
run as "$G" "$CTAB" "$T/good2"
t2=$(date +%s%N)
same "$G's ctab FILE during the attack" "$rc$err" 0
echo "ctab -l took $(((t1 - t0) / 1000000)) ms," \
    "ctab FILE $(((t2 - t1) / 1000000)) ms"
echo "then: idle $(cat "$T/hog/idle"); drip $(cat "$T/hog/drip")"
# Served while the attack's connections were held: none of them had
# yet been closed at its deadline (the daemon closes a hog's
# connection only so, or refuses it).
same "... served before any idle connection timed out" \
    "$(field "$T/hog/idle" dropped)" 0
same "... or any dripping one" "$(field "$T/hog/drip" dropped)" 0
[ "$(field "$T/hog/idle" open)" -ge 1 ] ||
    fail "the idle hog holds no connection: $(cat "$T/hog/idle")"
[ "$(field "$T/hog/drip" open)" -ge 1 ] ||
    fail "the dripping hog holds no connection: $(cat "$T/hog/drip")"

# Each hostile user held a few; the rest were refused, and said once.
got_all() { [ "$(field "$1" tried)" -ge "$2" ] &&
    [ "$(($(field "$1" busy) + $(field "$1" open)))" -eq "$2" ]; }
wait_for 30 got_all "$T/hog/idle" 1000 ||
    fail "the idle hog's connections not all seen to: $(cat "$T/hog/idle")"
wait_for 30 got_all "$T/hog/drip" 100 ||
    fail "the dripping hog's not all seen to: $(cat "$T/hog/drip")"
same "the idle hog: all but 8 refused" "$(field "$T/hog/idle" busy)" 992
same "the dripping hog: all but 8 refused" \
    "$(field "$T/hog/drip" busy)" 92
contains "... told why" "$(cat "$T/hog/idle.busy")" \
    "you have 8 connections open to the clustercron daemon, the most one user may"
contains "the log says who was refused" "$(cat "$T/a.log")" \
    "\\(($H|$S)\\) LIMIT \\(ctab connection refused: 8 open by uid [0-9]+, the most one user may have\\)"
n=$(grep -c "LIMIT (ctab connection refused" "$T/a.log")
[ "$n" -le 2 ] || fail "1,084 refusals logged in $n lines, not once a minute"
late()
{
	[ "$(field "$T/hog/idle" dropped)" = 8 ] &&
	    [ "$(field "$T/hog/drip" dropped)" = 8 ]
}
wait_for 30 late || fail "the held connections were not closed at their deadline: idle $(cat "$T/hog/idle"); drip $(cat "$T/hog/drip")"
# The job ran every second the connections were held, once: from the
# attack's start to their deadline.
to=$(($(date +%s) - 1))
started() { [ -n "$(run_rows "job == \"$job\" && fire == $to && started > 0")" ]; }
wait_for 20 started || fail "$G's job stopped running"
# Each fire of the window: one run, its first attempt, started.
bad=$(run_rows "job == \"$job\" && fire >= $from && fire <= $to" |
    awk -v from="$from" -v to="$to" '
    NF { n[$2]++; if ($3 != 1 || ($5 != "running" && $5 != "finished"))
	print "fire", $2, "attempt", $3, $5 }
    END {
	for (t = from; t <= to; t++)
		if (n[t] != 1)
			print "fire", t, "ran", n[t] + 0, "times"
    }')
same "$G's job ran every second of the attack, once each" "$bad" ""
same "... no run of anyone taken for lost" "$(run_rows 'state == "lost"')" ""
echo "$G's job: $(fires | awk -v f="$from" -v t="$to" \
    '$1 >= f && $1 <= t' | wc -l) fires from $from to $to, started" \
    "$(run_rows "job == \"$job\" && fire >= $from && fire <= $to" |
    awk '{ l = $7 - $2 * 1000; if (l > m) m = l } END { print m + 0 }') ms" \
    "late at most"
contains "the log says a connection timed out" "$(cat "$T/a.log")" \
    "\\(($H|$S)\\) TIMEOUT \\(ctab connection closed: no whole request in 10 s\\)"
n=$(grep -c "TIMEOUT (ctab connection closed" "$T/a.log")
[ "$n" -le 2 ] || fail "16 deadlines logged in $n lines, not once a minute"
run as "$G" "$CTAB" -l
same "$G's table is the new one" "$rc:$out" "0:$(cat "$T/good2")"
finish
