#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# envmem.sh: daemon memory (issue 12, point 3).  A table within every
# limit (half a megabyte, max-entries entries) that sets a new short
# variable before each entry, after a few large ones, has as many
# environment snapshots as entries, each holding the large variables.
# The daemon keeps each variable's text once a table, not once a
# snapshot: its peak memory grows by far less than the 475 MB that the
# snapshots' copies would take.

. "$top_srcdir/tests/daemon/lib.sh"

dmn_setup a <<EOF
table-check-interval = 1s
EOF
dmn_start a
pid=$(dmn_pid a)
hwm() {
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status"
}
before=$(hwm)
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	i=0
	while [ $i -lt 8 ]; do
		printf 'BIG%d=%060000d\n' $i 0
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 1000 ]; do
		echo "A=$i"
		echo "0 0 1 1 * * true $i"
		i=$((i + 1))
	done
} >"$T/tab"
chmod 600 "$T/tab"
mv "$T/tab" "$T/a/spool/root"
njobs() {
	[ "$(ccs jobs | grep -c ' root ')" -eq 1000 ]
}
wait_for 60 njobs || fail "the table's 1000 jobs are not registered"
after=$(hwm)
echo "peak memory: $before kB before the table, $after kB after"
[ $((after - before)) -lt 65536 ] ||
    fail "the table grew the daemon by $((after - before)) kB"
dmn_stop a
finish
