#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# kill9.sh: three daemons on one private MariaDB; the node running a
# long job dies at once (SIGKILL to the daemon and its jobs, as in a
# power cut).  The two others go on running every fire exactly once;
# once the dead node is past node-timeout its runs are marked lost, by
# one node; a job with CLUSTERCRON_LOST=rerun has its lost fire run
# once more (attempt 2) by another node and no other job does; the dead
# node, started again, does not run again what it had started.
# Checked from the jobs' files, the runs and the claims tables.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"
dmn_cluster

for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
node-timeout = 3s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
*/3 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/long.start; sleep 4; echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/long.end
CLUSTERCRON_LOST=rerun
*/3 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rerun.start; sleep 4; echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/rerun.end
EOF
done

dmn_start n1
dmn_start n2
dmn_start n3
wait_for 30 at_least 5 "$O/every1" || fail "three nodes: too few fires"

# The victim: the node that starts the next long job of the rerun
# kind, killed while that job runs.
watch=$O/rerun.start
k=$(count_lines "$watch")
wait_for 15 at_least $((k + 1)) "$watch" || fail "no long job started"
victim=$(sed -n "$((k + 1))p" "$watch" | cut -d' ' -f2)
# Killed once the store knows the run (a node may die between its fork
# and its record too, but then no test can tell the run from none).
vfire=$(sed -n "$((k + 1))p" "$watch" | cut -d' ' -f1 | iso_epochs)
recorded()
{
	[ -n "$(run_rows "node == \"$victim\" && fire == $vfire && \
	    state == \"running\"")" ]
}
wait_for 10 recorded || fail "the store does not show the run on $victim"
echo "victim: $victim ($(elapsed))"
dmn_crash "$victim" || exit 1
crash_s=$(date +%s)
case $victim in
n1) alive="n2 n3" ;;
n2) alive="n1 n3" ;;
*) alive="n1 n2" ;;
esac

# What it was running when it died, by the store.
inflight=$(run_rows "node == \"$victim\" && state == \"running\"")
echo "in flight on $victim:"
echo "$inflight"
[ -n "$inflight" ] || fail "the store shows no run in flight on $victim"

# The others go on.
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 6)) "$O/every1" ||
    fail "the live nodes did not go on"

# Every run it had in flight is marked lost.
notlost()
{
	[ -z "$(run_rows "node == \"$victim\" && state == \"running\"")" ]
}
wait_for 20 notlost || fail "runs of $victim not marked lost"
echo "$inflight" | while read -r job fire att rest; do
	st=$(run_rows "job == \"$job\" && fire == $fire && \
	    attempt == $att" | cut -d' ' -f5)
	[ "$st" = lost ] || echo "FAIL: $job $fire $att is $st"
done >"$T/lostcheck"
same "in-flight runs of $victim marked lost" "$(cat "$T/lostcheck")" ""
# Each was marked once, by the node holding the reaper's lease, which
# logs it.
same "each lost run logged once" "$(cat $(for a in $alive; do
    echo "$T/$a.log"; done) | grep -cE "\) LOST \($victim .*node dead")" \
    "$(echo "$inflight" | grep -c .)"

# The rerun job's lost fire runs once more, attempt 2, elsewhere.
lostfire=$(sed -n "$((k + 1))p" "$watch" | cut -d' ' -f1)
wait_for 20 grep -q "^$lostfire .* 2\$" "$O/rerun.start" ||
    fail "the lost fire $lostfire was not run again"
same "the lost fire ran again once, as attempt 2" \
    "$(grep -c "^$lostfire " "$O/rerun.start")" 2
contains "attempt 2 on another node" "$(grep "^$lostfire " \
    "$O/rerun.start")" "^$lostfire ($(echo $alive |
    tr ' ' '|')) 2\$"

# The dead node comes back and does not run again what it started.
restart_s=$(date +%s)
dmn_restart "$victim"
v=$(grep -c " $victim\$" "$O/every1")
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 6)) "$O/every1" || fail "too few fires at the end"
echo "$victim, back, ran $(($(grep -c " $victim\$" "$O/every1") - v)) of" \
    "$(($(count_lines "$O/every1") - n)) fires of every1"
for a in n1 n2 n3; do
	dmn_stop $a
done
end_s=$(date +%s)

echo "$inflight" | while read -r job fire att rest; do
	when=$(date -u -d "@$fire" +%Y-%m-%dT%H:%M:%SZ)
	grep "CLAIMED ($victim $when" "$T/$victim.log"
done >"$T/reclaimed"
same "$victim, back, claimed none of its lost fires" "$(cat "$T/reclaimed")" ""
echo "$inflight" | while read -r job fire att rest; do
	run_rows "job == \"$job\" && fire == $fire && \
	    node == \"$victim\" && attempt != $att"
done >"$T/rerun_by_victim"
same "$victim, back, ran none of its lost fires" \
    "$(cat "$T/rerun_by_victim")" ""

# From the files: each fire once; every second from the first fire to
# the last ran, but for a fire the victim had claimed when it died
# (lost with it: shown, not counted).
for f in every1 long.start; do
	same "$f: no fire twice" "$(dups_of "$O/$f")" ""
done
first=$(fires_of "$O/every1" | head -n 1)
last=$(fires_of "$O/every1" | tail -n 1)
fires_of "$O/every1" | gaps_in 1 "$first" "$last" >"$T/gaps"
every1=$(job_of '/every1$')
excused=
while read -r _ t; do
	c=$(claim_rows "fire == $t && job == \"$every1\"" | cut -d' ' -f3)
	if [ "$t" -ge $((crash_s - 2)) ] && [ "$t" -le "$crash_s" ] &&
	    [ "$c" = "$victim" ]; then
		echo "note: fire $t claimed by $victim as it died, not run"
		excused="$excused $t"
	else
		echo "missing $t"
	fi
done <"$T/gaps" >"$T/gaps2"
grep '^note' "$T/gaps2"
same "every1: every second ran" "$(grep -v '^note' "$T/gaps2")" ""

# From the runs table: no fire started twice but a rerun of a lost one.
r=$(run_rows)
same "runs: no fire started twice but lost ones rerun" "$(echo "$r" |
    awk '$3 >= 1 { n[$1 " " $2]++; if ($5 == "lost") lost[$1 " " $2] = 1 }
	END { for (f in n) if (n[f] > 2 || (n[f] == 2 && !(f in lost)))
		print f, n[f] }')" ""
same "runs: no attempt 3" "$(echo "$r" | awk '$3 >= 3')" ""
same "runs: nothing left running" "$(echo "$r" | awk '$5 == "running"')" ""
same "runs: as many every1 runs as lines" "$(echo "$r" |
    awk '$3 >= 1' | grep -c .)" "$(($(count_lines "$O/every1") +
    $(count_lines "$O/long.start") + $(count_lines "$O/rerun.start")))"

echo "runtime: $(elapsed)"
finish
