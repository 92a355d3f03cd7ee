#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-mysql.sh: the store refuses a Galera cluster.  Galera certifies
# each writer's transactions at commit instead of serialising writers
# through row locks, so two nodes writing through two Galera members
# could both win one claim.  A real one-node Galera cluster is started
# on a private data directory, socket and loopback port; opening the
# store on it must fail at once, before anything is written, with a
# message that says Galera is not supported and what is.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"

GALERA=
for _p in /usr/lib/galera/libgalera_smm.so /usr/lib/libgalera_smm.so \
    /usr/lib64/galera-4/libgalera_smm.so /usr/lib64/galera/libgalera_smm.so
do
	if [ -f "$_p" ]; then
		GALERA=$_p
		break
	fi
done
[ -n "$GALERA" ] ||
    skip "no Galera provider installed (Debian: galera-4)"

mdb_init

# A loopback port for Galera's group channel, with the next one (its
# state-transfer port) free too: none listening now, by /proc.
listening()
{
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
	    awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }'
}
free_port()
{
	_busy=$(listening)
	_i=0
	while [ $_i -lt 50 ]; do
		_p=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 30000 + 20000 ))
		_h=$(printf '%04X' $_p)
		_h1=$(printf '%04X' $((_p + 1)))
		if ! printf '%s\n' "$_busy" | grep -qx -e "$_h" -e "$_h1"; then
			echo $_p
			return 0
		fi
		_i=$((_i + 1))
	done
	return 1
}
PORT=$(free_port) || mdb_fail "no free loopback port"

"$MDB_SERVER" --no-defaults --datadir="$T/data" \
    --socket="$MDB_SOCK" --pid-file="$T/mariadbd.pid" \
    --log-error="$T/mariadbd.log" --skip-networking \
    --user="$MDB_USER" --innodb-buffer-pool-size=32M \
    --skip-name-resolve --skip-log-bin --performance-schema=OFF \
    --tmpdir="$T/tmp" \
    --wsrep-on=ON --wsrep-provider="$GALERA" \
    --wsrep-cluster-address=gcomm:// --wsrep-new-cluster \
    --wsrep-cluster-name=cctest --wsrep-node-address=127.0.0.1 \
    --wsrep-provider-options="base_host=127.0.0.1;base_port=$PORT;gmcast.listen_addr=tcp://127.0.0.1:$PORT;gcache.size=16M" \
    --binlog-format=ROW --default-storage-engine=InnoDB \
    --innodb-autoinc-lock-mode=2 \
    >>"$T/mariadbd.out" 2>&1 &
MDB_PID=$!
if ! mdb_wait mdb_up || mdb_dead; then
	cat "$T/mariadbd.out" >&2
	mdb_dead && MDB_PID=
	mdb_fail "the Galera node did not start"
fi
"$MDB_CLIENT" --no-defaults --socket="$MDB_SOCK" -uroot <<EOF \
    >>"$T/install.log" 2>&1 || mdb_fail "cannot create user"
CREATE DATABASE cctest;
CREATE USER 'cctest'@'localhost' IDENTIFIED BY '$MDB_PASS';
GRANT ALL ON cctest.* TO 'cctest'@'localhost';
EOF
# It is a Galera node: wsrep on and a primary component of one.
on=$(mdb_sql "SELECT @@GLOBAL.wsrep_on")
size=$(mdb_sql "SHOW STATUS LIKE 'wsrep_cluster_size'" | awk '{ print $2 }')
[ "$on" = 1 ] && [ "$size" = 1 ] ||
    mdb_fail "not a Galera node (wsrep_on '$on', cluster size '$size')"

CLAIMER=${top_builddir:-.}/tests/integration/claimer
if "$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >"$T/open.out" 2>"$T/open.err"
then
	mdb_fail "the store opened on a Galera cluster"
fi
msg=$(cat "$T/open.err")
echo "$0: refused: $msg"
for want in 'Galera' 'not supported' 'multi-writer' 'one MariaDB/MySQL primary'
do
	case $msg in
	*"$want"*)	;;
	*)	mdb_fail "the refusal does not say '$want'" ;;
	esac
done
# Refused before the schema was created: nothing was written.
tables=$(mdb_sql "SHOW TABLES")
[ -z "$tables" ] || mdb_fail "tables were created: $tables"
exit 0
