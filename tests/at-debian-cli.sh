#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-debian-cli.sh: ctab called as at, atq, atrm and batch answers as
# Debian's at (3.2.5) does, and lets in whom at.allow and at.deny let
# in, as at does.  Each case runs under both, as the same throwaway
# user (or as root) with the same input and environment: Debian's at
# taken from its package at run time, set-user-ID as installed, in a
# private mount namespace whose /etc is an overlay, whose spool is a
# directory of this test and whose /run is empty (no atd is signalled);
# ours against a daemon of the test started in a mount namespace of its
# own with an overlay /etc, so that the machine's at.allow and at.deny
# are never touched.  Their exit statuses, standard output and standard
# error must be the same, but for Debian's complaint that no atd runs,
# the lines of the usage after the first (ours lists more options) and
# the messages about a malformed or past time (ours name the column).
# The jobs are numbered alike, so at -c must print the same script
# byte for byte.  A terminal (tmux) is driven alike too.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] ||
    skip "needs root, for a throwaway user and private mount namespaces"
for p in unshare nsenter setpriv dpkg-deb useradd tmux; do
	needs $p
done
unshare -m true 2>/dev/null || skip "unshare -m does not work here"

deb=$(ls /var/cache/apt/archives/at_3.2.5-*.deb 2>/dev/null | tail -n 1)
if [ -z "$deb" ]; then
	(cd "$T" && apt-get download at >"$T/apt.out" 2>&1)
	deb=$(ls "$T"/at_3.2.5-*.deb 2>/dev/null | tail -n 1)
	[ -n "$deb" ] || {
		cat "$T/apt.out"
		skip "cannot get Debian's at 3.2.5 (apt-get download at)"
	}
fi
dpkg-deb -x "$deb" "$T/debat" || skip "cannot unpack $deb"
echo "Debian's at from $deb"

chmod 755 "$T"
U=ccad$$
dmn_useradd "$U" "$T/home"
mkdir -p "$T/ours.u" "$T/ours.w" "$T/deb.u" "$T/deb.w" \
    "$T/debspool/atjobs" "$T/debspool/atspool"
: >"$T/debspool/atjobs/.SEQ"
chown -R daemon:daemon "$T/debspool"
chmod 1770 "$T/debspool/atjobs" "$T/debspool/atspool"
chmod 600 "$T/debspool/atjobs/.SEQ"
# Our daemon, in a mount namespace of its own where the directory of
# its at.allow and at.deny (the configured sysconfdir, made if missing
# and then removed) is an overlay without them; at_files puts this
# test's there.
allow=$(sed -n 's/^#define PATH_AT_ALLOW "\(.*\)"$/\1/p' \
    "$top_builddir/pathnames.h")
deny=$(sed -n 's/^#define PATH_AT_DENY "\(.*\)"$/\1/p' \
    "$top_builddir/pathnames.h")
atdir=$(dirname "$allow")
[ -n "$allow" ] && [ "$(dirname "$deny")" = "$atdir" ] || {
	echo "cannot read the paths of at.allow and at.deny"
	exit 99
}
made=
if [ ! -d "$atdir" ]; then
	mkdir -p "$atdir" || exit 99
	made=$atdir
fi
trap '_st=$?; [ -n "$made" ] && rmdir "$made"; (exit $_st); dmn_cleanup' EXIT
cat >"$T/dmn-wrap" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c '
mount -t overlay overlay -o lowerdir=$atdir,upperdir=$T/ours.u,workdir=$T/ours.w $atdir &&
rm -f $allow $deny && exec "\$0" "\$@"' "$CLUSTERCRON" "\$@"
EOF
chmod 755 "$T/dmn-wrap"
dmn_setup n1 </dev/null
DMN_BIN=$T/dmn-wrap dmn_start n1
rm -f "$T/at.allow" "$T/at.deny"
at_files() {
	nsenter -t "$(dmn_pid n1)" -m sh -c "
	    for f in allow deny; do
		if [ -f $T/at.\$f ]; then cp $T/at.\$f $atdir/at.\$f
		else rm -f $atdir/at.\$f; fi
	    done"
}

# The same environment for both; at captures it.
userenv="env -i HOME=$T/home LOGNAME=$U LANG=C LC_ALL=C TZ=UTC CTAB_SOCKET=$T/n1/sock"
# Ours: ctab linked as at, atq, atrm and batch in the same place as
# Debian's at, so that both capture the same PATH.
cat >"$T/ours-enter" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount -t tmpfs tmpfs /var/spool
mkdir -p /var/spool/bin
for p in at atq atrm batch; do ln -s $CTAB /var/spool/bin/\$p; done
set +e
if [ "\${2:-}" = root ]; then
	exec env -i HOME=/root LOGNAME=root LANG=C LC_ALL=C TZ=UTC \
	    CTAB_SOCKET=$T/n1/sock PATH=/var/spool/bin:/usr/bin:/bin \
	    sh -c "cd /tmp && \$1"
fi
exec setpriv --reuid=$U --regid=$U --init-groups $userenv \
    PATH=/var/spool/bin:/usr/bin:/bin sh -c "cd /tmp && \$1"
EOF
cat >"$T/run-ours" <<EOF
#!/bin/sh
exec unshare -m sh $T/ours-enter "\$1"
EOF
cat >"$T/root-ours" <<EOF
#!/bin/sh
exec unshare -m sh $T/ours-enter "\$1" root
EOF
# Debian's: /etc an overlay (at.allow and at.deny as this test sets
# them), the spool this test's, at set-user-ID daemon as installed.
cat >"$T/deb-enter" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount -t overlay overlay -o lowerdir=/etc,upperdir=$T/deb.u,workdir=$T/deb.w /etc
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/spool
mkdir -p /var/spool/cron /var/spool/bin
mount --bind $T/debspool /var/spool/cron
cp $T/debat/usr/bin/at /var/spool/bin/at
chown daemon:daemon /var/spool/bin/at
chmod 6755 /var/spool/bin/at
for p in atq atrm; do ln -s at /var/spool/bin/\$p; done
cp $T/debat/usr/bin/batch /var/spool/bin/batch
sed -i 's|exec .*/bin/at |exec /var/spool/bin/at |' /var/spool/bin/batch
for f in allow deny; do
	if [ -f $T/at.\$f ]; then cp $T/at.\$f /etc/at.\$f; else rm -f /etc/at.\$f; fi
done
set +e
if [ "\${2:-}" = root ]; then
	exec env -i HOME=/root LOGNAME=root LANG=C LC_ALL=C TZ=UTC \
	    CTAB_SOCKET=$T/n1/sock PATH=/var/spool/bin:/usr/bin:/bin \
	    sh -c "cd /tmp && \$1"
fi
exec setpriv --reuid=$U --regid=$U --init-groups $userenv \
    PATH=/var/spool/bin:/usr/bin:/bin sh -c "cd /tmp && \$1"
EOF
cat >"$T/run-deb" <<EOF
#!/bin/sh
exec unshare -m sh $T/deb-enter "\$1"
EOF
cat >"$T/root-deb" <<EOF
#!/bin/sh
exec unshare -m sh $T/deb-enter "\$1" root
EOF
chmod 755 "$T"/run-* "$T"/root-*

# norm: what is Debian's alone left out; with -u, a usage but its first
# words; with -t, the time of day of a job line (batch: now).
norm() {
	grep -v '^Can.t open /run/atd.pid to signal atd. No atd running?$' |
	    case "${1:-}" in
	    -u) sed -n '1s/^\(Usage: [a-z]*\) .*/\1/p' ;;
	    -t) sed 's/^\(job [0-9]* at .*\) [0-9:]* \([0-9]*\)$/\1 \2/' ;;
	    *) cat ;;
	    esac
}

# both NAME INPUT CMD [-u|-t|-rc]: run the shell command CMD under both,
# as the user (as root when who=root), INPUT on the standard input, and
# compare; with -rc only the exit status and that both said something.
who=run
both() {
	at_files
	"$T/$who-deb" "$3" <"$2" >"$T/d.out" 2>"$T/d.err"
	_drc=$?
	"$T/$who-ours" "$3" <"$2" >"$T/o.out" 2>"$T/o.err"
	_orc=$?
	same "$1: exit status" "$_orc" "$_drc"
	if [ "${4:-}" = -rc ]; then
		same "$1: both say why" "$(test -s "$T/o.err" && echo y)" \
		    "$(test -s "$T/d.err" && echo y)"
		return
	fi
	same "$1: standard output" "$(norm ${4:-} <"$T/o.out")" \
	    "$(norm ${4:-} <"$T/d.out")"
	same "$1: standard error" "$(norm ${4:-} <"$T/o.err")" \
	    "$(norm ${4:-} <"$T/d.err")"
}

echo 'echo hello' >"$T/job"
: >"$T/null"
chmod 644 "$T/job" "$T/null"

# Neither at.allow nor at.deny: root alone.
both "neither file: at" "$T/job" "at -t 203001011200"
same "... refused as at words it" "$(cat "$T/o.err")" \
    "You do not have permission to use at."
both "neither file: atq" "$T/null" "atq"
both "neither file: atrm" "$T/null" "atrm 1"
both "neither file: at -c" "$T/null" "at -c 1"
both "neither file: at -l" "$T/null" "at -l"
both "neither file: a malformed time too" "$T/job" "at tomorow"
who=root
both "neither file: root may" "$T/job" "at -t 203001011200"
same "... job 1" "$(norm <"$T/o.err")" \
    "warning: commands will be executed using /bin/sh
job 1 at Tue Jan  1 12:00:00 2030"
who=run

# An empty at.deny: everyone.
: >"$T/at.deny"
both "empty at.deny: at" "$T/job" "at -t 203001011200"
both "... atq: the user's own" "$T/null" "atq"
same "... in at's layout" "$(cat "$T/o.out")" \
    "2	Tue Jan  1 12:00:00 2030 a $U"
both "... at -c: the same script, byte for byte" "$T/null" "at -c 2"
contains "... which is a script" "$(cat "$T/o.out")" '^echo hello$'
both "... at -c of root's job" "$T/null" "at -c 1"
same "... not the owner" "$(cat "$T/o.err")" "1: Not owner"
both "... atrm of root's job" "$T/null" "atrm 1"
both "... atrm of none" "$T/null" "atrm 99"
both "... atrm of a word" "$T/null" "atrm abc"
both "... atrm of none and a word" "$T/null" "atrm 98 abc"
both "... at -c of none" "$T/null" "at -c 99"
both "... atq of a word" "$T/null" "atq x"
both "... atq of a job" "$T/null" "atq 2"
both "... atq -q of another queue" "$T/null" "atq -q c"
both "... at -q c, -m, from a file" "$T/null" "at -q c -m -f $T/job -t 203106150830"
both "... atq -q c" "$T/null" "atq -q c"
both "... its script" "$T/null" "at -c 3"
both "... -M" "$T/job" "at -M -t 203001011200"
both "... its script" "$T/null" "at -c 4"
both "... -v" "$T/job" "at -v -t 203001011200"
both "... batch" "$T/job" "batch" -t
both "... batch with a word" "$T/job" "batch now"
both "... at -b" "$T/job" "at -b" -t
# Ours runs the batch jobs at once, as its daemon is up; Debian's stay
# queued, as no atd runs.  Once ours are done, both are rid of them.
batch_done() {
	[ "$("$T/$who-ours" "atq -a 6 7" </dev/null | grep -c ' done ')" = 2 ]
}
wait_for 20 batch_done || fail "our batch jobs did not run"
both "... atrm the batch jobs (ours ran)" "$T/null" "atrm 6 7 2>/dev/null; true"
both "... atq, all of them" "$T/null" "atq | sort"
both "... atrm" "$T/null" "atrm 2"
both "... atq without it" "$T/null" "atq | sort"
both "... at -d, at -r" "$T/null" "at -d 3; at -r 4; atq | sort"
both "... umask and environment" "$T/job" \
    "umask 077; X='a b' Y='\$x\"' at -t 203001011200 && at -c 8"
both "... a time in the past" "$T/job" "at now - 1 hour" -rc
contains "... ours names what is wrong" "$(cat "$T/o.err")" \
    "^at: now - 1 hour: found .* which is in the past"
both "... a malformed time" "$T/job" "at tomorow" -rc
contains "... ours names the column" "$(cat "$T/o.err")" \
    '^at: tomorow: column 1: '

# Usage errors: the first line is at's.
both "usage: a queue not a letter" "$T/job" "at -q 1 now" -u
both "usage: -c without a job" "$T/null" "at -c" -u
both "usage: atrm without a job" "$T/null" "atrm" -u
both "usage: an unknown option" "$T/null" "atq -z" -u

# at.deny listing the user; blanks around a name make another name.
echo "$U" >"$T/at.deny"
both "at.deny lists the user: at" "$T/job" "at -t 203001011200"
both "... atq" "$T/null" "atq"
echo " $U " >"$T/at.deny"
both "at.deny lists ' user ': at" "$T/job" "at -t 203001011200"
rm -f "$T/at.deny"
# at.allow: only those it lists.
echo root >"$T/at.allow"
both "at.allow without the user" "$T/job" "at -t 203001011200"
: >"$T/at.allow"
both "an empty at.allow" "$T/job" "at -t 203001011200"
printf 'root\n%s\n' "$U" >"$T/at.allow"
echo "$U" >"$T/at.deny"
both "at.allow lists the user, at.deny too" "$T/job" \
    "at -t 203001011200"
both "... atq" "$T/null" "atq | sort"
rm -f "$T/at.allow" "$T/at.deny"

# A terminal: at's prompts and <EOT>, the same on the screen.
: >"$T/at.deny"
at_files
tm() { tmux -L "ccad$$" "$@"; }
screen_has() { tm capture-pane -p -t "$1" | grep -q -- "$2"; }
tm new-session -d -s main -x 100 -y 20 "sleep 600"
for w in deb ours; do
	rm -f "$T/tty-$w.rc"
	tm new-window -d -n "$w" \
	    "$T/run-$w 'at -t 203001011200'; echo \$? >$T/tty-$w.rc; sleep 600"
	wait_for 10 screen_has "main:$w" '^at> *$' || fail "$w: at prompts"
	tm send-keys -t "main:$w" 'echo typed' Enter
	wait_for 10 screen_has "main:$w" '^at> echo typed *$' ||
	    fail "$w: the typed line"
	tm send-keys -t "main:$w" C-d
	wait_for 10 test -s "$T/tty-$w.rc" || fail "$w: at returns"
	tm capture-pane -p -t "main:$w" | grep -v '^$' | norm >"$T/tty-$w"
done
tm kill-server 2>/dev/null
same "a terminal: exit status" "$(cat "$T/tty-ours.rc")" \
    "$(cat "$T/tty-deb.rc")"
same "... the screen" "$(cat "$T/tty-ours")" "$(cat "$T/tty-deb")"
contains "... at's prompts" "$(cat "$T/tty-ours")" '^at> <EOT>$'

# Debian's at numbers a job before it opens the file: so, last.
both "-f a missing file" "$T/null" "at -f /nonexistent -t 203001011200"
finish
