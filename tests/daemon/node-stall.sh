#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-stall.sh: a node that hangs between a claim and its start.  n1,
# alone on MariaDB, stops itself (the store's fault hook, kind stop)
# just after the commit of its fourth claim: the fire is its own, not
# started.  n2 starts, takes n1 for dead past node-timeout, marks the
# claim lost (a run with no process) and, as the job asks, reruns the
# fire.  n1 is continued: the claim comes back to it won, but it was
# made under a lease long run out, so n1 does not start it, says so,
# and claims again.  Each fire runs once.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
CLUSTERCRON_LOST=rerun
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT" >>$O/every1
EOF
done

CLUSTERCRON_TEST_FAULTS=claim.commit.after:4:stop dmn_start n1
wait_for 30 dmn_stopped n1 || fail "n1 did not stop at its fourth claim"
fire=$(last_claim n1)
iso=$(date -u -d "@$fire" +%Y-%m-%dT%H:%M:%SZ)
echo "n1 stopped as it claimed $iso ($(elapsed))"
same "the claim is committed, its fire not started" \
    "$(grep -c "^$iso " "$O/every1")" 0

dmn_start n2
lost_unrun()
{
	[ -n "$(run_rows "fire == $fire && node == \"n1\" && \
	    attempt == 1 && state == \"lost\" && pid == 0")" ]
}
wait_for 20 lost_unrun || fail "n2 did not mark n1's claim of $iso lost"
wait_for 20 grep -q "^$iso n2 2\$" "$O/every1" ||
    fail "n2 did not rerun $iso"

kill -CONT "$(dmn_pid n1)"
echo "n1 continued ($(elapsed))"
wait_for 20 in_log n1 "FENCED \\(n1 $iso [0-9]+\\.[0-9] s past the lease of its claim, not started; " ||
    fail "n1 did not say it left $iso unstarted"
wait_for 20 in_log n1 "LOST \\(n1 $iso taken for dead meanwhile" ||
    fail "n1 did not settle $iso as taken over"
# It claims again once renewed.
last=$(last_claim n1)
wait_for 20 claims_after n1 "$last" || fail "n1 claims nothing once continued"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 2)) "$O/every1" || fail "no fires at the end"
dmn_stop n1
dmn_stop n2

same "$iso ran once, rerun by n2" "$(grep "^$iso " "$O/every1")" "$iso n2 2"
same "no fire twice" "$(dups_of "$O/every1")" ""
same "n1's claim of $iso stays a run that never started" \
    "$(run_rows "fire == $fire && node == \"n1\"" | cut -d' ' -f3-6)" \
    "1 n1 lost 0"
# Every second ran while a node could run it: up to n1's stop, and from
# n2's first fire on.  Between them no node could: n1 was stopped and
# n2 not yet started, which on a loaded machine (ASan) can take past
# the next second.
first=$(fires_of "$O/every1" | head -n 1)
end=$(fires_of "$O/every1" | tail -n 1)
n2first=$(awk '$2 == "n2" && $3 == 1 { print $1 }' "$O/every1" |
    iso_epochs | sort -n | head -n 1)
same "every second ran up to n1's stop and from n2's start to the last" \
    "$(fires_of "$O/every1" | gaps_in 1 "$first" "$fire")$(fires_of \
    "$O/every1" | gaps_in 1 "$n2first" "$end")" ""
finish
