#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# users.sh: a daemon run by root runs each table as its owner: a spool
# table as the user it is named after (and only when that user owns
# the file), a system table's entry as its user field; the job has the
# user's ids, groups, HOME, LOGNAME and USER.  Needs root to create a
# throwaway user; skipped otherwise (an error in CI).

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] ||
    skip "not root: user switching is not tested (needs useradd)"
needs useradd
needs userdel

U=cct$$
mkdir -p "$T/home"
dmn_useradd "$U" "$T/home/$U"
uid=$(id -u "$U")

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"

cat >"$T/a/spool/$U" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo "\$(id -u) \$(id -g) \$(id -G) \$HOME \$LOGNAME \$USER \$(pwd)" >$O/spool.tmp && mv $O/spool.tmp $O/spool
EOF
chown "$U" "$T/a/spool/$U"
chmod 600 "$T/a/spool/$U"
cat >"$T/a/cron.d/sys" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $U id -u >$O/sys.tmp && mv $O/sys.tmp $O/sys
* * * * * * root id -u >$O/root.tmp && mv $O/root.tmp $O/root
EOF
# A spool table named after root but owned by the user: refused.
cat >"$T/a/spool/root" <<EOF
CLUSTERCRON_SECONDS=yes
* * * * * * touch $O/wrong-owner
EOF
chown "$U" "$T/a/spool/root"
chmod 600 "$T/a/spool/root"

dmn_start a
wait_for 10 test -s "$O/spool" || fail "user's spool table did not run"
gid=$(id -g "$U")
same "spool job: ids, groups, HOME, LOGNAME, USER, directory" \
    "$(cat "$O/spool")" "$uid $gid $gid $T/home/$U $U $U $T/home/$U"
wait_for 10 test -s "$O/sys" || fail "system entry for the user did not run"
same "system entry runs as its user" "$(cat "$O/sys")" "$uid"
wait_for 10 test -s "$O/root" || fail "system entry for root did not run"
same "system entry runs as root" "$(cat "$O/root")" 0
contains "wrong owner refused" "$(cat "$T/a.log")" \
    "\(root\) WRONG FILE OWNER \($T/a/spool/root\)"
test -f "$O/wrong-owner" && fail "a table with the wrong owner ran"
dmn_stop a

finish
