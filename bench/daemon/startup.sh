#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# startup.sh: a daemon's start-up with many entries in /etc/cron.d
# (files of 10,000 lines, "M H 1 1 * root /bin/true jobN": nothing fires
# meanwhile), on a fresh store, on the same store again, and after half
# the tables were removed while it was down (their jobs then leave the
# store).  Reported: when the store holds the expected jobs (as the
# test helper ccstore reads them), when the daemon's CPU time settles
# (a second of polling included), its CPU time, and mariadbd's on
# MariaDB (the helper's reads included).  Not part of "make check";
# root, as the tables are root's.
#
#	bench/daemon/startup.sh sqlite|mysql [entries]

KIND=${1:-sqlite}
N=${2:-100000}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
CC=$top_builddir/clustercron/clustercron
CCS=$top_builddir/tests/daemon/ccstore
[ "$(id -u)" -eq 0 ] || { echo "startup.sh: needs root"; exit 1; }
[ -x "$CC" ] && [ -x "$CCS" ] || { echo "startup.sh: make check first"; exit 1; }
if [ "$KIND" = mysql ]; then
	. "$top_srcdir/tests/lib/mariadb.sh"
	mdb_init
	mdb_start
	URL=$MDB_URL
	EXTRA="mysql-defaults-file = $MDB_CNF"
	CCSM="-m $MDB_CNF"
else
	T=$(mktemp -d /tmp/ccstartup.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	URL=sqlite:$T/cc.db
	EXTRA=
	CCSM=
fi
mkdir -p "$T/crond"
awk -v n="$N" -v dir="$T/crond" 'BEGIN {
	for (i = 0; i < n; i++) {
		f = sprintf("%s/t%03d", dir, int(i / 10000))
		printf "%d %d 1 1 * root /bin/true job%d\n", i % 60,
		    int(i / 60) % 24, i > f
	}
}'
chmod 644 "$T"/crond/*
cat >"$T/cc.conf" <<EOF
store = $URL
$EXTRA
node = bench
crontab =
crontab-dir = $T/crond
spool-dir =
store-tables = no
pidfile = $T/cc.pid
reboot-file = $T/reboot
ctab-socket =
EOF
ticks=$(getconf CLK_TCK)
cpu_ms() { awk -v t="$ticks" '{ print int(($14 + $15) * 1000 / t) }' \
    "/proc/$1/stat"; }
now_ms() { date +%s%3N; }
count() { "$CCS" $CCSM "$URL" jobs 2>/dev/null | wc -l; }

# one JOBS LABEL: start the daemon, wait for JOBS jobs in the store and
# for its CPU time to settle, report, stop it.
one()
{
	m0=0
	[ -n "${MDB_PID:-}" ] && m0=$(cpu_ms "$MDB_PID")
	: >"$T/cc.log"
	t0=$(now_ms)
	"$CC" -f -c "$T/cc.conf" >>"$T/cc.log" 2>&1 &
	p=$!
	# (Not before the daemon has the store open: a reader that opens a
	# new SQLite file as the daemon does can make the daemon's fail.)
	while ! grep -q STARTUP "$T/cc.log"; do sleep 0.02; done
	while [ "$(count)" -ne "$1" ]; do sleep 0.05; done
	tr=$(now_ms)
	prev=-1
	same=0
	while [ $same -lt 4 ]; do
		c=$(cpu_ms $p)
		if [ "$c" = "$prev" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		prev=$c
		sleep 0.25
	done
	t1=$(now_ms)
	m1=0
	[ -n "${MDB_PID:-}" ] && m1=$(cpu_ms "$MDB_PID")
	printf '%-7s %-24s %7d jobs %6d ms %6d ms %6d ms %6d ms\n' "$KIND" \
	    "$2" "$1" $((tr - t0)) $((t1 - t0)) "$c" $((m1 - m0))
	kill -TERM $p
	wait $p
}

printf '%-7s %-24s %12s %9s %9s %9s %9s\n' store start "" "jobs in" \
    settled "CPU" mariadbd
one "$N" "fresh store"
one "$N" "second start"
rm -f "$T"/crond/t00[0-4]
one $((N / 2)) "half the tables removed"
