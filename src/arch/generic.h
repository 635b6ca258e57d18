/* SPDX-License-Identifier: MIT */
/* arch/generic.h - any architecture: GCC/Clang __atomic builtins (C11
 * memory model) and clock_gettime. Reports mark it "c11".
 *
 * No instruction is chosen here: the compiler picks one per primitive, so
 * the ARCH_INSN_* strings name the builtin and its ordering, and the
 * disassembly (`ninja disasm`) shows what it became. The timer is
 * CLOCK_MONOTONIC_RAW in ns (a syscall-free vDSO read on Linux), far coarser
 * than a cycle counter: the runner's N/2N sizing compensates by timing longer
 * loops. The only asm used is the empty statement `asm volatile("")`, which
 * emits nothing and only hides a value from the optimizer, so chains stay
 * dependent and loops are not folded.
 *
 * ARCH_HAS_LOCAL_RMW is 0: C11 has no CPU-local atomics, so the *_nl forms
 * of cmpxchg, fetch-add and increment are the relaxed atomics; the bit and
 * exchange *_nl forms are plain volatile read-modify-write (non-atomic).
 */
#ifndef ATOMCOST_ARCH_INSIDE
#error "include arch/arch.h, not arch/generic.h: arch.h picks the architecture"
#endif
#ifndef ATOMCOST_ARCH_GENERIC_H
#define ATOMCOST_ARCH_GENERIC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define ARCH_NAME "generic"
#define ARCH_ATOMICS_IMPL "c11"
#define ARCH_TIMER_IS_CYCLE_CLOCK 0	/* nanoseconds, not cycles */
#define ARCH_HAS_LOCAL_RMW 0
#define ARCH_HAS_CMPXCHG128 0	/* __int128 atomics may be a libatomic lock */
#define ARCH_HAS_CPUID 0
#define ARCH_HAS_SEG_PERCPU 0
#define ARCH_HAS_DS_PREFIX 0
#define ARCH_HAS_LLSC 0
#define ARCH_HAS_LSE 0
#define ARCH_HAS_SPLIT_LOCK 0
#define ARCH_SPLIT_LOCK_ABSENT "the generic C11 build has no defined atomic op on an unaligned word"

void arch_init(void);

/* Hide a value from the optimizer (emits no instruction). */
#define GEN_OPAQUE(v) asm volatile("" : "+r"(v))

static inline uint64_t gen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sequentially consistent fences keep the timed code inside the reads; the
 * stop is the same fenced read as the start. */
static inline uint64_t arch_timer_start(void)
{
	uint64_t t;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	t = gen_now();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return t;
}
#define arch_timer_stop arch_timer_start

static inline const char *arch_timer_name(void)
{
	return "clock_gettime(CLOCK_MONOTONIC_RAW) between seq_cst fences";
}

static inline void arch_cpu_relax(void)
{
	asm volatile("" ::: "memory");
}

/* (OPS64 from arch.h is not defined yet where this header is read.) */
#define GEN_X8(s) s s s s s s s s
#define GEN_X64(s) GEN_X8(GEN_X8(s))

/* 64 dependent adds per iteration (1 cycle each on every core we know). */
static inline void arch_add_chain(uint64_t iters)
{
	uint64_t one = 1, acc = 0;

	GEN_OPAQUE(one);
	for (uint64_t i = 0; i < iters; i++) {
		GEN_X64(acc += one; GEN_OPAQUE(acc);)
	}
	GEN_OPAQUE(acc);
}

/* 64 dependent multiplies; their latency is not known here (3 on x86-64,
 * 2-4 on arm64): the calibration's cross-check is approximate on generic. */
#define ARCH_MUL_LATENCY 3
static inline void arch_mul_chain(uint64_t iters)
{
	uint64_t one = 1, acc = 1;

	GEN_OPAQUE(one);
	for (uint64_t i = 0; i < iters; i++) {
		GEN_X64(acc *= one; GEN_OPAQUE(acc);)
	}
	GEN_OPAQUE(acc);
}

#define GEN_W64(p) ((volatile uint64_t *)(p))
#define GEN_RLX __ATOMIC_RELAXED
#define GEN_SC __ATOMIC_SEQ_CST

/* Plain (non-atomic) read-modify-write through a volatile pointer: the
 * word becomes old <op> m; returns old. */
#define GEN_PLAIN(name, op)							\
static inline uint64_t name(volatile void *p, uint64_t m)			\
{										\
	uint64_t old = *GEN_W64(p);						\
										\
	*GEN_W64(p) = old op;							\
	return old;								\
}
GEN_PLAIN(gen_plain_or, | m)
GEN_PLAIN(gen_plain_xor, ^ m)
GEN_PLAIN(gen_plain_andnot, & ~m)

/* The kernel's architecture-independent definitions (probe .kernel_src);
 * here they run as C11 atomics, not the kernel's instructions. */
#define ARCH_KSRC_BITOPS "include/asm-generic/bitops/atomic.h"
#define ARCH_KSRC_BITOPS_NL "include/asm-generic/bitops/non-atomic.h"
#define ARCH_KSRC_CMPXCHG "include/linux/atomic/atomic-arch-fallback.h"
#define ARCH_KSRC_CMPXCHG128 "include/linux/atomic/atomic-arch-fallback.h"
#define ARCH_KSRC_ATOMIC "include/linux/atomic/atomic-arch-fallback.h"
#define ARCH_KSRC_LOCAL "include/asm-generic/local.h"
#define ARCH_KSRC_PERCPU "include/asm-generic/percpu.h"
#define ARCH_KSRC_PREEMPT "include/asm-generic/preempt.h"
#define ARCH_KSRC_IRQFLAGS "include/asm-generic/irqflags.h"

/* ---- primitives (same names as arch/x86_64.h) --------------------------- */
#define ARCH_INSN_SET_BIT_IMM "__atomic_fetch_or(relaxed)"
#define ARCH_INSN___SET_BIT_IMM "volatile load; or; store"
#define ARCH_INSN_OR_BYTE_NL "volatile byte load; or; store (C *byte |= mask)"
#define arch_set_bit_imm(p, mask) ((void)__atomic_fetch_or(GEN_W64(p), (uint64_t)(mask), GEN_RLX))
#define arch___set_bit_imm(p, nr) ((void)gen_plain_or((p), 1ull << (nr)))
#define arch_or_byte_nl(p, mask) ((void)(*(volatile uint8_t *)(p) |= (uint8_t)(mask)))

#define ARCH_INSN_SET_BIT_VAR "__atomic_fetch_or(relaxed), variable bit"
#define ARCH_INSN_SET_BIT_VAR_NL "volatile load; or; store, variable bit"
static inline void arch_set_bit_var(uint64_t nr, volatile void *p)
{
	__atomic_fetch_or(GEN_W64(p), 1ull << (nr & 63), GEN_RLX);
}
static inline void arch_set_bit_var_nl(uint64_t nr, volatile void *p)
{
	(void)gen_plain_or(p, 1ull << (nr & 63));
}

#define ARCH_INSN_OR_WORD "__atomic_fetch_or(relaxed)"
#define ARCH_INSN_OR_WORD_NL "volatile load; or; store (C |=)"
static inline void arch_or_word(volatile void *p, uint64_t mask)
{
	__atomic_fetch_or(GEN_W64(p), mask, GEN_RLX);
}
static inline void arch_or_word_nl(volatile void *p, uint64_t mask)
{
	(void)gen_plain_or(p, mask);
}

#define ARCH_INSN_CHANGE_BIT_IMM "__atomic_fetch_xor(relaxed)"
#define ARCH_INSN___CHANGE_BIT_IMM "volatile load; xor; store"
#define arch_change_bit_imm(p, mask) ((void)__atomic_fetch_xor(GEN_W64(p), (uint64_t)(mask), GEN_RLX))
#define arch___change_bit_imm(p, nr) ((void)gen_plain_xor((p), 1ull << (nr)))
#define ARCH_INSN_CLEAR_BIT_IMM "__atomic_fetch_and(~m, relaxed)"
#define ARCH_INSN___CLEAR_BIT_IMM "volatile load; and ~m; store"
#define arch_clear_bit_imm(p, mask) ((void)__atomic_fetch_and(GEN_W64(p), ~(uint64_t)(mask), GEN_RLX))
#define arch___clear_bit_imm(p, nr) ((void)gen_plain_andnot((p), 1ull << (nr)))

#define ARCH_INSN_CLEAR_BIT_VAR "__atomic_fetch_and(~m, relaxed), variable bit"
#define ARCH_INSN_CLEAR_BIT_VAR_NL "volatile load; and ~m; store, variable bit"
static inline void arch_clear_bit_var(uint64_t nr, volatile void *p)
{
	__atomic_fetch_and(GEN_W64(p), ~(1ull << (nr & 63)), GEN_RLX);
}
static inline void arch_clear_bit_var_nl(uint64_t nr, volatile void *p)
{
	(void)gen_plain_andnot(p, 1ull << (nr & 63));
}

#define ARCH_INSN_TEST_AND_SET_BIT "__atomic_fetch_or(seq_cst); test"
#define ARCH_INSN_TEST_AND_SET_BIT_NL "volatile load; or; store; test"
static inline bool arch_test_and_set_bit(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	return (__atomic_fetch_or(GEN_W64(p), m, GEN_SC) & m) != 0;
}
static inline bool arch_test_and_set_bit_nl(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	return (gen_plain_or(p, m) & m) != 0;
}

#define ARCH_INSN_CMPXCHG "__atomic_compare_exchange_n(seq_cst)"
#define ARCH_INSN_CMPXCHG_NL "__atomic_compare_exchange_n(relaxed)"
static inline uint64_t arch_cmpxchg(volatile void *p, uint64_t old, uint64_t nw)
{
	__atomic_compare_exchange_n(GEN_W64(p), &old, nw, false, GEN_SC, GEN_SC);
	return old;
}
static inline uint64_t arch_cmpxchg_nl(volatile void *p, uint64_t old, uint64_t nw)
{
	__atomic_compare_exchange_n(GEN_W64(p), &old, nw, false, GEN_RLX, GEN_RLX);
	return old;
}

#define ARCH_INSN_TRY_CMPXCHG "__atomic_compare_exchange_n(seq_cst) -> bool"
#define ARCH_INSN_TRY_CMPXCHG_NL "__atomic_compare_exchange_n(relaxed) -> bool"
static inline bool arch_try_cmpxchg(volatile void *p, uint64_t *old, uint64_t nw)
{
	return __atomic_compare_exchange_n(GEN_W64(p), old, nw, false, GEN_SC, GEN_SC);
}
static inline bool arch_try_cmpxchg_nl(volatile void *p, uint64_t *old, uint64_t nw)
{
	return __atomic_compare_exchange_n(GEN_W64(p), old, nw, false, GEN_RLX, GEN_RLX);
}

#define ARCH_INSN_XCHG "__atomic_exchange_n(seq_cst)"
#define ARCH_INSN_XCHG_NL "volatile load; store"
static inline uint64_t arch_xchg(volatile void *p, uint64_t v)
{
	return __atomic_exchange_n(GEN_W64(p), v, GEN_SC);
}
static inline uint64_t arch_xchg_nl(volatile void *p, uint64_t v)
{
	uint64_t old = *GEN_W64(p);

	*GEN_W64(p) = v;
	return old;
}

#define ARCH_INSN_XADD "__atomic_fetch_add(seq_cst)"
#define ARCH_INSN_XADD_NL "__atomic_fetch_add(relaxed)"
static inline uint64_t arch_xadd(volatile void *p, uint64_t v)
{
	return __atomic_fetch_add(GEN_W64(p), v, GEN_SC);
}
static inline uint64_t arch_xadd_nl(volatile void *p, uint64_t v)
{
	return __atomic_fetch_add(GEN_W64(p), v, GEN_RLX);
}

#define ARCH_INSN_INC "__atomic_fetch_add(1, relaxed)"
#define ARCH_INSN_INC_NL "__atomic_fetch_add(1, relaxed) (no CPU-local atomics in C11)"
static inline void arch_inc(volatile void *p)
{
	__atomic_fetch_add(GEN_W64(p), 1, GEN_RLX);
}
#define arch_inc_nl arch_inc

#define ARCH_INSN_ADD "__atomic_fetch_add(relaxed)"
static inline void arch_add(volatile void *p, uint64_t v)
{
	__atomic_fetch_add(GEN_W64(p), v, GEN_RLX);
}
#define arch_add_nl arch_add

/* Plain load and store, for baselines. */
#define ARCH_INSN_LOAD "volatile load"
#define ARCH_INSN_STORE "volatile store"
static inline uint64_t arch_load(const volatile void *p)
{
	return *(const volatile uint64_t *)p;
}
static inline void arch_store(volatile void *p, uint64_t v)
{
	*GEN_W64(p) = v;
}

static inline void arch_smp_mb(void)
{
	__atomic_thread_fence(GEN_SC);
}

/* Read barrier as smp_rmb(): an acquire fence orders earlier loads before
 * later loads and stores. */
#define ARCH_INSN_SMP_RMB "__atomic_thread_fence(acquire)"
static inline void arch_smp_rmb(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* 16-byte compare-and-exchange: C11 offers it only through libatomic, which
 * may take a lock, so ARCH_HAS_CMPXCHG128 is 0 and no probe times it. This
 * correct (but locked) version lets shared code run: a global spin lock,
 * taken by every 16-byte update. */
extern volatile int gen_cx128_lock;
static inline bool gen_cx128(volatile void *p, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
	volatile uint64_t *w = GEN_W64(p);
	bool ok;

	while (__atomic_exchange_n(&gen_cx128_lock, 1, __ATOMIC_ACQUIRE))
		;
	ok = w[0] == old[0] && w[1] == old[1];
	if (ok) {
		w[0] = nlo;
		w[1] = nhi;
	} else {
		old[0] = w[0];
		old[1] = w[1];
	}
	__atomic_store_n(&gen_cx128_lock, 0, __ATOMIC_RELEASE);
	return ok;
}
#define ARCH_INSN_CMPXCHG128 "(spin-locked 16-byte compare-and-exchange: not timed)"
#define ARCH_INSN_CMPXCHG128_NL ARCH_INSN_CMPXCHG128
#define arch_cmpxchg128 gen_cx128
#define arch_cmpxchg128_nl gen_cx128

/* ---- ordering: barriers, acquire/release, lock/unlock bitops ------------
 * The C11 fences and orderings the kernel's macros correspond to (the
 * compiler picks the instructions: `ninja disasm` shows them). */
#define ARCH_KSRC_BARRIER "include/asm-generic/barrier.h"
#define ARCH_KSRC_BITOPS_LOCK "include/asm-generic/bitops/lock.h"
#define ARCH_INSN_BARRIER "barrier() (no instruction)"
#define ARCH_INSN_SMP_MB "__atomic_thread_fence(seq_cst)"
#define ARCH_INSN_MB ARCH_INSN_SMP_MB
#define ARCH_INSN_RMB ARCH_INSN_SMP_RMB
#define ARCH_INSN_WMB "__atomic_thread_fence(release)"
#define ARCH_INSN_SMP_RMB_NOW ARCH_INSN_SMP_RMB
#define ARCH_INSN_SMP_WMB ARCH_INSN_WMB
#define ARCH_INSN_MB_AROUND_ATOMIC ARCH_INSN_SMP_MB
#define ARCH_INSN_STORE_RELEASE "__atomic_store_n(release)"
#define ARCH_INSN_LOAD_ACQUIRE "__atomic_load_n(acquire)"
#define ARCH_INSN_CLEAR_BIT_UNLOCK "__atomic_fetch_and(release)"
#define ARCH_INSN___CLEAR_BIT_UNLOCK "volatile load; and; __atomic_store_n(release)"
#define ARCH_INSN_TEST_AND_SET_BIT_LOCK "__atomic_fetch_or(acquire)"
static inline void arch_barrier(void)
{
	asm volatile("" ::: "memory");
}
static inline void arch_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}
#define arch_mb arch_smp_mb
#define arch_rmb arch_smp_rmb
#define arch_smp_rmb_now arch_smp_rmb
#define arch_smp_wmb arch_wmb
#define arch_smp_mb__before_atomic arch_smp_mb
#define arch_smp_mb__after_atomic arch_smp_mb
#define arch_smp_store_release(p, v) __atomic_store_n(GEN_W64(p), (v), __ATOMIC_RELEASE)
#define arch_smp_load_acquire(p) __atomic_load_n(GEN_W64(p), __ATOMIC_ACQUIRE)
#define arch_clear_bit_unlock(p, mask) \
	((void)__atomic_fetch_and(GEN_W64(p), ~(uint64_t)(mask), __ATOMIC_RELEASE))
#define arch___clear_bit_unlock(p, nr) \
	arch_smp_store_release(p, *GEN_W64(p) & ~(1ull << (nr)))
static inline bool arch_test_and_set_bit_lock(uint64_t nr, volatile void *p)
{
	uint64_t m = 1ull << (nr & 63);

	return (__atomic_fetch_or(GEN_W64(p), m, __ATOMIC_ACQUIRE) & m) != 0;
}

#endif
