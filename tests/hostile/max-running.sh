#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# max-running.sh: fair shares (issue 12, point 2), a user's runs under
# way on a node, and the bound on lateness.  A user's every-second jobs
# that never end: at most user-max-running of them run at once; his
# further fires wait in his queue, and one that waited start-grace is
# recorded missed with the reason and never started, even once a slot
# is free again.  Another user's every-second job runs every second
# meanwhile, exactly once.

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
needs pgrep
H=cchm$$
G=ccgm$$
dmn_useradd "$H" "$T/home/$H"
dmn_useradd "$G" "$T/home/$G"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup a <<EOC
user-max-running = 3
start-grace = 2s
EOC
dmn_start a
export CTAB_SOCKET="$T/a/sock"
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$CTAB_SOCKET" "$@"; }

# Five jobs of his, each fire a process that waits for a while.
cat >"$T/hostile" <<EOC
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * sleep 300 # 1
* * * * * * sleep 300 # 2
* * * * * * sleep 300 # 3
* * * * * * sleep 300 # 4
* * * * * * sleep 300 # 5
EOC
cat >"$T/good" <<EOC
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo \$CLUSTERCRON_FIRE_TIME >>$O/good
EOC
chmod 644 "$T/hostile" "$T/good"
run as "$G" "$CTAB" "$T/good"
same "the good table is installed" "$rc$err" 0
run as "$H" "$CTAB" "$T/hostile"
same "the hostile table is installed" "$rc$err" 0
from=$(($(date +%s) + 1))

# running: his processes running now.
running() { pgrep -u "$H" -x sleep | wc -l; }
running_at_least() { [ "$(running)" -ge "$1" ]; }
wait_for 20 running_at_least 3 || fail "the user's jobs do not run"
# Ten samples over five seconds: never more than three at once.
most=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	n=$(running)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.5
done
same "at most user-max-running of his jobs run at once" "$most" 3
# His waiting fires go missed once they waited start-grace.
missed() {
	ccs outputs | sed 's/\\s/ /g' | grep -c " 0 a missed missed: not \
started within start-grace (2 s): user-max-running (3) reached$"
}
missed_at_least() { [ "$(missed)" -ge "$1" ]; }
wait_for 20 missed_at_least 5 || fail "$(missed) fires recorded missed"
contains "the log names him and the limit" "$(cat "$T/a.log")" \
    "\\($H\\) LIMIT \\(fires waiting: user-max-running reached \\(3 runs on this node\\)"
contains "... and the fires missed past start-grace" "$(cat "$T/a.log")" \
    "\\($H\\) LIMIT \\(fires missed: not started within start-grace \\(2 s\\)"

# Slots free: the fires of his still waiting start, or go missed at
# start-grace; none comes after that, his table gone.  Kill his jobs
# until none is left half a second after a kill.
run as "$H" "$CTAB" -r
kill_his() { pkill -u "$H" -x sleep; sleep 0.5; [ "$(running)" -eq 0 ]; }
wait_for 20 kill_his || fail "his jobs keep coming"
same "a fire recorded missed never runs" "$(ccs history |
    awk '$3 == 0 && $5 == "missed" { m[$1 " " $2] = 1 }
	$3 > 0 { r[$1 " " $2] = 1 }
	END { for (k in m) if (k in r) print k }')" ""

# The good user's job ran every second meanwhile, exactly once: every
# second from the hostile table's install to a second ago.
to=$(($(date +%s) - 1))
ranto() { [ "$(fires_of "$O/good" | tail -n 1)" -ge "$to" ]; }
wait_for 10 ranto
cp "$O/good" "$T/good.runs"
same "the good job ran no fire twice" "$(dups_of "$T/good.runs")" ""
same "... and missed none" \
    "$(fires_of "$T/good.runs" | gaps_in 1 "$from" "$to")" ""
gjob=$(job_of 'CLUSTERCRON_FIRE_TIME')
same "... none of its fires skipped or missed" \
    "$(ccs history | awk -v j="$gjob" '$1 == j && $3 == 0')" ""
same "... and nothing logged against him" \
    "$(grep -c "($G) LIMIT" "$T/a.log")" 0
finish
