/* probe.h - the probe descriptor. A probe is one primitive in its timed
 * forms plus a semantic check; every probe is declared as a const struct in
 * its family file and registered by one line in probes/probes.h.
 *
 * A timed kernel executes `iters` iterations of UNROLL (64) copies of the op.
 * The runner times N and 2N iterations and keeps the difference, so loop,
 * call and timer overhead cancel; twins use the same kernel template, so
 * their ratio compares only the op.
 */
#ifndef ATOMCOST_PROBE_H
#define ATOMCOST_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"

enum atomicity {
	ATOMICITY_BASELINE,	/* reference loop, not a primitive */
	ATOMICITY_ATOMIC,	/* atomic against every CPU */
	ATOMICITY_LOCAL,	/* atomic only against this CPU (irq/preempt) */
	ATOMICITY_NONATOMIC,	/* plain read-modify-write */
};

enum probe_mode {
	MODE_LATENCY,		/* each op depends on the previous op */
	MODE_THROUGHPUT,	/* independent ops on different hot lines */
	MODE__COUNT,
};

/* Memory the runner gives a kernel: page aligned, zeroed, then prepared by
 * the probe's setup(). */
struct probe_ctx {
	void *mem;
	size_t mem_size;
	enum probe_mode mode;
	uint64_t scratch;	/* kernels may keep state across calls here */
};

typedef void (*probe_kernel_fn)(struct probe_ctx *ctx, uint64_t iters);

struct probe {
	const char *name;	/* kernel-style name on the command line */
	const char *twin;	/* the probe it is compared with, or NULL */
	const char *family;	/* baseline, bitops, cmpxchg, ... */
	enum atomicity atomicity;
	const char *insn;	/* exact instruction(s) on this architecture */
	const char *kernel;	/* the kernel primitive it stands for */
	const char *desc;	/* one line */
	const char *impl;	/* "asm" or "c11" (generic fallback) */
	bool in_default;	/* part of `atomcost run` with no arguments */
	probe_kernel_fn run[MODE__COUNT];	/* NULL: form not offered */
	size_t mem_size;	/* bytes needed (0: 4 KiB) */
	int (*setup)(struct probe_ctx *ctx);	/* optional */
	int (*verify)(void);	/* semantics: 0 ok, -1 wrong */
	const char *unsupported;	/* non-NULL: why it cannot run here */
};

const char *probe_mode_name(enum probe_mode m);
int probe_mode_parse(const char *s, enum probe_mode *out);
const char *probe_atomicity_name(enum atomicity a);

/* The registry (probes/registry.c). */
extern const struct probe *const probe_table[];
extern const size_t probe_count;
const struct probe *probe_find(const char *name);

/* Kernel-generation helpers for families. KERNEL(name, decls, op, tail)
 * defines a noinline timed loop: `decls` once, OPS64(op) per iteration,
 * `tail` once (to keep results live). noinline keeps each loop a separate
 * symbol for the disassembly review. */
#define PROBE_KERNEL(fn, decls, op, tail)					\
	static __attribute__((noinline)) void fn(struct probe_ctx *ctx, uint64_t iters) \
	{									\
		char *p = ctx->mem;						\
		decls;								\
		for (uint64_t it_ = 0; it_ < iters; it_++) {			\
			PROBE_LAUNDER(p);					\
			OPS64(op)						\
		}								\
		tail;								\
		(void)p;							\
	}

/* Address of the i-th op in a throughput kernel: one word on each of
 * TPUT_LINES lines, cycled. */
#define TPUT_ADDR(p, i) ((p) + ((i) % TPUT_LINES) * CACHE_LINE_BYTES)
#define CACHE_LINE_BYTES 64

/* Make the compiler forget what p holds, at no cost: otherwise it hoists
 * the 32 addresses p+64*i out of the loop, runs out of registers and
 * reloads spilled addresses from the stack inside the timed loop. With p
 * laundered each iteration, every op addresses disp(%reg) directly. */
#define PROBE_LAUNDER(p) asm volatile("" : "+r"(p))

/* Keep a value live without emitting code. */
#define PROBE_SINK(v) asm volatile("" : : "r"(v))

#endif
