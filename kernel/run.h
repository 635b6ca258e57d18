/* SPDX-License-Identifier: MIT */
/* run.h - one request's run, shared by the runner (main.c) and the
 * kthreads that run it (kthread.c). */
#ifndef ATOMCOST_KERNEL_RUN_H
#define ATOMCOST_KERNEL_RUN_H

#include <linux/atomic.h>

#include "atomcost.h"

#define AC_MAX_SAMPLES 100000	/* sample lines in one run */
#define AC_MAX_ITERS 100000	/* x ops, 3 timings per sample */
#define AC_MAX_MS 10000		/* one request's run time */

struct ac_run {
	const struct ac_probe *pr;
	unsigned int cpu, samples, done_samples;
	unsigned int ncpus;	/* kthreads: 1, or the concurrent probes' count */
	u64 iters, overhead;
	u64 bytes;		/* the request's memory, as budgeted (main.c) */
	u64 *tn, *t2n;		/* [samples][ncpus] */
	bool irqs_off;		/* irqs were off wherever the probe holds them off */
	int err;
	unsigned long deadline;	/* jiffies */
	atomic_t arrived;	/* kthread.c's barrier */
	struct ac_ctx ctx;
};

bool ac_sample(struct ac_run *r, unsigned int s);
int ac_run_kthreads(struct ac_run *r);

#endif
