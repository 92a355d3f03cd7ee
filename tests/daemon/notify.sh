#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# notify.sh: the daemon under a service manager.  With $NOTIFY_SOCKET
# (systemd's Type=notify) it sends READY=1 once the store is open and
# the tables loaded -- a receiver checks, the moment READY=1 arrives,
# that the job is registered and ctab's socket answers -- and
# STOPPING=1 at SIGTERM; on an abstract socket ('@') and on a path, in
# the foreground and detached (with MAINPID); the variable never
# reaches a job.  With -f and $JOURNAL_STREAM naming its standard
# error, the daemon logs to syslog (facility cron, tag CRON) instead of
# standard error; naming another stream, it does not.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3

O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# The receivers go with the test, whatever happens.
notify_cleanup()
{
	_nrc=$?
	for _u in "$T"/*.up; do
		[ -f "$_u" ] && kill "$(cat "$_u")" 2>/dev/null
	done
	(exit $_nrc)
	dmn_cleanup
}
trap notify_cleanup EXIT

# A receiver of datagrams: recv.py ADDRESS OUT [PIDFILE CHECK...]
# binds ADDRESS (a path, or '@' and an abstract name), writes its pid
# to OUT.up once bound, and writes each datagram to OUT on one line,
# "MSG " then its lines joined by " | ".  On READY=1, with PIDFILE, it
# stops the daemon at once (SIGSTOP), runs CHECK and writes
# "CHECK <exit status>", then lets the daemon go on: CHECK sees the
# daemon as it was when it said it was ready.  It ends after
# STOPPING=1.
cat >"$T/recv.py" <<'EOF'
import os, signal, socket, subprocess, sys
addr, out = sys.argv[1], sys.argv[2]
pidfile, check = (sys.argv[3], sys.argv[4:]) if len(sys.argv) > 3 else \
    (None, None)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
with open(out + ".up", "w") as up:
    up.write("%d\n" % os.getpid())
with open(out, "a", buffering=1) as f:
    while True:
        lines = s.recv(65536).decode(errors="replace").split("\n")
        if "READY=1" in lines and pidfile:
            pid = int(open(pidfile).read())
            os.kill(pid, signal.SIGSTOP)
            rc = subprocess.call(check)
            os.kill(pid, signal.SIGCONT)
            f.write("CHECK %d\n" % rc)
        f.write("MSG " + " | ".join(lines) + "\n")
        if "STOPPING=1" in lines:
            break
EOF

# receive NAME ADDRESS [PIDFILE CHECK...]: a receiver in the
# background, up.
receive()
{
	_out=$T/$1.msgs
	_addr=$2
	shift 2
	python3 "$T/recv.py" "$_addr" "$_out" "$@" &
	wait_for 10 test -e "$_out.up" || fail "the receiver did not start"
}

# The check run at READY=1, the daemon stopped: its job is in the store
# with its next fire (the tables are loaded and registered), its log
# says it loaded the table, and ctab's socket is there.
cat >"$T/check" <<EOF
#!/bin/sh
"$CLUSTERCRON" jobs --json -c "\$1/clustercron.conf" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any("env >" in j["command"] and j["next"] for j in d) else 1)
' || exit 1
grep -q "LOAD (\$1/crontab)" "\$2" || exit 2
test -S "\$1/sock" || exit 3
exit 0
EOF
chmod 755 "$T/check"

# setup NAME: a daemon logging where it would without a log-file.
setup()
{
	dmn_setup "$1" </dev/null
	sed -i -e '/^log-file = /d' \
	    -e "s|^store = .*|store = sqlite:$T/$1.db|" \
	    "$T/$1/clustercron.conf"
	cat >"$T/$1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
*/2 * * * * * $ME env >$O/env.$1
EOF
}

has() { grep -q -- "$2" "$T/$1.msgs" 2>/dev/null; }

# ---- -f, an abstract socket.
setup f
receive f "@cctest-notify-$$" "$T/f/pid" "$T/check" "$T/f" "$T/f.log"
NOTIFY_SOCKET=@cctest-notify-$$ "$CLUSTERCRON" -f \
    -c "$T/f/clustercron.conf" 2>"$T/f.log" &
echo $! >"$T/f/pid.shell"
DAEMONS=f
wait_for 20 has f 'READY=1' || fail "-f: no READY=1"
wait_for 20 has f '^CHECK' || fail "-f: READY=1 not checked"
same "READY=1 once the job is registered, the table loaded, ctab's socket open" \
    "$(sed -n 's/^CHECK //p' "$T/f.msgs")" 0
run env CTAB_SOCKET="$T/f/sock" "$CTAB" -l
same "... and ctab answers" "$err" "no crontab for $ME"
contains "with a STATUS line" "$(cat "$T/f.msgs")" \
    '^MSG READY=1 \| STATUS=node f, 1 jobs, store sqlite'
wait_for 10 test -s "$O/env.f" || fail "-f: the job did not run"
same "NOTIFY_SOCKET does not reach a job" \
    "$(grep -c NOTIFY_SOCKET "$O/env.f")" 0
kill -TERM "$(cat "$T/f/pid.shell")"
wait_for 20 has f 'STOPPING=1' || fail "-f: no STOPPING=1 at SIGTERM"
wait_for 30 dmn_dead f || fail "-f: did not stop"
same "nothing more than READY and STOPPING" "$(grep -c '^MSG' "$T/f.msgs")" 2
contains "-f logs to standard error" "$(cat "$T/f.log")" \
    '^clustercron: \(CRON\) STARTUP'

# ---- detached, a socket path: READY=1 names the daemon's pid.
setup d
receive d "$T/notify.sock"
run env NOTIFY_SOCKET="$T/notify.sock" "$CLUSTERCRON" -c "$T/d/clustercron.conf"
same "detached with NOTIFY_SOCKET: exit 0" "$rc" 0
cp "$T/d/pid" "$T/d/pid.shell"
DAEMONS="f d"
wait_for 10 has d 'READY=1' || fail "detached: no READY=1"
contains "detached: READY=1 names the daemon's pid" "$(cat "$T/d.msgs")" \
    "^MSG READY=1 \\| .* \\| MAINPID=$(cat "$T/d/pid")\$"
dmn_stop d
wait_for 10 has d 'STOPPING=1' || fail "detached: no STOPPING=1"

# A value that is no socket name is said, and ignored.
setup bad
run env NOTIFY_SOCKET=relative/sock "$CLUSTERCRON" -c "$T/bad/clustercron.conf"
same "a bad NOTIFY_SOCKET: the start goes on" "$rc" 0
contains "... and says so" "$err" "^clustercron: NOTIFY_SOCKET: "
cp "$T/bad/pid" "$T/bad/pid.shell"
DAEMONS="f d bad"
dmn_stop bad

# ---- JOURNAL_STREAM.  Naming another stream: standard error it is.
setup j1
: >"$T/other"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/other") "$CLUSTERCRON" -f \
    -c "$T/j1/clustercron.conf" 2>"$T/j1.log" &
echo $! >"$T/j1/pid.shell"
DAEMONS="f d bad j1"
wait_for 20 in_log j1 'STARTUP' ||
    fail "JOURNAL_STREAM of another stream: not logged to standard error"
dmn_stop j1

# Naming standard error: to syslog, as a detached daemon.  /dev/log is
# replaced in a mount namespace of the daemon's own, where a receiver
# reads what it sends; without one (not root, no overlayfs) only the
# standard error's silence is checked, and that part is skipped.
setup j2
: >"$T/j2.log"
js=$(stat -c '%d:%i' "$T/j2.log")
mkdir "$T/dev.u" "$T/dev.w"
cat >"$T/ns" <<EOF
#!/bin/sh
if mount -t overlay overlay -o lowerdir=/dev,upperdir=$T/dev.u,workdir=$T/dev.w /dev 2>/dev/null; then
	(python3 "$T/recv.py" /dev/log "$T/syslog.msgs" &)
	i=0
	while [ ! -e "$T/syslog.msgs.up" ] && [ \$i -lt 100 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
fi
exec "\$@"
EOF
chmod 755 "$T/ns"
if unshare -m true 2>/dev/null; then
	JOURNAL_STREAM=$js unshare -m "$T/ns" "$CLUSTERCRON" -f \
	    -c "$T/j2/clustercron.conf" 2>>"$T/j2.log" &
else
	JOURNAL_STREAM=$js "$CLUSTERCRON" -f -c "$T/j2/clustercron.conf" \
	    2>>"$T/j2.log" &
fi
echo $! >"$T/j2/pid.shell"
DAEMONS="f d bad j1 j2"
wait_for 20 test -S "$T/j2/sock" || fail "JOURNAL_STREAM: did not start"
wait_for 10 test -s "$O/env.j2" || fail "JOURNAL_STREAM: the job did not run"
same "JOURNAL_STREAM naming standard error: no log line there" \
    "$(cat "$T/j2.log")" ""
if [ -e "$T/syslog.msgs.up" ]; then
	wait_for 10 grep -q STARTUP "$T/syslog.msgs" ||
	    fail "JOURNAL_STREAM: STARTUP not sent to syslog"
	contains "... but to syslog, facility cron, tag CRON" \
	    "$(cat "$T/syslog.msgs")" \
	    "^MSG <78>.* CRON\\[$(cat "$T/j2/pid")\\]: \\(CRON\\) STARTUP \\("
else
	skip_part "no mount namespace with /dev overlaid (not root, or no" \
	    "overlayfs): syslog's receiving end not checked"
fi
dmn_stop j2

finish
