#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# pending.sh: runs whose start or end the store could not take are
# recorded once it answers again (run.c, pending_flush()), so that an
# outage leaves no run "running" for good and none unrecorded.  Through
# the store's fault hook, the second end and the fourth start to be
# recorded fail; the node-local job goes on every second meanwhile,
# and in the end the runs table holds every run it made, each
# finished, once.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup a </dev/null
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID \$CLUSTERCRON_FIRE_TIME >>$O/node
EOF

CLUSTERCRON_TEST_FAULTS=run_end.before:2:fail,run_start.before:4:fail \
    dmn_start a
# late N: the runs kept meanwhile were recorded after N outages.
late()
{
	[ "$(grep -c 'runs recorded late' "$T/a.log")" -ge "$1" ]
}
wait_for 30 late 2 || fail "the runs kept meanwhile were never recorded"
n=$(count_lines "$O/node")
wait_for 20 at_least $((n + 2)) "$O/node" || fail "the job stopped"
dmn_stop a

log=$(cat "$T/a.log")
contains "the end that failed took the store down" "$log" \
    'STORE DOWN \(recording the end of a run'
contains "so did the start" "$log" 'STORE DOWN \(recording a run'
id=$(head -n 1 "$O/node" | cut -d' ' -f1)
r=$(runs)
same "every run recorded finished, once per fire" \
    "$(printf '%s\n' "$r" | awk -v j="$id" '$1 == j && $3 == 1 &&
    $5 == "finished" { print $2 }' | sort -u | wc -l | tr -d ' ')" \
    "$(count_lines "$O/node")"
same "no other row" \
    "$(printf '%s\n' "$r" | awk -v j="$id" '!($1 == j && $3 == 1 &&
    $5 == "finished")')" ""
finish
