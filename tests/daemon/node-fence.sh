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
# it was fenced are held unclaimed: those still recent when the fence
# is lifted (as the misfire pass leaves to the nodes firing on time)
# run then, late; the older ones are recorded as missed.  No fire runs
# twice.

. "$top_srcdir/tests/daemon/lib.sh"
# The settling of fires is timed by the log's stamps.
DMN_STAMPED=1
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
# The 5th to the 14th heartbeats fail (faults armed alike fire one
# after the other; a fenced node also asks for one at each claim).
# -d: each fire's steps, for the fires held.
DMN_FLAGS="${DMN_FLAGS:-} -d"
f=beat.read.before:5:fail
CLUSTERCRON_TEST_FAULTS=$f,$f,$f,$f,$f,$f,$f,$f,$f,$f dmn_start n1
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
# The fires held while fenced, each with the seconds from its instant
# to the log line that settled it and how it ended: one settled within
# a second ran; one settled four seconds late or more is missed
# (recover_limit() in claim.c: two seconds and the claim deferral).
held=$(awk '/due -> dropped on held; / { d[$6] = 1 }
    /FIRE \(n1 [^ ]+ dropped -> / { s[$6] = $1 }
    END { for (f in d) print f, s[f] }' "$T/n1.log" |
    while read -r f t; do
	f=$(date -u -d "$f" +%s)
	echo "$f $(($(date -u -d "$t" +%s) - f))"
    done | sort -n)
ended() { echo "$missed" | grep -qx "$1" && echo missed ||
    { echo "$ran" | grep -qx "$1" && echo ran || echo neither; }; }
held=$(echo "$held" | while read -r f g; do
	[ -n "$f" ] && echo "$f $g $(ended "$f")"; done)
echo "held while fenced (fire, settled after s, how): $(echo $held)"
same "the held fires settled within a second ran" \
    "$(echo "$held" | awk '$2 <= 1 && $3 != "ran"')" ""
same "the held fires settled four seconds late or more are missed" \
    "$(echo "$held" | awk '$2 >= 4 && $3 != "missed"')" ""
contains "a held fire ran once the fence was lifted" "$held" ' [01] ran$'
contains "a held fire four seconds old was missed" "$held" \
    ' ([4-9]|[1-9][0-9]) missed$'
secs() { sort -u "$1" | while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
same "the file and the runs agree" "$(secs "$O/every1" | sort -n)" "$ran"
finish
