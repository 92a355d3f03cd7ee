#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-down.sh: while the daemon is down, ctab -l still shows the
# caller's table, from the copy the daemon keeps on this machine, and
# says that it may be stale; every other verb fails with one line that
# says how to start the daemon.  The copies: one per user, theirs
# alone to read, in a directory nobody else may list or write; updated
# and removed with the table, on every node, and when a node comes back
# after the table went.  A daemon run by an ordinary user keeps that
# user's copy as their own file.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root, for two throwaway users"
needs useradd
needs setpriv

chmod 755 "$T"
for n in n1 n2; do
	dmn_setup $n </dev/null
done
dmn_start n1
dmn_start n2
unset VISUAL EDITOR

ua=cctw$$a
ub=cctw$$b
mkdir -p "$T/home"
cleanup_users() {
	for _p in "$T"/um.pid; do
		[ -f "$_p" ] && kill -9 "$(cat "$_p")" 2>/dev/null
	done
	shadow userdel "$ua" >/dev/null 2>&1
	shadow userdel "$ub" >/dev/null 2>&1
}
trap '_st=$?; cleanup_users; (exit $_st); dmn_cleanup' EXIT
for u in "$ua" "$ub"; do
	if ! shadow useradd -M -d "$T/home/$u" -s /bin/sh "$u"; then
		fail "useradd"
		finish
	fi
	mkdir -p "$T/home/$u"
	chown "$u" "$T/home/$u"
done
# as USER NODE CMD...: run CMD as USER, ctab talking to NODE.
as() {
	_u=$1 _n=$2
	shift 2
	setpriv --reuid="$_u" --regid="$_u" --init-groups \
	    env HOME="$T/home/$_u" CTAB_SOCKET="$T/$_n/sock" \
	    CTAB_COPY_DIR="$T/$_n/copies" "$@"
}
stale="ctab: clustercron is not running: this comes from the copy kept \
on this machine, which may be stale"
if [ -d /run/systemd/system ]; then
	how="systemctl start clustercron"
else
	how="/etc/init.d/clustercron start"
fi
# fails_down NAME: the last run failed with the one line saying how to
# start the daemon of node n1.
fails_down() {
	same "$1: exit 1" "$rc" 1
	same "... one line, how to start the daemon" "$err" \
	    "ctab: clustercron is not running (nothing answers at \
$T/n1/sock); start it with: $how"
}
# perms FILE: owner and mode.
perms() { stat -c '%U %a' "$1" 2>/dev/null; }

printf '0 0 1 1 * echo a1\n' >"$T/a1"
printf '0 0 1 1 * echo a2\n' >"$T/a2"
printf '0 0 1 1 * echo b1\n' >"$T/b1"
chmod 644 "$T/a1" "$T/a2" "$T/b1"

# Copies as tables are installed.
run as "$ua" n1 "$CTAB" "$T/a1"
same "a installs a table" "$rc" 0
wait_for 5 test -f "$T/n1/copies/$ua" || fail "n1 keeps a copy"
same "... the table's text" "$(cat "$T/n1/copies/$ua")" "$(cat "$T/a1")"
same "... a's alone to read" "$(perms "$T/n1/copies/$ua")" "$ua 400"
same "... in a directory of root's, that others may only pass through" \
    "$(perms "$T/n1/copies")" "root 711"
copy_is() { [ "$(cat "$1" 2>/dev/null)" = "$(cat "$2")" ]; }
wait_for 10 copy_is "$T/n2/copies/$ua" "$T/a1" ||
    fail "n2, on the same store, keeps its copy too"
run as "$ua" n1 "$CTAB" "$T/a2"
wait_for 5 copy_is "$T/n1/copies/$ua" "$T/a2" ||
    fail "a new table replaces the copy"
same "... still a's alone" "$(perms "$T/n1/copies/$ua")" "$ua 400"
wait_for 10 copy_is "$T/n2/copies/$ua" "$T/a2" || fail "... on n2 too"
run as "$ub" n1 "$CTAB" "$T/b1"
wait_for 5 test -f "$T/n1/copies/$ub" || fail "b's copy"

# Another user gets nothing from them.
run as "$ub" n1 cat "$T/n1/copies/$ua"
same "b cannot read a's copy" "$rc" 1
contains "... refused" "$err" "Permission denied"
run as "$ub" n1 ls "$T/n1/copies"
contains "b cannot list the copies" "$err" "Permission denied"
run as "$ub" n1 ln -s "$T/b1" "$T/n1/copies/x"
contains "b cannot put anything there" "$err" "Permission denied"
run as "$ua" n1 ls "$T/n1/copies"
contains "... nor can a" "$err" "Permission denied"

# The daemon stops.
dmn_stop n1
run as "$ua" n1 "$CTAB" -l
same "daemon down: -l exit 0" "$rc" 0
same "... the table, from the copy" "$out" "$(cat "$T/a2")"
same "... said to be possibly stale" "$err" "$stale"
run env CTAB_SOCKET="$T/n1/sock" CTAB_COPY_DIR="$T/n1/copies" \
    "$CTAB" -u "$ua" -l
same "... root may list a's copy" "$out" "$(cat "$T/a2")"
run as "$ub" n1 "$CTAB" -u "$ua" -l
same "... b may not" "$err" "must be privileged to use -u"
printf '#!/bin/sh\ntouch %s/edited\n' "$T" >"$T/ed"
chmod 755 "$T/ed"
EDITOR=$T/ed run as "$ua" n1 "$CTAB" -e
fails_down "daemon down: -e"
same "... before any edit" "$(ls "$T/edited" 2>/dev/null)" ""
run as "$ua" n1 "$CTAB" -r
fails_down "daemon down: -r"
run as "$ua" n1 "$CTAB" "$T/a1"
fails_down "daemon down: install a file"
printf '0 0 1 1 * echo stdin\n' >"$T/in"
run as "$ua" n1 "$CTAB" <"$T/in"
fails_down "daemon down: install the standard input"
run as "$ua" n1 "$CTAB" -l
same "... nothing changed meanwhile" "$out" "$(cat "$T/a2")"

# A daemon killed leaves its socket; nothing answers there either.
dmn_start n1
run as "$ua" n1 "$CTAB" -l
same "n1 back: -l from the daemon, quietly" "$err" ""
kill -9 "$(cat "$T/n1/pid.shell")"
wait_for 10 dmn_dead n1 || fail "n1 dies"
test -S "$T/n1/sock" || fail "a killed daemon leaves its socket"
run as "$ua" n1 "$CTAB" -l
same "... -l still shows the copy" "$out" "$(cat "$T/a2")"
same "... said to be possibly stale" "$err" "$stale"
run as "$ua" n1 "$CTAB" -r
fails_down "... -r fails the same way"

# Tables removed: the copies go, on every node; a node that was down
# meanwhile still shows its copy, stale, and drops it once back.
run as "$ub" n2 "$CTAB" -r
same "b removes the table through n2" "$rc" 0
wait_for 5 test ! -e "$T/n2/copies/$ub" || fail "n2 removes b's copy"
same "n1, down, still has b's copy" "$(cat "$T/n1/copies/$ub")" \
    "$(cat "$T/b1")"
run as "$ub" n1 "$CTAB" -l
same "... shown as possibly stale" "$err" "$stale"
dmn_start n1
wait_for 5 test ! -e "$T/n1/copies/$ub" ||
    fail "back up, n1 removes b's copy"
run as "$ub" n1 "$CTAB" -l
same "... and says so" "$err" "no crontab for $ub"
run as "$ua" n1 "$CTAB" -r
same "a removes the table" "$rc" 0
wait_for 5 test ! -e "$T/n1/copies/$ua" || fail "the copy goes"
wait_for 10 test ! -e "$T/n2/copies/$ua" || fail "... on n2 too"
dmn_stop n1
run as "$ua" n1 "$CTAB" -l
same "daemon down, no table: exit 1" "$rc" 1
same "... no crontab, from the copies, possibly stale" "$err" \
    "no crontab for $ua
$stale"
rm -rf "$T/n1/copies"
run as "$ua" n1 "$CTAB" -l
fails_down "daemon down, no copies at all: -l"

# A daemon of one user: the copy is the user's own file.
um=$T/home/$ua/.clustercron
mkdir -p -m 700 "$um"
chown "$ua" "$um"
cat >"$um/clustercron.conf" <<EOF
node = um
crontab =
crontab-dir =
spool-dir =
EOF
chown "$ua" "$um/clustercron.conf"
setpriv --reuid="$ua" --regid="$ua" --init-groups env HOME="$T/home/$ua" \
    "$CLUSTERCRON" -f >"$T/um.log" 2>&1 &
echo $! >"$T/um.pid"
wait_for 20 grep -q STARTUP "$T/um.log" || fail "a's own daemon starts"
umas() {
	setpriv --reuid="$ua" --regid="$ua" --init-groups \
	    env HOME="$T/home/$ua" CTAB_SOCKET="$um/clustercron.sock" \
	    CTAB_COPY_DIR="$um/tables" "$@"
}
run umas "$CTAB" "$T/a1"
same "user mode: install" "$rc" 0
wait_for 5 test -f "$um/tables/$ua" || fail "user mode: a copy"
same "... the user's own" "$(perms "$um/tables/$ua")" "$ua 400"
same "... in a directory of theirs" "$(perms "$um/tables")" "$ua 700"
kill "$(cat "$T/um.pid")"
wait_for 10 test ! -S "$um/clustercron.sock" || fail "a's daemon stops"
run umas "$CTAB" -l
same "user mode, daemon down: -l shows the copy" "$out" "$(cat "$T/a1")"
same "... said to be possibly stale" "$err" "$stale"
finish
