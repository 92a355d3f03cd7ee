#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# package.sh: build the Debian package from a copy of the tree in a
# temporary directory (never in the source tree), as doc/migrating.md
# says (dpkg-buildpackage -us -uc -b), and check that the build left
# that copy unconfigured (tests/run-all.sh would accept it) and that
# debian/rules clean leaves it as it was.  Unpack the package into a
# scratch root with dpkg -x (nothing is installed on this machine, /etc
# is not touched) and check what it holds: clustercron next and ctab -T
# run from it, the unit, the init script, the configuration's mode, the
# control fields that make it a cron daemon, man cron reaching
# clustercron(8).  Then tests/package-install.sh installs it for real in
# a fresh Debian 12 chroot without systemd (as root, where a chroot can
# be made).  Run as root, it also starts the packaged daemon on a
# private configuration (its own store, socket, spool and pid file) and
# checks that the packaged import-spool moves a spool table into the
# store; the daemon is stopped from a trap.
#
# Not part of make check (it would run inside make distcheck):
#	sh tests/package.sh
# Exit status: 0 pass, 1 fail, 77 skip (no Debian build tools), 99
# error, and 99 instead of 77 when CI is set.  A part it cannot do here
# (lintian, man, git, root missing) is named in a "SKIP: part:" line,
# and is an error too when CI is set (tests/lib/skip.sh).
#
# With PACKAGE_BOOT=1, as root, it also installs the package on a clean
# Debian 12 booted with systemd in systemd-nspawn (a root cached as
# package-install.sh's is, with systemd added), with cron and a user's
# crontab on it: apt replaces cron, the unit (Type=notify) is enabled
# and running, the user's table was imported, and reload, stop and
# start work.  The container is powered off and removed at the end.

top=$(cd "$(dirname "$0")/.." && pwd) || exit 99
. "$top/tests/lib/skip.sh"
tmp=
dpid=
nspid=
failed=0

cleanup() {
	if [ -n "$dpid" ]; then
		kill "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
	fi
	boot_stop
	# Never remove a tree something is still mounted in.
	if [ -n "$tmp" ] && ! grep -q " $tmp/" /proc/self/mounts; then
		rm -rf "$tmp"
	elif [ -n "$tmp" ]; then
		echo "package.sh: $tmp still has mounts: left in place" >&2
	fi
}
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

# boot_test: the package installed on a booted clean Debian 12.
boot_test() {
	for tool in systemd-nspawn nsenter; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			fail "PACKAGE_BOOT: $tool not found" \
			    "(apt-get install systemd-container)"
			return
		fi
	done
	crondeb=
	for f in /var/cache/apt/archives/cron_*_"$(dpkg --print-architecture)".deb; do
		[ -f "$f" ] && crondeb=$f
	done
	if [ -z "$crondeb" ]; then
		(cd "$tmp" && apt-get download cron) >"$tmp/download.log" 2>&1
		for f in "$tmp"/cron_*.deb; do
			[ -f "$f" ] && crondeb=$f
		done
	fi
	[ -n "$crondeb" ] || { fail "PACKAGE_BOOT: no cron .deb"; return; }
	. "$top/tests/lib/debroot.sh"
	inc=$(for d in "$crondeb" "$deb"; do
		dpkg-deb -f "$d" Pre-Depends; echo; dpkg-deb -f "$d" Depends; echo
	    done | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' \
	    -e 's/[[:space:]]//g' | grep -v '^$' | grep -vx cron | sort -u |
	    tr '\n' ',')systemd,systemd-sysv,dbus
	if ! debroot_tarball "$inc"; then
		fail "PACKAGE_BOOT: $debroot_why"
		return
	fi
	broot=$tmp/boot
	mkdir "$broot" && tar -C "$broot" -xf "$debroot_tar" ||
	    { fail "unpack $debroot_tar"; return; }
	cp "$deb" "$crondeb" "$broot/root/" || { fail "copy the packages"; return; }
	systemd-nspawn -q --register=no --keep-unit -D "$broot" -b \
	    >"$tmp/nspawn.log" 2>&1 </dev/null &
	nspid=$!
	# The container's systemd is nspawn's child; wait until it is up.
	i=0 init=
	while :; do
		i=$((i + 1))
		if [ "$i" -gt 120 ] || ! kill -0 "$nspid" 2>/dev/null; then
			tail -n 20 "$tmp/nspawn.log"
			fail "the container did not boot"
			return
		fi
		[ -z "$init" ] && init=$(pgrep -P "$nspid" | head -n 1)
		if [ -n "$init" ]; then
			state=$(nsenter -t "$init" -a systemctl \
			    is-system-running 2>/dev/null)
			case $state in
			running|degraded) break ;;
			esac
		fi
		sleep 1
	done
	ok "a clean Debian 12 booted in systemd-nspawn"
	in_box() { nsenter -t "$init" -a /bin/sh -c "$1"; }

	in_box "export DEBIAN_FRONTEND=noninteractive
	    dpkg -i /root/${crondeb##*/} &&
	    useradd -m alice &&
	    printf 'MAILTO=\"\"\\n0 0 1 1 * echo alice\\n' >/root/alice.tab &&
	    crontab -u alice /root/alice.tab &&
	    systemctl is-active cron" >"$tmp/box-cron.log" 2>&1 ||
	    { cat "$tmp/box-cron.log"; fail "cron and a crontab"; return; }
	# The daemon tells systemd it is ready (Type=notify); a daemon that
	# does not would hold systemctl start for TimeoutStartSec, 90 s.
	if in_box "export DEBIAN_FRONTEND=noninteractive
	    apt-get -o Dpkg::Use-Pty=0 install -y --no-install-recommends \
	    /root/${deb##*/}" >"$tmp/box-install.log" 2>&1; then
		ok "apt-get install ./${deb##*/}"
	else
		cat "$tmp/box-install.log"
		fail "apt-get install ./${deb##*/}"
		return
	fi
	in_box "dpkg-query -W -f '\${Status}' cron 2>/dev/null |
	    grep -q ' installed'" && fail "cron is still installed"
	if in_box "systemctl is-enabled --quiet clustercron &&
	    systemctl is-active --quiet clustercron &&
	    [ \"\$(systemctl show -p Type --value clustercron)\" = notify ]"; then
		ok "clustercron.service (Type=notify) enabled and running"
	else
		in_box "systemctl status clustercron; journalctl -u clustercron"
		fail "clustercron.service enabled and running"
	fi
	grep -q 'not running' "$tmp/box-install.log" &&
	    fail "the postinst says the daemon is not running"
	if in_box "su alice -c 'crontab -l' | cmp -s - /root/alice.tab &&
	    [ ! -e /var/spool/cron/crontabs/alice ] &&
	    [ -f /var/lib/clustercron/spool-imported/alice ]"; then
		ok "alice's crontab imported into the store"
	else
		cat "$tmp/box-install.log"
		fail "alice's crontab imported into the store"
	fi
	if in_box "systemctl reload clustercron && systemctl stop clustercron &&
	    ! systemctl is-active --quiet clustercron &&
	    systemctl start clustercron &&
	    systemctl is-active --quiet clustercron"; then
		ok "reload, stop and start"
	else
		in_box "journalctl -u clustercron | tail -n 30"
		fail "reload, stop and start"
	fi
	if in_box "export DEBIAN_FRONTEND=noninteractive
	    apt-get -o Dpkg::Use-Pty=0 purge -y clustercron &&
	    ! systemctl is-active --quiet clustercron &&
	    [ ! -e /run/clustercron.sock ] &&
	    [ ! -e /etc/systemd/system/multi-user.target.wants/clustercron.service ]" \
	    >"$tmp/box-purge.log" 2>&1; then
		ok "apt-get purge: the unit stopped, disabled and gone"
	else
		cat "$tmp/box-purge.log"
		fail "apt-get purge: the unit stopped, disabled and gone"
	fi
	boot_stop
}

# Power the container off, and kill it if it takes too long.
boot_stop() {
	[ -n "$nspid" ] || return 0
	kill "$nspid" 2>/dev/null
	i=0
	while kill -0 "$nspid" 2>/dev/null && [ "$i" -lt 60 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill -9 "$nspid" 2>/dev/null
	wait "$nspid" 2>/dev/null
	nspid=
}

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=1; }

for tool in dpkg-buildpackage dpkg-deb dh fakeroot; do
	command -v "$tool" >/dev/null 2>&1 ||
	    skip "$tool not found: apt-get install dpkg-dev debhelper fakeroot"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clustercron-package.XXXXXX") || exit 99
src=$tmp/src/clustercron
mkdir -p "$src" || exit 99

# The copy: what git tracks and what it would track, so no build
# products of a tree configured in place come along.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
	    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
	    tar -cf - -T -) | (cd "$src" && tar -xf -) || exit 99
else
	(cd "$top" && tar -cf - --exclude='./build*' \
	    --exclude=./autom4te.cache --exclude='*.o' --exclude='*.a' .) |
	    (cd "$src" && tar -xf -) || exit 99
	if [ -f "$src/config.status" ]; then
		(cd "$src" && make distclean >/dev/null 2>&1)
	fi
fi

(cd "$src" && dpkg-checkbuilddeps) >"$tmp/deps.log" 2>&1 ||
    skip "$(cat "$tmp/deps.log")"

# The copy as a git repository of its own, to see what the build leaves.
gitc=
if command -v git >/dev/null 2>&1 &&
    (cd "$src" && git init -q && git add -A &&
    git -c user.name=package.sh -c user.email=package.sh@invalid \
    commit -q -m copy) >"$tmp/git.log" 2>&1; then
	gitc="git -C $src"
else
	skip_part "no git (or git init failed): what the build leaves" \
	    "and what debian/rules clean takes away are not checked"
fi

echo "# dpkg-buildpackage -us -uc -b in $src"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1
then
	tail -n 60 "$tmp/build.log"
	echo "not ok - dpkg-buildpackage"
	exit 1
fi
deb=
for f in "$tmp"/src/clustercron_*.deb; do
	[ -f "$f" ] && deb=$f
done
[ -n "$deb" ] || { echo "not ok - no .deb built"; exit 1; }
ok "built ${deb##*/}"

# Built as doc/migrating.md says, in the tree: the tree is not
# configured in place (tests/run-all.sh refuses that), what the build
# left is git-ignored, and debian/rules clean takes all of it away.
if [ -f "$src/config.status" ]; then
	fail "dpkg-buildpackage configured the tree in place"
else
	ok "dpkg-buildpackage leaves the tree unconfigured"
fi
if [ -n "$gitc" ]; then
	left=$($gitc status --porcelain)
	if [ -z "$left" ]; then
		ok "dpkg-buildpackage leaves nothing git does not ignore"
	else
		fail "dpkg-buildpackage leaves: $left"
	fi
	if (cd "$src" && fakeroot debian/rules clean) >"$tmp/clean.log" 2>&1 &&
	    left=$($gitc status --porcelain --ignored) && [ -z "$left" ]; then
		ok "debian/rules clean leaves the tree as it was"
	else
		cat "$tmp/clean.log"
		fail "debian/rules clean leaves: $left"
	fi
fi

# Lintian's errors (warnings are not failures).
if ! command -v lintian >/dev/null 2>&1; then
	skip_part "lintian not found: the package is not linted" \
	    "(apt-get install lintian)"
elif lintian --fail-on error "$deb" >"$tmp/lintian.log" 2>&1; then
	ok "lintian: no errors"
else
	cat "$tmp/lintian.log"
	fail "lintian: errors"
fi

# The control fields that make it a drop-in cron.
provides=$(dpkg-deb -f "$deb" Provides)
conflicts=$(dpkg-deb -f "$deb" Conflicts)
replaces=$(dpkg-deb -f "$deb" Replaces)
case " $provides," in
*" cron-daemon,"*) ok "Provides: $provides" ;;
*) fail "Provides: $provides" ;;
esac
for c in cron cronie bcron systemd-cron; do
	case " $conflicts," in
	*" $c,"*) ;;
	*) fail "Conflicts lacks $c: $conflicts" ;;
	esac
	case " $replaces," in
	*" $c,"*) ;;
	*) fail "Replaces lacks $c: $replaces" ;;
	esac
done

root=$tmp/root
dpkg-deb -x "$deb" "$root" || { echo "not ok - dpkg -x"; exit 1; }
cc=$root/usr/sbin/clustercron
ctab=$root/usr/bin/ctab

out=$(TZDIR=${TZDIR:-/usr/share/zoneinfo} "$cc" next -n 2 -z Europe/London \
    -f '2026-03-29 00:00' '30 1 * * *' 2>&1)
want='2026-03-29T02:00:00+01:00
2026-03-30T01:30:00+01:00'
if [ "$out" = "$want" ]; then
	ok "clustercron next from the package"
else
	fail "clustercron next from the package: got '$out'"
fi
if "$cc" next '61 * * * *' >/dev/null 2>&1; then
	fail "clustercron next accepts a bad expression"
else
	ok "clustercron next refuses a bad expression"
fi

if "$ctab" -T "$src/contrib/example.crontab"; then
	ok "ctab -T contrib/example.crontab from the package"
else
	fail "ctab -T contrib/example.crontab from the package"
fi
printf '0 0 * * * root true\n' >"$tmp/system.tab"
if "$ctab" -T -s "$tmp/system.tab"; then
	ok "ctab -T -s"
else
	fail "ctab -T -s"
fi
printf '61 * * * * true\n' >"$tmp/bad.tab"
if "$ctab" -T "$tmp/bad.tab" 2>/dev/null; then
	fail "ctab -T accepts a bad table"
else
	ok "ctab -T refuses a bad table"
fi

# What is installed around the programs.
unit=$root/lib/systemd/system/clustercron.service
if [ -f "$unit" ] && grep -qx 'Type=notify' "$unit" &&
    grep -qx 'ExecStart=/usr/sbin/clustercron -f $EXTRA_OPTS' "$unit" &&
    grep -qx 'EnvironmentFile=-/etc/default/clustercron' "$unit" &&
    grep -qx 'KillMode=process' "$unit" &&
    grep -qx 'Restart=on-failure' "$unit"; then
	ok "the systemd unit"
else
	cat "$unit"
	fail "the systemd unit"
fi
init=$root/etc/init.d/clustercron
if [ -x "$init" ] && sh -n "$init" &&
    grep -q '^### BEGIN INIT INFO' "$init" &&
    grep -qx '# Provides: *clustercron' "$init" &&
    grep -qx '# Default-Start: *2 3 4 5' "$init" &&
    [ -f "$root/etc/default/clustercron" ]; then
	ok "/etc/init.d/clustercron and /etc/default/clustercron"
else
	fail "/etc/init.d/clustercron and /etc/default/clustercron"
fi
# The maintainer scripts debhelper made: the daemon started and stopped
# through systemd where it runs (package-install.sh runs the rest).
dpkg-deb -e "$deb" "$tmp/control" || exit 99
if grep -q "deb-systemd-invoke \$_dh_action 'clustercron.service'" \
    "$tmp/control/postinst" &&
    grep -q "invoke-rc.d --skip-systemd-native clustercron \$_dh_action" \
    "$tmp/control/postinst" &&
    grep -q "deb-systemd-invoke stop 'clustercron.service'" \
    "$tmp/control/prerm" &&
    grep -q "invoke-rc.d --skip-systemd-native clustercron stop" \
    "$tmp/control/prerm"; then
	ok "postinst starts and prerm stops the daemon, with or without systemd"
else
	fail "postinst starts and prerm stops the daemon, with or without systemd"
fi
for a in start stop restart force-reload reload status; do
	grep -q "^$a[|)]\\|[|]$a)" "$init" || fail "the init script lacks $a"
done
if [ "$(stat -c %a "$root/etc/clustercron.conf" 2>/dev/null)" = 600 ]; then
	ok "/etc/clustercron.conf, mode 0600"
else
	fail "/etc/clustercron.conf, mode 0600"
fi
if [ "$(stat -c %a "$root/var/lib/clustercron" 2>/dev/null)" = 700 ]; then
	ok "/var/lib/clustercron, mode 0700"
else
	fail "/var/lib/clustercron, mode 0700"
fi
# The runner every job runs under, where the daemon looks for it, and
# the runs directory, the daemon's alone.
if [ -x "$root/usr/lib/clustercron/runner" ] &&
    grep -q /usr/lib/clustercron/runner "$cc" &&
    [ "$(stat -c %a "$root/var/lib/clustercron/runs" 2>/dev/null)" = 700 ]; then
	ok "/usr/lib/clustercron/runner, /var/lib/clustercron/runs mode 0700"
else
	fail "/usr/lib/clustercron/runner, /var/lib/clustercron/runs mode 0700"
fi
# The init script's stop signals the daemon of the pid file alone: the
# jobs run on under their runners.
if grep -q 'start-stop-daemon --stop .*--retry' "$init" &&
    grep -A1 'start-stop-daemon --stop .*--retry' "$init" |
    grep -q -- '--pidfile "$PIDFILE" --name "$NAME"'; then
	ok "the init script stops the daemon by its pid file alone"
else
	fail "the init script stops the daemon by its pid file alone"
fi
if [ "$(readlink "$root/usr/bin/crontab")" = ctab ]; then
	ok "crontab is ctab"
else
	fail "crontab is ctab"
fi
for m in man1/ctab.1.gz man5/ctab.5.gz man5/clustercron.conf.5.gz \
    man8/clustercron.8.gz; do
	[ -f "$root/usr/share/man/$m" ] || fail "no $m"
done
# at, atq, atrm and batch are ctab, with their page, in place of
# Debian's at (issue 15), which the package replaces.
for p in at atq atrm batch; do
	if [ "$(readlink "$root/usr/bin/$p")" = ctab ]; then
		ok "$p is ctab"
	else
		fail "$p is ctab"
	fi
done
[ -f "$root/usr/share/man/man1/at.1.gz" ] || fail "no man1/at.1.gz"
for p in atq atrm batch; do
	if [ "$(readlink "$root/usr/share/man/man1/$p.1.gz")" = at.1.gz ]; then
		ok "man $p is at(1)"
	else
		fail "man $p is at(1)"
	fi
done
for f in Provides Conflicts Replaces; do
	if dpkg-deb -f "$deb" "$f" | tr ',' '\n' | grep -qx ' *at *'; then
		ok "$f: at"
	else
		fail "$f: at"
	fi
done
# man cron and man 8 cron reach clustercron(8), as Debian's cron names
# its page cron(8) (package-install.sh installs the package beside
# cron-daemon-common, whose files the links must not clash with).
if [ "$(readlink "$root/usr/share/man/man8/cron.8.gz")" = clustercron.8.gz ]
then
	ok "man8/cron.8.gz is clustercron.8.gz"
else
	fail "man8/cron.8.gz is clustercron.8.gz"
fi
if command -v man >/dev/null 2>&1; then
	for args in "cron" "8 cron"; do
		title=$(MANPATH=$root/usr/share/man MANPAGER=cat MANWIDTH=80 \
		    man $args 2>/dev/null | sed -n 1p)
		case $title in
		CLUSTERCRON\(8\)*) ok "man $args shows clustercron(8)" ;;
		*) fail "man $args shows '$title'" ;;
		esac
	done
else
	skip_part "man not found: man cron is not tried (apt-get install man-db)"
fi
dpkg-deb -f "$deb" Pre-Depends | grep -q cron-daemon-common ||
    fail "Pre-Depends lacks cron-daemon-common"
ls "$root"/usr/share/doc/clustercron/migrating.md* >/dev/null 2>&1 ||
    fail "no /usr/share/doc/clustercron/migrating.md"

# The package installed, run, removed and purged in a fresh Debian 12
# chroot without systemd.
sh "$top/tests/package-install.sh" "$deb"
rc=$?
case $rc in
0) ;;
77) skip_part "package-install.sh skipped: the package is not installed" ;;
*) fail "package-install.sh (exit $rc)" ;;
esac

# The import of spool tables, against the packaged daemon on a private
# configuration.  It needs root: only root installs other users' tables.
if [ "$(id -u)" != 0 ]; then
	skip_part "not root: the import of spool tables is not tested"
	[ "$failed" = 0 ] && exit 0
	exit 1
fi
user=nobody
getent passwd "$user" >/dev/null || { echo "# no user $user"; exit 99; }
run=$tmp/run
mkdir -p "$run/spool" "$run/saved" && chmod 755 "$run" || exit 99
# The store in a directory of its own: the daemon refuses one that
# others can read.
mkdir -m 700 "$run/db" || exit 99
cat >"$run/clustercron.conf" <<EOF
store = sqlite:$run/db/clustercron.db
ctab-socket = $run/ctab.sock
spool-dir = $run/spool
crontab =
crontab-dir =
pidfile = $run/clustercron.pid
reboot-file = $run/reboot
sendmail =
runner = $root/usr/lib/clustercron/runner
runs-dir = $run/runs
EOF
# A job that will not come due while the test runs.
printf 'MAILTO=""\n0 0 1 1 * echo from the spool\n' >"$run/spool/$user"
chown "$user" "$run/spool/$user" && chmod 600 "$run/spool/$user" || exit 99
cp "$run/spool/$user" "$run/expected"

"$cc" -f -c "$run/clustercron.conf" >"$run/daemon.log" 2>&1 &
dpid=$!
i=0
while [ ! -S "$run/ctab.sock" ]; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
		cat "$run/daemon.log"
		echo "not ok - the packaged daemon did not open its socket"
		exit 1
	fi
	sleep 0.1
done
ok "the packaged daemon runs"

CTAB=$ctab CTAB_SOCKET=$run/ctab.sock \
    sh "$root/usr/lib/clustercron/import-spool" "$run/spool" "$run/saved" \
    >"$run/import.log" 2>&1
if [ ! -e "$run/spool/$user" ] && cmp -s "$run/expected" "$run/saved/$user" &&
    CTAB_SOCKET=$run/ctab.sock "$ctab" -u "$user" -l >"$run/listed" &&
    cmp -s "$run/expected" "$run/listed"; then
	ok "import-spool moves a spool table into the store"
else
	cat "$run/import.log" "$run/daemon.log"
	fail "import-spool moves a spool table into the store"
fi

kill "$dpid"
wait "$dpid"
dpid=

[ "${PACKAGE_BOOT:-}" = 1 ] && boot_test
[ "$failed" = 0 ]
