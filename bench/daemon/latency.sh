#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# latency.sh: fire latency on a cluster.  Three daemons (or as many as
# the third argument says) on a private MariaDB share a table of N jobs
# (1,000 by default) all due at the same instants (every 20 s); each job
# execs stamp.c (built here), which writes its scheduled instant and the
# time it started.  Prints the runs per node, duplicates (must be 0) and
# the latency from the scheduled instant to the job's start: median,
# p99, max.  The daemons run with -d, and their debug lines say where
# a node's time went at each burst: claiming (CLAIMS), forking (STARTS),
# recording the starts (RECORD) and the ends (ENDS) in the store.
#
#	top_srcdir=. top_builddir=. bench/daemon/latency.sh \
#	    [jobs [rounds [nodes]]]

N=${1:-1000}
R=${2:-2}
NODES=${3:-3}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
DMN_FLAGS=-d
${CC:-cc} -O2 -o "$T/stamp" "$top_srcdir/bench/daemon/stamp.c" || exit 1

all=$(seq -f 'n%g' 1 "$NODES" | tr '\n' ' ')
for n in $all; do
	dmn_setup $n </dev/null
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		i=0
		while [ $i -lt "$N" ]; do
			echo "*/20 * * * * * $ME exec $T/stamp $O/lat $i"
			i=$((i + 1))
		done
	} >"$T/$n/crontab"
done
for n in $all; do
	dmn_start $n
done
# cpu PID: user and system CPU time of a process, in clock ticks.
cpu()
{
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# kids PID: the same of its children it reaped (the jobs).
kids()
{
	awk '{ print $16 + $17 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
want=$((N * R))
mdb0=$(cpu "$MDB_PID")
wait_for $((25 * R + 30)) at_least "$want" "$O/lat"
sleep 2
hz=$(getconf CLK_TCK)
for n in $all; do
	echo "$n CPU: $(cpu "$(dmn_pid $n)") ticks of 1/$hz s, its jobs" \
	    "$(kids "$(dmn_pid $n)")" >>"$T/cpu"
done
echo "mariadbd CPU during the rounds: $(($(cpu "$MDB_PID") - mdb0))" \
    "ticks of 1/$hz s" >>"$T/cpu"
for n in $all; do
	dmn_stop $n
done

echo "jobs $N, rounds $R, runs $(count_lines "$O/lat") (of at least $want)"
echo "duplicates: $(awk '{ print $1, $4 }' "$O/lat" | sort | uniq -d | wc -l)"
awk '{ print $3 }' "$O/lat" | sort | uniq -c | sed 's/^/runs per node: /'
cat "$T/cpu"
# Per node: fires and ms of each kind of store work, summed over the run.
for n in $all; do
	sed -n 's/.*(CRON) \([A-Z]*\) (\([0-9]*\) [a-z]* in \([0-9]*\) ms)$/\1 \2 \3/p' \
	    "$T/$n.log" | awk -v n=$n '{ c[$1] += $2; t[$1] += $3; k[$1]++ }
	    END { for (w in c) printf "%s %s: %d in %d calls, %d ms\n", n, w,
	    c[w], k[w], t[w] }' | sort
	# Each call of the last round, in order.
	sed -n 's/.*(CRON) \([A-Z]*\) (\([0-9]*\) [a-z]* in \([0-9]*\) ms)$/\1 \2:\3ms/p' \
	    "$T/$n.log" | tail -n 6 | tr '\n' ' ' | sed "s/^/$n last round: /"
	echo
done
while read -r fire start node i; do
	f=$(date -u -d "$(echo "$fire" | sed 's/T/ /; s/Z$//')" +%s)
	echo "$start $f" | awk '{ printf "%.3f\n", $1 - $2 }'
done <"$O/lat" | sort -n | awk '{ v[NR] = $1 } END {
	printf "latency s: median %.3f p99 %.3f max %.3f\n", v[int(NR / 2) + 1],
	    v[int(NR * 0.99)], v[NR] }'
