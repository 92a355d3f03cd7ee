#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# peak.sh: the daemon's peak memory at 100,000 entries is its steady
# size (issue 16: at most half of Debian's cron's, which holds the same
# entries at about twice our steady size; bench/daemon/run.sh compares
# the two).  A first start on a fresh store, then a second on the same
# store with every job claimed before, so that registering meets
# 100,000 stored jobs and the misfire pass 100,000 claimed ones: the
# peak (VmHWM) of each stays within a quarter of the resident size once
# settled.  Under the sanitizers, whose allocator keeps freed memory
# for a while, only that both starts load and register every job.

. "$top_srcdir/tests/daemon/lib.sh"
N=100000

dmn_setup a </dev/null
awk -v n=$N -v dir="$T/a/cron.d" -v me="$ME" 'BEGIN {
	for (i = 0; i < n; i++) {
		f = sprintf("%s/t%03d", dir, int(i / 10000))
		printf "%d %d 1 1 * %s /bin/true job%d\n", i % 60,
		    int(i / 60) % 24, me, i > f
	}
}'
chmod 644 "$T"/a/cron.d/*

sanitized=
ldd "$CLUSTERCRON" 2>/dev/null | grep -q 'libasan' && sanitized=1

# all_held: the store has every job.
all_held()
{
	[ "$(ccs jobs | wc -l)" = $N ]
}

# settled NAME: its CPU time did not move for a second.
settled()
{
	_p=$(dmn_pid "$1")
	_a=$(awk '{ print $14 + $15 }' "/proc/$_p/stat")
	sleep 1
	[ "$_a" = "$(awk '{ print $14 + $15 }' "/proc/$_p/stat")" ]
}

# peak_ok WHAT: VmHWM within a quarter of VmRSS.
peak_ok()
{
	_s=/proc/$(dmn_pid a)/status
	_hwm=$(awk '/^VmHWM/ { print $2 }' "$_s")
	_rss=$(awk '/^VmRSS/ { print $2 }' "$_s")
	echo "$1: peak ${_hwm} KB, resident ${_rss} KB"
	ntest=$((ntest + 1))
	if [ -n "$sanitized" ]; then
		echo "ok: $1: (sizes not compared under the sanitizers)"
	elif [ $((_hwm * 4)) -le $((_rss * 5)) ]; then
		echo "ok: $1: peak within a quarter of the steady size"
	else
		fail "$1: peak ${_hwm} KB, more than 1.25 x ${_rss} KB"
	fi
}

dmn_start a
wait_for 120 all_held || fail "first start: not every job registered"
wait_for 60 settled a || fail "first start: the daemon did not settle"
peak_ok "first start"
dmn_stop a

# A cluster that has run a while: every job claimed, two days ago.
ccs claimall other $(($(date +%s) - 172800)) ||
    fail "cannot mark the jobs claimed"
dmn_start a
wait_for 120 all_held || fail "second start: not every job held"
wait_for 60 settled a || fail "second start: the daemon did not settle"
peak_ok "second start"
in_log a 'ERROR' && fail "errors logged"
dmn_stop a

finish
