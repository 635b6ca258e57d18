/* SPDX-License-Identifier: MIT */
/* pattern-kernels.h - the timed loops of the access patterns (src/pattern.c),
 * generated from one "op at an address" per probe.
 *
 * A probe's op is a macro X(x): the op on the line at x, a statement ending in
 * ';' (by convention <id>_X, defined where the probe is). A family invokes
 * PATTERN_PAIR(atomic_id, atomic_X, twin_id, twin_X, W, decls, tail); a third
 * probe that shares the pair's atomic op (a lock-prefix-only control) takes
 * PATTERN_ONE(id, X, W, decls, tail, NULL, NULL). The generated loops get X
 * as an argument of their step (OPS64_X, probe.h).
 * That gives each probe a `static const struct probe_pattern pat_<id>` with:
 *   chase_w1  latency, the row named by the pattern ("dep", "l2", ...): op
 *             on word 1 of the line, then next = *line, the bare walk's own
 *             step (mov (%reg),%reg): the chain runs through the loads; what
 *             the op adds is what it makes the next load wait for.
 *   chase     latency, the PATTERN+ptr row: op on the line's pointer word,
 *             then next = *line & ~63. The next address is read back from
 *             the word the op just wrote (W = 0 only: ops that may only
 *             touch bits 0..5 of word 0), so these rows measure store
 *             forwarding as well as the op: a byte RMW there (orb, lock orb)
 *             fails to forward to the next 8-byte load, locked or not. The
 *             `and` that drops those bits is one more dependent cycle.
 *   indexed   throughput: op on word 1 of each line in the precomputed walk
 *             order: addresses never come from memory the op touched, so
 *             misses overlap, and the links stay as the walks need them.
 *   overlap   miss-overlap: an independent load of the next walk line, then
 *             the op on one of the TPUT_LINES hot lines.
 *   mix[]     mix=K/M, shared by the pair: op i of each 64 is the atomic
 *             op when bit i of ctx->mix_mask is set, else the twin's, on the
 *             hot lines (latency: one word; throughput: TPUT_LINES lines).
 * Every loop is OPS64-unrolled and the same for both probes of a pair but
 * for the op (`ninja disasm`; tests/test-pattern.sh checks it).
 */
#ifndef ATOMCOST_PATTERN_KERNELS_H
#define ATOMCOST_PATTERN_KERNELS_H

#include "probe.h"

/* The i-th of the TPUT_LINES hot lines (miss-overlap and mix kernels). */
#define PAT_HOT_ADDR(p, i) ((p) + ((i) % TPUT_LINES) * CACHE_LINE_BYTES)
#define PAT_LINE_MASK (~(uint64_t)(CACHE_LINE_BYTES - 1))
/* Line of walk entry i: entries are offsets in 64-byte units. */
#define PAT_AT(b, w, i) ((b) + ((size_t)(w)[i] << 6))
/* Chase steps. PAT_FOLLOW: the next line's address is the pointer word
 * itself, one `mov (%reg),%reg` per step: the bare walk and the PATTERN
 * rows (op on word 1). PAT_NEXT: low bits masked, for the PATTERN+ptr rows,
 * whose op runs on the pointer word (bit ops may set some of them); a walk
 * over a buffer such an op ran on needs pattern_buf_clean() before it is
 * followed again. */
#define PAT_FOLLOW(q) q = (char *)arch_load(q);
#define PAT_NEXT(q) q = (char *)(arch_load(q) & PAT_LINE_MASK);

#define PAT_CH0(i, X) X(q) PAT_NEXT(q)
#define PAT_CH1(i, X) X(q + 8) PAT_FOLLOW(q)
#define PAT_CHP(i, X) PAT_FOLLOW(q)
#define PAT_IX1(i, X) X(PAT_AT(b, w, i) + 8)
#define PAT_IXP(i, X) (void)arch_load(PAT_AT(b, w, i));
#define PAT_OV(i, X) (void)arch_load(PAT_AT(b, w, i)); X(PAT_HOT_ADDR(p, i))
#define PAT_MXL(i, A, N) if (mm & (1ull << (i))) { A(p) } else { N(p) }
#define PAT_MXT(i, A, N)							\
	if (mm & (1ull << (i))) { A(PAT_HOT_ADDR(p, i)) } else { N(PAT_HOT_ADDR(p, i)) }

/* A chase: the cursor is kept in ctx between calls. */
#define PAT_CHASE_KERNEL(fn, decls, tail, step, ...)				\
	static __attribute__((noinline)) void fn(struct probe_ctx *ctx, uint64_t iters) \
	{									\
		char *q = ctx->pat_cursor;					\
		decls;								\
		for (uint64_t it_ = 0; it_ < iters; it_++) {			\
			OPS64_X(step, __VA_ARGS__)				\
		}								\
		ctx->pat_cursor = q;						\
		tail;								\
	}

/* A walk of the index sequence (64 entries per iteration, wrapping), with
 * the hot lines at p for the overlap form. The position is kept in ctx. */
#define PAT_INDEX_KERNEL(fn, decls, tail, step, ...)				\
	static __attribute__((noinline)) void fn(struct probe_ctx *ctx, uint64_t iters) \
	{									\
		char *b = ctx->pat_base, *p = ctx->mem;				\
		const uint32_t *w0 = ctx->pat_idx, *w = w0 + ctx->pat_pos;	\
		const uint32_t *wend = w0 + ctx->pat_nidx;			\
		decls;								\
		for (uint64_t it_ = 0; it_ < iters; it_++) {			\
			PROBE_LAUNDER(p);					\
			OPS64_X(step, __VA_ARGS__)				\
			w += UNROLL;						\
			if (w == wend)						\
				w = w0;						\
		}								\
		ctx->pat_pos = (size_t)(w - w0);				\
		tail;								\
		(void)b;							\
		(void)p;							\
	}

#define PAT_MIX_KERNEL(fn, decls, tail, step, ...)				\
	static __attribute__((noinline)) void fn(struct probe_ctx *ctx, uint64_t iters) \
	{									\
		char *p = ctx->mem;						\
		uint64_t mm = ctx->mix_mask;					\
		decls;								\
		for (uint64_t it_ = 0; it_ < iters; it_++) {			\
			PROBE_LAUNDER(p);					\
			PROBE_LAUNDER(mm);	/* else gcc hoists 64 masked copies to the stack */ \
			OPS64_X(step, __VA_ARGS__)				\
		}								\
		tail;								\
	}

#define PAT_SEL_0(a, b) a
#define PAT_SEL_1(a, b) b
#define PAT_IF0_0(x) x
#define PAT_IF0_1(x)

/* The kernels of one probe from its op X(x), W as for PATTERN_PAIR, and
 * the mix kernels it offers (NULL, NULL: none). */
#define PATTERN_ONE(id, X, W, decls, tail, mixlat, mixtput)			\
	PAT_IF0_##W(PAT_CHASE_KERNEL(kp_##id##_chase, decls, tail, PAT_CH0, X))	\
	PAT_CHASE_KERNEL(kp_##id##_chase_w1, decls, tail, PAT_CH1, X)		\
	PAT_INDEX_KERNEL(kp_##id##_indexed, decls, tail, PAT_IX1, X)		\
	PAT_INDEX_KERNEL(kp_##id##_overlap, decls, tail, PAT_OV, X)		\
	static const struct probe_pattern pat_##id = {				\
		.chase = PAT_SEL_##W(kp_##id##_chase, NULL),			\
		.chase_w1 = kp_##id##_chase_w1,					\
		.indexed = kp_##id##_indexed,					\
		.overlap = kp_##id##_overlap,					\
		.mix = { [MODE_LATENCY] = mixlat, [MODE_THROUGHPUT] = mixtput },	\
	};

/* An atomic probe and its twin. W = 0: the ops change only bits 0..5 of
 * the first word (or write back what they read), so they may run on the
 * pointer word; W = 1: they would break the chain there, so they run on
 * word 1 only and offer no `chase` (PATTERN+ptr) form. */
#define PATTERN_PAIR(ida, xa, idn, xn, W, decls, tail)				\
	PAT_MIX_KERNEL(km_##ida##_lat, decls, tail, PAT_MXL, xa, xn)		\
	PAT_MIX_KERNEL(km_##ida##_tput, decls, tail, PAT_MXT, xa, xn)		\
	PATTERN_ONE(ida, xa, W, decls, tail, km_##ida##_lat, km_##ida##_tput)	\
	PATTERN_ONE(idn, xn, W, decls, tail, km_##ida##_lat, km_##ida##_tput)

/* The plain chase and independent loads (load_chase): the baseline each
 * pattern's op cost is read against. The bare walk is the PATTERN rows'
 * step without the op (chase_w1); it has no pointer-word form. */
#define PATTERN_PLAIN(id)							\
	PAT_CHASE_KERNEL(kp_##id##_chase, , , PAT_CHP, )			\
	PAT_INDEX_KERNEL(kp_##id##_indexed, , , PAT_IXP, )			\
	static const struct probe_pattern pat_##id = {				\
		.chase_w1 = kp_##id##_chase,					\
		.indexed = kp_##id##_indexed,					\
		.overlap = kp_##id##_indexed,					\
	};

/* ---- the fast-path menu's context forms (src/model/card.c) --------------
 * What an op adds to a stream of independent work, for the probes a menu
 * need lists. The op is a macro OP(i): the op on its own i-th hot line
 * (PAT_HOT_ADDR(p, i), p = ctx->mem; or a per-CPU displacement), so no op
 * waits for the previous one through memory. A family invokes
 *   PATTERN_CONTEXT(id, OP, decls, tail)  the kernels below, and `pat_<id>`
 *       with the walk as its PATTERN row (chase_w1), for probes without
 *       pattern kernels (locks, per-CPU ops);
 *   CONTEXT_STORES_PAIR(ida, xa, idn, xn, decls, tail)  after PATTERN_PAIR:
 *       both probes' stores kernels from their ops at an address, xa(x) and
 *       xn(x), on the hot lines (their PATTERN rows put the op in the walk).
 *   kc_<id>_walk    latency: one step of the pattern's pointer walk (next =
 *                   *line), then the op: its cost over the bare walk is the
 *                   row's extra.over_chase_cycles (pattern.c).
 *   kc_<id>_stores  CTX_STORES independent stores to one of the 32 lines
 *                   after the op's, then the op: a locked op waits for them
 *                   to drain, a plain one need not. The hit+stores row, read
 *                   against the same stores without the op (CONTEXT_BARE).
 *   kc_<id>_loads   throughput (PATTERN and miss-overlap rows): an independent
 *                   load of the next line in walk order, then the op.
 * As in PATTERN_PAIR, decls must not contain a comma. */
#define CTX_STORES 4
/* The stores go through their own pointer (s_, the 32 lines after the op's):
 * with the op's base register, Zen 5's memory renaming made `incq disp(%reg)`
 * cost 14 cycles a step where it costs 2.5 with the stores on another
 * register. p and s_ are laundered every step: else gcc keeps the lines'
 * addresses across the lock calls by spilling them to the stack. */
#define CTX_ST_(i, k) arch_store(PAT_HOT_ADDR(s_, i) + 8 * (k), 0);
#define CTX_STEP_0(i, OP) PROBE_LAUNDER(p); PROBE_LAUNDER(s_);			\
	CTX_ST_(i, 0) CTX_ST_(i, 1) CTX_ST_(i, 2) CTX_ST_(i, 3)
#define CTX_STEP_S(i, OP) CTX_STEP_0(i, ) OP(i)
#define CTX_STEP_SX(i, X) CTX_STEP_0(i, ) X(PAT_HOT_ADDR(p, i))
#define CTX_STEP_W(i, OP) PROBE_LAUNDER(p); PAT_FOLLOW(q) OP(i)
#define CTX_STEP_L(i, OP) PROBE_LAUNDER(p); (void)arch_load(PAT_AT(b, w, i)); OP(i)
/* flatten: gcc would otherwise call an outlined copy of a large inline op
 * (an rseq section) from some of the 64 steps, and spill around the calls */
#define CTX_FLAT_(fn) static void fn(struct probe_ctx *ctx, uint64_t iters) __attribute__((flatten));
#define CTX_KERNEL_(fn, decls, tail, step, ...)					\
	CTX_FLAT_(fn)								\
	static __attribute__((noinline)) void fn(struct probe_ctx *ctx, uint64_t iters) \
	{									\
		char *q = ctx->pat_cursor, *p = ctx->mem;			\
		char *s_ = p + TPUT_LINES * CACHE_LINE_BYTES;			\
		decls;								\
		for (uint64_t it_ = 0; it_ < iters; it_++) {			\
			PROBE_LAUNDER(p);					\
			OPS64_X(step, __VA_ARGS__)				\
		}								\
		ctx->pat_cursor = q;						\
		tail;								\
		(void)p;							\
		(void)s_;							\
	}
#define CONTEXT_STORES_PAIR(ida, xa, idn, xn, decls, tail)			\
	CTX_KERNEL_(kc_##ida##_stores, decls, tail, CTX_STEP_SX, xa)		\
	CTX_KERNEL_(kc_##idn##_stores, decls, tail, CTX_STEP_SX, xn)
#define PATTERN_CONTEXT(id, OP, decls, tail)					\
	CTX_KERNEL_(kc_##id##_walk, decls, tail, CTX_STEP_W, OP)		\
	CTX_FLAT_(kc_##id##_loads)						\
	PAT_INDEX_KERNEL(kc_##id##_loads, decls, tail, CTX_STEP_L, OP)		\
	CTX_KERNEL_(kc_##id##_stores, decls, tail, CTX_STEP_S, OP)		\
	static const struct probe_pattern pat_##id = { .chase_w1 = kc_##id##_walk,	\
		.indexed = kc_##id##_loads, .overlap = kc_##id##_loads, .context_only = true };
/* The stores alone (the engine's baseline for hit+stores rows). */
#define CONTEXT_BARE(fn) CTX_KERNEL_(fn, , , CTX_STEP_0, )

#endif
