#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# statements.sh: what a fire costs the store does not grow with the
# nodes (issue 16, point 2).  Fifteen jobs each due every fifteen
# seconds, one at each second, so that each fire is alone at its
# instant, on one node and then on three sharing one private MariaDB.
# The server's general log lists the statements it carried out over a
# window while the jobs fire and over one as long while they do not;
# those of a fire's path (its claim, the reads of whether it is free or
# whose it is, the start and end of its run, and the transactions
# around them: ccstore fire-path), their difference over the fires
# claimed in the first (the claims' rows written), are a fire's cost.  The heartbeats and the
# other chores, which come and go with the windows' edges, are left out:
# counting every statement (Questions) varied by 1.5 a fire from one
# window to the next.  At three nodes a fire must cost within 1.15
# times its cost at one: the preferred node claims, and the two after
# it learn from its heartbeat that it did (its cover) instead of reading
# the claims, which cost 8 statements against 6; when every node tried
# every fire, 2.2 times.  The backups' logs must show the fires settled
# by covers, not reads.  Every fire runs once.  Counted, not timed.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
DMN_FLAGS=-d
W=${STATEMENTS_WINDOW:-20}

# table NAME every|never: NAME's table, the jobs due in the windows
# (one a second) or not.
table()
{
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		_k=0
		while [ $_k -lt 15 ]; do
			if [ "$2" = every ]; then
				echo "$_k-59/15 * * * * * $ME true"
			else
				echo "$_k 0 0 1 1 * $ME true"
			fi
			_k=$((_k + 1))
		done
	} >"$T/$1/crontab"
}
reloads() { grep -c 'RELOAD (' "$T/$1.log"; }
reloaded() { [ "$(reloads "$1")" -gt "$2" ]; }
# settled: every run recorded has ended.
settled() { ! ccs runs | awk '$5 == "running"' | grep -q .; }
nruns() { ccs runs | wc -l | tr -d ' '; }
# window NAME: the statements of a fire's path over W seconds, as the
# general log NAME lists them, and the fires claimed among them.
window()
{
	mdb_root "SET GLOBAL general_log_file = '$T/$1.sql';
	    SET GLOBAL general_log = 1" || { fail "no general log"; exit 1; }
	wait_for $((W + 10)) past $(($(date +%s) + W))
	mdb_root "SET GLOBAL general_log = 0"
	ccs fire-path "$T/$1.sql" | cut -d' ' -f2,3
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
	# Past the fires of the first heartbeats after the tables changed.
	wait_for 60 at_least_runs $((_r0 + 15)) || { fail "no fires"; exit 1; }
	marks "$@"
	window busy.$# >"$T/busy.$#"
	tally "$@" >"$T/tally.$#"
	switch never "$@"
	wait_for 30 settled || { fail "runs did not end"; exit 1; }
	window idle.$# >"$T/idle.$#"
	read _busy _fires <"$T/busy.$#"
	read _idle _none <"$T/idle.$#"
	echo "# nodes $#: firing $_busy, idle $_idle statements in $W s," \
	    "$_fires fires; $(cat "$T/tally.$#")" >&2
	[ "$_fires" -gt 0 ] || { fail "no fire claimed in the window"; exit 1; }
	echo $(((_busy - _idle) * 10 / _fires))
}
at_least_runs() { [ "$(nruns)" -ge "$1" ]; }
# marks NODES...: where their logs end now; tally NODES...: over the
# lines since, the fires the nodes settled by a cover and those they
# read the claims of and found taken ("covered N read M").
marks()
{
	for _n in "$@"; do
		wc -l <"$T/$_n.log" >"$T/$_n.mark"
	done
}
tally()
{
	for _n in "$@"; do
		tail -n +$(($(cat "$T/$_n.mark") + 1)) "$T/$_n.log"
	done | awk '
	    /\(CRON\) COVERED \(/ { c += substr($0, index($0, "COVERED (") + 9) + 0 }
	    / NOT CLAIMED / { r++ }
	    END { printf "covered %d read %d\n", c, r }'
}

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
[ "$three" -le $((one * 115 / 100)) ] ||
    fail "a fire at three nodes costs $three tenths, at one $one"
# Two backups a fire, twenty fires: most settled by covers.
read covered c read r <"$T/tally.3"
[ "$c" -ge 20 ] && [ "$r" -le 5 ] ||
    fail "the backups settled $c fires by covers and read $r"
for n in n1 n2 n3; do
	dmn_stop $n
done
same "no fire ran twice" "$(ccs runs | awk '{ print $1, $2 }' | sort |
    uniq -d | head -3)" ""
finish
