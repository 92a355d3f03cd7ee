# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera.sh: a private Galera cluster of three MariaDB servers on this
# machine for one test, and the faults of a real one done to it; also,
# beside it or alone, plain MariaDB servers (a single server to compare
# with, or a primary and its replicas).  Source it from a POSIX sh test
# (it sources tests/lib/mariadb.sh for finding the programs).  Nodes
# are named 1, 2 and 3 (Galera) and p1, p2, ... (plain).
#
#	gal_init [K]	wait for the Galera lock, make $T, pick free
#			loopback ports, register the clean-up trap,
#			install node 1's data directory (the other Galera
#			nodes get theirs by state transfer) and those of K
#			plain servers
#	gal_bootstrap	bootstrap node 1 as a cluster of one, create the
#			databases "cctest" and "cctest2" and the user
#			"cctest"
#	gal_cluster	gal_bootstrap, then join nodes 2 and 3 one after
#			the other; GAL_FORMED says in how many milliseconds
#	gal_plain pI [ARG...]	start plain server pI (ARGs go to mariadbd,
#			e.g. --log-bin), wait until it answers and, the
#			first time, create the user and the databases
#			there without writing them to its binary log
#	gal_start N [ARG...]	start node N (ARGs go to mariadbd, e.g.
#			--wsrep-new-cluster) and return at once; after a
#			crash, at the position InnoDB recovers
#	gal_synced N	wait, with a limit, until node N is Synced, ready
#			and in the primary component
#	gal_size N K	wait until node N sees a primary component of K
#	gal_together	wait until every running node is Synced in one
#			primary component of them all (the same view: a
#			node resumed after SIGSTOP shows its old view as
#			Synced until it learns that it was dropped)
#	gal_stop N	stop node N cleanly (SIGTERM) and wait for it
#	gal_kill N	kill -9 node N (no clean shutdown) and reap it
#	gal_pause N	SIGSTOP node N; gal_resume N sends SIGCONT
#	gal_isolate N	cut node N off from the others' group traffic
#			(gmcast.isolate=1), its process alive: they drop
#			it and it is a non-primary component of one, until
#			gal_unisolate N lets it back
#	gal_rejoin N	start a node that was stopped or killed and wait
#			until it is Synced; GAL_TOOK says in how many ms
#	gal_restart MODE	stop the whole cluster (MODE clean: SIGTERM,
#			node 3 first; crash: kill -9 all at once), then
#			bootstrap it again from the most advanced node
#			(grastate.dat, or --wsrep-recover after a crash,
#			marked safe_to_bootstrap) and start the others
#			together;
#			GAL_TOOK is the time from the first start to three
#			nodes Synced, GAL_BOOT the node bootstrapped,
#			GAL_SEQNOS the seqnos the nodes held; GAL_BEGIN
#			(gal_now) is when it began, GAL_DOWN when the
#			last primary component began to go, GAL_START
#			when the bootstrap began,
#			GAL_UP when the bootstrapped node was seen Synced
#			and primary again, GAL_WHOLE when all were
#	gal_noprim	print the spans, "FROM TO" in seconds since the
#			epoch (TO "now" for one not over), when no
#			server was in a primary component, by the
#			servers' logs (their views, starts, shutdowns,
#			and the kills gal_kill marks there): from the
#			cluster's first primary component on
#	gal_state N	print node N's "ready local_state comment
#			cluster_status cluster_size", or "down"
#	gal_status N VAR	print one global status variable of node N
#	gal_sql N SQL	run SQL on node N as the test user
#	gal_root N SQL	run SQL on node N as root
#	gal_position N	print the uuid:seqno a stopped node's data holds
#	gal_seqno N	print its seqno (-1 when unknown)
#	gal_garbd	start the Galera arbitrator (garbd, Debian's
#			galera-arbitrator-4; $GARBD names another binary) in
#			node 3's place, and wait until node 1 counts it;
#			gal_garbd_kill kills it (gal_skip_garbd skips the
#			test, 77, without it)
#	gal_bg PID	kill PID (a client the test started in the
#			background) at the end if it still runs
#	gal_fail MSG	print MSG and every node's state and log, exit 1
#	gal_now		milliseconds since the epoch
#
# and the variables T, GAL_N (3), GAL_SOCK_n, GAL_PORT_n (the client's
# TCP port on 127.0.0.1), GAL_CNF_n (option file of the test user, mode
# 0600, group [client], with node n's socket), GAL_CNF (the same without
# a socket: give host and port yourself) and GAL_URL_n (a store URL for
# node n), for n in 1 2 3 p1 ... pK.
#
# Each server is lean, for a shared machine of two cores: a 32M buffer
# pool, an 8M redo log, no performance schema; each Galera node a 16M
# gcache kept across restarts (gcache.recover, so that a restarted node
# can catch up by IST) and one applier thread.  The group's timeouts are
# short, so that a node stopped with SIGSTOP leaves the primary
# component within a few seconds: evs.suspect_timeout PT2S,
# evs.inactive_timeout PT4S (GAL_EVS replaces these two).  State
# transfer is rsync (wsrep_sst_rsync; Debian's mariadb-server depends on
# rsync and socat): its joiner runs an rsync daemon, which as root would
# write as nobody, so the servers run as the user mysql when the test
# runs as root.  Every wait polls a condition with a limit (GAL_LIMIT seconds,
# 120 by default); nothing sleeps and hopes.  Without the server or the
# Galera provider the test is skipped (77), or fails hard (99) when CI
# is set.  gal_init waits (GAL_QUEUE seconds, 1800) for a lock
# ($TMPDIR/clustercron-galera.lock) that the test then holds to its
# end: the machine is shared, and two clusters at once under short
# group timeouts would make both fail.

. "${top_srcdir:-.}/tests/lib/mariadb.sh"

GAL_N=3
GAL_LIMIT=${GAL_LIMIT:-120}
GAL_EVS=${GAL_EVS:-"evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S"}
GAL_EVS="$GAL_EVS;evs.inactive_check_period=PT0.5S"
GAL_EVS="$GAL_EVS;evs.keepalive_period=PT0.5S;evs.install_timeout=PT4S"
GAL_NODES=

gal_now()
{
	date +%s%3N
}

gal_fail()
{
	echo "$0: $*" >&2
	for _i in $GAL_NODES; do
		[ -f "$T/n$_i/mariadbd.log" ] || continue
		echo "---- node $_i: $(gal_state $_i)" >&2
		grep -E 'ERROR|WSREP_SST: \[ERROR' "$T/n$_i/mariadbd.log" |
		    tail -n 10 >&2
		echo "-- last lines:" >&2
		tail -n 10 "$T/n$_i/mariadbd.log" >&2
	done
	exit 1
}

# The pids of the processes under PID (an SST script and its rsync).
gal_children()
{
	for _c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		gal_children "$_c"
		echo "$_c"
	done
}

gal_bg()
{
	GAL_BG="${GAL_BG:-} $1"
}

gal_cleanup()
{
	_rc=$?
	gal_garbd_kill
	for _p in ${GAL_BG:-}; do
		kill -9 "$_p" 2>/dev/null
	done
	for _i in $GAL_NODES; do
		gal_kill "$_i"
	done
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

# Loopback ports no one listens on now (by /proc), all distinct, below
# the ephemeral range.
gal_ports()
{
	_busy=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
	    awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }')
	_got=
	_n=0
	_i=0
	while [ $_n -lt "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 1000 ] || return 1
		# Below the kernel's ephemeral range (32768 up): a port
		# chosen free must not become some client's before its
		# server binds it (an rsync state transfer failed so).
		_p=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 22000 +
		    10000 ))
		if printf '%s\n' "$_busy" | grep -qx "$(printf '%04X' $_p)"
		then
			continue
		fi
		case " $_got " in
		*" $_p "*)	continue ;;
		esac
		_got="$_got $_p"
		_n=$((_n + 1))
	done
	echo $_got
}

# gal_install N: a fresh data directory for node N.
gal_install()
{
	if ! "$MDB_INSTALL" --no-defaults --datadir="$T/n$1/data" \
	    --auth-root-authentication-method=normal --skip-test-db \
	    --skip-name-resolve --user="$GAL_USER" --tmpdir="$T/n$1/tmp" \
	    --innodb-log-file-size=8M --innodb-buffer-pool-size=32M \
	    >"$T/install.$1.log" 2>&1 || [ ! -d "$T/n$1/data/mysql" ]; then
		cat "$T/install.$1.log" >&2
		gal_fail "mariadb-install-db failed for node $1"
	fi
}

gal_init()
{
	MDB_SERVER=$(mdb_find mariadbd)
	MDB_INSTALL=$(mdb_find mariadb-install-db)
	MDB_CLIENT=$(mdb_find mariadb)
	if [ -z "$MDB_SERVER" ] || [ -z "$MDB_INSTALL" ] ||
	    [ -z "$MDB_CLIENT" ]; then
		mdb_skip "no MariaDB server installed (Debian: mariadb-server)"
	fi
	GAL_PROVIDER=
	for _p in /usr/lib/galera/libgalera_smm.so \
	    /usr/lib/libgalera_smm.so /usr/lib64/galera-4/libgalera_smm.so \
	    /usr/lib64/galera/libgalera_smm.so; do
		if [ -f "$_p" ]; then
			GAL_PROVIDER=$_p
			break
		fi
	done
	[ -n "$GAL_PROVIDER" ] ||
	    mdb_skip "no Galera provider installed (Debian: galera-4)"
	for _p in rsync socat; do
		command -v $_p >/dev/null 2>&1 ||
		    mdb_skip "no $_p for Galera's state transfer (Debian: $_p)"
	done
	# One test's servers at a time on this machine (tests run in
	# parallel, and by other checkouts): the lock is held on fd 9,
	# which the servers do not inherit, until the test exits.
	if command -v flock >/dev/null 2>&1; then
		exec 9>"${TMPDIR:-/tmp}/clustercron-galera.lock"
		_w0=$(date +%s)
		flock -w "${GAL_QUEUE:-1800}" 9 ||
		    mdb_skip "another test held the Galera lock too long"
		# (So that a test's time can be told from its wait.)
		echo "gal_init: waited $(($(date +%s) - _w0)) s for the" \
		    "Galera lock"
	fi
	T=$(mktemp -d "${TMPDIR:-/tmp}/ccgal.XXXXXX") || exit 99
	trap gal_cleanup EXIT
	trap 'exit 1' INT TERM HUP PIPE
	GAL_USER=$(id -un)
	if [ "$(id -u)" -eq 0 ]; then
		id mysql >/dev/null 2>&1 ||
		    mdb_skip "running as root without a user mysql"
		GAL_USER=mysql
		chmod 755 "$T"
	fi
	GAL_NODES="1 2 3"
	_k=1
	while [ $_k -le "${1:-0}" ]; do
		GAL_NODES="$GAL_NODES p$_k"
		_k=$((_k + 1))
	done
	set -- $(gal_ports $((4 * (GAL_N + ${1:-0})))) ||
	    gal_fail "no free loopback ports"
	GAL_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	GAL_ADDR=
	for _i in $GAL_NODES; do
		eval "GAL_PORT_$_i=$1 GAL_GCOMM_$_i=$2 GAL_IST_$_i=$3" \
		    "GAL_SST_$_i=$4 GAL_PID_$_i="
		case $_i in
		p*)	;;
		*)	GAL_ADDR="$GAL_ADDR${GAL_ADDR:+,}127.0.0.1:$2" ;;
		esac
		shift 4
		mkdir -p "$T/n$_i/tmp" "$T/n$_i/data"
		eval "GAL_SOCK_$_i=\$T/n$_i/sock"
		eval "GAL_CNF_$_i=\$T/client.$_i.cnf"
		eval "GAL_URL_$_i=\"mysql:///cctest?socket=\$T/n$_i/sock\""
		(umask 077 && cat >"$T/client.$_i.cnf" <<EOF
[client]
user=cctest
password=$GAL_PASS
socket=$T/n$_i/sock
EOF
		)
	done
	(umask 077 && cat >"$T/client.cnf" <<EOF
[client]
user=cctest
password=$GAL_PASS
EOF
	)
	GAL_CNF=$T/client.cnf
	if [ "$GAL_USER" = mysql ]; then
		chown -R mysql: "$T"/n*
	fi
	for _i in $GAL_NODES; do
		case $_i in
		1|p*)	gal_install $_i ;;
		esac
	done
}

# gal_wait CMD...: run CMD every 0.1 s until it succeeds or the limit.
gal_wait()
{
	_w=0
	while ! "$@" >/dev/null 2>&1; do
		_w=$((_w + 1))
		[ $_w -lt $((GAL_LIMIT * 10)) ] || return 1
		sleep 0.1
	done
	return 0
}

gal_pid()
{
	eval "echo \${GAL_PID_$1:-}"
}

gal_alive()
{
	_p=$(gal_pid "$1")
	[ -n "$_p" ] && kill -0 "$_p" 2>/dev/null
}

# gal_server N ARG...: become node N's mariadbd (exec: run it in a
# subshell or in the background), with the node's settings and ARGs
# after them.
gal_server()
{
	_n=$1
	shift
	eval "_port=\$GAL_PORT_$_n _g=\$GAL_GCOMM_$_n _ist=\$GAL_IST_$_n" \
	    "_sst=\$GAL_SST_$_n"
	case $_n in
	p*)
		;;
	*)
		_o="base_host=127.0.0.1;base_port=$_g"
		_o="$_o;gmcast.listen_addr=tcp://127.0.0.1:$_g"
		_o="$_o;ist.recv_addr=127.0.0.1:$_ist"
		_o="$_o;gcache.size=16M;gcache.page_size=16M;gcache.recover=yes"
		set -- --wsrep-on=ON --wsrep-provider="$GAL_PROVIDER" \
		    --wsrep-cluster-name=cctest --wsrep-node-name="node$_n" \
		    --wsrep-cluster-address="gcomm://$GAL_ADDR" \
		    --wsrep-node-address="127.0.0.1:$_g" \
		    --wsrep-node-incoming-address="127.0.0.1:$_port" \
		    --wsrep-sst-method=rsync \
		    --wsrep-sst-receive-address="127.0.0.1:$_sst" \
		    --wsrep-slave-threads=1 \
		    --wsrep-provider-options="$_o;$GAL_EVS" \
		    --binlog-format=ROW --innodb-autoinc-lock-mode=2 \
		    --skip-log-bin "$@"
		;;
	esac
	exec "$MDB_SERVER" --no-defaults --datadir="$T/n$_n/data" \
	    --socket="$T/n$_n/sock" --pid-file="$T/n$_n/mariadbd.pid" \
	    --log-error="$T/n$_n/mariadbd.log" --tmpdir="$T/n$_n/tmp" \
	    --port="$_port" --bind-address=127.0.0.1 --skip-name-resolve \
	    --user="$GAL_USER" --innodb-buffer-pool-size=32M \
	    --innodb-log-file-size=8M --performance-schema=OFF \
	    --max-connections=100 --default-storage-engine=InnoDB "$@"
}

# gal_position N: the uuid:seqno of a stopped node's data, from
# grastate.dat or, after a crash left -1 there, from InnoDB
# (mariadbd --wsrep-recover, as Debian's galera_recovery does before
# the service starts); nothing without a state file.
gal_position()
{
	_g=$T/n$1/data/grastate.dat
	[ -f "$_g" ] || return 0
	_u=$(awk '$1 == "uuid:" { print $2 }' "$_g")
	_s=$(awk '$1 == "seqno:" { print $2 }' "$_g")
	if [ "$_s" = -1 ]; then
		(gal_server "$1" --wsrep-recover --disable-log-error \
		    >/dev/null 2>"$T/n$1/recover.log")
		sed -n 's/.*WSREP: Recovered position: *//p' \
		    "$T/n$1/recover.log" | tail -n 1
		return 0
	fi
	echo "$_u:$_s"
}

# gal_seqno N: the seqno of a stopped node's data (-1 when unknown).
gal_seqno()
{
	_pos=$(gal_position "$1")
	echo "${_pos##*:}" | grep -x -- '-*[0-9][0-9]*' || echo -1
}

gal_start()
{
	_n=$1
	shift
	case $_n in
	p*)	_pos= ;;
	*)	eval "_pos=\${GAL_KNOWN_$_n:-}"
		eval "GAL_KNOWN_$_n="
		[ -n "$_pos" ] || _pos=$(gal_position "$_n") ;;
	esac
	case $_pos in
	*:-1|"")
		;;
	*)
		set -- --wsrep-start-position="$_pos" "$@"
		;;
	esac
	gal_server "$_n" "$@" >>"$T/n$_n/mariadbd.out" 2>&1 9>&- &
	eval "GAL_PID_$_n=$!"
}

gal_answers()
{
	! gal_alive "$1" || gal_root "$1" "SELECT 1"
}

gal_plain()
{
	gal_start "$@"
	gal_wait gal_answers "$1" && gal_alive "$1" ||
	    gal_fail "server $1 did not start"
	[ ! -f "$T/n$1/users" ] || return 0
	gal_root "$1" "SET SESSION sql_log_bin = 0;
	    CREATE DATABASE cctest; CREATE DATABASE cctest2;
	    CREATE USER 'cctest'@'localhost' IDENTIFIED BY '$GAL_PASS';
	    CREATE USER 'cctest'@'127.0.0.1' IDENTIFIED BY '$GAL_PASS';
	    GRANT ALL ON cctest.* TO 'cctest'@'localhost';
	    GRANT ALL ON cctest2.* TO 'cctest'@'localhost';
	    GRANT ALL ON cctest.* TO 'cctest'@'127.0.0.1';
	    GRANT ALL ON cctest2.* TO 'cctest'@'127.0.0.1'" ||
	    gal_fail "cannot create the test user on $1"
	: >"$T/n$1/users"
}

# gal_state N: "ready local_state comment cluster_status size", or down.
gal_state()
{
	gal_alive "$1" || { echo down; return 1; }
	eval "_s=\$GAL_SOCK_$1"
	_out=$(timeout 10 "$MDB_CLIENT" --no-defaults --socket="$_s" -uroot \
	    --connect-timeout=2 -N -B -e "SHOW GLOBAL STATUS WHERE
	    Variable_name IN ('wsrep_ready', 'wsrep_local_state',
	    'wsrep_local_state_comment', 'wsrep_cluster_status',
	    'wsrep_cluster_size')" 2>/dev/null) || { echo down; return 1; }
	printf '%s\n' "$_out" | awk '
		{ v[$1] = $2 }
		END { print v["wsrep_ready"], v["wsrep_local_state"],
		    v["wsrep_local_state_comment"], v["wsrep_cluster_status"],
		    v["wsrep_cluster_size"] }'
}

gal_status()
{
	gal_root "$1" "SHOW GLOBAL STATUS LIKE '$2'" | awk '{ print $2 }'
}

gal_is_synced()
{
	case $(gal_state "$1") in
	"ON 4 Synced Primary "*)	return 0 ;;
	esac
	return 1
}

gal_synced_or_dead()
{
	gal_is_synced "$1" || ! gal_alive "$1"
}

gal_synced()
{
	gal_wait gal_synced_or_dead "$1" && gal_alive "$1" ||
	    gal_fail "node $1 is not Synced within ${GAL_LIMIT}s" \
	    "($(gal_state "$1"))"
}

gal_has_size()
{
	case $(gal_state "$1") in
	*" Primary $2")	return 0 ;;
	esac
	return 1
}

gal_size()
{
	gal_wait gal_has_size "$1" "$2" ||
	    gal_fail "node $1 does not see a primary component of $2" \
	    "($(gal_state "$1"))"
}

# The view id (wsrep_cluster_conf_id) and size of a Synced primary
# node, or nothing.
gal_view()
{
	gal_is_synced "$1" || return 1
	eval "_s=\$GAL_SOCK_$1"
	timeout 10 "$MDB_CLIENT" --no-defaults --socket="$_s" -uroot \
	    --connect-timeout=2 -N -B -e "SELECT VARIABLE_VALUE FROM
	    information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN
	    ('WSREP_CLUSTER_CONF_ID', 'WSREP_CLUSTER_SIZE')
	    ORDER BY VARIABLE_NAME" 2>/dev/null | tr '\n' ' '
}

gal_is_together()
{
	_want=
	_k=0
	_i=1
	while [ $_i -le $GAL_N ]; do
		if gal_alive $_i; then
			_k=$((_k + 1))
			_v=$(gal_view $_i) || return 1
			[ -z "$_want" ] || [ "$_v" = "$_want" ] || return 1
			_want=$_v
		fi
		_i=$((_i + 1))
	done
	[ "${_want#* }" = "$_k " ]
}

gal_together()
{
	gal_wait gal_is_together ||
	    gal_fail "the running nodes do not share one primary view"
}

gal_bootstrap()
{
	gal_start 1 --wsrep-new-cluster
	gal_synced 1
	gal_root 1 "CREATE DATABASE cctest; CREATE DATABASE cctest2;
	    CREATE USER 'cctest'@'localhost' IDENTIFIED BY '$GAL_PASS';
	    CREATE USER 'cctest'@'127.0.0.1' IDENTIFIED BY '$GAL_PASS';
	    GRANT ALL ON cctest.* TO 'cctest'@'localhost';
	    GRANT ALL ON cctest2.* TO 'cctest'@'localhost';
	    GRANT ALL ON cctest.* TO 'cctest'@'127.0.0.1';
	    GRANT ALL ON cctest2.* TO 'cctest'@'127.0.0.1'" ||
	    gal_fail "cannot create the test user"
}

gal_cluster()
{
	_t0=$(gal_now)
	gal_bootstrap
	_i=2
	while [ $_i -le $GAL_N ]; do
		gal_start $_i
		gal_synced $_i
		_i=$((_i + 1))
	done
	gal_size 1 $GAL_N
	GAL_FORMED=$(($(gal_now) - _t0))
}

gal_gone()
{
	! kill -0 "$1" 2>/dev/null
}

gal_stop()
{
	_p=$(gal_pid "$1")
	[ -n "$_p" ] || return 0
	kill -CONT "$_p" 2>/dev/null
	kill "$_p" 2>/dev/null
	gal_wait gal_gone "$_p" || kill -9 "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	eval "GAL_PID_$1="
}

gal_kill()
{
	_p=$(gal_pid "$1")
	[ -n "$_p" ] || return 0
	for _c in $(gal_children "$_p"); do
		kill -9 "$_c" 2>/dev/null
	done
	kill -9 "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	eval "GAL_PID_$1="
	# (For gal_noprim: a killed server says nothing.)
	echo "$(date +'%Y-%m-%d %H:%M:%S') 0 [Note] gal_kill: killed" \
	    >>"$T/n$1/mariadbd.log"
}

# gal_noprim: each server's log says when it entered a view, primary or
# not, when the state exchange of a primary one ended (its "Quorum
# results", from which it takes writes), and when it started and shut
# down (gal_kill and gal_restart add their kills).  The spans, to the
# second, when no server was in a primary view; and those when no
# primary view had finished its exchange, that surely outlasted a
# second (one stuck in it, as after a bootstrap when the others rejoin
# at once: a view change that ends at once is none).  At one second,
# what leaves a primary component comes first.
gal_noprim()
{
	_i=1
	while [ $_i -le $GAL_N ]; do
		[ -f "$T/n$_i/mariadbd.log" ] && awk -v n=$_i '
		    /WSREP: view\(view_id\(PRIM,/ {
			print $1, $2, n, "v", 1; print $1, $2, n, "q", 0; next
		    }
		    /WSREP: view\(view_id\(NON_PRIM,/ || /Normal shutdown/ ||
		    /\] Starting MariaDB/ || /gal_kill: killed/ {
			print $1, $2, n, "v", 0; print $1, $2, n, "q", 0; next
		    }
		    /WSREP: Quorum results:/ { qt = $1 " " $2; next }
		    qt != "" && /component *= *PRIMARY/ {
			print qt, n, "q", 1; qt = ""
		    }
		    qt != "" && /component *= *NON-PRIMARY/ { qt = "" }' \
		    "$T/n$_i/mariadbd.log"
		_i=$((_i + 1))
	done | while read -r _d _t _n _k _s; do
		echo "$(date -d "$_d $_t" +%s) $_s $_n $_k"
	done | sort -s -k 1,1n -k 2,2n | awk '
	    function span(k, any) {
		if (any)
			seen[k] = 1
		if (seen[k] && !any && !off[k]) {
			off[k] = 1
			from[k] = $1
		} else if (any && off[k]) {
			off[k] = 0
			if (k == "v" || $1 > from[k] + 1)
				print from[k], $1
		}
	    }
	    { st[$4, $3] = $2; any = 0
	      for (i = 1; i <= 3; i++)
		if (st[$4, i])
			any = 1
	      span($4, any) }
	    END {
		if (off["v"])
			print from["v"], "now"
		if (off["q"])
			print from["q"], "now"
	    }' | sort -n -u
}

gal_pause()
{
	kill -STOP "$(gal_pid "$1")"
}

gal_resume()
{
	kill -CONT "$(gal_pid "$1")"
}

gal_isolate()
{
	gal_root "$1" "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'"
}

gal_unisolate()
{
	gal_root "$1" "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'"
}

gal_rejoin()
{
	_t0=$(gal_now)
	gal_start "$@"
	gal_synced "$1"
	GAL_TOOK=$(($(gal_now) - _t0))
}

gal_sql()
{
	eval "_c=\$GAL_CNF_$1"
	timeout 60 "$MDB_CLIENT" --defaults-file="$_c" -N -B cctest -e "$2"
}

gal_root()
{
	eval "_s=\$GAL_SOCK_$1"
	timeout 60 "$MDB_CLIENT" --no-defaults --socket="$_s" -uroot \
	    --connect-timeout=5 -N -B -e "$2"
}

# gal_restart clean|crash: the whole cluster down, then up again from
# the node with the highest seqno.
gal_restart()
{
	GAL_BEGIN=$(gal_now)
	case $1 in
	clean)
		_i=$GAL_N
		while [ $_i -ge 1 ]; do
			# (The last node left alone stays primary.)
			[ $_i -ne 1 ] || GAL_DOWN=$(gal_now)
			gal_stop $_i
			_i=$((_i - 1))
		done
		;;
	crash)
		GAL_DOWN=$(gal_now)
		_i=1
		while [ $_i -le $GAL_N ]; do
			echo "$(date +'%Y-%m-%d %H:%M:%S') 0 [Note]" \
			    "gal_kill: killed" >>"$T/n$_i/mariadbd.log"
			_i=$((_i + 1))
		done
		_i=1
		while [ $_i -le $GAL_N ]; do
			kill -9 "$(gal_pid $_i)" 2>/dev/null
			_i=$((_i + 1))
		done
		_i=1
		while [ $_i -le $GAL_N ]; do
			gal_kill $_i
			_i=$((_i + 1))
		done
		;;
	*)
		gal_fail "gal_restart clean|crash"
		;;
	esac
	_best=1
	_top=-2
	_i=1
	GAL_SEQNOS=
	while [ $_i -le $GAL_N ]; do
		# (Kept for gal_start, so that a crashed node's position is
		# recovered once.)
		_pos=$(gal_position $_i)
		eval "GAL_KNOWN_$_i=\$_pos"
		_s=$(echo "${_pos##*:}" | grep -x -- '-*[0-9][0-9]*' || echo -1)
		GAL_SEQNOS="$GAL_SEQNOS${GAL_SEQNOS:+ }$_s"
		if [ "$_s" -gt "$_top" ]; then
			_top=$_s
			_best=$_i
		fi
		_i=$((_i + 1))
	done
	GAL_BOOT=$_best
	sed -i 's/^safe_to_bootstrap:.*/safe_to_bootstrap: 1/' \
	    "$T/n$_best/data/grastate.dat"
	_t0=$(gal_now)
	GAL_START=$_t0
	gal_start $_best --wsrep-new-cluster
	gal_synced $_best
	GAL_UP=$(gal_now)
	# The others together: each catches up by IST (a donor busy with
	# one makes the other ask again a second later).
	_i=1
	while [ $_i -le $GAL_N ]; do
		[ $_i -eq $_best ] || gal_start $_i
		_i=$((_i + 1))
	done
	_i=1
	while [ $_i -le $GAL_N ]; do
		[ $_i -eq $_best ] || gal_synced $_i
		_i=$((_i + 1))
	done
	gal_size $_best $GAL_N
	GAL_WHOLE=$(gal_now)
	GAL_TOOK=$((GAL_WHOLE - _t0))
}

gal_skip_garbd()
{
	GAL_GARBD=${GARBD:-$(mdb_find garbd)}
	[ -n "$GAL_GARBD" ] && [ -x "$GAL_GARBD" ] ||
	    mdb_skip "no Galera arbitrator (Debian: galera-arbitrator-4)"
}

# gal_garbd: the arbitrator in node 3's place (its group port), a voter
# without data; node 1 must see it join.
gal_garbd()
{
	_k=$(gal_root 1 "SHOW STATUS LIKE 'wsrep_cluster_size'" |
	    awk '{ print $2 }')
	_o="base_host=127.0.0.1;base_port=$GAL_GCOMM_3"
	_o="$_o;gmcast.listen_addr=tcp://127.0.0.1:$GAL_GCOMM_3;$GAL_EVS"
	"$GAL_GARBD" --group cctest --name garbd --address "gcomm://$GAL_ADDR" \
	    --log "$T/garbd.log" --options "$_o" >>"$T/garbd.out" 2>&1 9>&- &
	GAL_GARBD_PID=$!
	gal_size 1 $((_k + 1))
}

gal_garbd_kill()
{
	[ -n "${GAL_GARBD_PID:-}" ] || return 0
	kill -9 "$GAL_GARBD_PID" 2>/dev/null
	wait "$GAL_GARBD_PID" 2>/dev/null
	GAL_GARBD_PID=
}
