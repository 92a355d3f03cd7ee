# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# lib.sh: helpers for the daemon's tests.  Each daemon runs as the
# current user with a configuration, tables, pid file and log of its
# own under $T; the store is a SQLite file in $T unless the test sets
# STORE (and MYSQL_FILE).  Every wait polls a condition with a limit;
# nothing sleeps and hopes.
#
# DMN_MODE says how dmn_start starts a daemon.  "detached", the
# default, is how users and the package start it: it forks, returns
# once ready, and logs to its log-file, $T/NAME.log.  "foreground" runs
# it with -f in the background of the test's shell, logging to
# standard error, redirected to the same file: the sanitizer stage of
# tests/run-all.sh uses it, since a detached daemon's standard error is
# /dev/null once it is ready and sanitizer reports go there.  Either
# way a sanitizer report in a daemon's log fails the test.  A test
# that reads the log's time stamps sets DMN_STAMPED before dmn_setup:
# in the foreground too the daemon then logs to its log-file (the same
# file, stamped), while sanitizer reports still land there from
# standard error.
#
# DMN_DEBUG set adds -d to every daemon's flags: the FIRE lines of each
# fire's transitions (clustercron(8)) land in its log, to read a failure
# from (KEEP_TMP set keeps $T).  A test that asserts what -d or -x adds
# to the log empties it (flags.sh).
#
#	dmn_setup NAME		make $T/NAME/ with crontab, cron.d, spool and
#				clustercron.conf (extra keys on stdin); ctab's
#				socket and copies are under it too
#	dmn_start NAME		start it, wait for its STARTUP line
#	dmn_stop NAME		SIGTERM, wait for it to exit (limit)
#	dmn_pid NAME		its pid
#	wait_for SECS CMD...	run CMD every 0.1 s until it succeeds
#	ccs VERB ARGS...	tests/daemon/ccstore on the test's store: the
#				one way a test reads the store (never SQL)
#	runs			the runs table, one run a line (ccs runs)
#	dmn_cluster [nostart]	a private MariaDB for the daemons (started
#				unless nostart), STORE and MYSQL_FILE naming
#				it, $O for the jobs' files

. "$top_srcdir/tests/lib/common.sh"

CCSTORE=$top_builddir/tests/daemon/ccstore
# The daemon's test build, with the store's fault hook: dmn_start runs
# it when CLUSTERCRON_TEST_FAULTS is set, the shipped one otherwise
# (DMN_BIN, when set, overrides both).
CLUSTERCRON_TESTBIN=$top_builddir/tests/testbin/clustercron
# The test daemon execs the runner built with the same hooks.
export CLUSTERCRON_TEST_RUNNER=$top_builddir/tests/testbin/runner
ME=$(id -un)
DAEMONS=
DMN_MODE=${DMN_MODE:-detached}
umask 022
case $DMN_MODE in
detached|foreground) ;;
*)
	echo "DMN_MODE=$DMN_MODE: expected detached or foreground"
	exit 99
	;;
esac

dmn_cleanup()
{
	_rc=$?
	for _n in $DAEMONS; do
		if [ -f "$T/$_n/pid" ]; then
			kill -9 "$(cat "$T/$_n/pid")" 2>/dev/null
		fi
	done
	# Throwaway users go once nothing of theirs runs (dmn_useradd).
	for _u in ${DMN_USERS:-}; do
		pkill -9 -u "$_u" 2>/dev/null
		wait_for 10 sh -c "! pgrep -u $_u" || echo "$_u: still running"
		shadow userdel "$_u" 2>/dev/null || echo "userdel $_u failed"
	done
	# What the sanitizers found in a daemon fails the test.
	for _n in $DAEMONS; do
		if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
		    "$T/$_n.log" 2>/dev/null; then
			echo "FAIL: sanitizer report in $_n's log"
			[ $_rc -eq 0 ] && _rc=1
		fi
	done
	if [ $_rc -ne 0 ] && [ $_rc -ne 77 ]; then
		for _n in $DAEMONS; do
			echo "---- $T/$_n.log"
			tail -n 40 "$T/$_n.log"
		done
	fi
	[ -n "${MDB_PID:-}" ] && kill -9 "$MDB_PID" 2>/dev/null
	[ -z "${KEEP_TMP:-}" ] && rm -rf "$T"
	exit $_rc
}
trap dmn_cleanup EXIT
trap 'exit 1' INT TERM HUP

# make check builds it before any test runs: not there is an error.
[ -x "$CLUSTERCRON" ] || {
	echo "$CLUSTERCRON not built"
	exit 99
}

# The stand-in for sendmail: each message in $T/mail.N.
dmn_sendmail()
{
	[ -x "$T/sendmail" ] && return 0
	cat >"$T/sendmail" <<EOS
#!/bin/sh
n=\$(ls "$T" | grep -c '^mail\.[0-9]*$')
cat >"$T/mail.tmp.\$\$" && mv "$T/mail.tmp.\$\$" "$T/mail.\$n"
EOS
	chmod 755 "$T/sendmail"
	chmod 711 "$T"
}

dmn_setup()
{
	dmn_sendmail
	mkdir -p "$T/$1/cron.d" "$T/$1/spool"
	: >"$T/$1/crontab"
	{
		echo "store = ${STORE:-sqlite:$T/cc.db}"
		[ -n "${MYSQL_FILE:-}" ] &&
		    echo "mysql-defaults-file = $MYSQL_FILE"
		echo "node = $1"
		echo "crontab = $T/$1/crontab"
		echo "crontab-dir = $T/$1/cron.d"
		echo "spool-dir = $T/$1/spool"
		echo "pidfile = $T/$1/pid"
		echo "reboot-file = $T/$1/reboot"
		echo "ctab-socket = $T/$1/sock"
		echo "ctab-copy-dir = $T/$1/copies"
		echo "sendmail = $T/sendmail -t"
		echo "runner = $top_builddir/runner/runner"
		echo "runs-dir = $T/$1/runs"
		echo "shutdown-grace = 20s"
		if [ "$DMN_MODE" = detached ] || [ -n "${DMN_STAMPED:-}" ]; then
			echo "log-file = $T/$1.log"
		fi
		cat
	} >"$T/$1/clustercron.conf"
}

# flood_lock: the tests that flood the machine with processes (the
# hostile suite's) run one at a time whatever make -j says: side by side
# they loaded two cores to 20 and their timings meant nothing.  Held on
# descriptor 8 until the test exits (its daemons start without it); a
# test that waits 600 s goes on regardless.
flood_lock()
{
	command -v flock >/dev/null 2>&1 || return 0
	exec 8>"${TMPDIR:-/tmp}/clustercron-flood.lock"
	flock -w 600 8 || echo "the flood lock was not had in 600 s: going on"
}

# dmn_useradd USER HOME: a throwaway user and group USER with HOME
# (made, theirs); removed by dmn_cleanup after the daemons are killed
# and every process of theirs is gone.  Skips if it cannot.
dmn_useradd()
{
	needs useradd
	needs userdel
	shadow useradd -M -d "$2" -s /bin/sh -U "$1" >/dev/null 2>&1 ||
	    skip "useradd $1 failed"
	DMN_USERS="${DMN_USERS:-} $1"
	mkdir -p "$2" && chown "$1:" "$2"
}

dmn_pid()
{
	cat "$T/$1/pid"
}

wait_for()
{
	_lim=$(($1 * 10))
	shift
	_i=0
	while ! "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -ge $_lim ] && return 1
		sleep 0.1
	done
	return 0
}

# in_log NAME PATTERN: the daemon's log has a line matching PATTERN.
in_log()
{
	grep -qE -- "$2" "$T/$1.log"
}

dmn_start()
{
	_n=$1
	shift
	case " $DAEMONS " in
	*" $_n "*) ;;
	*) DAEMONS="$DAEMONS $_n" ;;
	esac
	: >"$T/$_n.log"
	_bin=$CLUSTERCRON
	[ -n "${CLUSTERCRON_TEST_FAULTS:-}" ] && _bin=$CLUSTERCRON_TESTBIN
	_bin=${DMN_BIN:-$_bin}
	[ -n "${DMN_DEBUG:-}" ] && set -- -d "$@"
	if [ "$DMN_MODE" = foreground ]; then
		"$_bin" -f ${DMN_FLAGS:-} -c "$T/$_n/clustercron.conf" \
		    "$@" >>"$T/$_n.log" 2>&1 8>&- &
		echo $! >"$T/$_n/pid.shell"
	elif "$_bin" ${DMN_FLAGS:-} -c "$T/$_n/clustercron.conf" \
	    "$@" >>"$T/$_n.log" 2>&1 8>&-; then
		# Ready: its pid file is written.
		cp "$T/$_n/pid" "$T/$_n/pid.shell"
	else
		fail "$_n did not start (exit $?)"
		cat "$T/$_n.log"
		exit 1
	fi
	if ! wait_for 20 in_log "$_n" 'STARTUP'; then
		fail "$_n did not start"
		cat "$T/$_n.log"
		exit 1
	fi
}

# dmn_alive NAME: its process is there and not a zombie (a detached
# daemon is not the test's child; its parent reaps it).
dmn_alive()
{
	_p=$(cat "$T/$1/pid.shell")
	kill -0 "$_p" 2>/dev/null &&
	    [ "$(ps -o stat= -p "$_p" 2>/dev/null | cut -c 1)" != Z ]
}

dmn_dead()
{
	! dmn_alive "$1"
}

dmn_stop()
{
	kill -TERM "$(cat "$T/$1/pid.shell")" 2>/dev/null
	if ! wait_for "${2:-30}" dmn_dead "$1"; then
		fail "$1 did not stop"
		return 1
	fi
	return 0
}

ccs()
{
	if [ -n "${MYSQL_FILE:-}" ]; then
		"$CCSTORE" -m "$MYSQL_FILE" "$STORE" "$@"
	else
		"$CCSTORE" "${STORE:-sqlite:$T/cc.db}" "$@"
	fi
}

runs()
{
	ccs runs
}

# count_lines FILE: lines in FILE, 0 when it does not exist.
count_lines()
{
	if [ -f "$1" ]; then
		wc -l <"$1" | tr -d ' '
	else
		echo 0
	fi
}

# at_least N FILE: FILE has at least N lines.
at_least()
{
	[ "$(count_lines "$2")" -ge "$1" ]
}

dmn_cluster()
{
	rm -rf "$T"
	. "$top_srcdir/tests/lib/mariadb.sh"
	mdb_init
	trap dmn_cleanup EXIT
	[ "${1:-}" = nostart ] || mdb_start
	STORE=$MDB_URL
	MYSQL_FILE=$MDB_CNF
	O=$T/jobs
	mkdir -p "$O"
	chmod 777 "$O"
}

# Fault injection for the cluster tests (tests/cluster/), and what
# they read from the store (through ccs, as the daemons read it).
#
#	dmn_crash NAME		the node dies at once, as in a power cut:
#				the daemon and every process under it
#				(its running jobs) get SIGKILL
#	dmn_restart NAME	start it again; the log so far is kept
#				in $T/NAME.log.N
#	dmn_descendants PID	the processes under PID, children first
#	run_rows [COND]		the runs, oldest first, one a line: job
#				fire attempt node state pid started ended
#				(ms, node clock; 0 running); with COND, an
#				awk condition over those names, the runs it
#				holds for, e.g. "node == \"n1\" && pid == 0"
#	claim_rows [COND]	the claims, by fire, one a line: job fire
#				node; COND as for run_rows
#	job_of ERE		the ids of the jobs whose command (as
#				stored) matches the extended regular
#				expression ERE (awk's)
#	iso_epochs		ISO 8601 UTC instants on stdin, seconds
#				since the epoch out
#	fires_of FILE		the fire instants (first word) of a job's
#				file, as seconds, sorted
#	dups_of FILE		fire instants written more than once
#	gaps_in STEP FROM TO	on stdin sorted seconds; prints every
#				multiple of STEP in [FROM, TO] missing
#	elapsed			seconds since the test began (its log
#				ends with it)
#	dmn_stopped NAME	the daemon is stopped (SIGSTOP, state T)
#	last_claim NODE		the latest fire NODE claimed (0: none)
#	claims_after NODE FIRE	NODE has claimed a fire after FIRE
#	needs_faketime		skip without libfaketime

T0=$(date +%s)

dmn_descendants()
{
	ps -e -o pid= -o ppid= | awk -v root="$1" '
	    { parent[$1] = $2 }
	    END {
		n = 0; q[n++] = root
		for (i = 0; i < n; i++)
			for (p in parent)
				if (parent[p] == q[i] && p != q[i]) {
					q[n++] = p
					print p
				}
	    }'
}

dmn_crash()
{
	_p=$(cat "$T/$1/pid.shell")
	# Stopped first, so that it starts nothing while its jobs are
	# listed.
	kill -STOP "$_p" 2>/dev/null
	_kids=$(dmn_descendants "$_p")
	kill -9 "$_p" 2>/dev/null
	for _k in $_kids; do
		kill -9 "$_k" 2>/dev/null
	done
	if ! wait_for 10 dmn_dead "$1"; then
		fail "$1 did not die"
		return 1
	fi
	return 0
}

dmn_restart()
{
	_k=1
	while [ -f "$T/$1.log.$_k" ]; do
		_k=$((_k + 1))
	done
	cp "$T/$1.log" "$T/$1.log.$_k"
	dmn_start "$@"
}

run_rows()
{
	_rows=$(ccs history) || return 1
	printf '%s\n' "$_rows" | awk "NF {
	    job = \$1; fire = \$2; attempt = \$3; node = \$4; state = \$5
	    pid = \$6; started = \$7; ended = \$8
	} NF && (${1:-1})"
}

claim_rows()
{
	_rows=$(ccs claims) || return 1
	printf '%s\n' "$_rows" | awk "NF {
	    job = \$1; fire = \$2; node = \$3
	} NF && (${1:-1})"
}

job_of()
{
	_rows=$(ccs commands) || return 1
	# Through the environment: awk -v would take the backslashes.
	printf '%s\n' "$_rows" | JOB_RE=$1 awk '
	    NF {
		id = $1
		sub(/^[^ ]* /, "")
		if ($0 ~ ENVIRON["JOB_RE"])
			print id
	    }'
}

iso_epochs()
{
	sed 's/T/ /; s/Z$/ UTC/' | date -u -f - +%s
}

fires_of()
{
	[ -s "$1" ] || return 0
	cut -d' ' -f1 "$1" | iso_epochs | sort -n
}

dups_of()
{
	[ -s "$1" ] || return 0
	cut -d' ' -f1 "$1" | sort | uniq -d
}

gaps_in()
{
	awk -v step="$1" -v from="$2" -v to="$3" '
	    { have[$1] = 1 }
	    END {
		t = from + (step - from % step) % step
		for (; t <= to; t += step)
			if (!(t in have))
				print "missing", t
	    }'
}

dmn_stopped()
{
	[ "$(ps -o state= -p "$(dmn_pid "$1")")" = T ]
}

last_claim()
{
	_rows=$(claim_rows "node == \"$1\"") || return 1
	printf '%s\n' "$_rows" |
	    awk 'BEGIN { m = 0 } NF && $2 > m { m = $2 } END { print m }'
}

claims_after()
{
	[ "$(last_claim "$1")" -gt "$2" ]
}

elapsed()
{
	echo "$(($(date +%s) - T0)) s"
}

# faketime_lib: the path of libfaketime (Debian's faketime), or fail.
# needs_faketime: skip without it.
faketime_lib()
{
	for _f in /usr/lib/*/faketime/libfaketime.so.1 \
	    /usr/lib/faketime/libfaketime.so.1 \
	    /usr/lib64/faketime/libfaketime.so.1 \
	    /usr/local/lib/faketime/libfaketime.so.1; do
		if [ -f "$_f" ]; then
			echo "$_f"
			return 0
		fi
	done
	return 1
}

needs_faketime()
{
	faketime_lib >/dev/null ||
	    skip "libfaketime not found (Debian: faketime)"
}

# dmn_start_faked OFFSET NAME: start NAME with its wall clock OFFSET
# seconds (+300, -120) off, through libfaketime; its monotonic clock,
# and its jobs (which get cron's environment, not the daemon's), are
# left alone.
dmn_start_faked()
{
	_off=$1
	shift
	_lib=$(faketime_lib) || return 1
	LD_PRELOAD=$_lib
	FAKETIME=$_off
	FAKETIME_DONT_FAKE_MONOTONIC=1
	FAKETIME_NO_CACHE=1
	export LD_PRELOAD FAKETIME FAKETIME_DONT_FAKE_MONOTONIC FAKETIME_NO_CACHE
	dmn_start "$@"
	unset LD_PRELOAD FAKETIME FAKETIME_DONT_FAKE_MONOTONIC FAKETIME_NO_CACHE
}
