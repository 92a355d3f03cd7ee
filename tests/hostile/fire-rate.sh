#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# fire-rate.sh: fair shares (issue 12, point 2), a user's fires a
# second.  A hostile user's table of 300 every-second lines runs beside
# a good user's every-second job.  The hostile user gets his burst, then
# user-fire-rate fires a second: the others are skipped, each recorded
# skipped with the limit named, and the log says so in one line, not
# one a fire.  The good user's job runs every second exactly once, and
# starts within a second of its instant (its own clock, read by the job
# as it starts).  The system tables are the administrator's: 60 lines
# of /etc/cron.d run every second whatever the rate.

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
H=cchr$$
G=ccgr$$
dmn_useradd "$H" "$T/home/$H"
dmn_useradd "$G" "$T/home/$G"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup a <<EOC
user-fire-rate = 20
user-fire-burst = 40
EOC
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	_i=0
	while [ $_i -lt 60 ]; do
		echo "* * * * * * root true sys $_i"
		_i=$((_i + 1))
	done
} >"$T/a/cron.d/sys"
dmn_start a
export CTAB_SOCKET="$T/a/sock"
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$CTAB_SOCKET" "$@"; }

{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	_i=0
	while [ $_i -lt 300 ]; do
		echo "* * * * * * true $_i"
		_i=$((_i + 1))
	done
} >"$T/hostile"
cat >"$T/good" <<EOC
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo \$CLUSTERCRON_FIRE_TIME \$(date +\%s.\%N) >>$O/good
EOC
chmod 644 "$T/hostile" "$T/good"
run as "$H" "$CTAB" "$T/hostile"
same "the hostile table is installed" "$rc$err" 0
run as "$G" "$CTAB" "$T/good"
same "the good table is installed" "$rc$err" 0

# Ten seconds of the good job's runs under the flood, past the burst.
wait_for 60 at_least 12 "$O/good" || fail "the good job does not run"
run as "$H" "$CTAB" -r
cp "$O/good" "$T/good.runs"

# Exactly once: no instant twice, none missing between the first and
# the last of those counted (the first two may predate the flood).
same "the good job ran no fire twice" "$(dups_of "$T/good.runs")" ""
first=$(fires_of "$T/good.runs" | sed -n 3p)
last=$(fires_of "$T/good.runs" | tail -n 1)
same "... and missed none" \
    "$(fires_of "$T/good.runs" | gaps_in 1 "$first" "$last")" ""
# Its lateness, by its own clock: started within a second of its fire.
late=$(sed -n '3,$p' "$T/good.runs" | while read -r when at; do
	t=$(echo "$when" | iso_epochs)
	echo "$at $t" | awk '{ printf "%.3f\n", $1 - $2 }'
done | sort -n | tail -n 1)
echo "# the good job's worst start lateness: $late s"
[ "$(echo "$late" | awk '{ print ($1 < 1.0) }')" = 1 ] ||
    fail "the good job started $late s after its instant"

# The hostile fires beyond the rate: skipped, with the limit named.
# (ccs outputs shows the reason with its spaces as \s.)
skipped=$(ccs outputs | sed 's/\\s/ /g' |
    grep -c ' 0 a skipped skipped: over user-fire-rate (20 fires a second, burst 40)$')
[ "$skipped" -ge 100 ] ||
    fail "$skipped hostile fires recorded skipped for user-fire-rate"
ran=$(ccs history | awk '$5 == "finished"' | wc -l)
echo "# $skipped hostile fires skipped, $ran runs in all"
# None of the good user's.
gjob=$(job_of 'CLUSTERCRON_FIRE_TIME')
job_of '^true sys ' >"$T/sysjobs"
same "the system table's jobs are 60" "$(wc -l <"$T/sysjobs")" 60
same "the good user's job is one job" "$(echo "$gjob" | wc -l)" 1
same "... and none of its fires is skipped or missed" \
    "$(ccs history | awk -v j="$gjob" '$1 == j && $3 == 0')" ""
# Nor of the system table.
same "none of the system table's fires is skipped" "$(ccs history |
    awk '$3 == 0' | grep -F -f "$T/sysjobs")" ""
# Ten seconds' worth at least, once recorded (the records of a turn go
# in later turns: under the sanitizers they trail the runs).
sysran() { [ "$(ccs history | awk '$3 == 1' | grep -c -F -f "$T/sysjobs")" -ge 600 ]; }
wait_for 30 sysran || fail "the system table's jobs did not run every second"
# One line for the administrator, not one per fire: the first at once,
# then one a minute at most (the test takes well under two).
contains "the log says the user hit the limit" "$(cat "$T/a.log")" \
    "\\($H\\) LIMIT \\(fires skipped: over user-fire-rate \\(20 fires a second, burst 40\\)"
n=$(grep -c "LIMIT" "$T/a.log")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] ||
    fail "$n LIMIT lines for $skipped fires skipped"
finish
