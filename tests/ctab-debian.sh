#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# ctab-debian.sh: ctab called as crontab answers as Debian's crontab
# (cron 3.0pl1) does.  Each case runs under both, as the same throwaway
# user with the same input: Debian's crontab taken from its package at
# run time, in a private mount namespace whose /etc is an overlay and
# whose spool is a directory of this test, so the machine's own files
# never change; ours against a daemon of the test.  Their standard
# output, standard error and exit status must be the same, but for the
# lines that name a table's errors (ours give the column and every
# error, Debian's the first only) and what is ours alone.  The
# questions and the editor are also driven through a real terminal
# (tmux), and a terminal on the standard input, as typed.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] ||
    skip "needs root, for a throwaway user and a private mount namespace"
for p in unshare setpriv dpkg-deb useradd groupadd tmux vi; do
	needs $p
done
unshare -m true 2>/dev/null || skip "unshare -m does not work here"

# Debian's cron package: from apt's cache, else downloaded now.
deb=$(ls /var/cache/apt/archives/cron_3.0pl1-*.deb 2>/dev/null | tail -n 1)
if [ -z "$deb" ]; then
	(cd "$T" && apt-get download cron >"$T/apt.out" 2>&1)
	deb=$(ls "$T"/cron_3.0pl1-*.deb 2>/dev/null | tail -n 1)
	[ -n "$deb" ] || {
		cat "$T/apt.out"
		skip "cannot get Debian's cron package (apt-get download cron)"
	}
fi
dpkg-deb -x "$deb" "$T/debcron" ||
    skip "cannot unpack $deb"
echo "Debian's crontab from $deb"

chmod 755 "$T"
dmn_setup n1 <<EOF
cron-allow = $T/cron.allow
cron-deny = $T/cron.deny
EOF
dmn_start n1

U=cctd$$
mkdir -p "$T/ours" "$T/home" "$T/debspool/crontabs" "$T/etc.u" "$T/etc.w"
cleanup_user() {
	find /tmp -maxdepth 1 -name 'crontab.*' -user "$U" \
	    -exec rm -rf {} + 2>/dev/null
	shadow userdel "$U" >/dev/null 2>&1
}
trap '_st=$?; cleanup_user; (exit $_st); dmn_cleanup' EXIT
shadow useradd -M -d "$T/home" -s /bin/sh "$U" || skip "useradd failed"
chown "$U" "$T/home"
ln -s "$CTAB" "$T/ours/crontab"
ln -s "$CTAB" "$T/ours/ctab"

# The user's environment, the same for both.
userenv="env -i HOME=$T/home LANG=C LC_ALL=C"
cat >"$T/run-ours" <<EOF
#!/bin/sh
exec setpriv --reuid=$U --regid=$U --init-groups $userenv \
    TERM="\${TERM:-dumb}" PATH=$T/ours:/usr/bin:/bin \
    CTAB_SOCKET=$T/n1/sock CTAB_COPY_DIR=$T/n1/copies \
    sh -c "cd /tmp && \$1"
EOF
# Debian's: /etc an overlay (group crontab, cron.allow and cron.deny as
# this test sets them), the spool under $T, crontab set-group-id; then
# the command as the user, or as root with "root" after it.
cat >"$T/deb-enter" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount -t overlay overlay \
    -o lowerdir=/etc,upperdir=$T/etc.u,workdir=$T/etc.w /etc
mount -t tmpfs tmpfs /var/spool
mkdir /var/spool/cron /var/spool/bin
mount --bind $T/debspool /var/spool/cron
# Another test's useradd may hold the lock on the group file a moment.
i=0
until getent group crontab >/dev/null || groupadd -r crontab 2>/dev/null; do
	i=\$((i + 1))
	[ \$i -lt 200 ] || { echo "groupadd crontab: cannot lock" >&2; exit 1; }
	sleep 0.1
done
chgrp crontab /var/spool/cron/crontabs
chmod 1730 /var/spool/cron/crontabs
cp $T/debcron/usr/bin/crontab /var/spool/bin/crontab
chgrp crontab /var/spool/bin/crontab
chmod 2755 /var/spool/bin/crontab
ln -s crontab /var/spool/bin/ctab
for f in allow deny; do
	if [ -f $T/cron.\$f ]; then
		cp $T/cron.\$f /etc/cron.\$f
	else
		rm -f /etc/cron.\$f
	fi
done
set +e
if [ "\${2:-}" = root ]; then
	exec env PATH=/var/spool/bin:/usr/bin:/bin sh -c "cd /tmp && \$1"
fi
exec setpriv --reuid=$U --regid=$U --init-groups $userenv \
    TERM="\${TERM:-dumb}" PATH=/var/spool/bin:/usr/bin:/bin \
    sh -c "cd /tmp && \$1"
EOF
cat >"$T/run-deb" <<EOF
#!/bin/sh
exec unshare -m sh $T/deb-enter "\$1"
EOF
# Root's runs.
cat >"$T/root-deb" <<EOF
#!/bin/sh
exec unshare -m sh $T/deb-enter "\$1" root
EOF
cat >"$T/root-ours" <<EOF
#!/bin/sh
exec env PATH=$T/ours:/usr/bin:/bin CTAB_SOCKET=$T/n1/sock \
    CTAB_COPY_DIR=$T/n1/copies sh -c "cd /tmp && \$1"
EOF
chmod 755 "$T/run-ours" "$T/run-deb" "$T/root-ours" "$T/root-deb"

# norm: the temporary directories of -e named alike; with -d, the lines
# that name a table's errors and warnings left out.
norm() {
	sed -e 's|/tmp/crontab\.[A-Za-z0-9]*|/tmp/crontab.X|g' |
	    if [ "${1:-}" = -d ]; then
		grep -Ev '^"[^"]*":[0-9]+: |^(crontab|ctab): .*:[0-9]+(:[0-9]+)?: '
	    else
		cat
	    fi
}

# both NAME INPUT CMD [-d]: run the shell command CMD (which names
# crontab) under both, with INPUT (a file) on the standard input, as
# the throwaway user (as root when the runner is set to root), and
# compare.
who=run
both() {
	_name=$1 _in=$2 _cmd=$3
	"$T/$who-deb" "$_cmd" <"$_in" >"$T/d.out" 2>"$T/d.err"
	_drc=$?
	_try=0
	while [ -n "${deb_race:-}" ] && [ $_try -lt 3 ] &&
	    grep -q 'installing new crontab' "$T/d.err"; do
		"$T/$who-deb" "crontab -r" </dev/null >/dev/null 2>&1
		"$T/$who-deb" "$_cmd" <"$_in" >"$T/d.out" 2>"$T/d.err"
		_drc=$?
		_try=$((_try + 1))
	done
	"$T/$who-ours" "$_cmd" <"$_in" >"$T/o.out" 2>"$T/o.err"
	_orc=$?
	same "$_name: exit status" "$_orc" "$_drc"
	same "$_name: standard output" "$(norm <"$T/o.out")" \
	    "$(norm <"$T/d.out")"
	same "$_name: standard error" "$(norm ${4:-} <"$T/o.err")" \
	    "$(norm ${4:-} <"$T/d.err")"
}

: >"$T/null"
printf '0 0 1 1 * echo first\n' >"$T/good"
printf '0 0 1 1 * echo second\n# a comment\n' >"$T/good2"
printf '0 0 1 1 * fine\n61 * * * * bad\n' >"$T/bad"
printf '0 0 1 1 * no newline' >"$T/nonl"
printf 'x\nn\n' >"$T/xn"
printf 'Y\n' >"$T/yes"
printf 'y\nn\n' >"$T/yn"
chmod 644 "$T"/good* "$T/bad" "$T/nonl"
printf '#!/bin/sh\nsleep 1\necho "0 0 1 1 * appended" >>"$1"\n' >"$T/ed-append"
printf '#!/bin/sh\nsleep 1\necho "99 * * * * broken" >>"$1"\n' >"$T/ed-break"
printf '#!/bin/sh\ncat "$1" >%s/home/seen\n' "$T" >"$T/ed-show"
chmod 755 "$T"/ed-*

both "-l, no table" "$T/null" "crontab -l"
same "... no crontab, as crontab says it" "$(cat "$T/o.err")" \
    "no crontab for $U"
both "-r, no table" "$T/null" "crontab -r"
both "-r -i, no table" "$T/xn" "crontab -r -i"
both "install a file" "$T/null" "crontab $T/good"
both "... -l shows it" "$T/null" "crontab -l"
both "no argument: the standard input" "$T/good2" "crontab"
both "... -l shows it" "$T/null" "crontab -l"
same "... which is what was fed" "$(cat "$T/o.out")" "$(cat "$T/good2")"
both "- for the standard input" "$T/good" "crontab -"
both "... -l shows it" "$T/null" "crontab -l"
both "an empty table" "$T/null" "crontab"
both "... -l shows nothing" "$T/null" "crontab -l"
both "a table with errors" "$T/null" "crontab $T/bad" -d
contains "... ours name line and column" "$(cat "$T/o.err")" \
    "^crontab: $T/bad:2:1: "
both "... not installed" "$T/null" "crontab -l"
both "no newline at the end" "$T/null" "crontab $T/nonl" -d
both "a missing file" "$T/null" "crontab $T/absent"
both "a directory" "$T/null" "crontab $T"
both "-n: a good table" "$T/null" "crontab -n $T/good"
both "... nothing installed" "$T/null" "crontab -l"
both "-n: a bad table" "$T/null" "crontab -n $T/bad" -d
both "-u oneself" "$T/null" "crontab -u $U -l"
both "-u another" "$T/null" "crontab -u root -l"
both "-u an unknown user" "$T/null" "crontab -u nosuch$$ -l"

# Usage errors: the first lines are crontab's; the list of options
# that follows is each program's own.
usage_both() {
	"$T/run-deb" "$2" </dev/null >/dev/null 2>"$T/d.err"
	_drc=$?
	"$T/run-ours" "$2" </dev/null >/dev/null 2>"$T/o.err"
	same "$1: exit status" "$?" "$_drc"
	same "$1: the message" "$(sed -n '/^usage:/q;p' "$T/o.err")" \
	    "$(sed -n '/^usage:/q;p' "$T/d.err")"
	contains "$1: then the usage" "$(cat "$T/o.err")" \
	    "^usage:	(crontab|ctab) \\[-u user\\] \\[-n\\] file$"
}
usage_both "two operations" "crontab -l -e"
usage_both "-n and no file" "crontab -n"
usage_both "-u and no file" "crontab -u $U"
usage_both "-i and no file" "crontab -i"
usage_both "an argument after -l" "crontab -l extra"
usage_both "an unknown option" "crontab -z"
usage_both "-h" "crontab -h"
usage_both "as ctab, two operations" "ctab -r -l"

# -r and its question, on the standard output; a bad answer nags.
both "reinstall" "$T/null" "crontab $T/good"
both "-r -i, a bad answer then n" "$T/xn" "crontab -r -i"
both "... kept" "$T/null" "crontab -l"
both "-r -i, Y" "$T/yes" "crontab -r -i"
both "... removed" "$T/null" "crontab -l"
both "reinstall" "$T/null" "crontab $T/good"
both "-r" "$T/null" "crontab -r"
both "... removed" "$T/null" "crontab -l"

# -e.  Debian's crontab takes the time of its copy before writing the
# table into it and, after the editor, calls the copy changed when that
# time moved: a clock tick (or a descheduling) between the two makes it
# install what the editor never touched.  both() undoes that race, seen
# as its "installing", and runs Debian's side again (deb_race).
deb_race=1
both "-e, no table, left as it was" "$T/null" "EDITOR=true crontab -e"
deb_race=
both "... nothing installed" "$T/null" "crontab -l"
"$T/run-ours" "EDITOR=$T/ed-show crontab -e" </dev/null >/dev/null 2>&1
tpl=$(cat "$T/home/seen" 2>/dev/null)
contains "... ours opens a template" "$tpl" "^# m  h  dom mon dow  command$"
same "... of comments only" "$(printf '%s\n' "$tpl" | grep -cv '^#')" 0
both "-e, a line added" "$T/null" "EDITOR=$T/ed-append crontab -e"
both "... installed after the template" "$T/null" \
    "crontab -l | grep -v '^#'"
both "-e, an error, a bad answer, then n" "$T/xn" \
    "EDITOR=$T/ed-break crontab -e" -d
contains "... (ours named the line)" "$(cat "$T/o.err")" \
    "^crontab: /tmp/crontab\\.[^/]*/crontab:[0-9]+:1: found 99 "
both "... the table untouched" "$T/null" "crontab -l | grep -v '^#'"
both "-e, an error, y, another, n" "$T/yn" \
    "EDITOR=$T/ed-break crontab -e" -d
both "-e, the editor fails" "$T/null" "EDITOR=false crontab -e"
both "as ctab: -e, an error, n" "$T/xn" "EDITOR=$T/ed-break ctab -e" -d
both "as ctab: -u an unknown user" "$T/null" "ctab -u nosuch$$ -l"

# cron.allow and cron.deny, for the user and for root naming them.
echo "$U" >"$T/cron.deny"
chmod 644 "$T/cron.deny"
both "cron.deny lists the user: -l" "$T/null" "crontab -l"
both "... install" "$T/null" "crontab $T/good"
both "... -e" "$T/null" "EDITOR=$T/ed-append crontab -e"
both "... -r" "$T/null" "crontab -r"
who=root
both "... root: install for them" "$T/null" "crontab -u $U $T/good"
both "... root: -e for them" "$T/null" "crontab -u $U -e"
who=run
"$T/root-ours" "crontab -u $U -l" </dev/null >"$T/o.out" 2>&1
same "... root may still list their table (ours alone)" "$?" 0
echo root >"$T/cron.allow"
chmod 644 "$T/cron.allow"
rm -f "$T/cron.deny"
both "cron.allow without the user" "$T/null" "crontab -l"
rm -f "$T/cron.allow"

# Ours beyond Debian's: -V as cronie's, -c and -x refused naming what
# to do instead, -T.
"$T/run-ours" "crontab -V" >"$T/o.out" 2>&1
same "-V: exit 0" "$?" 0
contains "... the version, as cronie prints it" "$(cat "$T/o.out")" \
    '^clustercron [0-9]+\.[0-9]+'
"$T/run-ours" "crontab -c" >"$T/o.out" 2>&1
same "-c: exit 1" "$?" 1
contains "... naming clustercron status" "$(cat "$T/o.out")" \
    '^crontab: -c: .*clustercron status'
"$T/run-ours" "crontab -x misc" >"$T/o.out" 2>&1
same "-x: exit 1" "$?" 1
contains "... naming the daemon's log" "$(cat "$T/o.out")" \
    '^crontab: -x: .*clustercron -d'

# Through a terminal.
tm() { tmux -L "cctd$$" "$@"; }
screen_has() { tm capture-pane -p -t "$1" | grep -q -- "$2"; }
# term WHICH NAME CMD: run CMD in a new window NAME of a terminal; its
# exit status lands in $T/NAME.rc.
term() {
	_w=$2
	rm -f "$T/$_w.rc"
	tm new-window -d -n "$_w" \
	    "$T/run-$1 '$3'; echo \$? >$T/$_w.rc; sleep 600"
}
tm new-session -d -s main -x 120 -y 40 "sleep 600"
# Debian's crontab -e sees a change by the modification time of its
# copy, to the second: type only once the clock is past the second the
# copy was written in.
copy_aged() {
	_m=$(find /tmp -maxdepth 2 -path '/tmp/crontab.*/crontab' \
	    -user "$U" -printf '%T@\n' 2>/dev/null | sort -n | tail -n 1)
	[ -n "$_m" ] && [ "$(date +%s)" -gt "${_m%.*}" ]
}

# No argument, the standard input a terminal: read as typed until ^D.
for w in deb ours; do
	"$T/run-$w" "crontab -r" </dev/null >/dev/null 2>&1
	term $w tty-$w "crontab"
	tm send-keys -t main:tty-$w '0 0 1 1 * typed' Enter C-d
	wait_for 10 test -s "$T/tty-$w.rc" || fail "$w: crontab reads the terminal"
	"$T/run-$w" "crontab -l" </dev/null >"$T/$w.out" 2>&1
done
same "a terminal on the standard input: exit status" \
    "$(cat "$T/tty-ours.rc")" "$(cat "$T/tty-deb.rc")"
same "... installs what was typed" "$(cat "$T/ours.out")" "$(cat "$T/deb.out")"
same "... as typed" "$(cat "$T/ours.out")" "0 0 1 1 * typed"

# -e in vi: a bad line, a bad answer, n; then -r -i: a bad answer, y.
for w in deb ours; do
	term $w vi-$w "EDITOR=vi crontab -e"
	wait_for 10 screen_has main:vi-$w "0 0 1 1 \\* typed" ||
	    fail "$w: vi shows the table"
	wait_for 3 copy_aged || fail "$w: the copy's second is past"
	tm send-keys -t main:vi-$w G o '99 * * * * typed in vi' Escape
	tm send-keys -t main:vi-$w ':wq' Enter
	wait_for 10 screen_has main:vi-$w "retry the same edit" ||
	    fail "$w: the question after errors"
	tm send-keys -t main:vi-$w maybe Enter
	wait_for 10 screen_has main:vi-$w "^Enter Y or N" ||
	    fail "$w: a bad answer nags"
	tm send-keys -t main:vi-$w n Enter
	wait_for 10 test -s "$T/vi-$w.rc" || fail "$w: -e returns"
	tm capture-pane -p -t main:vi-$w | grep -v '^$' |
	    grep -Ev 'found 99|bad minute' | norm >"$T/vi-$w.screen"

	term $w rm-$w "crontab -r -i"
	wait_for 10 screen_has main:rm-$w "really delete $U's crontab" ||
	    fail "$w: -r -i asks"
	tm send-keys -t main:rm-$w what Enter
	wait_for 10 screen_has main:rm-$w "Please enter Y or N" ||
	    fail "$w: a bad answer nags"
	tm send-keys -t main:rm-$w y Enter
	wait_for 10 test -s "$T/rm-$w.rc" || fail "$w: -r -i returns"
	tm capture-pane -p -t main:rm-$w | grep -v '^$' >"$T/rm-$w.screen"
	"$T/run-$w" "crontab -l" </dev/null >"$T/$w.out" 2>&1
done
tm kill-server 2>/dev/null
same "vi, an error, n: exit status" "$(cat "$T/vi-ours.rc")" \
    "$(cat "$T/vi-deb.rc")"
same "... the terminal shows the same" "$(cat "$T/vi-ours.screen")" \
    "$(cat "$T/vi-deb.screen")"
same "-r -i, a bad answer, y: exit status" "$(cat "$T/rm-ours.rc")" \
    "$(cat "$T/rm-deb.rc")"
same "... the terminal shows the same" "$(cat "$T/rm-ours.screen")" \
    "$(cat "$T/rm-deb.screen")"
same "... and the table is gone" "$(cat "$T/ours.out")" "$(cat "$T/deb.out")"
finish
