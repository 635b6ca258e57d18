/* SPDX-License-Identifier: MIT */
/* report/jscan.c - a pull tokenizer over JSON bytes (jscan.h). The
 * summary reader walks json.c's field tables over it: a fleet's 10,000
 * summaries of 135 KB each cost a jansson tree apiece otherwise, built and
 * freed only to read a few fields (issue 31). Numbers convert only when
 * read; a real with at most 15 digits and a power of ten within 10^22
 * converts exactly as strtod does (one rounding of two exact doubles),
 * the rest through strtod. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"

int jscan_fail(struct jscan *s, const char *why)
{
	if (!s->why) {
		s->why = why;
		s->at = s->p;
	}
	s->p = s->end;	/* nothing more reads */
	return -EINVAL;
}

static void ws(struct jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

void jscan_init(struct jscan *s, const char *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->p = s->start = buf;
	s->end = buf + len;
}

enum jscan_kind jscan_peek(struct jscan *s)
{
	ws(s);
	if (s->p >= s->end)
		return JS_BAD;
	switch (*s->p) {
	case '{':
		return JS_OBJECT;
	case '[':
		return JS_ARRAY;
	case '"':
		return JS_STRING;
	case 't':
		return JS_TRUE;
	case 'f':
		return JS_FALSE;
	case 'n':
		return JS_NULL;
	default:
		return *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? JS_NUMBER : JS_BAD;
	}
}

int jscan_enter(struct jscan *s, char open)
{
	ws(s);
	if (s->p >= s->end || *s->p != open)
		return jscan_fail(s, s->p >= s->end ? "unexpected end of input" : open == '{' ? "'{' expected" : "'[' expected");
	if (++s->depth > JSCAN_MAX_DEPTH)
		return jscan_fail(s, "maximum parsing depth reached");
	s->p++;
	return 0;
}

/* The separator before the next member or item, or the close: 1 another
 * follows, 0 closed. */
static int next(struct jscan *s, size_t *k, char close)
{
	ws(s);
	if (s->p >= s->end)
		return jscan_fail(s, "unexpected end of input");
	if (*s->p == close) {
		s->p++;
		s->depth--;
		return 0;
	}
	if ((*k)++) {
		if (*s->p != ',')
			return jscan_fail(s, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
		s->p++;
		ws(s);
		if (s->p < s->end && *s->p == close)
			return jscan_fail(s, "a value expected after ','");
	}
	return 1;
}

int jscan_member(struct jscan *s, size_t *k, char *key, size_t size)
{
	int ret = next(s, k, '}');

	if (ret <= 0)
		return ret;
	if (jscan_peek(s) != JS_STRING)
		return jscan_fail(s, "string or '}' expected");
	if (jscan_str(s, key, size) < 0)
		return -EINVAL;
	ws(s);
	if (s->p >= s->end || *s->p != ':')
		return jscan_fail(s, "':' expected");
	s->p++;
	return 1;
}

int jscan_item(struct jscan *s, size_t *k)
{
	return next(s, k, ']');
}

static void put(char *dst, size_t size, size_t *n, const char *b, size_t len)
{
	size_t room = *n + 1 < size ? size - 1 - *n : 0;

	if (len > room)
		len = room;
	if (len)
		memcpy(dst + *n, b, len);
	*n += len;
}

/* The bytes a string holds as they are: not '"', '\\', a control
 * character or the start of a UTF-8 sequence. */
static const bool plain[256] = {
	[0x20 ... '"' - 1] = true, ['"' + 1 ... '\\' - 1] = true, ['\\' + 1 ... 0x7f] = true,
};

/* A UTF-8 sequence at p (of at most left bytes): its length, 0 invalid. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	uint32_t v = p[0] & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);

	if (p[0] < 0xc2 || p[0] > 0xf4 || left < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	return len;
}

static int hex4(struct jscan *s, const char *p, uint32_t *v)
{
	*v = 0;
	if (s->end - p < 4)
		return jscan_fail(s, "invalid escape");
	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				  c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return jscan_fail(s, "invalid escape");
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* The escape at s->p (its backslash) as UTF-8 into b; its length, -EINVAL. */
static int escape(struct jscan *s, char *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = s->p + 1 < s->end ? strchr(from, s->p[1]) : NULL;
	uint32_t u, lo;

	if (e && s->p[1]) {
		*b = to[e - from];
		s->p += 2;
		return 1;
	}
	if (s->p + 1 >= s->end || s->p[1] != 'u' || hex4(s, s->p + 2, &u) < 0)
		return jscan_fail(s, "invalid escape");
	s->p += 6;
	if (u >= 0xd800 && u <= 0xdbff) {
		if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u' || hex4(s, s->p + 2, &lo) < 0 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return jscan_fail(s, "invalid Unicode escape (a lone surrogate)");
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		s->p += 6;
	} else if ((u >= 0xdc00 && u <= 0xdfff) || !u) {
		return jscan_fail(s, u ? "invalid Unicode escape (a lone surrogate)" : "\\u0000 is not allowed");
	}
	if (u < 0x80) {
		b[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		b[0] = (char)(0xc0 | u >> 6);
		b[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		b[0] = (char)(0xe0 | u >> 12);
		b[1] = (char)(0x80 | (u >> 6 & 0x3f));
		b[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | u >> 18);
	b[1] = (char)(0x80 | (u >> 12 & 0x3f));
	b[2] = (char)(0x80 | (u >> 6 & 0x3f));
	b[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

int jscan_str(struct jscan *s, char *dst, size_t size)
{
	size_t n = 0;
	char b[4];
	int len;

	if (jscan_peek(s) != JS_STRING)
		return jscan_fail(s, "string expected");
	s->p++;
	for (;;) {
		const char *run = s->p;

		while (s->p < s->end && plain[(unsigned char)*s->p])
			s->p++;
		put(dst, size, &n, run, (size_t)(s->p - run));
		if (s->p >= s->end)
			return jscan_fail(s, "premature end of input in a string");
		if (*s->p == '"')
			break;
		if ((unsigned char)*s->p < 0x20)
			return jscan_fail(s, "control character in a string");
		if (*s->p == '\\') {
			len = escape(s, b);
			if (len < 0)
				return len;
			put(dst, size, &n, b, (size_t)len);
			continue;
		}
		len = (int)utf8_len((const unsigned char *)s->p, (size_t)(s->end - s->p));
		if (!len)
			return jscan_fail(s, "invalid UTF-8 in a string");
		put(dst, size, &n, s->p, (size_t)len);
		s->p += len;
	}
	s->p++;
	if (size)
		dst[n] = '\0';
	return 0;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The number's text from start to s->p through strtod or strtoll. */
static int convert_slow(struct jscan *s, const char *start, struct jscan_num *n)
{
	size_t len = (size_t)(s->p - start);
	char *t = malloc(len + 1);

	if (!t)
		return -ENOMEM;
	memcpy(t, start, len);
	t[len] = '\0';
	errno = 0;
	if (n->integer) {
		n->i = strtoll(t, NULL, 10);
		n->x = (double)n->i;
	} else {
		n->x = strtod(t, NULL);
	}
	free(t);
	if (errno == ERANGE && (n->integer || isinf(n->x)))
		return jscan_fail(s, n->integer ? "too big integer" : "real number overflow");
	return 0;
}

#define DIGIT(c) ((unsigned)((c) - '0') < 10)

/* The digits at p (at least one): up to 19 significant ones into *m
 * (*digits counts them, 99 once more came), each after the point taking
 * one from *scale; each integer digit beyond 19 adds one. */
static const char *digits_of(const char *p, const char *end, bool fraction, uint64_t *m, int *digits, int *scale)
{
	for (; p < end && DIGIT(*p); p++) {
		if (*digits < 19) {
			*m = *m * 10 + (uint64_t)(*p - '0');
			*digits += *m != 0;
			*scale -= fraction;
		} else {
			*scale += !fraction;
			*digits = 99;
		}
	}
	return p;
}

static int number(struct jscan *s, struct jscan_num *n, bool want)
{
	const char *start = s->p, *p = s->p + (*s->p == '-'), *end = s->end;
	uint64_t m = 0;
	int digits = 0, scale = 0, exp = 0, esign = 1;
	bool neg = *start == '-', edigits = false;

	n->integer = true;
	if (p >= end || !DIGIT(*p) || (*p == '0' && p + 1 < end && DIGIT(p[1]))) {
		s->p = p;
		return jscan_fail(s, p < end && DIGIT(*p) ? "invalid token (a leading zero)" : "invalid token");
	}
	p = digits_of(p, end, false, &m, &digits, &scale);
	if (p < end && *p == '.') {
		n->integer = false;
		if (++p >= end || !DIGIT(*p)) {
			s->p = p;
			return jscan_fail(s, "invalid token (no digit after '.')");
		}
		p = digits_of(p, end, true, &m, &digits, &scale);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		n->integer = false;
		if (++p < end && (*p == '+' || *p == '-'))
			esign = *p++ == '-' ? -1 : 1;
		if (p >= end || !DIGIT(*p)) {
			s->p = p;
			return jscan_fail(s, "invalid token (no digit in the exponent)");
		}
		for (edigits = true; p < end && DIGIT(*p); p++)
			exp = exp < 10000 ? exp * 10 + (*p - '0') : exp;
	}
	s->p = p;
	if (n->integer && digits <= 18) {
		n->i = neg ? -(long long)m : (long long)m;
		n->x = (double)n->i;
		return 0;
	}
	scale += esign * exp;
	if (!n->integer && digits <= 15 && (!m || (scale >= -22 && scale <= 22))) {
		n->i = 0;
		n->x = !m ? 0 : scale < 0 ? (double)m / pow10_exact[-scale] : (double)m * pow10_exact[scale];
		n->x = neg ? -n->x : n->x;
		return 0;
	}
	/* skipped: only what may overflow converts (a long integer, a real
	 * with an exponent or of many digits) */
	if (!want && !n->integer && !edigits && p - start < 300)
		return 0;
	n->i = 0;
	return convert_slow(s, start, n);
}

int jscan_number(struct jscan *s, struct jscan_num *n)
{
	if (jscan_peek(s) != JS_NUMBER)
		return jscan_fail(s, "number expected");
	return number(s, n, true);
}

static int literal(struct jscan *s, const char *word, size_t len)
{
	if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len))
		return jscan_fail(s, "invalid token");
	s->p += len;
	return 0;
}

int jscan_skip(struct jscan *s)
{
	struct jscan_num n;
	size_t k = 0;
	int ret;

	switch (jscan_peek(s)) {
	case JS_OBJECT:
		if (jscan_enter(s, '{') < 0)
			return -EINVAL;
		while ((ret = jscan_member(s, &k, NULL, 0)) == 1)
			if (jscan_skip(s) < 0)
				return -EINVAL;
		return ret;
	case JS_ARRAY:
		if (jscan_enter(s, '[') < 0)
			return -EINVAL;
		while ((ret = jscan_item(s, &k)) == 1)
			if (jscan_skip(s) < 0)
				return -EINVAL;
		return ret;
	case JS_STRING:
		return jscan_str(s, NULL, 0);
	case JS_NUMBER:
		return number(s, &n, false);
	case JS_TRUE:
		return literal(s, "true", 4);
	case JS_FALSE:
		return literal(s, "false", 5);
	case JS_NULL:
		return literal(s, "null", 4);
	default:
		return jscan_fail(s, s->p >= s->end ? "unexpected end of input" : "invalid token");
	}
}

int jscan_end(struct jscan *s)
{
	ws(s);
	return s->p < s->end ? jscan_fail(s, "end of file expected") : 0;
}

void jscan_where(const struct jscan *s, int *line, int *col)
{
	const char *at = s->why ? s->at : s->p;

	*line = 1;
	*col = 1;
	for (const char *p = s->start; p < at; p++)
		if (*p == '\n')
			*line += 1, *col = 1;
		else
			*col += 1;
}
