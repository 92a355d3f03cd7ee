#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# noderuns.sh: runs of node-scope jobs are recorded in the store by
# every node that runs them, one row per node and fire, alongside the
# cluster job whose fires each run once.  Two daemons share one SQLite
# store and the same table.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

for n in a b; do
	dmn_setup $n </dev/null
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID \$CLUSTERCRON_FIRE_TIME >>$O/node.\$CLUSTERCRON_NODE
CLUSTERCRON_SCOPE=cluster
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID \$CLUSTERCRON_FIRE_TIME >>$O/cluster
EOF
done
dmn_start a
dmn_start b
wait_for 30 at_least 4 "$O/node.a" || fail "node a: node job did not run"
wait_for 30 at_least 4 "$O/node.b" || fail "node b: node job did not run"
dmn_stop a
dmn_stop b

nid=$(head -n 1 "$O/node.a" | cut -d' ' -f1)
cid=$(head -n 1 "$O/cluster" | cut -d' ' -f1)
r=$(runs)
for n in a b; do
	same "node $n: one finished run recorded per run of the node job" \
	    "$(printf '%s\n' "$r" | grep -c "^$nid [0-9]* 1 $n finished 0 0 ")" \
	    "$(count_lines "$O/node.$n")"
	same "node $n: no fire of the node job recorded twice" \
	    "$(printf '%s\n' "$r" | grep "^$nid [0-9]* 1 $n " | cut -d' ' -f2 |
	    sort | uniq -d)" ""
done
same "the cluster job: one run per fire, on either node" \
    "$(printf '%s\n' "$r" | grep "^$cid " | cut -d' ' -f2 | sort | uniq -d)" ""
same "the cluster job: as many runs recorded as it ran" \
    "$(printf '%s\n' "$r" | grep -c "^$cid [0-9]* 1 [ab] finished 0 0 ")" \
    "$(count_lines "$O/cluster")"
finish
