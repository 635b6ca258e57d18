/* SPDX-License-Identifier: MIT */
/* test-compare.c - compare's rule on synthetic reports whose rows carry K
 * epochs (and, merged, several processes) with a known spread, so every
 * judgment can be checked against the truth it was built from:
 *  (a) one report per side, ~280 rows, 1% epoch spread: a x2.0 row and a
 *      x1.2 hot row are flagged, nothing else (fails when compare misses
 *      an injected change);
 *  (b) three reports per side: 3 hot rows x1.10 and 2 pattern rows x1.3
 *      among ~280 are flagged, exactly those;
 *  (c) A/A with the same spreads: nothing flagged;
 *  (e) "same" only where the equivalence test passes: a row inside the
 *      margin but too noisy says "cannot tell below X%";
 * and the arithmetic (two-level variance, minimum-effect and TOST
 * p-values, Benjamini-Hochberg on synthetic p-values), the calibration
 * (compared in cycles, a moved self-check), and old reports without
 * epochs (blocks, the between-process floor, never "same"). Data are
 * generated from fixed seeds: nothing here depends on the machine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compare.h"
#include "sections.h"
#include "harness.h"
#include "report.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* uniform in (0,1) and standard normal, from a hash of the key */
static double unif(uint64_t key)
{
	return ((double)(mix(key) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t key)
{
	return sqrt(-2 * log(unif(key))) * cos(2 * M_PI * unif(key ^ 0x5bd1e995ull));
}

/* Skewed samples like real ones (most near base, a tail above). */
static void gen(double *v, size_t n, double base, double spread, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		double u = unif(seed * 1000003 + i);

		v[i] = base * (1 + spread * (u < 0.8 ? u : 4 * u));
	}
}

static struct result *add(struct report *rep, const char *name, const char *pattern,
			  enum probe_mode mode, double base, double spread, size_t n, uint64_t seed,
			  int epoch)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	snprintf(r->atomicity, sizeof(r->atomicity), "atomic");
	r->mode = mode;
	r->ci_reached = true;
	r->samples = malloc(n * sizeof(double));
	r->nsamples = n;
	gen(r->samples, n, base, spread, seed);
	stats_summarize(r->samples, n, &r->s);
	if (epoch)
		result_set_epoch(r, epoch);
	return r;
}

static void init(struct report *rep, const char *kernel, double tpc)
{
	report_init(rep);
	rep->cal.timer_hz = 2e9;
	rep->cal.ticks_per_cycle = tpc;
	rep->cal.core_hz = 2e9 / tpc;
	rep->meta = json_pack("{s:{s:{s:s}, s:s}}", "fingerprint", "kernel", "release", kernel, "host", "h");
	report_fingerprint(rep, NULL);
}

static const struct compare_row *row(const struct comparison *c, const char *name, const char *pattern,
				     enum probe_mode m)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name) && c->rows[i].mode == m &&
		    (!pattern || !strcmp(c->rows[i].pattern, pattern)))
			return &c->rows[i];
	return NULL;
}

static size_t flagged(const struct comparison *c)
{
	return c->improved + c->regressed;
}

static char *text_of(const struct comparison *c, const struct report *a, const struct report *b, bool mail)
{
	return TEST_TEXT(mail ? compare_write_mail(c, a, b, "a.json", "b.json", f)
			      : compare_write_text(c, a, b, "a.json", "b.json", f));
}

/* ---- the arithmetic ------------------------------------------------------ */

static void test_estimate(void)
{
	/* one process, 4 epochs: the variance of the mean is s^2 / n */
	double v[] = { 10.0, 10.2, 9.9, 10.1 }, s2 = 0, m = 0;
	int one[] = { 1, 1, 1, 1 }, two[] = { 1, 1, 2, 2 };
	struct compare_est e;

	for (int i = 0; i < 4; i++)
		m += log(v[i]) / 4;
	for (int i = 0; i < 4; i++)
		s2 += (log(v[i]) - m) * (log(v[i]) - m) / 3;
	CHECK(compare_estimate(v, one, 4, &e) == 0 && e.level == BASIS_EPOCHS && e.df == 3 &&
		      fabs(e.var - s2 / 4) < 1e-12 && fabs(e.mean - m) < 1e-12 && e.procs == 1,
	      "one process: var %.3g (want %.3g), df %.0f", e.var, s2 / 4, e.df);
	/* two processes whose epochs agree within 0.1% but whose means differ
	 * by 10% (F 10^4): the process level carries the variance, df 1 */
	{
		double w[] = { 10.0, 10.01, 11.0, 11.01 };

		CHECK(compare_estimate(w, two, 4, &e) == 0 && e.level == BASIS_PROCESSES && e.df == 1 &&
			      e.var > 1e-3,
		      "process means apart: level %d, df %.0f, var %.3g", e.level, e.df, e.var);
	}
	/* two processes whose means agree better than their epochs predict:
	 * pooled epochs, df 2, s_w^2 (1/2 + 1/2) / 4 */
	{
		double w[] = { 10.0, 10.4, 10.4, 10.0 };
		double d = log(10.4) - log(10.0), sw2 = d * d / 2;

		CHECK(compare_estimate(w, two, 4, &e) == 0 && e.level == BASIS_EPOCHS && e.df == 2 &&
			      fabs(e.var - sw2 / 4) < 1e-12,
		      "process means agree: level %d, df %.0f, var %.3g (want %.3g)", e.level, e.df, e.var,
		      sw2 / 4);
	}
	CHECK(compare_estimate(v, one, 1, &e) == -EINVAL, "one replicate is not a spread");
	v[2] = 0;
	CHECK(compare_estimate(v, one, 4, &e) == -EINVAL, "a replicate <= 0 has no log");
}

static void test_tests(void)
{
	double d = log(1.20), delta = log1p(0.03), pc, ps;

	/* +20% at se 1%: far beyond a 3% margin, far from inside it */
	compare_tests(d, 0.01, 4, delta, &pc, &ps);
	CHECK(pc < 2e-4 && ps > 0.999, "x1.2, se 1%%: p change %.2g, p same %.3f", pc, ps);
	/* +1% at se 0.3%: inside the margin, no change beyond it */
	compare_tests(log(1.01), 0.003, 8, delta, &pc, &ps);
	CHECK(pc > 0.99 && ps < 1e-3, "x1.01, se 0.3%%: p change %.3f, p same %.2g", pc, ps);
	/* +1% at se 10%: neither */
	compare_tests(log(1.01), 0.10, 4, delta, &pc, &ps);
	CHECK(pc > 0.5 && ps > 0.3, "x1.01, se 10%%: p change %.3f, p same %.3f", pc, ps);
	/* no spread at all: the point decides */
	compare_tests(log(1.10), 0, 4, delta, &pc, &ps);
	CHECK(pc == 0 && ps == 1, "x1.10, se 0: p change %g, p same %g", pc, ps);
	compare_tests(0, 0, 4, delta, &pc, &ps);
	CHECK(pc == 1 && ps == 0, "x1.00, se 0: p change %g, p same %g", pc, ps);
	/* faster is symmetric to slower */
	compare_tests(-d, 0.01, 4, delta, &pc, &ps);
	CHECK(pc < 2e-4, "x1/1.2: p change %.2g", pc);
	/* detectable: margin plus t(1 - a/2, df) se; t(0.975, 4) = 2.776 */
	CHECK(fabs(compare_detect(0.01, 4, delta, 0.05) - expm1(delta + 0.02776)) < 1e-5,
	      "detectable change at 5%%, df 4: %.5f", compare_detect(0.01, 4, delta, 0.05));
	CHECK(compare_detect(0.01, 4, delta, 1e-4) > compare_detect(0.01, 4, delta, 0.05),
	      "a stricter threshold needs a larger change");
}

/* Benjamini and Hochberg (1995), section 4: 15 p-values; at q 0.05 the
 * step-up rejects the four smallest, Bonferroni only three. */
static void test_bh(void)
{
	static const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
				    0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000 };
	bool rej[280];
	size_t k, fam, bonf = 0;

	CHECK(compare_bh(p, 15, 0.05, rej, &k, &fam) == 0 && k == 4 && fam == 15 && rej[3] && !rej[4],
	      "BH 1995 example: %zu rejected of %zu", k, fam);
	for (int i = 0; i < 15; i++)
		bonf += p[i] <= 0.05 / 15;
	CHECK(bonf == 3, "Bonferroni would reject %zu", bonf);
	/* step-up: 0.04 fails its own rank's 0.025, yet 0.041 <= 0.05 at rank
	 * 2 rejects both; order of the input does not matter */
	{
		double q[] = { 0.041, NAN, 0.04 };

		CHECK(compare_bh(q, 3, 0.05, rej, &k, &fam) == 0 && k == 2 && fam == 2 && rej[0] && !rej[1] && rej[2],
		      "step-up past a failed rank, NAN out of the family: %zu of %zu", k, fam);
	}
	/* one real change among 280 nulls at p 0.5: its p needs 0.05/280 */
	{
		double q[280];

		for (int i = 0; i < 280; i++)
			q[i] = 0.5;
		q[17] = 1.7e-4;
		CHECK(compare_bh(q, 280, 0.05, rej, &k, &fam) == 0 && k == 1 && rej[17], "1.7e-4 among 280: found");
		q[17] = 1.9e-4;
		CHECK(compare_bh(q, 280, 0.05, rej, &k, &fam) == 0 && k == 0, "1.9e-4 among 280: not");
	}
}

/* ---- synthetic reports with epochs and processes ------------------------- */

/* A row of a synthetic report: its cycles, spread between epochs and
 * between processes (sd of the log), and the factor B applies. */
struct spec {
	char name[24];
	const char *pattern;
	double cycles, epoch_sd, proc_sd, factor;
};

/* nrows rows with ~280 rows' mix: hit rows at 1% epoch spread, pattern
 * rows at 4%; then the injected changes in *sp. */
static size_t specs(struct spec *sp, size_t n, double hit_sd, double pattern_sd, double proc_sd)
{
	static const char *const pats[] = { "hit", "dep", "l2", "llc", "miss" };

	for (size_t k = 0; k < n; k++) {
		const char *pat = pats[k % 5];

		snprintf(sp[k].name, sizeof(sp[k].name), "probe%03zu", k);
		sp[k].pattern = pat;
		sp[k].cycles = !strcmp(pat, "hit") ? 2 + (double)(k % 23) : 20 + 7 * (double)(k % 31);
		sp[k].epoch_sd = !strcmp(pat, "hit") ? hit_sd : pattern_sd;
		sp[k].proc_sd = proc_sd;
		sp[k].factor = 1;
	}
	return n;
}

/* One side: nproc processes (merged as `compare a1,a2,a3` does) of
 * `epochs` epochs each; B applies each row's factor. */
static void make_side(struct report *rep, const struct spec *sp, size_t n, int nproc, int epochs,
		      double tpc, bool is_b, uint64_t seed)
{
	init(rep, "6.1", tpc);
	for (int p = 1; p <= nproc; p++) {
		struct report one, *dst = p == 1 ? rep : &one;

		if (p > 1)
			init(&one, "6.1", tpc);
		for (size_t k = 0; k < n; k++) {
			uint64_t key = seed * 0x9E3779B97F4A7C15ull + (uint64_t)p * 1000003 + k * 101;
			double pf = exp(sp[k].proc_sd * normal(key));

			for (int e = 1; e <= epochs; e++) {
				double f = pf * exp(sp[k].epoch_sd * normal(key + (uint64_t)e * 7919 + 1));

				add(dst, sp[k].name, sp[k].pattern, MODE_LATENCY,
				    sp[k].cycles * tpc * f * (is_b ? sp[k].factor : 1), 0.004, 32,
				    key + (uint64_t)e, epochs > 0 ? e : 0);
			}
		}
		if (p > 1) {
			CHECK(compare_merge(rep, &one) == 0, "merge process %d", p);
			report_free(&one);
		}
	}
}

#define NROWS 280

/* (a), (c), (d): one report per side, 3 epochs each. */
static void test_one_report(void)
{
	static struct spec sp[NROWS];
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	char v[64];

	compare_default_opts(&o);
	specs(sp, NROWS, 0.01, 0.04, 0);
	sp[0].factor = 2.0;	/* a hot row doubled */
	sp[5].factor = 1.2;	/* a hot row x1.2 */
	make_side(&a, sp, NROWS, 1, 3, 0.6, false, 1);
	make_side(&b, sp, NROWS, 1, 3, 0.6, true, 2);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe000", "hit", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && x->basis == BASIS_EPOCHS && x->a_reps == 3,
	      "(a) x2.0 hot row flagged with one report per side (p %.2g, detect %.3f)", x ? x->p : 0,
	      x ? x->detect : 0);
	x = row(&c, "probe005", "hit", MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_REGRESSED && fabs(x->ratio - 1.2) < 0.03,
	      "(a) x1.2 hot row flagged with one report per side: %s (p %.2g, threshold %.2g)", v, x ? x->p : 0,
	      c.threshold[0]);
	CHECK(c.regressed == 2 && c.improved == 0 && c.tested == NROWS && c.family_tested[0] == NROWS / 5,
	      "(a) exactly the two injected rows: %zu regressed, %zu improved of %zu tested", c.regressed,
	      c.improved, c.tested);
	/* pattern rows with one process a side: tested, their process part
	 * from the rows' changes beyond their kind's shift */
	x = row(&c, "probe001", "dep", MODE_LATENCY);
	CHECK(x && !x->unsettled && c.untested == 0 && x->kind >= 0 &&
		      c.kinds[x->kind].source == PHI_BETWEEN && isfinite(x->detect),
	      "(a) pattern rows tested with one process a side (%zu untested)", c.untested);
	x = row(&c, "probe010", "hit", MODE_LATENCY);
	CHECK(x && x->detect > x->margin && x->detect < 0.2, "(a) a hot row could detect %.1f%%",
	      x ? x->detect * 100 : 0);
	compare_free(&c);
	report_free(&b);

	/* (c) A/A: the same spreads, nothing injected */
	sp[0].factor = sp[5].factor = 1;
	make_side(&b, sp, NROWS, 1, 3, 0.6, true, 3);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	CHECK(flagged(&c) == 0 && c.calibration == 0, "(c) A/A, one report per side: %zu flagged", flagged(&c));
	/* 56 hot rows at 1% spread: most shown the same; 224 pattern rows at
	 * 4% spread over 3 epochs: not one (+-3% is beyond their power) */
	CHECK(c.same >= 40 && c.same <= 56 && c.same + c.cannot_tell == NROWS,
	      "(c) A/A: %zu same, %zu cannot tell", c.same, c.cannot_tell);
	{
		char *buf = text_of(&c, &a, &b, false), *sum = strstr(buf, "summary: ");

		CHECK(sum && strstr(buf, "unchanged") == NULL && strstr(buf, "cannot tell below") &&
			      strstr(buf, "same within 3.0%") && strstr(sum, " 0 regressed, 0 improved"),
		      "(c) text: verdicts with their figures");
		if (getenv("SHOWC"))
			printf("%s\n", buf);
		free(buf);
	}
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* (b): three reports per side, 3 epochs each, a process level (0.5%)
 * beside the epochs; 3 hot rows x1.10 and 2 pattern rows x1.3. Hot rows
 * at 0.5% epoch spread, pattern rows at 2% (on the Zen 5 guest hot rows
 * read 0.01-0.2%, dep rows 0.01%, miss and llc throughput 1-4%; l2 and
 * miss latency 5-10%, where x1.3 is near what 3 x 3 epochs can detect:
 * their detectable change says so). Then A/A. */
static void test_three_reports(void)
{
	static struct spec sp[NROWS];
	static const int hot[] = { 10, 55, 200 }, pat[] = { 12, 133 };
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	size_t hits = 0;

	compare_default_opts(&o);
	specs(sp, NROWS, 0.005, 0.02, 0.005);
	for (int i = 0; i < 3; i++)
		sp[hot[i]].factor = 1.10;
	for (int i = 0; i < 2; i++)
		sp[pat[i]].factor = 1.3;
	CHECK(!strcmp(sp[10].pattern, "hit") && !strcmp(sp[55].pattern, "hit") && !strcmp(sp[200].pattern, "hit") &&
		      strcmp(sp[12].pattern, "hit") && strcmp(sp[133].pattern, "hit"),
	      "premise: 3 hot rows, 2 pattern rows");
	make_side(&a, sp, NROWS, 3, 3, 0.6, false, 11);
	make_side(&b, sp, NROWS, 3, 3, 0.6, true, 12);
	CHECK(compare_max_process(&a) == 3 && compare_max_epoch(&a) == 9, "3 processes x 3 epochs merged");
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	for (int i = 0; i < 3; i++) {
		const struct compare_row *x = row(&c, sp[hot[i]].name, NULL, MODE_LATENCY);

		hits += x && x->verdict == CMP_REGRESSED;
		CHECK(x && x->verdict == CMP_REGRESSED, "(b) hot row %s x1.10 flagged (change %.3f, p %.2g)",
		      sp[hot[i]].name, x ? x->ratio : 0, x ? x->p : 0);
	}
	for (int i = 0; i < 2; i++) {
		const struct compare_row *x = row(&c, sp[pat[i]].name, NULL, MODE_LATENCY);

		hits += x && x->verdict == CMP_REGRESSED;
		CHECK(x && x->verdict == CMP_REGRESSED, "(b) pattern row %s x1.3 flagged (change %.3f, p %.2g, basis %d, df %.1f, se %.4f)",
		      sp[pat[i]].name, x ? x->ratio : 0, x ? x->p : 0, x ? (int)x->basis : -1, x ? x->df : 0, x ? x->se : 0);
	}
	CHECK(hits == 5 && c.regressed == 5 && c.improved == 0,
	      "(b) exactly the five injected rows: %zu regressed, %zu improved", c.regressed, c.improved);
	compare_free(&c);
	report_free(&b);

	/* A/A */
	for (size_t k = 0; k < NROWS; k++)
		sp[k].factor = 1;
	make_side(&b, sp, NROWS, 3, 3, 0.6, true, 13);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	CHECK(flagged(&c) == 0, "(c) A/A, three reports per side: %zu flagged", flagged(&c));
	compare_free(&c);
	report_free(&b);
	report_free(&a);

	/* process means far apart (a process level of 5%, epochs 0.2%): the
	 * kind's process part carries the variance, and a 5% change with only
	 * 3 processes is not overclaimed from the tight epochs */
	specs(sp, 20, 0.002, 0.002, 0.05);
	sp[0].factor = 1.05;
	make_side(&a, sp, 20, 3, 3, 0.6, false, 21);
	make_side(&b, sp, 20, 3, 3, 0.6, true, 22);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	{
		const struct compare_row *x = row(&c, "probe000", NULL, MODE_LATENCY);

		CHECK(x && x->verdict == CMP_CANNOT_TELL && flagged(&c) == 0 && c.kinds[x->kind].source == PHI_WITHIN &&
			      c.kinds[x->kind].phi > 100,
		      "processes 5%% apart, epochs 0.2%%: phi %.0f (%d), %zu flagged", x ? c.kinds[x->kind].phi : 0,
		      x ? (int)c.kinds[x->kind].source : -1, flagged(&c));
	}
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* Epochs with given factors, one report. */
static void add_epochs(struct report *rep, const char *name, double cycles, const double *f, int k,
		       uint64_t seed)
{
	for (int e = 0; e < k; e++)
		add(rep, name, "hit", MODE_LATENCY, cycles * rep->cal.ticks_per_cycle * f[e], 0.002, 32,
		    seed + (uint64_t)e, e + 1);
}

/* (e): "same" only where TOST passes: two rows B moved by exactly +1%,
 * inside the 3% margin; one with epochs 0.3% apart, one 8% apart. */
static void test_same_needs_equivalence(void)
{
	static const double tight[] = { 1.000, 1.003, 0.997, 1.002, 0.998 };
	static const double noisy[] = { 1.00, 1.09, 0.92, 1.06, 0.94 }, noisy_b[] = { 0.94, 1.00, 1.06, 0.92, 1.09 };
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	double tb[5], nb[5];
	char v[64];

	compare_default_opts(&o);
	for (int e = 0; e < 5; e++) {
		tb[e] = tight[4 - e] * 1.01;
		nb[e] = noisy_b[e] * 1.01;
	}
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	add_epochs(&a, "tight", 10, tight, 5, 1);
	add_epochs(&b, "tight", 10, tb, 5, 2);
	add_epochs(&a, "noisy", 10, noisy, 5, 3);
	add_epochs(&b, "noisy", 10, nb, 5, 4);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "tight", NULL, MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_SAME && !strcmp(v, "same within 3.0%") && x->p_same < 0.01 &&
		      fabs(x->ratio - 1.01) < 0.002,
	      "(e) +1%% at 0.3%% spread: %s (TOST p %.2g)", v, x ? x->p_same : 0);
	x = row(&c, "noisy", NULL, MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_CANNOT_TELL && !strncmp(v, "cannot tell below ", 18) && x->detect > 0.1 &&
		      fabs(x->ratio - 1.01) < 0.002,
	      "(e) +1%% at 8%% spread, inside the margin: %s, not same (TOST p %.2f)", v, x ? x->p_same : 0);
	CHECK(x && (x->more_runs > 1 || x->more_runs == -2) && (strstr(v, " runs)") || strstr(v, "(>20 runs)")),
	      "(e) and says how many more reports a side would judge it: %s", v);
	CHECK(c.same == 1 && c.cannot_tell == 1, "(e) counts: %zu same, %zu cannot tell", c.same, c.cannot_tell);
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* ---- the calibration ------------------------------------------------------ */

static void test_calibration(void)
{
	static struct spec sp[12];
	static const char *const names[] = { "add_chain", "imul_chain" };
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;

	compare_default_opts(&o);
	specs(sp, 12, 0.003, 0.003, 0.002);
	for (int k = 0; k < 12; k++)
		sp[k].pattern = "hit";
	for (int k = 0; k < 2; k++) {
		snprintf(sp[k].name, sizeof(sp[k].name), "%s", names[k]);
		sp[k].cycles = k ? 3 : 1;
	}

	/* 1. B's core 1.2% faster: ticks and ticks per cycle both moved, the
	 *    cycles did not: compared in cycles, nothing moves */
	make_side(&a, sp, 12, 3, 3, 0.6, false, 1);
	make_side(&b, sp, 12, 3, 3, 0.6 * (1 - 0.012), false, 2);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe004", NULL, MODE_LATENCY);
	CHECK(flagged(&c) == 0 && c.calibration == 0, "1.2%% faster core: %zu rows flagged", flagged(&c));
	CHECK(x && fabs(x->ratio - 1) < 0.006 && fabs(x->a_ns / x->b_ns - 1) > 0.006,
	      "compared in cycles (%.4f), not ns (%.4f)", x ? x->ratio : 0, x ? x->b_ns / x->a_ns : 0);
	CHECK(fabs(c.cal_shift - 0.012) < 1e-6 && x && fabs(x->margin - 0.03) < 0.001,
	      "the clocks' %.4f recorded, not added to the margin %.4f", c.cal_shift, x ? x->margin : 0);
	compare_free(&c);
	report_free(&b);

	/* 2. a real 10% change of one row is flagged, and only that row */
	sp[4].factor = 1.10;
	make_side(&b, sp, 12, 3, 3, 0.6, true, 4);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe004", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && c.regressed == 1 && c.improved == 0,
	      "10%% on one row over 3 processes x 3 epochs: %zu regressed", c.regressed);
	compare_free(&c);
	report_free(&b);

	/* 3. the imul self-check moved 5%: a calibration problem, not a
	 *    regression, and it widens every row's margin */
	sp[4].factor = 1;
	sp[1].factor = 1.05;
	make_side(&b, sp, 12, 3, 3, 0.6, true, 5);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "imul_chain", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_CALIBRATION && c.calibration == 1 && c.regressed == 0,
	      "moved imul_chain reported as calibration (%zu calibration, %zu regressed)", c.calibration,
	      c.regressed);
	x = row(&c, "probe004", NULL, MODE_LATENCY);
	CHECK(fabs(c.check_shift - 0.05) < 0.005 && x && x->margin > 0.055, "self-check %.4f in the margin %.4f",
	      c.check_shift, x ? x->margin : 0);
	{
		char *buf = text_of(&c, &a, &b, false);

		CHECK(strstr(buf, "CALIBRATION MOVED") && strstr(buf, "calibration moved +") &&
			      strstr(buf, "Benjamini-Hochberg") && c.tested == 11,
		      "text states the calibration problem and the family (%zu tested)", c.tested);
		free(buf);
	}
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* ---- old reports: no epochs ---------------------------------------------- */

static void test_blocks(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	char v[64];

	compare_default_opts(&o);

	/* 1. same build twice, one process each, 40 rows: drift of +-2% and
	 *    one bimodal row that landed 12% higher in B's process: blocks
	 *    call it "significant" within the run, the 25% floor does not */
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "probe%02d", i);
		add(&a, name, "hit", MODE_LATENCY, 5 + i, 0.05, 512, 100 + (uint64_t)i, 0);
		add(&b, name, "hit", MODE_LATENCY, (5 + i) * (1 + 0.02 * ((i % 5) - 2) / 2) * (i == 7 ? 1.12 : 1),
		    0.05, 512, 200 + (uint64_t)i, 0);
	}
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe07", NULL, MODE_LATENCY);
	CHECK(x && x->basis == BASIS_BLOCKS && x->a_reps == COMPARE_BLOCKS && x->lo > 1.05,
	      "blocks: the 12%% move is 'significant' within the run [%.3f, %.3f]", x ? x->lo : 0, x ? x->hi : 0);
	CHECK(flagged(&c) == 0 && c.same == 0 && c.cannot_tell == 40 && c.blocks == 40,
	      "blocks: nothing flagged under the %.0f%% floor, never same: %zu flagged, %zu same",
	      c.block_margin * 100, flagged(&c), c.same);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(!strncmp(v, "cannot tell below 2", 19), "blocks: %s", v);
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 2. a pattern row, a row that missed its CI target, the empty probe's
	 *    residual, the imul check 1.5% low, a settled 35% move */
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	add(&a, "llc_row", "llc", MODE_LATENCY, 60, 0.5, 256, 1, 0);
	add(&b, "llc_row", "llc", MODE_LATENCY, 180, 0.5, 256, 2, 0);
	add(&a, "unsettled", "hit", MODE_LATENCY, 60, 0.5, 256, 1, 0)->ci_reached = false;
	add(&b, "unsettled", "hit", MODE_LATENCY, 180, 0.5, 256, 2, 0);
	add(&a, "residual", "hit", MODE_LATENCY, 0.016 * 0.6, 0.01, 256, 5, 0);
	add(&b, "residual", "hit", MODE_LATENCY, 0.028 * 0.6, 0.01, 256, 6, 0);
	add(&a, "imul_chain", "hit", MODE_LATENCY, 3 * 0.6, 0.001, 256, 7, 0);
	add(&b, "imul_chain", "hit", MODE_LATENCY, 2.955 * 0.6, 0.001, 256, 8, 0);
	add(&a, "hit_row", "hit", MODE_LATENCY, 10, 0.01, 256, 3, 0);
	add(&b, "hit_row", "hit", MODE_LATENCY, 13.5, 0.01, 256, 4, 0);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "llc_row", NULL, MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_CANNOT_TELL && x->unsettled && !strcmp(v, "cannot tell (one process, no epochs)"),
	      "3x on a pattern row, one process: %s", v);
	x = row(&c, "unsettled", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_CANNOT_TELL && x->unsettled && c.untested == 2, "CI target missed: untested");
	x = row(&c, "residual", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_CANNOT_TELL && x->ratio > 1.5 && x->margin > 1,
	      "a residual of 0.02 cycles is no change (+%.0f%%, margin %.0f%%)", x ? (x->ratio - 1) * 100 : 0,
	      x ? x->margin * 100 : 0);
	x = row(&c, "imul_chain", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_CANNOT_TELL && c.calibration == 0 && fabs(c.check_shift - 0.015) < 0.002,
	      "imul 1.5%% low: no calibration problem, %.4f in the margins", c.check_shift);
	x = row(&c, "hit_row", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && c.tested == 3, "a settled 35%% move is flagged (%zu tested)",
	      c.tested);
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 3. 20x slower and 20x faster rows, a row only in B, another kernel */
	init(&a, "6.1", 0.6);
	init(&b, "6.2", 0.6);
	add(&a, "slow", "hit", MODE_LATENCY, 1, 0.05, 512, 1, 0);
	add(&b, "slow", "hit", MODE_LATENCY, 20, 0.05, 512, 2, 0);
	add(&a, "fast", "hit", MODE_THROUGHPUT, 20, 0.05, 512, 3, 0);
	add(&b, "fast", "hit", MODE_THROUGHPUT, 1, 0.05, 512, 4, 0);
	add(&a, "drift", "hit", MODE_LATENCY, 10, 0.02, 4096, 5, 0);
	add(&b, "drift", "hit", MODE_LATENCY, 10.3, 0.02, 4096, 6, 0);
	add(&b, "new", "hit", MODE_LATENCY, 3, 0.05, 64, 7, 0);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "slow", NULL, MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_REGRESSED && !strncmp(v, "regressed 19", 12), "20x slower: %s", v);
	x = row(&c, "fast", NULL, MODE_THROUGHPUT);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_IMPROVED && !strncmp(v, "improved 9", 10), "20x faster: %s", v);
	x = row(&c, "drift", NULL, MODE_LATENCY);
	CHECK(x && x->lo > 1.0 && x->verdict == CMP_CANNOT_TELL,
	      "3%% shift, one process: CI [%.3f, %.3f] excludes 1 but under the floor", x ? x->lo : 0, x ? x->hi : 0);
	x = row(&c, "new", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_ONLY_B, "row only in B");
	CHECK(x && isnan(x->lo) && isnan(x->hi) && isnan(x->margin) && isnan(x->se),
	      "a row only in B has no interval or margin (lo %g, margin %g)", x ? x->lo : 0,
	      x ? x->margin : 0);
	CHECK(c.fp_diffs == 1, "kernel release differs (%zu)", c.fp_diffs);
	CHECK(c.improved == 1 && c.regressed == 1 && c.cannot_tell == 1 && c.unmatched == 1, "counts");
	{
		char *buf = text_of(&c, &a, &b, true), sum[300];
		size_t col = 0, worst = 0;

		for (char *p = buf; *p; p++) {
			col = *p == '\n' ? 0 : col + 1;
			worst = col > worst ? col : worst;
		}
		CHECK(worst <= 72, "compare mail fits 72 columns (%zu)", worst);
		CHECK(!strstr(buf, "nan"), "the side without the row reads '-', not nan");
		if (strstr(buf, "nan"))
			printf("%s\n", buf);
		if (worst > 72)
			fputs(buf, stdout);
		CHECK(strstr(buf, "FINGERPRINTS DIFFER") && strstr(buf, "kernel.release"), "mismatch shown at the top");
		CHECK(strstr(buf, "cycles(tsc)") && strstr(buf, "regressed") && strstr(buf, "improved") &&
			      strstr(buf, "cannot tell below") && strstr(buf, "on blocks of one run's samples"),
		      "mail has the verdicts and the blocks rule");
		compare_summary(&c, sum, sizeof(sum));
		CHECK(!strcmp(sum, "summary: 4 rows: 1 regressed, 1 improved, 0 same, 1 cannot tell, 0 calibration problems, 1 in one report only"),
		      "summary: %s", sum);
		free(buf);
	}
	compare_free(&c);
	report_free(&a);
	report_free(&b);
}

/* Rows of one kind that move together from epoch to epoch (each epoch's
 * buffers serve them all) and from A to B: each row is judged on its change
 * beyond its kind's shift, the shift on its own line; an outlier epoch of
 * one row is left out, not taken for a change. */
static void test_kinds(void)
{
	static const double ep[] = { 1.00, 1.04, 0.97, 1.03, 0.96 };	/* kind-wide, per epoch */
	static const double z[] = { 1, -1, 0.5, -0.5, 0 };
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	char name[16], v[64];

	compare_default_opts(&o);
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	for (int r = 0; r < 12; r++)
		for (int e = 0; e < 5; e++) {
			double own = 1 + 0.003 * z[(e + r) % 5], base = (100 + 10 * r) * 0.6 * own;

			snprintf(name, sizeof(name), "walk%02d", r);
			/* B: the whole kind 8% slower, walk03 30% beyond that */
			add(&a, name, "miss", MODE_LATENCY, base * ep[e], 0.0005, 64, (uint64_t)(r * 10 + e), e + 1);
			add(&b, name, "miss", MODE_LATENCY, base * ep[(e + 2) % 5] * 1.08 * (r == 3 ? 1.3 : 1), 0.0005,
			    64, (uint64_t)(1000 + r * 10 + e), e + 1);
			snprintf(name, sizeof(name), "hot%02d", r);
			/* hot00: one epoch of B 6% high, an outlier; hot01: B 10% slower */
			add(&a, name, "hit", MODE_LATENCY, 6 * own, 0.0005, 64, (uint64_t)(2000 + r * 10 + e), e + 1);
			add(&b, name, "hit", MODE_LATENCY,
			    6 * own * (r == 0 && e == 2 ? 1.06 : 1) * (r == 1 ? 1.10 : 1), 0.0005, 64,
			    (uint64_t)(3000 + r * 10 + e), e + 1);
		}
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "walk03", "miss", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && fabs(x->ratio - 1.3) < 0.02,
	      "a row 30%% beyond its kind's +8%%: regressed (%.3f)", x ? x->ratio : 0);
	x = row(&c, "walk07", "miss", MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_SAME && fabs(x->ratio - 1) < 0.005 && x->kind >= 0 &&
		      fabs(expm1(c.kinds[x->kind].shift) - 0.08) < 0.005,
	      "a row that moved with its kind (+%.1f%%, epochs +-4%% together): %s", x ? expm1(c.kinds[x->kind].shift) * 100 : 0, v);
	CHECK(x && c.kinds[x->kind].verdict == CMP_CANNOT_TELL && c.kinds[x->kind].shift_source == PHI_DEFAULT,
	      "one kind of epochs +-4%%: its +8%% shift as a whole cannot be told from one report a side");
	x = row(&c, "hot00", "hit", MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_SAME && x->sb.dropped == 1, "an outlier epoch (+6%%) left out: %s, %zu dropped", v,
	      x ? x->sb.dropped : 0);
	x = row(&c, "hot01", "hit", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED, "hot01 x1.10: regressed");
	CHECK(c.regressed == 2 && c.improved == 0, "exactly the two changed rows: %zu regressed, %zu improved",
	      c.regressed, c.improved);
	compare_free(&c);
	/* every hot row 20% slower: no row beyond its kind, the kind as a
	 * whole regressed, and the summary and --fail-on-regression say so */
	for (size_t i = 0; i < b.n; i++)
		if (!strcmp(b.r[i].pattern, "hit"))
			for (size_t k = 0; k < b.r[i].nsamples; k++)
				b.r[i].samples[k] *= 1.2;
	for (size_t i = 0; i < b.n; i++)
		stats_summarize(b.r[i].samples, b.r[i].nsamples, &b.r[i].s);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	{
		char sum[300];

		compare_summary(&c, sum, sizeof(sum));
		CHECK(compare_kinds_regressed(&c) == 1 && strstr(sum, "1 kind moved as a whole (1 regressed)"),
		      "all hot rows x1.2: the kind regressed as a whole (%s)", sum);
	}
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* A result of epoch e with two steady states (ticks at tpc 0.6) and its
 * median in the state that holds most of its samples this epoch. */
static void add_states(struct report *rep, const char *name, double lo, double hi, bool hi_most, int e)
{
	struct result *r = add(rep, name, "hit", MODE_LATENCY, (hi_most ? hi : lo) * 0.6, 0.0005, 64,
			       (uint64_t)(5000 + e + (int)(lo * 100) + (hi_most ? 50 : 0)), e);

	r->extra.mix = (struct mixture){ .nstates = 2, .state = { { lo * 0.6, hi_most ? 0.4 : 0.6 },
								    { hi * 0.6, hi_most ? 0.6 : 0.4 } } };
	r->extra.has |= 1u << RX_MIXTURE;
}

/* Rows whose samples hold two states: compared at a state, like with like,
 * not by a median that moves with the states' shares. */
static void test_states(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;

	compare_default_opts(&o);
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	for (int e = 1; e <= 5; e++) {
		/* shares: A mostly the low state, B mostly the high one */
		add_states(&a, "shares", 7.0, 8.2, e == 3, e);
		add_states(&b, "shares", 7.0, 8.2, e != 3, e);
		/* both states 10% higher in B */
		add_states(&a, "moved", 7.0, 8.2, false, e);
		add_states(&b, "moved", 7.7, 9.02, false, e);
	}
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "shares", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_SAME && fabs(x->state - 7.0) < 0.01 && c.states == 2,
	      "states 7.0 and 8.2 in other shares: same, at %.2f (median %.2f against %.2f)", x ? x->state : 0, 7.0,
	      8.2);
	x = row(&c, "moved", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && fabs(x->ratio - 1.1) < 0.01,
	      "both states 10%% higher: regressed, lowest against lowest (%.3f)", x ? x->ratio : 0);
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* Epochs that were disturbed and run again (meta.epochs rerun) stay in the
 * report and out of the comparison. */
static void test_rerun(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;

	compare_default_opts(&o);
	init(&a, "6.1", 0.6);
	init(&b, "6.1", 0.6);
	for (int e = 1; e <= 7; e++) {
		if (e <= 5)
			add(&a, "r", "hit", MODE_LATENCY, 6.0, 0.0005, 64, (uint64_t)(7000 + e), e);
		/* B's epochs 2 and 4 ran 30% slow, disturbed; 6 and 7 replaced them */
		add(&b, "r", "hit", MODE_LATENCY, e == 2 || e == 4 ? 7.8 : 6.0, 0.0005, 64, (uint64_t)(7100 + e), e);
	}
	b.epochs = calloc(7, sizeof(*b.epochs));
	for (int e = 1; e <= 7; e++)
		b.epochs[b.nepochs++] = (struct epoch_out){ .has = 1u << EP_EPOCH | 1u << EP_RERUN, .epoch = e,
							    .rerun = e == 2 || e == 4 };
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "r", NULL, MODE_LATENCY);
	CHECK(x && x->verdict == CMP_SAME && x->b_reps == 5, "two epochs run again left out: %s over %zu",
	      x && x->verdict == CMP_SAME ? "same" : "not same", x ? x->b_reps : 0);
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

static const char *verdict_of(const struct compare_row *x)
{
	static char v[96];

	if (!x)
		return "no row";
	compare_verdict_text(x, v, sizeof(v));
	return v;
}

/* Epochs whose drift chain moved (result_drifted): in B's epochs 2 and 4
 * every chain read 1% slow, row r ran 30% slow and the others 10%, while
 * in the other epochs the chains held one speed. They leave compare and
 * the twin verdict; x1.10 beside them is found. Where the chains move
 * with the clock (half of the other rows' 3% off in every epoch, no
 * slower) the moves tell nothing and the same epochs stay in. */
static void drift_side(struct report *rep, double f, bool steady, const double *bad, uint64_t seed)
{
	init(rep, "6.1", 0.6);
	for (int e = 1; e <= 5; e++) {
		struct result *r = add(rep, "r", "hit", MODE_LATENCY, 6.0 * f * bad[e], 0.0005, 64, seed + (uint64_t)e, e);
		struct result *t = add(rep, "t", "hit", MODE_LATENCY, 8.0, 0.0005, 64, seed + 50 + (uint64_t)e, e);

		snprintf(r->twin, sizeof(r->twin), "t");
		r->clock_source = t->clock_source = RESULT_CLOCK_CHAIN;
		r->clock_scale = t->clock_scale = bad[e] > 1 ? 0.99 : 0.9996;
		for (int k = 0; k < 8; k++) {
			/* a disturbed epoch slows the others too, less */
			double f_o = steady && bad[e] > 1 ? 1.1 : 1;
			struct result *o = add(rep, "o", k % 2 ? "l2" : "dep", MODE_LATENCY, 20 * f_o, 0.0005, 16,
					       seed + 100 + (uint64_t)(e * 8 + k), e);

			snprintf(o->name, sizeof(o->name), "o%d", k);
			o->clock_source = RESULT_CLOCK_CHAIN;
			o->clock_scale = steady ? (bad[e] > 1 ? 0.99 : 0.9996) : k % 2 ? 0.9996 : 0.97;
		}
	}
	report_pair_twins(rep);
}

static void test_drift(void)
{
	static const double clean[6] = { 1, 1, 1, 1, 1, 1 }, hit[6] = { 1, 1, 1.3, 1, 1.3, 1 };
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	struct judgment j;

	compare_default_opts(&o);
	for (int steady = 1; steady >= 0; steady--)
		for (int inj = 0; inj < 2; inj++) {
			drift_side(&a, 1, steady, clean, 8000);
			drift_side(&b, inj ? 1.10 : 1, steady, hit, 8100);
			CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
			x = row(&c, "r", NULL, MODE_LATENCY);
			if (steady)
				CHECK(x && x->b_reps == 3 && c.drifted == 20 &&
					      x->verdict == (inj ? CMP_REGRESSED : CMP_SAME),
				      "steady chain, x%.2f: the 2 drifted epochs of 10 rows left out (%zu, %zu reps), %s",
				      inj ? 1.10 : 1.0, c.drifted, x ? x->b_reps : 0, verdict_of(x));
			else
				CHECK(x && x->b_reps == 5 && c.drifted == 0 && x->verdict != CMP_SAME,
				      "chain moving with the clock: nothing left out (%zu, %zu reps)", c.drifted,
				      x ? x->b_reps : 0);
			if (!inj) {
				CHECK(report_judge(&b, RESULT_USER, "r", "t", MODE_LATENCY, "hit", &j) ==
					      (steady ? 3u : 5u),
				      "the twin verdict over %d epochs", steady ? 3 : 5);
			}
			compare_free(&c);
			report_free(&b);
			report_free(&a);
		}
	/* B disturbed in 4 of its 5 epochs, A quiet: not like with like, so
	 * untested and said so, never flagged (a busy host's A/A pair read x1.5) */
	{
		static const double most[6] = { 1, 1.3, 1.3, 1, 1.3, 1.3 };

		drift_side(&a, 1, true, clean, 8000);
		drift_side(&b, 1, true, most, 8100);
		CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
		x = row(&c, "r", NULL, MODE_LATENCY);
		CHECK(x && x->disturbed && x->verdict == CMP_CANNOT_TELL && c.disturbed >= 1 && flagged(&c) == 0 &&
			      !strcmp(verdict_of(x), "cannot tell (one side disturbed: its drift chain moved in most epochs)"),
		      "one side disturbed throughout: %s, %zu flagged", verdict_of(x), flagged(&c));
		/* the run's own verdict on r against t: unresolved, and why */
		CHECK(report_judge(&b, RESULT_USER, "r", "t", MODE_LATENCY, "hit", &j) == 5 &&
			      j.v == VERDICT_UNRESOLVED && j.disturbed,
		      "the twin verdict of a row disturbed in 4 of 5 epochs: unresolved (disturbed)");
		compare_free(&c);
		report_free(&b);
		report_free(&a);
	}
}

int main(void)
{
	test_estimate();
	test_tests();
	test_bh();
	test_one_report();
	test_three_reports();
	test_same_needs_equivalence();
	test_kinds();
	test_states();
	test_rerun();
	test_drift();
	test_calibration();
	test_blocks();
	return test_done("compare");
}
