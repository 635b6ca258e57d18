/* SPDX-License-Identifier: MIT */
/* test-runner.c - the runner end to end on the real machine: pinned,
 * calibrated, every sample kept, twins paired, JSON written atomically and
 * read back equal. No timing thresholds: structure and invariants only.
 * Then the overhead cancellation on a clock the test controls: a kernel of
 * known cost per op behind a costly prologue, timed through the runner's
 * timing seam, must come out at that cost for small and large N. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "config.h"
#include "harness.h"
#include "probes.h"
#include "report.h"
#include "runner.h"

/* The fake clock: a call of fake_fn costs PROLOGUE + iters * UNROLL *
 * per_op ticks, plus `cold` when it is the first call with ops after a
 * drift chain (a state the chain disturbed: what made the N/2N
 * extrapolation go wrong on memory-bound walks); the timer pair costs PAIR;
 * the drift chain runs at chain_tpc ticks per cycle. */
#define PAIR 40.0
#define PROLOGUE 5000.0
static struct {
	double now, per_op, cold, chain_tpc;
	bool after_chain;
} F;

static void fake_fn(struct probe_ctx *c, uint64_t iters)
{
	(void)c;
	F.now += PROLOGUE + (double)iters * UNROLL * F.per_op;
	if (iters && F.after_chain) {
		F.now += F.cold;
		F.after_chain = false;
	}
}

static double fake_kernel(void *arg, probe_kernel_fn fn, struct probe_ctx *c, uint64_t iters)
{
	double a = F.now;

	(void)arg;
	fn(c, iters);
	return F.now - a + PAIR;
}

static double fake_chain(void *arg, uint64_t iters)
{
	(void)arg;
	F.after_chain = true;
	return (double)iters * 64 * F.chain_tpc + PAIR;
}

/* One fake measurement: median per op in ticks (res filled). */
static double fake_measure(double sample_us, double per_op, double cold, double chain_tpc,
			   struct result *res)
{
	static const struct runner_timing timing = { fake_kernel, fake_chain, NULL };
	struct calibration cal = { .timer_hz = 1e9, .ticks_per_cycle = 0.75, .core_hz = 1e9 / 0.75,
				   .overhead_min = PAIR };
	struct probe_ctx ctx = { .mode = MODE_LATENCY };
	struct run_opts o;

	runner_default_opts(&o);
	o.timing = &timing;
	o.sample_us = sample_us;
	o.min_samples = 32;
	o.max_samples = 64;
	o.max_seconds = 5;
	memset(&F, 0, sizeof(F));
	F.per_op = per_op;
	F.cold = cold;
	F.chain_tpc = chain_tpc;
	result_release(res);
	memset(res, 0, sizeof(*res));
	if (runner_measure_kernel(fake_fn, &ctx, &o, &cal, res) < 0)
		return NAN;
	return res->s.median;
}

static void test_overhead(void)
{
	struct result r = { 0 };
	double m;

	/* N = 1: the prologue is 95% of a sample; what is subtracted is it */
	m = fake_measure(0.001, 3, 0, 0.75, &r);
	CHECK(r.iters == 1, "tiny target: N = 1 (%llu)", (unsigned long long)r.iters);
	CHECK(fabs(m / 3 - 1) < 0.01, "N = 1: 3.00 ticks/op recovered (%g)", m);
	CHECK(fabs(r.overhead_ticks - (PROLOGUE + PAIR)) < 1e-6, "fixed overhead measured (%g)",
	      r.overhead_ticks);
	CHECK(r.overhead_flag, "an overhead of 95%% of a sample is flagged");
	CHECK(r.clock_source == RESULT_CLOCK_CHAIN && fabs(r.clock_scale - 1) < 1e-12,
	      "drift chain at the calibration's clock: scale 1 (%g)", r.clock_scale);

	/* large N: the prologue is 0.3% of a sample */
	m = fake_measure(1000, 3, 0, 0.75, &r);
	CHECK(r.iters >= 4096, "large target: N %llu", (unsigned long long)r.iters);
	CHECK(fabs(m / 3 - 1) < 0.01, "large N: 3.00 ticks/op recovered (%g)", m);
	CHECK(!r.overhead_flag, "a small fixed overhead that the extrapolation agrees with is not flagged");

	/* a first call that pays 2000 ticks after each drift chain (the N
	 * timing): 2 min(t_N) - min(t_2N) counts it twice, and at N = 16 would
	 * put the op at 1.05 instead of 3; the fixed overhead does not */
	m = fake_measure(7, 3, 2000, 0.75, &r);
	CHECK(r.iters == 16, "N = 16 (%llu)", (unsigned long long)r.iters);
	CHECK(fabs(m / 3 - 1) < 0.01, "cold first call: 3.00 ticks/op recovered (%g)", m);
	CHECK(fabs(r.overhead_extrap_ticks - (PROLOGUE + PAIR + 2 * 2000)) < 1e-6,
	      "extrapolation recorded (%g)", r.overhead_extrap_ticks);
	CHECK(r.overhead_flag, "extrapolation 4000 ticks off the fixed overhead: flagged");

	/* drift: the chain runs at 0.80 ticks/cycle against 0.75 calibrated,
	 * so the samples are rescaled by 0.75/0.80 onto the calibration */
	m = fake_measure(1000, 4, 0, 0.80, &r);
	CHECK(fabs(m / (4 * 0.75 / 0.80) - 1) < 1e-9, "drift rescaled once (%g)", m);
	result_release(&r);
}

/* The sweep on the fake clock: every footprint of TPUT_FOOTPRINTS, ops
 * costing 1 + words + lines / 8 ticks, but 0.5 packed 8 words on 2 lines,
 * and 8 x 8 not offered (NULL, as a 16-byte op's). The row must be 8 x 2,
 * measured again, and the sweep must keep the other 20 in footprint order. */
static double sweep_cost(unsigned words, unsigned lines)
{
	return words == 8 && lines == 2 ? 0.5 : 1 + words + lines / 8.0;
}
#define FAKE_SWEEP_FN(w, l, sfx, ...)						\
	static void fake_sweep##sfx(struct probe_ctx *c, uint64_t iters)	\
	{									\
		F.per_op = sweep_cost(w, l);					\
		fake_fn(c, iters);						\
	}
TPUT_FOOTPRINTS(FAKE_SWEEP_FN, )
#define FAKE_SWEEP_NAME(w, l, sfx, ...) (w) == 8 && (l) == 8 ? NULL : fake_sweep##sfx,

static void test_sweep(void)
{
	const probe_kernel_fn sweep[TPUT_NFOOT] = { TPUT_FOOTPRINTS(FAKE_SWEEP_NAME, ) };
	static const struct runner_timing timing = { fake_kernel, fake_chain, NULL };
	struct calibration cal = { .timer_hz = 1e9, .ticks_per_cycle = 0.75, .core_hz = 1e9 / 0.75,
				   .overhead_min = PAIR };
	struct probe_ctx ctx = { .mode = MODE_THROUGHPUT };
	struct result r = { 0 };
	struct run_opts o;
	bool order = true;

	runner_default_opts(&o);
	o.timing = &timing;
	o.sample_us = 100;
	o.min_samples = 64;
	o.max_samples = 128;
	memset(&F, 0, sizeof(F));
	F.chain_tpc = 0.75;
	CHECK(runner_measure_sweep(sweep, &ctx, &o, &cal, &r) == 0, "sweep measured");
	CHECK(r.footprint_words == 8 && r.footprint_lines == 2, "best footprint 8 words x 2 lines (%u x %u)",
	      r.footprint_words, r.footprint_lines);
	CHECK(fabs(r.s.median - 0.5) < 0.005, "the row is the 8 x 2 kernel: 0.50 ticks/op (%g)",
	      r.s.median);
	CHECK(r.nsweep == TPUT_NFOOT - 1, "every footprint offered kept, none for NULL (%u)", r.nsweep);
	for (unsigned k = 0, j = 0; k < TPUT_NFOOT && j < r.nsweep; k++) {
		const struct tput_footprint *t = &tput_footprints[k];
		double c = sweep_cost(t->words, t->lines);

		if (!sweep[k])
			continue;
		order &= r.sweep[j].words == t->words && r.sweep[j].lines == t->lines &&
			 fabs(r.sweep[j].median - c) < 0.01 * c;
		j++;
	}
	CHECK(order, "sweep in footprint order, each at its own cost");
	CHECK(r.nsamples >= o.min_samples, "the row has the full sample target (%zu)", r.nsamples);
	result_release(&r);
}

/* The bounds on the fastest sample, on synthetic samples (ticks, at 0.75
 * ticks per cycle; 200 samples, nfast of them at `fastest`): a 9-cycle
 * chain whose fastest sample reads 4.08, a 1-cycle chain with a 0.90
 * sample, a lone 10.1 in a 14.1-cycle walk, against a 0.50-cycle store
 * throughput whose fastest sample is 0.49 and a real fast mode. */
static bool flagged(double typical, double fastest, int nfast, bool chain)
{
	struct calibration cal = { .ticks_per_cycle = 0.75 };
	double v[200];
	struct result r = { .samples = v, .nsamples = 200 };

	for (int i = 0; i < 200; i++)
		v[i] = typical * 0.75 * (1 + 0.001 * (i % 7));
	for (int i = 0; i < nfast; i++)
		v[17 + i] = fastest * 0.75;
	stats_summarize(v, 200, &r.s);
	runner_check_bounds(&r, chain, &cal);
	return r.min_flag;
}

static void test_bounds(void)
{
	CHECK(flagged(9, 4.08, 1, true), "9-cycle chain at 4.08: flagged");
	CHECK(flagged(9, 4.08, 12, false), "samples at 45%% of p10: flagged, even 12 of them");
	CHECK(flagged(14.1, 10.1, 2, true), "two lone samples at 72%% of p10: flagged");
	CHECK(flagged(1, 0.90, 1, true), "a chain below 1 cycle per op: flagged");
	CHECK(!flagged(1, 0.98, 1, true), "a chain at 0.98 (drift rescaling): not flagged");
	CHECK(!flagged(0.5, 0.49, 1, false), "store throughput 0.49 near p10 0.50: not flagged");
	CHECK(!flagged(9, 8.2, 1, true), "9-cycle chain at 8.2 (bimodal): not flagged");
	CHECK(!flagged(4.39, 2.97, 12, false), "a real fast mode, 6%% of samples at 68%% of p10: "
	      "not flagged");
}

/* A report from before the words sweep (no "words", no "footprint_words")
 * reads as one word on each line; path holds a report with sweeps. */
static void test_sweep_without_words(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *o, *e;
	struct report old;
	size_t i, j, swept = 0;

	json_array_foreach(json_object_get(root, "results"), i, o) {
		json_object_del(o, "footprint_words");
		json_array_foreach(json_object_get(o, "sweep"), j, e)
			json_object_del(e, "words");
	}
	CHECK(root && json_dump_file(root, path, 0) == 0, "the report rewritten without words");
	json_decref(root);
	CHECK(report_read(path, &old) == 0, "a report without words read");
	for (i = 0; i < old.n; i++) {
		const struct result *r = &old.r[i];

		swept += r->nsweep > 0;
		CHECK(r->footprint_words == (r->footprint_lines ? 1u : 0u), "%s: footprint_words %u",
		      r->name, r->footprint_words);
		for (j = 0; j < r->nsweep; j++)
			CHECK(r->sweep[j].words == 1, "%s: sweep %zu reads as 1 word", r->name, j);
	}
	CHECK(swept > 0, "the report had swept rows (%zu)", swept);
	report_free(&old);
}

int main(void)
{
	const struct probe *list[] = { &probe_add_chain, &probe_set_bit, &probe___set_bit };
	struct run_opts o;
	struct report rep, back;
	struct topo *t;
	char dir[] = "/tmp/atomcost-test-XXXXXX", path[128];

	log_quiet = 1;
	test_overhead();
	test_bounds();
	test_sweep();
	CHECK(topo_open(&t, NULL, NULL) == 0, "topology");
	runner_default_opts(&o);
	o.max_seconds = 0.02;
	o.min_samples = 8;
	o.cpu_os = topo_allowed_os(t, topo_allowed_count(t) - 1);
	report_init(&rep);
	CHECK(runner_run(t, &o, list, 3, &rep) == 0, "runner_run");
	CHECK(rep.n == 5, "add_chain latency + 2 probes x 2 forms = 5 results, got %zu", rep.n);
	CHECK(rep.cal.ticks_per_cycle > 0 && rep.cal.timer_hz > 0, "calibrated");
	for (size_t i = 0; i < rep.n; i++) {
		const struct result *r = &rep.r[i];

		CHECK(r->nsamples >= 8 && r->samples, "%s: samples kept (%zu)", r->name, r->nsamples);
		CHECK(r->cpu_os == o.cpu_os && !r->migrated, "%s: ran on P#%d", r->name, o.cpu_os);
		CHECK(r->ops_per_sample == 2 * r->iters * UNROLL, "%s: ops per sample", r->name);
		CHECK(r->s.n == r->nsamples && r->s.min <= r->s.median && r->s.median <= r->s.p90,
		      "%s: summary ordered", r->name);
		CHECK(r->s.ci_lo <= r->s.median && r->s.median <= r->s.ci_hi, "%s: CI brackets", r->name);
	}
	{
		const struct result *a = report_find(&rep, "set_bit", MODE_THROUGHPUT, "hit", RESULT_USER);
		const struct result *b = report_find(&rep, "__set_bit", MODE_THROUGHPUT, "hit", RESULT_USER);

		CHECK(a && b && a->has_ratio && b->has_ratio, "twins paired");
		if (a && b && a->has_ratio)
			CHECK(fabs(a->ratio * b->ratio - 1) < 1e-9 && a->ratio_lo <= a->ratio &&
			      a->ratio <= a->ratio_hi, "ratio and its inverse, interval brackets");
		CHECK(report_find(&rep, "add_chain", MODE_THROUGHPUT, "hit", RESULT_USER) == NULL,
		      "no throughput form for add_chain");
	}

	CHECK(mkdtemp(dir) != NULL, "tmpdir");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CHECK(report_write_file(&rep, report_writer_find("json"), path, false) == 0, "write json");
	CHECK(report_write_file(&rep, report_writer_find("json"), path, false) == -EEXIST,
	      "existing report not overwritten");
	CHECK(report_write_file(&rep, report_writer_find("json"), path, true) == 0, "overwrite when asked");
	CHECK(report_read(path, &back) == 0, "read back");
	CHECK(back.n == rep.n, "same result count");
	for (size_t i = 0; i < back.n && i < rep.n; i++) {
		CHECK(!strcmp(back.r[i].name, rep.r[i].name) && back.r[i].mode == rep.r[i].mode,
		      "result %zu identity", i);
		CHECK(back.r[i].nsamples == rep.r[i].nsamples &&
		      fabs(back.r[i].s.median - rep.r[i].s.median) <= 1e-9 * fabs(rep.r[i].s.median),
		      "result %zu samples round trip", i);
		CHECK(back.r[i].footprint_lines == rep.r[i].footprint_lines &&
		      back.r[i].footprint_words == rep.r[i].footprint_words &&
		      back.r[i].nsweep == rep.r[i].nsweep &&
		      (!rep.r[i].nsweep ||
		       fabs(back.r[i].sweep[0].median - rep.r[i].sweep[0].median) <= 1e-9 * rep.r[i].sweep[0].median),
		      "result %zu footprint and sweep round trip", i);
		for (unsigned k = 0; k < back.r[i].nsweep && k < rep.r[i].nsweep; k++)
			CHECK(back.r[i].sweep[k].words == rep.r[i].sweep[k].words &&
			      back.r[i].sweep[k].lines == rep.r[i].sweep[k].lines,
			      "result %zu sweep %u: %u x %u round trip", i, k, rep.r[i].sweep[k].words,
			      rep.r[i].sweep[k].lines);
		CHECK(back.r[i].overhead_flag == rep.r[i].overhead_flag &&
		      back.r[i].min_flag == rep.r[i].min_flag &&
		      back.r[i].clock_source == rep.r[i].clock_source &&
		      fabs(back.r[i].overhead_extrap_ticks - rep.r[i].overhead_extrap_ticks) < 1e-6,
		      "result %zu engine flags round trip", i);
	}
	{
		const struct result *sw = report_find(&rep, "set_bit", MODE_THROUGHPUT, "hit", RESULT_USER);

		CHECK(sw && sw->footprint_lines && sw->nsweep == TPUT_NFOOT,
		      "set_bit throughput swept over %d footprints (%u)", TPUT_NFOOT, sw ? sw->nsweep : 0);
		CHECK(sw && sw->clock_source == RESULT_CLOCK_CHAIN, "drift chain rescaled the row");
	}
	CHECK(fabs(back.cal.ticks_per_cycle - rep.cal.ticks_per_cycle) < 1e-9, "calibration round trip");
	report_free(&back);
	test_sweep_without_words(path);
	unlink(path);
	rmdir(dir);
	report_free(&rep);
	topo_close(t);
	return test_done("runner");
}
