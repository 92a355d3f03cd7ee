#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run-next.sh: next-fire computations per second, ours (bench/next,
# built by "make bench") beside Debian's python3-croniter and the npm
# packages cron-parser and croner in the same run, in UTC and in
# America/New_York; then whether each peer computes the same instants
# as we do for the first COUNT fires of every expression.
#
#	bench/run-next.sh [-b builddir] [-c count] [-n calls] [-s seconds]
#
# The npm packages are installed at the versions pinned in
# bench/peers/package.json into $BENCH_PEERS_DIR (default
# $TMPDIR/clustercron-bench-peers), never into the source tree.  A peer
# that cannot be run is left out with a note.

set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$srcdir
count=50
calls=2000000
secs=0.5
while getopts b:c:n:s: opt; do
	case $opt in
	b)	builddir=$OPTARG ;;
	c)	count=$OPTARG ;;
	n)	calls=$OPTARG ;;
	s)	secs=$OPTARG ;;
	*)	echo "usage: run-next.sh [-b builddir] [-c count]" \
		    "[-n calls] [-s seconds]" >&2
		exit 1 ;;
	esac
done

ours=$builddir/bench/next
if [ ! -x "$ours" ]; then
	echo "run-next.sh: $ours not built: run make bench" >&2
	exit 1
fi
peers=$srcdir/bench/peers
pdir=${BENCH_PEERS_DIR:-${TMPDIR:-/tmp}/clustercron-bench-peers}
work=$(mktemp -d "${TMPDIR:-/tmp}/run-next.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The peers that can run here.
names=""
if /usr/bin/python3 -c 'import croniter' 2>/dev/null; then
	names="croniter"
else
	echo "note: python3-croniter missing (apt install python3-croniter)"
fi
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	mkdir -p "$pdir"
	if ! cmp -s "$peers/package.json" "$pdir/package.json" ||
	    [ ! -d "$pdir/node_modules/croner" ] ||
	    [ ! -d "$pdir/node_modules/cron-parser" ]; then
		cp "$peers/package.json" "$pdir/package.json"
		(cd "$pdir" && npm install --no-audit --no-fund \
		    --loglevel=error >/dev/null 2>&1) ||
		    echo "note: npm install in $pdir failed"
	fi
	[ -d "$pdir/node_modules/cron-parser" ] && names="$names cronparser"
	[ -d "$pdir/node_modules/croner" ] && names="$names croner"
else
	echo "note: node or npm missing: cron-parser and croner left out"
fi
NODE_PATH=$pdir/node_modules
export NODE_PATH

peer() {	# name zone mode arg [start exprfile]
	n=$1
	shift
	case $n in
	croniter)	/usr/bin/python3 "$peers/croniter.py" "$@" ;;
	cronparser)	node "$peers/cronparser.js" "$@" ;;
	croner)		node "$peers/croner.js" "$@" ;;
	esac
}

# agree peer zone ours-file peer-file peer-stderr: compares the chains.
agree() {
	awk -F '\t' -v peer="$1" -v zone="$2" '
	function iso(t,   cmd, s) {
		cmd = "TZ=" zone " date -d @" t \
		    " +%Y-%m-%dT%H:%M:%S%:z"
		cmd | getline s; close(cmd); return s
	}
	NR == FNR { ours[$1] = $2; next }
	{
		if (!($1 in ours)) next
		no = split(ours[$1], a, " "); np = split($2, b, " ")
		for (i = 1; i <= no || i <= np; i++)
			if (a[i] != b[i]) break
		if (i > no && i > np)
			printf "  %-10s %-24s agrees\n", peer, $1
		else
			printf "  %-10s %-24s differs at fire %d: " \
			    "ours %s, %s %s\n", peer, $1, i,
			    a[i] == "" ? "none" : iso(a[i]),
			    peer, b[i] == "" ? "none" : iso(b[i])
	}' "$3" "$4"
	if [ -s "$5" ]; then
		echo "  $1 failed: $(tail -n 1 "$5")"
	fi
}

echo "next() per second, chains of 500 from 2026-01-01T00:00:00Z"
echo "($(nproc 2>/dev/null || echo '?') CPUs; ours: $calls calls per" \
    "expression; peers: ${secs}s per expression)"
for zone in UTC America/New_York; do
	zf=$(echo "$zone" | tr / _)
	"$ours" -n "$calls" -z "$zone" > "$work/ours.$zf"
	"$ours" -p "$count" -z "$zone" > "$work/ours.p.$zf"
	for n in $names; do
		peer "$n" "$zone" bench "$secs" > "$work/$n.$zf" ||
		    : > "$work/$n.$zf"
		peer "$n" "$zone" print "$count" > "$work/$n.p.$zf" \
		    2>"$work/$n.err.$zf" || true
	done
	echo
	echo "== $zone"
	# Columns: expression, ours, each peer, ours over the fastest peer.
	awk -F '\t' -v names="$names" -v work="$work" -v zone="$zf" '
	BEGIN {
		np = split(names, peer, " ")
		file = work "/ours." zone
		while ((getline line < file) > 0) {
			split(line, f, "\t")
			if (f[2] == "overall") {
				ocalls = f[3]; osecs = f[4]; continue
			}
			n++; expr[n] = f[2]; rate[0, f[2]] = f[5]
		}
		for (p = 1; p <= np; p++) {
			file = work "/" peer[p] "." zone
			while ((getline line < file) > 0) {
				split(line, f, "\t")
				rate[p, f[2]] = f[5]
				pcalls[p] += f[3]; psecs[p] += f[4]
			}
		}
		printf "%-24s %12s", "expression", "ours"
		for (p = 1; p <= np; p++) printf " %12s", peer[p]
		printf " %10s\n", "ours/best"
		for (i = 1; i <= n; i++) {
			e = expr[i]; best = 0
			printf "%-24s %12.0f", e, rate[0, e]
			for (p = 1; p <= np; p++) {
				r = rate[p, e] + 0
				printf " %12.0f", r
				if (r > best) best = r
			}
			if (best > 0) printf " %9.0fx\n", rate[0, e] / best
			else printf " %10s\n", "-"
		}
		best = 0
		printf "%-24s %12.0f", "overall", ocalls / osecs
		for (p = 1; p <= np; p++) {
			r = psecs[p] > 0 ? pcalls[p] / psecs[p] : 0
			printf " %12.0f", r
			if (r > best) best = r
		}
		if (best > 0) printf " %9.0fx\n", ocalls / osecs / best
		else printf " %10s\n", "-"
	}'
	echo
	echo "agreement over the first $count fires ($zone):"
	for n in $names; do
		agree "$n" "$zone" "$work/ours.p.$zf" "$work/$n.p.$zf" \
		    "$work/$n.err.$zf"
	done
done

# DST in America/New_York: the clocks go forward on 2026-03-08 and back on
# 2026-11-01.  DESIGN.md: a fixed-time job in the gap fires once at the
# jump, in the repeated hour once; a '*' minute or hour follows the clock.
echo
echo "DST agreement, America/New_York (bench/peers/exprs-dst.txt, 4 fires):"
for from in 1772884800 1793448000; do
	echo "from $(TZ=America/New_York date -d @$from +%Y-%m-%dT%H:%M:%S%:z):"
	"$ours" -p 4 -z America/New_York -s "$from" \
	    -e "$peers/exprs-dst.txt" > "$work/ours.dst"
	for n in $names; do
		peer "$n" America/New_York print 4 "$from" \
		    "$peers/exprs-dst.txt" > "$work/$n.dst" 2>"$work/$n.dst.err" ||
		    true
		agree "$n" America/New_York "$work/ours.dst" "$work/$n.dst" \
		    "$work/$n.dst.err"
	done
done
