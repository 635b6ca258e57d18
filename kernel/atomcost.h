/* SPDX-License-Identifier: MIT */
/* atomcost.h - what the module's files share: the probe context, the probe
 * descriptor and the timed loop. Includes nothing but the kernel's types, so
 * ops.c can include it beside src/arch/arch.h (whose arch_cmpxchg & co. have
 * the kernel's own names: the two never meet in one file). */
#ifndef ATOMCOST_KERNEL_H
#define ATOMCOST_KERNEL_H

#include <linux/types.h>

#define AC_UNROLL 64		/* ops per iteration, as user space's UNROLL */
#define AC_LINES 32		/* throughput forms: ops spread over these lines */
#define AC_LINE_BYTES 64
#define AC_MEM_BYTES 4096

struct kmem_cache;
struct task_struct;

/* One run's state, handed to every call of a probe's loop. */
struct ac_ctx {
	u8 *mem;		/* AC_MEM_BYTES, zeroed, page aligned */
	u64 scratch;		/* 0: an opaque start value */
	struct kmem_cache *cache;
	void **objs;		/* room for the largest bulk */
	unsigned int bulk;
	u64 allocated, freed;	/* objects, alloc probes */
	u64 alloc_errors;	/* bulk calls that returned fewer than asked */
	bool irqs_in;		/* irqs_disabled() inside the probe's own section */
	/* A long sample's stop (kthread.c, ac_stopping): the request's wall
	 * bound (jiffies), the writing task (blocked in its write until the
	 * run ends, so alive) whose fatal signal stops the run, set when its
	 * CPU goes offline, and why it stopped (0, -EINTR, -ETIME, -ENODEV). */
	unsigned long deadline;
	struct task_struct *writer;
	bool cpu_gone;
	int stop;
};

/* Where irqs are off: AC_IRQS_RUNNER, the runner holds them off around the
 * timings (preemption off too); AC_IRQS_OWN, the probe turns them off itself
 * (the runner holds preemption off) and records irqs_disabled() inside in
 * ctx->irqs_in; AC_IRQS_ON, irqs and preemption on (the allocator may
 * sleep). */
enum ac_irqs { AC_IRQS_RUNNER, AC_IRQS_OWN, AC_IRQS_ON };

struct ac_probe {
	const char *name, *twin;	/* twin: "-" when none */
	const char *analog;		/* the user-space probe it stands beside, or "-" */
	const char *what;		/* the instruction or the kernel macro timed */
	void (*fn)(struct ac_ctx *c, u64 iters);
	unsigned int ops;		/* ops per iteration */
	enum ac_irqs irqs;
	unsigned int bulk;		/* kmem_cache_alloc_bulk size, else 0 */
	unsigned int conc_size;		/* kthread.c's kmalloc size, else 0 */
	const char *skip;		/* why this kernel cannot run it, else NULL */
};

/* fn(c, iters): iters x n copies of op (i: the copy's index, a constant
 * once unrolled), each iteration after pre (AC_LOOP_ON's stop check), then
 * tail, which runs also at 0 iterations and so belongs to the fixed
 * overhead; fn_what: op's text as written (AC_LOOP stringifies
 * it before it expands), what the probe times. p is laundered each iteration
 * so the compiler cannot hoist address arithmetic out of the loop. n is a
 * literal (the pragma's). */
#define AC_PRAGMA_(x) _Pragma(#x)
#define AC_LOOP_N(fn, n, what, decl, pre, op, tail)			\
	static const char fn##_what[] __maybe_unused = what;			\
	static noinline void fn(struct ac_ctx *c, u64 iters)			\
	{									\
		u8 *p = c->mem;							\
		decl;								\
		for (u64 it = 0; it < iters; it++) {				\
			pre;							\
			asm volatile("" : "+r"(p));				\
			AC_PRAGMA_(GCC unroll n)				\
			for (unsigned int i = 0; i < (n); i++) {		\
				op;						\
			}							\
		}								\
		tail;								\
	}
#define AC_LOOP(fn, decl, op, tail) AC_LOOP_N(fn, 64, #op, decl, , op, tail)
/* Probes that save the flags themselves unroll less: objtool tracks at most
 * 31 nested pushf (local_irq_save) in one function. */
#define AC_OWN_UNROLL 16
#define AC_LOOP_OWN(fn, decl, op, tail) AC_LOOP_N(fn, 16, #op, decl, , op, tail)
/* Probes with irqs and preemption on (the allocator's) can run long: each
 * iteration first asks whether the sample must stop (docs/kernel.md, "Stop
 * means stop"); a stopped sample is dropped, never reported. */
#define AC_LOOP_ON(fn, decl, op, tail)						\
	AC_LOOP_N(fn, 64, #op, decl, if (ac_stopping(c)) break, op, tail)

/* Whether a long sample must stop now (the writer killed, the wall bound
 * passed, its CPU going offline); sets c->stop to why. kthread.c. */
bool ac_stopping(struct ac_ctx *c);

/* The i-th op's line in a throughput form. */
#define AC_LINE(p, i) ((p) + (i) % AC_LINES * AC_LINE_BYTES)

extern const struct ac_probe ac_op_probes[], ac_kfn_probes[], ac_prim_probes[];
extern const unsigned int ac_op_nprobes, ac_kfn_nprobes, ac_prim_nprobes;

#endif
