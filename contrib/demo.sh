#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# demo.sh: on a fresh Debian machine, as root, from the top of the
# tree: install what is needed, build, and run the daemon in the
# foreground on the embedded SQLite store with the example table (and
# a job every ten seconds, so that something happens at once).  Its
# files go to a directory under /tmp; ^C stops it.

set -e
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $(cat contrib/debian-packages) >/dev/null
else
	echo "demo.sh: not root: installing nothing, running as $(id -un)"
fi
[ -x configure ] || autoreconf -fi
# Out of tree, so that tests/run-all.sh still finds the tree clean; in
# place only when someone already configured it so.
if [ -f config.status ]; then
	b=.
else
	b=build-demo
	mkdir -p "$b"
	[ -f "$b/Makefile" ] || (cd "$b" && ../configure -q)
fi
make -C "$b" -j2 >/dev/null

d=$(mktemp -d /tmp/clustercron-demo.XXXXXX)
chmod 755 "$d"
user=$(id -un)
# The example table as the user's table in a spool of its own, and a job
# every ten seconds writing to $d/demo.out.
mkdir -p "$d/spool"
{
	cat contrib/example.crontab
	echo 'MAILTO=""'
	echo "CLUSTERCRON_SCOPE=cluster"
	echo "CLUSTERCRON_SECONDS=yes"
	echo "*/10 * * * * * echo \"fire \$CLUSTERCRON_FIRE_TIME\" >>$d/demo.out"
} >"$d/spool/$user"
chmod 600 "$d/spool/$user"
cat >"$d/clustercron.conf" <<EOC
store = sqlite:$d/clustercron.db
crontab =
crontab-dir =
spool-dir = $d/spool
pidfile = $d/clustercron.pid
reboot-file = $d/reboot
ctab-socket = $d/ctab.sock
sendmail =
EOC
"$b/ctab/ctab" -T "$d/spool/$user"
echo "demo.sh: the table is $d/spool/$user; try, from another terminal:"
echo "    CTAB_SOCKET=$d/ctab.sock $b/ctab/ctab -e"
echo "    tail -f $d/demo.out"
exec "$b/clustercron/clustercron" -f -c "$d/clustercron.conf"
