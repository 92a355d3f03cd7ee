#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-fence.sh: self-fencing.  One daemon on MariaDB whose heartbeats
# fail four times in a row (the store's fault hook, at the heartbeat's
# first statement) while its main connection works: past node-timeout
# minus heartbeat-interval without a renewal it logs FENCED and starts
# no cluster job, though it could still claim; once a heartbeat goes
# through it logs FENCED (lifted) and runs again.  The fires due while
# it was fenced are not run late: they are recorded as missed.  No fire
# runs twice.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

dmn_setup n1 <<EOF
heartbeat-interval = 1s
node-timeout = 3s
EOF
cat >"$T/n1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/every1
EOF
# The 5th to the 8th heartbeats fail (faults armed alike fire one after
# the other).
f=beat.read.before:5:fail
CLUSTERCRON_TEST_FAULTS=$f,$f,$f,$f dmn_start n1
wait_for 30 in_log n1 'FENCED \(no heartbeat for [0-9]+\.[0-9] s; starting no cluster job\)' ||
    fail "n1 did not fence itself"
wait_for 30 in_log n1 'FENCED \(lifted\)' || fail "the fence was not lifted"
n=$(count_lines "$O/every1")
wait_for 20 at_least $((n + 3)) "$O/every1" || fail "no runs after the fence"
dmn_stop n1

r=$(runs)
missed=$(echo "$r" | awk '$5 == "missed" { print $2 }' | sort -n)
ran=$(echo "$r" | awk '$3 >= 1 { print $2 }' | sort -n)
[ -n "$missed" ] || fail "no fire recorded missed while fenced"
same "no fire run twice" "$(echo "$ran" | uniq -d)" ""
same "no fire both run and missed" "$(printf '%s\n%s\n' "$ran" "$missed" |
    sort -n | uniq -d)" ""
secs() { sort -u "$1" | while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
same "the file and the runs agree" "$(secs "$O/every1" | sort -n)" "$ran"
finish
