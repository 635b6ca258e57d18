/* SPDX-License-Identifier: MIT */
/* repro/slub-bulk-free.c - the 2015 SLUB bulk alloc/free scoring
 * (docs/reproductions.md, section 3).
 *
 * A model of SLUB as it was in v4.1/4.2, in user space, for one thread:
 * slabs aligned to their size (the slab of an object is an address mask),
 * each with a {freelist, counters} pair changed by a locked cmpxchg16b
 * (cmpxchg_double_slab); the CPU's {freelist, tid} pair and its slab in TLS,
 * committed by an unlocked `cmpxchg16b %fs:` (this_cpu_cmpxchg_double);
 * a partial list under a spinlock (left out: per-CPU partial lists, NUMA
 * nodes, debugging, giving empty slabs back). It is a model of its own, not
 * the 2007 one of repro/slub-cmpxchg-local.c: the posted bulk algorithms work on the CPU
 * pair directly with interrupts off, which that model does not expose.
 *
 * The algorithms timed (per round: allocate `bulk` objects, free them):
 *  - fallback: kmem_cache_alloc / kmem_cache_free one by one (the generic
 *    __kmem_cache_alloc_bulk / __kmem_cache_free_bulk);
 *  - previous: the posted kmem_cache_alloc_bulk (IRQs off, drain the CPU
 *    freelist with plain loads/stores, IRQs on, then one by one), freeing
 *    one by one (the post's "previous patch");
 *  - posted: that alloc, and the posted kmem_cache_free_bulk: IRQs off
 *    around the loop, each object pushed onto the CPU freelist with plain
 *    stores when its slab is the CPU slab, else IRQs on around __slab_free
 *    (a locked cmpxchg16b on the slab's pair) and off again;
 *  - detached: the later (v4.3) algorithm, a named variant only: alloc
 *    with IRQs off throughout (the slow path included), free by detached
 *    freelists (objects of one slab linked with plain stores, look back at
 *    most 3 misses, one cmpxchg16b per group, no IRQ toggling).
 * User space cannot run cli/sti: the IRQ-toggle analog is a store to a
 * thread-local "IRQs off" byte and a compiler barrier for each, the
 * semantics of local_irq_disable/enable for the model's one thread; its cost
 * is measured and printed beside the published cost of the real pair.
 * Slow paths count themselves (as CONFIG_SLUB_STATS does), so the tests can
 * check how often each algorithm takes them.
 */
#include "repro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "arch/arch.h"
#include "common.h"
#include "stats.h"

#define FROZEN (1ull << 32)
#define barrier() asm volatile("" ::: "memory")
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define MAX_BULK_SIZES 64
#define MAX_BULK 4096

const char *const bulk_algo_names[BULK__COUNT] = {
	[BULK_FALLBACK] = "fallback", [BULK_PREVIOUS] = "previous", [BULK_POSTED] = "posted",
	[BULK_DETACHED] = "detached",
};

struct bslab {
	void *freelist;
	uint64_t counters;	/* inuse in the low 32 bits, FROZEN: a CPU's slab */
} __attribute__((aligned(16)));

struct bulk_cache {
	size_t size;
	unsigned shift, objs;
	char *map, *arena;
	size_t map_size, max_slabs, nslabs;
	struct bslab *meta;
	int32_t *pnext;		/* partial list links */
	uint8_t *on_partial;
	int32_t partial;
	uint64_t lock;
	uint64_t gen;
	struct bulk_stats st;
};

/* kmem_cache_cpu, per thread (one thread per CPU: pinned). */
struct bcpu {
	void *freelist;
	uint64_t tid;
	int64_t slab;
	uint64_t gen;
} __attribute__((aligned(16)));

static __thread struct bcpu bulk_cpu __attribute__((tls_model("initial-exec")));
static __thread volatile uint8_t bulk_irqs_off __attribute__((tls_model("initial-exec")));
static uint64_t bulk_gen;

/* local_irq_disable / local_irq_enable analog (see the top comment). */
static inline void irq_disable(void)
{
	bulk_irqs_off = 1;
	barrier();
}

static inline void irq_enable(void)
{
	barrier();
	bulk_irqs_off = 0;
}

static inline void *get_next(const void *o)
{
	return *(void *const *)o;
}

static inline void set_next(void *o, void *n)
{
	*(void **)o = n;
}

size_t bulk_slab_index(const struct bulk_cache *c, const void *obj)
{
	return (size_t)((const char *)obj - c->arena) >> c->shift;
}

unsigned bulk_objs_per_slab(const struct bulk_cache *c)
{
	return c->objs;
}

void bulk_cache_stats(const struct bulk_cache *c, struct bulk_stats *st)
{
	*st = c->st;
}

static struct bcpu *cpu_of(struct bulk_cache *c)
{
	struct bcpu *k = &bulk_cpu;

	if (unlikely(k->gen != c->gen)) {
		k->freelist = NULL;
		k->slab = -1;
		k->tid = 0;
		k->gen = c->gen;
	}
	return k;
}

int bulk_cache_create(struct bulk_cache **out, size_t size, size_t max_objects)
{
	struct bulk_cache *c;
	size_t slab_bytes;

	*out = NULL;
	if (size < 8 || size % 8 || size > (1u << 15)) {
		pr_err("slub-bulk-free: size: %zu is not a multiple of 8 up to 32768 (expected 8, 16, ...)",
		       size);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->size = size;
	/* calculate_order(): at least 12 objects (2 CPUs) up to order 3 */
	c->shift = 12;
	while ((1ul << c->shift) / size < 12 && c->shift < 15)
		c->shift++;
	slab_bytes = 1ul << c->shift;
	c->objs = (unsigned)(slab_bytes / size);
	c->max_slabs = (max_objects + c->objs - 1) / c->objs + 8;
	c->map_size = (c->max_slabs + 1) * slab_bytes;
	c->map = mmap(NULL, c->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->meta = aligned_alloc(16, c->max_slabs * sizeof(*c->meta));
	c->pnext = calloc(c->max_slabs, sizeof(*c->pnext));
	c->on_partial = calloc(c->max_slabs, 1);
	if (c->map == MAP_FAILED || !c->meta || !c->pnext || !c->on_partial) {
		if (c->map == MAP_FAILED)
			c->map = NULL;
		bulk_cache_destroy(c);
		pr_err("slub-bulk-free: cannot map %zu objects of %zu bytes", max_objects, size);
		return -ENOMEM;
	}
	/* fault the arena in: page faults are not what is measured */
	memset(c->map, 0, c->map_size);
	c->arena = (char *)(((uintptr_t)c->map + slab_bytes - 1) & ~(uintptr_t)(slab_bytes - 1));
	c->partial = -1;
	c->gen = __atomic_add_fetch(&bulk_gen, 1, __ATOMIC_RELAXED);
	*out = c;
	return 0;
}

void bulk_cache_destroy(struct bulk_cache *c)
{
	if (!c)
		return;
	if (c->map)
		munmap(c->map, c->map_size);
	free(c->meta);
	free(c->pnext);
	free(c->on_partial);
	free(c);
}

/* ---- slow paths (not inlined: the fast paths stay small) ---- */

static void node_lock(struct bulk_cache *c)
{
	while (arch_cmpxchg(&c->lock, 0, 1) != 0)
		while (arch_load(&c->lock))
			arch_cpu_relax();
}

static void node_unlock(struct bulk_cache *c)
{
	arch_store(&c->lock, 0);
}

static void add_partial(struct bulk_cache *c, size_t idx)
{
	node_lock(c);
	if (!c->on_partial[idx]) {
		c->on_partial[idx] = 1;
		c->pnext[idx] = c->partial;
		c->partial = (int32_t)idx;
	}
	node_unlock(c);
}

static int64_t get_partial(struct bulk_cache *c)
{
	int64_t idx = -1;

	node_lock(c);
	if (c->partial >= 0) {
		idx = c->partial;
		c->partial = c->pnext[idx];
		c->on_partial[idx] = 0;
	}
	node_unlock(c);
	return idx;
}

static int64_t new_slab(struct bulk_cache *c)
{
	size_t idx;
	char *base;

	if (c->nslabs == c->max_slabs)
		return -1;
	idx = c->nslabs++;
	base = c->arena + (idx << c->shift);
	for (unsigned i = 0; i + 1 < c->objs; i++)
		set_next(base + i * c->size, base + (i + 1) * c->size);
	set_next(base + (c->objs - 1) * c->size, NULL);
	c->meta[idx].freelist = base;
	c->meta[idx].counters = 0;
	return (int64_t)idx;
}

/* Take the slab's whole freelist and freeze the slab to this CPU. */
static void *take_freelist(struct bulk_cache *c, size_t idx)
{
	struct bslab *m = &c->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };

	while (!arch_cmpxchg128(&m->freelist, old, 0, (uint64_t)c->objs | FROZEN))
		;
	return (void *)(uintptr_t)old[0];
}

/* deactivate_slab: give the CPU slab up; if objects were freed to it
 * meanwhile, it goes on the partial list. */
static void unfreeze(struct bulk_cache *c, size_t idx)
{
	struct bslab *m = &c->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };

	while (!arch_cmpxchg128(&m->freelist, old, old[0], old[1] & ~FROZEN))
		;
	if (old[0])
		add_partial(c, idx);
}

/* __slab_free: cnt objects head..tail of slab idx onto the slab's own
 * freelist with a locked cmpxchg16b; a full slab becomes partial. */
static __attribute__((noinline)) void slab_free_slow(struct bulk_cache *c, size_t idx, void *head,
						      void *tail, unsigned cnt)
{
	struct bslab *m = &c->meta[idx];
	uint64_t old[2] = { (uint64_t)(uintptr_t)m->freelist, m->counters };
	bool was_full;

	c->st.free_slow++;
	do {
		set_next(tail, (void *)(uintptr_t)old[0]);
		was_full = !old[0] && !(old[1] & FROZEN);
	} while (!arch_cmpxchg128(&m->freelist, old, (uint64_t)(uintptr_t)head, old[1] - cnt));
	if (was_full)
		add_partial(c, idx);
}

/* ___slab_alloc with IRQs already off: refill the CPU freelist. */
static __attribute__((noinline)) void *slab_alloc_refill(struct bulk_cache *c, struct bcpu *k)
{
	void *fl = NULL;
	int64_t idx = k->slab;

	c->st.alloc_slow++;
	if (idx >= 0)
		fl = take_freelist(c, (size_t)idx);
	while (!fl) {
		if (idx >= 0)
			unfreeze(c, (size_t)idx);
		idx = get_partial(c);
		if (idx < 0)
			idx = new_slab(c);
		if (idx < 0) {
			k->slab = -1;
			return NULL;
		}
		fl = take_freelist(c, (size_t)idx);
	}
	k->slab = idx;
	k->freelist = get_next(fl);
	k->tid++;
	return fl;
}

/* __slab_alloc: local_irq_save / restore around the refill. */
static __attribute__((noinline)) void *slab_alloc_slow(struct bulk_cache *c, struct bcpu *k)
{
	void *o;

	irq_disable();
	o = slab_alloc_refill(c, k);
	irq_enable();
	return o;
}

/* ---- fast paths: this_cpu_cmpxchg_double on {freelist, tid} ---- */

static inline bool cpu_commit(struct bcpu *k, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
	return arch_percpu_cmpxchg128(arch_percpu_offset(k), old, nlo, nhi);
}

/* slab_alloc */
static inline void *cache_alloc(struct bulk_cache *c)
{
	struct bcpu *k = cpu_of(c);

	for (;;) {
		uint64_t tid = k->tid, old[2];
		void *o;

		barrier();
		o = k->freelist;
		if (unlikely(!o))
			return slab_alloc_slow(c, k);
		old[0] = (uint64_t)(uintptr_t)o;
		old[1] = tid;
		if (likely(cpu_commit(k, old, (uint64_t)(uintptr_t)get_next(o), tid + 1)))
			return o;
	}
}

/* slab_free: head..tail (cnt objects) of slab idx */
static inline void cache_free(struct bulk_cache *c, size_t idx, void *head, void *tail, unsigned cnt)
{
	struct bcpu *k = cpu_of(c);

	for (;;) {
		uint64_t tid = k->tid, old[2];
		void *fl;

		barrier();
		if (unlikely((int64_t)idx != k->slab)) {
			slab_free_slow(c, idx, head, tail, cnt);
			return;
		}
		fl = k->freelist;
		set_next(tail, fl);
		old[0] = (uint64_t)(uintptr_t)fl;
		old[1] = tid;
		if (likely(cpu_commit(k, old, (uint64_t)(uintptr_t)head, tid + 1)))
			return;
	}
}

/* ---- the bulk algorithms ---- */

static int alloc_one_by_one(struct bulk_cache *c, size_t from, size_t n, void **p)
{
	for (size_t i = from; i < n; i++) {
		p[i] = cache_alloc(c);
		if (unlikely(!p[i])) {
			for (size_t j = 0; j < i; j++)
				cache_free(c, bulk_slab_index(c, p[j]), p[j], p[j], 1);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The posted kmem_cache_alloc_bulk: drain the CPU freelist with IRQs off,
 * then the rest one by one. */
static int alloc_bulk_posted(struct bulk_cache *c, size_t n, void **p)
{
	struct bcpu *k;
	size_t i;

	irq_disable();
	k = cpu_of(c);
	for (i = 0; i < n; i++) {
		void *o = k->freelist;

		if (!o)
			break;
		k->freelist = get_next(o);
		p[i] = o;
	}
	k->tid++;
	irq_enable();
	return alloc_one_by_one(c, i, n, p);
}

/* v4.3 kmem_cache_alloc_bulk: IRQs off throughout, the refill included. */
static int alloc_bulk_detached(struct bulk_cache *c, size_t n, void **p)
{
	struct bcpu *k;

	irq_disable();
	k = cpu_of(c);
	for (size_t i = 0; i < n; i++) {
		void *o = k->freelist;

		if (unlikely(!o)) {
			p[i] = slab_alloc_refill(c, k);
			if (unlikely(!p[i])) {
				irq_enable();
				for (size_t j = 0; j < i; j++)
					cache_free(c, bulk_slab_index(c, p[j]), p[j], p[j], 1);
				return -ENOMEM;
			}
			continue;
		}
		k->freelist = get_next(o);
		p[i] = o;
	}
	k->tid++;
	irq_enable();
	return 0;
}

/* The posted kmem_cache_free_bulk ("slub: initial bulk free implementation"). */
static void free_bulk_posted(struct bulk_cache *c, size_t n, void **p)
{
	struct bcpu *k;

	irq_disable();
	k = cpu_of(c);
	for (size_t i = 0; i < n; i++) {
		void *o = p[i];
		size_t idx = bulk_slab_index(c, o);

		if ((int64_t)idx == k->slab) {
			set_next(o, k->freelist);
			k->freelist = o;
		} else {
			k->tid++;
			irq_enable();
			slab_free_slow(c, idx, o, o, 1);
			irq_disable();
		}
	}
	k->tid++;
	irq_enable();
}

/* build_detached_freelist (v4.3): walk p[] backwards; the first object
 * fixes the slab; later ones of that slab are linked in front with plain
 * stores, others skipped; give up after 3 misses. Returns how many entries
 * of p[] are left to look at. */
static size_t build_detached(const struct bulk_cache *c, size_t n, void **p, size_t *idx,
			     void **head, void **tail, unsigned *cnt)
{
	size_t first_skipped = 0;
	int lookahead = 3;

	*head = *tail = NULL;
	*cnt = 0;
	*idx = 0;
	while (n--) {
		void *o = p[n];

		if (!o)
			continue;
		if (!*head) {
			*idx = bulk_slab_index(c, o);
			set_next(o, NULL);
			*head = *tail = o;
			*cnt = 1;
			p[n] = NULL;
			continue;
		}
		if (bulk_slab_index(c, o) == *idx) {
			set_next(o, *head);
			*head = o;
			(*cnt)++;
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

static void free_bulk_detached(struct bulk_cache *c, size_t n, void **p)
{
	while (n) {
		size_t idx;
		void *head, *tail;
		unsigned cnt;

		n = build_detached(c, n, p, &idx, &head, &tail, &cnt);
		if (!head)
			break;
		cache_free(c, idx, head, tail, cnt);
	}
}

int bulk_alloc(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p)
{
	switch (a) {
	case BULK_PREVIOUS:
	case BULK_POSTED:
		return alloc_bulk_posted(c, n, p);
	case BULK_DETACHED:
		return alloc_bulk_detached(c, n, p);
	default:
		return alloc_one_by_one(c, 0, n, p);
	}
}

void bulk_free(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p)
{
	switch (a) {
	case BULK_POSTED:
		free_bulk_posted(c, n, p);
		break;
	case BULK_DETACHED:
		free_bulk_detached(c, n, p);
		break;
	default:
		for (size_t i = 0; i < n; i++)
			cache_free(c, bulk_slab_index(c, p[i]), p[i], p[i], 1);
		break;
	}
}

size_t bulk_cache_free_objects(struct bulk_cache *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nslabs; i++)
		for (void *o = c->meta[i].freelist; o; o = get_next(o))
			n++;
	for (void *o = cpu_of(c)->freelist; o; o = get_next(o))
		n++;
	return n;
}

int64_t bulk_cpu_slab(struct bulk_cache *c)
{
	return cpu_of(c)->slab;
}

size_t bulk_cache_capacity(const struct bulk_cache *c)
{
	return c->nslabs * c->objs;
}

/* ---- the scoring ---- */

/* Ticks for `rounds` rounds of alloc + free of `bulk` objects. */
static __attribute__((noinline)) int time_rounds(struct bulk_cache *c, enum bulk_algo a, void **p,
						 size_t bulk, size_t rounds, double *ticks)
{
	uint64_t t0 = arch_timer_start(), t1;
	int ret = 0;

	for (size_t r = 0; r < rounds && !ret; r++) {
		ret = bulk_alloc(c, a, bulk, p);
		if (!ret)
			bulk_free(c, a, bulk, p);
	}
	t1 = arch_timer_stop();
	*ticks = (double)(t1 - t0);
	if (ret < 0)
		pr_err("slub-bulk-free: the model ran out of slabs at bulk %zu (%s)", bulk,
		       bulk_algo_names[a]);
	return ret;
}

/* The many-slab case: put freed objects back in their pool slots
 * (untimed): allocate as many again (they come back from the partial
 * slabs) and give each the slot of a freed object of the same slab. */
static int refill(struct bulk_cache *c, void **pool, const size_t *slot, const size_t *slot_slab,
		  size_t bulk, bool *used)
{
	for (size_t j = 0; j < bulk; j++)
		used[j] = false;
	for (size_t j = 0; j < bulk; j++) {
		void *o = cache_alloc(c);
		size_t idx, k;

		if (!o)
			return -ENOMEM;
		idx = bulk_slab_index(c, o);
		for (k = 0; k < bulk; k++)
			if (!used[k] && slot_slab[k] == idx)
				break;
		if (k == bulk) {
			pr_err("slub-bulk-free: object %p came back from slab %zu, which lost none", o, idx);
			return -EIO;
		}
		used[k] = true;
		pool[slot[k]] = o;
	}
	return 0;
}

struct spread_ws {
	size_t slot[MAX_BULK], slot_slab[MAX_BULK];
	bool used[MAX_BULK];
	void *p[MAX_BULK];
};

/* Free only, `bulk` objects each from a different slab (of nslabs) per
 * round; the refill is untimed. */
static int time_spread(struct bulk_cache *c, enum bulk_algo a, void **pool, size_t nslabs,
		       size_t bulk, size_t rounds, uint64_t *cursor, struct spread_ws *w,
		       double overhead, double *ticks)
{
	double sum = 0;
	int ret;

	for (size_t r = 0; r < rounds; r++) {
		uint64_t t0, t1;

		for (size_t j = 0; j < bulk; j++, (*cursor)++) {
			size_t g = *cursor;

			w->slot[j] = (g % nslabs) * c->objs + (g / nslabs) % c->objs;
			w->p[j] = pool[w->slot[j]];
			w->slot_slab[j] = bulk_slab_index(c, w->p[j]);
		}
		t0 = arch_timer_start();
		bulk_free(c, a, bulk, w->p);
		t1 = arch_timer_stop();
		/* one timer pair per round: its fixed cost is not the free's */
		sum += (double)(t1 - t0) - overhead;
		ret = refill(c, pool, w->slot, w->slot_slab, bulk, w->used);
		if (ret < 0)
			return ret;
	}
	*ticks = sum;
	return 0;
}

/* Involuntary context switches of the calling thread so far. */
static long preempted(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* A sample during which the thread was preempted measured something else:
 * take it again, up to this many times. */
#define MAX_REDO 8

/* Cycles per local_irq_disable + local_irq_enable pair of the analog. */
static __attribute__((noinline)) uint64_t time_irq_pairs(size_t n)
{
	uint64_t t0 = arch_timer_start();

#define PAIR(k) irq_disable(); irq_enable();
	for (size_t i = 0; i < n; i += 64) {
		OPS64(PAIR)
	}
#undef PAIR
	return arch_timer_stop() - t0;
}

/* Published, Jesper Dangaard Brouer, 16 Jun 2015: the cover letter's table
 * (fallback vs the patchset) and the compare against the previous patch. */
static const struct repro_row posted_rows[] = {
	{ "1", { 47, 45 }, NULL },	{ "2", { 46, 28 }, NULL },	{ "3", { 46, 22 }, NULL },
	{ "4", { 45, 19 }, NULL },	{ "8", { 45, 17 }, NULL },	{ "16", { 44, 17 }, NULL },
	{ "30", { 75, 57 }, NULL },	{ "32", { 73, 56 }, NULL },	{ "34", { 75, 58 }, NULL },
	{ "48", { 80, 64 }, NULL },	{ "64", { 87, 74 }, NULL },	{ "128", { 98, 89 }, NULL },
	{ "158", { 101, 93 }, NULL },	{ "250", { 104, 100 }, NULL },
};
static const struct repro_row previous_rows[] = {
	{ "1", { 49, 43 }, NULL }, { "2", { 37, 26 }, NULL }, { "3", { 33, 21 }, NULL },
	{ "4", { 31, 18 }, NULL }, { "8", { 30, 17 }, NULL }, { "16", { 32, 17 }, NULL },
};
#define SRC_2015 "Jesper Dangaard Brouer, netdev/linux-mm, 16 Jun 2015, \"[PATCH 7/7] slub: initial " \
		 "bulk free implementation\""
#define MACHINE_2015 "not named in the post (TSC 3.94 GHz from its cycles/ns), kernel of June 2015 + " \
		     "the patchset"
static const struct repro_table posted_2015 = {
	.title = "bulk alloc + free, per object: fallback bulking vs fastpath-bulking (posted patchset)",
	.source = SRC_2015, .machine = MACHINE_2015, .unit = "cycles(tsc) per object",
	.ncols = 2, .cols = { "fallback", "bulking" },
	.nrows = ARRAY_SIZE(posted_rows), .rows = posted_rows,
};
static const struct repro_table previous_2015 = {
	.title = "previous patch (bulk alloc, free one by one) vs this patch (bulk free too)",
	.source = SRC_2015, .machine = MACHINE_2015, .unit = "cycles(tsc) per object",
	.ncols = 2, .cols = { "previous", "this" },
	.nrows = ARRAY_SIZE(previous_rows), .rows = previous_rows,
};
/* Published kernel cost of local_irq_disable + local_irq_enable. */
#define IRQ_PAIR_PUBLISHED_CYCLES 7.0
#define IRQ_PAIR_PUBLISHED_WHERE "i7-4790K, 2015 (kernel microbenchmark)"
#define REVIEWER_WORDS "If most of objects comes from many different slabs, bulk free API does " \
		       "enabling/disabling interrupt very much so I guess it work worse than just " \
		       "calling __kmem_cache_free_bulk()"

static void print_line(FILE *f, const struct calibration *cal, size_t bulk, double a, double b)
{
	fprintf(f, "%4zu - %3.0f cycles(tsc) %6.3f ns - %3.0f cycles(tsc) %6.3f ns improved %4.1f%%",
		bulk, a, clock_ticks_to_ns(cal, a), b, clock_ticks_to_ns(cal, b), (a - b) / a * 100.0);
}

/* Between-pass spread of a figure: its interquartile range over the
 * median (robust to the one pass a preempted thread ruins). */
static double spread_of(const double *v, size_t n)
{
	struct summary sm;

	if (stats_summarize(v, n, &sm) < 0 || !(sm.median > 0))
		return 0;
	return (sm.p75 - sm.p25) / sm.median;
}

struct bulk_run {
	size_t bulk;
	double med[BULK__COUNT], floor[BULK__COUNT];
};

static int run_main(struct repro_ctx *rc, const uint64_t *bulks, size_t nb, size_t size,
		    size_t objects, size_t reps, struct bulk_run *res, size_t *redone)
{
	struct bulk_cache *c = NULL;
	double *v[BULK__COUNT] = { 0 };
	void **p = malloc(MAX_BULK * sizeof(void *));
	json_t *jmain = json_array();
	int ret;

	json_object_set_new(rc->json, "main", jmain);
	ret = bulk_cache_create(&c, size, 2 * MAX_BULK + 64);
	for (int a = 0; a < BULK__COUNT && ret == 0; a++)
		if (!(v[a] = malloc(reps * sizeof(double))))
			ret = -ENOMEM;
	if (!p && !ret)
		ret = -ENOMEM;
	if (ret < 0)
		goto out;
	fprintf(rc->out, "SLUB bulk alloc + free (atomcost user-space model of v4.1 SLUB, object %zu "
			 "bytes, %u per slab, %zu objects per timed loop, median of %zu),\ntimer ticks "
			 "(\"cycles(tsc)\", as the post) per object\n", size, c->objs, objects, reps);
	fprintf(rc->out, "Bulk - Fallback bulking           - fastpath-bulking (posted)          "
			 "| previous patch | later: detached\n");
	for (size_t i = 0; i < nb; i++) {
		size_t bulk = bulks[i], rounds = (objects + bulk - 1) / bulk;
		struct bulk_run *r = &res[i];
		json_t *j;

		r->bulk = bulk;
		for (int a = 0; a < BULK__COUNT; a++) {
			double t;

			/* warm: slabs in use, the CPU slab set */
			ret = time_rounds(c, (enum bulk_algo)a, p, bulk, rounds / 8 + 1, &t);
			if (ret < 0)
				goto out;
		}
		for (size_t k = 0; k < reps; k++)
			for (int a = 0; a < BULK__COUNT; a++) {
				int tries = 0;
				long cs;

				do {
					cs = preempted();
					ret = time_rounds(c, (enum bulk_algo)a, p, bulk, rounds, &v[a][k]);
					if (ret < 0)
						goto out;
				} while (preempted() != cs && ++tries <= MAX_REDO && ++*redone);
				v[a][k] = (v[a][k] - rc->cal->overhead_min) / (double)(rounds * bulk);
			}
		for (int a = 0; a < BULK__COUNT; a++) {
			r->med[a] = stats_median(v[a], reps);
			r->floor[a] = spread_of(v[a], reps);
		}
		print_line(rc->out, rc->cal, bulk, r->med[BULK_FALLBACK], r->med[BULK_POSTED]);
		fprintf(rc->out, " | %3.0f cycles(tsc) | %3.0f cycles(tsc)\n", r->med[BULK_PREVIOUS],
			r->med[BULK_DETACHED]);
		fflush(rc->out);
		j = json_pack("{s:I}", "bulk", (json_int_t)bulk);
		for (int a = 0; a < BULK__COUNT; a++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_ticks", bulk_algo_names[a]);
			json_object_set_new(j, key, json_real(r->med[a]));
			snprintf(key, sizeof(key), "%s_spread", bulk_algo_names[a]);
			json_object_set_new(j, key, json_real(r->floor[a]));
		}
		json_array_append_new(jmain, j);
	}
out:
	for (int a = 0; a < BULK__COUNT; a++)
		free(v[a]);
	free(p);
	bulk_cache_destroy(c);
	return ret;
}

static int run_spread(struct repro_ctx *rc, const uint64_t *bulks, size_t nb, size_t size,
		      size_t objects, size_t reps, size_t nslabs, double irq_pair, size_t *redone)
{
	static const enum bulk_algo algos[] = { BULK_FALLBACK, BULK_POSTED, BULK_DETACHED };
	struct bulk_cache *c = NULL;
	struct spread_ws *w = malloc(sizeof(*w));
	double *v[3] = { 0 };
	void **pool = NULL;
	json_t *jspread = json_array();
	uint64_t cursor = 0;
	struct bulk_stats st0, st1;
	int ret;

	json_object_set_new(rc->json, "spread", jspread);
	ret = bulk_cache_create(&c, size, (nslabs + 2) * (1u << 15) / size + MAX_BULK);
	for (int a = 0; a < 3 && !ret; a++)
		if (!(v[a] = malloc(reps * sizeof(double))))
			ret = -ENOMEM;
	if (!ret && !(pool = malloc(nslabs * c->objs * sizeof(void *))))
		ret = -ENOMEM;
	if (!ret && !w)
		ret = -ENOMEM;
	if (ret < 0)
		goto out;
	for (size_t k = 0; k < nslabs * c->objs; k++)
		if (!(pool[k] = cache_alloc(c))) {
			ret = -ENOMEM;
			goto out;
		}
	fprintf(rc->out, "\nThe reviewer's case (Joonsoo Kim): every object of a bulk from a different "
			 "slab (%zu slabs), free only (one timer pair per bulk, its %.0f ticks "
			 "subtracted), per object\nBulk - one by one (fallback)   - posted "
			 "bulk free (IRQ toggles per object)    | later: detached\n", nslabs,
		rc->cal->overhead_min);
	for (size_t i = 0; i < nb; i++) {
		size_t bulk = bulks[i], rounds = (objects / 4 + bulk - 1) / bulk;
		double med[3], toggles;
		json_t *j;

		if (bulk > nslabs) {
			fprintf(rc->out, "%4zu - skipped: more than the %zu slabs\n", bulk, nslabs);
			continue;
		}
		for (size_t k = 0; k < reps; k++)
			for (int a = 0; a < 3; a++) {
				int tries = 0;
				long cs;

				do {
					cs = preempted();
					if (a == 1)
						bulk_cache_stats(c, &st0);
					ret = time_spread(c, algos[a], pool, nslabs, bulk, rounds, &cursor,
							  w, rc->cal->overhead_min, &v[a][k]);
					if (ret < 0)
						goto out;
				} while (preempted() != cs && ++tries <= MAX_REDO && ++*redone);
				if (a == 1)
					bulk_cache_stats(c, &st1);
				v[a][k] /= (double)(rounds * bulk);
			}
		for (int a = 0; a < 3; a++) {
			med[a] = stats_median(v[a], reps);
		}
		/* slow-path frees of the posted free in the last repeat (the
		 * refill's allocations count as alloc_slow, not here): each is
		 * one more disable/enable pair */
		toggles = 1.0 / bulk + (double)(st1.free_slow - st0.free_slow) / (double)(rounds * bulk);
		print_line(rc->out, rc->cal, bulk, med[0], med[1]);
		fprintf(rc->out, " (%.2f) | %3.0f cycles(tsc)\n", toggles, med[2]);
		j = json_pack("{s:I,s:I,s:f,s:f,s:f,s:f}", "bulk", (json_int_t)bulk, "slabs",
			      (json_int_t)nslabs, "one_by_one_ticks", med[0], "posted_ticks", med[1],
			      "detached_ticks", med[2], "irq_pairs_per_object", toggles);
		json_array_append_new(jspread, j);
		if (bulk == 16 || bulk == 64 || bulk == 250 || i + 1 == nb) {
			struct repro_claim cl = {
				.a = "posted bulk free", .b = "one-by-one free", .unit = "cycles(tsc)",
				.ea = &med[1], .eb = &med[0], .n = 1, .pub_a = NAN, .pub_b = NAN,
				.pub_words = REVIEWER_WORDS, .pub_machine = "Joonsoo Kim, 16 Jun 2015",
			};
			char what[96];

			snprintf(what, sizeof(what), "many slabs, bulk %zu, per object", bulk);
			cl.what = what;
			repro_conclude(rc, &cl);
			fprintf(rc->out, "  IRQ toggles: %.2f disable/enable pairs per object; the analog "
					 "costs %.2f cycles a pair here, the kernel's %.0f (%s):\n  at that "
					 "cost the toggles would add %.1f cycles per object\n", toggles,
				irq_pair, IRQ_PAIR_PUBLISHED_CYCLES, IRQ_PAIR_PUBLISHED_WHERE,
				toggles * (IRQ_PAIR_PUBLISHED_CYCLES - irq_pair));
		}
		fflush(rc->out);
	}
out:
	for (int a = 0; a < 3; a++)
		free(v[a]);
	free(pool);
	free(w);
	bulk_cache_destroy(c);
	return ret;
}

int repro_bulk_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slub-bulk-free";
	uint64_t bulks[MAX_BULK_SIZES];
	size_t nb = config_u64_list(e, sec, "bulk", bulks, MAX_BULK_SIZES);
	size_t size = config_u64(e, sec, "size"), objects = config_u64(e, sec, "objects");
	size_t reps = config_u64(e, sec, "repeats"), spread = config_u64(e, sec, "spread_slabs");
	struct bulk_run *res = calloc(nb ? nb : 1, sizeof(*res));
	struct repro_row *mrows = calloc(nb ? nb : 1, sizeof(*mrows) * 2);
	char (*labels)[16] = calloc(nb ? nb : 1, 16);
	double irq_pair, t[5];
	size_t nprev = 0, redone = 0;
	int ret = 0;

	json_object_set_new(rc->json, "unit", json_string("timer ticks per object (cycles(tsc))"));
	if (!res || !mrows || !labels) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		if (bulks[i] > MAX_BULK) {
			pr_err("%s: bulk: %llu is more than %d", sec, (unsigned long long)bulks[i], MAX_BULK);
			ret = -EINVAL;
			goto out;
		}
	for (int k = 0; k < 5; k++)
		t[k] = repro_cycles_per_op((double)time_irq_pairs(1u << 16), rc->cal->overhead_min,
					   1u << 16, rc->cal->ticks_per_cycle);
	irq_pair = stats_median(t, 5);
	fprintf(rc->out, "IRQ-toggle analog (user space cannot run cli/sti): local_irq_disable = store 1 "
			 "to a thread-local byte + compiler barrier, local_irq_enable = store 0; %.2f core "
			 "cycles per pair here (kernel: %.0f, %s)\n", irq_pair, IRQ_PAIR_PUBLISHED_CYCLES,
		IRQ_PAIR_PUBLISHED_WHERE);
	json_object_set_new(rc->json, "irq_analog", json_pack("{s:s,s:f,s:f}", "form",
		"thread-local byte store + compiler barrier per cli/sti", "cycles_per_pair", irq_pair,
		"published_kernel_cycles_per_pair", IRQ_PAIR_PUBLISHED_CYCLES));
	ret = run_main(rc, bulks, nb, size, objects, reps, res, &redone);
	if (ret < 0)
		goto out;
	fprintf(rc->out, "(%zu timed loops taken again: the thread was preempted during them)\n",
		redone);
	for (size_t i = 0; i < nb; i++) {
		snprintf(labels[i], 16, "%llu", (unsigned long long)bulks[i]);
		mrows[i] = (struct repro_row){ labels[i], { res[i].med[BULK_FALLBACK], res[i].med[BULK_POSTED] },
					       NULL };
		if (repro_table_row(&previous_2015, labels[i]))
			mrows[nb + nprev++] = (struct repro_row){ labels[i],
				{ res[i].med[BULK_PREVIOUS], res[i].med[BULK_POSTED] }, NULL };
	}
	{
		char munit[96];
		struct repro_table m = {
			.title = posted_2015.title, .machine = rc->machine ? rc->machine : "this machine",
			.unit = munit, .ncols = 2, .cols = { "fallback", "bulking" }, .nrows = nb,
			.rows = mrows,
		};
		struct repro_table mp = m;

		snprintf(munit, sizeof(munit), "timer ticks per object (TSC %.2f GHz)", rc->cal->timer_hz / 1e9);
		fputc('\n', rc->out);
		ret = repro_print_beside(rc->out, &posted_2015, &m);
		if (ret < 0)
			goto out;
		mp.title = previous_2015.title;
		mp.cols[0] = "previous";
		mp.cols[1] = "this";
		mp.nrows = nprev;
		mp.rows = mrows + nb;
		ret = repro_print_beside(rc->out, &previous_2015, &mp);
		if (ret < 0)
			goto out;
	}
	for (size_t i = 0; i < nb; i++) {
		const struct repro_row *pr = repro_table_row(&posted_2015, labels[i]);
		struct repro_claim cl = {
			.a = "posted bulk alloc + free", .b = "fallback bulking", .unit = "cycles(tsc)",
			.pub_unit = "cycles(tsc)", .ea = &res[i].med[BULK_POSTED],
			.eb = &res[i].med[BULK_FALLBACK], .n = 1, .pub_a = pr ? pr->v[1] : NAN,
			.pub_b = pr ? pr->v[0] : NAN, .pub_machine = "Brouer, 2015",
		};
		char what[64];

		if (res[i].bulk != 1 && res[i].bulk != 8 && res[i].bulk != 16 && res[i].bulk != 64)
			continue;
		snprintf(what, sizeof(what), "bulk %zu, per object", res[i].bulk);
		cl.what = what;
		repro_conclude(rc, &cl);
		cl.a = "later detached freelists";
		cl.b = "posted bulk alloc + free";
		cl.ea = &res[i].med[BULK_DETACHED];
		cl.eb = &res[i].med[BULK_POSTED];
		cl.pub_a = cl.pub_b = NAN;
		repro_conclude(rc, &cl);
	}
	if (spread) {
		redone = 0;
		ret = run_spread(rc, bulks, nb, size, objects, reps, spread, irq_pair, &redone);
		if (!ret)
			fprintf(rc->out, "(%zu timed passes taken again: the thread was preempted during "
					 "them)\n", redone);
	}
out:
	free(res);
	free(mrows);
	free(labels);
	return ret;
}
