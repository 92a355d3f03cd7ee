#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-cluster.sh: a table installed through one node's daemon is the
# table of every node: two daemons on one private MariaDB.  The other
# node picks it up without a restart (it looks every second; the wait is
# bounded well above that, as the machine may be busy); ctab -l on
# either shows it; an edit made against a table another node changed
# meanwhile is refused; a node that was down comes back to the newer
# table, never the old.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster
for n in n1 n2; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
store-tables-interval = 1s
EOF
done
dmn_start n1
dmn_start n2
unset VISUAL EDITOR

# table VERSION: a node-local job stamping which version each node runs.
table() {
	printf 'CLUSTERCRON_SECONDS=yes\nMAILTO=""\nCLUSTERCRON_SCOPE=node\n'
	printf '* * * * * * echo %s >>%s/ran.$CLUSTERCRON_NODE\n' "$1" "$O"
}
# runs NODE VERSION: NODE has run VERSION of the table.
runs_version() { grep -qx "$2" "$O/ran.$1" 2>/dev/null; }

table v1 >"$T/v1"
CTAB_SOCKET=$T/n1/sock run "$CTAB" "$T/v1"
same "install through n1" "$rc" 0
loaded() { in_log n2 "LOAD \\(store:$ME\\)"; }
wait_for 20 loaded || fail "n2 loads the table"
wait_for 10 runs_version n2 v1 || fail "n2 runs it"
wait_for 10 runs_version n1 v1 || fail "n1 runs it"
CTAB_SOCKET=$T/n2/sock run "$CTAB" -l
same "ctab -l on n2 shows it" "$out" "$(cat "$T/v1")"

# An edit through n1 while n2 installs another table: the edit loses.
printf '#!/bin/sh\n"%s" -u "%s" "%s"\necho "# mine" >>"$1"\n' \
    "$CTAB" "$ME" "$T/v2" >"$T/ed-race"
chmod 755 "$T/ed-race"
table v2 >"$T/v2"
CTAB_SOCKET=$T/n1/sock EDITOR="env CTAB_SOCKET=$T/n2/sock $T/ed-race" \
    run "$CTAB" -e
same "an edit racing another node's install: exit 1" "$rc" 1
contains "... told so" "$err" "changed by someone else"
rm -rf "$(dirname "$(printf '%s\n' "$err" | sed -n 's/^ctab: edits left in //p')")"
CTAB_SOCKET=$T/n1/sock run "$CTAB" -l
same "... the other node's table stands" "$out" "$(cat "$T/v2")"

# n2 is down while v3 is installed; back, it runs v3 and never v2 again.
dmn_stop n2
table v3 >"$T/v3"
CTAB_SOCKET=$T/n1/sock run "$CTAB" "$T/v3"
same "install while n2 is down" "$rc" 0
: >"$O/ran.n2"
dmn_start n2
wait_for 10 runs_version n2 v3 || fail "n2, back, runs the newer table"
CTAB_SOCKET=$T/n2/sock run "$CTAB" -l
same "... and lists it" "$out" "$(cat "$T/v3")"
runs_version n2 v2 && fail "n2 ran the older table after coming back"
runs_version n2 v1 && fail "n2 ran the oldest table after coming back"

CTAB_SOCKET=$T/n2/sock run "$CTAB" -r
same "remove through n2" "$rc" 0
CTAB_SOCKET=$T/n1/sock run "$CTAB" -l
same "... gone on n1 too" "$err" "no crontab for $ME"
dmn_stop n1
dmn_stop n2
finish
