/* SPDX-License-Identifier: MIT */
/* test-hierarchy.c - the measured hierarchy's pure parts: footprints, the
 * ring (one cycle through every line), knee detection on synthetic
 * staircases (sharp, gradual, random page colours, noisy, flat, never
 * level), matching against hwloc (an L3 share), combining epochs (a level
 * only some epochs show is dropped, the size range printed), TLB reach
 * against a 4 KiB-page walk, and the JSON and text writers. No timing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "harness.h"
#include "hierarchy.h"
#include "report.h"

#define KiB(x) ((size_t)(x) << 10)
#define MiB(x) ((size_t)(x) << 20)
#define GHZ 3.2

struct truth {
	size_t size;		/* bytes, 0: memory */
	double cycles;
};

/* Zen 4-like: 32 KiB L1d, 1 MiB L2, 32 MiB L3, DRAM about 150 ns. */
static const struct truth zen[] = {
	{ KiB(32), 4 }, { MiB(1), 14 }, { MiB(32), 50 }, { 0, 480 },
};

/* LRU caches under a cyclic walk: every load misses a level once the
 * footprint exceeds it. */
static double sharp(const struct truth *tr, size_t nt, size_t f)
{
	for (size_t i = 0; i < nt; i++)
		if (!tr[i].size || f <= tr[i].size)
			return tr[i].cycles;
	return tr[nt - 1].cycles;
}

/* Random replacement: a level of C bytes holds about C/F of the walk. */
static double gradual(const struct truth *tr, size_t nt, size_t f)
{
	double lat = 0, below = 0;

	for (size_t i = 0; i < nt; i++) {
		double p = tr[i].size ? fmin(1, (double)tr[i].size / (double)f) : 1;

		lat += (p - below) * tr[i].cycles;
		below = p;
	}
	return lat;
}

/* Random page colours (a guest whose host maps 4 KiB pages at random): a
 * 16-way cache of C bytes has C / 16 / 4 KiB colours of 16 pages each; the
 * walk's F / 4 KiB pages fall on them as a Poisson count of mean 16 F / C,
 * and under LRU a colour holding more than 16 pages misses on all its
 * lines: the share of loads that miss is P(Poisson(16 F / C) >= 16). The
 * L1 (its ways are 4 KiB) is not coloured. */
static double miss_coloured(size_t cap, size_t f)
{
	double lambda = 16.0 * (double)f / (double)cap, term = exp(-lambda), below = 0;

	for (int k = 0; k < 16; k++) {
		below += term;
		term *= lambda / (k + 1);
	}
	return fmin(1, fmax(0, 1 - below));
}

static double coloured(const struct truth *tr, size_t nt, size_t f)
{
	double lat = tr[nt - 1].cycles;

	if (f <= tr[0].size)
		return tr[0].cycles;
	for (size_t i = nt - 1; i-- > 1;) {	/* from the last cache down */
		double p = miss_coloured(tr[i].size, f);

		lat = (1 - p) * tr[i].cycles + p * lat;
	}
	return lat;
}

static size_t make_points(size_t *b, double *c, double *ns,
			  double (*model)(const struct truth *, size_t, size_t),
			  const struct truth *tr, size_t nt)
{
	size_t n = hierarchy_footprints(KiB(4), MiB(512), 4, b, HIER_MAX_POINTS);

	for (size_t i = 0; i < n; i++) {
		c[i] = model(tr, nt, b[i]);
		ns[i] = c[i] / GHZ;
	}
	return n;
}

/* The raw sweep beside the section that fill and fill_epochs plant. */
static struct hierarchy_sweep sweep;

/* One epoch of the curve c (ns) over footprints b, beside hwloc's hw. */
static void fill(struct hierarchy_section *h, const size_t *b, const double *c, const double *ns,
		 size_t n, const size_t *hw, size_t nhw)
{
	memset(h, 0, sizeof(*h));
	memset(&sweep, 0, sizeof(sweep));
	for (size_t i = 0; i < n; i++) {
		h->points[i].bytes = (long long)b[i];
		h->per_epoch[0].cycles[i] = c[i];
		sweep.ep_ns[0][i] = ns[i];
	}
	h->npoints = n;
	h->epochs = h->epochs_planned = 1;
	memcpy(h->hwloc_caches, hw, nhw * sizeof(*hw));
	h->nhwloc_caches = nhw;
	hierarchy_combine(h, &sweep);
}

/* The JSON of a hierarchy section. */
static json_t *section_json(struct hierarchy_section *s)
{
	struct report rep = { .hier = s };
	json_t *j = json_object(), *o;

	report_typed_sections(&rep, j);
	o = json_incref(json_object_get(j, "hierarchy"));
	json_decref(j);
	return o;
}

/* Each true cache found, its estimate within 1.5x (1.6x under fully
 * random replacement, where the crossing lies about 1.5x past the
 * capacity) and its bracket around it (or at most one step off for the
 * gradual models), then memory. */
static void check_levels(const char *what, const struct hierarchy_section *h,
			 const struct truth *tr, size_t nt, bool bracket)
{
	CHECK(h->nlevels == nt, "%s: %zu levels, expected %zu", what, h->nlevels, nt);
	CHECK(h->reached_memory, "%s: memory not reached", what);
	CHECK(hierarchy_ncaches(h) == nt - 1, "%s: %zu caches", what, hierarchy_ncaches(h));
	for (size_t i = 0; i < h->nlevels && i < nt; i++) {
		const struct hier_level_out *lv = &h->levels[i];
		long long size = (long long)tr[i].size;

		CHECK(fabs(lv->cycles / tr[i].cycles - 1) < (bracket ? 0.1 : 0.12),
		      "%s: level %zu at %.2f cycles, expected %.0f",
		      what, i + 1, lv->cycles, tr[i].cycles);
		CHECK(fabs(lv->ns - lv->cycles / GHZ) < 0.2 * lv->ns, "%s: level %zu ns %.2f", what,
		      i + 1, lv->ns);
		if (!tr[i].size) {
			CHECK(lv->memory, "%s: last level not memory", what);
			continue;
		}
		CHECK(!lv->memory, "%s: level %zu taken for memory", what, i + 1);
		CHECK(lv->size_bytes * 1.5 >= size && lv->size_bytes <= size * 1.6,
		      "%s: L%zu size %lld, true %lld", what, i + 1, lv->size_bytes, size);
		if (bracket)
			CHECK(lv->size_lo <= size && lv->size_hi > size,
			      "%s: L%zu bracket %lld-%lld misses %lld", what, i + 1, lv->size_lo,
			      lv->size_hi, size);
		CHECK(lv->size_lo <= lv->size_bytes &&
		      (lv->size_hi < 0 || lv->size_bytes <= lv->size_hi),
		      "%s: L%zu estimate %lld outside its bracket %lld-%lld", what, i + 1,
		      lv->size_bytes, lv->size_lo, lv->size_hi);
	}
}

static void test_footprints(void)
{
	size_t b[HIER_MAX_POINTS], n = hierarchy_footprints(KiB(4), MiB(512), 4, b, HIER_MAX_POINTS);
	char why[96];

	CHECK(n == 4 * 17 + 1, "4K..512M at 4 per octave: %zu points", n);
	CHECK(b[0] == KiB(4) && b[n - 1] == MiB(512), "ends %zu, %zu", b[0], b[n - 1]);
	for (size_t i = 1; i < n; i++) {
		CHECK(b[i] > b[i - 1] && b[i] % 64 == 0, "point %zu: %zu after %zu", i, b[i], b[i - 1]);
		CHECK((double)b[i] / b[i - 1] < 1.2, "point %zu: step %zu -> %zu", i, b[i - 1], b[i]);
	}
	n = hierarchy_footprints(KiB(4), KiB(4), 4, b, HIER_MAX_POINTS);
	CHECK(n == 1 && b[0] == KiB(4), "one footprint: %zu", n);
	n = hierarchy_footprints(KiB(4), MiB(1), 2, b, 5);
	CHECK(n == 5, "max_out respected: %zu", n);

	CHECK(hierarchy_default_max(MiB(32), (uint64_t)24 << 30, why, sizeof(why)) == MiB(256),
	      "32M LLC: 8x");
	CHECK(hierarchy_default_max(MiB(508), (uint64_t)24 << 30, why, sizeof(why)) == MiB(512) &&
	      strstr(why, "cap"), "508M LLC: 512 MiB cap (%s)", why);
	CHECK(hierarchy_default_max(MiB(1), 0, why, sizeof(why)) == MiB(64), "1M LLC: 64M floor (%s)", why);
	CHECK(hierarchy_default_max(0, 0, why, sizeof(why)) == MiB(256), "no LLC: 256M (%s)", why);
	CHECK(hierarchy_default_max(MiB(32), MiB(400), why, sizeof(why)) == MiB(100) &&
	      strstr(why, "MemAvailable"), "400M available: 100M (%s)", why);
}

/* Steps from base around the ring back to base; 0 when it leaves
 * [base, base + n lines) or runs longer than n. */
static size_t ring_length(const char *base, size_t n)
{
	const char *q = base;
	size_t steps = 0;

	do {
		q = *(char *const *)q;
		if (q < base || q >= base + n * 64 || (size_t)(q - base) % 64)
			return 0;
		if (++steps > n)
			return 0;
	} while (q != base);
	return steps;
}

static void test_ring(void)
{
	static const size_t sizes[] = { 1, 2, 64, 1000, 16384 };
	size_t max = 16384;
	char *buf = aligned_alloc(64, max * 64);
	uint32_t *order = malloc(max * sizeof(uint32_t));

	if (!buf || !order) {
		CHECK(0, "allocation");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t n = sizes[i];

		memset(buf, 0, max * 64);
		hierarchy_link_ring(buf, n, order, 12345 + n);
		CHECK(ring_length(buf, n) == n, "ring over %zu lines: length %zu", n,
		      ring_length(buf, n));
	}
	/* one ring with two of its pointers swapped is two cycles: caught */
	{
		size_t n = 1000, a, b2;
		char **pa, **pb, *tmp;

		hierarchy_link_ring(buf, n, order, 99);
		a = order[10];
		b2 = order[500];
		pa = (char **)(buf + a * 64);
		pb = (char **)(buf + b2 * 64);
		tmp = *pa;
		*pa = *pb;
		*pb = tmp;
		CHECK(ring_length(buf, n) != n, "a split ring must not pass");
		/* a pointer out of the buffer */
		hierarchy_link_ring(buf, n, order, 99);
		*(char **)(buf + order[n / 2] * 64) = buf + n * 64;
		CHECK(ring_length(buf, n) == 0, "a ring leaving the buffer must not pass");
	}
	/* same seed, same ring; another seed, another one */
	{
		size_t n = 4096;
		char *first = malloc(n * sizeof(char *));
		bool same = true, other = false;

		hierarchy_link_ring(buf, n, order, 7);
		for (size_t k = 0; k < n; k++)
			((char **)first)[k] = *(char **)(buf + k * 64);
		hierarchy_link_ring(buf, n, order, 7);
		for (size_t k = 0; k < n; k++)
			same &= ((char **)first)[k] == *(char **)(buf + k * 64);
		hierarchy_link_ring(buf, n, order, 8);
		for (size_t k = 0; k < n; k++)
			other |= ((char **)first)[k] != *(char **)(buf + k * 64);
		CHECK(same && other, "deterministic for a seed (%d), differs by seed (%d)", same, other);
		free(first);
	}
	free(order);
	free(buf);
}

static void test_knees(void)
{
	static const size_t hw_zen[] = { KiB(32), MiB(1), MiB(32) };
	static const size_t hw_fiction[] = { KiB(32), MiB(1), MiB(508) };
	static struct hierarchy_section h;
	size_t b[HIER_MAX_POINTS], n;
	double c[HIER_MAX_POINTS], ns[HIER_MAX_POINTS];

	n = make_points(b, c, ns, sharp, zen, ARRAY_SIZE(zen));
	fill(&h, b, c, ns, n, hw_zen, 3);
	check_levels("sharp", &h, zen, ARRAY_SIZE(zen), true);
	CHECK(!h.disagrees, "sharp: hwloc agrees");
	for (size_t l = 0; l < hierarchy_ncaches(&h); l++)
		CHECK(h.levels[l].agrees && h.levels[l].hwloc_size == (long long)hw_zen[l],
		      "sharp: L%zu agrees", l + 1);
	CHECK(hierarchy_cache_size(&h, 2) == (size_t)h.levels[1].size_bytes &&
	      hierarchy_cache_size(&h, 4) == 0, "cache size accessor");

	/* the same machine, hwloc declaring a 508 MiB L3: this PU gets 32
	 * MiB of it, an effective share, not a contradiction */
	fill(&h, b, c, ns, n, hw_fiction, 3);
	CHECK(!h.disagrees && !h.levels[2].agrees && h.levels[2].effective_share &&
	      h.levels[0].agrees && h.levels[1].agrees && !h.levels[1].effective_share,
	      "fiction: L3 a share, L1/L2 agree");
	/* hwloc declaring an L2 of 256 KiB, smaller than measured: a
	 * disagreement (only the last cache can be a share) */
	{
		static const size_t hw_small[] = { KiB(32), KiB(256), MiB(32) };

		fill(&h, b, c, ns, n, hw_small, 3);
		CHECK(h.disagrees && !h.levels[1].agrees && !h.levels[1].effective_share &&
		      h.levels[2].agrees,
		      "L2 larger than declared: disagrees");
	}

	n = make_points(b, c, ns, gradual, zen, ARRAY_SIZE(zen));
	fill(&h, b, c, ns, n, hw_zen, 3);
	check_levels("gradual", &h, zen, ARRAY_SIZE(zen), false);

	/* random page colours: the L2 within 15% of its capacity */
	n = make_points(b, c, ns, coloured, zen, ARRAY_SIZE(zen));
	fill(&h, b, c, ns, n, hw_zen, 3);
	check_levels("coloured", &h, zen, ARRAY_SIZE(zen), false);
	CHECK(h.nlevels == 4 && fabs((double)h.levels[1].size_bytes / MiB(1) - 1) < 0.15 && h.levels[1].agrees,
	      "coloured: L2 %lld within 15%% of 1 MiB", h.levels[1].size_bytes);
	CHECK(h.levels[0].size_bytes == KiB(32), "coloured: L1 (uncoloured) at 32 KiB (%lld)",
	      h.levels[0].size_bytes);

	/* noise: +-6% on every point and one point twice as slow inside the
	 * L2 plateau (an interrupt) */
	n = make_points(b, c, ns, sharp, zen, ARRAY_SIZE(zen));
	for (size_t i = 0; i < n; i++) {
		double k = 1 + 0.06 * sin(2.3 * (double)i);

		c[i] *= k;
		ns[i] *= k;
		if (b[i] == KiB(256)) {
			c[i] *= 2;
			ns[i] *= 2;
		}
	}
	fill(&h, b, c, ns, n, hw_zen, 3);
	check_levels("noisy", &h, zen, ARRAY_SIZE(zen), true);

	/* no knee: every footprint in L1 */
	n = hierarchy_footprints(KiB(4), KiB(32), 4, b, HIER_MAX_POINTS);
	for (size_t i = 0; i < n; i++) {
		c[i] = 4;
		ns[i] = 4 / GHZ;
	}
	fill(&h, b, c, ns, n, hw_zen, 3);
	CHECK(h.nlevels == 1 && !h.levels[0].memory && !h.reached_memory &&
	      hierarchy_ncaches(&h) == 1,
	      "flat: one cache level, no memory (%zu levels)", h.nlevels);
	CHECK(h.levels[0].size_lo == KiB(32) && h.levels[0].size_hi == -1, "flat: open bracket");
	CHECK(h.disagrees, "flat: hwloc's L2 and L3 not seen is a disagreement");

	/* never levels off: 30% more per step */
	n = hierarchy_footprints(KiB(4), MiB(4), 4, b, HIER_MAX_POINTS);
	for (size_t i = 0; i < n; i++) {
		c[i] = 4 * pow(1.3, (double)i);
		ns[i] = c[i] / GHZ;
	}
	fill(&h, b, c, ns, n, hw_zen, 3);
	CHECK(h.nlevels == 0 && !h.reached_memory, "rising: no level (%zu)", h.nlevels);

	/* a cache-only sweep must not call its last cache memory */
	n = hierarchy_footprints(KiB(4), MiB(8), 4, b, HIER_MAX_POINTS);
	for (size_t i = 0; i < n; i++) {
		c[i] = sharp(zen, ARRAY_SIZE(zen), b[i]);
		ns[i] = c[i] / GHZ;
	}
	fill(&h, b, c, ns, n, hw_zen, 3);
	CHECK(h.nlevels == 3 && !h.reached_memory && hierarchy_ncaches(&h) == 3,
	      "sweep to 8M: 3 cache levels, no memory");
}

/* A staircase measured on a 2-vCPU Zen 4 KVM guest (32 KiB L1d, 1 MiB L2,
 * hwloc: 32 MiB L3) while neighbours ran: a transition with a half-octave
 * shelf (608-861 KiB), a disturbed point (2.83 MiB), an L3 this PU gets a
 * few MiB of, and DRAM drifting up 50% with page walks. A fixture for the
 * detector, not a reference figure. */
static const size_t real_b[] = {
	4096, 4864, 5734, 6860, 8192, 9728, 11571, 13721, 16384, 19456, 23142, 27545, 32768,
	38912, 46284, 55091, 65536, 77926, 92672, 110182, 131072, 155852, 185344, 220364,
	262144, 311705, 370688, 440832, 524288, 623411, 741478, 881766, 1048576, 1247232,
	1477632, 1761280, 2097152, 2495488, 2967552, 3523584, 4194304, 4990976, 5935104,
	7056384, 8388608, 9971712, 11858944, 14103552, 16777216, 19954688, 23729152, 28217344,
	33554432, 39898112, 47448064, 56434688, 67108864, 79807488, 94906368, 112858112,
	134217728, 159613952, 189812736, 225726464, 268435456,
};
static const double real_c[] = {
	4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.56, 13.93,
	14.06, 14.05, 14.08, 14.05, 14.04, 14.05, 14.05, 14.06, 14.06, 14.05, 14.05, 14.52,
	15.79, 16.75, 17.63, 23.66, 22.20, 25.46, 32.80, 46.34, 44.20, 47.34, 49.68, 52.03,
	264.38, 59.22, 56.82, 60.07, 428.16, 476.83, 495.91, 493.79, 526.17, 501.30, 536.00,
	545.82, 554.93, 554.50, 562.59, 560.28, 568.95, 580.81, 563.32, 570.69, 589.96, 573.96,
	587.07, 600.75, 647.01, 585.91, 655.97,
};

static void test_real(void)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(32) };
	static struct hierarchy_section h;
	double ns[ARRAY_SIZE(real_c)];
	size_t n = ARRAY_SIZE(real_b);

	for (size_t i = 0; i < n; i++)
		ns[i] = real_c[i] / 3.69;
	fill(&h, real_b, real_c, ns, n, hw, 3);
	CHECK(h.nlevels == 4 && hierarchy_ncaches(&h) == 3 && h.reached_memory,
	      "real: 3 caches and memory (%zu levels)", h.nlevels);
	if (h.nlevels != 4)
		return;
	CHECK(fabs(h.levels[0].cycles - 4) < 0.1 && h.levels[0].agrees,
	      "real: L1 4 cycles, agrees");
	CHECK(fabs(h.levels[1].cycles - 14.05) < 0.2 && h.levels[1].agrees &&
	      h.levels[1].size_lo < (long long)MiB(1) && h.levels[1].size_hi >= (long long)MiB(1),
	      "real: L2 14 cycles, rising around hwloc's 1 MiB (%lld-%lld)", h.levels[1].size_lo,
	      h.levels[1].size_hi);
	/* the L2 rises slowly from 300 KiB (TLB reach) and jumps at 1 MiB:
	 * the estimate is the jump, not the onset */
	CHECK(h.levels[1].size_bytes >= (long long)KiB(768) &&
	      h.levels[1].size_bytes <= (long long)KiB(1280),
	      "real: L2 estimated near 1 MiB (%lld)", h.levels[1].size_bytes);
	CHECK(h.levels[0].size_bytes == KiB(32), "real: L1 estimated at 32 KiB (%lld)",
	      h.levels[0].size_bytes);
	CHECK(h.levels[2].cycles > 40 && h.levels[2].cycles < 65 && !h.levels[2].agrees &&
	      h.levels[2].size_hi < (long long)MiB(16),
	      "real: L3 ~50 cycles, a few MiB, not hwloc's 32 MiB");
	CHECK(h.levels[3].memory && h.levels[3].cycles > 500 && h.levels[3].cycles < 660,
	      "real: memory ~580 cycles (%.0f)", h.levels[3].cycles);
	CHECK(!h.disagrees && h.levels[2].effective_share,
	      "real: the L3 an effective share, no disagreement");
	/* walks inside each level, away from its knees */
	for (int l = 1; l <= 4; l++) {
		long long fp = (long long)hierarchy_level_footprint(&h, l);
		const struct hier_level_out *lv = &h.levels[l - 1];

		CHECK(fp > lv->first_bytes && fp < lv->last_bytes && fp % 64 == 0,
		      "real: level %d walk %lld inside its plateau %lld-%lld", l, fp,
		      lv->first_bytes, lv->last_bytes);
	}
	CHECK(hierarchy_level_footprint(&h, 5) == 0 && hierarchy_level_footprint(&h, 0) == 0,
	      "real: no level 0 or 5");
	{
		size_t walk[PAT__COUNT];

		hierarchy_walks(&h, walk);
		CHECK(walk[PAT_DEP] == hierarchy_level_footprint(&h, 1) &&
		      walk[PAT_L2] == hierarchy_level_footprint(&h, 2) &&
		      walk[PAT_LLC] == hierarchy_level_footprint(&h, 3) &&
		      walk[PAT_MISS] == hierarchy_level_footprint(&h, 4) &&
		      walk[PAT_MISS_OVERLAP] == walk[PAT_MISS] && !walk[PAT_HIT] && !walk[PAT_MIX],
		      "real: walks for dep, l2, llc, miss");
		/* the pattern sizing takes them over its formulas */
		{
			struct pattern_sizes sz = { .l1d = KiB(32), .l2 = MiB(1), .llc = MiB(32), .line = 64 };
			struct pattern pl2 = { .kind = PAT_L2 }, pmiss = { .kind = PAT_MISS };
			size_t fp2 = 0, fpm = 0, fp2f = 0;

			CHECK(!pattern_footprint(&pl2, &sz, &fp2f) && fp2f == KiB(512), "l2 by formula: %zu", fp2f);
			memcpy(sz.walk, walk, sizeof(walk));
			CHECK(!pattern_footprint(&pl2, &sz, &fp2) && fp2 >= walk[PAT_L2] &&
			      fp2 < walk[PAT_L2] + KiB(4) && fp2 % KiB(4) == 0,
			      "l2 from the walk: %zu (walk %zu)", fp2, walk[PAT_L2]);
			CHECK(!pattern_footprint(&pmiss, &sz, &fpm) && fpm >= walk[PAT_MISS] &&
			      fpm < walk[PAT_MISS] + KiB(4), "miss from the walk: %zu (walk %zu)", fpm,
			      walk[PAT_MISS]);
		}
		h.nlevels = 3;	/* two caches and memory */
		hierarchy_walks(&h, walk);
		CHECK(!walk[PAT_L2] && !walk[PAT_MISS], "two caches: no walks");
		h.nlevels = 4;
	}
}

/* A fixture below (footprints 4 KiB-256 MiB, 4 per doubling, at 3.69 GHz)
 * into h, beside hwloc's 32 KiB, 1 MiB and 32 MiB: 3 caches and memory
 * must be found in nlevels levels. False when they are not, or the
 * footprints do not match. */
static bool fill_fixture(struct hierarchy_section *h, const char *what, const double *c, size_t nc,
			 size_t nlevels)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(32) };
	size_t b[HIER_MAX_POINTS], n = hierarchy_footprints(KiB(4), MiB(256), 4, b, HIER_MAX_POINTS);
	double ns[HIER_MAX_POINTS];

	CHECK(n == nc, "%s: %zu footprints", what, n);
	if (n != nc)
		return false;
	for (size_t i = 0; i < n; i++)
		ns[i] = c[i] / 3.69;
	fill(h, b, c, ns, n, hw, 3);
	CHECK(h->nlevels + h->nshelves == nlevels && hierarchy_ncaches(h) == 3 && h->reached_memory,
	      "%s: 3 caches and memory in %zu levels (%zu)", what, nlevels,
	      h->nlevels + h->nshelves);
	return h->nlevels + h->nshelves == nlevels;
}

/* The same guest with a busy neighbour: the L3 share shrank to about
 * 2.4 MiB (a plateau of under an octave) and two points past it had one
 * pass at DRAM latency. Footprints 4 KiB-256 MiB, 4 per doubling. */
static const double busy_c[] = {
	4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.53, 14.08, 14.06,
	14.05, 14.08, 14.05, 14.04, 14.05, 14.05, 14.07, 14.06, 14.04, 14.05, 14.52, 15.77, 17.52,
	18.34, 19.60, 22.81, 26.99, 32.34, 37.73, 48.06, 48.50, 48.05, 51.51, 90.57, 93.93, 500.29,
	488.58, 463.72, 496.10, 492.05, 492.63, 489.74, 516.91, 551.61, 525.59, 529.06, 564.62,
	552.76, 559.41, 562.88, 602.49, 575.89, 573.00, 586.59, 588.90, 603.93, 626.20, 617.81,
	588.32, 596.13,
};

static void test_busy(void)
{
	static struct hierarchy_section h;

	if (!fill_fixture(&h, "busy", busy_c, ARRAY_SIZE(busy_c), 4))
		return;
	CHECK(h.levels[1].agrees && h.levels[2].cycles > 40 && h.levels[2].cycles < 60 &&
	      h.levels[2].size_hi <= (long long)MiB(4) && !h.levels[2].agrees,
	      "busy: L2 agrees, an L3 of a few MiB at ~50 cycles, flagged (%.1f cycles, to %lld)",
	      h.levels[2].cycles, h.levels[2].size_hi);
}

/* The same guest again: L2 at 14 cycles to 430 KiB, then a shelf at 18-21
 * cycles to 1 MiB (L2 hits with TLB misses) before L3. The shelf is the
 * L2's inner step, and the L2's capacity lands on hwloc's 1 MiB. */
static const double shelf_c[] = {
	4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.53, 14.09, 14.06,
	14.05, 14.07, 14.04, 14.04, 14.04, 14.04, 14.05, 14.05, 14.04, 14.05, 14.51, 15.77, 16.74,
	17.59, 18.23, 18.92, 19.41, 20.98, 37.82, 44.01, 45.51, 47.20, 50.86, 51.58, 54.31, 54.22,
	54.76, 57.43, 60.32, 58.06, 70.12, 93.73, 265.27, 316.64, 305.99, 500.39, 496.77, 500.70,
	519.43, 534.34, 523.71, 542.20, 529.60, 535.03, 549.95, 546.54, 542.67, 554.57, 552.61,
	550.99,
};

static void test_shelf(void)
{
	static struct hierarchy_section h;

	if (!fill_fixture(&h, "shelf", shelf_c, ARRAY_SIZE(shelf_c), 4))
		return;
	CHECK(fabs(h.levels[1].cycles - 14.05) < 0.2 && h.levels[1].inner_cycles > 17 &&
	      h.levels[1].inner_cycles < 22 && h.levels[1].inner_from == h.points[28].bytes,
	      "shelf: L2 14 cycles, inner step %.1f from %lld", h.levels[1].inner_cycles,
	      h.levels[1].inner_from);
	CHECK(h.levels[1].size_lo == MiB(1) && h.levels[1].agrees,
	      "shelf: L2 ends at 1 MiB (%lld), agrees", h.levels[1].size_lo);
	CHECK((long long)hierarchy_level_footprint(&h, 2) < h.points[28].bytes,
	      "shelf: the L2 walk before the TLB step (%zu)", hierarchy_level_footprint(&h, 2));
	CHECK(h.levels[2].cycles > 45 && h.levels[2].cycles < 62, "shelf: L3 %.1f cycles",
	      h.levels[2].cycles);
}

/* And once more: past an L3 of about 7 MiB, a plateau at ~100 ns from 8 to
 * 13 MiB (partial hits in the L3 share), then DRAM at ~147 ns. The shelf
 * is neither a cache nor memory. */
static const double dram_shelf_c[] = {
	4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.55, 14.09, 14.06,
	14.05, 14.07, 14.04, 14.04, 14.04, 14.05, 14.06, 14.06, 14.04, 14.05, 14.51, 15.77, 16.77,
	19.67, 23.34, 26.23, 30.12, 34.37, 38.36, 43.23, 45.78, 49.33, 50.23, 51.28, 53.03, 54.31,
	61.22, 59.43, 58.84, 345.24, 291.32, 436.05, 372.97, 414.80, 422.61, 476.37, 484.58, 521.93,
	535.92, 524.70, 542.28, 564.54, 547.14, 554.85, 554.42, 590.55, 661.37, 575.09, 654.15,
	574.46,
};

static void test_dram_shelf(void)
{
	static struct hierarchy_section h;

	if (!fill_fixture(&h, "dram shelf", dram_shelf_c, ARRAY_SIZE(dram_shelf_c), 5))
		return;
	CHECK(h.nshelves == 1 && h.levels[3].memory && h.levels[3].cycles > 500,
	      "dram shelf: a shelf, then memory the upper plateau (%.0f cycles)",
	      h.levels[3].cycles);
}

/* A default run here: past the L2, a plateau at 36-40 cycles to 1.4 MiB
 * (the tail of the L2-to-L3 transition), then L3 at 50-65 to 11 MiB. The
 * longer sub-plateau is the L3; the tail is its inner step. */
static const double tail_c[] = {
	4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.00, 4.56, 14.10, 14.06,
	14.05, 14.08, 14.04, 14.04, 14.05, 14.05, 14.06, 14.06, 14.05, 14.06, 14.52, 15.76, 16.75,
	17.60, 18.99, 26.74, 36.40, 35.70, 37.71, 40.25, 45.38, 49.25, 50.88, 51.31, 54.17, 56.35,
	55.70, 62.72, 62.92, 65.48, 65.87, 69.08, 81.51, 147.03, 264.59, 292.74, 270.33, 392.50,
	478.46, 523.27, 518.76, 547.68, 548.48, 538.19, 579.36, 553.57, 550.80, 549.73, 588.32,
	565.05,
};

static void test_tail(void)
{
	static struct hierarchy_section h;

	if (!fill_fixture(&h, "tail", tail_c, ARRAY_SIZE(tail_c), 4))
		return;
	CHECK(h.levels[2].cycles > 48 && h.levels[2].inner_cycles > 30 &&
	      h.levels[2].inner_cycles < 45 && h.levels[2].inner_to < h.levels[2].walk_bytes,
	      "tail: L3 %.1f cycles, the tail %.1f before it", h.levels[2].cycles,
	      h.levels[2].inner_cycles);
	CHECK(hierarchy_level_footprint(&h, 3) > MiB(2), "tail: the L3 walk past the tail (%zu)",
	      hierarchy_level_footprint(&h, 3));
}

/* The sharp staircase on 4 KiB pages: past 128 MiB page walks make every
 * load cost walks times as much. Returns the count of points. */
static size_t page_walks(size_t *b, double *c, double *ns, double walks)
{
	size_t n = make_points(b, c, ns, sharp, zen, ARRAY_SIZE(zen));

	for (size_t i = 0; i < n; i++)
		if (b[i] > MiB(128)) {
			c[i] *= walks;
			ns[i] = c[i] / GHZ;
		}
	return n;
}

/* DRAM latency drifting up 40% over five octaves is one level, not two */
static void test_drift(void)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(32) };
	static struct hierarchy_section h;
	size_t b[HIER_MAX_POINTS], n;
	double c[HIER_MAX_POINTS], ns[HIER_MAX_POINTS];

	n = make_points(b, c, ns, sharp, zen, ARRAY_SIZE(zen));
	for (size_t i = 0; i < n; i++)
		if (b[i] > MiB(32)) {
			c[i] *= 1 + 0.4 * log2((double)b[i] / MiB(32)) / 4;
			ns[i] = c[i] / GHZ;
		}
	fill(&h, b, c, ns, n, hw, 3);
	CHECK(h.nlevels == 4 && h.reached_memory && h.levels[3].memory, "drift: one memory level (%zu levels)",
	      h.nlevels);

	/* 4 KiB pages: past 128 MiB page walks add 40% (an inner step) or
	 * 80% (a level): either way memory is the last plateau, the one
	 * before it a shelf */
	n = page_walks(b, c, ns, 1.4);
	fill(&h, b, c, ns, n, hw, 3);
	CHECK(h.nlevels == 4 && h.nshelves == 1 && hierarchy_ncaches(&h) == 3 &&
	      fabs(h.shelves[0].cycles - 480) < 10 && h.levels[3].memory &&
	      fabs(h.levels[3].cycles - 672) < 1 && h.levels[3].first_bytes > (long long)MiB(128),
	      "page walks +40%%: shelf %.0f, memory %.0f (%zu levels)",
	      h.shelves[0].cycles, h.levels[3].cycles, h.nlevels + h.nshelves);
	n = page_walks(b, c, ns, 1.8);
	fill(&h, b, c, ns, n, hw, 3);
	CHECK(h.nlevels == 4 && h.nshelves == 1 && hierarchy_ncaches(&h) == 3 && h.reached_memory &&
	      !h.shelves[0].memory && h.levels[3].memory,
	      "page walks +80%%: 3 caches, a shelf, memory (%zu levels)", h.nlevels + h.nshelves);
	CHECK(hierarchy_level_footprint(&h, 4) > MiB(128) && hierarchy_level_footprint(&h, 5) == 0,
	      "page walks +80%%: the memory walk is on the last plateau");
	{
		json_t *j = section_json(&h);

		CHECK(json_array_size(json_object_get(j, "levels")) == 4 &&
		      json_array_size(json_object_get(j, "shelves")) == 1, "json: the shelf kept apart");
		json_decref(j);
	}
	CHECK(fabs(h.shelves[0].cycles - 480) < 10,
	      "page walks: memory latency from the first plateau");
}

/* Epochs: h over footprints 4 KiB-256 MiB, curve e from model(e, f). */
static void fill_epochs(struct hierarchy_section *h, unsigned ne,
			double (*model)(unsigned e, size_t f), const size_t *hw, size_t nhw)
{
	size_t b[HIER_MAX_POINTS], n = hierarchy_footprints(KiB(4), MiB(256), 4, b, HIER_MAX_POINTS);

	memset(h, 0, sizeof(*h));
	memset(&sweep, 0, sizeof(sweep));
	h->npoints = n;
	h->epochs = h->epochs_planned = (int)ne;
	for (size_t i = 0; i < n; i++)
		h->points[i].bytes = (long long)b[i];
	for (unsigned e = 0; e < ne; e++)
		for (size_t i = 0; i < n; i++) {
			h->per_epoch[e].cycles[i] = model(e, b[i]);
			sweep.ep_ns[e][i] = h->per_epoch[e].cycles[i] / GHZ;
		}
	memcpy(h->hwloc_caches, hw, nhw * sizeof(*hw));
	h->nhwloc_caches = nhw;
	hierarchy_combine(h, &sweep);
}

/* The L3 share moves: epochs 0 and 1 keep 4 MiB of it and then partial
 * hits at 110 cycles (34 ns: no memory) to 16 MiB; epochs 2 and 4 go to
 * memory past 4 MiB; epoch 3 keeps all 32 MiB. The median curve has the
 * 110-cycle plateau (two epochs at 110, one below, two above), which two
 * epochs of five show. */
static double share_moves(unsigned e, size_t f)
{
	static const struct truth l3_4m[] = { { KiB(32), 4 }, { MiB(1), 14 }, { MiB(4), 50 }, { 0, 480 } };

	if (f <= MiB(4) || e == 3)
		return sharp(zen, ARRAY_SIZE(zen), f);
	if (e < 2)
		return f <= MiB(16) ? 110 : 480;
	return sharp(l3_4m, ARRAY_SIZE(l3_4m), f);
}

/* Every epoch shows the 110-cycle plateau. */
static double shelf_always(unsigned e, size_t f)
{
	return share_moves(0, f);
}

/* The L2 ends at 861 KiB, 1 MiB (three epochs) or 1.19 MiB. */
static double l2_moves(unsigned e, size_t f)
{
	static const size_t l2[] = { 881728, MiB(1), MiB(1), MiB(1), 1246912 };	/* footprints 31-33 */
	struct truth tr[] = { { KiB(32), 4 }, { l2[e], 14 }, { MiB(32), 50 }, { 0, 480 } };

	return sharp(tr, ARRAY_SIZE(tr), f);
}

/* Random page colours; epoch 0 disturbed: no L3 at all, so its L2 rises
 * straight to memory and sizes itself against it (about 0.75 MiB). */
static double l3_missed(unsigned e, size_t f)
{
	static const struct truth no_l3[] = { { KiB(32), 4 }, { MiB(1), 14 }, { 0, 480 } };

	return e ? coloured(zen, ARRAY_SIZE(zen), f) : coloured(no_l3, ARRAY_SIZE(no_l3), f);
}

static void test_epochs(void)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(32) };
	static struct hierarchy_section h;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j;

	fill_epochs(&h, 5, share_moves, hw, 3);
	CHECK(hierarchy_ncaches(&h) == 3 && h.reached_memory && h.nunstable == 1 &&
	      h.unstable[0].epochs_seen == 2 && fabs(h.unstable[0].cycles - 110) < 1,
	      "2 of 5 epochs: the 110-cycle step is no level (%zu caches, %zu unstable)",
	      hierarchy_ncaches(&h), h.nunstable);
	CHECK(h.levels[2].epochs_seen == 5 && h.levels[2].size_min <= (long long)MiB(4) &&
	      h.levels[2].size_max >= (long long)MiB(16),
	      "the L3 in every epoch, its size ranging %lld-%lld", h.levels[2].size_min,
	      h.levels[2].size_max);
	for (unsigned e = 0; e < 5; e++)
		CHECK(h.per_epoch[e].ncache_sizes == (e < 2 ? 4u : 3u),
		      "epoch %u alone: %zu caches", e, h.per_epoch[e].ncache_sizes);

	fill_epochs(&h, 5, l3_missed, hw, 3);
	CHECK(hierarchy_ncaches(&h) == 3 && h.per_epoch[0].ncache_sizes == 2 &&
	      h.levels[1].epochs_seen == 5 && h.levels[2].epochs_seen == 4 &&
	      h.levels[1].size_min > (long long)h.per_epoch[0].cache_sizes[1] &&
	      h.levels[1].size_min > MiB(1) * 0.85 && h.levels[1].size_max < MiB(1) * 1.15,
	      "an epoch without the L3 shows the L2 (%d of 5) but does not size it "
	      "(%lld-%lld; alone %zu)", h.levels[1].epochs_seen, h.levels[1].size_min,
	      h.levels[1].size_max, h.per_epoch[0].cache_sizes[1]);

	fill_epochs(&h, 5, shelf_always, hw, 3);
	CHECK(hierarchy_ncaches(&h) == 4 && h.nunstable == 0 && h.levels[3].epochs_seen == 5 &&
	      h.disagrees, "5 of 5 epochs: the step stays, a level hwloc lacks (%zu caches)",
	      hierarchy_ncaches(&h));

	fill_epochs(&h, 5, l2_moves, hw, 3);
	CHECK(hierarchy_ncaches(&h) == 3 && h.levels[1].size_bytes == MiB(1) &&
	      h.levels[1].size_min == 881728 && h.levels[1].size_max == 1246912 &&
	      h.levels[1].epochs_seen == 5, "L2 1 MiB used, %lld-%lld over the epochs",
	      h.levels[1].size_min, h.levels[1].size_max);
	f = open_memstream(&text, &len);
	hierarchy_print(&h, f);
	fclose(f);
	CHECK(text && strstr(text, "1 MiB (861.1 KiB-1.19 MiB, 5 of 5)") && strstr(text, "5 epochs of 5"),
	      "the range printed:\n%s", text ? text : "");
	free(text);
	j = section_json(&h);
	CHECK(json_integer_value(json_object_get(json_array_get(json_object_get(j, "levels"), 1), "size_min")) ==
	      881728 && json_array_size(json_object_get(j, "per_epoch")) == 5 &&
	      json_integer_value(json_object_get(j, "epochs")) == 5, "json: range and epochs");
	json_decref(j);
}

/* 4 KiB pages: past 288 KiB (a 72-entry L1 DTLB) the L2 walk costs 80%
 * more, to 1 MiB: on its own a level. */
static double tlb_4k(size_t f)
{
	double c = sharp(zen, ARRAY_SIZE(zen), f);

	return f > KiB(288) && f <= MiB(1) ? c * 1.8 : c;
}

static double zen_sharp(unsigned e, size_t f)
{
	return sharp(zen, ARRAY_SIZE(zen), f);
}

static void test_tlb(void)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(32) };
	static struct hierarchy_section h;
	size_t b[HIER_MAX_POINTS], n = hierarchy_footprints(KiB(4), MiB(256), 4, b, HIER_MAX_POINTS);
	double c[HIER_MAX_POINTS], ns[HIER_MAX_POINTS], huge[HIER_MAX_POINTS];

	/* the 4 KiB-page staircase alone takes the TLB step for a level */
	for (size_t i = 0; i < n; i++) {
		c[i] = tlb_4k(b[i]);
		ns[i] = c[i] / GHZ;
	}
	fill(&h, b, c, ns, n, hw, 3);
	CHECK(hierarchy_ncaches(&h) == 4,
	      "4 KiB pages alone: the TLB step reads as a level (%zu caches)",
	      hierarchy_ncaches(&h));

	/* on huge pages with the 4 KiB walk beside it: TLB reach, no level */
	fill_epochs(&h, 3, zen_sharp, hw, 3);
	for (h.tlb.ncycles_4k = 0; h.tlb.ncycles_4k < n && b[h.tlb.ncycles_4k] <= MiB(2);
	     h.tlb.ncycles_4k++)
		for (unsigned e = 0; e < 3; e++)
			sweep.ep_small[e][h.tlb.ncycles_4k] =
				tlb_4k(b[h.tlb.ncycles_4k]) * (1 + 0.01 * e);
	hierarchy_combine(&h, &sweep);
	CHECK(hierarchy_ncaches(&h) == 3 && h.levels[1].agrees &&
	      h.tlb.reach_bytes >= (long long)KiB(256) && h.tlb.reach_bytes <= (long long)KiB(288),
	      "huge pages: 3 caches, TLB reach %lld", h.tlb.reach_bytes);

	/* the curves never part, or part at one point only: no reach */
	for (size_t i = 0; i < n; i++)
		huge[i] = c[i] = zen_sharp(0, b[i]);
	CHECK(hierarchy_tlb_reach(b, huge, c, 40) == 0, "alike: no TLB reach");
	c[26] *= 1.5;
	CHECK(hierarchy_tlb_reach(b, huge, c, 40) == 0, "one slow point: no TLB reach");
	c[27] *= 1.5;
	CHECK(hierarchy_tlb_reach(b, huge, c, 40) == 0, "two slow points: no TLB reach");
	c[28] *= 1.5;
	CHECK(hierarchy_tlb_reach(b, huge, c, 40) == b[25], "three in a row: reach before them");
	/* random page colours, the 4 KiB walk's L2 rise shifted by a third of
	 * a step: slower all along the rise, which is no TLB step */
	for (size_t i = 0; i < n; i++) {
		huge[i] = coloured(zen, ARRAY_SIZE(zen), b[i]);
		c[i] = coloured(zen, ARRAY_SIZE(zen), (size_t)((double)b[i] * 1.06));
	}
	CHECK(c[30] > huge[30] * 1.08 && c[31] > huge[31] * 1.08 && c[32] > huge[32] * 1.08,
	      "the shifted rise is over 8%% slower at three points");
	CHECK(hierarchy_tlb_reach(b, huge, c, 37) == 0, "a shifted rise: no TLB reach (%zu)",
	      hierarchy_tlb_reach(b, huge, c, 37));
}

/* The section written in a report reads back and writes again byte for
 * byte, the TLB's null among it. */
static void round_trip(const struct hierarchy_section *h)
{
	char path[] = "/tmp/test-hierarchy-XXXXXX", *one = NULL, *two = NULL;
	struct report rep, back;
	json_t *a, *b;
	int fd = mkstemp(path);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	report_init(&rep);
	report_init(&back);
	rep.cal = (struct calibration){ .ticks_per_cycle = 1, .timer_hz = 3e9, .cycle_source = "test",
					.timer = "test", .emulation = "" };
	rep.hier = malloc(sizeof(*rep.hier));
	if (!out || !rep.hier)
		abort();
	*rep.hier = *h;
	report_write_json(&rep, out);
	fclose(out);
	CHECK(report_read(path, &back) == 0 && back.hier, "json: the section reads back");
	a = section_json(rep.hier);
	b = back.hier ? section_json(back.hier) : NULL;
	one = json_dumps(a, JSON_INDENT(1));
	two = json_dumps(b, JSON_INDENT(1));
	CHECK(one && two && !strcmp(one, two) && strstr(one, "\"tlb\": null"),
	      "json: rewritten byte for byte:\n%s\n%s", one ? one : "", two ? two : "");
	free(one);
	free(two);
	json_decref(a);
	json_decref(b);
	unlink(path);
	report_free(&rep);
	report_free(&back);
}

static void test_json(void)
{
	static const size_t hw[] = { KiB(32), MiB(1), MiB(508) };
	static struct hierarchy_section h;
	size_t b[HIER_MAX_POINTS], n;
	double c[HIER_MAX_POINTS], ns[HIER_MAX_POINTS];
	json_t *j, *lv;
	FILE *devnull = fopen("/dev/null", "w");

	n = make_points(b, c, ns, sharp, zen, ARRAY_SIZE(zen));
	fill(&h, b, c, ns, n, hw, 3);
	snprintf(h.pages.thp_mode, sizeof(h.pages.thp_mode), "madvise");
	j = section_json(&h);
	CHECK(j != NULL, "json built");
	if (!j)
		return;
	lv = json_object_get(j, "levels");
	CHECK(json_array_size(json_object_get(j, "points")) == n, "json: every point");
	CHECK(json_array_size(lv) == 4, "json: 4 levels");
	CHECK(json_is_false(json_object_get(j, "disagrees_with_hwloc")) &&
	      json_is_true(json_object_get(json_array_get(lv, 2), "effective_share")), "json: L3 a share");
	CHECK(json_is_false(json_object_get(json_array_get(lv, 2), "agrees")) &&
	      json_integer_value(json_object_get(json_array_get(lv, 2), "hwloc_size")) == (json_int_t)MiB(508),
	      "json: L3 beside hwloc's 508 MiB");
	CHECK(json_integer_value(json_object_get(json_array_get(lv, 1), "walk_bytes")) ==
	      (json_int_t)hierarchy_level_footprint(&h, 2), "json: L2 walk");
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(lv, 3), "level")), "memory") &&
	      !json_object_get(json_array_get(lv, 3), "size_bytes"), "json: memory has no size");
	json_decref(j);
	round_trip(&h);
	if (devnull) {
		hierarchy_print(&h, devnull);
		fclose(devnull);
	}
}

/* The text writer's level rows and notes: an L2 hwloc declares smaller (a
 * disagreement), an L3 share, a shelf (page walks add 80% past 128 MiB)
 * and memory. */
static void test_text(void)
{
	static const char *const want[] = {
		"\nL2      1 MiB (1 MiB-1 MiB, 1 of 1)              1 MiB-1.19 MiB            14.0     4.4  197.2 KiB"
		"  256 KiB   DISAGREES\n",
		"\nL3      32 MiB (32 MiB-32 MiB, 1 of 1)           32 MiB-38.05 MiB          50.0    15.6   6.17 MiB"
		"  508 MiB   share\n",
		"\nshelf   -                                        -                        480.0   150.0          -"
		"  -         (not a level: see the note)\n",
		"\nmemory  - (1 of 1)                               -                        864.0   270.0 279.17 MiB"
		"  -        \n",
		"\nnote: the shelf at 150 ns (38.05 MiB-128 MiB) lies between",
		"\nwarning: L2 measured about 1 MiB (latency rises between 1 MiB and 1.19 MiB), hwloc declares "
		"256 KiB: use the measured size\n",
		"\nnote: L3 effective share about 32 MiB of 508 MiB declared",
	};
	static const size_t hw[] = { KiB(32), KiB(256), MiB(508) };
	static struct hierarchy_section h;
	size_t b[HIER_MAX_POINTS], n;
	double c[HIER_MAX_POINTS], ns[HIER_MAX_POINTS];
	char *text;

	n = page_walks(b, c, ns, 1.8);
	fill(&h, b, c, ns, n, hw, 3);
	text = TEST_TEXT(hierarchy_print(&h, f));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(text && strstr(text, want[i]), "text: %s missing from\n%s", want[i], text ? text : "");
	free(text);
}

int main(void)
{
	log_quiet = 1;
	test_footprints();
	test_ring();
	test_knees();
	test_real();
	test_busy();
	test_shelf();
	test_dram_shelf();
	test_tail();
	test_drift();
	test_epochs();
	test_tlb();
	test_json();
	test_text();
	return test_done("hierarchy");
}
