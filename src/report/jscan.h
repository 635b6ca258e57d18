/* SPDX-License-Identifier: MIT */
/* report/jscan.h - a pull tokenizer over a JSON document's bytes, for the
 * field-table readers (summary.c's summaries, json.c's reports): values are
 * read where the reader wants them and
 * skipped (checked, not kept) where it does not, so no tree is built. It
 * refuses what jansson refuses (bad syntax, bad UTF-8, control characters,
 * \u0000, integers beyond long long, reals beyond double, nesting deeper
 * than JSCAN_MAX_DEPTH) and says where. */
#ifndef ATOMCOST_JSCAN_H
#define ATOMCOST_JSCAN_H

#include <stdbool.h>
#include <stddef.h>

#define JSCAN_MAX_DEPTH 2048	/* jansson's JSON_PARSER_MAX_DEPTH */

enum jscan_kind { JS_BAD, JS_OBJECT, JS_ARRAY, JS_STRING, JS_NUMBER, JS_TRUE, JS_FALSE, JS_NULL };

struct jscan {
	const char *p, *start, *end;
	int depth;
	const char *why;	/* the first error, NULL: none */
	const char *at;		/* where it was found */
};

struct jscan_num {
	bool integer;		/* written without '.', 'e' or 'E' */
	long long i;		/* the integer; of a real, 0 */
	double x;		/* the value as a double */
};

void jscan_init(struct jscan *s, const char *buf, size_t len);
/* The kind of the next value, without consuming it (JS_BAD at the end). */
enum jscan_kind jscan_peek(struct jscan *s);
/* Consume the next value's opening '{' or '['. 0 or -EINVAL. */
int jscan_enter(struct jscan *s, char open);
/* The next member of the object entered: 1 with its key (truncated to
 * size) and the ':' consumed, 0 at its '}', -EINVAL. k counts the members
 * read so far (0 before the first). */
int jscan_member(struct jscan *s, size_t *k, char *key, size_t size);
/* The next item of the array entered: 1, 0 at its ']', -EINVAL. */
int jscan_item(struct jscan *s, size_t *k);
/* A string value into dst (truncated to size, checked whole). 0 or -EINVAL. */
int jscan_str(struct jscan *s, char *dst, size_t size);
/* A number value. 0 or -EINVAL. */
int jscan_number(struct jscan *s, struct jscan_num *n);
/* Skip any one value, checking it. 0 or -EINVAL. */
int jscan_skip(struct jscan *s);
/* After the top value: only white space may follow. 0 or -EINVAL. */
int jscan_end(struct jscan *s);
/* Refuse the document here for why (a static string). -EINVAL. */
int jscan_fail(struct jscan *s, const char *why);
/* The line and column (1-based) of the error. */
void jscan_where(const struct jscan *s, int *line, int *col);

#endif
