#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run.sh: run a parser's libFuzzer target for a bounded time.  It
# builds nothing: configure a build directory with
#	CC=clang .../configure --enable-fuzz &&
#	    make tests/fuzz/crontab_fuzz tests/fuzz/attime_fuzz
# and run this script from there (or name the target with FUZZER=).
# The seed corpus is made from tests/data; new inputs go to a scratch
# corpus directory, crashes to the current directory.
#
# usage: run.sh [seconds [crontab | attime]]	(default 60 crontab)

set -eu

secs=${1:-60}
target=${2:-crontab}
case $target in
crontab|attime) ;;
*) echo "usage: run.sh [seconds [crontab | attime]]" >&2; exit 2;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$(cd "$here/../.." && pwd)}
fuzzer=${FUZZER:-./tests/fuzz/${target}_fuzz}
. "$top/tests/lib/skip.sh"

[ -x "$fuzzer" ] || skip "$fuzzer not built (configure --enable-fuzz)"

work=$(mktemp -d "${TMPDIR:-/tmp}/crontab_fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/seed" "$work/corpus"

if [ "$target" = attime ]; then
	# Seeds: each timespec of tests/data/at, behind a zone byte and
	# the eight bytes of a "now" in 2026.
	grep -hv '^#' "$top"/tests/data/at/*.tsv | cut -f1 |
	    sed 's/^-t //' | awk -v dir="$work/seed" '
	    NF { printf "%c\001\002\003\004\005\006\007\010%s",
		65 + NR % 7, $0 > (dir "/at" NR); close(dir "/at" NR) }'
	"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -dict="$here/attime.dict" -print_final_stats=1 \
	    "$work/corpus" "$work/seed"
	exit
fi

# Seeds: whole tables, and each test expression as its own input.
n=0
for f in "$top"/tests/data/crontab/*.tab "$top"/tests/data/cron.d/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$work/seed/table$n"
done
for f in "$top"/tests/data/expr/*.txt; do
	base=$(basename "$f" .txt)
	grep -v '^#' "$f" | cut -f2 | awk -v dir="$work/seed" -v base="$base" '
	    NF { printf "%s echo\n", $0 > (dir "/" base NR); close(dir "/" base NR) }'
done

"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -dict="$here/crontab.dict" -print_final_stats=1 \
    "$work/corpus" "$work/seed"
