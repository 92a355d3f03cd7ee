#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# admin-cluster.sh: the admin verbs on a cluster: two daemons on one
# private MariaDB.  status lists both nodes alive, with their
# heartbeats; a drained node shows draining on every node's view; a
# stopped node shows dead once its heartbeat is older than
# node-timeout; jobs and history show the runs of both nodes.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3
dmn_cluster

# node-timeout leaves room for daemons slowed by sanitizers and by other
# tests beside this one: a live node must never look dead here.
for n in a b; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 6s
EOF
	cat >"$T/$n/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_NAME=every
* * * * * * $ME echo "\$CLUSTERCRON_NODE" >>$O/every
EOF
done

# py CODE ARGS...: CODE with d, the JSON document on standard input.
py()
{
	_c=$1
	shift
	python3 -c "import json, sys
d = json.load(sys.stdin)
$_c" "$@"
}

# node_is NODE STATE DEAD: node's view of status says so, from a's
# configuration.
node_is()
{
	"$CLUSTERCRON" status -c "$T/a/clustercron.conf" --json | py '
n = [x for x in d["nodes"] if x["name"] == sys.argv[1]]
sys.exit(0 if n and n[0]["state"] == sys.argv[2] and
    str(n[0]["dead"]) == sys.argv[3] else 1)' "$@"
}

dmn_start a
dmn_start b
wait_for 30 node_is a active False || fail "status: a not alive"
wait_for 30 node_is b active False || fail "status: b not alive"
wait_for 30 at_least 4 "$O/every" || fail "the job does not run"

run "$CLUSTERCRON" status -c "$T/b/clustercron.conf"
same "status on MariaDB exits 0" "$rc" 0
contains "status: a listed" "$out" '^a +active +[0-9]+s ago '
contains "status: b listed" "$out" '^b +active +[0-9]+s ago '
run "$CLUSTERCRON" status -c "$T/b/clustercron.conf" --json
same "status --json: both nodes, judged by node-timeout" \
    "$(printf '%s' "$out" | py '
print(sorted(n["name"] for n in d["nodes"]), d["node_timeout_ms"],
    [n["dead"] for n in d["nodes"]])')" "['a', 'b'] 6000 [False, False]"

run "$CLUSTERCRON" jobs -c "$T/a/clustercron.conf" --json
same "jobs: one cluster job, named, claimed" "$(printf '%s' "$out" | py '
print(len(d), d[0]["name"], d[0]["scope"], d[0]["claimed_by"] in ("a", "b"))
')" "1 every cluster True"
run "$CLUSTERCRON" history -c "$T/a/clustercron.conf" --json -n 4 every
same "history: the job's runs, each of one node" "$(printf '%s' "$out" | py '
print(len(d), all(r["node"] in ("a", "b") for r in d),
    len(set(r["fire_ms"] for r in d)))')" "4 True 4"

run "$CLUSTERCRON" drain -c "$T/a/clustercron.conf" b
same "drain b" "$out" "node b: draining"
node_is b draining False || fail "status: b not draining"
run "$CLUSTERCRON" resume -c "$T/b/clustercron.conf" b
same "resume b" "$out" "node b: active"
node_is b active False || fail "status: b not active again"

dmn_stop b
wait_for 30 node_is b active True || fail "status: stopped b never dead"
node_is a active False || fail "status: a dead too"
run "$CLUSTERCRON" status -c "$T/a/clustercron.conf"
contains "status: b shown dead" "$out" '^b +dead \(active\) +[0-9]+s ago '
dmn_stop a
finish
