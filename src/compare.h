/* compare.h - is B faster or slower than A, and can we tell? (issue 7)
 *
 * Rows are matched by probe, mode and pattern. The change is the ratio of
 * medians B/A with a 95% confidence interval. Within-run samples understate
 * run-to-run variance (seed slub-partial-pages-variance-2008: 3% between
 * runs hid 1% effects), so:
 *  - when both reports hold >= 2 --repeat passes of the row, the interval
 *    comes from the spread between pass medians (Welch t on their logs);
 *  - otherwise it comes from a bootstrap of the kept samples (fixed seed, so
 *    the same inputs give the same verdict), and a change is significant
 *    only when it also exceeds a noise floor: --noise-floor (default
 *    COMPARE_NOISE_FLOOR), or the pass-to-pass spread of either report when
 *    that is larger.
 * A change smaller than --min-change is never called significant.
 */
#ifndef ATOMCOST_COMPARE_H
#define ATOMCOST_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "result.h"

#define COMPARE_NOISE_FLOOR 0.05	/* see docs/reports.md "How compare decides" */
#define COMPARE_MIN_CHANGE 0.01
#define COMPARE_RESAMPLES 500
#define COMPARE_SEED 2008u

struct compare_opts {
	double noise_floor;	/* relative, for rows without passes on both sides */
	double min_change;	/* relative, never significant below */
	unsigned resamples;	/* bootstrap resamples */
	uint64_t seed;
};

enum compare_verdict {
	CMP_SAME,		/* no significant change */
	CMP_IMPROVED,		/* B is faster */
	CMP_REGRESSED,		/* B is slower */
	CMP_ONLY_A,		/* row missing from B */
	CMP_ONLY_B,		/* row missing from A */
};

enum compare_basis {
	BASIS_PASSES,		/* between-pass spread */
	BASIS_SAMPLES,		/* bootstrap of kept samples + noise floor */
	BASIS_NONE,		/* unmatched row */
};

struct compare_row {
	char name[64];
	char pattern[32];
	enum probe_mode mode;
	double a_ticks, b_ticks;	/* medians (of pass medians when passes), ticks/op */
	double a_cycles, b_cycles, a_ns, b_ns;	/* in each report's own calibration */
	double ratio, lo, hi;		/* B/A on cycles, 95% CI */
	double floor;			/* noise floor applied (BASIS_SAMPLES) */
	size_t a_passes, b_passes;
	enum compare_basis basis;
	enum compare_verdict verdict;
};

struct comparison {
	struct compare_row *rows;
	size_t n;
	size_t improved, regressed, same, unmatched;
	size_t fp_diffs;		/* fingerprint facts that differ */
};

void compare_default_opts(struct compare_opts *o);

/* Compare every row of a and b. 0 or -errno (ENOMEM). */
int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out);
void compare_free(struct comparison *c);

/* Printed "improved 12.3%", "regressed 4.0%", "no significant change". The
 * percentage is the change of time per op relative to A. */
void compare_verdict_text(const struct compare_row *r, char *buf, size_t len);

/* Writers: aligned table (--format text), and the 72-column before/after
 * shape kernel engineers paste (--format mail). Mismatched fingerprints come
 * first, the one-line summary last. */
int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
void compare_summary(const struct comparison *c, char *buf, size_t len);

/* The arithmetic, exposed for the tests. */

/* Bootstrap of the ratio of medians median(b)/median(a): resamples draws
 * with replacement from each set, 2.5% and 97.5% quantiles of the ratio.
 * Deterministic for a given seed. 0 or -EINVAL/-ENOMEM. */
int compare_bootstrap(const double *a, size_t na, const double *b, size_t nb,
		      unsigned resamples, uint64_t seed, double *ratio, double *lo, double *hi);
/* Ratio of geometric means of pass medians with a Welch 95% interval on
 * their logs. Needs na, nb >= 2 and positive values. */
int compare_passes(const double *a, size_t na, const double *b, size_t nb,
		   double *ratio, double *lo, double *hi);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double compare_t975(double df);

/* Passes of one row: every result of rep with the name, mode and pattern of
 * rep->r[i], in report order. Returns how many (<= max stored). */
size_t compare_group(const struct report *rep, size_t i, const struct result **out, size_t max);
/* True when rep->r[i] is the first result of its group. */
bool compare_group_first(const struct report *rep, size_t i);
/* Largest pass number in rep (0: no --repeat passes). */
int compare_max_pass(const struct report *rep);

#endif
