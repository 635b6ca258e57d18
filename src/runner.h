/* SPDX-License-Identifier: MIT */
/* runner.h - runs probes on a pinned thread and keeps every sample. */
#ifndef ATOMCOST_RUNNER_H
#define ATOMCOST_RUNNER_H

#include <signal.h>
#include <stdbool.h>

#include "clock.h"
#include "probe.h"
#include "result.h"
#include "topo.h"

_Static_assert(RESULT_MAX_SWEEP >= TPUT_NFOOT, "a result keeps the whole sweep");

struct pmu_set;
struct pattern_sizes;

/* How the runner times one call of a kernel and one drift chain: the
 * fenced timer (NULL in run_opts), or a stand-in that a test injects to
 * check the arithmetic on a clock it controls. Both return ticks of the
 * timer whose frequency the calibration holds. */
struct runner_timing {
	double (*kernel)(void *arg, probe_kernel_fn fn, struct probe_ctx *c, uint64_t iters);
	double (*chain)(void *arg, uint64_t iters);	/* iters * 64 dependent adds */
	void *arg;
};

struct run_opts {
	int cpu_os;		/* PU to run on (OS index); -1: first allowed */
	bool cpu_named;		/* --cpu named it: the characterization stays there (session.c) */
	unsigned mode_mask;	/* 1u << MODE_* */
	double max_seconds;	/* cap per probe and mode */
	size_t min_samples;
	size_t max_samples;
	double target_ci;	/* stop once the median's CI half-width is below this (relative) */
	double sample_us;	/* duration of the N-iteration timing */
	double time_limit_s;	/* whole run, 0: none */
	bool progress;		/* progress line on stderr */

	/* Parsed by cmd/run.c, carried out by the module named. NULL/0: unset. */
	const char *patterns;	/* --pattern LIST (pattern.c) */
	size_t footprint;	/* --footprint BYTES for the pattern buffers, 0: from hwloc (pattern.c) */
	const struct pattern_sizes *sizes;	/* cache sizes for the patterns' footprints
						 * (the measured hierarchy); NULL: hwloc's */
	int mem_node;		/* --mem-node N, -1: default placement (pattern.c) */
	const char *events;	/* -e/--events LIST (pmu.c) */
	bool require_events;	/* --require-events (pmu.c) */
	const struct pmu_set *pmu;	/* events resolved from `events` (pmu_set_resolve); NULL: the always-on ones */
	unsigned threads;	/* --threads N, 0: single-thread probes (contention.c) */
	const char *placement;	/* --placement SPEC (contention.c, topo_plan) */
	const char *sharing;	/* --sharing LIST (contention.c) */
	uint64_t cs_work;	/* --cs-work N: work units inside a lock's critical section (contention.c, probes/locks.c) */
	uint64_t out_work;	/* --outside-work N: work units between lock pairs */
	/* --threads, --cs-work, --outside-work as lists (contention.c sweeps
	 * every combination; n 0: the single value above) */
	struct run_sweep { unsigned n; uint64_t v[16]; } threads_sweep, cs_sweep, out_sweep;
	unsigned epochs;	/* --epochs K: fresh-state epochs, 0: the session's default */
	bool no_split_lock;	/* --no-split-lock: the characterization skips its bus locks (session.c) */
	bool quick;		/* --quick: the characterization's short card (session.c) */
	double patience_s;	/* --patience S: seconds the characterization may spend under load
				 * waiting and running again (session.c); < 0: its planned time */
	unsigned epoch;		/* the epoch being run (session.c), 0: none; seeds the walks */
	const struct runner_timing *timing;	/* NULL: the fenced timer (tests inject one) */
};

void runner_default_opts(struct run_opts *o);

/* Set from a signal handler: the runner stops between samples. */
extern volatile sig_atomic_t runner_stop;

/* Measure one probe in one mode on the calling (already pinned) thread.
 * 0, -EINTR when stopped (the result holds what was measured), or -errno. */
int runner_measure(const struct probe *p, enum probe_mode mode, const struct run_opts *o,
		   const struct calibration *cal, struct result *res);

/* The two halves of runner_measure, for callers that prepare their own
 * context (pattern.c): runner_ctx_init allocates ctx->mem (zeroed) and runs
 * p->setup (the caller frees ctx->mem); runner_measure_kernel samples fn on
 * ctx, which keeps the kernel's state (a chase's cursor) on return. */
int runner_ctx_init(const struct probe *p, struct probe_ctx *ctx);
int runner_measure_kernel(probe_kernel_fn fn, struct probe_ctx *ctx, const struct run_opts *o,
			  const struct calibration *cal, struct result *res);
/* Throughput over footprints: sweep[k] (tput_footprints[k] words x lines;
 * NULL entries skipped) each measured briefly (max_seconds / 2 and
 * min_samples shared among the n footprints, at least 32 samples), then
 * the one with the lowest median measured again with max_seconds / 2: res
 * is that measurement, with footprint_words, footprint_lines and the sweep
 * (reporting the lowest of 21 noisy medians itself would favour a lucky one). */
int runner_measure_sweep(const probe_kernel_fn *sweep, struct probe_ctx *ctx,
			 const struct run_opts *o, const struct calibration *cal,
			 struct result *res);

/* Implausible overheads (result.overhead_flag), docs/method.md "Overhead":
 * fixed overhead, or its gap to the N/2N extrapolation, over this share
 * of the fastest sample. */
#define RUNNER_OVH_SHARE 0.05
#define RUNNER_OVH_EXTRAP 0.05
/* Physical bounds of the fastest sample (result.min_flag), docs/method.md
 * "Minima below a physical bound": not below RUNNER_MIN_REL of the p10, nor
 * RUNNER_MIN_LONE of it when at most 1% of the samples are, nor (a chain)
 * RUNNER_MIN_CHAIN core cycles per op. */
#define RUNNER_MIN_REL 0.6
#define RUNNER_MIN_LONE 0.85
#define RUNNER_MIN_CHAIN 0.95
void runner_check_bounds(struct result *r, bool chain, const struct calibration *cal);

/* Per-op samples from the 2N timings (t2n, raw ticks): (t2n - overhead) /
 * ops_per_sample, rescaled onto the calibration's clock by the drift chain
 * around each sample (chain: n + 1 ticks-per-cycle figures) unless the PMU
 * counted cycles (pmu_tpc > 0): then the samples stay raw and
 * pmu_report_cycles rescales them once, by the PMU's figure. Sets samples,
 * nsamples, clock_scale and clock_source. Pure. */
void runner_to_per_op(const double *t2n, const double *chain, size_t n, double overhead,
		      double cal_tpc, double pmu_tpc, struct result *res);

/* The row from its n samples (t_N, t_2N raw ticks; chain: the drift
 * chains around them, NULL: none): the overheads, the per-op samples and
 * their summary. */
void runner_finish_row(const double *tn, const double *t2n, const double *chain, size_t n,
		       double fixed, double min2, const struct calibration *cal, struct result *res);

/* Name, twin, family, atomicity, insn, mode of p into r; pattern "hit". */
void runner_fill_identity(struct result *r, const struct probe *p, enum probe_mode m);

/* Pin the calling thread to o->cpu_os (the first allowed PU when -1),
 * warm the core and calibrate into rep->cal; *cpu gets the PU. The pattern
 * engine (pattern.c) runs between this and runner_finish. 0 or -errno. */
int runner_prepare(struct topo *t, const struct run_opts *o, struct report *rep, int *cpu);
/* After a run started at t0: wall time, PMU cycles in place of the add
 * chain when counted, the self-check notes and the twin ratios. */
void runner_finish(const struct run_opts *o, struct report *rep, uint64_t t0);

/* Past o->time_limit_s since t0 (0: no limit)? Then rep is marked partial. */
bool runner_out_of_time(const struct run_opts *o, struct report *rep, uint64_t t0);

/* Pin to o->cpu_os, calibrate into rep->cal, and measure every probe in
 * every requested mode it offers. -EINTR when interrupted (rep->partial set). */
int runner_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
	       size_t n, struct report *rep);

#endif
