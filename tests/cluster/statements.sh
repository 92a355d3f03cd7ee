#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# statements.sh: what a fire costs the store does not grow with the
# nodes (issue 16, point 2).  One job due every second, each fire alone
# at its instant, on one node and then on three sharing one private
# MariaDB: the statements the server carried out (ccstore statements)
# are counted over a window while the job fires and over one as long
# while it does not (the heartbeats), and their difference over the
# fires run is a fire's cost.  At three nodes it must stay under 1.8
# times its cost at one (the preferred node's claim, and a read by each
# of the two nodes after it): when every node tried every fire, each
# node cost about three statements more, 2.2 times in all at three.
# Counted, not timed.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
DMN_FLAGS=-d
W=${STATEMENTS_WINDOW:-20}

# table NAME every|never: NAME's table, the job due every second or not
# in the windows.
table()
{
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		if [ "$2" = every ]; then
			echo "* * * * * * $ME true"
		else
			echo "0 0 0 1 1 * $ME true"
		fi
	} >"$T/$1/crontab"
}
reloads() { grep -c 'RELOAD (' "$T/$1.log"; }
reloaded() { [ "$(reloads "$1")" -gt "$2" ]; }
# settled: every run recorded has ended.
settled() { ! ccs runs | awk '$5 == "running"' | grep -q .; }
nruns() { ccs runs | wc -l | tr -d ' '; }
# window: the statements over W seconds (the reads count alike).
window()
{
	_q0=$(ccs statements)
	wait_for $((W + 10)) past $(($(date +%s) + W))
	_q1=$(ccs statements)
	echo $((_q1 - _q0))
}
past() { [ "$(date +%s)" -ge "$1" ]; }
# switch every|never NODES...: their tables, waiting for each reload.
switch()
{
	_what=$1
	shift
	for _n in "$@"; do
		_r=$(reloads "$_n")
		table "$_n" "$_what"
		wait_for 30 reloaded "$_n" "$_r" ||
		    { fail "$_n did not read its table"; exit 1; }
	done
}
# cost NODES...: a fire's statements, tenths, with the job due on NODES.
cost()
{
	switch every "$@"
	_r0=$(nruns)
	wait_for 30 at_least_runs $((_r0 + 3)) || { fail "no fires"; exit 1; }
	_r0=$(nruns)
	_busy=$(window)
	_r1=$(nruns)
	switch never "$@"
	wait_for 30 settled || { fail "runs did not end"; exit 1; }
	_idle=$(window)
	echo "# nodes $#: firing $_busy, idle $_idle statements in $W s," \
	    "$((_r1 - _r0)) fires" >&2
	echo $(((_busy - _idle) * 10 / (_r1 - _r0)))
}
at_least_runs() { [ "$(nruns)" -ge "$1" ]; }

for n in n1 n2 n3; do
	dmn_setup $n </dev/null
	table $n never
done
dmn_start n1
one=$(cost n1)
dmn_start n2
dmn_start n3
# formed: each node has heard of all three at a heartbeat.
formed()
{
	for _n in n1 n2 n3; do
		grep -qE 'NODES \(n1 [0-9]+, n2 [0-9]+, n3 [0-9]+;' \
		    "$T/$_n.log" || return 1
	done
}
wait_for 30 formed || { fail "the cluster did not form"; exit 1; }
three=$(cost n1 n2 n3)
echo "# a fire: $one tenths of a statement on one node, $three on three"
[ "$one" -gt 0 ] || fail "a fire cost nothing on one node"
[ "$three" -le $((one * 18 / 10)) ] ||
    fail "a fire at three nodes costs $three tenths, at one $one"
for n in n1 n2 n3; do
	dmn_stop $n
done
same "no fire ran twice" "$(ccs runs | awk '{ print $1, $2 }' | sort |
    uniq -d | head -3)" ""
finish
