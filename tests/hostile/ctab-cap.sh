#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-cap.sh: a uid may have 8 connections open to ctab's socket at
# once (issue 12, point 1).  A hostile user holds 8 idle ones: their
# next connection, ctab -l, is refused at once with a message naming
# the cause, and the log tells the administrator who hit the limit;
# another user's ctab gets through meanwhile.  Once the hostile user
# lets go, they get in again.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs runuser
needs setpriv
H=cccp$$
G=cccq$$
dmn_useradd "$H" "$T/home/$H"
dmn_useradd "$G" "$T/home/$G"
HOG=$top_builddir/tests/hostile/cchog
# The hog is the test's child, run as $H: killed by pid on the way out.
trap 'rc=$?; [ -f "$T/hog.pid" ] && kill "$(cat "$T/hog.pid")" 2>/dev/null;
    (exit $rc); dmn_cleanup' EXIT

dmn_setup a </dev/null
dmn_start a
SOCK=$T/a/sock
as() { _u=$1; shift; runuser -u "$_u" -- env CTAB_SOCKET="$SOCK" "$@"; }
mkdir -m 777 "$T/hog"

# field NAME: a number of the hog's status line.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$T/hog/st"; }
all_connected() { [ -f "$T/hog/st" ] && [ "$(field connected)" -eq 8 ]; }

setpriv --reuid="$H" --regid="$H" --clear-groups "$HOG" "$SOCK" 8 "$T/hog/st" &
echo $! >"$T/hog.pid"
wait_for 20 all_connected || fail "the hog did not connect 8 times: $(cat "$T/hog/st")"

run as "$H" "$CTAB" -l
same "$H's ninth connection is refused" "$rc" 1
contains "... at once, naming the cause" "$err" \
    "^ctab: you have 8 connections open to the clustercron daemon, the most one user may; try again when one is done$"
run as "$G" "$CTAB" -l
same "another user gets through meanwhile" "$rc:$err" "1:no crontab for $G"
same "... while $H's 8 are open still" "$(field open) $(field dropped)" "8 0"
contains "the log names who hit the limit" "$(cat "$T/a.log")" \
    "\\($H\\) LIMIT \\(ctab connection refused: 8 open by uid $(id -u "$H"), the most one user may have\\)"

kill "$(cat "$T/hog.pid")"
wait "$(cat "$T/hog.pid")"
rm -f "$T/hog.pid"
h_in() { as "$H" "$CTAB" -l 2>&1 | grep -q "no crontab for $H"; }
wait_for 10 h_in || fail "$H does not get in once the hog let go"
finish
