/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * privdrop.c: becoming a job's owner for good.  Every identity change in
 * clustercron goes through privdrop(), in a child that is about to exec
 * the user's command (or the mailer), never in the daemon itself.
 */

#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static int	fail(enum privdrop_step, enum privdrop_step *, char *, size_t,
		    const char *, ...)
		    __attribute__((__format__ (printf, 5, 6)));

/*
 * Record which step failed and why, keeping errno as the failing call
 * left it.
 */
static int
fail(enum privdrop_step step, enum privdrop_step *stepp, char *errbuf,
    size_t errlen, const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;
	char	 msg[256];

	if (stepp != NULL)
		*stepp = step;
	if (errbuf != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(errbuf, errlen, "%s: %s", msg, strerror(saved));
	}
	errno = saved;
	return (-1);
}

const char *
privdrop_stepname(enum privdrop_step step)
{
	switch (step) {
	case PRIVDROP_OK:
		return ("ok");
	case PRIVDROP_NOTROOT:
		return ("change of user");
	case PRIVDROP_SETGID:
		return ("setgid");
	case PRIVDROP_INITGROUPS:
		return ("initgroups");
	case PRIVDROP_SETUID:
		return ("setuid");
	case PRIVDROP_VERIFY:
		return ("verifying the new ids");
	case PRIVDROP_REGAIN:
		return ("root could be regained");
	}
	return ("unknown step");
}

/*
 * The order is setgid, initgroups, setuid, and it is not a matter of
 * taste.  Changing the group ids and the supplementary group list both
 * need privilege (CAP_SETGID): once setuid() has made us the user, a
 * later setgid() or setgroups() fails, or worse, a caller that ignored
 * the failure runs the job as the user but still in root's groups (gid
 * 0, or "disk", "shadow", "adm" in the supplementary list) -- a job that
 * can read /etc/shadow or write raw disks.  So the groups go first,
 * while we are still root, and setuid() comes last: as root it sets the
 * real, effective and saved user ids together, so nothing is left to
 * switch back to.
 *
 * initgroups() replaces root's supplementary groups with the user's (as
 * listed in the group database); skipping it would leave the daemon's
 * own groups in the job.  setgid() before initgroups() follows
 * cron(8); the two are independent, but both precede setuid().
 *
 * Each call is checked, because each can fail (a gid the kernel
 * refuses, a group database that cannot be read, a user at RLIMIT_NPROC
 * on kernels where setuid() then fails with EAGAIN), and running the
 * job with half the change done is worse than not running it.  Finally
 * the result is verified: all three user ids and group ids are the
 * user's, and setuid(0) fails, as does setgid(0) unless the user's
 * group is 0 -- if either succeeded, root could come back, and the job
 * must not start.
 */
int
privdrop(const struct passwd *pw, enum privdrop_step *stepp, char *errbuf,
    size_t errlen)
{
	uid_t	 ruid, euid, suid;
	gid_t	 rgid, egid, sgid;

	if (stepp != NULL)
		*stepp = PRIVDROP_OK;
	if (getuid() != 0 && geteuid() != 0) {
		/*
		 * Not root: the daemon runs one user's tables and may only
		 * "become" that user, which changes nothing.
		 */
		if (pw->pw_uid == getuid() && pw->pw_uid == geteuid())
			return (0);
		errno = EPERM;
		return (fail(PRIVDROP_NOTROOT, stepp, errbuf, errlen,
		    "not running as root, cannot become %s", pw->pw_name));
	}

	if (setgid(pw->pw_gid) == -1)
		return (fail(PRIVDROP_SETGID, stepp, errbuf, errlen,
		    "setgid %lu for %s", (unsigned long)pw->pw_gid,
		    pw->pw_name));
	if (initgroups(pw->pw_name, pw->pw_gid) == -1)
		return (fail(PRIVDROP_INITGROUPS, stepp, errbuf, errlen,
		    "initgroups for %s", pw->pw_name));
	if (setuid(pw->pw_uid) == -1)
		return (fail(PRIVDROP_SETUID, stepp, errbuf, errlen,
		    "setuid %lu for %s", (unsigned long)pw->pw_uid,
		    pw->pw_name));

	if (getresuid(&ruid, &euid, &suid) == -1 ||
	    getresgid(&rgid, &egid, &sgid) == -1)
		return (fail(PRIVDROP_VERIFY, stepp, errbuf, errlen,
		    "reading the ids of %s", pw->pw_name));
	if (ruid != pw->pw_uid || euid != pw->pw_uid || suid != pw->pw_uid ||
	    rgid != pw->pw_gid || egid != pw->pw_gid || sgid != pw->pw_gid) {
		errno = EPERM;
		return (fail(PRIVDROP_VERIFY, stepp, errbuf, errlen,
		    "ids of %s not all changed", pw->pw_name));
	}
	if (pw->pw_uid != 0) {
		if (setuid(0) != -1 ||
		    (pw->pw_gid != 0 && setgid(0) != -1)) {
			errno = EPERM;
			return (fail(PRIVDROP_REGAIN, stepp, errbuf, errlen,
			    "after becoming %s", pw->pw_name));
		}
		errno = 0;
	}
	return (0);
}
