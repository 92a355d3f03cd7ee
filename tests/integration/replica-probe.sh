#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# replica-probe.sh: what a client with the store's privileges (ALL on
# its database, nothing global) can tell of a MariaDB server that
# replicates, on a real primary and replica started here (plain servers
# of tests/lib/galera.sh), through tests/integration/sqlrace probe:
#   - a server alone is "single";
#   - a primary with a connected asynchronous replica is
#     "primary+async" (status Slaves_connected, readable by anyone);
#   - the replica is "replica" while its threads run (Slaves_running),
#     or when read_only is set; with its threads stopped and read_only
#     off it looks single, unless the user may run SHOW SLAVE STATUS
#     (SLAVE MONITOR: refused with 1227 without it);
#   - semi-synchronous replication with rpl_semi_sync_master_wait_point
#     AFTER_SYNC, in force, makes the primary "primary+semisync-after-
#     sync"; AFTER_COMMIT is "primary+async" again; semi-sync fallen
#     back to asynchronous after rpl_semi_sync_master_timeout (its
#     replica gone) is "primary+semisync-off";
#   - SHOW SLAVE HOSTS needs REPLICATION MASTER ADMIN (1227 without).
# And a Galera node is "galera".

. "${top_srcdir:-.}/tests/lib/galera.sh"
SQLRACE=${top_builddir:-.}/tests/integration/sqlrace
gal_init 2
REPL_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')

gal_plain p1 --server-id=1 --log-bin=primary --binlog-format=ROW
gal_plain p2 --server-id=2 --log-bin=replica --binlog-format=ROW

# probe NODE NAME: probe NODE, keep the report as $T/NAME, show it.
probe()
{
	eval "_c=\$GAL_CNF_$1"
	"$SQLRACE" probe "$_c" >"$T/$2" 2>&1 || gal_fail "probe: $(cat "$T/$2")"
	grep -E '^(class|read only|replication status|semisync|show)' \
	    "$T/$2" | sed "s/^/$2: /"
}

# class NAME WANT
class()
{
	_got=$(sed -n 's/^class: //p' "$T/$1")
	[ "$_got" = "$2" ] || gal_fail "$1: class '$_got', not '$2'"
}

# line NAME KEY PATTERN: the report's KEY line matches the egrep PATTERN.
line()
{
	sed -n "s/^$2: //p" "$T/$1" | grep -Eq -- "$3" ||
	    gal_fail "$1: $2: $(sed -n "s/^$2: //p" "$T/$1")"
}

slave_status()
{
	"$MDB_CLIENT" --no-defaults --socket="$GAL_SOCK_p2" -uroot -E \
	    -e "SHOW SLAVE STATUS" | awk -v k="$1:" '$1 == k { print $2 }'
}

replicating()
{
	[ "$(slave_status Slave_IO_Running)" = Yes ] &&
	    [ "$(slave_status Slave_SQL_Running)" = Yes ]
}

probe p1 alone-1
class alone-1 single
probe p2 alone-2
class alone-2 single
line alone-2 'show slave status' 'error 1227 .*SLAVE MONITOR'
line alone-1 'show slave hosts' 'error 1227 .*REPLICATION MASTER ADMIN'

# p2 replicates p1, asynchronously.
gal_root p1 "SET SESSION sql_log_bin = 0;
    CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY '$REPL_PASS';
    GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'" ||
    gal_fail "cannot create the replication user"
gal_root p2 "CHANGE MASTER TO MASTER_HOST = '127.0.0.1',
    MASTER_PORT = $GAL_PORT_p1, MASTER_USER = 'repl',
    MASTER_PASSWORD = '$REPL_PASS', MASTER_USE_GTID = slave_pos;
    START SLAVE" || gal_fail "cannot start the replica"
gal_wait replicating || gal_fail "p2 does not replicate p1"
gal_sql p1 "CREATE TABLE t (k INT PRIMARY KEY); INSERT INTO t VALUES (1)"
gal_wait eval '[ "$(gal_sql p2 "SELECT COUNT(*) FROM t")" = 1 ]' ||
    gal_fail "the write did not reach the replica"
probe p1 async-primary
class async-primary primary+async
probe p2 async-replica
class async-replica replica
line async-replica 'replication status' 'SLAVES_RUNNING VARIABLE_VALUE=1'

# Its threads stopped, read_only off: it looks alone to the store's user;
# SLAVE MONITOR shows it.  read_only shows it to anyone.
gal_root p2 "STOP SLAVE" || gal_fail "STOP SLAVE"
probe p2 stopped-replica
class stopped-replica single
gal_root p2 "GRANT SLAVE MONITOR ON *.* TO 'cctest'@'localhost'" ||
    gal_fail "grant SLAVE MONITOR"
probe p2 stopped-replica-monitor
class stopped-replica-monitor replica
line stopped-replica-monitor 'show slave status' '^1 rows'
gal_root p2 "REVOKE SLAVE MONITOR ON *.* FROM 'cctest'@'localhost';
    SET GLOBAL read_only = 1" || gal_fail "read_only"
probe p2 read-only
class read-only replica
gal_root p2 "SET GLOBAL read_only = 0; START SLAVE" || gal_fail "START SLAVE"
gal_wait replicating || gal_fail "p2 does not replicate p1 again"

# REPLICATION MASTER ADMIN lets the user list the replicas.
gal_root p1 "GRANT REPLICATION MASTER ADMIN ON *.* TO 'cctest'@'localhost'" ||
    gal_fail "grant REPLICATION MASTER ADMIN"
probe p1 hosts
line hosts 'show slave hosts' '^1 rows .*Server_id=2'
gal_root p1 "REVOKE REPLICATION MASTER ADMIN ON *.* FROM 'cctest'@'localhost'"

# Semi-synchronous, AFTER_SYNC.
ss_on()
{
	[ "$(gal_status p1 Rpl_semi_sync_master_status)" = ON ] &&
	    [ "$(gal_status p1 Rpl_semi_sync_master_clients)" = 1 ]
}
gal_root p1 "SET GLOBAL rpl_semi_sync_master_enabled = ON;
    SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC;
    SET GLOBAL rpl_semi_sync_master_timeout = 2000" ||
    gal_fail "semi-sync on the primary"
gal_root p2 "SET GLOBAL rpl_semi_sync_slave_enabled = ON;
    STOP SLAVE IO_THREAD; START SLAVE IO_THREAD" ||
    gal_fail "semi-sync on the replica"
gal_wait ss_on || gal_fail "semi-sync does not come on"
gal_sql p1 "INSERT INTO t VALUES (2)" || gal_fail "write"
probe p1 semisync
class semisync primary+semisync-after-sync
gal_root p1 "SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_COMMIT"
probe p1 semisync-after-commit
class semisync-after-commit primary+async
gal_root p1 "SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC"
# The replica's receiver stops: the next commit waits out the timeout
# and semi-sync falls back to asynchronous, silently for the client.
gal_root p2 "STOP SLAVE IO_THREAD" || gal_fail "STOP SLAVE IO_THREAD"
t0=$(gal_now)
gal_sql p1 "INSERT INTO t VALUES (3)" || gal_fail "write"
echo "$0: a commit without a semi-sync replica took $(($(gal_now) - t0))" \
    "ms and succeeded"
probe p1 semisync-fallen-back
line semisync-fallen-back 'replication status' \
    'RPL_SEMI_SYNC_MASTER_STATUS VARIABLE_VALUE=OFF'
class semisync-fallen-back primary+semisync-off

gal_bootstrap
probe 1 galera
class galera galera
exit 0
