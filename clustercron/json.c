/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * json.c: the JSON writer of the admin verbs (json.h).  Job output and
 * commands are whatever bytes the jobs and tables hold, so strings are
 * checked as UTF-8 and every ill-formed part is written as U+FFFD: the
 * document stays valid and the readable text stays as it was.  What a
 * user could write to fool the eye of whoever reads the document in a
 * terminal or an editor (controls, bidirectional overrides: see
 * uni_unsafe()) is written as a \u escape, which every JSON reader
 * turns back into the same text.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void	 json_value(struct json *);

int
utf8_char(const char *p, size_t len)
{
	const unsigned char	*s = (const unsigned char *)p;
	unsigned char		 lo = 0x80, hi = 0xbf;
	size_t			 need, i;

	if (s[0] < 0x80)
		return (1);
	/*
	 * The lead byte says how many continuation bytes follow; a few
	 * leads narrow the second byte's range, which refuses overlong
	 * forms (E0, F0), UTF-16 surrogates (ED) and code points past
	 * U+10FFFF (F4).
	 */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return (-1);
	for (i = 1; i <= need; i++) {
		if (i >= len || s[i] < lo || s[i] > hi)
			return (-(int)i);
		lo = 0x80;
		hi = 0xbf;
	}
	return ((int)need + 1);
}

uint32_t
utf8_decode(const char *p, int n)
{
	const unsigned char	*s = (const unsigned char *)p;
	uint32_t		 cp;
	int			 i;

	if (n <= 1)
		return (s[0]);
	cp = s[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return (cp);
}

/*
 * C0 controls and DEL; the C1 controls, which some terminals obey as
 * their 7-bit forms (U+009B is CSI, U+009D OSC); the controls of
 * bidirectional text, which reorder what follows on screen so that a
 * command reads as another (U+061C, U+200E, U+200F, U+202A to U+202E,
 * U+2066 to U+2069: the Trojan Source characters); and the line and
 * paragraph separators, which some viewers take for line ends.
 */
int
uni_unsafe(uint32_t cp)
{
	return (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069));
}

void
json_escape(FILE *fp, const char *s, size_t len)
{
	unsigned char	 c;
	size_t		 i;
	int		 n;

	putc('"', fp);
	for (i = 0; i < len; i += n) {
		c = (unsigned char)s[i];
		n = 1;
		switch (c) {
		case '"':
			fputs("\\\"", fp);
			continue;
		case '\\':
			fputs("\\\\", fp);
			continue;
		case '\b':
			fputs("\\b", fp);
			continue;
		case '\f':
			fputs("\\f", fp);
			continue;
		case '\n':
			fputs("\\n", fp);
			continue;
		case '\r':
			fputs("\\r", fp);
			continue;
		case '\t':
			fputs("\\t", fp);
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			/* DEL is legal JSON, but not for a terminal. */
			fprintf(fp, "\\u%04x", c);
			continue;
		}
		if ((n = utf8_char(s + i, len - i)) < 0) {
			fputs("\\ufffd", fp);
			n = -n;
			continue;
		}
		if (n > 1 && uni_unsafe(utf8_decode(s + i, n))) {
			fprintf(fp, "\\u%04x", (unsigned int)utf8_decode(s + i,
			    n));
			continue;
		}
		fwrite(s + i, 1, n, fp);
	}
	putc('"', fp);
}

void
json_init(struct json *js, FILE *fp)
{
	memset(js, 0, sizeof(*js));
	js->js_fp = fp;
}

/* Before any value: the comma after the previous one at this level. */
static void
json_value(struct json *js)
{
	if (js->js_key) {
		js->js_key = 0;
		return;
	}
	if (js->js_depth > 0) {
		if (js->js_more[js->js_depth - 1])
			putc(',', js->js_fp);
		js->js_more[js->js_depth - 1] = 1;
	}
}

void
json_begin(struct json *js, int c)
{
	json_value(js);
	if (js->js_depth >= JSON_DEPTH)
		abort();
	js->js_more[js->js_depth++] = 0;
	putc(c, js->js_fp);
}

void
json_end(struct json *js, int c)
{
	if (js->js_depth == 0)
		abort();
	js->js_depth--;
	putc(c, js->js_fp);
}

void
json_key(struct json *js, const char *key)
{
	json_value(js);
	json_escape(js->js_fp, key, strlen(key));
	putc(':', js->js_fp);
	js->js_key = 1;
}

void
json_str(struct json *js, const char *s)
{
	if (s == NULL) {
		json_null(js);
		return;
	}
	json_strn(js, s, strlen(s));
}

void
json_strn(struct json *js, const char *s, size_t len)
{
	json_value(js);
	json_escape(js->js_fp, s, len);
}

void
json_int(struct json *js, int64_t v)
{
	json_value(js);
	fprintf(js->js_fp, "%" PRId64, v);
}

void
json_bool(struct json *js, int v)
{
	json_value(js);
	fputs(v ? "true" : "false", js->js_fp);
}

void
json_null(struct json *js)
{
	json_value(js);
	fputs("null", js->js_fp);
}

void
json_done(struct json *js)
{
	putc('\n', js->js_fp);
}
