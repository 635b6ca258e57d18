/* SPDX-License-Identifier: MIT */
/* ordering.c - the kernel's barriers, its acquire/release forms and the
 * combinations a fast path chooses between (issue 22), as
 * arch/x86/include/asm/barrier.h and arm64's emit them (src/arch/).
 *
 * A barrier has no price alone: it costs what it makes wait. Each one is
 * timed where ordering has a price:
 *   latency     a store to another line, the barrier, then a load that
 *               chains (the word points to itself): the load may not pass
 *               the barrier, so it waits for the store to drain (the store
 *               buffering case a full barrier exists for; CHAIN_REGISTER);
 *   throughput  barriers back to back (compiler barriers: the bare loop);
 *   hit+stores  CTX_STORES stores pending before each barrier (ctx_stores);
 *   patterns    after each step of a walk (dep/l2/llc/miss), and behind an
 *               outstanding miss (miss-overlap): PATTERN_CONTEXT.
 * The combinations are twins judged like every pair: set_bit +
 * smp_mb__after_atomic against __set_bit + smp_mb, clear_bit_unlock against
 * __clear_bit_unlock, xchg against a store + smp_mb (smp_store_mb).
 * tests/test-litmus.c proves the full barriers order what they claim.
 */
#include "probes.h"
#include "pattern-kernels.h"

#define BIT_NR 1
#define BIT_IMM (1u << BIT_NR)

/* ---- barriers ---------------------------------------------------------
 * ORD_PROBE(id, bar, ...): the kernels of barrier bar and the descriptor of
 * probe id. bar_ is a constant pointer to bar: gcc calls bar directly and
 * inlines it, so each loop holds the barrier's instructions. */
#define ORD_L(i) arch_store(PAT_HOT_ADDR(p, i) + CACHE_LINE_BYTES, 0);		\
	bar_(); q = (char *)arch_load(q);
#define ORD_T(i) bar_();
#define ORD_BAR_DECL(bar) void (*const bar_)(void) = bar

/* The latency chain: word 0 points to itself; the stores go to lines 1..32. */
static int setup_self(struct probe_ctx *ctx)
{
	*(void **)ctx->mem = ctx->mem;
	return 0;
}

#define ORD_PROBE(id, bar, twin_, insn_, macro, desc_, ...)			\
	PROBE_KERNEL(k_##id##_lat, ORD_BAR_DECL(bar); char *q = p, ORD_L, PROBE_SINK(q))	\
	PROBE_KERNEL(k_##id##_tput, ORD_BAR_DECL(bar), ORD_T, )			\
	PATTERN_CONTEXT(id, ORD_T, ORD_BAR_DECL(bar), )				\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "ordering",		\
		.atomicity = ATOMICITY_BASELINE, .insn = insn_,			\
		.kernel = #id "()", KSRC(ARCH_KSRC_BARRIER, macro), .desc = desc_,	\
		.chain = CHAIN_REGISTER, .setup = setup_self,			\
		.run = { [MODE_LATENCY] = k_##id##_lat, [MODE_THROUGHPUT] = k_##id##_tput }, \
		.patterns = &pat_##id, .ctx_stores = kc_##id##_stores, __VA_ARGS__	\
	};
/* the card's ordering line compares the two full barriers (card_order) */
ORD_PROBE(smp_mb, arch_smp_mb, "mb", ARCH_INSN_SMP_MB, "__smp_mb", "full barrier between CPUs",
	  .card_order = 1)
ORD_PROBE(mb, arch_mb, "smp_mb", ARCH_INSN_MB, "mb", "mandatory full barrier (also for devices)",
	  .card_order = 2)
ORD_PROBE(rmb, arch_rmb, "smp_rmb", ARCH_INSN_RMB, "rmb", "mandatory read barrier")
ORD_PROBE(wmb, arch_wmb, "smp_wmb", ARCH_INSN_WMB, "wmb", "mandatory write barrier")
ORD_PROBE(smp_rmb, arch_smp_rmb_now, "rmb", ARCH_INSN_SMP_RMB_NOW, "__smp_rmb",
	  "read barrier between CPUs")
ORD_PROBE(smp_wmb, arch_smp_wmb, "wmb", ARCH_INSN_SMP_WMB, "__smp_wmb",
	  "write barrier between CPUs")
ORD_PROBE(smp_mb__before_atomic, arch_smp_mb__before_atomic, "smp_mb", ARCH_INSN_MB_AROUND_ATOMIC,
	  "__smp_mb__before_atomic", "orders before an unordered atomic RMW")
ORD_PROBE(smp_mb__after_atomic, arch_smp_mb__after_atomic, "smp_mb", ARCH_INSN_MB_AROUND_ATOMIC,
	  "__smp_mb__after_atomic", "orders after an unordered atomic RMW")

/* ---- combinations: the op (and its barrier) at an address --------------
 * Latency: every op on one word (CHAIN_MEMORY); throughput: the sweep. */
#define set_bit_mb_after_atomic_X(x) arch_set_bit_imm(x, BIT_IMM); arch_smp_mb__after_atomic();
#define __set_bit_smp_mb_X(x) arch___set_bit_imm(x, BIT_NR); arch_smp_mb();
#define clear_bit_unlock_X(x) arch_clear_bit_unlock(x, BIT_IMM);
#define __clear_bit_unlock_X(x) arch___clear_bit_unlock(x, BIT_NR);
#define test_and_set_bit_lock_X(x) acc += arch_test_and_set_bit_lock(nr, x); PROBE_LAUNDER(acc);
PROBE_KERNELS_AT(set_bit_mb_after_atomic, set_bit_mb_after_atomic_X, , )
PROBE_KERNELS_AT(__set_bit_smp_mb, __set_bit_smp_mb_X, , )
PROBE_KERNELS_AT(clear_bit_unlock, clear_bit_unlock_X, , )
PROBE_KERNELS_AT(__clear_bit_unlock, __clear_bit_unlock_X, , )
/* the bit number in a register, as the bitops probes and a lock word's caller */
PROBE_KERNELS_AT(test_and_set_bit_lock, test_and_set_bit_lock_X,
		 uint64_t acc = 0; uint64_t nr = BIT_NR; PROBE_LAUNDER(nr), PROBE_SINK(acc))

CONTEXT_STORES_PAIR(set_bit_mb_after_atomic, set_bit_mb_after_atomic_X,
		    __set_bit_smp_mb, __set_bit_smp_mb_X, , )
/* The menu's unlock and ordered-publish options in context (their walk,
 * loads and stores kernels: PATTERN_CONTEXT), each on its own hot lines. */
#define clear_bit_unlock_CTX(i) clear_bit_unlock_X(PAT_HOT_ADDR(p, i))
PATTERN_CONTEXT(clear_bit_unlock, clear_bit_unlock_CTX, , )
#define __clear_bit_unlock_CTX(i) __clear_bit_unlock_X(PAT_HOT_ADDR(p, i))
PATTERN_CONTEXT(__clear_bit_unlock, __clear_bit_unlock_CTX, , )

/* smp_store_mb's generic form, a store then smp_mb(), against xchg (what
 * x86's __smp_store_mb is): stores form no chain, so throughput only. */
#define store_smp_mb_T(i) arch_store(TPUT_ADDR(p, i), v); arch_smp_mb();
PROBE_KERNEL_TPUT(k_store_smp_mb_tput, uint64_t v = ctx->scratch, store_smp_mb_T, )
#define store_smp_mb_CTX(i) arch_store(PAT_HOT_ADDR(p, i), 0); arch_smp_mb();
PATTERN_CONTEXT(store_smp_mb, store_smp_mb_CTX, , )
#define smp_store_release_CTX(i) arch_smp_store_release(PAT_HOT_ADDR(p, i), 0);
PATTERN_CONTEXT(smp_store_release, smp_store_release_CTX, , )
/* Release stores and acquire loads in the templates of `store` and
 * `load_chase`'s throughput form, their twins. */
#define store_release_T(i) arch_smp_store_release(TPUT_ADDR(p, i), v);
PROBE_KERNEL_TPUT(k_smp_store_release_tput, uint64_t v = ctx->scratch, store_release_T, )
#define load_acquire_T(i) (void)arch_smp_load_acquire(TPUT_ADDR(p, i));
PROBE_KERNEL_TPUT(k_smp_load_acquire_tput, , load_acquire_T, )

/* ---- the LSE fetch-or in its four orderings (arm64: ldset, ldseta, ldsetl,
 * ldsetal), the cost of each ordering on one instruction. lse_ is a
 * constant pointer to the kernel's fetch-or, which gcc calls directly and
 * inlines. */
#if ARCH_HAS_LSE
#define LSE_DECL(fn) uint64_t acc = 0; uint64_t (*const lse_)(volatile void *, uint64_t) = fn
#define LSE_X(x) acc += lse_(x, BIT_IMM); PROBE_LAUNDER(acc);
#define LSE_KERNELS(id, fn)							\
	PROBE_KERNELS_AT(id, LSE_X, LSE_DECL(fn), PROBE_SINK(acc))		\
	static int verify_##id(void)						\
	{									\
		uint64_t w = 0x10;						\
										\
		return fn(&w, BIT_IMM) == 0x10 && w == 0x12 ? 0 : -1;		\
	}
LSE_KERNELS(atomic_fetch_or_relaxed, arch_lse_fetch_or_relaxed)
LSE_KERNELS(atomic_fetch_or_acquire, arch_lse_fetch_or_acquire)
LSE_KERNELS(atomic_fetch_or_release, arch_lse_fetch_or_release)
LSE_KERNELS(atomic_fetch_or, arch_lse_fetch_or)
#define LSE_RUN(id, insn_) .insn = insn_, KERNELS(id), .verify = verify_##id
#else
#define LSE_RUN(id, insn_) .insn = "-", \
	.unsupported = "LSE only: on x86-64 every locked RMW is fully ordered"
#endif
#define LSE_PROBE(id, twin_, insn_, macro)					\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "ordering",		\
		.atomicity = ATOMICITY_ATOMIC, LSE_RUN(id, insn_), .kernel = #id,	\
		.kernel_src = "arch/arm64/include/asm/atomic_lse.h " macro,	\
		.desc = "LSE fetch-or, one ordering of four",			\
	};
LSE_PROBE(atomic_fetch_or_relaxed, "atomic_fetch_or", ARCH_INSN_LSE_FETCH_OR_RELAXED,
	  "__lse_atomic64_fetch_or_relaxed")
LSE_PROBE(atomic_fetch_or_acquire, "atomic_fetch_or_relaxed", ARCH_INSN_LSE_FETCH_OR_ACQUIRE,
	  "__lse_atomic64_fetch_or_acquire")
LSE_PROBE(atomic_fetch_or_release, "atomic_fetch_or_relaxed", ARCH_INSN_LSE_FETCH_OR_RELEASE,
	  "__lse_atomic64_fetch_or_release")
LSE_PROBE(atomic_fetch_or, "atomic_fetch_or_relaxed", ARCH_INSN_LSE_FETCH_OR,
	  "__lse_atomic64_fetch_or")

/* ---- semantics ------------------------------------------------------- */
/* One op on a word holding init must leave want. */
#define VERIFY_X(id, init, want)						\
	static int verify_##id(void)						\
	{									\
		uint64_t w = (init);						\
										\
		id##_X((char *)&w)						\
		return w == (want) ? 0 : -1;					\
	}
VERIFY_X(set_bit_mb_after_atomic, 0x10, 0x12)
VERIFY_X(__set_bit_smp_mb, 0x10, 0x12)
VERIFY_X(clear_bit_unlock, 0xff, 0xfd)
VERIFY_X(__clear_bit_unlock, 0xff, 0xfd)

static int verify_test_and_set_bit_lock(void)
{
	uint64_t w = 0;
	bool first = arch_test_and_set_bit_lock(7, &w), second = arch_test_and_set_bit_lock(7, &w);

	return !first && second && w == (1ull << 7) ? 0 : -1;
}

static int verify_store_smp_mb(void)
{
	uint64_t w = 0;

	arch_store(&w, 0x1234);
	arch_smp_mb();
	return arch_smp_load_acquire(&w) == 0x1234 ? 0 : -1;
}

static int verify_release_acquire(void)
{
	uint64_t w = 0;

	arch_smp_store_release(&w, 0x5678);
	return arch_smp_load_acquire(&w) == 0x5678 ? 0 : -1;
}

#define ORD_PAIR_PROBE(id, twin_, at, insn_, ...)				\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "ordering",		\
		.atomicity = ATOMICITY_##at, .insn = insn_, KERNELS(id),	\
		.verify = verify_##id, __VA_ARGS__				\
	};
ORD_PAIR_PROBE(set_bit_mb_after_atomic, "__set_bit_smp_mb", ATOMIC,
	       ARCH_INSN_SET_BIT_IMM "; " ARCH_INSN_MB_AROUND_ATOMIC,
	       .kernel = "set_bit(const nr); smp_mb__after_atomic()",
	       KSRC(ARCH_KSRC_BARRIER, "__smp_mb__after_atomic"),
	       .desc = "an ordered bit set: the atomic RMW, then the barrier an unordered "
		       "atomic needs",
	       .ctx_stores = kc_set_bit_mb_after_atomic_stores)
ORD_PAIR_PROBE(__set_bit_smp_mb, "set_bit_mb_after_atomic", NONATOMIC,
	       ARCH_INSN___SET_BIT_IMM "; " ARCH_INSN_SMP_MB,
	       .kernel = "__set_bit(const nr); smp_mb()", KSRC(ARCH_KSRC_BARRIER, "__smp_mb"),
	       .desc = "an ordered bit set on an owned word: the plain RMW, then a full barrier",
	       .ctx_stores = kc___set_bit_smp_mb_stores)
ORD_PAIR_PROBE(clear_bit_unlock, "__clear_bit_unlock", ATOMIC, ARCH_INSN_CLEAR_BIT_UNLOCK,
	       .kernel = "clear_bit_unlock(const nr)",
	       KSRC(ARCH_KSRC_BITOPS_LOCK, "arch_clear_bit_unlock"),
	       .desc = "atomic bit clear with release semantics (a bit lock's unlock)",
	       .ctx_stores = kc_clear_bit_unlock_stores, .patterns = &pat_clear_bit_unlock,
	       .menu_need = { NEED_UNLOCK }, .safe_when = "always (atomic, release)")
ORD_PAIR_PROBE(__clear_bit_unlock, "clear_bit_unlock", NONATOMIC, ARCH_INSN___CLEAR_BIT_UNLOCK,
	       .kernel = "__clear_bit_unlock(const nr)",
	       KSRC(ARCH_KSRC_BITOPS_LOCK, "arch___clear_bit_unlock"),
	       .desc = "non-atomic release clear: only the lock holder writes the word",
	       .ctx_stores = kc___clear_bit_unlock_stores, .patterns = &pat___clear_bit_unlock,
	       .menu_need = { NEED_UNLOCK },
	       .safe_when = "no other CPU writes the word while the lock is held")
ORD_PAIR_PROBE(test_and_set_bit_lock, "test_and_set_bit", ATOMIC, ARCH_INSN_TEST_AND_SET_BIT_LOCK,
	       .kernel = "test_and_set_bit_lock",
	       KSRC(ARCH_KSRC_BITOPS_LOCK, "arch_test_and_set_bit_lock"),
	       .desc = "atomic bit set with acquire semantics, returns the old bit "
		       "(a bit lock's lock)")

const struct probe probe_store_smp_mb = {
	.name = "store_smp_mb", .twin = "xchg", .family = "ordering",
	.atomicity = ATOMICITY_NONATOMIC, .insn = ARCH_INSN_STORE "; " ARCH_INSN_SMP_MB,
	.kernel = "smp_store_mb (WRITE_ONCE; smp_mb())",
	.kernel_src = "include/asm-generic/barrier.h __smp_store_mb",
	.desc = "a store made visible before later loads: the generic smp_store_mb",
	.run = { [MODE_THROUGHPUT] = k_store_smp_mb_tput }, .tput_sweep = k_store_smp_mb_tput_sweep,
	.verify = verify_store_smp_mb, .ctx_stores = kc_store_smp_mb_stores, .patterns = &pat_store_smp_mb,
	.menu_need = { NEED_PUBLISH }, .safe_when = "always (the store is visible before later loads)",
};

const struct probe probe_smp_store_release = {
	.name = "smp_store_release", .twin = "store", .family = "ordering",
	.atomicity = ATOMICITY_BASELINE, .insn = ARCH_INSN_STORE_RELEASE,
	.kernel = "smp_store_release", KSRC(ARCH_KSRC_BARRIER, "__smp_store_release"),
	.desc = "release store (throughput only: stores form no chain)",
	.run = { [MODE_THROUGHPUT] = k_smp_store_release_tput },
	.tput_sweep = k_smp_store_release_tput_sweep, .verify = verify_release_acquire,
	.ctx_stores = kc_smp_store_release_stores, .patterns = &pat_smp_store_release,
	.menu_need = { NEED_PUBLISH },
	.safe_when = "readers use smp_load_acquire and only earlier accesses need ordering",
};

const struct probe probe_smp_load_acquire = {
	.name = "smp_load_acquire", .twin = "load_chase", .family = "ordering",
	.atomicity = ATOMICITY_BASELINE, .insn = ARCH_INSN_LOAD_ACQUIRE,
	.kernel = "smp_load_acquire", KSRC(ARCH_KSRC_BARRIER, "__smp_load_acquire"),
	.desc = "acquire load (throughput, in load_chase's template)",
	.run = { [MODE_THROUGHPUT] = k_smp_load_acquire_tput },
	.tput_sweep = k_smp_load_acquire_tput_sweep, .verify = verify_release_acquire,
};
