#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# outage.sh: two daemons started before their MariaDB, which is later
# killed and restarted.  While it is away the nodes run no cluster job (fail closed), say so
# once each, and keep running node-local jobs; when it is back they say
# so and cluster jobs resume, with no fire run twice.

. "$top_srcdir/tests/daemon/lib.sh"
# The daemons start before their store.
dmn_cluster nostart

for n in n1 n2; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
store-retry-interval = 1s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/cluster
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/local.\$CLUSTERCRON_NODE; echo \$CLUSTERCRON_JOB_ID >$O/local.id
EOF
done
# Started before the store: node-local jobs run, cluster jobs wait.
dmn_start n1
dmn_start n2
wait_for 10 at_least 3 "$O/local.n1" ||
    fail "node-local jobs did not run before the store was up"
same "no cluster job before the store is up" "$(count_lines "$O/cluster")" 0
mdb_start
wait_for 30 at_least 3 "$O/cluster" || fail "no cluster fires"
# (Both on the store before it goes: the fires held meanwhile run at
# once, and a node that opens it a moment later would see one outage.)
opened() { in_log n1 'STORE BACK' && in_log n2 'STORE BACK'; }
wait_for 30 opened || fail "a node never opened the store"

mdb_kill
down() { in_log n1 'STORE DOWN' && in_log n2 'STORE DOWN'; }
wait_for 20 down || fail "nodes did not notice the store went"
n=$(count_lines "$O/cluster")
l=$(count_lines "$O/local.n1")
# Seven seconds away: the fires held longer than the misfire pass's
# on-time margin (claim.c's recover_limit(), about 3 s here) are noted
# missed when the store is back; the more recent ones run late.
wait_for 20 at_least $((l + 7)) "$O/local.n1" ||
    fail "node-local jobs stopped with the store"
same "no cluster job ran without the store" "$(count_lines "$O/cluster")" \
    "$n"
same "n1 said it once per outage" "$(grep -c 'STORE DOWN' "$T/n1.log")" 2
same "n2 said it once per outage" "$(grep -c 'STORE DOWN' "$T/n2.log")" 2

mdb_start
back() { in_log n1 'STORE BACK' && in_log n2 'STORE BACK'; }
wait_for 40 back || fail "nodes did not notice the store came back"
wait_for 20 at_least $((n + 3)) "$O/cluster" ||
    fail "cluster jobs did not resume"
dmn_stop n1
dmn_stop n2
same "no fire twice" "$(cut -d' ' -f1 "$O/cluster" | sort | uniq -d)" ""
r=$(runs)
contains "missed fires noted once the store is back" "$r" \
    '^[0-9a-f]{32} [0-9]+ 0 n[12] missed '
# Each node records its own runs of the node-local job.
lid=$(cat "$O/local.id")
same "runs: no fire started twice" \
    "$(echo "$r" | awk -v l="$lid" '$3 >= 1 && $1 != l { print $1, $2 }' |
    sort | uniq -d)" ""
same "runs: node-local fires once per node" \
    "$(echo "$r" | awk -v l="$lid" '$1 == l { print $2, $4 }' | sort |
    uniq -d)" ""

finish
