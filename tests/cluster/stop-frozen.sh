#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# stop-frozen.sh: SIGTERM while the store does not answer (issue 12,
# point 1).  The MariaDB server is frozen (SIGSTOP) while the daemon
# claims every second, so that the daemon's loop waits in a store call
# that would last the connection's read timeout (30 s).  SIGTERM then
# stops the daemon all the same: it is gone while the server is still
# frozen, and said STOPPING within a few seconds; the stop watch gave
# the store up (daemon.c).  Ordering, not timing: without the stop watch
# the daemon stays until the server is thawed.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

dmn_setup n1 <<EOF
heartbeat-interval = 1s
EOF
cat >"$T/n1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/every1
EOF
dmn_start n1
wait_for 20 at_least 3 "$O/every1" || fail "the job does not run"

mdb=$(cat "$T/mariadbd.pid")
P=$(dmn_pid n1)
thaw() { kill -CONT "$mdb" 2>/dev/null; }
trap '_st=$?; thaw; (exit $_st); dmn_cleanup' EXIT
# The system call the daemon's main thread is in (/proc gives its
# number first), and the one it waits in most of the time: its ppoll().
sysno() { cut -d' ' -f1 "/proc/$P/task/$P/syscall" 2>/dev/null; }
idle=$(for i in 1 2 3 4 5 6 7 8 9 10; do sysno; sleep 0.1; done |
    sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
kill -STOP "$mdb"
# The loop in a store call: its main thread waits in another system
# call than its ppoll().
blocked()
{
	_s=$(sysno)
	[ -n "$_s" ] && [ "$_s" != running ] && [ "$_s" != "$idle" ]
}
wait_for 20 blocked || fail "the loop never waited on the frozen store"
echo "the loop waits in system call $(sysno), its poll is $idle"
kill -TERM "$P"
wait_for 15 dmn_dead n1 || fail "SIGTERM did not stop the daemon"
ntest=$((ntest + 1))
[ "$(ps -o stat= -p "$mdb" | cut -c 1)" = T ] ||
    fail "the server was thawed before the daemon left"
contains "it said it stopped" "$(cat "$T/n1.log")" 'DEATH \(stopped by signal\)'
thaw
finish
