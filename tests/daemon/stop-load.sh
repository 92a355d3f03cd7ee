#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# stop-load.sh: SIGTERM in the middle of a burst.  200 jobs are due at
# once, each running a minute; the daemon gets SIGTERM as the first of
# them start.  It exits while every job still runs (none has written
# its end marker: it neither waits for them nor kills them), and the
# daemon started again adopts them: once the test ends the jobs (their
# process groups, SIGTERM), every job that started has its end
# recorded, once.  Claimed fires it had not handed to runners within
# half a second are marked lost at the next start, never run twice.
# How long the daemon took to exit is printed, for information: no
# assertion here depends on how fast a loaded machine is.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
N=200

# The jobs still running: killed, each its process group (the job's
# shell is not its leader: the process that started it is).
killjobs()
{
	[ -f "$O/starts" ] || return 0
	while read -r _i _pid; do
		{ read -r _s <"/proc/$_pid/stat"; } 2>/dev/null || continue
		set -- ${_s##*) }
		kill -TERM "-$3" 2>/dev/null
	done <"$O/starts"
}
trap '_st=$?; killjobs; (exit $_st); dmn_cleanup' EXIT

dmn_setup a </dev/null
sed -i '/^shutdown-grace = /d' "$T/a/clustercron.conf"
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	at=$(($(date +%s) + 5))
	# Second, minute and hour: one fire, not one a minute.
	when=$(date -d "@$at" '+%-S %-M %-H')
	i=0
	while [ $i -lt $N ]; do
		# $$: the job's shell, in its process group.
		echo "$when * * * $ME echo $i \$\$ >>$O/starts; sleep 60; echo $i >>$O/ends"
		i=$((i + 1))
	done
} >"$T/a/crontab"

ms() { echo $(($(date +%s%N) / 1000000)); }
dmn_start a
# SIGTERM a fifth of a second into the burst, while runners start.
wait_for 20 sh -c "[ \$(date +%s) -ge $at ]" || fail "the instant did not come"
sleep 0.2
p=$(dmn_pid a)
t=$(ms)
kill -TERM "$p"
# Gone (or a zombie its new parent has not reaped yet), read from /proc
# without a fork.
exited()
{
	{ read -r _s <"/proc/$1/stat"; } 2>/dev/null || return 0
	_s=${_s##*) }
	[ "${_s%% *}" = Z ]
}
# A bound far beyond any machine's slowness, still short of the jobs'
# minute: a daemon that waits for its jobs is caught by the order below.
wait_for 50 exited "$p" || fail "the daemon did not exit within 50 s of SIGTERM"
took=$(($(ms) - t))
echo "# the daemon exited ${took} ms after SIGTERM (information only)"
ended=$(count_lines "$O/ends")
same "SIGTERM in a burst: the daemon exited while every job ran" "$ended" 0
wait_for 10 dmn_dead a || fail "the daemon did not stop"

dmn_restart a
# The next daemon has every started job in hand (recorded running);
# then the jobs end, killed, and their ends come back through the
# runners.
nrunning() { runs | awk '$5 == "running"' | wc -l | tr -d ' '; }
inhand() { [ "$(nrunning)" -eq "$(count_lines "$O/starts")" ]; }
wait_for 30 inhand ||
    fail "not every started job is recorded running: $(nrunning) of $(count_lines "$O/starts")"
started=$(count_lines "$O/starts")
[ "$started" -gt 0 ] || fail "no job started"
same "no job ended before the test ended it" "$(count_lines "$O/ends")" 0
killjobs
# Every run settled: none running.
settled() { [ -z "$(runs | awk '$5 == "running"')" ] && [ -n "$(runs)" ]; }
wait_for 60 settled || fail "runs still running: $(runs | awk '$5 == "running"' | wc -l)"
dmn_stop a
r=$(runs)
echo "# the runs' states, exit statuses and signals:"
echo "$r" | awk '{ print "#", $5, $6, $7 }' | sort | uniq -c
echo "# $started of $N jobs started, $(echo "$r" | awk '$5 == "lost"' | wc -l) claimed and left as lost"
same "every job that started: its end recorded, killed by SIGTERM" \
    "$(echo "$r" | awk '$5 == "finished" && $7 == 15' | wc -l)" "$started"
same "the others: lost" \
    "$(echo "$r" | awk '$5 != "finished" && $5 != "lost"' | wc -l)" 0
same "one run per job" "$(echo "$r" | awk '{ print $1 }' | sort | uniq -d)" ""
same "no job started twice" "$(awk '{ print $1 }' "$O/starts" | sort | uniq -d)" ""
finish
