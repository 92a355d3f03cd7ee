#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# sigstop.sh: three daemons on one private MariaDB, with a burst of
# long jobs every five seconds; n1 is stopped (SIGSTOP to the daemon
# alone: a node that hangs, not one that dies; its jobs go on) as it
# claims a burst, between its claims and its starts, past node-timeout,
# then continued.  Meanwhile the two others run every fire and mark its
# runs lost.  Once continued it starts no fire from before it woke (nor
# one it had claimed before it stopped), runs nothing twice, its lost
# runs stay lost when it records their end, and it says it fenced
# itself or renewed its heartbeat.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"
dmn_cluster

for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
claim-defer-ms = 150
EOF
	{
		cat <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
EOF
		for i in $(seq 1 30); do
			echo "*/5 * * * * * $ME echo \"\$CLUSTERCRON_FIRE_TIME" \
			    "\$CLUSTERCRON_NODE b$i\" >>$O/burst; sleep 7"
		done
	} >"$T/$n/crontab"
done
dmn_start n1
dmn_start n2
dmn_start n3
wait_for 30 at_least 5 "$O/every1" || fail "three nodes: too few fires"
wait_for 20 grep -q " n1 b" "$O/burst" || fail "n1 ran no burst"
burst=$(job_of '/burst;')

# n1 stops as it claims a burst: its first CLAIMED line for that
# instant is looked for without pause (a bounded loop), so that it
# stops with fires claimed and not started yet, when the stop falls
# between its claims and its forks.  When it did not (nothing pending),
# it is continued at once, well within node-timeout, and stopped at the
# next burst; three tries.  A burst it claimed nothing of (its backups
# took its share: a busy machine can hold it past claim-defer-ms) is
# not a try; five of those in a row are a failure.
victim=n1
alive="n2 n3"
try=0
none=0
while :; do
	t=$((($(date +%s) + 2) / 5 * 5 + 5))
	iso=$(date -u -d "@$t" +%Y-%m-%dT%H:%M:%SZ)
	i=0
	while ! grep -q "CLAIMED ($victim $iso" "$T/$victim.log"; do
		i=$((i + 1))
		if [ $((i % 100)) -eq 0 ] &&
		    [ "$(date +%s)" -gt $((t + 5)) ]; then
			none=$((none + 1))
			echo "$victim claimed nothing of $iso"
			break
		fi
	done
	if [ $none -gt 0 ] && [ $none -lt 5 ] &&
	    ! grep -q "CLAIMED ($victim $iso" "$T/$victim.log"; then
		continue
	fi
	[ $none -lt 5 ] || fail "$victim claimed nothing of five bursts"
	none=0
	try=$((try + 1))
	kill -STOP "$(dmn_pid "$victim")"
	stop_s=$(date +%s)
	# Claimed but not started: its claims of the burst less the lines
	# its jobs wrote (they run on; a second for them and the others'
	# claims).
	n=$(count_lines "$O/every1")
	wait_for 10 at_least $((n + 1)) "$O/every1"
	started_t=$(grep -c "^$iso $victim b" "$O/burst")
	claimed_t=$(claim_rows "fire == $t && node == \"$victim\"" |
	    awk -v ids="$(echo $burst)" '
		BEGIN { split(ids, a, " "); for (i in a) b[a[i]] = 1 }
		$1 in b { n++ } END { print n + 0 }')
	pending=$((claimed_t - started_t))
	echo "try $try: stopped $victim at $stop_s ($(elapsed)) as it claimed" \
	    "$claimed_t fires of $iso; it had started $started_t"
	[ "$pending" -gt 0 ] || [ $try -ge 3 ] && break
	kill -CONT "$(dmn_pid "$victim")"
done
echo "$pending fires claimed, not started"
inflight=$(run_rows "node == \"$victim\" && state == \"running\"")
echo "in flight on $victim: $(echo "$inflight" | grep -c .) runs"

# Past node-timeout: its runs are marked lost, the others go on.
notlost()
{
	[ -z "$(run_rows "node == \"$victim\" && state == \"running\"")" ]
}
wait_for 20 notlost || fail "runs of $victim not marked lost"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 3)) "$O/every1" ||
    fail "the live nodes did not go on"
lostruns=$(run_rows "node == \"$victim\" && state == \"lost\"")

# Woken up: it renews, records the end of what it ran, claims again.
cont_s=$(date +%s)
kill -CONT "$(dmn_pid "$victim")"
echo "continued $victim at $cont_s ($(elapsed))"
v=$(grep -c " $victim\$" "$O/every1")
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 6)) "$O/every1" || fail "too few fires at the end"
echo "$victim, woken, ran $(($(grep -c " $victim\$" "$O/every1") - v)) of" \
    "$(($(count_lines "$O/every1") - n)) fires of every1"
for a in n1 n2 n3; do
	dmn_stop $a
done

# Woken past node-timeout, it says so when it renews, or that it fenced
# itself.
contains "$victim: fenced or renewed late, by its log" \
    "$(grep -E 'FENCED|HEARTBEAT' "$T/$victim.log")" \
    'HEARTBEAT \(renewed after|FENCED \('
same "lost runs stay lost once their end is recorded" "$(echo "$lostruns" |
    while read -r job fire att rest; do
	run_rows "job == \"$job\" && fire == $fire && attempt == $att && \
	    state != \"lost\""
    done)" ""
# Nothing the woken node started was due before it woke (a second of
# margin: a fire due as it woke may start at once, and rightly), not
# even the fires it had claimed when it was stopped between its claims
# and its starts: past the lease of their claims, they are not started.
late=$(run_rows "node == \"$victim\" && attempt >= 1 && \
    started >= $cont_s * 1000 && fire < $cont_s - 1")
same "$victim, woken, started no fire from before" "$late" ""
if [ "$pending" -gt 0 ]; then
	contains "$victim did not start what it had claimed, by its log" \
	    "$(cat "$T/$victim.log")" 'FENCED \(.*past the lease of its claim, not started; '
fi
same "$victim ran nothing while stopped" "$(run_rows "node == \
    \"$victim\" && attempt >= 1 && started > ($stop_s + 1) * 1000 && \
    started < $cont_s * 1000")" ""

# From the files: each fire once, every second from the first to the
# last, but for a fire the victim had claimed when it stopped (lost
# with it: shown, not counted).
same "every1: no fire twice" "$(dups_of "$O/every1")" ""
same "burst: no fire twice" "$(cut -d' ' -f1,3 "$O/burst" | sort | uniq -d)" ""
first=$(fires_of "$O/every1" | head -n 1)
last=$(fires_of "$O/every1" | tail -n 1)
every1=$(job_of '/every1$')
fires_of "$O/every1" | gaps_in 1 "$first" "$last" |
while read -r _ t; do
	c=$(claim_rows "fire == $t && job == \"$every1\"" | cut -d' ' -f3)
	if [ "$c" = "$victim" ] && [ "$t" -ge $((stop_s - 2)) ] &&
	    [ "$t" -le "$cont_s" ]; then
		echo "note: fire $t claimed by $victim as it stopped, not run"
	else
		echo "missing $t (claimed by ${c:-nobody})"
	fi
done >"$T/gaps"
grep '^note' "$T/gaps"
same "every1: every second ran" "$(grep -v '^note' "$T/gaps")" ""
# Every burst: each of its 30 jobs once, but for the fires the victim
# had claimed and not started when it stopped (shown, not counted).
bfirst=$(fires_of "$O/burst" | head -n 1)
blast=$(fires_of "$O/burst" | tail -n 1)
cut -d' ' -f1,3 "$O/burst" | sort -u | cut -d' ' -f1 | uniq -c |
    while read -r c u; do
	echo "$(echo "$u" | iso_epochs) $c"
    done | awk -v a="$bfirst" -v b="$blast" -v t="$t" -v p="$pending" '
	{ have[$1] = $2 }
	END {
		for (u = a; u <= b; u += 5) {
			miss = 30 - have[u]
			if (u == t && miss > 0 && miss <= p)
				print "note:", miss, "fires of", u,
				    "claimed by the victim as it stopped, not run"
			else if (miss > 0)
				print "missing", miss, "fires of", u
		}
	}' >"$T/bgaps"
grep '^note' "$T/bgaps"
same "burst: every job at every instant ran" "$(grep -v '^note' \
    "$T/bgaps")" ""
r=$(run_rows)
same "runs: no fire started twice" \
    "$(echo "$r" | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
same "runs: nothing left running" "$(echo "$r" | awk '$5 == "running"')" ""
# The fires the victim had claimed and never started are recorded as
# its lost runs with no process (pid 0); the others are the files'.
same "runs: as many as the files" "$(echo "$r" | awk '$3 >= 1 && $6 != 0' |
    grep -c .)" "$(($(count_lines "$O/every1") + $(count_lines "$O/burst")))"
notes=$(($(grep -c '^note' "$T/gaps") + $(awk '/^note/ { n += $2 }
    END { print n + 0 }' "$T/bgaps")))
same "runs: each fire the victim claimed and never started is lost" \
    "$(echo "$r" | awk -v v="$victim" '$3 >= 1 && $6 == 0 && $4 == v &&
    $5 == "lost"' | grep -c .)" "$notes"

echo "runtime: $(elapsed)"
finish
