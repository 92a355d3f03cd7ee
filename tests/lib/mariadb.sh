# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# mariadb.sh: start a private MariaDB server for one test.  Source it
# from a POSIX sh test after setting nothing; it defines
#
#	mdb_init	make $T (the test's temporary directory), install a
#			data directory there and register the clean-up trap
#	mdb_start	start mariadbd on a private unix socket (no TCP) and
#			wait, with a limit, until it answers; create the
#			databases "cctest" and "cctest2" (empty, for
#			tests that need a second) and the user "cctest" whose
#			password is kept only in the option file $MDB_CNF
#			(mode 0600, group [client])
#	mdb_stop	stop the server by its pid and wait for it to go
#	mdb_kill	kill -9 the server (no clean shutdown)
#	mdb_sql SQL	run SQL as the test user, for the server's own
#			business, never on clustercron's tables
#	mdb_fail MSG	print MSG, the server's error log, and exit 1
#
# and the variables T, MDB_SOCK, MDB_CNF, MDB_URL and MDB_URL2 (store
# URLs for clustercron).  Without a server binary the test is skipped
# (skip, tests/lib/skip.sh: an error when CI is set).  mdb_sql is for
# the server's own business (its variables, its users); clustercron's
# tables are read through tests/daemon/ccstore, as the daemons read
# them.  Nothing sleeps and hopes: every wait polls a condition with a
# limit.

. "${top_srcdir:-.}/tests/lib/skip.sh"

MDB_LIMIT=${MDB_LIMIT:-60}	# seconds to wait for start or stop

mdb_find()
{
	for _d in /usr/sbin /usr/libexec /usr/local/sbin /usr/bin; do
		if [ -x "$_d/$1" ]; then
			echo "$_d/$1"
			return 0
		fi
	done
	command -v "$1" 2>/dev/null
}

mdb_fail()
{
	echo "$0: $*" >&2
	if [ -n "${T:-}" ] && [ -f "$T/mariadbd.log" ]; then
		echo "---- $T/mariadbd.log" >&2
		tail -n 40 "$T/mariadbd.log" >&2
	fi
	exit 1
}

mdb_cleanup()
{
	_rc=$?
	if [ -n "${MDB_PID:-}" ]; then
		kill -9 "$MDB_PID" 2>/dev/null
		wait "$MDB_PID" 2>/dev/null
	fi
	if [ $_rc -ne 0 ] && [ $_rc -ne 77 ] && [ -n "${T:-}" ]; then
		for _f in "$T"/*.log; do
			[ -f "$_f" ] || continue
			echo "---- $_f" >&2
			tail -n 30 "$_f" >&2
		done
	fi
	if [ -n "${T:-}" ] && [ -z "${KEEP_TMP:-}" ]; then
		rm -rf "$T"
	fi
	exit $_rc
}

mdb_init()
{
	MDB_SERVER=$(mdb_find mariadbd)
	[ -n "$MDB_SERVER" ] || MDB_SERVER=$(mdb_find mysqld)
	MDB_INSTALL=$(mdb_find mariadb-install-db)
	[ -n "$MDB_INSTALL" ] || MDB_INSTALL=$(mdb_find mysql_install_db)
	MDB_ADMIN=$(mdb_find mariadb-admin)
	[ -n "$MDB_ADMIN" ] || MDB_ADMIN=$(mdb_find mysqladmin)
	MDB_CLIENT=$(mdb_find mariadb)
	[ -n "$MDB_CLIENT" ] || MDB_CLIENT=$(mdb_find mysql)
	if [ -z "$MDB_SERVER" ] || [ -z "$MDB_INSTALL" ] ||
	    [ -z "$MDB_ADMIN" ] || [ -z "$MDB_CLIENT" ]; then
		skip "no MariaDB server installed (Debian: mariadb-server)"
	fi
	# Unix socket paths are limited to about 107 bytes: keep T short.
	T=$(mktemp -d "${TMPDIR:-/tmp}/ccdb.XXXXXX") || exit 99
	trap mdb_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	MDB_SOCK=$T/sock
	MDB_CNF=$T/client.cnf
	MDB_USER=$(id -un)
	MDB_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	# A private tmpdir: in the shared /tmp, the bootstrap's temporary
	# tables were seen to vanish under it while other tests ran.
	mkdir -p "$T/tmp"
	if ! "$MDB_INSTALL" --no-defaults --datadir="$T/data" \
	    --auth-root-authentication-method=normal --skip-test-db \
	    --skip-name-resolve --user="$MDB_USER" --tmpdir="$T/tmp" \
	    >"$T/install.log" 2>&1 || [ ! -d "$T/data/mysql" ]; then
		cat "$T/install.log" >&2
		mdb_fail "mariadb-install-db failed"
	fi
	(umask 077 && cat >"$MDB_CNF" <<EOF
[client]
user=cctest
password=$MDB_PASS
socket=$MDB_SOCK
EOF
	)
	MDB_URL="mysql:///cctest?socket=$MDB_SOCK"
	MDB_URL2="mysql:///cctest2?socket=$MDB_SOCK"
}

# mdb_wait CMD...: run CMD every 0.1 s until it succeeds or the limit.
mdb_wait()
{
	_n=0
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n + 1))
		if [ $_n -ge $((MDB_LIMIT * 10)) ]; then
			return 1
		fi
		sleep 0.1
	done
	return 0
}

mdb_alive()
{
	"$MDB_ADMIN" --no-defaults --socket="$MDB_SOCK" -uroot \
	    --connect-timeout=2 ping
}

# mdb_up: the server answers, or has died (mdb_start tells which).
mdb_up()
{
	mdb_dead || mdb_alive
}

mdb_start()
{
	"$MDB_SERVER" --no-defaults --datadir="$T/data" \
	    --socket="$MDB_SOCK" --pid-file="$T/mariadbd.pid" \
	    --log-error="$T/mariadbd.log" --skip-networking \
	    --user="$MDB_USER" --innodb-buffer-pool-size=32M \
	    --innodb-log-file-size=48M --skip-name-resolve \
	    --max-connections=200 --innodb-lock-wait-timeout=10 \
	    --skip-log-bin --performance-schema=OFF --tmpdir="$T/tmp" \
	    >>"$T/mariadbd.out" 2>&1 &
	MDB_PID=$!
	if ! mdb_wait mdb_up; then
		if mdb_dead; then
			MDB_PID=
			mdb_fail "mariadbd exited"
		fi
		mdb_fail "mariadbd did not answer within ${MDB_LIMIT}s"
	fi
	if [ -z "${MDB_READY:-}" ]; then
		"$MDB_CLIENT" --no-defaults --socket="$MDB_SOCK" -uroot <<EOF \
		    >>"$T/install.log" 2>&1 || mdb_fail "cannot create user"
CREATE DATABASE cctest;
CREATE DATABASE cctest2;
CREATE USER 'cctest'@'localhost' IDENTIFIED BY '$MDB_PASS';
GRANT ALL ON cctest.* TO 'cctest'@'localhost';
GRANT ALL ON cctest2.* TO 'cctest'@'localhost';
EOF
		MDB_READY=1
	fi
}

mdb_dead()
{
	! kill -0 "$MDB_PID" 2>/dev/null
}

mdb_stop()
{
	[ -n "${MDB_PID:-}" ] || return 0
	kill "$MDB_PID" 2>/dev/null
	wait "$MDB_PID" 2>/dev/null
	MDB_PID=
}

mdb_kill()
{
	[ -n "${MDB_PID:-}" ] || return 0
	kill -9 "$MDB_PID" 2>/dev/null
	wait "$MDB_PID" 2>/dev/null
	MDB_PID=
}

# mdb_root SQL: SQL run as the server's root (no password, its socket).
mdb_root()
{
	"$MDB_CLIENT" --no-defaults --socket="$MDB_SOCK" -uroot -N -B -e "$1"
}

mdb_sql()
{
	"$MDB_CLIENT" --defaults-file="$MDB_CNF" -N -B cctest -e "$1"
}
