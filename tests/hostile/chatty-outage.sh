#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# chatty-outage.sh: chatty jobs while the store is away (issue 12,
# point 3).  Node-local jobs go on running without the store, and
# their ends wait to be recorded.  20 jobs a second each write 1.2 MB,
# of which the store keeps 1 MB (output-max 1M): over 12 s of outage
# the ends held would come to 240 MB of heads.  Past 16 MB of them the
# daemon leaves a head in its run file and reads it again when the
# store is back: its resident size grows by less than 48 MB, and once
# the store answers again every run is recorded with its whole 1 MB
# head.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

dmn_setup n1 <<EOF
heartbeat-interval = 1s
store-retry-interval = 1s
output-max = 1M
EOF
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo "CLUSTERCRON_SCOPE=node"
	echo 'MAILTO=""'
	i=1
	while [ $i -le 20 ]; do
		echo "* * * * * * head -c 1200000 /dev/zero | tr '\\\\0' x; echo \$CLUSTERCRON_FIRE_TIME >>$O/ran # $i"
		i=$((i + 1))
	done
} >"$T/n1/spool/root"
chmod 600 "$T/n1/spool/root"
dmn_start n1
wait_for 20 at_least 40 "$O/ran" || fail "the chatty jobs do not run"
P=$(dmn_pid n1)
kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$P/status"; }

mdb_kill
wait_for 20 in_log n1 'STORE DOWN' || fail "n1 did not see the store go"
rss0=$(kb VmRSS)
n0=$(count_lines "$O/ran")
wait_for 40 at_least $((n0 + 240)) "$O/ran" ||
    fail "the chatty jobs stopped with the store"
hwm=$(kb VmHWM)
echo "$(($(count_lines "$O/ran") - n0)) runs ended while the store was" \
    "away; daemon resident $rss0 kB, peak since $hwm kB"
# Not under the sanitizers, whose allocator keeps what is freed.
if [ "$DMN_MODE" != foreground ]; then
	ntest=$((ntest + 1))
	[ $((hwm - rss0)) -lt 49152 ] || fail "the daemon grew by" \
	    "$((hwm - rss0)) kB holding the runs' output"
fi

mdb_start
wait_for 40 in_log n1 'STORE BACK' || fail "n1 did not see the store back"
# The table goes; once its last jobs ended every run that ended is in
# the store, each with its 1 MB head.
rm "$T/n1/spool/root"
gone() { [ -z "$(ccs jobs | awk '$2 == "root"')" ]; }
wait_for 30 gone || fail "the table did not go"
finished() { ccs runs | awk '$5 == "finished"' | wc -l | tr -d ' '; }
allin() { [ "$(finished)" = "$(count_lines "$O/ran")" ]; }
wait_for 60 allin
same "every run is recorded, finished" "$(finished)" \
    "$(count_lines "$O/ran")"
same "... each with the head the store keeps" \
    "$(ccs runs | awk '$5 == "finished" && $8 != 1048576' | head -3)" ""
contains "... and the heads past the bound were read from the run files" \
    "$(ls "$T/n1/runs" | wc -l)" '^0$'
finish
