#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# kill3.sh: four daemons on one MariaDB; three of them die at once
# (SIGKILL, as in a power cut of a rack).  Each fire is claimed by its
# preferred node and two backups only (claim.c), so the fires ranked to
# the three dead nodes were nobody's until the live node saw them gone,
# and later fires of their jobs, claimed, closed them to any claim:
# the live node sweeps them (claim_sweep()).  From the kill on, every
# fire of every job is in the store, run or noted missed (the default
# misfire policy), none twice and none left unrecorded; the sweep says
# in the log how many it noted, for which dead nodes.  The kill comes
# just before a fire of jobs due every ten seconds: that fire, left to
# nobody, is still its job's latest when the sweep comes, and is the
# misfire pass's to settle (claimed, then noted) before the sweep.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2 n3 n4; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
node-timeout = 3s
EOF
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		i=1
		while [ $i -le 12 ]; do
			echo "* * * * * * $ME true job $i"
			i=$((i + 1))
		done
		i=1
		while [ $i -le 24 ]; do
			echo "*/10 * * * * * $ME true tail $i"
			i=$((i + 1))
		done
	} >"$T/$n/crontab"
done
for n in n1 n2 n3 n4; do
	dmn_start $n
done
jobs()
{
	[ "$(job_of 'true job [0-9]+$' | wc -l)" -eq 12 ] &&
	    [ "$(job_of 'true tail [0-9]+$' | wc -l)" -eq 24 ]
}
wait_for 30 jobs || fail "the jobs are not all in the store"
job_of 'true tail [0-9]+$' >"$T/tailids"
# The four formed: each node has claimed a fire.
formed()
{
	for _n in n1 n2 n3 n4; do
		[ "$(last_claim $_n)" -gt 0 ] || return 1
	done
}
wait_for 30 formed || fail "the four nodes did not all claim"
# The jobs due every ten seconds have been claimed before (the misfire
# pass looks past a job's last claim; it leaves a job never claimed to
# the nodes firing it), and are then killed in the second before one.
tails() { [ "$(claim_rows | awk '{ print $1 }' | sort -u |
    grep -c -F -f "$T/tailids")" -eq 24 ]; }
wait_for 25 tails || fail "the jobs due every ten seconds were not claimed"
phase() { [ $(($(date +%s) % 10)) -eq 9 ]; }
wait_for 12 phase || fail "no second 9"
tail=$(($(date +%s) + 1))

# At once: each kill in the background, waited for by its pid (the
# shell's other children include the database server).
pids=
for n in n1 n2 n3; do
	dmn_crash $n &
	pids="$pids $!"
done
wait $pids
from=$(($(date +%s) + 1))
echo "n1, n2, n3 killed ($(elapsed))"
# Past node-timeout, the heartbeat after, and the pass's margin.
past() { [ "$(date +%s)" -ge $((from + 10)) ]; }
wait_for 20 past
to=$((from + 8))
settled()
{
	[ "$(run_rows "fire >= $from && fire <= $to && attempt <= 1" |
	    awk '{ print $1, $2 }' | sort -u | wc -l)" -ge $((12 * (to - from + 1))) ]
}
wait_for 30 settled
rows=$(run_rows "fire >= $from && fire <= $to")
same "every fire of the window is run or noted, for every job" \
    "$(for id in $(job_of 'true job [0-9]+$'); do
	printf '%s\n' "$rows" | awk -v j="$id" -v from="$from" -v to="$to" '
	    $1 == j { n[$2]++ }
	    END { for (t = from; t <= to; t++) if (!(t in n))
		print j, t, "no record" }'
    done)" ""
same "each ten-second job's fire after the kill is run or noted" \
    "$(run_rows "fire == $tail" | awk '{ print $1 }' | sort -u |
    grep -c -F -f - "$T/tailids" || :)" "24"
same "no fire run twice" \
    "$(printf '%s\n' "$rows" | awk '$3 >= 1 { print $1, $2 }' | sort |
    uniq -d)" ""
missed=$(printf '%s\n' "$rows" | awk '$5 == "missed"' | wc -l)
echo "$missed fires noted missed, $(printf '%s\n' "$rows" |
    awk '$3 >= 1' | wc -l) run"
# The sweep's line names dead nodes, and only those.  The jobs due
# every second are claimed every second, so the fires of theirs noted
# missed are the sweep's (none, unlikely with 12 jobs, and it says so
# with -d only).  A death seen a heartbeat after the others is swept
# on its own, and finds their sweep has noted its fires: said with -d
# only too.
job_of 'true job [0-9]+$' >"$T/jobids"
swept=$(grep -E 'SWEEP \([0-9]+ fires noted missed, .*dead: ' "$T/n4.log")
if [ "$(printf '%s\n' "$rows" | awk '$5 == "missed" { print $1 }' |
    grep -c -F -f "$T/jobids")" -gt 0 ]; then
	names=$(printf '%s\n' "$swept" | sed 's/.*dead: //; s/)$//' |
	    tr -d ' ' | tr ',' '\n' | sort -u)
	same "the sweep logged the dead nodes it swept for" \
	    "$(if [ -z "$names" ]; then echo "no SWEEP line"; else
	    printf '%s\n' "$names" | grep -v -x -e n1 -e n2 -e n3; fi)" ""
fi
finish
