#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# profile.sh: where one daemon's CPU goes in a burst.  One daemon on a
# private MariaDB holds N jobs (330 by default, a node's share of
# latency.sh's 1,000) all due every 20 s, each exec'ing stamp.c; perf
# records the daemon (not its jobs) for SECS seconds, two or three
# bursts, into FILE; the daemon's CPU time and its -d lines follow.
# Read it with, for instance:
#
#	perf report -i FILE --pid PID --no-children --sort symbol
#
#	top_srcdir=. top_builddir=. bench/daemon/profile.sh \
#	    [jobs [secs [file [perf options]]]]

N=${1:-330}
S=${2:-42}
F=${3:-$(pwd)/perf.data}
P=${4---call-graph dwarf,16384}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
command -v perf >/dev/null 2>&1 || { echo "profile.sh: no perf"; exit 77; }
. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
DMN_FLAGS=-d
${CC:-cc} -O2 -o "$T/stamp" "$top_srcdir/bench/daemon/stamp.c" || exit 1
dmn_setup n1 </dev/null
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=0
	while [ $i -lt "$N" ]; do
		echo "*/20 * * * * * $ME exec $T/stamp $O/lat $i"
		i=$((i + 1))
	done
} >"$T/n1/crontab"
dmn_start n1
pid=$(dmn_pid n1)
# shellcheck disable=SC2086
perf record $P -F 4000 -o "$F" -p "$pid" -- sleep "$S" >/dev/null 2>&1
echo "daemon $pid: $(awk '{ print $14 + $15 }' "/proc/$pid/stat") ticks" \
    "of 1/$(getconf CLK_TCK) s of CPU, runs $(count_lines "$O/lat")"
dmn_stop n1
grep -E '\(CRON\) [A-Z]+ \([0-9]+ [a-z]+ in' "$T/n1.log" |
    sed 's/^[^(]*//'
echo "perf data in $F (daemon pid $pid)"
