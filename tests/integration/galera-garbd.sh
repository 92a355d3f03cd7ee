#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-garbd.sh: two database nodes and the Galera arbitrator (garbd),
# as in a two-site set-up whose third vote is garbd at a third place:
#   - with garbd, either data node can die and the other goes on as the
#     primary component (two votes of three);
#   - without it, a node that loses the other is a minority of one of
#     two, not primary, and refuses queries (1047): two data nodes alone
#     give no failover at all.
# Skipped (77) without garbd (Debian: galera-arbitrator-4; GARBD names
# another binary).

. "${top_srcdir:-.}/tests/lib/galera.sh"
gal_skip_garbd
gal_init
gal_bootstrap
gal_start 2
gal_synced 2
gal_garbd
echo "$0: nodes 1 and 2 and garbd: $(gal_state 1)"

gal_kill 2
gal_size 1 2
gal_sql 1 "CREATE TABLE t (k INT PRIMARY KEY); INSERT INTO t VALUES (1)" ||
    gal_fail "node 1 with garbd does not write without node 2"
echo "$0: node 2 killed: node 1 is $(gal_state 1) and writes"
gal_rejoin 2
gal_size 1 3
gal_kill 1
gal_size 2 2
gal_sql 2 "INSERT INTO t VALUES (2)" ||
    gal_fail "node 2 with garbd does not write without node 1"
echo "$0: node 1 killed: node 2 is $(gal_state 2) and writes"
gal_rejoin 1
gal_size 1 3

# Without the arbitrator: no majority after either loss.
gal_garbd_kill
gal_size 1 2
gal_kill 2
gal_wait eval 'gal_state 1 | grep -q " non-Primary "' ||
    gal_fail "node 1 alone of two is still $(gal_state 1)"
if gal_sql 1 "SELECT COUNT(*) FROM t" >"$T/alone.out" 2>&1; then
	gal_fail "node 1 answers without a majority"
fi
grep -q 'ERROR 1047' "$T/alone.out" || gal_fail "$(cat "$T/alone.out")"
echo "$0: without garbd, node 2 killed: node 1 is $(gal_state 1):" \
    "$(grep ERROR "$T/alone.out")"
exit 0
