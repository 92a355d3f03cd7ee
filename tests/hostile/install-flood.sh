#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# install-flood.sh: a user installs table after table as fast as ctab
# goes for 15 seconds (issue 12, points 3 and 6), going round his 150
# tables of 50 every-minute entries each, no two tables alike.  The jobs of each replaced
# table leave the store (once grown to 570k rows in 40 s, every reload
# reading them all), so that at the end the store holds his last
# table's 50 jobs and the good user's one; the good user's every-second
# job runs every second exactly once, on time, all along
# (tests/hostile/good.sh).  Two nodes on MariaDB, the flood on one: a
# node busy reloading must not be taken for dead by the other.

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock
. "$top_srcdir/tests/hostile/good.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
dmn_cluster
H=cchf$$
dmn_useradd "$H" "$T/home/$H"

for n in a b; do
	echo "heartbeat-interval = 1s" | dmn_setup $n
	dmn_start $n
done
good_start ccgf$$ "$T/a/sock"

# 150 tables, each of 50 entries of its own.
mkdir -p "$T/tabs"
k=1
while [ $k -le 150 ]; do
	awk -v k=$k 'BEGIN {
		print "MAILTO=\"\""
		for (i = 1; i <= 50; i++)
			printf "%d * * * * true table %d entry %d\n", i % 60, k, i
	}' >"$T/tabs/$k"
	k=$((k + 1))
done
chmod -R a+rX "$T/tabs"

good_begin
runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" CTAB="$CTAB" T="$T" \
    END=$((GOOD_FROM + 15)) sh -c '
	n=0
	while [ "$(date +%s)" -lt "$END" ]; do
		k=1
		while [ $k -le 150 ]; do
			"$CTAB" "$T/tabs/$k" || exit 1
			k=$((k + 1))
		done
		n=$((n + 150))
	done
	echo "$n tables installed"' || fail "the hostile tables were not all installed"
good_end
good_check "tables installed without pause for 15 s"

# Once the last table is loaded, his jobs are its 50.
hisjobs() { ccs jobs | awk -v u="$H" '$2 == u' | wc -l | tr -d ' '; }
lastonly() { [ "$(hisjobs)" = 50 ] && ccs commands | grep -q 'table 150 entry 50$'; }
wait_for 30 lastonly || fail "the store holds $(hisjobs) jobs of $H, not 50"
same "no job of a replaced table is left in the store" \
    "$(ccs commands | grep -E 'true table ([0-9]|[0-9][0-9]|1[0-4][0-9]) entry' | head -3)" ""
same "the good user's job is still there" \
    "$(ccs jobs | awk -v u="$GOOD_USER" '$2 == u' | wc -l | tr -d ' ')" 1
finish
