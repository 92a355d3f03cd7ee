#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-burst-store.sh: three daemons on one private MariaDB, 200 one-shot
# jobs (at -L rerun -R 2 -B 3s) due in the same second, a quarter of
# them failing their first attempt.  While they run, one node dies
# (SIGKILL to the daemon and its jobs) and the store is killed
# (SIGKILL, no clean shutdown), then started again on the same data.
# Some attempts end while it is down and retries fall due meanwhile;
# no attempt starts then; afterwards every job ends done; no
# attempt runs twice; a job the dead node did not hold runs exactly
# once (twice when its first attempt fails, the retry no sooner than
# its back-off after the failure); one it held runs again once on a
# live node; and every attempt that ran is in clustercron history,
# with the job's owner, commands and state, none left running, and
# clustercron jobs --json counts its attempts.  Checked from the jobs'
# own lines and clustercron history and jobs --json.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3
dmn_cluster

N=200
for n in n1 n2 n3; do
	dmn_setup $n <<EOF
heartbeat-interval = 1s
node-timeout = 5s
store-retry-interval = 1s
EOF
done
for n in n1 n2 n3; do
	dmn_start $n
done
mkdir -p "$T/bin"
ln -s "$CTAB" "$T/bin/at"
ln -s "$CTAB" "$T/bin/atq"

# Each job writes "number node attempt time" when it starts; every
# fourth fails its first attempt.
due=$(($(date +%s) + 15))
stamp=$(date -d "@$due" +%Y%m%d%H%M.%S)
i=1
while [ $i -le $N ]; do
	case $((i % 3)) in
	0) s=n1 ;;
	1) s=n2 ;;
	*) s=n3 ;;
	esac
	if [ $((i % 4)) -eq 0 ]; then
		cmd="[ \$CLUSTERCRON_ATTEMPT -ge 2 ] || exit 1; sleep 1"
	else
		cmd="sleep 2"
	fi
	echo "echo $i \$CLUSTERCRON_NODE \$CLUSTERCRON_ATTEMPT \$(date +%s) >>$O/ran; $cmd" |
	    CTAB_SOCKET=$T/$s/sock "$T/bin/at" -L rerun -R 2 -B 3s \
	    -t "$stamp" 2>>"$T/submit.err" || fail "submitting job $i"
	i=$((i + 1))
done
echo "submitted $N jobs by $(date +%s), due at $due ($(elapsed))"
[ "$(date +%s)" -lt "$due" ] || fail "submitting took past the jobs' time"
same "every job a number of its own" \
    "$(grep -c '^job [0-9]* at ' "$T/submit.err")" $N

# Once n1 has attempts in flight: n1 dies, then the store.
n1runs() {
	[ -n "$(run_rows 'node == "n1" && state == "running" && pid > 0')" ]
}
wait_for 40 n1runs || fail "n1 ran none of the jobs"
dmn_crash n1 || exit 1
held=$(run_rows 'node == "n1" && state == "running"' |
    awk '{ sub(/^at:/, "", $1); print $1 }' | sort -n)
mdb_kill
kill_s=$(date +%s)
echo "n1 killed holding $(echo "$held" | wc -w) jobs, then the store," \
    "at $kill_s ($(elapsed))"
down() { in_log n2 'STORE DOWN' && in_log n3 'STORE DOWN'; }
wait_for 20 down || fail "n2 and n3 did not notice the store went"
# Down for as long as an attempt takes, at least: attempts end meanwhile.
outage() { [ "$(date +%s)" -ge $((kill_s + 4)) ]; }
wait_for 10 outage
k=$(count_lines "$O/ran")
restart_s=$(date +%s)
mdb_start
echo "store back at $restart_s ($(elapsed)), $k lines so far"
back() { in_log n2 'STORE BACK' && in_log n3 'STORE BACK'; }
wait_for 40 back || fail "n2 and n3 did not notice the store came back"

# Every job ends; nothing is left running.
pending() { CTAB_SOCKET=$T/n2/sock "$T/bin/atq" | wc -l | tr -d ' '; }
nopending() { [ "$(pending)" = 0 ]; }
wait_for 60 nopending || fail "$(pending) jobs still pending"
norun() { [ -z "$(run_rows 'state == "running"')" ]; }
wait_for 20 norun || fail "runs still running: $(run_rows 'state == "running"')"
echo "all ended ($(elapsed))"

CTAB_SOCKET=$T/n2/sock "$T/bin/atq" -a >"$T/atq"
"$CLUSTERCRON" history -c "$T/n2/clustercron.conf" -n 0 --json >"$T/hist" ||
    fail "clustercron history --json"
same "every job done" \
    "$(awk -F'\t' '{ print $2 }' "$T/atq" | awk '{ print $(NF - 1) }' |
    sort | uniq -c | tr -s ' ')" " $N done"
same "jobs --json: every one-shot job done, each attempt counted" \
    "$("$CLUSTERCRON" jobs -c "$T/n2/clustercron.conf" --json | python3 -c '
import json, sys
h = {}
for r in json.load(open(sys.argv[1])):
    h[r["job"]] = max(h.get(r["job"], 0), r["attempt"])
print(sorted(set((j["state"], j["attempts"] == h.get(j["id"]))
    for j in json.load(sys.stdin) if j["kind"] == "at")))' "$T/hist")" \
    "[('done', True)]"
# The outage came while attempts ran: some ended while the store was
# down (recorded once it was back), and retries were due meanwhile.
same "attempts ended during the outage, retries after it" \
    "$(python3 -c '
import json, sys
a, b = int(sys.argv[2]) * 1000, int(sys.argv[3]) * 1000
rs = json.load(open(sys.argv[1]))
print(any(a < (r["ended_ms"] or 0) < b for r in rs),
    any(r["attempt"] > 1 and r["started_ms"] > b for r in rs))' \
    "$T/hist" "$kill_s" "$restart_s")" "True True"
same "nothing started while the store was down (a second's margin)" \
    "$(awk -v a="$kill_s" -v b="$restart_s" '$4 > a + 1 && $4 < b' \
    "$O/ran")" ""
same "no attempt ran twice" \
    "$(awk '{ print $1, $3 }' "$O/ran" | sort | uniq -d)" ""

# Per job, from its lines and its history.
bad=$(python3 - "$N" "$O/ran" "$T/hist" "$(echo $held)" <<'EOF'
import json, sys
n, ranf, histf, held = int(sys.argv[1]), sys.argv[2], sys.argv[3], \
    set(int(x) for x in sys.argv[4].split())
lines, runs, bad = {}, {}, []
for l in open(ranf):
    j, node, a, t = l.split()
    lines.setdefault(int(j), []).append((int(a), node))
for r in json.load(open(histf)):
    if r["job"].startswith("at:"):
        runs.setdefault(int(r["job"][3:]), []).append(r)
for j in range(1, n + 1):
    ls, rs = sorted(lines.get(j, [])), sorted(runs.get(j, []),
        key=lambda r: r["attempt"])
    what = "%d: lines %s runs %s" % (j, ls, [(r["attempt"], r["node"],
        r["state"], r["exit"]) for r in rs])
    # Every attempt that ran is in the history, on its node.
    byatt = dict((r["attempt"], r) for r in rs)
    for a, node in ls:
        r = byatt.get(a)
        if r is None or r["node"] != node or \
            r["state"] not in ("finished", "lost"):
            bad.append("not in the history: " + what)
    # Each recorded run that ran on a live node has its one line.
    for r in rs:
        if r["state"] == "finished" and \
            ls.count((r["attempt"], r["node"])) != 1:
            bad.append("finished without its line: " + what)
        if r["owner"] != "root" or r["job_state"] != "done" or \
            not r["command"].startswith("echo %d " % j) or r["gone"]:
            bad.append("history names it wrongly: %s %s" % (what, r))
    fin = [r for r in rs if r["state"] == "finished"]
    if not fin or fin[-1]["exit"] != 0 or fin[-1]["node"] == "n1" and \
        j in held:
        bad.append("no successful last attempt: " + what)
        continue
    failing = j % 4 == 0
    if j in held:
        # An attempt lost with n1: run again on a live node, which
        # succeeds (a lost attempt is the failure a failing job makes).
        if not any(r["state"] == "lost" and r["node"] == "n1"
            for r in rs) or len(fin) > 2:
            bad.append("held: " + what)
        continue
    # Not held: once, or twice when its first attempt fails, the retry
    # no sooner than the back-off (3 s) after the failure ended.
    if len(ls) != (2 if failing else 1) or len(fin) != len(ls):
        bad.append("runs: " + what)
    elif failing and (fin[0]["exit"] != 1 or
        fin[1]["started_ms"] - fin[0]["ended_ms"] < 3000):
        bad.append("retry: " + what)
print("\n".join(bad))
EOF
) || bad="the check did not run to its end${bad:+: $bad}"
same "each job ran as the rules say, every attempt in the history" "$bad" ""
for n in n2 n3; do
	echo "$n ran $(awk -v n=$n '$2 == n' "$O/ran" | wc -l) attempts"
done
for n in n2 n3; do
	same "$n said the store went once" \
	    "$(grep -c 'STORE DOWN' "$T/$n.log")" 1
done

echo "runtime: $(elapsed)"
finish
