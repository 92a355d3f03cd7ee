#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# at-debian.sh: the at(1) time tables of tests/data/at against Debian's
# own at (3.2.5, bookworm) and against clustercron attime.
#
# Each row is a timespec (or "-t time"), a "now" (an instant), a zone,
# what we answer (the instant in that zone, or "error: " and our
# message), what Debian's at answers (the instant, or "refused: " and
# the first line it prints), and, where the two differ on purpose, why.
# Debian's at is taken from its package (apt's cache, else downloaded
# now) and run as root in a private mount namespace: an empty spool on
# a tmpfs over /var/spool (and /run, so that no atd is signalled), the
# clock frozen at the row's now by libfaketime (the binary is copied
# without its set-user-ID bit, which would make the loader ignore
# LD_PRELOAD), TZ set to the row's zone.  The instant is read from the
# job file's name, which holds the minutes since the epoch (the printed
# local time is ambiguous in a repeated hour), plus the printed seconds.
#
# The test fails when Debian's answer is not the recorded one, when ours
# is not, or when a row without a reason has the two disagree (an
# instant against another, or an instant against a refusal).  Without
# root, unshare, libfaketime or the package it is skipped with the
# reason (an error when CI is set): tests/unit/attime checks our column
# and the agreement of the recorded ones everywhere.
#
# AT_REGEN=DIR writes the tables to DIR with Debian's column as found
# now, and with ours filled in where it reads "?" (new rows): review
# the difference before copying them back.

. "$top_srcdir/tests/lib/common.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root, for a private mount namespace"
for p in unshare dpkg-deb date; do
	command -v $p >/dev/null 2>&1 || skip "no $p"
done
unshare -m true 2>/dev/null || skip "unshare -m does not work here"
fake=
for f in /usr/lib/*/faketime/libfaketime.so.1 \
    /usr/lib/faketime/libfaketime.so.1; do
	[ -f "$f" ] && fake=$f && break
done
[ -n "$fake" ] || skip "no libfaketime (apt-get install libfaketime)"

deb=$(ls /var/cache/apt/archives/at_3.2.5-*.deb 2>/dev/null | tail -n 1)
if [ -z "$deb" ]; then
	(cd "$T" && apt-get download at >"$T/apt.out" 2>&1)
	deb=$(ls "$T"/at_3.2.5-*.deb 2>/dev/null | tail -n 1)
	[ -n "$deb" ] || {
		cat "$T/apt.out"
		skip "cannot get Debian's at 3.2.5 (apt-get download at)"
	}
fi
dpkg-deb -x "$deb" "$T/deb" || skip "cannot unpack $deb"
mkdir "$T/bin"
cp "$T/deb/usr/bin/at" "$T/bin/at" && chmod 0755 "$T/bin/at" ||
    skip "cannot copy at out of $deb"
echo "Debian's at from $deb"

# The rows: file, line, timespec, now, zone, ours, Debian's, why ("-"
# for none: read splits on runs of tabs, so no field may be empty).
for f in "$top_srcdir"/tests/data/at/*.tsv; do
	awk -F '\t' -v f="$(basename "$f")" '
	    /^#/ || NF == 0 { next }
	    { printf "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", f, FNR, $1, $2,
		$3, $4, $5, $6 == "" ? "-" : $6 }' "$f"
done >"$T/rows"
[ -s "$T/rows" ] || { echo "no rows in tests/data/at"; exit 99; }

# Debian's answers, one line per row, all in one namespace.
cut -f 3-5 "$T/rows" >"$T/in"
cat >"$T/debat.sh" <<'EOF'
at=$1 fake=$2
mount -t tmpfs -o mode=0755 tmpfs /var/spool &&
    mount -t tmpfs -o mode=0755 tmpfs /run || exit 1
J=/var/spool/cron/atjobs
mkdir -p $J /var/spool/cron/atspool || exit 1
set -f
while IFS='	' read -r spec now zone; do
	rm -rf $J && mkdir $J && : >$J/.SEQ || exit 1
	secs=$(date -u -d "$now" +%s)
	# shellcheck disable=SC2086
	echo true | (cd / && env TZ="$zone" LD_PRELOAD="$fake" \
	    FAKETIME_FMT=%s FAKETIME="$secs" "$at" $spec) \
	    >/dev/null 2>/var/spool/err
	rc=$?
	job=$(ls $J)
	if [ $rc -eq 0 ] && [ -n "$job" ]; then
		# a, job number (5 hex digits), minutes (8 hex digits).
		min=$(printf '%d' "0x$(printf '%s' "$job" | cut -c 7-)")
		sec=$(sed -n 's/^job [0-9]* at .* [0-9]*:[0-9]*:\([0-9]*\) [0-9]*$/\1/p' \
		    /var/spool/err)
		TZ=$zone date -d "@$((min * 60 + ${sec#0}))" \
		    +%Y-%m-%dT%H:%M:%S%:z
	else
		printf 'refused: %s\n' "$(grep -v '^warning: ' \
		    /var/spool/err | head -n 1)"
	fi
done
EOF
unshare -m sh "$T/debat.sh" "$T/bin/at" "$fake" <"$T/in" >"$T/debian" ||
    { cat "$T/debian"; echo "cannot run Debian's at in a namespace"; exit 99; }
[ "$(wc -l <"$T/debian")" -eq "$(wc -l <"$T/rows")" ] || {
	echo "Debian's at answered $(wc -l <"$T/debian") of" \
	    "$(wc -l <"$T/rows") rows"
	exit 99
}

# Ours, through the verb, as a person would ask.
set -f
while IFS='	' read -r file line spec now zone want deb why; do
	# shellcheck disable=SC2086
	"$CLUSTERCRON" attime -z "$zone" -f "$now" $spec >"$T/o" 2>"$T/e"
	if [ $? -eq 0 ]; then
		cat "$T/o"
	else
		# clustercron: SPEC: message
		printf 'error: %s\n' "$(cut -c $((${#spec} + 16))- "$T/e")"
	fi
done <"$T/rows" >"$T/ours"
set +f

paste "$T/rows" "$T/debian" "$T/ours" >"$T/all"
while IFS='	' read -r file line spec now zone want deb why gotdeb got; do
	where="$file:$line: $spec (now $now, $zone)"
	same "$where: Debian's at" "$gotdeb" "$deb"
	[ "$want" = "?" ] || same "$where: ours" "$got" "$want"
	case "$want" in
	error:*) case "$gotdeb" in refused:*) agree=1;; *) agree=0;; esac;;
	*) [ "$want" = "$gotdeb" ] && agree=1 || agree=0;;
	esac
	if [ "$why" = - ]; then
		same "$where: agrees with Debian" "$agree" 1
	else
		same "$where: differs from Debian ($why)" "$agree" 0
	fi
done <"$T/all"

if [ -n "${AT_REGEN:-}" ]; then
	mkdir -p "$AT_REGEN"
	for f in "$top_srcdir"/tests/data/at/*.tsv; do
		b=$(basename "$f")
		awk -F '\t' -v OFS='\t' -v b="$b" -v all="$T/all" '
		    BEGIN {
			while ((getline l < all) > 0) {
				split(l, x, "\t")
				if (x[1] == b) {
					deb[x[2]] = x[9]
					ours[x[2]] = x[10]
				}
			}
		    }
		    /^#/ || NF == 0 { print; next }
		    {
			if ($4 == "?")
				$4 = ours[FNR]
			$5 = deb[FNR]
			print
		    }' "$f" >"$AT_REGEN/$b"
	done
	echo "tables with Debian's answers in $AT_REGEN"
fi
finish
