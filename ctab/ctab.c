/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ctab.c: crontab(1) for the whole cluster.  Tables live in the store;
 * ctab never holds the store's credentials but asks the local daemon,
 * which knows the caller from the kernel (see tabproto.h).  ctab runs
 * with the caller's own privileges, so the editor and the temporary
 * file are simply the user's.
 */

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ctab.h"
#include "parser.h"
#include "pathnames.h"
#include "tabproto.h"

#define DEFAULT_EDITOR	"vi"

static void	 usage(void) __attribute__((__noreturn__));
static int	 call(const struct tabmsg *, struct tabmsg *);
static int	 fetch(const char *, char **, int64_t *);
static int	 put(const char *, const char *, size_t, int64_t);
static int	 ask(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2)));
static int	 edit(const char *);
static int	 install(const char *, const char *);
static int	 list(const char *);
static int	 remove_table(const char *, int);
static int	 run_editor(const char *);
static char	*read_table(const char *, size_t *);

static const char *sockpath;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: %s [-u user] file\n"
	    "       %s [-u user] -e | -l | -r [-i]\n"
	    "       %s -T [-s] file\n",
	    getprogname(), getprogname(), getprogname());
	exit(1);
}

/* One request to the daemon and its reply; -1 when it cannot be had. */
static int
call(const struct tabmsg *req, struct tabmsg *rep)
{
	struct sockaddr_un	 sun;
	int			 fd;

	if (tab_sockaddr(sockpath, &sun) == -1) {
		warnx("%s: socket path too long", sockpath);
		return (-1);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		warn("socket");
		return (-1);
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		warn("cannot reach the clustercron daemon at %s (is it "
		    "running?)", sockpath);
		close(fd);
		return (-1);
	}
	if (tab_send(fd, req, TAB_CLIENT_MS) == -1 ||
	    tab_recv(fd, rep, TAB_CLIENT_MS) == -1) {
		warn("talking to the clustercron daemon at %s", sockpath);
		close(fd);
		return (-1);
	}
	close(fd);
	return (0);
}

/*
 * The user's table and its version: 1 with the text, 0 when there is
 * none (*text NULL), -1 on failure (said).
 */
static int
fetch(const char *user, char **text, int64_t *version)
{
	struct tabmsg	 req, rep;

	*text = NULL;
	tab_set(&req, "get", user, 0, NULL);
	if (call(&req, &rep) == -1)
		return (-1);
	*version = rep.tm_version;
	if (strcmp(rep.tm_word, "ok") == 0) {
		*text = rep.tm_body != NULL ? rep.tm_body : xstrdup("");
		return (1);
	}
	tab_clear(&rep);
	if (strcmp(rep.tm_word, "none") == 0)
		return (0);
	warnx("%s", rep.tm_msg);
	return (-1);
}

/* Install text over version; 0, or -1 (said), 2 on a conflict. */
static int
put(const char *user, const char *text, size_t len, int64_t version)
{
	struct tabmsg	 req, rep;
	int		 rv;

	tab_set(&req, "put", user, version, NULL);
	req.tm_body = (char *)text;
	req.tm_bodylen = len;
	if (call(&req, &rep) == -1)
		return (-1);
	if (strcmp(rep.tm_word, "ok") == 0)
		rv = 0;
	else if (strcmp(rep.tm_word, "conflict") == 0) {
		warnx("the table was changed by someone else meanwhile");
		rv = 2;
	} else {
		warnx("%s", rep.tm_msg);
		rv = -1;
	}
	tab_clear(&rep);
	return (rv);
}

/* Ask a yes/no question on the terminal or standard input. */
static int
ask(const char *fmt, ...)
{
	va_list	 ap;
	char	 line[64];

	for (;;) {
		fprintf(stderr, "%s: ", getprogname());
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, " (y/n) ");
		fflush(stderr);
		if (fgets(line, sizeof(line), stdin) == NULL) {
			fputc('\n', stderr);
			return (0);
		}
		if (line[0] == 'y' || line[0] == 'Y')
			return (1);
		if (line[0] == 'n' || line[0] == 'N')
			return (0);
	}
}

static char *
read_table(const char *file, size_t *len)
{
	char	*buf;
	int	 rv;

	if (strcmp(file, "-") == 0)
		rv = file_read_fd(STDIN_FILENO, CTAB_MAXBYTES, &buf, len);
	else
		rv = file_read(file, CTAB_MAXBYTES, &buf, len);
	if (rv == -1) {
		if (errno == EFBIG)
			warnx("%s: table is larger than %d bytes", file,
			    CTAB_MAXBYTES);
		else
			warn("%s", file);
		return (NULL);
	}
	return (buf);
}

static int
list(const char *user)
{
	char	*text;
	int64_t	 version;
	int	 rv;

	if ((rv = fetch(user, &text, &version)) == -1)
		return (1);
	if (rv == 0) {
		fprintf(stderr, "no crontab for %s\n", user);
		return (1);
	}
	fputs(text, stdout);
	free(text);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (1);
	}
	return (0);
}

static int
remove_table(const char *user, int interactive)
{
	struct tabmsg	 req, rep;
	char		*text;
	int64_t		 version;
	int		 rv;

	if ((rv = fetch(user, &text, &version)) == -1)
		return (1);
	free(text);
	if (rv == 0) {
		fprintf(stderr, "no crontab for %s\n", user);
		return (1);
	}
	if (interactive && !ask("really delete %s's crontab?", user))
		return (0);
	tab_set(&req, "del", user, version, NULL);
	if (call(&req, &rep) == -1)
		return (1);
	rv = strcmp(rep.tm_word, "ok") == 0 ? 0 : 1;
	if (rv != 0)
		warnx("%s", strcmp(rep.tm_word, "conflict") == 0 ?
		    "the table was changed by someone else meanwhile" :
		    rep.tm_msg);
	tab_clear(&rep);
	return (rv);
}

static int
install(const char *user, const char *file)
{
	char	*buf, *old;
	size_t	 len;
	int64_t	 version;
	int	 rv;

	if ((buf = read_table(file, &len)) == NULL)
		return (1);
	if (lint_table(strcmp(file, "-") == 0 ? "(standard input)" : file,
	    buf, len, 0, clock_now()) > 0) {
		warnx("errors in crontab file, can't install.");
		free(buf);
		return (1);
	}
	if ((rv = fetch(user, &old, &version)) != -1) {
		free(old);
		rv = put(user, buf, len, version);
	}
	free(buf);
	return (rv == 0 ? 0 : 1);
}

/*
 * Run the editor on file as the user runs it: through the shell, so
 * that VISUAL or EDITOR may carry arguments, with the file as "$1".
 * ctab ignores the keyboard's signals meanwhile; they are the editor's.
 * Returns 0 when the editor exited 0.
 */
static int
run_editor(const char *file)
{
	struct sigaction	 ign, oint, oquit;
	const char		*editor;
	char			*cmd;
	pid_t			 pid;
	int			 status;

	if ((editor = getenv("VISUAL")) == NULL || *editor == '\0')
		if ((editor = getenv("EDITOR")) == NULL || *editor == '\0')
			editor = DEFAULT_EDITOR;
	xasprintf(&cmd, "%s \"$1\"", editor);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	switch (pid = fork()) {
	case -1:
		warn("fork");
		status = -1;
		break;
	case 0:
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execl("/bin/sh", "sh", "-c", cmd, "sh", file, (char *)NULL);
		warn("/bin/sh");
		_exit(127);
	default:
		while (waitpid(pid, &status, 0) == -1)
			if (errno != EINTR) {
				warn("waitpid");
				status = -1;
				break;
			}
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	free(cmd);
	if (status == -1)
		return (-1);
	if (WIFSIGNALED(status)) {
		warnx("\"%s\" killed by signal %d", editor, WTERMSIG(status));
		return (-1);
	}
	if (WEXITSTATUS(status) != 0) {
		warnx("\"%s\" exited with status %d", editor,
		    WEXITSTATUS(status));
		return (-1);
	}
	return (0);
}

/*
 * Edit a private copy; install it only when it changed and parses, and
 * only over the version it was made from, so a concurrent change
 * elsewhere is never overwritten.  Whatever goes wrong, the installed
 * table stays as it was and the edits stay in the copy.
 */
static int
edit(const char *user)
{
	const char	*tmpdir;
	char		 path[1024];
	char		*old, *buf = NULL;
	size_t		 oldlen, len;
	int64_t		 version;
	int		 fd, rv;

	if ((rv = fetch(user, &old, &version)) == -1)
		return (1);
	if (rv == 0) {
		fprintf(stderr, "no crontab for %s - using an empty one\n",
		    user);
		old = xstrdup("");
	}
	oldlen = strlen(old);
	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/ctab.XXXXXX",
	    tmpdir) >= sizeof(path))
		errx(1, "TMPDIR too long");
	if ((fd = mkstemp(path)) == -1)
		err(1, "%s", path);
	if (write(fd, old, oldlen) != (ssize_t)oldlen || close(fd) == -1) {
		warn("%s", path);
		unlink(path);
		free(old);
		return (1);
	}

	for (;;) {
		if (run_editor(path) == -1)
			goto keep;
		free(buf);
		if ((buf = read_table(path, &len)) == NULL)
			goto keep;
		if (len == oldlen && memcmp(buf, old, len) == 0) {
			warnx("no changes made to crontab");
			rv = 0;
			goto out;
		}
		if (lint_table(path, buf, len, 0, clock_now()) == 0)
			break;
		if (!ask("Do you want to retry the same edit?"))
			goto keep;
	}
	warnx("installing new crontab");
	if ((rv = put(user, buf, len, version)) == 0)
		goto out;
keep:
	warnx("edits left in %s", path);
	free(old);
	free(buf);
	return (1);
out:
	unlink(path);
	free(old);
	free(buf);
	return (rv == 0 ? 0 : 1);
}

int
main(int argc, char **argv)
{
	struct passwd	*pw;
	const char	*user = NULL;
	char		*buf, self[64];
	size_t		 len;
	int		 ch, check = 0, flags = 0, rv;
	int		 eflag = 0, lflag = 0, rflag = 0, iflag = 0;

	while ((ch = getopt(argc, argv, "eilrsTu:")) != -1) {
		switch (ch) {
		case 'e':
			eflag = 1;
			break;
		case 'i':
			iflag = 1;
			break;
		case 'l':
			lflag = 1;
			break;
		case 'r':
			rflag = 1;
			break;
		case 's':
			flags |= CRON_SYSTEM;
			break;
		case 'T':
			check = 1;
			break;
		case 'u':
			user = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (check) {
		if (argc != 1 || eflag || lflag || rflag || iflag ||
		    user != NULL)
			usage();
		if ((buf = read_table(argv[0], &len)) == NULL)
			return (1);
		rv = lint_table(strcmp(argv[0], "-") == 0 ?
		    "(standard input)" : argv[0], buf, len, flags,
		    clock_now()) == 0 ? 0 : 1;
		free(buf);
		return (rv);
	}
	if (flags != 0 || eflag + lflag + rflag > 1 ||
	    (iflag && !rflag) || argc != (eflag + lflag + rflag ? 0 : 1))
		usage();

	if ((pw = getpwuid(getuid())) == NULL)
		errx(1, "your uid %lu has no user name",
		    (unsigned long)getuid());
	strlcpy(self, pw->pw_name, sizeof(self));
	if (user != NULL) {
		if (getuid() != 0 && strcmp(user, self) != 0)
			errx(1, "must be privileged to use -u");
		if (getpwnam(user) == NULL)
			errx(1, "user %s unknown", user);
	} else
		user = self;
	if ((sockpath = getenv("CTAB_SOCKET")) == NULL || *sockpath == '\0')
		sockpath = PATH_CTAB_SOCKET;

	if (lflag)
		return (list(user));
	if (rflag)
		return (remove_table(user, iflag));
	if (eflag)
		return (edit(user));
	return (install(user, argv[0]));
}
