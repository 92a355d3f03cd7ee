#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# admin-output.sh: what users write reaches the administrator's terminal
# through the admin verbs, so it must not be able to command the
# terminal or reorder what the administrator reads.  A throwaway user's
# table has a job whose command and output hold C0 and C1 controls
# (ESC, U+009B, the 8-bit CSI, U+0085) and the controls of bidirectional
# text (U+202E, U+2066, U+200F, U+061C); a job that no table has (as a
# hostile node could register it) carries them in its owner and name,
# and a node in its name.  Every verb, for people and in JSON, and the
# messages that list jobs, must show none of those characters as they
# are: tables write \uXXXX escapes, JSON writes \u escapes that decode
# to the very text the user wrote.

. "$top_srcdir/tests/daemon/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: cannot make a throwaway user"
needs runuser
needs python3
U=ccao$$
dmn_useradd "$U" "$T/home/$U"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

# The bytes: ESC [ 3 1 m, U+009B, U+0085, U+202E, U+2066, U+200F,
# U+061C, U+2028, DEL.
BAD=$(printf 'A\033[31mB\302\2332JC\302\205D\342\200\256E\342\201\246F\342\200\217G\330\234H\342\200\250I\177J')
dmn_setup a </dev/null
dmn_start a
export CTAB_SOCKET="$T/a/sock"
printf 'CLUSTERCRON_SECONDS=yes\nMAILTO=""\nCLUSTERCRON_NAME=evil\n* * * * * * echo "%s"; echo run >>%s/evil\n' \
    "$BAD" "$O" >"$T/tab"
printf '%s' "$BAD" >"$T/bad"
chmod 644 "$T/tab"
run runuser -u "$U" -- env CTAB_SOCKET="$CTAB_SOCKET" "$CTAB" "$T/tab"
same "the user installs the table" "$rc$err" 0
wait_for 10 test -s "$O/evil" || fail "the job does not run"
"$CCSTORE" "sqlite:$T/cc.db" job abcdef0000000000000000000000000a \
    "own${BAD}er" '0 0 1 1 *' "na${BAD}me" "cmd ${BAD}" ||
    fail "ccstore job"
"$CCSTORE" "sqlite:$T/cc.db" beat "node${BAD}" || fail "ccstore beat"

# clean WHAT: none of the characters reached the output ($out and $err).
clean()
{
	ntest=$((ntest + 1))
	if printf '%s%s' "$out" "$err" | python3 -c '
import sys
t = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
bad = [c for c in t if (ord(c) < 32 and c not in "\n") or
    0x7f <= ord(c) <= 0x9f or ord(c) in (0x61c, 0x200e, 0x200f) or
    0x2028 <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
if bad:
    print("raw:", " ".join("U+%04X" % ord(c) for c in bad))
    sys.exit(1)'; then
		echo "ok: $1: nothing raw"
	else
		fail "$1: a control or bidi character shown as it is"
	fi
}
# escaped WHAT: the table shows them as \u escapes (as many as the
# column's width leaves).
escaped()
{
	contains "$1: as escapes" "$out$err" \
	    'A\\u001b\[31mB\\u009b2JC\\u0085D\\u202e'
}
adm() { run "$CLUSTERCRON" "$@" -c "$T/a/clustercron.conf"; }

adm jobs
same "jobs: exit 0" "$rc" 0
clean jobs
escaped jobs
contains "jobs: the owner and name escaped alike" "$out" \
    'naA\\u001b\[31mB.* ownA\\u001b\[3'
adm jobs --json
clean "jobs --json"
run_json=$out
run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
bad = open(sys.argv[2], "rb").read().decode()
want = {"echo \"%s\"; echo run >>%s/evil" % (bad, sys.argv[3]), "cmd " + bad}
got = {j["command"] for j in d}
print("ok" if got == want else "got %r, want %r" % (got, want))
got = {(j["owner"], j["name"]) for j in d if j["command"] == "cmd " + bad}
print("ok" if got == {("own" + bad + "er", "na" + bad + "me")} else
    "owner and name %r" % got)' "$out" "$T/bad" "$O"
same "jobs --json: command, owner and name decode to what was written" \
    "$out" "ok
ok"
out=$run_json
contains "jobs --json: as \\u escapes" "$out" \
    'A\\u001b\[31mB\\u009b2JC\\u0085D\\u202eE\\u2066F\\u200fG\\u061cH\\u2028I\\u007fJ'

adm history -n 5
clean history
escaped history
adm history -n 5 --json
clean "history --json"
adm history evil
clean "history of one job"
adm status
clean status
contains "status: the node's name escaped" "$out" 'nodeA\\u001b\[31mB'
adm status --json
clean "status --json"

adm pause evil
same "pause by name: exit 0" "$rc" 0
adm resume evil
clean "pause and resume"
adm pause "na${BAD}me"
clean "pause naming the job by its odd name"
contains "... which is escaped in the answer" "$out" \
    '^job abcdef000000 \(naA\\u001b\[31mB'
adm resume abcdef
clean "resume"
# Two jobs one word names: the message lists both, escaped.
"$CCSTORE" "sqlite:$T/cc.db" job abcdef1100000000000000000000000b \
    "own${BAD}er" '0 0 1 1 *' "na${BAD}me" || fail "ccstore job"
adm pause "na${BAD}me"
same "an ambiguous word: exit 1" "$rc" 1
clean "the candidates listed"
contains "... escaped" "$err" '^  abcdef1100000000000000000000000b  ownA\\u001b\[31m'
finish
