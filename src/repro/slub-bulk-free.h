/* SPDX-License-Identifier: MIT */
/* repro/slub-bulk-free.h - the 2015 bulk alloc/free model
 * (repro/slub-bulk-free.c): SLUB as in v4.1 for the calling thread, with
 * the posted series (netdev / linux-mm, 15-16 Jun 2015) through 7/7. */
#ifndef ATOMCOST_REPRO_BULK_H
#define ATOMCOST_REPRO_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "repro/slub-cmpxchg-local.h"

/* The bulk algorithms: */
enum bulk_algo {
	BULK_FALLBACK,	/* kmem_cache_alloc / kmem_cache_free one by one */
	BULK_PREVIOUS,	/* through 6/7: bulk alloc, free one by one (the post's "previous patch") */
	BULK_POSTED,	/* through 7/7: 6/7 bulk alloc + bulk free (IRQs toggled around __slab_free) */
	BULK_DETACHED,	/* later (v4.3): detached freelists, no IRQ toggling */
	BULK_TWIN,	/* the fallback with a plain compare-and-store commit: prices the commit */
	BULK__COUNT,
};
extern const char *const bulk_algo_names[BULK__COUNT];
/* Counts, as CONFIG_SLUB_STATS: __slab_free calls (each one group of
 * objects), ___slab_alloc refills; and the ops the what-if prices:
 * local_irq_disable/enable pairs, local_irq_save/restore pairs and
 * this_cpu_cmpxchg_double commits; and the twin's plain commits. */
struct bulk_stats {
	uint64_t free_slow, alloc_slow;
	uint64_t irq_pairs, irq_saves, cpu_cmpxchg, plain_commits;
};
/* The slab layer of the SLUB model, and the counts this model adds. */
struct bulk_cache {
	struct slab_cache s;
	struct bulk_stats st;
};
int bulk_cache_create(struct bulk_cache **out, size_t size, size_t max_objects);
void bulk_cache_destroy(struct bulk_cache *c);
/* n objects into p[] (0, or -ENOMEM with none allocated). */
int bulk_alloc(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p);
/* Free p[0..n) (the detached algorithm consumes p[]: entries set to NULL). */
void bulk_free(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p);
/* Free objects in the slabs and on the calling thread's CPU freelist. */
size_t bulk_cache_free_objects(struct bulk_cache *c);
/* The calling thread's CPU slab, -1: none. */
int64_t bulk_cpu_slab(struct bulk_cache *c);

/* The machine of the series' own figures (named in its commit messages)
 * and its CPUs (4 cores, 8 threads): what the post's slabs were sized for. */
#define BULK_POST_MACHINE "i7-4790K"
#define BULK_POST_CPUS 8
/* "objects per SIZE-byte slab: N here (..), M on the series' i7-4790K
 * (..)": slab_geometry for cpus_here and BULK_POST_CPUS. Returns the
 * length (snprintf). */
int bulk_geometry_text(char *buf, size_t len, size_t size, unsigned cpus_here);

/* One figure per priced op: a count per object, or a cost in core cycles
 * per op (a disable/enable pair, a save/restore pair, a commit). */
struct bulk_ops {
	double irq_pair, irq_save, cpu_cmpxchg;
};
/* The series' own figures (commit messages of 6/7 and 7/7, i7-4790K): 7, 37
 * and 9 cycles(tsc) of its 4.00 GHz TSC, taken as core cycles. */
extern const struct bulk_ops bulk_kernel_cost;
/* Ops per object between two snapshots over objs objects. */
void bulk_ops_per_object(const struct bulk_stats *s0, const struct bulk_stats *s1, double objs,
			 struct bulk_ops *per_obj);
/* WHAT-IF: timer ticks per object with each op's model cost (core cycles)
 * replaced by the kernel's: ticks + ticks_per_cycle * sum of
 * per_obj * (kernel - model). */
double bulk_whatif(double ticks, const struct bulk_ops *per_obj, const struct bulk_ops *model,
		   const struct bulk_ops *kernel, double ticks_per_cycle);
/* The commit's cost in context, core cycles per commit: the fallback's and
 * its plain-commit twin's timer ticks per object (one pass), commits per
 * object, ticks per core cycle. */
double bulk_commit_in_context(double fallback_ticks, double twin_ticks, double commits,
			      double ticks_per_cycle);

#endif
