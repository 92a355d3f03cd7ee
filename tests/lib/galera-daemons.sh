# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-daemons.sh: three clustercron daemons on the private Galera
# cluster of tests/lib/galera.sh, for the tests that put daemons through
# the cluster's faults.  Source it after tests/daemon/lib.sh and
# tests/lib/galera.sh, with GALD_STAMP set to the date(1) format (after
# its %) of the third field each fire writes, a later % escaped for the
# crontab: s (seconds) or 's\%3N' (milliseconds).  It forms the
# cluster, sets up daemons d1, d2 and d3, daemon dN's store URL naming
# database node N first and the others after it (url_of N), each
# running two every-second cluster jobs that append "fire node stamp"
# to $O/a and $O/b, starts them and waits for their first fires.
# Daemon d3 finds its list of servers in its option file instead
# ($T/d3.cnf: "host" in its group clustercron, the URL naming none).  The
# daemons are killed, and their logs checked for sanitizer reports,
# before the cluster goes.  GALD_DEBUG=-d (with KEEP_TMP=1) has them log
# each fire's steps, to tell afterwards why a fire was missed.

DMN_FLAGS="-L 31 ${GALD_DEBUG:-}"

gal_init
# The daemons go first, then the cluster (gal_cleanup exits).
both_cleanup()
{
	_rc0=$?
	for _n in $DAEMONS; do
		[ -f "$T/$_n/pid" ] && kill -9 "$(cat "$T/$_n/pid")" 2>/dev/null
	done
	for _n in $DAEMONS; do
		if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
		    "$T/$_n.log" 2>/dev/null; then
			echo "FAIL: sanitizer report in $_n's log"
			[ $_rc0 -eq 0 ] && _rc0=1
		fi
	done
	(exit $_rc0)
	gal_cleanup
}
trap both_cleanup EXIT
gal_cluster
echo "cluster formed in $GAL_FORMED ms"

# The daemons are d1, d2 and d3 ($T/nN is database node N's), daemon
# dN's URL names database node N first, then the others.
url_of()
{
	eval "_a=127.0.0.1:\$GAL_PORT_$1"
	_u=$_a
	for _k in 1 2 3; do
		[ "$_k" = "$1" ] && continue
		eval "_u=\"\$_u,127.0.0.1:\$GAL_PORT_$_k\""
	done
	echo "mysql://$_u/cctest"
}
MYSQL_FILE=$GAL_CNF
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"
# node-timeout above what a heartbeat may wait: the writes of the whole
# cluster stall while it drops a node (about 3.5 s with this harness's
# group timeouts) and a daemon on a frozen node waits out its read
# timeout (8 s with several servers) before moving on.
# d3's option file: the credentials, and its servers in its own group.
(umask 077 && { cat "$GAL_CNF"; echo "[clustercron]"
    url_of 3 | sed 's|^mysql://\(.*\)/cctest$|host = \1|'; } >"$T/d3.cnf")
for i in 1 2 3; do
	STORE=$(url_of $i)
	group=client
	if [ $i = 3 ]; then
		STORE=mysql:///cctest MYSQL_FILE=$T/d3.cnf group=clustercron
	fi
	dmn_setup d$i <<EOF
heartbeat-interval = 1s
node-timeout = 12s
store-retry-interval = 1s
claim-defer-ms = 100
mysql-group = $group
EOF
	MYSQL_FILE=$GAL_CNF
	cat >"$T/d$i/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%$GALD_STAMP)" >>$O/a
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME \$CLUSTERCRON_NODE \$(date +\%$GALD_STAMP)" >>$O/b
EOF
done
STORE=$(url_of 1)
for i in 1 2 3; do
	dmn_start d$i
done
wait_for 30 at_least 4 "$O/a" || fail "too few fires on a healthy cluster"
