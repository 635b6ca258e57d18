/* SPDX-License-Identifier: MIT */
/* test-stats.c - quantiles, median CI ranks, outliers on known vectors. */
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

int main(void)
{
	double v5[] = { 5, 1, 4, 2, 3 };
	double v4[] = { 10, 40, 20, 30 };
	double one[] = { 7 };
	struct summary s;
	size_t lo, hi;

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
