/* SPDX-License-Identifier: MIT */
/* repro/slab-concurrent.h - the 2016 concurrent SLAB model
 * (repro/slab-concurrent.c), for the tests. */
#ifndef ATOMCOST_REPRO_CONC_H
#define ATOMCOST_REPRO_CONC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct aslab_cache;
/* LOCKED: the post's "before" (the previous patch applied); LOCKLESS: the
 * seed's patch on top of it. */
enum aslab_variant { ASLAB_LOCKED, ASLAB_LOCKLESS };
int aslab_create(struct aslab_cache **out, size_t size, unsigned nthreads, size_t max_objects,
		 enum aslab_variant v);
void aslab_destroy(struct aslab_cache *c);
/* tid: 0..nthreads-1, the calling thread's per-CPU array cache. */
void *aslab_alloc(struct aslab_cache *c, unsigned tid);
void aslab_free(struct aslab_cache *c, unsigned tid, void *obj);
/* One thread's counts since aslab_create, kept by that thread (read them
 * from it, or when it is done). Before: locks = refills + grows + flushes
 * from one thread alone; after: one acquisition fewer per grow. */
struct aslab_stats {
	uint64_t refills, grows, flushes, locks, contended;
	uint64_t wait_ticks;	/* timer ticks spent waiting in the contended ones */
};
void aslab_stats(const struct aslab_cache *c, unsigned tid, struct aslab_stats *st);
/* Free objects everywhere (slabs, shared array, per-thread arrays) and the
 * total capacity of the slabs grown; call when no thread allocates. */
void aslab_count(struct aslab_cache *c, size_t *free_objs, size_t *capacity);

/* What the 2016 run's working set is against this machine's caches: n
 * objects per thread of each of sizes[0..nsizes), nth threads, the L2 and
 * LLC (0: unknown); which sizes keep a thread's objects in L2. Returns the
 * length (snprintf). */
int conc_footprint_text(char *buf, size_t len, unsigned nth, size_t n, const uint64_t *sizes,
			size_t nsizes, size_t l2, size_t llc);

/* One thread's timestamps: each phase starts right after a barrier released
 * the thread and ends right after its own last op, so the wait for the
 * slowest thread at the next barrier is in neither phase. */
struct conc_stamps {
	uint64_t alloc_start, alloc_end, free_start, free_end;
};
/* Average timer ticks per alloc and per free over nth threads of n ops each
 * (the post's "Average=A/F"). 0, -EINVAL (no thread or op), -ERANGE (stamps
 * out of order). */
int conc_average(const struct conc_stamps *st, unsigned nth, size_t n, double *alloc_avg,
		 double *free_avg);
/* How much of the longest thread's alloc (or free) phase every thread ran at
 * once: 0 (they ran one after the other) .. 1. */
double conc_overlap(const struct conc_stamps *st, unsigned nth, bool free_phase);

#endif
