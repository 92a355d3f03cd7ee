#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# usermode.sh: a daemon started by an ordinary user runs that user's
# entries and tables only, with defaults under ~/.clustercron.  Run as
# root, the test makes a throwaway user and starts the daemon as that
# user with runuser(1); run by an ordinary user, it is that user.

. "$top_srcdir/tests/daemon/lib.sh"

O=$T/jobs
mkdir -p "$O" "$T/home"
chmod 777 "$O"
if [ "$(id -u)" -eq 0 ]; then
	needs useradd
	needs runuser
	U=ccu$$
	dmn_useradd "$U" "$T/home/$U"
	AS="runuser -u $U --"
	H=$T/home/$U
	OTHER=root
else
	U=$ME
	AS=
	H=$HOME
	OTHER=root
	[ -e "$H/.clustercron" ] &&
	    skip "$H/.clustercron exists: not touching it"
	trap 'rc=$?; rm -rf "$H/.clustercron"; dmn_cleanup; exit $rc' EXIT
fi

# The daemon's defaults, with tables in $T.
dmn_setup a </dev/null
sed -i -e '/^store = /d' -e '/^pidfile = /d' -e '/^reboot-file = /d' \
    "$T/a/clustercron.conf"
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $U id -u >$O/mine.tmp && mv $O/mine.tmp $O/mine
* * * * * * $OTHER touch $O/other
EOF
[ -n "$AS" ] && chown -R "$U" "$T/a"
DAEMONS=a
: >"$T/a.log"
chmod 666 "$T/a.log"
$AS "$CLUSTERCRON" -f -c "$T/a/clustercron.conf" >>"$T/a.log" 2>&1 &
echo $! >"$T/a/pid.shell"
wait_for 20 in_log a STARTUP || fail "did not start"
contains "user mode said" "$(cat "$T/a.log")" \
    "not root: running the tables of $U only"
wait_for 10 test -s "$O/mine" || fail "the user's entry did not run"
same "runs as the user" "$(cat "$O/mine")" "$(id -u "$U")"
test -f "$O/other" && fail "another user's entry ran"
test -f "$H/.clustercron/clustercron.db" ||
    fail "no store under ~/.clustercron"
test -f "$H/.clustercron/clustercron.pid" ||
    fail "no pid file under ~/.clustercron"
cp "$T/a/pid.shell" "$T/a/pid"
dmn_stop a

finish
