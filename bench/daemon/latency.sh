#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# latency.sh: fire latency on a cluster.  Three daemons (or as many as
# the third argument says) on a private MariaDB share a table of N jobs
# (1,000 by default) all due at the same instants (every 20 s); each job
# execs stamp.c (built here), which writes its scheduled instant and the
# time it started.  The rounds measured are the first R instants after
# every node has joined the cluster (its heartbeat in the store); a
# round ends 19 s after its instant, and a job of it that has not
# started by then is missed.  Per round it prints the runs, the misses
# and the duplicates (both must be 0) and the rate at which the burst
# started; over all rounds the latency from the scheduled instant to the
# job's start, median, p99 and max, a miss counting as infinite.  Beside
# them, the machine's ceiling measured in the same run (forkrate.c:
# fork, exec and reap of stamp, as many at once as there are
# processors), before the daemons start and after they stop.  The
# daemons run with -d, and their debug lines say where a node's time
# went at each burst: claiming (CLAIMS), forking (STARTS), recording the
# starts (RECORD) and the ends (ENDS) in the store.
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
${CC:-cc} -O2 -o "$T/forkrate" "$top_srcdir/bench/daemon/forkrate.c" ||
    exit 1
STEP=20

all=$(seq -f 'n%g' 1 "$NODES" | tr '\n' ' ')
for n in $all; do
	dmn_setup $n </dev/null
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		i=0
		while [ $i -lt "$N" ]; do
			echo "*/$STEP * * * * * $ME exec $T/stamp $O/lat $i"
			i=$((i + 1))
		done
	} >"$T/$n/crontab"
done
ceil0=$("$T/forkrate" 2 "$T/stamp" /dev/null 0)
for n in $all; do
	dmn_start $n
done
# formed: every node's heartbeat is in the store.
formed()
{
	[ "$(ccs nodes | wc -l)" -ge "$NODES" ]
}
wait_for 60 formed || { echo "the cluster did not form" >&2; exit 1; }
# The first instant at least 2 s ahead, then every STEP s.
first=$(($(date +%s) + 2))
first=$(((first + STEP - 1) / STEP * STEP))
last=$((first + (R - 1) * STEP))
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
mdb0=$(cpu "$MDB_PID")
# over: the last round's time is up.
over()
{
	[ "$(date +%s)" -ge $((last + STEP - 1)) ]
}
wait_for $((R * STEP + STEP + 10)) over
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
ceil1=$("$T/forkrate" 2 "$T/stamp" /dev/null 0)

echo "jobs $N, rounds $R from $(date -u -d @$first +%TZ), nodes $NODES"
echo "$ceil0, before"
echo "$ceil1, after"
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
# The lines as "fire start i", the fire in seconds since the epoch;
# per round its runs, misses, duplicates and burst rate, into
# $T/rounds; on stdout every latency of the rounds measured, a miss as 1e9.
awk '{ print $1 }' "$O/lat" | iso_epochs | paste -d ' ' - "$O/lat" |
    awk -v first="$first" -v step="$STEP" -v r="$R" -v n="$N" \
    -v rf="$T/rounds" '
	{
		k = ($1 - first) / step
		if ($1 < first || k >= r || k != int(k))
			next
		key = $1 " " $5
		if (seen[key]++) {
			dup[k]++
			next
		}
		lat[key] = $3 - $1
		runs[k]++
		if (lat[key] > end[k])
			end[k] = lat[key]
	}
	END {
		for (k = 0; k < r; k++) {
			miss = 0
			for (i = 0; i < n; i++) {
				key = (first + k * step) " " i
				if (key in lat)
					print lat[key]
				else {
					print 1e9
					miss++
				}
			}
			printf "round %d: runs %d, missed %d, duplicates %d, " \
			    "last start +%.3f s, %.0f starts/s\n", k + 1,
			    runs[k], miss, dup[k], end[k],
			    (end[k] > 0 ? runs[k] / end[k] : 0) >rf
		}
	}' | sort -g | awk '
	function v(x) { return x >= 1e9 ? "inf" : sprintf("%.3f", x) }
	{ l[NR] = $1 }
	END {
		printf "latency s, a miss infinite: median %s p99 %s max %s\n",
		    v(l[int((NR + 1) / 2)]), v(l[int((NR * 99 + 99) / 100)]),
		    v(l[NR])
	}'
cat "$T/rounds"
