#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-race.sh: the claim rule at the SQL level on a three-node Galera
# cluster, contenders on different nodes racing one conditional UPDATE
# (tests/integration/sqlrace, straight through libmariadb): thousands of
# rounds in autocommit and in transactions, with wsrep_retry_autocommit
# 0 and 1, by prepared statement (as the store speaks) and by text.  In
# every round exactly one contender wins and the row, read causally,
# names it.  What the losers get is checked too, for the store's sake:
#   - autocommit, prepared statement: 1213 at the UPDATE, whatever
#     wsrep_retry_autocommit says (the server retries only text
#     statements);
#   - autocommit, text, wsrep_retry_autocommit=1: no error, the retried
#     statement matches 0 rows; with 0, 1213;
#   - explicit transaction: the loser's UPDATE matches its row and its
#     COMMIT fails with 1213 (now and then the UPDATE or the INSERT after
#     it, when the winner's write set reaches the loser's node first and
#     aborts it there): a claim is won only when COMMIT succeeds;
#   - a single server, for contrast: losers wait for the row lock and
#     match 0 rows, no error.
# The races must really race (certification conflicts in most rounds),
# or the test proves nothing.  Then: a read on another node right after
# a commit is never stale with wsrep_sync_wait=1; and GET_LOCK, FOR
# UPDATE and SKIP LOCKED do not reach across nodes (they do within one).
# GAL_ROUNDS sets the rounds (2000).

. "${top_srcdir:-.}/tests/lib/galera.sh"
SQLRACE=${top_builddir:-.}/tests/integration/sqlrace
ROUNDS=${GAL_ROUNDS:-2000}
gal_init 1
gal_cluster
gal_plain p1
C1=$GAL_CNF_1
C2=$GAL_CNF_2
C3=$GAL_CNF_3

# race NAME ARG...: run a race, keep its report in $T/NAME, show it.
race()
{
	_name=$1
	shift
	"$SQLRACE" race -n "$ROUNDS" "$@" >"$T/$_name" 2>"$T/$_name.err"
	_rc=$?
	sed "s|^|$_name: |" "$T/$_name"
	[ $_rc -eq 0 ] || gal_fail "$_name: $(cat "$T/$_name.err")"
}

# value NAME KEY: the rest of the line "KEY: ..." of a report.
value()
{
	sed -n "s/^$2: //p" "$T/$1"
}

# number NAME KEY: the first number of that line.
number()
{
	value "$1" "$2" | awk '{ print $1 + 0 }'
}

# same NAME KEY WANT
same()
{
	[ "$(value "$1" "$2")" = "$3" ] ||
	    gal_fail "$1: $2 is '$(value "$1" "$2")', not '$3'"
}

# only NAME STAGES: the losers' first attempts failed with 1213 and
# nothing else, at the statements of the egrep alternation STAGES only.
only()
{
	value "$1" 'first attempt errors' | tr ',' '\n' |
	    grep -Evx " *[0-9]+ x 1213 at ($2)" >"$T/other"
	[ ! -s "$T/other" ] ||
	    gal_fail "$1: the losers got other errors: $(cat "$T/other")"
}

# raced NAME KEY: that line's count is at least a quarter of the rounds.
raced()
{
	[ "$(number "$1" "$2")" -ge $((ROUNDS / 4)) ] ||
	    gal_fail "$1: only $(value "$1" "$2") $2: the race did not race"
}

race auto-prepared-r0 -r 0 "$C1" "$C2"
same auto-prepared-r0 rounds "$ROUNDS one winner, 0 none, 0 several"
only auto-prepared-r0 UPDATE
raced auto-prepared-r0 conflicts

race auto-prepared-r1 -r 1 "$C1" "$C2"
same auto-prepared-r1 rounds "$ROUNDS one winner, 0 none, 0 several"
only auto-prepared-r1 UPDATE
raced auto-prepared-r1 conflicts

race auto-text-r1 -q -r 1 "$C1" "$C2"
same auto-text-r1 rounds "$ROUNDS one winner, 0 none, 0 several"
same auto-text-r1 'all errors' none
same auto-text-r1 'first attempts' "$ROUNDS won, $ROUNDS matched 0 rows"
raced auto-text-r1 'cert failures'

race auto-text-r0 -q -r 0 "$C1" "$C2"
same auto-text-r0 rounds "$ROUNDS one winner, 0 none, 0 several"
only auto-text-r0 UPDATE
raced auto-text-r0 conflicts

race trx-2 -t "$C1" "$C2"
same trx-2 rounds "$ROUNDS one winner, 0 none, 0 several"
only trx-2 'UPDATE|INSERT|COMMIT'
value trx-2 'first attempt errors' | grep -q 'x 1213 at COMMIT' ||
    gal_fail "trx-2: no loser failed at COMMIT"
raced trx-2 'matched then failed'

race trx-3 -t "$C1" "$C2" "$C3"
same trx-3 rounds "$ROUNDS one winner, 0 none, 0 several"
only trx-3 'UPDATE|INSERT|COMMIT'
value trx-3 'first attempt errors' | grep -q 'x 1213 at COMMIT' ||
    gal_fail "trx-3: no loser failed at COMMIT"
raced trx-3 'matched then failed'

race auto-3 "$C1" "$C2" "$C3"
same auto-3 rounds "$ROUNDS one winner, 0 none, 0 several"
only auto-3 UPDATE
raced auto-3 conflicts

race single-trx-3 -t "$GAL_CNF_p1" "$GAL_CNF_p1" "$GAL_CNF_p1"
same single-trx-3 rounds "$ROUNDS one winner, 0 none, 0 several"
same single-trx-3 'all errors' none
same single-trx-3 'first attempts' \
    "$ROUNDS won, $((2 * ROUNDS)) matched 0 rows"

# Causal reads.
"$SQLRACE" stale -n "$ROUNDS" "$C1" "$C2" >"$T/stale" 2>&1 ||
    gal_fail "a causal read was stale: $(cat "$T/stale")"
sed 's/^/stale: /' "$T/stale"

# Locks are a node's own.
"$SQLRACE" locks "$C1" "$C2" >"$T/locks-across" 2>&1 ||
    gal_fail "locks: $(cat "$T/locks-across")"
sed 's/^/across nodes: /' "$T/locks-across"
same locks-across get_lock "first 1, second 1"
value locks-across 'for update' | grep -q '^second got it after 0' ||
    gal_fail "FOR UPDATE on node 1 held node 2 back"
value locks-across 'for update' | grep -q '^first writes: 1213 ' ||
    gal_fail "node 1's transaction survived node 2's commit"
same locks-across 'skip locked' 'second sees the row'
"$SQLRACE" locks "$C1" "$C1" >"$T/locks-within" 2>&1 ||
    gal_fail "locks: $(cat "$T/locks-within")"
sed 's/^/within a node: /' "$T/locks-within"
same locks-within get_lock "first 1, second 0"
value locks-within 'for update' | grep -q '^second Lock wait timeout' ||
    gal_fail "FOR UPDATE within node 1 did not wait"
same locks-within 'skip locked' 'second sees no row'
exit 0
