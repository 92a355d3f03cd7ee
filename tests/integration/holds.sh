# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# holds.sh: nodes registering and letting go of the same few jobs at
# once (tests/integration/claimer hold), sourced after T is set.
# holds_storm URL CNF K NJOBS ROUNDS runs K such nodes; no node may
# find a job gone while it holds it, and at the end the store holds
# exactly the jobs some node still holds.

CLAIMER=${top_builddir:-.}/tests/integration/claimer

holds_fail()
{
	if command -v mdb_fail >/dev/null 2>&1; then
		mdb_fail "$@"
	fi
	echo "$0: $*" >&2
	exit 1
}

holds_storm()
{
	_pids=
	_k=1
	while [ $_k -le "$3" ]; do
		"$CLAIMER" hold "$1" "$2" "node$_k" "$4" "$5" \
		    >"$T/held.$_k" 2>"$T/holder.$_k.log" &
		_pids="$_pids $!"
		_k=$((_k + 1))
	done
	_bad=0
	for _p in $_pids; do
		wait "$_p" || _bad=1
	done
	if [ $_bad -ne 0 ]; then
		cat "$T"/holder.*.log >&2
		holds_fail "a node found a job gone while it held it"
	fi
	cat "$T"/held.* | sort -u >"$T/held.all"
	"$CLAIMER" jobs "$1" "$2" | awk '{ print $1 }' | sort >"$T/jobs.all" ||
	    holds_fail "cannot list jobs"
	if ! cmp -s "$T/held.all" "$T/jobs.all"; then
		diff "$T/held.all" "$T/jobs.all" >&2
		holds_fail "the store's jobs are not those the nodes hold"
	fi
	echo "$0: $3 nodes, $5 rounds each over $4 jobs;" \
	    "$(wc -l <"$T/jobs.all" | tr -d ' ') held at the end"
}
