/* SPDX-License-Identifier: MIT */
/* locks.c - lock variants and local-lock analogs (family "lock").
 *
 * One op is a lock + unlock pair (with --cs-work units of dependent work
 * inside and --outside-work after it); the latency form repeats the pair
 * 64 times per loop iteration on one lock word, so single-threaded every
 * acquire succeeds at once and the pair measures the uncontended fast path.
 * Under `run --threads N` the contention runner gives every thread the same
 * word, a word of the same line, or a private line.
 *
 * Spinlock variants use the kernel's wrapper: out-of-line lock and unlock
 * functions with a thread-local preempt count (`incl %fs:` / `decl %fs:; je`)
 * around the lock-word ops, so twins differ only in the lock-word ops.
 * The cost breakdown is given by rows that strip the wrapper:
 *   call_pair            two calls of an empty out-of-line function
 *   preempt_disable      the preempt count inc/dec pair
 *   raw_spin_lock_inline the lock-word ops alone (lock cmpxchgl + movb)
 * so spin_lock ~ call_pair + preempt_disable + raw_spin_lock_inline.
 *
 * The slow paths are a plain read-spin with pause (not the kernel's MCS
 * queue): they only run under contention.
 */
#include "probes.h"
#include "locks.h"
#include "pattern-kernels.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifndef ARCH_HAS_LOCK_INSNS
#define ARCH_HAS_LOCK_INSNS 0
#endif

#if ARCH_HAS_LOCK_INSNS

/* --cs-work / --outside-work: n iterations of a dependent dec/jnz loop,
 * about one core cycle each. Nothing when n is 0 (a predicted branch). */
static inline void lk_work(uint64_t n)
{
	if (n)
		asm volatile("1:\n\tdecq %[n]\n\tjnz 1b" : [n] "+r"(n) : : "cc");
}

/* The preempt count with the kernel's inverted PREEMPT_NEED_RESCHED bit set
 * (no reschedule due), so `decl; je` falls through (see arch_preempt_dec). */
static __thread uint32_t lk_preempt_count __attribute__((tls_model("local-exec"))) = 0x80000000u;
static __thread uint8_t lk_irqs_off __attribute__((tls_model("local-exec")));

/* __preempt_schedule: never reached with the bit set; kept out of line as
 * in the kernel. */
static __attribute__((noinline)) void lk_preempt_schedule(void)
{
	asm volatile("" ::: "memory");
}

static inline void lk_preempt_disable(void)
{
	arch_preempt_inc(lk_preempt_count);
}

static inline void lk_preempt_enable(void)
{
	if (__builtin_expect(arch_preempt_dec(lk_preempt_count), 0))
		lk_preempt_schedule();
}

/* ---- the kernel's queued spinlock fast path ---------------------------- */

static __attribute__((noinline)) void lk_spin_lock_slow(volatile void *l)
{
	for (;;) {
		while (arch_load32(l))
			arch_cpu_relax();
		if (arch_lock_cmpxchg32(l, 0, 1))
			return;
	}
}

/* _raw_spin_lock: preempt_disable(); try_cmpxchg_acquire(&val, 0, 1). */
static __attribute__((noinline)) void lk_spin_lock(volatile void *l)
{
	lk_preempt_disable();
	if (__builtin_expect(!arch_lock_cmpxchg32(l, 0, 1), 0))
		lk_spin_lock_slow(l);
}

/* _raw_spin_unlock: smp_store_release(&lock->locked, 0); preempt_enable(). */
static __attribute__((noinline)) void lk_spin_unlock(volatile void *l)
{
	arch_release8(l);
	lk_preempt_enable();
}

/* The twin: the same unlock as an atomic exchange of the lock byte. */
static __attribute__((noinline)) void lk_spin_unlock_xchg(volatile void *l)
{
	arch_xchg8(l, 0);
	lk_preempt_enable();
}

/* Word-sized releases: a plain 32-bit store and an atomic 32-bit exchange,
 * to separate the cost of atomicity from the byte-store-to-word-load
 * forwarding stall the kernel's byte release meets when the same CPU takes
 * the lock again at once. */
static __attribute__((noinline)) void lk_spin_unlock_movl(volatile void *l)
{
	arch_release32(l);
	lk_preempt_enable();
}

static __attribute__((noinline)) void lk_spin_unlock_xchgl(volatile void *l)
{
	arch_xchg32(l, 0);
	lk_preempt_enable();
}

/* ---- ticket lock (the x86 spinlock of 2.6.25 - 4.1) --------------------- */

static __attribute__((noinline)) void lk_ticket_lock(volatile void *l)
{
	uint32_t old;
	uint16_t me;

	lk_preempt_disable();
	old = arch_ticket_take(l);
	me = (uint16_t)(old >> 16);
	if (__builtin_expect((uint16_t)old != me, 0))
		while (arch_ticket_head(l) != me)
			arch_cpu_relax();
}

static __attribute__((noinline)) void lk_ticket_unlock(volatile void *l)
{
	arch_ticket_release(l);
	lk_preempt_enable();
}

/* ---- test-and-set, without and with a read before the RMW --------------- */

/* Textbook locks of one width: a 32-bit `xchgl` takes the word and a 32-bit
 * `movl $0` releases it (lk_spin_unlock_movl), as lockhammer's swap_mutex
 * does at 64 bits (xchgq / movq $0). With the kernel's byte release
 * (`movb $0`, what the qspinlock and its virt_spin_lock TAS fallback use) the
 * next pair's 32-bit read cannot forward from the narrower store and waits
 * for it to reach the cache: that stall is measured once, on spin_lock
 * against spin_lock_movl_unlock, not hidden in these. */
static __attribute__((noinline)) void lk_tas_lock(volatile void *l)
{
	lk_preempt_disable();
	while (arch_xchg32(l, 1))
		arch_cpu_relax();
}

/* Test-and-test-and-set: read first, exchange only when it looks free. The
 * read costs an extra load uncontended; under contention it keeps waiters
 * on a shared copy of the line instead of stealing it exclusive. */
static __attribute__((noinline)) void lk_tatas_lock(volatile void *l)
{
	lk_preempt_disable();
	for (;;) {
		while (arch_load32(l))
			arch_cpu_relax();
		if (!arch_xchg32(l, 1))
			return;
	}
}

/* ---- the same lock-word ops inline, no call, no preempt count ----------- */

static inline void lk_raw_lock_inline(volatile void *l)
{
	if (__builtin_expect(!arch_lock_cmpxchg32(l, 0, 1), 0))
		lk_spin_lock_slow(l);
}

static inline void lk_raw_unlock_inline(volatile void *l)
{
	arch_release8(l);
}

/* ---- call overhead: an empty out-of-line function, called twice --------- */

static __attribute__((noinline)) void lk_nop(volatile void *l)
{
	asm volatile("" : : "r"(l) : "memory");
}

/* ---- bit spinlock (include/linux/bit_spinlock.h, inline) ---------------- */

static inline void lk_bit_spin_lock(volatile void *l)
{
	lk_preempt_disable();
	while (__builtin_expect(arch_test_and_set_bit(0, l), 0)) {
		lk_preempt_enable();
		do
			arch_cpu_relax();
		while (arch_load(l) & 1);
		lk_preempt_disable();
	}
}

/* bit_spin_unlock: clear_bit_unlock (`lock andb`), preempt_enable. */
static inline void lk_bit_spin_unlock(volatile void *l)
{
	arch_clear_bit_imm(l, 1);
	lk_preempt_enable();
}

/* __bit_spin_unlock: __clear_bit_unlock (x86: `btrq $0`, the non-atomic
 * __clear_bit: only the owner writes the word while the bit is held),
 * preempt_enable. */
static inline void lk___bit_spin_unlock(volatile void *l)
{
	arch___clear_bit_imm(l, 0);
	lk_preempt_enable();
}

/* ---- pthread baselines --------------------------------------------------- */

static inline void lk_mutex_lock(volatile void *l)
{
	pthread_mutex_lock((pthread_mutex_t *)l);
}

static inline void lk_mutex_unlock(volatile void *l)
{
	pthread_mutex_unlock((pthread_mutex_t *)l);
}

static inline void lk_pspin_lock(volatile void *l)
{
	pthread_spin_lock((pthread_spinlock_t *)l);
}

static inline void lk_pspin_unlock(volatile void *l)
{
	pthread_spin_unlock((pthread_spinlock_t *)l);
}

/* ---- local-lock analogs --------------------------------------------------- */

/* local_irq_save: flags = pushfq;popq (then cli in the kernel: here a
 * thread-local "irqs off" byte); the asm's memory clobber is the compiler
 * barrier local_irq_save implies. */
static inline uint64_t lk_irq_save(void)
{
	uint64_t f = arch_save_flags();

	asm volatile("movb $1, %[o]" : [o] "=m"(lk_irqs_off) : : "memory");
	return f;
}

/* local_irq_restore: sti only if the saved flags had IF set. */
static inline void lk_irq_restore(uint64_t f)
{
	if (__builtin_expect(f & ARCH_FLAGS_IF, 1))
		asm volatile("movb $0, %[o]" : [o] "=m"(lk_irqs_off) : : "memory");
}

/* ---- kernels: OPS64 of (lock, cs work, unlock, outside work) ------------- */

#define LK_DECL uint64_t cs_ = ctx->cs_work; uint64_t out_ = ctx->out_work
/* The kernels of lock id repeat lkop_(l, cs_, out_): a constant pointer to
 * lkop_<id>, which gcc calls directly and inlines. */
#define LK_OP_DECL(id) LK_DECL; void (*const lkop_)(volatile void *, uint64_t, uint64_t) = lkop_##id
#define OP_LK(i) lkop_(p, cs_, out_);
/* lkop_<id> is always inlined: left to itself gcc outlines some of the 64
 * copies, and the loop no longer shows (nor times the same) sequence. */
#define LK_FUNCS(id, lockf, unlockf)						\
	static inline __attribute__((always_inline))				\
	void lkop_##id(volatile void *l, uint64_t cs, uint64_t out)		\
	{									\
		lockf(l);							\
		lk_work(cs);							\
		unlockf(l);							\
		lk_work(out);							\
	}									\
	static __attribute__((noinline)) void lklock_##id(volatile void *l)	\
	{									\
		lockf(l);							\
	}									\
	static __attribute__((noinline)) void lkunlock_##id(volatile void *l)	\
	{									\
		unlockf(l);							\
	}
/* The latency form: every pair on the one lock word, so each acquire's RMW
 * reads the word the previous release wrote (CHAIN_MEMORY). */
#define LK_KERNEL(id, lockf, unlockf)						\
	LK_FUNCS(id, lockf, unlockf)						\
	PROBE_KERNEL(k_##id##_lat, LK_OP_DECL(id), OP_LK, )

/* The locks whose lock word verify_word checks: X(id, lock, unlock, held),
 * held the bits a held lock sets. Each has its kernel, its entry in the
 * exclusion harness and its verify from this list. */
#define LK_WORD_LOCKS(X)							\
	X(spin_lock, lk_spin_lock, lk_spin_unlock, 0xff)			\
	X(spin_lock_xchg_unlock, lk_spin_lock, lk_spin_unlock_xchg, 0xff)	\
	X(spin_lock_movl_unlock, lk_spin_lock, lk_spin_unlock_movl, 0xff)	\
	X(spin_lock_xchgl_unlock, lk_spin_lock, lk_spin_unlock_xchgl, 0xff)	\
	X(tas_lock, lk_tas_lock, lk_spin_unlock_movl, ~0u) /* the whole 32-bit word */ \
	X(tatas_lock, lk_tatas_lock, lk_spin_unlock_movl, ~0u)			\
	X(raw_spin_lock_inline, lk_raw_lock_inline, lk_raw_unlock_inline, 0xff)	\
	X(bit_spin_lock, lk_bit_spin_lock, lk_bit_spin_unlock, 1)		\
	X(__bit_spin_unlock, lk_bit_spin_lock, lk___bit_spin_unlock, 1)
#define LK_WORD_KERNEL(id, lockf, unlockf, held) LK_KERNEL(id, lockf, unlockf)
LK_WORD_LOCKS(LK_WORD_KERNEL)
LK_KERNEL(ticket_lock, lk_ticket_lock, lk_ticket_unlock)
/* Two calls carry no data from one pair to the next: throughput only. */
LK_FUNCS(call_pair, lk_nop, lk_nop)
PROBE_KERNEL(k_call_pair_tput, LK_OP_DECL(call_pair), OP_LK, )
LK_KERNEL(pthread_mutex, lk_mutex_lock, lk_mutex_unlock)
LK_KERNEL(pthread_spin, lk_pspin_lock, lk_pspin_unlock)

/* Local analogs: the "lock" is the CPU itself; p is unused. */
static inline void lk_preempt_disable_l(volatile void *l) { lk_preempt_disable(); }
static inline void lk_preempt_enable_l(volatile void *l) { lk_preempt_enable(); }
LK_KERNEL(preempt_disable, lk_preempt_disable_l, lk_preempt_enable_l)

/* The analog has no chain (nothing one pair computes feeds the next) and
 * none of cli/popf's semantics: throughput only, and never a verdict. */
#define OP_IRQ(i) { uint64_t f_ = lk_irq_save(); lk_work(cs_); lk_irq_restore(f_); lk_work(out_); }
PROBE_KERNEL(k_local_irq_save_analog_tput, LK_DECL, OP_IRQ, )

/* sigprocmask: block every signal, restore the old mask (two system calls):
 * what user space can do to keep a handler off, not a cost model of cli.
 * No chain from one pair to the next: throughput only. */
#define SIGM_DECL LK_DECL; sigset_t all_, old_; sigfillset(&all_)
#define OP_SIGM(i) { pthread_sigmask(SIG_BLOCK, &all_, &old_); lk_work(cs_);	\
		     pthread_sigmask(SIG_SETMASK, &old_, NULL); lk_work(out_); }
PROBE_KERNEL(k_sigprocmask_tput, SIGM_DECL, OP_SIGM, )

/* ---- the fast-path menu's context (pattern-kernels.h) -------------------
 * A lock/unlock pair on its own hot lock word between the steps of a walk,
 * and after pending stores: pair i on the word of hot line i % 32, so a pair
 * meets a word released 32 pairs earlier, not the one just released (that
 * chain is the latency form). glibc's spinlock is free at 1: those words are
 * set up by the kernel itself (outside the loop: a fixed cost, cancelled). */
static void lk_ctx_spin_init(char *p)
{
	for (int i = 0; i < TPUT_LINES; i++)
		pthread_spin_init((pthread_spinlock_t *)PAT_HOT_ADDR(p, i), PTHREAD_PROCESS_PRIVATE);
}
#define LK_HOT_OP(i) lkop_(PAT_HOT_ADDR(p, i), cs_, out_);
PATTERN_CONTEXT(spin_lock, LK_HOT_OP, LK_OP_DECL(spin_lock), )
PATTERN_CONTEXT(ticket_lock, LK_HOT_OP, LK_OP_DECL(ticket_lock), )
PATTERN_CONTEXT(bit_spin_lock, LK_HOT_OP, LK_OP_DECL(bit_spin_lock), )
PATTERN_CONTEXT(pthread_mutex, LK_HOT_OP, LK_OP_DECL(pthread_mutex), )
PATTERN_CONTEXT(pthread_spin, LK_HOT_OP, LK_OP_DECL(pthread_spin); lk_ctx_spin_init(p), )
PATTERN_CONTEXT(preempt_disable, LK_HOT_OP, LK_OP_DECL(preempt_disable), )

/* ---- exclusion harness ------------------------------------------------- */

struct lk_ops {
	const char *name;
	void (*lock)(volatile void *l);
	void (*unlock)(volatile void *l);
	bool excludes;
};

#define LK_OPS(id, ex) { #id, lklock_##id, lkunlock_##id, ex }
#define LK_WORD_OPS(id, lockf, unlockf, held) LK_OPS(id, true),
static const struct lk_ops lk_ops_table[] = {
	LK_WORD_LOCKS(LK_WORD_OPS)
	LK_OPS(ticket_lock, true),
	LK_OPS(pthread_mutex, true),
	LK_OPS(pthread_spin, true),
	LK_OPS(call_pair, false),
	LK_OPS(preempt_disable, false),
	{ "local_irq_save_analog", NULL, NULL, false },
	{ "sigprocmask", NULL, NULL, false },
};

static const struct lk_ops *lk_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(lk_ops_table); i++)
		if (!strcmp(lk_ops_table[i].name, name))
			return &lk_ops_table[i];
	return NULL;
}

bool locks_excludes(const char *name)
{
	const struct lk_ops *o = lk_find(name);

	return o && o->excludes;
}

int locks_ops(const char *name, void (**lock)(volatile void *l), void (**unlock)(volatile void *l))
{
	const struct lk_ops *o = lk_find(name);

	if (!o || !o->excludes)
		return -ENOENT;
	*lock = o->lock;
	*unlock = o->unlock;
	return 0;
}

struct lk_arena {
	/* the lock and the counter it protects, on one line as in most kernel
	 * structures; big enough for a pthread_mutex_t */
	union {
		pthread_mutex_t m;
		uint64_t w[8];
	} lock __attribute__((aligned(64)));
	volatile uint64_t counter;
	const struct lk_ops *ops;
	uint64_t iters;
	volatile int go;
};

static void *lk_worker(void *arg)
{
	struct lk_arena *a = arg;

	while (!__atomic_load_n(&a->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	for (uint64_t i = 0; i < a->iters; i++) {
		uint64_t v;

		if (a->ops)
			a->ops->lock(&a->lock);
		v = a->counter;	/* a non-atomic increment: load, add, store */
		asm volatile("" : "+r"(v));
		a->counter = v + 1;
		if (a->ops)
			a->ops->unlock(&a->lock);
	}
	return NULL;
}

int64_t locks_exclusion_run(const char *name, unsigned nthreads, uint64_t iters)
{
	struct lk_arena *a;
	pthread_t tid[64];
	unsigned started = 0;
	int64_t ret;

	if (nthreads < 1 || nthreads > ARRAY_SIZE(tid)) {
		pr_err("lock check: %u threads (expected 1..%zu)", nthreads, ARRAY_SIZE(tid));
		return -EINVAL;
	}
	a = aligned_alloc(64, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	a->iters = iters;
	if (name) {
		a->ops = lk_find(name);
		if (!a->ops || !a->ops->excludes) {
			pr_err("lock check: '%s' is not a lock that excludes other CPUs", name);
			free(a);
			return -EINVAL;
		}
		if (a->ops->lock == lklock_pthread_mutex)
			pthread_mutex_init(&a->lock.m, NULL);
		if (a->ops->lock == lklock_pthread_spin)
			pthread_spin_init((pthread_spinlock_t *)&a->lock, PTHREAD_PROCESS_PRIVATE);
	}
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, lk_worker, a))
			break;
	__atomic_store_n(&a->go, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (started < nthreads) {
		pr_err("lock check: cannot start thread %u of %u", started + 1, nthreads);
		ret = -EAGAIN;
	} else {
		ret = (int64_t)a->counter;
	}
	free(a);
	return ret;
}

#define VERIFY_THREADS 2
#define VERIFY_ITERS 20000

static int verify_excl(const char *name)
{
	int64_t got = locks_exclusion_run(name, VERIFY_THREADS, VERIFY_ITERS);

	return got == (int64_t)VERIFY_THREADS * VERIFY_ITERS ? 0 : -1;
}

/* Every acquire must leave the word owned and every release free it again:
 * all of held_mask, the lock's width, so a narrower release (a byte store
 * on a 32-bit lock word) fails even when the held value fits the byte. */
static int verify_word(const char *name, uint32_t held_mask)
{
	const struct lk_ops *o = lk_find(name);
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };

	for (int i = 0; i < 3; i++) {
		o->lock(w);
		if (!(w[0] & held_mask))
			return -1;
		w[0] |= held_mask;
		o->unlock(w);
		if (w[0] & held_mask)
			return -1;
	}
	return 0;
}

#define VERIFY_LOCK(id, lockf, unlockf, held)					\
	static int verify_##id(void)						\
	{									\
		return verify_word(#id, held) ? -1 : verify_excl(#id);		\
	}
LK_WORD_LOCKS(VERIFY_LOCK)

/* Ticket: held while tail != head; unlock makes them equal again. */
static int verify_ticket_lock(void)
{
	uint32_t w[16] __attribute__((aligned(64))) = { 0 };

	for (int i = 0; i < 3; i++) {
		lklock_ticket_lock(w);
		if ((w[0] >> 16) == (w[0] & 0xffff))
			return -1;
		lkunlock_ticket_lock(w);
		if ((w[0] >> 16) != (w[0] & 0xffff))
			return -1;
	}
	return verify_excl("ticket_lock");
}

static int verify_pthread_mutex(void) { return verify_excl("pthread_mutex"); }

/* glibc's x86-64 spinlock is free at 1, not 0 (`lock decl; jne`, unlock
 * `movl $1`): zeroed memory is a held lock. */
static int setup_pthread_spin(struct probe_ctx *ctx)
{
	return -pthread_spin_init((pthread_spinlock_t *)ctx->mem, PTHREAD_PROCESS_PRIVATE);
}

/* glibc takes a non-atomic shortcut (plain cmpxchg and `movl $0` unlock)
 * while __libc_single_threaded is set, i.e. until the process creates its
 * first thread. A mutex users care about lives in a threaded process:
 * create one thread, once, so the baseline is the atomic path. */
static void *lk_noop_thread(void *arg)
{
	return arg;
}

static int lk_make_multithreaded(void)
{
	static int done;
	pthread_t t;
	int err;

	if (done)
		return 0;
	err = pthread_create(&t, NULL, lk_noop_thread, NULL);
	if (err)
		return -err;
	pthread_join(t, NULL);
	done = 1;
	return 0;
}

static int setup_pthread_mutex(struct probe_ctx *ctx)
{
	int err = lk_make_multithreaded();

	return err ? err : -pthread_mutex_init((pthread_mutex_t *)ctx->mem, NULL);
}
static int verify_pthread_spin(void) { return verify_excl("pthread_spin"); }

/* The count goes up and back to its start, and the resched branch stays
 * untaken (the inverted bit). */
static int verify_preempt_disable(void)
{
	uint32_t before = lk_preempt_count;

	lk_preempt_disable();
	if (lk_preempt_count != before + 1)
		return -1;
	lk_preempt_disable();
	lk_preempt_enable();
	lk_preempt_enable();
	return lk_preempt_count == before ? 0 : -1;
}

static int verify_local_irq_save_analog(void)
{
	uint64_t f = lk_irq_save();

	if (!(f & ARCH_FLAGS_IF) || !lk_irqs_off)	/* user space always runs with IF */
		return -1;
	lk_irq_restore(f);
	return lk_irqs_off ? -1 : 0;
}

/* A signal raised while blocked stays pending until the mask is restored. */
static volatile sig_atomic_t lk_sig_seen;
static void lk_on_sig(int s) { lk_sig_seen = 1; }

static int verify_sigprocmask(void)
{
	struct sigaction sa = { .sa_handler = lk_on_sig }, old_sa;
	sigset_t all, old;
	int ok;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, &old_sa))
		return -1;
	lk_sig_seen = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_kill(pthread_self(), SIGUSR2);
	ok = !lk_sig_seen;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ok = ok && lk_sig_seen;
	sigaction(SIGUSR2, &old_sa, NULL);
	return ok ? 0 : -1;
}

static int verify_call_pair(void)
{
	uint64_t w = 0;

	lk_nop(&w);
	return 0;
}

#define LK_RUN(id) .run = { [MODE_LATENCY] = k_##id##_lat }, .chain = CHAIN_MEMORY,	\
		   .verify = verify_##id
#define LK_RUN_TPUT(id) .run = { [MODE_THROUGHPUT] = k_##id##_tput }, .verify = verify_##id
#define LK_INSN(s) .insn = s
#define LK_SETUP(id) .setup = setup_##id
#define LK_CTX(id) .patterns = &pat_##id, .ctx_stores = kc_##id##_stores
#else	/* !ARCH_HAS_LOCK_INSNS */
#define LK_RUN(id) .unsupported = "no lock-word primitives for this architecture yet"
#define LK_RUN_TPUT(id) LK_RUN(id)
#define LK_INSN(s) .insn = "-"
#define LK_SETUP(id) .setup = NULL
#define LK_CTX(id) .patterns = NULL

bool locks_excludes(const char *name)
{
	return false;
}

int locks_ops(const char *name, void (**lock)(volatile void *l), void (**unlock)(volatile void *l))
{
	return -ENOTSUP;
}

int64_t locks_exclusion_run(const char *name, unsigned nthreads, uint64_t iters)
{
	pr_err("lock check: no lock-word primitives for this architecture yet");
	return -ENOTSUP;
}
#endif

/* name, twin, family and atomicity of a lock descriptor */
#define LK_HEAD(id, twin_, at)							\
	.name = #id, .twin = twin_, .family = "lock", .atomicity = ATOMICITY_##at

const struct probe probe_spin_lock = {
	LK_HEAD(spin_lock, "spin_lock_xchg_unlock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / movb $0; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock, _raw_spin_unlock "
		       "(include/asm-generic/qspinlock.h queued_spin_lock)",
	.kernel = "spin_lock + spin_unlock (queued spinlock fast path)",
	.desc = "out-of-line lock/unlock, preempt count, release by a plain byte store",
	LK_RUN(spin_lock), LK_CTX(spin_lock),
	.menu_need = { NEED_CRITICAL }, .safe_when = "always", .card_share = 2,
};

const struct probe probe_spin_lock_xchg_unlock = {
	LK_HEAD(spin_lock_xchg_unlock, "spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / xchgb; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock; unlock by xchg (no kernel macro)",
	.kernel = "spin_lock + an atomic unlock",
	.desc = "spin_lock with the release done by an atomic exchange of the lock byte",
	LK_RUN(spin_lock_xchg_unlock),
};

const struct probe probe_spin_lock_movl_unlock = {
	LK_HEAD(spin_lock_movl_unlock, "spin_lock_xchgl_unlock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / movl $0; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock; word-sized release "
		       "(no kernel macro)",
	.kernel = "spin_lock + a plain word-sized release",
	.desc = "spin_lock released by a 32-bit store (no narrow-store forwarding stall)",
	LK_RUN(spin_lock_movl_unlock),
};

const struct probe probe_spin_lock_xchgl_unlock = {
	LK_HEAD(spin_lock_xchgl_unlock, "spin_lock_movl_unlock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / xchgl; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock; unlock by xchgl "
		       "(no kernel macro)",
	.kernel = "spin_lock + an atomic word-sized release",
	.desc = "spin_lock released by an atomic exchange of the whole 32-bit word",
	LK_RUN(spin_lock_xchgl_unlock),
};

const struct probe probe_ticket_lock = {
	LK_HEAD(ticket_lock, "spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock xaddl / addw $1 (no lock); decl %fs:pc; je"),
	.kernel_src = "arch/x86/include/asm/spinlock.h (2.6.25-4.1) __ticket_spin_lock, "
		       "__ticket_spin_unlock",
	.kernel = "x86 ticket spinlock (2.6.25 - 4.1)",
	.desc = "ticket lock: take a ticket with xadd, release by an unlocked add to the head",
	LK_RUN(ticket_lock), LK_CTX(ticket_lock),
	.menu_need = { NEED_CRITICAL }, .safe_when = "always (FIFO)",
};

const struct probe probe_tas_lock = {
	LK_HEAD(tas_lock, "tatas_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; xchgl loop / movl $0; decl %fs:pc; je"),
	.kernel_src = "- (textbook lock, no kernel macro; lockhammer swap_mutex at 32 bits)",
	.kernel = "test-and-set lock",
	.desc = "test-and-set: spin on xchgl, no read before the RMW; 32-bit take and release",
	LK_RUN(tas_lock),
};

const struct probe probe_tatas_lock = {
	LK_HEAD(tatas_lock, "tas_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; movl; xchgl / movl $0; decl %fs:pc; je"),
	.kernel_src = "- (textbook lock; arch/x86/include/asm/qspinlock.h virt_spin_lock reads "
		       "then takes the same way, with lock cmpxchgl and a byte release)",
	.kernel = "test-and-test-and-set lock",
	.desc = "test-and-set with a read before the RMW (spin on a shared copy); 32-bit "
		"read, take and release",
	LK_RUN(tatas_lock),
};

const struct probe probe_raw_spin_lock_inline = {
	LK_HEAD(raw_spin_lock_inline, "spin_lock", ATOMIC),
	LK_INSN("lock cmpxchgl 0->1 / movb $0 (inline, no call, no preempt count)"),
	.kernel_src = "include/asm-generic/qspinlock.h queued_spin_lock, queued_spin_unlock",
	.kernel = "arch_spin_lock + arch_spin_unlock (breakdown: lock-word ops only)",
	.desc = "breakdown of spin_lock: the lock-word ops without call and preempt count",
	LK_RUN(raw_spin_lock_inline),
};

const struct probe probe_call_pair = {
	LK_HEAD(call_pair, "spin_lock", BASELINE),
	LK_INSN("call lock; call unlock: ret / ret (empty functions)"),
	.kernel_src = "-",
	.kernel = "- (breakdown: call overhead of out-of-line lock and unlock)",
	.desc = "breakdown of spin_lock: two calls of an empty out-of-line function "
		"(no chain: throughput)",
	LK_RUN_TPUT(call_pair),
};

const struct probe probe_bit_spin_lock = {
	LK_HEAD(bit_spin_lock, "__bit_spin_unlock", ATOMIC),
	LK_INSN("incl %fs:pc; lock btsq $0 / lock andb $~1; decl %fs:pc; je"),
	.kernel_src = "include/linux/bit_spinlock.h bit_spin_lock, bit_spin_unlock "
		       "(clear_bit_unlock)",
	.kernel = "bit_spin_lock + bit_spin_unlock",
	.desc = "bit spinlock released by an atomic clear (clear_bit_unlock)",
	LK_RUN(bit_spin_lock), LK_CTX(bit_spin_lock),
	.menu_need = { NEED_CRITICAL }, .safe_when = "always (lock bit in a flags word)",
};

const struct probe probe___bit_spin_unlock = {
	LK_HEAD(__bit_spin_unlock, "bit_spin_lock", ATOMIC),
	LK_INSN("incl %fs:pc; lock btsq $0 / btrq $0 (no lock); decl %fs:pc; je"),
	.kernel_src = "include/linux/bit_spinlock.h bit_spin_lock, __bit_spin_unlock "
		       "(__clear_bit_unlock)",
	.kernel = "bit_spin_lock + __bit_spin_unlock",
	.desc = "bit spinlock released non-atomically (__clear_bit_unlock)",
	LK_RUN(__bit_spin_unlock),
};

const struct probe probe_pthread_mutex = {
	LK_HEAD(pthread_mutex, "pthread_spin", ATOMIC),
	LK_INSN("call pthread_mutex_lock; call pthread_mutex_unlock (glibc)"),
	.impl = "libc",
	.kernel_src = "- (glibc)", .kernel = "- (user-space baseline)",
	.desc = "glibc default mutex, uncontended (no futex call)",
	LK_RUN(pthread_mutex), LK_SETUP(pthread_mutex),
	LK_CTX(pthread_mutex), .menu_need = { NEED_CRITICAL },
	.safe_when = "always (sleeps under contention)",
	.word_size = sizeof(pthread_mutex_t),
};

const struct probe probe_pthread_spin = {
	LK_HEAD(pthread_spin, "pthread_mutex", ATOMIC),
	LK_INSN("call pthread_spin_lock; call pthread_spin_unlock (glibc)"),
	.impl = "libc",
	.kernel_src = "- (glibc)", .kernel = "- (user-space baseline)", .desc = "glibc spinlock",
	LK_RUN(pthread_spin), LK_SETUP(pthread_spin),
	LK_CTX(pthread_spin), .menu_need = { NEED_CRITICAL }, .safe_when = "always (user space)",
	.word_size = sizeof(pthread_spinlock_t),
};

const struct probe probe_preempt_disable = {
	LK_HEAD(preempt_disable, "local_irq_save_analog", LOCAL),
	LK_INSN("incl %fs:pc / decl %fs:pc; je resched"),
	.kernel = "preempt_disable + preempt_enable (local_lock on !RT)",
	.kernel_src = ARCH_KSRC_PREEMPT " __preempt_count_add, __preempt_count_dec_and_test",
	.desc = "thread-local preempt count inc/dec, the whole cost of local_lock",
	LK_RUN(preempt_disable), LK_CTX(preempt_disable),
	.menu_need = { NEED_CRITICAL }, .safe_when = "same-CPU exclusion only (local_lock)",
};

const struct probe probe_local_irq_save_analog = {
	LK_HEAD(local_irq_save_analog, "preempt_disable", LOCAL),
	LK_INSN("pushfq; popq %reg; movb $1,%fs:off / test $IF; movb $0,%fs:off"),
	.analog = true,
	.kernel = "local_irq_save + local_irq_restore (local_lock_irqsave), without cli/sti",
	.kernel_src = ARCH_KSRC_IRQFLAGS " arch_local_irq_save, arch_local_irq_restore",
	.desc = "flags read and a thread-local byte: lacks cli/sti/popf (they fault in user "
		"space) and any chain; throughput only, never a verdict",
	LK_RUN_TPUT(local_irq_save_analog),
};

const struct probe probe_sigprocmask = {
	LK_HEAD(sigprocmask, "local_irq_save_analog", LOCAL),
	LK_INSN("call pthread_sigmask; call pthread_sigmask: rt_sigprocmask(SIG_BLOCK all), "
		"rt_sigprocmask(SIG_SETMASK old), 2 system calls"),
	.impl = "libc", .analog = true,
	.kernel = "local_irq_save's semantics in user space (heavy: not its cost)",
	.kernel_src = "kernel/signal.c sigprocmask (what user space has instead of cli)",
	.desc = "blocking signals: what user space does to keep handlers off; ~100x too heavy",
	LK_RUN_TPUT(sigprocmask),
};
