#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# timejump.sh: the wall clock jumps under a running daemon (libfaketime
# moves it; the monotonic clock does not move).  As cron(8): a jump
# forward runs each skipped job once, a jump backward runs nothing
# twice, a jump of more than three hours reschedules from the new time.

. "$top_srcdir/tests/daemon/lib.sh"

needs_faketime
FT=$(faketime_lib)

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo \$CLUSTERCRON_FIRE_TIME >>$O/fires
EOF
echo "+0s" >"$T/faketime"
export FAKETIME_TIMESTAMP_FILE="$T/faketime" FAKETIME_NO_CACHE=1 \
    FAKETIME_DONT_FAKE_MONOTONIC=1
LD_PRELOAD=$FT dmn_start a
unset FAKETIME_TIMESTAMP_FILE FAKETIME_NO_CACHE FAKETIME_DONT_FAKE_MONOTONIC

wait_for 10 at_least 3 "$O/fires" || fail "no fires"

# Forward 30 s: one run for the skipped fires, then on from the new time.
n=$(count_lines "$O/fires")
echo "+30s" >"$T/faketime"
wait_for 10 in_log a 'TIME JUMP \(forward (2[89]|3[0-9]) s\)' ||
    fail "forward jump not noticed"
wait_for 10 at_least $((n + 4)) "$O/fires" || fail "no fires after the jump"
secs() { while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
steps=$(tail -n +"$n" "$O/fires" | head -n 5 | secs |
    awk 'NR > 1 { print $1 - prev } { prev = $1 }' | sort -n | uniq -c |
    awk '{ print $2 "x" $1 }' | tr '\n' ' ')
contains "forward: fires go on each second after one catch-up" \
    "$steps" '^1x[34] ([0-9]+x1 )?$'
big=$(tail -n +"$n" "$O/fires" | head -n 5 | secs |
    awk 'NR > 1 && $1 - prev > 1 { print $1 - prev } { prev = $1 }')
[ -n "$big" ] && [ "$big" -ge 25 ] ||
    fail "forward: the skipped half minute was run fire by fire"

# Back 20 s: nothing runs twice; fires resume once the clock is past.
n=$(count_lines "$O/fires")
echo "+10s" >"$T/faketime"
wait_for 10 in_log a 'TIME JUMP \(backward' || fail "backward jump not noticed"
wait_for 40 at_least $((n + 3)) "$O/fires" ||
    fail "no fires after the backward jump"
same "backward: no fire twice" "$(sort "$O/fires" | uniq -d)" ""
same "backward: fires only go forward" "$(secs <"$O/fires" |
    awk 'NR > 1 && $1 <= prev { print "back at " $1 } { prev = $1 }')" ""

# Forward 5 h: rescheduled from the new time, one catch-up at most.  A
# fire due before the jump (the daemon's clock 10 s ahead then) may
# still be writing its line: not one of the skipped hours.
n=$(count_lines "$O/fires")
j0=$(date +%s)
echo "+5h" >"$T/faketime"
wait_for 10 in_log a 'TIME JUMP \(forward 1[0-9]{4} s\)' ||
    fail "big jump not noticed"
wait_for 10 at_least $((n + 3)) "$O/fires" || fail "no fires after the big jump"
same "big jump: no burst of skipped fires" \
    "$(tail -n +"$((n + 1))" "$O/fires" | secs | awk -v j0="$j0" \
    '$1 > j0 + 12 && $1 < j0 + 5 * 3600 - 60 { print "old fire " $1 }')" ""
dmn_stop a

finish
