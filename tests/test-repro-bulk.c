/* SPDX-License-Identifier: MIT */
/* test-repro-bulk.c - the 2015 SLUB bulk reproduction's arithmetic, with no
 * timing thresholds: the alloc path of patch 6/7 (one __slab_alloc refill
 * per slab of objects, plain loads and stores in between, no per-object
 * this_cpu_cmpxchg as 2/7's fall-back had; distinct objects), the ops each
 * algorithm runs per object, the fallback's plain-commit twin (every object
 * out and back once, its commits without cmpxchg16b), the what-if
 * arithmetic on a synthetic input and with the commit priced in context,
 * and the units its tables and lines say. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "config.h"
#include "harness.h"
#include "repro-run.h"
#include "repro/slub-bulk-free.h"

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/* Distinct non-NULL objects; *nslabs: how many slabs they come from. */
static bool distinct(const struct bulk_cache *c, void **v, size_t n, size_t *nslabs)
{
	void **s = malloc(n * sizeof(void *));
	size_t *idx = malloc(n * sizeof(size_t)), k = 0;
	bool ok = s && idx;

	memcpy(s, v, n * sizeof(void *));
	qsort(s, n, sizeof(void *), cmp_ptr);
	for (size_t i = 0; i < n && ok; i++) {
		ok = s[i] && (i == 0 || s[i] != s[i - 1]);
		idx[i] = slab_index(&c->s, s[i]);
		k += i == 0 || idx[i] != idx[i - 1];	/* sorted: one slab's objects are adjacent */
	}
	*nslabs = k;
	free(s);
	free(idx);
	return ok;
}

/* From an empty CPU freelist, N objects over slabs of M: ceil(N / M)
 * refills, each one __slab_alloc (a save/restore pair) inside an IRQ
 * enable/disable; no this_cpu_cmpxchg at all. Then with F objects left on
 * the CPU freelist: ceil((N - F) / M). */
static void test_alloc_67(enum bulk_algo a)
{
	static const size_t ns[] = { 1, 15, 16, 17, 40, 250 };

	for (size_t t = 0; t < ARRAY_SIZE(ns); t++) {
		struct bulk_cache *c;
		struct bulk_stats s0, s1;
		size_t n = ns[t], m, refills, slabs;
		void *p[256];

		if (bulk_cache_create(&c, 256, 4096) < 0) {
			CHECK(0, "bulk cache");
			return;
		}
		m = c->s.objs;
		refills = (n + m - 1) / m;
		s0 = c->st;
		CHECK(bulk_alloc(c, a, n, p) == 0, "%s: alloc %zu", bulk_algo_names[a], n);
		s1 = c->st;
		CHECK(s1.alloc_slow - s0.alloc_slow == refills && s1.irq_saves - s0.irq_saves == refills,
		      "%s: %zu objects, %zu per slab: %llu refills, %llu saves, expected %zu",
		      bulk_algo_names[a], n, m, (unsigned long long)(s1.alloc_slow - s0.alloc_slow),
		      (unsigned long long)(s1.irq_saves - s0.irq_saves), refills);
		CHECK(s1.irq_pairs - s0.irq_pairs == 1 + refills, "%s: %zu objects: %llu disable/enable "
		      "pairs, expected 1 + %zu", bulk_algo_names[a], n,
		      (unsigned long long)(s1.irq_pairs - s0.irq_pairs), refills);
		CHECK(s1.cpu_cmpxchg == s0.cpu_cmpxchg, "%s: %zu objects taken with plain loads and "
		      "stores (%llu this_cpu_cmpxchg; 2/7's fall-back ran one per object after the "
		      "drain)", bulk_algo_names[a], n, (unsigned long long)(s1.cpu_cmpxchg - s0.cpu_cmpxchg));
		CHECK(distinct(c, p, n, &slabs) && slabs == refills, "%s: %zu distinct objects from %zu "
		      "slabs, expected %zu", bulk_algo_names[a], n, slabs, refills);
		/* F = refills * m - n left on the CPU freelist */
		s0 = c->st;
		CHECK(bulk_alloc(c, a, 5 + refills * m - n, p + 0) == 0, "%s: alloc again",
		      bulk_algo_names[a]);
		s1 = c->st;
		CHECK(s1.alloc_slow - s0.alloc_slow == 1, "%s: %zu left on the CPU freelist, %zu more: "
		      "%llu refill, expected 1", bulk_algo_names[a], refills * m - n,
		      5 + refills * m - n, (unsigned long long)(s1.alloc_slow - s0.alloc_slow));
		bulk_cache_destroy(c);
	}
}

/* Ops per object in steady state at bulk b (rounds of alloc + free). */
static void ops_at(enum bulk_algo a, size_t b, struct bulk_ops *o)
{
	struct bulk_cache *c;
	struct bulk_stats s0, s1;
	void *p[64];

	*o = (struct bulk_ops){ NAN, NAN, NAN };
	if (bulk_cache_create(&c, 256, 4096) < 0)
		return;
	for (int r = 0; r < 4; r++)	/* warm: a CPU slab */
		if (!bulk_alloc(c, a, b, p))
			bulk_free(c, a, b, p);
	s0 = c->st;
	for (int r = 0; r < 10; r++)
		if (!bulk_alloc(c, a, b, p))
			bulk_free(c, a, b, p);
	s1 = c->st;
	bulk_ops_per_object(&s0, &s1, 10.0 * (double)b, o);
	bulk_cache_destroy(c);
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

static void test_whatif(void)
{
	struct bulk_ops n = { .irq_pair = 2, .irq_save = 0.5, .cpu_cmpxchg = 3 };
	struct bulk_ops model = { .irq_pair = 1, .irq_save = 1, .cpu_cmpxchg = 25 };
	struct bulk_stats s0 = { .irq_pairs = 10, .irq_saves = 1, .cpu_cmpxchg = 7 };
	struct bulk_stats s1 = { .irq_pairs = 30, .irq_saves = 6, .cpu_cmpxchg = 37 };
	struct bulk_ops o;
	double w;

	CHECK(bulk_kernel_cost.irq_pair == 7 && bulk_kernel_cost.irq_save == 37 &&
	      bulk_kernel_cost.cpu_cmpxchg == 9, "the series' own figures: 7, 37, 9");
	/* 20 + 0.5 * (2 * (7 - 1) + 0.5 * (37 - 1) + 3 * (9 - 25)) = 20 + 0.5 * -18 */
	w = bulk_whatif(20, &n, &model, &bulk_kernel_cost, 0.5);
	CHECK(near(w, 11), "what-if ticks %.6f, expected 11", w);
	CHECK(near(bulk_whatif(20, &n, &model, &model, 0.5), 20), "the model's own costs change nothing");
	bulk_ops_per_object(&s0, &s1, 10, &o);
	CHECK(near(o.irq_pair, 2) && near(o.irq_save, 0.5) && near(o.cpu_cmpxchg, 3),
	      "ops per object %.3f %.3f %.3f, expected 2 0.5 3", o.irq_pair, o.irq_save, o.cpu_cmpxchg);
	/* bulk 1: one by one commits twice (alloc, free), the series toggles twice */
	ops_at(BULK_FALLBACK, 1, &o);
	CHECK(near(o.cpu_cmpxchg, 2) && o.irq_pair == 0 && o.irq_save == 0,
	      "fallback, bulk 1: %.2f commits, %.2f pairs, expected 2, 0", o.cpu_cmpxchg, o.irq_pair);
	ops_at(BULK_POSTED, 1, &o);
	CHECK(near(o.irq_pair, 2) && o.cpu_cmpxchg == 0 && o.irq_save == 0,
	      "1-7/7, bulk 1: %.2f pairs, %.2f commits, expected 2, 0", o.irq_pair, o.cpu_cmpxchg);
	ops_at(BULK_PREVIOUS, 8, &o);
	CHECK(near(o.irq_pair, 1.0 / 8) && near(o.cpu_cmpxchg, 1),
	      "1-6/7, bulk 8: %.3f pairs, %.2f commits (the frees), expected 0.125, 1", o.irq_pair,
	      o.cpu_cmpxchg);
}

/* The twin runs the fallback's path with a plain commit: the same objects
 * and the same number of commits, none of them a cmpxchg16b (the counters
 * say which commit ran); every object comes back once. */
static void test_twin(void)
{
	static const size_t ns[] = { 1, 15, 17, 40 };

	for (size_t t = 0; t < ARRAY_SIZE(ns); t++) {
		struct bulk_cache *c[2];
		struct bulk_stats s0[2], s1[2];
		void *p[2][64];
		size_t n = ns[t], slabs, commits;

		for (int v = 0; v < 2; v++) {
			enum bulk_algo a = v ? BULK_TWIN : BULK_FALLBACK;

			if (bulk_cache_create(&c[v], 256, 4096) < 0) {
				CHECK(0, "bulk cache");
				return;
			}
			s0[v] = c[v]->st;
			CHECK(bulk_alloc(c[v], a, n, p[v]) == 0, "%s: alloc %zu", bulk_algo_names[a], n);
			CHECK(distinct(c[v], p[v], n, &slabs), "%s: %zu distinct objects",
			      bulk_algo_names[a], n);
			bulk_free(c[v], a, n, p[v]);
			s1[v] = c[v]->st;
			CHECK(bulk_cache_free_objects(c[v]) == c[v]->s.nslabs * c[v]->s.objs,
			      "%s: %zu objects out, %zu of %zu back", bulk_algo_names[a], n,
			      bulk_cache_free_objects(c[v]), c[v]->s.nslabs * c[v]->s.objs);
		}
		CHECK(s1[1].cpu_cmpxchg == s0[1].cpu_cmpxchg, "twin, %zu objects: %llu cmpxchg16b "
		      "commits, expected none", n, (unsigned long long)(s1[1].cpu_cmpxchg - s0[1].cpu_cmpxchg));
		CHECK(s1[0].plain_commits == s0[0].plain_commits, "fallback, %zu objects: %llu plain "
		      "commits, expected none", n,
		      (unsigned long long)(s1[0].plain_commits - s0[0].plain_commits));
		/* one commit per alloc and per free that takes no slow path */
		commits = 2 * n - (s1[0].alloc_slow - s0[0].alloc_slow) - (s1[0].free_slow - s0[0].free_slow);
		CHECK(s1[1].plain_commits - s0[1].plain_commits == commits &&
		      s1[0].cpu_cmpxchg - s0[0].cpu_cmpxchg == commits,
		      "%zu objects: twin %llu plain commits, fallback %llu cmpxchg16b, expected %zu each",
		      n, (unsigned long long)(s1[1].plain_commits - s0[1].plain_commits),
		      (unsigned long long)(s1[0].cpu_cmpxchg - s0[0].cpu_cmpxchg), commits);
		CHECK(s1[1].alloc_slow - s0[1].alloc_slow == s1[0].alloc_slow - s0[0].alloc_slow &&
		      s1[1].free_slow - s0[1].free_slow == s1[0].free_slow - s0[0].free_slow,
		      "%zu objects: twin and fallback take the same slow paths", n);
		bulk_cache_destroy(c[0]);
		bulk_cache_destroy(c[1]);
	}
}

/* The commit priced in context, on a synthetic pass: fallback 30 ticks per
 * object, its twin 20, 2 commits per object, 0.5 ticks per cycle: 10 core
 * cycles per commit; at the kernel's 9 the fallback's what-if is the twin
 * plus 2 x 9 cycles: 29 ticks (the chained 25 would give 46). */
static void test_whatif_in_context(void)
{
	struct bulk_ops n = { .cpu_cmpxchg = 2 }, m = { .irq_pair = 1, .irq_save = 1 };
	double ctx = bulk_commit_in_context(30, 20, 2, 0.5), w;

	CHECK(near(ctx, 10), "in-context commit %.6f core cycles, expected 10", ctx);
	m.cpu_cmpxchg = ctx;
	w = bulk_whatif(30, &n, &m, &bulk_kernel_cost, 0.5);
	CHECK(near(w, 29) && near(w, 20 + 0.5 * 2 * 9), "what-if %.6f ticks, expected 29", w);
}

static double jnum(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* The run's what-if of the fallback is, pass by pass, its twin plus the
 * kernel's commits and toggles: with the chained commit cost it is not. */
static void check_whatif_json(json_t *root, double tpc)
{
	json_t *mc = json_object_get(json_object_get(root, "priced_ops"), "model_cycles");
	json_t *row = json_array_get(json_object_get(root, "main"), 0);
	json_t *ops = json_object_get(row, "fallback_ops_per_object");
	json_t *tw = json_object_get(row, "fallback_twin_passes");
	double v[JUDGE_MAX_EPOCHS], c, want, got, chained;
	size_t np = json_array_size(tw);

	if (!mc || !ops || !np || np > JUDGE_MAX_EPOCHS) {
		CHECK(0, "the JSON has the priced ops, the bulk-1 row and its twin's passes");
		return;
	}
	c = tpc * (jnum(ops, "irq_pairs") * (bulk_kernel_cost.irq_pair - jnum(mc, "irq_pairs")) +
		   jnum(ops, "irq_saves") * (bulk_kernel_cost.irq_save - jnum(mc, "irq_saves")) +
		   jnum(ops, "cpu_cmpxchg") * bulk_kernel_cost.cpu_cmpxchg);
	for (size_t k = 0; k < np; k++)
		v[k] = json_number_value(json_array_get(tw, k)) + c;
	want = stats_median(v, np);
	got = jnum(row, "fallback_whatif_ticks");
	chained = jnum(row, "fallback_ticks") + tpc * jnum(ops, "cpu_cmpxchg") *
		  (bulk_kernel_cost.cpu_cmpxchg - jnum(mc, "cpu_cmpxchg"));
	CHECK(jnum(ops, "cpu_cmpxchg") > 1 && near(got, want),
	      "bulk 1: the fallback's what-if %.6f ticks, expected its twin + the kernel's costs %.6f "
	      "(at the chained commit cost: %.6f)", got, want, chained);
	CHECK(near(jnum(json_array_get(json_object_get(root, "whatif"), 0), "fallback_ticks"), got),
	      "the what-if table's fallback is the same figure");
}

/* The run on a tiny experiment: each table says its unit, and figures
 * measured in timer ticks are never called cycles. */
static void test_units(void)
{
	char *ov[] = {
		"experiment.kind=slub-bulk-free", "slub-bulk-free.bulk=1,8,16",
		"slub-bulk-free.objects=1000", "slub-bulk-free.passes=2",
		"slub-bulk-free.spread_slabs=16",
	};
	struct calibration cal = { .ticks_per_cycle = 0.5, .timer_hz = 2e9, .overhead_min = 0 };
	struct repro_test_run t;
	json_t *conc;
	char *buf;
	int ret;

	if (repro_test_run(&t, "slub-bulk-free", ov, ARRAY_SIZE(ov), &cal) < 0) {
		CHECK(0, "bulk: experiment loads");
		return;
	}
	buf = t.text;
	ret = t.ret;
	CHECK(ret == 0, "bulk scoring ran (%d)", ret);
	CHECK(strstr(buf, "Priced ops, core cycles per op"), "the priced ops in core cycles");
	CHECK(strstr(buf, "timer ticks (\"cycles(tsc)\", as the post) per object\nBulk - Fallback"),
	      "the main table in ticks");
	CHECK(strstr(buf, "in timer ticks per object (TSC 2.00 GHz)"), "beside: measured in ticks");
	CHECK(strstr(buf, "WHAT-IF (computed, not measured)") &&
	      strstr(buf, "unit: timer ticks per object (TSC 2.00 GHz here"), "the what-if in ticks");
	CHECK(strstr(buf, "x 0.500 ticks per core cycle"), "the what-if's conversion stated");
	CHECK(strstr(buf, "bulk 1: the measured model gives x"), "the bulk-1 comparison");
	CHECK(strstr(buf, "check: the commit in context costs ") &&
	      strstr(buf, "isolated, chained: "), "the check line prices the commit in context");
	CHECK(strstr(buf, "| fallback, plain commit (twin)\n"), "the twin named in the main table");
	CHECK(strstr(buf, "conclusion bulk 1, per object: ") &&
	      strstr(buf, "fallback, plain commit (twin)"), "the twin's conclusion");
	CHECK(strstr(buf, "timer ticks (\"cycles(tsc)\") per object, median of 2 passes"),
	      "the reviewer's case in ticks");
	CHECK(strstr(buf, "would add ") && strstr(buf, " timer ticks per object: "),
	      "what the toggles would add, in ticks");
	CHECK(!strstr(buf, " cycles per object"), "no tick figure called cycles:\n%s", buf);
	CHECK(strstr(buf, "deviations from the kernel the post ran:\n  - user space"),
	      "the deviations listed");
	CHECK(strstr(buf, "(series 1-7/7)") && strstr(buf, "(through 6/7"), "the series positions");
	conc = json_object_get(t.json, "conclusions");
	CHECK(conc && json_array_size(conc) == 3 * 3 + 1 + 1, "conclusions: %zu, expected 11",
	      conc ? json_array_size(conc) : 0);
	for (size_t i = 0; conc && i < json_array_size(conc); i++) {
		json_t *c = json_array_get(conc, i);
		json_int_t n = json_integer_value(json_object_get(c, "passes"));
		json_int_t d = json_integer_value(json_object_get(c, "disturbed"));
		json_int_t u = json_integer_value(json_object_get(c, "unmeasured"));

		/* a figure can come out at or below 0 on a short run (qemu-user does):
		 * that pass is left out and counted, never lost */
		CHECK(n + d + u == 2, "conclusion %zu accounts for the 2 passes (%lld judged + %lld "
		      "disturbed + %lld unmeasured)", i, (long long)n, (long long)d, (long long)u);
	}
	check_whatif_json(t.json, cal.ticks_per_cycle);
	repro_test_done(&t);
}

int main(void)
{
	log_quiet = 1;
	test_alloc_67(BULK_POSTED);
	test_alloc_67(BULK_PREVIOUS);
	test_whatif();
	test_twin();
	test_whatif_in_context();
	test_units();
	return test_done("repro-bulk");
}
