#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# restart.sh: a job runs under its runner (runner/runner.c), not under
# the daemon, so that stopping the daemon (an upgrade's prerm, systemctl
# restart) kills no job and loses no end.  A job of five seconds is
# started, then:
#  - the daemon gets SIGTERM (shutdown-grace 0, the default): it exits
#    within a second, the job runs on, and the daemon started again
#    records its end, once, with its exit status and output;
#  - the daemon is killed with -9 (the daemon alone, not its children):
#    the same;
#  - the daemon is killed with -9 and so is the runner, before the job
#    ends: the next daemon finds the run file unlocked, not ended, and
#    marks the run lost;
#  - the runner is killed with -9 while its daemon lives: the daemon
#    marks the run lost.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# Node $1, with the default shutdown-grace (0).
setup()
{
	dmn_setup $1 </dev/null
	sed -i '/^shutdown-grace = /d' "$T/$1/clustercron.conf"
}

# A table whose one job fires once, at the second 4 s from now, runs
# five seconds, writes a line and exits 3.
table()
{
	_s=$((($(date +%s) + 4) % 60))
	cat >"$T/$1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
$_s * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/$1.start; sleep 5; echo "out of $1"; exit 3
EOF
}

# The pids of node $1's runners: the daemon's children.
runner_of()
{
	ps -o pid= --ppid "$(dmn_pid $1)" | tr -d ' '
}

# The store's rows of node $1's job: "state exit" of each, and its
# output.
rows() { run_rows "job == \"$(job_of "$O/$1.start")\"" | cut -d' ' -f5; }
ends() { ccs runs | awk -v j="$(job_of "$O/$1.start")" '$1 == j { print $5, $6 }'; }
outs() { ccs outputs | awk -v j="$(job_of "$O/$1.start")" '$1 == j { print $6 }'; }
is_rows() { [ "$(rows "$1")" = "$2" ]; }
ran() { [ -n "$(ls "$T/$1/runs" 2>/dev/null)" ]; }
empty() { [ -z "$(ls "$T/$1/runs")" ]; }
# Milliseconds since the epoch.
ms() { echo $(($(date +%s%N) / 1000000)); }
# Node $1 dead within $2 ms of $3 (ms): polled every 20 ms.
dead_within()
{
	while dmn_alive "$1"; do
		[ "$(ms)" -ge $(($3 + $2)) ] && return 1
		sleep 0.02
	done
	return 0
}

# The daemon stopped and started again while its job runs.
for n in term kill9; do
	setup $n
	table $n
	dmn_start $n
	wait_for 15 at_least 1 "$O/$n.start" || fail "$n: the job did not start"
	wait_for 5 is_rows $n running || fail "$n: no run recorded as running"
	r=$(runner_of $n)
	same "$n: one runner" "$(echo "$r" | wc -w)" 1
	t=$(ms)
	if [ $n = term ]; then
		kill -TERM "$(dmn_pid $n)"
		ntest=$((ntest + 1))
		if dead_within $n 1000 "$t"; then
			echo "ok: $n: SIGTERM: the daemon exits within 1 s"
		else
			fail "$n: the daemon still runs 1 s after SIGTERM"
		fi
	else
		kill -9 "$(dmn_pid $n)"
	fi
	wait_for 10 dmn_dead $n || fail "$n: the daemon did not stop"
	same "$n: the job runs on under its runner" \
	    "$(kill -0 $r && [ -n "$(ps -o pid= --ppid $r)" ] && echo yes)" yes
	dmn_restart $n
	wait_for 20 is_rows $n finished ||
	    fail "$n: the end of the job is not recorded: $(rows $n)"
	same "$n: its end recorded once, with its exit status" "$(ends $n)" \
	    "finished 3"
	same "$n: ... and its output" "$(outs $n)" "out\\sof\\s$n\\n"
	same "$n: the job started once" "$(count_lines "$O/$n.start")" 1
	wait_for 5 empty $n || fail "$n: the run file stays: $(ls "$T/$n/runs")"
	dmn_stop $n
done

# The daemon and the runner killed with -9 while the job runs: lost.
n=both
setup $n
table $n
dmn_start $n
wait_for 15 at_least 1 "$O/$n.start" || fail "$n: the job did not start"
wait_for 5 is_rows $n running || fail "$n: no run recorded as running"
r=$(runner_of $n)
kill -9 "$(dmn_pid $n)" $r
wait_for 10 dmn_dead $n || fail "$n: the daemon did not stop"
dmn_restart $n
wait_for 20 is_rows $n lost || fail "$n: the run is not lost: $(rows $n)"
contains "$n: logged lost" "$(cat "$T/$n.log")" \
    "LOST \\($n .*its end is unknown: its runner died"
same "$n: ... once" "$(grep -c 'LOST (' "$T/$n.log")" 1
same "$n: the job started once" "$(count_lines "$O/$n.start")" 1
wait_for 5 empty $n || fail "$n: the run file stays: $(ls "$T/$n/runs")"
dmn_stop $n

# The runner killed with -9 while its daemon lives: lost.
n=runner
setup $n
table $n
dmn_start $n
wait_for 15 at_least 1 "$O/$n.start" || fail "$n: the job did not start"
wait_for 5 is_rows $n running || fail "$n: no run recorded as running"
kill -9 "$(runner_of $n)"
wait_for 10 is_rows $n lost || fail "$n: the run is not lost: $(rows $n)"
contains "$n: logged lost" "$(cat "$T/$n.log")" \
    "LOST \\($n .*its end is unknown: its runner died"
same "$n: ... once" "$(grep -c 'LOST (' "$T/$n.log")" 1
same "$n: the job started once" "$(count_lines "$O/$n.start")" 1
wait_for 5 empty $n || fail "$n: the run file stays: $(ls "$T/$n/runs")"
dmn_stop $n
finish
