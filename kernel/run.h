/* SPDX-License-Identifier: MIT */
/* run.h - one request's run, shared by the runner (main.c) and the
 * kthreads that run it (kthread.c). */
#ifndef ATOMCOST_KERNEL_RUN_H
#define ATOMCOST_KERNEL_RUN_H

#include <linux/atomic.h>

#include "atomcost.h"

#define AC_MAX_SAMPLES 100000	/* sample lines in one run */
#define AC_MAX_ITERS 100000	/* x ops, 3 timings per sample */
#define AC_MAX_MS 10000		/* one request's run time, checked inside long samples too */
#define AC_WINDOW_US 1000	/* irqs or preemption off at most this long per sample */

struct ac_run {
	const struct ac_probe *pr;
	unsigned int cpu, samples, done_samples;
	unsigned int ncpus;	/* kthreads: 1, or the concurrent probes' count */
	u64 iters, overhead;
	u64 iters_asked;	/* N as asked: iters is lower when the window cap is */
	u64 iters_cap;		/* the largest N whose sample keeps irqs/preemption off
				 * under AC_WINDOW_US (calibrated at load), 0: no cap */
	u64 window_max;		/* the longest irqs/preemption-off section, ticks */
	u64 bytes;		/* the request's memory, as budgeted (main.c) */
	s64 reap_us;		/* writer killed: its kthreads reaped after this, else -1 */
	u64 *tn, *t2n;		/* [samples][ncpus] */
	bool irqs_off;		/* irqs were off wherever the probe holds them off */
	int err;
	atomic_t arrived;	/* kthread.c's barrier */
	struct ac_ctx ctx;	/* ctx.deadline: the wall bound, jiffies */
};

/* One sample; false when it was stopped (ctx.stop says why) and must not
 * count. *off: whether irqs were off where the probe holds them off. */
bool ac_sample(struct ac_run *r, unsigned int s, bool *off);
int ac_run_kthreads(struct ac_run *r);
int ac_hotplug_init(void);
void ac_hotplug_exit(void);

#endif
