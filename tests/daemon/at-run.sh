#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-run.sh: one daemon on SQLite runs one-shot jobs (at).  A job
# submitted by a throwaway user with `at now' runs once, as that user,
# in the directory, with the environment and umask it was submitted
# with, and is recorded as a run of at:N; a failing job with -R 2
# -B 1s,2s is retried after 1 s and then 2 s, then fails, every attempt
# in the history; -m mails even without output; a job whose node dies
# while it runs is failed (-L mark) or retried (-L rerun) when the node
# comes back; a job due while the daemon was down runs when it comes
# back, and the delay is logged and in the history; a job running when
# the daemon is stopped and started again is adopted by the next daemon
# and recorded done, once; an end the store did not take before the
# node died is recorded by the next daemon from its run file.
#
# The daemon runs in a mount namespace of its own whose at.allow (the
# configured sysconfdir, an overlay there) lets the user in, so that
# the machine's at.allow and at.deny are never touched.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] ||
    skip "needs root, for a throwaway user and a private mount namespace"
for p in unshare setpriv useradd; do
	needs $p
done
unshare -m true 2>/dev/null || skip "unshare -m does not work here"

chmod 755 "$T"
U=ccar$$
dmn_useradd "$U" "$T/home"
mkdir -p "$T/wd" "$T/ours.u/" "$T/ours.w" "$T/bin"
chown "$U:" "$T/wd"
allow=$(sed -n 's/^#define PATH_AT_ALLOW "\(.*\)"$/\1/p' \
    "$top_builddir/pathnames.h")
atdir=$(dirname "$allow")
[ -n "$allow" ] || {
	echo "cannot read the path of at.allow"
	exit 99
}
made=
if [ ! -d "$atdir" ]; then
	mkdir -p "$atdir" || exit 99
	made=$atdir
fi
trap '_st=$?; [ -n "$made" ] && rmdir "$made"; (exit $_st); dmn_cleanup' EXIT
echo "$U" >"$T/ours.u/$(basename "$allow")"
cat >"$T/dmn-wrap" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c '
mount -t overlay overlay -o lowerdir=$atdir,upperdir=$T/ours.u,workdir=$T/ours.w $atdir &&
exec "\$0" "\$@"' "$CLUSTERCRON" "\$@"
EOF
chmod 755 "$T/dmn-wrap"
dmn_setup n1 </dev/null
DMN_BIN=$T/dmn-wrap dmn_start n1
for p in at atq atrm batch; do
	ln -s "$CTAB" "$T/bin/$p"
done
CTAB_SOCKET=$T/n1/sock
export CTAB_SOCKET

# as_user CMD: CMD run by the user in $T/wd, umask 027, with FOO set.
as_user() {
	setpriv --reuid="$U" --regid="$U" --init-groups env -i \
	    HOME="$T/home" LOGNAME="$U" PATH="$T/bin:/usr/bin:/bin" \
	    CTAB_SOCKET="$CTAB_SOCKET" FOO='a b$c' \
	    sh -c "cd $T/wd && umask 027 && $1"
}
# at_state N: the job's state as atq -a shows it (root sees all).
at_state() { "$T/bin/atq" -a "$1" | awk '{ print $(NF - 1) }'; }
# at_runs N [COND]: the job's runs (run_rows), attempts in order.
at_runs() { run_rows "job == \"at:$1\"${2:+ && ($2)}" | sort -k3n; }

# Once, as its owner, where and with what it was submitted.
echo 'echo "$(id -un) $(pwd) $FOO $(umask) $CLUSTERCRON_JOB_ID" >out1' \
    >"$T/job1"
chmod 644 "$T/job1"
as_user "at now <$T/job1" 2>"$T/err"
contains "at now: job 1" "$(cat "$T/err")" "^job 1 at "
wait_for 20 test -s "$T/wd/out1" || fail "job 1 did not run"
same "it ran as $U, in its directory, with FOO and its umask" \
    "$(cat "$T/wd/out1")" "$U $T/wd a b\$c 0027 at:1"
same "... its file is the user's" "$(stat -c %U "$T/wd/out1")" "$U"
wait_for 10 sh -c "[ \"\$($T/bin/atq -a 1 | grep -c done)\" = 1 ]" ||
    fail "job 1 is not done: $("$T/bin/atq" -a 1)"
same "one run of at:1, finished, exit 0, with a pid" \
    "$(at_runs 1 | awk '{ print $3, $4, $5, ($6 > 0) }')" "1 n1 finished 1"
contains "clustercron history shows it" \
    "$("$CLUSTERCRON" history -c "$T/n1/clustercron.conf")" "^at:1 "
contains "the log says CMD" "$(cat "$T/n1.log")" \
    "\\($U\\) CMD \\(n1 .* at job 1, attempt 1; at:1\\)"

# Retries at the back-off, then failed; every attempt in the history.
printf 'echo try >>tries\nexit 3\n' >"$T/job2"
chmod 644 "$T/job2"
as_user "at -R 2 -B 1s,2s now <$T/job2" 2>"$T/err"
contains "at -R 2 -B 1s,2s: job 2" "$(cat "$T/err")" "^job 2 at "
failed2() { [ "$(at_state 2)" = failed ]; }
wait_for 30 failed2 || fail "job 2 did not fail: $("$T/bin/atq" -a 2)"
same "three attempts ran" "$(count_lines "$T/wd/tries")" 3
same "three runs in the history, exit 3 each" \
    "$(at_runs 2 | awk '{ print $3, $5 }' | tr '\n' ' ')" \
    "1 finished 2 finished 3 finished "
same "... each with exit status 3" \
    "$(ccs runs | awk '$1 == "at:2" && $6 == 3' | wc -l | tr -d ' ')" 3
# From each attempt's end to the next one's start: the delay, rounded
# up to a whole second of the clock, no more.
gaps=$(at_runs 2 | awk 'NR > 1 { printf "%d ", $7 - end } { end = $8 }')
set -- $gaps
echo "from each end to the next start: $gaps ms"
[ "$1" -ge 1000 ] && [ "$1" -lt 2000 ] ||
    fail "the first retry came $1 ms after the first attempt, not after 1 s"
[ "$2" -ge 2000 ] && [ "$2" -lt 3000 ] ||
    fail "the second retry came $2 ms after the second, not after 2 s"
contains "the failure logged" "$(cat "$T/n1.log")" \
    "AT FAILED \\(n1 .* at job 2, after 3 attempts; at:2\\)"
contains "clustercron history at:2: its attempts alone" \
    "$("$CLUSTERCRON" history -c "$T/n1/clustercron.conf" at:2 |
    awk 'NR > 1 { print $1 }' | sort | uniq -c | tr -s ' ')" "^ ?3 at:2$"

# -m: a mail without output; a job with output mails it (root's jobs,
# whose mailer may write in $T).
nm=$(ls "$T" | grep -c '^mail\.[0-9]*$')
echo true | "$T/bin/at" -m now 2>/dev/null
wait_for 20 sh -c "[ \$(ls $T | grep -c '^mail\\.[0-9]*\$') -gt $nm ]" ||
    fail "at -m sent no mail"
m=$(ls "$T" | grep '^mail\.[0-9]*$' | sort -t. -k2n | tail -n 1)
contains "... the subject names the job" "$(cat "$T/$m")" \
    "^Subject: .*Output from your job 3"

# A node dies while its jobs run: -L mark fails the job, -L rerun
# retries it when the node comes back (the run of its earlier life is
# marked lost).
echo 'echo $CLUSTERCRON_ATTEMPT >>lost-mark; exec sleep 300' >"$T/job4"
echo 'echo $CLUSTERCRON_ATTEMPT >>lost-rerun; [ $CLUSTERCRON_ATTEMPT = 2 ] || exec sleep 301' >"$T/job5"
chmod 644 "$T/job4" "$T/job5"
as_user "at -L mark now <$T/job4" 2>/dev/null
as_user "at -L rerun now <$T/job5" 2>/dev/null
wait_for 20 test -s "$T/wd/lost-mark" || fail "job 4 did not start"
wait_for 20 test -s "$T/wd/lost-rerun" || fail "job 5 did not start"
running45() { [ "$(run_rows '(job == "at:4" || job == "at:5") && pid > 0 && state == "running"' | wc -l)" -eq 2 ]; }
wait_for 10 running45 || fail "jobs 4 and 5 are not recorded running"
dmn_crash n1
DMN_BIN=$T/dmn-wrap dmn_restart n1
failed4() { [ "$(at_state 4)" = failed ]; }
wait_for 20 failed4 || fail "job 4 (mark) is not failed: $("$T/bin/atq" -a 4)"
wait_for 20 at_least 2 "$T/wd/lost-rerun" || fail "job 5 (rerun) did not run again"
same "job 4 ran once" "$(cat "$T/wd/lost-mark")" 1
same "job 5 ran again as attempt 2" "$(cat "$T/wd/lost-rerun" | tr '\n' ' ')" "1 2 "
done5() { [ "$(at_state 5)" = done ]; }
wait_for 20 done5 || fail "job 5 is not done: $("$T/bin/atq" -a 5)"
same "job 4's run is lost in the history" \
    "$(at_runs 4 | awk '{ print $3, $5 }')" "1 lost"
same "job 5's: lost, then finished" \
    "$(at_runs 5 | awk '{ print $3, $5 }' | tr '\n' ' ')" "1 lost 2 finished "

# Catch-up: due while the daemon was down, run when it is back, late.
due=$(($(date +%s) + 4))
as_user "echo 'date +%s >caught' | at -t $(date -d "@$due" +%Y%m%d%H%M.%S)" \
    2>"$T/err"
contains "at -t: job 6" "$(cat "$T/err")" "^job 6 at "
dmn_stop n1
past() { [ "$(date +%s)" -ge $((due + 3)) ]; }
wait_for 20 past
[ -e "$T/wd/caught" ] && fail "job 6 ran while the daemon was down"
# From here on, the default shutdown-grace (0): a daemon told to stop
# leaves its jobs to their runners at once (job 7 below).
sed -i '/^shutdown-grace = /d' "$T/n1/clustercron.conf"
DMN_BIN=$T/dmn-wrap dmn_restart n1
wait_for 20 test -s "$T/wd/caught" || fail "job 6 was not caught up"
late=$(($(cat "$T/wd/caught") - due))
[ "$late" -ge 3 ] || fail "job 6 ran $late s after its time, not later"
contains "CATCH-UP logged with the delay" "$(cat "$T/n1.log")" \
    "CATCH-UP \\(n1 .* at job 6, [0-9]+ s late: due while no node ran; at:6\\)"
same "the history's start is that late" \
    "$(at_runs 6 | awk -v due="$due" '{ print ($7 / 1000 - due >= 3) }')" 1

# A job running across a restart: the daemon that stops leaves it to
# its runner; the next one adopts it as the job's attempt (not as a cron
# fire), records its end once, and the job is done.
as_user "echo 'echo started >>across; sleep 5; echo ended >>across' | at now" \
    2>"$T/err"
contains "at now: job 7" "$(cat "$T/err")" "^job 7 at "
wait_for 20 test -s "$T/wd/across" || fail "job 7 did not start"
running7() { [ "$(run_rows 'job == "at:7" && pid > 0 && state == "running"' | wc -l)" -eq 1 ]; }
wait_for 10 running7 || fail "job 7 is not recorded running"
dmn_stop n1
grep -q ended "$T/wd/across" &&
    fail "job 7 ended before the daemon stopped: this proves nothing"
DMN_BIN=$T/dmn-wrap dmn_restart n1
done7() { [ "$(at_state 7)" = done ]; }
wait_for 30 done7 || fail "job 7 is not done after the restart: $("$T/bin/atq" -a 7)"
same "job 7 ran once, to its end" "$(cat "$T/wd/across" | tr '\n' ' ')" \
    "started ended "
same "one run of at:7, finished" \
    "$(at_runs 7 | awk '{ print $3, $5, ($6 > 0), ($8 > 0) }')" "1 finished 1 1"
same "... exit status 0" \
    "$(ccs runs | awk '$1 == "at:7" { print $6 }')" 0
gone7() { ! ls "$T/n1/runs" | grep -q '^at:7-'; }
wait_for 10 gone7 || fail "job 7's run file stayed: $(ls "$T/n1/runs")"

# The node dies as job 8's end is to be stored (the daemon stops at the
# store's call, then is killed): the end, kept in the run file until
# the store has it, is recorded by the next daemon, once.
sed "s|\"$CLUSTERCRON\"|\"$CLUSTERCRON_TESTBIN\"|" "$T/dmn-wrap" >"$T/dmn-wrap-test"
chmod 755 "$T/dmn-wrap-test"
dmn_stop n1
CLUSTERCRON_TEST_FAULTS=at.finish.before:1:stop \
    DMN_BIN=$T/dmn-wrap-test dmn_restart n1
as_user "echo 'echo eight >>eight' | at now" 2>"$T/err"
contains "at now: job 8" "$(cat "$T/err")" "^job 8 at "
wait_for 20 dmn_stopped n1 || fail "the daemon did not stop at job 8's end"
end8() { ls "$T/n1/runs" | grep -q '^at:8-.*\.end$'; }
end8 || fail "job 8's end is not in its run file: $(ls "$T/n1/runs")"
dmn_crash n1
DMN_BIN=$T/dmn-wrap dmn_restart n1
done8() { [ "$(at_state 8)" = done ]; }
wait_for 20 done8 || fail "job 8 is not done: $("$T/bin/atq" -a 8)"
same "job 8 ran once" "$(cat "$T/wd/eight")" eight
same "one run of at:8, finished, exit 0" \
    "$(ccs runs | awk '$1 == "at:8" { print $3, $5, $6 }')" "1 finished 0"
gone8() { ! ls "$T/n1/runs" | grep -q '^at:8-'; }
wait_for 10 gone8 || fail "job 8's run file stayed: $(ls "$T/n1/runs")"

finish
