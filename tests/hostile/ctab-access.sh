#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-access.sh: who may use ctab, and the table of a user who is gone.
# cron.allow and cron.deny fail closed, as Debian's crontab reads them:
# a file that exists but cannot be read (a directory, a loop of links)
# or is no list of names (a NUL byte) shuts out everyone but root, and
# the daemon's log says which file and why; only a file that does not
# exist (a dangling link too) opens the door.  Then a user installs a
# table and is deleted: root can still list and remove that table (it
# would otherwise stay in the store, its jobs failing on every node),
# though not edit it, and nobody else can touch it.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
U=ccca$$
G=cccg$$
dmn_useradd "$U" "$T/home/$U"
needs userdel
useradd -M -d "$T/home/$G" -s /bin/sh -U "$G" >/dev/null 2>&1 ||
    skip "useradd $G failed"
gone_cleanup()
{
	pkill -9 -u "$G" 2>/dev/null
	userdel "$G" >/dev/null 2>&1
}
trap 'rc=$?; gone_cleanup; exit $rc' INT TERM HUP
trap 'rc=$?; gone_cleanup; (exit $rc); dmn_cleanup' EXIT
mkdir -p "$T/home/$G" && chown "$G:" "$T/home/$G"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

dmn_setup a <<EOF
cron-allow = $T/etc/cron.allow
cron-deny = $T/etc/cron.deny
EOF
mkdir -m 755 "$T/etc"
dmn_start a
export CTAB_SOCKET="$T/a/sock"
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$CTAB_SOCKET" "$@"; }
cat >"$T/tab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * date >>$O/\$LOGNAME
EOF
chmod 644 "$T/tab"

# refused WHAT: $U may not use ctab, and the log says why.
refused()
{
	run as "$U" "$CTAB" -l
	same "$1: $U is refused" "$rc" 1
	contains "$1: in crontab's words" "$err" \
	    "You \\($U\\) are not allowed to use this program \\(ctab\\)"
	contains "$1: the log names the file and why" "$(cat "$T/a.log")" \
	    "\\(CRON\\) ERROR \\($2: everyone but root is refused the use of crontab\\)"
	run "$CTAB" -l
	same "$1: root still may" "$err" "no crontab for root"
}

run as "$U" "$CTAB" "$T/tab"
same "neither file: $U may install a table" "$rc$err" 0

mkdir "$T/etc/cron.allow"
refused "cron.allow a directory" "$T/etc/cron.allow: Is a directory"
rmdir "$T/etc/cron.allow"

ln -s "$T/etc/cron.deny" "$T/etc/cron.deny"
refused "cron.deny a loop of links" \
    "$T/etc/cron.deny: Too many levels of symbolic links"
rm "$T/etc/cron.deny"

printf '%s\n\000\n' "$U" >"$T/etc/cron.allow"
refused "cron.allow with a NUL byte, though it names $U" \
    "$T/etc/cron.allow: holds a NUL byte: not a list of user names"
rm "$T/etc/cron.allow"

ln -s "$T/etc/nowhere" "$T/etc/cron.allow"
run as "$U" "$CTAB" -l
same "a dangling link does not exist: $U may" "$rc" 0
rm "$T/etc/cron.allow"

# ---- the table of a user who is gone
run as "$G" "$CTAB" "$T/tab"
same "$G installs a table" "$rc$err" 0
wait_for 10 test -s "$O/$G" || fail "$G's job does not run"
pkill -9 -u "$G" 2>/dev/null
wait_for 10 sh -c "! pgrep -u $G" || fail "$G's jobs do not end"
userdel "$G" || fail "userdel $G"

run as "$U" "$CTAB" -u "$G" -l
same "another user names $G: refused" "$rc" 1
same "... as crontab says it" "$err" "ctab:  user \`$G' unknown"
run "$CTAB" -u "$G" -e
same "root may not edit the table of a user who is gone" "$rc" 1
same "... said" "$err" "ctab:  user \`$G' unknown"
run "$CTAB" -u "$G" -l
same "root lists it" "$rc" 0
same "... as it was stored" "$out" "$(cat "$T/tab")"
has_job() { ccs jobs | awk -v u="$G" '$2 == u { f = 1 } END { exit !f }'; }
has_job || fail "setup: $G has no job in the store"
run "$CTAB" -u "$G" -r
same "root removes it" "$rc$err" 0
run "$CTAB" -u "$G" -l
same "... it is gone: the user is unknown again, as to crontab" "$rc:$err" \
    "1:ctab:  user \`$G' unknown"
wait_for 10 eval '! has_job' || fail "$G's jobs stay in the store"
contains "the log says who removed it" "$(cat "$T/a.log")" \
    "\\(root\\) DELETE \\($G\\)"
finish
