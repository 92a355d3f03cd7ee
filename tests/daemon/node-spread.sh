#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-spread.sh: load spreading.  Three daemons on one MariaDB share
# six cluster jobs every two seconds that run a second each; n1 also
# runs a node-local job every second that lasts twelve, so it has about
# twelve jobs running while n2 and n3 have up to six, in bursts.  Once
# the load has built up, the runs of the cluster jobs are counted per
# node from the runs table, first with load-spreading = no, then yes.
#
# Without spreading the preferred claimant is a hash of the job and the
# instant, so n1 is the preferred claimant of about a third of the
# fires; measured, it ran a sixth to a quarter of them (its preferred
# claims come a little late at times, being busy, and the others take
# them).  The bound checked is an eighth.  With spreading n1, noticeably
# busier than the others by the counts the nodes report at their
# heartbeats, is left out of the ranking and claims only after the
# others had their turn: measured, it ran none; the bound is a
# twentieth, with n2 and n3 more than a quarter each (they split the
# fires by the hash, half each on average).  Every fire still
# runs once.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster

COUNT=90

# phase NAME SPREADING: run the three nodes until COUNT cluster runs
# fired after the warm-up, then stop them; leaves the counts of n1, n2
# and n3 in $got.
phase() {
	for n in n1 n2 n3; do
		dmn_setup $n <<EOF
heartbeat-interval = 1s
claim-defer-ms = 200
load-spreading = $2
EOF
		{
			echo "CLUSTERCRON_SECONDS=yes"
			echo 'MAILTO=""'
			for j in 1 2 3 4 5 6; do
				echo "CLUSTERCRON_NAME=$1-$j"
				echo "*/2 * * * * * $ME echo \"\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE\" >>$O/$1.$j; sleep 1"
			done
			if [ $n = n1 ]; then
				echo "CLUSTERCRON_SCOPE=node"
				echo "* * * * * * $ME echo x >>$O/$1.local; sleep 12"
			fi
		} >"$T/$n/crontab"
	done
	dmn_start n1
	dmn_start n2
	dmn_start n3
	# Warm-up: n1 busy, and every node has seen every other's count.
	wait_for 30 at_least 11 "$O/$1.local" || fail "$1: n1's load did not start"
	mark=$(($(date +%s) + 2))
	miso=$(date -u -d "@$mark" +%Y-%m-%dT%H:%M:%SZ)
	enough() { [ "$(cat "$O/$1".[1-6] | awk -v m="$miso" '$1 >= m' |
	    wc -l)" -ge "$COUNT" ]; }
	wait_for 90 enough "$1" || fail "$1: too few runs"
	dmn_stop n1
	dmn_stop n2
	dmn_stop n3
	# From the runs table: the runs of fires from the mark on, per node.
	# node-local runs are recorded too: only the phase's named jobs.
	"$CCSTORE" -m "$MYSQL_FILE" "$STORE" jobs |
	    awk -v p="$1" '$4 ~ "^" p "-" { print $1 }' >"$T/ids.$1"
	[ "$(count_lines "$T/ids.$1")" -eq 6 ] || fail "$1: jobs not found"
	got=$(runs | awk -v m="$mark" -v ids="$T/ids.$1" '
	    BEGIN { while ((getline l < ids) > 0) want[l] = 1 }
	    $3 >= 1 && $2 >= m && ($1 in want) { n[$4]++ } END {
	    printf "%d %d %d\n", n["n1"], n["n2"], n["n3"] }')
	echo "$1: runs per node (n1 n2 n3), n1 busy: $got"
	for j in 1 2 3 4 5 6; do
		same "$1.$j: no fire twice" \
		    "$(cut -d' ' -f1 "$O/$1.$j" | sort | uniq -d)" ""
	done
}

phase off no
off=$got
phase on yes

set -- $off
offsum=$(($1 + $2 + $3))
off1=$1
set -- $got
onsum=$(($1 + $2 + $3))
[ "$offsum" -ge "$COUNT" ] || fail "off: only $offsum runs counted"
[ "$onsum" -ge "$COUNT" ] || fail "on: only $onsum runs counted"
ntest=$((ntest + 1))
if [ $((off1 * 8)) -ge "$offsum" ]; then
	echo "ok: without spreading the busy node gets its share ($off1 of $offsum)"
else
	fail "without spreading n1 got only $off1 of $offsum runs"
fi
ntest=$((ntest + 1))
if [ $(($1 * 20)) -lt "$onsum" ] && [ $(($2 * 4)) -gt "$onsum" ] &&
    [ $(($3 * 4)) -gt "$onsum" ]; then
	echo "ok: with spreading the busy node yields ($1 $2 $3 of $onsum)"
else
	fail "with spreading the runs were spread $1 $2 $3 of $onsum"
fi
ntest=$((ntest + 1))
if [ $(($1 * offsum)) -lt $((off1 * onsum)) ]; then
	echo "ok: spreading moved runs off the busy node"
else
	fail "spreading did not move runs off n1: $off vs $got"
fi
finish
