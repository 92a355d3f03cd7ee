#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run.sh: the daemon holding many entries, beside Debian's cron holding
# the same entries in the same run: CPU time to start (clustercron's
# includes registering every job in its SQLite store), resident memory
# once loaded and at its peak, and wake-ups (context switches) and CPU
# over an idle window; then clustercron's resident memory once it has
# read every table again (SIGHUP).  Not part of "make check".  Needs root (cron runs as root, and
# is given its own /etc/cron.d in a private mount namespace with
# unshare(1), so the machine's tables are neither read nor touched).
#
#	bench/daemon/run.sh [entries [idle-seconds]]
#
# Entries go in files of 10,000 lines (Debian's cron ignores longer
# tables), each "M H 1 1 * root /bin/true jobF-N": nothing fires during
# the window.

N=${1:-100000}
W=${2:-60}
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=$top_builddir/clustercron/clustercron
CRON=${CRON:-/usr/sbin/cron}
[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root"; exit 1; }
[ -x "$CC" ] || { echo "run.sh: build clustercron first"; exit 1; }
T=$(mktemp -d /tmp/ccbench.XXXXXX)
CCPID=
CRONPID=
trap 'kill $CCPID $CRONPID 2>/dev/null; sleep 0.5; rm -rf "$T"' EXIT
mkdir -p "$T/crond" "$T/spool/cron/crontabs" "$T/run"
: >"$T/crontab"
awk -v n="$N" -v dir="$T/crond" 'BEGIN {
	for (i = 0; i < n; i++) {
		f = sprintf("%s/t%03d", dir, int(i / 10000))
		printf "%d %d 1 1 * root /bin/true job%d\n", i % 60,
		    int(i / 60) % 24, i > f
	}
}'
chmod 644 "$T"/crond/*

cat >"$T/cc.conf" <<EOF
store = sqlite:$T/cc.db
crontab =
crontab-dir = $T/crond
spool-dir =
store-tables = no
pidfile = $T/cc.pid
reboot-file = $T/reboot
EOF

ticks=$(getconf CLK_TCK)
cpu_ms() { awk -v t="$ticks" '{ print int(($14 + $15) * 1000 / t) }' \
    "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
peak_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
switches() { awk '/ctxt_switches/ { s += $2 } END { print s }' \
    "/proc/$1/status"; }
# settle PID: wait until its CPU time stops growing for a second.
settle() {
	_prev=-1
	_same=0
	while [ $_same -lt 4 ]; do
		_c=$(cpu_ms "$1")
		if [ "$_c" = "$_prev" ]; then
			_same=$((_same + 1))
		else
			_same=0
		fi
		_prev=$_c
		sleep 0.25
	done
}

"$CC" -f -c "$T/cc.conf" >"$T/cc.log" 2>&1 &
CCPID=$!
# Cron need not be installed: /var/spool as a whole is the private one,
# and a missing /etc/crontab stays missing (cron reads nothing there).
unshare -m --propagation private sh -c "
	mount --bind '$T/crond' /etc/cron.d &&
	mount --bind '$T/spool' /var/spool &&
	{ [ ! -e /etc/crontab ] || mount --bind '$T/crontab' /etc/crontab; } &&
	mount --bind '$T/run' /run &&
	exec '$CRON' -f" >"$T/cron.log" 2>&1 &
CRONPID=$!
settle $CCPID
settle $CRONPID

printf '%-12s %10s %12s %10s %10s %14s %12s\n' daemon entries "start CPU" \
    RSS peak "wakeups/idle" "CPU/idle"
c0=$(cpu_ms $CCPID); s0=$(switches $CCPID)
k0=$(cpu_ms $CRONPID); t0=$(switches $CRONPID)
sleep "$W"
c1=$(cpu_ms $CCPID); s1=$(switches $CCPID)
k1=$(cpu_ms $CRONPID); t1=$(switches $CRONPID)
printf '%-12s %10s %10sms %8sKB %8sKB %14s %10sms\n' clustercron "$N" \
    "$c0" "$(rss_kb $CCPID)" "$(peak_kb $CCPID)" $((s1 - s0)) $((c1 - c0))
printf '%-12s %10s %10sms %8sKB %8sKB %14s %10sms\n' cron "$N" "$k0" \
    "$(rss_kb $CRONPID)" "$(peak_kb $CRONPID)" $((t1 - t0)) $((k1 - k0))
echo "(idle window ${W}s; wake-ups counted as context switches)"
kill -HUP $CCPID
sleep 0.5
settle $CCPID
echo "clustercron after SIGHUP (every table read again):" \
    "$(rss_kb $CCPID)KB, $(($(cpu_ms $CCPID) - c1))ms CPU"
grep -c 'ERROR' "$T/cc.log" | sed 's/^/clustercron errors logged: /'
