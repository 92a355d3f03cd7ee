# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# storm.sh: claim storms for the integration tests, sourced after T is
# set.  storm_start starts K contenders (tests/integration/claimer) over
# the same jobs and fires; storm_wait waits for them; storm_check holds
# the contenders' own logs against the store: no fire won twice, every
# fire won once, every win recorded as a run and as a claim by the node
# that won it, and every job's row holding its last fire.

CLAIMER=${top_builddir:-.}/tests/integration/claimer
STORM_BASE=1800000000

storm_fail()
{
	if command -v mdb_fail >/dev/null 2>&1; then
		mdb_fail "$@"
	fi
	echo "$0: $*" >&2
	exit 1
}

# storm_start URL CNF K NJOBS FIRST LAST single|batch
storm_start()
{
	_k=1
	while [ $_k -le "$3" ]; do
		"$CLAIMER" claim "$1" "$2" "node$_k" "$4" "$5" "$6" \
		    "$T/won.$_k" "$7" 2>>"$T/claimer.$_k.log" &
		STORM_PIDS="${STORM_PIDS:-} $!"
		_k=$((_k + 1))
	done
}

storm_wait()
{
	_bad=0
	for _p in $STORM_PIDS; do
		wait "$_p" || _bad=1
	done
	STORM_PIDS=
	[ $_bad -eq 0 ] || storm_fail "a contender failed"
}

# storm_lines: how many wins the contenders have logged so far.
storm_lines()
{
	cat "$T"/won.* 2>/dev/null | wc -l | tr -d ' '
}

# storm_until N: poll, with a limit, until N wins are logged.
storm_until()
{
	_n=0
	while [ "$(storm_lines)" -lt "$1" ]; do
		_n=$((_n + 1))
		[ $_n -lt 1200 ] || storm_fail "the storm stalled"
		sleep 0.05
	done
}

# storm_check URL CNF NJOBS LASTFIRE EXPECTED
storm_check()
{
	cat "$T"/won.* | sort >"$T/won.all"
	awk '{ print $1, $2 }' "$T/won.all" | uniq -d >"$T/dups"
	if [ -s "$T/dups" ]; then
		head "$T/dups" >&2
		storm_fail "fires won twice by the contenders' own logs"
	fi
	_n=$(wc -l <"$T/won.all" | tr -d ' ')
	[ "$_n" -eq "$5" ] || storm_fail "$_n fires won, expected $5"
	"$CLAIMER" runs "$1" "$2" | sort >"$T/runs.all" ||
	    storm_fail "cannot list runs"
	if ! cmp -s "$T/won.all" "$T/runs.all"; then
		diff "$T/won.all" "$T/runs.all" | head >&2
		storm_fail "the store's runs differ from the contenders' logs"
	fi
	# Every win is recorded in the claims table as the winner's.
	"$CLAIMER" check "$1" "$2" <"$T/won.all" >"$T/unclaimed" 2>&1 || {
		head "$T/unclaimed" >&2
		storm_fail "wins the claims table does not record"
	}
	"$CLAIMER" jobs "$1" "$2" >"$T/jobs.all" ||
	    storm_fail "cannot list jobs"
	_last=$((STORM_BASE + 60 * $4))
	_bad=$(awk -v f="$_last" '$2 != f' "$T/jobs.all" | wc -l | tr -d ' ')
	[ "$_bad" -eq 0 ] || storm_fail "$_bad jobs do not hold the last fire"
	_jobs=$(wc -l <"$T/jobs.all" | tr -d ' ')
	[ "$_jobs" -eq "$3" ] || storm_fail "$_jobs jobs, expected $3"
	# Every last fire's holder is the node that logged winning it.
	awk -v f="$_last" '$2 == f { print $1, $2, $3 }' "$T/won.all" |
	    sort >"$T/last.won"
	sort "$T/jobs.all" >"$T/last.store"
	cmp -s "$T/last.won" "$T/last.store" ||
	    storm_fail "a job's row names another winner than the logs"
	echo "$0: $_n fires, each won once:" \
	    $(awk '{ print $3 }' "$T/won.all" | sort | uniq -c | tr '\n' ' ')
}
