#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# nofile.sh: the daemon raises its soft limit on open files to the hard
# limit, for the pipes of a burst of jobs, and its jobs get the limit
# it was started with, as cron's children would.  The daemon is started
# with a soft limit below the hard one.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

hard=$(ulimit -H -n)
if [ "$hard" = unlimited ] || [ "$hard" -le 64 ]; then
	skip "hard limit on open files is $hard: nothing to raise"
fi
soft=64

dmn_setup a </dev/null
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo \$(ulimit -S -n) \$(ulimit -H -n) >$O/limits.tmp && mv $O/limits.tmp $O/limits
EOF
# Only the daemon is started with the lower limit.
( ulimit -S -n $soft && dmn_start a ) || exit 1
DAEMONS=a

wait_for 10 test -f "$O/limits" || fail "the job did not run"
same "the job has the soft and hard limits the daemon was started with" \
    "$(cat "$O/limits")" "$soft $hard"
pid=$(dmn_pid a)
same "the daemon raised its own soft limit to the hard one" \
    "$(awk '/^Max open files/ { print $4, $5 }' "/proc/$pid/limits")" \
    "$hard $hard"
dmn_stop a
finish
