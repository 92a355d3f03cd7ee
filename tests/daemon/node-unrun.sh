#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-unrun.sh: claims that no record follows.  A node that dies
# between its claim of a fire and the record of the start leaves the
# claim alone; the fire may or may not have started.  Here such claims
# are made with ccstore, as a dying node would leave them, on MariaDB:
# one of n1's own, made while it was down, which n1 finds at its next
# start and marks lost without running it; and one of a node n9 that
# heartbeat once and went silent, which n1 marks lost when n9 is dead
# and, as its job asks (CLUSTERCRON_LOST=rerun), runs again once.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

dmn_setup n1 <<EOF
heartbeat-interval = 1s
node-timeout = 3s
EOF
# Two jobs that fire once a year, so that only the claims made here
# give them fires.
cat >"$T/n1/crontab" <<EOF
MAILTO=""
CLUSTERCRON_NAME=own
0 0 1 1 * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_ATTEMPT" >>$O/own
CLUSTERCRON_NAME=ghost
CLUSTERCRON_LOST=rerun
0 0 1 1 * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_ATTEMPT" >>$O/ghost
EOF
dmn_start n1
registered() { [ "$(ccs jobs | grep -c ' own$\| ghost$')" -eq 2 ]; }
wait_for 20 registered || fail "the jobs were not registered"
own=$(ccs jobs | awk '$4 == "own" { print $1 }')
ghost=$(ccs jobs | awk '$4 == "ghost" { print $1 }')
dmn_stop n1

# n1's own claim, as its earlier life would have left it.
f1=$(($(date +%s) - 30))
ccs claim n1 "$own" "$f1" || fail "could not claim as n1"
dmn_start n1
wait_for 20 in_log n1 "LOST \\(n1 [0-9T:-]+Z attempt 1, its end is unknown; own: " ||
    fail "n1's claim without a record was not marked lost at its start"
same "n1's claim: one run, lost, no other attempt" \
    "$(runs | awk -v j="$own" '$1 == j { print $2, $3, $4, $5 }')" \
    "$f1 1 n1 lost"

# n9 beats, claims and goes silent.
ccs beat n9 || fail "could not beat as n9"
f2=$(($(date +%s) - 2))
ccs claim n9 "$ghost" "$f2" || fail "could not claim as n9"
wait_for 40 in_log n1 "LOST \\(n9 [0-9T:-]+Z attempt 1, node dead; ghost: " ||
    fail "n9's claim without a record was not marked lost"
wait_for 20 test -s "$O/ghost" || fail "the lost fire of n9 was not rerun"
dmn_stop n1
same "n9's fire: attempt 1 lost on n9, attempt 2 run by n1" \
    "$(runs | awk -v j="$ghost" '$1 == j { print $2, $3, $4, $5 }' |
    sort -k2n | tr '\n' ' ')" "$f2 1 n9 lost $f2 2 n1 finished "
same "the rerun ran once, as attempt 2" "$(cat "$O/ghost")" \
    "$(date -u -d "@$f2" +%Y-%m-%dT%H:%M:%SZ) 2"
same "n1's own lost fire was not run" "$(cat "$O/own" 2>/dev/null)" ""
finish
