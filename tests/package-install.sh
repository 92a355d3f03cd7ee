#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# package-install.sh DEB: the Debian package as an administrator
# installs it, on a fresh Debian 12 without systemd.  tests/package.sh
# runs it on the .deb it has built.
#
# The root is a minbase bookworm made with debootstrap from this
# machine's own apt mirror and cached as a tarball outside the tree
# (tests/lib/debroot.sh); it is unpacked into a temporary directory and
# used as a plain chroot with /proc and a /dev of its own mounted (both
# unmounted by the trap, which also kills whatever still runs in it).
# There is no systemd and no /sbin/init in it, so invoke-rc.d would
# refuse every action, as it does in any chroot; a policy-rc.d that
# allows them stands in for the runlevel links of a booted sysvinit.
# /usr/sbin/sendmail is a stand-in that keeps each message.  Then:
#
#   - Debian's cron is installed (its init script starts it) and alice,
#     in a supplementary group, makes a crontab with Debian's crontab;
#     a real /etc/cron.d file of Debian's sysstat package is put in
#     place, its debian-sa1 a stand-in;
#   - apt-get install ./DEB replaces cron; the postinst starts the
#     daemon through /etc/init.d/clustercron and imports alice's table;
#   - crontab -l and -e (EDITOR a script) as alice through the crontab
#     link;
#   - the daemon is restarted through the init script with its wall
#     clock moved by libfaketime to a few seconds before the next
#     minute at which the sysstat file's schedule (5-55/10) fires, so
#     that both its job and alice's every-minute job come due within
#     seconds; alice's job checks its user, groups, environment and
#     %-input, and its output is mailed through the stand-in;
#   - reload; a stop, with crontab -l answered from the daemon's local
#     copy and crontab -e refused, then a start; crontab -r, apt-get
#     remove (no daemon, socket or unit left) and purge (no store,
#     local copies or configuration left; the imported
#     table kept in /var/lib/clustercron/spool-imported, as
#     doc/migrating.md and debian/clustercron.postrm say);
#   - installed again where policy-rc.d forbids starting daemons: the
#     postinst says the daemon is not running and the spool table is
#     left in place; the commands it names start it and import the
#     table.
#
# Exit status: 0 pass, 1 fail, 77 skip where this machine cannot make a
# chroot (not root, no debootstrap or mount, no mirror), 99 error; 99
# instead of 77 when CI is set (tests/lib/skip.sh).

top=$(cd "$(dirname "$0")/.." && pwd) || exit 99
. "$top/tests/lib/skip.sh"
deb=$1
tmp= root= logpid=
failed=0
t0=$(date +%s)

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=1; }
fatal() {
	echo "not ok - $*"
	exit 1
}

# The processes whose root is the test's root: all started by it.
root_pids() {
	for _p in /proc/[0-9]*; do
		[ "$(readlink "$_p/root" 2>/dev/null)" = "$root" ] &&
		    echo "${_p#/proc/}"
	done
}
# in_root_named NAME: the pids of the processes called NAME in the root.
in_root_named() {
	for _p in $(root_pids); do
		[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = "$1" ] && echo "$_p"
	done
}

cleanup() {
	[ -n "$logpid" ] && kill "$logpid" 2>/dev/null
	if [ -n "$root" ]; then
		_i=0
		while _left=$(root_pids) && [ -n "$_left" ] && [ "$_i" -lt 50 ]; do
			kill -9 $_left 2>/dev/null
			sleep 0.1
			_i=$((_i + 1))
		done
		umount "$root/dev" 2>/dev/null
		umount "$root/proc" 2>/dev/null
	fi
	# Never remove a tree something is still mounted in.
	if [ -n "$tmp" ] && ! grep -q " $tmp/" /proc/self/mounts; then
		rm -rf "$tmp"
	elif [ -n "$tmp" ]; then
		echo "package-install.sh: $tmp still has mounts: left in place" >&2
	fi
}
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

# poll TENTHS CMD...: run CMD every tenth of a second until it succeeds,
# TENTHS times at most.
poll() {
	_n=$1
	shift
	while ! "$@"; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# in_root CMD...: CMD in the root, in a clean environment.
in_root() {
	chroot "$root" /usr/bin/env -i \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# as_alice CMD: the shell command CMD as alice, through su.
as_alice() { in_root su alice -c "$1"; }
apt_root() {
	in_root apt-get -o Dpkg::Use-Pty=0 -y --no-install-recommends "$@"
}

[ -f "$deb" ] || { echo "usage: package-install.sh DEB" >&2; exit 99; }
deb=$(cd "$(dirname "$deb")" && pwd)/${deb##*/}
[ "$(id -u)" = 0 ] || skip "not root: cannot make a chroot"
for tool in chroot mount umount dpkg-deb python3; do
	needs "$tool"
done
ftlib=
for f in /usr/lib/*/faketime/libfaketime.so.1 \
    /usr/lib/faketime/libfaketime.so.1; do
	[ -f "$f" ] && ftlib=$f && break
done
[ -n "$ftlib" ] || skip "libfaketime not found (apt-get install faketime)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clustercron-install.XXXXXX") || exit 99
tmp=$(cd "$tmp" && pwd -P)
mkdir "$tmp/mnt" || exit 99
mount -t tmpfs none "$tmp/mnt" 2>/dev/null ||
    skip "cannot mount file systems here: no chroot with /proc"
umount "$tmp/mnt"
# The root's programs run from $tmp, Debian's crontab setgid.
case ,$(findmnt -n -o OPTIONS --target "$tmp" 2>/dev/null), in
*,noexec,*|*,nosuid,*)
	skip "$tmp is on a noexec or nosuid file system: set TMPDIR" ;;
esac

# Debian's cron: from apt's cache when it is there, else downloaded.
crondeb=
for f in /var/cache/apt/archives/cron_*_"$(dpkg --print-architecture)".deb; do
	[ -f "$f" ] && crondeb=$f
done
if [ -z "$crondeb" ]; then
	(cd "$tmp" && apt-get download cron) >"$tmp/download.log" 2>&1
	for f in "$tmp"/cron_*.deb; do
		[ -f "$f" ] && crondeb=$f
	done
	[ -n "$crondeb" ] || skip "cannot get Debian's cron:" \
	    "$(tail -n 2 "$tmp/download.log")"
fi

# The root holds what cron and this package depend on (without
# versions or alternatives), so neither installation downloads
# anything.
deps() {
	for field in Pre-Depends Depends; do
		dpkg-deb -f "$1" "$field"
		echo
	done | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' |
	    grep -v '^$'
}
includes=$( { deps "$crondeb"; deps "$deb"; } | grep -vx 'cron' | sort -u |
    tr '\n' ',' | sed 's/,$//')

. "$top/tests/lib/debroot.sh"
s=$(date +%s)
debroot_tarball "$includes" || skip "$debroot_why"
root=$tmp/root
mkdir "$root" && tar -C "$root" -xf "$debroot_tar" || fatal "unpack $debroot_tar"
echo "# root from $debroot_tar ($debroot_made, $(($(date +%s) - s)) s)"

mount -t proc proc "$root/proc" || fatal "mount /proc"
mount -t tmpfs -o mode=755,size=1m dev "$root/dev" || fatal "mount /dev"
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
	IFS=: read -r name major minor <<EOF
$n
EOF
	mknod -m 666 "$root/dev/$name" c "$major" "$minor" ||
	    fatal "mknod /dev/$name"
done
ln -s /proc/self/fd "$root/dev/fd"
# Syslog, for the record: what the detached daemon logs.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
f = open(sys.argv[2], "ab", 0)
while True:
    f.write(s.recv(65536).rstrip(b"\0\n") + b"\n")
' "$root/dev/log" "$tmp/syslog" &
logpid=$!

# The stand-ins: the runlevel policy, sendmail, and the program the
# sysstat file runs.
printf '#!/bin/sh\nexit 0\n' >"$root/usr/sbin/policy-rc.d"
cat >"$root/usr/sbin/sendmail" <<'EOF'
#!/bin/sh
# A stand-in: each message, with the arguments, in /var/tmp/mail.
f=$(mktemp /var/tmp/mail/msg.XXXXXX) || exit 75
{ echo "X-Args: $*"; cat; } >"$f"
EOF
mkdir -p "$root/usr/lib/sysstat" "$root/var/tmp/mail" &&
    chmod 1777 "$root/var/tmp/mail" || fatal "mkdir in the root"
cat >"$root/usr/lib/sysstat/debian-sa1" <<'EOF'
#!/bin/sh
# A stand-in for sysstat's collector.
echo "$(id -un) args=$* fire=$CLUSTERCRON_FIRE_ID PATH=$PATH" \
    >>/var/tmp/sysstat.out
EOF
chmod 755 "$root/usr/sbin/policy-rc.d" "$root/usr/sbin/sendmail" \
    "$root/usr/lib/sysstat/debian-sa1"
cp "$top/tests/data/cron.d/sysstat" "$root/etc/cron.d/sysstat" &&
    chmod 644 "$root/etc/cron.d/sysstat" || fatal "copy cron.d/sysstat"
ftdir=${ftlib%/*}
mkdir -p "$root$ftdir" && cp "$ftlib" "$root$ftlib" || fatal "copy $ftlib"

# Debian's cron, started by its postinst, and alice's crontab made by
# its crontab.  Her job, every minute, writes what it runs with and its
# standard input to a file of its own, renamed once complete, and
# prints a line that is mailed.
cp "$crondeb" "$deb" "$root/tmp/" && chmod 644 "$root"/tmp/*.deb ||
    fatal "copy the packages into the root"
in_root groupadd staffers && in_root useradd -m -s /bin/sh -G staffers alice ||
    fatal "useradd alice"
cron_runs() { [ -n "$(in_root_named cron)" ]; }
if in_root dpkg -i "/tmp/${crondeb##*/}" >"$tmp/cron.log" 2>&1 &&
    poll 50 cron_runs; then
	ok "Debian's cron installed and running in the root"
else
	cat "$tmp/cron.log"
	fatal "Debian's cron installed and running in the root"
fi
cat >"$root/tmp/alice.tab" <<'EOF'
# alice's table
MAILTO=alice
GREETING=hello from alice
* * * * * (id -un; id -Gn; echo "HOME=$HOME LOGNAME=$LOGNAME SHELL=$SHELL"; echo "PATH=$PATH GREETING=$GREETING"; echo "PWD=$(pwd) LD_PRELOAD=$LD_PRELOAD fire=$CLUSTERCRON_FIRE_ID"; cat) >/var/tmp/alice.$$ 2>&1; mv /var/tmp/alice.$$ /var/tmp/alice.run.$$; echo "output of alice's job, fire=$CLUSTERCRON_FIRE_ID"%first line%second line
EOF
chmod 644 "$root/tmp/alice.tab"
as_alice "crontab /tmp/alice.tab" ||
    fatal "alice's crontab with Debian's crontab"
cp -p "$root/var/spool/cron/crontabs/alice" "$tmp/alice.spool" || exit 99
grep -q '^# DO NOT EDIT' "$tmp/alice.spool" ||
    fail "Debian's crontab wrote no header: this is not its file"

# The package, as an administrator installs it.
if apt_root install "/tmp/${deb##*/}" >"$tmp/install.log" 2>&1; then
	ok "apt-get install ./${deb##*/} in the root"
else
	cat "$tmp/install.log"
	fatal "apt-get install ./${deb##*/} in the root"
fi
in_root dpkg-query -W -f '${Status}' cron 2>/dev/null | grep -q ' installed' &&
    fail "cron is still installed"
[ -z "$(in_root_named cron)" ] || fail "Debian's cron still runs"
pid=$(cat "$root/run/clustercron.pid" 2>/dev/null)
if [ -n "$pid" ] && [ "$(in_root_named clustercron)" = "$pid" ] &&
    grep -q '^Starting cluster cron daemon: clustercron\.$' "$tmp/install.log" &&
    in_root /etc/init.d/clustercron status >/dev/null; then
	ok "the postinst started clustercron through its init script"
else
	cat "$tmp/install.log"
	fail "the postinst started clustercron through its init script"
fi
# Detached, it logs to syslog (the root's /dev/log is the listener's).
if poll 50 grep -q 'CRON\[[0-9]*\]: (CRON) STARTUP (clustercron' \
    "$tmp/syslog"; then
	ok "the detached daemon logs to syslog"
else
	fail "the detached daemon logs to syslog"
fi
ls "$root"/etc/rc2.d/S[0-9][0-9]clustercron >/dev/null 2>&1 ||
    fail "no /etc/rc2.d link: update-rc.d did not run"
grep -q 'not running' "$tmp/install.log" &&
    fail "the postinst says the daemon is not running"
if grep -q 'imported the table of alice' "$tmp/install.log" &&
    [ ! -e "$root/var/spool/cron/crontabs/alice" ] &&
    cmp -s "$tmp/alice.spool" "$root/var/lib/clustercron/spool-imported/alice"
then
	ok "alice's crontab imported from the spool"
else
	cat "$tmp/install.log"
	fail "alice's crontab imported from the spool"
fi

# The page cron(8) is clustercron's, beside cron-daemon-common.
if [ "$(in_root dpkg -S /usr/share/man/man8/cron.8.gz 2>/dev/null)" = \
    "clustercron: /usr/share/man/man8/cron.8.gz" ] &&
    [ -f "$root/usr/share/man/man8/clustercron.8.gz" ] &&
    in_root dpkg-query -W -f '${Status}' cron-daemon-common |
    grep -q ' installed$'; then
	ok "cron(8) is clustercron's page, beside cron-daemon-common"
else
	fail "cron(8) is clustercron's page, beside cron-daemon-common"
fi

# crontab, which is ctab, as alice.
[ "$(readlink "$root/usr/bin/crontab")" = ctab ] || fail "crontab is not ctab"
if as_alice "crontab -l" >"$tmp/listed" 2>"$tmp/listed.err" &&
    cmp -s "$root/tmp/alice.tab" "$tmp/listed"; then
	ok "crontab -l as alice lists her imported table"
else
	cat "$tmp/listed" "$tmp/listed.err"
	fail "crontab -l as alice lists her imported table"
fi
cat >"$root/tmp/edit.sh" <<'EOF'
#!/bin/sh
echo '# edited with crontab -e' >>"$1"
EOF
chmod 755 "$root/tmp/edit.sh"
{ cat "$root/tmp/alice.tab"; echo '# edited with crontab -e'; } >"$tmp/edited"
if as_alice "EDITOR=/tmp/edit.sh crontab -e" >"$tmp/edit.log" 2>&1 &&
    as_alice "crontab -l" >"$tmp/listed" 2>&1 &&
    cmp -s "$tmp/edited" "$tmp/listed"; then
	ok "crontab -e as alice"
else
	cat "$tmp/edit.log" "$tmp/listed"
	fail "crontab -e as alice"
fi

# The restart, with the daemon's wall clock moved to $lead seconds
# before the next minute m with m % 10 = 5: the sysstat file's
# 5-55/10 fires then, and so does alice's every-minute job.  Only the
# daemon's clock moves (its jobs get cron's environment, without
# LD_PRELOAD); the root's zone is UTC.  A restart so slow that the
# daemon came up less than 2 s before that minute is done again.
ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
lead=8
tries=0
while :; do
	tries=$((tries + 1))
	now=$(date +%s)
	t=$((now + lead + 5))
	fire=$(( (t / 600) * 600 + 300 ))
	[ "$fire" -ge "$t" ] || fire=$((fire + 600))
	off=$((fire - lead - now))
	fire_at=$(date -u -d "@$fire" +%H:%M:%S)
	restarted=
	in_root env LD_PRELOAD="$ftlib" FAKETIME="+${off}s" \
	    FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_NO_CACHE=1 \
	    /etc/init.d/clustercron restart >"$tmp/restart.log" 2>&1 &&
	    newpid=$(cat "$root/run/clustercron.pid") &&
	    [ "$newpid" != "$pid" ] &&
	    [ "$(in_root_named clustercron)" = "$newpid" ] && restarted=yes
	[ -n "$restarted" ] || break
	pid=$newpid
	[ $(($(date +%s) + off)) -le $((fire - 2)) ] || [ "$tries" -ge 3 ] ||
	    continue
	break
done
if [ -n "$restarted" ]; then
	ok "restart through the init script (the daemon's clock ${off}s ahead, due at $fire_at)"
else
	cat "$tmp/restart.log"
	fail "restart through the init script"
fi
pid=$(cat "$root/run/clustercron.pid" 2>/dev/null)

limit=$(( (lead + 30) * 10 ))
sysstat_ran() { grep -q '^root args=1 1 fire=[^ ]' "$root/var/tmp/sysstat.out" 2>/dev/null; }
# A run by clustercron (a fire id), not by Debian's cron before it.
alice_run() { grep -l ' fire=.' "$root"/var/tmp/alice.run.* 2>/dev/null | head -n 1; }
alice_ran() { [ -n "$(alice_run)" ]; }
alice_mailed() { grep -q "output of alice's job, fire=." "$root"/var/tmp/mail/msg.* 2>/dev/null; }
if poll "$limit" sysstat_ran; then
	ok "/etc/cron.d/sysstat (as Debian ships it) ran its job as root"
	grep -q "PATH=/usr/lib/sysstat:" "$root/var/tmp/sysstat.out" ||
	    fail "the sysstat job did not get the file's PATH"
else
	cat "$root/var/tmp/sysstat.out" "$tmp/syslog" 2>/dev/null | tail -n 30
	fail "/etc/cron.d/sysstat ran its job"
fi
if poll "$limit" alice_ran && poll 100 alice_mailed; then
	cp "$(alice_run)" "$tmp/alice.run"
	want_groups=$(in_root id -Gn alice)
	if [ "$(sed -n 1p "$tmp/alice.run")" = alice ] &&
	    [ "$(sed -n 2p "$tmp/alice.run")" = "$want_groups" ] &&
	    grep -qw staffers "$tmp/alice.run" &&
	    grep -qx 'HOME=/home/alice LOGNAME=alice SHELL=/bin/sh' "$tmp/alice.run" &&
	    grep -qx 'PATH=/usr/bin:/bin GREETING=hello from alice' "$tmp/alice.run" &&
	    grep -q '^PWD=/home/alice LD_PRELOAD= fire=.' "$tmp/alice.run" &&
	    grep -qx 'first line' "$tmp/alice.run" &&
	    grep -qx 'second line' "$tmp/alice.run"; then
		ok "alice's job: user, groups, environment, % input"
	else
		cat "$tmp/alice.run"
		fail "alice's job: user, groups, environment, % input"
	fi
	msg=$(grep -l "output of alice's job, fire=." "$root"/var/tmp/mail/msg.* |
	    head -n 1)
	if grep -q '^To: alice' "$msg"; then
		ok "alice's job's output mailed to alice through sendmail"
	else
		cat "$msg"
		fail "alice's job's output mailed to alice"
	fi
else
	cat "$root"/var/tmp/alice.run.* "$tmp/syslog" 2>/dev/null | tail -n 30
	ls -l "$root/var/tmp/mail"
	fail "alice's job ran and was mailed"
fi

if in_root /etc/init.d/clustercron reload >"$tmp/reload.log" 2>&1 &&
    [ "$(in_root_named clustercron)" = "$pid" ] &&
    as_alice "crontab -l" >/dev/null 2>&1; then
	ok "reload through the init script"
else
	cat "$tmp/reload.log"
	fail "reload through the init script"
fi
# Stopped through the init script: crontab -l still shows alice's
# table, from the copy the daemon keeps, and says it may be stale;
# crontab -e says how to start the daemon, and changes nothing.
if in_root /etc/init.d/clustercron stop >"$tmp/stop.log" 2>&1 &&
    [ -z "$(in_root_named clustercron)" ] &&
    as_alice "crontab -l" >"$tmp/listed" 2>"$tmp/listed.err" &&
    cmp -s "$tmp/edited" "$tmp/listed" &&
    grep -q 'may be stale' "$tmp/listed.err" &&
    ! as_alice "EDITOR=/tmp/edit.sh crontab -e" >"$tmp/edit.log" 2>&1 &&
    grep -q '/etc/init.d/clustercron start' "$tmp/edit.log"; then
	ok "daemon stopped: crontab -l from the local copy, -e refused"
else
	cat "$tmp/stop.log" "$tmp/listed" "$tmp/listed.err" "$tmp/edit.log"
	fail "daemon stopped: crontab -l from the local copy, -e refused"
fi

if in_root /etc/init.d/clustercron start >"$tmp/start.log" 2>&1 &&
    [ -n "$(in_root_named clustercron)" ]; then
	ok "start through the init script"
else
	cat "$tmp/start.log"
	fail "start through the init script"
fi

if as_alice "crontab -r" >"$tmp/r.log" 2>&1 &&
    ! as_alice "crontab -l" >"$tmp/listed" 2>/dev/null &&
    [ ! -s "$tmp/listed" ]; then
	ok "crontab -r as alice"
else
	cat "$tmp/r.log" "$tmp/listed"
	fail "crontab -r as alice"
fi

# Removed: no daemon, socket, pid file or unit.
if apt_root remove clustercron >"$tmp/remove.log" 2>&1; then
	ok "apt-get remove clustercron"
else
	cat "$tmp/remove.log"
	fail "apt-get remove clustercron"
fi
left=
[ -z "$(in_root_named clustercron)" ] || left="$left a daemon,"
for f in /run/clustercron.sock /run/clustercron.pid \
    /lib/systemd/system/clustercron.service /usr/sbin/clustercron \
    /usr/bin/crontab; do
	[ -e "$root$f" ] || [ -h "$root$f" ] && left="$left $f,"
done
if [ -z "$left" ]; then
	ok "removed: no daemon, socket, pid file, unit or program left"
else
	cat "$tmp/remove.log"
	fail "removed, but left:$left"
fi
if apt_root purge clustercron >"$tmp/purge.log" 2>&1; then
	ok "apt-get purge clustercron"
else
	cat "$tmp/purge.log"
	fail "apt-get purge clustercron"
fi
left=$(cd "$root" && ls -d var/lib/clustercron/clustercron.db* \
    var/lib/clustercron/runs var/cache/clustercron etc/clustercron.conf etc/default/clustercron etc/init.d/clustercron \
    etc/rc[0-6S].d/*clustercron run/clustercron.* \
    etc/systemd/system/*/clustercron.service 2>/dev/null)
if [ -z "$left" ]; then
	ok "purged: no store, configuration, init script or links left"
else
	fail "purged, but left: $left"
fi
if cmp -s "$tmp/alice.spool" "$root/var/lib/clustercron/spool-imported/alice" &&
    grep -q 'spool-imported' "$tmp/purge.log"; then
	ok "purged: alice's imported table kept in /var/lib/clustercron/spool-imported"
else
	cat "$tmp/purge.log"
	fail "purged: alice's imported table kept"
fi

# Installed where the policy forbids starting daemons (a container's
# policy-rc.d): what the postinst says must be true, and its commands
# must work.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
cp "$tmp/alice.spool" "$root/var/spool/cron/crontabs/alice" &&
    in_root chown alice:crontab /var/spool/cron/crontabs/alice &&
    chmod 600 "$root/var/spool/cron/crontabs/alice" || exit 99
rm -f "$root/var/lib/clustercron/spool-imported/alice"
apt_root install "/tmp/${deb##*/}" >"$tmp/install2.log" 2>&1 ||
    { cat "$tmp/install2.log"; fatal "apt-get install, daemons forbidden"; }
if [ -z "$(in_root_named clustercron)" ] &&
    grep -q 'clustercron: the daemon is not running, so the users.* tables stay in /var/spool/cron/crontabs.*start it (service clustercron start) and run /usr/lib/clustercron/import-spool' "$tmp/install2.log" &&
    [ -f "$root/var/spool/cron/crontabs/alice" ]; then
	ok "daemons forbidden: the postinst says the daemon is not running"
else
	cat "$tmp/install2.log"
	fail "daemons forbidden: the postinst says the daemon is not running"
fi
printf '#!/bin/sh\nexit 0\n' >"$root/usr/sbin/policy-rc.d"
if in_root service clustercron start >"$tmp/start.log" 2>&1 &&
    [ -n "$(in_root_named clustercron)" ] &&
    in_root /usr/lib/clustercron/import-spool >"$tmp/import.log" 2>&1 &&
    grep -q 'imported the table of alice' "$tmp/import.log" &&
    as_alice "crontab -l" | cmp -s "$root/tmp/alice.tab" -; then
	ok "daemons forbidden: the commands the postinst names start and import"
else
	cat "$tmp/start.log" "$tmp/import.log"
	fail "daemons forbidden: the commands the postinst names"
fi
if apt_root purge clustercron >"$tmp/purge2.log" 2>&1 &&
    [ -z "$(in_root_named clustercron)" ]; then
	ok "apt-get purge with the daemon running stops it"
else
	cat "$tmp/purge2.log"
	fail "apt-get purge with the daemon running stops it"
fi

if [ "$failed" != 0 ] && [ -s "$tmp/syslog" ]; then
	echo "# syslog in the root:"
	tail -n 40 "$tmp/syslog" | sed 's/^/#   /'
fi
echo "# package-install.sh: $(($(date +%s) - t0)) s"
[ "$failed" = 0 ]
