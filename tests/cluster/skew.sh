#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# skew.sh: three daemons on one private MariaDB, two of them with their
# wall clock off through libfaketime (Debian's faketime): n2 two minutes
# slow, n3 five minutes fast.  The store measures the offsets (nodes
# table), no job starts before its fire instant by the real clock, no
# fire runs twice, every fire runs; with max-clock-skew the skewed
# nodes say SKEW and claim nothing.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"
needs_faketime
dmn_cluster

for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
max-clock-skew = 5s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s.\%N)" >>$O/every1
*/2 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s.\%N)" >>$O/every2
EOF
done

dmn_start n1
wait_for 20 at_least 2 "$O/every1" || fail "n1 alone ran nothing"
dmn_start_faked -120 n2 || fail "cannot start n2 under faketime"
dmn_start_faked +300 n3 || fail "cannot start n3 under faketime"

# The offsets are real: the store measured them at the heartbeats.
skewed()
{
	_sk=$(ccs nodes) || return 1
	echo "$_sk" | awk '
	    $1 == "n2" && $2 > -125000 && $2 < -115000 { a = 1 }
	    $1 == "n3" && $2 > 295000 && $2 < 305000 { b = 1 }
	    END { exit !(a && b) }'
}
wait_for 20 skewed || fail "the store did not see the clocks off: $(ccs \
    nodes | tr '\n' ';')"
echo "skew by the store (ms): $(ccs nodes | tr '\n' ';')"
n=$(count_lines "$O/every1")
wait_for 30 at_least $((n + 12)) "$O/every1" || fail "too few fires"
for n in n1 n2 n3; do
	dmn_stop $n
done

# Early starts: a run line whose real start precedes its fire instant.
early()
{
	[ -s "$1" ] || return 0
	cut -d' ' -f1 "$1" | iso_epochs | paste -d' ' - "$1" |
	    awk '$4 < $1 { print "early by", $1 - $4, "s:", $2, $3 }'
}
for f in every1 every2; do
	same "$f: nothing started early" "$(early "$O/$f" | head -n 5)" ""
	same "$f: no fire twice" "$(dups_of "$O/$f")" ""
done
# Every fire from n1's first to its last ran.  Not to the time of the
# check: n1 stopped first and runs nothing after, however long the
# others take to stop (seconds, under ASan on a loaded machine).  (A
# fast node may have run fires ahead of the end: those are early,
# above.)
first=$(fires_of "$O/every1" | head -n 1)
last=$(fires_of "$O/every1" | tail -n 1)
same "every1: every second ran" "$(fires_of "$O/every1" |
    gaps_in 1 "$first" "$last" | head -n 5)" ""
r=$(run_rows)
same "runs: no fire started twice" \
    "$(echo "$r" | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
same "runs: as many as the files" "$(echo "$r" | awk '$3 >= 1' |
    grep -c .)" "$(($(count_lines "$O/every1") + $(count_lines "$O/every2")))"
for n in n2 n3; do
	contains "$n says SKEW" "$(cat "$T/$n.log")" '\(CRON\) SKEW'
	same "$n claimed nothing" "$(grep -c CLAIMED "$T/$n.log")" 0
	# Not even a misfire: noting a fire missed claims it too.
	same "$n recorded no run and no note" \
	    "$(run_rows "node == \"$n\"")" ""
done

echo "runtime: $(elapsed)"
finish
