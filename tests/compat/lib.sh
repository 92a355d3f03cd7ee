# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# lib.sh: Debian's cron beside ours.  Debian's cron (3.0pl1, the
# package of Debian 12) has its paths compiled in: /etc/crontab,
# /etc/cron.d, /var/spool/cron/crontabs, /run/crond.pid and
# /run/crond.reboot, /usr/sbin/sendmail, and it logs only to syslog
# through /dev/log.  So it runs in a mount and UTS namespace of the
# test's own, where all of those are private: /etc is an overlay whose
# changes land in $T (the machine's users and PAM set-up show through;
# a user a test needs is added in the namespace, with ns_run useradd:
# the overlay does not reliably show later changes to the machine's
# files), /usr/sbin is an overlay whose sendmail is a stand-in, /run and
# /var/spool are empty file systems, /dev holds a few devices and a
# /dev/log read by tests/compat/logsink, and the host name is
# ccnode.example.test.  Our daemon runs in the same namespace,
# so that both see the same host name and sendmail.  The namespace ends
# with its last process; the trap kills every one the test started.
#
#	deb_fetch		unpack Debian's cron into $T/deb ($DEBCRON)
#	ns_start		make the namespace ($NS: its holder's pid)
#	ns_run CMD...		run CMD in it
#	deb_start ARGS...	start Debian's cron -f ARGS in it
#	deb_stop		SIGTERM, wait for it to exit
#	deb_log			its log lines so far, without the syslog
#				header (the file is emptied at deb_start)
#	our_log NAME		daemon NAME's log lines, without the prefix
#	children PID		PID has child processes
#
# Without root, Debian's .deb (no apt lists, no network) or a
# namespace, the test is skipped with the reason (skip, an error when
# CI is set).

. "$top_srcdir/tests/daemon/lib.sh"

LOGSINK=$top_builddir/tests/compat/logsink
CC_BIN=$CLUSTERCRON
NS=
DEB_PID=
SINK_PID=

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make a mount namespace"
needs unshare
needs nsenter
needs dpkg

compat_cleanup()
{
	_rc=$?
	[ -n "$DEB_PID" ] && kill -9 "$DEB_PID" 2>/dev/null
	for _n in $DAEMONS; do
		[ -f "$T/$_n/pid" ] && kill -9 "$(cat "$T/$_n/pid")" 2>/dev/null
	done
	[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null
	[ -n "$NS" ] && kill -9 "$NS" 2>/dev/null
	if [ $_rc -ne 0 ] && [ $_rc -ne 77 ] && [ -f "$T/syslog" ]; then
		echo "---- Debian's cron: $T/syslog"
		tail -n 40 "$T/syslog"
	fi
	[ -n "${COMPAT_CLEANUP:-}" ] && $COMPAT_CLEANUP
	# Let dmn_cleanup report our daemons and remove $T.
	(exit $_rc)
	dmn_cleanup
}
trap compat_cleanup EXIT

deb_fetch()
{
	_deb=$(ls /var/cache/apt/archives/cron_3.0pl1-*.deb 2>/dev/null |
	    tail -n 1)
	if [ -z "$_deb" ]; then
		needs apt-get
		mkdir -p "$T/apt"
		if ! (cd "$T/apt" && apt-get download cron) >"$T/apt.log" 2>&1
		then
			skip "cannot download Debian's cron:" \
			    "$(tail -n 1 "$T/apt.log")"
		fi
		_deb=$(ls "$T"/apt/cron_*.deb)
		# Kept where apt keeps packages, for the next run.
		cp "$_deb" /var/cache/apt/archives/ 2>/dev/null
	fi
	dpkg -x "$_deb" "$T/deb" || skip "dpkg -x $_deb failed"
	DEBCRON=$T/deb/usr/sbin/cron
	[ -x "$DEBCRON" ] || skip "$_deb has no usr/sbin/cron"
	echo "Debian's cron: $(basename "$_deb")"
}

# The stand-in sendmail: each message in $(cat $T/mail/dir)/PID, its
# arguments in PID.args, one a line.
ns_sendmail()
{
	mkdir -p "$T/mail"
	cat >"$T/ns/sendmail" <<EOF
#!/bin/sh
d=\$(cat "$T/mail/dir")
printf '%s\n' "\$@" >"\$d/\$\$.args"
cat >"\$d/\$\$.tmp" && mv "\$d/\$\$.tmp" "\$d/\$\$"
EOF
	chmod 755 "$T/ns/sendmail"
}

# mail_dir DIR: where the next messages go.
mail_dir()
{
	mkdir -p "$1"
	echo "$1" >"$T/mail/dir"
}

ns_start()
{
	mkdir -p "$T/ns/etc.up" "$T/ns/etc.work" "$T/ns/sbin.up" \
	    "$T/ns/sbin.work" "$T/ns/hostdev"
	chmod 755 "$T" "$T/ns"
	ns_sendmail
	cat >"$T/ns/setup.sh" <<EOF
set -e
mount --make-rprivate /
mount --bind /dev "$T/ns/hostdev"
mount -t tmpfs -o mode=755 ccdev /dev
for n in null zero full random urandom tty; do
	: >/dev/\$n
	mount --bind "$T/ns/hostdev/\$n" /dev/\$n
done
ln -s /proc/self/fd /dev/fd
mkdir /dev/pts /dev/shm
mount -t overlay ccetc -o lowerdir=/etc,upperdir="$T/ns/etc.up",workdir="$T/ns/etc.work" /etc
rm -f /etc/cron.d/* /etc/crontab
mount -t tmpfs ccrun /run
mount -t tmpfs ccspool /var/spool
mkdir -p /var/spool/cron/crontabs
mount -t overlay ccsbin -o lowerdir=/usr/sbin,upperdir="$T/ns/sbin.up",workdir="$T/ns/sbin.work" /usr/sbin
rm -f /usr/sbin/sendmail
cp "$T/ns/sendmail" /usr/sbin/sendmail
hostname ccnode.example.test
echo ready >"$T/ns/ready"
exec sleep 100000
EOF
	unshare -m -u sh "$T/ns/setup.sh" >"$T/ns/setup.log" 2>&1 &
	NS=$!
	if ! wait_for 10 test -f "$T/ns/ready"; then
		skip "cannot make a private namespace:" \
		    "$(cat "$T/ns/setup.log")"
	fi
	# Never touch the machine's own /etc, /run or host name.
	if [ "$(readlink "/proc/$NS/ns/mnt")" = "$(readlink /proc/self/ns/mnt)" ] ||
	    [ "$(readlink "/proc/$NS/ns/uts")" = "$(readlink /proc/self/ns/uts)" ]
	then
		echo "the namespace holder $NS is not in namespaces of its own"
		exit 99
	fi
	# Not through ns_run: $! must be the process itself.
	nsenter -t "$NS" -m -u -- "$LOGSINK" /dev/log "$T/syslog" &
	SINK_PID=$!
	wait_for 10 ns_run test -S /dev/log || {
		echo "no /dev/log in the namespace"
		exit 99
	}
	# Our daemon, in the namespace too.
	cat >"$T/ns/clustercron" <<EOF
#!/bin/sh
exec nsenter -t $NS -m -u -- "$CC_BIN" "\$@"
EOF
	chmod 755 "$T/ns/clustercron"
	CLUSTERCRON=$T/ns/clustercron
}

ns_run()
{
	nsenter -t "$NS" -m -u -- "$@"
}

deb_running()
{
	ns_run test -f /run/crond.pid &&
	    [ "$(ns_run cat /run/crond.pid)" = "$DEB_PID" ]
}

deb_start()
{
	: >"$T/syslog"
	ns_run rm -f /run/crond.reboot /run/crond.pid
	# As Debian's init script starts it: the locale of the machine,
	# which names the charset of its mail.
	LANG=C.UTF-8 nsenter -t "$NS" -m -u -- "$DEBCRON" -f "$@" \
	    >"$T/deb.out" 2>&1 &
	DEB_PID=$!
	if ! wait_for 10 deb_running; then
		fail "Debian's cron did not start"
		cat "$T/deb.out" "$T/syslog"
		exit 1
	fi
}

deb_stop()
{
	kill -TERM "$DEB_PID" 2>/dev/null
	if ! wait_for 10 eval '! kill -0 "$DEB_PID" 2>/dev/null'; then
		fail "Debian's cron did not stop"
		return 1
	fi
	DEB_PID=
	return 0
}

deb_log()
{
	sed -E 's/^<[0-9]+>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [^:]*: //' \
	    "$T/syslog"
}

# our_log NAME: the lines of our daemon's log, less the prefix, which
# is "clustercron: " with -f and a time and "CRON[pid]: " in the
# log-file a detached daemon writes (tests/daemon/lib.sh, DMN_MODE).
our_log()
{
	sed -nE 's/^clustercron: //p; s/^[0-9T:+-]+ CRON\[[0-9]+\]: //p' \
	    "$T/$1.log"
}

children()
{
	[ -n "$(ps -o pid= --ppid "$1")" ]
}
