/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * crontab.c: whole crontab files, user and system format.  A table is
 * read line by line; each line is blank, a comment ('#' as its first
 * non-blank), an environment line or an entry.  Every bad line is
 * reported with its line and column and gives no entry; the rest of
 * the table is still read, so that a check lists every mistake.
 *
 * Memory: the daemon holds up to 100,000 entries, so everything an
 * entry points to (command, input, schedule text, user, zone, name and
 * environment) lives in one arena per table, a list of large blocks
 * freed together, and what consecutive entries share is stored once:
 * an environment snapshot is made only after an environment line, the
 * zone string is reused while it does not change, and the user of a
 * system table is looked up among the last four users.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"

/* Lines longer than this are rejected rather than read. */
#define LINE_MAX_BYTES	65536

/* Durations in CLUSTERCRON_ variables are at most a week. */
#define DURATION_MAX	(7 * 86400)

/* Default catch-up window of CLUSTERCRON_MISFIRE=catchup. */
#define GRACE_DEFAULT	3600

#define NAME_MAXLEN	64
#define USER_MAXLEN	64
#define TZ_MAXLEN	255

/* The longest piece of input quoted in a message. */
#define QUOTE_MAX	40

#define ARENA_BLOCK	(64 * 1024)

/*
 * Bounds on the environment, so that a hostile table cannot make the
 * snapshots grow with the square of its size: distinct variables per
 * table, and pointers in all snapshots together (2 MB here, and as
 * much in the daemon that keeps the table).  Real tables stay far
 * below both: a thousand entries with 200 variables each in force,
 * each after a change of one of them, is under the second.
 */
#define ENV_MAXVARS	1000
#define SNAP_MAXPTRS	(256 * 1024)

struct arena_block {
	struct arena_block *b_next;
	size_t		 b_size;
	size_t		 b_used;
	max_align_t	 b_data[];
};

struct cron_arena {
	struct arena_block *a_head;
};

/* Names given by CLUSTERCRON_NAME so far: an open-addressing set. */
struct nameset {
	const char	**n_name;
	size_t		*n_line;
	size_t		 n_cap;		/* a power of two, or 0 */
	size_t		 n_count;
};

/* An environment line split into its parts (offsets into the line). */
struct envline {
	size_t		 v_name;
	size_t		 v_namelen;
	size_t		 v_value;
	size_t		 v_valuelen;
	size_t		 v_col;		/* 1-based column of the value */
};

struct pstate {
	const char	*p_file;
	int		 p_flags;	/* CRON_SECONDS may change */
	struct crontab	*p_ct;
	size_t		 p_entcap;
	size_t		 p_diagcap;
	struct cron_arena *p_arena;

	const char	**p_env;	/* NAME=value in force, malloc'd */
	size_t		 p_nenv;
	size_t		 p_envcap;
	const char *const *p_snap;	/* snapshot of p_env, or NULL */

	const char	*p_tz;		/* CRON_TZ in force, or NULL */
	const char	*p_users[4];	/* recent user fields, for sharing */
	unsigned int	 p_nextuser;
	struct cron_opts p_opts;	/* CLUSTERCRON_ options in force */
	const char	*p_name;	/* CLUSTERCRON_NAME pending */
	size_t		 p_nameline;
	struct nameset	 p_names;
	size_t		 p_snapptrs;	/* pointers in all snapshots */
	int		 p_crwarned;
	int		 p_lostwarned;	/* LOST=rerun on a node entry */
	crontab_entry_fn p_each;	/* entries handed over, or NULL */
	void		*p_arg;
	struct cron_entry p_one;	/* the entry handed over */
};

static void	*arena_alloc(struct cron_arena *, size_t, size_t);
static char	*arena_strndup(struct cron_arena *, const char *, size_t);
static void	 arena_free(struct cron_arena *);
static int	 add_diag(struct pstate *, size_t, size_t, int, const char *,
		    ...) __attribute__((__format__ (printf, 5, 6)));
static int	 add_exprdiag(struct pstate *, size_t, size_t,
		    const struct cron_diag *);
static void	 sort_diags(struct crontab *);
static int	 is_blank(int);
static int	 env_scan(const char *, size_t, size_t, struct envline *);
static int	 bad_envline(struct pstate *, const char *, size_t, size_t,
		    const struct envline *);
static size_t	 env_find(const struct pstate *, const char *, size_t);
static int	 env_set(struct pstate *, const char *, size_t, const char *,
		    size_t);
static int	 do_env(struct pstate *, const char *, size_t,
		    const struct envline *);
static int	 do_clustercron(struct pstate *, const char *, size_t,
		    const struct envline *, int *);
static int	 parse_duration(const char *, size_t, uint32_t *);
static int	 do_entry(struct pstate *, const char *, size_t, size_t,
		    size_t);
static int	 split_command(struct pstate *, const char *, size_t,
		    struct cron_entry *);
static int	 lint_domdow(struct pstate *, const struct cron_entry *,
		    size_t, size_t);
static int	 plausible_user(const char *, size_t);
static int	 plausible_zone(const char *, size_t);
static uint32_t	 name_hash(const char *);
static int	 names_find(const struct nameset *, const char *, size_t *);
static int	 names_add(struct nameset *, const char *, size_t);
static void	 names_free(struct nameset *);

/* An empty environment for tables without environment lines. */
static const char *const env_empty[] = { NULL };

/*
 * Memory from the arena, aligned to align (a power of two, at most
 * that of max_align_t): strings ask for 1, arrays of pointers for
 * their own alignment, so that short strings waste nothing.
 */
static void *
arena_alloc(struct cron_arena *a, size_t size, size_t align)
{
	struct arena_block	*b;
	size_t			 bsize, off;

	if (size > SIZE_MAX / 2)
		return (NULL);
	b = a->a_head;
	if (b != NULL) {
		off = (b->b_used + align - 1) & ~(align - 1);
		if (off <= b->b_size && b->b_size - off >= size) {
			b->b_used = off + size;
			return ((char *)b->b_data + off);
		}
	}
	bsize = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;
	if ((b = malloc(sizeof(*b) + bsize)) == NULL)
		return (NULL);
	b->b_size = bsize;
	b->b_used = size;
	/*
	 * A block made for one large request goes behind the current
	 * one, so that the current block's free space stays in use.
	 */
	if (bsize != ARENA_BLOCK && a->a_head != NULL) {
		b->b_next = a->a_head->b_next;
		a->a_head->b_next = b;
	} else {
		b->b_next = a->a_head;
		a->a_head = b;
	}
	return (b->b_data);
}

static char *
arena_strndup(struct cron_arena *a, const char *s, size_t n)
{
	char	*p;

	if (n == SIZE_MAX || (p = arena_alloc(a, n + 1, 1)) == NULL)
		return (NULL);
	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

static void
arena_free(struct cron_arena *a)
{
	struct arena_block	*b, *next;

	if (a == NULL)
		return;
	for (b = a->a_head; b != NULL; b = next) {
		next = b->b_next;
		free(b);
	}
	free(a);
}

static int
add_diag(struct pstate *st, size_t line, size_t col, int warning,
    const char *fmt, ...)
{
	struct crontab		*ct = st->p_ct;
	struct cron_diag	*d;
	va_list			 ap;
	size_t			 ncap;

	if (ct->ct_ndiag == st->p_diagcap) {
		ncap = st->p_diagcap == 0 ? 8 : st->p_diagcap * 2;
		d = reallocarray(ct->ct_diag, ncap, sizeof(*d));
		if (d == NULL)
			return (-1);
		ct->ct_diag = d;
		st->p_diagcap = ncap;
	}
	d = &ct->ct_diag[ct->ct_ndiag++];
	d->d_file = st->p_file;
	d->d_line = line;
	d->d_col = col;
	d->d_warning = warning;
	va_start(ap, fmt);
	(void)vsnprintf(d->d_msg, sizeof(d->d_msg), fmt, ap);
	va_end(ap);
	if (!warning)
		ct->ct_nerr++;
	return (0);
}

static int
add_exprdiag(struct pstate *st, size_t line, size_t coloff,
    const struct cron_diag *ed)
{
	return (add_diag(st, line, ed->d_col + coloff, ed->d_warning, "%s",
	    ed->d_msg));
}

/*
 * Diagnostics go in line order.  They are made in that order but for
 * the warning about an unused CLUSTERCRON_NAME, known only at a later
 * line; a stable insertion sort moves each such warning back past the
 * diagnostics made since its line, so the work stays linear.
 */
static void
sort_diags(struct crontab *ct)
{
	struct cron_diag	 d;
	size_t			 i, j;

	for (i = 1; i < ct->ct_ndiag; i++) {
		if (ct->ct_diag[i - 1].d_line <= ct->ct_diag[i].d_line)
			continue;
		d = ct->ct_diag[i];
		for (j = i; j > 0 && ct->ct_diag[j - 1].d_line > d.d_line; j--)
			ct->ct_diag[j] = ct->ct_diag[j - 1];
		ct->ct_diag[j] = d;
	}
}

static int
is_blank(int c)
{
	return (c == ' ' || c == '\t');
}

/*
 * Environment lines, as cronie's load_env() reads them: NAME = VALUE
 * with optional blanks around '=', the name and the value each
 * optionally in matching single or double quotes (removed; no escapes
 * inside), an unquoted value with its trailing blanks removed, nothing
 * but blanks after a closing quote.  A line that does not have this
 * shape is an entry.  Two deliberate differences: an empty name (a
 * line beginning with '=') is not an environment line here, and an
 * empty unquoted value ("MAILTO=") is one, meaning the empty string
 * (cronie reads that line as a bad entry; MAILTO="" works in both).
 * Returns 1 with *ev filled when the line is an environment line, 0
 * when it is not, and -1 when it has the shape NAME= but its value is
 * bad (an unclosed quote, or text after the closing quote): such a
 * line cannot be an entry either, and a message about the quote helps
 * more than one about the minute field.  Then ev->v_col is the column
 * at fault and ev->v_value is 0 for an unclosed quote, 1 for text
 * after it.
 */
static int
env_scan(const char *l, size_t len, size_t p, struct envline *ev)
{
	char	 q;
	size_t	 ns, ne, vs, ve;

	if (l[p] == '"' || l[p] == '\'') {
		q = l[p++];
		ns = p;
		while (p < len && l[p] != q) {
			if (l[p] == '=')
				return (0);
			p++;
		}
		if (p >= len)
			return (0);
		ne = p++;
	} else {
		ns = p;
		while (p < len && !isspace((unsigned char)l[p]) && l[p] != '=')
			p++;
		ne = p;
	}
	if (ne == ns)
		return (0);
	while (p < len && isspace((unsigned char)l[p]))
		p++;
	if (p >= len || l[p] != '=')
		return (0);
	p++;
	while (p < len && isspace((unsigned char)l[p]))
		p++;
	ev->v_name = ns;
	ev->v_namelen = ne - ns;
	ev->v_col = p + 1;
	if (p < len && (l[p] == '"' || l[p] == '\'')) {
		q = l[p++];
		vs = p;
		while (p < len && l[p] != q)
			p++;
		if (p >= len) {
			ev->v_value = 0;
			return (-1);
		}
		ve = p++;
		while (p < len && isspace((unsigned char)l[p]))
			p++;
		if (p < len) {
			ev->v_col = p + 1;
			ev->v_value = 1;
			return (-1);
		}
	} else {
		vs = p;
		ve = len;
		while (ve > vs && isspace((unsigned char)l[ve - 1]))
			ve--;
	}
	ev->v_value = vs;
	ev->v_valuelen = ve - vs;
	return (1);
}

/* The message for env_scan()'s -1. */
static int
bad_envline(struct pstate *st, const char *l, size_t len, size_t lineno,
    const struct envline *ev)
{
	size_t	 col = ev->v_col, n;
	int	 qn;

	qn = (int)(ev->v_namelen > QUOTE_MAX ? QUOTE_MAX : ev->v_namelen);
	if (ev->v_value == 0)
		return (add_diag(st, lineno, col, 0, "found an unclosed %c in "
		    "the value of %.*s, expected a closing %c", l[col - 1], qn,
		    l + ev->v_name, l[col - 1]));
	n = len - (col - 1);
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" after the "
	    "closing quote of %.*s, expected end of line",
	    (int)(n > QUOTE_MAX ? QUOTE_MAX : n), l + col - 1, qn,
	    l + ev->v_name));
}

/* The index of NAME in the environment in force, or p_nenv. */
static size_t
env_find(const struct pstate *st, const char *name, size_t nlen)
{
	size_t	 i;

	for (i = 0; i < st->p_nenv; i++) {
		if (strncmp(st->p_env[i], name, nlen) == 0 &&
		    st->p_env[i][nlen] == '=')
			return (i);
	}
	return (st->p_nenv);
}

/* Set NAME=value in the environment in force; a later value replaces. */
static int
env_set(struct pstate *st, const char *name, size_t nlen, const char *val,
    size_t vlen)
{
	const char	**nenv;
	char		 *s;
	size_t		  i, ncap;

	if (nlen > SIZE_MAX / 2 || vlen > SIZE_MAX / 2 ||
	    (s = arena_alloc(st->p_arena, nlen + vlen + 2, 1)) == NULL)
		return (-1);
	memcpy(s, name, nlen);
	s[nlen] = '=';
	memcpy(s + nlen + 1, val, vlen);
	s[nlen + 1 + vlen] = '\0';
	st->p_snap = NULL;
	if ((i = env_find(st, name, nlen)) < st->p_nenv) {
		st->p_env[i] = s;
		return (0);
	}
	if (st->p_nenv == st->p_envcap) {
		ncap = st->p_envcap == 0 ? 16 : st->p_envcap * 2;
		nenv = reallocarray(st->p_env, ncap, sizeof(*nenv));
		if (nenv == NULL)
			return (-1);
		st->p_env = nenv;
		st->p_envcap = ncap;
	}
	st->p_env[st->p_nenv++] = s;
	return (0);
}

/*
 * A zone name as CRON_TZ may give it: letters, digits and "/_-+." in
 * components, not absolute, no "..".  Whether the zone exists is for
 * the tools to check.
 */
static int
plausible_zone(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || n > TZ_MAXLEN || s[0] == '/')
		return (0);
	for (i = 0; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) &&
		    strchr("/_-+.", s[i]) == NULL)
			return (0);
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.')
			return (0);
		if (s[i] == '/' && i + 1 < n && s[i + 1] == '/')
			return (0);
	}
	return (s[n - 1] != '/');
}

/*
 * A user name as a system table may give it: letters, digits, '.',
 * '_', '-' and '@', not beginning with '-' or '.', optionally ending
 * in '$' (machine accounts).  Whether the user exists is for the tools
 * and the daemon to check.
 */
static int
plausible_user(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || n > USER_MAXLEN || s[0] == '-' || s[0] == '.')
		return (0);
	for (i = 0; i < n; i++) {
		if (isalnum((unsigned char)s[i]) ||
		    strchr("._-@", s[i]) != NULL)
			continue;
		if (s[i] == '$' && i == n - 1 && i > 0)
			continue;
		return (0);
	}
	return (1);
}

/*
 * DURATION: a number with an optional unit s, m, h or d (a plain
 * number is seconds), at most DURATION_MAX seconds.
 */
static int
parse_duration(const char *s, size_t n, uint32_t *out)
{
	uint64_t	 v = 0, mul = 1;
	size_t		 i;

	for (i = 0; i < n && isdigit((unsigned char)s[i]); i++) {
		if (i >= 9)
			return (-1);
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return (-1);
	if (i < n) {
		switch (s[i]) {
		case 's':
			mul = 1;
			break;
		case 'm':
			mul = 60;
			break;
		case 'h':
			mul = 3600;
			break;
		case 'd':
			mul = 86400;
			break;
		default:
			return (-1);
		}
		if (++i != n)
			return (-1);
	}
	v *= mul;
	if (v > DURATION_MAX)
		return (-1);
	*out = (uint32_t)v;
	return (0);
}

#define DURATION_HELP	"a duration such as 90, 30s, 15m, 2h or 1d, " \
	"at most 7d"

static uint32_t
name_hash(const char *s)
{
	uint32_t	 h = 2166136261U;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 16777619U;
	}
	return (h);
}

/* Returns 1 with *linep when the name was given before. */
static int
names_find(const struct nameset *ns, const char *name, size_t *linep)
{
	size_t	 i;

	if (ns->n_cap == 0)
		return (0);
	i = name_hash(name) & (ns->n_cap - 1);
	while (ns->n_name[i] != NULL) {
		if (strcmp(ns->n_name[i], name) == 0) {
			*linep = ns->n_line[i];
			return (1);
		}
		i = (i + 1) & (ns->n_cap - 1);
	}
	return (0);
}

static int
names_add(struct nameset *ns, const char *name, size_t line)
{
	struct nameset	 big;
	size_t		 i, j;

	if ((ns->n_count + 1) * 2 > ns->n_cap) {
		big.n_cap = ns->n_cap == 0 ? 16 : ns->n_cap * 2;
		big.n_count = 0;
		big.n_name = calloc(big.n_cap, sizeof(*big.n_name));
		big.n_line = calloc(big.n_cap, sizeof(*big.n_line));
		if (big.n_name == NULL || big.n_line == NULL) {
			free(big.n_name);
			free(big.n_line);
			return (-1);
		}
		for (i = 0; i < ns->n_cap; i++) {
			if (ns->n_name[i] == NULL)
				continue;
			j = name_hash(ns->n_name[i]) & (big.n_cap - 1);
			while (big.n_name[j] != NULL)
				j = (j + 1) & (big.n_cap - 1);
			big.n_name[j] = ns->n_name[i];
			big.n_line[j] = ns->n_line[i];
		}
		big.n_count = ns->n_count;
		names_free(ns);
		*ns = big;
	}
	i = name_hash(name) & (ns->n_cap - 1);
	while (ns->n_name[i] != NULL)
		i = (i + 1) & (ns->n_cap - 1);
	ns->n_name[i] = name;
	ns->n_line[i] = line;
	ns->n_count++;
	return (0);
}

static void
names_free(struct nameset *ns)
{
	free(ns->n_name);
	free(ns->n_line);
	ns->n_name = NULL;
	ns->n_line = NULL;
	ns->n_cap = ns->n_count = 0;
}

/*
 * clustercron's own variables.  They keep the table a valid crontab
 * for plain cron (which passes them to jobs as environment) and apply
 * to the entries below them, except CLUSTERCRON_NAME, which names only
 * the next entry.  *okp is cleared when the value is bad (the error is
 * reported here); -1 means out of memory.
 */
static int
do_clustercron(struct pstate *st, const char *l, size_t lineno,
    const struct envline *ev, int *okp)
{
	struct cron_opts	*o = &st->p_opts;
	const char		*item, *comma;
	const char		*var = l + ev->v_name + 12, *v = l + ev->v_value;
	size_t			 varlen = ev->v_namelen - 12;
	size_t			 vlen = ev->v_valuelen, col = ev->v_col;
	uint32_t		 d, retry[CRON_MAXRETRY];
	size_t			 n, i, line;
	int			 qn;
	char			 name[NAME_MAXLEN + 1];

	*okp = 1;
	qn = (int)(vlen > QUOTE_MAX ? QUOTE_MAX : vlen);
#define IS(s)	(varlen == sizeof(s) - 1 && memcmp(var, s, varlen) == 0)
#define VIS(s)	(vlen == sizeof(s) - 1 && memcmp(v, s, vlen) == 0)
	if (IS("SCOPE")) {
		if (VIS("cluster"))
			o->o_scope = SCOPE_CLUSTER;
		else if (VIS("node"))
			o->o_scope = SCOPE_NODE;
		else
			goto bad_scope;
	} else if (IS("OVERLAP")) {
		if (VIS("allow"))
			o->o_overlap = OVERLAP_ALLOW;
		else if (VIS("forbid"))
			o->o_overlap = OVERLAP_FORBID;
		else
			goto bad_overlap;
	} else if (IS("MISFIRE")) {
		if (VIS("skip")) {
			o->o_misfire = MISFIRE_SKIP;
			o->o_grace = 0;
		} else if (VIS("catchup")) {
			o->o_misfire = MISFIRE_CATCHUP;
			o->o_grace = GRACE_DEFAULT;
		} else if (vlen > 8 && memcmp(v, "catchup:", 8) == 0) {
			if (parse_duration(v + 8, vlen - 8, &d) == -1 ||
			    d == 0)
				goto bad_misfire;
			o->o_misfire = MISFIRE_CATCHUP;
			o->o_grace = d;
		} else
			goto bad_misfire;
	} else if (IS("LOST")) {
		if (VIS("mark"))
			o->o_lost = LOST_MARK;
		else if (VIS("rerun"))
			o->o_lost = LOST_RERUN;
		else
			goto bad_lost;
	} else if (IS("TIMEOUT")) {
		if (parse_duration(v, vlen, &d) == -1)
			goto bad_duration;
		o->o_timeout = d;
	} else if (IS("SPREAD")) {
		if (parse_duration(v, vlen, &d) == -1)
			goto bad_duration;
		o->o_spread = d;
	} else if (IS("RETRY")) {
		n = 0;
		if (!(vlen == 0 || VIS("0"))) {
			item = v;
			for (;;) {
				comma = memchr(item, ',', vlen - (size_t)(item -
				    v));
				i = comma != NULL ? (size_t)(comma - item) :
				    vlen - (size_t)(item - v);
				if (n == CRON_MAXRETRY)
					goto bad_retry_count;
				if (parse_duration(item, i, &retry[n]) == -1 ||
				    retry[n] == 0)
					goto bad_retry;
				n++;
				if (comma == NULL)
					break;
				item = comma + 1;
			}
		}
		memcpy(o->o_retry, retry, n * sizeof(retry[0]));
		memset(o->o_retry + n, 0, (CRON_MAXRETRY - n) *
		    sizeof(retry[0]));
		o->o_nretry = (uint8_t)n;
	} else if (IS("NAME")) {
		if (vlen == 0 || vlen > NAME_MAXLEN)
			goto bad_name;
		for (i = 0; i < vlen; i++) {
			if (!isalnum((unsigned char)v[i]) &&
			    strchr("._-", v[i]) == NULL)
				goto bad_name;
		}
		memcpy(name, v, vlen);
		name[vlen] = '\0';
		if (names_find(&st->p_names, name, &line)) {
			*okp = 0;
			return (add_diag(st, lineno, col, 0, "found "
			    "CLUSTERCRON_NAME=%s again, expected a name not "
			    "used before in this table (line %zu has it)",
			    name, line));
		}
		if (st->p_name != NULL && add_diag(st, st->p_nameline, 0, 1,
		    "CLUSTERCRON_NAME=%s names no entry: line %zu gives "
		    "another name before the next entry", st->p_name,
		    lineno) == -1)
			return (-1);
		if ((st->p_name = arena_strndup(st->p_arena, v, vlen)) ==
		    NULL)
			return (-1);
		st->p_nameline = lineno;
	} else if (IS("SECONDS")) {
		if (VIS("yes"))
			st->p_flags |= CRON_SECONDS;
		else if (VIS("no"))
			st->p_flags &= ~CRON_SECONDS;
		else {
			*okp = 0;
			return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
			    "CLUSTERCRON_SECONDS, expected yes or no", qn, v));
		}
	} else {
		*okp = 0;
		return (add_diag(st, lineno, ev->v_name + 1, 0, "found unknown "
		    "clustercron variable CLUSTERCRON_%.*s, expected "
		    "CLUSTERCRON_ and one of SCOPE, OVERLAP, MISFIRE, LOST, "
		    "TIMEOUT, RETRY, NAME, SPREAD, SECONDS",
		    (int)(varlen > QUOTE_MAX ? QUOTE_MAX : varlen), var));
	}
#undef IS
#undef VIS
	return (0);

	/* Errors point at the value. */
bad_scope:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_SCOPE, expected cluster or node", qn, v));
bad_overlap:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_OVERLAP, expected allow or forbid", qn, v));
bad_misfire:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_MISFIRE, expected skip, catchup or catchup:DURATION "
	    "(1s to 7d)", qn, v));
bad_lost:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_LOST, expected mark or rerun", qn, v));
bad_duration:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_%.*s, expected " DURATION_HELP, qn, v, (int)varlen,
	    var));
bad_retry:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_RETRY, expected 0 or delays such as 1m,5m,20m, each "
	    "from 1s to 7d", qn, v));
bad_retry_count:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found more than %d delays for "
	    "CLUSTERCRON_RETRY, expected at most %d", CRON_MAXRETRY,
	    CRON_MAXRETRY));
bad_name:
	*okp = 0;
	return (add_diag(st, lineno, col, 0, "found \"%.*s\" for "
	    "CLUSTERCRON_NAME, expected 1 to 64 letters, digits, '.', '_' or "
	    "'-'", qn, v));
}

/* An environment line: CRON_TZ and CLUSTERCRON_ are checked. */
static int
do_env(struct pstate *st, const char *l, size_t lineno,
    const struct envline *ev)
{
	const char	*name = l + ev->v_name, *v = l + ev->v_value;
	size_t		 nlen = ev->v_namelen, vlen = ev->v_valuelen;
	int		 ok;

	if (st->p_nenv >= ENV_MAXVARS &&
	    env_find(st, name, nlen) == st->p_nenv)
		return (add_diag(st, lineno, ev->v_name + 1, 0, "found "
		    "environment variable %zu, expected at most %d in a table",
		    st->p_nenv + 1, ENV_MAXVARS));
	if (nlen == 7 && memcmp(name, "CRON_TZ", 7) == 0) {
		if (vlen == 0)
			st->p_tz = NULL;
		else if (!plausible_zone(v, vlen))
			return (add_diag(st, lineno, ev->v_col, 0, "found "
			    "\"%.*s\" for CRON_TZ, expected a zone name such "
			    "as Europe/Paris", (int)(vlen > QUOTE_MAX ?
			    QUOTE_MAX : vlen), v));
		else if ((st->p_tz = arena_strndup(st->p_arena, v, vlen)) ==
		    NULL)
			return (-1);
	} else if (nlen >= 12 && memcmp(name, "CLUSTERCRON_", 12) == 0) {
		if (do_clustercron(st, l, lineno, ev, &ok) == -1)
			return (-1);
		if (!ok)
			return (0);
	}
	return (env_set(st, name, nlen, v, vlen));
}

/*
 * The command after the schedule (and user).  As cron does when it
 * runs a job, the first '%' not escaped by a backslash ends the
 * command and starts the standard input, in which further unescaped
 * '%' become newlines; "\%" stands for '%' in both (the backslash is
 * removed), other backslashes are kept.  In the command a backslash
 * takes the next character with it, so "\\%" keeps both backslashes
 * and the '%' still starts the input; in the input a backslash only
 * escapes a '%' directly after it.  Both are cron's behaviour.
 */
static int
split_command(struct pstate *st, const char *s, size_t n,
    struct cron_entry *e)
{
	char	*buf, *o;
	size_t	 i;

	if (n > SIZE_MAX - 2 || (buf = arena_alloc(st->p_arena, n + 2, 1)) ==
	    NULL)
		return (-1);
	o = buf;
	e->e_cmd = buf;
	e->e_input = NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			if (s[i + 1] != '%')
				*o++ = '\\';
			*o++ = s[++i];
		} else if (s[i] == '%')
			break;
		else
			*o++ = s[i];
	}
	*o++ = '\0';
	if (i == n)
		return (0);
	e->e_input = o;
	for (i++; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '%') {
			*o++ = '%';
			i++;
		} else if (s[i] == '%')
			*o++ = '\n';
		else
			*o++ = s[i];
	}
	*o = '\0';
	return (0);
}

/*
 * Lint: the day-of-month/day-of-week rule differs between schedulers.
 * Vixie cron and cronie require both fields to match when either
 * field's text begins with '*' (every second day of the month on
 * Mondays runs on odd days that are Mondays) and otherwise fire when
 * either matches.  Kubernetes and the robfig/cron-based schedulers
 * decide by a star that survives parsing: a '*' item without a step
 * above 1, which here means a field that contains '*' and covers every
 * day.  When the two rules pick differently and not both fields cover
 * every day, the same line fires on different days: say so, without
 * failing.
 */
static int
lint_domdow(struct pstate *st, const struct cron_entry *e, size_t lineno,
    size_t whencol)
{
	const struct cron_sched	*s = &e->e_sched;
	const char		*w, *f[6];
	size_t			 flen[6], col;
	int			 nf, dom, dow, domfull, dowfull, vixie, robfig;

	if ((s->s_flags & SCHED_REBOOT) || e->e_when[0] == '@')
		return (0);
	nf = 0;
	for (w = e->e_when; *w != '\0' && nf < 6;) {
		while (is_blank(*w))
			w++;
		f[nf] = w;
		while (*w != '\0' && !is_blank(*w))
			w++;
		flen[nf] = (size_t)(w - f[nf]);
		nf++;
	}
	dom = (s->s_flags & SCHED_SECONDS) ? 3 : 2;
	dow = dom + 2;
	if (nf <= dow)
		return (0);
	domfull = (s->s_dom & 0xfffffffeU) == 0xfffffffeU;
	dowfull = (s->s_dow & 0x7f) == 0x7f;
	if (domfull && dowfull)
		return (0);
	vixie = (s->s_flags & (SCHED_DOM_STAR | SCHED_DOW_STAR)) != 0;
	robfig = (domfull && memchr(f[dom], '*', flen[dom]) != NULL) ||
	    (dowfull && memchr(f[dow], '*', flen[dow]) != NULL);
	if (vixie == robfig)
		return (0);
	col = whencol + (size_t)(f[dom] - e->e_when);
	if (vixie)
		return (add_diag(st, lineno, col, 1, "day-of-month \"%.*s\" "
		    "and day-of-week \"%.*s\" must both match (Vixie cron: "
		    "one begins with '*'); Kubernetes and robfig/cron fire "
		    "when either matches",
		    (int)(flen[dom] > 16 ? 16 : flen[dom]), f[dom],
		    (int)(flen[dow] > 16 ? 16 : flen[dow]), f[dow]));
	return (add_diag(st, lineno, col, 1, "day-of-month \"%.*s\" or "
	    "day-of-week \"%.*s\" may match (Vixie cron: neither begins "
	    "with '*'); Kubernetes and robfig/cron require both",
	    (int)(flen[dom] > 16 ? 16 : flen[dom]), f[dom],
	    (int)(flen[dow] > 16 ? 16 : flen[dow]), f[dow]));
}

/* An entry: schedule, user in a system table, command. */
static int
do_entry(struct pstate *st, const char *l, size_t len, size_t pos,
    size_t lineno)
{
	struct crontab		*ct = st->p_ct;
	struct cron_entry	*e, *ne;
	struct cron_diag	 d;
	struct cron_sched	 sched;
	const char		*name, *u;
	const char		**snap;
	size_t			 start, wend, ustart, ulen, ncap, i;

	name = st->p_name;
	st->p_name = NULL;

	start = pos;
	if (expr_parse(l, len, &pos, st->p_flags & CRON_SECONDS,
	    "end of line", &sched, &d) == -1)
		return (add_exprdiag(st, lineno, 0, &d));
	wend = pos;
	while (pos < len && is_blank(l[pos]))
		pos++;
	ustart = pos;
	ulen = 0;
	if (st->p_flags & CRON_SYSTEM) {
		while (pos < len && !is_blank(l[pos]))
			pos++;
		ulen = pos - ustart;
		if (ulen == 0)
			return (add_diag(st, lineno, pos + 1, 0, "found end of "
			    "line, expected a user name (a system table has "
			    "a user field before the command)"));
		if (!plausible_user(l + ustart, ulen))
			return (add_diag(st, lineno, ustart + 1, 0, "found "
			    "\"%.*s%s\" as the user, expected a user name "
			    "(a system table has a user field before the "
			    "command)", (int)(ulen > QUOTE_MAX ? QUOTE_MAX :
			    ulen), l + ustart, ulen > QUOTE_MAX ? "..." : ""));
		while (pos < len && is_blank(l[pos]))
			pos++;
	}
	if (pos >= len)
		return (add_diag(st, lineno, pos + 1, 0, "found end of line, "
		    "expected a command after the %s",
		    (st->p_flags & CRON_SYSTEM) ? "user" : "schedule"));

	if (st->p_each != NULL)
		e = &st->p_one;
	else {
		if (ct->ct_nent == st->p_entcap) {
			ncap = st->p_entcap == 0 ? 16 : st->p_entcap * 2;
			ne = reallocarray(ct->ct_ent, ncap, sizeof(*ne));
			if (ne == NULL)
				return (-1);
			ct->ct_ent = ne;
			st->p_entcap = ncap;
		}
		e = &ct->ct_ent[ct->ct_nent];
	}
	memset(e, 0, sizeof(*e));
	e->e_sched = sched;
	e->e_opts = st->p_opts;
	e->e_line = lineno;
	e->e_tz = st->p_tz;
	if ((e->e_when = arena_strndup(st->p_arena, l + start,
	    wend - start)) == NULL)
		return (-1);
	if (ulen > 0) {
		for (i = 0; i < 4; i++) {
			u = st->p_users[i];
			if (u != NULL && strncmp(u, l + ustart, ulen) == 0 &&
			    u[ulen] == '\0') {
				e->e_user = u;
				break;
			}
		}
		if (i == 4) {
			if ((e->e_user = arena_strndup(st->p_arena, l + ustart,
			    ulen)) == NULL)
				return (-1);
			st->p_users[st->p_nextuser++ % 4] = e->e_user;
		}
	}
	if (split_command(st, l + pos, len - pos, e) == -1)
		return (-1);
	if (st->p_snap == NULL) {
		if (st->p_nenv == 0)
			st->p_snap = env_empty;
		else {
			if (st->p_nenv + 1 > SNAP_MAXPTRS - st->p_snapptrs)
				return (add_diag(st, lineno, start + 1, 0,
				    "found more environment lines between "
				    "entries than a table may have, expected "
				    "at most %d variables in all snapshots",
				    SNAP_MAXPTRS));
			st->p_snapptrs += st->p_nenv + 1;
			snap = arena_alloc(st->p_arena, (st->p_nenv + 1) *
			    sizeof(*snap), _Alignof(const char *));
			if (snap == NULL)
				return (-1);
			memcpy(snap, st->p_env, st->p_nenv * sizeof(*snap));
			snap[st->p_nenv] = NULL;
			st->p_snap = snap;
		}
	}
	e->e_env = st->p_snap;
	if (name != NULL) {
		/* do_clustercron() made sure the name is new. */
		if (names_add(&st->p_names, name, lineno) == -1)
			return (-1);
		e->e_opts.o_name = name;
	}
	ct->ct_nent++;
	/*
	 * Lint, once a table: a run of a node-local or @reboot entry is
	 * its node's own, never started again elsewhere.
	 */
	if (e->e_opts.o_lost == LOST_RERUN && !st->p_lostwarned &&
	    (e->e_opts.o_scope == SCOPE_NODE ||
	    e->e_sched.s_flags & SCHED_REBOOT)) {
		st->p_lostwarned = 1;
		if (add_diag(st, lineno, start + 1, 1, "found "
		    "CLUSTERCRON_LOST=rerun on a %s entry, expected it on "
		    "cluster entries only: this one's runs are never run "
		    "again", e->e_opts.o_scope == SCOPE_NODE ? "node-scope" :
		    "@reboot") == -1)
			return (-1);
	}
	/*
	 * Lint: a command beginning with '*' is most likely a six-field
	 * line in a five-field table; the shell would expand the '*'.
	 */
	if (l[pos] == '*' && (st->p_flags & CRON_SECONDS) == 0 &&
	    add_diag(st, lineno, pos + 1, 1, "found a command beginning "
	    "with '*', expected a command: a sixth schedule field? Seconds "
	    "are off here (CLUSTERCRON_SECONDS=yes turns them on)") == -1)
		return (-1);
	if (lint_domdow(st, e, lineno, start + 1) == -1)
		return (-1);
	if (st->p_each != NULL)
		st->p_each(st->p_arg, e);
	return (0);
}

int
crontab_parse(const char *file, const char *buf, size_t len, int flags,
    struct crontab **out)
{
	return (crontab_parse_each(file, buf, len, flags, NULL, NULL, out));
}

int
crontab_parse_each(const char *file, const char *buf, size_t len, int flags,
    crontab_entry_fn each, void *arg, struct crontab **out)
{
	struct pstate	 st;
	struct crontab	*ct;
	struct envline	 ev;
	const char	*l, *nl, *nul;
	size_t		 off, n, pos, lineno;
	void		*p;
	int		 lastline;

	*out = NULL;
	memset(&st, 0, sizeof(st));
	if ((ct = calloc(1, sizeof(*ct))) == NULL)
		goto nomem;
	st.p_ct = ct;
	if ((ct->ct_arena = calloc(1, sizeof(*ct->ct_arena))) == NULL)
		goto nomem;
	st.p_arena = ct->ct_arena;
	st.p_file = file;
	st.p_each = each;
	st.p_arg = arg;
	st.p_flags = flags & (CRON_SECONDS | CRON_SYSTEM);
	st.p_opts.o_scope = SCOPE_CLUSTER;
	st.p_opts.o_overlap = OVERLAP_ALLOW;
	st.p_opts.o_misfire = MISFIRE_SKIP;
	st.p_opts.o_lost = LOST_MARK;

	for (off = 0, lineno = 1; off < len; lineno++) {
		l = buf + off;
		nl = memchr(l, '\n', len - off);
		n = nl != NULL ? (size_t)(nl - l) : len - off;
		off += n + (nl != NULL);
		lastline = nl == NULL;

		if (n > LINE_MAX_BYTES) {
			if (add_diag(&st, lineno, 0, 0, "found a line of %zu "
			    "bytes, expected at most %d", n,
			    LINE_MAX_BYTES) == -1)
				goto nomem;
			continue;
		}
		/*
		 * CR LF line ends: cron reads a CR before the newline as
		 * part of the line, so on an entry the shell gets the
		 * command with a CR at its end (environment lines lose it,
		 * being trimmed).  A job that fails for an invisible
		 * character helps nobody: the CR is dropped here, and the
		 * table is warned about once.
		 */
		if (n > 0 && l[n - 1] == '\r') {
			n--;
			if (!st.p_crwarned) {
				st.p_crwarned = 1;
				if (add_diag(&st, lineno, n + 1, 1, "found a "
				    "CR LF line end, expected LF: the CR is "
				    "ignored here, but cron keeps it at the "
				    "end of a command") == -1)
					goto nomem;
			}
		}
		if ((nul = memchr(l, '\0', n)) != NULL) {
			if (add_diag(&st, lineno, (size_t)(nul - l) + 1, 0,
			    "found a NUL byte, expected text") == -1)
				goto nomem;
			continue;
		}
		for (pos = 0; pos < n && isspace((unsigned char)l[pos]);)
			pos++;
		if (pos == n || l[pos] == '#')
			continue;
		switch (env_scan(l, n, pos, &ev)) {
		case 1:
			if (do_env(&st, l, lineno, &ev) == -1)
				goto nomem;
			break;
		case 0:
			if (do_entry(&st, l, n, pos, lineno) == -1)
				goto nomem;
			break;
		default:
			if (bad_envline(&st, l, n, lineno, &ev) == -1)
				goto nomem;
			break;
		}
		/*
		 * A last line without a newline: cron implementations
		 * differ (crontab(1) of Debian and cronie refuses the
		 * file, crond rejects or drops the line).  It is read
		 * here, with a warning when it holds more than a comment.
		 */
		if (lastline && add_diag(&st, lineno, 0, 1, "missing newline "
		    "at end of file (some cron versions ignore or reject "
		    "this last line)") == -1)
			goto nomem;
	}
	if (st.p_name != NULL && add_diag(&st, st.p_nameline, 0, 1,
	    "CLUSTERCRON_NAME=%s names no entry: no entry follows it",
	    st.p_name) == -1)
		goto nomem;

	sort_diags(ct);

	/* Give back what the arrays grew beyond their use. */
	if (ct->ct_nent > 0 && ct->ct_nent < st.p_entcap &&
	    (p = reallocarray(ct->ct_ent, ct->ct_nent,
	    sizeof(*ct->ct_ent))) != NULL)
		ct->ct_ent = p;
	if (ct->ct_ndiag > 0 && ct->ct_ndiag < st.p_diagcap &&
	    (p = reallocarray(ct->ct_diag, ct->ct_ndiag,
	    sizeof(*ct->ct_diag))) != NULL)
		ct->ct_diag = p;
	free(st.p_env);
	names_free(&st.p_names);
	*out = ct;
	return (ct->ct_nerr > 0 ? 1 : 0);

nomem:
	free(st.p_env);
	names_free(&st.p_names);
	crontab_free(ct);
	errno = ENOMEM;
	return (-1);
}

void
crontab_free(struct crontab *ct)
{
	if (ct == NULL)
		return;
	free(ct->ct_ent);
	free(ct->ct_diag);
	arena_free(ct->ct_arena);
	free(ct);
}
