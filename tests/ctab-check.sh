#!/bin/sh
# ctab -T: checks a table without installing anything; exit 0 when it
# is valid, 1 with every error listed, warnings never failing.
. "$top_srcdir/tests/lib/common.sh"

cat >"$T/good" <<'TAB'
# a comment
SHELL=/bin/sh
MAILTO="ops@example.com"
*/5 * * * *	/usr/bin/true
@daily		echo daily % with input
TAB
run "$CTAB" -T "$T/good"
same "a valid table: exit 0" "$rc" 0
same "... and nothing said" "$err" ""

cat >"$T/bad" <<'TAB'
* * * * * ok
61 * * * * minute out of range
* * * * * fine
0 0 * * 8 weekday out of range
30-10 * * * * reversed
TAB
run "$CTAB" -T "$T/bad"
same "errors: exit 1" "$rc" 1
contains "line 2 reported with its column" "$err" "^ctab: $T/bad:2:1: "
contains "line 4 reported with its column" "$err" "^ctab: $T/bad:4:9: "
contains "line 5: reversed range" "$err" "^ctab: $T/bad:5:1: "
same "every bad line and nothing else" \
    "$(printf '%s\n' "$err" | grep -v 'warning:' | wc -l | tr -d ' ')" 3

run "$CTAB" -T - <"$T/bad"
same "standard input: exit 1" "$rc" 1
contains "... named as such" "$err" "^ctab: \\(standard input\\):2:1: "

printf '0 4 * * * root /usr/sbin/logrotate\n' >"$T/sys"
run "$CTAB" -T -s "$T/sys"
same "-s: a system table with a user field" "$rc" 0
run "$CTAB" -T "$T/sys"
same "the same table is valid in user format too" "$rc" 0

printf '0 4 * * *\n' >"$T/nouser"
run "$CTAB" -T -s "$T/nouser"
same "-s: missing user field fails" "$rc" 1

printf 'CRON_TZ=Mars/Olympus_Mons\n0 4 * * * x\n' >"$T/tz"
run "$CTAB" -T "$T/tz"
same "unknown CRON_TZ: exit 1" "$rc" 1
contains "... named with the entry's line" "$err" \
    "^ctab: $T/tz:2: CRON_TZ: unknown time zone Mars/Olympus_Mons$"

printf '0 0 30 2 * never\n' >"$T/never"
run "$CTAB" -T "$T/never"
same "a date that never comes is accepted" "$rc" 0
contains "... with a warning" "$err" "^ctab: $T/never:1: warning: .*never fires"

# The DST lint looks a year ahead of now: put now at 1 January 2026,
# in ctab's test build (tests/testbin/), whose clock takes the offset.
now=$(date +%s)
CLUSTERCRON_TEST_CLOCK_OFFSET=$((1767225600 - now))
export CLUSTERCRON_TEST_CLOCK_OFFSET
printf 'CRON_TZ=America/New_York\n30 2 * * * gap\n30 1 * * * overlap\n30 * * * * wall\n0 12 * * * plain\n' >"$T/dst"
run "$top_builddir/tests/testbin/ctab" -T "$T/dst"
same "DST findings are warnings: exit 0" "$rc" 0
contains "fixed time in the gap" "$err" \
    "^ctab: $T/dst:2: warning: 2026-03-08 02:30 falls in the DST gap of America/New_York \\(02:00 to 03:00 is skipped\\); it runs once at 03:00$"
contains "fixed time in the overlap" "$err" \
    "^ctab: $T/dst:3: warning: 2026-11-01 01:30 comes twice in America/New_York"
same "nothing about wildcard or unaffected entries" \
    "$(printf '%s\n' "$err" | grep -c -e ':4:' -e ':5:')" 0
unset CLUSTERCRON_TEST_CLOCK_OFFSET

printf '* * * * * no newline' >"$T/nonl"
run "$CTAB" -T "$T/nonl"
same "a missing final newline is only a warning" "$rc" 0
contains "... said" "$err" "^ctab: $T/nonl:1:.*warning: "

run "$CTAB" -T "$T/absent"
same "missing file: exit 1" "$rc" 1
contains "... named, as crontab names it" "$err" \
    "^$T/absent: No such file or directory$"

head -c 1100000 /dev/zero | tr '\0' '#' >"$T/huge"
run "$CTAB" -T "$T/huge"
same "too large: exit 1" "$rc" 1
contains "... said" "$err" "^ctab: $T/huge: table is larger than"

# A user this machine does not have: cron ignores the whole table, so
# say so; a warning, since the table may be meant for other machines.
nouser=ccnouser$$
while id "$nouser" >/dev/null 2>&1; do
	nouser=${nouser}x
done
printf '0 4 * * * root true\n@daily   %s true\n' "$nouser" >"$T/unknown"
run "$CTAB" -T -s "$T/unknown"
same "-s: an unknown user is only a warning" "$rc" 0
same "... said once, with its line and column" "$err" \
    "ctab: $T/unknown:2:10: warning: no user $nouser on this machine: cron and clustercron ignore the whole table while it names one"
run "$CTAB" -T "$T/unknown"
same "... not asked in user format, where it is part of the command" \
    "$err" ""

run "$CTAB" -l -r
same "two verbs at once: exit 1" "$rc" 1
contains "... as crontab says it" "$err" \
    "^ctab: usage error: only one operation permitted$"
contains "... then the usage" "$err" "^usage:	ctab "
finish
