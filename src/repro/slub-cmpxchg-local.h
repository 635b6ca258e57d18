/* SPDX-License-Identifier: MIT */
/* repro/slub-cmpxchg-local.h - the SLUB model (repro/slub-cmpxchg-local.c),
 * shared by the 2007 and 2015 reproductions. */
#ifndef ATOMCOST_REPRO_SLUB_H
#define ATOMCOST_REPRO_SLUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define barrier() asm volatile("" ::: "memory")
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Which fast path the model runs. SLUB_FP_TID (0, what slab_cache_init
 * sets) is the kernel's since 2011: a per-CPU {freelist, tid} pair committed
 * by a 16-byte compare-and-exchange. SLUB_FP_2007 is the one the 2007 post
 * measured: the per-CPU freelist word alone, committed by a single-word
 * compare-and-exchange, no transaction id. */
enum slub_fastpath {
	SLUB_FP_TID,
	SLUB_FP_2007,
	SLUB_FP__COUNT,
};
extern const char *const slub_fastpath_names[SLUB_FP__COUNT];	/* config names */

enum slub_variant {
	SLUB_LOCKED,	/* 2011: lock cmpxchg16b; 2007: lock cmpxchgq, kfree's smp_rmb() (cmpxchg) */
	SLUB_LOCAL,	/* 2011: cmpxchg16b; 2007: cmpxchgq + preempt_disable analog,
			 * kfree's barrier() (cmpxchg_local) */
	SLUB_THIS_CPU,	/* cmpxchg16b / cmpxchgq %fs:off (this_cpu_cmpxchg) */
	SLUB_RSEQ,	/* rseq critical section on a per-CPU freelist (same in both) */
	SLUB_IRQOFF,	/* flags save + plain loads/stores (local_irq_save analog) */
	SLUB_LOCKED_BARRIER,	/* 2007 only: cmpxchg with barrier() in place of the rmb
				 * (the fence's share); measured whenever cmpxchg is */
	SLUB__COUNT,
};
/* Names in the config and the JSON; "cmpxchg+barrier" is not a config
 * name: listing cmpxchg measures it too, on the 2007 fast path. */
extern const char *const slub_variant_names[SLUB__COUNT];
/* NULL, or why the variant cannot run here, in fast path fp. */
const char *slub_variant_unavailable_in(enum slub_fastpath fp, enum slub_variant v);

/* Per-slab pair {freelist, counters} (kernel: slab->freelist, counters),
 * changed with a locked cmpxchg128 by remote frees. counters: inuse in the
 * low 32 bits, frozen (owned by a CPU) in bit 32. */
struct slab_meta {
	void *freelist;
	uint64_t counters;
	int32_t next;		/* partial list link, -1: end */
	int32_t on_partial;
} __attribute__((aligned(16)));

struct slab_cache {
	size_t size;		/* object size */
	unsigned shift;		/* slab bytes = 1 << shift, slabs aligned to it */
	unsigned objs;		/* objects per slab */
	unsigned id;		/* per-thread cpu struct slot */
	uint64_t gen;		/* detects a stale per-thread slot */
	char *map, *arena;
	size_t map_size, max_slabs, nslabs;
	struct slab_meta *meta;
	uint64_t lock;		/* the node's list_lock */
	int32_t partial;	/* partial list head, -1: empty */
	enum slub_fastpath fastpath;	/* SLUB_FP_TID unless set after init */
};

/* The slab's geometry as the kernel's calculate_order() picks it
 * (simplified: no waste fraction): at least slab_min_objects(ncpus) = 4 *
 * (fls(ncpus) + 1) objects (12 for 2 CPUs, 20 for 8), in the smallest slab
 * of 4 KiB << order (order at most 3) that holds them and one object.
 * Returns the objects per slab; *shift: log2 of the slab's bytes. */
unsigned slab_min_objects(unsigned ncpus);
unsigned slab_geometry(size_t size, unsigned ncpus, unsigned *shift);
/* The CPUs the kernel's nr_cpu_ids would count here (the configured ones):
 * what slab_cache_init sizes its slabs from. */
unsigned slab_model_cpus(void);
/* A cache for max_objects objects of size bytes (arena reserved up front),
 * its slabs as slab_geometry() picks them for slab_model_cpus(). 0 or
 * -errno. */
int slab_cache_init(struct slab_cache *s, size_t size, size_t max_objects);
void slab_cache_destroy(struct slab_cache *s);
void *slab_alloc(struct slab_cache *s, enum slub_variant v);
void slab_free(struct slab_cache *s, enum slub_variant v, void *obj);
/* Free objects: in slab freelists plus the calling thread's cpu freelist
 * (other threads add theirs with slab_cpu_free_count). SLUB_RSEQ keeps its
 * freelists per CPU, shared by the threads on that CPU: its count covers
 * every CPU's freelist. */
size_t slab_free_in_slabs(const struct slab_cache *s);
size_t slab_cpu_free_count(struct slab_cache *s, enum slub_variant v);
/* Give the calling thread's cpu freelist back to its slab (a flush); for
 * SLUB_RSEQ every CPU's freelist (call it when no thread allocates). */
void slab_cpu_flush(struct slab_cache *s, enum slub_variant v);
static inline size_t slab_index(const struct slab_cache *s, const void *obj)
{
	return (size_t)((const char *)obj - s->arena) >> s->shift;
}

/* The slab layer under every fast path (the 2007/2011 ones and the 2015
 * bulk ones): a free object's first word links it to the next. */
static inline void *slab_next(const void *obj)
{
	return *(void *const *)obj;
}

static inline void slab_set_next(void *obj, void *next)
{
	*(void **)obj = next;
}

/* The per-CPU structure (kmem_cache_cpu): freelist and tid form the 16-byte
 * pair of the 2011 fast path; the 2007 one commits on freelist alone. */
struct kmem_cpu {
	void *freelist;
	uint64_t tid;
	int64_t slab;		/* slab index, -1: none */
	uint64_t gen;		/* == cache gen when this slot is the cache's */
} __attribute__((aligned(16)));
#define SLUB_TID_STEP 1024	/* power of two >= CPUs: tids never collide across CPUs */

/* c, emptied first if it last served another cache (or an earlier pass). */
static inline struct kmem_cpu *slab_cpu_own(const struct slab_cache *s, struct kmem_cpu *c)
{
	if (__builtin_expect(c->gen != s->gen, 0)) {
		c->freelist = NULL;
		c->slab = -1;
		c->tid = 0;
		c->gen = s->gen;
	}
	return c;
}
/* ___slab_alloc: refill c (its slab's remote frees, else a partial slab,
 * else a new one, frozen to c), advance its tid; an object, NULL: full. */
void *slab_alloc_slow(struct slab_cache *s, struct kmem_cpu *c);
/* __slab_free: cnt objects head..tail of slab idx onto the slab's own
 * {freelist, counters} by a locked cmpxchg128; a full slab becomes partial. */
void slab_free_slow(struct slab_cache *s, size_t idx, void *head, void *tail, unsigned cnt);

/* The fast path, one template for both kernels' and every commit form (the
 * 2007 and 2011 variants, the 2015 bulk model's kernel commit and its plain
 * twin): alloc_##NAME(s) and free_##NAME(s, idx, head, tail, cnt) on a
 * CACHE *s, whose kmem_cpu is CPU(s); ALLOC_SLOW(s, c) and FREE_SLOW(s, idx,
 * head, tail, cnt) its slow paths; COMMIT(s, c, old, nlo, nhi) sets
 * {freelist, tid} to {nlo, nhi} when it still holds old[] (true), else
 * reloads old[]. TID 1, the kernel since 2011: tid read, barrier(), then the
 * freelist; a free checks the slab before it reads the freelist. TID 0, the
 * 2007 one: the freelist word alone (the commit ignores tid), read first; a
 * free orders it before its slab check with ORDER(); ENTER() and EXIT()
 * around both (the preempt count of cmpxchg_local). */
#define SLUB_FASTPATH(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT, TID, ENTER, EXIT, ORDER) \
static inline __attribute__((always_inline)) void *alloc_##NAME(CACHE *s)		\
{											\
	struct kmem_cpu *c;								\
	void *obj;									\
											\
	ENTER();									\
	c = CPU(s);									\
	for (;;) {									\
		uint64_t old[2] = { 0, TID ? c->tid : 0 };				\
											\
		if (TID)								\
			barrier();							\
		obj = c->freelist;							\
		if (unlikely(!obj)) {							\
			obj = ALLOC_SLOW(s, c);						\
			break;								\
		}									\
		old[0] = (uint64_t)(uintptr_t)obj;					\
		if (likely(COMMIT(s, c, old, (uint64_t)(uintptr_t)slab_next(obj),	\
				  old[1] + SLUB_TID_STEP)))				\
			break;								\
	}										\
	EXIT();										\
	return obj;									\
}											\
static inline __attribute__((always_inline)) void free_##NAME(CACHE *s, size_t idx,	\
							       void *head, void *tail,	\
							       unsigned cnt)		\
{											\
	struct kmem_cpu *c;								\
											\
	ENTER();									\
	c = CPU(s);									\
	for (;;) {									\
		uint64_t old[2] = { TID ? 0 : (uint64_t)(uintptr_t)c->freelist,	\
				    TID ? c->tid : 0 };					\
											\
		ORDER();								\
		if (unlikely((int64_t)idx != c->slab)) {				\
			FREE_SLOW(s, idx, head, tail, cnt);				\
			break;								\
		}									\
		if (TID)								\
			old[0] = (uint64_t)(uintptr_t)c->freelist;			\
		slab_set_next(tail, (void *)(uintptr_t)old[0]);				\
		if (likely(COMMIT(s, c, old, (uint64_t)(uintptr_t)head,		\
				  old[1] + SLUB_TID_STEP)))				\
			break;								\
	}										\
	EXIT();										\
}
#define SLUB_NOTHING() do { } while (0)
/* The kernel's since 2011. */
#define SLUB_TID_FASTPATHS(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT)		\
	SLUB_FASTPATH(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT, 1, SLUB_NOTHING,	\
		      SLUB_NOTHING, barrier)

/* The 2007 post's saving of cmpxchg_local over cmpxchg for test (1: repeat,
 * 2: pair) and column col (test 1: 0 kmalloc, 1 kfree), derived from its
 * tables, as it states no single figure: the lower median, over the given
 * sizes the post has (<= 2048), of its per-size differences, and the row
 * that holds it (*label; *a cmpxchg_local's, *b cmpxchg's figure). Returns
 * b - a, NAN when no size qualifies. */
double slub_pub_saving(int test, unsigned col, const uint64_t *sizes, size_t nsizes, double *a,
		       double *b, const char **label);

#endif
