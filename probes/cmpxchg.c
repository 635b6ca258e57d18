/* SPDX-License-Identifier: MIT */
/* cmpxchg.c - compare-and-exchange and the other value-returning RMWs, each
 * beside its unlocked (local-only or non-atomic) twin.
 *
 * Latency form: the same word every op, so each op reads the word the
 * previous op wrote (CHAIN_MEMORY); the returned value also feeds the next
 * op. Throughput form: 1..8 words on each of 1..32 hot lines (the sweep).
 * cmpxchg always succeeds here (expected == stored value), so each op writes.
 */
#include "probes.h"
#include "pattern-kernels.h"

#include <string.h>

/* CX_KERNELS(id, fn, S, decls, L, T, tail): probe id's latency kernel and
 * its sweep (PROBE_KERNEL_TPUT##S), whose ops L and T call fn_: a constant
 * pointer to fn, which gcc calls directly and inlines, so the twins of a
 * pair share their ops. decls must not contain a comma. */
#define CX_FN(fn) __typeof__(fn) *const fn_ = fn
#define CX_KERNELS(id, fn, S, decls, L, T, tail)				\
	PROBE_KERNEL(k_##id##_lat, decls; CX_FN(fn), L, tail)			\
	PROBE_KERNEL_TPUT##S(k_##id##_tput, decls; CX_FN(fn), T, tail)

/* cmpxchg / cmpxchg_local: a stays in the accumulator ("+a"), every word is
 * 0 and a is 0, so each op succeeds and stores 0. */
#define CX_DECL uint64_t a = ctx->scratch
#define OP_CX_L(i) a = fn_(p, a, a);
#define OP_CX_T(i) a = fn_(TPUT_ADDR(p, i), a, a);
CX_KERNELS(cmpxchg, arch_cmpxchg, , CX_DECL, OP_CX_L, OP_CX_T, PROBE_SINK(a))
CX_KERNELS(cmpxchg_local, arch_cmpxchg_nl, , CX_DECL, OP_CX_L, OP_CX_T, PROBE_SINK(a))

/* try_cmpxchg: the success flag is consumed, as a retry loop would. */
#define TCX_DECL uint64_t a = ctx->scratch; uint64_t ok = 0
#define OP_TCX_L(i) ok += fn_(p, &a, a); PROBE_LAUNDER(ok);
#define OP_TCX_T(i) ok += fn_(TPUT_ADDR(p, i), &a, a); PROBE_LAUNDER(ok);
CX_KERNELS(try_cmpxchg, arch_try_cmpxchg, , TCX_DECL, OP_TCX_L, OP_TCX_T, PROBE_SINK(ok))
CX_KERNELS(try_cmpxchg_local, arch_try_cmpxchg_nl, , TCX_DECL, OP_TCX_L, OP_TCX_T, PROBE_SINK(ok))

/* xchg: the old value comes back into v and is the next op's operand; the
 * chain runs through the word (each locked xchg reads what the previous one
 * wrote). __xchg (a load, then a store) has no latency form: its load reads
 * the previous store, but the value it stores is the one before, so a loop
 * of them is two interleaved chains through the store buffer, not one.
 * xadd: v receives the old value and is added next time. */
#define XCH_DECL uint64_t v = ctx->scratch
#define OP_XCH_L(i) v = fn_(p, v);
#define OP_XCH_T(i) v = fn_(TPUT_ADDR(p, i), v);
CX_KERNELS(xchg, arch_xchg, , XCH_DECL, OP_XCH_L, OP_XCH_T, PROBE_SINK(v))
PROBE_KERNEL_TPUT(k___xchg_tput, XCH_DECL; CX_FN(arch_xchg_nl), OP_XCH_T, PROBE_SINK(v))
CX_KERNELS(atomic_add_return, arch_xadd, , XCH_DECL, OP_XCH_L, OP_XCH_T, PROBE_SINK(v))
CX_KERNELS(xadd_local, arch_xadd_nl, , XCH_DECL, OP_XCH_L, OP_XCH_T, PROBE_SINK(v))

#define OP_INC_L(i) fn_(p);
#define OP_INC_T(i) fn_(TPUT_ADDR(p, i));
CX_KERNELS(atomic_inc, arch_inc, , , OP_INC_L, OP_INC_T, )
CX_KERNELS(local_inc, arch_inc_nl, , , OP_INC_L, OP_INC_T, )

#if ARCH_HAS_CMPXCHG128
/* 16-byte pairs: o is {0, 0} and every pair is {0, 0}: always succeeds. */
#define CX16_DECL uint64_t o[2] = { 0 }; uint64_t ok = 0
#define OP_CX16_L(i) ok += fn_(p, o, o[0], o[1]); PROBE_LAUNDER(ok);
#define OP_CX16_T(i) ok += fn_(TPUT_ADDR16(p, i), o, o[0], o[1]); PROBE_LAUNDER(ok);
CX_KERNELS(cmpxchg128, arch_cmpxchg128, 16, CX16_DECL, OP_CX16_L, OP_CX16_T, PROBE_SINK(ok))
CX_KERNELS(cmpxchg128_local, arch_cmpxchg128_nl, 16, CX16_DECL, OP_CX16_L, OP_CX16_T,
	   PROBE_SINK(ok))
#endif

#if ARCH_HAS_SEG_PERCPU
/* this_cpu_cmpxchg: the target is a thread-local array addressed through
 * the segment base, as the kernel addresses per-CPU data through %gs. */
static __thread uint64_t pcpu_area[TPUT_LINES * CACHE_LINE_BYTES / 8] __attribute__((aligned(64)));
#define PCPU_DECL uint64_t a = 0; uintptr_t off = arch_percpu_offset(pcpu_area)
#define OP_PCPU_L(i) a = arch_percpu_cmpxchg(off, a, a);
#define OP_PCPU_T(i) a = arch_percpu_cmpxchg_disp(off, TPUT_OFF(i, 8), a, a);
PROBE_KERNEL(k_this_cpu_cmpxchg_lat, PCPU_DECL, OP_PCPU_L, PROBE_SINK(a))
PROBE_KERNEL_TPUT(k_this_cpu_cmpxchg_tput, PCPU_DECL, OP_PCPU_T, PROBE_SINK(a))

static int verify_this_cpu_cmpxchg(void)
{
	uintptr_t off = arch_percpu_offset(&pcpu_area[3]);
	uint64_t seen;

	pcpu_area[3] = 7;
	seen = arch_percpu_cmpxchg(off, 7, 9);	/* succeeds */
	if (seen != 7 || pcpu_area[3] != 9)
		return -1;
	seen = arch_percpu_cmpxchg(off, 7, 11);	/* fails, returns 9 */
	if (seen != 9 || pcpu_area[3] != 9)
		return -1;
	pcpu_area[3] = 0;
	return 0;
}
#endif

/* ---- semantics ------------------------------------------------------- */

static int verify_cx(uint64_t (*op)(volatile void *, uint64_t, uint64_t))
{
	uint64_t w = 5;

	if (op(&w, 5, 8) != 5 || w != 8)	/* success returns old, stores new */
		return -1;
	if (op(&w, 5, 9) != 8 || w != 8)	/* failure returns seen, stores nothing */
		return -1;
	return 0;
}
static int verify_cmpxchg(void) { return verify_cx(arch_cmpxchg); }
static int verify_cmpxchg_local(void) { return verify_cx(arch_cmpxchg_nl); }

static int verify_tcx(bool (*op)(volatile void *, uint64_t *, uint64_t))
{
	uint64_t w = 5, old = 5;

	if (!op(&w, &old, 8) || w != 8 || old != 5)
		return -1;
	old = 5;	/* stale: fails and writes the seen value back */
	if (op(&w, &old, 9) || w != 8 || old != 8)
		return -1;
	return 0;
}
static int verify_try_cmpxchg(void) { return verify_tcx(arch_try_cmpxchg); }
static int verify_try_cmpxchg_local(void) { return verify_tcx(arch_try_cmpxchg_nl); }

static int verify_xchg_fn(uint64_t (*op)(volatile void *, uint64_t))
{
	uint64_t w = 3;

	return (op(&w, 4) == 3 && w == 4) ? 0 : -1;
}
static int verify_xchg(void) { return verify_xchg_fn(arch_xchg); }
static int verify___xchg(void) { return verify_xchg_fn(arch_xchg_nl); }

static int verify_xadd_fn(uint64_t (*op)(volatile void *, uint64_t))
{
	uint64_t w = 40;

	return (op(&w, 2) == 40 && w == 42) ? 0 : -1;
}
static int verify_atomic_add_return(void) { return verify_xadd_fn(arch_xadd); }
static int verify_xadd_local(void) { return verify_xadd_fn(arch_xadd_nl); }

static int verify_inc_fn(void (*op)(volatile void *))
{
	uint64_t w = ~0ull - 1;

	op(&w);
	if (w != ~0ull)
		return -1;
	op(&w);	/* wraps */
	return w == 0 ? 0 : -1;
}
static int verify_atomic_inc(void) { return verify_inc_fn(arch_inc); }
static int verify_local_inc(void) { return verify_inc_fn(arch_inc_nl); }

#if ARCH_HAS_CMPXCHG128
static int verify_cx16(bool (*op)(volatile void *, uint64_t *, uint64_t, uint64_t))
{
	uint64_t pair[2] __attribute__((aligned(16))) = { 1, 2 };
	uint64_t old[2] = { 1, 2 };

	/* success moves both halves */
	if (!op(pair, old, 0x1111, 0x2222) || pair[0] != 0x1111 || pair[1] != 0x2222)
		return -1;
	/* one half differs: fails, both halves of the seen value come back */
	old[0] = 0x1111;
	old[1] = 0x9999;
	if (op(pair, old, 5, 6) || pair[0] != 0x1111 || pair[1] != 0x2222 ||
	    old[0] != 0x1111 || old[1] != 0x2222)
		return -1;
	return 0;
}
static int verify_cmpxchg128(void) { return verify_cx16(arch_cmpxchg128); }
static int verify_cmpxchg128_local(void) { return verify_cx16(arch_cmpxchg128_nl); }
#endif

/* ---- access patterns (pattern-kernels.h): each op at an arbitrary line.
 * cmpxchg runs as the kernel idiom old = READ_ONCE(*p); cmpxchg(p, old,
 * old): it always succeeds and writes back the value it read, so it also
 * runs on the pointer word (the load is in both twins). xadd adds 0 for the
 * same reason. xchg and inc would change the pointer: they run on word 1. */
#define PAT_ACC_DECL uint64_t acc = 0
#define PAT_ZERO_DECL uint64_t z = 0; PROBE_LAUNDER(z); uint64_t acc = 0
/* cx(x, old, old) after old = READ_ONCE(*x); o is old or &old */
#define CX_READ_X(x, cx, o)							\
	{ char *a_ = (x); uint64_t o_ = arch_load(a_); acc += cx(a_, o, o_); PROBE_LAUNDER(acc); }
#define cmpxchg_X(x) CX_READ_X(x, arch_cmpxchg, o_)
#define cmpxchg_local_X(x) CX_READ_X(x, arch_cmpxchg_nl, o_)
PATTERN_PAIR(cmpxchg, cmpxchg_X, cmpxchg_local, cmpxchg_local_X, 0, PAT_ACC_DECL, PROBE_SINK(acc))
CONTEXT_STORES_PAIR(cmpxchg, cmpxchg_X, cmpxchg_local, cmpxchg_local_X, PAT_ACC_DECL,
		    PROBE_SINK(acc))
#define try_cmpxchg_X(x) CX_READ_X(x, arch_try_cmpxchg, &o_)
#define try_cmpxchg_local_X(x) CX_READ_X(x, arch_try_cmpxchg_nl, &o_)
PATTERN_PAIR(try_cmpxchg, try_cmpxchg_X, try_cmpxchg_local, try_cmpxchg_local_X, 0, PAT_ACC_DECL,
	     PROBE_SINK(acc))
#define atomic_add_return_X(x) acc += arch_xadd(x, z); PROBE_LAUNDER(acc);
#define xadd_local_X(x) acc += arch_xadd_nl(x, z); PROBE_LAUNDER(acc);
PATTERN_PAIR(atomic_add_return, atomic_add_return_X, xadd_local, xadd_local_X, 0, PAT_ZERO_DECL,
	     PROBE_SINK(acc))
#define atomic_inc_X(x) arch_inc(x);
#define local_inc_X(x) arch_inc_nl(x);
PATTERN_PAIR(atomic_inc, atomic_inc_X, local_inc, local_inc_X, 1, , )
CONTEXT_STORES_PAIR(atomic_inc, atomic_inc_X, local_inc, local_inc_X, , )
#define PAT_XCH_DECL uint64_t v = ctx->scratch
#define xchg_X(x) v = arch_xchg(x, v);
#define __xchg_X(x) v = arch_xchg_nl(x, v);
PATTERN_PAIR(xchg, xchg_X, __xchg, __xchg_X, 1, PAT_XCH_DECL, PROBE_SINK(v))
CONTEXT_STORES_PAIR(xchg, xchg_X, __xchg, __xchg_X, PAT_XCH_DECL, PROBE_SINK(v))

/* The fast-path menu's context for the two without pattern kernels: the
 * op on its own hot lines (pattern-kernels.h), expected and new values from
 * a laundered zero, so no op waits for the previous one's result. */
#define PAT_ZACC_DECL uint64_t z = 0; PROBE_LAUNDER(z); uint64_t acc = 0
#if ARCH_HAS_SEG_PERCPU
#define this_cpu_cmpxchg_CTX(i)							\
	acc += arch_percpu_cmpxchg_disp(off, ((i) % TPUT_LINES) * CACHE_LINE_BYTES, z, z); \
	PROBE_LAUNDER(acc);
PATTERN_CONTEXT(this_cpu_cmpxchg, this_cpu_cmpxchg_CTX,
		PAT_ZACC_DECL; uintptr_t off = arch_percpu_offset(pcpu_area), PROBE_SINK(acc))
#endif
#if ARCH_HAS_CMPXCHG128
#define cmpxchg128_CTX(i)							\
	{ uint64_t o_[2] = { z, z }; acc += arch_cmpxchg128(PAT_HOT_ADDR(p, i), o_, z, z); \
	  PROBE_LAUNDER(acc); }
PATTERN_CONTEXT(cmpxchg128, cmpxchg128_CTX, PAT_ZACC_DECL, PROBE_SINK(acc))
#endif

/* A descriptor with its kernels, pattern kernels and verify named by id;
 * CX_LOCAL: the atomicity of an unlocked twin (atomic where there is none). */
#define CX_LOCAL (ARCH_HAS_LOCAL_RMW ? ATOMICITY_LOCAL : ATOMICITY_ATOMIC)
#define CX_PROBE(id, twin_, at, insn_, ...)					\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "cmpxchg",		\
		.atomicity = at, .insn = insn_, KERNELS(id),			\
		.patterns = &pat_##id, .verify = verify_##id, __VA_ARGS__	\
	};
CX_PROBE(cmpxchg, "cmpxchg_local", ATOMICITY_ATOMIC, ARCH_INSN_CMPXCHG,
	 KSRC(ARCH_KSRC_CMPXCHG, "arch_cmpxchg"),
	 .kernel = "cmpxchg", .desc = "fully ordered compare-and-exchange (succeeding)",
	 .in_default = true,
	 .menu_need = { NEED_FREELIST }, .safe_when = "always (atomic); ABA needs a tag",
	 .ctx_stores = kc_cmpxchg_stores, .card_pair = 2)
CX_PROBE(cmpxchg_local, "cmpxchg", CX_LOCAL, ARCH_INSN_CMPXCHG_NL,
	 KSRC(ARCH_KSRC_CMPXCHG, "arch_cmpxchg_local"),
	 .kernel = "cmpxchg_local", .desc = "compare-and-exchange atomic only against this CPU",
	 .in_default = true,
	 .menu_need = { NEED_FREELIST }, .safe_when = "this CPU only, irqs/preemption off",
	 .ctx_stores = kc_cmpxchg_local_stores)
CX_PROBE(try_cmpxchg, "try_cmpxchg_local", ATOMICITY_ATOMIC, ARCH_INSN_TRY_CMPXCHG,
	 KSRC(ARCH_KSRC_CMPXCHG, "arch_try_cmpxchg"),
	 .kernel = "try_cmpxchg",
	 .desc = "cmpxchg returning success, old value written back on failure")
CX_PROBE(try_cmpxchg_local, "try_cmpxchg", CX_LOCAL, ARCH_INSN_TRY_CMPXCHG_NL,
	 KSRC(ARCH_KSRC_CMPXCHG, "arch_try_cmpxchg_local"),
	 .kernel = "try_cmpxchg_local / this_cpu_try_cmpxchg", .desc = "unlocked try_cmpxchg")

const struct probe probe_this_cpu_cmpxchg = {
	.name = "this_cpu_cmpxchg", .twin = "cmpxchg", .family = "cmpxchg",
	.atomicity = ATOMICITY_LOCAL,
#if ARCH_HAS_SEG_PERCPU
	.insn = ARCH_INSN_PERCPU_CMPXCHG, KERNELS(this_cpu_cmpxchg),
	.verify = verify_this_cpu_cmpxchg,
	.patterns = &pat_this_cpu_cmpxchg, .ctx_stores = kc_this_cpu_cmpxchg_stores,
#else
	.insn = "-", .unsupported = "no segment-relative per-CPU addressing on this architecture",
#endif
	KSRC(ARCH_KSRC_PERCPU, "this_cpu_cmpxchg_8"),
	.kernel = "this_cpu_cmpxchg", .desc = "unlocked cmpxchg through the segment base (per-CPU form)",
	.in_default = true,
	.menu_need = { NEED_FREELIST }, .safe_when = "this CPU's data, preemption off",
};

CX_PROBE(xchg, "__xchg", ATOMICITY_ATOMIC, ARCH_INSN_XCHG, KSRC(ARCH_KSRC_CMPXCHG, "arch_xchg"),
	 .kernel = "xchg", .desc = "atomic exchange (old value feeds the next op)",
	 .in_default = true,
	 .menu_need = { NEED_PUBLISH }, .safe_when = "always (fully ordered: x86's smp_store_mb)",
	 .ctx_stores = kc_xchg_stores)

const struct probe probe___xchg = {
	.name = "__xchg", .twin = "xchg", .family = "cmpxchg",
	.atomicity = ATOMICITY_NONATOMIC, .insn = ARCH_INSN_XCHG_NL,
	.kernel_src = "include/linux/non-atomic/xchg.h __xchg",
	.kernel = "__xchg (non-atomic exchange: a load and a store)",
	.desc = "the same exchange as a load and a store; throughput only (no single chain)",
	.in_default = true, .run = { [MODE_THROUGHPUT] = k___xchg_tput },
	.tput_sweep = k___xchg_tput_sweep, .patterns = &pat___xchg, .verify = verify___xchg,
	.ctx_stores = kc___xchg_stores,
};

CX_PROBE(atomic_add_return, "xadd_local", ATOMICITY_ATOMIC, ARCH_INSN_XADD,
	 KSRC(ARCH_KSRC_ATOMIC, "arch_atomic64_fetch_add"), .in_default = true,
	 .kernel = "atomic_fetch_add / atomic_add_return", .desc = "atomic fetch-and-add")
CX_PROBE(xadd_local, "atomic_add_return", CX_LOCAL, ARCH_INSN_XADD_NL,
	 KSRC(ARCH_KSRC_LOCAL, "local_add_return"), .in_default = true,
	 .kernel = "local_add_return", .desc = "unlocked fetch-and-add")
CX_PROBE(atomic_inc, "local_inc", ATOMICITY_ATOMIC, ARCH_INSN_INC,
	 KSRC(ARCH_KSRC_ATOMIC, "arch_atomic64_inc"),
	 .kernel = "atomic_long_inc", .desc = "atomic increment", .in_default = true, .counts = 1,
	 .menu_need = { NEED_PERCPU_COUNTER }, .safe_when = "always (atomic)",
	 .ctx_stores = kc_atomic_inc_stores, .card_share = 1)
CX_PROBE(local_inc, "atomic_inc", CX_LOCAL, ARCH_INSN_INC_NL, KSRC(ARCH_KSRC_LOCAL, "local_inc"),
	 .kernel = "local_inc", .desc = "increment atomic only against this CPU",
	 .in_default = true, .counts = 1,
	 .menu_need = { NEED_PERCPU_COUNTER }, .safe_when = "this CPU's counter, preemption off",
	 .ctx_stores = kc_local_inc_stores)

const struct probe probe_cmpxchg128 = {
	.name = "cmpxchg128", .twin = "cmpxchg128_local", .family = "cmpxchg",
	.atomicity = ATOMICITY_ATOMIC,
#if ARCH_HAS_CMPXCHG128
	.insn = ARCH_INSN_CMPXCHG128, KERNELS(cmpxchg128), .verify = verify_cmpxchg128,
	.patterns = &pat_cmpxchg128, .ctx_stores = kc_cmpxchg128_stores,
#else
	.insn = "-", .unsupported = "no 16-byte compare-and-exchange here",
#endif
	KSRC(ARCH_KSRC_CMPXCHG128, "arch_cmpxchg128"),
	.kernel = "cmpxchg128 (cmpxchg_double before 6.4)",
	.desc = "16-byte compare-and-exchange, the SLUB {freelist, tid} update",
	.in_default = true,
	.menu_need = { NEED_FREELIST }, .safe_when = "always (atomic, with an ABA tag)",
};

const struct probe probe_cmpxchg128_local = {
	.name = "cmpxchg128_local", .twin = "cmpxchg128", .family = "cmpxchg",
	.atomicity = CX_LOCAL,
#if ARCH_HAS_CMPXCHG128
	.insn = ARCH_INSN_CMPXCHG128_NL, KERNELS(cmpxchg128_local),
	.verify = verify_cmpxchg128_local,
#else
	.insn = "-", .unsupported = "no 16-byte compare-and-exchange here",
#endif
	KSRC(ARCH_KSRC_CMPXCHG128, "arch_cmpxchg128_local"),
	.kernel = "cmpxchg128_local / this_cpu_cmpxchg128",
	.desc = "unlocked 16-byte compare-and-exchange",
	.in_default = true,
};
