#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# catchup.sh: the misfire pass after a restart (issue 16, point 3).  One
# daemon holds N jobs (10,000) due every two minutes; it runs one round, is
# stopped across the next, and started again, when each job has one
# missed fire to claim and note.  Prints what the pass did and took (its
# RECOVER line, with -d, where the daemon has it), the time from the
# start until every job's missed fire is noted in the store (polled, to
# a tenth of a second) and the daemon's CPU.  The backend is SQLite unless the second argument is
# mariadb (a private server).
#
#	top_srcdir=. top_builddir=. bench/daemon/catchup.sh [jobs [backend]]

N=${1:-10000}
BACKEND=${2:-sqlite}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/daemon/lib.sh"
if [ "$BACKEND" = mariadb ]; then
	dmn_cluster
else
	O=$T/jobs
	mkdir -p "$O"
fi
DMN_FLAGS=-d
STEP=120

dmn_setup a <<EOF
pam-service = ""
EOF
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=0
	while [ $i -lt "$N" ]; do
		echo "0 */2 * * * * root true $i"
		i=$((i + 1))
	done
} >"$T/a/crontab"

# The next instant of the schedule at least 5 s ahead.
next_fire() { echo $((($(date +%s) + 5 + STEP - 1) / STEP * STEP)); }
past() { [ "$(date +%s)" -ge "$1" ]; }

f1=$(next_fire)
dmn_start a
wait_for $((STEP + 10)) past $((f1 + 1)) || exit 1
# Every job's first fire settled: run and ended, or noted missed (a
# burst this large may be more than one node starts within its lease).
ran() { [ "$(ccs runs | awk -v f="$f1" '$2 == f && ($5 == "finished" ||
    $5 == "missed")' | wc -l)" -ge "$N" ]; }
if ! wait_for $((STEP - 15)) ran; then
	echo "the first round did not run: $(ccs runs | awk -v f="$f1" \
	    '$2 == f { n[$5]++ } END { for (s in n) printf "%s %d ", s, n[s] }')" >&2
	grep -v 'CMD\|FIRE\|CLAIMED\|END' "$T/a.log" | tail -20 >&2
	exit 1
fi
dmn_stop a
f2=$((f1 + STEP))
# Started again 4 s after the fire it slept through (past the pass's
# margin), long before the next.
wait_for $((STEP + 10)) past $((f2 + 4)) || exit 1
mv "$T/a.log" "$T/a.log.1"
t0=$(date +%s.%N)
dmn_start a
# noted: how many jobs have their missed fire noted in the store.
noted() { ccs runs | awk -v f="$f2" '$2 == f && $5 == "missed"' | wc -l; }
passed() { [ "$(noted)" -ge "$N" ]; }
wait_for 120 passed || { echo "the missed fires were not all noted" >&2; }
t1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
cpu=$(awk '{ print $14 + $15 }' "/proc/$(dmn_pid a)/stat")
dmn_stop a
[ -n "${VERBOSE:-}" ] && grep -v 'FIRE\|MISSED\|CMD\|LOST' "$T/a.log" | head -40
echo "runs of the first round marked lost: $(grep -c 'LOST' "$T/a.log")"

echo "jobs $N, backend $BACKEND"
echo "first round: $(ccs runs | awk -v f="$f1" '$2 == f { n[$5]++ }
    END { for (s in n) printf "%s %d ", s, n[s] }')"
sed -n 's/.*(CRON) \(RECOVER (.*)\)$/\1/p' "$T/a.log"
echo "$t0 $t1" | awk '{ printf "start to every miss noted: %.2f s\n", $2 - $1 }'
echo "daemon CPU: $cpu ticks of 1/$hz s (start, load and pass)"
echo "missed fires noted in the store: $(noted) (of $N)"
