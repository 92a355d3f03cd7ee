#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# run-all.sh: the whole test suite, as CI runs it.  Builds out of tree
# with warnings as errors, runs make check (unit, integration against a
# private MariaDB the tests start themselves, cluster tests), make
# distcheck, the Debian package, the unit tests under valgrind, the
# whole suite again under AddressSanitizer and UBSan, and a short
# bounded fuzz run.  Ends with what was skipped and why
# (tests/lib/skipped.sh), then one line "tests: N passed, N failed,
# N skipped", and exits non-zero on any failure.  With CI set (.ci/run
# sets it) every tool is there, so a test that cannot run is an error
# and a skip, should one get through, fails the run; outside CI a
# missing tool skips what needs it, saying why.

top=$(cd "$(dirname "$0")/.." && pwd) || exit 99
cd "$top" || exit 99
jobs=${JOBS:-2}
# Most daemon and cluster tests spend their time waiting for fires, not
# computing: twice as many at once as there are cores.
checkjobs=${CHECK_JOBS:-$((jobs * 2))}
failed_stages=
t0=$(date +%s)
log() { printf '\n==> %s (at %s s)\n' "$*" $(($(date +%s) - t0)); }
stage_fail() { failed_stages="$failed_stages $1"; echo "FAILED: $1"; }

if [ -f config.status ]; then
	echo "run-all.sh: the source tree is configured in place;" \
	    "run 'make distclean' there first" >&2
	exit 99
fi

# Notes of skipped stages from an earlier run would be read as this
# run's (tests/lib/skipped.sh).
rm -f build/package.log build-fuzz/fuzz.log

log "autoreconf"
autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 99; }

# build DIR NAME CONFIGURE-ARGS...: configure and build in DIR.
build() {
	dir=$1; name=$2; shift 2
	log "$name: configure and build in $dir"
	mkdir -p "$dir" && cd "$dir" || return 1
	"$top/configure" -q "$@" >configure.out 2>&1 ||
	    { cat configure.out; cd "$top"; return 1; }
	make -j"$jobs" >make.out 2>&1 || { cat make.out; cd "$top"; return 1; }
	cd "$top"
}

# check DIR NAME [MAKE-ARGS...]: make check, showing failed tests' logs.
check() {
	dir=$1; name=$2; shift 2
	log "$name: make check"
	(cd "$dir" && make -j"$checkjobs" check "$@") && return 0
	for f in $(find "$dir" -name '*.log' ! -name test-suite.log \
	    ! -name config.log); do
		trs=${f%.log}.trs
		if [ -f "$trs" ] && grep -qE '^:test-result: (FAIL|ERROR)' "$trs"; then
			echo "---- $f"
			tail -n 60 "$f"
		fi
	done
	return 1
}

# The tests the main stage ran, as make check names them.
tests_ran() {
	(cd build && find tests -name '*.trs' | sed 's/\.trs$//' | sort |
	    while read -r t; do
		if [ -f "$top/$t.sh" ]; then echo "$t.sh"; else echo "$t"; fi
	    done)
}

if build build main --enable-werror; then
	check build main || stage_fail "make check"
	# distcheck builds the tarball and runs the tests from it: every
	# test but those that run daemons (the daemons', the cluster's,
	# the hostile users', the three-node Galera cluster's) and those
	# beside Debian's cron, crontab and at, which the stages before and
	# after run in full (a third run would add minutes and nothing
	# else); that every tracked file of the tree is in the tarball is
	# checked from its listing.
	log "make distcheck"
	slow='^tests/(daemon|cluster|compat|hostile)/'
	slow="$slow|^tests/(admin|ctab-debian|at-debian)"
	slow="$slow|^tests/integration/galera-(cluster|daemons|storm)"
	quick=$(tests_ran | grep -Ev "$slow" | tr '\n' ' ')
	(cd build && make -j"$jobs" distcheck TESTS="$quick" \
	    DISTCHECK_CONFIGURE_FLAGS=--enable-werror >distcheck.out 2>&1) ||
	    { tail -n 80 build/distcheck.out; stage_fail "make distcheck"; }
	if command -v git >/dev/null 2>&1 && git rev-parse -q --git-dir \
	    >/dev/null 2>&1; then
		tarball=$(ls build/clustercron-*.tar.gz 2>/dev/null | head -n 1)
		[ -n "$tarball" ] && tar tzf "$tarball" |
		    sed 's,^[^/]*/,,' | sort >build/dist.list
		missing=$(git ls-files tests bench man contrib lock parser \
		    clustercron common ctab | sort | comm -23 - build/dist.list)
		[ -n "$tarball" ] && [ -z "$missing" ] || {
			echo "not in the tarball: ${tarball:-no tarball}" \
			    $missing
			stage_fail "dist contents"
		}
	fi
	# The Debian package, built from a copy of the tree and unpacked;
	# its output kept for the skips' summary.
	log "debian package"
	{ sh "$top/tests/package.sh" 2>&1; echo $? >build/package.rc; } |
	    tee build/package.log
	rc=$(cat build/package.rc)
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || stage_fail "package"
	# The unit tests once more under valgrind (memcheck, leaks).
	log "valgrind: unit tests"
	units=$(cd build && for f in tests/unit/*; do
		case $f in *.*|*/spawnhelper) continue ;; esac
		[ -x "$f" ] && printf '%s ' "$f"
	done)
	(cd build && NEXT_RANDOM_CASES=200 make -j"$jobs" check TESTS="$units" \
	    LOG_COMPILER="valgrind -q --error-exitcode=9 --leak-check=full \
	    --errors-for-leak-kinds=definite") || stage_fail "valgrind"
else
	stage_fail "build"
fi

# Tests that preload libfaketime put it before the ASan runtime; ASan
# must be told that this is intended.
#
# The daemons of the main stage run detached, as users run them
# (tests/daemon/lib.sh); here they run with -f, so that what the
# sanitizers report on standard error lands in each daemon's log, where
# lib.sh finds it and fails the test (a detached daemon's standard
# error is /dev/null once it is ready).  So every daemon and cluster
# test runs once in each mode.
if build build-asan sanitizers --enable-werror --enable-sanitizers; then
	# All but the load-spreading measure and the count of a fire's
	# statements, which take two minutes each and exercise no code the
	# other cluster tests do not; the comparisons with Debian's cron
	# on unknown users and on PAM, which compare behaviour, not
	# memory; and the three-node Galera cluster's tests, which prove
	# the server's rules through a test program
	# (tests/integration/sqlrace).
	set --
	[ -d build/tests ] && set -- TESTS="$(tests_ran |
	    grep -Ev '^tests/(daemon/node-spread|cluster/statements|compat/users|hostile/pam-debian|integration/galera-(cluster|daemons|storm))' |
	    tr '\n' ' ')"
	DMN_MODE=foreground \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:verify_asan_link_order=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    check build-asan sanitizers "$@" || stage_fail "sanitizers"
else
	stage_fail "sanitizers build"
fi

if command -v clang >/dev/null 2>&1; then
	if build build-fuzz fuzz --enable-fuzz CC=clang; then
		log "fuzz: bounded runs, crontab lines then at(1) times"
		(cd build-fuzz && sh "$top/tests/fuzz/run.sh" 45 crontab &&
		    sh "$top/tests/fuzz/run.sh" 20 attime) ||
		    stage_fail "fuzz"
	else
		stage_fail "fuzz build"
	fi
else
	mkdir -p build-fuzz
	echo "SKIP: part: clang not found: no fuzz run (apt-get install" \
	    "clang libclang-rt-14-dev)" | tee build-fuzz/fuzz.log
fi

# What was skipped, and why; with CI set, any skip fails the run.
log "skipped"
sh "$top/tests/lib/skipped.sh" build build-asan build/package.log \
    build-fuzz/fuzz.log || stage_fail "skipped with CI set"

# One closing line over every test result of every stage.
set -- $(find build build-asan -name '*.trs' ! -path '*/_build/*' \
    -exec cat {} + 2>/dev/null | awk '/^:test-result: PASS/ { p++ } /^:test-result: XFAIL/ { p++ }
	/^:test-result: (FAIL|ERROR|XPASS)/ { f++ }
	/^:test-result: SKIP/ { s++ }
	END { print p + 0, f + 0, s + 0 }')
passed=$1 fails=$2 skipped=$3
[ -n "$failed_stages" ] && [ "$fails" -eq 0 ] && fails=1
echo
# The failing tests by name with their first failed checks, at the end,
# which is what a CI page that keeps only the tail still shows.
find build build-asan -name '*.trs' ! -path '*/_build/*' 2>/dev/null |
    sort | while read -r f; do
	grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$f" || continue
	echo "failed: ${f%.trs}"
	grep -E '^(FAIL:|not ok|XPASS)' "${f%.trs}.log" 2>/dev/null |
	    head -n 3 | cut -c 1-200 | sed 's/^/    /'
done
[ -n "$failed_stages" ] && echo "failed stages:$failed_stages"
echo "tests: $passed passed, $fails failed, $skipped skipped ($(($(date +%s) - t0)) s)"
[ -z "$failed_stages" ]
