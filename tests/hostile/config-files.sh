#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# config-files.sh: the files that tell the daemon where its store is and
# what to run as root must be root's (or the daemon's user's) alone to
# change.  clustercron.conf owned by a throwaway user is refused at
# start, naming the file and its owner.  A MySQL option file that
# !includes a file the user owns, or one the user may write, or one
# holding a password that the user may read, is refused before any
# connection: the daemon logs STORE DOWN naming the file and what is
# wrong, and the admin verbs refuse alike.  No server is needed: nothing
# is connected to.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make a throwaway user"
U=cccf$$
dmn_useradd "$U" "$T/home/$U"
uid=$(id -u "$U")

# ---- clustercron.conf
dmn_setup a </dev/null
CONF=$T/a/clustercron.conf
chown "$U" "$CONF"
run "$CLUSTERCRON" -c "$CONF"
same "a configuration the user owns: the start fails" "$rc" 1
same "... naming the file and its owner" "$err" \
    "clustercron: $CONF: owned by uid $uid, neither root nor the running user"
run "$CLUSTERCRON" status -c "$CONF"
same "... and the admin verbs refuse it too" "$err" \
    "clustercron: $CONF: owned by uid $uid, neither root nor the running user"
chown root "$CONF"
chmod 664 "$CONF"
run "$CLUSTERCRON" -c "$CONF"
contains "a configuration writable by its group: refused" "$err" \
    "^clustercron: $CONF: writable by group or others \\(mode 0664\\)\$"
chmod 644 "$CONF"

# ---- the MySQL option file and what it includes
mkdir -m 755 "$T/my"
printf '[client]\nuser = cc\n!include %s\n' "$T/my/inc.cnf" >"$T/my/my.cnf"
printf '[client]\nsocket = %s\n' "$T/nosuch.sock" >"$T/my/inc.cnf"
chmod 600 "$T/my/my.cnf"
chmod 644 "$T/my/inc.cnf"
chown "$U" "$T/my/inc.cnf"
sed -i "s|^store = .*|store = mysql:///cc|" "$CONF"
echo "mysql-defaults-file = $T/my/my.cnf" >>"$CONF"
dmn_start a
wait_for 10 in_log a 'STORE DOWN' || fail "no STORE DOWN"
contains "an included file the user owns: refused before connecting" \
    "$(cat "$T/a.log")" \
    "\\(CRON\\) STORE DOWN \\(option file $T/my/inc.cnf \\(included from $T/my/my.cnf\\): owned by uid $uid, neither root nor the daemon's user; running no cluster job\\)"
run "$CLUSTERCRON" status -c "$CONF"
same "... the admin verbs refuse it" "$rc" 1
contains "... saying why" "$err" \
    "status: store mysql:///cc: option file $T/my/inc.cnf \\(included from $T/my/my.cnf\\): owned by uid $uid"
dmn_stop a

chown root "$T/my/inc.cnf"
chmod 666 "$T/my/inc.cnf"
run "$CLUSTERCRON" status -c "$CONF"
contains "an included file others may write: refused" "$err" \
    "option file $T/my/inc.cnf \\(included from $T/my/my.cnf\\): writable by group or others \\(mode 0666\\)"
chmod 644 "$T/my/inc.cnf"
printf 'password = hunter2\n' >>"$T/my/inc.cnf"
run "$CLUSTERCRON" status -c "$CONF"
contains "an included file with a password others may read: refused" \
    "$err" "option file $T/my/inc.cnf \\(included from $T/my/my.cnf\\): holds a password but is readable by group or others \\(mode 0644\\); chmod 600 it"
case $err in
*hunter2*) fail "... the password in the message" ;;
esac
chmod 600 "$T/my/inc.cnf"
run "$CLUSTERCRON" status -c "$CONF"
contains "made private: the client tries to connect" "$err" \
    "status: store mysql:///cc: cannot connect"
finish
