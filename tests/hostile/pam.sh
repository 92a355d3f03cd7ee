#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# pam.sh: jobs pass the PAM stack of pam-service as cron's jobs pass
# /etc/pam.d/cron.  The daemon's test build reads the stack from the
# test's own directory (CLUSTERCRON_TEST_PAMDIR), so that the limits,
# umask and environment it sets belong to this test alone; the accounts
# are real, throwaway ones, since pam_unix reads the shadow file:
#
#	an expired account (chage -E 0) runs nothing: each fire is
#	logged CMD FAILED and recorded as a failed run, saying PAM
#	refused the account, as Debian's cron and cronie refuse it;
#	a locked password (usermod -L) does not stop the jobs, as it
#	stops no cron job (pam_unix's account check looks at expiry,
#	not at the password);
#	pam_limits' limits.conf entry for a user is what its job sees
#	(ulimit -n, ulimit -p), and another user's jobs are untouched;
#	pam_umask's umask and pam_env's variables reach the job, the
#	table's own variables winning over PAM's;
#	a module that refuses the session refuses the job.
#
# Each user's job appends to a file of its own every second.

. "$top_srcdir/tests/daemon/lib.sh"

[ "${CLUSTERCRON_PAM:-}" = yes ] ||
    skip "configured --without-pam (or libpam0g-dev missing): jobs run without PAM"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot make throwaway users"
needs chage
needs usermod
for m in pam_unix pam_limits pam_umask pam_env pam_deny pam_succeed_if; do
	[ -e "/lib/x86_64-linux-gnu/security/$m.so" ] ||
	    [ -e "/usr/lib/x86_64-linux-gnu/security/$m.so" ] ||
	    [ -e "/lib/security/$m.so" ] || skip "no $m.so (libpam-modules)"
done
G=ccpg$$ E=ccpe$$ L=ccpl$$ N=ccpn$$
for u in $G $E $L $N; do
	dmn_useradd "$u" "$T/home/$u"
done
chage -E 0 "$E" || fail "chage -E 0 $E"
usermod -L "$L" || fail "usermod -L $L"
O=$T/jobs
mkdir -p "$O"
chmod 777 "$O"

mkdir -m 755 "$T/pam.d"
cat >"$T/limits.conf" <<EOF
$G soft nofile 555
$G hard nofile 777
$G soft nproc 333
EOF
printf 'PAMVAR DEFAULT=from-pam\nHOME DEFAULT=/pam/home\n' >"$T/pam_env.conf"
cat >"$T/pam.d/clustercron" <<EOF
auth     required pam_permit.so
account  required pam_unix.so
session  required pam_succeed_if.so quiet user != $N
session  required pam_env.so readenv=0 conffile=$T/pam_env.conf
session  required pam_limits.so conf=$T/limits.conf
session  optional pam_umask.so umask=0027
session  required pam_unix.so
EOF
chmod 644 "$T/pam_env.conf" "$T/limits.conf" "$T/pam.d/clustercron"
export CLUSTERCRON_TEST_PAMDIR="$T/pam.d"
DMN_BIN=$CLUSTERCRON_TESTBIN

dmn_setup a </dev/null
{
	echo "CLUSTERCRON_SECONDS=yes"
	echo 'MAILTO=""'
	for u in $G $E $L $N; do
		echo "* * * * * * $u echo \"\$(ulimit -n) \$(ulimit -p) \$(umask) \$PAMVAR \$HOME\" >>$O/$u"
	done
	echo "* * * * * * root echo \"\$(ulimit -n) \$(umask) \$PAMVAR\" >>$O/root"
	# The session's keeper ends as the job ends: an exit status, and
	# the signal of a run killed at its timeout.
	echo "CLUSTERCRON_NAME=three"
	echo "* * * * * * $G exit 3"
	echo "CLUSTERCRON_TIMEOUT=1s"
	echo "CLUSTERCRON_NAME=slow"
	echo "* * * * * * $G sleep 30"
} >"$T/a/crontab"
dmn_start a

wait_for 10 at_least 2 "$O/$G" || fail "the good user's job does not run"
wait_for 10 at_least 2 "$O/$L" || fail "a locked password stops the job"
wait_for 10 at_least 2 "$O/root" || fail "root's job does not run"
failed_e() { in_log a "\\($E\\) CMD FAILED .*PAM service clustercron refused $E: account: "; }
wait_for 10 failed_e || fail "no CMD FAILED for the expired account"
failed_n() { in_log a "\\($N\\) CMD FAILED .*PAM service clustercron refused $N: session: "; }
wait_for 10 failed_n || fail "no CMD FAILED for the refused session"
# runs_of NAME: the runs of the job named NAME, "state exit signal".
runs_of()
{
	_id=$(ccs jobs | awk -v n="$1" '$4 == n { print $1 }')
	ccs runs | awk -v id="$_id" '$1 == id { print $5, $6, $7 }'
}
killed() { runs_of slow | grep -q '^finished -1 15$'; }
wait_for 10 killed || fail "no run of the slow job killed at its timeout"
dmn_stop a

contains "a job's exit status is the run's" "$(runs_of three)" \
    '^finished 3 0$'
contains "a job killed at its timeout: the run says its signal" \
    "$(runs_of slow)" '^finished -1 15$'
# Zombies aside: an init that does not reap (some containers') keeps
# those of the shell's children that the timeout orphaned.
alive() { ps -o stat= -u "$G" | grep -qv '^Z'; }
ntest=$((ntest + 1))
if wait_for 5 eval '! alive'; then
	echo "ok: no process of $G outlives the daemon's stop"
else
	fail "processes of $G left: $(ps -o pid,stat,comm -u "$G" | tr '\n' ' ')"
fi

same "limits.conf's nofile and nproc, pam_umask's umask and pam_env's variable reach the job; its HOME wins" \
    "$(sort -u "$O/$G")" "555 333 0027 from-pam $T/home/$G"
same "the locked user's job runs, as under cron" \
    "$(sort -u "$O/$L" | cut -d' ' -f3-)" "0027 from-pam $T/home/$L"
same "root's job: the daemon's limit on files, not the user's" \
    "$(sort -u "$O/root")" "$(ulimit -n) 0027 from-pam"
test -e "$O/$E" && fail "the expired account's job ran: $(head -n 3 "$O/$E")"
test -e "$O/$N" && fail "the refused session's job ran"
contains "the expired account: PAM's word in the log" "$(cat "$T/a.log")" \
    "\\($E\\) CMD FAILED \\(a [^ ]* PAM service clustercron refused $E: account: User account has expired;"
# Recorded as runs that did not start, with the reason.
o=$(ccs outputs)
ids=$(ccs jobs | awk -v u="$E" '$2 == u { print $1 }')
contains "the expired account's fires are failed runs, saying why" "$o" \
    "^$ids [0-9]+ 1 a failed PAM.sservice.sclustercron.srefused.s$E:.saccount:"
ntest=$((ntest + 1))
if printf '%s\n' "$o" | grep "^$ids " | grep -vq " failed PAM"; then
	fail "a fire of the expired account is not a failed run"
else
	echo "ok: every fire of the expired account failed"
fi
finish
