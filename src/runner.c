/* SPDX-License-Identifier: MIT */
/* runner.c - the measurement loop: warm-up, N, the fixed overhead (the
 * fastest 0-iteration call, the only thing subtracted), samples of t_2N
 * rescaled by the drift chain, the N/2N extrapolation kept as a check, and
 * the stop rule. docs/method.md "One row" says each step and why.
 */
#include "runner.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "common.h"
#include "pmu.h"

volatile sig_atomic_t runner_stop;

#define WARMUP_SAMPLES 16
#define WARMUP_NS 2000000ull	/* 2 ms of the kernel before sampling */
#define CI_CHECK_EVERY 32
#define MAX_ITERS (1ull << 24)
#define DEFAULT_MEM (64 * 1024)

void runner_default_opts(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cpu_os = -1;
	o->mode_mask = (1u << MODE_LATENCY) | (1u << MODE_THROUGHPUT);
	o->max_seconds = 0.4;
	o->min_samples = 256;
	o->patience_s = -1;
	o->max_samples = 20000;
	o->target_ci = 0.002;
	o->sample_us = 10;
	o->mem_node = -1;
}

/* The fenced timer around one call (the call through the pointer is
 * outside the timed window). */
static double real_kernel(void *arg, probe_kernel_fn fn, struct probe_ctx *c, uint64_t iters)
{
	uint64_t a = arch_timer_start();

	fn(c, iters);
	return (double)(arch_timer_stop() - a);
}

static double real_chain(void *arg, uint64_t iters)
{
	uint64_t a = arch_timer_start();

	arch_add_chain(iters);
	return (double)(arch_timer_stop() - a);
}

static const struct runner_timing real_timing = { real_kernel, real_chain, NULL };

static inline double time_kernel(const struct runner_timing *T, probe_kernel_fn fn,
				 struct probe_ctx *c, uint64_t iters)
{
	return T->kernel(T->arg, fn, c, iters);
}

/* The drift chain for sample i: the median of the chains timed within
 * DRIFT_WINDOW/2 samples of it. A chain an interrupt lengthened is an
 * outlier the median ignores (taking the faster of the two neighbours was
 * not enough: over thousands of samples, both neighbours of some sample
 * were slowed, and that sample came out impossibly fast), while a change of
 * core clock that lasts more than a few samples (~100 us) is followed. */
#define DRIFT_WINDOW 10

static double chain_near(const double *chain, size_t nchain, size_t i)
{
	double w[DRIFT_WINDOW] = { 0 };
	size_t lo = i >= DRIFT_WINDOW / 2 ? i - DRIFT_WINDOW / 2 : 0, k = 0;

	if (lo + DRIFT_WINDOW > nchain)
		lo = nchain > DRIFT_WINDOW ? nchain - DRIFT_WINDOW : 0;
	for (size_t j = lo; j < nchain && k < DRIFT_WINDOW; j++) {
		size_t m = k++;	/* insertion sort */

		while (m > 0 && w[m - 1] > chain[j]) {
			w[m] = w[m - 1];
			m--;
		}
		w[m] = chain[j];
	}
	return k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
}

void runner_to_per_op(const double *t2n, const double *chain, size_t n, double overhead,
		      double cal_tpc, double pmu_tpc, struct result *res)
{
	double ops = (double)res->ops_per_sample;
	/* One correction only: when the PMU counted cycles in these samples,
	 * pmu_report_cycles rescales them by that count; rescaling them by the
	 * drift chain as well would correct the same drift twice. */
	bool by_chain = chain && !(pmu_tpc > 0);

	for (size_t i = 0; i < n; i++) {
		double scale = by_chain ? cal_tpc / chain_near(chain, n + 1, i) : 1.0;

		res->samples[i] = (t2n[i] - overhead) / ops * scale;
	}
	res->nsamples = n;
	res->clock_source = pmu_tpc > 0 ? RESULT_CLOCK_PMU : by_chain ? RESULT_CLOCK_CHAIN :
			    RESULT_CLOCK_NONE;
	res->clock_scale = by_chain && n ? cal_tpc / stats_median(chain, n + 1) : 1.0;
}

/* Clock drift (docs/method.md "Drift"): the core clock moves while the
 * timer does not, even within one probe (the add chain read 0.94..1.07
 * cycles here), so a dependent add chain as long as the N timing runs
 * around every sample, and the sample is rescaled by it (runner_to_per_op). */
static double drift_chain(const struct runner_timing *T, uint64_t iters, double overhead)
{
	return (T->chain(T->arg, iters) - overhead) / (64.0 * (double)iters);
}

/* Smallest power-of-two N whose timing lasts at least target ticks: the
 * fastest of CHOOSE_REPEATS timings at each N, so that disturbed timings
 * are less likely to stop the doubling early: with 3, some walk rows of a
 * default run on a loaded machine got N = 1-2 and samples of 1-2 us
 * instead of 10. */
#define CHOOSE_REPEATS 7
static uint64_t choose_iters(const struct runner_timing *T, probe_kernel_fn fn,
			     struct probe_ctx *c, double target)
{
	uint64_t n = 1;

	while (n < MAX_ITERS) {
		double best = INFINITY;

		for (int r = 0; r < CHOOSE_REPEATS; r++)
			best = fmin(best, time_kernel(T, fn, c, n));
		if (best >= target)
			break;
		n *= 2;
	}
	return n;
}

/* The fixed overhead: the fastest of FIXED_REPEATS timings of the kernel
 * called for 0 iterations. Everything in it (timer pair, call, prologue,
 * epilogue) is in every sample once; nothing of the loop body is in it. */
#define FIXED_REPEATS 255

static double fixed_overhead(const struct runner_timing *T, probe_kernel_fn fn,
			     struct probe_ctx *c)
{
	double m = INFINITY;

	for (int i = 0; i < FIXED_REPEATS; i++)
		m = fmin(m, time_kernel(T, fn, c, 0));
	return m;
}

void runner_check_bounds(struct result *r, bool chain, const struct calibration *cal)
{
	double bound = -INFINITY;

	r->min_flag = false;
	r->min_bound_ticks = 0;
	if (!r->nsamples || !(cal->ticks_per_cycle > 0))
		return;
	/* near zero (the empty probe's residual) a relative bound means nothing */
	if (r->s.p10 > 0.05 * cal->ticks_per_cycle) {
		size_t lone = 0;

		for (size_t i = 0; i < r->nsamples; i++)
			lone += r->samples[i] < RUNNER_MIN_LONE * r->s.p10;
		bound = (lone <= r->nsamples / 100 ? RUNNER_MIN_LONE : RUNNER_MIN_REL) * r->s.p10;
	}
	if (chain)
		bound = fmax(bound, RUNNER_MIN_CHAIN * cal->ticks_per_cycle);
	if (bound > -INFINITY) {
		r->min_bound_ticks = bound;
		r->min_flag = r->s.min < bound;
	}
}

int runner_measure(const struct probe *p, enum probe_mode mode, const struct run_opts *o,
		   const struct calibration *cal, struct result *res)
{
	/* cs/out work: lock probes' --cs-work and --outside-work */
	struct probe_ctx ctx = { .mode = mode, .cs_work = o->cs_work, .out_work = o->out_work };
	int ret;

	if (!p->run[mode])
		return -ENOTSUP;
	ret = runner_ctx_init(p, &ctx);
	if (ret)
		return ret;
	if (mode == MODE_THROUGHPUT && p->tput_sweep)
		ret = runner_measure_sweep(p->tput_sweep, &ctx, o, cal, res);
	else
		ret = runner_measure_kernel(p->run[mode], &ctx, o, cal, res);
	runner_check_bounds(res, mode == MODE_LATENCY && p->chain != CHAIN_NONE, cal);
	free(ctx.mem);
	return ret;
}

int runner_measure_sweep(const probe_kernel_fn *sweep, struct probe_ctx *ctx,
			 const struct run_opts *o, const struct calibration *cal,
			 struct result *res)
{
	struct run_opts scan = *o, full = *o;
	struct result cur;
	struct result_sweep sw[TPUT_NFOOT];
	unsigned nsw = 0, nfoot = 0, best_k = 0;
	double best = INFINITY;
	int ret = 0;

	for (unsigned k = 0; k < TPUT_NFOOT; k++)
		nfoot += sweep[k] != NULL;
	if (!nfoot)
		return 0;
	scan.max_seconds = o->max_seconds / (2 * nfoot);
	scan.min_samples = o->min_samples / nfoot > 32 ? o->min_samples / nfoot : 32;
	scan.max_samples = o->max_samples / nfoot > scan.min_samples ?
			   o->max_samples / nfoot : scan.min_samples;
	full.max_seconds = o->max_seconds / 2;
	for (unsigned k = 0; k < TPUT_NFOOT; k++) {
		if (!sweep[k])
			continue;	/* a footprint the op cannot form */
		cur = *res;	/* identity; no samples, no extra yet */
		cur.samples = NULL;
		cur.extra = (struct result_extra){ 0 };
		ret = runner_measure_kernel(sweep[k], ctx, &scan, cal, &cur);
		if (cur.nsamples && ret >= 0) {
			sw[nsw++] = (struct result_sweep){ .words = tput_footprints[k].words,
							   .lines = tput_footprints[k].lines,
							   .n = cur.nsamples, .min = cur.s.min,
							   .p10 = cur.s.p10, .median = cur.s.median,
							   .p90 = cur.s.p90 };
			if (cur.s.median < best) {
				best = cur.s.median;
				best_k = k;
			}
		}
		result_release(&cur);
		if (ret < 0)
			return ret;
	}
	if (!nsw)
		return 0;
	ret = runner_measure_kernel(sweep[best_k], ctx, &full, cal, res);
	res->footprint_words = tput_footprints[best_k].words;
	res->footprint_lines = tput_footprints[best_k].lines;
	memcpy(res->sweep, sw, nsw * sizeof(sw[0]));
	res->nsweep = nsw;
	return ret;
}

int runner_ctx_init(const struct probe *p, struct probe_ctx *ctx)
{
	size_t mem = p->mem_size ? p->mem_size : DEFAULT_MEM;
	int ret;

	mem = (mem + 4095) & ~(size_t)4095;
	ctx->mem = aligned_alloc(4096, mem);
	if (!ctx->mem) {
		pr_err("run %s: cannot allocate %zu bytes", p->name, mem);
		return -ENOMEM;
	}
	memset(ctx->mem, 0, mem);
	ctx->mem_size = mem;
	if (p->setup && (ret = p->setup(ctx)) < 0) {
		pr_err("run %s: setup failed (%d)", p->name, ret);
		free(ctx->mem);
		ctx->mem = NULL;
		return ret;
	}
	return 0;
}

/* Warm the lines, the branch predictors and the core clock, for at most a
 * quarter of the budget (in the characterization, 30 ms a row, a sweep's
 * scan gives each of its 21 footprints 0.7 ms, on a core and lines the
 * previous footprint warmed); then choose N and drop the warm-up samples.
 * Returns the fixed overhead. */
static double warm_up(const struct runner_timing *T, probe_kernel_fn fn, struct probe_ctx *ctx,
		      const struct run_opts *o, const struct calibration *cal, struct result *res)
{
	uint64_t end = now_ns() + (uint64_t)fmin((double)WARMUP_NS, o->max_seconds * 0.25e9);

	while (now_ns() < end)
		fn(ctx, 64);
	res->iters = choose_iters(T, fn, ctx, o->sample_us * 1e-6 * cal->timer_hz);
	res->ops_per_sample = 2 * res->iters * UNROLL;
	for (int i = 0; i < WARMUP_SAMPLES; i++) {
		(void)time_kernel(T, fn, ctx, res->iters);
		(void)time_kernel(T, fn, ctx, 2 * res->iters);
	}
	res->warmup = WARMUP_SAMPLES;
	return fixed_overhead(T, fn, ctx);
}

static bool ci_reached(const double *t2n, const double *chain, size_t n, double fixed,
		       const struct run_opts *o, const struct calibration *cal, struct result *res)
{
	struct summary s;

	if (n < o->min_samples)
		return false;
	runner_to_per_op(t2n, chain, n, fixed, cal->ticks_per_cycle, 0, res);
	stats_summarize(res->samples, n, &s);
	/* an absolute floor for near-zero medians (the empty probe) */
	return (s.ci_hi - s.ci_lo) / 2.0 <= fmax(o->target_ci * fabs(s.median), 0.002);
}

void runner_finish_row(const double *tn, const double *t2n, const double *chain, size_t n,
		       double fixed, double min2, const struct calibration *cal, struct result *res)
{
	res->overhead_ticks = fixed;
	/* from medians: the minima of a bimodal chain (a locked op on Zen
	 * 3/4) can come from different modes at N and 2N */
	res->overhead_extrap_ticks = 2 * stats_median(tn, n) - stats_median(t2n, n);
	res->sample_min_ticks = min2;
	res->overhead_flag = fixed > RUNNER_OVH_SHARE * min2 ||
			     fabs(res->overhead_extrap_ticks - fixed) > RUNNER_OVH_EXTRAP * min2;
	runner_to_per_op(t2n, chain, n, fixed, cal->ticks_per_cycle, res->pmu_ticks_per_cycle, res);
	stats_summarize(res->samples, res->nsamples, &res->s);
}

int runner_measure_kernel(probe_kernel_fn fn, struct probe_ctx *ctx, const struct run_opts *o,
			  const struct calibration *cal, struct result *res)
{
	const struct runner_timing *T = o->timing ? o->timing : &real_timing;
	size_t cap = o->max_samples, n = 0;
	double fixed = warm_up(T, fn, ctx, o, cal, res), min2 = INFINITY;
	/* t_N, t_2N and the drift chains (one more than samples) */
	double *tn = malloc((3 * cap + 1) * sizeof(double)), *t2n, *chain;
	/* a drift chain about as long as the N timing */
	uint64_t deadline, chain_iters = (uint64_t)(o->sample_us * 1e-6 * cal->core_hz / 64) + 1;
	struct pmu_sampler ev;
	int ret;

	res->samples = malloc(cap * sizeof(double));
	if (!res->samples || !tn) {
		free(tn);
		return -ENOMEM;
	}
	t2n = tn + cap;
	chain = t2n + cap;
	/* events (pmu.c): the groups are read between the timings, never
	 * inside one; hardware counts are per op from the N/2N difference */
	ret = pmu_sampler_start(&ev, o->pmu, cap, res->iters * UNROLL);
	if (ret < 0) {
		free(tn);
		return ret;
	}
	chain[0] = drift_chain(T, chain_iters, cal->overhead_min);
	deadline = now_ns() + (uint64_t)(o->max_seconds * 1e9);
	while (n < cap) {
		if (runner_stop) {
			ret = -EINTR;
			break;
		}
		pmu_sampler_before(&ev);
		tn[n] = time_kernel(T, fn, ctx, res->iters);
		pmu_sampler_mid(&ev);
		t2n[n++] = time_kernel(T, fn, ctx, 2 * res->iters);
		pmu_sampler_after(&ev, n - 1, tn[n - 1], t2n[n - 1]);
		min2 = fmin(min2, t2n[n - 1]);
		/* the fixed overhead under the same conditions as the samples */
		fixed = fmin(fixed, time_kernel(T, fn, ctx, 0));
		chain[n] = drift_chain(T, chain_iters, cal->overhead_min);
		/* the chain ran after the reading: the next sample reads afresh,
		 * so no event counts the chain's work */
		pmu_sampler_stale(&ev);
		if (n % CI_CHECK_EVERY)
			continue;
		if (ci_reached(t2n, chain, n, fixed, o, cal, res)) {
			res->ci_reached = true;
			break;
		}
		if (now_ns() > deadline)
			break;
	}
	pmu_sampler_finish(&ev, n, res);	/* sets pmu_ticks_per_cycle */
	if (n)
		runner_finish_row(tn, t2n, chain, n, fixed, min2, cal, res);
	free(tn);
	return ret;
}

void runner_fill_identity(struct result *r, const struct probe *p, enum probe_mode m)
{
	snprintf(r->name, sizeof(r->name), "%s", p->name);
	snprintf(r->twin, sizeof(r->twin), "%s", p->twin ? p->twin : "");
	snprintf(r->family, sizeof(r->family), "%s", p->family);
	snprintf(r->atomicity, sizeof(r->atomicity), "%s", probe_atomicity_name(p->atomicity));
	snprintf(r->insn, sizeof(r->insn), "%s", p->insn);
	r->analog = p->analog;
	r->card_pair = p->card_pair;
	r->card_share = p->card_share;
	r->card_order = p->card_order;
#ifdef ARCH_INSN_BARRIER
	/* a compiler barrier here (x86's smp_rmb, smp_wmb,
	 * smp_mb__{before,after}_atomic): the loop times nothing of its own */
	r->no_insn = !strcmp(p->insn, ARCH_INSN_BARRIER);
#endif
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	r->mode = m;
	/* the fast-path menu is drawn from the report, not from the probe table */
	if (p->menu_need[0]) {
		for (size_t i = 0; i < PROBE_MAX_NEEDS && i < RESULT_MAX_NEEDS && p->menu_need[i]; i++)
			snprintf(r->extra.menu_need[r->extra.nneed++], sizeof(r->extra.menu_need[0]), "%s",
				 p->menu_need[i]);
		snprintf(r->extra.safe_when, sizeof(r->extra.safe_when), "%s", p->safe_when ? p->safe_when : "?");
		r->extra.has |= 1u << RX_MENU_NEED | 1u << RX_SAFE_WHEN;
	}
}

/* The self-checks on the rows (after the cycle source is final). add_chain
 * reads 1.00 by construction: every sample is rescaled by a dependent add
 * chain, and without a PMU the cycle is defined by that chain. What checks
 * the conversion is a chain of another kind: imul (ARCH_MUL_LATENCY cycles)
 * and the L1 load-to-use chase (the identified core's, calibration.core). */
static void annotate_self_checks(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct result *r = &rep->r[i];
		double expect = 0, cyc;

		if (r->mode != MODE_LATENCY || strcmp(r->pattern, "hit") || !r->nsamples)
			continue;
		if (!strcmp(r->name, "imul_chain"))
			expect = ARCH_MUL_LATENCY;
		else if (!strcmp(r->name, "load_chase") && !(rep->cal.load_expected > 0))
			continue;	/* an unknown core: no expectation (cal.core.how says why) */
		else if (!strcmp(r->name, "load_chase"))
			expect = rep->cal.load_expected;
		else if (strcmp(r->name, "add_chain"))
			continue;
		if (!expect) {
			r->extra.has |= 1u << RX_NOTE;
			snprintf(r->extra.note, sizeof(r->extra.note), "%s",
				rep->pmu_ticks_per_cycle > 0 ?
				"circular only in part: the PMU defines the cycle, but the drift chain "
				"is an add chain; the self-checks are imul_chain and load_chase" :
				"circular: samples are rescaled by a dependent add chain and the cycle is "
				"defined by one, so this row reads 1.00 by construction; the self-checks "
				"are imul_chain and load_chase");
			continue;
		}
		cyc = result_cycles(rep, r->s.median);
		r->extra.has |= 1u << RX_SELF_CHECK;
		r->extra.self_check = (struct result_self_check){ ~0u, expect, cyc, cyc / expect - 1 };
	}
}

/* Before calibrating, keep the core busy with the kind of work we time
 * (dependent adds and locked RMWs) for a while: on both machines we have
 * seen, the first second of a process measured locked ops ~20% slower and
 * less stable than the rest of the run (5-process spread 17-25% without,
 * 0.1-0.2% with, for the probes measured early), although the clock-drift
 * correction already tracked the core frequency. Once per process and PU:
 * the epochs after the first follow it without a pause, and a prewarm
 * before each of a characterization's segments cost it 7 s. */
#define PREWARM_NS 500000000ull

static void prewarm(int cpu)
{
	static int warm = -1;	/* the PU warmed last: later epochs there need no more */
	uint64_t word[8] __attribute__((aligned(64))) = { 0 };
	uint64_t end = now_ns() + PREWARM_NS;

	if (warm == cpu)
		return;
	warm = cpu;
	while (now_ns() < end && !runner_stop) {
		arch_add_chain(64);
		for (int i = 0; i < 64; i++)
			arch_inc(word);
	}
}

int runner_prepare(struct topo *t, const struct run_opts *o, struct report *rep, int *cpu)
{
	int ret;

	*cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
	ret = topo_bind_thread(t, *cpu);
	if (ret < 0)
		return ret;
	prewarm(*cpu);
	return clock_calibrate(&rep->cal, *cpu);
}

void runner_finish(const struct run_opts *o, struct report *rep, uint64_t t0)
{
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	rep->wall_s = (now_ns() - t0) / 1e9;
	pmu_report_cycles(rep);	/* PMU cycles, when counted, replace the add chain */
	annotate_self_checks(rep);
	report_pair_twins(rep);
}

bool runner_out_of_time(const struct run_opts *o, struct report *rep, uint64_t t0)
{
	if (o->time_limit_s <= 0 || (now_ns() - t0) / 1e9 <= o->time_limit_s)
		return false;
	rep->partial = true;
	snprintf(rep->partial_reason, sizeof(rep->partial_reason), "time limit");
	return true;
}

int runner_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
	       size_t n, struct report *rep)
{
	size_t total = 0, done = 0;
	uint64_t t0 = now_ns();
	int cpu, ret;

	if (o->patterns) {
		pr_err("run: the access patterns run through pattern_run (internal error)");
		return -EINVAL;
	}
	ret = runner_prepare(t, o, rep, &cpu);
	if (ret < 0)
		return ret;

	for (size_t i = 0; i < n; i++)
		for (int m = 0; m < MODE__COUNT; m++)
			total += list[i]->run[m] && (o->mode_mask & (1u << m));

	for (size_t i = 0; i < n && !ret; i++) {
		const struct probe *p = list[i];

		for (enum probe_mode m = 0; m < MODE__COUNT && !ret; m++) {
			struct result *r;

			if (!p->run[m] || !(o->mode_mask & (1u << m)))
				continue;
			if (runner_out_of_time(o, rep, t0))
				goto out;
			if (o->progress)
				fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", done + 1, total, p->name, probe_mode_name(m));
			r = report_add(rep);
			if (!r) {
				ret = -ENOMEM;
				break;
			}
			runner_fill_identity(r, p, m);
			r->cpu_os = cpu;
			r->cpu_logical = topo_logical_of_os(t, cpu);
			ret = runner_measure(p, m, o, &rep->cal, r);
			r->migrated = sched_getcpu() != cpu;
			/* an interrupted probe's row stays only with enough samples */
			if (ret < 0 && (ret != -EINTR || r->nsamples < o->min_samples)) {
				result_release(r);
				rep->n--;
			}
			if (ret == -EINTR) {
				rep->partial = true;
				snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
			}
			done++;
		}
	}
out:
	runner_finish(o, rep, t0);
	return ret;
}
