#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# mariadb-url.sh: a store spelled mariadb://, as clustercron.conf(5)
# allows, is MariaDB to the daemon too: started before its database is
# up, the daemon starts, runs no cluster job, retries, and runs them
# once the database answers -- as with mysql://, where it once exited
# because only that spelling was retried.

. "$top_srcdir/tests/daemon/lib.sh"
dmn_cluster nostart
STORE=mariadb:${MDB_URL#mysql:}

dmn_setup n1 <<EOF
heartbeat-interval = 1s
store-retry-interval = 1s
EOF
cat >"$T/n1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/cluster
EOF
dmn_start n1
contains "started with the store down" "$(cat "$T/n1.log")" \
    '\(CRON\) STARTUP \(clustercron [^,]*, node n1, store down, '
contains "... said" "$(cat "$T/n1.log")" 'STORE DOWN \('
same "no cluster job without the store" "$(count_lines "$O/cluster")" 0
mdb_start
wait_for 30 in_log n1 'STORE BACK \(mysql\)' ||
    fail "the daemon did not retry the mariadb:// store"
wait_for 20 at_least 3 "$O/cluster" || fail "cluster jobs did not run"
dmn_stop n1

finish
