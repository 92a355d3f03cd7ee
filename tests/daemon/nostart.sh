#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# nostart.sh: jobs that do not start, now that the daemon learns so
# after fork() returned (run.c, spawn_launch()): a job whose HOME does
# not exist and one whose SHELL does not exist are logged as CMD FAILED
# with the step that failed, never as CMD, and are recorded in the
# store as failed runs with that reason, while a job that exits 127 is
# a run that finished 127 and the table's other job runs as usual.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"

# The runs with the head of their output (ccstore outputs).
outputs()
{
	"$CCSTORE" "${STORE:-sqlite:$T/cc.db}" outputs
}

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"

cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID >>$O/ok
* * * * * * $ME echo \$CLUSTERCRON_JOB_ID >$O/127; exit 127
HOME=/nonexistent/home
* * * * * * $ME touch $O/nohome
HOME=/
SHELL=/nonexistent/sh
* * * * * * $ME touch $O/noshell
EOF

dmn_start a

wait_for 10 at_least 3 "$O/ok" || fail "the good job did not run"
wait_for 10 in_log a "CMD FAILED \\(a [0-9T:-]+Z chdir /nonexistent/home: No such file or directory; [0-9a-f]{32}: touch $O/nohome\\)" ||
    fail "missing HOME: no CMD FAILED"
wait_for 10 in_log a "CMD FAILED \\(a [0-9T:-]+Z exec /nonexistent/sh: No such file or directory; [0-9a-f]{32}: touch $O/noshell\\)" ||
    fail "missing SHELL: no CMD FAILED"
wait_for 10 in_log a 'FAILED \(a [0-9T:-]+Z grandchild #[0-9]+ failed with exit status 127; ' ||
    fail "exit 127: not logged as a failed run"
dmn_stop a

ntest=$((ntest + 1))
if in_log a "CMD \\((\\[[0-9]+\\] )?touch $O/no"; then
	fail "a job that did not start logged as CMD"
else
	echo "ok: no CMD line for the jobs that did not start"
fi
same "nothing ran of them" "$(ls "$O")" "127
ok"

ok=$(head -n 1 "$O/ok")
e127=$(cat "$O/127")
r=$(runs)
other=$(printf '%s\n' "$r" | grep -vE "^($ok|$e127) ")
same "the jobs that did not start are recorded as failed, exit -1" \
    "$(printf '%s\n' "$other" | grep -cv ' 1 a failed -1 0 ')" 0
o=$(outputs)
contains "missing HOME: failed run says why" "$o" \
    "^[0-9a-f]{32} [0-9]+ 1 a failed chdir.s/nonexistent/home:"
contains "missing SHELL: failed run says why" "$o" \
    "^[0-9a-f]{32} [0-9]+ 1 a failed exec.s/nonexistent/sh:"
contains "the good job's runs finished 0" "$r" \
    "^$ok [0-9]+ 1 a finished 0 0 [0-9]+\$"
contains "exit 127 is a run that finished 127" "$r" \
    "^$e127 [0-9]+ 1 a finished 127 0 [0-9]+\$"

finish
