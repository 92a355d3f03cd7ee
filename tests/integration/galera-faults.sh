#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# galera-faults.sh: what a client of a three-node Galera cluster sees
# when its database node fails, and how it finds out on another node
# what became of its transaction in flight (tests/integration/sqlrace,
# straight through libmariadb):
#   - kill -9 of the client's node in the middle of a stream of commits,
#     several times: the client gets a lost-connection error (2013 or
#     2006); a causal read (wsrep_sync_wait) on another node says whether
#     the transaction in flight committed cluster-wide, and every
#     transaction the client saw commit is there;
#   - SIGSTOP of the client's node past the group's timeouts: the client
#     gets 2013 at its read timeout and, once the node runs again, 1047
#     until it has rejoined; clients of the other nodes only wait while
#     the group decides (no error);
#   - a node left alone (the two others killed): its clients get 1047
#     "WSREP has not yet prepared node for application use" until a
#     primary component exists again.
# It prints what each client saw; GAL_KILLS sets the number of kills (4).

. "${top_srcdir:-.}/tests/lib/galera.sh"
SQLRACE=${top_builddir:-.}/tests/integration/sqlrace
KILLS=${GAL_KILLS:-4}
gal_init
gal_cluster
C1=$GAL_CNF_1
C3=$GAL_CNF_3

# has FILE PATTERN: FILE has a line matching the egrep PATTERN.
has()
{
	grep -Eq -- "$2" "$1" 2>/dev/null
}

# again FILE: a watcher's last word is that it writes again.
again()
{
	tail -n 1 "$1" | grep -q 'writes again'
}

# In doubt: node 3 killed under a stream of commits, resolved on node 1.
i=1
committed=0
while [ $i -le "$KILLS" ]; do
	"$SQLRACE" inflight -p 50 "$C3" "$C1" >"$T/inflight.$i" \
	    2>"$T/inflight.$i.err" &
	pid=$!
	gal_bg $pid
	gal_wait has "$T/inflight.$i" '^committed: (1[0-9]|[2-9])[0-9]{2}' ||
	    gal_fail "no commits through node 3: $(cat "$T/inflight.$i.err")"
	gal_kill 3
	gal_wait eval "! kill -0 $pid" || gal_fail "the client hangs"
	wait $pid ||
	    gal_fail "kill $i: $(cat "$T/inflight.$i" "$T/inflight.$i.err")"
	echo "$0: kill $i: $(sed -n 's/^error: //p' "$T/inflight.$i");" \
	    "$(sed -n 's/^outcome: //p' "$T/inflight.$i")"
	has "$T/inflight.$i" '^error: (2013|2006|2026) ' ||
	    gal_fail "kill $i: $(grep '^error' "$T/inflight.$i")"
	has "$T/inflight.$i" '^outcome: (committed|not committed)$' ||
	    gal_fail "kill $i: the outcome was not resolved"
	if has "$T/inflight.$i" '^outcome: committed$'; then
		committed=$((committed + 1))
	fi
	gal_rejoin 3
	i=$((i + 1))
done
echo "$0: $KILLS kills, the transaction in flight committed in" \
    "$committed of them"

# SIGSTOP of node 3 with clients writing through nodes 1 and 3.  (The
# table first: DDL is replicated in total order and waits for every
# node, a stopped one too.)
gal_sql 1 "CREATE TABLE race (id INT PRIMARY KEY, v BIGINT NOT NULL,
    w INT NOT NULL)" || gal_fail "create"
rm -f "$T/stop"
"$SQLRACE" watch -i 1 -T 10 -u "$T/stop" "$C1" >"$T/watch.1" 2>&1 &
w1=$!
gal_bg $w1
"$SQLRACE" watch -i 3 -T 3 -u "$T/stop" "$C3" >"$T/watch.3" 2>&1 &
w3=$!
gal_bg $w3
gal_wait has "$T/watch.1" 'first write' || gal_fail "no write through 1"
gal_wait has "$T/watch.3" 'first write' || gal_fail "no write through 3"
gal_pause 3
gal_size 1 2
gal_wait has "$T/watch.3" ': 2013 ' ||
    gal_fail "the client of the stopped node saw no error"
gal_resume 3
gal_size 1 3
gal_together
gal_wait again "$T/watch.3" || gal_fail "the client of node 3 is stuck"
: >"$T/stop"
wait $w1 || gal_fail "watcher 1"
wait $w3 || gal_fail "watcher 3"
sed 's/^/client of node 1 (running): /' "$T/watch.1"
sed 's/^/client of node 3 (stopped): /' "$T/watch.3"
has "$T/watch.1" '^errors: none$' ||
    gal_fail "the client of a running node got errors"
has "$T/watch.3" '^errors: .*2013 at UPDATE' ||
    gal_fail "the client of the stopped node did not time out"

# Node 1 alone.
rm -f "$T/stop"
"$SQLRACE" watch -i 1 -T 3 -u "$T/stop" "$C1" >"$T/watch.alone" 2>&1 &
w1=$!
gal_bg $w1
gal_wait has "$T/watch.alone" 'first write' || gal_fail "no write"
gal_kill 2
gal_kill 3
gal_wait has "$T/watch.alone" ': 1047 ' ||
    gal_fail "the client of a node alone saw no 1047"
gal_start 2
gal_start 3
gal_size 1 3
gal_together
gal_wait again "$T/watch.alone" || gal_fail "the client of node 1 is stuck"
: >"$T/stop"
wait $w1 || gal_fail "watcher 1"
sed 's/^/client of node 1 (alone): /' "$T/watch.alone"
exit 0
