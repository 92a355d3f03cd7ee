/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * json.h: a small writer of JSON documents for the admin verbs' --json
 * output.  It only writes: values go out to a stdio stream in the order
 * the caller gives them, with the commas and the escaping JSON needs.
 */

#ifndef JSON_H
#define JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH	16

/*
 * The writer's state: the stream (borrowed), how deep it is, and for
 * each level whether a value was written there yet (the next needs a
 * comma).  js_key is set between a key and its value.
 */
struct json {
	FILE		*js_fp;
	int		 js_depth;
	int		 js_key;
	unsigned char	 js_more[JSON_DEPTH];
};

/*
 * json_init() starts a document on fp.  json_begin() opens an object
 * ('{') or an array ('['), json_end() closes it; nesting deeper than
 * JSON_DEPTH is a bug and aborts.  Inside an object every value is
 * preceded by json_key().  json_str() writes a string (NULL writes
 * null), json_strn() one of len bytes that may hold NUL bytes.  Strings
 * are escaped: quotes, backslashes and control characters, and bytes
 * that are not UTF-8 become U+FFFD, so that the document is valid
 * whatever the jobs wrote.  json_done() ends the document with a
 * newline.  Write errors are the stream's: the caller checks ferror().
 */
void	 json_init(struct json *, FILE *);
void	 json_begin(struct json *, int);
void	 json_end(struct json *, int);
void	 json_key(struct json *, const char *);
void	 json_str(struct json *, const char *);
void	 json_strn(struct json *, const char *, size_t);
void	 json_int(struct json *, int64_t);
void	 json_bool(struct json *, int);
void	 json_null(struct json *);
void	 json_done(struct json *);

/*
 * json_escape() writes s (len bytes) as a quoted JSON string to fp,
 * every character uni_unsafe() names as a \u escape.
 */
void	 json_escape(FILE *, const char *, size_t);

/*
 * utf8_char() looks at the len > 0 bytes at s: returns the length of the
 * well-formed UTF-8 character there (1 for ASCII), or minus the length
 * of the ill-formed part that one U+FFFD stands for (the longest start
 * of a valid sequence, at least 1 byte), as Unicode recommends.
 */
int	 utf8_char(const char *, size_t);
/*
 * utf8_decode() gives the code point of the well-formed character of n
 * bytes at s (n as utf8_char() returned it).  uni_unsafe() says whether
 * a code point must be escaped wherever a person may see it: C0 and C1
 * controls, DEL, the bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069) and U+2028, U+2029.
 */
uint32_t utf8_decode(const char *, int);
int	 uni_unsafe(uint32_t);

#endif /* JSON_H */
