#!/bin/sh
# clustercron next: arguments and output exactly as DESIGN.md gives them,
# zones and DST included.  Expected instants are worked out by hand from
# the zones' rules (US DST 2026: 8 March and 1 November; Lord Howe moves
# 30 minutes on 4 October 2026).
. "$top_srcdir/tests/lib/common.sh"

next() { run "$CLUSTERCRON" next "$@"; }

next -n 3 -z UTC -f '2026-01-01 00:00' '*/15 * * * *'
same "every 15 minutes, strictly after FROM" "$out" "2026-01-01T00:15:00+00:00
2026-01-01T00:30:00+00:00
2026-01-01T00:45:00+00:00"

next -n 2 -z UTC -f '2026-01-01T00:00:00' '0 0 */2 * 1'
same "*/2 with a weekday: odd days that are Mondays" "$out" \
"2026-01-05T00:00:00+00:00
2026-01-19T00:00:00+00:00"

next -n 4 -z UTC -f '2026-01-01 00:00' '0 0 1,15 * 1'
same "listed days or Mondays" "$out" "2026-01-05T00:00:00+00:00
2026-01-12T00:00:00+00:00
2026-01-15T00:00:00+00:00
2026-01-19T00:00:00+00:00"

next -n 2 -z UTC -f '2026-01-01 00:00' '0 0 29 2 *'
same "leap days, 2100 skipped" "$out" "2028-02-29T00:00:00+00:00
2032-02-29T00:00:00+00:00"

next -n 1 -z UTC -f '2096-03-01 00:00' '0 0 29 2 *'
same "no 29 February in 2100" "$out" "2104-02-29T00:00:00+00:00"

next -n 2 -z America/New_York -f '2026-03-08 01:00' '30 2 * * *'
same "fixed time in the spring gap runs at the jump" "$out" \
"2026-03-08T03:00:00-04:00
2026-03-09T02:30:00-04:00"

next -n 1 -z America/New_York -f '2026-03-08 02:15' '30 2 * * *'
same "FROM inside the gap" "$out" "2026-03-08T03:00:00-04:00"

next -n 3 -z America/New_York -f '2026-03-08 01:00' '30 * * * *'
same "wildcard hour follows the wall clock over the gap" "$out" \
"2026-03-08T01:30:00-05:00
2026-03-08T03:30:00-04:00
2026-03-08T04:30:00-04:00"

next -n 2 -z America/New_York -f '2026-11-01 00:00' '30 1 * * *'
same "fixed time in the autumn overlap runs once" "$out" \
"2026-11-01T01:30:00-04:00
2026-11-02T01:30:00-05:00"

next -n 4 -z America/New_York -f '2026-11-01 00:00' '30 * * * *'
same "wildcard hour runs in both copies of the repeated hour" "$out" \
"2026-11-01T00:30:00-04:00
2026-11-01T01:30:00-04:00
2026-11-01T01:30:00-05:00
2026-11-01T02:30:00-05:00"

next -n 2 -z Australia/Lord_Howe -f '2026-10-04 00:00' '15 2 * * *'
same "30-minute DST gap" "$out" "2026-10-04T02:30:00+11:00
2026-10-05T02:15:00+11:00"

next -n 1 -z Asia/Kathmandu -f '2026-01-01 00:00' '0 12 * * *'
same "45-minute offset" "$out" "2026-01-01T12:00:00+05:45"

next -S -n 3 -z UTC -f '2026-01-01 00:00' '*/20 * * * * *'
same "-S: a leading seconds field" "$out" "2026-01-01T00:00:20+00:00
2026-01-01T00:00:40+00:00
2026-01-01T00:01:00+00:00"

next -n 1 -z UTC -f '2026-01-01 00:00' '@monthly'
same "a macro" "$out" "2026-02-01T00:00:00+00:00"

TZ=Europe/London next -n 1 -f '2026-07-01 12:00' '0 13 * * *'
same "TZ names the local zone" "$out" "2026-07-01T13:00:00+01:00"

next -z UTC '0 0 30 2 *'
same "a date that never comes: exit 1" "$rc" 1
contains "... and says it never fires" "$err" '^clustercron: 0 0 30 2 \*: never fires$'

next -z UTC '61 * * * *'
same "bad expression: exit 1" "$rc" 1
contains "... with the column at fault" "$err" '^clustercron: 61 \* \* \* \*: column 1: '

next -z Mars/Olympus_Mons '* * * * *'
same "unknown zone: exit 1" "$rc" 1
contains "... named" "$err" 'Mars/Olympus_Mons'

next -n 0 '* * * * *'
contains "bad -n is named" "$err" '^clustercron: -n 0: '
next -f '2026-02-30 00:00' '* * * * *'
contains "bad -f is named" "$err" '^clustercron: -f 2026-02-30 00:00: '
next
contains "no expression: usage" "$err" '^usage: clustercron next '
run "$CLUSTERCRON" frobnicate
contains "unknown verb is named" "$err" '^clustercron: unknown verb frobnicate$'
finish
