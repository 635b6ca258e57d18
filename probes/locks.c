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
 * spin_lock's slow path is the kernel's (kernel/locking/qspinlock.c: a
 * pending bit, then an MCS queue of per-"CPU" nodes); the variants that
 * release the whole 32-bit word read-spin instead (a word store would wipe
 * the pending bit and the tail). Beside them: the MCS lock, TAS and ticket
 * with backoff, the qrwlock's read and write sides, seqcount/seqlock, and
 * the reference counts (family "refcount": refcount_t, atomic_t, lockref,
 * percpu_ref), each one op = get + put.
 */
#include "probes.h"
#include "locks.h"
#include "pattern-kernels.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifndef ARCH_HAS_LOCK_INSNS
#define ARCH_HAS_LOCK_INSNS 0
#endif

#if ARCH_HAS_LOCK_INSNS

/* --cs-work / --outside-work: n iterations of a dependent dec/jnz loop,
 * about one core cycle each. Nothing when n is 0 (a predicted branch). The
 * counter is %r11 (a fixed scratch register), so gcc never borrows the
 * register that holds the lock pointer for it: the disassembly test then
 * sees the pointer's register unchanged through the 64 ops. */
static inline void lk_work(uint64_t n)
{
	if (n)
		asm volatile("movq %[n], %%r11\n1:\n\tdecq %%r11\n\tjnz 1b"
			     : : [n] "r"(n) : "r11", "cc");
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

/* ---- the kernel's queued spinlock slow path (kernel/locking/qspinlock.c) --
 * The 32-bit word (include/asm-generic/qspinlock_types.h, NR_CPUS < 16K):
 * locked byte at bits 0-7, pending byte at 8-15, tail index 16-17 and
 * tail CPU + 1 at 18-31. A second CPU sets pending and spins on the locked
 * byte; a third queues on its own MCS node and spins on that. Each thread
 * stands in for a CPU: it claims a number (its "CPU" in the tail) on its
 * first queueing and gives it back when it exits; its nodes are that
 * number's four (one per context: task, softirq, hardirq, NMI) as in the
 * kernel's per-CPU qnodes[]. */
#define Q_LOCKED 1u
#define Q_LOCKED_MASK 0xffu
#define Q_PENDING (1u << 8)
#define Q_PENDING_BIT 8
#define Q_LOCKED_PENDING_MASK 0xffffu
#define Q_TAIL_MASK 0xffff0000u
#define Q_TAIL_IDX_SHIFT 16
#define Q_TAIL_CPU_SHIFT 18
#define Q_MAX_NODES 4
/* x86's _Q_PENDING_LOOPS (arch/x86/include/asm/qspinlock.h): how long a
 * newcomer waits for a pending->locked hand-over before queueing. */
#define Q_PENDING_LOOPS (1 << 9)
#define LK_NCPU 256	/* thread numbers for the tail (at most 16K fit) */

struct lk_mcs {	/* struct mcs_spinlock: 16 bytes, four to a line */
	struct lk_mcs *volatile next;
	volatile uint32_t locked;
	uint32_t count;	/* nodes in use on this "CPU" (node 0's only) */
};
static struct lk_mcs lk_qnodes[LK_NCPU][Q_MAX_NODES] __attribute__((aligned(64)));
static uint64_t lk_cpu_used[LK_NCPU / 64];
static __thread int lk_cpu_self = -1;
static pthread_key_t lk_cpu_key;
static pthread_once_t lk_cpu_once = PTHREAD_ONCE_INIT;

static void lk_cpu_put(void *v)
{
	int cpu = (int)(uintptr_t)v - 1;

	__atomic_fetch_and(&lk_cpu_used[cpu / 64], ~(1ull << (cpu % 64)), __ATOMIC_RELEASE);
}

static void lk_cpu_key_make(void)
{
	pthread_key_create(&lk_cpu_key, lk_cpu_put);
}

/* This thread's number, claimed once (outside any timed steady state: the
 * first queueing of a thread). More than LK_NCPU threads queueing at once
 * wait here for a number, which never happens with the runner's threads. */
static __attribute__((noinline)) int lk_cpu_claim(void)
{
	pthread_once(&lk_cpu_once, lk_cpu_key_make);
	for (;;) {
		for (int c = 0; c < LK_NCPU; c++) {
			uint64_t bit = 1ull << (c % 64);

			if (__atomic_fetch_or(&lk_cpu_used[c / 64], bit, __ATOMIC_ACQUIRE) & bit)
				continue;
			pthread_setspecific(lk_cpu_key, (void *)(uintptr_t)(c + 1));
			lk_cpu_self = c;
			return c;
		}
		sched_yield();
	}
}

static inline int lk_cpu(void)
{
	return __builtin_expect(lk_cpu_self >= 0, 1) ? lk_cpu_self : lk_cpu_claim();
}

static inline struct lk_mcs *lk_decode_tail(uint32_t tail)
{
	unsigned cpu = (tail >> Q_TAIL_CPU_SHIFT) - 1;
	unsigned idx = (tail >> Q_TAIL_IDX_SHIFT) & 3;

	return &lk_qnodes[cpu][idx];
}

/* queued_spin_lock_slowpath(lock, val), val the word the fast path's
 * cmpxchg saw. Comments give the kernel's (tail, pending, locked) states. */
static __attribute__((noinline)) void lk_qspin_lock_slow(volatile void *l, uint32_t val)
{
	volatile uint8_t *b = l;
	struct lk_mcs *node, *prev, *next;
	uint32_t tail, old;
	int cpu, idx;

	/* (0,1,0) -> (0,0,1): a hand-over in progress; wait for it, briefly */
	if (val == Q_PENDING) {
		int cnt = Q_PENDING_LOOPS;

		while ((val = arch_load32(l)) == Q_PENDING && cnt--)
			arch_cpu_relax();
	}
	if (val & ~Q_LOCKED_MASK)	/* contention beyond the owner: queue */
		goto queue;
	/* (0,0,*) -> (0,1,*): queued_fetch_set_pending_acquire */
	val = arch_test_and_set_bit32(l, Q_PENDING_BIT) ? Q_PENDING : 0;
	val |= arch_load32(l) & ~Q_PENDING;
	if (val & ~Q_LOCKED_MASK) {
		if (!(val & Q_PENDING))		/* we set it: undo (clear_pending) */
			arch_store8(b + 1, 0);
		goto queue;
	}
	/* (0,1,1) -> (0,1,0): wait for the owner's release */
	if (val & Q_LOCKED_MASK)
		while (arch_load8(b))
			arch_cpu_relax();
	arch_store16(b, Q_LOCKED);	/* clear_pending_set_locked: (0,1,0) -> (0,0,1) */
	return;

queue:
	cpu = lk_cpu();
	node = &lk_qnodes[cpu][0];
	idx = (int)node->count++;
	tail = (uint32_t)(cpu + 1) << Q_TAIL_CPU_SHIFT | (uint32_t)idx << Q_TAIL_IDX_SHIFT;
	node += idx;	/* idx < Q_MAX_NODES: these locks never nest */
	node->locked = 0;
	node->next = NULL;
	/* queued_spin_trylock: the lock may have come free meanwhile */
	old = 0;
	if (!arch_load32(l) && arch_try_cmpxchg32(l, &old, Q_LOCKED))
		goto release;
	arch_smp_wmb();		/* node initialised before it is published */
	old = (uint32_t)arch_xchg16(b + 2, (uint16_t)(tail >> 16)) << 16;	/* xchg_tail */
	next = NULL;
	if (old & Q_TAIL_MASK) {
		prev = lk_decode_tail(old);
		arch_store(&prev->next, (uint64_t)(uintptr_t)node);
		while (!arch_load32(&node->locked))	/* arch_mcs_spin_lock_contended */
			arch_cpu_relax();
		next = (struct lk_mcs *)(uintptr_t)arch_load(&node->next);
	}
	/* head of the queue: wait for the owner and any pending to go */
	while ((val = arch_load32(l)) & Q_LOCKED_PENDING_MASK)
		arch_cpu_relax();
	/* (n,0,0) -> (0,0,1) when we are the last in the queue */
	if ((val & Q_TAIL_MASK) == tail && arch_try_cmpxchg32(l, &val, Q_LOCKED))
		goto release;
	arch_store8(b, Q_LOCKED);	/* set_locked: (*,0,0) -> (*,0,1) */
	if (!next)
		while (!(next = (struct lk_mcs *)(uintptr_t)arch_load(&node->next)))
			arch_cpu_relax();
	arch_store32(&next->locked, 1);	/* arch_mcs_spin_unlock_contended */
release:
	lk_qnodes[cpu][0].count--;
}

/* ---- the kernel's queued spinlock ---------------------------------------- */

/* arch_spin_lock = queued_spin_lock: try_cmpxchg_acquire(&val, 0, 1), else
 * the slow path with the value seen. */
static inline void lk_raw_lock(volatile void *l)
{
	uint32_t val = 0;

	if (__builtin_expect(!arch_try_cmpxchg32(l, &val, Q_LOCKED), 0))
		lk_qspin_lock_slow(l, val);
}

/* _raw_spin_lock: preempt_disable(); arch_spin_lock. */
static __attribute__((noinline)) void lk_spin_lock(volatile void *l)
{
	lk_preempt_disable();
	lk_raw_lock(l);
}

/* The word-release variants' lock: the same fast path with a read-spin slow
 * path (the kernel's virt_spin_lock TAS fallback), since a release of the
 * whole word would wipe the pending bit and the queue's tail. */
static __attribute__((noinline)) void lk_spin_lock_rs(volatile void *l)
{
	lk_preempt_disable();
	while (__builtin_expect(!arch_lock_cmpxchg32(l, 0, 1), 0))
		while (arch_load32(l))
			arch_cpu_relax();
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

/* ---- MCS lock (kernel/locking/mcs_spinlock.h) ----------------------------
 * The lock word is a pointer to the last waiter's node; each waiter spins on
 * its own node. One node per thread (these locks never nest). */
static __thread struct lk_mcs lk_mcs_self __attribute__((aligned(64), tls_model("local-exec")));

/* mcs_spin_lock */
static __attribute__((noinline)) void lk_mcs_lock(volatile void *l)
{
	struct lk_mcs *me = &lk_mcs_self, *prev;

	lk_preempt_disable();
	me->locked = 0;
	me->next = NULL;
	prev = (struct lk_mcs *)(uintptr_t)arch_xchg(l, (uint64_t)(uintptr_t)me);
	if (__builtin_expect(!prev, 1))
		return;
	arch_store(&prev->next, (uint64_t)(uintptr_t)me);
	while (!arch_load32(&me->locked))	/* arch_mcs_spin_lock_contended */
		arch_cpu_relax();
}

/* mcs_spin_unlock */
static __attribute__((noinline)) void lk_mcs_unlock(volatile void *l)
{
	struct lk_mcs *me = &lk_mcs_self;
	struct lk_mcs *next = (struct lk_mcs *)(uintptr_t)arch_load(&me->next);

	if (!next) {
		if (arch_cmpxchg(l, (uint64_t)(uintptr_t)me, 0) == (uint64_t)(uintptr_t)me)
			goto out;
		while (!(next = (struct lk_mcs *)(uintptr_t)arch_load(&me->next)))
			arch_cpu_relax();
	}
	arch_store32(&next->locked, 1);		/* arch_mcs_spin_unlock_contended */
out:
	lk_preempt_enable();
}

/* ---- CLH lock (Craig 1993; Magnusson, Landin and Hagersten 1994) ----------
 * No kernel lock is CLH; lockhammer has one. The lock word points at the
 * last waiter's node; a waiter spins on its predecessor's node, and on
 * release takes that node as its next one (the nodes circulate between
 * threads, so they come from a static pool, never from a thread's stack
 * or TLS). A NULL word is a free lock that no one has queued on yet: its
 * first holder takes its node back if no one queued behind it, else
 * leaves it to its successor and takes a fresh node from the pool. */
struct lk_clh {
	volatile uint32_t locked;
} __attribute__((aligned(64)));
#define LK_CLH_POOL 4096
static struct lk_clh lk_clh_pool[LK_CLH_POOL];
static unsigned lk_clh_used;		/* pool entries handed out */
static struct lk_clh *lk_clh_free[LK_CLH_POOL];	/* given back by exiting threads */
static unsigned lk_clh_nfree;
static pthread_mutex_t lk_clh_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t lk_clh_key;
static pthread_once_t lk_clh_once = PTHREAD_ONCE_INIT;
static __thread struct lk_clh *lk_clh_my __attribute__((tls_model("local-exec")));
static __thread struct lk_clh *lk_clh_pred __attribute__((tls_model("local-exec")));

/* A thread exits: the node it owns goes back to the pool. */
static void lk_clh_put(void *node)
{
	pthread_mutex_lock(&lk_clh_mutex);
	if (lk_clh_nfree < LK_CLH_POOL)	/* else one of malloc's, kept for good */
		lk_clh_free[lk_clh_nfree++] = node;
	pthread_mutex_unlock(&lk_clh_mutex);
}

static void lk_clh_key_make(void)
{
	pthread_key_create(&lk_clh_key, lk_clh_put);
}

/* A node for this thread (its first, or a fresh one after handing its
 * own to a successor): outside the steady state. Every lock that was ever
 * taken keeps one node in its word, so a process that makes more than
 * LK_CLH_POOL locks and queues on them gets the rest from malloc, never
 * freed (the lock words hold them). */
static __attribute__((noinline)) struct lk_clh *lk_clh_get(void)
{
	struct lk_clh *n = NULL;

	pthread_once(&lk_clh_once, lk_clh_key_make);
	pthread_mutex_lock(&lk_clh_mutex);
	if (lk_clh_nfree)
		n = lk_clh_free[--lk_clh_nfree];
	else if (lk_clh_used < LK_CLH_POOL)
		n = &lk_clh_pool[lk_clh_used++];
	pthread_mutex_unlock(&lk_clh_mutex);
	if (!n)
		n = aligned_alloc(64, sizeof(*n));
	lk_clh_my = n;
	pthread_setspecific(lk_clh_key, n);
	return n;
}

static void lk_clh_lock_first(volatile void *l);

static __attribute__((noinline)) void lk_clh_lock(volatile void *l)
{
	struct lk_clh *me = lk_clh_my, *pred;

	if (__builtin_expect(!me, 0)) {	/* a thread's first CLH lock */
		lk_clh_lock_first(l);
		return;
	}
	lk_preempt_disable();
	arch_store32(&me->locked, 1);
	pred = (struct lk_clh *)(uintptr_t)arch_xchg(l, (uint64_t)(uintptr_t)me);
	if (pred)
		while (arch_load32(&pred->locked))
			arch_cpu_relax();
	lk_clh_pred = pred;
}

/* Out of line, so that the lock keeps its word in %rdi (no call before
 * its xchg). */
static __attribute__((noinline, cold)) void lk_clh_lock_first(volatile void *l)
{
	lk_clh_get();
	lk_clh_lock(l);
}

static __attribute__((noinline)) void lk_clh_unlock(volatile void *l)
{
	struct lk_clh *me = lk_clh_my, *pred = lk_clh_pred;

	if (__builtin_expect(!pred, 0)) {
		/* the lock's first holder: nobody behind, the word is free again */
		if (arch_cmpxchg(l, (uint64_t)(uintptr_t)me, 0) == (uint64_t)(uintptr_t)me)
			goto out;
		arch_store32(&me->locked, 0);
		lk_clh_get();
		goto out;
	}
	arch_store32(&me->locked, 0);	/* the successor spins on it */
	lk_clh_my = pred;		/* nobody spins on the predecessor's any more */
	pthread_setspecific(lk_clh_key, pred);
out:
	lk_preempt_enable();
}

/* ---- osq_lock (kernel/locking/osq_lock.c) -------------------------------
 * The optimistic spin queue that mutex and rwsem spinners queue on before
 * they spin on the owner. The lock is a 32-bit tail: 0 free, else the
 * encoded CPU (number + 1) of the last queued node; the nodes are per
 * "CPU" (the thread numbers that qspinlock's tail uses, lk_cpu()), each on
 * its own line as DEFINE_PER_CPU_SHARED_ALIGNED gives them. A waiter links
 * into its predecessor's node and spins on its own; when it must stop
 * spinning it unqueues (steps A-C below, as the kernel's). What differs:
 * - need_resched() has no meaning in user space: a waiter that has polled
 *   its node lk_osq_budget times (LK_OSQ_SPIN_BUDGET, a tenth of a
 *   millisecond or more: far beyond a hand-over, reached when the holder
 *   or a predecessor is descheduled) behaves as if a reschedule were due.
 *   vcpu_is_preempted() cannot be known here: never true.
 * - On false the kernel's caller (mutex_optimistic_spin) goes to sleep on
 *   the mutex's wait list; here the lock op yields (sched_yield, the
 *   stand-in for schedule()) and queues again, so the probe's lock always
 *   returns held and the pair is a lock of its own, which osq is not in
 *   the kernel (it only orders the spinners of a sleeping lock). */
#define LK_OSQ_SPIN_BUDGET (1u << 14)
struct lk_osq {
	struct lk_osq *volatile next, *volatile prev;
	volatile uint32_t locked;
	uint32_t cpu;		/* encoded: number + 1 */
} __attribute__((aligned(64)));
static struct lk_osq lk_osq_nodes[LK_NCPU];
static unsigned lk_osq_budget = LK_OSQ_SPIN_BUDGET;
static uint64_t lk_osq_unqueued;	/* times a waiter gave up (atomic) */

/* osq_wait_next: get a stable @node->next, or move the tail back to
 * old_cpu if node is the last one queued (NULL). */
static struct lk_osq *lk_osq_wait_next(volatile void *l, struct lk_osq *node, uint32_t old_cpu)
{
	struct lk_osq *next;

	for (;;) {
		uint32_t curr = node->cpu;

		if (arch_load32(l) == curr && arch_try_cmpxchg32(l, &curr, old_cpu))
			return NULL;	/* the last queued: the tail is @prev's again */
		/* xchg, not a read: an unqueue of next may be in flight */
		if (arch_load(&node->next)) {
			next = (struct lk_osq *)(uintptr_t)arch_xchg(&node->next, 0);
			if (next)
				return next;
		}
		arch_cpu_relax();
	}
}

/* The unqueue path of osq_lock: true if the lock came to us meanwhile. */
static __attribute__((noinline, cold)) bool lk_osq_unqueue(volatile void *l, struct lk_osq *node,
							   struct lk_osq *prev)
{
	struct lk_osq *next;

	__atomic_fetch_add(&lk_osq_unqueued, 1, __ATOMIC_RELAXED);
	/* Step A: stabilize @prev (unlink from it, or see the lock come) */
	for (;;) {
		if ((struct lk_osq *)(uintptr_t)arch_load(&prev->next) == node &&
		    arch_cmpxchg(&prev->next, (uint64_t)(uintptr_t)node, 0) == (uint64_t)(uintptr_t)node)
			break;
		if (arch_load32(&node->locked))	/* smp_load_acquire: a plain load on x86 */
			return true;
		arch_cpu_relax();
		/* a concurrent unqueue's step C gives us a new prev */
		prev = (struct lk_osq *)(uintptr_t)arch_load(&node->prev);
	}
	/* Step B: stabilize @next (or move the tail back to prev) */
	next = lk_osq_wait_next(l, node, prev->cpu);
	if (!next)
		return false;
	/* Step C: unlink */
	arch_store(&next->prev, (uint64_t)(uintptr_t)prev);
	arch_store(&prev->next, (uint64_t)(uintptr_t)next);
	return false;
}

/* osq_lock past its xchg: old the tail it saw (another CPU's). */
static __attribute__((noinline)) bool lk_osq_lock_slow(volatile void *l, struct lk_osq *node,
						      uint32_t old)
{
	struct lk_osq *prev = &lk_osq_nodes[old - 1];	/* decode_cpu */
	unsigned spins = lk_osq_budget;

	node->prev = prev;
	arch_smp_wmb();
	arch_store(&prev->next, (uint64_t)(uintptr_t)node);
	while (!arch_load32(&node->locked)) {
		if (!spins--)		/* the stand-in for need_resched() */
			return lk_osq_unqueue(l, node, prev);
		arch_cpu_relax();
	}
	return true;
}

static void lk_osq_lock_first(volatile void *l);

/* osq_lock, then as the caller that did not get it: yield and queue again */
static __attribute__((noinline)) void lk_osq_lock(volatile void *l)
{
	struct lk_osq *node;
	uint32_t curr, old;

	if (__builtin_expect(lk_cpu_self < 0, 0)) {	/* a thread's first */
		lk_osq_lock_first(l);
		return;
	}
	lk_preempt_disable();
	curr = (uint32_t)lk_cpu_self + 1;		/* encode_cpu */
	node = &lk_osq_nodes[lk_cpu_self];
	for (;;) {
		node->locked = 0;
		node->next = NULL;
		node->cpu = curr;
		old = arch_xchg32(l, curr);
		if (__builtin_expect(!old, 1) || lk_osq_lock_slow(l, node, old))
			return;
		sched_yield();
	}
}

/* Out of line, so that the lock keeps its word in %rdi (no call before
 * its xchg). */
static __attribute__((noinline, cold)) void lk_osq_lock_first(volatile void *l)
{
	lk_cpu_claim();
	lk_osq_lock(l);
}

/* osq_unlock past its fast path: hand the lock to the next node. */
static __attribute__((noinline)) void lk_osq_unlock_slow(volatile void *l, struct lk_osq *node)
{
	struct lk_osq *next = (struct lk_osq *)(uintptr_t)arch_xchg(&node->next, 0);

	if (!next)
		next = lk_osq_wait_next(l, node, 0);
	if (next)
		arch_store32(&next->locked, 1);
}

/* osq_unlock: try_cmpxchg_release(tail, curr, 0) when nobody queued */
static __attribute__((noinline)) void lk_osq_unlock(volatile void *l)
{
	uint32_t curr = (uint32_t)lk_cpu_self + 1;

	if (__builtin_expect(!arch_try_cmpxchg32(l, &curr, 0), 0))
		lk_osq_unlock_slow(l, &lk_osq_nodes[lk_cpu_self]);
	lk_preempt_enable();
}

/* ---- test-and-set and ticket with backoff ------------------------------
 * TAS with exponential backoff: after the n-th failed exchange in a row,
 * wait min(LK_TAS_BACKOFF_MIN << n, LK_TAS_BACKOFF_MAX) pauses (Anderson
 * 1990). Zen 3/4 `pause` takes tens of cycles, so the cap is a few
 * thousand cycles: about the hand-over of a contended line a few times. */
#define LK_TAS_BACKOFF_MIN 1
#define LK_TAS_BACKOFF_MAX 64
static inline void lk_pause_n(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		arch_cpu_relax();
}

static __attribute__((noinline)) void lk_tas_backoff_lock(volatile void *l)
{
	unsigned d = LK_TAS_BACKOFF_MIN;

	lk_preempt_disable();
	while (arch_xchg32(l, 1)) {
		lk_pause_n(d);
		if (d < LK_TAS_BACKOFF_MAX)
			d <<= 1;
	}
}

/* Ticket with proportional backoff (Mellor-Crummey and Scott 1991): a
 * waiter k places from the head waits k * LK_TICKET_BACKOFF pauses between
 * reads of the head, so the line is read about once per hand-over. */
#define LK_TICKET_BACKOFF 8
static __attribute__((noinline)) void lk_ticket_backoff_lock(volatile void *l)
{
	uint32_t old;
	uint16_t me, head;

	lk_preempt_disable();
	old = arch_ticket_take(l);
	me = (uint16_t)(old >> 16);
	head = (uint16_t)old;
	while (head != me) {
		lk_pause_n((uint16_t)(me - head) * LK_TICKET_BACKOFF);
		head = arch_ticket_head(l);
	}
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
	lk_raw_lock(l);
}

static inline void lk_raw_unlock_inline(volatile void *l)
{
	arch_release8(l);
}

/* ---- qrwlock (kernel/locking/qrwlock.c, include/asm-generic/qrwlock.h) ----
 * cnts: the writer's locked byte (bits 0-7), a waiting writer (bit 8),
 * readers counted from bit 9; then wait_lock, a queued spinlock that
 * orders the slow paths of readers and writers. */
#define QW_LOCKED 0xffu
#define QW_WAITING 0x100u
#define QW_WMASK 0x1ffu
#define QR_BIAS 0x200u

/* queued_read_lock_slowpath (process context) */
static __attribute__((noinline)) void lk_qread_lock_slow(volatile void *l)
{
	volatile char *wait_lock = (volatile char *)l + 4;

	arch_xadd32(l, (uint32_t)-QR_BIAS);	/* atomic_sub: give the count back */
	lk_raw_lock(wait_lock);
	arch_xadd32(l, QR_BIAS);
	while (arch_load32(l) & QW_LOCKED)	/* atomic_cond_read_acquire */
		arch_cpu_relax();
	arch_release8(wait_lock);		/* arch_spin_unlock */
}

/* queued_read_lock: atomic_add_return_acquire(_QR_BIAS) (`lock xaddl`) */
static __attribute__((noinline)) void lk_qread_lock(volatile void *l)
{
	lk_preempt_disable();
	if (__builtin_expect(arch_xadd32(l, QR_BIAS) & QW_WMASK, 0))
		lk_qread_lock_slow(l);
}

/* queued_read_unlock: atomic_sub_return_release(_QR_BIAS) (`lock xaddl`) */
static __attribute__((noinline)) void lk_qread_unlock(volatile void *l)
{
	arch_xadd32(l, (uint32_t)-QR_BIAS);
	lk_preempt_enable();
}

/* queued_write_lock_slowpath */
static __attribute__((noinline)) void lk_qwrite_lock_slow(volatile void *l)
{
	volatile char *wait_lock = (volatile char *)l + 4;
	uint32_t cnts;

	lk_raw_lock(wait_lock);
	cnts = 0;
	if (!arch_load32(l) && arch_try_cmpxchg32(l, &cnts, QW_LOCKED))
		goto unlock;
	arch_or32(l, QW_WAITING);		/* readers now take the slow path */
	do {
		while ((cnts = arch_load32(l)) != QW_WAITING)
			arch_cpu_relax();
	} while (!arch_try_cmpxchg32(l, &cnts, QW_LOCKED));
unlock:
	arch_release8(wait_lock);
}

/* queued_write_lock: atomic_try_cmpxchg_acquire(&cnts, 0, _QW_LOCKED) */
static __attribute__((noinline)) void lk_qwrite_lock(volatile void *l)
{
	uint32_t cnts = 0;

	lk_preempt_disable();
	if (__builtin_expect(!arch_try_cmpxchg32(l, &cnts, QW_LOCKED), 0))
		lk_qwrite_lock_slow(l);
}

/* queued_write_unlock: smp_store_release(&lock->wlocked, 0) (`movb $0`) */
static __attribute__((noinline)) void lk_qwrite_unlock(volatile void *l)
{
	arch_release8(l);
	lk_preempt_enable();
}

/* ---- seqcount (include/linux/seqlock.h) ----------------------------------
 * The sequence word at +0, the data it guards at +8 and +16. A reader
 * waits out an odd (write in progress) sequence, reads, and retries when
 * the sequence moved; on x86 its smp_rmb() is a compiler barrier, so a
 * read section costs two loads of the sequence and no atomic at all. A
 * writer (write_seqlock: serialised by the seqlock's spinlock at +24) makes
 * the sequence odd, writes, and makes it even (smp_wmb: a compiler barrier). */
#define LK_SEQ_DATA 8
#define LK_SEQ_LOCK 24

/* __read_seqcount_begin: wait out an odd sequence; then smp_rmb. */
static inline uint32_t lk_seq_begin(volatile void *l)
{
	uint32_t seq;

	while ((seq = arch_load32(l)) & 1)
		arch_cpu_relax();
	arch_smp_rmb_now();
	return seq;
}

/* The section's reads: both data words, summed to keep the loads live. */
static inline uint64_t lk_seq_data(volatile void *l)
{
	return arch_load((volatile char *)l + LK_SEQ_DATA) +
	       arch_load((volatile char *)l + LK_SEQ_DATA + 8);
}

/* read_seqcount_retry: smp_rmb; did the sequence move? */
static inline bool lk_seq_retry(volatile void *l, uint32_t seq)
{
	arch_smp_rmb_now();
	return __builtin_expect(arch_load32(l) != seq, 0);
}

/* write_seqlock / write_sequnlock around writes of both data words (the
 * same value: a reader that sees them differ has read a torn section). */
static inline void lk_seq_write_begin(volatile void *l)
{
	volatile char *s = l;

	lk_spin_lock(s + LK_SEQ_LOCK);
	arch_store32(s, arch_load32(s) + 1);	/* do_write_seqcount_begin */
	arch_smp_wmb();
	arch_store(s + LK_SEQ_DATA, arch_load(s + LK_SEQ_DATA) + 1);
	arch_store(s + LK_SEQ_DATA + 8, arch_load(s + LK_SEQ_DATA + 8) + 1);
}

static inline void lk_seq_write_end(volatile void *l)
{
	volatile char *s = l;

	arch_smp_wmb();
	arch_store32(s, arch_load32(s) + 1);	/* do_write_seqcount_end */
	lk_spin_unlock(s + LK_SEQ_LOCK);
}

/* ---- an RCU-style read side (include/linux/rcupdate.h) ----------------------
 * rcu_read_lock (without PREEMPT_RCU: preempt_disable), rcu_dereference
 * (READ_ONCE of the protected pointer), rcu_read_unlock: a reader that
 * takes nothing, where read_lock takes a reader count on a shared line.
 * The pointer points at its own line (the setup), so each section's
 * dereference reads the pointer the previous one returned: a register
 * chain, and every thread reads the one line, shared, never written. */
static inline char *lk_rcu_read(char *p, uint64_t cs)
{
	char *q;

	lk_preempt_disable();
	q = (char *)(uintptr_t)arch_load(p);
	lk_work(cs);
	lk_preempt_enable();
	return q;
}

/* ---- reference counts ------------------------------------------------------
 * One op is a get and a put on a count that stays above zero (the setup
 * starts it at 1), as an object's users take and drop references while
 * its owner holds one. */

/* A released object: dec-and-test said zero (never in the timed loops). */
static uint64_t lk_ref_released;
static __attribute__((noinline, cold)) void lk_ref_release(volatile void *r)
{
	__atomic_fetch_add(&lk_ref_released, 1, __ATOMIC_RELAXED);
}

/* refcount_warn_saturate (lib/refcount.c): the count is pinned at
 * REFCOUNT_SATURATED, half-way into the negative range, so neither more
 * increments nor decrements bring it back to zero: a leak instead of a
 * use-after-free. The kernel WARNs once; here a counter the test reads. */
#define LK_REFCOUNT_SATURATED 0xc0000000u	/* INT_MIN / 2 */
static uint64_t lk_ref_warnings;
static __attribute__((noinline, cold)) void lk_refcount_saturate(volatile void *r)
{
	arch_store32(r, LK_REFCOUNT_SATURATED);
	__atomic_fetch_add(&lk_ref_warnings, 1, __ATOMIC_RELAXED);
}

/* refcount_inc (include/linux/refcount.h __refcount_add): one `lock xaddl`,
 * then the checks on the old value: 0 is an increment from zero (a
 * use-after-free), a negative old or new value an overflow. */
static inline void lk_refcount_inc(volatile void *r)
{
	int32_t old = (int32_t)arch_xadd32(r, 1);

	if (__builtin_expect(!old, 0))
		lk_refcount_saturate(r);
	else if (__builtin_expect(old < 0 || (int32_t)((uint32_t)old + 1) < 0, 0))
		lk_refcount_saturate(r);
}

/* refcount_dec_and_test (__refcount_sub_and_test): `lock xaddl` of -1; an
 * old value of 1 reaches zero (then smp_acquire__after_ctrl_dep, nothing on
 * x86); an old value <= 0 is an underflow and saturates. */
static inline bool lk_refcount_dec_and_test(volatile void *r)
{
	int32_t old = (int32_t)arch_xadd32(r, (uint32_t)-1);

	if (old == 1) {
		arch_barrier();
		return true;
	}
	if (__builtin_expect(old <= 0, 0))
		lk_refcount_saturate(r);
	return false;
}

static inline void lk_refcount_get(volatile void *r) { lk_refcount_inc(r); }
static inline void lk_refcount_put(volatile void *r)
{
	if (lk_refcount_dec_and_test(r))
		lk_ref_release(r);
}

/* The unchecked atomic_t: atomic_inc (`lock incl`) and atomic_dec_and_test
 * (`lock decl; sete`), what refcount_t replaced (and kref before 4.11). */
static inline void lk_atomic_ref_get(volatile void *r) { arch_inc32(r); }
static inline void lk_atomic_ref_put(volatile void *r)
{
	if (arch_dec_and_test32(r))
		lk_ref_release(r);
}

/* ---- lockref (lib/lockref.c, include/linux/lockref.h) ---------------------
 * A spinlock (the low 32 bits) and a count (the high 32) in one 64-bit
 * word: while the lock is free, a 64-bit cmpxchg changes the count without
 * taking it (CMPXCHG_LOOP, up to 100 tries); otherwise the count is changed
 * under the lock. The dcache's d_lockref. */
#define LK_LOCKREF_RETRY 100
#define LK_LOCKREF_ONE (1ull << 32)

/* The count changed under the spinlock: lockref's fallback, and the
 * counterpart lockref replaced (out of line like lockref's functions). */
static __attribute__((noinline)) void lk_locked_ref_get(volatile void *l)
{
	lk_spin_lock(l);
	arch_store32((volatile char *)l + 4, arch_load32((volatile char *)l + 4) + 1);
	lk_spin_unlock(l);
}

static __attribute__((noinline)) void lk_locked_ref_put(volatile void *l)
{
	lk_spin_lock(l);
	arch_store32((volatile char *)l + 4, arch_load32((volatile char *)l + 4) - 1);
	lk_spin_unlock(l);
}

/* lockref_get (out of line, as lib/lockref.c exports it) */
static __attribute__((noinline)) void lk_lockref_get(volatile void *l)
{
	uint64_t old = arch_load(l);
	int retry = LK_LOCKREF_RETRY;

	while (__builtin_expect(!(uint32_t)old, 1)) {	/* arch_spin_value_unlocked */
		if (__builtin_expect(arch_try_cmpxchg(l, &old, old + LK_LOCKREF_ONE), 1))
			return;
		if (!--retry)
			break;
	}
	lk_locked_ref_get(l);
}

/* lockref_put_return, and the locked decrement its callers (fast_dput) fall
 * back to when it returns -1. */
static __attribute__((noinline)) void lk_lockref_put(volatile void *l)
{
	uint64_t old = arch_load(l);
	int retry = LK_LOCKREF_RETRY;

	while (__builtin_expect(!(uint32_t)old, 1)) {
		if (__builtin_expect((int32_t)(old >> 32) <= 0, 0))
			break;
		if (__builtin_expect(arch_try_cmpxchg(l, &old, old - LK_LOCKREF_ONE), 1))
			return;
		if (!--retry)
			break;
	}
	lk_locked_ref_put(l);
}

/* ---- percpu_ref in per-CPU mode (include/linux/percpu-refcount.h) ---------
 * percpu_ref_get: rcu_read_lock (a preempt count here); read
 * percpu_count_ptr and, with no __PERCPU_REF_ATOMIC_DEAD bit, this_cpu_inc
 * through it (`incq %gs:(%reg)`); rcu_read_unlock. Put: the same with
 * this_cpu_dec. The per-CPU counters are thread-local here (the same
 * offset in every thread, %fs for %gs); the word at the ref holds the
 * offset, or the ATOMIC bit once the ref is switched to atomic mode. */
#define LK_PCPU_ATOMIC 1ull	/* __PERCPU_REF_ATOMIC */
#define LK_PCPU_DEAD 2ull	/* __PERCPU_REF_DEAD */
static __thread int64_t lk_pcpu_count __attribute__((aligned(64), tls_model("local-exec")));

/* Atomic mode: the count in the ref's second word (ref->data->count),
 * atomic_long_add / atomic_long_sub_and_test and the release at zero. */
static __attribute__((noinline, cold)) void lk_pcpu_ref_atomic(volatile void *r, int64_t d)
{
	if (arch_xadd((volatile char *)r + 8, (uint64_t)d) == (uint64_t)-d && d < 0)
		lk_ref_release(r);
}

static inline void lk_pcpu_ref_get(volatile void *r)
{
	uint64_t ptr;

	lk_preempt_disable();
	ptr = arch_load(r);
	if (__builtin_expect(!(ptr & (LK_PCPU_ATOMIC | LK_PCPU_DEAD)), 1))
		arch_percpu_inc_at((uintptr_t)ptr);
	else
		lk_pcpu_ref_atomic(r, 1);
	lk_preempt_enable();
}

static inline void lk_pcpu_ref_put(volatile void *r)
{
	uint64_t ptr;

	lk_preempt_disable();
	ptr = arch_load(r);
	if (__builtin_expect(!(ptr & (LK_PCPU_ATOMIC | LK_PCPU_DEAD)), 1))
		arch_percpu_dec_at((uintptr_t)ptr);
	else
		lk_pcpu_ref_atomic(r, -1);
	lk_preempt_enable();
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
	X(spin_lock_movl_unlock, lk_spin_lock_rs, lk_spin_unlock_movl, 0xff)	\
	X(spin_lock_xchgl_unlock, lk_spin_lock_rs, lk_spin_unlock_xchgl, 0xff)	\
	X(tas_lock, lk_tas_lock, lk_spin_unlock_movl, ~0u) /* the whole 32-bit word */ \
	X(tatas_lock, lk_tatas_lock, lk_spin_unlock_movl, ~0u)			\
	X(tas_backoff_lock, lk_tas_backoff_lock, lk_spin_unlock_movl, ~0u)	\
	X(write_lock, lk_qwrite_lock, lk_qwrite_unlock, QW_LOCKED)		\
	X(raw_spin_lock_inline, lk_raw_lock_inline, lk_raw_unlock_inline, 0xff)	\
	X(bit_spin_lock, lk_bit_spin_lock, lk_bit_spin_unlock, 1)		\
	X(__bit_spin_unlock, lk_bit_spin_lock, lk___bit_spin_unlock, 1)
#define LK_WORD_KERNEL(id, lockf, unlockf, held) LK_KERNEL(id, lockf, unlockf)
LK_WORD_LOCKS(LK_WORD_KERNEL)
LK_KERNEL(ticket_lock, lk_ticket_lock, lk_ticket_unlock)
LK_KERNEL(ticket_backoff_lock, lk_ticket_backoff_lock, lk_ticket_unlock)
LK_KERNEL(mcs_spin_lock, lk_mcs_lock, lk_mcs_unlock)
LK_KERNEL(clh_lock, lk_clh_lock, lk_clh_unlock)
LK_KERNEL(osq_lock, lk_osq_lock, lk_osq_unlock)
LK_KERNEL(read_lock, lk_qread_lock, lk_qread_unlock)
/* write_seqlock + write_sequnlock: out of line, as the spinlock they take */
static __attribute__((noinline)) void lk_seq_wlock(volatile void *l) { lk_seq_write_begin(l); }
static __attribute__((noinline)) void lk_seq_wunlock(volatile void *l) { lk_seq_write_end(l); }
LK_KERNEL(write_seqlock, lk_seq_wlock, lk_seq_wunlock)
/* A read section has no chain (it writes nothing the next one reads):
 * throughput only. --cs-work runs inside the section. */
#define OP_SEQR(i) { uint32_t s_; uint64_t v_;					\
		     do { s_ = lk_seq_begin(p); lk_work(cs_); v_ = lk_seq_data(p); }	\
		     while (lk_seq_retry(p, s_));					\
		     PROBE_SINK(v_); lk_work(out_); }
PROBE_KERNEL(k_read_seqcount_tput, LK_DECL, OP_SEQR, )
#define OP_RCU(i) { p = lk_rcu_read(p, cs_); lk_work(out_); }
PROBE_KERNEL(k_rcu_read_lock_lat, LK_DECL, OP_RCU, PROBE_SINK(p))
/* Reference counts: a get, --cs-work, a put, --outside-work. */
LK_KERNEL(refcount_get_put, lk_refcount_get, lk_refcount_put)
LK_KERNEL(atomic_get_put, lk_atomic_ref_get, lk_atomic_ref_put)
LK_KERNEL(lockref_get_put, lk_lockref_get, lk_lockref_put)
LK_KERNEL(locked_get_put, lk_locked_ref_get, lk_locked_ref_put)
LK_KERNEL(percpu_ref_get_put, lk_pcpu_ref_get, lk_pcpu_ref_put)
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
	LK_OPS(ticket_backoff_lock, true),
	LK_OPS(mcs_spin_lock, true),
	LK_OPS(clh_lock, true),
	LK_OPS(osq_lock, true),
	LK_OPS(write_seqlock, true),
	LK_OPS(read_lock, false),	/* readers share it */
	LK_OPS(refcount_get_put, false),
	LK_OPS(atomic_get_put, false),
	LK_OPS(lockref_get_put, false),
	LK_OPS(locked_get_put, false),
	LK_OPS(percpu_ref_get_put, false),
	{ "read_seqcount", NULL, NULL, false },
	{ "rcu_read_lock", NULL, NULL, false },
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

enum lk_run_kind {
	LK_RUN_EXCL,	/* every thread: lock, non-atomic increment, unlock */
	LK_RUN_REF,	/* every thread: iters gets, then iters puts */
	LK_RUN_RW,	/* thread 0 writes pairs of words, the others read them */
	LK_RUN_HANDOVER,	/* LK_RUN_EXCL counting holders and waiters */
};

struct lk_arena {
	/* the lock and the counter it protects, on one line as in most kernel
	 * structures; big enough for a pthread_mutex_t and a seqlock */
	union {
		pthread_mutex_t m;
		uint64_t w[8];
	} lock __attribute__((aligned(64)));
	volatile uint64_t counter, counter2;
	const struct lk_ops *ops;
	enum lk_run_kind kind;
	uint64_t iters;
	unsigned nthreads;
	unsigned arrived;
	volatile int writer_done;
	uint64_t torn, reads;	/* LK_RUN_RW, summed over the readers */
	/* LK_RUN_EXCL: the thread (1-based) that took the lock last, and how
	 * often it passed to another thread (both written under the lock) */
	unsigned last;
	uint64_t handovers;
	/* LK_RUN_HANDOVER: acquisitions and the waiters each saw (under the
	 * lock), the stop flag, the deadline (ns, 0: none), the CPUs */
	uint64_t acquisitions, depth_sum, deadline;
	int stop;
	const int *cpus;
	/* threads between their announcement and their acquisition: on a
	 * line of its own, away from the lock's */
	unsigned waiting __attribute__((aligned(64)));
};

/* A non-atomic increment: load, add, store. */
static inline void lk_bump(volatile uint64_t *c)
{
	uint64_t v = *c;

	asm volatile("" : "+r"(v));
	*c = v + 1;
}

/* One read of the pair the writer moves together: under read_lock for the
 * qrwlock, as a seqcount read section for the seqlock. True if torn. */
static bool lk_read_pair(struct lk_arena *a)
{
	uint64_t v1, v2;

	if (a->ops->lock == lklock_write_lock) {
		lklock_read_lock(&a->lock);
		v1 = a->counter;
		v2 = a->counter2;
		lkunlock_read_lock(&a->lock);
	} else {
		uint32_t seq;

		do {
			seq = lk_seq_begin(a->lock.w);
			v1 = arch_load(&a->lock.w[1]);
			v2 = arch_load(&a->lock.w[2]);
		} while (lk_seq_retry(a->lock.w, seq));
	}
	return v1 != v2;
}

/* Pin the calling thread to the me-th CPU of the process's allowed set
 * (round robin), so two threads run on two CPUs and overlap whenever both
 * are scheduled; best effort (unpinned if the set cannot be read). */
static void lk_pin(unsigned me, const int *cpus)
{
	cpu_set_t allowed, one;
	unsigned n = 0;
	int k;

	if (cpus) {
		k = cpus[me];
		goto pin;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) || !CPU_COUNT(&allowed))
		return;
	me %= (unsigned)CPU_COUNT(&allowed);
	for (k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &allowed) && n++ == me)
			break;
pin:
	CPU_ZERO(&one);
	CPU_SET(k, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

/* LK_RUN_HANDOVER: announce, lock, count the others still announced,
 * note the holder before us, unlock; stop all at the first to finish. */
static void lk_handover_loop(struct lk_arena *a, unsigned me)
{
	for (uint64_t i = 0; i < a->iters && !__atomic_load_n(&a->stop, __ATOMIC_RELAXED); i++) {
		if (!(i & 255) && a->deadline && now_ns() > a->deadline)
			break;
		__atomic_fetch_add(&a->waiting, 1, __ATOMIC_RELAXED);
		a->ops->lock(&a->lock);
		a->depth_sum += __atomic_sub_fetch(&a->waiting, 1, __ATOMIC_RELAXED);
		a->acquisitions++;
		if (a->last != me + 1) {
			a->last = me + 1;
			a->handovers++;
		}
		lk_bump(&a->counter);
		a->ops->unlock(&a->lock);
	}
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELAXED);
}

static void *lk_worker(void *arg)
{
	struct lk_arena *a = arg;
	unsigned me = __atomic_fetch_add(&a->arrived, 1, __ATOMIC_ACQ_REL);

	lk_pin(me, a->cpus);

	/* start together: every thread waits for the last to arrive */
	while (__atomic_load_n(&a->arrived, __ATOMIC_ACQUIRE) < __atomic_load_n(&a->nthreads, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	switch (a->kind) {
	case LK_RUN_EXCL:
		for (uint64_t i = 0; i < a->iters; i++) {
			if (a->ops)
				a->ops->lock(&a->lock);
			lk_bump(&a->counter);
			if (a->last != me + 1) {
				a->last = me + 1;
				a->handovers++;
			}
			if (a->ops)
				a->ops->unlock(&a->lock);
		}
		break;
	case LK_RUN_HANDOVER:
		lk_handover_loop(a, me);
		break;
	case LK_RUN_REF:
		for (uint64_t i = 0; i < a->iters; i++)
			a->ops->lock(&a->lock);
		for (uint64_t i = 0; i < a->iters; i++)
			a->ops->unlock(&a->lock);
		break;
	case LK_RUN_RW:
		if (me == 0) {
			for (uint64_t i = 0; i < a->iters; i++) {
				a->ops->lock(&a->lock);
				lk_bump(&a->counter);
				lk_bump(&a->counter2);
				a->ops->unlock(&a->lock);
			}
			__atomic_store_n(&a->writer_done, 1, __ATOMIC_RELEASE);
		} else {
			uint64_t torn = 0, reads = 0;

			while (!__atomic_load_n(&a->writer_done, __ATOMIC_ACQUIRE)) {
				torn += lk_read_pair(a);
				reads++;
			}
			__atomic_fetch_add(&a->torn, torn, __ATOMIC_RELAXED);
			__atomic_fetch_add(&a->reads, reads, __ATOMIC_RELAXED);
		}
		break;
	}
	return NULL;
}

/* Run the arena's threads: 0 or -EAGAIN after a message. */
static int lk_arena_run(struct lk_arena *a, unsigned nthreads)
{
	pthread_t tid[64];
	unsigned started = 0;

	a->nthreads = nthreads;
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, lk_worker, a))
			break;
	if (started < nthreads)		/* release the threads already waiting */
		__atomic_store_n(&a->nthreads, started, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (started < nthreads) {
		pr_err("lock check: cannot start thread %u of %u", started + 1, nthreads);
		return -EAGAIN;
	}
	return 0;
}

/* A zeroed arena for nthreads threads of the named ops, or NULL after a
 * message (*err: -EINVAL or -ENOMEM). */
static struct lk_arena *lk_arena_new(const char *name, unsigned nthreads, uint64_t iters,
				     enum lk_run_kind kind, int *err)
{
	struct lk_arena *a;

	*err = -EINVAL;
	if (nthreads < 1 || nthreads > 64) {
		pr_err("lock check: %u threads (expected 1..64)", nthreads);
		return NULL;
	}
	a = aligned_alloc(64, sizeof(*a));
	if (!a) {
		*err = -ENOMEM;
		return NULL;
	}
	memset(a, 0, sizeof(*a));
	a->iters = iters;
	a->kind = kind;
	if (name) {
		a->ops = lk_find(name);
		if (!a->ops || !a->ops->lock) {
			pr_err("lock check: no lock or reference count named '%s'", name);
			free(a);
			return NULL;
		}
		if (a->ops->lock == lklock_pthread_mutex)
			pthread_mutex_init(&a->lock.m, NULL);
		if (a->ops->lock == lklock_pthread_spin)
			pthread_spin_init((pthread_spinlock_t *)&a->lock, PTHREAD_PROCESS_PRIVATE);
	}
	return a;
}

int64_t locks_exclusion_run(const char *name, unsigned nthreads, uint64_t iters)
{
	return locks_exclusion_run_ho(name, nthreads, iters, NULL);
}

int64_t locks_exclusion_run_ho(const char *name, unsigned nthreads, uint64_t iters,
			       uint64_t *handovers)
{
	int err;
	struct lk_arena *a = lk_arena_new(name, nthreads, iters, LK_RUN_EXCL, &err);
	int64_t ret;

	if (!a)
		return err;
	if (a->ops && !a->ops->excludes) {
		pr_err("lock check: '%s' is not a lock that excludes other CPUs", name);
		free(a);
		return -EINVAL;
	}
	ret = lk_arena_run(a, nthreads);
	if (!ret) {
		ret = (int64_t)a->counter;
		if (handovers)
			*handovers = a->handovers - 1;	/* the first take is no hand-over */
	}
	free(a);
	return ret;
}

/* The count of the shared references: the 32-bit word of refcount_t and
 * atomic_t, the high half of a lockref. */
int64_t locks_ref_run(const char *name, unsigned nthreads, uint64_t iters)
{
	int err;
	struct lk_arena *a = lk_arena_new(name, nthreads, iters, LK_RUN_REF, &err);
	bool lockref;
	int64_t ret;

	if (!a)
		return err;
	lockref = a->ops->lock == lklock_lockref_get_put || a->ops->lock == lklock_locked_get_put;
	if (!lockref && a->ops->lock != lklock_refcount_get_put &&
	    a->ops->lock != lklock_atomic_get_put) {
		pr_err("lock check: '%s' is not a shared reference count", name);
		free(a);
		return -EINVAL;
	}
	a->lock.w[0] = lockref ? LK_LOCKREF_ONE : 1;	/* the owner's reference */
	ret = lk_arena_run(a, nthreads);
	if (!ret)
		ret = lockref ? (int32_t)(a->lock.w[0] >> 32) : (int32_t)a->lock.w[0];
	free(a);
	return ret;
}

int64_t locks_reader_run(const char *writer, unsigned nthreads, uint64_t iters, uint64_t *reads)
{
	int err;
	struct lk_arena *a = lk_arena_new(writer, nthreads, iters, LK_RUN_RW, &err);
	int64_t ret;

	if (!a)
		return err;
	if (nthreads < 2 || (a->ops->lock != lklock_write_lock && a->ops->lock != lklock_write_seqlock)) {
		pr_err("lock check: '%s' with %u threads: expected write_lock or write_seqlock and "
		       "at least 2 threads", writer, nthreads);
		free(a);
		return -EINVAL;
	}
	ret = lk_arena_run(a, nthreads);
	if (!ret) {
		ret = (int64_t)a->torn;
		*reads = a->reads;
	}
	free(a);
	return ret;
}

static int lk_handover(struct lk_arena *a, unsigned nthreads, const int *cpus, double seconds,
		       struct locks_handover *out)
{
	int err;

	a->cpus = cpus;
	a->deadline = seconds > 0 ? now_ns() + (uint64_t)(seconds * 1e9) : 0;
	err = lk_arena_run(a, nthreads);
	if (err)
		return err;
	*out = (struct locks_handover){
		.acquisitions = a->acquisitions,
		.handovers = a->handovers ? a->handovers - 1 : 0,	/* the first take */
		.depth = a->acquisitions ? (double)a->depth_sum / (double)a->acquisitions : 0,
	};
	out->share = a->acquisitions > 1 ? (double)out->handovers / (double)(a->acquisitions - 1) : 0;
	return 0;
}

int locks_handover_run_fn(void (*lock)(volatile void *l), void (*unlock)(volatile void *l),
			  unsigned nthreads, const int *cpus, uint64_t iters, double seconds,
			  struct locks_handover *out)
{
	const struct lk_ops ops = { "planted", lock, unlock, true };
	int err;
	struct lk_arena *a = lk_arena_new(NULL, nthreads, iters, LK_RUN_HANDOVER, &err);

	if (!a)
		return err;
	a->ops = &ops;
	err = lk_handover(a, nthreads, cpus, seconds, out);
	free(a);
	return err;
}

int locks_handover_run(const char *name, unsigned nthreads, const int *cpus, uint64_t iters,
		       double seconds, struct locks_handover *out)
{
	int err;
	struct lk_arena *a = lk_arena_new(name, nthreads, iters, LK_RUN_HANDOVER, &err);

	if (!a)
		return err;
	if (!a->ops->excludes) {
		pr_err("lock check: '%s' is not a lock that excludes other CPUs", name);
		free(a);
		return -EINVAL;
	}
	err = lk_handover(a, nthreads, cpus, seconds, out);
	out->queued = locks_queued(name);
	free(a);
	return err;
}

/* The locks whose waiters queue: the qspinlock's slow path (the variants
 * that release the byte keep it), MCS, CLH and osq. */
bool locks_queued(const char *name)
{
	static const char *const q[] = { "spin_lock", "spin_lock_xchg_unlock", "mcs_spin_lock",
					 "clh_lock", "osq_lock" };

	for (size_t i = 0; i < ARRAY_SIZE(q); i++)
		if (!strcmp(q[i], name))
			return true;
	return false;
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
static int verify_ticket(const char *name)
{
	const struct lk_ops *o = lk_find(name);
	uint32_t w[16] __attribute__((aligned(64))) = { 0 };

	for (int i = 0; i < 3; i++) {
		o->lock(w);
		if ((w[0] >> 16) == (w[0] & 0xffff))
			return -1;
		o->unlock(w);
		if ((w[0] >> 16) != (w[0] & 0xffff))
			return -1;
	}
	return verify_excl(name);
}
static int verify_ticket_lock(void) { return verify_ticket("ticket_lock"); }
static int verify_ticket_backoff_lock(void) { return verify_ticket("ticket_backoff_lock"); }

/* MCS: the lock word points at the holder's node, and is NULL again after
 * a release with no waiter. */
static int verify_mcs_spin_lock(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };

	for (int i = 0; i < 3; i++) {
		lklock_mcs_spin_lock(w);
		if (w[0] != (uint64_t)(uintptr_t)&lk_mcs_self)
			return -1;
		lkunlock_mcs_spin_lock(w);
		if (w[0])
			return -1;
	}
	return verify_excl("mcs_spin_lock");
}

/* CLH: the word points at the holder's node; a lock taken while free
 * with nobody behind is free (NULL) again after the release. */
static int verify_clh_lock(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };

	for (int i = 0; i < 3; i++) {
		lklock_clh_lock(w);
		if (!w[0] || w[0] != (uint64_t)(uintptr_t)lk_clh_my || !lk_clh_my->locked)
			return -1;
		lkunlock_clh_lock(w);
		if (w[0])
			return -1;
	}
	return verify_excl("clh_lock");
}

/* osq: the tail holds the holder's encoded number while held, 0 after a
 * release with nobody queued; it excludes with the spin budget it has and
 * with none (every waiter unqueues after one poll, then queues again). */
static int verify_osq_lock(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };
	unsigned budget = lk_osq_budget;
	int err;

	for (int i = 0; i < 3; i++) {
		lklock_osq_lock(w);
		if (w[0] != (uint64_t)lk_cpu_self + 1)
			return -1;
		lkunlock_osq_lock(w);
		if (w[0])
			return -1;
	}
	err = verify_excl("osq_lock");
	lk_osq_budget = 0;
	err = err ? err : verify_excl("osq_lock");
	lk_osq_budget = budget;
	return err;
}

void locks_osq_budget(unsigned polls)
{
	lk_osq_budget = polls ? polls : LK_OSQ_SPIN_BUDGET;
}

uint64_t locks_osq_unqueued(void)
{
	return __atomic_load_n(&lk_osq_unqueued, __ATOMIC_RELAXED);
}

/* qrwlock readers: each adds _QR_BIAS, two readers hold it at once, and a
 * writer's trylock (the fast path's cmpxchg from 0) fails while they do. */
static int verify_read_lock(void)
{
	uint32_t w[16] __attribute__((aligned(64))) = { 0 };
	uint32_t zero = 0;

	lklock_read_lock(w);
	lklock_read_lock(w);
	if (w[0] != 2 * QR_BIAS || arch_try_cmpxchg32(w, &zero, QW_LOCKED))
		return -1;
	lkunlock_read_lock(w);
	lkunlock_read_lock(w);
	return w[0] ? -1 : 0;
}

/* write_seqlock makes the sequence odd and takes the spinlock; the data
 * words move together; write_sequnlock makes it even and frees the lock. */
static int verify_write_seqlock(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };
	volatile char *c = (volatile char *)w;

	for (uint32_t i = 0; i < 3; i++) {
		lklock_write_seqlock(w);
		if (arch_load32(c) != 2 * i + 1 || !arch_load32(c + LK_SEQ_LOCK) ||
		    w[1] != i + 1 || w[2] != i + 1)
			return -1;
		lkunlock_write_seqlock(w);
		if (arch_load32(c) != 2 * i + 2 || arch_load32(c + LK_SEQ_LOCK))
			return -1;
	}
	return verify_excl("write_seqlock");
}

/* A read section that began before a write must retry; one after it not. */
static int verify_read_seqcount(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { 0 };
	uint32_t seq = lk_seq_begin(w);

	if (lk_seq_retry(w, seq))
		return -1;
	lklock_write_seqlock(w);
	lkunlock_write_seqlock(w);
	if (!lk_seq_retry(w, seq))
		return -1;
	seq = lk_seq_begin(w);
	return lk_seq_retry(w, seq) || lk_seq_data(w) != 2 ? -1 : 0;
}

/* The dereference returns the protected pointer, the count is restored. */
static int verify_rcu_read_lock(void)
{
	char *w[8] __attribute__((aligned(64)));
	uint32_t before = lk_preempt_count;

	w[0] = (char *)w;
	return lk_rcu_read((char *)w, 0) == (char *)w && lk_preempt_count == before ? 0 : -1;
}

static int setup_rcu_read_lock(struct probe_ctx *ctx)
{
	*(void **)ctx->mem = ctx->mem;
	return 0;
}

/* ---- reference counts: semantics ---------------------------------------- */

/* get, put and the counts the kernel defines: a put to zero releases once,
 * refcount_t saturates (and warns) on an increment from zero, an overflow
 * and a decrement below zero, and a saturated count stays saturated. */
static int verify_refcount_get_put(void)
{
	uint32_t w[16] __attribute__((aligned(64))) = { 1 };
	uint64_t rel = lk_ref_released, warn = lk_ref_warnings;

	lk_refcount_get(w);
	lk_refcount_put(w);
	if (w[0] != 1 || lk_ref_released != rel)
		return -1;
	lk_refcount_put(w);			/* 1 -> 0: dec_and_test true */
	if (w[0] != 0 || lk_ref_released != rel + 1 || lk_ref_warnings != warn)
		return -1;
	lk_refcount_inc(w);			/* from 0: use-after-free */
	if (w[0] != LK_REFCOUNT_SATURATED || lk_ref_warnings != warn + 1)
		return -1;
	w[0] = 0x7fffffff;			/* INT_MAX + 1: overflow */
	lk_refcount_inc(w);
	if (w[0] != LK_REFCOUNT_SATURATED || lk_ref_warnings != warn + 2)
		return -1;
	for (int i = 0; i < 4; i++)		/* saturated: never back to 0 */
		if (lk_refcount_dec_and_test(w))
			return -1;
	if (w[0] != LK_REFCOUNT_SATURATED)
		return -1;
	w[0] = 0;				/* below zero: underflow */
	if (lk_refcount_dec_and_test(w) || w[0] != LK_REFCOUNT_SATURATED)
		return -1;
	return lk_ref_released == rel + 1 ? 0 : -1;
}

/* atomic_t has none of those checks: it wraps, and a put to zero releases. */
static int verify_atomic_get_put(void)
{
	uint32_t w[16] __attribute__((aligned(64))) = { 1 };
	uint64_t rel = lk_ref_released;

	lk_atomic_ref_get(w);
	lk_atomic_ref_put(w);
	lk_atomic_ref_put(w);
	if (w[0] != 0 || lk_ref_released != rel + 1)
		return -1;
	w[0] = 0x7fffffff;
	lk_atomic_ref_get(w);
	return w[0] == 0x80000000u ? 0 : -1;
}

/* lockref (and its locked counterpart): gets and puts move the count in
 * the high half and leave the lock half free. */
static int verify_lockref(const char *name)
{
	uint64_t w[8] __attribute__((aligned(64))) = { LK_LOCKREF_ONE };
	const struct lk_ops *o = lk_find(name);

	for (int i = 0; i < 3; i++)
		o->lock(w);
	if (w[0] != 4 * LK_LOCKREF_ONE)
		return -1;
	for (int i = 0; i < 3; i++)
		o->unlock(w);
	return w[0] == LK_LOCKREF_ONE ? 0 : -1;
}
static int verify_lockref_get_put(void) { return verify_lockref("lockref_get_put"); }
static int verify_locked_get_put(void) { return verify_lockref("locked_get_put"); }

/* percpu_ref: in per-CPU mode a get and a put move only this thread's
 * counter; in atomic mode (the ATOMIC bit set) the shared count, and a put
 * to zero there releases. */
static int verify_percpu_ref_get_put(void)
{
	uint64_t w[8] __attribute__((aligned(64))) = { arch_percpu_offset(&lk_pcpu_count) };
	int64_t before = lk_pcpu_count;
	uint64_t rel = lk_ref_released;

	lk_pcpu_ref_get(w);
	lk_pcpu_ref_get(w);
	if (lk_pcpu_count != before + 2 || w[1])
		return -1;
	lk_pcpu_ref_put(w);
	lk_pcpu_ref_put(w);
	if (lk_pcpu_count != before)
		return -1;
	w[0] |= LK_PCPU_ATOMIC;
	w[1] = 1;
	lk_pcpu_ref_get(w);
	lk_pcpu_ref_put(w);
	lk_pcpu_ref_put(w);
	return w[1] == 0 && lk_pcpu_count == before && lk_ref_released == rel + 1 ? 0 : -1;
}

/* The counts start at one reference (the owner's). */
static int setup_ref32(struct probe_ctx *ctx)
{
	*(uint32_t *)ctx->mem = 1;
	return 0;
}

static int setup_lockref(struct probe_ctx *ctx)
{
	*(uint64_t *)ctx->mem = LK_LOCKREF_ONE;
	return 0;
}

static int setup_percpu_ref(struct probe_ctx *ctx)
{
	uint64_t *w = ctx->mem;

	w[0] = arch_percpu_offset(&lk_pcpu_count);
	w[1] = 1;
	return 0;
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
#define LK_RUN_REG(id) .run = { [MODE_LATENCY] = k_##id##_lat }, .chain = CHAIN_REGISTER,	\
		       .verify = verify_##id
#define LK_INSN(s) .insn = s
#define LK_SETUP(id) .setup = setup_##id
#define LK_CTX(id) .patterns = &pat_##id, .ctx_stores = kc_##id##_stores
#else	/* !ARCH_HAS_LOCK_INSNS */
#define LK_RUN(id) .unsupported = "no lock-word primitives for this architecture yet"
#define LK_RUN_TPUT(id) LK_RUN(id)
#define LK_RUN_REG(id) LK_RUN(id)
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

int64_t locks_exclusion_run_ho(const char *name, unsigned nthreads, uint64_t iters,
			       uint64_t *handovers)
{
	return locks_exclusion_run(name, nthreads, iters);
}

int64_t locks_ref_run(const char *name, unsigned nthreads, uint64_t iters)
{
	return locks_exclusion_run(name, nthreads, iters);
}

int64_t locks_reader_run(const char *writer, unsigned nthreads, uint64_t iters, uint64_t *reads)
{
	return locks_exclusion_run(writer, nthreads, iters);
}

void locks_osq_budget(unsigned polls)
{
}

int locks_handover_run(const char *name, unsigned nthreads, const int *cpus, uint64_t iters,
		       double seconds, struct locks_handover *out)
{
	return -ENOTSUP;
}

int locks_handover_run_fn(void (*lock)(volatile void *l), void (*unlock)(volatile void *l),
			  unsigned nthreads, const int *cpus, uint64_t iters, double seconds,
			  struct locks_handover *out)
{
	return -ENOTSUP;
}

bool locks_queued(const char *name)
{
	return false;
}

uint64_t locks_osq_unqueued(void)
{
	return 0;
}
#endif

/* name, twin, family and atomicity of a lock descriptor */
#define LK_HEAD(id, twin_, at)							\
	.name = #id, .twin = twin_, .family = "lock", .atomicity = ATOMICITY_##at

const struct probe probe_spin_lock = {
	LK_HEAD(spin_lock, "spin_lock_xchg_unlock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / movb $0; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock, _raw_spin_unlock "
		       "(include/asm-generic/qspinlock.h queued_spin_lock, "
		       "kernel/locking/qspinlock.c queued_spin_lock_slowpath)",
	.kernel = "spin_lock + spin_unlock (qspinlock: fast path, pending bit, MCS queue)",
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
	.desc = "spin_lock released by a 32-bit store (no narrow-store forwarding stall); "
		"read-spin slow path",
	LK_RUN(spin_lock_movl_unlock),
};

const struct probe probe_spin_lock_xchgl_unlock = {
	LK_HEAD(spin_lock_xchgl_unlock, "spin_lock_movl_unlock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->1 / xchgl; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/spinlock.c _raw_spin_lock; unlock by xchgl "
		       "(no kernel macro)",
	.kernel = "spin_lock + an atomic word-sized release",
	.desc = "spin_lock released by an atomic exchange of the whole 32-bit word; "
		"read-spin slow path",
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

const struct probe probe_mcs_spin_lock = {
	LK_HEAD(mcs_spin_lock, "spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; xchgq / lock cmpxchgq; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/mcs_spinlock.h mcs_spin_lock, mcs_spin_unlock",
	.kernel = "MCS lock (the queue inside qspinlock, alone)",
	.desc = "MCS queue lock: xchg the tail pointer, spin on the own node; release "
		"by cmpxchg to NULL or a store to the successor's node",
	LK_RUN(mcs_spin_lock),
};

const struct probe probe_clh_lock = {
	LK_HEAD(clh_lock, "mcs_spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; movl $1 (own node); xchgq / movl $0; "
		"decl %fs:pc; je"),
	.kernel_src = "- (no kernel CLH lock; lockhammer clh_spinlock; Craig 1993, Magnusson, "
		       "Landin and Hagersten 1994)",
	.kernel = "CLH queue lock",
	.desc = "CLH queue lock: xchg the tail pointer, spin on the predecessor's node, "
		"release by a store to the own node and adopt the predecessor's",
	LK_RUN(clh_lock),
};

const struct probe probe_osq_lock = {
	LK_HEAD(osq_lock, "mcs_spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; xchgl / lock cmpxchgl; decl %fs:pc; je"),
	.kernel_src = "kernel/locking/osq_lock.c osq_lock, osq_unlock",
	.kernel = "optimistic spin queue (the MCS queue of mutex and rwsem spinners)",
	.desc = "osq: xchg the encoded CPU into the tail, spin on the own per-CPU node, "
		"unqueue after a spin budget (need_resched's stand-in); release by cmpxchg "
		"to 0 or a store to the next node",
	LK_RUN(osq_lock),
};

const struct probe probe_tas_backoff_lock = {
	LK_HEAD(tas_backoff_lock, "tas_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; xchgl loop, 1..64 pauses doubling / movl $0; "
		"decl %fs:pc; je"),
	.kernel_src = "- (textbook: Anderson 1990 exponential backoff; no kernel macro)",
	.kernel = "test-and-set lock with exponential backoff",
	.desc = "test-and-set; after each failed xchg wait 1, 2, 4 .. 64 pauses",
	LK_RUN(tas_backoff_lock),
};

const struct probe probe_ticket_backoff_lock = {
	LK_HEAD(ticket_backoff_lock, "ticket_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock xaddl; 8 pauses per waiter ahead / "
		"addw $1 (no lock); decl %fs:pc; je"),
	.kernel_src = "arch/x86/include/asm/spinlock.h (2.6.25-4.1) __ticket_spin_lock, with "
		       "proportional backoff (Mellor-Crummey and Scott 1991)",
	.kernel = "ticket spinlock with proportional backoff",
	.desc = "ticket lock; a waiter k places back waits 8k pauses between reads of the head",
	LK_RUN(ticket_backoff_lock),
};

const struct probe probe_read_lock = {
	LK_HEAD(read_lock, "write_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock xaddl +0x200 / lock xaddl -0x200; "
		"decl %fs:pc; je"),
	.kernel_src = "include/asm-generic/qrwlock.h queued_read_lock, queued_read_unlock "
		       "(kernel/locking/qrwlock.c queued_read_lock_slowpath)",
	.kernel = "read_lock + read_unlock (qrwlock reader)",
	.desc = "qrwlock reader: add a reader bias; writer waiting or holding: back off "
		"and queue on the wait_lock (a qspinlock)",
	LK_RUN(read_lock), .word_size = 8,
};

const struct probe probe_write_lock = {
	LK_HEAD(write_lock, "read_lock", ATOMIC),
	LK_INSN("call lock; call unlock: incl %fs:pc; lock cmpxchgl 0->0xff / movb $0; "
		"decl %fs:pc; je"),
	.kernel_src = "include/asm-generic/qrwlock.h queued_write_lock, queued_write_unlock "
		       "(kernel/locking/qrwlock.c queued_write_lock_slowpath)",
	.kernel = "write_lock + write_unlock (qrwlock writer)",
	.desc = "qrwlock writer: cmpxchg 0 -> locked; else queue on the wait_lock, "
		"set waiting and wait for the readers to drain",
	LK_RUN(write_lock), .word_size = 8,
};

const struct probe probe_write_seqlock = {
	LK_HEAD(write_seqlock, "spin_lock", ATOMIC),
	LK_INSN("call lock; call unlock: call spin_lock; sequence +1, data stores / "
		"sequence +1; call spin_unlock"),
	.kernel_src = "include/linux/seqlock.h write_seqlock, write_sequnlock "
		       "(do_write_seqcount_begin, do_write_seqcount_end)",
	.kernel = "write_seqlock + write_sequnlock (seqlock_t writer)",
	.desc = "seqlock writer: the spinlock, the sequence made odd, two data words written, "
		"the sequence made even",
	LK_RUN(write_seqlock), .word_size = 32,
};

const struct probe probe_read_seqcount = {
	LK_HEAD(read_seqcount, "read_lock", ATOMIC),
	LK_INSN("movl seq; two data loads; movl seq; cmp (no atomic, no store)"),
	.kernel_src = "include/linux/seqlock.h read_seqcount_begin, read_seqcount_retry",
	.kernel = "read_seqcount_begin + read_seqcount_retry (seqcount reader)",
	.desc = "seqcount reader: wait for an even sequence, read two words, retry if the "
		"sequence moved (no chain: throughput)",
	LK_RUN_TPUT(read_seqcount),
};

const struct probe probe_rcu_read_lock = {
	LK_HEAD(rcu_read_lock, "read_lock", ATOMIC),
	LK_INSN("movq mem,%reg (rcu_dereference, inside incl %fs:pc / decl %fs:pc; je)"),
	.kernel_src = "include/linux/rcupdate.h rcu_read_lock, rcu_dereference, rcu_read_unlock "
		       "(without PREEMPT_RCU: preempt_disable)",
	.kernel = "rcu_read_lock + rcu_dereference + rcu_read_unlock (RCU-style read side)",
	.desc = "a reader that takes nothing: preempt count, a load of the protected pointer; "
		"the next section dereferences what it returned",
	LK_RUN_REG(rcu_read_lock), LK_SETUP(rcu_read_lock), .word_size = 8,
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

/* ---- reference counts (family "refcount") ---------------------------------- */

#define RC_HEAD(id, twin_)							\
	.name = #id, .twin = twin_, .family = "refcount", .atomicity = ATOMICITY_ATOMIC

const struct probe probe_refcount_get_put = {
	RC_HEAD(refcount_get_put, "atomic_get_put"),
	LK_INSN("lock xaddl %reg,mem; lock xaddl %reg,mem (+1, -1; then the saturation checks)"),
	.kernel_src = "include/linux/refcount.h refcount_inc, refcount_dec_and_test "
		       "(__refcount_add, __refcount_sub_and_test; kref_get, kref_put)",
	.kernel = "refcount_inc + refcount_dec_and_test (refcount_t, kref)",
	.desc = "refcount_t get and put: fetch_add, then checks that saturate on 0, overflow "
		"and underflow",
	LK_RUN(refcount_get_put), LK_SETUP(ref32), .word_size = 4,
};

const struct probe probe_atomic_get_put = {
	RC_HEAD(atomic_get_put, "refcount_get_put"),
	LK_INSN("lock incl mem; lock decl mem; sete"),
	.kernel_src = "arch/x86/include/asm/atomic.h arch_atomic_inc, arch_atomic_dec_and_test",
	.kernel = "atomic_inc + atomic_dec_and_test (unchecked atomic_t)",
	.desc = "atomic_t get and put, no saturation: what refcount_t replaced",
	LK_RUN(atomic_get_put), LK_SETUP(ref32), .word_size = 4,
};

const struct probe probe_lockref_get_put = {
	RC_HEAD(lockref_get_put, "locked_get_put"),
	LK_INSN("call lockref_get; call lockref_put_return: lock cmpxchgq count+1 / count-1 "
		"while the lock half is free, else under the spinlock"),
	.kernel_src = "lib/lockref.c lockref_get, lockref_put_return (CMPXCHG_LOOP)",
	.kernel = "lockref_get + lockref_put_return (the dcache's d_lockref)",
	.desc = "lockref: spinlock and count in one 64-bit word, the count changed by cmpxchg "
		"while the lock is free",
	LK_RUN(lockref_get_put), LK_SETUP(lockref), .word_size = 8,
};

const struct probe probe_locked_get_put = {
	RC_HEAD(locked_get_put, "lockref_get_put"),
	LK_INSN("call get; call put: call spin_lock; count +1 / -1; call spin_unlock"),
	.kernel_src = "lib/lockref.c the fallback of lockref_get (spin_lock, count++, "
		       "spin_unlock)",
	.kernel = "a count under its spinlock (what lockref avoids)",
	.desc = "the same word's count changed under the spinlock, twice per get/put",
	LK_RUN(locked_get_put), LK_SETUP(lockref), .word_size = 8,
};

/* Local-only: its counter ops are unlocked, correct only because each
 * CPU (here each thread) has its own. */
const struct probe probe_percpu_ref_get_put = {
	.name = "percpu_ref_get_put", .twin = "atomic_get_put", .family = "refcount",
	.atomicity = ATOMICITY_LOCAL,
	LK_INSN("incq %fs:(%reg); decq %fs:(%reg) (after a load of percpu_count_ptr and a "
		"preempt count inc/dec each)"),
	.kernel_src = "include/linux/percpu-refcount.h percpu_ref_get, percpu_ref_put "
		       "(per-CPU mode: this_cpu_inc / this_cpu_dec)",
	.kernel = "percpu_ref_get + percpu_ref_put (per-CPU mode)",
	.desc = "percpu_ref in its fast mode: a per-CPU (here per-thread) counter through "
		"the ref's pointer; the ref's word is only read",
	LK_RUN(percpu_ref_get_put), LK_SETUP(percpu_ref), .word_size = 16,
};
