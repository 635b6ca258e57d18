/* SPDX-License-Identifier: MIT */
/* stats.h - order statistics over kept samples. */
#ifndef ATOMCOST_STATS_H
#define ATOMCOST_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double min, p10, p25, median, p75, p90, max;
	double mean, stddev;
	double ci_lo, ci_hi;	/* 95% confidence interval of the median */
	size_t outliers;	/* beyond 3 IQR from the quartiles (Tukey far out) */
};

/* Quantile q in [0,1] of sorted data, linear interpolation between order
 * statistics (Hyndman-Fan type 7, as R and numpy default). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* Median of unsorted data (the input is not modified). NAN when n == 0. */
double stats_median(const double *v, size_t n);
/* 0-based ranks bounding a 95% distribution-free confidence interval of the
 * median (binomial order statistics, normal approximation). */
void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi);
/* Summarize n samples (not modified). -EINVAL when n == 0. */
int stats_summarize(const double *v, size_t n, struct summary *s);
/* Relative half-width of the median's CI: (hi - lo) / 2 / |median|. */
double stats_ci_rel(const struct summary *s);

/* The noise rule (docs/method.md): two figures of the same kind differ only
 * when their ratio leaves 1 by more than a noise floor measured between
 * runs (passes or processes), and never by less than NOISE_FLOOR_MIN,
 * whatever within-run confidence intervals say: samples within one run are
 * serially correlated and understate the noise between runs. */
#define NOISE_FLOOR_MIN 0.03
/* The floor for a figure measured in one process when nothing measured its
 * noise between processes and it is not a settled hot-line figure (it
 * missed its CI target, or depends on where the process placed its
 * buffers, pages or threads): in A/A runs of one build on the development
 * guest such figures, and their twin ratios, moved by 25-55% between
 * processes, and a 3% floor called a twin ratio slower in one process and
 * faster in the next for 36 of 200 pattern rows (docs/reports.md). */
#define NOISE_FLOOR_PROCESS 0.25
enum verdict {
	VERDICT_SAME,		/* within the floor */
	VERDICT_SLOWER,		/* a costs more than b */
	VERDICT_FASTER,		/* a costs less than b */
	VERDICT_NONE,		/* no verdict may be given (analog, missing figure) */
};
/* a against b (costs, same units, > 0) under a relative floor (0: the
 * minimum; below the minimum: raised to it). */
enum verdict stats_verdict(double a, double b, double floor);
const char *stats_verdict_name(enum verdict v);

/* Two-sided p-value of Student's t statistic with df degrees of freedom
 * (regularized incomplete beta). 1 for t == 0, NAN for df <= 0. */
double stats_t_pvalue(double t, double df);
/* Holm-Bonferroni step-down over m p-values: reject[i] is set for the
 * hypotheses rejected at family-wise error rate alpha (NAN p: never).
 * 0 or -ENOMEM. */
int stats_holm(const double *p, size_t m, double alpha, bool *reject);

#endif
