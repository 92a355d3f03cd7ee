#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# attime.sh: clustercron attime as a person calls it: the words joined
# as at(1) joins them, options, -t, the zone and now, what goes to
# standard output and standard error, and the exit status.  The times
# themselves are tests/data/at's (tests/unit/attime, tests/at-debian.sh).
. "$top_srcdir/tests/lib/common.sh"

at() { run "$CLUSTERCRON" attime "$@"; }

at -z America/New_York -f '2026-03-11 09:00' now + 5 minutes
same "words joined by blanks" "$out" "2026-03-11T09:05:00-04:00"
same "... exit 0" "$rc" 0
at -z America/New_York -f '2026-03-11 09:00' 'now + 5 minutes'
same "one word with blanks is the same" "$out" "2026-03-11T09:05:00-04:00"
at -z America/New_York -f '2026-03-11 09:00' 'now+5minutes'
same "no blanks at all" "$out" "2026-03-11T09:05:00-04:00"
at -z UTC -f '2026-03-11 09:00' tomorrow - 1 hour
same "a '-' word after the first is the timespec's" "$out" \
    "2026-03-12T08:00:00+00:00"
at -z UTC -f '2026-03-11 09:00' 11:00 -1 hours
same "... so is a word such as -1, which Debian's at takes for an option" \
    "$out" "2026-03-11T10:00:00+00:00"

at -z America/New_York -f 2026-11-01T06:10:00Z 01:30
same "-f with Z is an instant: 01:10 EST, so 01:30 EST" "$out" \
    "2026-11-01T01:30:00-05:00"
at -z America/New_York -f '2026-11-01 01:10-05:00' now
same "-f with an offset" "$out" "2026-11-01T01:10:00-05:00"
at -z America/New_York -f '2026-11-01 01:10' now
same "-f without: the first 01:10 (EDT)" "$out" "2026-11-01T01:10:00-04:00"
at -z America/New_York -f '2026-03-08 02:30' now
same "-f in the spring gap is the jump" "$out" "2026-03-08T03:00:00-04:00"
run "$CLUSTERCRON" next -z America/New_York -f 2026-11-01T06:10:00Z \
    '30 1 * * *'
same "next -f takes an instant too" "$out" "2026-11-02T01:30:00-05:00"
TZ=Europe/London at -f '2026-07-01 09:00' noon
same "TZ names the local zone" "$out" "2026-07-01T12:00:00+01:00"

at -z UTC -f '2026-03-11 09:00' -t 202603111000.30
same "-t" "$out" "2026-03-11T10:00:30+00:00"
at -z UTC -f '2026-03-11 09:00' -t 03111000
same "-t without a year: this year" "$out" "2026-03-11T10:00:00+00:00"

at -z UTC -f '2026-03-11 09:00' noon tomorow
same "a bad word: exit 1" "$rc" 1
same "... nothing on standard output" "$out" ""
same "... one line naming the column and what was expected" "$err" \
    "clustercron: noon tomorow: column 6: found \"tomorow\", expected a date, utc, a zone name, '+', '-' or the end"
at -z UTC -f '2026-03-11 09:00' 08:00 today
same "a time in the past: exit 1" "$rc" 1
same "... and no column, the time as a whole is at fault" "$err" \
    "clustercron: 08:00 today: found 2026-03-11T08:00:00+00:00, which is in the past, expected a time from 2026-03-11T09:00:00+00:00 on"
at -z UTC -f '2026-03-11 09:00' -t 202602300000
same "a bad -t: exit 1" "$rc" 1
same "... named with -t" "$err" \
    "clustercron: -t 202602300000: column 7: found day 30, expected 01-28 for February 2026"
at -z UTC -f '2026-03-11 09:00' 10:00 Mars/Olympus_Mons
same "an unknown zone name" "$err" \
    "clustercron: 10:00 Mars/Olympus_Mons: column 7: found \"Mars/Olympus_Mons\", expected utc or a known time zone"

at -z Mars/Olympus_Mons now
same "unknown -z: exit 1" "$rc" 1
contains "... named" "$err" '^clustercron: -z: .*Mars/Olympus_Mons'
at -f '2026-02-30 00:00' now
contains "bad -f is named" "$err" '^clustercron: -f 2026-02-30 00:00: '
at -f '2026-03-11 09:00+5' now
contains "... as is a bad offset" "$err" '^clustercron: -f 2026-03-11 09:00\+5: '
at -z UTC
same "no time: exit 1" "$rc" 1
contains "... and usage" "$err" '^usage: clustercron attime '
at -z UTC -t 202603111000 now
same "-t and a timespec: exit 1" "$rc" 1
contains "... and usage" "$err" '^usage: clustercron attime '
run "$CLUSTERCRON" --help
contains "--help lists attime" "$out" 'clustercron attime .*-t'
finish
