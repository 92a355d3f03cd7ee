#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# stop-load.sh: SIGTERM in the middle of a burst.  200 jobs are due at
# once, each running six seconds; the daemon gets SIGTERM as the first
# of them start.  It exits within a second all the same, no job is
# killed, and the daemon started again records the end of every job
# that started, once: each start line has its run finished.  Claimed
# fires it had not handed to runners within half a second are marked
# lost at the next start, never run twice.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
N=200

dmn_setup a </dev/null
sed -i '/^shutdown-grace = /d' "$T/a/clustercron.conf"
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	at=$(($(date +%s) + 5))
	s=$((at % 60))
	i=0
	while [ $i -lt $N ]; do
		echo "$s * * * * * $ME echo $i >>$O/starts; sleep 6; echo end $i"
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
# without a fork: the shell's forks are slow on a machine this busy.
exited()
{
	{ read -r _s <"/proc/$1/stat"; } 2>/dev/null || return 0
	_s=${_s##*) }
	[ "${_s%% *}" = Z ]
}
i=0
while ! exited "$p" && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
took=$(($(ms) - t))
echo "# the daemon exited ${took} ms after SIGTERM"
# Built with the sanitizers, every exec and the exit (the leak check)
# cost several times as much: there the bound is 5 s.
lim=1000
ldd "$CLUSTERCRON" 2>/dev/null | grep -q libasan && lim=5000
ntest=$((ntest + 1))
if [ "$took" -le $lim ]; then
	echo "ok: SIGTERM in a burst: the daemon exits within $lim ms"
else
	fail "SIGTERM in a burst: the daemon took $took ms"
fi
wait_for 10 dmn_dead a || fail "the daemon did not stop"

dmn_restart a
# Every run settled: none running.
settled() { [ -z "$(runs | awk '$5 == "running"')" ] && [ -n "$(runs)" ]; }
wait_for 30 settled || fail "runs still running: $(runs | awk '$5 == "running"' | wc -l)"
dmn_stop a
r=$(runs)
started=$(count_lines "$O/starts")
echo "# $started of $N jobs started, $(echo "$r" | awk '$5 == "lost"' | wc -l) claimed and left as lost"
same "every job that started: its end recorded, finished" \
    "$(echo "$r" | awk '$5 == "finished" && $6 == 0' | wc -l)" "$started"
same "the others: lost" \
    "$(echo "$r" | awk '$5 != "finished" && $5 != "lost"' | wc -l)" 0
same "one run per job" "$(echo "$r" | awk '{ print $1 }' | sort | uniq -d)" ""
same "no job started twice" "$(sort "$O/starts" | uniq -d)" ""
finish
