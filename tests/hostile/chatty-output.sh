#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# chatty-output.sh: jobs that write far more than is kept (issue 12,
# points 3 and 6).  20 jobs a second each write 4 MB to their standard
# output.  Each attempt's runner keeps the head the store keeps and
# mails or drops the rest; the daemon holds none of it: its resident
# size grows by less than 4 MB over 15 s of it (80 MB a second written),
# and the good user runs on time all along (tests/hostile/good.sh).

. "$top_srcdir/tests/daemon/lib.sh"
flood_lock
. "$top_srcdir/tests/hostile/good.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
H=cchc$$
dmn_useradd "$H" "$T/home/$H"

dmn_setup a </dev/null
dmn_start a
good_start ccgc$$ "$T/a/sock"
P=$(dmn_pid a)
kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$P/status"; }
rss0=$(kb VmRSS)

{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=1
	while [ $i -le 20 ]; do
		echo "* * * * * * head -c 4000000 /dev/zero | tr '\\\\0' x # $i"
		i=$((i + 1))
	done
} >"$T/hostile.tab"
chmod 644 "$T/hostile.tab"

good_begin
runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" "$T/hostile.tab" ||
    fail "the hostile table was not installed"
past() { [ "$(date +%s)" -gt $((GOOD_FROM + $1)) ]; }
wait_for 30 past 15
good_end
hwm=$(kb VmHWM)
runuser -u "$H" -- env CTAB_SOCKET="$T/a/sock" "$CTAB" -r
good_check "20 jobs a second writing 4 MB each"
n=$(run_rows "job != \"$GOOD_JOB\" && state == \"finished\"" | wc -l)
echo "$n runs of $H finished; daemon resident $rss0 kB before, peak $hwm kB"
ntest=$((ntest + 1))
[ "$n" -ge 100 ] || fail "only $n of the chatty jobs ran"
# Not under the sanitizers, whose allocator keeps what is freed.
if [ "$DMN_MODE" != foreground ]; then
	ntest=$((ntest + 1))
	[ $((hwm - rss0)) -lt 16384 ] || fail "the daemon grew by" \
	    "$((hwm - rss0)) kB with the jobs' output"
fi
finish
