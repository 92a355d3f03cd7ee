#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# doubt.sh: a claim whose write was committed but whose answer was lost
# (the connection dropped right after the commit, and the reconnection
# failed too) is still run: the daemon asks the store again once it
# answers.  Without that, the fire is claimed, so no node runs it, and
# the misfire pass, which looks past the last claimed fire, never sees
# it.  Once for a single claim, once for a batch of jobs due together.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"

O=$T/jobs
mkdir "$O"
chmod 777 "$O"

# gapless FILE: one line per second from the first to the last, each once.
gapless() {
	sort -n "$1" | awk 'NR == 1 { first = $1 } { if ($1 != first + NR - 1)
	    bad = 1 } END { exit bad || NR < 2 }'
}

# scenario NAME FAULTS JOBS: run daemon NAME with the faults armed and
# JOBS every-second jobs (1: single claims; 2: batches), until each job
# has run a dozen times, then check each file.
scenario() {
	_n=$1
	STORE=sqlite:$T/$_n.db
	dmn_setup "$_n" </dev/null
	{
		echo "CLUSTERCRON_SECONDS=yes"
		echo 'MAILTO=""'
		_j=1
		while [ $_j -le "$3" ]; do
			echo "* * * * * * $ME echo \$(date -u -d \$CLUSTERCRON_FIRE_TIME +\%s) >>$O/$_n.$_j"
			_j=$((_j + 1))
		done
	} >"$T/$_n/crontab"
	CLUSTERCRON_TEST_FAULTS=$2 dmn_start "$_n"
	_j=1
	while [ $_j -le "$3" ]; do
		wait_for 30 at_least 12 "$O/$_n.$_j" ||
		    fail "$_n: job $_j runs"
		_j=$((_j + 1))
	done
	dmn_stop "$_n"
	contains "$_n: the fault cut the store" "$(cat "$T/$_n.log")" \
	    'STORE DOWN'
	contains "$_n: the fire in doubt was found ours and run" \
	    "$(cat "$T/$_n.log")" 'CLAIMED \(.* catching up; '
	_j=1
	while [ $_j -le "$3" ]; do
		ntest=$((ntest + 1))
		if gapless "$O/$_n.$_j"; then
			echo "ok: $_n: job $_j ran every second once"
		else
			fail "$_n: job $_j missed or repeated a fire:" \
			    $(sort -n "$O/$_n.$_j")
		fi
		_j=$((_j + 1))
	done
}

scenario single "claim.commit.after:3:drop,connect.before:2:fail" 1
scenario batch "batch.commit.after:3:drop,connect.before:2:fail" 2
finish
