#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-drain.sh: two daemons on one MariaDB.  Drained, n1 logs DRAINED,
# claims no more cluster fires while n2 runs every one of them, and
# keeps running its node-local job; resumed, it logs RESUMED and wins
# fires again.  No fire runs twice and none is missed throughout.  A
# long job that forbids overlap, started on n1 before the drain, runs
# on to its end there, and n2 does not start it meanwhile: a draining
# node's runs still count.  Load spreading is off: a node running the
# long job is the busier one and would leave every fire to the other,
# for as long as the long job keeps coming back to it.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

for n in n1 n2; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
load-spreading = no
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1b
CLUSTERCRON_OVERLAP=forbid
* * * * * * $ME echo "start \$CLUSTERCRON_NODE" >>$O/long; sleep 15; echo "end \$CLUSTERCRON_NODE" >>$O/long
CLUSTERCRON_OVERLAP=allow
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/local.\$CLUSTERCRON_NODE
EOF
done

# ran NODE: cluster fires NODE ran so far.
ran() { cat "$O/every1" "$O/every1b" 2>/dev/null | grep -c " $1\$"; }
# more_than N NODE: NODE ran more than N cluster fires.
more_than() { [ "$(ran "$2")" -gt "$1" ]; }
# more_local N: n1 ran its node-local job more than N times.
more_local() { [ "$(count_lines "$O/local.n1")" -gt "$1" ]; }

dmn_start n1
wait_for 10 test -s "$O/long" || fail "the long job did not start"
dmn_start n2
wait_for 30 more_than 2 n1 || fail "n1 runs no cluster job"
wait_for 30 more_than 2 n2 || fail "n2 runs no cluster job"

run "$CLUSTERCRON" drain -c "$T/n1/clustercron.conf" n1
same "drain n1" "$rc" 0
wait_for 10 in_log n1 'DRAINED' || fail "n1 did not log DRAINED"
# What n1 had claimed before it saw the drain has ended once n2 has run
# a few more fires; from then on n1 runs nothing of the cluster's.
c=$(ran n2)
wait_for 30 more_than $((c + 3)) n2 || fail "n2 stopped running"
d1=$(ran n1)
l1=$(count_lines "$O/local.n1")
c=$(ran n2)
wait_for 30 more_than $((c + 10)) n2 || fail "n2 stopped running"
same "drained n1 claimed nothing" "$(ran n1)" "$d1"
# Its node-local job runs on, at its own pace beside n2's two.
wait_for 30 more_local $((l1 + 5)) || fail "drained n1 stopped its node-local job"

run "$CLUSTERCRON" resume -c "$T/n1/clustercron.conf" --node n1
same "resume n1" "$rc" 0
wait_for 10 in_log n1 'RESUMED' || fail "n1 did not log RESUMED"
wait_for 30 more_than $((d1 + 2)) n1 || fail "resumed n1 claims nothing"
dmn_stop n1
dmn_stop n2

secs() { cut -d' ' -f1 "$1" | sort -u | while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
gaps() { secs "$1" | awk 'NR > 1 && $1 != prev + 1 {
	print "gap after " prev } { prev = $1 }'; }
# The run that went on through the drain ended before any other began.
same "n1 ran the long job to its end, not overlapped, while drained" \
    "$(head -n 2 "$O/long" | tr '\n' ' ')" "start n1 end n1 "
for f in every1 every1b; do
	same "$f: no fire twice" "$(cut -d' ' -f1 "$O/$f" | sort | uniq -d)" ""
	same "$f: no gap" "$(gaps "$O/$f")" ""
done
finish
