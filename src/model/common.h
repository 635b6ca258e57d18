/* SPDX-License-Identifier: MIT */
/* common.h - exit codes, error reporting and small helpers shared by the
 * engine, the probes and the tests. Functions return 0 or -errno; only
 * main.c turns one into an exit code. */
#ifndef ATOMCOST_COMMON_H
#define ATOMCOST_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Documented exit codes (README "Exit codes"). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,	/* a measurement or system call failed */
	EXIT_USAGE = 2,		/* bad command line or config */
	EXIT_MISSING = 3,	/* a file, directory, device or library is missing */
	EXIT_UNSUPPORTED = 4,	/* cannot be done on this machine/build */
	EXIT_UNTRUSTED = 5,	/* results untrustworthy (with --strict) */
	EXIT_SIGINT = 130,	/* interrupted by SIGINT, partial results written */
	EXIT_SIGTERM = 143,	/* interrupted by SIGTERM, partial results written */
};

/* Map a negative errno returned by the engine to an exit code. */
int exit_code_for(int err);

#define ATOMCOST_NAME "atomcost"

/* "atomcost: context: reason" on stderr; a warning says "warning: " first. */
enum pr_level { PR_ERR, PR_WARN, PR_INFO };
void pr_msg(enum pr_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_err(...) pr_msg(PR_ERR, __VA_ARGS__)
#define pr_warn(...) pr_msg(PR_WARN, __VA_ARGS__)
#define pr_info(...) pr_msg(PR_INFO, __VA_ARGS__)

extern int log_quiet;	/* tests: pr_info is dropped */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CACHELINE 64

/* Parse helpers: strict, whole-string, range-checked. Return 0 or -EINVAL
 * after printing "atomcost: WHAT: 'VALUE' is not ..." */
int parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_double(const char *what, const char *s, double min, double max, double *out);

/* The candidate closest to bad (edit distance), or NULL when none is close. */
const char *suggest_name(const char *bad, const char *(*name_at)(size_t i, void *arg),
			 size_t n, void *arg);
/* " (did you mean 'NAME'?)" in buf, or "" when name is NULL or "": buf. */
const char *did_you_mean(const char *name, char *buf, size_t len);

/* Monotonic raw clock in ns (the calibration reference). */
uint64_t now_ns(void);
/* CPU time of the calling thread, ns. */
uint64_t thread_cpu_ns(void);

#endif
