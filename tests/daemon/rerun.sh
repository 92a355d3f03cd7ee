#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# rerun.sh: CLUSTERCRON_LOST=rerun on three daemons and a private
# MariaDB.  Two long jobs are due once: one asks for a rerun, one does
# not.  The nodes running them die (SIGKILL, with their jobs); a
# surviving node marks their runs lost and starts the first job's fire
# again, as attempt 2, and not the second's.  Then the node running the
# rerun dies too, and a node that comes back marks it lost and does not
# run the fire a third time: one rerun per fire.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

nodes="n1 n2 n3"
t=$(($(date +%s) + 8))
when=$(date -u -d "@$t" +'%-S %-M %-H')
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
claim-defer-ms = 100
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
CRON_TZ=UTC
MAILTO=""
CLUSTERCRON_LOST=rerun
$when * * * $ME echo \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT \$CLUSTERCRON_JOB_ID >>$O/rerun; exec sleep 300
CLUSTERCRON_LOST=mark
$when * * * $ME echo \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT \$CLUSTERCRON_JOB_ID >>$O/mark; exec sleep 301
EOF
done
for n in $nodes; do
	dmn_start $n
done
wait_for 30 test -s "$O/rerun" || fail "the rerun job did not start"
wait_for 10 test -s "$O/mark" || fail "the mark job did not start"
r1=$(cut -d' ' -f1 "$O/rerun")
m1=$(cut -d' ' -f1 "$O/mark")
rid=$(cut -d' ' -f3 "$O/rerun")
mid=$(cut -d' ' -f3 "$O/mark")
echo "attempt 1 of the rerun job on $r1, of the mark job on $m1"
running2() { [ "$(runs | awk '$5 == "running"' | wc -l)" -eq 2 ]; }
wait_for 10 running2 || fail "the two runs are not recorded running"

dmn_crash "$r1"
[ "$m1" != "$r1" ] && dmn_crash "$m1"
alive=
for n in $nodes; do
	[ "$n" = "$r1" ] || [ "$n" = "$m1" ] || alive="$alive $n"
done

wait_for 30 at_least 2 "$O/rerun" || fail "the lost run was not run again"
s=$(sed -n 2p "$O/rerun" | cut -d' ' -f1)
same "the rerun is attempt 2, on a surviving node" \
    "$(sed -n 2p "$O/rerun" | cut -d' ' -f2) $(echo " $alive " |
    grep -c " $s ")" "2 1"
contains "the rerun is logged" "$(cat "$T/$s.log")" \
    "\\($ME\\) RERUN \\($s [0-9T:-]+Z attempt 2, attempt 1 lost; [0-9a-f]{32}: "
lostm() { runs | grep -q "^$mid [0-9]* 1 $m1 lost "; }
wait_for 20 lostm || fail "the mark job's run was not marked lost"
same "the mark job is not run again" "$(count_lines "$O/mark")" 1

# The rerun's node dies too; a node still alive or one that comes back
# marks the rerun lost, and does not run the fire a third time.
dmn_crash "$s"
dmn_restart "$r1"
in_logs() { cat "$T"/n?.log | grep -qE -- "$1"; }
wait_for 30 in_logs "LOST \\($s [0-9T:-]+Z attempt 2, node dead; $rid: " ||
    fail "the rerun was not marked lost"
wait_for 10 in_logs 'not run again, the fire was rerun once' ||
    fail "no word of the fire's one rerun"
same "no third run" "$(count_lines "$O/rerun")" 2

r=$(runs)
same "the rerun job's fire: attempt 1 lost on $r1, attempt 2 lost on $s" \
    "$(echo "$r" | awk -v j="$rid" '$1 == j { print $3, $4, $5 }')" \
    "1 $r1 lost
2 $s lost"
same "the mark job's fire: attempt 1 lost, nothing more" \
    "$(echo "$r" | awk -v j="$mid" '$1 == j { print $3, $4, $5 }')" \
    "1 $m1 lost"
for n in $nodes; do
	dmn_alive "$n" && dmn_crash "$n"
done
finish
