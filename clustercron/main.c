/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 */

int
main(void)
{
	return (0);
}
