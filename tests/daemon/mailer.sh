#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# mailer.sh: the mailer is started as jobs are (run.c, mail_start()),
# never waited for: each run's runner (runner/runner.c) mails its
# output once the end is written.  With a sendmail that never reads its
# message and never exits, the jobs go on firing every second, each
# run's mail adding one more stuck mailer; SIGTERM still stops the
# daemon at once, as the mailers are their runners' (which kill one
# after ten minutes), and a mailer killed is logged by its runner.  A
# sendmail that does not exist is logged as a mailer that did not
# start, and the job's runs go on.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# A sendmail that hangs: it says it started, then sleeps, its input
# unread.
cat >"$T/stuck" <<EOF
#!/bin/sh
touch "$O/mailer.\$\$"
exec sleep 3600
EOF
chmod 755 "$T/stuck"

dmn_setup a </dev/null
sed -i "s|^sendmail = .*|sendmail = $T/stuck -t|; s|^shutdown-grace = .*|shutdown-grace = 1s|" \
    "$T/a/clustercron.conf"
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=$ME
* * * * * * $ME echo mail me; echo \$CLUSTERCRON_FIRE_TIME >>$O/loud
MAILTO=""
* * * * * * $ME echo \$CLUSTERCRON_FIRE_TIME >>$O/quiet
EOF

# mailers N: at least N stuck mailers have started.
mailers()
{
	[ "$(ls "$O" | grep -c '^mailer\.')" -ge "$1" ]
}

dmn_start a
wait_for 20 mailers 1 || fail "no mailer started"
# From now on mailers are stuck; the jobs must keep firing.
q=$(count_lines "$O/quiet")
l=$(count_lines "$O/loud")
wait_for 30 at_least $((q + 5)) "$O/quiet" ||
    fail "the quiet job stopped while a mailer was stuck"
wait_for 30 at_least $((l + 5)) "$O/loud" ||
    fail "the job whose output is mailed stopped firing"
wait_for 20 mailers 3 || fail "later runs started no mailer"
ntest=$((ntest + 1))
if ps -e -o args= | grep -q "^sleep 3600"; then
	echo "ok: mailers are stuck while the jobs run"
else
	fail "no stuck mailer found"
fi

# SIGTERM: the daemon stops within the grace; the stuck mailers are
# their runners', and are killed here.
dmn_stop a 5
r=$(runs)
same "the runs of both jobs are recorded, all finished 0" \
    "$(printf '%s\n' "$r" | grep -cv ' finished 0 0 ')" 0
contains "DEATH logged" "$(cat "$T/a.log")" '\(CRON\) DEATH \('
ntest=$((ntest + 1))
if ps -e -o args= | grep -q "^sleep 3600"; then
	echo "ok: the mailers outlive the daemon"
else
	fail "no stuck mailer is left"
fi
for m in "$O"/mailer.*; do
	kill -9 "${m##*.}" 2>/dev/null
done
wait_for 10 in_log a "\\($ME\\) MAIL \\(mailer: killed by signal 9" ||
    fail "a killed mailer is not logged"

# A sendmail that is not there.
dmn_setup b </dev/null
sed -i "s|^sendmail = .*|sendmail = /nonexistent/sendmail -t|" \
    "$T/b/clustercron.conf"
cat >"$T/b/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=$ME
* * * * * * $ME echo mail me; echo \$CLUSTERCRON_FIRE_TIME >>$O/b
EOF
dmn_start b
wait_for 20 in_log b "\\($ME\\) MAIL \\(sendmail did not start: exec /nonexistent/sendmail: No such file or directory\\)" ||
    fail "a missing sendmail is not logged"
n=$(count_lines "$O/b")
wait_for 20 at_least $((n + 3)) "$O/b" ||
    fail "the job stopped after its mailer did not start"
dmn_stop b
finish
