# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# skip.sh: the one way a shell test skips.  tests/lib/common.sh sources
# it, and so do the scripts run outside make check (tests/package.sh,
# tests/package-install.sh, tests/fuzz/run.sh); the unit tests have the
# same in tests/tap.h.
#
#	skip REASON...		this test cannot run here: print
#				"SKIP: REASON" and exit 77 (skipped)
#	skip_part REASON...	a part of it cannot run here: print
#				"SKIP: part: REASON" and go on
#	needs PROGRAM		skip unless PROGRAM is on the PATH
#
# With CI set (.ci/run sets it) both exit 99, a hard error, after saying
# why: CI installs every tool the tests use (contrib/debian-packages and
# contrib/debian-packages-test) and runs as root, so there a test that
# cannot run is a broken machine or a broken test, never one to pass
# over.  Outside CI the reason is in the test's log, where the summary
# of tests/run-all.sh (tests/lib/skipped.sh) finds it.
#
# A test never skips because the code under test seems to lack a
# feature: what it tests is there, and when it is not the test fails.

skip()
{
	echo "SKIP: $*"
	if [ -n "${CI:-}" ]; then
		echo "CI is set: a test that cannot run is an error"
		exit 99
	fi
	exit 77
}

skip_part()
{
	echo "SKIP: part: $*"
	if [ -n "${CI:-}" ]; then
		echo "CI is set: a test that cannot run in full is an error"
		exit 99
	fi
	return 0
}

needs()
{
	command -v "$1" >/dev/null 2>&1 || skip "$1 not found"
}
