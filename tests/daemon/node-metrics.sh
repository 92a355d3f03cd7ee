#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# node-metrics.sh: a daemon on SQLite with metrics-file set writes the
# Prometheus text exposition of its runs: a job that succeeds, one that
# exits 3 (it has no name, and its command, which could hold a secret,
# is no label: the file is for every user to read), one whose
# overlapping fires are skipped.  The file parses (HELP and TYPE before
# the samples, labels quoted and escaped) and says what ran.  It is
# replaced whole: no temporary file is left beside it.

. "$top_srcdir/tests/daemon/lib.sh"
needs python3

O=$T/jobs
mkdir "$O"
chmod 777 "$O"
mkdir "$T/prom"
dmn_setup m1 <<EOF
metrics-file = $T/prom/clustercron.prom
EOF
cat >"$T/m1/crontab" <<EOF
CLUSTERCRON_SECONDS=yes
MAILTO=""
CLUSTERCRON_NAME=okjob
* * * * * * $ME echo ok >>$O/ok
*/2 * * * * * $ME echo "q\"uote\\\\" >>$O/fail; exit 3
CLUSTERCRON_OVERLAP=forbid
CLUSTERCRON_NAME=slow
* * * * * * $ME sleep 3
EOF
dmn_start m1
P=$T/prom/clustercron.prom
wait_for 20 test -f "$P" || fail "no metrics file"
wait_for 30 at_least 3 "$O/fail" || fail "the failing job hardly ran"
has_skip() { grep -qE '^clustercron_job_skipped_fires_total\{[^}]*name="slow"[^}]*\} [1-9]' "$P"; }
wait_for 30 has_skip || fail "no skipped fire counted"
has_fail() { grep -qE '^clustercron_job_last_exit_status\{[^}]*\} 3$' "$P"; }
wait_for 10 has_fail || fail "no exit status 3"
dmn_stop m1
cp "$P" "$T/final.prom"
same "no temporary file left" "$(ls -A "$T/prom")" "clustercron.prom"
failcmd=$(sed -n 's/^\*\/2 \* \* \* \* \* [^ ]* //p' "$T/m1/crontab")

run python3 - "$T/final.prom" "$(date +%s)" "$failcmd" <<'EOF'
import re, sys
path, now, failcmd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:\\[\\"n]|[^"\\\n])*"'
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{' + label +
    r'(?:,' + label + r')*\})? (-?[0-9]+(?:\.[0-9]+)?)$')
lab = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\[\\"n]|[^"\\\n])*)"')
def unescape(v):
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1),
        m.group(1)), v)
helped, typed, data, bad = set(), {}, [], []
for line in open(path):
    line = line.rstrip('\n')
    m = re.match(r'^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$', line)
    if m:
        if m.group(1) == 'HELP':
            helped.add(m.group(2))
        else:
            typed[m.group(2)] = m.group(3)
        continue
    m = sample.match(line)
    if not m:
        bad.append('bad line: ' + line)
        continue
    name = m.group(1)
    if name not in helped or name not in typed:
        bad.append('no HELP/TYPE before ' + name)
    labels = {k: unescape(v) for k, v in lab.findall(m.group(2) or '')}
    data.append((name, labels, float(m.group(3))))
def get(metric, **want):
    return [v for n, l, v in data if n == metric and
        all(l.get(k) == x for k, x in want.items())]
for t, ty in typed.items():
    if ty not in ('gauge', 'counter'):
        bad.append('type ' + ty)
    if t.endswith('_total') != (ty == 'counter'):
        bad.append('counter naming ' + t)
ok = get('clustercron_job_last_exit_status', name='okjob')
if ok != [0]:
    bad.append('okjob exit status %r' % ok)
succ = get('clustercron_job_last_success_timestamp_seconds', name='okjob')
if len(succ) != 1 or not now - 30 <= succ[0] <= now + 1:
    bad.append('okjob last success %r (now %d)' % (succ, now))
dur = get('clustercron_job_last_duration_seconds', name='okjob')
if len(dur) != 1 or not 0 <= dur[0] < 10:
    bad.append('okjob duration %r' % dur)
if get('clustercron_job_last_exit_status', name='') != [3]:
    bad.append('failing job (no name) not found with status 3')
if get('clustercron_job_last_success_timestamp_seconds', name=''):
    bad.append('failing job has a success')
if 'uote' in open(path).read():
    bad.append('a command in the file: %r' % failcmd)
sk = get('clustercron_job_skipped_fires_total', name='slow')
if len(sk) != 1 or sk[0] < 1:
    bad.append('slow skipped %r' % sk)
if get('clustercron_job_missed_fires_total', name='okjob') != [0]:
    bad.append('okjob missed')
won = get('clustercron_node_claims_won_total', node='m1')
if len(won) != 1 or won[0] < 5:
    bad.append('claims won %r' % won)
if len(get('clustercron_node_claims_lost_total', node='m1')) != 1:
    bad.append('no claims lost count')
for n, l, v in data:
    if n.startswith('clustercron_job_'):
        if not re.match(r'^[0-9a-f]{12}$', l.get('job', '')):
            bad.append('job label %r' % l.get('job'))
        if l.get('owner') is None:
            bad.append('no owner label')
print('\n'.join(bad))
sys.exit(1 if bad else 0)
EOF
same "metrics file parses and says what ran" "$out" ""
[ "$rc" -eq 0 ] || { fail "python check: $err"; cat "$T/final.prom"; }
finish
