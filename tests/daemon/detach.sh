#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# detach.sh: the daemon started as a shell or init script starts it,
# without -f, on the embedded SQLite store.  The start returns once the
# daemon is ready (ctab answers at once) and fails, with the reason on
# standard error, when it cannot be; then ctab installs tables, for
# this user and for others as import-spool does, while admin verbs and
# another SQLite client open and close the database under the daemon.
# SQLite's locks do not survive fork(): a daemon that opened the store
# before detaching let such a client fold and delete the write-ahead
# log it went on writing to, so that history went stale, resume never
# reached it and a crash lost what ctab had reported installed.  Here
# the history stays current, pause and resume reach the daemon, and
# after kill -9 and a restart every table and every recorded run is
# still there.  Its log-file is opened again on SIGHUP.

. "$top_srcdir/tests/daemon/lib.sh"

# This test is about the detached daemon, whatever DMN_MODE says.
DMN_MODE=detached
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
dmn_setup a </dev/null
CONF=$T/a/clustercron.conf
DB=sqlite:$T/cc.db
export CTAB_SOCKET="$T/a/sock"
unset VISUAL EDITOR

# ---- start-up: ready when the command returns, or a failure said.
run "$CLUSTERCRON" -c "$CONF"
same "detached start exits 0" "$rc" 0
same "... says nothing" "$out$err" ""
DAEMONS=a
cp "$T/a/pid" "$T/a/pid.shell"
run "$CTAB" -l
same "ctab reaches it as soon as the start returns" "$err" \
    "no crontab for $ME"
same "... that is, the socket answers" "$rc" 1
contains "its log is the log-file" "$(cat "$T/a.log")" \
    "CRON\\[$(cat "$T/a/pid")\\]: \\(CRON\\) STARTUP \\("
[ "$(ps -o ppid= -p "$(cat "$T/a/pid")" | tr -d ' ')" = $$ ] &&
    fail "the daemon is the shell's child: it did not detach"
run "$CLUSTERCRON" -c "$CONF"
same "a second daemon: exit 1" "$rc" 1
contains "... says why" "$err" "already running, pid $(cat "$T/a/pid")\$"

# A store that cannot be opened: the start fails, saying why.
dmn_setup bad </dev/null
mkdir "$T/bad.db"
sed -i "s|^store = .*|store = sqlite:$T/bad.db|" "$T/bad/clustercron.conf"
run "$CLUSTERCRON" -c "$T/bad/clustercron.conf"
same "a store that cannot be opened: exit 1" "$rc" 1
contains "... the reason on standard error" "$err" \
    "^clustercron: cannot open the store sqlite:$T/bad.db: .*unable to open"
test -e "$T/bad/pid" && fail "... a pid file left behind"
test -e "$T/bad/sock" && fail "... a socket left behind"

# Started with standard input, output and error closed (as some init
# systems do): it starts all the same.
dmn_setup closed </dev/null
sed -i "s|^store = .*|store = sqlite:$T/closed.db|" "$T/closed/clustercron.conf"
timeout 20 "$CLUSTERCRON" -c "$T/closed/clustercron.conf" <&- >&- 2>&-
same "started with 0, 1 and 2 closed: exit 0" "$?" 0
DAEMONS="a closed"
if [ -f "$T/closed/pid" ]; then
	cp "$T/closed/pid" "$T/closed/pid.shell"
	run env CTAB_SOCKET="$T/closed/sock" "$CTAB" -l
	same "... and ctab reaches it" "$err" "no crontab for $ME"
	dmn_stop closed
fi

# Something in the way of ctab's socket: said, and the daemon runs.
dmn_setup sockless </dev/null
sed -i -e "s|^store = .*|store = sqlite:$T/sockless.db|" \
    -e "s|^ctab-socket = .*|ctab-socket = $T/sockless/crontab|" \
    "$T/sockless/clustercron.conf"
run "$CLUSTERCRON" -c "$T/sockless/clustercron.conf"
same "a socket in the way: the start goes on" "$rc" 0
contains "... and says so" "$err" \
    "^clustercron: $T/sockless/crontab: exists and is not a socket: ctab cannot reach this daemon\$"
DAEMONS="a closed sockless"
cp "$T/sockless/pid" "$T/sockless/pid.shell"
dmn_stop sockless

# ---- tables, admin verbs and another SQLite client under the daemon.
cat >"$T/mine" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_NAME=tick
* * * * * * echo \$CLUSTERCRON_FIRE_TIME >>$O/tick
CLUSTERCRON_NAME=pee
* * * * * * echo p >>$O/p
EOF
run "$CTAB" "$T/mine"
same "ctab installs a table" "$rc$err" 0
wait_for 10 at_least 2 "$O/tick" || fail "the installed table does not run"

# Admin verbs open and close the database the daemon writes.
run "$CLUSTERCRON" jobs -c "$CONF"
same "jobs exits 0" "$rc" 0
contains "jobs lists the table's job" "$out" " tick .* echo "
# Another process, too, through the store's interface.
run "$CCSTORE" "$DB" jobs
same "ccstore reads the store" "$rc" 0
contains "... and finds the table's job" "$out" " tick$"

# Tables installed afterwards, for other users, as import-spool does.
printf '# the daemon user\n0 0 1 1 * echo d\n' >"$T/d.tab"
printf '# the bin user\n0 0 2 1 * echo b\n' >"$T/b.tab"
run "$CTAB" -u daemon "$T/d.tab"
same "ctab -u daemon installs" "$rc$err" 0
run "$CTAB" -u bin "$T/b.tab"
same "ctab -u bin installs" "$rc$err" 0

# The history read by another process keeps up with the runs.
TICK=$("$CCSTORE" "$DB" jobs | awk '$4 == "tick" { print $1 }')
tick_runs()
{
	runs | awk -v id="$TICK" '$1 == id && $5 == "finished" { print $2 }' |
	    sort -n
}
finished_in_store()
{
	[ "$(tick_runs | grep -c .)" -ge "$1" ]
}
n=$(count_lines "$O/tick")
wait_for 10 at_least $((n + 3)) "$O/tick" || fail "tick stopped"
n=$(count_lines "$O/tick")
wait_for 10 finished_in_store "$n" ||
    fail "the history read by others is stale: fewer than $n runs of tick"
run "$CLUSTERCRON" history -c "$CONF" tick
contains "history shows the runs" "$out" "exit 0"

# pause and resume, written by a verb, reach the daemon.
run "$CLUSTERCRON" pause -c "$CONF" pee
same "pause exits 0" "$rc" 0
n=$(count_lines "$O/tick")
wait_for 20 at_least $((n + 3)) "$O/tick" || fail "tick stopped"
p1=$(count_lines "$O/p")
n=$(count_lines "$O/tick")
wait_for 20 at_least $((n + 3)) "$O/tick" || fail "tick stopped"
same "the paused job does not run" "$(count_lines "$O/p")" "$p1"
run "$CLUSTERCRON" resume -c "$CONF" pee
same "resume exits 0" "$rc" 0
wait_for 20 at_least $((p1 + 2)) "$O/p" ||
    fail "resume does not reach the daemon"

# ---- a crash: everything acknowledged is there after a restart.
# The runs recorded as others see them, and the fires tick ran but
# the last two (whose records may not be committed yet).
runs | grep ' finished ' | cut -d' ' -f1-4 | sort >"$T/before"
kill -STOP "$(cat "$T/a/pid")"
fires_of "$O/tick" | head -n -2 >"$T/ran"
kill -9 "$(cat "$T/a/pid")"
wait_for 10 dmn_dead a || fail "the daemon did not die"
run "$CLUSTERCRON" -c "$CONF"
same "restart exits 0" "$rc" 0
cp "$T/a/pid" "$T/a/pid.shell"
run "$CTAB" -l
same "my table is there" "$out" "$(cat "$T/mine")"
run "$CTAB" -u daemon -l
same "the daemon user's table is there" "$out" "$(cat "$T/d.tab")"
run "$CTAB" -u bin -l
same "the bin user's table is there" "$out" "$(cat "$T/b.tab")"
runs | cut -d' ' -f1-4 | sort >"$T/after"
same "every run recorded before the crash is there" \
    "$(comm -23 "$T/before" "$T/after")" ""
tick_runs >"$T/recorded"
same "every run of tick before the crash is recorded" \
    "$(comm -23 "$T/ran" "$T/recorded")" ""
ntest=$((ntest + 1))
if [ "$(count_lines "$T/ran")" -ge 4 ]; then
	echo "ok: runs were recorded before the crash"
else
	fail "too few runs recorded before the crash to tell"
fi
n=$(count_lines "$O/tick")
wait_for 10 at_least $((n + 2)) "$O/tick" || fail "the restarted daemon runs"

# The log file rotated: SIGHUP opens it anew.
mv "$T/a.log" "$T/a.log.1"
kill -HUP "$(cat "$T/a/pid")"
wait_for 10 in_log a 'RELOAD \(SIGHUP\)' ||
    fail "SIGHUP: the log file is not opened again"
dmn_stop a
test -e "$T/a/pid" && fail "pid file left after a stop"

finish
