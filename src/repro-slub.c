/* repro-slub.c - a user-space model of the SLUB fast path, and the 2007
 * "SLUB use cmpxchg_local" scoring (seed slub-cmpxchg-local-2007).
 *
 * The model (../shared/reference/kernel-primitives.md "SLUB fast path"):
 * a per-CPU pair {freelist, tid} (16 bytes, 16-byte aligned; here one per
 * thread, in TLS, which is what "per-CPU" means to a pinned thread); slabs
 * aligned to their size so that the slab of an object is an address mask;
 * alloc = read tid, compiler barrier, read freelist and the object's next
 * pointer, cmpxchg128 {obj, tid} -> {next, tid + TID_STEP}; free pushes the
 * same way when the object belongs to the CPU's slab, else it goes to the
 * slab's own {freelist, counters} pair with a LOCKED cmpxchg128 (remote free).
 * The variants differ only in the instruction of the fast-path commit: the
 * fast paths are generated from one macro, so they are identical otherwise.
 */
#include "repro.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_SYS_RSEQ 1
#endif
#endif

#include "arch/arch.h"
#include "common.h"
#include "stats.h"

#define TID_STEP 1024		/* power of two >= CPUs: tids never collide across CPUs */
#define SLAB_MAX_CACHES 64
#define SLAB_MAX_CPUS 1024
#define FROZEN (1ull << 32)
#define INUSE(c) ((uint32_t)(c))
#define barrier() asm volatile("" ::: "memory")
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

const char *const slub_variant_names[SLUB__COUNT] = {
	[SLUB_LOCKED] = "cmpxchg", [SLUB_LOCAL] = "cmpxchg_local", [SLUB_THIS_CPU] = "this_cpu",
	[SLUB_RSEQ] = "rseq", [SLUB_IRQOFF] = "irq-off",
};
const char *const slub_variant_insn[SLUB__COUNT] = {
	[SLUB_LOCKED] = "lock cmpxchg16b",
	[SLUB_LOCAL] = "cmpxchg16b (no lock)",
	[SLUB_THIS_CPU] = "cmpxchg16b %fs:off",
	[SLUB_RSEQ] = "rseq: cmpq; jnz; movq (commit store)",
	[SLUB_IRQOFF] = "pushfq;popq + flag, plain movq",
};

/* The per-CPU pair and the CPU's current slab. */
struct kmem_cpu {
	void *freelist;
	uint64_t tid;
	int64_t slab;		/* slab index, -1: none */
	uint64_t gen;		/* == cache gen when this slot is the cache's */
} __attribute__((aligned(16)));

static __thread struct kmem_cpu slab_tls[SLAB_MAX_CACHES] __attribute__((tls_model("initial-exec")));
static __thread volatile int slab_irqs_off __attribute__((tls_model("initial-exec")));
/* rseq: one pair per CPU, found by the rseq area's cpu_id. */
static struct kmem_cpu (*rseq_cpu)[SLAB_MAX_CPUS];
static uint64_t slab_gen_counter;
static unsigned slab_id_counter;

const char *slub_variant_unavailable(enum slub_variant v)
{
	switch (v) {
	case SLUB_LOCKED:
	case SLUB_LOCAL:
		return ARCH_HAS_CMPXCHG128 ? NULL : "no 16-byte compare-and-exchange on this architecture";
	case SLUB_THIS_CPU:
#if defined(ARCH_HAS_SEG_PERCPU128) && ARCH_HAS_SEG_PERCPU128
		return NULL;
#else
		return "no segment-relative cmpxchg128 on this architecture";
#endif
	case SLUB_RSEQ:
#if defined(ARCH_HAS_RSEQ) && ARCH_HAS_RSEQ && defined(HAVE_SYS_RSEQ)
		if (__rseq_size == 0)
			return "glibc did not register rseq (GLIBC_TUNABLES=glibc.pthread.rseq=0, or an old kernel)";
		return NULL;
#else
		return "no rseq critical sections for this architecture/libc";
#endif
	case SLUB_IRQOFF:
		return NULL;
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

static void node_unlock(struct slab_cache *s)
{
	arch_store(&s->lock, 0);
}

/* ---- cache setup ---- */

static int rseq_alloc_once(void)
{
	if (rseq_cpu)
		return 0;
	rseq_cpu = aligned_alloc(64, sizeof(*rseq_cpu) * SLAB_MAX_CACHES);
	if (!rseq_cpu)
		return -ENOMEM;
	memset(rseq_cpu, 0, sizeof(*rseq_cpu) * SLAB_MAX_CACHES);
	return 0;
}


int slab_cache_init(struct slab_cache *s, size_t size, size_t max_objects)
{
	size_t slab_bytes;

	memset(s, 0, sizeof(*s));
	if (size < 8 || size % 8) {
		pr_err("slab model: object size %zu is not a multiple of 8 (expected 8, 16, ...)", size);
		return -EINVAL;
	}
	s->size = size;
	/* kernel calculate_order(): at least 4 * (fls(nr_cpus) + 1) objects
	 * (12 for 2 CPUs) up to order 3 */
	s->shift = 12;
	while ((1ul << s->shift) / size < 12 && s->shift < 15)
		s->shift++;
	while ((1ul << s->shift) < size)
		s->shift++;
	slab_bytes = 1ul << s->shift;
	s->objs = (unsigned)(slab_bytes / size);
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
	if (rseq_alloc_once() < 0) {
		munmap(s->map, s->map_size);
		free(s->meta);
		return -ENOMEM;
	}
	s->id = __atomic_fetch_add(&slab_id_counter, 1, __ATOMIC_RELAXED) % SLAB_MAX_CACHES;
	slab_cache_reset(s);
	return 0;
}

void slab_cache_reset(struct slab_cache *s)
{
	s->nslabs = 0;
	s->partial = -1;
	s->lock = 0;
	s->gen = __atomic_add_fetch(&slab_gen_counter, 1, __ATOMIC_RELAXED);
}

void slab_cache_destroy(struct slab_cache *s)
{
	if (s->map)
		munmap(s->map, s->map_size);
	free(s->meta);
	memset(s, 0, sizeof(*s));
}

/* ---- slow paths (shared by every variant, never timed apart) ---- */

static inline void *get_next(const void *obj)
{
	return *(void *const *)obj;
}

static inline void set_next(void *obj, void *next)
{
	*(void **)obj = next;
}

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
		set_next(base + i * s->size, base + (i + 1) * s->size);
	set_next(base + (s->objs - 1) * s->size, NULL);
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

	for (;;) {
		if (arch_cmpxchg128(&m->freelist, old, 0, (uint64_t)s->objs | FROZEN))
			return (void *)(uintptr_t)old[0];
	}
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

/* __slab_free: cnt objects head..tail of slab idx to the slab's own list. */
static __attribute__((noinline)) void slab_free_slow(struct slab_cache *s, size_t idx, void *head,
						      void *tail, unsigned cnt)
{
	struct slab_meta *m = &s->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };
	bool was_full;

	do {
		set_next(tail, (void *)(uintptr_t)old[0]);
		was_full = !old[0] && !(old[1] & FROZEN);
	} while (!arch_cmpxchg128(&m->freelist, old, (uint64_t)(uintptr_t)head, old[1] - cnt));
	if (was_full)
		add_partial(s, idx);
}

static inline struct kmem_cpu *cpu_slot(struct slab_cache *s, enum slub_variant v)
{
	struct kmem_cpu *c;

#if defined(ARCH_HAS_RSEQ) && ARCH_HAS_RSEQ && defined(HAVE_SYS_RSEQ)
	if (v == SLUB_RSEQ)
		c = &rseq_cpu[s->id][arch_rseq_cpu_start(__rseq_offset) % SLAB_MAX_CPUS];
	else
#endif
		c = &slab_tls[s->id];
	if (unlikely(c->gen != s->gen)) {
		c->freelist = NULL;
		c->slab = -1;
		c->tid = 0;
		c->gen = s->gen;
	}
	return c;
}

/* ___slab_alloc: the CPU freelist is empty. Runs with "irqs off" in the
 * kernel: here the CPU pair belongs to the calling thread. */
static __attribute__((noinline)) void *slab_alloc_slow(struct slab_cache *s, struct kmem_cpu *c)
{
	void *fl = NULL;
	int64_t idx = c->slab;

	if (idx >= 0)
		fl = take_freelist(s, (size_t)idx);	/* remote frees since */
	while (!fl) {
		if (idx >= 0)
			unfreeze(s, (size_t)idx);
		idx = get_partial(s);
		if (idx < 0)
			idx = new_slab(s);
		if (idx < 0) {
			c->slab = -1;
			return NULL;
		}
		fl = take_freelist(s, (size_t)idx);
	}
	c->slab = idx;
	c->freelist = get_next(fl);
	c->tid += TID_STEP;
	return fl;
}

/* ---- the fast paths, one per variant, from one template ---- */

#define COMMIT_LOCKED(c, old, nlo, nhi) arch_cmpxchg128(&(c)->freelist, old, nlo, nhi)
#define COMMIT_LOCAL(c, old, nlo, nhi) arch_cmpxchg128_nl(&(c)->freelist, old, nlo, nhi)
#define COMMIT_THIS_CPU(c, old, nlo, nhi) arch_percpu_cmpxchg128(arch_percpu_offset(c), old, nlo, nhi)
/* irq-off analog: local_irq_save (flags read + thread-local "off" flag),
 * plain stores, local_irq_restore. Only this thread touches c. */
static inline bool commit_irqoff(struct kmem_cpu *c, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
#if defined(ARCH_HAS_LOCK_INSNS) && ARCH_HAS_LOCK_INSNS
	uint64_t flags = arch_save_flags();

	asm volatile("" : : "r"(flags));
#endif
	slab_irqs_off = 1;
	barrier();
	arch_store(&c->freelist, nlo);
	arch_store(&c->tid, nhi);
	barrier();
	slab_irqs_off = 0;
	return true;
}
#define COMMIT_IRQOFF(c, old, nlo, nhi) commit_irqoff(c, old, nlo, nhi)
#if defined(ARCH_HAS_RSEQ) && ARCH_HAS_RSEQ && defined(HAVE_SYS_RSEQ)
/* rseq: the freelist word of this CPU's pair, committed by one store inside
 * a critical section that restarts on preemption or migration. The tid is
 * not needed (rseq aborts instead), it is bumped after for the model's
 * bookkeeping only. */
static inline bool commit_rseq(struct kmem_cpu *c, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
	size_t k = (size_t)(c - &rseq_cpu[0][0]);
	char *base = (char *)&rseq_cpu[k / SLAB_MAX_CPUS][0].freelist;

	if (!arch_rseq_cmpxchg(base, sizeof(*c), old[0], nlo, __rseq_offset))
		return false;
	c->tid = nhi;
	return true;
}
#define COMMIT_RSEQ(c, old, nlo, nhi) commit_rseq(c, old, nlo, nhi)
#else
#define COMMIT_RSEQ(c, old, nlo, nhi) COMMIT_LOCAL(c, old, nlo, nhi)
#endif

#define SLUB_FASTPATHS(V, COMMIT)							\
static inline void *alloc_##V(struct slab_cache *s)					\
{											\
	struct kmem_cpu *c = cpu_slot(s, SLUB_##V);					\
											\
	for (;;) {									\
		uint64_t tid = c->tid, old[2];						\
		void *obj;								\
											\
		barrier();								\
		obj = c->freelist;							\
		if (unlikely(!obj))							\
			return slab_alloc_slow(s, c);					\
		old[0] = (uint64_t)(uintptr_t)obj;					\
		old[1] = tid;								\
		if (likely(COMMIT(c, old, (uint64_t)(uintptr_t)get_next(obj), tid + TID_STEP))) \
			return obj;							\
	}										\
}											\
static inline void free_##V(struct slab_cache *s, size_t idx, void *head, void *tail, \
			    unsigned cnt)						\
{											\
	struct kmem_cpu *c = cpu_slot(s, SLUB_##V);					\
											\
	for (;;) {									\
		uint64_t tid = c->tid, old[2];						\
		void *fl;								\
											\
		barrier();								\
		if (unlikely((int64_t)idx != c->slab)) {				\
			slab_free_slow(s, idx, head, tail, cnt);			\
			return;								\
		}									\
		fl = c->freelist;							\
		set_next(tail, fl);							\
		old[0] = (uint64_t)(uintptr_t)fl;					\
		old[1] = tid;								\
		if (likely(COMMIT(c, old, (uint64_t)(uintptr_t)head, tid + TID_STEP)))	\
			return;								\
	}										\
}

SLUB_FASTPATHS(LOCKED, COMMIT_LOCKED)
SLUB_FASTPATHS(LOCAL, COMMIT_LOCAL)
SLUB_FASTPATHS(THIS_CPU, COMMIT_THIS_CPU)
SLUB_FASTPATHS(RSEQ, COMMIT_RSEQ)
SLUB_FASTPATHS(IRQOFF, COMMIT_IRQOFF)

void *slab_alloc(struct slab_cache *s, enum slub_variant v)
{
	switch (v) {
	case SLUB_LOCKED: return alloc_LOCKED(s);
	case SLUB_LOCAL: return alloc_LOCAL(s);
	case SLUB_THIS_CPU: return alloc_THIS_CPU(s);
	case SLUB_RSEQ: return alloc_RSEQ(s);
	default: return alloc_IRQOFF(s);
	}
}

void slab_free(struct slab_cache *s, enum slub_variant v, void *obj)
{
	size_t idx = slab_index(s, obj);

	switch (v) {
	case SLUB_LOCKED: free_LOCKED(s, idx, obj, obj, 1); break;
	case SLUB_LOCAL: free_LOCAL(s, idx, obj, obj, 1); break;
	case SLUB_THIS_CPU: free_THIS_CPU(s, idx, obj, obj, 1); break;
	case SLUB_RSEQ: free_RSEQ(s, idx, obj, obj, 1); break;
	default: free_IRQOFF(s, idx, obj, obj, 1); break;
	}
}

/* build_detached_freelist (4.2): walk p[] backwards from the end; the first
 * object fixes the slab; later objects of the same slab are linked in front
 * with plain stores (they are ours), others are skipped; give up after 3
 * misses. Returns how many entries of p[] are left to look at. */
struct detached {
	size_t idx;
	void *head, *tail;
	unsigned cnt;
};

static size_t build_detached(const struct slab_cache *s, size_t n, void **p, struct detached *df)
{
	size_t first_skipped = 0;
	int lookahead = 3;

	df->head = df->tail = NULL;
	df->idx = 0;
	df->cnt = 0;
	while (n--) {
		void *obj = p[n];

		if (!obj)
			continue;
		if (!df->head) {
			df->idx = slab_index(s, obj);
			set_next(obj, NULL);
			df->head = df->tail = obj;
			df->cnt = 1;
			p[n] = NULL;
			continue;
		}
		if (slab_index(s, obj) == df->idx) {
			set_next(obj, df->head);
			df->head = obj;
			df->cnt++;
			p[n] = NULL;
			continue;
		}
		if (!--lookahead)
			break;
		if (!first_skipped)
			first_skipped = n + 1;
	}
	return first_skipped;
}

/* kmem_cache_free_bulk on the cmpxchg_local fast path (the kernel's
 * this_cpu_cmpxchg_double), a locked cmpxchg for other slabs. */
void slab_free_bulk(struct slab_cache *s, size_t n, void **p)
{
	struct detached df;

	while (n) {
		n = build_detached(s, n, p, &df);
		if (!df.head)
			break;
		free_LOCAL(s, df.idx, df.head, df.tail, df.cnt);
	}
}

size_t slab_free_in_slabs(const struct slab_cache *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nslabs; i++)
		for (void *o = s->meta[i].freelist; o; o = get_next(o))
			n++;
	return n;
}

size_t slab_cpu_free_count(struct slab_cache *s, enum slub_variant v)
{
	struct kmem_cpu *c = cpu_slot(s, v);
	size_t n = 0;

	for (void *o = c->freelist; o; o = get_next(o))
		n++;
	return n;
}

void slab_cpu_flush(struct slab_cache *s, enum slub_variant v)
{
	struct kmem_cpu *c = cpu_slot(s, v);

	while (c->freelist) {
		void *o = c->freelist;

		c->freelist = get_next(o);
		slab_free_slow(s, slab_index(s, o), o, o, 1);
	}
	if (c->slab >= 0)
		unfreeze(s, (size_t)c->slab);
	c->slab = -1;
}

/* ---- the 2007 scoring ---- */

#define MAX_SIZES 32

/* Test 1: `objects` kmalloc timed as one loop, then `objects` kfree timed
 * as one loop (the kfree mostly takes the slow path: the objects belong to
 * slabs the CPU has left). Test 2: kmalloc/kfree pairs. Ticks per op. */
#define SLUB_TIMERS(V)									\
static __attribute__((noinline)) void time_repeat_##V(struct slab_cache *s, void **obj,	\
						      size_t n, double *ta, double *tf)	\
{											\
	uint64_t t0, t1, t2;								\
											\
	t0 = arch_timer_start();							\
	for (size_t i = 0; i < n; i++)							\
		obj[i] = alloc_##V(s);							\
	t1 = arch_timer_stop();								\
	for (size_t i = 0; i < n; i++)							\
		free_##V(s, slab_index(s, obj[i]), obj[i], obj[i], 1);			\
	t2 = arch_timer_stop();								\
	*ta = (double)(t1 - t0);							\
	*tf = (double)(t2 - t1);							\
}											\
static __attribute__((noinline)) double time_pair_##V(struct slab_cache *s, size_t n)	\
{											\
	uint64_t t0 = arch_timer_start();						\
											\
	for (size_t i = 0; i < n; i++) {						\
		void *o = alloc_##V(s);							\
											\
		free_##V(s, slab_index(s, o), o, o, 1);					\
	}										\
	return (double)(arch_timer_stop() - t0);					\
}

SLUB_TIMERS(LOCKED)
SLUB_TIMERS(LOCAL)
SLUB_TIMERS(THIS_CPU)
SLUB_TIMERS(RSEQ)
SLUB_TIMERS(IRQOFF)

static void time_repeat(enum slub_variant v, struct slab_cache *s, void **obj, size_t n,
			double *ta, double *tf)
{
	switch (v) {
	case SLUB_LOCKED: time_repeat_LOCKED(s, obj, n, ta, tf); break;
	case SLUB_LOCAL: time_repeat_LOCAL(s, obj, n, ta, tf); break;
	case SLUB_THIS_CPU: time_repeat_THIS_CPU(s, obj, n, ta, tf); break;
	case SLUB_RSEQ: time_repeat_RSEQ(s, obj, n, ta, tf); break;
	default: time_repeat_IRQOFF(s, obj, n, ta, tf); break;
	}
}

static double time_pair(enum slub_variant v, struct slab_cache *s, size_t n)
{
	switch (v) {
	case SLUB_LOCKED: return time_pair_LOCKED(s, n);
	case SLUB_LOCAL: return time_pair_LOCAL(s, n);
	case SLUB_THIS_CPU: return time_pair_THIS_CPU(s, n);
	case SLUB_RSEQ: return time_pair_RSEQ(s, n);
	default: return time_pair_IRQOFF(s, n);
	}
}

static json_t *summary_json(const struct calibration *cal, const double *ticks, size_t n,
			    double per)
{
	struct summary sm;
	double *v = malloc(n * sizeof(double));
	json_t *j;

	for (size_t i = 0; i < n; i++)
		v[i] = ticks[i] / per / cal->ticks_per_cycle;
	stats_summarize(v, n, &sm);
	free(v);
	j = json_pack("{s:f,s:f,s:f,s:f,s:f,s:I}", "median_cycles", sm.median, "min_cycles", sm.min,
		      "ci_lo", sm.ci_lo, "ci_hi", sm.ci_hi, "mean_cycles", sm.mean, "n",
		      (json_int_t)n);
	return j;
}

int repro_slub_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slub-cmpxchg-local";
	uint64_t sizes[MAX_SIZES];
	size_t nsizes = config_u64_list(e, sec, "sizes", sizes, MAX_SIZES), max_size = 0;
	size_t n = config_u64(e, sec, "objects"), reps = config_u64(e, sec, "repeats");
	bool t1 = config_list_has(e, sec, "tests", "repeat"), t2 = config_list_has(e, sec, "tests", "pair");
	double tpc = rc->cal->ticks_per_cycle, *ta = NULL, *tf = NULL, *tp = NULL;
	json_t *jv = json_object();
	void **obj = NULL;
	int ret = 0;

	json_object_set_new(rc->json, "variants", jv);
	json_object_set_new(rc->json, "cycles", json_string("core cycles (TSC ticks / ticks per cycle)"));
	for (size_t i = 0; i < nsizes; i++) {
		if (sizes[i] % 8) {
			pr_err("%s: sizes: %llu is not a multiple of 8 (expected 8, 16, 32, ...)", sec,
			       (unsigned long long)sizes[i]);
			json_decref(jv);
			return -EINVAL;
		}
		if (sizes[i] > max_size)
			max_size = sizes[i];
	}
	if ((ret = rseq_alloc_once()) < 0)
		return ret;
	obj = malloc(n * sizeof(void *));
	ta = malloc(reps * sizeof(double));
	tf = malloc(reps * sizeof(double));
	tp = malloc(reps * sizeof(double));
	if (!obj || !ta || !tf || !tp) {
		ret = -ENOMEM;
		goto out;
	}

	fprintf(rc->out, "SLUB Performance testing (atomcost user-space model, %zu objects, median of %zu, "
			 "core cycles)\n========================\n", n, reps);
	for (int test = 1; test <= 2; test++) {
		if ((test == 1 && !t1) || (test == 2 && !t2))
			continue;
		fprintf(rc->out, "%d. Kmalloc: %s\n", test,
			test == 1 ? "Repeatedly allocate then free test (kfree here is slow path)"
				  : "alloc/free test");
		for (int v = 0; v < SLUB__COUNT; v++) {
			const char *why = slub_variant_unavailable((enum slub_variant)v);
			json_t *jvar;

			if (!config_list_has(e, sec, "variants", slub_variant_names[v]))
				continue;
			jvar = json_object_get(jv, slub_variant_names[v]);
			if (!jvar) {
				jvar = json_pack("{s:s}", "insn", slub_variant_insn[v]);
				json_object_set_new(jv, slub_variant_names[v], jvar);
			}
			fprintf(rc->out, "* %s (%s)\n", slub_variant_names[v], slub_variant_insn[v]);
			if (why) {
				fprintf(rc->out, "unavailable: %s\n", why);
				json_object_set_new(jvar, "unavailable", json_string(why));
				continue;
			}
			for (size_t si = 0; si < nsizes; si++) {
				struct slab_cache s;
				char key[32];

				ret = slab_cache_init(&s, sizes[si], n);
				if (ret < 0)
					goto out;
				/* fault the arena in once, untimed */
				time_repeat((enum slub_variant)v, &s, obj, n, &ta[0], &tf[0]);
				for (size_t r = 0; r < reps; r++) {
					if (test == 1) {
						slab_cache_reset(&s);
						time_repeat((enum slub_variant)v, &s, obj, n, &ta[r], &tf[r]);
					} else {
						tp[r] = time_pair((enum slub_variant)v, &s, n);
					}
				}
				slab_cache_destroy(&s);
				snprintf(key, sizeof(key), "%s%llu", test == 1 ? "repeat_" : "pair_",
					 (unsigned long long)sizes[si]);
				if (test == 1) {
					double ma = stats_median(ta, reps) / n / tpc;
					double mf = stats_median(tf, reps) / n / tpc;

					fprintf(rc->out, "kmalloc(%llu) = %.0f cycles kfree = %.0f cycles\n",
						(unsigned long long)sizes[si], ma, mf);
					json_object_set_new(jvar, key, json_pack("{s:o,s:o}",
						"kmalloc", summary_json(rc->cal, ta, reps, (double)n),
						"kfree", summary_json(rc->cal, tf, reps, (double)n)));
				} else {
					fprintf(rc->out, "kmalloc(%llu)/kfree = %.0f cycles\n",
						(unsigned long long)sizes[si], stats_median(tp, reps) / n / tpc);
					json_object_set_new(jvar, key,
							    summary_json(rc->cal, tp, reps, (double)n));
				}
				fflush(rc->out);
			}
		}
	}
out:
	free(obj);
	free(ta);
	free(tf);
	free(tp);
	return ret;
}
