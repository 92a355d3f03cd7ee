#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-skew.sh: two daemons on one MariaDB, one of them with its clock
# five minutes fast (faketime).  The fast one measures its offset from
# the store's clock before its first claim, logs SKEW and claims
# nothing: not the fires five minutes ahead that its clock says are
# due, which would run them early and, by moving the jobs' last fire
# forward, leave the other node nothing to run.  The other node runs
# every fire, once.  The offset it measured is in the store: status
# shows it.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"
needs_faketime
needs python3
dmn_cluster

for n in n1 n2; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 150
max-clock-skew = 2s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every1
*/2 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE" >>$O/every2
EOF
done

dmn_start n1
wait_for 30 at_least 3 "$O/every1" || fail "n1 runs nothing"
# libfaketime preloaded into the daemon itself (faketime(1) would stand
# between it and the test's signals); its jobs' environment is cron's
# and does not carry it.
lib=$(faketime_lib)
: >"$T/n2.log"
LD_PRELOAD=$lib FAKETIME=+300s FAKETIME_DONT_FAKE_MONOTONIC=1 \
    "$CLUSTERCRON" -f -c "$T/n2/clustercron.conf" >>"$T/n2.log" 2>&1 &
echo $! >"$T/n2/pid.shell"
DAEMONS="$DAEMONS n2"
wait_for 20 in_log n2 STARTUP || fail "n2 did not start"
wait_for 20 in_log n2 'SKEW \(node clock ahead of the store by (29[0-9]|30[0-9])\.[0-9] s: claiming nothing\)' ||
    fail "n2 did not log its skew"
# The offset it measured is in the store, for status.
run "$CLUSTERCRON" status --json -c "$T/n1/clustercron.conf"
skew=$(printf '%s\n' "$out" | python3 -c 'import json, sys
for n in json.load(sys.stdin)["nodes"]:
    if n["name"] == "n2":
        print(int(n["skew_ms"] / 1000 + 0.5))' 2>&1)
case "$skew" in
29[5-9]|30[0-5]) echo "ok: status shows n2 five minutes ahead"
	ntest=$((ntest + 1)) ;;
*)	fail "status shows n2's skew as $skew s: $out" ;;
esac
n=$(count_lines "$O/every1")
wait_for 30 at_least $((n + 8)) "$O/every1" ||
    fail "too few fires with the fast node up"
dmn_stop n2
dmn_stop n1

same "the fast node ran nothing" "$(cat "$O/every1" "$O/every2" |
    grep -v ' n1$')" ""
for f in every1 every2; do
	same "$f: no fire twice" "$(cut -d' ' -f1 "$O/$f" | sort | uniq -d)" ""
done
secs() { cut -d' ' -f1 "$1" | sort -u | while read -r t; do
	date -u -d "$(echo "$t" | sed 's/T/ /; s/Z$//')" +%s; done; }
gaps() { secs "$1" | awk -v step="$2" 'NR > 1 && $1 != prev + step {
	print "gap after " prev } { prev = $1 }'; }
same "every1: no gap" "$(gaps "$O/every1" 1)" ""
same "every2: no gap" "$(gaps "$O/every2" 2)" ""
now=$(date +%s)
same "no fire ahead of the store's clock" "$(secs "$O/every1" |
    awk -v now="$now" '$1 > now + 2')" ""
r=$(runs)
same "runs: none on the fast node" "$(echo "$r" | awk '$4 == "n2"')" ""
in_log n2 'CLAIMED' && fail "the fast node claimed a fire"
finish
