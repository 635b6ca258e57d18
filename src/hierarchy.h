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

/* The raw sweep beside the section (sections.h, where the engine puts the
 * rest): what hierarchy_combine reads that the report does not keep. */
struct hierarchy_sweep {
	double ep_ns[HIER_MAX_EPOCHS][HIER_MAX_POINTS];	/* each epoch's ns per point */
	double ep_small[HIER_MAX_EPOCHS][HIER_MAX_POINTS];	/* each epoch's walk on 4 KiB
								 * pages, tlb.ncycles_4k points */
	bool hugetlb[HIER_MAX_EPOCHS];	/* the epoch's buffer from the hugetlb pool */
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

/* Combine the epochs: s->points[].bytes, s->npoints, s->epochs,
 * s->per_epoch[].cycles, s->hwloc_caches, w->ep_ns (and w->ep_small over
 * s->tlb.ncycles_4k points) given. Each point becomes the median over the
 * epochs, and the levels are those of that curve (docs/hierarchy.md,
 * "Stable levels": unstable ones go to s->unstable). Fills the rest of the
 * section but what hierarchy_measure records. Pure. */
void hierarchy_combine(struct hierarchy_section *s, const struct hierarchy_sweep *w);

/* TLB reach: where the walk on 4 KiB pages (small) starts to cost more
 * than on huge pages (huge); 0 when the two curves never part. Pure. */
size_t hierarchy_tlb_reach(const size_t *bytes, const double *huge, const double *small, size_t n);

/* Measure the staircase on the calling thread (pin it, calibrate into cal
 * first) into s. t gives hwloc's declared caches; cpu_os is recorded. 0,
 * -EINTR when runner_stop was set (s holds the points measured), or -errno
 * after a message. */
int hierarchy_measure(const struct hierarchy_opts *o, const struct calibration *cal,
		      const struct topo *t, int cpu_os, struct hierarchy_section *s);

/* The caches the staircase found: its levels but memory. */
size_t hierarchy_ncaches(const struct hierarchy_section *s);

/* The measured size of cache level (1-based) where the staircase found it,
 * else 0; the memory level is not a cache. */
size_t hierarchy_cache_size(const struct hierarchy_section *s, int level);

/* A footprint whose walk lives in one level: the geometric middle of its
 * core (level 1..ncaches: the caches; ncaches + 1: memory), away from both
 * knees; 0 when there is no such level. */
size_t hierarchy_level_footprint(const struct hierarchy_section *s, int level);

/* Footprints for the walking patterns from the staircase: walk[PAT_DEP]
 * in L1, walk[PAT_L2] in L2, walk[PAT_LLC] in the last cache,
 * walk[PAT_MISS] and walk[PAT_MISS_OVERLAP] in memory, the others 0; all
 * 0 unless three caches and memory were found. */
void hierarchy_walks(const struct hierarchy_section *s, size_t walk[PAT__COUNT]);

/* The text of the section: reads s, never measures. */
void hierarchy_print(const struct hierarchy_section *s, FILE *f);

#endif
