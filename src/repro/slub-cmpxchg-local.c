/* SPDX-License-Identifier: MIT */
/* repro/slub-cmpxchg-local.c - a user-space model of the SLUB fast path, and the 2007
 * "SLUB use cmpxchg_local" scoring (docs/reproductions.md, section 2, describes the
 * model). The per-CPU structure is the thread's, in TLS (per CPU, shared by its
 * threads, for rseq). The slab layer (slab_alloc_slow, slab_free_slow and what they
 * call) also serves the 2015 bulk model (repro/slub-bulk-free.c).
 */
#include "repro/slub-cmpxchg-local.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_SYS_RSEQ 1
#endif
#endif

#include "arch/arch.h"
#include "common.h"
#include "repro/repro.h"
#include "stats.h"

#if defined(ARCH_HAS_RSEQ) && ARCH_HAS_RSEQ && defined(HAVE_SYS_RSEQ)
#define HAVE_RSEQ_MODEL 1
#else
#define HAVE_RSEQ_MODEL 0
#endif
#if defined(ARCH_HAS_LOCK_INSNS) && ARCH_HAS_LOCK_INSNS
#define HAVE_LOCK_INSNS 1
#else
#define HAVE_LOCK_INSNS 0
#endif

#define SLAB_MAX_CACHES 64
#define SLAB_MAX_CPUS 1024
#define FROZEN (1ull << 32)

const char *const slub_fastpath_names[SLUB_FP__COUNT] = {
	[SLUB_FP_TID] = "2011", [SLUB_FP_2007] = "2007",
};
const char *const slub_variant_names[SLUB__COUNT] = {
	[SLUB_LOCKED] = "cmpxchg", [SLUB_LOCAL] = "cmpxchg_local", [SLUB_THIS_CPU] = "this_cpu",
	[SLUB_RSEQ] = "rseq", [SLUB_IRQOFF] = "irq-off", [SLUB_LOCKED_BARRIER] = "cmpxchg+barrier",
};
#if HAVE_LOCK_INSNS
#define PREEMPT_INSN "incl %fs:count .. decl %fs:count; je"
#else
#define PREEMPT_INSN "++ .. --; == 0 of a thread-local count"
#endif
#define RSEQ_INSN "rseq: head and next read, one store commits, in the critical section"
/* The instructions of each form, per fast path. */
static const char *const slub_insn[SLUB_FP__COUNT][SLUB__COUNT] = {
	[SLUB_FP_TID] = {
		[SLUB_LOCKED] = ARCH_INSN_CMPXCHG128,
		[SLUB_LOCAL] = ARCH_INSN_CMPXCHG128_NL,
		[SLUB_THIS_CPU] = ARCH_INSN_PERCPU_CMPXCHG128,
		[SLUB_RSEQ] = RSEQ_INSN,
		[SLUB_IRQOFF] = "flags read + thread-local flag, plain stores of freelist and tid",
	},
	[SLUB_FP_2007] = {
		[SLUB_LOCKED] = ARCH_INSN_CMPXCHG "; kfree: smp_rmb() " ARCH_INSN_SMP_RMB
				" before the slab check",
		[SLUB_LOCKED_BARRIER] = ARCH_INSN_CMPXCHG "; kfree: barrier() before the slab check",
		[SLUB_LOCAL] = ARCH_INSN_CMPXCHG_NL " inside preempt_disable analog (" PREEMPT_INSN
			       "); kfree: barrier() before the slab check",
		[SLUB_THIS_CPU] = ARCH_INSN_PERCPU_CMPXCHG,
		[SLUB_RSEQ] = RSEQ_INSN,
		[SLUB_IRQOFF] = "flags read + thread-local flag, plain store of freelist",
	},
};

static __thread struct kmem_cpu slab_tls[SLAB_MAX_CACHES] __attribute__((tls_model("initial-exec")));
static __thread volatile int slab_irqs_off __attribute__((tls_model("initial-exec")));
/* preempt_count analog for the 2007 cmpxchg_local path, addressed through
 * %fs as the kernel's per-CPU count; the inverted resched bit keeps
 * `decl; je` from ever branching (see arch_preempt_dec). */
static __thread unsigned slab_preempt __attribute__((tls_model("local-exec"))) = 0x80000000u;
/* rseq: one structure per CPU, found by the rseq area's CPU number. */
static struct kmem_cpu (*rseq_cpu)[SLAB_MAX_CPUS];
static uint64_t slab_gen_counter;
static unsigned slab_id_counter;

const char *slub_variant_unavailable_in(enum slub_fastpath fp, enum slub_variant v)
{
	switch (v) {
	case SLUB_LOCKED:
	case SLUB_LOCAL:
		if (fp == SLUB_FP_2007)
			return NULL;	/* one word: every architecture has it */
		return ARCH_HAS_CMPXCHG128 ? NULL : "no 16-byte compare-and-exchange on this architecture";
	case SLUB_THIS_CPU:
		if (fp == SLUB_FP_2007)
			return ARCH_HAS_SEG_PERCPU ? NULL : "no segment-relative cmpxchg on this architecture";
#if defined(ARCH_HAS_SEG_PERCPU128) && ARCH_HAS_SEG_PERCPU128
		return NULL;
#else
		return "no segment-relative cmpxchg128 on this architecture";
#endif
	case SLUB_RSEQ:
#if HAVE_RSEQ_MODEL
		if (__rseq_size == 0)
			return "glibc did not register rseq (GLIBC_TUNABLES=glibc.pthread.rseq=0, or an old kernel)";
		return NULL;
#else
		return "no rseq critical sections for this architecture/libc";
#endif
	case SLUB_IRQOFF:
		return NULL;
	case SLUB_LOCKED_BARRIER:
		return fp == SLUB_FP_2007 ? NULL : "2007 fast path only: the 2011 one has no rmb() to leave out";
	default:
		return "unknown variant";
	}
}

/* ---- the node's list_lock: a test-and-test-and-set spinlock ---- */

static void node_lock(struct slab_cache *s)
{
	while (arch_cmpxchg(&s->lock, 0, 1) != 0)
		while (arch_load(&s->lock))
			arch_cpu_relax();
}

/* A release, as spin_unlock: the critical section's stores before it (on x86
 * a plain store, as arch_store; in C11 a release store, where a volatile
 * store let the compiler sink them past the unlock). */
static void node_unlock(struct slab_cache *s)
{
	arch_smp_store_release(&s->lock, 0);
}

/* ---- cache setup ---- */

/* Forget every slab (arena kept, pages stay faulted in): for the next pass. */
static void slab_cache_reset(struct slab_cache *s)
{
	s->nslabs = 0;
	s->partial = -1;
	s->lock = 0;
	s->gen = __atomic_add_fetch(&slab_gen_counter, 1, __ATOMIC_RELAXED);
	/* The rseq structures are shared by the threads of a CPU: they are
	 * reset here, while no thread allocates, never lazily by a thread. */
	for (size_t cpu = 0; rseq_cpu && cpu < SLAB_MAX_CPUS; cpu++)
		rseq_cpu[s->id][cpu] = (struct kmem_cpu){ .slab = -1, .gen = s->gen };
}

unsigned slab_min_objects(unsigned ncpus)
{
	return 4 * (unsigned)(ncpus ? 32 - __builtin_clz(ncpus) + 1 : 1);
}

unsigned slab_geometry(size_t size, unsigned ncpus, unsigned *shift)
{
	unsigned sh = 12, min = slab_min_objects(ncpus);

	while ((1ul << sh) / size < min && sh < 15)
		sh++;
	while ((1ul << sh) < size)
		sh++;
	*shift = sh;
	return (unsigned)((1ul << sh) / size);
}

unsigned slab_model_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 1;
}

int slab_cache_init(struct slab_cache *s, size_t size, size_t max_objects)
{
	size_t slab_bytes;

	memset(s, 0, sizeof(*s));
	if (size < 8 || size % 8) {
		pr_err("slab model: object size %zu is not a multiple of 8 (expected 8, 16, ...)", size);
		return -EINVAL;
	}
	if (!rseq_cpu) {
		rseq_cpu = aligned_alloc(64, sizeof(*rseq_cpu) * SLAB_MAX_CACHES);
		if (!rseq_cpu)
			return -ENOMEM;
		memset(rseq_cpu, 0, sizeof(*rseq_cpu) * SLAB_MAX_CACHES);
	}
	s->size = size;
	s->objs = slab_geometry(size, slab_model_cpus(), &s->shift);
	slab_bytes = 1ul << s->shift;
	/* room for every object plus one partly used slab per thread */
	s->max_slabs = (max_objects + s->objs - 1) / s->objs + 64;
	s->map_size = s->max_slabs * slab_bytes + slab_bytes;
	s->map = mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->map == MAP_FAILED) {
		pr_err("slab model: cannot map %zu bytes for %zu objects of %zu bytes", s->map_size,
		       max_objects, size);
		s->map = NULL;
		return -ENOMEM;
	}
	s->arena = (char *)(((uintptr_t)s->map + slab_bytes - 1) & ~(uintptr_t)(slab_bytes - 1));
	s->meta = aligned_alloc(16, s->max_slabs * sizeof(*s->meta));
	if (!s->meta) {
		munmap(s->map, s->map_size);
		return -ENOMEM;
	}
	s->id = __atomic_fetch_add(&slab_id_counter, 1, __ATOMIC_RELAXED) % SLAB_MAX_CACHES;
	slab_cache_reset(s);
	return 0;
}

void slab_cache_destroy(struct slab_cache *s)
{
	if (s->map)
		munmap(s->map, s->map_size);
	free(s->meta);
	memset(s, 0, sizeof(*s));
}

/* ---- slow paths (shared by every variant, never timed apart) ---- */

/* A new slab from the "page allocator" (the arena): its objects linked in
 * address order with plain stores, as allocate_slab() does. */
static int64_t new_slab(struct slab_cache *s)
{
	size_t idx;
	char *base;

	node_lock(s);
	if (s->nslabs == s->max_slabs) {
		node_unlock(s);
		return -1;
	}
	idx = s->nslabs++;
	node_unlock(s);
	base = s->arena + (idx << s->shift);
	for (unsigned i = 0; i + 1 < s->objs; i++)
		slab_set_next(base + i * s->size, base + (i + 1) * s->size);
	slab_set_next(base + (s->objs - 1) * s->size, NULL);
	s->meta[idx].next = -1;
	s->meta[idx].on_partial = 0;
	s->meta[idx].counters = 0;
	__atomic_store_n(&s->meta[idx].freelist, (void *)base, __ATOMIC_RELEASE);
	return (int64_t)idx;
}

static void add_partial(struct slab_cache *s, size_t idx)
{
	node_lock(s);
	if (!s->meta[idx].on_partial) {
		s->meta[idx].on_partial = 1;
		s->meta[idx].next = s->partial;
		s->partial = (int32_t)idx;
	}
	node_unlock(s);
}

static int64_t get_partial(struct slab_cache *s)
{
	int64_t idx = -1;

	if (__atomic_load_n(&s->partial, __ATOMIC_RELAXED) < 0)
		return -1;
	node_lock(s);
	if (s->partial >= 0) {
		idx = s->partial;
		s->partial = s->meta[idx].next;
		s->meta[idx].on_partial = 0;
	}
	node_unlock(s);
	return idx;
}

/* Take the whole slab freelist and freeze the slab to this CPU. */
static void *take_freelist(struct slab_cache *s, size_t idx)
{
	struct slab_meta *m = &s->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };

	while (!arch_cmpxchg128(&m->freelist, old, 0, (uint64_t)s->objs | FROZEN))
		;
	return (void *)(uintptr_t)old[0];
}

/* Unfreeze a slab the CPU gives up; objects freed to it meanwhile put it on
 * the partial list (exactly one of this and the freeing CPU adds it). */
static void unfreeze(struct slab_cache *s, size_t idx)
{
	struct slab_meta *m = &s->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };

	while (!arch_cmpxchg128(&m->freelist, old, old[0], old[1] & ~FROZEN))
		;
	if (old[0])
		add_partial(s, idx);
}

__attribute__((noinline)) void slab_free_slow(struct slab_cache *s, size_t idx, void *head, void *tail,
					       unsigned cnt)
{
	struct slab_meta *m = &s->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };
	bool was_full;

	do {
		slab_set_next(tail, (void *)(uintptr_t)old[0]);
		was_full = !old[0] && !(old[1] & FROZEN);
	} while (!arch_cmpxchg128(&m->freelist, old, (uint64_t)(uintptr_t)head, old[1] - cnt));
	if (was_full)
		add_partial(s, idx);
}

/* The calling thread's structure (every variant but rseq). */
static inline struct kmem_cpu *cpu_slot(struct slab_cache *s)
{
	return slab_cpu_own(s, &slab_tls[s->id]);
}

/* slab_alloc_slow's refill (slub-cmpxchg-local.h): the freelist of the slab it leaves in *idx; NULL: full. */
static void *refill(struct slab_cache *s, int64_t *idx)
{
	void *fl = NULL;

	if (*idx >= 0)
		fl = take_freelist(s, (size_t)*idx);	/* remote frees since */
	while (!fl) {
		if (*idx >= 0)
			unfreeze(s, (size_t)*idx);
		*idx = get_partial(s);
		if (*idx < 0)
			*idx = new_slab(s);
		if (*idx < 0)
			return NULL;
		fl = take_freelist(s, (size_t)*idx);
	}
	return fl;
}

/* ___slab_alloc: the CPU freelist is empty. Runs with "irqs off" in the
 * kernel: here the structure belongs to the calling thread. */
__attribute__((noinline)) void *slab_alloc_slow(struct slab_cache *s, struct kmem_cpu *c)
{
	int64_t idx = c->slab;
	void *fl = refill(s, &idx);

	c->slab = idx;
	if (!fl)
		return NULL;
	c->freelist = slab_next(fl);
	c->tid += SLUB_TID_STEP;
	return fl;
}

/* ---- the 2011 fast path: {freelist, tid} committed together ---- */

#define COMMIT_LOCKED(s, c, old, nlo, nhi) arch_cmpxchg128(&(c)->freelist, old, nlo, nhi)
#define COMMIT_LOCAL(s, c, old, nlo, nhi) arch_cmpxchg128_nl(&(c)->freelist, old, nlo, nhi)
#define COMMIT_THIS_CPU(s, c, old, nlo, nhi) \
	arch_percpu_cmpxchg128(arch_percpu_offset(c), old, nlo, nhi)
/* irq-off analog: local_irq_save (flags read + thread-local "off" flag),
 * plain stores of the freelist (and of the tid, with_tid: 2011),
 * local_irq_restore. Only this thread touches c. */
static inline __attribute__((always_inline)) bool commit_irqoff(struct kmem_cpu *c, uint64_t *old,
								 uint64_t nlo, uint64_t nhi,
								 bool with_tid)
{
#if HAVE_LOCK_INSNS
	uint64_t flags = arch_save_flags();

	asm volatile("" : : "r"(flags));
#endif
	slab_irqs_off = 1;
	barrier();
	arch_store(&c->freelist, nlo);
	if (with_tid)
		arch_store(&c->tid, nhi);
	barrier();
	slab_irqs_off = 0;
	return true;
}
#define COMMIT_IRQOFF(s, c, old, nlo, nhi) commit_irqoff(c, old, nlo, nhi, true)

#define SLUB_FASTPATHS(V, COMMIT) \
	SLUB_TID_FASTPATHS(tid_##V, struct slab_cache, cpu_slot, slab_alloc_slow, slab_free_slow, COMMIT)
SLUB_FASTPATHS(LOCKED, COMMIT_LOCKED)
SLUB_FASTPATHS(LOCAL, COMMIT_LOCAL)
SLUB_FASTPATHS(THIS_CPU, COMMIT_THIS_CPU)
SLUB_FASTPATHS(IRQOFF, COMMIT_IRQOFF)

/* ---- the 2007 fast path: the freelist word alone ---- */

#define U64(p) ((uint64_t)(uintptr_t)(p))
/* cmpxchg(&c->freelist, o, n) == o: `lock cmpxchgq`. */
#define C07_LOCKED(s, c, old, nlo, nhi) (arch_cmpxchg(&(c)->freelist, old[0], nlo) == old[0])
/* cmpxchg_local: the same without lock. */
#define C07_LOCAL(s, c, old, nlo, nhi) (arch_cmpxchg_nl(&(c)->freelist, old[0], nlo) == old[0])
/* this_cpu_cmpxchg: `cmpxchgq %reg,%fs:off` (the form 2.6.25 planned). */
#define C07_THIS_CPU(s, c, old, nlo, nhi) \
	(arch_percpu_cmpxchg(arch_percpu_offset(&(c)->freelist), old[0], nlo) == old[0])
#define C07_IRQOFF(s, c, old, nlo, nhi) commit_irqoff(c, old, nlo, nhi, false)

/* preempt_disable / preempt_enable around the cmpxchg_local fast path (the
 * post: "Con: we must disable preemption"); nothing around the others. */
static __attribute__((noinline)) void preempt_schedule_analog(void)
{
	barrier();
}
#if HAVE_LOCK_INSNS
#define PREEMPT_OFF() arch_preempt_inc(slab_preempt)
#define PREEMPT_ON()									\
	do {										\
		if (unlikely(arch_preempt_dec(slab_preempt)))				\
			preempt_schedule_analog();					\
	} while (0)
#else
#define PREEMPT_OFF() do { slab_preempt++; barrier(); } while (0)
#define PREEMPT_ON()									\
	do {										\
		barrier();								\
		if (unlikely(--slab_preempt == 0))					\
			preempt_schedule_analog();					\
	} while (0)
#endif

/* ORDER: between the freelist read and the slab check of kfree. The 2007
 * cmpxchg path had smp_rmb() there: preemptible, it may read the structure
 * of a CPU it no longer runs on, so the freelist must be read before the
 * slab, or a change of CPU slab between the two reads goes unseen (the
 * cmpxchg then succeeds on the old freelist of a new slab); cmpxchg_local
 * runs with preemption off, where only an interrupt on the same CPU can
 * intervene, so barrier() is enough. */
#define SLUB07_FASTPATHS(V, COMMIT, ENTER, EXIT, ORDER)					\
	SLUB_FASTPATH(y07_##V, struct slab_cache, cpu_slot, slab_alloc_slow, slab_free_slow,	\
		      COMMIT, 0, ENTER, EXIT, ORDER)
SLUB07_FASTPATHS(LOCKED, C07_LOCKED, SLUB_NOTHING, SLUB_NOTHING, arch_smp_rmb)
SLUB07_FASTPATHS(LOCKED_BARRIER, C07_LOCKED, SLUB_NOTHING, SLUB_NOTHING, barrier)
SLUB07_FASTPATHS(LOCAL, C07_LOCAL, PREEMPT_OFF, PREEMPT_ON, barrier)
SLUB07_FASTPATHS(THIS_CPU, C07_THIS_CPU, SLUB_NOTHING, SLUB_NOTHING, barrier)
SLUB07_FASTPATHS(IRQOFF, C07_IRQOFF, SLUB_NOTHING, SLUB_NOTHING, barrier)

/* ---- rseq: per-CPU freelists shared by the threads of a CPU ----
 * The same in both fast paths (rseq restarts instead of needing a tid). Pop
 * and push are each one critical section (arch_rseq_pop, arch_rseq_push say
 * how), and the slow paths change a CPU's freelist only through such sections
 * too; c->slab is a hint that only steers frees to the fast or the slow path
 * (both keep every object in exactly one list). */
#if HAVE_RSEQ_MODEL
#define RSEQ_STRIDE sizeof(struct kmem_cpu)
#define RSEQ_SLAB_OFF (offsetof(struct kmem_cpu, slab) - offsetof(struct kmem_cpu, freelist))

static inline char *rseq_base(const struct slab_cache *s)
{
	return (char *)&rseq_cpu[s->id][0].freelist;
}

/* The kernel runs ___slab_alloc with interrupts off: one slow path per CPU
 * at a time. Threads sharing a CPU here can be preempted inside it, so a
 * per-CPU lock stands in (slow path only; the fast path stays lock-free).
 * Without it, two threads could both refill the same CPU slot: the loser
 * unfreezes the winner's CPU slab or leaves a frozen slab that is nobody's,
 * whose freed objects then reach no list until the end of the run. */
static int rseq_slow_lock[SLAB_MAX_CACHES][SLAB_MAX_CPUS];

static void *slab_alloc_slow_rseq_locked(struct slab_cache *s, struct kmem_cpu *c)
{
	int64_t idx = __atomic_load_n(&c->slab, __ATOMIC_RELAXED);
	void *fl = refill(s, &idx), *rest, *tail;
	unsigned cnt = 1;

	__atomic_store_n(&c->slab, idx, __ATOMIC_RELAXED);
	if (!fl || !(rest = slab_next(fl)))
		return fl;
	/* Install the rest on the CPU we are on now: into an empty freelist,
	 * else in front of what other threads pushed meanwhile, else (the slab
	 * is not that CPU's) back to the slab. */
	if (arch_rseq_cmpxchg(rseq_base(s), RSEQ_STRIDE, 0, U64(rest), __rseq_offset))
		return fl;
	for (tail = rest; slab_next(tail); tail = slab_next(tail))
		cnt++;
	if (!arch_rseq_push(rseq_base(s), RSEQ_STRIDE, RSEQ_SLAB_OFF, (uint64_t)idx, rest, tail,
			    __rseq_offset))
		slab_free_slow(s, (size_t)idx, rest, tail, cnt);
	return fl;
}

static __attribute__((noinline)) void *slab_alloc_slow_rseq(struct slab_cache *s, uint32_t cpu)
{
	int *lk = &rseq_slow_lock[s->id][cpu % SLAB_MAX_CPUS];
	void *obj;

	while (__atomic_exchange_n(lk, 1, __ATOMIC_ACQUIRE))
		sched_yield();	/* the holder may be preempted on this CPU */
	obj = slab_alloc_slow_rseq_locked(s, &rseq_cpu[s->id][cpu % SLAB_MAX_CPUS]);
	__atomic_store_n(lk, 0, __ATOMIC_RELEASE);
	return obj;
}

static inline void *alloc_RSEQ(struct slab_cache *s)
{
	uint32_t cpu;
	void *obj = arch_rseq_pop(rseq_base(s), RSEQ_STRIDE, __rseq_offset, &cpu);

	if (likely(obj))
		return obj;
	return slab_alloc_slow_rseq(s, cpu);
}

static inline void free_RSEQ(struct slab_cache *s, size_t idx, void *head, void *tail, unsigned cnt)
{
	if (unlikely(!arch_rseq_push(rseq_base(s), RSEQ_STRIDE, RSEQ_SLAB_OFF, (uint64_t)idx, head, tail,
				     __rseq_offset)))
		slab_free_slow(s, idx, head, tail, cnt);
}
#else
/* Never called: slub_variant_unavailable_in() refuses rseq here. */
#define alloc_RSEQ alloc_tid_LOCAL
#define free_RSEQ free_tid_LOCAL
#endif

static size_t list_len(const void *o)
{
	size_t n = 0;

	for (; o; o = slab_next(o))
		n++;
	return n;
}

size_t slab_free_in_slabs(const struct slab_cache *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nslabs; i++)
		n += list_len(s->meta[i].freelist);
	return n;
}

size_t slab_cpu_free_count(struct slab_cache *s, enum slub_variant v)
{
	size_t n = 0;

	if (v != SLUB_RSEQ)
		return list_len(cpu_slot(s)->freelist);
	for (size_t cpu = 0; rseq_cpu && cpu < SLAB_MAX_CPUS; cpu++)
		n += list_len(rseq_cpu[s->id][cpu].freelist);
	return n;
}

static void flush_one(struct slab_cache *s, struct kmem_cpu *c)
{
	while (c->freelist) {
		void *o = c->freelist;

		c->freelist = slab_next(o);
		slab_free_slow(s, slab_index(s, o), o, o, 1);
	}
	if (c->slab >= 0)
		unfreeze(s, (size_t)c->slab);
	c->slab = -1;
}

void slab_cpu_flush(struct slab_cache *s, enum slub_variant v)
{
	if (v != SLUB_RSEQ) {
		flush_one(s, cpu_slot(s));
		return;
	}
	for (size_t cpu = 0; rseq_cpu && cpu < SLAB_MAX_CPUS; cpu++)
		flush_one(s, &rseq_cpu[s->id][cpu]);
}

/* ---- the 2007 scoring ---- */

#define MAX_SIZES 32
/* The largest kmalloc size on the SLUB fast path in the kernel the post
 * measured: its figures for 4096 bytes and up show no cmpxchg/cmpxchg_local
 * difference and 2-10x the pair cost of the smaller sizes, the page
 * allocator's (docs/reproductions.md). */
#define SLUB_2007_MAX_SIZE 2048

/* Published figures: Mathieu Desnoyers, "Re: [PATCH] SLUB use cmpxchg_local",
 * LKML, 21 Aug 2007, "SLUB Performance testing", cycles on a 3 GHz Pentium 4.
 * The patches are against a 2.6.23-rc -mm SLUB (struct kmem_cache_cpu); the
 * "Linux/2.6.21.3-grsec (i686)" of the mail's header is the sender's host. */
#define PUB_SOURCE "M. Desnoyers, LKML 21 Aug 2007, \"Re: [PATCH] SLUB use cmpxchg_local\""
#define PUB_MACHINE "Pentium 4 3 GHz, 2.6.23-rc -mm SLUB (kmem_cache_cpu) + cmpxchg patches"
#define PUB_TEST1 "1. Kmalloc: Repeatedly allocate then free test (kfree here is slow path)"
#define PUB_TEST2 "2. Kmalloc: alloc/free test"
#define PAGE_ALLOC_NOTE "page allocator in 2007 (no SLUB fast path)"

/* Per size, as the post's tables give them: test 1's kmalloc and kfree with
 * cmpxchg, then with cmpxchg_local; test 2's pair with each. */
static const struct {
	unsigned size;
	double t1[4], t2[2];
} pub07[] = {
	{ 8, { 271, 645, 83, 363 }, { 321, 112 } },	{ 16, { 158, 428, 85, 372 }, { 308, 103 } },
	{ 32, { 153, 446, 92, 377 }, { 311, 103 } },	{ 64, { 178, 459, 115, 397 }, { 310, 103 } },
	{ 128, { 247, 481, 179, 438 }, { 306, 112 } },	{ 256, { 363, 605, 314, 564 }, { 325, 111 } },
	{ 512, { 449, 677, 398, 615 }, { 324, 111 } },	{ 1024, { 626, 810, 573, 745 }, { 322, 111 } },
	{ 2048, { 681, 869, 629, 816 }, { 309, 121 } },	{ 4096, { 471, 575, 473, 548 }, { 678, 650 } },
	{ 8192, { 666, 747, 659, 745 }, { 1027, 1042 } },	{ 16384, { 736, 853, 724, 843 }, { 1204, 1149 } },
};
#define PUB_ROWS ARRAY_SIZE(pub07)

/* A row label as the post prints it. */
static void row_label(char *buf, size_t len, int test, uint64_t size)
{
	snprintf(buf, len, test == 1 ? "kmalloc(%llu)" : "kmalloc(%llu)/kfree", (unsigned long long)size);
}

/* The published table of (fast path, test, variant), or NULL: the post
 * measured only the 2007 fast path with cmpxchg and cmpxchg_local. Made
 * from pub07 when first asked for; the caller gives it its title. */
static const struct repro_table *published(enum slub_fastpath fp, int test, enum slub_variant v)
{
	static struct repro_row rows[2][2][PUB_ROWS];
	static char lab[2][PUB_ROWS][32];
	static struct repro_table t[2][2];
	unsigned ti = (unsigned)test - 1, l = v == SLUB_LOCAL;

	if (fp != SLUB_FP_2007 || (v != SLUB_LOCKED && v != SLUB_LOCAL))
		return NULL;
	if (t[ti][l].rows)
		return &t[ti][l];
	for (size_t i = 0; i < PUB_ROWS; i++) {
		row_label(lab[ti][i], sizeof(lab[ti][i]), test, pub07[i].size);
		rows[ti][l][i] = (struct repro_row){ lab[ti][i],
			{ test == 1 ? pub07[i].t1[2 * l] : pub07[i].t2[l],
			  test == 1 ? pub07[i].t1[2 * l + 1] : 0 },
			pub07[i].size > SLUB_2007_MAX_SIZE ? PAGE_ALLOC_NOTE : NULL };
	}
	t[ti][l] = (struct repro_table){ .source = PUB_SOURCE, .machine = PUB_MACHINE,
		.unit = "cycles", .ncols = test == 1 ? 2 : 1,
		.cols = { test == 1 ? "kmalloc" : "kmalloc/kfree", "kfree" }, .nrows = PUB_ROWS,
		.rows = rows[ti][l] };
	return &t[ti][l];
}

/* Test 1: `objects` kmalloc timed as one loop, then `objects` kfree timed
 * as one loop (the kfree mostly takes the slow path: the objects belong to
 * slabs the CPU has left). Test 2: kmalloc/kfree pairs. Ticks per loop. */
#define SLUB_TIMERS(NAME)								\
static __attribute__((noinline)) void time_repeat_##NAME(struct slab_cache *s, void **obj, \
							 size_t n, double *ta, double *tf) \
{											\
	uint64_t t0, t1, t2;								\
											\
	t0 = arch_timer_start();							\
	for (size_t i = 0; i < n; i++)							\
		obj[i] = alloc_##NAME(s);						\
	t1 = arch_timer_stop();								\
	for (size_t i = 0; i < n; i++)							\
		free_##NAME(s, slab_index(s, obj[i]), obj[i], obj[i], 1);		\
	t2 = arch_timer_stop();								\
	*ta = (double)(t1 - t0);							\
	*tf = (double)(t2 - t1);							\
}											\
static __attribute__((noinline)) double time_pair_##NAME(struct slab_cache *s, size_t n) \
{											\
	uint64_t t0 = arch_timer_start();						\
											\
	for (size_t i = 0; i < n; i++) {						\
		void *o = alloc_##NAME(s);						\
											\
		free_##NAME(s, slab_index(s, o), o, o, 1);				\
	}										\
	return (double)(arch_timer_stop() - t0);					\
}

#define SLUB_FORMS(X) X(tid_LOCKED) X(tid_LOCAL) X(tid_THIS_CPU) X(tid_IRQOFF) X(y07_LOCKED) \
	X(y07_LOCKED_BARRIER) X(y07_LOCAL) X(y07_THIS_CPU) X(y07_IRQOFF) X(RSEQ)
SLUB_FORMS(SLUB_TIMERS)

/* Every form of each fast path: its timed loops, and its alloc and free for
 * slab_alloc/slab_free (cmpxchg+barrier, 2007 only, serves both rows). */
#define FORM(NAME) { time_repeat_##NAME, time_pair_##NAME, alloc_##NAME, free_##NAME }
#define FORMS(FP) {									\
	[SLUB_LOCKED] = FORM(FP##_LOCKED), [SLUB_LOCAL] = FORM(FP##_LOCAL),			\
	[SLUB_THIS_CPU] = FORM(FP##_THIS_CPU), [SLUB_RSEQ] = FORM(RSEQ),			\
	[SLUB_IRQOFF] = FORM(FP##_IRQOFF), [SLUB_LOCKED_BARRIER] = FORM(y07_LOCKED_BARRIER),	\
}
static const struct {
	void (*repeat)(struct slab_cache *s, void **obj, size_t n, double *ta, double *tf);
	double (*pair)(struct slab_cache *s, size_t n);
	void *(*alloc)(struct slab_cache *s);
	void (*free)(struct slab_cache *s, size_t idx, void *head, void *tail, unsigned cnt);
} forms[SLUB_FP__COUNT][SLUB__COUNT] = {
	[SLUB_FP_TID] = FORMS(tid), [SLUB_FP_2007] = FORMS(y07),
};

void *slab_alloc(struct slab_cache *s, enum slub_variant v)
{
	return forms[s->fastpath][v].alloc(s);
}

void slab_free(struct slab_cache *s, enum slub_variant v, void *obj)
{
	forms[s->fastpath][v].free(s, slab_index(s, obj), obj, obj, 1);
}

double slub_pub_saving(int test, unsigned col, const uint64_t *sizes, size_t nsizes, double *a,
		       double *b, const char **label)
{
	const struct repro_table *t = published(SLUB_FP_2007, test, SLUB_LOCAL);
	const struct repro_table *tc = published(SLUB_FP_2007, test, SLUB_LOCKED);
	size_t r[MAX_SIZES], n = 0, m;

	*a = *b = NAN;
	*label = NULL;
	if (col >= t->ncols)
		return NAN;
	for (size_t i = 0; i < nsizes && n < MAX_SIZES; i++)
		for (size_t k = 0; k < PUB_ROWS && n < MAX_SIZES; k++)
			if (pub07[k].size == sizes[i] && sizes[i] <= SLUB_2007_MAX_SIZE)
				r[n++] = k;
	if (!n)
		return NAN;
	/* sort the rows by their difference; the lower median is a row's own */
#define SAVING(j) (tc->rows[r[j]].v[col] - t->rows[r[j]].v[col])
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && SAVING(j) < SAVING(j - 1); j--) {
			m = r[j];
			r[j] = r[j - 1];
			r[j - 1] = m;
		}
#undef SAVING
	m = r[(n - 1) / 2];
	*a = t->rows[m].v[col];
	*b = tc->rows[m].v[col];
	*label = t->rows[m].label;
	return *b - *a;
}

/* Ticks of every timed loop: [variant][column][size][pass], and each
 * pass's CPU share (passes <= JUDGE_MAX_EPOCHS: the schema's bound). */
struct slub_run {
	struct repro_ctx *rc;
	const uint64_t *sizes;
	size_t nsizes, n, reps;
	void **obj;
	double *ticks, share[JUDGE_MAX_EPOCHS];
	json_t *jvar[SLUB__COUNT];	/* the fast path's per variant, made when first listed */
};
#define TICKS(r, v, col, si, k) \
	((r)->ticks[(((size_t)(v) * 2 + (col)) * (r)->nsizes + (si)) * (r)->reps + (k)])

/* Core cycles per op of a timed loop of r->n ops that took ticks. */
static double cycles(const struct slub_run *r, double ticks)
{
	return repro_cycles_per_op(ticks, r->rc->cal->overhead_median, (double)r->n,
				   r->rc->cal->ticks_per_cycle);
}

/* Summary over the passes of variant v's figure in column col at size si,
 * and its value in each (cycles). */
static json_t *summary_json(const struct slub_run *r, enum slub_variant v, unsigned col, size_t si)
{
	double c[JUDGE_MAX_EPOCHS];
	struct summary sm;

	for (size_t k = 0; k < r->reps; k++)
		c[k] = cycles(r, TICKS(r, v, col, si, k));
	stats_summarize(c, r->reps, &sm);
	return json_pack("{s:f,s:f,s:f,s:f,s:f,s:I,s:o}", "median_cycles", sm.median, "min_cycles",
			 sm.min, "ci_lo", sm.ci_lo, "ci_hi", sm.ci_hi, "mean_cycles", sm.mean, "n",
			 (json_int_t)r->reps, "passes", repro_doubles_json(c, r->reps));
}

/* Pass k's cycles per op of each variant of vs[0..nv): per column (test 1:
 * kmalloc, kfree; test 2: the pair), per size. */
static json_t *pass_json(const struct slub_run *r, int test, const enum slub_variant *vs, size_t nv,
			 size_t k)
{
	json_t *j = json_object();

	for (size_t i = 0; i < nv; i++) {
		json_t *cols = json_array();

		for (unsigned col = 0; col < (test == 1 ? 2u : 1u); col++) {
			double c[MAX_SIZES];

			for (size_t si = 0; si < r->nsizes; si++)
				c[si] = cycles(r, TICKS(r, vs[i], col, si, k));
			json_array_append_new(cols, repro_doubles_json(c, r->nsizes));
		}
		json_object_set_new(j, slub_variant_names[vs[i]], cols);
	}
	return j;
}

/* One timed loop (two for test 1) of variant v, size si, pass k, on a fresh
 * cache warmed by one untimed loop (faults the arena in). */
static int time_one(struct slub_run *r, enum slub_fastpath fp, int test, enum slub_variant v,
		    size_t si, size_t k)
{
	struct slab_cache s;
	double *ta = &TICKS(r, v, 0, si, k), *tf = &TICKS(r, v, 1, si, k);
	int ret = slab_cache_init(&s, r->sizes[si], r->n);

	if (ret < 0)
		return ret;
	s.fastpath = fp;
	if (test == 1) {
		forms[fp][v].repeat(&s, r->obj, r->n, ta, tf);
		slab_cache_reset(&s);
		forms[fp][v].repeat(&s, r->obj, r->n, ta, tf);
	} else {
		forms[fp][v].pair(&s, r->n);
		*ta = forms[fp][v].pair(&s, r->n);
	}
	slab_cache_destroy(&s);
	return 0;
}

/* One (fast path, test): r->reps passes; each pass times every size, and
 * for each size the nv variants vs[] one after the other, in an order that
 * turns from pass to pass (reversed every other pass, rotated every two),
 * so that drift and disturbances fall on all of them alike and every pass
 * holds a paired figure of each. */
static int measure(struct slub_run *r, enum slub_fastpath fp, int test, const enum slub_variant *vs,
		   size_t nv)
{
	char what[48];

	snprintf(what, sizeof(what), "%s, test %d", slub_fastpath_names[fp], test);
	for (size_t k = 0; k < r->reps; k++) {
		struct quiet_mark pass;

		do {
			/* the pass's share: its least clean figure's */
			quiet_start(&pass);
			r->share[k] = 1;
			for (size_t si = 0; si < r->nsizes; si++) {
				for (size_t j = 0; j < nv; j++) {
					size_t o = (j + k / 2) % nv;
					struct repro_figure f = { .pt = r->rc->patience };
					double sh;
					int ret;

					do {
						repro_figure_start(&f);
						ret = time_one(r, fp, test, vs[k & 1 ? nv - 1 - o : o], si, k);
						if (ret < 0)
							return ret;
					} while (repro_figure_again(&f, &sh));
					r->share[k] = fmin(r->share[k], sh);
				}
			}
		} while (repro_pass_again(r->rc, &pass, r->share[k], what, k,
					  pass_json(r, test, vs, nv, k)));
	}
	return 0;
}

/* Pass k's figure of variant v in column col: the median over the sizes on
 * the 2007 fast path (<= SLUB_2007_MAX_SIZE) of its cycles per op. */
static double pass_figure(struct slub_run *r, enum slub_variant v, unsigned col, size_t k)
{
	double c[MAX_SIZES];
	size_t n = 0;

	for (size_t si = 0; si < r->nsizes; si++)
		if (r->sizes[si] <= SLUB_2007_MAX_SIZE)
			c[n++] = cycles(r, TICKS(r, v, col, si, k));
	return n ? stats_median(c, n) : NAN;
}

/* The claims of one fast path: on 2007 the post's saving and its two parts
 * (the lock prefix with the preempt count, and the rmb), on 2011 the lock
 * alone (no rmb there). a is claimed to cost less than b. */
static const struct slub_claim {
	enum slub_variant a, b;
	const char *part;		/* NULL on 2011 */
	const char *words[3];		/* the post's, per column: kmalloc, kfree, pair */
} claims07[] = {
	{ SLUB_LOCAL, SLUB_LOCKED, "the whole saving",
	  { "it saves about 60 to 70 cycles for kmalloc", NULL,
	    "and 200 cycles for the kmalloc/kfree pair (test 2)" } },
	{ SLUB_LOCAL, SLUB_LOCKED_BARRIER, "the lock's part",
	  { "cmpxchg_local is faster", "cmpxchg_local is faster", "cmpxchg_local is faster" } },
	{ SLUB_LOCKED_BARRIER, SLUB_LOCKED, "the fence's part",
	  { NULL, "we can use barrier() instead of rmb()", "we can use barrier() instead of rmb()" } },
}, claims11[] = { { SLUB_LOCAL, SLUB_LOCKED, NULL, { NULL } } };

static const char *claim_name(enum slub_fastpath fp, enum slub_variant v)
{
	if (fp == SLUB_FP_2007 && v == SLUB_LOCKED)
		return "cmpxchg+rmb";
	return slub_variant_names[v];
}

/* Claim cl of fast path fp for column col of test, over the passes. */
static void conclude_one(struct slub_run *r, enum slub_fastpath fp, int test, unsigned col,
			 const struct slub_claim *cl)
{
	static const char *const what[2][2] = {
		{ "per kmalloc (test 1)", "per kfree (test 1, slow path)" },
		{ "per kmalloc/kfree pair (test 2)", NULL },
	};
	unsigned wi = test == 1 ? col : 2;
	double ea[JUDGE_MAX_EPOCHS], eb[JUDGE_MAX_EPOCHS];
	char w[160];
	struct repro_claim c = {
		.what = w, .a = claim_name(fp, cl->a), .b = claim_name(fp, cl->b), .unit = "cycles",
		.ea = ea, .eb = eb, .n = r->reps, .share = r->share, .pub_unit = "cycles",
		.pub_a = NAN, .pub_b = NAN, .pub_words = cl->words[wi], .pub_machine = PUB_MACHINE,
		.per_pass = true,
	};

	snprintf(w, sizeof(w), "%s, %s fast path, sizes <= %d%s%s%s", what[test - 1][col],
		 slub_fastpath_names[fp], SLUB_2007_MAX_SIZE, cl->part ? ", " : "",
		 cl->part ? cl->part : "",
		 cl->b == SLUB_LOCKED && cl->a == SLUB_LOCKED_BARRIER && wi == 0
			 ? " (kmalloc has no fence: a control)" : "");
	for (size_t k = 0; k < r->reps; k++) {
		ea[k] = pass_figure(r, cl->a, col, k);
		eb[k] = pass_figure(r, cl->b, col, k);
	}
	if (fp == SLUB_FP_2007 && cl->a == SLUB_LOCAL && cl->b == SLUB_LOCKED) {
		slub_pub_saving(test, col, r->sizes, r->nsizes, &c.pub_a, &c.pub_b, &c.pub_row);
		c.pub_derived = true;
	}
	repro_conclude(r->rc, &c);
	if (c.pub_row)
		fprintf(r->rc->out, "  (derived: the post states no single figure; the median of its "
				    "per-size savings over these sizes is the one at %s)\n", c.pub_row);
}

/* Every claim of fast path fp for test, given which variants were timed. */
static void conclude(struct slub_run *r, enum slub_fastpath fp, int test, const bool *have)
{
	const struct slub_claim *cls = fp == SLUB_FP_2007 ? claims07 : claims11;
	size_t ncl = fp == SLUB_FP_2007 ? ARRAY_SIZE(claims07) : ARRAY_SIZE(claims11);

	for (unsigned col = 0; col < (test == 1 ? 2u : 1u); col++)
		for (size_t i = 0; i < ncl; i++)
			if (have[cls[i].a] && have[cls[i].b])
				conclude_one(r, fp, test, col, &cls[i]);
}

/* What this machine changes: test 1's objects against its caches, the
 * slabs it sizes from its CPUs. */
static void print_changes(const struct slub_run *r)
{
	char objs[300], geo[200], a[32], b[32], c[32], d[32];
	const char *items[] = { objs, geo };
	size_t hi = 0;
	unsigned sh, objs_hi;

	for (size_t si = 0; si < r->nsizes; si++)
		hi = r->sizes[si] > hi ? r->sizes[si] : hi;
	snprintf(objs, sizeof(objs), "test 1 holds %zu objects at once, %s at %zu bytes, against this "
		 "machine's L1d of %s and L2 of %s (declared); the post does not give its Pentium "
		 "4's caches", r->n, repro_bytes(a, sizeof(a), r->n * hi), hi,
		 repro_bytes(b, sizeof(b), repro_cache(r->rc, 1)),
		 repro_bytes(c, sizeof(c), repro_cache(r->rc, 2)));
	objs_hi = slab_geometry(hi ? hi : 8, slab_model_cpus(), &sh);
	snprintf(geo, sizeof(geo), "slabs sized for this machine's %u CPUs (the kernel's rule: at "
		 "least %u objects): %u objects per %s slab at %zu bytes; how often test 1 reaches "
		 "the slow paths follows from it", slab_model_cpus(),
		 slab_min_objects(slab_model_cpus()), objs_hi,
		 repro_bytes(d, sizeof(d), (size_t)1 << sh), hi);
	repro_print_changes(r->rc, items, ARRAY_SIZE(items));
}

/* What the model leaves out of what the post ran, printed with the tables. */
static const char *const deviations[] = {
	"user space: one pinned thread; \"per-CPU\" data is the thread's, no other CPU touches it",
	"preempt_disable/enable: incl/decl of a thread-local count, no scheduler behind it",
	"no interrupts: cmpxchg_local's safety against them is never exercised",
	ARCH_NAME " (8-byte freelist; smp_rmb() is " ARCH_INSN_SMP_RMB ") where the post ran i686 "
	"on a Pentium 4 (4-byte freelist; rmb() an lfence on SSE2 CPUs)",
	"kmalloc: one cache per size, no size lookup, no NUMA node check, no debug hooks",
	"test 1's kfree is the slow path (the post says so), and the model's slow path is the "
	"kernel's since 2011: a locked cmpxchg16b on the slab's {freelist, counters}, an empty "
	"slab kept partial; 2007's __slab_free took slab_lock (a bit spinlock on the page), "
	"stored the object and discarded an empty slab to the page allocator (2.6.23 "
	"mm/slub.c), costs its kfree column carries and this model's does not",
	"sizes >= 4096 went to the page allocator in 2007: published only, not modelled",
	"cycles: whole-loop TSC minus the timer pair, scaled to core cycles (no PMU)",
};

#define SEC "slub-cmpxchg-local"

/* The order the variants are timed and printed in: the post's two forms
 * and the fence's twin first. */
static const enum slub_variant slub_order[] = {
	SLUB_LOCKED, SLUB_LOCKED_BARRIER, SLUB_LOCAL, SLUB_THIS_CPU, SLUB_RSEQ, SLUB_IRQOFF,
};

/* Variant v's measured table, per size the median over the passes, beside
 * the post's (or beside none), and its JSON. */
static int print_variant(struct slub_run *r, enum slub_fastpath fp, int test, enum slub_variant v,
			 const char *title)
{
	const struct repro_table *pub = published(fp, test, v);
	struct repro_row rows[MAX_SIZES];
	struct repro_table shown, meas = { .title = title, .machine = r->rc->machine,
		.unit = "core cycles", .ncols = test == 1 ? 2 : 1,
		.cols = { test == 1 ? "kmalloc" : "kmalloc/kfree", "kfree" }, .nrows = r->nsizes,
		.rows = rows };
	char lab[MAX_SIZES][32], reason[128];

	for (size_t si = 0; si < r->nsizes; si++) {
		char key[32];

		row_label(lab[si], sizeof(lab[si]), test, r->sizes[si]);
		rows[si] = (struct repro_row){ .label = lab[si], .v = { NAN, NAN, NAN, NAN } };
		if (r->sizes[si] > SLUB_2007_MAX_SIZE)
			rows[si].note = "page allocator in 2007; SLUB fast path here";
		for (unsigned col = 0; col < meas.ncols; col++)
			rows[si].v[col] = cycles(r, stats_median(&TICKS(r, v, col, si, 0), r->reps));
		snprintf(key, sizeof(key), "%s%llu", test == 1 ? "repeat_" : "pair_",
			 (unsigned long long)r->sizes[si]);
		json_object_set_new(r->jvar[v], key, test == 2 ? summary_json(r, v, 0, si)
				    : json_pack("{s:o,s:o}", "kmalloc", summary_json(r, v, 0, si),
						"kfree", summary_json(r, v, 1, si)));
	}
	snprintf(reason, sizeof(reason), "the post measured %s",
		 fp == SLUB_FP_2007 ? "cmpxchg with rmb() and cmpxchg_local with barrier() only"
				    : "the 2007 fast path only");
	shown = pub ? *pub : (struct repro_table){ .source = reason, .unit = "cycles",
		.ncols = meas.ncols, .cols = { meas.cols[0], meas.cols[1] } };
	shown.title = title;
	return repro_print_beside(r->rc->out, &shown, &meas);
}

/* One test of fast path fp: the listed variants that run here, timed over
 * the passes, printed, and the claims judged. 0 or -errno. */
static int run_test(struct slub_run *r, enum slub_fastpath fp, int test, json_t *jv)
{
	FILE *out = r->rc->out;
	char title[SLUB__COUNT][320];
	enum slub_variant vs[SLUB__COUNT];
	bool have[SLUB__COUNT] = { false };
	size_t nv = 0;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(slub_order); i++) {
		enum slub_variant v = slub_order[i];
		const char *why, *name = slub_variant_names[v];

		/* cmpxchg+barrier comes with cmpxchg, on the 2007 fast path */
		if (!config_list_has(r->rc->exp, SEC, "variants",
				     slub_variant_names[v == SLUB_LOCKED_BARRIER ? SLUB_LOCKED : v]) ||
		    (v == SLUB_LOCKED_BARRIER && fp != SLUB_FP_2007))
			continue;
		why = slub_variant_unavailable_in(fp, v);
		snprintf(title[v], sizeof(title[v]), "%s * %s [%s fast path: %s]",
			 test == 1 ? PUB_TEST1 : PUB_TEST2, name, slub_fastpath_names[fp],
			 slub_insn[fp][v]);
		if (!r->jvar[v]) {
			r->jvar[v] = json_pack("{s:s}", "insn", slub_insn[fp][v]);
			json_object_set_new(jv, name, r->jvar[v]);
		}
		if (why) {
			fprintf(out, "%s\n  unavailable: %s\n", title[v], why);
			json_object_set_new(r->jvar[v], "unavailable", json_string(why));
			continue;
		}
		vs[nv++] = v;
		have[v] = true;
	}
	if (!nv)
		return 0;
	ret = measure(r, fp, test, vs, nv);
	for (size_t j = 0; j < nv && ret == 0; j++)
		ret = print_variant(r, fp, test, vs[j], title[vs[j]]);
	if (ret == 0)
		conclude(r, fp, test, have);
	fflush(out);
	return ret;
}

/* The 2007 test as it was run, in atomcost.ko (kernel/prims.c, ops.c):
 * cmpxchg and cmpxchg_local with irqs off, and the plain update under
 * local_irq_save. */
static char *kernel07_probes[] = { "cmpxchg", "cmpxchg_local", "local_irq_save:store" };
static const struct repro_kclaim kernel07_claims[] = {
	{ "per op, the 2007 test", "cmpxchg_local", "cmpxchg" },
	{ "per op, the 2007 test", "cmpxchg_local", "local_irq_save:store" },
};
static const struct repro_kernel kernel07 = {
	.sec = SEC, .title = "The 2007 test in the kernel: cmpxchg, cmpxchg_local (irqs off), irq save/restore",
	.pub = "the post gives per-op figures in its text only: the tables above are per kmalloc",
	.probes = kernel07_probes, .nprobes = ARRAY_SIZE(kernel07_probes),
	.claims = kernel07_claims, .nclaims = ARRAY_SIZE(kernel07_claims),
};

static int repro_slub_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	uint64_t sizes[MAX_SIZES];
	struct slub_run r = { .rc = rc, .sizes = sizes };
	json_t *jfp = json_object();
	int ret = 0;

	r.nsizes = config_u64_list(e, SEC, "sizes", sizes, MAX_SIZES);
	r.n = config_u64(e, SEC, "objects");
	r.reps = config_u64(e, SEC, "passes");
	repro_doc_own(rc->doc, "fastpaths", jfp);
	repro_doc_own(rc->doc, "cycles", json_string("core cycles (TSC ticks - timer pair) / ticks per cycle"));
	for (size_t i = 0; i < r.nsizes; i++)
		if (sizes[i] % 8) {
			pr_err("%s: sizes: %llu is not a multiple of 8 (expected 8, 16, 32, ...)", SEC,
			       (unsigned long long)sizes[i]);
			return -EINVAL;
		}
	r.obj = malloc(r.n * sizeof(void *));
	r.ticks = malloc((size_t)SLUB__COUNT * 2 * r.nsizes * r.reps * sizeof(double));
	if (!r.obj || !r.ticks) {
		ret = -ENOMEM;
		goto out;
	}

	fprintf(rc->out, "SLUB Performance testing (atomcost user-space model, %zu objects per loop, "
			 "%zu passes, forms interleaved in each, core cycles: per size the median over the "
			 "passes)\n========================\n", r.n, r.reps);
	repro_print_list(rc->out, "Deviations from what the post ran:", deviations,
			 ARRAY_SIZE(deviations));
	print_changes(&r);
	for (int f = SLUB_FP__COUNT - 1; f >= 0 && ret == 0; f--) {	/* 2007 first */
		enum slub_fastpath fp = (enum slub_fastpath)f;
		json_t *jv;

		if (!config_list_has(e, SEC, "fastpath", slub_fastpath_names[fp]))
			continue;
		jv = json_object();
		json_object_set_new(jfp, slub_fastpath_names[fp], jv);
		memset(r.jvar, 0, sizeof(r.jvar));
		fprintf(rc->out, "\n--- %s fast path: %s\n", slub_fastpath_names[fp],
			fp == SLUB_FP_2007 ? "the per-CPU freelist word, single-word cmpxchg (the post's)"
					   : "{freelist, tid} pair, cmpxchg16b (the kernel since 2011)");
		for (int test = 1; test <= 2 && ret == 0; test++)
			if (config_list_has(e, SEC, "tests", test == 1 ? "repeat" : "pair"))
				ret = run_test(&r, fp, test, jv);
	}
	if (ret == 0)
		ret = repro_kernel_run(rc, &kernel07);
out:
	free(r.obj);
	free(r.ticks);
	return ret;
}

const struct repro repro_slub_cmpxchg_local = {
	.kind = "slub-cmpxchg-local", .seed = "slub-cmpxchg-local-2007", .run = repro_slub_run,
	.source = "Mathieu Desnoyers, LKML, 21 Aug 2007, \"Re: [PATCH] SLUB use cmpxchg_local\"",
	REPRO_KEYS(
	{ "slub-cmpxchg-local", "variants", CFG_ENUM_LIST, "cmpxchg,cmpxchg_local,this_cpu,rseq,irq-off",
	  "cmpxchg|cmpxchg_local|this_cpu|rseq|irq-off", 0, 0, NULL,
	  "fast-path forms (2011 / 2007): cmpxchg (lock cmpxchg16b / lock cmpxchgq with the "
	  "2007 rmb, and a cmpxchg+barrier twin without it), cmpxchg_local, this_cpu (%fs:), "
	  "rseq, irq-off (plain loads/stores in a saved-flags analog)" },
	{ "slub-cmpxchg-local", "fastpath", CFG_ENUM_LIST, "2007", "2007|2011", 0, 0, NULL,
	  "fast-path models: 2007 (single-word per-CPU freelist: cmpxchg is lock cmpxchgq, cmpxchg_local "
	  "is cmpxchgq in a preempt_disable analog, as the post measured), 2011 (freelist + tid pair "
	  "committed by cmpxchg16b, the kernel since 2011)" },
	{ "slub-cmpxchg-local", "tests", CFG_ENUM_LIST, "repeat,pair", "repeat|pair", 0, 0, NULL,
	  "repeat: N kmalloc then N kfree (2007 test 1); pair: kmalloc/kfree pairs (test 2)" },
	{ "slub-cmpxchg-local", "sizes", CFG_U64_LIST, "8,16,32,64,128,256,512,1024,2048,4096,8192,16384",
	  NULL, 8, 1 << 20, NULL,
	  "object sizes, bytes (multiples of 8)" },
	{ "slub-cmpxchg-local", "objects", CFG_U64, "10000", NULL, 1, 10000000, NULL,
	  "objects per timed loop (2007: 10000)" },
	{ "slub-cmpxchg-local", "passes", CFG_U64, "21", NULL, 1, JUDGE_MAX_EPOCHS, NULL,
	  "passes, each timing every form at every size (order reversed every other pass); "
	  "conclusions judge the passes' paired figures" },
	REPRO_CONTEXT_KEY("slub-cmpxchg-local")),
};
