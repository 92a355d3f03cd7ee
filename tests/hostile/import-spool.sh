#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# import-spool.sh: debian/import-spool moves the users' tables of cron's
# spool into the store, where every node runs them; it must refuse what
# the daemon's spool scanner refuses (tables.c, as cron checks): a file
# writable by its group or by others (anyone could have put lines in
# it), one not owned by the uid of the user it is named after, and
# also a file with other links.  Refused files stay in the spool, where
# the daemon goes on judging them as cron does, and nothing of theirs
# reaches the store.  A good table beside them is imported.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
for n in 1 2 3 4 5; do
	dmn_useradd "ccis$n$$" "$T/home/ccis$n$$"
done
U1=ccis1$$ U2=ccis2$$ U3=ccis3$$ U4=ccis4$$ U5=ccis5$$

dmn_setup a </dev/null
S=$T/a/spool
chmod 755 "$S"
for u in $U1 $U2 $U3 $U4 $U5; do
	printf 'MAILTO=""\n0 0 1 1 * echo from the spool of %s\n' "$u" >"$S/$u"
	chown "$u" "$S/$u"
	chmod 600 "$S/$u"
done
chmod 620 "$S/$U2"
chmod 602 "$S/$U3"
chown "$U1" "$S/$U4"
ln "$S/$U5" "$T/a/elsewhere"
dmn_start a
export CTAB_SOCKET="$T/a/sock"

run env CTAB="$CTAB" sh "$top_srcdir/debian/import-spool" "$S" "$T/saved"
same "import-spool: exit 0" "$rc" 0
said=$err
contains "the good table is imported" "$out" \
    "^clustercron-import-spool: imported the table of $U1\$"
contains "... and the count says what was left" "$out" \
    "^clustercron-import-spool: 1 imported, 4 left in $S\$"
run "$CTAB" -u "$U1" -l
same "... it is in the store" "$rc" 0
test -e "$S/$U1" && fail "... and still in the spool"
contains "group-writable: left, saying why" "$said" \
    "^clustercron-import-spool: $S/$U2: writable by group or others \\(mode 620\\), which the daemon refuses: left in place\$"
contains "others-writable: left, saying why" "$said" \
    "^clustercron-import-spool: $S/$U3: writable by group or others \\(mode 602\\)"
contains "owned by another user: left" "$said" \
    "^clustercron-import-spool: $S/$U4: not owned by $U4 or linked elsewhere: left in place\$"
contains "linked elsewhere: left" "$said" \
    "^clustercron-import-spool: $S/$U5: not owned by $U5 or linked elsewhere"
for u in $U2 $U3 $U4 $U5; do
	test -e "$S/$u" || fail "$u's file is gone from the spool"
	run "$CTAB" -u "$u" -l
	same "$u: nothing in the store" "$rc:$err" "1:no crontab for $u"
done
# The daemon judges the refused files as cron does.
contains "the daemon refuses the group-writable file too" \
    "$(cat "$T/a.log")" "\\($U2\\) BAD FILE MODE \\($S/$U2\\)"
contains "... and the one of another owner" "$(cat "$T/a.log")" \
    "\\($U4\\) WRONG FILE OWNER \\($S/$U4\\)"
finish
