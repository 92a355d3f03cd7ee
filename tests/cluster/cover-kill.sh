#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# cover-kill.sh: the backups of a fire that wait for its preferred
# node's cover (its heartbeat's word that it claimed the fire, instead
# of a read of the claims) still run what that node leaves.  Fifteen
# jobs each due every fifteen seconds, one a second, on three daemons
# sharing one private MariaDB, heartbeats every 2 s.  The backups first
# settle fires by covers; then one node is killed (SIGKILL, with its
# jobs), and every fire from before the kill to well after runs exactly
# once: those it was first for, once its beats stop coming, late by the
# backups.  Another is killed and back within 4 s, before the backups'
# wait is over: its misfire pass at start must leave them those fires.
# Then the first loses one of the jobs from its table: its cover no
# longer speaks for the others' jobs, they read the claims again, and
# every fire of the job it lacks still runs, once.  Last, a
# node stopped cleanly says in its last heartbeat that it claims no
# more, so that the others wait for it no longer.  Checked from the
# jobs' file, the logs and the nodes' covers.

. "$top_srcdir/tests/daemon/lib.sh"
DMN_FLAGS=-d
dmn_cluster

# table NAME [SKIP]: the jobs, but the ten at second SKIP of fifteen.
# Each writes its instant, the second it started, its node and which of
# the ten it is.
table()
{
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		for _k in $(seq 0 14); do
			[ "$_k" = "${2:-}" ] && continue
			for _c in $(seq 0 9); do
				echo "$_k-59/15 * * * * * $ME echo" \
				    "\"\$CLUSTERCRON_FIRE_TIME" \
				    "\$(date +\\%s) \$CLUSTERCRON_NODE $_c\"" \
				    ">>$O/all"
			done
		done
	} >"$T/$1/crontab"
}
for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 2s
EOF
	table $n
	dmn_start $n
done
covered()
{
	grep -q 'COVERED (' "$T/$1.log"
}
for n in n1 n2 n3; do
	wait_for 40 covered $n || fail "$n settled no fire by a cover"
done
from=$(($(date +%s) + 1))

victim=n2
dmn_crash $victim || exit 1
kill_s=$(date +%s)
echo "killed $victim at $kill_s"
past() { [ "$(date +%s)" -ge "$1" ]; }
wait_for 60 past $((kill_s + 30))
dmn_restart $victim
wait_for 60 past $((kill_s + 45))

# Killed and back 4 s later, before its backups' wait is over: its
# first misfire pass leaves them the fires it was first for.
dmn_crash n1 || exit 1
quick_s=$(date +%s)
echo "killed n1 at $quick_s"
wait_for 10 past $((quick_s + 4))
dmn_restart n1
wait_for 60 past $((quick_s + 25))

# Without job 7: the others read the claims of its fires again.
r=$(grep -c 'RELOAD (' "$T/$victim.log")
table $victim 7
reread() { [ "$(grep -c 'RELOAD (' "$T/$victim.log")" -gt "$r" ]; }
wait_for 30 reread || fail "$victim did not read its table"
back_s=$(date +%s)
wait_for 90 past $((back_s + 30))

# A clean stop: its last cover says it left.
dmn_stop n3
same "a node stopped: its last heartbeat says it claims no more" \
    "$(ccs covers | awk '$1 == "n3" { print $2, $3 }')" \
    "9223372036854775807 9223372036854775807"
stop_s=$(date +%s)
wait_for 60 past $((stop_s + 20))
to=$(($(date +%s) - 8))
for n in n1 n2; do
	dmn_stop $n
done

# The file as: instant (s), start (s), node, which.
cut -d' ' -f1 "$O/all" | iso_epochs | paste -d' ' - "$O/all" |
    cut -d' ' -f1,3- >"$T/fires"
same "no fire ran twice" "$(cut -d' ' -f1,4 "$T/fires" | sort | uniq -d |
    head -5)" ""
same "every second's ten fires ran from before the kill to the end" \
    "$(awk -v f="$from" -v t="$to" '$1 >= f && $1 <= t { n[$1]++ }
    END { for (s = f; s <= t; s++) if (n[s] != 10)
    print s, n[s] + 0 }' "$T/fires" | sort -n | head -5)" ""
# The fires of the half minute after the kill that started 3 s late or
# more: those the victim was first for, which its backups waited for.
awk -v k="$kill_s" '$1 >= k && $1 < k + 30 && $2 - $1 >= 3' "$T/fires" \
    >"$T/late"
echo "fires after the kill that started 3 s late or more:"
cat "$T/late"
[ -s "$T/late" ] || fail "no fire waited for $victim's cover"
finish
