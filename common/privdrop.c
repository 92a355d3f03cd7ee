/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * privdrop.c: becoming a job's owner for good.  Every identity change in
 * clustercron goes through privdrop(), in a child that is about to exec
 * the user's command (or the mailer), never in the daemon itself.
 *
 * Before it, where the system uses PAM, a job passes the stack of its
 * PAM service as cron's jobs pass /etc/pam.d/cron (Debian's cron and
 * cronie alike): pam_acct_mgmt() refuses an expired account (pam_unix
 * reads the shadow entry; a locked password does not stop a job, as
 * it stops no cron job either), pam_setcred() and pam_open_session()
 * set up what a session has: the limits of limits.conf (pam_limits),
 * the environment of /etc/environment (pam_env), the login uid
 * (pam_loginuid), the umask (pam_umask, where a stack has it).  Limits
 * and umask are this process's, which the job inherits.  All of it runs
 * in the child, never in the daemon, so that a module that blocks
 * (a directory service that does not answer) holds up one job's start,
 * which spawn.c bounds, and never the daemon's loop.
 */

#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_PAM
#include <security/pam_appl.h>
#endif

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

#ifdef HAVE_PAM
struct privdrop_pam {
	pam_handle_t	*pp_h;
	int		 pp_session;	/* opened */
	int		 pp_cred;	/* established */
};

/*
 * The conversation: PAM_SILENT asks modules to say nothing, and a job
 * has no one to answer a prompt.  Messages are taken and dropped; a
 * prompt fails the conversation.
 */
static int
pam_conv_none(int n, const struct pam_message **msg,
    struct pam_response **resp, void *arg)
{
	struct pam_response	*r;
	int			 i;

	*resp = NULL;
	if (n <= 0 || n > PAM_MAX_NUM_MSG)
		return (PAM_CONV_ERR);
	for (i = 0; i < n; i++)
		if (msg[i]->msg_style != PAM_ERROR_MSG &&
		    msg[i]->msg_style != PAM_TEXT_INFO)
			return (PAM_CONV_ERR);
	if ((r = calloc((size_t)n, sizeof(*r))) == NULL)
		return (PAM_BUF_ERR);
	*resp = r;
	return (PAM_SUCCESS);
}

struct privdrop_pam *
privdrop_pam_open(const char *service, const struct passwd *pw,
    char *errbuf, size_t errlen)
{
	static const struct pam_conv	 conv = { pam_conv_none, NULL };
	struct privdrop_pam		*pp;
	const char			*what;
	int				 rc;

	if ((pp = calloc(1, sizeof(*pp))) == NULL) {
		snprintf(errbuf, errlen, "PAM: %s", strerror(errno));
		return (NULL);
	}
	what = "starting service";
#if defined(CLUSTERCRON_TEST) && defined(HAVE_PAM_START_CONFDIR)
	/* Test builds: a stack of the test's own (tests/hostile/pam.sh). */
	if (getenv("CLUSTERCRON_TEST_PAMDIR") != NULL)
		rc = pam_start_confdir(service, pw->pw_name, &conv,
		    getenv("CLUSTERCRON_TEST_PAMDIR"), &pp->pp_h);
	else
#endif
	rc = pam_start(service, pw->pw_name, &conv, &pp->pp_h);
	if (rc != PAM_SUCCESS)
		goto fail;
	what = "terminal";
	if ((rc = pam_set_item(pp->pp_h, PAM_TTY, "cron")) != PAM_SUCCESS)
		goto fail;
	what = "account";
	if ((rc = pam_acct_mgmt(pp->pp_h, PAM_SILENT)) != PAM_SUCCESS)
		goto fail;
	what = "credentials";
	if ((rc = pam_setcred(pp->pp_h, PAM_ESTABLISH_CRED | PAM_SILENT)) !=
	    PAM_SUCCESS)
		goto fail;
	pp->pp_cred = 1;
	what = "session";
	if ((rc = pam_open_session(pp->pp_h, PAM_SILENT)) != PAM_SUCCESS)
		goto fail;
	pp->pp_session = 1;
	return (pp);
fail:
	snprintf(errbuf, errlen, "PAM service %s refused %s: %s: %s", service,
	    pw->pw_name, what, pp->pp_h != NULL ? pam_strerror(pp->pp_h, rc) :
	    "cannot start");
	privdrop_pam_close(pp);
	return (NULL);
}

/*
 * Every job's pam_start() reads the service's stack and loads its
 * modules, a dozen shared objects to map and relocate: about 0.8 ms of
 * each child's CPU here, as much as the rest of its start.  A handle
 * started once in the daemon, never used and never ended, keeps them
 * loaded, so that a child's pam_start() finds them there (a changed
 * stack is still read afresh by each).  Nothing of the account or the
 * session is touched in the daemon.
 */
void
privdrop_pam_preload(const char *service)
{
	static const struct pam_conv	 conv = { pam_conv_none, NULL };
	static pam_handle_t		*kept;
	static char			*loaded;

	if (loaded != NULL && strcmp(loaded, service) == 0)
		return;
	if (kept != NULL)
		pam_end(kept, PAM_SUCCESS);
	kept = NULL;
	free(loaded);
	if ((loaded = strdup(service)) == NULL)
		return;
#if defined(CLUSTERCRON_TEST) && defined(HAVE_PAM_START_CONFDIR)
	if (getenv("CLUSTERCRON_TEST_PAMDIR") != NULL) {
		(void)pam_start_confdir(service, "root", &conv,
		    getenv("CLUSTERCRON_TEST_PAMDIR"), &kept);
		return;
	}
#endif
	(void)pam_start(service, "root", &conv, &kept);
}

char **
privdrop_pam_env(struct privdrop_pam *pp, char *const *env)
{
	char		**pe, **out;
	size_t		  npe, nenv, i, k = 0, n;

	if ((pe = pam_getenvlist(pp->pp_h)) == NULL)
		return ((char **)env);
	for (npe = 0; pe[npe] != NULL; npe++)
		;
	nenv = jobenv_count(env);
	if (npe == 0 ||
	    (out = reallocarray(NULL, npe + nenv + 1, sizeof(*out))) == NULL)
		return ((char **)env);
	for (i = 0; i < npe; i++) {
		n = strcspn(pe[i], "=");
		if (pe[i][n] != '=')
			continue;
		pe[i][n] = '\0';
		if (jobenv_get(env, pe[i]) == NULL) {
			pe[i][n] = '=';
			out[k++] = pe[i];
		}
	}
	for (i = 0; i < nenv; i++)
		out[k++] = env[i];
	out[k] = NULL;
	return (out);
}

void
privdrop_pam_close(struct privdrop_pam *pp)
{
	int	 rc = PAM_SUCCESS;

	if (pp == NULL)
		return;
	if (pp->pp_cred)
		(void)pam_setcred(pp->pp_h, PAM_DELETE_CRED | PAM_SILENT);
	if (pp->pp_session)
		rc = pam_close_session(pp->pp_h, PAM_SILENT);
	if (pp->pp_h != NULL)
		pam_end(pp->pp_h, rc);
	free(pp);
}
#endif /* HAVE_PAM */
