/* SPDX-License-Identifier: MIT */
/* hierarchy.h - the measured memory hierarchy: a latency staircase from a
 * dependent random pointer chase over growing footprints, over several
 * epochs, its knees (cache levels) set beside what hwloc declares
 * (docs/hierarchy.md). The pure parts work without measuring, for the
 * tests; hierarchy_measure runs on the calling, pinned and calibrated
 * thread. */
#ifndef ATOMCOST_HIERARCHY_H
#define ATOMCOST_HIERARCHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "pattern.h"
#include "sections.h"
#include "topo.h"

/* From hierarchy_default_opts, then changed. */
struct hierarchy_opts {
	size_t min_footprint;	/* bytes */
	size_t max_footprint;	/* bytes, 0: chosen (hierarchy_default_max) */
	unsigned steps_per_octave;	/* footprints per doubling */
	double time_budget_s;	/* no epoch starts that would end past this */
	bool no_huge;		/* 4 KiB pages: no hugetlb, no THP */
	unsigned epochs;	/* sweeps, each on a fresh buffer and walk order */
	uint64_t seed;		/* walk order of the first epoch */
};

/* One footprint of the staircase. */
struct hierarchy_point {
	size_t bytes;		/* footprint walked */
	double cycles;		/* median over the epochs of each epoch's median, core cycles per load */
	double cycles_min;	/* fastest sample */
	double ns;		/* the same in ns per load */
	double spread;		/* the epochs' medians: max / min - 1 */
	unsigned samples;	/* over all epochs */
	uint64_t steps;		/* loads per sample */
};

/* A run of points [first, last] and its latency (the median of its upper half). */
struct hierarchy_span {
	size_t first, last;
	double cycles, ns;
};

/* One level: a plateau of the staircase. */
struct hierarchy_level {
	bool memory;		/* the memory plateau: the last one */
	bool shelf;		/* between the last cache and memory: neither */
	size_t size_bytes;	/* capacity estimate (0 for memory) */
	size_t size_lo;		/* the plateau's last footprint */
	size_t size_hi;		/* the next plateau's first footprint (the next point
				 * when none follows; 0 when the sweep ended here) */
	size_t first, last;	/* plateau: points [first, last] */
	struct hierarchy_span core;	/* the sub-plateau that sets the latency and the walk */
	struct hierarchy_span inner;	/* the other one (TLB misses after the core, or the
					 * transition's tail before), cycles 0: none */
	size_t hwloc_size;	/* what hwloc declares for this cache level, 0: nothing */
	bool agrees;		/* hwloc's size in [size_lo, size_hi], a step of slack */
	bool share;		/* the last cache, smaller than declared: the effective share
				 * this PU gets of a cache shared with other cores (tenants) */
	unsigned seen;		/* epochs whose own staircase shows this level */
	size_t size_min, size_max;	/* their size estimates (caches) */
};

/* What one epoch's staircase alone shows. */
struct hierarchy_epoch {
	size_t ncaches;
	bool memory;		/* reached a memory plateau */
	size_t size[HIER_MAX_LEVELS];	/* its caches' size estimates */
	double cycles[HIER_MAX_LEVELS];	/* and latencies */
	size_t huge_bytes;	/* of its buffer (hugetlb: all of it) */
	bool hugetlb;		/* its buffer came from the hugetlb pool */
};

struct hierarchy {
	struct hierarchy_point pts[HIER_MAX_POINTS];
	size_t npts;
	struct hierarchy_level levels[HIER_MAX_LEVELS];
	size_t nlevels;
	size_t ncaches;		/* levels[0, ncaches) are caches */
	size_t hwloc[HIER_MAX_HWLOC];	/* hwloc's data/unified cache sizes, L1..L5, 0: none */
	size_t hwloc_n;		/* levels hwloc declares */
	bool disagrees;		/* some measured level and hwloc's disagree */
	bool reached_memory;	/* the sweep ended on a memory plateau: the last level */
	bool truncated;		/* the time budget stopped the first sweep early */
	unsigned epochs;	/* sweeps done (the first one maybe in part) */
	unsigned epochs_planned;
	bool interrupted;	/* runner_stop ended the sweep */
	size_t max_footprint;	/* the largest footprint planned */
	char max_reason[96];	/* why that one */
	char thp_mode[16];	/* /sys/kernel/mm/transparent_hugepage/enabled */
	bool huge_requested;	/* MAP_HUGETLB mapped, or madvise(MADV_HUGEPAGE) accepted */
	char page_source[40];	/* hugetlb, THP, or why 4 KiB pages */
	size_t huge_bytes;	/* the least huge part of an epoch's buffer (AnonHugePages) */
	size_t page_bytes;	/* page size of most of the buffer, in every epoch */
	/* per epoch: the points' medians, and what its staircase alone shows */
	double ep_cycles[HIER_MAX_EPOCHS][HIER_MAX_POINTS];
	double ep_ns[HIER_MAX_EPOCHS][HIER_MAX_POINTS];
	struct hierarchy_epoch ep[HIER_MAX_EPOCHS];
	/* plateaus of the combined staircase that hwloc does not declare and
	 * that not every epoch shows: not levels */
	struct hierarchy_level unstable[HIER_MAX_LEVELS];
	size_t nunstable;
	/* TLB reach: the same walk on 4 KiB pages over the first nsmall
	 * footprints, beside the huge-page one (only when huge pages were had) */
	double ep_small[HIER_MAX_EPOCHS][HIER_MAX_POINTS];
	double small_cycles[HIER_MAX_POINTS];	/* median over the epochs */
	size_t nsmall;
	size_t tlb_reach;	/* last footprint where 4 KiB pages cost no more, 0: none seen */
	double ticks_per_cycle, timer_hz;	/* calibration used */
	int cpu_os;		/* PU measured on, -1: unknown */
	double elapsed_s;
	uint64_t seed;
};

void hierarchy_default_opts(struct hierarchy_opts *o);

/* The largest footprint to walk: 8 x hwloc's last-level cache, between
 * 64 MiB and 512 MiB (hwloc's size may be fiction, and the memory plateau
 * needs several times the real one), at most a quarter of MemAvailable.
 * mem_avail 0: unknown (no cap). Writes the reason into why. Pure. */
size_t hierarchy_default_max(size_t hwloc_llc, uint64_t mem_avail, char *why, size_t len);

/* Footprints from min (at least 64 lines) to max, whole 64-byte lines,
 * steps_per_octave (at least 1) per doubling, geometric, no duplicates. Returns the
 * count (at most max_out). Pure. */
size_t hierarchy_footprints(size_t min, size_t max, unsigned steps_per_octave, size_t *out,
			    size_t max_out);

/* Link lines [0, n) of base (64 bytes apart) into one random cycle: each
 * line's first word points at the next line. order is scratch for n
 * entries. Pure (no timing). */
void hierarchy_link_ring(char *base, size_t n, uint32_t *order, uint64_t seed);

/* Combine the epochs: h->pts[].bytes, h->npts, h->epochs, h->ep_cycles,
 * h->ep_ns (and h->ep_small over h->nsmall points) and h->hwloc given.
 * Each point becomes the median over the epochs; the levels are those of
 * that curve (hierarchy.c says how knees are found), each with the epochs
 * whose own staircase shows it and their size range, and beside hwloc's;
 * where the combined curve has more caches than hwloc declares, a level
 * that not every epoch shows is dropped (into h->unstable). Sets
 * h->tlb_reach. Pure. */
void hierarchy_combine(struct hierarchy *h);

/* TLB reach: where the walk on 4 KiB pages (small) starts to cost more
 * than on huge pages (huge); 0 when the two curves never part. Pure. */
size_t hierarchy_tlb_reach(const size_t *bytes, const double *huge, const double *small, size_t n);

/* Measure the staircase on the calling thread (pin it, calibrate into cal
 * first). t gives hwloc's declared caches; cpu_os is recorded. 0, -EINTR
 * when runner_stop was set (h holds the points measured), or -errno after
 * a message. */
int hierarchy_measure(const struct hierarchy_opts *o, const struct calibration *cal,
		      const struct topo *t, int cpu_os, struct hierarchy *h);

/* The measured size of cache level (1-based) where the staircase found it,
 * else 0; the memory level is not a cache. */
size_t hierarchy_cache_size(const struct hierarchy *h, int level);

/* A footprint whose walk lives in one level: the geometric middle of its
 * core (level 1..ncaches: the caches; ncaches + 1: memory), away from both
 * knees; 0 when there is no such level. */
size_t hierarchy_level_footprint(const struct hierarchy *h, int level);

/* Footprints for the walking patterns from the staircase: walk[PAT_DEP]
 * in L1, walk[PAT_L2] in L2, walk[PAT_LLC] in the last cache,
 * walk[PAT_MISS] and walk[PAT_MISS_OVERLAP] in memory, the others 0; all
 * 0 unless three caches and memory were found. */
void hierarchy_walks(const struct hierarchy *h, size_t walk[PAT__COUNT]);

/* Writers: read h, never measure. The report's section (sections.h) and the text. */
void hierarchy_section(const struct hierarchy *h, struct hierarchy_section *s);
void hierarchy_print(const struct hierarchy *h, FILE *f);

#endif
