#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# statements.sh: what a fire costs the store as the cluster grows (issue
# 16, point 2).  For each node count (1, 3 and 6 by default) a private
# MariaDB and that many daemons share one job due every second, so that
# each fire is alone at its instant.  The server's count of statements
# (Questions, read through tests/daemon/ccstore) is taken over an idle
# window, when the job is not due (heartbeats only), and over a window
# as long while it fires; the statements per fire are the difference
# over the fires run in the second window.  Each window is W seconds
# (40 by default).
#
#	top_srcdir=. top_builddir=. bench/daemon/statements.sh \
#	    [window ["1 3 6"]]

W=${1:-40}
COUNTS=${2:-1 3 6}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir

# one NODES: the statements per fire at that many nodes, on stdout.
one()
{
	(
	. "$top_srcdir/tests/daemon/lib.sh"
	dmn_cluster
	all=$(seq -f 'n%g' 1 "$1" | tr '\n' ' ')
	for n in $all; do
		dmn_setup $n </dev/null
		{
			echo "CLUSTERCRON_SECONDS=yes"
			echo 'MAILTO=""'
			echo "0 0 0 1 1 * $ME true"
		} >"$T/$n/crontab"
		dmn_start $n
	done
	formed() { [ "$(ccs nodes | wc -l)" -ge "$1" ]; }
	wait_for 60 formed "$1" || { echo "the cluster did not form" >&2;
	    exit 1; }
	# Every node has heard of every other at its next heartbeat.
	sleep 7
	q0=$(ccs statements)
	sleep "$W"
	q1=$(ccs statements)
	for n in $all; do
		{
			echo "CLUSTERCRON_SECONDS=yes"
			echo 'MAILTO=""'
			echo "* * * * * * $ME true"
		} >"$T/$n/crontab"
	done
	fired() { [ "$(ccs runs | wc -l)" -ge 3 ]; }
	wait_for 60 fired || { echo "the job did not run" >&2; exit 1; }
	sleep 2
	r0=$(ccs runs | wc -l)
	q2=$(ccs statements)
	sleep "$W"
	q3=$(ccs statements)
	r1=$(ccs runs | wc -l)
	dups=$(ccs runs | awk '{ print $2 }' | sort | uniq -d | wc -l)
	for n in $all; do
		dmn_stop $n
	done
	echo "$1 $((q1 - q0)) $((q3 - q2)) $((r1 - r0)) $dups" | awk '{
		printf "nodes %d: idle %d, firing %d statements in %s s, " \
		    "%d fires (%d twice): %.1f statements a fire\n", $1, $2,
		    $3, "'"$W"'", $4, $5, ($3 - $2) / $4 }'
	)
}

for c in $COUNTS; do
	one "$c"
done
