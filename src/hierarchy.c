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
 * none (when given) for 0. */
static struct size_text fmt_size_or(uint64_t v, const char *none)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB" };
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

static struct size_text fmt_size(uint64_t v)
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

/* Greedy plateaus of cycles[0, n) into run[]; noise[] marks the disturbed
 * points inside them. Returns the count. */
static size_t find_plateaus(const size_t *bytes, const double *cycles, size_t n, bool *noise,
			    struct hierarchy_span *run)
{
	size_t nrun = 0, i = 0;

	/* greedy plateaus, left to right: a point joins while it stays within
	 * the band around the median of the plateau so far (DRAM latency
	 * drifts up with the footprint as page walks grow: a band around the
	 * running median follows a slow drift, not a step) */
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
 * level before it, the last plateau is memory (*memory set). Those in
 * between are shelves: partial hits in a shared or randomly replaced
 * cache below (its share changes with the neighbours), or, on 4 KiB
 * pages, memory before page walks grow. Returns the count of caches. */
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

/* Each cache level beside hwloc's of the same rank. The last cache, when
 * smaller than declared, is the share of it this PU gets: an L3 (or a
 * shared L2) serves other cores, and in a guest other tenants, whose use
 * changes from run to run. That is not a contradiction of hwloc. */
static void match_hwloc(struct hierarchy *h)
{
	h->disagrees = h->ncaches != h->hwloc_n;
	for (size_t l = 0; l < h->ncaches; l++) {
		struct hierarchy_level *lv = &h->levels[l];

		/* hwloc's size where the staircase rises (a step of slack); a
		 * cache's size_lo is never 0, so no size declared never agrees */
		lv->hwloc_size = l < h->hwloc_n ? h->hwloc[l] : 0;
		lv->agrees = (double)lv->hwloc_size * AGREE_SLACK >= (double)lv->size_lo &&
			     (!lv->size_hi || (double)lv->hwloc_size <= (double)lv->size_hi * AGREE_SLACK);
		lv->share = !lv->agrees && l > 0 && l + 1 == h->ncaches && l + 1 == h->hwloc_n &&
			    lv->size_hi && (double)lv->size_hi * AGREE_SLACK < (double)lv->hwloc_size;
		if (!lv->agrees && !lv->share)
			h->disagrees = true;
	}
}

size_t hierarchy_cache_size(const struct hierarchy *h, int level)
{
	return level >= 1 && (size_t)level <= h->ncaches ? h->levels[level - 1].size_bytes : 0;
}

size_t hierarchy_level_footprint(const struct hierarchy *h, int level)
{
	const struct hierarchy_level *lv;

	if (level >= 1 && (size_t)level <= h->ncaches)
		lv = &h->levels[level - 1];
	else if (h->reached_memory && (size_t)level == h->ncaches + 1)
		lv = &h->levels[h->nlevels - 1];
	else
		return 0;
	/* inside the sub-plateau that sets the level's latency */
	return round_down((size_t)sqrt((double)h->pts[lv->core.first].bytes *
				       (double)h->pts[lv->core.last].bytes), CACHELINE);
}

void hierarchy_walks(const struct hierarchy *h, size_t walk[PAT__COUNT])
{
	memset(walk, 0, PAT__COUNT * sizeof(*walk));
	/* the l2/llc/miss walks only when the staircase shows three caches
	 * and memory: with fewer, which level is which is a guess */
	if (h->ncaches < 3 || !h->reached_memory)
		return;
	walk[PAT_DEP] = hierarchy_level_footprint(h, 1);
	walk[PAT_L2] = hierarchy_level_footprint(h, 2);
	walk[PAT_LLC] = hierarchy_level_footprint(h, (int)h->ncaches);
	walk[PAT_MISS] = walk[PAT_MISS_OVERLAP] = hierarchy_level_footprint(h, (int)h->ncaches + 1);
}

/* ---- epochs ------------------------------------------------------------ */

/* Past TLB reach the walk on 4 KiB pages stays slower. Only where the
 * huge-page walk is flat (its neighbours within TLB_FLAT): in a steep rise
 * a shift by a fraction of a step reads slower at several points in a row
 * (docs/hierarchy.md, "TLB reach"). */
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

/* The epoch's cache nearest in latency to lv, within STABLE_MATCH; -1: none. */
static int epoch_match(const struct hierarchy_epoch *e, const struct hierarchy_level *lv)
{
	int best = -1;
	double bd = log(STABLE_MATCH);

	for (size_t j = 0; j < e->ncaches; j++) {
		double d = fabs(log(e->cycles[j] / lv->core.cycles));

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
static void count_seen(struct hierarchy *h)
{
	for (size_t l = 0; l < h->nlevels; l++) {
		struct hierarchy_level *lv = &h->levels[l];

		lv->seen = 0;
		lv->size_min = lv->size_max = 0;
		for (unsigned e = 0; e < h->epochs; e++) {
			const struct hierarchy_epoch *ep = &h->ep[e];
			int j = epoch_match(ep, lv);
			bool same_next;

			if (lv->memory || lv->shelf) {
				lv->seen += lv->memory && ep->memory;
				continue;
			}
			if (j < 0)
				continue;
			lv->seen++;
			same_next = l + 1 < h->ncaches ?
				    (size_t)j + 1 < ep->ncaches &&
				    fabs(log(ep->cycles[j + 1] / lv[1].core.cycles)) < log(STABLE_MATCH) :
				    (size_t)j + 1 == ep->ncaches;
			if (same_next && (!lv->size_min || ep->size[j] < lv->size_min))
				lv->size_min = ep->size[j];
			if (same_next && ep->size[j] > lv->size_max)
				lv->size_max = ep->size[j];
		}
	}
}

/* Drop cache level l (not every epoch shows it): its points join the rise
 * from the level below to the one above (over bytes, cycles: the combined
 * curve), whose capacity is sized again. */
static void drop_level(struct hierarchy *h, size_t l, const size_t *bytes, const double *cycles)
{
	struct hierarchy_level *lv, *next;

	if (h->nunstable < HIER_MAX_LEVELS)
		h->unstable[h->nunstable++] = h->levels[l];
	memmove(&h->levels[l], &h->levels[l + 1], (h->nlevels - l - 1) * sizeof(h->levels[0]));
	h->nlevels--;
	h->ncaches--;
	if (!l)
		return;
	lv = &h->levels[l - 1];
	next = l < h->nlevels ? lv + 1 : NULL;
	lv->size_lo = bytes[lv->last];
	lv->size_hi = next ? bytes[next->first] : 0;
	lv->size_bytes = crossing(lv, next, bytes, cycles, h->npts);
}

/* More caches than hwloc declares: drop those not every epoch shows, the
 * least seen first (a tie: the larger). A level every epoch shows stays,
 * and is reported as one hwloc lacks. */
static void drop_unstable(struct hierarchy *h, const size_t *bytes, const double *cycles)
{
	while (h->hwloc_n && h->ncaches > h->hwloc_n) {
		size_t worst = SIZE_MAX;

		for (size_t l = 0; l < h->ncaches; l++)
			if (h->levels[l].seen < h->epochs &&
			    (worst == SIZE_MAX || h->levels[l].seen <= h->levels[worst].seen))
				worst = l;
		if (worst == SIZE_MAX)
			return;
		drop_level(h, worst, bytes, cycles);
	}
}

/* The median over ne epochs of point i of per-epoch curves v. */
static double epoch_median(const double v[][HIER_MAX_POINTS], unsigned ne, size_t i)
{
	double tmp[HIER_MAX_EPOCHS];

	for (unsigned e = 0; e < ne; e++)
		tmp[e] = v[e][i];
	return stats_median(tmp, ne);
}

void hierarchy_combine(struct hierarchy *h)
{
	struct hierarchy_level one[HIER_MAX_LEVELS];	/* an epoch's curve alone */
	size_t xb[HIER_MAX_POINTS], nlev;
	double c[HIER_MAX_POINTS], t[HIER_MAX_POINTS];
	unsigned ne = h->epochs < HIER_MAX_EPOCHS ? h->epochs : HIER_MAX_EPOCHS;

	for (size_t i = 0; i < h->npts; i++) {
		double lo = INFINITY, hi = 0;

		for (unsigned e = 0; e < ne; e++) {
			lo = fmin(lo, h->ep_cycles[e][i]);
			hi = fmax(hi, h->ep_cycles[e][i]);
		}
		xb[i] = h->pts[i].bytes;
		c[i] = h->pts[i].cycles = epoch_median(h->ep_cycles, ne, i);
		t[i] = h->pts[i].ns = epoch_median(h->ep_ns, ne, i);
		h->pts[i].spread = lo > 0 ? hi / lo - 1 : 0;
	}
	for (unsigned e = 0; e < ne; e++) {
		struct hierarchy_epoch *ep = &h->ep[e];

		ep->ncaches = levels_of(xb, h->ep_cycles[e], h->ep_ns[e], h->npts, one, &nlev, &ep->memory);
		for (size_t l = 0; l < ep->ncaches; l++) {
			ep->size[l] = one[l].size_bytes;
			ep->cycles[l] = one[l].core.cycles;
		}
	}
	h->nunstable = 0;
	h->ncaches = levels_of(xb, c, t, h->npts, h->levels, &h->nlevels, &h->reached_memory);
	count_seen(h);
	drop_unstable(h, xb, c);
	count_seen(h);	/* the ranges again, against the levels left */
	match_hwloc(h);
	for (size_t i = 0; i < h->nsmall && i < h->npts; i++)
		h->small_cycles[i] = epoch_median(h->ep_small, ne, i);
	h->tlb_reach = h->nsmall ? hierarchy_tlb_reach(xb, c, h->small_cycles, h->nsmall) : 0;
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
			  uint64_t seed, struct hierarchy_point *pt)
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
	*pt = (struct hierarchy_point){ .bytes = bytes, .samples = SAMPLES, .steps = iters * UNROLL,
		.cycles = clock_ticks_to_cycles(cal, st.median), .ns = clock_ticks_to_ns(cal, st.median),
		.cycles_min = clock_ticks_to_cycles(cal, st.min) };
}

/* The walk on 4 KiB pages over the footprints up to TLB_MAX, into
 * h->ep_small[e]: against the huge-page walk it shows the TLB reach. */
static int sweep_small(struct hierarchy *h, const struct calibration *cal, unsigned e, uint64_t seed)
{
	struct chase_buf b;
	struct hierarchy_point pt;
	size_t n = 0;
	int ret;

	while (n < h->npts && h->pts[n].bytes <= TLB_MAX)
		n++;
	if (!n)
		return 0;
	ret = chase_buf_alloc(&b, h->pts[n - 1].bytes, false);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n && !runner_stop; i++) {
		measure_point(&b, h->pts[i].bytes, cal, seed, &pt);
		h->ep_small[e][i] = pt.cycles;
	}
	h->nsmall = b.huge_bytes ? 0 : n;	/* THP "always" ignored MADV_NOHUGEPAGE */
	chase_buf_free(&b);
	return runner_stop ? -EINTR : 0;
}

/* Epoch e: a fresh buffer and walk order, every footprint once. In the
 * first epoch the budget truncates the sweep; a later one that overruns
 * it by half is dropped (1). 0, 1, -EINTR or -errno. */
static int sweep_epoch(struct hierarchy *h, const size_t *fps, size_t nfp, const struct calibration *cal,
		       unsigned e, bool want_huge, uint64_t t0, double budget)
{
	struct chase_buf b;
	uint64_t seed = h->seed + e;
	bool huge;
	int ret = chase_buf_alloc(&b, h->max_footprint, want_huge);

	if (ret < 0)
		return ret;
	h->huge_requested |= b.hugetlb || b.madvised;
	h->ep[e].huge_bytes = b.huge_bytes;
	h->ep[e].hugetlb = b.hugetlb;
	huge = b.huge_bytes * 2 >= h->max_footprint;
	for (size_t i = 0; i < (e ? h->npts : nfp); i++) {
		struct hierarchy_point pt, *q = &h->pts[i];
		double el = (now_ns() - t0) / 1e9;

		if (runner_stop || (e && el > budget * 1.5)) {
			ret = runner_stop ? -EINTR : 1;
			break;
		}
		if (!e && i && el > budget) {
			h->truncated = true;
			break;
		}
		measure_point(&b, fps[i], cal, seed, &pt);
		if (!e) {
			*q = pt;
			h->npts = i + 1;
		} else {
			q->samples += pt.samples;
			q->cycles_min = fmin(q->cycles_min, pt.cycles_min);
		}
		h->ep_cycles[e][i] = pt.cycles;
		h->ep_ns[e][i] = pt.ns;
	}
	chase_buf_free(&b);
	if (!ret && huge && (!e || h->nsmall))
		ret = sweep_small(h, cal, e, seed);
	else if (!huge)
		h->nsmall = 0;
	return ret;
}

/* Which pages the staircase walked, from the epochs' buffers. */
static void page_summary(struct hierarchy *h, bool want_huge)
{
	bool hugetlb = false;

	h->huge_bytes = h->max_footprint;
	for (unsigned e = 0; e < h->epochs; e++) {
		h->huge_bytes = h->ep[e].huge_bytes < h->huge_bytes ? h->ep[e].huge_bytes : h->huge_bytes;
		hugetlb |= h->ep[e].hugetlb;
	}
	h->page_bytes = h->epochs && h->huge_bytes * 2 >= h->max_footprint ? HUGE_BYTES
									     : (size_t)sysconf(_SC_PAGESIZE);
	snprintf(h->page_source, sizeof(h->page_source),
		 h->page_bytes == HUGE_BYTES ? (hugetlb ? "hugetlb" : "THP %s") :
		 !want_huge ? "--no-huge" :
		 !strcmp(h->thp_mode, "never") ? "no hugetlb pages, THP never" : "THP %s, not granted",
		 h->thp_mode);
}

/* The hwloc caches, the calibration check and the footprints. 0, or
 * -EINVAL after a message. */
static int measure_setup(const struct hierarchy_opts *o, const struct calibration *cal,
			 const struct topo *t, struct hierarchy *h, size_t *fps, size_t *nfp)
{
	uint64_t avail = pattern_mem_available();
	size_t max = o->max_footprint;

	for (int l = 1; t && l <= HIER_MAX_HWLOC; l++) {
		size_t sz = topo_cache_size(t, l);

		if (!sz)
			break;
		h->hwloc[h->hwloc_n++] = sz;
	}
	if (!(cal->ticks_per_cycle > 0) || !(cal->timer_hz > 0)) {
		pr_err("hierarchy: no calibration (ticks per cycle %g, timer %g Hz): calibrate first",
		       cal->ticks_per_cycle, cal->timer_hz);
		return -EINVAL;
	}
	if (!max) {
		max = hierarchy_default_max(t ? topo_llc_size(t) : 0, avail, h->max_reason,
					    sizeof(h->max_reason));
	} else if (avail && max > avail / 2) {
		pr_err("hierarchy: --max-footprint %s exceeds half of MemAvailable (%s): give at most %s",
		       fmt_size(max).s, fmt_size(avail).s, fmt_size(round_down(avail / 2, HUGE_BYTES)).s);
		return -EINVAL;
	} else {
		snprintf(h->max_reason, sizeof(h->max_reason), "--max-footprint");
	}
	*nfp = hierarchy_footprints(o->min_footprint, max, o->steps_per_octave, fps, HIER_MAX_POINTS);
	h->max_footprint = fps[*nfp - 1];
	return 0;
}

int hierarchy_measure(const struct hierarchy_opts *o, const struct calibration *cal,
		      const struct topo *t, int cpu_os, struct hierarchy *h)
{
	size_t fps[HIER_MAX_POINTS], nfp;
	uint64_t t0 = now_ns();
	double longest = 0;
	int ret;

	memset(h, 0, sizeof(*h));
	h->cpu_os = cpu_os;
	h->seed = o->seed;
	h->ticks_per_cycle = cal->ticks_per_cycle;
	h->timer_hz = cal->timer_hz;
	h->epochs_planned = o->epochs < HIER_MAX_EPOCHS ? o->epochs : HIER_MAX_EPOCHS;
	ret = measure_setup(o, cal, t, h, fps, &nfp);
	if (ret < 0)
		return ret;
	pattern_thp_mode(h->thp_mode, sizeof(h->thp_mode));
	/* fresh state each epoch: buffer, physical pages, walk order. One
	 * starts only when it fits the budget at the pace of the longest so
	 * far (the first always runs, cut short by the budget if need be). */
	for (unsigned e = 0; e < h->epochs_planned; e++) {
		uint64_t e0 = now_ns();

		if (e && (e0 - t0) / 1e9 + longest > o->time_budget_s)
			break;
		ret = sweep_epoch(h, fps, nfp, cal, e, !o->no_huge, t0, o->time_budget_s);
		if (ret < 0 && ret != -EINTR)
			return ret;
		if (ret == 1 || (ret == -EINTR && e)) {	/* dropped */
			ret = ret == 1 ? 0 : ret;
			break;
		}
		h->epochs = e + 1;
		longest = fmax(longest, (now_ns() - e0) / 1e9);
		if (ret == -EINTR || h->truncated)
			break;
	}
	h->interrupted = ret == -EINTR;
	page_summary(h, !o->no_huge);
	hierarchy_combine(h);
	h->elapsed_s = (now_ns() - t0) / 1e9;
	return ret;
}

/* ---- writers ----------------------------------------------------------- */

static const char *level_name(const struct hierarchy_level *lv, size_t l, char *buf, size_t len)
{
	if (lv->memory)
		return "memory";
	if (lv->shelf)
		return "shelf";
	snprintf(buf, len, "L%zu", l + 1);
	return buf;
}

/* The walk of level l (of a shelf right after the caches: memory's). */
static size_t level_walk(const struct hierarchy *h, size_t l)
{
	return hierarchy_level_footprint(h, h->levels[l].memory ? (int)h->ncaches + 1 : (int)l + 1);
}

static long long size_or_none(size_t v)
{
	return v ? (long long)v : -1;
}

/* A plateau's span: all an unstable one has. */
static void span_out(const struct hierarchy *h, const struct hierarchy_level *lv, struct hier_level_out *o)
{
	o->has |= 0x1fu << HL_CYCLES;
	o->cycles = lv->core.cycles;
	o->ns = lv->core.ns;
	o->first_bytes = (long long)h->pts[lv->first].bytes;
	o->last_bytes = (long long)h->pts[lv->last].bytes;
	o->epochs_seen = (int)lv->seen;
}

static void level_out(const struct hierarchy *h, size_t l, struct hier_level_out *o)
{
	const struct hierarchy_level *lv = &h->levels[l];
	size_t walk = level_walk(h, l);
	char name[16];

	span_out(h, lv, o);
	o->has |= 1u << HL_LEVEL | 1u << HL_MEMORY;
	snprintf(o->level, sizeof(o->level), "%s", level_name(lv, l, name, sizeof(name)));
	o->memory = lv->memory;
	o->ns = isnan(o->ns) ? 0.0 : o->ns;
	if (lv->inner.cycles > 0) {
		o->has |= 0xfu << HL_INNER;
		o->inner_cycles = lv->inner.cycles;
		o->inner_ns = isnan(lv->inner.ns) ? 0.0 : lv->inner.ns;
		o->inner_from = (long long)h->pts[lv->inner.first].bytes;
		o->inner_to = (long long)h->pts[lv->inner.last].bytes;
	}
	o->has |= walk ? 1u << HL_WALK : 0;
	o->walk_bytes = (long long)walk;
	if (lv->memory || lv->shelf)
		return;
	o->has |= 0xffu << HL_SIZE;
	o->size_bytes = (long long)lv->size_bytes;
	o->size_lo = (long long)lv->size_lo;
	o->size_hi = size_or_none(lv->size_hi);
	o->size_min = size_or_none(lv->size_min);
	o->size_max = size_or_none(lv->size_max);
	o->hwloc_size = size_or_none(lv->hwloc_size);
	o->agrees = lv->agrees;
	o->effective_share = lv->share;
}

/* The points, each epoch's curve and the 4 KiB-page one. */
static void curves_out(const struct hierarchy *h, struct hierarchy_section *s)
{
	for (size_t i = 0; i < h->npts; i++) {
		const struct hierarchy_point *p = &h->pts[i];

		s->points[i] = (struct hier_point_out){
			.has = 0xffu & ~(1u << HP_PASS_SPREAD), .bytes = (long long)p->bytes, .cycles = p->cycles,
			.cycles_min = p->cycles_min, .ns = p->ns, .spread = p->spread, .samples = (int)p->samples,
			.loads_per_sample = (long long)p->steps,
		};
	}
	s->npoints = h->npts;
	for (unsigned e = 0; e < h->epochs; e++) {
		struct hier_epoch_out *o = &s->per_epoch[e];

		*o = (struct hier_epoch_out){ .has = 0x1f, .caches = (int)h->ep[e].ncaches, .memory = h->ep[e].memory,
					      .ncache_sizes = h->ep[e].ncaches, .ncycles = h->npts,
					      .huge_bytes = (long long)h->ep[e].huge_bytes };
		memcpy(o->cache_sizes, h->ep[e].size, h->ep[e].ncaches * sizeof(*o->cache_sizes));
		memcpy(o->cycles, h->ep_cycles[e], h->npts * sizeof(*o->cycles));
	}
	s->nper_epoch = h->epochs;
	if (!h->nsmall)
		return;
	s->tlb.has = 0xf;
	snprintf(s->tlb.method, sizeof(s->tlb.method), "%s",
		 "the same walk on 4 KiB pages (MADV_NOHUGEPAGE) over the first footprints");
	s->tlb.compared_to_bytes = (long long)h->pts[h->nsmall - 1].bytes;
	s->tlb.reach_bytes = size_or_none(h->tlb_reach);
	memcpy(s->tlb.cycles_4k, h->small_cycles, h->nsmall * sizeof(*s->tlb.cycles_4k));
	s->tlb.ncycles_4k = h->nsmall;
}

void hierarchy_section(const struct hierarchy *h, struct hierarchy_section *s)
{
	*s = (struct hierarchy_section){
		.has = ((1u << HS__COUNT) - 1) & ~(1u << HS_PASSES), .cpu = h->cpu_os,
		.seed = (long long)h->seed, .ticks_per_cycle = h->ticks_per_cycle,
		.timer_hz = h->timer_hz,
		.pages = { .has = 0x1f, .huge_requested = h->huge_requested,
			   .huge_bytes = (long long)h->huge_bytes,
			   .page_bytes = (long long)h->page_bytes },
		.max_footprint = (long long)h->max_footprint, .epochs = (int)h->epochs,
		.epochs_planned = (int)h->epochs_planned, .interrupted = h->interrupted,
		.reached_memory = h->reached_memory, .truncated = h->truncated,
		.disagrees = h->disagrees, .elapsed_s = h->elapsed_s,
	};
	snprintf(s->method, sizeof(s->method), "%s", "dependent random chase, one pointer per 64-byte line, "
		 "single cycle; epochs of fresh buffers, each point the median over them");
	snprintf(s->pages.source, sizeof(s->pages.source), "%s", h->page_source);
	snprintf(s->pages.thp_mode, sizeof(s->pages.thp_mode), "%s", h->thp_mode);
	snprintf(s->max_reason, sizeof(s->max_reason), "%s", h->max_reason);
	curves_out(h, s);
	for (size_t l = 0; l < h->nlevels; l++)	/* shelves: neither cache nor memory, kept apart */
		level_out(h, l, h->levels[l].shelf ? &s->shelves[s->nshelves++] : &s->levels[s->nlevels++]);
	for (size_t u = 0; u < h->nunstable; u++)
		span_out(h, &h->unstable[u], &s->unstable[s->nunstable++]);
	for (size_t l = 0; l < h->hwloc_n; l++)
		s->hwloc_caches[s->nhwloc_caches++] = h->hwloc[l];
}


static void print_pages(const struct hierarchy *h, FILE *f)
{
	struct size_text huge = fmt_size(h->huge_bytes), max = fmt_size(h->max_footprint);

	if (h->page_bytes == HUGE_BYTES)
		fprintf(f, "pages: 2 MiB (%s: at least %s of the %s buffer huge in every epoch)\n",
			h->page_source, huge.s, max.s);
	else
		fprintf(f, "pages: 4 KiB: huge pages not had (%s; %s of the %s buffer huge): TLB reach is "
			   "inside the staircase\n", h->page_source, huge.s, max.s);
	fprintf(f, "largest footprint %s: %s; %u epoch%s of %u (each a fresh buffer and walk order; a "
		   "point is their median,\n \"epochs\" how far apart they were)\n\n", max.s, h->max_reason,
		h->epochs, h->epochs == 1 ? "" : "s", h->epochs_planned);
}

static void print_points(const struct hierarchy *h, FILE *f)
{
	char sm[16];

	fprintf(f, "%12s %9s %9s %9s %7s %9s\n", "footprint", "cycles", "ns", "min cyc", "epochs",
		h->nsmall ? "4K pages" : "");
	for (size_t i = 0; i < h->npts; i++) {
		const struct hierarchy_point *p = &h->pts[i];
		const char *mark = "";

		for (size_t l = 0; l < h->nlevels; l++)
			if (i == h->levels[l].first)
				mark = h->levels[l].shelf ? "  <- shelf" :
				       h->levels[l].memory ? "  <- memory" : "  <- level starts";
		snprintf(sm, sizeof(sm), i < h->nsmall ? "%.2f" : "", h->small_cycles[i]);
		fprintf(f, "%12s %9.2f %9.2f %9.2f %6.0f%% %9s%s\n", fmt_size(p->bytes).s, p->cycles, p->ns,
			p->cycles_min, 100 * p->spread, sm, mark);
	}
}

/* A level's row. A cache: "1 MiB (0.93-1.1 MiB, 5 of 5)", the value used,
 * its range over the epochs that show the level, and how many do; its
 * bracket; hwloc's size and the verdict. Memory: the epochs that reach it. */
static void print_level(const struct hierarchy *h, size_t l, FILE *f)
{
	const struct hierarchy_level *lv = &h->levels[l];
	const char *verdict = lv->shelf ? " (not a level: see the note)" : lv->memory ? "" :
			      lv->agrees ? " agrees" : lv->share ? " share" : " DISAGREES";
	struct size_text hw = { "-" };
	char name[16], sz[112] = "-", br[80] = "-";

	if (lv->memory)
		snprintf(sz, sizeof(sz), "- (%u of %u)", lv->seen, h->epochs);
	if (!lv->memory && !lv->shelf) {
		if (lv->size_min)
			snprintf(sz, sizeof(sz), "%s (%s-%s, %u of %u)", fmt_size(lv->size_bytes).s,
				 fmt_size(lv->size_min).s, fmt_size(lv->size_max).s, lv->seen, h->epochs);
		else
			snprintf(sz, sizeof(sz), "%s (seen in %u of %u)", fmt_size(lv->size_bytes).s, lv->seen,
				 h->epochs);
		snprintf(br, sizeof(br), "%s-%s", fmt_size(lv->size_lo).s, fmt_size_or(lv->size_hi, "?").s);
		hw = fmt_size_or(lv->hwloc_size, "none");
	}
	fprintf(f, "%-7s %-40s %-22s %7.1f %7.1f %10s  %-9s%s\n", level_name(lv, l, name, sizeof(name)), sz,
		br, lv->core.cycles, lv->core.ns, fmt_size_or(lv->shelf ? 0 : level_walk(h, l), "-").s, hw.s,
		verdict);
}

static void print_tlb(const struct hierarchy *h, FILE *f)
{
	struct size_text to, reach = fmt_size(h->tlb_reach);

	if (h->page_bytes != HUGE_BYTES)
		return;
	if (!h->nsmall) {
		fprintf(f, "TLB: not compared (4 KiB pages could not be had for the comparison walk)\n");
		return;
	}
	to = fmt_size(h->pts[h->nsmall - 1].bytes);
	if (h->tlb_reach)
		fprintf(f, "TLB: on 4 KiB pages the walk costs more than on 2 MiB pages past %s: TLB reach "
			   "about %s (not a cache level; compared up to %s)\n", reach.s, reach.s, to.s);
	else
		fprintf(f, "TLB: 4 KiB and 2 MiB pages walk alike up to %s: huge pages did not move the "
			   "staircase here (in a guest the host may map its memory with 4 KiB pages, and TLB "
			   "reach then stays inside the staircase)\n", to.s);
}

/* The notes and warnings under the table: shelves, inner steps, unstable
 * steps, then each cache beside hwloc's. */
static void print_notes(const struct hierarchy *h, FILE *f)
{
	char name[16];

	for (size_t l = 0; l < h->nlevels; l++) {
		const struct hierarchy_level *lv = &h->levels[l];

		if (lv->shelf)
			fprintf(f, "note: the shelf at %.0f ns (%s-%s) lies between the last cache and memory: "
				   "partial hits in a shared or randomly replaced cache (its share changes with "
				   "the neighbours), or, on 4 KiB pages, memory before page walks grow\n",
				lv->core.ns, fmt_size(h->pts[lv->first].bytes).s, fmt_size(h->pts[lv->last].bytes).s);
		if (lv->inner.cycles > 0)
			fprintf(f, "note: %s reads %.1f cycles (%.1f ns) over %s-%s: a step inside the level "
				   "(TLB misses, or the tail of the transition into it)\n",
				level_name(lv, l, name, sizeof(name)), lv->inner.cycles, lv->inner.ns,
				fmt_size(h->pts[lv->inner.first].bytes).s, fmt_size(h->pts[lv->inner.last].bytes).s);
	}
	for (const struct hierarchy_level *u = h->unstable; u < h->unstable + h->nunstable; u++)
		fprintf(f, "note: a step at %.1f cycles (%s-%s) that hwloc does not declare, seen in %u of %u "
			   "epochs: not a level\n", u->core.cycles, fmt_size(h->pts[u->first].bytes).s,
			fmt_size(h->pts[u->last].bytes).s, u->seen, h->epochs);
	for (size_t l = h->ncaches; l < h->hwloc_n; l++)
		fprintf(f, "warning: hwloc declares an L%zu of %s that the staircase does not show as its "
			   "own level\n", l + 1, fmt_size(h->hwloc[l]).s);
	for (size_t l = 0; l < h->ncaches; l++) {
		const struct hierarchy_level *lv = &h->levels[l];
		struct size_text size = fmt_size(lv->size_bytes), hw = fmt_size(lv->hwloc_size);

		if (lv->agrees)
			continue;
		if (lv->share)
			fprintf(f, "note: L%zu effective share about %s of %s declared: the cache is shared with "
				   "other cores (in a guest, other tenants), and this PU gets that much of it now; "
				   "the patterns use the measured size\n", l + 1, size.s, hw.s);
		else if (lv->hwloc_size)
			fprintf(f, "warning: L%zu measured about %s (latency rises between %s and %s), hwloc "
				   "declares %s: use the measured size\n", l + 1, size.s, fmt_size(lv->size_lo).s,
				fmt_size_or(lv->size_hi, "the end").s, hw.s);
		else
			fprintf(f, "warning: L%zu measured about %s, seen in %u of %u epochs; hwloc declares no "
				   "such level\n", l + 1, size.s, lv->seen, h->epochs);
	}
}

void hierarchy_print(const struct hierarchy *h, FILE *f)
{
	fprintf(f, "memory hierarchy on PU %d: dependent random chase, 64-byte lines, one cycle\n", h->cpu_os);
	print_pages(h, f);
	print_points(h, f);
	fprintf(f, "\n%-7s %-40s %-22s %7s %7s %10s  %-9s\n", "level", "size (over the epochs)",
		"bracket", "cycles", "ns", "walk", "hwloc");
	for (size_t l = 0; l < h->nlevels; l++)
		print_level(h, l, f);
	if (!h->nlevels)
		fprintf(f, "(no plateau found: the latency never levelled off)\n");
	print_tlb(h, f);
	print_notes(h, f);
	if (h->interrupted)
		fprintf(f, "interrupted: %zu footprints measured in %u epoch%s\n", h->npts, h->epochs,
			h->epochs == 1 ? "" : "s");
	if (!h->reached_memory)
		fprintf(f, "warning: the sweep ended before a memory plateau (%s): raise --max-footprint\n",
			h->truncated ? "time budget reached" : "largest footprint still cached or rising");
	fprintf(f, "(%.1f s. A level's capacity lies where its latency rises, in the bracket: from its "
		   "plateau's last footprint\n to the next plateau's first; the size is where the latency "
		   "crosses the geometric mean of the two\n levels'; walk: a footprint inside the level, for "
		   "--footprint.)\n", h->elapsed_s);
}
