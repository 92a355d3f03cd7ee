#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-run.sh: one daemon on SQLite runs one-shot jobs (at).  A job
# submitted by a throwaway user with `at now' runs once, as that user,
# in the directory, with the environment and umask it was submitted
# with, and is recorded as a run of at:N; a failing job with -R 2
# -B 1s,2s is retried after 1 s and then 2 s, then fails, every attempt
# in the history; -m mails even without output, the mail atd sends
# (Subject and To alone); a job whose node dies while it runs is failed
# (-L mark) or retried (-L rerun) when the node comes back; a job due
# while the daemon was down runs when it comes back, and the delay is
# logged and in the history; a job running when the daemon is stopped
# and started again is adopted by the next daemon and recorded done,
# once; an end the store did not take before the node died is recorded
# by the next daemon from its run file.
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
CONF=$T/n1/clustercron.conf
# jobs_at ID KEY: a member of job ID in clustercron jobs --json.
jobs_at() {
	"$CLUSTERCRON" jobs -c "$CONF" --json | python3 -c '
import json, sys
for j in json.load(sys.stdin):
    if j["id"] == sys.argv[1]:
        v = j
        for k in sys.argv[2].split("."):
            v = v[k]
        print(v)' "$@"
}
# hist_at ID: the attempts of ID in clustercron history --json, one a
# line: attempt owner job_state gone command.
hist_at() {
	"$CLUSTERCRON" history -c "$CONF" --json "$1" | python3 -c '
import json, sys
for r in sorted(json.load(sys.stdin), key=lambda r: r["attempt"]):
    print(r["attempt"], r["owner"], r["job_state"], r["gone"], r["command"])'
}
# jobs_row ID: the job's line in clustercron jobs (escaped for people).
jobs_row() { "$CLUSTERCRON" jobs -c "$CONF" | grep "^$1 "; }

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
# What the admin verbs say of it: owner, state, commands.
same "jobs --json: at:1 done, its owner, its command, its run" \
    "$(jobs_at at:1 kind; jobs_at at:1 state; jobs_at at:1 owner;
    jobs_at at:1 command; jobs_at at:1 attempts; jobs_at at:1 last_run.exit)" \
    "$(printf 'at\ndone\n%s\n%s\n1\n0' "$U" "$(cat "$T/job1")")"
contains "jobs: at:1 done, its owner and its command" "$(jobs_row at:1)" \
    "^at:1 +- +$U +cluster +at [0-9-]+ [0-9:]+ +- +- +- .* n1 +done: exit 0 \(1 attempt\) +echo \"\\\$\(id -un\)"
same "history --json at:1: owner, state, command" "$(hist_at at:1)" \
    "1 $U done False $(cat "$T/job1")"
contains "history: at:1 with its owner, result and command" \
    "$("$CLUSTERCRON" history -c "$CONF")" \
    "^at:1 +$U +n1 .* finished +exit 0; done +echo \"\\\$\(id -un\)"
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
# Each retry is due at its attempt's end rounded up to a whole second,
# plus the delay (1 s, then 2 s): it starts at that second, not before,
# and late only by a start's lateness (under a second).
late=$(at_runs 2 | awk 'NR > 1 {
	due = (int((end + 999) / 1000) + NR - 1) * 1000
	printf "%d ", $7 - due } { end = $8 }')
gaps=$(at_runs 2 | awk 'NR > 1 { printf "%d ", $7 - end } { end = $8 }')
echo "from each end to the next start: $gaps ms; after its due second: $late ms"
set -- $late
[ "$1" -ge 0 ] && [ "$1" -lt 1000 ] ||
    fail "the first retry came $1 ms after end + 1 s rounded up, not at it"
[ "$2" -ge 0 ] && [ "$2" -lt 1000 ] ||
    fail "the second retry came $2 ms after end + 2 s rounded up, not at it"
contains "the failure logged" "$(cat "$T/n1.log")" \
    "AT FAILED \\(n1 .* at job 2, after 3 attempts; at:2\\)"
same "jobs --json: at:2 failed after 3 attempts" \
    "$(jobs_at at:2 state) $(jobs_at at:2 attempts) $(jobs_at at:2 retries)" \
    "failed 3 2"
contains "jobs: at:2 failed, exit 3" "$(jobs_row at:2)" \
    " n1 +failed: exit 3 \(3 attempts\) +echo try >>tries; exit 3$"
same "history --json at:2: each attempt with the job's owner and state" \
    "$(hist_at at:2)" "$(for a in 1 2 3; do
	echo "$a $U failed False echo try >>tries; exit 3"; done)"
same "history: what followed each attempt" \
    "$("$CLUSTERCRON" history -c "$CONF" at:2 | grep -o 'exit 3; [a-z]*')" \
    "$(printf 'exit 3; failed\nexit 3; retried\nexit 3; retried')"
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
# As Debian's atd writes it: the subject (the number in eight columns)
# and the recipient, nothing else, and no output.
same "... atd's mail: Subject and To alone" "$(cat "$T/$m"; echo .)" \
    "$(printf 'Subject: Output from your job        3\nTo: root\n\n.')"

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
same "jobs --json: at:4 and at:5 running" \
    "$(jobs_at at:4 state) $(jobs_at at:5 state)" "running running"
contains "jobs: at:4 running" "$(jobs_row at:4)" " n1 +running \(attempt 1\) "
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

# Retrying: a failure with its retry an hour away; then cancelled.
as_user "echo 'exit 4' | at -R 1 -B 1h now" 2>/dev/null
retrying7() { [ "$(jobs_at at:7 state)" = retrying ]; }
wait_for 20 retrying7 || fail "job 7 is not retrying: $(jobs_row at:7)"
next7=$(jobs_at at:7 next_ms)
[ "$next7" -gt $(( ($(date +%s) + 3500) * 1000 )) ] ||
    fail "job 7's next attempt is not an hour away: $next7"
contains "jobs: at:7 retrying, its next attempt, exit 4" "$(jobs_row at:7)" \
    "^at:7 .* [0-9-]+ [0-9:]+ +- +[0-9-]+ [0-9:]+ +n1 +retrying: exit 4 \(1 attempt\) +exit 4$"
contains "history: at:7 exit 4; retrying" \
    "$("$CLUSTERCRON" history -c "$CONF" at:7)" " exit 4; retrying +exit 4"
as_user "atrm 7"
same "jobs --json: at:7 cancelled" "$(jobs_at at:7 state)" cancelled
contains "jobs: at:7 cancelled after its attempt" "$(jobs_row at:7)" \
    " n1 +cancelled: exit 4 \(1 attempt\) +exit 4$"
same "history --json: at:7's attempt, the job cancelled" \
    "$(hist_at at:7)" "1 $U cancelled False exit 4"

# Waiting, under a key, its commands holding what must not reach a
# terminal as it is (ESC, U+202E, U+0085) on several lines; cancelled.
BAD=$(printf 'echo A\033[31mB\342\200\256C\302\205D')
printf '#!/bin/sh\n\n  cd /tmp\n%s\n' "$BAD" >"$T/job8"
chmod 644 "$T/job8"
as_user "at -k report-8 now + 1 day <$T/job8" 2>/dev/null
same "jobs --json: at:8 waiting, its key its name, its commands" \
    "$(jobs_at at:8 state; jobs_at at:8 name; jobs_at at:8 command)" \
    "$(printf 'waiting\nreport-8\ncd /tmp; %s' "$BAD")"
row8=$(jobs_row at:8)
contains "jobs: at:8 waiting, controls escaped" "$row8" \
    "^at:8 +report-8 +$U .* waiting +cd /tmp; echo A\\\\u001b\[31mB\\\\u202eC\\\\u0085D$"
same "... none of them as they are" \
    "$(printf '%s' "$row8" | LC_ALL=C grep -c "$(printf '\033\\|\342\200\256\\|\302\205')")" 0
same "jobs -u: another owner's, none" \
    "$("$CLUSTERCRON" jobs -c "$CONF" -u root | grep -c '^at:8 ')" 0
as_user "atrm 8"
same "jobs --json: at:8 cancelled" "$(jobs_at at:8 state)" cancelled
# For the log: the listings as people read them.
"$CLUSTERCRON" jobs -c "$CONF"
"$CLUSTERCRON" history -c "$CONF" -n 12

# With sendmail not set, the mailer is atd's: /usr/sbin/sendmail -i and
# the recipient (a stand-in there, through an overlay in the daemon's
# namespace), not cron's.
mkdir -p "$T/sbin.u" "$T/sbin.w"
cat >"$T/sbin.u/sendmail" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$T/atmail.args"
cat >"$T/atmail.tmp" && mv "$T/atmail.tmp" "$T/atmail"
EOF
chmod 755 "$T/sbin.u/sendmail"
cat >"$T/dmn-wrap2" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c '
mount -t overlay overlay -o lowerdir=$atdir,upperdir=$T/ours.u,workdir=$T/ours.w $atdir &&
mount -t overlay overlay -o lowerdir=/usr/sbin,upperdir=$T/sbin.u,workdir=$T/sbin.w /usr/sbin &&
exec "\$0" "\$@"' "$CLUSTERCRON" "\$@"
EOF
chmod 755 "$T/dmn-wrap2"
dmn_stop n1
sed -i '/^sendmail = /d' "$T/n1/clustercron.conf"
DMN_BIN=$T/dmn-wrap2 dmn_restart n1
echo true | "$T/bin/at" -m now 2>"$T/err"
contains "at -m: job 9" "$(cat "$T/err")" "^job 9 at "
wait_for 20 test -e "$T/atmail" || fail "no mail through /usr/sbin/sendmail"
same "... run as atd runs it: sendmail -i root" \
    "$(cat "$T/atmail.args" 2>/dev/null)" "$(printf -- '-i\nroot')"
same "... with atd's headers alone" "$(cat "$T/atmail" 2>/dev/null; echo .)" \
    "$(printf 'Subject: Output from your job        9\nTo: root\n\n.')"

# A job running across a restart: the daemon that stops leaves it to
# its runner; the next one adopts it as the job's attempt (not as a cron
# fire), records its end once, and the job is done.
as_user "echo 'echo started >>across; sleep 5; echo ended >>across' | at now" \
    2>"$T/err"
contains "at now: job 10" "$(cat "$T/err")" "^job 10 at "
wait_for 20 test -s "$T/wd/across" || fail "job 10 did not start"
running10() { [ "$(run_rows 'job == "at:10" && pid > 0 && state == "running"' | wc -l)" -eq 1 ]; }
wait_for 10 running10 || fail "job 10 is not recorded running"
dmn_stop n1
grep -q ended "$T/wd/across" &&
    fail "job 10 ended before the daemon stopped: this proves nothing"
DMN_BIN=$T/dmn-wrap dmn_restart n1
done10() { [ "$(at_state 10)" = done ]; }
wait_for 30 done10 || fail "job 10 is not done after the restart: $("$T/bin/atq" -a 10)"
same "job 10 ran once, to its end" "$(cat "$T/wd/across" | tr '\n' ' ')" \
    "started ended "
same "one run of at:10, finished" \
    "$(at_runs 10 | awk '{ print $3, $5, ($6 > 0), ($8 > 0) }')" "1 finished 1 1"
same "... exit status 0" \
    "$(ccs runs | awk '$1 == "at:10" { print $6 }')" 0
gone10() { ! ls "$T/n1/runs" | grep -q '^at:10-'; }
wait_for 10 gone10 || fail "job 10's run file stayed: $(ls "$T/n1/runs")"

# The node dies as job 11's end is to be stored (the daemon stops at the
# store's call, then is killed): the end, kept in the run file until
# the store has it, is recorded by the next daemon, once.
sed "s|\"$CLUSTERCRON\"|\"$CLUSTERCRON_TESTBIN\"|" "$T/dmn-wrap" >"$T/dmn-wrap-test"
chmod 755 "$T/dmn-wrap-test"
dmn_stop n1
CLUSTERCRON_TEST_FAULTS=at.finish.before:1:stop \
    DMN_BIN=$T/dmn-wrap-test dmn_restart n1
as_user "echo 'echo eight >>eight' | at now" 2>"$T/err"
contains "at now: job 11" "$(cat "$T/err")" "^job 11 at "
wait_for 20 dmn_stopped n1 || fail "the daemon did not stop at job 11's end"
end11() { ls "$T/n1/runs" | grep -q '^at:11-.*\.end$'; }
end11 || fail "job 11's end is not in its run file: $(ls "$T/n1/runs")"
dmn_crash n1
DMN_BIN=$T/dmn-wrap dmn_restart n1
done11() { [ "$(at_state 11)" = done ]; }
wait_for 20 done11 || fail "job 11 is not done: $("$T/bin/atq" -a 11)"
same "job 11 ran once" "$(cat "$T/wd/eight")" eight
same "one run of at:11, finished, exit 0" \
    "$(ccs runs | awk '$1 == "at:11" { print $3, $5, $6 }')" "1 finished 0"
gone11() { ! ls "$T/n1/runs" | grep -q '^at:11-'; }
wait_for 10 gone11 || fail "job 11's run file stayed: $(ls "$T/n1/runs")"

finish
