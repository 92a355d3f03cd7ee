#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# env-memory.sh: a table built to make the daemon's copies of its
# environment grow with the square of its size (issue 12, points 3 and
# 6).  999 variables of 880 bytes, then 250 entries each after a change
# of one more variable: under ctab's megabyte, and 250 environments of
# nearly a megabyte each if each were copied whole (the daemon took
# 900 MB for a thousand of them).  The daemon keeps each distinct
# variable once: its resident size grows by less than 8 MB, and the
# good user runs on time all along (tests/hostile/good.sh).  The same
# with a thousand entries passes the bound on all the snapshots' sizes
# together: refused, saying so, the installed table kept.

. "$top_srcdir/tests/daemon/lib.sh"
. "$top_srcdir/tests/hostile/good.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
H=cche$$
dmn_useradd "$H" "$T/home/$H"

dmn_setup a </dev/null
dmn_start a
good_start ccge$$ "$T/a/sock"
P=$(dmn_pid a)
kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$P/status"; }
rss0=$(kb VmRSS)

# table N: the variables, then N entries each after a change.
table()
{
	awk -v n="$1" 'BEGIN {
		v = sprintf("%880s", ""); gsub(/ /, "x", v)
		for (i = 0; i < 999; i++)
			printf "V%d=%s\n", i, v
		for (i = 0; i < n; i++)
			printf "X=%d\n0 0 1 1 * true %d\n", i, i
	}'
}
table 250 >"$T/hostile.tab"
table 1000 >"$T/huge.tab"
chmod 644 "$T/hostile.tab" "$T/huge.tab"

good_begin
runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" "$T/hostile.tab" ||
    fail "the hostile table was not installed"
loaded() { ccs commands | grep -q ' true 249$'; }
wait_for 30 loaded || fail "the hostile table was not loaded"
past() { [ "$(date +%s)" -gt $((GOOD_FROM + $1)) ]; }
wait_for 30 past 8
good_end
rss1=$(kb VmRSS)
hwm=$(kb VmHWM)
echo "daemon resident: $rss0 kB before, $rss1 kB after, peak $hwm kB"
good_check "a table of 250 large environments"
# Not under the sanitizers, whose allocator keeps what is freed.
if [ "$DMN_MODE" != foreground ]; then
	ntest=$((ntest + 1))
	[ $((hwm - rss0)) -lt 8192 ] ||
	    fail "the daemon grew by $((hwm - rss0)) kB for one table"
fi

run runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" "$T/huge.tab"
same "a thousand such entries: refused" "$rc" 1
contains "... naming the line and the bound" "$err" \
    "huge.tab:1[0-9][0-9][0-9]:[0-9]+: found more environment lines .* at most 262144 variables in all snapshots"
run runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" -l
same "... and the installed table is kept" "$out" "$(cat "$T/hostile.tab")"
finish
