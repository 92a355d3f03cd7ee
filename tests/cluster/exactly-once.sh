#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# exactly-once.sh: two, then three daemons on one private MariaDB with
# the same table of seconds-field jobs; then one of them stops.  Every
# fire must have run exactly once while nodes were up: no duplicate,
# no gap, as the jobs' own files and the runs table both say.
# Node-local entries run on every node.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
store-tables-interval = 1s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
*/2 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every2
*/3 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every3; sleep 1
CLUSTERCRON_SCOPE=node
*/2 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/local.\$CLUSTERCRON_NODE; echo \$CLUSTERCRON_JOB_ID >$O/local.id
EOF
done

dmn_start n1
dmn_start n2
wait_for 30 at_least 6 "$O/every1" || fail "two nodes: too few fires"
dmn_start n3
# A table stored as ctab stores it reaches every node and runs once.
cat >"$T/stored" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/stored
EOF
"$CCSTORE" -m "$MYSQL_FILE" "$STORE" put "$ME" "$T/stored" ||
    fail "cannot store a table"
n=$(count_lines "$O/every1")
wait_for 30 at_least $((n + 6)) "$O/every1" || fail "three nodes: too few fires"
dmn_stop n1
n=$(count_lines "$O/every1")
wait_for 30 at_least $((n + 4)) "$O/every1" || fail "after a stop: too few fires"
dmn_stop n2
dmn_stop n3

# From the files: each fire once, and every second between the first
# and the last fire.
for f in every1 every2 every3 stored; do
	same "$f: no fire twice" "$(cut -d' ' -f1 "$O/$f" | sort | uniq -d)" ""
done
secs() { cut -d' ' -f1 "$1" | sort -u | while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
gaps() { secs "$1" | awk -v step="$2" 'NR > 1 && $1 != prev + step {
	print "gap after " prev } { prev = $1 }'; }
same "every1: no gap" "$(gaps "$O/every1" 1)" ""
same "every2: no gap" "$(gaps "$O/every2" 2)" ""
same "every3: no gap" "$(gaps "$O/every3" 3)" ""
same "stored: no gap" "$(gaps "$O/stored" 1)" ""
[ "$(count_lines "$O/stored")" -ge 3 ] || fail "stored table hardly ran"
for n in n1 n2 n3; do
	contains "$n ran cluster jobs" "$(cat "$O/every1" "$O/every2" \
	    "$O/every3")" " $n\$"
	[ "$(count_lines "$O/local.$n")" -ge 2 ] ||
	    fail "node-local job did not run on $n"
	same "$n: node-local fires once each" \
	    "$(sort "$O/local.$n" | uniq -d)" ""
done

# From the runs table: one run per fire, as many as the files hold.
# The node-local job's runs are recorded by each node: one per node
# and fire.
all=$(runs)
lid=$(cat "$O/local.id")
r=$(echo "$all" | awk -v l="$lid" '$1 != l')
local=$(echo "$all" | awk -v l="$lid" '$1 == l')
same "runs: node-local fires once per node" \
    "$(echo "$local" | awk '{ print $2, $4 }' | sort | uniq -d)" ""
same "runs: node-local runs, as many as the files" \
    "$(echo "$local" | awk '$5 == "finished"' | wc -l | tr -d ' ')" \
    "$(cat "$O"/local.n? | wc -l | tr -d ' ')"
same "runs: no fire started twice" \
    "$(echo "$r" | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
same "runs: all finished with exit 0" \
    "$(echo "$r" | awk '$3 >= 1 && ($5 != "finished" || $6 != 0)')" ""
total=$(($(count_lines "$O/every1") + $(count_lines "$O/every2") + \
    $(count_lines "$O/every3") + $(count_lines "$O/stored")))
same "runs: as many as the files" "$(echo "$r" | awk '$3 >= 1' | wc -l |
    tr -d ' ')" "$total"
for n in n1 n2 n3; do
	grep -q "STORE DOWN" "$T/$n.log" && fail "$n lost the store"
done

finish
