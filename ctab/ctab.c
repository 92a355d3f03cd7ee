/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ctab.c: crontab(1) for the whole cluster.  Tables live in the store;
 * ctab never holds the store's credentials but asks the local daemon,
 * which knows the caller from the kernel (see tabproto.h).  ctab runs
 * with the caller's own privileges, so the editor and the temporary
 * file are simply the user's.
 *
 * The package installs ctab as crontab(1) too, so it answers as
 * Debian's crontab does: the same options, the same messages with the
 * same prefixes (the program's name where crontab puts it, none where
 * it puts none), the same questions on the standard output and the
 * same exit statuses, so that scripts and people who know crontab are
 * not surprised.  Messages about what crontab has no notion of (the
 * daemon, the store, a change made meanwhile on another node) carry the
 * program's name.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ctab.h"
#include "parser.h"
#include "pathnames.h"
#include "tabproto.h"

/* What call() and fetch() return when no daemon listens. */
#define DOWN		CTAB_DOWN

enum op {
	OP_NONE, OP_REPLACE, OP_LIST, OP_DELETE, OP_EDIT, OP_CHECK, OP_HELP
};

static void	 usage(const char *) __attribute__((__noreturn__));
static void	 help(void);
static void	 say_down(void);
static void	 say_refused(const char *);
static void	 say_none(const char *);
static int	 call(const struct tabmsg *, struct tabmsg *);
static int	 fetch(const char *, const char *, char **, int64_t *);
static int	 put(const char *, const char *, size_t, int64_t);
static int	 yes_no(const char *, const char *, int);
static int	 check_table(const char *, const char *, size_t);
static int	 edit(const char *);
static int	 install(const char *, const char *, int);
static int	 list(const char *);
static int	 list_copy(const char *);
static int	 remove_table(const char *, int);
static int	 run_editor(const char *, const char *);
static const char *editor_name(void);
static char	*read_table(const char *, size_t *);

static const char *prog;
static const char *sockpath;
static int	 user_gone;	/* -u names a user this machine lacks */

/*
 * What -e starts from when the user has no table yet: comments only,
 * so that leaving it as it is installs nothing.
 */
static const char template[] =
    "# Your table of jobs, run by clustercron on the nodes of this cluster.\n"
    "#\n"
    "# A job is one line: when to run it, in five fields, then the\n"
    "# command, which /bin/sh runs as you, from your home directory:\n"
    "#\n"
    "#   minute        0-59\n"
    "#   hour          0-23\n"
    "#   day of month  1-31\n"
    "#   month         1-12 or jan-dec\n"
    "#   day of week   0-7 or sun-sat (0 and 7 are both Sunday)\n"
    "#\n"
    "# A field may be * (any value), a list (1,15), a range (1-5) or a\n"
    "# step (*/10); @daily, @hourly and their kin stand for all five.\n"
    "# Times are those of the daemon's clock and zone; a line CRON_TZ=zone\n"
    "# sets another zone for the jobs below it.\n"
    "#\n"
    "# What a job writes, errors included, is mailed to you unless the\n"
    "# command sends it elsewhere; MAILTO=address mails someone else and\n"
    "# MAILTO=\"\" nobody.\n"
    "#\n"
    "# For instance, to archive your documents at 5:30 every Monday:\n"
    "# 30 5 * * mon tar -czf $HOME/documents.tgz $HOME/documents\n"
    "#\n"
    "# Each run happens on one node of the cluster.  More in ctab(5).\n"
    "#\n"
    "# m  h  dom mon dow  command\n";

static void
usage(const char *msg)
{
	if (msg != NULL)
		fprintf(stderr, "%s: usage error: %s\n", prog, msg);
	help();
	exit(1);
}

static void
help(void)
{
	fprintf(stderr,
	    "usage:\t%s [-u user] [-n] file\n"
	    "\t%s [-u user] [-i] {-e | -l | -r}\n"
	    "\t%s -T [-s] file\n"
	    "\t%s -V | -h\n"
	    "\n"
	    "\tfile\t(install file, - or nothing for the standard input)\n"
	    "\t-n\t(dry run: check file, install nothing)\n"
	    "\t-u user\t(work on user's table; only root may name another)\n"
	    "\t-e\t(edit the table)\n"
	    "\t-l\t(list the table)\n"
	    "\t-r\t(remove the table)\n"
	    "\t-i\t(with -r, ask first)\n"
	    "\t-T\t(check file, reporting every error and warning)\n"
	    "\t-s\t(with -T, file is a system table, with a user field)\n"
	    "\t-V\t(print the version)\n"
	    "\t-h\t(print this help)\n",
	    prog, prog, prog, prog);
}

/*
 * No daemon listens on the socket.  Say so in one line, with the way to
 * start it on this machine: through systemd where it runs, else the
 * init script.
 */
static void
say_down(void)
{
	fprintf(stderr, "%s: clustercron is not running (nothing answers at "
	    "%s); start it with: %s\n", prog, sockpath,
	    access("/run/systemd/system", F_OK) == 0 ?
	    "systemctl start clustercron" : "/etc/init.d/clustercron start");
}

/*
 * user has no table.  A user this machine does not have (root may name
 * one, for the table left in the store) is unknown, in crontab's words,
 * unless a table is stored for them.
 */
static void
say_none(const char *user)
{
	if (user_gone)
		fprintf(stderr, "%s:  user `%s' unknown\n", prog, user);
	else
		fprintf(stderr, "no crontab for %s\n", user);
}

/* cron.allow or cron.deny refused user's table: crontab's words. */
static void
say_refused(const char *user)
{
	if (getuid() != 0) {
		fprintf(stderr, "You (%s) are not allowed to use this program "
		    "(%s)\n", user, prog);
		fprintf(stderr, "See %s(1) for more information\n", prog);
	} else
		fprintf(stderr, "The user %s cannot use this program (%s)\n",
		    user, prog);
}

/*
 * One request to the daemon and its reply: 0, DOWN when no daemon
 * listens (not said), -1 on another failure (said).
 */
int
ctab_call(const struct tabmsg *req, struct tabmsg *rep)
{
	return (call(req, rep));
}

void
ctab_say_down(void)
{
	say_down();
}

static int
call(const struct tabmsg *req, struct tabmsg *rep)
{
	struct sockaddr_un	 sun;
	int			 fd, sent;

	if (tab_sockaddr(sockpath, &sun) == -1) {
		warnx("%s: socket path too long", sockpath);
		return (-1);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		warn("socket");
		return (-1);
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		if (errno == ENOENT || errno == ECONNREFUSED)
			return (DOWN);
		warn("cannot reach the clustercron daemon at %s", sockpath);
		return (-1);
	}
	/*
	 * A daemon that refuses the connection (too many open) answers
	 * at once and closes it, maybe before the request is all sent:
	 * its answer is still there to read.
	 */
	sent = tab_send(fd, req, TAB_CLIENT_MS) == 0 ? 0 : errno;
	if ((sent != 0 && sent != EPIPE && sent != ECONNRESET) ||
	    tab_recv(fd, rep, TAB_CLIENT_MS) == -1) {
		if (sent != 0)
			errno = sent;
		warn("talking to the clustercron daemon at %s", sockpath);
		close(fd);
		return (-1);
	}
	close(fd);
	return (0);
}

/*
 * The user's table and its version, asked for with word (get, or open
 * for an edit): 1 with the text, 0 when there is none (*text NULL),
 * DOWN when no daemon listens (not said), -1 on another failure (said).
 */
static int
fetch(const char *user, const char *word, char **text, int64_t *version)
{
	struct tabmsg	 req, rep;
	int		 rv;

	*text = NULL;
	tab_set(&req, word, user, 0, NULL);
	if ((rv = call(&req, &rep)) != 0)
		return (rv);
	*version = rep.tm_version;
	if (strcmp(rep.tm_word, "ok") == 0) {
		*text = rep.tm_body != NULL ? rep.tm_body : xstrdup("");
		return (1);
	}
	tab_clear(&rep);
	if (strcmp(rep.tm_word, "none") == 0)
		return (0);
	if (strcmp(rep.tm_word, "refused") == 0)
		say_refused(user);
	else
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
	if ((rv = call(&req, &rep)) != 0) {
		if (rv == DOWN)
			say_down();
		return (-1);
	}
	if (strcmp(rep.tm_word, "ok") == 0)
		rv = 0;
	else if (strcmp(rep.tm_word, "conflict") == 0) {
		warnx("the table was changed by someone else meanwhile");
		rv = 2;
	} else {
		if (strcmp(rep.tm_word, "refused") == 0)
			say_refused(user);
		else
			warnx("%s", rep.tm_msg);
		rv = -1;
	}
	tab_clear(&rep);
	return (rv);
}

/*
 * A y or n answer on the standard input, as crontab reads it: the
 * question goes to the standard output, any other answer gets nag on
 * the standard error and another read (with the question again when
 * again is set).  The end of the input answers no.
 */
static int
yes_no(const char *question, const char *nag, int again)
{
	char	 line[128];
	int	 ch;

	fputs(question, stdout);
	fflush(stdout);
	for (;;) {
		if (fgets(line, sizeof(line), stdin) == NULL)
			return (0);
		if (strchr(line, '\n') == NULL)
			while ((ch = getchar()) != EOF && ch != '\n')
				;
		switch (tolower((unsigned char)line[0])) {
		case 'y':
			return (1);
		case 'n':
			return (0);
		default:
			fputs(nag, stderr);
			if (again) {
				fputs(question, stdout);
				fflush(stdout);
			}
		}
	}
}

/*
 * Read a table from file, or from the standard input for "-".  A
 * file must be a regular one.  Returns the text or NULL (said).
 */
static char *
read_table(const char *file, size_t *len)
{
	struct stat	 sb;
	char		*buf;
	int		 fd = STDIN_FILENO, rv;

	if (strcmp(file, "-") != 0) {
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1) {
			fprintf(stderr, "%s: %s\n", file, strerror(errno));
			return (NULL);
		}
		if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
			fprintf(stderr, "%s: Not a regular file.\n", file);
			close(fd);
			return (NULL);
		}
	}
	rv = file_read_fd(fd, CTAB_MAXBYTES, &buf, len);
	if (fd != STDIN_FILENO)
		close(fd);
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

/*
 * May this text be installed?  Every finding is listed, then crontab's
 * verdict on its own line.  0 when it may, -1 when not.
 */
static int
check_table(const char *name, const char *buf, size_t len)
{
	if (tab_count_lines(buf, len) > CTAB_MAXLINES) {
		fprintf(stderr, "crontab is too long; maximum number of lines "
		    "is %d.\n", CTAB_MAXLINES);
		return (-1);
	}
	if (lint_table(name, buf, len, 0, clock_now()) > 0) {
		fputs("errors in crontab file, can't install.\n", stderr);
		return (-1);
	}
	if (len > 0 && buf[len - 1] != '\n') {
		fputs("new crontab file is missing newline before EOF, can't "
		    "install.\n", stderr);
		return (-1);
	}
	return (0);
}

static int
list(const char *user)
{
	char	*text;
	int64_t	 version;
	int	 rv;

	if ((rv = fetch(user, "get", &text, &version)) == DOWN)
		return (list_copy(user));
	if (rv == -1)
		return (1);
	if (rv == 0) {
		say_none(user);
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

/*
 * The daemon is down: show the copy of the table it keeps on this
 * machine (tabsrv.c), saying that it may be stale.  The directory must
 * be root's or the caller's and writable by nobody else; the copy must
 * be a regular file belonging to the table's owner.
 */
static int
list_copy(const char *user)
{
	struct passwd	*pw;
	struct stat	 sb;
	const char	*dir;
	char		*text;
	size_t		 len;
	int		 dfd, fd;

	if ((dir = getenv("CTAB_COPY_DIR")) == NULL || *dir == '\0')
		dir = PATH_CTAB_COPIES;
	if ((pw = getpwnam(user)) == NULL ||
	    (dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		say_down();
		return (1);
	}
	if (fstat(dfd, &sb) == -1 || (sb.st_uid != 0 &&
	    sb.st_uid != getuid()) || (sb.st_mode & 022) != 0) {
		warnx("%s: not a directory the daemon keeps: ignored", dir);
		say_down();
		close(dfd);
		return (1);
	}
	fd = openat(dfd, user, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	close(dfd);
	if (fd == -1 && errno == ENOENT) {
		fprintf(stderr, "no crontab for %s\n", user);
		fprintf(stderr, "%s: clustercron is not running: this comes "
		    "from the copy kept on this machine, which may be stale\n",
		    prog);
		return (1);
	}
	if (fd == -1) {
		warn("%s/%s", dir, user);
		say_down();
		return (1);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != pw->pw_uid) {
		warnx("%s/%s: not a copy the daemon made: ignored", dir, user);
		say_down();
		close(fd);
		return (1);
	}
	if (file_read_fd(fd, TAB_MAXBYTES, &text, &len) == -1) {
		warn("%s/%s", dir, user);
		close(fd);
		return (1);
	}
	close(fd);
	fprintf(stderr, "%s: clustercron is not running: this comes from the "
	    "copy kept on this machine, which may be stale\n", prog);
	fwrite(text, 1, len, stdout);
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
	char		*text, question[256];
	int64_t		 version;
	int		 rv;

	if ((rv = fetch(user, "get", &text, &version)) == DOWN)
		say_down();
	if (rv < 0)
		return (1);
	free(text);
	if (rv == 0) {
		say_none(user);
		return (1);
	}
	snprintf(question, sizeof(question),
	    "%s: really delete %s's crontab? (y/n) ", prog, user);
	if (interactive && !yes_no(question, "Please enter Y or N: ", 0))
		return (0);
	tab_set(&req, "del", user, version, NULL);
	if ((rv = call(&req, &rep)) != 0) {
		if (rv == DOWN)
			say_down();
		return (1);
	}
	rv = strcmp(rep.tm_word, "ok") == 0 ? 0 : 1;
	if (rv != 0)
		warnx("%s", strcmp(rep.tm_word, "conflict") == 0 ?
		    "the table was changed by someone else meanwhile" :
		    rep.tm_msg);
	tab_clear(&rep);
	return (rv);
}

/*
 * Install a file, or with dry only check it as crontab -n does, which
 * needs no daemon.  As in crontab, the user's right to a table is
 * checked before the table itself.
 */
static int
install(const char *user, const char *file, int dry)
{
	const char	*name;
	char		*buf, *old = NULL;
	size_t		 len;
	int64_t		 version = 0;
	int		 rv;

	if ((buf = read_table(file, &len)) == NULL)
		return (1);
	name = strcmp(file, "-") == 0 ? "(standard input)" : file;
	if (!dry && (rv = fetch(user, "open", &old, &version)) < 0) {
		if (rv == DOWN)
			say_down();
		free(buf);
		return (1);
	}
	free(old);
	if (check_table(name, buf, len) == -1) {
		free(buf);
		return (1);
	}
	if (dry) {
		fputs("The syntax of the crontab file was successfully "
		    "checked.\n", stderr);
		free(buf);
		return (0);
	}
	rv = put(user, buf, len, version);
	free(buf);
	return (rv == 0 ? 0 : 1);
}

/*
 * The editor: VISUAL, else EDITOR, else Debian's choice of the user's
 * editor where it is installed, else vi.
 */
static const char *
editor_name(void)
{
	const char	*editor;

	if ((editor = getenv("VISUAL")) != NULL && *editor != '\0')
		return (editor);
	if ((editor = getenv("EDITOR")) != NULL && *editor != '\0')
		return (editor);
	if (access("/usr/bin/sensible-editor", X_OK) == 0)
		return ("/usr/bin/sensible-editor");
	if (access("/usr/bin/editor", X_OK) == 0)
		return ("/usr/bin/editor");
	return ("vi");
}

/*
 * Run the editor on file as the user runs it: through the shell, so
 * that VISUAL or EDITOR may carry arguments, with the file as "$1".
 * ctab ignores the keyboard's signals meanwhile; they are the editor's.
 * Returns 0 when the editor exited 0, else -1 (said).
 */
static int
run_editor(const char *editor, const char *file)
{
	struct sigaction	 ign, oint, oquit, ohup;
	char			*cmd;
	pid_t			 pid;
	int			 status;

	xasprintf(&cmd, "%s \"$1\"", editor);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	sigaction(SIGHUP, &ign, &ohup);
	switch (pid = fork()) {
	case -1:
		warn("fork");
		status = -1;
		break;
	case 0:
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		sigaction(SIGHUP, &ohup, NULL);
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
	sigaction(SIGHUP, &ohup, NULL);
	free(cmd);
	if (status == -1)
		return (-1);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: \"%s\" killed; signal %d (%score "
		    "dumped)\n", prog, editor, WTERMSIG(status),
		    WCOREDUMP(status) ? "" : "no ");
		return (-1);
	}
	if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s: \"%s\" exited with status %d\n", prog,
		    editor, WEXITSTATUS(status));
		return (-1);
	}
	return (0);
}

/*
 * Edit a private copy, in a directory of its own as crontab makes it
 * (and named crontab, so that editors know the format); install it
 * only when it changed and may be installed, and only over the version
 * it was made from, so a concurrent change elsewhere is never
 * overwritten.  As in crontab, an editor that fails abandons the edit,
 * and a table with errors is offered for another edit; declined, the
 * copy is left and named, and that is not a failure.
 */
static int
edit(const char *user)
{
	const char	*tmpdir, *editor;
	char		 dir[1024], path[1100];
	char		*old, *buf = NULL;
	size_t		 oldlen, len;
	int64_t		 version = 0;
	int		 fd, rv;

	if ((rv = fetch(user, "open", &old, &version)) == DOWN)
		say_down();
	if (rv < 0)
		return (1);
	if (rv == 0) {
		fprintf(stderr, "no crontab for %s - using an empty one\n",
		    user);
		old = xstrdup(template);
	}
	oldlen = strlen(old);
	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/crontab.XXXXXX",
	    tmpdir) >= sizeof(dir))
		errx(1, "TMPDIR too long");
	if (mkdtemp(dir) == NULL)
		err(1, "%s", dir);
	snprintf(path, sizeof(path), "%s/crontab", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1 || write(fd, old, oldlen) != (ssize_t)oldlen ||
	    close(fd) == -1) {
		warn("%s", path);
		goto fail;
	}
	editor = editor_name();

	for (;;) {
		if (run_editor(editor, path) == -1)
			goto fail;
		free(buf);
		if ((buf = read_table(path, &len)) == NULL)
			goto fail;
		if (len == oldlen && memcmp(buf, old, len) == 0) {
			fputs("No modification made\n", stderr);
			rv = 0;
			goto out;
		}
		fprintf(stderr, "%s: installing new crontab\n", prog);
		if (check_table(path, buf, len) == 0)
			break;
		if (!yes_no("Do you want to retry the same edit? (y/n) ",
		    "Enter Y or N\n", 1)) {
			rv = 0;
			goto keep;
		}
	}
	if ((rv = put(user, buf, len, version)) == 0)
		goto out;
	rv = 1;
keep:
	fprintf(stderr, "%s: edits left in %s\n", prog, path);
	free(old);
	free(buf);
	return (rv);
fail:
	rv = 1;
out:
	unlink(path);
	rmdir(dir);
	free(old);
	free(buf);
	return (rv);
}

int
main(int argc, char **argv)
{
	struct passwd	*pw;
	const char	*user = NULL, *file = NULL;
	char		*buf, self[64];
	size_t		 len;
	enum op		 op = OP_NONE;
	int		 ch, dry = 0, iflag = 0, sflag = 0, rv;

	prog = getprogname();
	if ((sockpath = getenv("CTAB_SOCKET")) == NULL || *sockpath == '\0')
		sockpath = PATH_CTAB_SOCKET;
	/*
	 * Called as at, atq, atrm or batch, or as ctab -A followed by
	 * at's arguments: at(1) (at.c).
	 */
	if (strcmp(prog, "at") == 0)
		return (at_main(argc, argv, AT_MODE_AT));
	if (strcmp(prog, "atq") == 0)
		return (at_main(argc, argv, AT_MODE_ATQ));
	if (strcmp(prog, "atrm") == 0)
		return (at_main(argc, argv, AT_MODE_ATRM));
	if (strcmp(prog, "batch") == 0)
		return (at_main(argc, argv, AT_MODE_BATCH));
	if (argc > 1 && strcmp(argv[1], "-A") == 0) {
		argv[1] = argv[0];
		return (at_main(argc - 1, argv + 1, AT_MODE_AT));
	}
	/* crontab with no argument at all reads the standard input. */
	if (argc == 1) {
		op = OP_REPLACE;
		file = "-";
		goto run;
	}

	while ((ch = getopt(argc, argv, "cehilnrsTu:Vx:")) != -1) {
		switch (ch) {
		case 'e':
		case 'h':
		case 'l':
		case 'r':
		case 'T':
			if (op != OP_NONE)
				usage("only one operation permitted");
			op = ch == 'e' ? OP_EDIT : ch == 'h' ? OP_HELP :
			    ch == 'l' ? OP_LIST : ch == 'r' ? OP_DELETE :
			    OP_CHECK;
			break;
		case 'i':
			iflag = 1;
			break;
		case 'n':
			dry = 1;
			break;
		case 's':
			sflag = 1;
			break;
		case 'u':
			/*
			 * Root may name a user this machine no longer has,
			 * to list or remove the table left in the store
			 * (checked once the operation is known).
			 */
			if ((pw = getpwnam(optarg)) == NULL && getuid() != 0) {
				fprintf(stderr, "%s:  user `%s' unknown\n",
				    prog, optarg);
				return (1);
			}
			if (getuid() != 0 && getuid() != pw->pw_uid) {
				fputs("must be privileged to use -u\n", stderr);
				return (1);
			}
			user_gone = pw == NULL;
			user = optarg;
			break;
		case 'V':
			puts(PACKAGE_STRING);
			return (0);
		case 'c':
			fprintf(stderr, "%s: -c: there is no one host that "
			    "runs the users' tables: every node runs them and "
			    "each fire goes to one node; see clustercron "
			    "status\n", prog);
			return (1);
		case 'x':
			fprintf(stderr, "%s: -x: there are no debugging flags; "
			    "the daemon's log shows what it does with tables "
			    "(clustercron -d)\n", prog);
			return (1);
		default:
			usage("unrecognized option");
		}
	}
	argc -= optind;
	argv += optind;

	if (op == OP_NONE) {
		if (argc == 0)
			usage("file name must be specified for replace");
		op = OP_REPLACE;
	}
	if (op == OP_REPLACE || op == OP_CHECK) {
		if (argc == 0)
			usage("file name or - must be specified for -T");
		if (argc > 1)
			usage("only one file may be given");
		file = argv[0];
	} else if (argc > 0)
		usage("no arguments permitted after this option");
	if (op == OP_HELP) {
		help();
		return (1);
	}
	if (user_gone && op != OP_LIST && op != OP_DELETE) {
		fprintf(stderr, "%s:  user `%s' unknown\n", prog, user);
		return (1);
	}
	if (sflag && op != OP_CHECK)
		usage("-s goes with -T");
	if (dry && op != OP_REPLACE)
		usage("-n checks a file; it goes with no other operation");
	if (op == OP_CHECK) {
		if (user != NULL)
			usage("cannot use -u with -T");
		if ((buf = read_table(file, &len)) == NULL)
			return (1);
		rv = lint_table(strcmp(file, "-") == 0 ?
		    "(standard input)" : file, buf, len,
		    sflag ? CRON_SYSTEM : 0, clock_now()) == 0 ? 0 : 1;
		free(buf);
		return (rv);
	}

run:
	if ((pw = getpwuid(getuid())) == NULL) {
		fprintf(stderr, "%s: your UID isn't in the passwd file.\n"
		    "bailing out.\n", prog);
		return (1);
	}
	strlcpy(self, pw->pw_name, sizeof(self));
	if (user == NULL)
		user = self;

	switch (op) {
	case OP_LIST:
		return (list(user));
	case OP_DELETE:
		return (remove_table(user, iflag));
	case OP_EDIT:
		return (edit(user));
	default:
		return (install(user, file, dry));
	}
}
