/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * json.c: unit tests of the admin verbs' JSON writer: the escaping of
 * quotes, backslashes and control characters, well-formed UTF-8 kept
 * as it is, every kind of ill-formed UTF-8 replaced by U+FFFD (one per
 * maximal ill-formed part), and the commas and nesting of documents.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../tap.h"

static char	*buf;
static size_t	 buflen;

static FILE *
mem(void)
{
	FILE	*fp;

	free(buf);
	buf = NULL;
	if ((fp = open_memstream(&buf, &buflen)) == NULL) {
		perror("open_memstream");
		exit(99);
	}
	return (fp);
}

static const char *
escaped(const char *s, size_t len)
{
	FILE	*fp = mem();

	json_escape(fp, s, len);
	fclose(fp);
	return (buf);
}

#define ESC(in, want, what) \
	is_str(escaped(in, sizeof(in) - 1), want, what)

int
main(void)
{
	struct json	 js;
	FILE		*fp;

	ESC("", "\"\"", "empty string");
	ESC("plain text", "\"plain text\"", "plain text as it is");
	ESC("say \"hi\"", "\"say \\\"hi\\\"\"", "quotes escaped");
	ESC("a\\b", "\"a\\\\b\"", "backslash escaped");
	ESC("/", "\"/\"", "slash left alone");
	ESC("l1\nl2\r\t\b\f", "\"l1\\nl2\\r\\t\\b\\f\"",
	    "short escapes for newline, return, tab, backspace, form feed");
	ESC("\x01\x1f\x1b[0m", "\"\\u0001\\u001f\\u001b[0m\"",
	    "other control characters as \\u00XX");
	ESC("\x7f", "\"\\u007f\"", "DEL escaped");
	ESC("a\xc2\x9b" "2J\xc2\x85", "\"a\\u009b2J\\u0085\"",
	    "C1 controls (U+009B CSI, U+0085) escaped");
	ESC("x\xe2\x80\xaey\xe2\x81\xa6z\xe2\x80\x8f\xd8\x9c",
	    "\"x\\u202ey\\u2066z\\u200f\\u061c\"",
	    "bidirectional controls escaped");
	ESC("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"",
	    "line and paragraph separators escaped");
	ESC("\xc2\xa0\xe2\x80\xaf\xe2\x81\xa0", "\"\xc2\xa0\xe2\x80\xaf"
	    "\xe2\x81\xa0\"", "their neighbours are not");
	ESC("a\0b", "\"a\\u0000b\"", "NUL byte inside a string");
	ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	    "two-, three- and four-byte UTF-8 kept");
	ESC("\xef\xbf\xbd\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbd\xf4\x8f\xbf\xbf\"",
	    "U+FFFD and U+10FFFF kept");
	ESC("\x80", "\"\\ufffd\"", "lone continuation byte");
	ESC("a\xff" "b", "\"a\\ufffdb\"", "0xff");
	ESC("\xc3", "\"\\ufffd\"", "truncated at the end");
	ESC("\xe2\x82" "A", "\"\\ufffdA\"",
	    "truncated sequence is one U+FFFD, next character kept");
	ESC("\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong two-byte form");
	ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"",
	    "overlong three-byte form");
	ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate");
	ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
	    "past U+10FFFF");
	ESC("\xf0\x9f\x98", "\"\\ufffd\"", "truncated four-byte form");
	ESC("\xf8\x88\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"",
	    "five-byte form");
	ESC("ok\xe2\x82\xac\xe2" "\"", "\"ok\xe2\x82\xac\\ufffd\\\"\"",
	    "a quote after a cut sequence is still escaped");

	fp = mem();
	json_init(&js, fp);
	json_begin(&js, '{');
	json_key(&js, "nodes");
	json_begin(&js, '[');
	json_begin(&js, '{');
	json_key(&js, "name");
	json_str(&js, "a\"b");
	json_key(&js, "n");
	json_int(&js, -42);
	json_key(&js, "big");
	json_int(&js, 1795000000123LL);
	json_end(&js, '}');
	json_begin(&js, '{');
	json_key(&js, "t");
	json_bool(&js, 1);
	json_key(&js, "f");
	json_bool(&js, 0);
	json_key(&js, "z");
	json_null(&js);
	json_key(&js, "s");
	json_str(&js, NULL);
	json_end(&js, '}');
	json_end(&js, ']');
	json_key(&js, "empty");
	json_begin(&js, '[');
	json_end(&js, ']');
	json_key(&js, "list");
	json_begin(&js, '[');
	json_int(&js, 1);
	json_strn(&js, "x\0y", 3);
	json_begin(&js, '{');
	json_end(&js, '}');
	json_end(&js, ']');
	json_end(&js, '}');
	json_done(&js);
	fclose(fp);
	is_str(buf, "{\"nodes\":[{\"name\":\"a\\\"b\",\"n\":-42,"
	    "\"big\":1795000000123},{\"t\":true,\"f\":false,\"z\":null,"
	    "\"s\":null}],\"empty\":[],\"list\":[1,\"x\\u0000y\",{}]}\n",
	    "a document: commas, nesting, keys, numbers, booleans, null");

	fp = mem();
	json_init(&js, fp);
	json_begin(&js, '[');
	json_end(&js, ']');
	json_done(&js);
	fclose(fp);
	is_str(buf, "[]\n", "an empty array");
	free(buf);
	return (tap_done());
}
