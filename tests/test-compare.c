/* test-compare.c - compare's arithmetic on synthetic samples (issue 7):
 * no difference -> no significant change; a known 20x difference (lock orb
 * vs orb) -> reported; a small shift inside the run-to-run noise -> not
 * reported when only within-run samples are available (seed
 * slub-partial-pages-variance-2008); the same shift with tight passes ->
 * reported; determinism of the bootstrap; Student t quantiles; fingerprint
 * mismatches counted. Data are generated, so nothing here depends on the
 * machine's timing. */
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
	r->samples = malloc(n * sizeof(double));
	r->nsamples = n;
	gen(r->samples, n, base, spread, seed);
	stats_summarize(r->samples, n, &r->s);
	if (pass)
		r->extra = json_pack("{s:i}", "pass", pass);
}

static void init(struct report *rep, const char *kernel)
{
	report_init(rep);
	rep->cal.timer_hz = 2e9;
	rep->cal.ticks_per_cycle = 0.6;
	rep->cal.core_hz = 2e9 / 0.6;
	rep->meta = json_pack("{s:{s:{s:s}, s:s}}", "fingerprint", "kernel", "release", kernel, "host", "h");
}

static const struct compare_row *row(const struct comparison *c, const char *name, enum probe_mode m)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name) && c->rows[i].mode == m)
			return &c->rows[i];
	return NULL;
}

static void test_bootstrap(void)
{
	double a[2000], b[2000], r1, lo1, hi1, r2, lo2, hi2;

	gen(a, 2000, 10, 0.05, 1);
	gen(b, 2000, 10, 0.05, 2);
	CHECK(compare_bootstrap(a, 2000, b, 2000, 500, 7, &r1, &lo1, &hi1) == 0, "bootstrap runs");
	CHECK(lo1 < 1 && hi1 > 1, "same distribution: CI [%.4f, %.4f] holds 1", lo1, hi1);
	CHECK(compare_bootstrap(a, 2000, b, 2000, 500, 7, &r2, &lo2, &hi2) == 0 && lo1 == lo2 &&
		      hi1 == hi2 && r1 == r2,
	      "same seed, same interval");

	gen(b, 2000, 200, 0.05, 3);	/* 20x: lock orb vs orb */
	compare_bootstrap(a, 2000, b, 2000, 500, 7, &r1, &lo1, &hi1);
	CHECK(fabs(r1 - 20) < 0.5 && lo1 > 19 && hi1 < 21, "20x: ratio %.3f [%.3f, %.3f]", r1, lo1, hi1);

	gen(b, 2000, 10.3, 0.05, 4);	/* +3% */
	compare_bootstrap(a, 2000, b, 2000, 500, 7, &r1, &lo1, &hi1);
	CHECK(lo1 > 1.0 && fabs(r1 - 1.03) < 0.01, "3%% shift resolved within a run: %.4f [%.4f, %.4f]", r1, lo1, hi1);

	CHECK(compare_bootstrap(a, 0, b, 10, 500, 7, &r1, &lo1, &hi1) == -EINVAL, "no samples: EINVAL");
}

static void test_passes_math(void)
{
	double a[] = { 10.0, 10.2, 9.9, 10.1 }, b[] = { 10.0, 10.1, 10.2, 9.9 }, c[] = { 12.0, 12.1, 11.9, 12.2 };
	double r, lo, hi;

	CHECK(fabs(compare_t975(1) - 12.706) < 1e-3 && fabs(compare_t975(10) - 2.228) < 1e-3 &&
		      fabs(compare_t975(1e6) - 1.96) < 1e-3 && compare_t975(40) > 2.0 && compare_t975(40) < 2.03,
	      "t quantiles");
	CHECK(compare_passes(a, 4, b, 4, &r, &lo, &hi) == 0 && lo < 1 && hi > 1, "same passes: [%.4f, %.4f]", lo, hi);
	CHECK(compare_passes(a, 4, c, 4, &r, &lo, &hi) == 0 && lo > 1.1 && fabs(r - 1.195) < 0.01,
	      "+20%% passes: %.4f [%.4f, %.4f]", r, lo, hi);
	CHECK(compare_passes(a, 1, c, 4, &r, &lo, &hi) == -EINVAL, "one pass is not a spread");
}

static void test_reports(void)
{
	struct compare_opts o;
	struct report a, b;
	struct comparison c;
	const struct compare_row *x;
	char v[64];

	compare_default_opts(&o);

	/* 1. same build twice, 40 rows, no passes: nothing significant */
	init(&a, "6.1");
	init(&b, "6.1");
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "probe%02d", i);
		/* run-to-run drift of up to +-2% on top of the sample noise */
		add(&a, name, MODE_LATENCY, 5 + i, 0.05, 512, 100 + i, 0);
		add(&b, name, MODE_LATENCY, (5 + i) * (1 + 0.02 * ((i % 5) - 2) / 2), 0.05, 512, 200 + i, 0);
	}
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	CHECK(c.same >= 38 && c.n == 40, "same build: %zu of %zu rows unchanged (>= 95%%)", c.same, c.n);
	CHECK(c.fp_diffs == 0, "same fingerprint");
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 2. 20x slower and 20x faster rows, a 3% shift, a row only in B */
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
	CHECK(x && x->lo > 1.0 && x->verdict == CMP_SAME && x->basis == BASIS_SAMPLES,
	      "3%% shift, samples only: CI [%.3f, %.3f] excludes 1 but under the noise floor", x ? x->lo : 0,
	      x ? x->hi : 0);
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
			      strstr(buf, "no significant change"),
		      "mail has the verdicts");
		free(buf);
	}
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* 3. passes: 3% shift with 0.3% pass spread -> reported; with 3%
	 *    spread between passes -> not */
	init(&a, "6.1");
	init(&b, "6.1");
	for (int p = 1; p <= 5; p++) {
		add(&a, "tight", MODE_LATENCY, 10 * (1 + 0.003 * (p % 3)), 0.02, 256, 10 + p, p);
		add(&b, "tight", MODE_LATENCY, 10.3 * (1 + 0.003 * ((p + 1) % 3)), 0.02, 256, 20 + p, p);
		add(&a, "noisy", MODE_LATENCY, 10 * (1 + 0.03 * (p % 3 - 1)), 0.02, 256, 30 + p, p);
		add(&b, "noisy", MODE_LATENCY, 10.1 * (1 + 0.03 * ((p + 1) % 3 - 1)), 0.02, 256, 40 + p, p);
	}
	CHECK(compare_max_pass(&a) == 5, "five passes");
	CHECK(compare_reports(&a, &b, &o, &c) == 0, "compare runs");
	x = row(&c, "tight", MODE_LATENCY);
	CHECK(x && x->basis == BASIS_PASSES && x->verdict == CMP_REGRESSED,
	      "3%% shift over tight passes reported: [%.4f, %.4f]", x ? x->lo : 0, x ? x->hi : 0);
	x = row(&c, "noisy", MODE_LATENCY);
	CHECK(x && x->basis == BASIS_PASSES && x->verdict == CMP_SAME,
	      "1%% shift under 3%% pass noise not reported: [%.4f, %.4f]", x ? x->lo : 0, x ? x->hi : 0);
	compare_free(&c);
	report_free(&a);
	report_free(&b);
}

int main(void)
{
	test_bootstrap();
	test_passes_math();
	test_reports();
	return test_done("compare");
}
