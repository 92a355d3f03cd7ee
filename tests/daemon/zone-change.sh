#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# zone-change.sh: a named job keeps its identity when its CRON_TZ
# changes (the name alone makes it), so the daemon must see that the
# job changed and register it again: the store, and so the jobs
# listing and every node that reads it, then has the new zone.  The
# daemon tells a changed job by the columns it registers; one left out
# of that comparison keeps its old value in the store for good.

. "$top_srcdir/tests/daemon/lib.sh"

dmn_setup a </dev/null
table()
{
	cat >"$T/a/crontab.tmp" <<EOF
CLUSTERCRON_NAME=zoned
CRON_TZ=$1
0 3 * * * $ME true
EOF
	mv "$T/a/crontab.tmp" "$T/a/crontab"
}

# zone_is ZONE: the jobs listing has the job with that zone.
zone_is()
{
	"$CLUSTERCRON" jobs --json -c "$T/a/clustercron.conf" >"$T/jobs" &&
	    grep -q "\"name\":\"zoned\",.*\"zone\":\"$1\"" "$T/jobs"
}

table Europe/Paris
dmn_start a
ntest=$((ntest + 1))
if wait_for 10 zone_is Europe/Paris; then
	echo "ok: the job is registered with its zone"
else
	fail "the job is registered with its zone"
	cat "$T/jobs"
fi

table Asia/Tokyo
wait_for 10 in_log a 'RELOAD' || fail "the table is read again"
ntest=$((ntest + 1))
if wait_for 10 zone_is Asia/Tokyo; then
	echo "ok: the store has the job's new zone"
else
	fail "the store has the job's new zone"
	cat "$T/jobs"
fi
dmn_stop a

finish
