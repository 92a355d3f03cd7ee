#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# latency.sh: a fire's latency on a three-node Galera cluster against a
# single MariaDB server, in one run on this machine (tests/lib/galera.sh
# starts both, with the same lean settings).  Three daemons share N
# every-second cluster jobs (20 by default, seconds-field); each job
# execs bench/daemon/stamp.c, which writes its fire instant and the time
# it started.  First the daemons run on the single server, then on
# Galera, each daemon pointed at its own database node first and at the
# two others after it (as tests/integration/galera-daemons.sh sets
# them), then (with -n 2 and more) again in turn.  Each time the S
# seconds measured (30 by default) begin 3 s after every daemon's
# heartbeat is in the store.  Printed per set-up: runs, fires missed
# and fires run twice (both must be 0), and the latency from the fire's
# instant to the job's start, p50, p99 and max, a miss counting as
# infinite.  Daemons at their defaults but for a heartbeat every second
# (claim-defer-ms 200: a fire's preferred node claims at once, the
# others 200 ms later).  Build first (make, in the build directory).
#
#	top_builddir=BUILD bench/galera/latency.sh [-j jobs] [-s seconds] \
#	    [-n repeats]

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
N=20
S=30
REPEATS=1
while getopts j:n:s: ch; do
	case $ch in
	j)	N=$OPTARG ;;
	n)	REPEATS=$OPTARG ;;
	s)	S=$OPTARG ;;
	*)	echo "usage: $0 [-j jobs] [-s seconds] [-n repeats]" >&2
		exit 2 ;;
	esac
done
[ -x "$top_builddir/tests/testbin/clustercron" ] || {
	echo "$0: build first (make in $top_builddir)" >&2
	exit 1
}

. "$top_srcdir/tests/daemon/lib.sh"
rm -rf "$T"
. "$top_srcdir/tests/lib/galera.sh"
gal_init 1
# The daemons go first, then the servers (gal_cleanup exits).
lat_cleanup()
{
	lat_rc=$?
	for lat_d in $DAEMONS; do
		[ -f "$T/$lat_d/pid" ] && kill -9 "$(cat "$T/$lat_d/pid")" 2>/dev/null
	done
	(exit $lat_rc)
	gal_cleanup
}
trap lat_cleanup EXIT
gal_cluster
gal_plain p1
${CC:-cc} -O2 -o "$T/stamp" "$top_srcdir/bench/daemon/stamp.c" || exit 1
MYSQL_FILE=$GAL_CNF
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# url_of K: database node K first, then the others (Galera); p1 alone.
url_of()
{
	case $1 in
	p1)
		echo "mysql://127.0.0.1:$GAL_PORT_p1/cctest"
		return
		;;
	esac
	eval "_u=127.0.0.1:\$GAL_PORT_$1"
	for _k in 1 2 3; do
		[ "$_k" = "$1" ] && continue
		eval "_u=\"\$_u,127.0.0.1:\$GAL_PORT_$_k\""
	done
	echo "mysql://$_u/cctest"
}

# formed NAME...: every daemon's heartbeat is in the store.
formed()
{
	lat_all=$(ccs nodes)
	for lat_x in "$@"; do
		echo "$lat_all" | grep -q "^$lat_x " || return 1
	done
}

# over: the fires of the last second measured have had 5 s.
over()
{
	[ "$(date +%s)" -gt $((lat_to + 5)) ]
}

# one LABEL ROUND: three daemons on LABEL's servers (single or galera)
# for S seconds, their lines in $O/LABEL.ROUND, the seconds measured in
# $T/span.LABEL.ROUND.  (The variables are named apart from those of
# tests/daemon/lib.sh, whose functions use _n, _i and the like.)
one()
{
	lat_names=
	for lat_k in 1 2 3; do
		lat_name=$(echo "$1" | cut -c1)$2n$lat_k
		case $1 in
		single)	STORE=$(url_of p1) ;;
		galera)	STORE=$(url_of $lat_k) ;;
		esac
		dmn_setup "$lat_name" <<EOF
heartbeat-interval = 1s
EOF
		{
			echo "CLUSTERCRON_SECONDS=yes"
			echo 'MAILTO=""'
			lat_j=0
			while [ $lat_j -lt "$N" ]; do
				echo "* * * * * * $ME exec $T/stamp $O/$1.$2 $lat_j"
				lat_j=$((lat_j + 1))
			done
		} >"$T/$lat_name/crontab"
		lat_names="$lat_names $lat_name"
	done
	for lat_name in $lat_names; do
		dmn_start "$lat_name"
	done
	# (ccs reads the store of the last STORE set up.)
	wait_for 60 formed $lat_names || gal_fail "$1: the daemons did not join"
	lat_from=$(($(date +%s) + 3))
	lat_to=$((lat_from + S - 1))
	wait_for $((S + 30)) over
	for lat_name in $lat_names; do
		dmn_stop "$lat_name"
	done
	echo "$lat_from $lat_to" >"$T/span.$1.$2"
}

# report LABEL ROUND: runs, misses, duplicates and latency of one run.
report()
{
	set -- "$1" "$2" $(cat "$T/span.$1.$2")
	awk '{ print $1 }' "$O/$1.$2" | iso_epochs | paste -d ' ' - "$O/$1.$2" |
	    awk -v from="$3" -v to="$4" -v n="$N" -v counts="$T/counts" '
		$1 >= from && $1 <= to {
			key = $1 " " $5
			if (seen[key]++) {
				dup++
				next
			}
			lat[key] = ($3 - $1) * 1000
			runs++
		}
		END {
			for (t = from; t <= to; t++)
				for (i = 0; i < n; i++) {
					key = t " " i
					if (key in lat)
						print lat[key]
					else {
						print 1e12
						miss++
					}
				}
			printf "%d %d %d\n", runs, miss, dup >counts
		}' | sort -g >"$T/lat"
	awk -v label="$1" -v c="$(cat "$T/counts")" '
		function v(x) { return x >= 1e12 ? "inf" : sprintf("%.0f", x) }
		{ l[NR] = $1 }
		END {
			split(c, k, " ")
			printf "%-7s %6d %6d %6d %7s %7s %7s\n", label, k[1],
			    k[2], k[3], v(l[int((NR + 1) / 2)]),
			    v(l[int((NR * 99 + 99) / 100)]), v(l[NR])
		}' "$T/lat"
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores"
echo "# $("$MDB_SERVER" --version)"
echo "# galera $(gal_root 1 "SHOW STATUS LIKE 'wsrep_provider_version'" |
    awk '{ print $2 }'); 3 daemons, $N every-second jobs, $S s each run"
r=1
while [ $r -le "$REPEATS" ]; do
	one single $r
	one galera $r
	r=$((r + 1))
done
printf '%-7s %6s %6s %6s %7s %7s %7s\n' set-up runs missed twice \
    'p50 ms' 'p99 ms' 'max ms'
r=1
while [ $r -le "$REPEATS" ]; do
	report single $r
	report galera $r
	r=$((r + 1))
done
echo "# by node, Galera: $(awk '{ print $3 }' "$O"/galera.* | sort |
    uniq -c | tr -s ' \n' ' ')"
