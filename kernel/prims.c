// SPDX-License-Identifier: MIT
/* prims.c - the probes whose op is the kernel's own macro: what user space
 * can only imitate (this_cpu ops through %gs, irq flags, preemption, local
 * locks, spinlocks, bit spinlocks, the slab allocator). Each op is the
 * kernel's macro itself, compiled against the headers of the kernel it runs
 * on: that is what this backend is for. */
#include <linux/bit_spinlock.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 8, 0)
#include <linux/local_lock.h>	/* new in 5.8 */
#define AC_HAS_LOCAL_LOCK 1
#endif

#include "atomcost.h"

#define SINK(v) asm volatile("" : : "r"(v))

struct ac_pcpu {
	u64 w[AC_LINES * AC_LINE_BYTES / sizeof(u64)];
};
static DEFINE_PER_CPU_ALIGNED(struct ac_pcpu, ac_pcpu);
static DEFINE_SPINLOCK(ac_lock);
static DEFINE_RAW_SPINLOCK(ac_raw_lock);
static unsigned long ac_bits;

/* The i-th op's per-CPU word in a throughput form: one per line. */
#define PCPU_W(i) ac_pcpu.w[(i) % AC_LINES * (AC_LINE_BYTES / sizeof(u64))]
/* A probe that turns irqs off itself records what it saw inside, once per
 * call (in the fixed overhead, never in the per-op figure). */
#define SEEN(save, restore) save; c->irqs_in = irqs_disabled(); restore

AC_LOOP(this_cpu_inc_lat, , this_cpu_inc(PCPU_W(0)), )
AC_LOOP(this_cpu_inc_tput, , this_cpu_inc(PCPU_W(i)), )
AC_LOOP(this_cpu_add_lat, u64 v = c->scratch + 3; SINK(v), this_cpu_add(PCPU_W(0), v), )
AC_LOOP(this_cpu_add_tput, u64 v = c->scratch + 3; SINK(v), this_cpu_add(PCPU_W(i), v), )
AC_LOOP(this_cpu_cmpxchg_lat, u64 a = this_cpu_read(PCPU_W(0)),
	a = this_cpu_cmpxchg(PCPU_W(0), a, a), SINK(a))
AC_LOOP_OWN(local_irq_save_fn, unsigned long f,
	local_irq_save(f); local_irq_restore(f),
	SEEN(local_irq_save(f), local_irq_restore(f)))
AC_LOOP_OWN(local_irq_disable_fn, , local_irq_disable(); local_irq_enable(),
	SEEN(local_irq_disable(), local_irq_enable()))
/* The 2007 test's third arm: the plain update under local_irq_save. */
AC_LOOP_OWN(local_irq_save_store_fn, unsigned long f,
	local_irq_save(f); WRITE_ONCE(*(u64 *)p, READ_ONCE(*(u64 *)p) + 1); local_irq_restore(f),
	SEEN(local_irq_save(f), local_irq_restore(f)))
AC_LOOP(preempt_disable_fn, , preempt_disable(); preempt_enable(), )
#ifdef AC_HAS_LOCAL_LOCK
static DEFINE_PER_CPU(local_lock_t, ac_llock) = INIT_LOCAL_LOCK(ac_llock);
AC_LOOP(local_lock_fn, , local_lock(&ac_llock); local_unlock(&ac_llock), )
AC_LOOP_OWN(local_lock_irqsave_fn, unsigned long f,
	local_lock_irqsave(&ac_llock, f); local_unlock_irqrestore(&ac_llock, f),
	SEEN(local_lock_irqsave(&ac_llock, f), local_unlock_irqrestore(&ac_llock, f)))
#endif
AC_LOOP(spin_lock_fn, , spin_lock(&ac_lock); spin_unlock(&ac_lock), )
AC_LOOP_OWN(spin_lock_irqsave_fn, unsigned long f,
	spin_lock_irqsave(&ac_lock, f); spin_unlock_irqrestore(&ac_lock, f),
	SEEN(spin_lock_irqsave(&ac_lock, f), spin_unlock_irqrestore(&ac_lock, f)))
AC_LOOP(raw_spin_lock_fn, , raw_spin_lock(&ac_raw_lock); raw_spin_unlock(&ac_raw_lock), )
AC_LOOP(bit_spin_lock_fn, , bit_spin_lock(0, &ac_bits); bit_spin_unlock(0, &ac_bits), )
AC_LOOP(__bit_spin_unlock_fn, , bit_spin_lock(0, &ac_bits); __bit_spin_unlock(0, &ac_bits), )

/* kmem_cache_alloc then kmem_cache_free of one object, AC_UNROLL times. */
AC_LOOP_ON(kmem_cache_alloc_fn, void *o,
	o = kmem_cache_alloc(c->cache, GFP_KERNEL);
	if (o) { c->allocated++; kmem_cache_free(c->cache, o); c->freed++; }
	else { c->alloc_errors++; }, )

/* One round per iteration: kmem_cache_alloc_bulk of c->bulk objects, then
 * kmem_cache_free_bulk of what it returned (6.1 returns all or 0). Each
 * round first asks whether to stop, as AC_LOOP_ON. */
static noinline void kmem_cache_bulk_fn(struct ac_ctx *c, u64 iters)
{
	for (u64 it = 0; it < iters && !ac_stopping(c); it++) {
		int got = kmem_cache_alloc_bulk(c->cache, GFP_KERNEL, c->bulk, c->objs);

		if (got < 0)
			got = 0;
		c->allocated += got;
		c->alloc_errors += (unsigned int)got != c->bulk;
		kmem_cache_free_bulk(c->cache, got, c->objs);
		c->freed += got;
	}
}

#define R AC_IRQS_RUNNER
#define O AC_IRQS_OWN
/* name, twin, the user-space probe it stands beside ("-": none), the loop
 * (its op's text says what is timed), where irqs are off */
#define PRIM(nm, tw, an, f_, irqs_)						\
	{ .name = nm, .twin = tw, .analog = an, .what = f_##_what, .fn = f_,	\
	  .ops = irqs_ == O ? AC_OWN_UNROLL : AC_UNROLL, .irqs = irqs_ }
/* A probe this kernel lacks the primitive for: listed, with the reason,
 * never run (docs/kernel.md). */
#define SKIP(nm, why)							\
	{ .name = nm, .twin = "-", .analog = "-", .what = why, .skip = why }
/* The 2015 post's bulk sizes (configs/slub-bulk-free.conf). */
#define BULK(n)								\
	{ .name = "kmem_cache_alloc_bulk:" #n, .twin = "kmem_cache_alloc", .analog = "-", \
	  .what = "kmem_cache_alloc_bulk + kmem_cache_free_bulk, per object",	\
	  .fn = kmem_cache_bulk_fn, .ops = n, .irqs = AC_IRQS_ON, .bulk = n }

/* The 2016 post's sizes (configs/slab-concurrent.conf), run by kthread.c:
 * N x kmalloc then N x kfree on K CPUs at once, per object. */
#define CONC(n)								\
	{ .name = "kmalloc_concurrent:" #n, .twin = "-", .analog = "-",	\
	  .what = "N x kmalloc then N x kfree on K CPUs at once, per object",	\
	  .ops = 1, .irqs = AC_IRQS_ON, .conc_size = n }

const struct ac_probe ac_prim_probes[] = {
	PRIM("this_cpu_inc", "-", "this_cpu_inc", this_cpu_inc_lat, R),
	PRIM("this_cpu_inc:tput", "-", "this_cpu_inc", this_cpu_inc_tput, R),
	PRIM("this_cpu_add", "-", "this_cpu_add", this_cpu_add_lat, R),
	PRIM("this_cpu_add:tput", "-", "this_cpu_add", this_cpu_add_tput, R),
	PRIM("this_cpu_cmpxchg", "cmpxchg_local", "this_cpu_cmpxchg", this_cpu_cmpxchg_lat, R),
	PRIM("local_irq_save", "local_irq_disable", "local_irq_save_analog", local_irq_save_fn, O),
	PRIM("local_irq_disable", "local_irq_save", "-", local_irq_disable_fn, O),
	PRIM("local_irq_save:store", "cmpxchg_local", "-", local_irq_save_store_fn, O),
	PRIM("preempt_disable", "-", "preempt_disable", preempt_disable_fn, R),
#ifdef AC_HAS_LOCAL_LOCK
	PRIM("local_lock", "preempt_disable", "preempt_disable", local_lock_fn, R),
	PRIM("local_lock_irqsave", "local_irq_save", "local_irq_save_analog", local_lock_irqsave_fn, O),
#else
	SKIP("local_lock", "needs Linux 5.8: local_lock"),
	SKIP("local_lock_irqsave", "needs Linux 5.8: local_lock"),
#endif
	PRIM("spin_lock", "raw_spin_lock", "spin_lock", spin_lock_fn, R),
	PRIM("spin_lock_irqsave", "spin_lock", "-", spin_lock_irqsave_fn, O),
	PRIM("raw_spin_lock", "spin_lock", "raw_spin_lock_inline", raw_spin_lock_fn, R),
	PRIM("bit_spin_lock", "__bit_spin_unlock", "bit_spin_lock", bit_spin_lock_fn, R),
	PRIM("__bit_spin_unlock", "bit_spin_lock", "__bit_spin_unlock", __bit_spin_unlock_fn, R),
	PRIM("kmem_cache_alloc", "kmem_cache_alloc_bulk:1", "-", kmem_cache_alloc_fn, AC_IRQS_ON),
	BULK(1), BULK(2), BULK(3), BULK(4), BULK(8), BULK(16), BULK(30), BULK(32),
	BULK(34), BULK(48), BULK(64), BULK(128), BULK(158), BULK(250),
	CONC(32), CONC(64), CONC(128), CONC(256), CONC(512), CONC(1024), CONC(2048), CONC(4096),
};
const unsigned int ac_prim_nprobes = ARRAY_SIZE(ac_prim_probes);
