#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# admin-user.sh: the admin verbs of an ordinary user find that user's
# daemon without -c, as the daemon finds its own configuration:
# ~/.clustercron/clustercron.conf, and the store ~/.clustercron/
# clustercron.db by default.  Run as root, the test makes a throwaway
# user and runs as that user with runuser(1); run by an ordinary user,
# it is that user, and leaves a ~/.clustercron that exists alone.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3

O=$T/jobs
mkdir -p "$O" "$T/home"
chmod 777 "$O"
chmod 755 "$T"
if [ "$(id -u)" -eq 0 ]; then
	needs useradd
	needs runuser
	U=cca$$
	dmn_useradd "$U" "$T/home/$U"
	AS="runuser -u $U --"
	H=$T/home/$U
else
	U=$ME
	AS=
	H=$HOME
	[ -e "$H/.clustercron" ] &&
	    skip "$H/.clustercron exists: not touching it"
	trap 'rc=$?; rm -rf "$H/.clustercron"; dmn_cleanup; exit $rc' EXIT
fi

# The user's own configuration, in the default place; no store, pid
# file or socket key: their defaults are under ~/.clustercron too.
dmn_setup a </dev/null
mkdir -p -m 700 "$H/.clustercron"
sed -e '/^store = /d' -e '/^pidfile = /d' -e '/^reboot-file = /d' \
    -e '/^ctab-socket = /d' "$T/a/clustercron.conf" \
    >"$H/.clustercron/clustercron.conf"
cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_NAME=mine
* * * * * * $U echo mine >>$O/mine
EOF
[ -n "$AS" ] && chown -R "$U" "$T/a" "$H/.clustercron"

run $AS "$CLUSTERCRON" status
same "no daemon yet: no store" "$rc" 1
contains "no store: where it looked" "$err" \
    "status: no store at $H/.clustercron/clustercron.db"

DAEMONS=a
: >"$T/a.log"
chmod 666 "$T/a.log"
$AS "$CLUSTERCRON" -f >>"$T/a.log" 2>&1 &
echo $! >"$T/a/pid.shell"
wait_for 20 in_log a STARTUP || fail "did not start"
wait_for 20 at_least 2 "$O/mine" || fail "the user's job does not run"

run $AS "$CLUSTERCRON" jobs --json
same "jobs without -c exits 0" "$rc" 0
same "jobs without -c: the user's job" "$(printf '%s' "$out" |
    python3 -c 'import json, sys
d = json.load(sys.stdin)
print(len(d), d[0]["name"], d[0]["owner"] == sys.argv[1])' "$U")" \
    "1 mine True"
run $AS "$CLUSTERCRON" status
contains "status without -c: the user's node" "$out" '^a +active '
# (The newest run of an every-second job may be in flight.)
run $AS "$CLUSTERCRON" history -n 1 mine
contains "history without -c: by name" "$out" ' (finished +exit 0|running +-) +echo mine .* +-$'
id=$(printf '%s' "$out" | grep -oE '^[0-9a-f]{12} ' | tr -d ' ')
run $AS "$CLUSTERCRON" pause mine
same "pause without -c" "$out" "job $id (mine): paused"
run $AS "$CLUSTERCRON" resume mine
same "resume without -c" "$rc" 0

cp "$T/a/pid.shell" "$T/a/pid"
dmn_stop a
finish
