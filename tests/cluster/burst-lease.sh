#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# burst-lease.sh: a burst larger than one lease can start (issue 16,
# point 1).  One daemon on MariaDB with a short lease (heartbeat-interval
# 1s, node-timeout 3s: it may start a claim at most 2 s after the
# heartbeat before it) holds N seconds-field jobs all due at the same
# instant, far more than it starts in 2 s on any machine.  A node that
# claimed the whole burst at once would find most of it past its lease
# (FENCED) and note it missed; one that claims only what it can start
# within its lease, slice after slice, runs every fire.  From the runs
# table: every job has exactly one run of the instant, finished, and
# no fire is noted missed.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

N=${BURST_JOBS:-2000}
dmn_setup n1 <<EOF
heartbeat-interval = 1s
node-timeout = 3s
pam-service = ""
EOF
# The second of the minute the burst is due at, far enough ahead for the
# jobs to be registered first; the instant measured is the first one
# after they are.
S=$((($(date +%s) + 40) % 60))
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=0
	while [ $i -lt "$N" ]; do
		echo "$S * * * * * $ME true $i"
		i=$((i + 1))
	done
} >"$T/n1/crontab"
dmn_start n1
registered() { [ "$(ccs jobs | wc -l)" -ge "$N" ]; }
wait_for 60 registered || { fail "the jobs were not registered"; exit 1; }
now=$(date +%s)
F=$(((now + 2 - S + 59) / 60 * 60 + S))
past() { [ "$(date +%s)" -gt "$F" ]; }
wait_for 70 past || exit 1
# settled: every job has a run of the instant that is over.
settled()
{
	[ "$(ccs runs | awk -v f="$F" '$2 == f && $5 != "running"' |
	    wc -l)" -ge "$N" ]
}
wait_for 120 settled || fail "the burst did not settle in 120 s"
dmn_stop n1
all=$(ccs runs | awk -v f="$F" '$2 == f')
same "every job ran the instant once" \
    "$(echo "$all" | awk '$5 == "finished" { print $1 }' | sort -u |
    wc -l | tr -d ' ')" "$N"
same "no fire ran twice" "$(echo "$all" | awk '{ print $1 }' | sort |
    uniq -d | head -3)" ""
same "no fire of the burst noted missed" \
    "$(echo "$all" | awk '$5 != "finished"' | head -3)" ""
same "no fire noted missed at all" "$(ccs runs | awk '$5 == "missed"' |
    head -3)" ""
same "nothing fenced" "$(grep -c 'FENCED' "$T/n1.log")" 0
echo "# states of the burst: $(echo "$all" | awk '{ n[$5]++ }
    END { for (s in n) printf "%s %d ", s, n[s] }')"
grep -E 'MISSED|FENCED|STORE|HEARTBEAT|LATE' "$T/n1.log" | head -5 |
    sed 's/^/# /'
finish
