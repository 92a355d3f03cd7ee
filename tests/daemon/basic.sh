#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# basic.sh: one daemon on SQLite: the job's environment and % input,
# mail through a stand-in sendmail, runs recorded, a second instance
# refused by the pid file, names cron.d skips, a broken table logged
# with its line while the others run, a changed table picked up at
# once, SIGHUP, and SIGTERM waiting for a running job.

. "$top_srcdir/tests/daemon/lib.sh"
# The lines about fires this test reads (CLAIMED and the like are
# debug lines by default, clustercron(8)).
DMN_FLAGS="-L 31"

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"

cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
FOO=bar baz
* * * * * * $ME env >$O/env.tmp && mv $O/env.tmp $O/env; cat >$O/stdin.tmp && mv $O/stdin.tmp $O/stdin%line one%line two\\%still two
EOF
cat >"$T/a/cron.d/mailer" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=$ME
*/2 * * * * * $ME echo "out of \$CLUSTERCRON_FIRE_ID"
EOF
# Names cron skips: never loaded.
for n in skip.dpkg-old skip~ .hidden skip.bak; do
	cat >"$T/a/cron.d/$n" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * $ME touch $O/skipped
EOF
done
# A broken table: logged with its line, the others run.
cat >"$T/a/cron.d/broken" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * $ME touch $O/broken
61 * * * * * $ME touch $O/broken
EOF
cat >"$T/a/cron.d/broken2" <<EOF
CLUSTERCRON_SECONDS=yes
61 * * * * * $ME touch $O/broken
* * 25 * * * $ME touch $O/broken
EOF

dmn_start a

run "$CLUSTERCRON" -f -c "$T/a/clustercron.conf"
same "second instance refused" "$rc" 1
contains "second instance says why" "$err" "already running, pid [0-9]+"

wait_for 10 test -f "$O/env" || fail "no environment written"
env=$(cat "$O/env")
contains "SHELL" "$env" '^SHELL=/bin/sh$'
contains "PATH" "$env" '^PATH=/usr/bin:/bin$'
contains "LOGNAME" "$env" "^LOGNAME=$ME\$"
contains "USER" "$env" "^USER=$ME\$"
contains "HOME" "$env" '^HOME=/'
contains "table variable" "$env" '^FOO=bar baz$'
contains "MAILTO" "$env" '^MAILTO=$'
contains "fire id" "$env" '^CLUSTERCRON_FIRE_ID=[0-9a-f]{32}@[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
contains "fire time" "$env" '^CLUSTERCRON_FIRE_TIME=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'
fid=$(sed -n 's/^CLUSTERCRON_FIRE_ID=//p' "$O/env")
ftime=$(sed -n 's/^CLUSTERCRON_FIRE_TIME=//p' "$O/env")
same "fire id ends with fire time" "${fid#*@}" "$ftime"
same "no password or daemon variable leaks" \
    "$(grep -c -i -e 'password' -e 'TEST_CLOCK' "$O/env")" 0

wait_for 10 test -f "$O/stdin" || fail "no standard input written"
same "% input" "$(cat "$O/stdin")" "line one
line two%still two"

wait_for 10 test -f "$T/mail.0" || fail "no mail"
mail=$(cat "$T/mail.0")
contains "mail To" "$mail" "^To: $ME\$"
contains "mail Subject" "$mail" "^Subject: Cron <$ME@"
contains "mail body" "$mail" '^out of [0-9a-f]{32}@'
same "no mail from a job with MAILTO empty" \
    "$(grep -l 'line one' "$T"/mail.* 2>/dev/null | wc -l | tr -d ' ')" 0

contains "broken table logged with file and line" "$(cat "$T/a.log")" \
    "cron.d/broken:3:1?[0-9]*: "
contains "broken table ignored" "$(cat "$T/a.log")" "broken: 1 error, table ignored"
contains "... errors counted in words" "$(cat "$T/a.log")" \
    "broken2: 2 errors, table ignored"
same "skipped names never ran" "$(ls "$O" | grep -c -e skipped -e broken)" 0

contains "CMD logged, with its pid (-L 8)" "$(cat "$T/a.log")" \
    "\($ME\) CMD \(\[[0-9]+\] echo "
contains "END logged" "$(cat "$T/a.log")" "\($ME\) END \(\[[0-9]+\] echo "
contains "CLAIMED logged" "$(cat "$T/a.log")" \
    "\($ME\) CLAIMED \(a [0-9-]+T[0-9:]+Z [0-9a-f]{32}: echo "
r=$(runs)
contains "runs recorded, finished, exit 0" "$r" \
    '^[0-9a-f]{32} [0-9]+ 1 a finished 0 0 [0-9]+$'

# A new table is picked up at once (inotify): the wait is bounded well
# below table-check-interval's minute, so that a daemon that only looked
# every minute would fail, but above a busy machine's delays.
cat >"$T/a/cron.d/new" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * $ME touch $O/new
EOF
wait_for 15 test -f "$O/new" || fail "new table not picked up at once"
same "unchanged tables not read again" \
    "$(grep -c -e "RELOAD ($T/a/crontab)" -e "RELOAD ($T/a/cron.d/mailer)" \
    "$T/a.log")" 0
# A changed table too, and a removed one stops.
cat >"$T/a/cron.d/new.tmp" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * $ME touch $O/changed
EOF
mv "$T/a/cron.d/new.tmp" "$T/a/cron.d/new"
wait_for 15 test -f "$O/changed" || fail "changed table not picked up"
contains "reload logged" "$(cat "$T/a.log")" "RELOAD \($T/a/cron.d/new\)"
rm "$T/a/cron.d/new"
wait_for 15 in_log a "REMOVED \($T/a/cron.d/new\)" ||
    fail "removed table not noticed"

# SIGHUP reloads everything.
kill -HUP "$(dmn_pid a)"
wait_for 5 in_log a 'RELOAD \(SIGHUP\)' || fail "SIGHUP not logged"

# SIGTERM waits for a running job.
cat >"$T/a/cron.d/slow" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * $ME touch $O/slow.started; sleep 2; touch $O/slow.done
EOF
wait_for 5 test -f "$O/slow.started" || fail "slow job did not start"
rm -f "$O/slow.done"
kill -TERM "$(dmn_pid a)"
wait_for 10 dmn_dead a || fail "daemon did not stop"
test -f "$O/slow.done" || fail "SIGTERM did not wait for the running job"
contains "DEATH logged" "$(cat "$T/a.log")" '\(CRON\) DEATH \('
test -f "$T/a/pid" && fail "pid file left behind"

finish
