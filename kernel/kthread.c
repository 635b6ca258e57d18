// SPDX-License-Identifier: MIT
/* kthread.c - the kthreads that run a request: one bound to the requested
 * CPU (main.c's ac_sample per sample), or for the concurrent probes one on
 * each of the first K online CPUs, every pass started behind a barrier so
 * their phases overlap. Between samples each touches the watchdogs and calls
 * cond_resched().
 *
 * Stop means stop (docs/kernel.md): a run stops with the samples it has
 * when the writer is killed (-EINTR: the kthreads see its fatal signal, and
 * the writer stops them at once and says how long reaping them took), at AC_MAX_MS (-ETIME) or when its
 * CPU goes offline (-ENODEV: a hotplug callback stops the run and waits for
 * it before the CPU goes). Samples with irqs or preemption off are short
 * (main.c caps N); the long ones, irqs on, ask ac_stopping() as they go and
 * are dropped when stopped. The CPUs are chosen and the kthreads started
 * under cpus_read_lock(), so none goes away in between.
 *
 * The concurrent probes are the 2016 slab test (src/repro/slab-concurrent.c
 * models it in user space): N x kmalloc then N x kfree of one size; each
 * pass gives one sample per CPU, the alloc and the free phase in TSC ticks.
 * Irqs and preemption stay on: the allocator may sleep (GFP_KERNEL), as it
 * did for the post. */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nmi.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "run.h"

#define AC_CHECK_EVERY 64	/* concurrent probes: objects between stop checks */

struct ac_worker {
	struct ac_run *r;
	unsigned int idx, cpu;	/* the column of this CPU's samples, the CPU */
	void **objs;		/* N objects (concurrent probes) */
	u64 allocated, errors;
	unsigned int done_samples;
	bool irqs_off;		/* off where the probe holds them off, every sample */
	int err;
	struct completion done;	/* complete_all: the writer and the hotplug callback wait */
};

/* The run in flight and its workers, for the hotplug callback. */
static DEFINE_MUTEX(ac_cur_mutex);
static struct ac_run *ac_cur;
static struct ac_worker *ac_cur_w;
static int ac_hp_state = -1;

bool ac_stopping(struct ac_ctx *c)
{
	if (likely(!c->stop)) {
		/* the writer killed: its fatal signal seen here at once, or
		 * its kthread_stop() once it has run */
		if (kthread_should_stop() || (c->writer && fatal_signal_pending(c->writer)))
			c->stop = -EINTR;
		else if (READ_ONCE(c->cpu_gone))
			c->stop = -ENODEV;
		else if (time_after(jiffies, c->deadline))
			c->stop = -ETIME;
	}
	return c->stop != 0;
}

/* Every worker of pass s arrives before any starts it (at once for one
 * worker). 0, or why the run stops. */
static int ac_barrier(struct ac_run *r, unsigned int s)
{
	struct ac_ctx c = { .deadline = r->ctx.deadline, .writer = r->ctx.writer };

	atomic_inc(&r->arrived);
	for (;;) {
		c.cpu_gone = READ_ONCE(r->ctx.cpu_gone);
		if (ac_stopping(&c))
			return c.stop;
		if (atomic_read(&r->arrived) >= (int)((s + 1) * r->ncpus))
			return 0;
		cond_resched();	/* a hotplug callback may need this CPU */
		cpu_relax();
	}
}

/* One pass of a concurrent probe: N x kmalloc, then N x kfree; false when
 * it stopped (every object it took freed, the pass not counted). */
static bool ac_pass(struct ac_worker *w, unsigned int s, struct ac_ctx *c)
{
	struct ac_run *r = w->r;
	size_t size = r->pr->conc_size;
	u64 t0, t1, t2, n;

	t0 = rdtsc_ordered();
	for (n = 0; n < r->iters; n++) {
		if (!(n % AC_CHECK_EVERY)) {
			c->cpu_gone = READ_ONCE(r->ctx.cpu_gone);
			if (ac_stopping(c))
				break;
		}
		w->objs[n] = kmalloc(size, GFP_KERNEL);
	}
	t1 = rdtsc_ordered();
	for (u64 i = 0; i < n; i++)
		kfree(w->objs[i]);
	t2 = rdtsc_ordered();
	for (u64 i = 0; i < n; i++) {
		w->allocated += !!w->objs[i];
		w->errors += !w->objs[i];
	}
	if (c->stop)
		return false;
	r->tn[s * r->ncpus + w->idx] = t1 - t0;
	r->t2n[s * r->ncpus + w->idx] = t2 - t1;
	return true;
}

static int ac_worker_thread(void *arg)
{
	struct ac_worker *w = arg;
	struct ac_run *r = w->r;
	/* the concurrent workers each their own stop state; the single one
	 * the run's context, which its probe's loop reads */
	struct ac_ctx own = { .deadline = r->ctx.deadline, .writer = r->ctx.writer };
	struct ac_ctx *c = r->pr->conc_size ? &own : &r->ctx;

	w->irqs_off = true;
	for (unsigned int s = 0; s < r->samples; s++) {
		bool off = false, ok;

		w->err = ac_barrier(r, s);
		if (w->err)
			break;
		if (r->pr->conc_size) {
			ok = ac_pass(w, s, c);
			off = irqs_disabled();
		} else {
			ok = ac_sample(r, s, &off);
		}
		if (!ok) {
			w->err = c->stop;
			break;
		}
		w->irqs_off &= off;
		w->done_samples = s + 1;
		touch_nmi_watchdog();
		touch_softlockup_watchdog();
		cond_resched();
	}
	complete_all(&w->done);
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

	*w = (struct ac_worker){ .r = r, .idx = k, .cpu = cpu, .err = -EINTR };
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

/* Runs r on its CPU, or a concurrent probe on r->ncpus CPUs, and waits.
 * -ENXIO: the CPU is offline. */
int ac_run_kthreads(struct ac_run *r)
{
	struct task_struct **t = kcalloc(r->ncpus, sizeof(*t), GFP_KERNEL);
	struct ac_worker *w = kcalloc(r->ncpus, sizeof(*w), GFP_KERNEL);
	unsigned int k = 0, cpu;
	int ret = -ENOMEM;
	ktime_t killed, reaped;

	r->reap_us = -1;
	if (!t || !w)
		goto out;
	ret = -ENXIO;
	cpus_read_lock();	/* no CPU comes or goes until the run's are started */
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
		mutex_lock(&ac_cur_mutex);
		ac_cur = r;
		ac_cur_w = w;
		mutex_unlock(&ac_cur_mutex);
		for (unsigned int i = 0; i < k; i++)
			wake_up_process(t[i]);
	}
	cpus_read_unlock();
	for (unsigned int i = 0; !ret && i < k; i++)
		if (wait_for_completion_killable(&w[i].done)) {
			r->err = -EINTR;	/* the writer was killed: stop now */
			break;
		}
	killed = ktime_get();
	for (unsigned int i = 0; i < k; i++) {
		kthread_stop(t[i]);
		/* a kthread stopped before it ran never completed: the hotplug
		 * callback may be waiting for it */
		complete_all(&w[i].done);
	}
	reaped = ktime_get();
	mutex_lock(&ac_cur_mutex);
	ac_cur = NULL;
	ac_cur_w = NULL;
	mutex_unlock(&ac_cur_mutex);
	if (!ret)
		ac_gather(r, w);
	/* killed: by the wait above, or seen by a kthread itself (its err,
	 * which ac_gather brings in) */
	if (r->err == -EINTR)
		r->reap_us = ktime_us_delta(reaped, killed);
out:
	for (unsigned int i = 0; w && i < r->ncpus; i++)
		kvfree(w[i].objs);
	kfree(w);
	kfree(t);
	return ret;
}

/* A CPU about to go offline: a run with a kthread there stops (-ENODEV)
 * and its kthread finishes before the CPU goes, so no sample is ever taken
 * on a CPU other than the one the run names. */
static int ac_cpu_offline(unsigned int cpu)
{
	mutex_lock(&ac_cur_mutex);
	for (unsigned int k = 0; ac_cur && k < ac_cur->ncpus; k++)
		if (ac_cur_w[k].cpu == cpu) {
			WRITE_ONCE(ac_cur->ctx.cpu_gone, true);
			wait_for_completion(&ac_cur_w[k].done);
			pr_info("atomcost: CPU %u going offline: its run of %s stopped (err %d)\n", cpu,
				ac_cur->pr->name, -ENODEV);
		}
	mutex_unlock(&ac_cur_mutex);
	return 0;
}

int ac_hotplug_init(void)
{
	ac_hp_state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "atomcost:online", NULL,
						ac_cpu_offline);
	return ac_hp_state < 0 ? ac_hp_state : 0;
}

void ac_hotplug_exit(void)
{
	if (ac_hp_state >= 0)
		cpuhp_remove_state_nocalls(ac_hp_state);
}
