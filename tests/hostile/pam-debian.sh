#!/bin/sh
# Copyright (c) 2026 The clustercron authors
# ISC licence: see LICENSE.
#
# pam-debian.sh: jobs under PAM beside Debian's cron, each with its own
# PAM file as the packages ship them (Debian's /etc/pam.d/cron, our
# debian/clustercron.pam), in the private namespace of tests/compat/.
# The same /etc/cron.d table names three users of the namespace: one
# with a limits.conf entry, one whose account is expired (chage -E 0),
# one whose password is locked (usermod -L).  Both daemons are started
# with umask 027.  What each job sees (ulimit -n, umask, the locale
# pam_env reads) must be the same under both; the expired account runs
# nothing under either, the locked one runs under both (pam_unix's
# account check is about expiry, not the password).  The jobs are
# ordinary minute jobs, so the test waits for a minute boundary.

. "$top_srcdir/tests/compat/lib.sh"

[ "${CLUSTERCRON_PAM:-}" = yes ] ||
    skip "configured --without-pam (or libpam0g-dev missing): jobs run without PAM"
needs useradd
deb_fetch
[ -f "$T/deb/etc/pam.d/cron" ] || skip "Debian's cron package has no etc/pam.d/cron"
ns_start
ns_run cp "$T/deb/etc/pam.d/cron" /etc/pam.d/cron &&
    ns_run cp "$top_srcdir/debian/clustercron.pam" /etc/pam.d/clustercron ||
    fail "cannot install the PAM files in the namespace"
G=ccdg$$ E=ccde$$ L=ccdl$$
for u in $G $E $L; do
	mkdir -p "$T/home/$u"
	ns_run useradd -M -d "$T/home/$u" -s /bin/sh -U "$u" \
	    >"$T/useradd.log" 2>&1 ||
	    skip "useradd $u failed: $(cat "$T/useradd.log")"
	chown "$(ns_run id -u "$u")" "$T/home/$u"
done
ns_run chage -E 0 "$E" || fail "chage -E 0 $E"
ns_run usermod -L "$L" || fail "usermod -L $L"
# Both limits: without a hard one pam_limits takes init's, which a
# container may not let it set.
ns_run sh -c "printf '$G soft nofile 555\n$G hard nofile 777\n' \
    >/etc/security/limits.d/cc-$G.conf" || fail "limits.d"

O=$T/jobout
mkdir -p "$O"
chmod 777 "$O"
W='${CLUSTERCRON_NODE:-deb}'
{
	for u in $G $E $L; do
		echo "* * * * * $u echo \"\$(ulimit -n) \$(umask) \${LANG-none}\" >>$O/$W.\$LOGNAME"
	done
} >"$T/pamtest"
dmn_setup a </dev/null
cp "$T/pamtest" "$T/a/cron.d/"
ns_run cp "$T/pamtest" /etc/cron.d/

umask 027
deb_start
dmn_start a
umask 022

both() { test -s "$O/deb.$1" && test -s "$O/a.$1"; }
wait_for 75 both "$G" || fail "the good user's job did not run under both"
wait_for 10 both "$L" || fail "the locked user's job did not run under both"
deb_stop
dmn_stop a

same "the job sees the same under both: limits.conf, umask, locale" \
    "$(sort -u "$O/a.$G")" "$(sort -u "$O/deb.$G")"
contains "... limits.conf's nofile for the user, the daemons' umask" \
    "$(sort -u "$O/a.$G")" "^555 0027 "
same "a locked password: the job runs alike" \
    "$(sort -u "$O/a.$L")" "$(sort -u "$O/deb.$L")"
for d in deb a; do
	test -e "$O/$d.$E" && fail "$d ran the expired account's job"
done
contains "Debian's cron: the expired account refused" "$(deb_log)" \
    "$E"
contains "ours: the expired account refused, saying so" "$(our_log a)" \
    "^\\($E\\) CMD FAILED \\(a [^ ]* PAM service clustercron refused $E: account: "
finish
