/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * metrics.c: what this node saw of its jobs and claims, as a file in
 * Prometheus' text exposition format for node_exporter's textfile
 * collector (metrics-file).  Under fire.c in the daemon's chain
 * (daemon.h): it asks jobtab.c for a job's name, nothing else.  Per
 * job, labelled with the first twelve hex digits of its identity, its
 * name (CLUSTERCRON_NAME, else empty:
 * the file is readable by all, and a command may hold secrets) and its owner:
 * the end of its last successful run, the duration and exit status of
 * its last run, and the fires it missed and skipped, as this node
 * started or noted them.  Per node: the claims this node won and lost,
 * and the runs marked lost, labelled with the node they ran on.
 * Counters start from zero with the daemon, as Prometheus expects of
 * counters.
 *
 * The file is replaced whole (a temporary file in the same directory,
 * then rename(2)), so the collector never reads half of it.  It is
 * written after a change, at most about once a second, from a
 * monotonic timer armed only by a change: an idle daemon does not wake
 * up for it.
 */

#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

#define METRICS_EVERY	1000	/* ms between writes, at least */
#define NAME_MAX_LABEL	64	/* bytes of a command as a name */
#define ID_LABEL	12	/* hex digits of the identity */

struct mjob {
	RB_ENTRY(mjob)	 m_entry;
	char		 m_id[CRON_IDLEN + 1];
	char		*m_owner;
	char		*m_name;
	int		 m_ran;		/* the three below are known */
	int64_t		 m_success;	/* ms, 0: none yet */
	int64_t		 m_duration;	/* ms */
	int		 m_exit;
	uint64_t	 m_missed;
	uint64_t	 m_skipped;
};

int	 mjob_cmp(struct mjob *, struct mjob *);
RB_HEAD(mjobs, mjob);
RB_PROTOTYPE(mjobs, mjob, m_entry, mjob_cmp);
RB_GENERATE(mjobs, mjob, m_entry, mjob_cmp);

/* Runs marked lost, by the node they ran on. */
struct mlost {
	char		*l_node;
	uint64_t	 l_n;
};

static struct mjobs	 mjobs = RB_INITIALIZER(&mjobs);
static struct mlost	*mlost;
static size_t		 nmlost;
static uint64_t		 won, lost;
static int		 dirty;
static int64_t		 written;	/* monotonic ms */

static void	 metrics_timer(struct mtimer *, struct tick *);
static struct mjob *mjob_get(const char *, const char *);
static void	 touch(void);
static int	 write_all(FILE *);
static void	 put_label(FILE *, const char *, const char *, int);
static void	 put_job_labels(FILE *, const struct mjob *);

static struct mtimer	 metrics_t = MTIMER_INIT(metrics_timer, NULL);

int
mjob_cmp(struct mjob *a, struct mjob *b)
{
	return (strcmp(a->m_id, b->m_id));
}

/* Write the file once at start, so that it exists with zero counts. */
void
metrics_init(void)
{
	if (D.d_conf.c_metrics_file == NULL)
		return;
	touch();
}

/*
 * The job's record, made on first use; owner is the caller's idea of
 * it when the job is not (or no longer) in this node's tables.
 */
static struct mjob *
mjob_get(const char *id, const char *owner)
{
	struct mjob	 key, *m;
	struct job	*j;
	const char	*name;

	strlcpy(key.m_id, id, sizeof(key.m_id));
	if ((m = RB_FIND(mjobs, &mjobs, &key)) != NULL)
		return (m);
	m = xcalloc(1, sizeof(*m));
	strlcpy(m->m_id, id, sizeof(m->m_id));
	if ((j = job_find(id, NULL)) != NULL) {
		owner = job_owner(j);
		/* Never the command: the file is for every user to read. */
		if ((name = job_opts(j)->o_name) == NULL)
			name = "";
	} else
		name = "";
	m->m_owner = xstrdup(owner != NULL ? owner : "");
	m->m_name = xstrdup(name);
	if (strlen(m->m_name) > NAME_MAX_LABEL)
		m->m_name[NAME_MAX_LABEL] = '\0';
	RB_INSERT(mjobs, &mjobs, m);
	return (m);
}

/*
 * Something changed: write within about a second of the last write (at
 * once when that is longer ago, as a timer already due runs at once).
 */
static void
touch(void)
{
	dirty = 1;
	if (mtimer_queued(&metrics_t) || D.d_stopping)
		return;
	mtimer_set(&metrics_t, written + METRICS_EVERY);
}

void
metrics_claims(size_t w, size_t l)
{
	if (D.d_conf.c_metrics_file == NULL || (w == 0 && l == 0))
		return;
	won += w;
	lost += l;
	touch();
}

void
metrics_fire_noted(const char *id, const char *owner, int state)
{
	struct mjob	*m;

	if (D.d_conf.c_metrics_file == NULL)
		return;
	m = mjob_get(id, owner);
	if (state == RUN_MISSED)
		m->m_missed++;
	else if (state == RUN_SKIPPED)
		m->m_skipped++;
	touch();
}

void
metrics_run_end(const char *id, const char *owner, int64_t start,
    int64_t end, int wstatus)
{
	struct mjob	*m;

	if (D.d_conf.c_metrics_file == NULL)
		return;
	m = mjob_get(id, owner);
	m->m_ran = 1;
	m->m_duration = end > start ? end - start : 0;
	if (WIFEXITED(wstatus))
		m->m_exit = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		m->m_exit = 128 + WTERMSIG(wstatus);
	else
		m->m_exit = -1;
	if (m->m_exit == 0)
		m->m_success = end;
	touch();
}

void
metrics_runs_lost(const char *node, size_t n)
{
	size_t	 i;

	if (D.d_conf.c_metrics_file == NULL || n == 0)
		return;
	for (i = 0; i < nmlost; i++)
		if (strcmp(mlost[i].l_node, node) == 0)
			break;
	if (i == nmlost) {
		mlost = xreallocarray(mlost, nmlost + 1, sizeof(*mlost));
		mlost[i].l_node = xstrdup(node);
		mlost[i].l_n = 0;
		nmlost++;
	}
	mlost[i].l_n += n;
	touch();
}

static void
metrics_timer(struct mtimer *t, struct tick *tk)
{
	metrics_flush(tk);
}

/*
 * A label: name="value", with backslash, double quote and newline
 * escaped as the exposition format wants.
 */
static void
put_label(FILE *fp, const char *name, const char *value, int first)
{
	const char	*p;

	fprintf(fp, "%s%s=\"", first ? "" : ",", name);
	for (p = value; *p != '\0'; p++) {
		if (*p == '\\')
			fputs("\\\\", fp);
		else if (*p == '"')
			fputs("\\\"", fp);
		else if (*p == '\n')
			fputs("\\n", fp);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

static void
put_job_labels(FILE *fp, const struct mjob *m)
{
	char	 id[ID_LABEL + 1];

	strlcpy(id, m->m_id, sizeof(id));
	fputc('{', fp);
	put_label(fp, "job", id, 1);
	put_label(fp, "name", m->m_name, 0);
	put_label(fp, "owner", m->m_owner, 0);
	fputc('}', fp);
}

#define HELP(fp, name, type, help)					\
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type)

static int
write_all(FILE *fp)
{
	struct mjob	*m;
	size_t		 i;

	HELP(fp, "clustercron_job_last_success_timestamp_seconds", "gauge",
	    "End of the job's last successful run on this node.");
	RB_FOREACH(m, mjobs, &mjobs) {
		if (m->m_success == 0)
			continue;
		fputs("clustercron_job_last_success_timestamp_seconds", fp);
		put_job_labels(fp, m);
		fprintf(fp, " %" PRId64 ".%03" PRId64 "\n",
		    m->m_success / 1000, m->m_success % 1000);
	}
	HELP(fp, "clustercron_job_last_duration_seconds", "gauge",
	    "Duration of the job's last run on this node.");
	RB_FOREACH(m, mjobs, &mjobs) {
		if (!m->m_ran)
			continue;
		fputs("clustercron_job_last_duration_seconds", fp);
		put_job_labels(fp, m);
		fprintf(fp, " %" PRId64 ".%03" PRId64 "\n",
		    m->m_duration / 1000, m->m_duration % 1000);
	}
	HELP(fp, "clustercron_job_last_exit_status", "gauge",
	    "Exit status of the job's last run on this node "
	    "(128 + signal when killed).");
	RB_FOREACH(m, mjobs, &mjobs) {
		if (!m->m_ran)
			continue;
		fputs("clustercron_job_last_exit_status", fp);
		put_job_labels(fp, m);
		fprintf(fp, " %d\n", m->m_exit);
	}
	HELP(fp, "clustercron_job_missed_fires_total", "counter",
	    "Fires of the job this node noted as missed.");
	RB_FOREACH(m, mjobs, &mjobs) {
		fputs("clustercron_job_missed_fires_total", fp);
		put_job_labels(fp, m);
		fprintf(fp, " %" PRIu64 "\n", m->m_missed);
	}
	HELP(fp, "clustercron_job_skipped_fires_total", "counter",
	    "Fires of the job this node noted as skipped (overlap).");
	RB_FOREACH(m, mjobs, &mjobs) {
		fputs("clustercron_job_skipped_fires_total", fp);
		put_job_labels(fp, m);
		fprintf(fp, " %" PRIu64 "\n", m->m_skipped);
	}
	HELP(fp, "clustercron_node_claims_won_total", "counter",
	    "Claims of cluster fires this node won.");
	fputs("clustercron_node_claims_won_total{", fp);
	put_label(fp, "node", D.d_conf.c_node, 1);
	fprintf(fp, "} %" PRIu64 "\n", won);
	HELP(fp, "clustercron_node_claims_lost_total", "counter",
	    "Claims of cluster fires another node won.");
	fputs("clustercron_node_claims_lost_total{", fp);
	put_label(fp, "node", D.d_conf.c_node, 1);
	fprintf(fp, "} %" PRIu64 "\n", lost);
	HELP(fp, "clustercron_node_runs_lost_total", "counter",
	    "Runs this node marked lost, by the node they ran on.");
	for (i = 0; i < nmlost; i++) {
		fputs("clustercron_node_runs_lost_total{", fp);
		put_label(fp, "node", mlost[i].l_node, 1);
		fprintf(fp, "} %" PRIu64 "\n", mlost[i].l_n);
	}
	return (ferror(fp) ? -1 : 0);
}

/*
 * Write the file now if anything changed since it was last written (tk
 * NULL: at exit, the time of the write no longer matters).
 */
void
metrics_flush(const struct tick *tk)
{
	const char	*path = D.d_conf.c_metrics_file;
	char		*tmp, *slash;
	FILE		*fp;
	int		 fd, r;

	if (path == NULL || !dirty)
		return;
	mtimer_del(&metrics_t);
	dirty = 0;
	if (tk != NULL)
		written = tk->tk_mono;
	/* In the same directory, with a name the collector ignores. */
	if ((slash = strrchr(path, '/')) != NULL)
		xasprintf(&tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path,
		    slash + 1);
	else
		xasprintf(&tmp, ".%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		log_warn("(CRON) METRICS (%s)", tmp);
		free(tmp);
		return;
	}
	(void)fchmod(fd, 0644);
	if ((fp = fdopen(fd, "w")) == NULL) {
		log_warn("(CRON) METRICS (%s)", tmp);
		close(fd);
		unlink(tmp);
		free(tmp);
		return;
	}
	r = write_all(fp);
	if (fclose(fp) == EOF)
		r = -1;
	if (r == -1) {
		log_warn("(CRON) METRICS (%s)", tmp);
		unlink(tmp);
		free(tmp);
		return;
	}
	if (rename(tmp, path) == -1) {
		log_warn("(CRON) METRICS (%s)", path);
		unlink(tmp);
	}
	free(tmp);
}

void
metrics_free(void)
{
	struct mjob	*m, *next;
	size_t		 i;

	metrics_flush(NULL);
	mtimer_del(&metrics_t);
	RB_FOREACH_SAFE(m, mjobs, &mjobs, next) {
		RB_REMOVE(mjobs, &mjobs, m);
		free(m->m_owner);
		free(m->m_name);
		free(m);
	}
	for (i = 0; i < nmlost; i++)
		free(mlost[i].l_node);
	free(mlost);
	mlost = NULL;
	nmlost = 0;
}
