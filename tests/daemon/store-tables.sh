#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# store-tables.sh: the tables ctab keeps in the store run like spool
# tables (user format, owner from the store), and a changed stored
# table is picked up within seconds without a signal; ctab itself
# installs a table through the daemon's socket.

. "$top_srcdir/tests/daemon/lib.sh"

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"

dmn_start a
cat >"$T/tab1" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo "\$LOGNAME" >$O/stored.tmp && mv $O/stored.tmp $O/stored
EOF
"$CCSTORE" "sqlite:$T/cc.db" put "$ME" "$T/tab1" || fail "cannot store a table"
wait_for 5 test -s "$O/stored" || fail "stored table not picked up in 5 s"
same "stored table runs as its owner" "$(cat "$O/stored")" "$ME"
contains "stored table logged" "$(cat "$T/a.log")" "LOAD \(store:$ME\)"

cat >"$T/tab2" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * touch $O/stored2
EOF
"$CCSTORE" "sqlite:$T/cc.db" put "$ME" "$T/tab2" || fail "cannot store a table"
wait_for 5 test -f "$O/stored2" || fail "changed stored table not picked up"
contains "reload logged" "$(cat "$T/a.log")" "RELOAD \(store:$ME\)"

# ctab installs through the daemon's socket; the table runs at once.
cat >"$T/tab3" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * touch $O/by-ctab
EOF
run env CTAB_SOCKET="$T/a/sock" "$CTAB" "$T/tab3"
same "ctab installs through the daemon" "$rc" 0
wait_for 5 test -f "$O/by-ctab" || fail "table from ctab did not run"
run env CTAB_SOCKET="$T/a/sock" "$CTAB" -l
contains "ctab -l shows it" "$out" "by-ctab"
contains "REPLACE logged" "$(cat "$T/a.log")" \
    "\($ME\) REPLACE \(stored table, by ctab\)"
dmn_stop a

finish
