// SPDX-License-Identifier: MIT
/* main.c - atomcost.ko: the runner and its debugfs interface
 * (/sys/kernel/debug/atomcost/{probes,run}; the protocol is docs/kernel.md).
 *
 * A request names a probe, a CPU, a sample count and N. A kthread bound to
 * that CPU times the probe's loop for N and 2N iterations and for 0 (the
 * fixed overhead, the minimum over every 0-iteration call, as src/runner.c)
 * with rdtsc_ordered(), irqs or preemption off as the probe allows, and
 * hands every raw sample back: user space does the statistics. Between
 * samples it touches the watchdogs and calls cond_resched(); a run stops at
 * AC_MAX_MS, or when the writer is killed. */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nmi.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "atomcost.h"

#define AC_MAX_SAMPLES 100000
#define AC_MAX_ITERS 100000	/* x AC_UNROLL ops, 3 timings per sample */
#define AC_MAX_MS 10000		/* one request's run time */
#define AC_FIXED_REPEATS 255	/* 0-iteration calls before the first sample */
#define AC_BULK_MAX 256
#define AC_OBJ_SIZE 256		/* the 2015 post's object size */

struct ac_run {
	const struct ac_probe *pr;
	unsigned int cpu, samples, done_samples;
	u64 iters, overhead;
	u64 *tn, *t2n;
	bool irqs_off;		/* irqs were off wherever the probe holds them off */
	int err;
	struct ac_ctx ctx;
	struct completion done;
};

static DEFINE_MUTEX(ac_mutex);	/* one run at a time; guards ac_out */
static char *ac_out;		/* the last run's text */
static size_t ac_out_len;
static struct kmem_cache *ac_cache;
static struct dentry *ac_dir;

static const struct ac_probe *ac_find(const char *name)
{
	for (unsigned int i = 0; i < ac_op_nprobes; i++)
		if (!strcmp(ac_op_probes[i].name, name))
			return &ac_op_probes[i];
	for (unsigned int i = 0; i < ac_prim_nprobes; i++)
		if (!strcmp(ac_prim_probes[i].name, name))
			return &ac_prim_probes[i];
	return NULL;
}

static u64 ac_time(struct ac_run *r, u64 iters)
{
	u64 t0 = rdtsc_ordered();

	r->pr->fn(&r->ctx, iters);
	return rdtsc_ordered() - t0;
}

/* One sample: t_N, t_2N and a 0-iteration call, under the probe's
 * conditions; the first also takes the fixed overhead's warm-up. */
static void ac_sample(struct ac_run *r, unsigned int s)
{
	enum ac_irqs mode = r->pr->irqs;
	unsigned long flags = 0;
	bool off;

	if (mode == AC_IRQS_RUNNER)
		local_irq_save(flags);
	else if (mode == AC_IRQS_OWN)
		preempt_disable();
	off = irqs_disabled();
	for (int i = 0; !s && i < AC_FIXED_REPEATS; i++)
		r->overhead = min(r->overhead, ac_time(r, 0));
	r->tn[s] = ac_time(r, r->iters);
	r->t2n[s] = ac_time(r, 2 * r->iters);
	r->overhead = min(r->overhead, ac_time(r, 0));
	off = off && irqs_disabled();
	if (mode == AC_IRQS_RUNNER)
		local_irq_restore(flags);
	else if (mode == AC_IRQS_OWN)
		preempt_enable();
	if (mode == AC_IRQS_OWN)
		off = r->ctx.irqs_in;
	r->irqs_off = r->irqs_off && off;
}

static int ac_thread(void *arg)
{
	struct ac_run *r = arg;
	unsigned long deadline = jiffies + msecs_to_jiffies(AC_MAX_MS);

	r->err = 0;
	r->irqs_off = true;
	for (unsigned int s = 0; s < r->samples; s++) {
		if (kthread_should_stop()) {
			r->err = -EINTR;
			break;
		}
		if (time_after(jiffies, deadline)) {
			r->err = -ETIME;
			break;
		}
		ac_sample(r, s);
		r->done_samples = s + 1;
		touch_nmi_watchdog();
		touch_softlockup_watchdog();
		cond_resched();
	}
	complete(&r->done);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Runs r on its CPU and waits; a killed writer stops it at the next sample. */
static int ac_run_on_cpu(struct ac_run *r)
{
	struct task_struct *t;

	r->err = -EINTR;
	init_completion(&r->done);
	t = kthread_create(ac_thread, r, "atomcost/%u", r->cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, r->cpu);
	wake_up_process(t);
	wait_for_completion_killable(&r->done);
	kthread_stop(t);
	return 0;
}

static const char *const ac_irqs_names[] = {
	[AC_IRQS_RUNNER] = "runner", [AC_IRQS_OWN] = "own", [AC_IRQS_ON] = "on",
};

/* The run as text: "key value" lines, one "sample t_N t_2N" line per
 * sample (TSC ticks, overhead not subtracted), then "end". */
static int ac_format(const struct ac_run *r)
{
	size_t cap = 1024 + (size_t)r->done_samples * 48, n = 0;
	char *b = kvmalloc(cap, GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	n += scnprintf(b + n, cap - n,
		       "probe %s\ntwin %s\nwhat %s\ncpu %u\nsamples %u\nrequested %u\n"
		       "iters %llu\nops %u\nirqs %s\nirqs_off %d\noverhead %llu\n"
		       "tsc_khz %u\nhypervisor %d\nallocated %llu\nfreed %llu\n"
		       "alloc_errors %llu\nerr %d\n",
		       r->pr->name, r->pr->twin, r->pr->what, r->cpu, r->done_samples,
		       r->samples, r->iters, r->pr->ops, ac_irqs_names[r->pr->irqs],
		       r->irqs_off, r->overhead, tsc_khz,
		       boot_cpu_has(X86_FEATURE_HYPERVISOR), r->ctx.allocated, r->ctx.freed,
		       r->ctx.alloc_errors, r->err);
	for (unsigned int s = 0; s < r->done_samples; s++)
		n += scnprintf(b + n, cap - n, "sample %llu %llu\n", r->tn[s], r->t2n[s]);
	n += scnprintf(b + n, cap - n, "end\n");
	kvfree(ac_out);
	ac_out = b;
	ac_out_len = n;
	return 0;
}

/* "PROBE CPU SAMPLES ITERS" -> a run, its text kept for the next read. */
static int ac_request(const char *line)
{
	char name[64];
	struct ac_run *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ret = -EINVAL;
	if (sscanf(line, "%63s %u %u %llu", name, &r->cpu, &r->samples, &r->iters) != 4 ||
	    !r->samples || r->samples > AC_MAX_SAMPLES || r->iters > AC_MAX_ITERS)
		goto out;
	ret = -ENOENT;
	r->pr = ac_find(name);
	if (!r->pr)
		goto out;
	ret = -ENXIO;
	if (r->cpu >= nr_cpu_ids || !cpu_online(r->cpu))
		goto out;
	ret = -ENOMEM;
	r->tn = kvcalloc(2 * r->samples, sizeof(u64), GFP_KERNEL);
	r->ctx.mem = (u8 *)get_zeroed_page(GFP_KERNEL);
	r->ctx.objs = kcalloc(AC_BULK_MAX, sizeof(void *), GFP_KERNEL);
	if (!r->tn || !r->ctx.mem || !r->ctx.objs)
		goto out;
	r->t2n = r->tn + r->samples;
	r->overhead = U64_MAX;
	r->ctx.cache = ac_cache;
	r->ctx.bulk = r->pr->bulk;
	ret = ac_run_on_cpu(r);
	if (!ret)
		ret = ac_format(r);
out:
	kfree(r->ctx.objs);
	free_page((unsigned long)r->ctx.mem);
	kvfree(r->tn);
	kfree(r);
	return ret;
}

static ssize_t ac_run_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char line[128];
	int ret;

	if (len >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	line[len] = 0;
	if (mutex_lock_killable(&ac_mutex))
		return -EINTR;
	ret = ac_request(line);
	mutex_unlock(&ac_mutex);
	return ret ? ret : len;
}

static ssize_t ac_run_read(struct file *f, char __user *ubuf, size_t len, loff_t *pos)
{
	ssize_t ret;

	if (mutex_lock_killable(&ac_mutex))
		return -EINTR;
	ret = simple_read_from_buffer(ubuf, len, pos, ac_out, ac_out ? ac_out_len : 0);
	mutex_unlock(&ac_mutex);
	return ret;
}

static const struct file_operations ac_run_fops = {
	.owner = THIS_MODULE,
	.write = ac_run_write,
	.read = ac_run_read,
	.llseek = default_llseek,
};

/* One line per probe: name, twin, ops per iteration, irqs, what it times. */
static int ac_probes_show(struct seq_file *m, void *unused)
{
	const struct ac_probe *tables[] = { ac_op_probes, ac_prim_probes };
	const unsigned int counts[] = { ac_op_nprobes, ac_prim_nprobes };

	for (unsigned int t = 0; t < ARRAY_SIZE(tables); t++)
		for (unsigned int i = 0; i < counts[t]; i++) {
			const struct ac_probe *p = &tables[t][i];

			seq_printf(m, "%s\t%s\t%u\t%s\t%s\n", p->name, p->twin, p->ops,
				   ac_irqs_names[p->irqs], p->what);
		}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ac_probes);

static int __init ac_init(void)
{
	ac_cache = kmem_cache_create("atomcost", AC_OBJ_SIZE, 0, 0, NULL);
	if (!ac_cache)
		return -ENOMEM;
	ac_dir = debugfs_create_dir("atomcost", NULL);
	debugfs_create_file("probes", 0400, ac_dir, NULL, &ac_probes_fops);
	debugfs_create_file("run", 0600, ac_dir, NULL, &ac_run_fops);
	return 0;
}

static void __exit ac_exit(void)
{
	debugfs_remove_recursive(ac_dir);
	kvfree(ac_out);
	kmem_cache_destroy(ac_cache);
}

module_init(ac_init);
module_exit(ac_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("atomcost: the kernel's own primitives, timed in the kernel");
