#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-mysql.sh: the store on a real one-node Galera cluster, started
# on a private data directory, socket and loopback port (the three-node
# tests are tests/integration/galera-*.sh).  The store opens there (it
# refused Galera before issue 14) and its claims, single and batched,
# have one winner each; an open that finds the schema current runs no
# DDL (on Galera any DDL runs on every server in total order and aborts
# writes cluster-wide), checked by the server's statement counters; a
# node that lets a minority go on (pc.ignore_sb) or a read-only server
# is refused at open with one line naming the setting; one whose binary
# log format is not ROW, or a table of the store not InnoDB, likewise.

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
root() { "$MDB_CLIENT" --no-defaults --socket="$MDB_SOCK" -uroot -N -B -e "$1"; }
counters()
{
	root "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_create_table',
	    'Com_alter_table', 'Com_create_index', 'Com_drop_table')" |
	    awk '{ n += $2 } END { print n + 0 }'
}
# refused WHAT WANT...: opening the store fails, saying each WANT.
refused()
{
	_what=$1
	shift
	if "$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >"$T/open.out" 2>"$T/open.err"
	then
		mdb_fail "the store opened on $_what"
	fi
	_msg=$(cat "$T/open.err")
	echo "$0: $_what: $_msg"
	[ "$(wc -l <"$T/open.err")" -eq 1 ] ||
	    mdb_fail "$_what: not one line"
	for _want in "$@"; do
		case $_msg in
		*"$_want"*)	;;
		*)	mdb_fail "$_what: the refusal does not say '$_want'" ;;
		esac
	done
}

# Accepted: the schema is made, the claims have one winner.
"$CLAIMER" register "$MDB_URL" "$MDB_CNF" 3 >"$T/reg.out" 2>&1 ||
    { cat "$T/reg.out"; mdb_fail "the store did not open on a Galera node"; }
for node in a b; do
	"$CLAIMER" claim "$MDB_URL" "$MDB_CNF" $node 3 0 4 "$T/won.$node" \
	    single >"$T/claim.$node" 2>&1 ||
	    { cat "$T/claim.$node"; mdb_fail "node $node could not claim"; }
done
# And batched (FOR UPDATE SKIP LOCKED, its reads causal).
for node in c d; do
	"$CLAIMER" claim "$MDB_URL" "$MDB_CNF" $node 3 5 9 "$T/won.$node" \
	    batch >"$T/claim.$node" 2>&1 ||
	    { cat "$T/claim.$node"; mdb_fail "node $node could not claim"; }
done
won=$(cat "$T"/won.* 2>/dev/null | wc -l)
[ "$won" -eq 30 ] || mdb_fail "$won fires won of 30"
[ -z "$(cat "$T"/won.* | awk '{ print $1, $2 }' | sort | uniq -d)" ] ||
    mdb_fail "a fire won twice"
echo "$0: opened; 30 fires won once each, singly and in batches"

# No DDL at an open that finds the schema current.
before=$(counters)
"$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >"$T/jobs.out" 2>&1 ||
    { cat "$T/jobs.out"; mdb_fail "the store did not open again"; }
after=$(counters)
[ "$before" = "$after" ] ||
    mdb_fail "an open of a current store ran DDL ($before -> $after)"
echo "$0: a second open ran no DDL"

# Unsafe set-ups, each refused naming its setting.
root "SET GLOBAL wsrep_provider_options = 'pc.ignore_sb=true'" ||
    mdb_fail "cannot set pc.ignore_sb"
refused "pc.ignore_sb" "pc.ignore_sb" "minority"
root "SET GLOBAL wsrep_provider_options = 'pc.ignore_sb=false'"
"$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >/dev/null 2>&1 ||
    mdb_fail "not opened again once pc.ignore_sb is off"
root "SET GLOBAL read_only = ON" || mdb_fail "cannot set read_only"
refused "read_only" "read-only" "one primary, a Galera cluster"
root "SET GLOBAL read_only = OFF"
if root "SET GLOBAL binlog_format = 'MIXED'" 2>"$T/binlog.err"; then
	refused "binlog_format MIXED" "binlog_format" "ROW"
	root "SET GLOBAL binlog_format = 'ROW'"
else
	echo "$0: the server refuses binlog_format MIXED itself:" \
	    "$(cat "$T/binlog.err")"
fi
"$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >/dev/null 2>&1 ||
    mdb_fail "not opened again once the settings are safe"
# A table of the store turned to another engine is not replicated.
root "ALTER TABLE cctest.meta ENGINE = MyISAM" ||
    mdb_fail "cannot make meta MyISAM"
refused "meta in MyISAM" "table meta" "MyISAM" "InnoDB tables only"
root "ALTER TABLE cctest.meta ENGINE = InnoDB"
"$CLAIMER" jobs "$MDB_URL" "$MDB_CNF" >/dev/null 2>&1 ||
    mdb_fail "not opened again once every table is InnoDB"
exit 0
