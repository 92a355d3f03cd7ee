/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * jobenv.c: environments as NULL-terminated arrays of "NAME=value"
 * strings, and the environment cron(8) gives a job: the table's
 * variables, SHELL, HOME and PATH where the table sets none, and
 * LOGNAME and USER always from the owner's passwd entry, so that a
 * table cannot pose as another user.
 */

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ENV_SHELL	"/bin/sh"
#define ENV_PATH	"/usr/bin:/bin"

/* Length of the name in "NAME=value", or of the whole string. */
static size_t
namelen(const char *s)
{
	return (strcspn(s, "="));
}

const char *
jobenv_get(char *const *env, const char *name)
{
	size_t	 len = strlen(name);

	if (env == NULL)
		return (NULL);
	for (; *env != NULL; env++)
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return (*env + len + 1);
	return (NULL);
}

size_t
jobenv_count(char *const *env)
{
	size_t	 n = 0;

	if (env != NULL)
		while (env[n] != NULL)
			n++;
	return (n);
}

void
jobenv_free(char **env)
{
	size_t	 i;

	if (env == NULL)
		return;
	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* Put the string s ("NAME=value", now owned by env) in place. */
static int
jobenv_put(char ***envp, char *s)
{
	char	**env = *envp, **nenv;
	size_t	  n, i, len = namelen(s);

	n = jobenv_count(env);
	for (i = 0; i < n; i++) {
		if (namelen(env[i]) == len && strncmp(env[i], s, len) == 0) {
			free(env[i]);
			env[i] = s;
			return (0);
		}
	}
	if ((nenv = reallocarray(env, n + 2, sizeof(*nenv))) == NULL) {
		free(s);
		return (-1);
	}
	nenv[n] = s;
	nenv[n + 1] = NULL;
	*envp = nenv;
	return (0);
}

int
jobenv_set(char ***envp, const char *name, const char *value)
{
	char	*s;

	if (*name == '\0' || strchr(name, '=') != NULL) {
		errno = EINVAL;
		return (-1);
	}
	if (asprintf(&s, "%s=%s", name, value) == -1)
		return (-1);
	return (jobenv_put(envp, s));
}

int
jobenv_build(const struct passwd *pw, const char *const *table, char ***envp)
{
	char	**env = NULL;
	char	 *s;
	size_t	  i;
	int	  saved;

	*envp = NULL;
	if ((env = calloc(1, sizeof(*env))) == NULL)
		return (-1);
	for (i = 0; table != NULL && table[i] != NULL; i++) {
		if (strchr(table[i], '=') == NULL || *table[i] == '=')
			continue;
		if ((s = strdup(table[i])) == NULL || jobenv_put(&env, s) == -1)
			goto fail;
	}
	if ((jobenv_get(env, "SHELL") == NULL &&
	    jobenv_set(&env, "SHELL", ENV_SHELL) == -1) ||
	    (jobenv_get(env, "HOME") == NULL &&
	    jobenv_set(&env, "HOME", pw->pw_dir) == -1) ||
	    (jobenv_get(env, "PATH") == NULL &&
	    jobenv_set(&env, "PATH", ENV_PATH) == -1) ||
	    jobenv_set(&env, "LOGNAME", pw->pw_name) == -1 ||
	    jobenv_set(&env, "USER", pw->pw_name) == -1)
		goto fail;
	*envp = env;
	return (0);
fail:
	saved = errno;
	jobenv_free(env);
	errno = saved;
	return (-1);
}
