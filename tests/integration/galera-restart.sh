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
GALD_STAMP=s
. "$top_srcdir/tests/lib/galera-daemons.sh"

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
