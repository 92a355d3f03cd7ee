#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# mariadb-restart.sh: three daemons on one private MariaDB, which is
# killed (SIGKILL, no clean shutdown) while a long job runs, then
# started again on the same data directory and socket.  Meanwhile no
# node starts a cluster job (fail closed) and node-local jobs go on;
# then every node reconnects, and the fires missed meanwhile follow
# their job's misfire policy: noted missed (skip, the default), or one
# catch-up run (catchup); those of the last seconds before a node could
# claim again it runs late, as fires held through an outage.  No fire
# runs twice, and the run that ended while the store was away is not
# left running.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"
dmn_cluster

nodes="n1 n2 n3"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
store-retry-interval = 1s
claim-defer-ms = 150
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s)" >>$O/skip
*/2 * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s)" >>$O/long.start; sleep 3; echo "\$CLUSTERCRON_FIRE_TIME" >>$O/long.end
CLUSTERCRON_MISFIRE=catchup:5m
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s)" >>$O/catchup
CLUSTERCRON_SCOPE=node
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/local.\$CLUSTERCRON_NODE
EOF
done
for n in $nodes; do
	dmn_start $n
done
wait_for 30 at_least 5 "$O/skip" || fail "too few fires before the outage"

# The store dies while a long job runs.
k=$(count_lines "$O/long.start")
wait_for 10 at_least $((k + 1)) "$O/long.start" || fail "no long job started"
inflight=$(sed -n "$((k + 1))p" "$O/long.start" | cut -d' ' -f1)
mdb_kill
kill_s=$(date +%s)
echo "store killed at $kill_s ($(elapsed)), $inflight running"

all_log() { for _n in $nodes; do in_log $_n "$1" || return 1; done; }
wait_for 20 all_log 'STORE DOWN' || fail "nodes did not notice the store went"
for n in $nodes; do
	eval "l_$n=$(count_lines "$O/local.$n")"
done
c_skip=$(count_lines "$O/skip")
c_catchup=$(count_lines "$O/catchup")
for n in $nodes; do
	eval "l=\$l_$n"
	wait_for 25 at_least $((l + 12)) "$O/local.$n" ||
	    fail "node-local jobs stopped with the store on $n"
done
same "no cluster job started without the store" \
    "$(count_lines "$O/skip") $(count_lines "$O/catchup")" \
    "$c_skip $c_catchup"
wait_for 10 at_least 1 "$O/long.end" ||
    fail "the long job did not end during the outage"

# Back on the same data directory and socket.
restart_s=$(date +%s)
mdb_start
up=$(date +%s.%N)
up_s=${up%.*}
echo "store back at $restart_s, answering at $up_s ($(elapsed))"
# When each node is seen back (its log's stamps, where it has them, are
# its turns' starts, to the second): no earlier than it was.
for n in $nodes; do
	wait_for 40 in_log $n 'STORE BACK' ||
	    fail "$n did not notice the store came back"
	eval "back_$n=$(date +%s.%N)"
done
c=$(count_lines "$O/skip")
wait_for 20 at_least $((c + 4)) "$O/skip" || fail "cluster jobs did not resume"
wait_for 20 grep -q . "$O/catchup" || fail "no catch-up run"
# The run that ended during the outage gets its end recorded.
ended()
{
	[ -z "$(run_rows "state == \"running\" && fire <= $restart_s")" ]
}
wait_for 10 ended
for n in $nodes; do
	dmn_stop $n
done

# From the files: no fire twice, none started during the outage (a
# second of margin after the kill: a fire claimed just before may
# start just after), and node-local jobs went on (above).
for f in skip catchup long.start; do
	same "$f: no fire twice" "$(dups_of "$O/$f")" ""
	same "$f: nothing started during the outage" "$(awk -v a="$kill_s" \
	    -v b="$restart_s" '$3 > a + 1 && $3 < b' "$O/$f")" ""
done

# From the runs table.
r=$(run_rows)
# Each node records its own runs of the node-local job: once per node.
local_id=$(job_of '/local\.')
same "runs: no fire started twice" \
    "$(echo "$r" | awk -v l="$local_id" '$3 >= 1 && $1 != l { print $1, $2 }' |
    sort | uniq -d)" ""
same "runs: node-local fires once per node" \
    "$(echo "$r" | awk -v l="$local_id" '$1 == l { print $2, $4 }' | sort |
    uniq -d)" ""
skip_id=$(job_of '/skip$')
catch_id=$(job_of '/catchup$')
long_id=$(job_of '/long\.start;')
# run.c keeps a run's end that the store could not take and records it
# once the store answers (pending_flush()), so no row stays "running".
same "runs: nothing left running" \
    "$(echo "$r" | awk '$5 == "running"')" ""
# The run in flight at the kill may have been marked lost meanwhile by
# another node, all heartbeats having stopped with the store; it then
# stays lost, with its end.
same "runs: the run in flight at the kill ended, finished or lost" \
    "$(echo "$r" | awk -v j="$long_id" -v f="$(echo "$inflight" |
    iso_epochs)" '$1 == j && $2 == f && $3 >= 1 { print $5 }' |
    sed 's/^lost$/finished/')" finished
# Fires due while no node could claim them: after the kill (with the
# second of margin) and before the restart, but for those a node held
# and still ran when it claimed again, as recent as the misfire pass
# leaves to the nodes on time (claim.c's recover_limit(): two seconds
# and the claim deferral, no earlier than the restart).
window() { awk -v j="$1" -v a="$kill_s" -v b="$restart_s" \
    '$1 == j && $2 > a + 1 && $2 < b - 3'; }
same "skip: no fire of the outage ran" \
    "$(echo "$r" | window "$skip_id" | awk '$3 >= 1')" ""
contains "skip: the outage's fires noted missed" \
    "$(echo "$r" | window "$skip_id")" " missed "
same "catchup: no fire of the outage ran" \
    "$(echo "$r" | window "$catch_id" | awk '$3 >= 1')" ""
contains "catchup: the outage's fires noted missed" \
    "$(echo "$r" | window "$catch_id")" " missed "
# Once the server answers, each node is back within a heartbeat (1 s),
# not when the back-off of its connections, grown to 5 s over the 12 s
# outage, would have it try; and every fire due from the second after
# ran (late, held through the outage, for those of the last seconds
# before).
for n in $nodes; do
	eval "b=\$back_$n"
	d=$(awk -v b="$b" -v u="$up" 'BEGIN { printf "%.1f", b - u }')
	echo "$n: STORE BACK seen $d s after the server answered"
	same "$n: back within a heartbeat of the server's answer" \
	    "$(awk -v d="$d" 'BEGIN { print d < 2.5 ? "yes" : "no" }')" yes
done
last=$(echo "$r" | awk -v j="$skip_id" '$1 == j && $3 >= 1 { print $2 }' |
    sort -n | tail -n 1)
same "skip: every fire from a second after the server answered ran" \
    "$(echo "$r" | awk -v j="$skip_id" -v a="$((up_s + 1))" -v b="$last" '
	$1 == j && $3 >= 1 { ran[$2] = 1 }
	END { for (t = a; t <= b; t++) if (!(t in ran)) print t }')" ""
# The catch-up runs, as the nodes logged them.  Each node that comes
# back settles the fires it dropped in its misfire pass, before any new
# claim: of those nobody else has claimed, those of the last seconds
# are claimed "late, held through an outage" and run, the latest older
# one "catching up" and run, the others noted missed.  So a node's
# CLAIMED lines of the catchup job from its STORE BACK to its first
# claim that is neither hold one catch-up at most; a fire in flight at the
# kill, settled there too (and logged so), is before the kill's second
# of margin.  The nodes come back one after the other (seconds apart
# on a loaded machine), and the latest fire a late node dropped can be
# one due after another node resumed, which that node has not claimed
# yet: the late node then runs it, once, as its catch-up.  So there is
# one catch-up a node at most, and each is a fire no other node ran.
settled()
{
	awk -v id="$catch_id" '
	    /STORE DOWN/ { down = 1 }
	    down && /STORE BACK/ { back = 1 }
	    !back || !/ CLAIMED \(/ || / NOT CLAIMED / { next }
	    / late, held through an outage; / { next }
	    !/ catching up; / { exit }
	    index($0, "; " id ": ") {
		sub(/.* CLAIMED \(n[0-9]+ /, "")
		sub(/ .*/, "")
		print
	    }' "$T/$1.log" | iso_epochs | awk -v a="$kill_s" '$1 > a + 1'
}
caught=
for n in $nodes; do
	c=$(settled $n)
	echo "$n: catch-up runs: $(echo $c)"
	same "catchup: $n caught up once at most" \
	    "$([ "$(echo "$c" | grep -c .)" -le 1 ] && echo yes)" yes
	caught="$caught $c"
done
same "catchup: caught up" "$([ -n "$(echo $caught)" ] && echo yes)" yes
for f in $caught; do
	same "catchup: the catch-up run of $f is in the runs table" \
	    "$(echo "$r" | awk -v j="$catch_id" -v f="$f" \
	    '$1 == j && $2 == f && $3 >= 1 { print $5 }')" finished
done
contains "catchup: logged" "$(cat "$T"/n?.log)" 'CLAIMED \(n[123] .*catching up'
same "catchup: the file has as many runs as the table" \
    "$(count_lines "$O/catchup")" \
    "$(echo "$r" | awk -v j="$catch_id" '$1 == j && $3 >= 1' | grep -c .)"
for n in $nodes; do
	same "$n said the store went once" "$(grep -c 'STORE DOWN' \
	    "$T/$n.log")" 1
done

echo "runtime: $(elapsed)"
finish
