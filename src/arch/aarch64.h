/* SPDX-License-Identifier: MIT */
/* arch/aarch64.h - arm64: the virtual counter (cntvct_el0) as timer, the
 * calibration chains, and every timed primitive as one asm statement.
 *
 * Atomics come in two forms, both always compiled:
 *   - LSE (ARMv8.1 single-instruction atomics: stset, ldsetal, cas/casal,
 *     casp/caspal, swpal, ldaddal, stadd), what the kernel patches in on
 *     every core that has them (arch/arm64/include/asm/atomic_lse.h);
 *   - LL/SC (ldxr/stxr retry loops, and ldaxr/stlxr + dmb for the fully
 *     ordered forms), the kernel's fallback (atomic_ll_sc.h).
 * The probes time the LSE form unless the build defines ATOMCOST_ARM64_LLSC
 * (meson setup -Dc_args=-DATOMCOST_ARM64_LLSC=1); both forms are reachable
 * as arch_lse_* and arch_llsc_* and their semantics are tested in every
 * arm64 build (tests/test-arch.c).
 *
 * Each asm is `volatile` with a "memory" clobber (no merging, no motion);
 * memory operands use "Q" (a base register, no offset: what the exclusive
 * and LSE instructions accept). arm64 has no unlocked read-modify-write that
 * is atomic against interrupts only, so ARCH_HAS_LOCAL_RMW is 0: the *_nl
 * forms of cmpxchg, fetch-add and increment are the relaxed (unordered)
 * atomic forms, as the kernel's cmpxchg_local and local_t are on arm64;
 * the bit and exchange *_nl forms are plain load/modify/store (non-atomic).
 */
#ifndef ATOMCOST_ARCH_INSIDE
#error "include arch/arch.h, not arch/aarch64.h: arch.h picks the architecture"
#endif
#ifndef ATOMCOST_ARCH_AARCH64_H
#define ATOMCOST_ARCH_AARCH64_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_NAME "aarch64"
#if defined(ATOMCOST_ARM64_LLSC)
#define ARCH_ATOMICS_IMPL "asm-llsc"
#else
#define ARCH_ATOMICS_IMPL "asm-lse"
#endif
#define ARCH_TIMER_IS_CYCLE_CLOCK 0	/* cntvct: fixed frequency, not core cycles */
#define ARCH_HAS_LOCAL_RMW 0
#define ARCH_HAS_CMPXCHG128 1	/* casp (LSE) / ldxp+stxp (LL/SC) */
#define ARCH_HAS_CPUID 0
#define ARCH_HAS_SEG_PERCPU 0
#define ARCH_HAS_DS_PREFIX 0
#define ARCH_HAS_LLSC 1
#define ARCH_HAS_LSE 1
#define ARCH_HAS_SPLIT_LOCK 0
#define ARCH_SPLIT_LOCK_ABSENT "arm64 atomics fault on a misaligned word (one crossing 16 bytes, with LSE2), so no op locks across two lines"

/* Set by arch_init from AT_HWCAP (HWCAP_ATOMICS): an LSE build on a core
 * without LSE (ARMv8.0, e.g. Cortex-A72) dies with SIGILL; arch_init warns. */
extern bool arch_arm64_have_lse;

void arch_init(void);

/* Timer: the virtual counter. `isb` before the read waits for earlier
 * instructions to complete (the counter read is not ordered otherwise); the
 * start adds an `isb` after it so the timed code cannot begin before it. */
static inline uint64_t arch_timer_start(void)
{
	uint64_t t;

	asm volatile("isb\n\tmrs %[t], cntvct_el0\n\tisb" : [t] "=r"(t) : : "memory");
	return t;
}

static inline uint64_t arch_timer_stop(void)
{
	uint64_t t;

	asm volatile("isb\n\tmrs %[t], cntvct_el0" : [t] "=r"(t) : : "memory");
	return t;
}

static inline const char *arch_timer_name(void)
{
	return "isb;mrs cntvct_el0;isb .. isb;mrs cntvct_el0";
}

static inline void arch_cpu_relax(void)
{
	asm volatile("yield" ::: "memory");
}

/* 64 dependent 1-cycle adds per iteration, the addend from a register. */
static inline void arch_add_chain(uint64_t iters)
{
	uint64_t one = 1, acc = 0;

	asm volatile("" : "+r"(one));
	for (uint64_t i = 0; i < iters; i++)
		asm volatile(".rept 64\n\tadd %[acc], %[acc], %[one]\n\t.endr"
			     : [acc] "+r"(acc) : [one] "r"(one));
}

/* 64 dependent 64-bit multiplies. Latency 2 on Neoverse N1/V1/V2 and
 * Cortex-A76 and later; older cores (A72: 3-4) make the two chains disagree,
 * which calibration then reports. */
#define ARCH_MUL_LATENCY 2
static inline void arch_mul_chain(uint64_t iters)
{
	uint64_t one = 1, acc = 1;

	asm volatile("" : "+r"(one));
	for (uint64_t i = 0; i < iters; i++)
		asm volatile(".rept 64\n\tmul %[acc], %[acc], %[one]\n\t.endr"
			     : [acc] "+r"(acc) : [one] "r"(one));
}

/* ---- the two atomic forms ----------------------------------------------
 * A64_M64(p): the 64-bit word at p as an asm memory operand. */
#define A64_M64(p) (*(volatile uint64_t *)(p))
#define A64_LSE ".arch_extension lse\n\t"

/* LSE: store-form ops (no result, no ordering) as kernel set_bit/clear_bit/
 * atomic_inc; load-form ops return the old value, with acquire+release
 * ("al") for the fully ordered value-returning ops. */
#define A64_LSE_STORE(name, insn)						\
static inline void name(volatile void *p, uint64_t v)				\
{										\
	asm volatile(A64_LSE insn " %[v], %[m]" : [m] "+Q"(A64_M64(p)) : [v] "r"(v) : "memory"); \
}
A64_LSE_STORE(arch_lse_or, "stset")
A64_LSE_STORE(arch_lse_xor, "steor")
A64_LSE_STORE(arch_lse_andnot, "stclr")
A64_LSE_STORE(arch_lse_stadd, "stadd")
#define A64_LSE_FETCH(name, insn)						\
static inline uint64_t name(volatile void *p, uint64_t v)			\
{										\
	uint64_t old;								\
										\
	asm volatile(A64_LSE insn " %[v], %[o], %[m]"				\
		     : [m] "+Q"(A64_M64(p)), [o] "=r"(old) : [v] "r"(v) : "memory");	\
	return old;								\
}
A64_LSE_FETCH(arch_lse_fetch_or, "ldsetal")
A64_LSE_FETCH(arch_lse_swpal, "swpal")
A64_LSE_FETCH(arch_lse_ldaddal, "ldaddal")
A64_LSE_FETCH(arch_lse_ldadd, "ldadd")
#define A64_LSE_CAS(name, insn)							\
static inline uint64_t name(volatile void *p, uint64_t old, uint64_t nw)	\
{										\
	asm volatile(A64_LSE insn " %[o], %[n], %[m]"				\
		     : [m] "+Q"(A64_M64(p)), [o] "+r"(old) : [n] "r"(nw) : "memory");	\
	return old;								\
}
A64_LSE_CAS(arch_lse_cas, "cas")
A64_LSE_CAS(arch_lse_casal, "casal")
/* casp needs an even/odd register pair for each of old and new: fixed
 * registers x0..x3 as the kernel's __CMPXCHG128 does. Returns true on
 * success; old[] receives the value seen. */
#define A64_GEN_CASP(name, insn)							\
static inline bool name(volatile void *p, uint64_t *old, uint64_t nlo, uint64_t nhi) \
{										\
	register uint64_t x0 asm("x0") = old[0];				\
	register uint64_t x1 asm("x1") = old[1];				\
	register uint64_t x2 asm("x2") = nlo;					\
	register uint64_t x3 asm("x3") = nhi;					\
	uint64_t e0 = old[0], e1 = old[1];					\
										\
	asm volatile(A64_LSE insn " %[o0], %[o1], %[n0], %[n1], %[m]"		\
		     : [m] "+Q"(*(volatile __int128 *)p), [o0] "+r"(x0), [o1] "+r"(x1) \
		     : [n0] "r"(x2), [n1] "r"(x3) : "memory");			\
	old[0] = x0;								\
	old[1] = x1;								\
	return x0 == e0 && x1 == e1;						\
}
A64_GEN_CASP(arch_lse_caspal, "caspal")
A64_GEN_CASP(arch_lse_casp, "casp")

/* LL/SC: ldxr/stxr retry loops (relaxed), or ldxr/stlxr + dmb ish for the
 * fully ordered forms (the kernel's __LL_SC_ATOMIC_OP_RETURN "mb" variant). */
#define A64_LLSC_OP(name, insn, pre, post, ld, st)				\
static inline uint64_t name(volatile void *p, uint64_t v)			\
{										\
	uint64_t old, tmp;							\
	uint32_t fail;								\
										\
	asm volatile(pre "1:\t" ld " %[o], %[m]\n\t"				\
		     insn " %[t], %[o], %[v]\n\t"				\
		     st " %w[f], %[t], %[m]\n\t"				\
		     "cbnz %w[f], 1b" post					\
		     : [m] "+Q"(A64_M64(p)), [o] "=&r"(old), [t] "=&r"(tmp), [f] "=&r"(fail) \
		     : [v] "r"(v) : "memory");					\
	return old;								\
}
A64_LLSC_OP(arch_llsc_fetch_or_relaxed, "orr", "", "", "ldxr", "stxr")
A64_LLSC_OP(arch_llsc_fetch_or, "orr", "", "\n\tdmb ish", "ldxr", "stlxr")
A64_LLSC_OP(arch_llsc_fetch_andnot_relaxed, "bic", "", "", "ldxr", "stxr")
A64_LLSC_OP(arch_llsc_fetch_xor_relaxed, "eor", "", "", "ldxr", "stxr")
A64_LLSC_OP(arch_llsc_fetch_add_relaxed, "add", "", "", "ldxr", "stxr")
A64_LLSC_OP(arch_llsc_fetch_add, "add", "", "\n\tdmb ish", "ldxr", "stlxr")

static inline uint64_t arch_llsc_xchg(volatile void *p, uint64_t v)
{
	uint64_t old;
	uint32_t fail;

	asm volatile("1:\tldxr %[o], %[m]\n\t"
		     "stlxr %w[f], %[v], %[m]\n\t"
		     "cbnz %w[f], 1b\n\tdmb ish"
		     : [m] "+Q"(A64_M64(p)), [o] "=&r"(old), [f] "=&r"(fail) : [v] "r"(v) : "memory");
	return old;
}

/* cmpxchg: returns the value seen; stores only when it equals old. */
#define A64_LLSC_CAS(name, st, post)						\
static inline uint64_t name(volatile void *p, uint64_t old, uint64_t nw)	\
{										\
	uint64_t seen;								\
	uint32_t fail;								\
										\
	asm volatile("1:\tldxr %[s], %[m]\n\t"					\
		     "cmp %[s], %[o]\n\t"					\
		     "b.ne 2f\n\t"						\
		     st " %w[f], %[n], %[m]\n\t"				\
		     "cbnz %w[f], 1b" post "\n"					\
		     "2:"							\
		     : [m] "+Q"(A64_M64(p)), [s] "=&r"(seen), [f] "=&r"(fail)	\
		     : [o] "r"(old), [n] "r"(nw) : "memory", "cc");		\
	return seen;								\
}
A64_LLSC_CAS(arch_llsc_cas, "stxr", "")
A64_LLSC_CAS(arch_llsc_casal, "stlxr", "\n\tdmb ish")

/* 16-byte cmpxchg with ldxp/stxp (the pair store also serves to check the
 * pair was read atomically). */
#define A64_LLSC_CASP(name, st, post)						\
static inline bool name(volatile void *p, uint64_t *old, uint64_t nlo, uint64_t nhi) \
{										\
	uint64_t s0, s1;							\
	uint32_t fail;								\
										\
	asm volatile("1:\tldxp %[s0], %[s1], %[m]\n\t"				\
		     "cmp %[s0], %[o0]\n\t"					\
		     "ccmp %[s1], %[o1], #0, eq\n\t"				\
		     "b.ne 2f\n\t"						\
		     st " %w[f], %[n0], %[n1], %[m]\n\t"			\
		     "cbnz %w[f], 1b" post "\n\t"				\
		     "b 3f\n"							\
		     "2:\tstxp %w[f], %[s0], %[s1], %[m]\n\t"			\
		     "cbnz %w[f], 1b\n"						\
		     "3:"							\
		     : [m] "+Q"(*(volatile __int128 *)p), [s0] "=&r"(s0), [s1] "=&r"(s1), \
		       [f] "=&r"(fail)						\
		     : [o0] "r"(old[0]), [o1] "r"(old[1]), [n0] "r"(nlo), [n1] "r"(nhi) \
		     : "memory", "cc");						\
	{									\
		bool ok_ = s0 == old[0] && s1 == old[1];			\
										\
		old[0] = s0;							\
		old[1] = s1;							\
		return ok_;							\
	}									\
}
A64_LLSC_CASP(arch_llsc_caspal, "stlxp", "\n\tdmb ish")
A64_LLSC_CASP(arch_llsc_casp, "stxp", "")

/* Plain read-modify-write (the non-atomic twins): one asm so the compiler
 * cannot merge or reorder them. */
#define A64_PLAIN_RMW(name, insn)						\
static inline uint64_t name(volatile void *p, uint64_t v)			\
{										\
	uint64_t old, tmp;							\
										\
	asm volatile("ldr %[o], %[m]\n\t" insn " %[t], %[o], %[v]\n\tstr %[t], %[m]" \
		     : [m] "+Q"(A64_M64(p)), [o] "=&r"(old), [t] "=&r"(tmp)	\
		     : [v] "r"(v) : "memory");					\
	return old;								\
}
A64_PLAIN_RMW(arch_plain_fetch_or, "orr")
A64_PLAIN_RMW(arch_plain_fetch_andnot, "bic")
A64_PLAIN_RMW(arch_plain_fetch_xor, "eor")

/* ---- selection: which form the probes time ----------------------------- */
#if defined(ATOMCOST_ARM64_LLSC)
#define A64_OR(p, m) ((void)arch_llsc_fetch_or_relaxed(p, m))
#define A64_ANDNOT(p, m) ((void)arch_llsc_fetch_andnot_relaxed(p, m))
#define A64_XOR(p, m) ((void)arch_llsc_fetch_xor_relaxed(p, m))
#define A64_FETCH_OR arch_llsc_fetch_or
#define A64_CAS_AL arch_llsc_casal
#define A64_CAS arch_llsc_cas
#define A64_SWP_AL arch_llsc_xchg
#define A64_LDADD_AL arch_llsc_fetch_add
#define A64_LDADD arch_llsc_fetch_add_relaxed
#define A64_STADD(p, v) ((void)arch_llsc_fetch_add_relaxed(p, v))
#define A64_CASP_AL arch_llsc_caspal
#define A64_CASP arch_llsc_casp
#define A64_I(lse, llsc) llsc
#else
#define A64_OR arch_lse_or
#define A64_ANDNOT arch_lse_andnot
#define A64_XOR arch_lse_xor
#define A64_FETCH_OR arch_lse_fetch_or
#define A64_CAS_AL arch_lse_casal
#define A64_CAS arch_lse_cas
#define A64_SWP_AL arch_lse_swpal
#define A64_LDADD_AL arch_lse_ldaddal
#define A64_LDADD arch_lse_ldadd
#define A64_STADD arch_lse_stadd
#define A64_CASP_AL arch_lse_caspal
#define A64_CASP arch_lse_casp
#define A64_I(lse, llsc) lse
#endif

/* Where the kernel defines each primitive on arm64 (probe .kernel_src). */
#define ARCH_KSRC_BITOPS "include/asm-generic/bitops/atomic.h"
#define ARCH_KSRC_BITOPS_NL "include/asm-generic/bitops/non-atomic.h"
#define ARCH_KSRC_CMPXCHG "arch/arm64/include/asm/cmpxchg.h"
#define ARCH_KSRC_CMPXCHG128 "arch/arm64/include/asm/cmpxchg.h"
#define ARCH_KSRC_ATOMIC "arch/arm64/include/asm/atomic_lse.h"
#define ARCH_KSRC_LOCAL "include/asm-generic/local.h"
#define ARCH_KSRC_PERCPU "arch/arm64/include/asm/percpu.h"
#define ARCH_KSRC_PREEMPT "arch/arm64/include/asm/preempt.h"
#define ARCH_KSRC_IRQFLAGS "arch/arm64/include/asm/irqflags.h"

/* ---- primitives (same names as arch/x86_64.h) --------------------------- */
/* set_bit: `stset` (LSE) on the word; __set_bit is the generic non-atomic
 * `*p |= mask` on the word (include/asm-generic/bitops/generic-non-atomic.h
 * generic___set_bit): ldr;orr;str. The C `*byte |= mask` form is a byte
 * ldrb;orr;strb (arch_or_byte_nl). */
#define ARCH_INSN_SET_BIT_IMM A64_I("stset x,[mem]", "ldxr;orr;stxr;cbnz loop")
#define ARCH_INSN___SET_BIT_IMM "ldr;orr;str"
#define ARCH_INSN_OR_BYTE_NL "ldrb;orr;strb (what C *byte |= mask compiles to)"
#define arch_set_bit_imm(p, mask) A64_OR((p), (uint64_t)(mask))
#define arch___set_bit_imm(p, nr) ((void)arch_plain_fetch_or((p), 1ull << (nr)))
static inline void arch_or_byte_nl(volatile void *p, uint8_t mask)
{
	uint32_t tmp;

	asm volatile("ldrb %w[t], %[m]\n\torr %w[t], %w[t], %w[k]\n\tstrb %w[t], %[m]"
		     : [m] "+Q"(*(volatile uint8_t *)p), [t] "=&r"(tmp) : [k] "r"((uint32_t)mask)
		     : "memory");
}

#define ARCH_INSN_SET_BIT_VAR A64_I("lsl;stset x,[mem]", "lsl;ldxr;orr;stxr;cbnz loop")
#define ARCH_INSN_SET_BIT_VAR_NL "lsl;ldr;orr;str"
static inline void arch_set_bit_var(uint64_t nr, volatile void *p)
{
	A64_OR(p, 1ull << (nr & 63));
}
static inline void arch_set_bit_var_nl(uint64_t nr, volatile void *p)
{
	(void)arch_plain_fetch_or(p, 1ull << (nr & 63));
}

#define ARCH_INSN_OR_WORD A64_I("stset x,[mem]", "ldxr;orr;stxr;cbnz loop")
#define ARCH_INSN_OR_WORD_NL "ldr;orr;str (what C |= compiles to)"
static inline void arch_or_word(volatile void *p, uint64_t mask)
{
	A64_OR(p, mask);
}
static inline void arch_or_word_nl(volatile void *p, uint64_t mask)
{
	(void)arch_plain_fetch_or(p, mask);
}

#define ARCH_INSN_CHANGE_BIT_IMM A64_I("steor x,[mem]", "ldxr;eor;stxr;cbnz loop")
#define ARCH_INSN___CHANGE_BIT_IMM "ldr;eor;str"
#define arch_change_bit_imm(p, mask) A64_XOR((p), (uint64_t)(mask))
#define arch___change_bit_imm(p, nr) ((void)arch_plain_fetch_xor((p), 1ull << (nr)))
#define ARCH_INSN_CLEAR_BIT_IMM A64_I("stclr x,[mem]", "ldxr;bic;stxr;cbnz loop")
#define ARCH_INSN___CLEAR_BIT_IMM "ldr;bic;str"
#define arch_clear_bit_imm(p, mask) A64_ANDNOT((p), (uint64_t)(mask))
#define arch___clear_bit_imm(p, nr) ((void)arch_plain_fetch_andnot((p), 1ull << (nr)))

#define ARCH_INSN_CLEAR_BIT_VAR A64_I("lsl;stclr x,[mem]", "lsl;ldxr;bic;stxr;cbnz loop")
#define ARCH_INSN_CLEAR_BIT_VAR_NL "lsl;ldr;bic;str"
static inline void arch_clear_bit_var(uint64_t nr, volatile void *p)
{
	A64_ANDNOT(p, 1ull << (nr & 63));
}
static inline void arch_clear_bit_var_nl(uint64_t nr, volatile void *p)
{
	(void)arch_plain_fetch_andnot(p, 1ull << (nr & 63));
}

#define ARCH_INSN_TEST_AND_SET_BIT A64_I("ldsetal x,x,[mem]", "ldxr;orr;stlxr;cbnz loop;dmb ish")
#define ARCH_INSN_TEST_AND_SET_BIT_NL "ldr;orr;str"
static inline bool arch_test_and_set_bit(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	return (A64_FETCH_OR(p, m) & m) != 0;
}
static inline bool arch_test_and_set_bit_nl(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	return (arch_plain_fetch_or(p, m) & m) != 0;
}

#define ARCH_INSN_CMPXCHG A64_I("casal x,x,[mem]", "ldxr;cmp;b.ne;stlxr;cbnz loop;dmb ish")
#define ARCH_INSN_CMPXCHG_NL A64_I("cas x,x,[mem] (relaxed)", "ldxr;cmp;b.ne;stxr;cbnz loop")
#define arch_cmpxchg A64_CAS_AL
#define arch_cmpxchg_nl A64_CAS

#define ARCH_INSN_TRY_CMPXCHG A64_I("casal x,x,[mem]; cmp", "ldxr;cmp;b.ne;stlxr;cbnz loop;dmb ish; cmp")
#define ARCH_INSN_TRY_CMPXCHG_NL A64_I("cas x,x,[mem]; cmp", "ldxr;cmp;b.ne;stxr;cbnz loop; cmp")
static inline bool arch_try_cmpxchg(volatile void *p, uint64_t *old, uint64_t nw)
{
	uint64_t want = *old;

	*old = A64_CAS_AL(p, want, nw);
	return *old == want;
}
static inline bool arch_try_cmpxchg_nl(volatile void *p, uint64_t *old, uint64_t nw)
{
	uint64_t want = *old;

	*old = A64_CAS(p, want, nw);
	return *old == want;
}

#define ARCH_INSN_XCHG A64_I("swpal x,x,[mem]", "ldxr;stlxr;cbnz loop;dmb ish")
#define ARCH_INSN_XCHG_NL "ldr;str"
#define arch_xchg A64_SWP_AL
static inline uint64_t arch_xchg_nl(volatile void *p, uint64_t v)
{
	uint64_t old;

	asm volatile("ldr %[o], %[m]\n\tstr %[v], %[m]"
		     : [m] "+Q"(A64_M64(p)), [o] "=&r"(old) : [v] "r"(v) : "memory");
	return old;
}

#define ARCH_INSN_XADD A64_I("ldaddal x,x,[mem]", "ldxr;add;stlxr;cbnz loop;dmb ish")
#define ARCH_INSN_XADD_NL A64_I("ldadd x,x,[mem] (relaxed)", "ldxr;add;stxr;cbnz loop")
#define arch_xadd A64_LDADD_AL
#define arch_xadd_nl A64_LDADD

/* atomic_inc and local_inc are the same instruction on arm64 (local_t is
 * atomic_long_t there): the twin pair shows it, ratio 1. */
#define ARCH_INSN_INC A64_I("stadd x,[mem]", "ldxr;add;stxr;cbnz loop")
#define ARCH_INSN_INC_NL A64_I("stadd x,[mem] (local_t is atomic_long_t)", "ldxr;add;stxr;cbnz loop")
static inline void arch_inc(volatile void *p)
{
	A64_STADD(p, 1);
}
#define arch_inc_nl arch_inc

#define ARCH_INSN_ADD A64_I("stadd x,[mem]", "ldxr;add;stxr;cbnz loop")
static inline void arch_add(volatile void *p, uint64_t v)
{
	A64_STADD(p, v);
}
#define arch_add_nl arch_add

#define ARCH_INSN_CMPXCHG128 A64_I("caspal x,x,x,x,[mem]", "ldxp;cmp;ccmp;stlxp;cbnz loop;dmb ish")
#define ARCH_INSN_CMPXCHG128_NL A64_I("casp x,x,x,x,[mem]", "ldxp;cmp;ccmp;stxp;cbnz loop")
#define arch_cmpxchg128 A64_CASP_AL
#define arch_cmpxchg128_nl A64_CASP

/* Plain load and store, for baselines. */
#define ARCH_INSN_LOAD "ldr x,[mem]"
#define ARCH_INSN_STORE "str x,[mem]"
static inline uint64_t arch_load(const volatile void *p)
{
	uint64_t v;

	asm volatile("ldr %[v], %[m]" : [v] "=r"(v) : [m] "Q"(*(const volatile uint64_t *)p) : "memory");
	return v;
}
static inline void arch_store(volatile void *p, uint64_t v)
{
	asm volatile("str %[v], %[m]" : [m] "=Q"(A64_M64(p)) : [v] "r"(v) : "memory");
}

/* Full barrier as the kernel's smp_mb(). */
static inline void arch_smp_mb(void)
{
	asm volatile("dmb ish" ::: "memory");
}

/* Read barrier as the kernel's smp_rmb(): loads before it ordered before
 * loads after it. */
#define ARCH_INSN_SMP_RMB "dmb ishld"
static inline void arch_smp_rmb(void)
{
	asm volatile("dmb ishld" ::: "memory");
}


/* ---- ordering: barriers, acquire/release, lock/unlock bitops ------------
 * As arch/arm64/include/asm/barrier.h, atomic_lse.h and the generic
 * bitops/lock.h emit them (probes/ordering.c): smp_* are `dmb ish*`, the
 * mandatory barriers `dsb`, acquire/release `ldar`/`stlr`, and the LSE
 * fetch ops come in four orderings (ldset, ldseta, ldsetl, ldsetal). */
#define ARCH_KSRC_BARRIER "arch/arm64/include/asm/barrier.h"
#define ARCH_KSRC_BITOPS_LOCK "include/asm-generic/bitops/lock.h"
#define ARCH_INSN_SMP_MB "dmb ish"
#define ARCH_INSN_MB "dsb sy"
#define ARCH_INSN_RMB "dsb ld"
#define ARCH_INSN_WMB "dsb st"
#define ARCH_INSN_SMP_RMB_NOW ARCH_INSN_SMP_RMB
#define ARCH_INSN_SMP_WMB "dmb ishst"
#define ARCH_INSN_MB_AROUND_ATOMIC "dmb ish"
#define ARCH_INSN_STORE_RELEASE "stlr x,[mem]"
#define ARCH_INSN_LOAD_ACQUIRE "ldar x,[mem]"
#define ARCH_INSN_CLEAR_BIT_UNLOCK A64_I("ldclrl x,x,[mem]", "ldxr;bic;stlxr;cbnz loop")
#define ARCH_INSN___CLEAR_BIT_UNLOCK "ldr;bic;stlr"
#define ARCH_INSN_TEST_AND_SET_BIT_LOCK A64_I("ldr;tbnz;ldseta x,x,[mem]", "ldr;tbnz;ldaxr;orr;stxr;cbnz loop")
#define A64_BARRIER(name, insn) \
	static inline void name(void) { asm volatile(insn ::: "memory"); }
A64_BARRIER(arch_barrier, "")
A64_BARRIER(arch_mb, "dsb sy")
A64_BARRIER(arch_rmb, "dsb ld")
A64_BARRIER(arch_wmb, "dsb st")
A64_BARRIER(arch_smp_wmb, "dmb ishst")
#define arch_smp_rmb_now arch_smp_rmb
#define arch_smp_mb__before_atomic arch_smp_mb
#define arch_smp_mb__after_atomic arch_smp_mb
static inline void arch_smp_store_release(volatile void *p, uint64_t v)
{
	asm volatile("stlr %[v], %[m]" : [m] "=Q"(A64_M64(p)) : [v] "r"(v) : "memory");
}
static inline uint64_t arch_smp_load_acquire(const volatile void *p)
{
	uint64_t v;

	asm volatile("ldar %[v], %[m]" : [v] "=r"(v) : [m] "Q"(*(const volatile uint64_t *)p) : "memory");
	return v;
}
/* The LSE fetch-or in each ordering: atomic_long_fetch_or{_relaxed,_acquire,
 * _release,} (ldsetal is arch_lse_fetch_or above). */
A64_LSE_FETCH(arch_lse_fetch_or_relaxed, "ldset")
A64_LSE_FETCH(arch_lse_fetch_or_acquire, "ldseta")
A64_LSE_FETCH(arch_lse_fetch_or_release, "ldsetl")
A64_LSE_FETCH(arch_lse_fetch_andnot_release, "ldclrl")
A64_LLSC_OP(arch_llsc_fetch_andnot_release, "bic", "", "", "ldxr", "stlxr")
A64_LLSC_OP(arch_llsc_fetch_or_acquire, "orr", "", "", "ldaxr", "stxr")
#define ARCH_INSN_LSE_FETCH_OR_RELAXED "ldset x,x,[mem]"
#define ARCH_INSN_LSE_FETCH_OR_ACQUIRE "ldseta x,x,[mem]"
#define ARCH_INSN_LSE_FETCH_OR_RELEASE "ldsetl x,x,[mem]"
#define ARCH_INSN_LSE_FETCH_OR "ldsetal x,x,[mem]"
/* clear_bit_unlock: atomic_long_fetch_andnot_release; __clear_bit_unlock:
 * READ_ONCE, clear, atomic_long_set_release (the word must be owned);
 * test_and_set_bit_lock: a plain read first, the acquire RMW only when the
 * bit is clear (include/asm-generic/bitops/lock.h). */
static inline void arch_clear_bit_unlock(volatile void *p, uint64_t mask)
{
	(void)A64_I(arch_lse_fetch_andnot_release, arch_llsc_fetch_andnot_release)(p, mask);
}
static inline void arch___clear_bit_unlock(volatile void *p, int nr)
{
	arch_smp_store_release(p, arch_load(p) & ~(1ull << nr));
}
static inline bool arch_test_and_set_bit_lock(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	if (arch_load(p) & m)
		return true;
	return (A64_I(arch_lse_fetch_or_acquire, arch_llsc_fetch_or_acquire)(p, m) & m) != 0;
}

#endif
