#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-stall-trx.sh: a node that hangs inside a claim's transaction,
# holding the job's row lock.  n1 and n2 run a job every second; n1
# stops itself (the store's fault hook, kind stop) just after the write
# of a claim it won, before the commit.  n2's claims of the job wait
# for that lock only until the server rolls n1's idle transaction back
# (idle_transaction_timeout, one heartbeat-interval), then go through:
# the cluster does not stall behind the stopped node (every second
# runs, n2 never fences itself), though InnoDB alone would make them
# wait its lock timeout (10 s) again and again.  n1, continued, has
# lost that claim with its connection, starts nothing of it and claims
# again.  Each fire runs once.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2; do
	dmn_setup $n <<EOF2
heartbeat-interval = 1s
node-timeout = 3s
EOF2
	cat >"$T/$n/crontab" <<EOF2
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
EOF2
done

dmn_start n2
CLUSTERCRON_TEST_FAULTS=claim.note.after:3:stop dmn_start n1
wait_for 30 dmn_stopped n1 || fail "n1 did not stop in its third claim"
stop_s=$(date +%s)
echo "n1 stopped in a claim ($(elapsed))"
# Past node-timeout, and then some: n2 alone runs every fire.
wait_for 20 at_least 8 "$O/every1" || fail "too few fires before the stop"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 6)) "$O/every1" ||
    fail "n2 did not go on alone"
cont_s=$(date +%s)
kill -CONT "$(dmn_pid n1)"
echo "n1 continued ($(elapsed))"
last=$(last_claim n1)
wait_for 20 claims_after n1 "$last" || fail "n1 claims nothing once continued"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 2)) "$O/every1" || fail "no fires at the end"
dmn_stop n1
dmn_stop n2

same "n2 never fenced itself" "$(grep FENCED "$T/n2.log")" ""
same "no fire twice" "$(dups_of "$O/every1")" ""
first=$(fires_of "$O/every1" | head -n 1)
end=$(fires_of "$O/every1" | tail -n 1)
same "every second ran from the first fire to the last" \
    "$(fires_of "$O/every1" | gaps_in 1 "$first" "$end")" ""
same "n1 ran nothing while stopped" "$(run_rows "node == \"n1\" && \
    attempt >= 1 && started > ($stop_s + 1) * 1000 && \
    started < $cont_s * 1000")" ""
finish
