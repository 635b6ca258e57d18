// SPDX-License-Identifier: MIT
/* concurrent.c - the 2016 concurrent slab test (src/repro/slab-concurrent.c
 * models it in user space): on each of K online CPUs at once, a bound
 * kthread does N x kmalloc then N x kfree of one size; every pass starts
 * behind a barrier so the K threads' phases overlap. Each pass gives one
 * sample per CPU: the alloc phase's and the free phase's TSC ticks (per
 * object: divide by N). Irqs and preemption stay on: the allocator may sleep
 * (GFP_KERNEL), as it did for the post. */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "run.h"

struct ac_worker {
	struct ac_run *r;
	unsigned int idx;	/* the column of this CPU's samples */
	void **objs;		/* N objects */
	u64 allocated, freed, errors;
	unsigned int done_samples;
	bool irqs_off;
	int err;
	struct completion done;
};

/* Every worker of pass s arrives before any starts it; false at the deadline
 * or on kthread_stop(). */
static bool ac_barrier(struct ac_run *r, unsigned int s)
{
	atomic_inc(&r->arrived);
	while (atomic_read(&r->arrived) < (int)((s + 1) * r->ncpus)) {
		if (time_after(jiffies, r->deadline) || kthread_should_stop())
			return false;
		cpu_relax();
	}
	return true;
}

static void ac_pass(struct ac_worker *w, unsigned int s)
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
	w->irqs_off = irqs_disabled();
	for (u64 i = 0; i < r->iters; i++) {
		w->allocated += !!w->objs[i];
		w->errors += !w->objs[i];
	}
	w->freed = w->allocated;	/* every object allocated went to kfree */
	r->tn[s * r->ncpus + w->idx] = t1 - t0;
	r->t2n[s * r->ncpus + w->idx] = t2 - t1;
}

static int ac_worker_thread(void *arg)
{
	struct ac_worker *w = arg;

	w->err = 0;
	for (unsigned int s = 0; s < w->r->samples; s++) {
		if (!ac_barrier(w->r, s)) {
			w->err = kthread_should_stop() ? -EINTR : -ETIME;
			break;
		}
		ac_pass(w, s);
		w->done_samples = s + 1;
		ac_between_samples();
	}
	complete(&w->done);
	return ac_park();
}

/* The workers' counts and state into the run. */
static void ac_gather(struct ac_run *r, const struct ac_worker *w)
{
	r->done_samples = r->samples;
	r->irqs_off = false;
	for (unsigned int k = 0; k < r->ncpus; k++) {
		r->done_samples = min(r->done_samples, w[k].done_samples);
		r->ctx.allocated += w[k].allocated;
		r->ctx.freed += w[k].freed;
		r->ctx.alloc_errors += w[k].errors;
		r->irqs_off = r->irqs_off || w[k].irqs_off;
		if (w[k].err && !r->err)
			r->err = w[k].err;
	}
}

/* One kthread on each of the first r->ncpus online CPUs; waits for all. */
int ac_run_concurrent(struct ac_run *r)
{
	struct task_struct **t = kcalloc(r->ncpus, sizeof(*t), GFP_KERNEL);
	struct ac_worker *w = kcalloc(r->ncpus, sizeof(*w), GFP_KERNEL);
	unsigned int k = 0, cpu;
	int ret = -ENOMEM;

	if (!t || !w)
		goto out;
	for_each_online_cpu(cpu) {
		if (k == r->ncpus)
			break;
		w[k] = (struct ac_worker){ .r = r, .idx = k, .err = -EINTR };
		init_completion(&w[k].done);
		w[k].objs = kvcalloc(max_t(u64, r->iters, 1), sizeof(void *), GFP_KERNEL);
		t[k] = w[k].objs ? kthread_create(ac_worker_thread, &w[k], "atomcost/%u", cpu)
				 : ERR_PTR(-ENOMEM);
		if (IS_ERR(t[k])) {
			ret = PTR_ERR(t[k]);
			t[k] = NULL;
			break;
		}
		kthread_bind(t[k], cpu);
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
