#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-orphans.sh: node-lost.sh on MariaDB, where a node heartbeats.  A
# daemon killed with kill -9, its runners with it, while two runs of it
# go on comes back before node-timeout, so no other node would mark its
# runs lost: it marks lost at once the run whose process is gone, and
# the other, still alive, within a second or so after it ended, without
# a restart.
# Neither fire is started again.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

dmn_setup n1 <<EOF
heartbeat-interval = 1s
node-timeout = 30s
EOF
t=$(($(date +%s) + 4))
when=$(date -u -d "@$t" +'%-S %-M %-H')
cat >"$T/n1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
CRON_TZ=UTC
MAILTO=""
$when * * * $ME echo \$\$ >>$O/a.pid; exec sleep 120
$when * * * $ME echo \$\$ >>$O/b.pid; exec sleep 121
EOF
dmn_start n1
wait_for 20 test -s "$O/a.pid" || fail "job a did not start"
wait_for 20 test -s "$O/b.pid" || fail "job b did not start"
running2() { [ "$(runs | awk '$5 == "running"' | wc -l)" -eq 2 ]; }
wait_for 10 running2 || fail "the two runs are not recorded running"
jobs=$(runs | awk '{ print $1 }' | sort -u)

# The daemon and its runners (its children) killed, as a crash of the
# node's cron would kill them: the jobs, in sessions of their own, run
# on.
p=$(dmn_pid n1)
kill -9 "$p" $(ps -o pid= --ppid "$p")
wait_for 10 dmn_dead n1 || fail "n1 did not die"
apid=$(cat "$O/a.pid")
bpid=$(cat "$O/b.pid")
kill "$apid"
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_for 10 gone "$apid" || fail "job a did not end"

dmn_start n1
wait_for 10 in_log n1 'LOST \(n1 [0-9T:-]+Z attempt 1, its end is unknown: its runner died; [0-9a-f]{32}' ||
    fail "the run of the gone process was not marked lost"
r=$(runs)
same "one run lost, one still running" \
    "$(echo "$r" | awk '{ print $5 }' | sort | tr '\n' ' ')" "lost running "
kill "$bpid"
wait_for 10 gone "$bpid" || fail "job b did not end"
lost2() { [ "$(grep -c 'its end is unknown' "$T/n1.log")" -eq 2 ]; }
wait_for 10 lost2 || fail "the second run was not marked lost at a heartbeat"
dmn_stop n1
r=$(runs)
same "both runs lost" "$(echo "$r" | awk '{ print $5 }' | sort |
    tr '\n' ' ')" "lost lost "
same "each job started once" "$(echo "$r" | awk '{ print $1 }' | sort)" \
    "$jobs"
same "job a ran once" "$(count_lines "$O/a.pid")" 1
same "job b ran once" "$(count_lines "$O/b.pid")" 1
finish
