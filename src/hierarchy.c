/* SPDX-License-Identifier: MIT */
/* hierarchy.c - the measured memory hierarchy (hierarchy.h; the walk, the
 * pages, the knees and the epochs are described in docs/hierarchy.md). One
 * buffer, mapped for the largest footprint, holds every footprint from its
 * start: a footprint is its first n lines. */
#include "hierarchy.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "common.h"
#include "pattern.h"
#include "runner.h"
#include "stats.h"

#define MIN_BYTES (UNROLL * CACHELINE)	/* the chase takes 64 steps per iteration */
#define HUGE_BYTES (2u << 20)
#define MAX_AUTO (512ull << 20)	/* 512 MiB */
#define MIN_AUTO (64ull << 20)		/* 64 MiB */
#define FALLBACK_AUTO (256ull << 20)	/* when hwloc knows no cache */
#define SAMPLES 15
#define SAMPLE_S 50e-6			/* one sample lasts about 50 us */
#define WARM_STEPS_MIN 4096
#define WARM_STEPS_MAX (1u << 18)
#define WARM_NS 5000000ull		/* 5 ms */
#define WARM_CHUNK 64			/* iterations: 4096 loads */

/* Knee detection (find_levels). */
#define PLATEAU_BAND 0.20		/* within 20% of the plateau's running median */
#define PLATEAU_MIN_SPAN 1.6		/* over half an octave: 4 points at 4 per octave */
#define MERGE_RATIO 1.30		/* plateaus closer than this are one level */
#define STEP_RATIO 1.50		/* up to this above a level: its inner (TLB) step */
#define MEMORY_MIN_NS 40.0		/* no cache level costs this much */
#define MEMORY_MIN_STEP 2.0		/* and memory costs twice the last cache at least */
#define AGREE_SLACK 1.25		/* one footprint step around the rise */
#define STABLE_MATCH 1.30		/* an epoch's level within this of the combined one's latency */
#define TLB_MAX (2u << 20)		/* 4 KiB-page comparison up to 2 MiB (L1 DTLB reach: 288-384 KiB) */
#define TLB_EXTRA 0.08			/* 4 KiB pages slower by this much ... */
#define TLB_MIN_CYCLES 0.5		/* ... and this many cycles ... */
#define TLB_RUN 3			/* ... at this many footprints in a row: past TLB reach */
#define TLB_FLAT 0.10			/* where the huge-page walk's neighbours are this close */

/* A run of points [first, last] and its latency (the median of its upper half). */
struct hierarchy_span {
	size_t first, last;
	double cycles, ns;
};

/* One level (a plateau of the staircase) while the knees are found: in
 * point indices, which the section's level (bytes) does not keep. */
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

/* The combined curve's levels while hierarchy_combine sorts them, and
 * each epoch's caches' latencies (the section keeps their sizes only). */
struct knees {
	struct hierarchy_level levels[HIER_MAX_LEVELS];
	size_t nlevels;
	size_t ncaches;		/* levels[0, ncaches) are caches */
	/* plateaus that hwloc does not declare and that not every epoch
	 * shows: not levels */
	struct hierarchy_level unstable[HIER_MAX_LEVELS];
	size_t nunstable;
	double ep_cycles[HIER_MAX_EPOCHS][HIER_MAX_LEVELS];
};

void hierarchy_default_opts(struct hierarchy_opts *o)
{
	*o = (struct hierarchy_opts){ .min_footprint = MIN_BYTES, .steps_per_octave = 4,
		.time_budget_s = 20.0, .epochs = 5, .seed = PATTERN_SEED };
}

static size_t round_down(size_t v, size_t to)
{
	return v / to * to;
}

/* A size as text, for the arguments of one call: it lives to the end of
 * the full expression. */
struct size_text {
	char s[32];
};

/* "4 KiB", "1.50 MiB": whole units exact, else 2 decimals (1 in KiB);
 * none (when given) for 0 and for a size the section holds as -1 (null). */
static struct size_text fmt_size_or(long long size, const char *none)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB" };
	uint64_t v = size > 0 ? (uint64_t)size : 0;
	int u = v >= (1ull << 30) ? 2 : v >= (1ull << 20) ? 1 : 0;
	uint64_t d = 1ull << (10 * (u + 1));
	struct size_text t;

	if (!v && none)
		snprintf(t.s, sizeof(t.s), "%s", none);
	else if (v % d)
		snprintf(t.s, sizeof(t.s), u ? "%.2f %s" : "%.1f %s", (double)v / (double)d, unit[u]);
	else
		snprintf(t.s, sizeof(t.s), "%" PRIu64 " %s", v / d, unit[u]);
	return t;
}

static struct size_text fmt_size(long long v)
{
	return fmt_size_or(v, NULL);
}

size_t hierarchy_default_max(size_t hwloc_llc, uint64_t mem_avail, char *why, size_t len)
{
	struct size_text llc = fmt_size(hwloc_llc);
	size_t max = 8 * hwloc_llc;

	if (!hwloc_llc) {
		max = FALLBACK_AUTO;
		snprintf(why, len, "256 MiB (hwloc declares no cache size)");
	} else if (max > MAX_AUTO) {
		max = MAX_AUTO;
		snprintf(why, len, "512 MiB cap (8 x hwloc's %s last-level cache is more)", llc.s);
	} else if (max < MIN_AUTO) {
		max = MIN_AUTO;
		snprintf(why, len, "64 MiB floor (8 x hwloc's %s last-level cache is less)", llc.s);
	} else {
		snprintf(why, len, "8 x hwloc's last-level cache (%s)", llc.s);
	}
	if (mem_avail && max > mem_avail / 4) {
		max = round_down(mem_avail / 4, HUGE_BYTES);
		if (max < MIN_BYTES)
			max = MIN_BYTES;
		snprintf(why, len, "a quarter of MemAvailable (%s)", fmt_size(mem_avail).s);
	}
	return max;
}

size_t hierarchy_footprints(size_t min, size_t max, unsigned steps_per_octave, size_t *out,
			    size_t max_out)
{
	size_t n = 0;

	min = min < MIN_BYTES ? MIN_BYTES : round_down(min, CACHELINE);
	max = max < min ? min : round_down(max, CACHELINE);
	for (unsigned k = 0; n < max_out; k++) {
		double f = (double)min * exp2((double)k / steps_per_octave);
		size_t v = round_down((size_t)f, CACHELINE);

		if (v > max)
			v = max;
		if (!n || v > out[n - 1])
			out[n++] = v;
		if (v == max)
			break;
	}
	return n;
}

void hierarchy_link_ring(char *base, size_t n, uint32_t *order, uint64_t seed)
{
	if (!n)
		return;
	/* order[0] = 0 and a uniform shuffle of the rest: linking order[k] to
	 * order[k+1] gives one cycle through every line */
	pattern_walk_order(order, n, seed);
	for (size_t k = 0; k < n; k++) {
		size_t next = order[k + 1 == n ? 0 : k + 1];

		*(char **)(base + (size_t)order[k] * CACHELINE) = base + next * CACHELINE;
	}
}

/* ---- knees ------------------------------------------------------------- */

static bool in_band(double med, double v)
{
	return v > 0 && v <= med * (1 + PLATEAU_BAND) && v * (1 + PLATEAU_BAND) >= med;
}

static double median_of(const double *v, size_t first, size_t last, const bool *skip)
{
	double tmp[HIER_MAX_POINTS];
	size_t k = 0;

	for (size_t i = first; i <= last; i++)
		if (!skip[i])
			tmp[k++] = v[i];
	return stats_median(tmp, k);
}

/* A level's latency: the median of its plateau's upper half (by
 * footprint), where the level below no longer serves any load of a
 * gradual transition. */
static void upper_median(struct hierarchy_span *s, const double *cycles, const double *ns, const bool *noise)
{
	size_t mid = s->first + (s->last - s->first + 1) / 2;

	if (isnan(median_of(cycles, mid, s->last, noise)))	/* only noise up there */
		mid = s->first;
	s->cycles = median_of(cycles, mid, s->last, noise);
	s->ns = median_of(ns, mid, s->last, noise);
}

/* Of a level's two sub-plateaus, the longer (in footprint) is its core. */
static void keep_longer(struct hierarchy_level *lv, const size_t *bytes)
{
	struct hierarchy_span core = lv->core;

	if ((double)bytes[lv->inner.last] / (double)bytes[lv->inner.first] <=
	    (double)bytes[core.last] / (double)bytes[core.first])
		return;
	lv->core = lv->inner;
	lv->inner = core;
}

/* A level's capacity, between its plateau's last footprint and the next
 * plateau's first: the last footprint where the latency jumps within one
 * step (also with no next level), else where it crosses the geometric mean
 * of the two levels' (log interpolation). docs/hierarchy.md ("Capacity")
 * gives the why and the figures: random page colours in a guest make a
 * cache's rise gradual, and there about a third of the loads miss. */
static size_t crossing(const struct hierarchy_level *lv, const struct hierarchy_level *next,
		       const size_t *bytes, const double *cycles, size_t n)
{
	double lo = lv->core.cycles, hi = next ? next->core.cycles : 0, target = sqrt(lo * hi);
	size_t last = lv->last, prev = last;

	if (!next || !(hi > lo) || next->first >= n)
		return bytes[last];
	for (size_t k = last + 1; k <= next->first; k++) {
		double f;

		if (!(cycles[k] > 0))
			continue;
		if (cycles[k] < target) {
			prev = k;
			continue;
		}
		if (prev == last || !(cycles[prev] > 0))
			return bytes[last];	/* a jump within one step */
		f = log(target / cycles[prev]) / log(cycles[k] / cycles[prev]);
		return round_down((size_t)((double)bytes[prev] *
					   pow((double)bytes[k] / (double)bytes[prev], f)), CACHELINE);
	}
	return bytes[last];
}

/* Greedy plateaus of cycles[0, n) into run[], left to right, each point
 * within the band around the running median (docs/hierarchy.md, "Levels");
 * noise[] marks the disturbed points inside them. Returns the count. */
static size_t find_plateaus(const size_t *bytes, const double *cycles, size_t n, bool *noise,
			    struct hierarchy_span *run)
{
	size_t nrun = 0, i = 0;

	while (i < n) {
		size_t j = i;

		if (!(cycles[i] > 0)) {
			noise[i++] = true;
			continue;
		}
		while (j + 1 < n) {
			double med = median_of(cycles, i, j, noise), v = cycles[j + 1];

			if (in_band(med, v)) {
				j++;
				continue;
			}
			/* one point above the band (or unmeasured) and the next
			 * back inside it: a disturbed sample, not a knee (the
			 * staircase never comes back down) */
			if (!(v < med) && j + 2 < n && in_band(med, cycles[j + 2])) {
				noise[j + 1] = true;
				j += 2;
				continue;
			}
			break;
		}
		if (j > i && (double)bytes[j] >= (double)bytes[i] * PLATEAU_MIN_SPAN) {
			run[nrun++] = (struct hierarchy_span){ .first = i, .last = j };
			i = j + 1;
		} else {
			for (size_t k = i + 1; k <= j; k++)
				noise[k] = false;
			i++;
		}
	}
	return nrun;
}

/* Knee detection (docs/hierarchy.md, "Levels"): the levels of a latency
 * curve over ascending footprints (n at most HIER_MAX_POINTS). Fills levels
 * (plateau, core, inner step, size estimate and bracket; the rest
 * cleared); returns the count. */
static size_t find_levels(const size_t *bytes, const double *cycles, const double *ns, size_t n,
			  struct hierarchy_level *levels)
{
	bool noise[HIER_MAX_POINTS] = { false };
	struct hierarchy_span run[HIER_MAX_POINTS];
	size_t nrun = find_plateaus(bytes, cycles, n, noise, run), nlev = 0;

	/* a gradual transition's slow tail forms a plateau just below the next
	 * level: merge plateaus closer than MERGE_RATIO. A plateau up to
	 * STEP_RATIO above a level is its inner step: TLB misses (here L2 at
	 * 14 cycles to 430 KiB, 18-21 from 512 KiB to 1 MiB) or the tail of
	 * the transition into it (L3 at 36-40 cycles to 1.7 MiB, then 50-65 to
	 * 11 MiB). Cache levels are 2.5x and more apart on every core we know. */
	for (size_t r = 0; r < nrun; r++) {
		double med = median_of(cycles, run[r].first, run[r].last, noise);
		struct hierarchy_level *lv = nlev ? &levels[nlev - 1] : NULL;
		bool inner = lv && lv->inner.cycles > 0;
		double top = !lv ? 0 : inner ? fmax(lv->core.cycles, lv->inner.cycles) : lv->core.cycles;

		if (lv && med < top * MERGE_RATIO) {
			/* more of the upper sub-plateau */
			struct hierarchy_span *up = inner && lv->inner.first > lv->core.first ?
						    &lv->inner : &lv->core;

			lv->last = up->last = run[r].last;
			upper_median(up, cycles, ns, noise);
		} else if (lv && !inner && med < lv->core.cycles * STEP_RATIO) {
			lv->last = run[r].last;
			lv->inner = run[r];
			upper_median(&lv->inner, cycles, ns, noise);
		} else if (nlev == HIER_MAX_LEVELS) {
			break;
		} else {
			lv = &levels[nlev++];
			*lv = (struct hierarchy_level){ .first = run[r].first, .last = run[r].last,
							.core = run[r] };
			upper_median(&lv->core, cycles, ns, noise);
		}
		keep_longer(lv, bytes);
	}
	for (size_t l = 0; l < nlev; l++) {
		struct hierarchy_level *lv = &levels[l], *next = l + 1 < nlev ? lv + 1 : NULL;
		size_t end = next ? next->first : lv->last + 1;

		lv->size_lo = bytes[lv->last];
		lv->size_hi = end < n ? bytes[end] : 0;
		lv->size_bytes = crossing(lv, next, bytes, cycles, n);
	}
	return nlev;
}

/* The last plateau with an inner step, when it costs what no cache does:
 * memory is the upper sub-plateau (at the largest footprints no cache hit
 * is left), the lower one a shelf (partial hits in the cache below, or
 * fewer page walks). Split it in two. */
static void split_memory_step(struct hierarchy_level *levels, size_t *nlevels)
{
	struct hierarchy_level *lv, *mem;
	bool core_upper;

	if (!*nlevels || *nlevels == HIER_MAX_LEVELS)
		return;
	lv = &levels[*nlevels - 1];
	if (!(lv->inner.cycles > 0) || !(fmax(lv->core.ns, lv->inner.ns) >= MEMORY_MIN_NS))
		return;
	core_upper = lv->core.first > lv->inner.first;
	mem = &levels[(*nlevels)++];
	*mem = *lv;
	mem->core = core_upper ? lv->core : lv->inner;
	mem->first = mem->core.first;
	lv->core = core_upper ? lv->inner : lv->core;
	lv->core.first = lv->first;
	lv->last = lv->core.last = mem->first - 1;
	mem->inner = lv->inner = (struct hierarchy_span){ 0 };
}

/* The levels of a latency curve into levels[0, *nlevels), classified:
 * past the first plateau that costs what no cache does, well above the
 * level before it, the last plateau is memory (*memory set), those in
 * between shelves (docs/hierarchy.md, "Memory"). Returns the count of caches. */
static size_t levels_of(const size_t *bytes, const double *cycles, const double *ns, size_t n,
			struct hierarchy_level *levels, size_t *nlevels, bool *memory)
{
	size_t ncaches = *nlevels = find_levels(bytes, cycles, ns, n, levels);

	*memory = false;
	split_memory_step(levels, nlevels);
	for (size_t l = 1; l < *nlevels; l++) {
		struct hierarchy_level *lv = &levels[l];

		if (!*memory && !(lv->core.ns >= MEMORY_MIN_NS &&
				  lv->core.cycles >= MEMORY_MIN_STEP * levels[l - 1].core.cycles))
			continue;
		if (!*memory)
			ncaches = l;
		*memory = true;
		lv->memory = l == *nlevels - 1;
		lv->shelf = !lv->memory;
		lv->size_bytes = lv->size_lo = lv->size_hi = 0;
	}
	return ncaches;
}

/* Each cache level beside hwloc's of the same rank; the last cache, when
 * smaller than declared, is the share of it this PU gets (docs/hierarchy.md,
 * "Against hwloc"). */
static void match_hwloc(struct knees *k, struct hierarchy_section *s)
{
	size_t nhw = s->nhwloc_caches;

	s->disagrees = k->ncaches != nhw;
	for (size_t l = 0; l < k->ncaches; l++) {
		struct hierarchy_level *lv = &k->levels[l];

		/* hwloc's size where the staircase rises (a step of slack); a
		 * cache's size_lo is never 0, so no size declared never agrees */
		lv->hwloc_size = l < nhw ? s->hwloc_caches[l] : 0;
		lv->agrees = (double)lv->hwloc_size * AGREE_SLACK >= (double)lv->size_lo &&
			     (!lv->size_hi || (double)lv->hwloc_size <= (double)lv->size_hi * AGREE_SLACK);
		lv->share = !lv->agrees && l > 0 && l + 1 == k->ncaches && l + 1 == nhw &&
			    lv->size_hi && (double)lv->size_hi * AGREE_SLACK < (double)lv->hwloc_size;
		if (!lv->agrees && !lv->share)
			s->disagrees = true;
	}
}

size_t hierarchy_ncaches(const struct hierarchy_section *s)
{
	return s->nlevels && s->reached_memory ? s->nlevels - 1 : s->nlevels;
}

size_t hierarchy_cache_size(const struct hierarchy_section *s, int level)
{
	return level >= 1 && (size_t)level <= hierarchy_ncaches(s) ?
	       (size_t)s->levels[level - 1].size_bytes : 0;
}

size_t hierarchy_level_footprint(const struct hierarchy_section *s, int level)
{
	size_t n = hierarchy_ncaches(s) + s->reached_memory;

	return level >= 1 && (size_t)level <= n ? (size_t)s->levels[level - 1].walk_bytes : 0;
}

void hierarchy_walks(const struct hierarchy_section *s, size_t walk[PAT__COUNT])
{
	size_t nc = hierarchy_ncaches(s);

	memset(walk, 0, PAT__COUNT * sizeof(*walk));
	/* the l2/llc/miss walks only when the staircase shows three caches
	 * and memory: with fewer, which level is which is a guess */
	if (nc < 3 || !s->reached_memory)
		return;
	walk[PAT_DEP] = hierarchy_level_footprint(s, 1);
	walk[PAT_L2] = hierarchy_level_footprint(s, 2);
	walk[PAT_LLC] = hierarchy_level_footprint(s, (int)nc);
	walk[PAT_MISS] = walk[PAT_MISS_OVERLAP] = hierarchy_level_footprint(s, (int)nc + 1);
}

/* ---- epochs ------------------------------------------------------------ */

/* Past TLB reach the walk on 4 KiB pages stays slower, counted only where
 * the huge-page walk is flat (docs/hierarchy.md, "TLB reach", says why). */
size_t hierarchy_tlb_reach(const size_t *bytes, const double *huge, const double *small, size_t n)
{
	size_t run = 0;

	for (size_t i = 1; i < n; i++) {
		double next = i + 1 < n ? huge[i + 1] : huge[i];
		bool flat = next < huge[i - 1] * (1 + TLB_FLAT) && huge[i - 1] < next * (1 + TLB_FLAT);

		run = flat && small[i] > huge[i] * (1 + TLB_EXTRA) && small[i] - huge[i] > TLB_MIN_CYCLES ?
		      run + 1 : 0;
		if (run == TLB_RUN)
			return bytes[i - TLB_RUN];
	}
	return 0;
}

/* The epoch's cache (latencies cycles[0, n)) nearest in latency to lv,
 * within STABLE_MATCH; -1: none. */
static int epoch_match(const double *cycles, size_t n, const struct hierarchy_level *lv)
{
	int best = -1;
	double bd = log(STABLE_MATCH);

	for (size_t j = 0; j < n; j++) {
		double d = fabs(log(cycles[j] / lv->core.cycles));

		if (d < bd) {
			bd = d;
			best = (int)j;
		}
	}
	return best;
}

/* Per level of the combined curve: the epochs that show it, and the size
 * range of those whose rise out of it leads to the same next level (an
 * epoch that missed the L3, disturbed, sizes its L2 against memory). */
static void count_seen(struct knees *k, const struct hierarchy_section *s)
{
	for (size_t l = 0; l < k->nlevels; l++) {
		struct hierarchy_level *lv = &k->levels[l];

		lv->seen = 0;
		lv->size_min = lv->size_max = 0;
		for (size_t e = 0; e < s->nper_epoch; e++) {
			const struct hier_epoch_out *ep = &s->per_epoch[e];
			const double *cyc = k->ep_cycles[e];
			int j = epoch_match(cyc, ep->ncache_sizes, lv);
			bool same_next;

			if (lv->memory || lv->shelf) {
				lv->seen += lv->memory && ep->memory;
				continue;
			}
			if (j < 0)
				continue;
			lv->seen++;
			same_next = l + 1 < k->ncaches ?
				    (size_t)j + 1 < ep->ncache_sizes &&
				    fabs(log(cyc[j + 1] / lv[1].core.cycles)) < log(STABLE_MATCH) :
				    (size_t)j + 1 == ep->ncache_sizes;
			if (same_next && (!lv->size_min || ep->cache_sizes[j] < lv->size_min))
				lv->size_min = ep->cache_sizes[j];
			if (same_next && ep->cache_sizes[j] > lv->size_max)
				lv->size_max = ep->cache_sizes[j];
		}
	}
}

/* Drop cache level l (not every epoch shows it): its points join the rise
 * from the level below to the one above (over bytes, cycles: the combined
 * curve, n points), whose capacity is sized again. */
static void drop_level(struct knees *k, size_t l, const size_t *bytes, const double *cycles,
		       size_t n)
{
	struct hierarchy_level *lv, *next;

	if (k->nunstable < HIER_MAX_LEVELS)
		k->unstable[k->nunstable++] = k->levels[l];
	memmove(&k->levels[l], &k->levels[l + 1], (k->nlevels - l - 1) * sizeof(k->levels[0]));
	k->nlevels--;
	k->ncaches--;
	if (!l)
		return;
	lv = &k->levels[l - 1];
	next = l < k->nlevels ? lv + 1 : NULL;
	lv->size_lo = bytes[lv->last];
	lv->size_hi = next ? bytes[next->first] : 0;
	lv->size_bytes = crossing(lv, next, bytes, cycles, n);
}

/* More caches than hwloc declares: drop those not every epoch shows, the
 * least seen first (a tie: the larger). A level every epoch shows stays,
 * and is reported as one hwloc lacks. */
static void drop_unstable(struct knees *k, const struct hierarchy_section *s, const size_t *bytes,
			  const double *cycles)
{
	while (s->nhwloc_caches && k->ncaches > s->nhwloc_caches) {
		size_t worst = SIZE_MAX;

		for (size_t l = 0; l < k->ncaches; l++)
			if (k->levels[l].seen < s->nper_epoch &&
			    (worst == SIZE_MAX || k->levels[l].seen <= k->levels[worst].seen))
				worst = l;
		if (worst == SIZE_MAX)
			return;
		drop_level(k, worst, bytes, cycles, s->npoints);
	}
}

/* The median over ne epochs of point i of per-epoch curves v. */
static double epoch_median(const double v[][HIER_MAX_POINTS], size_t ne, size_t i)
{
	double tmp[HIER_MAX_EPOCHS];

	for (size_t e = 0; e < ne; e++)
		tmp[e] = v[e][i];
	return stats_median(tmp, ne);
}

/* The middle of a level's core, in bytes: a walk inside the level, away
 * from both knees. */
static size_t core_walk(const struct hierarchy_level *lv, const size_t *bytes)
{
	double first = (double)bytes[lv->core.first], last = (double)bytes[lv->core.last];

	return round_down((size_t)sqrt(first * last), CACHELINE);
}

static long long size_or_none(size_t v)
{
	return v ? (long long)v : -1;
}

/* A plateau's span: all an unstable one has. */
static void span_out(const struct hierarchy_level *lv, const size_t *bytes,
		     struct hier_level_out *o)
{
	*o = (struct hier_level_out){ .has = HAS_KEYS(HL_CYCLES, HL_SEEN), .cycles = lv->core.cycles,
		.ns = lv->core.ns, .first_bytes = (long long)bytes[lv->first],
		.last_bytes = (long long)bytes[lv->last], .epochs_seen = (int)lv->seen };
}

/* Level l of k into o; walk: the footprint inside it. */
static void level_out(const struct knees *k, size_t l, size_t walk, const size_t *bytes,
		      struct hier_level_out *o)
{
	const struct hierarchy_level *lv = &k->levels[l];

	span_out(lv, bytes, o);
	o->has |= 1u << HL_LEVEL | 1u << HL_MEMORY;
	if (lv->memory || lv->shelf)
		snprintf(o->level, sizeof(o->level), "%s", lv->memory ? "memory" : "shelf");
	else
		snprintf(o->level, sizeof(o->level), "L%zu", l + 1);
	o->memory = lv->memory;
	o->ns = isnan(o->ns) ? 0.0 : o->ns;
	if (lv->inner.cycles > 0) {
		o->has |= HAS_KEYS(HL_INNER_CYCLES, HL_INNER_TO);
		o->inner_cycles = lv->inner.cycles;
		o->inner_ns = isnan(lv->inner.ns) ? 0.0 : lv->inner.ns;
		o->inner_from = (long long)bytes[lv->inner.first];
		o->inner_to = (long long)bytes[lv->inner.last];
	}
	o->has |= walk ? 1u << HL_WALK : 0;
	o->walk_bytes = (long long)walk;
	if (lv->memory || lv->shelf)
		return;
	o->has |= HAS_KEYS(HL_SIZE, HL_EFFECTIVE_SHARE);
	o->size_bytes = (long long)lv->size_bytes;
	o->size_lo = (long long)lv->size_lo;
	o->size_hi = size_or_none(lv->size_hi);
	o->size_min = size_or_none(lv->size_min);
	o->size_max = size_or_none(lv->size_max);
	o->hwloc_size = size_or_none(lv->hwloc_size);
	o->agrees = lv->agrees;
	o->effective_share = lv->share;
}

/* The levels into the section, in bytes: caches and memory, the shelves
 * kept apart (neither cache nor memory; the one right after the caches
 * walks memory's footprint), and the unstable plateaus. */
static void levels_out(const struct knees *k, const size_t *bytes, struct hierarchy_section *s)
{
	s->nlevels = s->nshelves = s->nunstable = 0;
	for (size_t l = 0; l < k->nlevels; l++) {
		const struct hierarchy_level *lv = &k->levels[l];
		size_t walk = !lv->shelf ? core_walk(lv, bytes) :
			      l == k->ncaches ? core_walk(&k->levels[k->nlevels - 1], bytes) : 0;

		level_out(k, l, walk, bytes,
			  lv->shelf ? &s->shelves[s->nshelves++] : &s->levels[s->nlevels++]);
	}
	for (size_t u = 0; u < k->nunstable; u++)
		span_out(&k->unstable[u], bytes, &s->unstable[s->nunstable++]);
}

void hierarchy_combine(struct hierarchy_section *s, const struct hierarchy_sweep *w)
{
	struct hierarchy_level one[HIER_MAX_LEVELS];	/* an epoch's curve alone */
	struct knees k = { .nlevels = 0 };
	size_t xb[HIER_MAX_POINTS], nlev, n4k = s->tlb.ncycles_4k;
	double c[HIER_MAX_POINTS], t[HIER_MAX_POINTS];

	s->has = HAS_ALL(HS__COUNT) & ~(1u << HS_PASSES);
	s->pages.has = HAS_ALL(HPG__COUNT);
	snprintf(s->method, sizeof(s->method), "%s", "dependent random chase, one pointer per 64-byte line, "
		 "single cycle; epochs of fresh buffers, each point the median over them");
	s->nper_epoch = s->epochs < HIER_MAX_EPOCHS ? (size_t)s->epochs : HIER_MAX_EPOCHS;
	for (size_t i = 0; i < s->npoints; i++) {
		struct hier_point_out *p = &s->points[i];
		double lo = INFINITY, hi = 0, ep[HIER_MAX_EPOCHS];

		for (size_t e = 0; e < s->nper_epoch; e++) {
			ep[e] = s->per_epoch[e].cycles[i];
			lo = fmin(lo, ep[e]);
			hi = fmax(hi, ep[e]);
		}
		p->has = HAS_ALL(HP__COUNT) & ~(1u << HP_PASS_SPREAD);
		xb[i] = (size_t)p->bytes;
		c[i] = p->cycles = stats_median(ep, s->nper_epoch);
		t[i] = p->ns = epoch_median(w->ep_ns, s->nper_epoch, i);
		p->spread = lo > 0 ? hi / lo - 1 : 0;
	}
	for (size_t e = 0; e < s->nper_epoch; e++) {
		struct hier_epoch_out *ep = &s->per_epoch[e];

		ep->ncache_sizes = levels_of(xb, ep->cycles, w->ep_ns[e], s->npoints, one, &nlev,
					     &ep->memory);
		ep->has = HAS_ALL(HE__COUNT);
		ep->caches = (int)ep->ncache_sizes;
		ep->ncycles = s->npoints;
		for (size_t l = 0; l < ep->ncache_sizes; l++) {
			ep->cache_sizes[l] = one[l].size_bytes;
			k.ep_cycles[e][l] = one[l].core.cycles;
		}
	}
	k.ncaches = levels_of(xb, c, t, s->npoints, k.levels, &k.nlevels, &s->reached_memory);
	count_seen(&k, s);
	drop_unstable(&k, s, xb, c);
	count_seen(&k, s);	/* the ranges again, against the levels left */
	match_hwloc(&k, s);
	levels_out(&k, xb, s);
	s->tlb.has = n4k ? HAS_ALL(HT__COUNT) : 0;	/* no 4 KiB-page walk: null */
	if (!n4k)
		return;
	for (size_t i = 0; i < n4k; i++)
		s->tlb.cycles_4k[i] = epoch_median(w->ep_small, s->nper_epoch, i);
	snprintf(s->tlb.method, sizeof(s->tlb.method), "%s",
		 "the same walk on 4 KiB pages (MADV_NOHUGEPAGE) over the first footprints");
	s->tlb.compared_to_bytes = (long long)xb[n4k - 1];
	s->tlb.reach_bytes = size_or_none(hierarchy_tlb_reach(xb, c, s->tlb.cycles_4k, n4k));
}

/* ---- measuring --------------------------------------------------------- */

/* The timed chain: 64 dependent loads per iteration, each address the value
 * the previous load returned (arch_load is one `mov (%reg),%reg` on x86-64,
 * `ldr` on arm64). noinline: one symbol for the disassembly review. */
#define CHASE_STEP(i) q = (char *)(uintptr_t)arch_load(q);
static __attribute__((noinline)) void chase_kernel(char **cursor, uint64_t iters)
{
	char *q = *cursor;

	for (uint64_t it = 0; it < iters; it++) {
		OPS64(CHASE_STEP)
	}
	*cursor = q;
}

static double time_chase(char **cursor, uint64_t iters)
{
	uint64_t a = arch_timer_start();

	chase_kernel(cursor, iters);
	return (double)(arch_timer_stop() - a);
}

struct chase_buf {
	void *map;
	size_t map_len;
	char *base;
	uint32_t *order;
	bool hugetlb;		/* MAP_HUGETLB: every page huge */
	bool madvised;		/* MADV_HUGEPAGE accepted */
	size_t huge_bytes;	/* of the footprint, after touching */
};

static void chase_buf_free(struct chase_buf *b)
{
	munmap(b->map, b->map_len);
	free(b->order);
}

/* Map bytes for the chase: from the hugetlb pool when it has the pages
 * (want_huge), else anonymous memory 2 MiB aligned, THP asked for
 * (want_huge) or refused (4 KiB pages, for the TLB comparison); touched
 * twice, so no line is the shared zero page. */
static int chase_buf_alloc(struct chase_buf *b, size_t bytes, bool want_huge)
{
	size_t huge_len = (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;

	memset(b, 0, sizeof(*b));
	if (want_huge) {
		b->map = mmap(NULL, huge_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		b->hugetlb = b->map != MAP_FAILED;
		b->map_len = huge_len;
	}
	if (!b->hugetlb) {
		/* room for the 2 MiB-aligned start and a whole last huge page */
		b->map_len = huge_len + HUGE_BYTES;
		b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (b->map == MAP_FAILED) {
		int err = -errno;

		pr_err("hierarchy: cannot map %s for the chase: %s (give a smaller --max-footprint)",
		       fmt_size(bytes).s, strerror(-err));
		return err;
	}
	b->base = (char *)(((uintptr_t)b->map + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
	if (!b->hugetlb)
		b->madvised = !madvise(b->base, huge_len, want_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) &&
			      want_huge;
	memset(b->base, 1, bytes);
	memset(b->base, 0, bytes);
	b->huge_bytes = b->hugetlb ? bytes : pattern_thp_bytes((uintptr_t)b->base, (uintptr_t)b->base + bytes);
	if (b->huge_bytes > bytes)	/* the VMA merged with a neighbour */
		b->huge_bytes = bytes;
	b->order = malloc(bytes / CACHELINE * sizeof(uint32_t));
	if (!b->order) {
		pr_err("hierarchy: cannot allocate the walk order of %s", fmt_size(bytes).s);
		chase_buf_free(b);
		return -ENOMEM;
	}
	return 0;
}

static void measure_point(struct chase_buf *b, size_t bytes, const struct calibration *cal,
			  uint64_t seed, struct hier_point_out *pt)
{
	size_t n = bytes / CACHELINE;
	uint64_t warm_steps = n < WARM_STEPS_MIN ? WARM_STEPS_MIN : n > WARM_STEPS_MAX ? WARM_STEPS_MAX : n;
	uint64_t done = 0, iters, t0;
	double s[SAMPLES], ticks = 0, ticks_per_step, target = cal->timer_hz * SAMPLE_S;
	char *cursor = b->base;
	struct summary st;

	hierarchy_link_ring(b->base, n, b->order, seed);
	/* warm: once around the ring (up to WARM_STEPS_MAX loads, or WARM_NS
	 * at DRAM latency, where warming buys nothing), and a rate */
	t0 = now_ns();
	while (done < warm_steps && (done < WARM_STEPS_MIN || now_ns() - t0 < WARM_NS)) {
		ticks += time_chase(&cursor, WARM_CHUNK);
		done += WARM_CHUNK * UNROLL;
	}
	ticks_per_step = ticks / (double)done;
	if (!(ticks_per_step > 0))
		ticks_per_step = 1;
	iters = (uint64_t)(target / (ticks_per_step * UNROLL));
	if (iters < 1)
		iters = 1;
	for (unsigned k = 0; k < SAMPLES; k++) {
		/* the fenced timer pair is a fixed cost, a few hundredths of a
		 * sample: subtract its minimum */
		double t = time_chase(&cursor, iters) - cal->overhead_min;

		s[k] = t / (double)(iters * UNROLL);
	}
	stats_summarize(s, SAMPLES, &st);
	*pt = (struct hier_point_out){ .bytes = (long long)bytes, .samples = SAMPLES,
		.loads_per_sample = (long long)(iters * UNROLL),
		.cycles = clock_ticks_to_cycles(cal, st.median), .ns = clock_ticks_to_ns(cal, st.median),
		.cycles_min = clock_ticks_to_cycles(cal, st.min) };
}

/* The walk on 4 KiB pages over the footprints up to TLB_MAX, into
 * w->ep_small[e]: against the huge-page walk it shows the TLB reach. */
static int sweep_small(struct hierarchy_section *s, struct hierarchy_sweep *w,
		       const struct calibration *cal, unsigned e, uint64_t seed)
{
	struct chase_buf b;
	struct hier_point_out pt;
	size_t n = 0;
	int ret;

	while (n < s->npoints && s->points[n].bytes <= TLB_MAX)
		n++;
	if (!n)
		return 0;
	ret = chase_buf_alloc(&b, (size_t)s->points[n - 1].bytes, false);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n && !runner_stop; i++) {
		measure_point(&b, (size_t)s->points[i].bytes, cal, seed, &pt);
		w->ep_small[e][i] = pt.cycles;
	}
	s->tlb.ncycles_4k = b.huge_bytes ? 0 : n;	/* THP "always" ignored MADV_NOHUGEPAGE */
	chase_buf_free(&b);
	return runner_stop ? -EINTR : 0;
}

/* Epoch e: a fresh buffer and walk order, every footprint once. In the
 * first epoch the budget truncates the sweep; a later one that overruns
 * it by half is dropped (1). 0, 1, -EINTR or -errno. */
static int sweep_epoch(struct hierarchy_section *s, struct hierarchy_sweep *w, const size_t *fps,
		       size_t nfp, const struct calibration *cal, unsigned e, bool want_huge,
		       uint64_t t0, double budget)
{
	struct chase_buf b;
	uint64_t seed = (uint64_t)s->seed + e;
	size_t max = (size_t)s->max_footprint;
	bool huge;
	int ret = chase_buf_alloc(&b, max, want_huge);

	if (ret < 0)
		return ret;
	s->pages.huge_requested |= b.hugetlb || b.madvised;
	s->per_epoch[e].huge_bytes = (long long)b.huge_bytes;
	w->hugetlb[e] = b.hugetlb;
	huge = b.huge_bytes * 2 >= max;
	for (size_t i = 0; i < (e ? s->npoints : nfp); i++) {
		struct hier_point_out pt, *q = &s->points[i];
		double el = (now_ns() - t0) / 1e9;

		if (runner_stop || (e && el > budget * 1.5)) {
			ret = runner_stop ? -EINTR : 1;
			break;
		}
		if (!e && i && el > budget) {
			s->truncated = true;
			break;
		}
		measure_point(&b, fps[i], cal, seed, &pt);
		if (!e) {
			*q = pt;
			s->npoints = i + 1;
		} else {
			q->samples += pt.samples;
			q->cycles_min = fmin(q->cycles_min, pt.cycles_min);
		}
		s->per_epoch[e].cycles[i] = pt.cycles;
		w->ep_ns[e][i] = pt.ns;
	}
	chase_buf_free(&b);
	if (!ret && huge && (!e || s->tlb.ncycles_4k))
		ret = sweep_small(s, w, cal, e, seed);
	else if (!huge)
		s->tlb.ncycles_4k = 0;
	return ret;
}

/* Which pages the staircase walked, from the epochs' buffers. */
static void page_summary(struct hierarchy_section *s, const struct hierarchy_sweep *w,
			 bool want_huge)
{
	struct hier_pages_out *pg = &s->pages;
	bool hugetlb = false;

	pg->huge_bytes = s->max_footprint;
	for (int e = 0; e < s->epochs; e++) {
		if (s->per_epoch[e].huge_bytes < pg->huge_bytes)
			pg->huge_bytes = s->per_epoch[e].huge_bytes;
		hugetlb |= w->hugetlb[e];
	}
	pg->page_bytes = s->epochs && pg->huge_bytes * 2 >= s->max_footprint ? HUGE_BYTES :
			 sysconf(_SC_PAGESIZE);
	snprintf(pg->source, sizeof(pg->source),
		 pg->page_bytes == HUGE_BYTES ? (hugetlb ? "hugetlb" : "THP %s") :
		 !want_huge ? "--no-huge" :
		 !strcmp(pg->thp_mode, "never") ? "no hugetlb pages, THP never" :
		 "THP %s, not granted", pg->thp_mode);
}

/* The hwloc caches, the calibration check and the footprints. 0, or
 * -EINVAL after a message. */
static int measure_setup(const struct hierarchy_opts *o, const struct calibration *cal,
			 const struct topo *t, struct hierarchy_section *s, size_t *fps,
			 size_t *nfp)
{
	uint64_t avail = pattern_mem_available();
	size_t max = o->max_footprint;

	for (int l = 1; t && l <= HIER_MAX_HWLOC; l++) {
		size_t sz = topo_cache_size(t, l);

		if (!sz)
			break;
		s->hwloc_caches[s->nhwloc_caches++] = sz;
	}
	if (!(cal->ticks_per_cycle > 0) || !(cal->timer_hz > 0)) {
		pr_err("hierarchy: no calibration (ticks per cycle %g, timer %g Hz): calibrate first",
		       cal->ticks_per_cycle, cal->timer_hz);
		return -EINVAL;
	}
	if (!max) {
		max = hierarchy_default_max(t ? topo_llc_size(t) : 0, avail, s->max_reason,
					    sizeof(s->max_reason));
	} else if (avail && max > avail / 2) {
		pr_err("hierarchy: --max-footprint %s exceeds half of MemAvailable (%s): give at most %s",
		       fmt_size(max).s, fmt_size(avail).s, fmt_size(round_down(avail / 2, HUGE_BYTES)).s);
		return -EINVAL;
	} else {
		snprintf(s->max_reason, sizeof(s->max_reason), "--max-footprint");
	}
	*nfp = hierarchy_footprints(o->min_footprint, max, o->steps_per_octave, fps, HIER_MAX_POINTS);
	s->max_footprint = (long long)fps[*nfp - 1];
	return 0;
}

int hierarchy_measure(const struct hierarchy_opts *o, const struct calibration *cal,
		      const struct topo *t, int cpu_os, struct hierarchy_section *s)
{
	size_t fps[HIER_MAX_POINTS], nfp;
	unsigned planned = o->epochs < HIER_MAX_EPOCHS ? o->epochs : HIER_MAX_EPOCHS;
	struct hierarchy_sweep *w = calloc(1, sizeof(*w));
	uint64_t t0 = now_ns();
	double longest = 0;
	int ret;

	*s = (struct hierarchy_section){ .cpu = cpu_os, .seed = (long long)o->seed,
		.ticks_per_cycle = cal->ticks_per_cycle, .timer_hz = cal->timer_hz,
		.epochs_planned = (int)planned };
	if (!w) {
		pr_err("hierarchy: cannot allocate the sweep");
		return -ENOMEM;
	}
	ret = measure_setup(o, cal, t, s, fps, &nfp);
	if (ret < 0)
		goto out;
	pattern_thp_mode(s->pages.thp_mode, sizeof(s->pages.thp_mode));
	/* an epoch starts only when it fits the budget at the pace of the
	 * longest so far (docs/hierarchy.md, "Epochs") */
	for (unsigned e = 0; e < planned; e++) {
		uint64_t e0 = now_ns();

		if (e && (e0 - t0) / 1e9 + longest > o->time_budget_s)
			break;
		ret = sweep_epoch(s, w, fps, nfp, cal, e, !o->no_huge, t0, o->time_budget_s);
		if (ret < 0 && ret != -EINTR)
			goto out;
		if (ret == 1 || (ret == -EINTR && e)) {	/* dropped */
			ret = ret == 1 ? 0 : ret;
			break;
		}
		s->epochs = (int)e + 1;
		longest = fmax(longest, (now_ns() - e0) / 1e9);
		if (ret == -EINTR || s->truncated)
			break;
	}
	s->interrupted = ret == -EINTR;
	page_summary(s, w, !o->no_huge);
	hierarchy_combine(s, w);
	s->elapsed_s = (now_ns() - t0) / 1e9;
out:
	free(w);
	return ret;
}

/* ---- writers ----------------------------------------------------------- */

/* Row r of the staircase, in footprint order: the caches, the shelves,
 * memory. */
static const struct hier_level_out *row(const struct hierarchy_section *s, size_t r)
{
	size_t nc = hierarchy_ncaches(s);

	return r < nc ? &s->levels[r] :
	       r < nc + s->nshelves ? &s->shelves[r - nc] : &s->levels[r - s->nshelves];
}

static bool is_shelf(const struct hier_level_out *l)
{
	return !strcmp(l->level, "shelf");
}

static void print_pages(const struct hierarchy_section *s, FILE *f)
{
	struct size_text huge = fmt_size(s->pages.huge_bytes);
	struct size_text max = fmt_size(s->max_footprint);

	if (s->pages.page_bytes == HUGE_BYTES)
		fprintf(f, "pages: 2 MiB (%s: at least %s of the %s buffer huge in every epoch)\n",
			s->pages.source, huge.s, max.s);
	else
		fprintf(f, "pages: 4 KiB: huge pages not had (%s; %s of the %s buffer huge): TLB reach is "
			   "inside the staircase\n", s->pages.source, huge.s, max.s);
	fprintf(f, "largest footprint %s: %s; %d epoch%s of %d (each a fresh buffer and walk "
		   "order; a point is their median,\n \"epochs\" how far apart they were)\n\n",
		max.s, s->max_reason, s->epochs, s->epochs == 1 ? "" : "s", s->epochs_planned);
}

static void print_points(const struct hierarchy_section *s, FILE *f)
{
	size_t nsmall = s->tlb.ncycles_4k;
	char sm[16];

	fprintf(f, "%12s %9s %9s %9s %7s %9s\n", "footprint", "cycles", "ns", "min cyc", "epochs",
		nsmall ? "4K pages" : "");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct hier_point_out *p = &s->points[i];
		const char *mark = "";

		for (size_t r = 0; r < s->nlevels + s->nshelves; r++) {
			const struct hier_level_out *lv = row(s, r);

			if (p->bytes == lv->first_bytes)
				mark = is_shelf(lv) ? "  <- shelf" : lv->memory ? "  <- memory" :
				       "  <- level starts";
		}
		snprintf(sm, sizeof(sm), i < nsmall ? "%.2f" : "", s->tlb.cycles_4k[i]);
		fprintf(f, "%12s %9.2f %9.2f %9.2f %6.0f%% %9s%s\n", fmt_size(p->bytes).s,
			p->cycles, p->ns, p->cycles_min, 100 * p->spread, sm, mark);
	}
}

/* A level's row. A cache: "1 MiB (0.93-1.1 MiB, 5 of 5)", the value used,
 * its range over the epochs that show the level, and how many do; its
 * bracket; hwloc's size and the verdict. Memory: the epochs that reach it. */
static void print_level(const struct hierarchy_section *s, const struct hier_level_out *lv, FILE *f)
{
	bool shelf = is_shelf(lv);
	const char *verdict = shelf ? " (not a level: see the note)" : lv->memory ? "" :
			      lv->agrees ? " agrees" : lv->effective_share ? " share" :
			      " DISAGREES";
	struct size_text hw = { "-" }, size = fmt_size(lv->size_bytes);
	char sz[112] = "-", br[80] = "-";

	if (lv->memory)
		snprintf(sz, sizeof(sz), "- (%d of %d)", lv->epochs_seen, s->epochs);
	if (!lv->memory && !shelf) {
		if (lv->size_min > 0)
			snprintf(sz, sizeof(sz), "%s (%s-%s, %d of %d)", size.s,
				 fmt_size(lv->size_min).s, fmt_size(lv->size_max).s,
				 lv->epochs_seen, s->epochs);
		else
			snprintf(sz, sizeof(sz), "%s (seen in %d of %d)", size.s, lv->epochs_seen,
				 s->epochs);
		snprintf(br, sizeof(br), "%s-%s", fmt_size(lv->size_lo).s,
			 fmt_size_or(lv->size_hi, "?").s);
		hw = fmt_size_or(lv->hwloc_size, "none");
	}
	fprintf(f, "%-7s %-40s %-22s %7.1f %7.1f %10s  %-9s%s\n", lv->level, sz, br, lv->cycles,
		lv->ns, fmt_size_or(shelf ? 0 : lv->walk_bytes, "-").s, hw.s, verdict);
}

static void print_tlb(const struct hierarchy_section *s, FILE *f)
{
	struct size_text to, reach = fmt_size(s->tlb.reach_bytes);

	if (s->pages.page_bytes != HUGE_BYTES)
		return;
	if (!s->tlb.ncycles_4k) {
		fprintf(f, "TLB: not compared (4 KiB pages could not be had for the comparison walk)\n");
		return;
	}
	to = fmt_size(s->tlb.compared_to_bytes);
	if (s->tlb.reach_bytes > 0)
		fprintf(f, "TLB: on 4 KiB pages the walk costs more than on 2 MiB pages past %s: TLB reach "
			   "about %s (not a cache level; compared up to %s)\n", reach.s, reach.s, to.s);
	else
		fprintf(f, "TLB: 4 KiB and 2 MiB pages walk alike up to %s: huge pages did not move the "
			   "staircase here (in a guest the host may map its memory with 4 KiB pages, and TLB "
			   "reach then stays inside the staircase)\n", to.s);
}

/* The notes and warnings under the table: shelves, inner steps, unstable
 * steps, then each cache beside hwloc's. */
static void print_notes(const struct hierarchy_section *s, FILE *f)
{
	size_t nc = hierarchy_ncaches(s);

	for (size_t r = 0; r < s->nlevels + s->nshelves; r++) {
		const struct hier_level_out *lv = row(s, r);

		if (is_shelf(lv))
			fprintf(f, "note: the shelf at %.0f ns (%s-%s) lies between the last cache and memory: "
				   "partial hits in a shared or randomly replaced cache (its share changes with "
				   "the neighbours), or, on 4 KiB pages, memory before page walks grow\n",
				lv->ns, fmt_size(lv->first_bytes).s, fmt_size(lv->last_bytes).s);
		if (lv->inner_cycles > 0)
			fprintf(f, "note: %s reads %.1f cycles (%.1f ns) over %s-%s: a step "
				   "inside the level (TLB misses, or the tail of the transition "
				   "into it)\n",
				lv->level, lv->inner_cycles, lv->inner_ns,
				fmt_size(lv->inner_from).s, fmt_size(lv->inner_to).s);
	}
	for (const struct hier_level_out *u = s->unstable; u < s->unstable + s->nunstable; u++)
		fprintf(f, "note: a step at %.1f cycles (%s-%s) that hwloc does not declare, seen "
			   "in %d of %d epochs: not a level\n", u->cycles,
			fmt_size(u->first_bytes).s, fmt_size(u->last_bytes).s,
			u->epochs_seen, s->epochs);
	for (size_t l = nc; l < s->nhwloc_caches; l++)
		fprintf(f, "warning: hwloc declares an L%zu of %s that the staircase does not show as its "
			   "own level\n", l + 1, fmt_size(s->hwloc_caches[l]).s);
	for (size_t l = 0; l < nc; l++) {
		const struct hier_level_out *lv = &s->levels[l];
		struct size_text size = fmt_size(lv->size_bytes);
		struct size_text hw = fmt_size(lv->hwloc_size);

		if (lv->agrees)
			continue;
		if (lv->effective_share)
			fprintf(f, "note: L%zu effective share about %s of %s declared: the "
				   "cache is shared with other cores (in a guest, other tenants), "
				   "and this PU gets that much of it now; the patterns use the "
				   "measured size\n",
				l + 1, size.s, hw.s);
		else if (lv->hwloc_size > 0)
			fprintf(f, "warning: L%zu measured about %s (latency rises between %s and "
				   "%s), hwloc declares %s: use the measured size\n", l + 1, size.s,
				fmt_size(lv->size_lo).s,
				fmt_size_or(lv->size_hi, "the end").s, hw.s);
		else
			fprintf(f, "warning: L%zu measured about %s, seen in %d of %d epochs; "
				   "hwloc declares no such level\n", l + 1, size.s, lv->epochs_seen,
				s->epochs);
	}
}

void hierarchy_print(const struct hierarchy_section *s, FILE *f)
{
	fprintf(f, "memory hierarchy on PU %d: dependent random chase, 64-byte lines, one cycle\n",
		s->cpu);
	print_pages(s, f);
	print_points(s, f);
	fprintf(f, "\n%-7s %-40s %-22s %7s %7s %10s  %-9s\n", "level", "size (over the epochs)",
		"bracket", "cycles", "ns", "walk", "hwloc");
	for (size_t r = 0; r < s->nlevels + s->nshelves; r++)
		print_level(s, row(s, r), f);
	if (!s->nlevels)
		fprintf(f, "(no plateau found: the latency never levelled off)\n");
	print_tlb(s, f);
	print_notes(s, f);
	if (s->interrupted)
		fprintf(f, "interrupted: %zu footprints measured in %d epoch%s\n", s->npoints,
			s->epochs, s->epochs == 1 ? "" : "s");
	if (!s->reached_memory)
		fprintf(f, "warning: the sweep ended before a memory plateau (%s): raise "
			   "--max-footprint\n", s->truncated ? "time budget reached" :
			"largest footprint still cached or rising");
	fprintf(f, "(%.1f s. A level's capacity lies where its latency rises, in the bracket: from its "
		   "plateau's last footprint\n to the next plateau's first; the size is where the latency "
		   "crosses the geometric mean of the two\n levels'; walk: a footprint inside the level, for "
		   "--footprint.)\n", s->elapsed_s);
}
