// SPDX-License-Identifier: MIT
/* kthread.c - the kthreads that run a request: one bound to the requested
 * CPU (main.c's ac_sample per sample), or for the concurrent probes one on
 * each of the first K online CPUs, every pass started behind a barrier so
 * their phases overlap. Between samples each touches the watchdogs and calls
 * cond_resched(); a run stops at AC_MAX_MS (-ETIME) or when the writer is
 * killed (-EINTR), with the samples it has.
 *
 * The concurrent probes are the 2016 slab test (src/repro/slab-concurrent.c
 * models it in user space): N x kmalloc then N x kfree of one size; each
 * pass gives one sample per CPU, the alloc and the free phase in TSC ticks.
 * Irqs and preemption stay on: the allocator may sleep (GFP_KERNEL), as it
 * did for the post. */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/nmi.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "run.h"

struct ac_worker {
	struct ac_run *r;
	unsigned int idx;	/* the column of this CPU's samples */
	void **objs;		/* N objects (concurrent probes) */
	u64 allocated, errors;
	unsigned int done_samples;
	bool irqs_off;		/* off where the probe holds them off, every sample */
	int err;
	struct completion done;
};

/* Every worker of pass s arrives before any starts it (at once for one
 * worker). 0, or why the run stops: the writer was killed, or time is up. */
static int ac_barrier(struct ac_run *r, unsigned int s)
{
	atomic_inc(&r->arrived);
	for (;;) {
		if (kthread_should_stop())
			return -EINTR;
		if (time_after(jiffies, r->deadline))
			return -ETIME;
		if (atomic_read(&r->arrived) >= (int)((s + 1) * r->ncpus))
			return 0;
		cpu_relax();
	}
}

/* One pass of a concurrent probe: N x kmalloc, then N x kfree. */
static bool ac_pass(struct ac_worker *w, unsigned int s)
{
	struct ac_run *r = w->r;
	size_t size = r->pr->conc_size;
	u64 t0, t1, t2;

	t0 = rdtsc_ordered();
	for (u64 i = 0; i < r->iters; i++)
		w->objs[i] = kmalloc(size, GFP_KERNEL);
	t1 = rdtsc_ordered();
	for (u64 i = 0; i < r->iters; i++)
		kfree(w->objs[i]);
	t2 = rdtsc_ordered();
	for (u64 i = 0; i < r->iters; i++) {
		w->allocated += !!w->objs[i];
		w->errors += !w->objs[i];
	}
	r->tn[s * r->ncpus + w->idx] = t1 - t0;
	r->t2n[s * r->ncpus + w->idx] = t2 - t1;
	return irqs_disabled();
}

static int ac_worker_thread(void *arg)
{
	struct ac_worker *w = arg;

	w->irqs_off = true;
	for (unsigned int s = 0; s < w->r->samples; s++) {
		w->err = ac_barrier(w->r, s);
		if (w->err)
			break;
		w->irqs_off &= w->r->pr->conc_size ? ac_pass(w, s) : ac_sample(w->r, s);
		w->done_samples = s + 1;
		touch_nmi_watchdog();
		touch_softlockup_watchdog();
		cond_resched();
	}
	complete(&w->done);
	/* wait for kthread_stop() */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* The workers' counts and state into the run. kfree took back every object
 * kmalloc gave (the concurrent probes' freed count). */
static void ac_gather(struct ac_run *r, const struct ac_worker *w)
{
	r->done_samples = r->samples;
	r->irqs_off = true;
	for (unsigned int k = 0; k < r->ncpus; k++) {
		r->done_samples = min(r->done_samples, w[k].done_samples);
		r->ctx.allocated += w[k].allocated;
		r->ctx.freed += w[k].allocated;
		r->ctx.alloc_errors += w[k].errors;
		r->irqs_off = r->irqs_off && w[k].irqs_off;
		if (w[k].err && !r->err)
			r->err = w[k].err;
	}
}

/* The worker for the k-th CPU, created and bound, not yet woken. */
static struct task_struct *ac_worker_create(struct ac_run *r, struct ac_worker *w,
					   unsigned int k, unsigned int cpu)
{
	struct task_struct *t;

	*w = (struct ac_worker){ .r = r, .idx = k, .err = -EINTR };
	init_completion(&w->done);
	if (r->pr->conc_size) {
		w->objs = kvcalloc(max_t(u64, r->iters, 1), sizeof(void *), GFP_KERNEL);
		if (!w->objs)
			return ERR_PTR(-ENOMEM);
	}
	t = kthread_create(ac_worker_thread, w, "atomcost/%u", cpu);
	if (!IS_ERR(t))
		kthread_bind(t, cpu);
	return t;
}

/* Runs r on its CPU, or a concurrent probe on r->ncpus CPUs, and waits. */
int ac_run_kthreads(struct ac_run *r)
{
	struct task_struct **t = kcalloc(r->ncpus, sizeof(*t), GFP_KERNEL);
	struct ac_worker *w = kcalloc(r->ncpus, sizeof(*w), GFP_KERNEL);
	unsigned int k = 0, cpu;
	int ret = -ENOMEM;

	if (!t || !w)
		goto out;
	ret = -ENXIO;	/* the CPU went offline */
	for_each_online_cpu(cpu) {
		if (k == r->ncpus || (!r->pr->conc_size && cpu != r->cpu))
			continue;
		t[k] = ac_worker_create(r, &w[k], k, cpu);
		if (IS_ERR(t[k])) {
			ret = PTR_ERR(t[k]);
			break;
		}
		k++;
	}
	if (k == r->ncpus) {
		ret = 0;
		for (unsigned int i = 0; i < k; i++)
			wake_up_process(t[i]);
		for (unsigned int i = 0; i < k; i++)
			if (wait_for_completion_killable(&w[i].done))
				break;
	}
	for (unsigned int i = 0; i < k; i++)
		kthread_stop(t[i]);
	if (!ret)
		ac_gather(r, w);
out:
	for (unsigned int i = 0; w && i < r->ncpus; i++)
		kvfree(w[i].objs);
	kfree(w);
	kfree(t);
	return ret;
}
