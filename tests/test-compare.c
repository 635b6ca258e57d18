/* SPDX-License-Identifier: MIT */
/* test-compare.c - compare's rule on synthetic reports: no difference ->
 * nothing flagged; a known 20x difference (lock orb vs orb) -> reported; a
 * 12% move of one row between single processes (bimodal rows do that) ->
 * not flagged; a 1.2% calibration difference, real (the core ran faster)
 * or not (the add chain read it wrong), flags nothing where comparing ns
 * flagged every row; a real 10% change of one row over three processes
 * per side -> flagged; a moved self-check -> a calibration problem, not a
 * regression; 40 marginal rows -> none after Holm-Bonferroni, one alone ->
 * flagged. Data are generated, so nothing here depends on the machine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compare.h"
#include "harness.h"
#include "report.h"

/* Deterministic noise: a skewed, bimodal-ish distribution like real
 * samples (most near base, a tail above). */
static void gen(double *v, size_t n, double base, double spread, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		double u;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		u = (double)(s >> 11) / 9007199254740992.0;
		v[i] = base * (1 + spread * (u < 0.8 ? u : 4 * u));
	}
}

static void add(struct report *rep, const char *name, enum probe_mode mode, double base,
		double spread, size_t n, uint64_t seed, int pass)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	snprintf(r->atomicity, sizeof(r->atomicity), "atomic");
	r->mode = mode;
	r->ci_reached = true;
	r->samples = malloc(n * sizeof(double));
	r->nsamples = n;
	gen(r->samples, n, base, spread, seed);
	stats_summarize(r->samples, n, &r->s);
	if (pass)
		r->extra = json_pack("{s:i}", "epoch", pass);
}

static void init_tpc(struct report *rep, const char *kernel, double tpc)
{
	report_init(rep);
	rep->cal.timer_hz = 2e9;
	rep->cal.ticks_per_cycle = tpc;
	rep->cal.core_hz = 2e9 / tpc;
	rep->meta = json_pack("{s:{s:{s:s}, s:s}}", "fingerprint", "kernel", "release", kernel, "host", "h");
}

static void init(struct report *rep, const char *kernel)
{
	init_tpc(rep, kernel, 0.6);
}

static const struct compare_row *row(const struct comparison *c, const char *name, enum probe_mode m)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name) && c->rows[i].mode == m)
			return &c->rows[i];
	return NULL;
}


static void test_welch_math(void)
{
	double a[] = { 10.0, 10.2, 9.9, 10.1 }, b[] = { 10.0, 10.1, 10.2, 9.9 }, c[] = { 12.0, 12.1, 11.9, 12.2 };
	double r, lo, hi, p;

	CHECK(fabs(compare_t975(1) - 12.706) < 1e-3 && fabs(compare_t975(10) - 2.228) < 1e-3 &&
		      fabs(compare_t975(1e6) - 1.96) < 1e-3 && compare_t975(40) > 2.0 && compare_t975(40) < 2.03,
	      "t quantiles");
	CHECK(compare_welch(a, 4, b, 4, &r, &lo, &hi, &p) == 0 && lo < 1 && hi > 1 && p > 0.5,
	      "same replicates: [%.4f, %.4f] p %.3f", lo, hi, p);
	CHECK(compare_welch(a, 4, c, 4, &r, &lo, &hi, &p) == 0 && lo > 1.1 && fabs(r - 1.195) < 0.01 && p < 1e-4,
	      "+20%% replicates: %.4f [%.4f, %.4f] p %.2g", r, lo, hi, p);
	CHECK(compare_welch(a, 1, c, 4, &r, &lo, &hi, &p) == -EINVAL, "one replicate is not a spread");
}

/* nproc processes of one row set, each with `passes` passes (0: none),
 * merged into rep the way `compare a1.json,a2.json` does. base(k, p)
 * gives the row's ticks for row k in process p. */
typedef double (*base_fn)(int k, int proc);

static void side(struct report *rep, const char *const *names, int nrows, int nproc, int passes,
		 double tpc, base_fn base, double spread, uint64_t seed)
{
	init_tpc(rep, "6.1", tpc);
	for (int p = 1; p <= nproc; p++) {
		struct report one, *dst = p == 1 ? rep : &one;

		if (p > 1)
			init_tpc(&one, "6.1", tpc);
		for (int k = 0; k < nrows; k++)
			for (int q = 1; q <= (passes ? passes : 1); q++)
				add(dst, names[k], MODE_LATENCY, base(k, p) * (1 + 0.002 * (q % 3)), spread, 256,
				    seed + 1000 * (uint64_t)p + 10 * (uint64_t)k + (uint64_t)q, passes ? q : 0);
		if (p > 1) {
			CHECK(compare_merge(rep, &one) == 0, "merge process %d", p);
			report_free(&one);
		}
	}
}

static const char *const rows12[] = { "add_chain", "imul_chain", "set_bit", "__set_bit", "xchg", "__xchg",
				      "cmpxchg", "cmpxchg_local", "atomic_inc", "local_inc", "or_word", "__or_word" };

/* ticks per op on a 0.6 ticks/cycle clock: 1, 3, then 7.5..18 cycles */
static double cycles_of(int k)
{
	return k == 0 ? 1 : k == 1 ? 3 : 7.5 + k;
}

static double steady(int k, int p)
{
	(void)p;
	return cycles_of(k) * 0.6;
}

static double steady_faster_core(int k, int p)
{
	(void)p;
	return cycles_of(k) * 0.6 * (1 - 0.012);	/* same cycles, 1.2% fewer ticks */
}

static double one_row_10pct(int k, int p)
{
	(void)p;
	return cycles_of(k) * 0.6 * (k == 4 ? 1.10 : 1.0);
}

static double imul_moved(int k, int p)
{
	(void)p;
	return cycles_of(k) * 0.6 * (k == 1 ? 1.05 : 1.0);
}

/* process-to-process scatter of +-1.5%: what separate processes show */
static double scattered(int k, int p)
{
	return cycles_of(k + 2) * 0.6 * (1 + 0.015 * ((p + k) % 3 - 1));
}

static double scattered_up4(int k, int p)
{
	return scattered(k, p + 1) * 1.04;
}

static size_t flagged(const struct comparison *c)
{
	return c->improved + c->regressed;
}

static void test_calibration(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;

	compare_default_opts(&o);

	/* 1. the recommended --epochs workflow, B's core 1.2% faster: the
	 *    ticks and the ticks per cycle both moved, the cycles did not */
	side(&a, rows12, 12, 3, 3, 0.6, steady, 0.002, 1);
	side(&b, rows12, 12, 3, 3, 0.6 * (1 - 0.012), steady_faster_core, 0.002, 2);
	CHECK(compare_max_process(&a) == 3 && compare_max_epoch(&a) == 9, "3 processes x 3 passes merged");
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "xchg", MODE_LATENCY);
	CHECK(flagged(&c) == 0 && c.calibration == 0, "1.2%% faster core: %zu rows flagged", flagged(&c));
	CHECK(x && x->basis == BASIS_PROCESSES && fabs(x->ratio - 1) < 0.005 && fabs(x->a_ns / x->b_ns - 1) > 0.01,
	      "compared in cycles (%.4f), not ns (%.4f)", x ? x->ratio : 0, x ? x->b_ns / x->a_ns : 0);
	CHECK(fabs(c.cal_shift - 0.012) < 1e-6 && x && x->floor > 0.03, "calibration component %.4f, floor %.4f",
	      c.cal_shift, x ? x->floor : 0);
	compare_free(&c);
	report_free(&b);

	/* 2. B's calibration read 1.2% off, the ticks are the same: every
	 *    row moves 1.2% in cycles, inside the floor the difference widens */
	side(&b, rows12, 12, 3, 3, 0.6 * (1 + 0.012), steady, 0.002, 3);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "set_bit", MODE_LATENCY);
	CHECK(flagged(&c) == 0, "1.2%% calibration error: %zu rows flagged (change %.4f)", flagged(&c),
	      x ? x->ratio : 0);
	compare_free(&c);
	report_free(&b);

	/* 3. a real 10% change of one row is flagged, and only that row */
	side(&b, rows12, 12, 3, 3, 0.6, one_row_10pct, 0.002, 4);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "xchg", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && c.regressed == 1 && c.improved == 0,
	      "10%% on xchg: %s, %zu regressed", x ? (x->verdict == CMP_REGRESSED ? "regressed" : "not") : "?",
	      c.regressed);
	compare_free(&c);
	report_free(&b);

	/* 4. the imul self-check moved 5%: a calibration problem, not a
	 *    regression, and it widens every row's floor */
	side(&b, rows12, 12, 3, 3, 0.6, imul_moved, 0.002, 5);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "imul_chain", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_CALIBRATION && c.calibration == 1 && c.regressed == 0,
	      "moved imul_chain reported as calibration (%zu calibration, %zu regressed)", c.calibration,
	      c.regressed);
	x = row(&c, "set_bit", MODE_LATENCY);
	CHECK(fabs(c.check_shift - 0.05) < 0.002 && x && x->floor > 0.055, "self-check %.4f in the floor %.4f",
	      c.check_shift, x ? x->floor : 0);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		compare_write_text(&c, &a, &b, "a.json", "b.json", f);
		fclose(f);
		CHECK(strstr(buf, "CALIBRATION MOVED") && strstr(buf, "calibration moved +5.0%") &&
			      strstr(buf, "Holm-Bonferroni over 10 rows"),
		      "text states the calibration problem and the correction");
		free(buf);
	}
	compare_free(&c);
	report_free(&b);
	report_free(&a);
}

/* 40 rows that each moved 4% with p between the uncorrected 5% and the
 * corrected 5%/40: none is flagged; one of them alone is. */
static void test_holm(void)
{
	static const char *names[40];
	static char buf[40][16];
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;

	compare_default_opts(&o);
	for (int k = 0; k < 40; k++) {
		snprintf(buf[k], sizeof(buf[k]), "probe%02d", k);
		names[k] = buf[k];
	}
	side(&a, names, 40, 3, 0, 0.6, scattered, 0.002, 11);
	side(&b, names, 40, 3, 0, 0.6, scattered_up4, 0.002, 12);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe05", MODE_LATENCY);
	CHECK(x && x->p > 0.05 / 40 && x->p < 0.05 && x->ratio > 1.035,
	      "premise: one row's p %.4f is significant alone, not after 40, change %.4f", x ? x->p : 0,
	      x ? x->ratio : 0);
	CHECK(flagged(&c) == 0 && c.tested == 40, "40 marginal rows: %zu flagged", flagged(&c));
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	side(&a, names + 5, 1, 3, 0, 0.6, scattered, 0.002, 11);
	side(&b, names + 5, 1, 3, 0, 0.6, scattered_up4, 0.002, 12);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	CHECK(c.regressed == 1, "the same row alone is flagged");
	compare_free(&c);
	report_free(&a);
	report_free(&b);
}

static void test_reports(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	char v[64];

	compare_default_opts(&o);

	/* 1. same build twice, one process each, 40 rows: drift of +-2% and
	 *    one bimodal row that landed 12% higher in B's process */
	init(&a, "6.1");
	init(&b, "6.1");
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "probe%02d", i);
		add(&a, name, MODE_LATENCY, 5 + i, 0.05, 512, 100 + i, 0);
		add(&b, name, MODE_LATENCY, (5 + i) * (1 + 0.02 * ((i % 5) - 2) / 2) * (i == 7 ? 1.12 : 1),
		    0.05, 512, 200 + i, 0);
	}
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "probe07", MODE_LATENCY);
	CHECK(x && x->basis == BASIS_BLOCKS && x->a_reps == COMPARE_BLOCKS && x->p < 1e-3,
	      "one process: blocks, the 12%% move is 'significant' within the run (p %.2g)", x ? x->p : 0);
	CHECK(c.same == 40 && c.n == 40, "same build: %zu of %zu rows unchanged under the %.0f%% floor", c.same,
	      c.n, c.base_floor * 100);
	CHECK(c.fp_diffs == 0, "same fingerprint");
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 1b. a row that missed its CI target moved 3x (LLC rows between
	 *     processes): no verdict with one process per side */
	init(&a, "6.1");
	init(&b, "6.1");
	add(&a, "llc_row", MODE_LATENCY, 60, 0.5, 256, 1, 0);
	add(&b, "llc_row", MODE_LATENCY, 180, 0.5, 256, 2, 0);
	a.r[0].ci_reached = false;
	/* the empty probe's residual: 0.016 -> 0.028 cycles, +75% of nothing */
	add(&a, "residual", MODE_LATENCY, 0.016 * 0.6, 0.01, 256, 5, 0);
	add(&b, "residual", MODE_LATENCY, 0.028 * 0.6, 0.01, 256, 6, 0);
	/* the imul check 1.5% low in B: under the 3% minimum, folded into the floors */
	add(&a, "imul_chain", MODE_LATENCY, 3 * 0.6, 0.001, 256, 7, 0);
	add(&b, "imul_chain", MODE_LATENCY, 2.955 * 0.6, 0.001, 256, 8, 0);
	add(&a, "hit_row", MODE_LATENCY, 10, 0.01, 256, 3, 0);
	add(&b, "hit_row", MODE_LATENCY, 13.5, 0.01, 256, 4, 0);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "llc_row", MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_UNSETTLED && c.unsettled == 1 && !strcmp(v, "no verdict (one process)"),
	      "3x on a row that missed its CI target: %s", v);
	x = row(&c, "residual", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_SAME && x->ratio > 1.5, "a residual of 0.02 cycles is no change (%.2f)",
	      x ? x->ratio : 0);
	x = row(&c, "imul_chain", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_SAME && c.calibration == 0 && fabs(c.check_shift - 0.015) < 0.002,
	      "imul 1.5%% low: no calibration problem, %.4f in the floors", c.check_shift);
	x = row(&c, "hit_row", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_REGRESSED && c.tested == 2, "a settled 35%% move is flagged (%zu tested)",
	      c.tested);
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 2. 20x slower and 20x faster rows, a row only in B */
	init(&a, "6.1");
	init(&b, "6.2");
	add(&a, "slow", MODE_LATENCY, 1, 0.05, 512, 1, 0);
	add(&b, "slow", MODE_LATENCY, 20, 0.05, 512, 2, 0);
	add(&a, "fast", MODE_THROUGHPUT, 20, 0.05, 512, 3, 0);
	add(&b, "fast", MODE_THROUGHPUT, 1, 0.05, 512, 4, 0);
	add(&a, "drift", MODE_LATENCY, 10, 0.02, 4096, 5, 0);
	add(&b, "drift", MODE_LATENCY, 10.3, 0.02, 4096, 6, 0);
	add(&b, "new", MODE_LATENCY, 3, 0.05, 64, 7, 0);
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "slow", MODE_LATENCY);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_REGRESSED && !strncmp(v, "regressed 19", 12), "20x slower: %s", v);
	x = row(&c, "fast", MODE_THROUGHPUT);
	compare_verdict_text(x, v, sizeof(v));
	CHECK(x && x->verdict == CMP_IMPROVED && !strncmp(v, "improved 9", 10), "20x faster: %s", v);
	x = row(&c, "drift", MODE_LATENCY);
	CHECK(x && x->lo > 1.0 && x->verdict == CMP_SAME, "3%% shift, one process: CI [%.3f, %.3f] excludes 1 but under the floor",
	      x ? x->lo : 0, x ? x->hi : 0);
	x = row(&c, "new", MODE_LATENCY);
	CHECK(x && x->verdict == CMP_ONLY_B, "row only in B");
	CHECK(c.fp_diffs == 1, "kernel release differs (%zu)", c.fp_diffs);
	CHECK(c.improved == 1 && c.regressed == 1 && c.same == 1 && c.unmatched == 1, "counts");
	{
		char *buf = NULL;
		size_t len = 0, col = 0, worst = 0;
		FILE *f = open_memstream(&buf, &len);

		compare_write_mail(&c, &a, &b, "a.json", "b.json", f);
		fclose(f);
		for (size_t k = 0; k < len; k++) {
			col = buf[k] == '\n' ? 0 : col + 1;
			worst = col > worst ? col : worst;
		}
		CHECK(worst <= 72, "compare mail fits 72 columns (%zu)", worst);
		if (worst > 72)
			fputs(buf, stdout);
		CHECK(strstr(buf, "FINGERPRINTS DIFFER") && strstr(buf, "kernel.release"),
		      "mismatch shown at the top");
		CHECK(strstr(buf, "cycles(tsc)") && strstr(buf, "regressed") && strstr(buf, "improved") &&
			      strstr(buf, "no significant change") && strstr(buf, "base floor 25.0% with one process"),
		      "mail has the verdicts and the floor");
		free(buf);
	}
	compare_free(&c);
	report_free(&a);
	report_free(&b);
}

int main(void)
{
	test_welch_math();
	test_calibration();
	test_holm();
	test_reports();
	return test_done("compare");
}
