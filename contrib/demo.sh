#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# demo.sh: on a fresh Debian machine, as root, from the top of the
# tree: install what building and running need (contrib/debian-packages,
# not the test toolchain), build out of tree, start the daemon in the
# foreground on the embedded SQLite store, and install the example
# table (with a job every five seconds, so that something happens at
# once) through ctab, as the invoking user's table: ctab -l shows it
# and ctab -e edits it.  Its files go to a new directory under /tmp;
# ^C stops the daemon.
#
# CLUSTERCRON_DEMO_BUILD=DIR runs the demo on the build in DIR, with
# nothing installed or built (tests/demo.sh does so).

set -e
cd "$(dirname "$0")/.."
top=$(pwd)
say() { echo "demo.sh: $*"; }

d=$(mktemp -d "${TMPDIR:-/tmp}/clustercron-demo.XXXXXX")
# Others may reach the socket by name, not list the store beside it.
chmod 711 "$d"

if [ -n "${CLUSTERCRON_DEMO_BUILD:-}" ]; then
	b=$CLUSTERCRON_DEMO_BUILD
else
	if [ "$(id -u)" -ne 0 ]; then
		say "not root: installing nothing, running as $(id -un)"
	elif dpkg-query -W -f '${Status}\n' $(cat contrib/debian-packages) \
	    2>/dev/null | grep -c ' installed$' |
	    grep -qx "$(grep -c . contrib/debian-packages)"; then
		say "the packages of contrib/debian-packages are installed"
	else
		say "installing contrib/debian-packages with apt-get"
		export DEBIAN_FRONTEND=noninteractive
		{ apt-get update -qq &&
		    apt-get install -y -qq $(cat contrib/debian-packages); } \
		    >"$d/apt.log" 2>&1 || { cat "$d/apt.log"; exit 1; }
	fi
	[ -x configure ] || autoreconf -fi >"$d/autoreconf.log" 2>&1 ||
	    { cat "$d/autoreconf.log"; exit 1; }
	# Out of tree, so that tests/run-all.sh still finds the tree clean;
	# in place only when someone already configured it so.
	if [ -f config.status ]; then
		b=.
	else
		b=build-demo
		mkdir -p "$b"
		[ -f "$b/Makefile" ] || (cd "$b" && ../configure -q)
	fi
	say "building in $(cd "$b" && pwd)"
	make -C "$b" -j2 >/dev/null
fi
b=$(cd "$b" && pwd)
cc=$b/clustercron/clustercron
ctab=$b/ctab/ctab
runner=$b/runner/runner

# The example table and a job every five seconds writing to
# $d/demo.out.
{
	cat contrib/example.crontab
	echo
	echo '# Every five seconds, on one node of the cluster.'
	echo 'MAILTO=""'
	echo "CLUSTERCRON_SCOPE=cluster"
	echo "CLUSTERCRON_SECONDS=yes"
	echo "*/5 * * * * * echo \"fire \$CLUSTERCRON_FIRE_TIME\" >>$d/demo.out"
} >"$d/demo.crontab"
"$ctab" -T "$d/demo.crontab"
cat >"$d/clustercron.conf" <<EOC
store = sqlite:$d/clustercron.db
crontab =
crontab-dir =
spool-dir =
pidfile = $d/clustercron.pid
reboot-file = $d/reboot
ctab-socket = $d/ctab.sock
ctab-copy-dir = $d/copies
sendmail =
runner = $runner
runs-dir = $d/runs
EOC

# The daemon first: ctab installs the table through its socket.
"$cc" -f -c "$d/clustercron.conf" &
dpid=$!
trap 'kill "$dpid" 2>/dev/null; wait "$dpid"; exit 0' INT TERM HUP
i=0
until [ -S "$d/ctab.sock" ]; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
		say "the daemon did not start"
		exit 1
	fi
	sleep 0.1
done
CTAB_SOCKET=$d/ctab.sock "$ctab" "$d/demo.crontab"
say "the daemon runs $d/demo.crontab, installed with ctab"
say "as $(id -un)'s table; from another terminal, as $(id -un):"
echo "    CTAB_SOCKET=$d/ctab.sock $ctab -l"
echo "    CTAB_SOCKET=$d/ctab.sock $ctab -e"
echo "    tail -f $d/demo.out"
echo "    $cc jobs -c $d/clustercron.conf"
say "^C stops it; its files stay in $d"
wait "$dpid"
