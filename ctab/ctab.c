/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ctab.c: the crontab(1)-compatible editor.  This first step checks
 * tables (-T); installing, listing, editing and removing them come
 * with the store (issue 5).
 */

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ctab.h"
#include "parser.h"

static void	usage(void) __attribute__((__noreturn__));

static void
usage(void)
{
	fprintf(stderr, "usage: %s -T [-s] file\n", getprogname());
	exit(1);
}

int
main(int argc, char **argv)
{
	const char	*file;
	char		*buf;
	size_t		 len;
	int		 ch, check = 0, flags = 0, rv;

	while ((ch = getopt(argc, argv, "sT")) != -1) {
		switch (ch) {
		case 's':
			flags |= CRON_SYSTEM;
			break;
		case 'T':
			check = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (!check || argc != 1)
		usage();

	file = argv[0];
	if (strcmp(file, "-") == 0) {
		rv = file_read_fd(STDIN_FILENO, CTAB_MAXBYTES, &buf, &len);
		file = "(standard input)";
	} else
		rv = file_read(file, CTAB_MAXBYTES, &buf, &len);
	if (rv == -1) {
		if (errno == EFBIG)
			errx(1, "%s: table is larger than %d bytes", file,
			    CTAB_MAXBYTES);
		err(1, "%s", file);
	}
	rv = lint_table(file, buf, len, flags, clock_now()) == 0 ? 0 : 1;
	free(buf);
	return (rv);
}
