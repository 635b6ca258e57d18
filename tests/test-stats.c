/* SPDX-License-Identifier: MIT */
/* test-stats.c - quantiles, median CI ranks, outliers on known vectors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stats.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* Epoch values b[e] = base * (1 + noise_e), a[e] = b[e] * ratio * (1 + jitter_e):
 * the jitter is a fixed zig-zag of the given relative size, so the tests are
 * deterministic. */
static enum verdict judge_of(double ratio, double jitter, size_t n, double base, struct judgment *j)
{
	static const double z[] = { 1, -1, 0.5, -0.5, 0.8, -0.8, 0.2, -0.2 };
	double a[8], b[8];

	for (size_t e = 0; e < n; e++) {
		b[e] = base * (1 + 0.02 * z[(e + 3) % 8]);
		a[e] = b[e] * ratio * (1 + jitter * z[e % 8]);
	}
	return stats_judge(a, b, n, j);
}

static void judge_cases(void)
{
	struct judgment j;
	double a1 = 20, b1 = 9, bad[2] = { 0, NAN };

	/* injected changes that must be found */
	CHECK(judge_of(2.22, 0.01, 5, 9, &j) == VERDICT_SLOWER && fabs(j.diff - 10.98) < 0.2,
	      "x2.22 over 5 epochs: slower by +11 cycles (%s, %g)", stats_verdict_name(j.v), j.diff);
	CHECK(judge_of(1.10, 0.01, 5, 9, &j) == VERDICT_SLOWER, "x1.10 at 1%% spread: slower (%s [%g, %g])",
	      stats_verdict_name(j.v), j.lo, j.hi);
	CHECK(judge_of(0.80, 0.01, 5, 20, &j) == VERDICT_FASTER, "x0.80: faster (%s)", stats_verdict_name(j.v));
	/* same needs an equivalence shown: tight and inside the margin */
	CHECK(judge_of(1.01, 0.005, 6, 100, &j) == VERDICT_SAME, "x1.01 at 0.5%%: same (%s [%g, %g])",
	      stats_verdict_name(j.v), j.lo, j.hi);
	/* inside the margin on average, but too noisy to show it: not "same" */
	CHECK(judge_of(1.00, 0.10, 5, 100, &j) == VERDICT_UNRESOLVED, "x1.00 at 10%% spread: unresolved (%s)",
	      stats_verdict_name(j.v));
	/* beyond the margin, but the interval reaches inside it: not "slower" */
	CHECK(judge_of(1.08, 0.06, 4, 100, &j) == VERDICT_UNRESOLVED, "x1.08 at 6%% over 4: unresolved (%s)",
	      stats_verdict_name(j.v));
	/* one epoch cannot be judged; the margin is never under a quarter cycle */
	CHECK(stats_judge(&a1, &b1, 1, &j) == VERDICT_UNRESOLVED && j.n == 1, "one epoch: unresolved");
	CHECK(judge_of(1.2, 0.001, 5, 1.0, &j) == VERDICT_SAME && fabs(j.margin - 0.25) < 0.01,
	      "1.2 vs 1.0 cycles: inside the quarter-cycle margin (%s)", stats_verdict_name(j.v));
	CHECK(judge_of(1.4, 0.001, 5, 1.0, &j) == VERDICT_SLOWER, "1.4 vs 1.0 cycles: beyond it");
	CHECK(stats_judge(bad, bad, 2, &j) == VERDICT_NONE && j.n == 0, "no valid epoch: none");
}

/* P(X <= x) of the chi-square with 4 degrees: 1 - e^(-x/2) (1 + x/2). */
static double chi4_cdf(double x)
{
	return 1 - exp(-x / 2) * (1 + x / 2);
}

/* n variances with 4 degrees each around sigma2: sigma2 chi2_4 / 4 at the
 * quantiles (i + 0.5) / n, so the spread is exactly the model's. */
static void chi4_variances(double *s2, double *df, size_t n, double sigma2, double spread)
{
	for (size_t i = 0; i < n; i++) {
		double p = (i + 0.5) / (double)n, lo = 0, hi = 100;

		for (int k = 0; k < 100; k++)
			*(chi4_cdf((lo + hi) / 2) < p ? &lo : &hi) = (lo + hi) / 2;
		/* rows of another variance every other one: spread 1 keeps them alike */
		s2[i] = sigma2 * (i % 2 ? spread : 1) * (lo + hi) / 2 / 4;
		df[i] = 4;
	}
}

/* Moderated variances (Smyth 2004): the prior fitted over rows and the
 * judgment it buys a row with few epochs. */
static void prior_cases(void)
{
	static double s2[400], df[400];
	struct stats_prior p;
	struct judgment j;
	static const double z[] = { 1, -1, 0.5, -0.5, 0 };
	double a[5], b[5];

	/* F against the tables: F(0.95; 2, 6) 5.143, (0.95; 3, 8) 4.066,
	 * (0.95; 1, 10) 4.965, (0.75; 2, 6) 1.762, (0.99; 5, 10) 5.636 */
	CHECK(fabs(stats_f_cdf(5.143, 2, 6) - 0.95) < 1e-4 && fabs(stats_f_cdf(4.066, 3, 8) - 0.95) < 1e-4 &&
		      fabs(stats_f_cdf(4.965, 1, 10) - 0.95) < 1e-4 && fabs(stats_f_cdf(1.762, 2, 6) - 0.75) < 1e-4 &&
		      fabs(stats_f_cdf(5.636, 5, 10) - 0.99) < 1e-4 && stats_f_cdf(0, 3, 3) == 0,
	      "F distribution: %.5f %.5f %.5f %.5f %.5f", stats_f_cdf(5.143, 2, 6), stats_f_cdf(4.066, 3, 8),
	      stats_f_cdf(4.965, 1, 10), stats_f_cdf(1.762, 2, 6), stats_f_cdf(5.636, 5, 10));
	/* one variance behind every row: the rows' scatter is all chi-square,
	 * the prior holds (nearly) all their degrees and its variance */
	chi4_variances(s2, df, 400, 1e-4, 1);
	CHECK(stats_prior_fit(s2, df, 400, &p) == 0 && p.df > 200 && fabs(p.s2 / 1e-4 - 1) < 0.05,
	      "one variance: d0 %.0f, s0^2 %.3g (1e-4)", p.df, p.s2);
	/* half the rows 100 times noisier: the prior gives few degrees */
	chi4_variances(s2, df, 400, 1e-4, 100);
	CHECK(stats_prior_fit(s2, df, 400, &p) == 0 && p.df < 3, "two variances 100x apart: d0 %.2f", p.df);
	CHECK(stats_prior_fit(s2, df, STATS_PRIOR_MIN_ROWS - 1, &p) == -EINVAL && p.df == 0,
	      "too few rows: no prior");
	CHECK(fabs(stats_moderated(4e-4, 4, &(struct stats_prior){ 1e-4, 12 }) - 1.75e-4) < 1e-12 &&
		      stats_moderated(4e-4, 4, &(struct stats_prior){ NAN, 0 }) == 4e-4,
	      "moderated: (d0 s0^2 + df s2) / (d0 + df); s2 without a prior");
	/* x1.02 and x1.08 over 5 epochs at 3.2% spread: unresolved alone (df
	 * 4), same and slower once the run's rows of its kind say the spread
	 * is half that (a prior of 40 degrees at 1.6%) */
	for (int e = 0; e < 5; e++) {
		b[e] = 100;
		a[e] = 102 * (1 + 0.04 * z[e]);
	}
	CHECK(stats_judge(a, b, 5, &j) == VERDICT_UNRESOLVED && j.df == 4, "x1.02 alone: unresolved (%s)",
	      stats_verdict_name(j.v));
	CHECK(stats_judge_prior(a, b, 5, &(struct stats_prior){ 2.56e-4, 40 }, &j) == VERDICT_SAME && j.df == 44,
	      "x1.02 with the prior: %s [%.3f, %.3f]", stats_verdict_name(j.v), j.lo, j.hi);
	for (int e = 0; e < 5; e++)
		a[e] = 108 * (1 + 0.04 * z[e]);
	CHECK(stats_judge(a, b, 5, &j) == VERDICT_UNRESOLVED, "x1.08 alone: unresolved (%s [%.3f, %.3f])",
	      stats_verdict_name(j.v), j.lo, j.hi);
	CHECK(stats_judge_prior(a, b, 5, &(struct stats_prior){ 2.56e-4, 40 }, &j) == VERDICT_SLOWER,
	      "x1.08 with the prior: %s [%.3f, %.3f]", stats_verdict_name(j.v), j.lo, j.hi);
}

int main(void)
{
	double v5[] = { 5, 1, 4, 2, 3 };
	double v4[] = { 10, 40, 20, 30 };
	double one[] = { 7 };
	struct summary s;
	size_t lo, hi;

	prior_cases();
	CHECK(stats_summarize(v5, 5, &s) == 0, "summarize 5");
	CHECK(NEAR(s.median, 3) && NEAR(s.min, 1) && NEAR(s.max, 5), "median/min/max %g %g %g", s.median, s.min, s.max);
	CHECK(NEAR(s.mean, 3), "mean %g", s.mean);
	CHECK(NEAR(s.stddev, sqrt(2.5)), "stddev %g", s.stddev);
	CHECK(NEAR(s.p10, 1.4) && NEAR(s.p90, 4.6), "p10 %g p90 %g (type 7)", s.p10, s.p90);
	CHECK(v5[0] == 5 && v5[1] == 1, "input not modified");

	CHECK(NEAR(stats_median(v4, 4), 25), "even median %g", stats_median(v4, 4));
	CHECK(stats_summarize(one, 1, &s) == 0 && NEAR(s.median, 7) && NEAR(s.ci_lo, 7) && NEAR(s.ci_hi, 7),
	      "single sample");
	CHECK(stats_summarize(one, 0, &s) < 0, "empty refused");
	CHECK(isnan(stats_median(one, 0)), "empty median is NaN");

	/* n = 100: ranks 50 -+ 9.8 -> 1-based [40, 61] -> 0-based [39, 60] */
	stats_median_ci_ranks(100, &lo, &hi);
	CHECK(lo == 39 && hi == 60, "CI ranks n=100: %zu %zu", lo, hi);
	stats_median_ci_ranks(3, &lo, &hi);
	CHECK(lo == 0 && hi == 2, "CI ranks n=3 clamp: %zu %zu", lo, hi);

	/* 1..100 plus one far outlier: median unaffected, outlier counted */
	{
		double v[101];

		for (int i = 0; i < 100; i++)
			v[i] = i + 1;
		v[100] = 1e6;
		CHECK(stats_summarize(v, 101, &s) == 0, "summarize 101");
		CHECK(NEAR(s.median, 51), "median %g", s.median);
		CHECK(s.outliers == 1, "outliers %zu", s.outliers);
		CHECK(s.ci_lo <= 51 && s.ci_hi >= 51 && s.ci_lo >= 40 && s.ci_hi <= 62,
		      "CI [%g, %g] brackets the median", s.ci_lo, s.ci_hi);
	}

	/* coverage of the median CI on a known distribution: 2000 draws of
	 * n = 201 uniform samples; the true median 0.5 must be inside ~95% of
	 * the intervals. Fixed seed: deterministic. */
	{
		unsigned seed = 12345, hit = 0, trials = 2000;
		double v[201];

		for (unsigned t = 0; t < trials; t++) {
			for (int i = 0; i < 201; i++)
				v[i] = (double)rand_r(&seed) / RAND_MAX;
			stats_summarize(v, 201, &s);
			hit += s.ci_lo <= 0.5 && 0.5 <= s.ci_hi;
		}
		CHECK(hit > 0.93 * trials && hit < 0.99 * trials, "median CI coverage %u/%u", hit, trials);
	}
	CHECK(!strcmp(stats_verdict_name(VERDICT_SAME), "same") &&
		      !strcmp(stats_verdict_name(VERDICT_NONE), "-"),
	      "verdict names");

	/* Student t p-values against the tabulated 97.5% quantiles */
	CHECK(fabs(stats_t_pvalue(12.706, 1) - 0.05) < 1e-4, "t(1) p %g", stats_t_pvalue(12.706, 1));
	CHECK(fabs(stats_t_pvalue(2.228, 10) - 0.05) < 1e-4, "t(10) p %g", stats_t_pvalue(2.228, 10));
	CHECK(fabs(stats_t_pvalue(-2.228, 10) - 0.05) < 1e-4, "two-sided");
	CHECK(fabs(stats_t_pvalue(1.959964, 1e7) - 0.05) < 1e-4, "normal limit");
	CHECK(stats_t_pvalue(0, 5) == 1 && stats_t_pvalue(50, 8) < 1e-10 && isnan(stats_t_pvalue(1, 0)),
	      "t edges");

	/* Holm-Bonferroni: sorted 0.005 <= .05/4, 0.01 <= .05/3, 0.03 > .05/2 stops */
	CHECK(fabs(stats_t_quantile(0.975, 4) - 2.776) < 1e-3, "t975(4) %g", stats_t_quantile(0.975, 4));
	CHECK(fabs(stats_t_quantile(0.975, 1) - 12.706) < 1e-3 && fabs(stats_t_quantile(0.95, 9) - 1.833) < 1e-3,
	      "t quantiles");
	CHECK(fabs(stats_t_quantile(0.025, 4) + 2.776) < 1e-3 && isnan(stats_t_quantile(1, 4)), "t symmetric");
	judge_cases();
	return test_done("stats");
}
