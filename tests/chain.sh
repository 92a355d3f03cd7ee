#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# chain.sh: the daemon's modules call one another one way only
# (clustercron/daemon.h), read from the sources, not from a list kept
# by hand.  For each file of the daemon's core: the functions it
# defines, and the functions it calls; a call to a function another of
# these files defines is an edge between the two files.  The edges must
# make no cycle, and each must go down the chain as daemon.h draws it
# (a file may call only files below its own level).  Besides: only
# daemon.c reads the clock (the others take their time from the tick)
# and only daemon.c writes the daemon's settings and store (D).
#
# Comments, strings and character constants are taken out first, so
# that neither a word in a comment nor a function passed by name (a
# timer's callback) counts as a call.

: "${top_srcdir:?run through make check}"
src=$top_srcdir/clustercron
T=$(mktemp -d "${TMPDIR:-/tmp}/ccchain.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# The chain, top first, with each file's level: a file calls only
# files of a higher level number (lower in the chain).
cat >"$T/levels" <<'EOF'
daemon.c 0
loader.c 1
claim.c 1
atrun.c 1
node.c 2
fire.c 3
proc.c 4
record.c 4
metrics.c 4
jobtab.c 5
gate.c 5
dlog.c 6
heap.c 6
tick.c 6
EOF

nfail=0
fail() {
	nfail=$((nfail + 1))
	echo "FAIL: $*"
}

# strip FILE: the C text of FILE without comments, strings and
# character constants (each replaced by a blank, lines kept).
strip() {
	awk '
	BEGIN { c = 0 }
	{
		out = ""; s = $0; n = length(s); i = 1; q = ""
		while (i <= n) {
			ch = substr(s, i, 1); nx = substr(s, i + 1, 1)
			if (c) {
				if (ch == "*" && nx == "/") { c = 0; i += 2; continue }
				i++; continue
			}
			if (q != "") {
				if (ch == "\\") { i += 2; continue }
				if (ch == q) q = ""
				i++; continue
			}
			if (ch == "/" && nx == "*") { c = 1; i += 2; out = out " "; continue }
			if (ch == "/" && nx == "/") break
			if (ch == "\"" || ch == "'\''") { q = ch; out = out " "; i++; continue }
			out = out ch; i++
		}
		print out
	}' "$1"
}

files=$(cut -d' ' -f1 "$T/levels")
for f in $files; do
	[ -f "$src/$f" ] || { fail "$f: no such file"; continue; }
	strip "$src/$f" >"$T/$f.c"
	# Definitions: KNF puts a function's name at the start of a line;
	# a static one has "static" on the line before.
	awk -v file="$f" '
	/^[a-z_][a-z0-9_]*\(/ {
		name = $0; sub(/\(.*/, "", name)
		print name, (prev ~ /^static/ ? "static" : "extern"), file
	}
	{ if ($0 != "") prev = $0 }' "$T/$f.c" >>"$T/defs"
	# Calls: every name followed by "(" that is not a definition.
	awk '!/^[a-z_][a-z0-9_]*\(/' "$T/$f.c" |
	    grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' |
	    sed 's/[[:space:]]*($//' | sort -u >"$T/$f.calls"
done

# The edges: a call to a function another core file defines, not
# static, and not one of the caller's own.
for f in $files; do
	[ -f "$T/$f.calls" ] || continue
	while read -r name; do
		awk -v n="$name" -v f="$f" \
		    '$1 == n && $2 == "extern" && $3 != f { print f, $3, n }' \
		    "$T/defs"
	done <"$T/$f.calls"
done | sort -u >"$T/edges"

# Each edge goes down the chain.
while read -r from to name; do
	lf=$(awk -v f="$from" '$1 == f { print $2 }' "$T/levels")
	lt=$(awk -v f="$to" '$1 == f { print $2 }' "$T/levels")
	if [ "$lt" -le "$lf" ]; then
		fail "$from calls $to ($name()): not down the chain"
	fi
done <"$T/edges"

# No cycle, by the edges alone: take away files that call no remaining
# file until none is left; what cannot be taken away is a cycle.
cut -d' ' -f1,2 "$T/edges" | sort -u >"$T/graph"
cp "$T/graph" "$T/left"
remaining=$files
while :; do
	sinks=
	for f in $remaining; do
		if ! awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' \
		    "$T/left"; then
			sinks="$sinks $f"
		fi
	done
	[ -z "$sinks" ] && break
	for f in $sinks; do
		awk -v f="$f" '$2 != f' "$T/left" >"$T/left.new"
		mv "$T/left.new" "$T/left"
	done
	keep=
	for f in $remaining; do
		case " $sinks " in
		*" $f "*) ;;
		*) keep="$keep $f" ;;
		esac
	done
	remaining=$keep
	[ -z "$remaining" ] && break
done
if [ -n "$remaining" ]; then
	fail "the calls make a cycle among:$remaining"
	cat "$T/left"
fi

# Only daemon.c reads the clock; only daemon.c writes D.
for f in $files; do
	[ "$f" = daemon.c ] && continue
	if grep -nE '\bclock_(now|now_ms|mono)\b' "$T/$f.c" >"$T/hits"; then
		fail "$f reads the clock (it takes the tick):"
		cat "$T/hits"
	fi
	if grep -nE '&D\.|\bD\.[a-z_.]+[[:space:]]*(=[^=]|\+\+|--|[-+|&]=)' \
	    "$T/$f.c" >"$T/hits"; then
		fail "$f writes D (daemon.c's alone):"
		cat "$T/hits"
	fi
done

n=$(wc -l <"$T/edges" | tr -d ' ')
echo "$n calls between files, down the chain:"
awk '{ print "  " $1 " -> " $2 }' "$T/graph"
if [ "$nfail" -ne 0 ]; then
	echo "$nfail problems"
	exit 1
fi
echo "no call back up, no cycle; the clock and D are daemon.c's"
exit 0
