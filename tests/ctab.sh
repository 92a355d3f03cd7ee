#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab.sh: ctab as a user runs it, against a running daemon on the
# embedded SQLite store: every verb, every error path, the editor (a
# script, then vi in a real terminal), the allow and deny files, and,
# as root, two users kept apart by the daemon, not by ctab.

. "$top_srcdir/tests/daemon/lib.sh"

dmn_setup n1 <<EOF
cron-allow = $T/cron.allow
cron-deny = $T/cron.deny
EOF
dmn_start n1
CTAB_SOCKET=$T/n1/sock
export CTAB_SOCKET
unset VISUAL EDITOR
O=$T/jobs
mkdir -p "$O"
chmod 1777 "$O"

run "$CTAB" -l
same "-l with no table: exit 1" "$rc" 1
same "... says so as crontab does" "$err" "no crontab for $ME"

cat >"$T/t1" <<EOF
# my table
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * echo ran >>$O/t1
EOF
run "$CTAB" "$T/t1"
same "install a table: exit 0" "$rc" 0
same "... quietly" "$err" ""
run "$CTAB" -l
same "-l shows it exactly" "$out" "$(cat "$T/t1")"
wait_for 10 at_least 1 "$O/t1" || fail "the daemon runs the installed table"
"$CTAB" -l | "$CTAB" -
run "$CTAB" -l
same "a listed table fed back is unchanged" "$out" "$(cat "$T/t1")"

printf '* * * * * fine\n61 * * * * bad\n0 0 * * 9 worse\n' >"$T/bad"
run "$CTAB" "$T/bad"
same "a table with errors: exit 1" "$rc" 1
contains "... line 2 named" "$err" "^ctab: $T/bad:2:1: "
contains "... line 3 named" "$err" "^ctab: $T/bad:3:9: "
contains "... not installed, as crontab words it" "$err" \
    "^errors in crontab file, can't install\\.$"
run "$CTAB" -l
same "... the installed table is untouched" "$out" "$(cat "$T/t1")"

head -c 1100000 /dev/zero | tr '\0' '#' >"$T/huge"
run "$CTAB" "$T/huge"
same "a table over 1 MiB: exit 1" "$rc" 1
contains "... said" "$err" "larger than"
run "$CTAB" "$T/absent"
contains "a missing file is named" "$err" "^$T/absent: No such file"

printf '0 5 * * * from stdin\n' | "$CTAB" -
run "$CTAB" -l
same "install from standard input" "$out" "0 5 * * * from stdin"

# -e with editors that are scripts, so that every path is reached.
printf '#!/bin/sh\necho "0 6 * * * appended" >>"$1"\n' >"$T/ed-append"
printf '#!/bin/sh\necho "99 * * * * broken" >>"$1"\n' >"$T/ed-break"
# Someone else installs a table while this edit is open.
printf '#!/bin/sh\nprintf "0 7 * * * elsewhere\\n" | "%s" -\necho "0 8 * * * mine" >>"$1"\n' \
    "$CTAB" >"$T/ed-race"
# The second run of this editor mends what the first broke.
printf '#!/bin/sh\nif grep -q broken "$1"; then sed -i "s/^99 /9 /" "$1"; else echo "99 * * * * broken" >>"$1"; fi\n' \
    >"$T/ed-mend"
chmod 755 "$T"/ed-*

EDITOR=true run "$CTAB" -e
same "-e unchanged: exit 0" "$rc" 0
same "... as crontab says it" "$err" "No modification made"

EDITOR="$T/ed-append" run "$CTAB" -e
same "-e with a change: exit 0" "$rc" 0
contains "... installing" "$err" "^ctab: installing new crontab$"
run "$CTAB" -l
same "... installed" "$out" "0 5 * * * from stdin
0 6 * * * appended"

VISUAL="$T/ed-break" EDITOR=false run "$CTAB" -e </dev/null
same "-e with an error, retry declined: exit 0, as crontab" "$rc" 0
contains "... VISUAL before EDITOR; the error listed" "$err" \
    ':3:1: found 99 in the minute field'
same "... the question crontab asks, on the standard output" "$out" \
    'Do you want to retry the same edit? (y/n) '
contains "... the edits kept and named" "$err" '^ctab: edits left in /'
copy=$(printf '%s\n' "$err" | sed -n 's/^ctab: edits left in //p')
contains "... the copy holds them" "$(cat "$copy")" '^99 \* \* \* \* broken$'
rm -rf "$(dirname "$copy")"
run "$CTAB" -l
same "... the installed table untouched" "$out" "0 5 * * * from stdin
0 6 * * * appended"

echo y >"$T/yes"
EDITOR="$T/ed-mend" run "$CTAB" -e <"$T/yes"
same "-e retried and mended: exit 0" "$rc" 0
run "$CTAB" -l
contains "... the mended line installed" "$out" '^9 \* \* \* \* broken$'

EDITOR="$T/ed-race" run "$CTAB" -e
same "-e racing another install: exit 1" "$rc" 1
contains "... told of the change" "$err" "changed by someone else"
contains "... the edits kept" "$err" '^ctab: edits left in /'
rm -rf "$(dirname "$(printf '%s\n' "$err" | sed -n 's/^ctab: edits left in //p')")"
run "$CTAB" -l
same "... the other install stands" "$out" "0 7 * * * elsewhere"

echo n >"$T/no"
run "$CTAB" -r -i <"$T/no"
same "-r -i asks on the standard output" "$out" \
    "ctab: really delete $ME's crontab? (y/n) "
run "$CTAB" -l
same "... and n keeps it" "$rc" 0
run "$CTAB" -r -i <"$T/yes"
same "... and y removes it: exit 0" "$rc" 0
run "$CTAB" -l
same "... gone" "$err" "no crontab for $ME"
run "$CTAB" -r
same "-r with no table: exit 1" "$rc" 1
same "... says so" "$err" "no crontab for $ME"

run "$CTAB" -i
contains "-i alone is a usage error" "$err" \
    "^ctab: usage error: file name must be specified for replace$"
CTAB_SOCKET=$T/nowhere run "$CTAB" -r
same "no daemon: exit 1" "$rc" 1
contains "... said" "$err" \
    "^ctab: clustercron is not running \\(nothing answers at $T/nowhere\\)"

# vi in a real terminal, driven as a person would.
if command -v tmux >/dev/null 2>&1 && command -v vi >/dev/null 2>&1; then
	printf '0 1 * * * before vi\n' | "$CTAB" -
	tm() { tmux -L "cctest$$" "$@"; }
	tm new-session -d -x 100 -y 30 \
	    "CTAB_SOCKET=$CTAB_SOCKET EDITOR=vi $CTAB -e; echo \$? >$T/vi.rc"
	vi_shows() { tm capture-pane -p | grep -q 'before vi'; }
	wait_for 10 vi_shows || fail "vi shows the table"
	tm send-keys 'G' 'o' '0 2 * * * typed in vi' Escape
	tm send-keys ':wq' Enter
	wait_for 10 test -s "$T/vi.rc" || fail "ctab -e returns after vi"
	tm kill-server 2>/dev/null
	same "vi: exit 0" "$(cat "$T/vi.rc" 2>/dev/null)" 0
	run "$CTAB" -l
	same "vi: the typed line installed" "$out" "0 1 * * * before vi
0 2 * * * typed in vi"
else
	skip_part "no tmux or vi for the terminal test"
fi

if [ "$(id -u)" -ne 0 ]; then
	run "$CTAB" -u root -l
	contains "-u is for root" "$err" "^must be privileged to use -u$"
	skip_part "not root, so no second user to keep apart"
	finish
fi

# As root: two throwaway users, kept apart by the daemon.
ua=cctab$$a
ub=cctab$$b
cleanup_users() {
	shadow userdel -r "$ua" >/dev/null 2>&1
	shadow userdel -r "$ub" >/dev/null 2>&1
}
# dmn_cleanup reads the exit status first: hand it on.
trap '_st=$?; cleanup_users; (exit $_st); dmn_cleanup' EXIT
if ! shadow useradd -m "$ua" || ! shadow useradd -m "$ub"; then
	fail "useradd"
	finish
fi
as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --init-groups \
	    env CTAB_SOCKET="$CTAB_SOCKET" "$@"
}

printf 'CLUSTERCRON_SECONDS=yes\nMAILTO=""\n* * * * * * id -un >%s/who.%s\n' \
    "$O" "$ua" >"$T/ta"
chmod 644 "$T/ta"
run as "$ua" "$CTAB" "$T/ta"
same "user a installs a table" "$rc" 0
wait_for 10 test -s "$O/who.$ua" || fail "a's job runs"
same "... as user a" "$(cat "$O/who.$ua" 2>/dev/null)" "$ua"
run as "$ub" "$CTAB" -l
same "user b does not see a's table" "$err" "no crontab for $ub"
run as "$ub" "$CTAB" -u "$ua" -l
contains "b cannot name a" "$err" "^must be privileged to use -u$"
run as "$ub" "$CTAB" -u "$ua" -r
same "... nor remove a's table" "$rc" 1
run "$CTAB" -u "$ua" -l
same "root reads a's table" "$out" "$(cat "$T/ta")"
run "$CTAB" -u "nosuchuser$$" -l
contains "-u with an unknown user" "$err" "^ctab:  user \`nosuchuser$$' unknown$"

printf '%s\n' "$ub" >"$T/cron.deny"
run as "$ub" "$CTAB" -l
same "cron.deny: exit 1" "$rc" 1
same "... refused as crontab words it" "$err" \
    "You ($ub) are not allowed to use this program (ctab)
See ctab(1) for more information"
printf '%s\n' "$ub" >"$T/cron.allow"
run as "$ua" "$CTAB" -l
contains "cron.allow without a: refused" "$err" "not allowed"
run as "$ub" "$CTAB" -l
same "cron.allow lists b, over cron.deny" "$err" "no crontab for $ub"
run "$CTAB" -u "$ua" -l
same "root may list a refused user's table" "$rc" 0
run "$CTAB" -u "$ua" "$T/ta"
same "... but not install one for them" "$err" \
    "The user $ua cannot use this program (ctab)"
run "$CTAB" -u root -l
same "root is never refused" \
    "$(printf '%s\n' "$err" | grep -c 'not allowed\|cannot use')" 0
finish
