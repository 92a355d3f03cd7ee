#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# statements.sh: what a fire costs the store as the cluster grows (issue
# 16, point 2).  For each node count (1, 3 and 6 by default) a private
# MariaDB and that many daemons share a table of jobs; the server's
# general log lists the statements it carried out over an idle window,
# when no job is due (heartbeats and chores only), and over a window as
# long while they fire.  Two tables: "sparse", fifteen jobs due every
# fifteen seconds, one a second, whose backups wait for the preferred
# node's cover (its heartbeat's word) rather than read the claims; and
# "every", one job due every second, which is too frequent for that and
# read at claim-defer-ms as before.  Each fire is alone at its instant.
# Per fire: all statements (the difference over the fires run), and
# those of a fire's path (tests/daemon/ccstore fire-path), which
# leave out the chores that come and go with the windows' edges.  Each
# window is W seconds (40 by default).
#
#	top_srcdir=. top_builddir=. bench/daemon/statements.sh \
#	    [window ["1 3 6" [sparse|every]]]

W=${1:-40}
COUNTS=${2:-1 3 6}
KIND=${3:-sparse}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir

# table FILE due|idle: the jobs, due in the windows or not.
table()
{
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		if [ "$KIND" = every ]; then
			[ "$2" = due ] && echo "* * * * * * $ME true" ||
			    echo "0 0 0 1 1 * $ME true"
		else
			for k in $(seq 0 14); do
				[ "$2" = due ] &&
				    echo "$k-59/15 * * * * * $ME true" ||
				    echo "$k 0 0 1 1 * $ME true"
			done
		fi
	} >"$1"
}

# window NAME: over W seconds, the server's general log in $T/NAME;
# "ALL PATH" statements on stdout.
window()
{
	mdb_root "SET GLOBAL general_log_file = '$T/$1';
	    SET GLOBAL general_log = 1"
	sleep "$W"
	mdb_root "SET GLOBAL general_log = 0"
	ccs fire-path "$T/$1" | cut -d' ' -f1,2
}

# one NODES: the statements per fire at that many nodes, on stdout.
one()
{
	(
	. "$top_srcdir/tests/daemon/lib.sh"
	dmn_cluster
	all=$(seq -f 'n%g' 1 "$1" | tr '\n' ' ')
	for n in $all; do
		dmn_setup $n </dev/null
		table "$T/$n/crontab" idle
		dmn_start $n
	done
	formed() { [ "$(ccs nodes | wc -l)" -ge "$1" ]; }
	wait_for 60 formed "$1" || { echo "the cluster did not form" >&2;
	    exit 1; }
	# Every node has heard of every other at its next heartbeat.
	sleep 7
	idle=$(window idle)
	for n in $all; do
		table "$T/$n/crontab" due
	done
	fired() { [ "$(ccs runs | wc -l)" -ge 3 ]; }
	wait_for 60 fired || { echo "the jobs did not run" >&2; exit 1; }
	# Past the first heartbeats after the tables changed.
	sleep 15
	r0=$(ccs runs | wc -l)
	busy=$(window busy)
	r1=$(ccs runs | wc -l)
	dups=$(ccs runs | awk '{ print $1, $2 }' | sort | uniq -d | wc -l)
	for n in $all; do
		dmn_stop $n
	done
	echo "$1 $idle $busy $((r1 - r0)) $dups" | awk '{
		printf "nodes %d: idle %d (%d on a fire'"'"'s path), firing %d " \
		    "(%d) statements in %s s, %d fires (%d twice): %.1f " \
		    "statements a fire, %.1f on its path\n", $1, $2, $3, $4,
		    $5, "'"$W"'", $6, $7, ($4 - $2) / $6, ($5 - $3) / $6 }'
	)
}

for c in $COUNTS; do
	one "$c"
done
