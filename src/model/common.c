/* SPDX-License-Identifier: MIT */
/* common.c - error reporting and strict number parsing. */
#include "common.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int log_quiet;

void pr_msg(enum pr_level level, const char *fmt, ...)
{
	va_list ap;

	if (level == PR_INFO && log_quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, ATOMCOST_NAME ": %s", level == PR_WARN ? "warning: " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end = "";
	unsigned long long v = 0;

	if (!s || !*s) {
		pr_err("%s: empty value (expected an integer in %llu..%llu)", what,
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	/* strtoull would take a sign or leading spaces */
	errno = 0;
	if (!strchr("-+ ", *s))
		v = strtoull(s, &end, 0);
	if (strchr("-+ ", *s) || errno || *end) {
		pr_err("%s: '%s' is not an unsigned integer (expected %llu..%llu)", what, s,
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	if (v < min || v > max) {
		pr_err("%s: %llu is out of range (expected %llu..%llu)", what, v,
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_double(const char *what, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s) {
		pr_err("%s: empty value (expected a number in %g..%g)", what, min, max);
		return -EINVAL;
	}
	if (*s == ' ' || *s == '\t') {
		pr_err("%s: '%s' is not a number (expected %g..%g, no spaces)", what, s, min, max);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v)) {
		pr_err("%s: '%s' is not a number (expected %g..%g)", what, s, min, max);
		return -EINVAL;
	}
	if (v < min || v > max) {
		pr_err("%s: %g is out of range (expected %g..%g)", what, v, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int exit_code_for(int err)
{
	static const struct { int err, code; } map[] = {
		{ 0, EXIT_OK }, { EINVAL, EXIT_USAGE }, { ERANGE, EXIT_USAGE },
		{ ENOENT, EXIT_MISSING }, { EACCES, EXIT_MISSING }, { EROFS, EXIT_MISSING },
		{ ENOTDIR, EXIT_MISSING }, { ENOTSUP, EXIT_UNSUPPORTED },
		{ ENOSYS, EXIT_UNSUPPORTED }, { EINTR, EXIT_SIGINT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (-err == map[i].err)
			return map[i].code;
	return EXIT_RUNTIME;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *did_you_mean(const char *name, char *buf, size_t len)
{
	if (name && *name)
		snprintf(buf, len, " (did you mean '%s'?)", name);
	else
		*buf = '\0';
	return buf;
}

/* Levenshtein distance, for "did you mean" suggestions. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins : sub);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

const char *suggest_name(const char *bad, const char *(*name_at)(size_t i, void *arg),
			 size_t n, void *arg)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; i < n; i++) {
		const char *c = name_at(i, arg);
		size_t d;

		if (!c)
			continue;
		d = edit_distance(bad, c);
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	/* only close names: at most a third of the name wrong */
	return best && best_d <= 1 + strlen(bad) / 3 ? best : NULL;
}
