#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# testhooks.sh: the test hooks are in the test builds only
# (tests/testbin/) and not in what ships.  The shipped daemon holds no
# trace of the store's fault hook nor of CLUSTERCRON_TEST_FAULTS, and
# a fault that stops the test build at its first claim leaves the
# shipped daemon claiming and running; the shipped daemon refuses a
# memory store, on which the test build runs; the shipped ctab ignores
# CLUSTERCRON_TEST_CLOCK_OFFSET, which moves the test build's clock.
# Each check is made of both builds, so that it can tell them apart.

. "$top_srcdir/tests/daemon/lib.sh"
CTAB_TESTBIN=$top_builddir/tests/testbin/ctab

# holds BINARY TEXT: the file holds TEXT (a symbol's name or a string).
holds()
{
	grep -qaF -- "$2" "$1"
}

for text in CLUSTERCRON_TEST_FAULTS store_fault_spec store_fault_set \
    '(injected)' CLUSTERCRON_TEST_CLOCK_OFFSET; do
	holds "$CLUSTERCRON_TESTBIN" "$text" ||
	    fail "the test daemon does not hold $text"
	holds "$CLUSTERCRON" "$text" && fail "the shipped daemon holds $text"
	ntest=$((ntest + 2))
done
holds "$CTAB_TESTBIN" CLUSTERCRON_TEST_CLOCK_OFFSET ||
    fail "the test ctab does not hold CLUSTERCRON_TEST_CLOCK_OFFSET"
holds "$CTAB" CLUSTERCRON_TEST_CLOCK_OFFSET &&
    fail "the shipped ctab holds CLUSTERCRON_TEST_CLOCK_OFFSET"
ntest=$((ntest + 2))

# A fault that stops a daemon at its first claim: the test build stops,
# the shipped one runs on.  Each has a store of its own.
O=$T/jobs
mkdir "$O"
chmod 777 "$O"
for n in shipped test; do
	STORE=sqlite:$T/$n.db
	dmn_setup $n </dev/null
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/$n
EOF
done
unset STORE
CLUSTERCRON_TEST_FAULTS=claim.before:1:stop
export CLUSTERCRON_TEST_FAULTS
DMN_BIN=$CLUSTERCRON dmn_start shipped
dmn_start test
unset CLUSTERCRON_TEST_FAULTS
wait_for 30 dmn_stopped test || fail "the test daemon did not stop"
same "the test daemon ran nothing" "$(count_lines "$O/test")" 0
wait_for 30 at_least 3 "$O/shipped" || fail "the shipped daemon ran no job"
dmn_alive shipped || fail "the shipped daemon is gone"
dmn_stopped shipped && fail "the shipped daemon stopped"
ntest=$((ntest + 2))
kill -CONT "$(dmn_pid test)"
dmn_stop shipped
dmn_stop test

# A memory store (memory:NAME) is a test build's: the shipped daemon
# refuses it at start, saying so; the test build runs on one.
STORE=memory:hooks
dmn_setup mem </dev/null
unset STORE
cat >"$T/mem/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME echo "\$CLUSTERCRON_FIRE_TIME" >>$O/mem
EOF
out=$(timeout 20 "$CLUSTERCRON" -f -c "$T/mem/clustercron.conf" 2>&1)
same "the shipped daemon refuses a memory store" "$?" 1
contains "... saying why" "$out" \
    'store URL "memory:hooks": memory stores exist only in test builds'
DMN_BIN=$CLUSTERCRON_TESTBIN dmn_start mem
wait_for 30 at_least 2 "$O/mem" || fail "the test daemon ran nothing"
ntest=$((ntest + 1))
dmn_stop mem

# The DST lint looks a year ahead of now: the test ctab's now is moved
# to 1 January 2040, the shipped one's is not.
printf 'CRON_TZ=America/New_York\n30 2 * * * gap\n' >"$T/dst"
CLUSTERCRON_TEST_CLOCK_OFFSET=$((2208988800 - $(date +%s)))
export CLUSTERCRON_TEST_CLOCK_OFFSET
test_out=$("$CTAB_TESTBIN" -T "$T/dst" 2>&1)
shipped_out=$("$CTAB" -T "$T/dst" 2>&1)
unset CLUSTERCRON_TEST_CLOCK_OFFSET
contains "the test ctab lints from 2040" "$test_out" \
    "^ctab: $T/dst:2: warning: 2040-03-11 02:30 falls in the DST gap"
year=$(date +%Y)
contains "the shipped ctab lints from now" "$shipped_out" \
    "^ctab: $T/dst:2: warning: ($year|$((year + 1)))-"
case $shipped_out in
*2040-*) fail "the shipped ctab took the offset" ;;
esac
finish
