#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-restart.sh: three clustercron daemons on a private three-node
# Galera cluster, as in galera-daemons.sh, through a restart of the whole
# cluster, first clean (SIGTERM, node 3 first) and then after all three
# servers were killed with -9 at once, each bootstrapped again from the
# most advanced server (tests/lib/galera.sh gal_restart).  While no
# primary component exists the daemons run no cluster job (fail closed);
# once one exists again they reconnect and go on.  No fire runs twice,
# and fires are missed only from the restart's start until the daemons
# are back.  About 60 s; run by hand (tests/integration/galera.am).

. "$top_srcdir/tests/daemon/lib.sh"
rm -rf "$T"
. "$top_srcdir/tests/lib/galera.sh"
DMN_FLAGS="-L 31"

gal_init
# The daemons go first, then the cluster (gal_cleanup exits).
both_cleanup()
{
	_rc0=$?
	for _n in $DAEMONS; do
		[ -f "$T/$_n/pid" ] && kill -9 "$(cat "$T/$_n/pid")" 2>/dev/null
	done
	for _n in $DAEMONS; do
		if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
		    "$T/$_n.log" 2>/dev/null; then
			echo "FAIL: sanitizer report in $_n's log"
			[ $_rc0 -eq 0 ] && _rc0=1
		fi
	done
	(exit $_rc0)
	gal_cleanup
}
trap both_cleanup EXIT
gal_cluster
echo "cluster formed in $GAL_FORMED ms"

# The daemons are d1, d2 and d3 ($T/nN is database node N's), daemon
# dN's URL names database node N first, then the others.
url_of()
{
	eval "_a=127.0.0.1:\$GAL_PORT_$1"
	_u=$_a
	for _k in 1 2 3; do
		[ "$_k" = "$1" ] && continue
		eval "_u=\"\$_u,127.0.0.1:\$GAL_PORT_$_k\""
	done
	echo "mysql://$_u/cctest"
}
MYSQL_FILE=$GAL_CNF
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
# node-timeout above what a heartbeat may wait: the writes of the whole
# cluster stall while it drops a node (about 3.5 s with this harness's
# group timeouts) and a daemon on a frozen node waits out its read
# timeout (8 s with several servers) before moving on.
for i in 1 2 3; do
	STORE=$(url_of $i)
	dmn_setup d$i <<EOF
heartbeat-interval = 1s
node-timeout = 12s
store-retry-interval = 1s
claim-defer-ms = 100
EOF
	cat >"$T/d$i/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s)" >>$O/a
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%s)" >>$O/b
EOF
done
STORE=$(url_of 1)
for i in 1 2 3; do
	dmn_start d$i
done
wait_for 30 at_least 4 "$O/a" || fail "too few fires on a healthy cluster"

# restart MODE: the whole cluster down and up again.  The fires missed
# must lie between its start and the first fire run once the bootstrap
# began; after a crash of all three, no job may start from the kill
# until the bootstrap (no server at all: fail closed).
restart()
{
	c=$(count_lines "$O/a")
	down=$(date +%s)
	gal_restart "$1"
	boot=$((($(gal_now) - GAL_TOOK) / 1000))
	echo "$1 restart: bootstrap $((boot - down)) s after it began, three" \
	    "servers Synced $GAL_TOOK ms later (node $GAL_BOOT, seqnos" \
	    "$GAL_SEQNOS)"
	wait_for 30 at_least $((c + 4)) "$O/a" ||
	    fail "fires did not resume after the $1 restart"
	back=$(fires_of "$O/a" | awk -v b="$boot" '$1 >= b' | head -n 1)
	echo "$1 restart: fires again $((back - boot)) s after the bootstrap began"
	eval "window_$1=\"$down $back\""
	if [ "$1" = crash ]; then
		same "crash: nothing started with every server dead" \
		    "$(cat "$O/a" "$O/b" | awk -v a="$down" -v b="$boot" \
		    '$3 > a + 1 && $3 < b')" ""
	fi
}
restart clean
restart crash
c=$(count_lines "$O/a")
wait_for 20 at_least $((c + 3)) "$O/a" || fail "fires stopped at the end"
for i in 1 2 3; do
	dmn_stop d$i
done
gal_together

for f in a b; do
	same "$f: no fire twice" "$(dups_of "$O/$f")" ""
done
r=$(run_rows)
same "runs: no fire started twice" \
    "$(echo "$r" | awk '$3 >= 1 { print $1, $2 }' | sort | uniq -d)" ""
claim_rows | awk '{ print $1, $2, $3 }' | sort >"$T/claims"
same "runs: each run's node holds its claim" \
    "$(echo "$r" | awk 'NF && $3 >= 1 { print $1, $2, $4 }' | sort |
    comm -23 - "$T/claims")" ""
# Misses only inside the two windows (a second of margin before each:
# a fire due as the servers stopped may have been claimed in doubt).
for f in a b; do
	from=$(fires_of "$O/$f" | head -n 1)
	to=$(fires_of "$O/$f" | tail -n 1)
	gaps=$(fires_of "$O/$f" | gaps_in 1 "$from" "$to" | awk '{ print $2 }')
	echo "$f: $(count_lines "$O/$f") fires, $(echo "$gaps" | grep -c .)" \
	    "missed during the restarts"
	set -- $window_clean $window_crash
	same "$f: misses only while the cluster restarted" \
	    "$(echo "$gaps" | awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" \
	    'NF && !(($1 >= a - 1 && $1 < b) || ($1 >= c - 1 && $1 < d))')" ""
done
echo "took $(elapsed)"
finish
