#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run.sh: the soak.  Three daemons on one private MariaDB hold the same
# table of JOBS seconds-field jobs (each every PERIOD seconds, spread
# evenly over the period; one in ten runs three seconds, so that faults
# catch runs in flight; one in ten asks for a catch-up after misfires),
# while every few seconds a fault strikes, in turn: a node killed
# (SIGKILL to the daemon and its jobs) and started again, a node
# stopped (SIGSTOP) past node-timeout and continued, MariaDB killed and
# started again.  Then it reports, from the runs table and the jobs'
# file, duplicates and misses.  Not part of "make check".
#
#	bench/soak/run.sh [seconds [jobs [period [fault-every]]]]
#
# defaults 600 s, 1000 jobs, every 30 s, a fault every 5 s.  Needs a
# build: top_builddir (default: the source tree) holds clustercron and
# tests/daemon/ccstore ("make check" builds it).  KEEP_TMP=1 keeps the
# directory with the logs, the runs and the faults.
#
# The window checked is from the first fire after every node is up to a
# few seconds before the end.  Each fire in it (job, instant) is:
#	run		started once (attempt 1), by the runs table and the file;
#			LATE when 5 s or more after its instant, outside outages
#	rerun		lost with its node and run again (attempt 2), for the
#			jobs that ask for it (CLUSTERCRON_LOST=rerun): fine
#			when the node was killed as it ran; shown apart when
#			its daemon was stopped (the job ran on: twice)
#	lost		started once, its node died (state lost): counted,
#			not a miss
#	caught up	run after a store outage it fell in (catchup jobs)
#	outage miss	not run, noted missed, and due while the store was
#			away (from its kill to a settle margin after it
#			answered again): the skip policy, not an error
#	DUPLICATE	two starts or more but a lost-then-rerun pair, by
#			the table or two lines or more in the file; or a
#			rerun while the lost run's node was neither killed
#			nor stopped
#	MISS		no start, outside a store outage, or inside one with
#			no note; a fire its node had claimed when it was
#			killed or stopped is shown apart ("claimed by a
#			node as it died")
# The goal is no DUPLICATE and no MISS.

ADIR=
if [ "${1:-}" = -a ]; then
	ADIR=$2
	set --
fi
DUR=${1:-600}
N=${2:-1000}
P=${3:-30}
F=${4:-5}
case $((60 % P)) in
0) ;;
*) echo "run.sh: the period must divide 60" >&2; exit 2 ;;
esac
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/daemon/lib.sh"
[ -x "$CCSTORE" ] || { echo "run.sh: build tests/daemon/ccstore first" \
    "(make tests/daemon/ccstore)" >&2; exit 2; }
# analyse DIR: classify every fire of the window from DIR's faults,
# tags (job id -> jN), claims, runs (job fire attempt node state
# started-ms) and lines (fire node jN attempt); the report in
# DIR/report.  "run.sh -a DIR" runs it again on a kept directory.
analyse()
{
	set -- "$1" $(cat "$1/window")
	awk -v b="$2" -v e="$3" -v n="$4" -v p="$5" '
	FILENAME == ARGV[1] { kind[++nf] = $1; fnode[nf] = $2; fa[nf] = $3
		fb[nf] = $4; next }
	FILENAME == ARGV[2] { tag[$1] = $2; next }
	FILENAME == ARGV[3] { if ($1 in tag) claim[tag[$1] " " $2] = $3
		next }
	FILENAME == ARGV[4] {
		if (!($1 in tag)) next
		k = tag[$1] " " $2
		if ($3 >= 1) {
			starts[k]++
			if ($5 == "lost") {
				lost[k]++
				if ($3 == 1) lostnode[k] = $4
			}
			if ($3 == 2) second[k]++
			if ($3 == 1) {
				late[k] = $6 - $2 * 1000
				started[k] = $6
			}
		} else if ($5 == "missed")
			noted[k] = 1
		next
	}
	{ lines[$3 " " $1]++ }
	function outage(f,	j) {
		for (j = 1; j <= nf; j++)
			if (kind[j] == "store" && f >= fa[j] - 1 &&
			    f <= fb[j] + 5)
				return (j)
		return (0)
	}
	END {
		for (i = 0; i < n; i++) {
			t = "j" i
			for (f = b + ((i % p) - b % p + p) % p; f <= e; f += p) {
				k = t " " f
				total++
				s = starts[k] + 0
				l = lines[k] + 0
				if (s == 2 && lost[k] >= 1 && second[k] == 1) {
					# Lost with its node: killed, or stopped
					# (its job ran on), while the run was in
					# flight; else its node lived.
					why = ""
					for (j = 1; j <= nf; j++)
						if (fnode[j] == lostnode[k] &&
						    fa[j] <= f + 4 && fb[j] >= f)
							why = kind[j]
					if (why == "crash")
						c["rerun after its node was killed"]++
					else if (why == "stop")
						c["rerun after its daemon was stopped (the job ran on: twice)"]++
					else {
						c["DUPLICATE"]++
						print "DUPLICATE", k, "rerun while",
						    lostnode[k], "lived"
					}
					continue
				}
				if (s >= 2 || l >= 2) {
					c["DUPLICATE"]++
					print "DUPLICATE", k, s, "starts", l, "lines"
					continue
				}
				o = outage(f)
				if (s == 1) {
					if (l == 0)
						c["started, no line (killed as it started)"]++
					if (lost[k])
						c["started, then lost with its node"]++
					if (o && f < fb[o] &&
					    started[k] >= fb[o] * 1000 &&
					    i % 10 == 9) {
						c["caught up after an outage"]++
						if (++caught[t " " o] == 2)
							c["jobs caught up more than once in one outage"]++
					} else if (o && f < fb[o] &&
					    started[k] >= fb[o] * 1000)
						c["run after an outage, its claim in doubt till then"]++
					else if (late[k] < 5000)
						c["run on time"]++
					else {
						c["LATE outside outages"]++
						print "LATE", k, late[k], "ms"
					}
					continue
				}
				died = 0
				for (j = 1; j <= nf; j++)
					if (kind[j] != "store" && (k in claim) &&
					    claim[k] == fnode[j] && f >= fa[j] - 2 &&
					    f <= fb[j])
						died = 1
				if (o && noted[k] && i % 10 != 9)
					c["missed in an outage, noted (skip policy)"]++
				else if (o && noted[k]) {
					# Caught up for a later fire of the
					# same outage, or not caught up at all.
					c["catchup job missed in an outage, noted"]++
					print "NOCATCHUP", k
				}
				else if (died) {
					c["MISS: claimed by a node as it died or stopped"]++
					print "MISS", k, "claimed by", claim[k],
					    "as it died or stopped"
				} else {
					c["MISS"]++
					print "MISS", k, (o ? "in an outage, no note" :
					    "outside outages"), "claimed by",
					    ((k in claim) ? claim[k] : "nobody"),
					    (noted[k] ? "noted missed" : "")
				}
			}
		}
		printf "window %d s, %d fires\n", e - b, total
		for (x in c)
			printf "%8d %s\n", c[x], x
	}' "$1/faults" "$1/tags" "$1/claims" "$1/runs" "$1/lines" >"$1/report"
	grep -v '^DUPLICATE\|^MISS\|^LATE' "$1/report"
	echo "first duplicates, misses and late starts:"
	grep '^DUPLICATE\|^MISS\|^LATE' "$1/report" | head -n 20
	_d=$(grep -c '^DUPLICATE' "$1/report")
	_m=$(grep -c '^MISS' "$1/report")
	echo "duplicates: $_d, misses: $_m ($(elapsed))"
	[ "$_d" -eq 0 ] && [ "$_m" -eq 0 ]
}

if [ -n "$ADIR" ]; then
	analyse "$ADIR"
	exit
fi
dmn_cluster
echo "soak: $DUR s, $N jobs every $P s, a fault every $F s; in $T"

nodes="n1 n2 n3"
for n in $nodes; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 3s
store-retry-interval = 1s
claim-defer-ms = 150
history-max-runs = 100000
history-max-runs-per-user = 0
EOF
	awk -v n="$N" -v p="$P" -v o="$O" -v me="$ME" '
	BEGIN {
		print "CLUSTERCRON_SECONDS=yes"
		print "MAILTO=\"\""
		for (i = 0; i < n; i++) {
			if (i % 10 == 9)
				print "CLUSTERCRON_MISFIRE=catchup:2m"
			else if (i % 10 == 8)
				print "CLUSTERCRON_LOST=rerun"
			cmd = "echo \"$CLUSTERCRON_FIRE_TIME $CLUSTERCRON_NODE " \
			    "j" i " $CLUSTERCRON_ATTEMPT\" >>" o "/fires"
			if (i % 10 == 0 || i % 10 == 8)
				cmd = cmd "; sleep 3"
			printf "%d-59/%d * * * * * %s %s\n", i % p, p, me, cmd
			if (i % 10 == 9)
				print "CLUSTERCRON_MISFIRE=skip"
			else if (i % 10 == 8)
				print "CLUSTERCRON_LOST=mark"
		}
	}' >"$T/$n/crontab"
done
for n in $nodes; do
	dmn_start $n
done
wait_for 60 at_least 1 "$O/fires" || { echo "no fire at all"; exit 1; }
t_begin=$(($(date +%s) + 2))
echo "all up at $t_begin"

# The faults, one at a time, logged in $T/faults as
# "kind node start end" (seconds; node "-" for the store).
i=0
t_stop=$(($(date +%s) + DUR))
: >"$T/faults"
while [ "$(date +%s)" -lt "$t_stop" ]; do
	sleep "$F"
	case $((i % 3)) in
	0)
		v=$(set -- $nodes; eval echo "\${$((i / 3 % 3 + 1))}")
		a=$(date +%s)
		dmn_crash "$v" >/dev/null
		sleep 2
		dmn_restart "$v" >/dev/null
		echo "crash $v $a $(date +%s)" >>"$T/faults"
		;;
	1)
		v=$(set -- $nodes; eval echo "\${$(((i / 3 + 1) % 3 + 1))}")
		a=$(date +%s)
		kill -STOP "$(dmn_pid "$v")"
		sleep 5
		kill -CONT "$(dmn_pid "$v")"
		echo "stop $v $a $(date +%s)" >>"$T/faults"
		;;
	2)
		a=$(date +%s)
		mdb_kill
		sleep 3
		mdb_start
		echo "store - $a $(date +%s)" >>"$T/faults"
		;;
	esac
	i=$((i + 1))
done
t_end=$(($(date +%s) - 5))
# Let the last runs end and a last store outage settle.
sleep 8
for n in $nodes; do
	dmn_stop $n 60 >/dev/null
done
echo "faults: $(cut -d' ' -f1 "$T/faults" | sort | uniq -c | tr '\n' ' ')"

# The runs, the jobs' tags, the claims and the file, for the analysis.
echo "$t_begin $t_end $N $P" >"$T/window"
run_rows | awk '{ print $1, $2, $3, $4, $5, $7 }' >"$T/runs"
ccs commands | sed -n \
    's/^\([0-9a-f]*\) .* \(j[0-9]*\) \$CLUSTERCRON_ATTEMPT.*/\1 \2/p' \
    >"$T/tags"
claim_rows "fire >= $t_begin" >"$T/claims"
cut -d' ' -f1 "$O/fires" | iso_epochs | paste -d' ' - "$O/fires" |
    awk '{ print $1, $3, $4, $5 }' >"$T/lines"
analyse "$T"
