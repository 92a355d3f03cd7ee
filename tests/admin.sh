#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# admin.sh: the admin verbs against a running daemon on SQLite: status,
# jobs and history for people and as JSON, jobs named by their
# CLUSTERCRON_NAME or an identity prefix, unknown and ambiguous names
# refused with the candidates, pause and resume of a job (a paused job
# stops running while another goes on), drain and resume of a node, and
# resume refusing a word that names both.  Identities that share a
# prefix, a name two jobs share and a second node are put in the store
# directly (ccstore), as no table could make them.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3

dmn_setup a </dev/null
O=$T/jobs
mkdir "$O"
chmod 777 "$O"
CONF=$T/a/clustercron.conf
DB=sqlite:$T/cc.db

cat >"$T/a/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
* * * * * * $ME printf 'tick "q"\\tx\\377\\nsecond line\\n'; echo t >>$O/tick
CLUSTERCRON_NAME=fails
* * * * * * $ME echo f >>$O/fail; exit 3
* * * * * * $ME echo p >>$O/p
*/4 * * * * * $ME sleep 2
CRON_TZ=America/New_York
CLUSTERCRON_SCOPE=node
0 30 2 * * * $ME echo nyc
EOF

# adm VERB ARGS...: run a verb on the daemon's configuration.
adm()
{
	_v=$1
	shift
	run "$CLUSTERCRON" "$_v" -c "$CONF" "$@"
}

# py CODE ARGS...: CODE with d, the JSON document on standard input.
py()
{
	_c=$1
	shift
	python3 -c "import json, sys
d = json.load(sys.stdin)
$_c" "$@"
}

# jid TEXT: the identity of the job whose command holds TEXT.
jid()
{
	"$CLUSTERCRON" jobs -c "$CONF" --json |
	    py 'print([j["id"] for j in d if sys.argv[1] in j["command"]][0])' \
	    "$1"
}

short()
{
	printf '%.12s' "$1"
}

dmn_start a
# history -n 4 below reads four runs of the failing job.
wait_for 20 at_least 4 "$O/fail" || fail "the jobs do not run"
wait_for 20 at_least 3 "$O/tick" || fail "the jobs do not run"

TICK=$(jid tick)
FAILJ=$(jid 'exit 3')
P=$(jid 'echo p')
SLOW=$(jid 'sleep 2')
NYC=$(jid nyc)
same "five jobs, five identities" \
    "$(printf '%s\n' $TICK $FAILJ $P $SLOW $NYC | grep -cE '^[0-9a-f]{32}$')" 5

# ---- status
adm status
same "status exits 0" "$rc" 0
contains "status: node header" "$out" \
    '^NODE +STATE +HEARTBEAT +SKEW +STARTED +RUNNING$'
# One node on SQLite records its start, not heartbeats: no heartbeat
# shown rather than the time since the start, which would read as one
# long stale.
contains "status: node a, active, no heartbeat" "$out" \
    '^a +active +- +[+-][0-9.]+s +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} +[0-9]+$'
contains "status: runs header" "$out" '^JOB +NODE +PID +FIRE +STARTED$'

slow_running()
{
	"$CLUSTERCRON" status -c "$CONF" --json | py '
sys.exit(0 if any(r["job"] == sys.argv[1] and r["node"] == "a" and
    r["pid"] > 0 for r in d["running"]) else 1)' "$SLOW"
}
wait_for 20 slow_running || fail "status --json: the sleeping job never shows running"
people_running()
{
	"$CLUSTERCRON" status -c "$CONF" |
	    grep -qE "^$(short "$SLOW") +a +[0-9]+ +[0-9-]+ [0-9:]+ +[0-9-]+ [0-9:]+$"
}
wait_for 20 people_running || fail "status: the sleeping job never shows running"

adm status --json
same "status --json exits 0" "$rc" 0
same "status --json: keys and values" "$(printf '%s' "$out" | py '
n = [x for x in d["nodes"] if x["name"] == "a"][0]
print(sorted(d.keys()))
print(sorted(n.keys()))
print(n["state"], n["dead"],
    n["heartbeat"] is None and n["heartbeat_age_ms"] is None,
    n["started"].endswith("Z"), isinstance(n["started_ms"], int),
    isinstance(n["running"], int), d["node_timeout_ms"])
for r in d["running"]:
    assert sorted(r.keys()) == ["attempt", "fire", "fire_ms", "job",
        "node", "pid", "started", "started_ms"], r
')" "['node_timeout_ms', 'nodes', 'running', 'store_time', 'store_time_ms']
['dead', 'heartbeat', 'heartbeat_age_ms', 'heartbeat_ms', 'name', 'running', 'skew_ms', 'started', 'started_ms', 'state']
active None True True True True None"

# The jobs' last results and their history hold still from here: the
# daemon stops (its runs end and are recorded), so that no run of these
# every-second jobs is in flight as they are read, and starts again for
# pause and resume.  The history below asks for four runs of the
# failing job: they must have run (the checks above may take no time).
wait_for 20 at_least 4 "$O/fail" || fail "the failing job stopped"
dmn_stop a

# ---- jobs
adm jobs
same "jobs exits 0" "$rc" 0
contains "jobs: header" "$out" \
    '^JOB +NAME +OWNER +SCOPE +SCHEDULE +ZONE +NEXT +PAUSED +LAST_FIRE +LAST_NODE +RESULT +COMMAND$'
contains "jobs: the failing job, its last fire, node and result" "$out" \
    "^$(short "$FAILJ") +fails +$ME +cluster +\\* \\* \\* \\* \\* \\* +- +[0-9-]+ [0-9:]+ +no +[0-9-]+ [0-9:]+ +a +exit 3 +echo f "
contains "jobs: the node-local job in its zone" "$out" \
    "^$(short "$NYC") +- +$ME +node +0 30 2 \\* \\* \\* +America/New_York +[0-9-]+ [0-9:]+ +no +- +- +- +echo nyc$"
same "jobs: every job listed once" \
    "$(printf '%s\n' "$out" | grep -cE '^[0-9a-f]{12} ')" 5

adm jobs --json
same "jobs --json exits 0" "$rc" 0
same "jobs --json: the failing job" "$(printf '%s' "$out" | py '
j = [x for x in d if x["id"] == sys.argv[1]][0]
print(sorted(j.keys()))
print(j["name"], j["owner"] == sys.argv[2], j["scope"], j["schedule"],
    j["zone"], j["paused"], j["next_kind"], j["claimed_by"],
    j["last_run"]["state"], j["last_run"]["exit"], j["last_run"]["node"],
    j["last_fire_ms"] == j["last_run"]["fire_ms"] or
    j["last_fire_ms"] > j["last_run"]["fire_ms"])
' "$FAILJ" "$ME")" "['claimed_at', 'claimed_at_ms', 'claimed_by', 'command', 'grace_s', 'id', 'last_fire', 'last_fire_ms', 'last_run', 'misfire', 'name', 'next', 'next_kind', 'next_ms', 'overlap', 'owner', 'paused', 'schedule', 'scope', 'zone']
fails True cluster * * * * * * None False at a finished 3 a True"

# The next fire is the calculator's: as clustercron next says.
want=$("$CLUSTERCRON" next -S -z America/New_York '0 30 2 * * *' |
    python3 -c 'import sys, datetime
t = datetime.datetime.fromisoformat(sys.stdin.read().strip())
print(t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))')
same "jobs --json: next fire in the job's zone" "$(printf '%s' "$out" | py '
j = [x for x in d if x["id"] == sys.argv[1]][0]
print(j["next"], j["zone"], j["scope"], j["last_run"])' "$NYC")" \
    "$want America/New_York node None"

adm jobs -u nobody-at-all
same "jobs -u: nobody's jobs, header only" "$out" \
    "$(printf '%s\n' "$out" | head -n 1)"
contains "jobs -u: header" "$out" '^JOB +NAME'
adm jobs --json -u "$ME"
same "jobs -u: the owner's jobs" "$(printf '%s' "$out" | py 'print(len(d))')" 5

# ---- history
adm history -n 3
same "history exits 0" "$rc" 0
contains "history: header" "$out" \
    '^JOB +OWNER +NODE +FIRE +ATTEMPT +STARTED +ENDED +DURATION +STATE +RESULT +COMMAND +OUTPUT$'
same "history -n 3: three runs" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 4

adm history --json -n 5
same "history --json -n 5: five runs, newest first" "$(printf '%s' "$out" | py '
f = [r["fire_ms"] for r in d]
print(len(d), f == sorted(f, reverse=True))')" "5 True"

adm history --json -n 4 "$(printf '%.6s' "$FAILJ")"
same "history by a 6-digit prefix: that job's runs only" \
    "$(printf '%s' "$out" | py '
print(len(d), set(r["job"] for r in d) == {sys.argv[1]},
    set((r["state"], r["exit"], r["signal"], r["node"]) for r in d))
print(sorted(d[0].keys()))' "$FAILJ")" \
    "4 True {('finished', 3, None, 'a')}
['attempt', 'command', 'duration_ms', 'ended', 'ended_ms', 'exit', 'fire', 'fire_ms', 'gone', 'job', 'name', 'node', 'output', 'output_bytes', 'owner', 'pid', 'signal', 'started', 'started_ms', 'state']"
adm history --json -n 3 fails
same "history by name" "$(printf '%s' "$out" | py '
print(len(d), set(r["job"] for r in d) == {sys.argv[1]})' "$FAILJ")" "3 True"
adm history -n 2 "$FAILJ"
same "history by the whole identity" \
    "$(printf '%s\n' "$out" | grep -cE "^$(short "$FAILJ") +$ME +a +[0-9-]+ [0-9:]+ +1 +.* finished +exit 3 +echo f .* +-$")" 2

# Output: the whole head escaped in JSON, its first line for people.
adm history --json -n 1 "$TICK"
same "history --json: output escaped, bad byte as U+FFFD" \
    "$(printf '%s' "$out" | py '
print(ascii(d[0]["output"]), d[0]["output_bytes"])')" \
    "'tick \"q\"\\tx\\ufffd\\nsecond line\\n' 24"
contains "history --json: the escapes as written" "$out" \
    '"output":"tick \\"q\\"\\tx\\ufffd\\nsecond line\\n"'
adm history -n 1 "$TICK"
contains "history: the output's first line" "$out" 'exit 0 +printf .* +tick "q" x\?$'
same "history: only the first line" "$(printf '%s\n' "$out" | grep -c second)" 0

# ---- naming jobs
adm history abc
same "a short prefix is refused" "$rc" 1
contains "a short prefix: why" "$err" \
    'no job named abc \(an identity prefix has at least 6 hex digits\)'
adm history no-such-job
same "an unknown job is refused" "$rc" 1
contains "an unknown job: why" "$err" '^clustercron: history: no job no-such-job$'
adm history 0123456789abcdef0123456789abcdef
same "an unknown whole identity: its (no) runs" "$rc" 0

"$CCSTORE" "$DB" job abcdef0000000000000000000000000a nobody-admin \
    '0 0 1 1 *' && "$CCSTORE" "$DB" job abcdef0000000000000000000000000b \
    nobody-admin '0 0 1 1 *' || fail "ccstore job"
adm history abcdef
same "an ambiguous prefix is refused" "$rc" 1
contains "ambiguous: says so" "$err" 'history: abcdef names 2 jobs'
contains "ambiguous: lists the first" "$err" \
    '^  abcdef0000000000000000000000000a  nobody-admin  0 0 1 1 \*$'
contains "ambiguous: lists the second" "$err" \
    '^  abcdef0000000000000000000000000b  nobody-admin  0 0 1 1 \*$'
adm pause ABCDEF00
same "pause: ambiguous too" "$rc" 1
adm history abcdef0000000000000000000000000b
same "a longer prefix picks one" "$rc" 0
adm jobs --json -u nobody-admin
same "jobs -u: the other owner's" \
    "$(printf '%s' "$out" | py 'print(len(d), d[0]["next_kind"], d[0]["last_run"])')" \
    "2 at None"

# Two jobs of one name (of two owners): the name is ambiguous.
"$CCSTORE" "$DB" job 1111110000000000000000000000000d nobody-twin \
    '0 0 1 1 *' twin && "$CCSTORE" "$DB" job 2222220000000000000000000000000e \
    nobody-twin '0 0 1 1 *' twin || fail "ccstore job"
adm pause twin
same "an ambiguous name is refused" "$rc" 1
contains "ambiguous name: says so" "$err" 'pause: twin names 2 jobs'
contains "ambiguous name: lists them with their name" "$err" \
    '^  1111110000000000000000000000000d  nobody-twin  0 0 1 1 \*  \(twin\)$'
contains "ambiguous name: asks for owner:name or the identity" "$err" 'give owner:name, the whole identity or a longer identity prefix'
adm jobs --json -u nobody-twin
same "jobs --json: the names" \
    "$(printf '%s' "$out" | py 'print(" ".join(j["name"] for j in d))')" \
    "twin twin"
adm pause 111111
same "pause one twin by prefix" "$out" "job 111111000000 (twin): paused"
adm resume --job 111111
same "resume it" "$out" "job 111111000000 (twin): resumed"

p0=$(count_lines "$O/p")
dmn_start a
# The misfire pass notes the fires missed while it was down: the last
# result is a run again once the job has run twice.
wait_for 20 at_least $((p0 + 2)) "$O/p" || fail "the jobs do not run again"

# ---- pause and resume a job: it stops running, another goes on.
paused_is()
{
	"$CLUSTERCRON" jobs -c "$CONF" --json | py '
sys.exit(0 if [j for j in d if j["id"] == sys.argv[1]][0]["paused"] ==
    (sys.argv[2] == "yes") else 1)' "$P" "$1"
}
adm pause "$(printf '%.8s' "$P")"
same "pause exits 0" "$rc" 0
same "pause says so" "$out" "job $(short "$P"): paused"
paused_is yes || fail "jobs --json: not paused"
adm jobs
# (Its last run may be one claimed just before the pause.)
contains "jobs: paused" "$out" "^$(short "$P") .* yes +[0-9-]+ [0-9:]+ +a +(exit 0|running) +echo p "
# A fire claimed just before the pause may still finish: let the other
# job run three times, then count, then three more.
n=$(count_lines "$O/tick")
wait_for 20 at_least $((n + 3)) "$O/tick" || fail "tick stopped"
p1=$(count_lines "$O/p")
n=$(count_lines "$O/tick")
wait_for 20 at_least $((n + 3)) "$O/tick" || fail "tick stopped"
same "a paused job does not run while another does" \
    "$(count_lines "$O/p")" "$p1"
adm resume "$(printf '%.8s' "$P")"
same "resume (a job) exits 0" "$rc" 0
same "resume says so" "$out" "job $(short "$P"): resumed"
paused_is no || fail "jobs --json: still paused"
wait_for 20 at_least $((p1 + 2)) "$O/p" || fail "the resumed job does not run"

# ---- drain and resume a node
node_state()
{
	"$CLUSTERCRON" status -c "$CONF" --json | py '
sys.exit(0 if [n for n in d["nodes"] if n["name"] == sys.argv[1]][0]["state"]
    == sys.argv[2] else 1)' "$1" "$2"
}
adm drain a
same "drain exits 0" "$rc" 0
same "drain says so" "$out" "node a: draining"
node_state a draining || fail "status --json: a is not draining"
adm status
contains "status: draining" "$out" '^a +draining +'
adm resume a
same "resume (a node) exits 0" "$rc" 0
same "resume a node says so" "$out" "node a: active"
node_state a active || fail "status --json: a is not active again"
adm drain no-such-node
same "drain: an unknown node is refused" "$rc" 1
contains "drain: unknown node, why" "$err" '^clustercron: drain: no node no-such-node$'
adm resume no-such-thing
same "resume: unknown" "$rc" 1
contains "resume: unknown, why" "$err" 'resume: no node or job no-such-thing$'

# A word that names a node and a job: resume asks which.
"$CCSTORE" "$DB" beat fedcba987654 &&
    "$CCSTORE" "$DB" job fedcba9876540000000000000000000c nobody-admin \
    '0 0 1 1 *' || fail "ccstore beat or job"
adm status
contains "status: the second node" "$out" '^fedcba987654 +active '
adm drain fedcba987654
same "drain the second node" "$rc" 0
adm pause fedcba987654
same "pause the job of the same prefix" "$rc" 0
adm resume fedcba987654
same "resume: a node and a job, refused" "$rc" 1
contains "resume: says which to use" "$err" \
    'resume: fedcba987654 names a node and a job: say which with --node or --job'
node_state fedcba987654 draining || fail "the refused resume changed the node"
adm resume --node fedcba987654
same "resume --node" "$out" "node fedcba987654: active"
node_state fedcba987654 active || fail "resume --node: not active"
adm resume --job fedcba987654
same "resume --job" "$out" "job fedcba987654: resumed"
adm pause --node x
same "pause takes no --node" "$rc" 1
adm pause "$NYC"
same "pause: a node-local job is refused" "$rc" 1
contains "pause: node-local, why" "$err" \
    "pause: job $(short "$NYC") runs on every node without a claim"

# ---- usage and configuration errors
adm history -n -1
same "history -n -1 refused" "$rc" 1
contains "history -n: why" "$err" 'history: -n -1: count is too small'
adm status extra
same "status takes no argument" "$rc" 1
contains "status usage" "$err" '^usage: clustercron status \[--json\] \[-c file\]$'
sed "s|^store = .*|store = sqlite:$T/none.db|" "$CONF" >"$T/none.conf"
run "$CLUSTERCRON" status -c "$T/none.conf"
same "a missing store is not created" "$rc" 1
contains "a missing store: why" "$err" "status: no store at $T/none.db"
test -e "$T/none.db" && fail "status created a store"
run "$CLUSTERCRON" jobs -c "$T/no-such.conf"
same "a missing -c file" "$rc" 1

dmn_stop a
finish
