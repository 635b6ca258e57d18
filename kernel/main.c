// SPDX-License-Identifier: MIT
/* main.c - atomcost.ko: the runner and its debugfs interface
 * (/sys/kernel/debug/atomcost/{probes,run}; the protocol is docs/kernel.md).
 *
 * A request names a probe, a CPU, a sample count and N. A kthread bound to
 * that CPU times the probe's loop for N and 2N iterations and for 0 (the
 * fixed overhead, the minimum over every 0-iteration call, as src/runner.c)
 * with rdtsc_ordered(), irqs or preemption off as the probe allows, and
 * hands every raw sample back: user space does the statistics. The
 * kthreads, the run's bounds and the concurrent probes are kthread.c's. */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "atomcost.h"
#include "run.h"

#ifndef CONFIG_X86_64
#error "atomcost.ko supports x86-64 only (docs/kernel.md)"
#endif
/* The floor of what every probe needs; a probe that needs more is skipped
 * (prims.c's SKIP). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 18, 0)
#error "atomcost.ko needs Linux 4.18 or later (kvcalloc; docs/kernel.md)"
#endif
#ifdef CONFIG_PREEMPT_RT
#error "atomcost.ko: PREEMPT_RT is not supported: local_lock and spin_lock sleep there (docs/kernel.md)"
#endif

#define AC_FIXED_REPEATS 255	/* 0-iteration calls before the first sample */
#define AC_BULK_MAX 256
#define AC_OBJ_SIZE 256		/* the 2015 post's object size */
#define AC_CAL_ITERS 8		/* iterations per timing of the load-time calibration */
/* The memory budget of one request (ac_request_bytes): never more than
 * AC_MEM_CAP, nor than 1/AC_MEM_SHARE of what MemAvailable says now. */
#define AC_MEM_CAP (256ull << 20)
#define AC_MEM_SHARE 16
#define AC_TEXT_BYTES(lines) (1024 + (lines) * 48)	/* ac_format's text */

static DEFINE_MUTEX(ac_mutex);	/* one run at a time; guards ac_out */
static char *ac_out;		/* the last run's text */
static size_t ac_out_len;
static struct kmem_cache *ac_cache;
static struct dentry *ac_dir;

/* Every probe, in the order `probes` lists them: the kernel's own core
 * pairs (kops.c), src/arch's asm beside them (ops.c), the kernel's other
 * primitives (prims.c). */
static const struct ac_probe *ac_probe_at(unsigned int i)
{
	if (i < ac_kfn_nprobes)
		return &ac_kfn_probes[i];
	i -= ac_kfn_nprobes;
	if (i < ac_op_nprobes)
		return &ac_op_probes[i];
	i -= ac_op_nprobes;
	return i < ac_prim_nprobes ? &ac_prim_probes[i] : NULL;
}

/* Per probe (ac_probe_at's index): the largest N whose sample keeps irqs
 * or preemption off under AC_WINDOW_US, 0 for the probes that hold
 * neither off (calibrated at load, ac_calibrate). */
static u64 *ac_cap;

/* The probe named exactly name, its index in *idx; NULL if none (or skipped). */
static const struct ac_probe *ac_find(const char *name, unsigned int *idx)
{
	const struct ac_probe *p;

	for (unsigned int i = 0; (p = ac_probe_at(i)); i++)
		if (!strcmp(p->name, name) && !p->skip) {
			*idx = i;
			return p;
		}
	return NULL;
}

static u64 ac_time(struct ac_run *r, u64 iters)
{
	u64 t0 = rdtsc_ordered();

	r->pr->fn(&r->ctx, iters);
	return rdtsc_ordered() - t0;
}

/* One sample: t_N, t_2N and a 0-iteration call, under the probe's
 * conditions; the first also takes the fixed overhead's warm-up. *off:
 * whether irqs were off where the probe holds them off. The irqs- or
 * preemption-off section is timed (window_max). False when the sample was
 * stopped inside (irqs-on probes only: ac_stopping) and must not count. */
bool ac_sample(struct ac_run *r, unsigned int s, bool *off)
{
	enum ac_irqs mode = r->pr->irqs;
	unsigned long flags = 0;
	u64 w0;

	if (mode == AC_IRQS_RUNNER)
		local_irq_save(flags);
	else if (mode == AC_IRQS_OWN)
		preempt_disable();
	w0 = rdtsc_ordered();
	*off = irqs_disabled();
	for (int i = 0; !s && i < AC_FIXED_REPEATS; i++)
		r->overhead = min(r->overhead, ac_time(r, 0));
	r->tn[s] = ac_time(r, r->iters);
	r->t2n[s] = ac_time(r, 2 * r->iters);
	r->overhead = min(r->overhead, ac_time(r, 0));
	*off = *off && irqs_disabled();
	if (mode != AC_IRQS_ON)
		r->window_max = max(r->window_max, rdtsc_ordered() - w0);
	if (mode == AC_IRQS_RUNNER)
		local_irq_restore(flags);
	else if (mode == AC_IRQS_OWN)
		preempt_enable();
	if (mode == AC_IRQS_OWN)
		*off = r->ctx.irqs_in;
	return !r->ctx.stop;
}

static const char *const ac_irqs_names[] = {
	[AC_IRQS_RUNNER] = "runner", [AC_IRQS_OWN] = "own", [AC_IRQS_ON] = "on",
};

/* The run as text: "key value" lines, one "sample A B" line per sample and
 * CPU (TSC ticks: t_N t_2N with the overhead in, or for the concurrent
 * probes, form phases, one CPU's alloc and free phases), then "end". */
static int ac_format(const struct ac_run *r)
{
	size_t lines = (size_t)r->done_samples * r->ncpus, cap = AC_TEXT_BYTES(lines), n = 0;
	char *b = kvmalloc(cap, GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	n += scnprintf(b + n, cap - n,
		       "probe %s\ntwin %s\nanalog %s\nwhat %s\ncpu %u\ncpus %u\nform %s\nsamples %u\n"
		       "requested %u\niters %llu\nops %u\nirqs %s\nirqs_off %d\noverhead %llu\n"
		       "tsc_khz %u\nhypervisor %d\nallocated %llu\nfreed %llu\n"
		       "alloc_errors %llu\nerr %d\niters_asked %llu\niters_cap %llu\n"
		       "window_max %llu\nbytes %llu\nreap_us %lld\n",
		       r->pr->name, r->pr->twin, r->pr->analog, r->pr->what, r->cpu, r->ncpus,
		       r->pr->conc_size ? "phases" : "n2n", r->done_samples, r->samples,
		       r->iters, r->pr->ops, ac_irqs_names[r->pr->irqs], r->irqs_off,
		       r->overhead, tsc_khz, boot_cpu_has(X86_FEATURE_HYPERVISOR),
		       r->ctx.allocated, r->ctx.freed, r->ctx.alloc_errors, r->err, r->iters_asked,
		       r->iters_cap, r->window_max, r->bytes, r->reap_us);
	for (size_t s = 0; s < lines; s++)
		n += scnprintf(b + n, cap - n, "sample %llu %llu\n", r->tn[s], r->t2n[s]);
	n += scnprintf(b + n, cap - n, "end\n");
	kvfree(ac_out);
	ac_out = b;
	ac_out_len = n;
	return 0;
}

/* What a request holds in memory at once: the sample arrays and their
 * text, the page of the ops, the bulk objects or, for the concurrent
 * probes, every CPU's N objects of conc_size and their pointers. */
static u64 ac_request_bytes(const struct ac_run *r)
{
	u64 lines = (u64)r->samples * r->ncpus;
	u64 b = lines * 2 * sizeof(u64) + AC_TEXT_BYTES(lines) + PAGE_SIZE +
		AC_BULK_MAX * sizeof(void *);

	if (r->pr->conc_size)
		b += (u64)r->ncpus * r->iters * (r->pr->conc_size + sizeof(void *));
	b += (u64)r->pr->bulk * AC_OBJ_SIZE;
	return b;
}

/* "PROBE CPU SAMPLES N", one optional newline after: four tokens split by
 * one space each, every number whole, decimal and in its range, or the
 * request is refused: -EINVAL (malformed: a token missing, extra or with
 * anything after its digits), -ERANGE (a number out of its range, one
 * that would wrap included), -ENOENT (no such probe), -ENXIO (the CPU is
 * offline), -E2BIG (more memory than AC_MEM_CAP), -ENOMEM (more than
 * 1/AC_MEM_SHARE of MemAvailable). Checked before anything is allocated.
 * For the concurrent probes CPU is how many CPUs (0: every online one). */
static int ac_parse(struct ac_run *r, char *line, unsigned int *idx)
{
	char *tok[4], *rest = line;
	unsigned int cpu_max;
	u64 avail;
	int ret;

	for (unsigned int t = 0; t < ARRAY_SIZE(tok); t++) {
		tok[t] = strsep(&rest, " ");
		if (!tok[t] || !*tok[t])
			return -EINVAL;
	}
	if (rest)
		return -EINVAL;
	r->pr = ac_find(tok[0], idx);
	if (!r->pr)
		return -ENOENT;
	ret = kstrtouint(tok[1], 10, &r->cpu);
	if (!ret)
		ret = kstrtouint(tok[2], 10, &r->samples);
	if (!ret)
		ret = kstrtou64(tok[3], 10, &r->iters);
	if (ret)
		return ret;	/* -EINVAL: not a number; -ERANGE: it wraps */
	cpu_max = r->pr->conc_size ? nr_cpu_ids : nr_cpu_ids - 1;
	if (r->cpu > cpu_max || r->samples < 1 || r->samples > AC_MAX_SAMPLES || r->iters < 1 ||
	    r->iters > AC_MAX_ITERS)
		return -ERANGE;
	r->ncpus = 1;
	if (r->pr->conc_size)
		r->ncpus = r->cpu && r->cpu < num_online_cpus() ? r->cpu : num_online_cpus();
	else if (!cpu_online(r->cpu))
		return -ENXIO;	/* checked again under cpus_read_lock (kthread.c) */
	if ((u64)r->samples * r->ncpus > AC_MAX_SAMPLES)
		return -ERANGE;
	r->bytes = ac_request_bytes(r);
	avail = (u64)si_mem_available() * PAGE_SIZE / AC_MEM_SHARE;
	if (r->bytes > AC_MEM_CAP || r->bytes > avail) {
		pr_info_ratelimited("atomcost: %s on %u CPU(s), %u samples, N %llu: %llu bytes, over %s (%llu): refused\n",
				    r->pr->name, r->ncpus, r->samples, r->iters, r->bytes,
				    r->bytes > AC_MEM_CAP ? "the cap" : "1/16 of MemAvailable",
				    r->bytes > AC_MEM_CAP ? AC_MEM_CAP : avail);
		return r->bytes > AC_MEM_CAP ? -E2BIG : -ENOMEM;
	}
	/* N lowered so that irqs or preemption stay off under AC_WINDOW_US */
	r->iters_asked = r->iters;
	r->iters_cap = ac_cap[*idx];
	if (r->iters_cap && r->iters > r->iters_cap)
		r->iters = r->iters_cap;
	r->tn = kvcalloc(2 * r->samples * r->ncpus, sizeof(u64), GFP_KERNEL);
	if (!r->tn)
		return -ENOMEM;
	r->t2n = r->tn + r->samples * r->ncpus;
	return 0;
}

/* "PROBE CPU SAMPLES ITERS" -> a run, its text kept for the next read. */
static int ac_request(char *line)
{
	struct ac_run *r = kzalloc(sizeof(*r), GFP_KERNEL);
	unsigned int idx;
	int ret;

	if (!r)
		return -ENOMEM;
	ret = ac_parse(r, line, &idx);
	if (ret)
		goto out;
	ret = -ENOMEM;
	r->ctx.mem = (u8 *)get_zeroed_page(GFP_KERNEL);
	r->ctx.objs = kcalloc(AC_BULK_MAX, sizeof(void *), GFP_KERNEL);
	if (!r->ctx.mem || !r->ctx.objs)
		goto out;
	r->overhead = r->pr->conc_size ? 0 : U64_MAX;
	r->ctx.cache = ac_cache;
	r->ctx.bulk = r->pr->bulk;
	r->ctx.deadline = jiffies + msecs_to_jiffies(AC_MAX_MS);
	r->ctx.writer = current;
	ret = ac_run_kthreads(r);
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
	size_t n = len;
	int ret;

	if (len >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	if (n && line[n - 1] == '\n')
		n--;
	if (strnlen(line, n) != n)	/* a NUL inside: garbage */
		return -EINVAL;
	line[n] = 0;
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

/* One line per probe: name, twin, user-space analog, ops per iteration,
 * irqs, what it times; a skipped probe: irqs "skipped", then the reason. */
static int ac_probes_show(struct seq_file *m, void *unused)
{
	const struct ac_probe *p;

	for (unsigned int i = 0; (p = ac_probe_at(i)); i++)
		seq_printf(m, "%s\t%s\t%s\t%u\t%s\t%s\n", p->name, p->twin, p->analog, p->ops,
			   p->skip ? "skipped" : ac_irqs_names[p->irqs], p->what);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ac_probes);

/* Each probe that holds irqs or preemption off, timed at a few iterations
 * under its own conditions (the fastest of a few tries, the first warm):
 * its cap is the N whose sample (3N iterations with the overheads) takes
 * half of AC_WINDOW_US at that speed. */
static int __init ac_calibrate(void)
{
	const struct ac_probe *p;
	unsigned int n = 0;
	struct ac_run *r = kzalloc(sizeof(*r), GFP_KERNEL);
	u64 half = (u64)tsc_khz * AC_WINDOW_US / 1000 / 2;
	int ret = -ENOMEM;

	while (ac_probe_at(n))
		n++;
	ac_cap = kcalloc(n, sizeof(*ac_cap), GFP_KERNEL);
	if (!r || !ac_cap)
		goto out;
	r->ctx.mem = (u8 *)get_zeroed_page(GFP_KERNEL);
	r->ctx.objs = kcalloc(AC_BULK_MAX, sizeof(void *), GFP_KERNEL);
	if (!r->ctx.mem || !r->ctx.objs)
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		u64 best = U64_MAX, per_iter;

		p = ac_probe_at(i);
		if (p->skip || p->irqs == AC_IRQS_ON || p->conc_size)
			continue;
		r->pr = p;
		for (int t = 0; t < 4; t++) {
			unsigned long flags;
			u64 dt;

			local_irq_save(flags);
			dt = ac_time(r, AC_CAL_ITERS);
			local_irq_restore(flags);
			best = t ? min(best, dt) : best;
		}
		per_iter = max_t(u64, best / AC_CAL_ITERS, 1);
		ac_cap[i] = clamp_t(u64, half / (3 * per_iter), 1, AC_MAX_ITERS);
	}
	ret = 0;
out:
	if (r) {
		kfree(r->ctx.objs);
		free_page((unsigned long)r->ctx.mem);
	}
	kfree(r);
	return ret;
}

static int __init ac_init(void)
{
	int ret = ac_calibrate();

	if (ret)
		goto out_cap;
	ret = -ENOMEM;
	ac_cache = kmem_cache_create("atomcost", AC_OBJ_SIZE, 0, 0, NULL);
	if (!ac_cache)
		goto out_cap;
	ret = ac_hotplug_init();
	if (ret)
		goto out_cache;
	ac_dir = debugfs_create_dir("atomcost", NULL);
	debugfs_create_file("probes", 0400, ac_dir, NULL, &ac_probes_fops);
	debugfs_create_file("run", 0600, ac_dir, NULL, &ac_run_fops);
	return 0;
out_cache:
	kmem_cache_destroy(ac_cache);
out_cap:
	kfree(ac_cap);
	return ret;
}

static void __exit ac_exit(void)
{
	debugfs_remove_recursive(ac_dir);
	ac_hotplug_exit();
	kvfree(ac_out);
	kmem_cache_destroy(ac_cache);
	kfree(ac_cap);
}

module_init(ac_init);
module_exit(ac_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("atomcost: the kernel's own primitives, timed in the kernel");
