/* SPDX-License-Identifier: MIT */
/* pattern.c - access patterns: parsing, footprints from hwloc, the walk
 * buffer (touched, huge pages where THP allows, optionally bound to a NUMA
 * node) and the run of every probe under every pattern. Under the walks
 * the bare chase (load_chase) runs first, so each row carries the op's cost
 * over it; the op is on word 1 of each line, and on the pointer word only
 * in the PATTERN+ptr rows, where a byte RMW fails store forwarding to the
 * next load (docs/patterns.md "The patterns").
 */
#include "pattern.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "pattern-kernels.h"
#include "probes.h"
#include "runner.h"

#define HUGE_BYTES (2u << 20)
#define MIN_LINES UNROLL	/* the index walk takes 64 entries at a time */
#define PREFETCH_AHEAD 32	/* random accesses while building a walk */

static const struct {
	const char *name, *desc, *forms;
} kinds[PAT__COUNT] = {
	[PAT_HIT] = { "hit", "lines in L1: the hot-line kernels (latency: every op on one word; "
		      "throughput: one word on each of 1-32 lines, the best footprint reported; "
		      "+stores: the op after 4 independent stores, for the fast-path menu's probes); "
		      "the default", "latency, throughput (+stores)" },
	[PAT_DEP] = { "dep", "L1-resident lines (L1d/2): latency = a pointer walk, the op on word 1 "
		      "of each line it visits (+ptr: on the pointer word, where a byte op fails "
		      "store forwarding to the next load); throughput = the same lines in a "
		      "precomputed order (no dependency)", "latency (+ptr), throughput" },
	[PAT_L2] = { "l2", "as dep over a random cyclic walk that exceeds L1d and fits L2 (L2/2)",
		     "latency (+ptr), throughput" },
	[PAT_LLC] = { "llc", "as dep over a walk that exceeds L2 and fits the last-level cache "
		      "(2 x L2, at most halfway to LLC)", "latency (+ptr), throughput" },
	[PAT_MISS] = { "miss", "as dep over a walk of at least 4 x LLC: DRAM; pages touched, huge "
		       "pages requested where THP allows", "latency (+ptr), throughput" },
	[PAT_MISS_OVERLAP] = { "miss-overlap", "independent DRAM loads with one op (on a hot line) "
			       "between them: the memory-level parallelism the op leaves",
			       "throughput" },
	[PAT_MIX] = { "mix=K/M", "K atomic ops in every M (M divides 64), the others the non-atomic "
		      "twin's, interleaved on the hot lines; pairs only", "latency, throughput" },
};

static bool pattern_kind_has_buffer(enum pattern_kind k)
{
	return k != PAT_HIT && k != PAT_MIX;
}

static const char *kind_name_at(size_t i, void *arg)
{
	return i < PAT__COUNT ? kinds[i].name : NULL;
}

static int parse_mix(const char *tok, struct pattern *p)
{
	unsigned k, m;
	int used = 0;

	if (sscanf(tok, "mix=%u/%u%n", &k, &m, &used) != 2 || tok[used] ||
	    !isdigit((unsigned char)tok[4])) {
		pr_err("--pattern: '%s' is not a mixture (expected mix=K/M, e.g. mix=1/4)", tok);
		return -EINVAL;
	}
	if (!m || m > UNROLL || UNROLL % m) {
		pr_err("--pattern: '%s': M must divide 64 (1, 2, 4, 8, 16, 32 or 64)", tok);
		return -EINVAL;
	}
	if (k > m) {
		pr_err("--pattern: '%s': K atomic ops cannot exceed M ops (expected 0 <= K <= M)", tok);
		return -EINVAL;
	}
	p->kind = PAT_MIX;
	p->mix_k = k;
	p->mix_m = m;
	snprintf(p->name, sizeof(p->name), "mix=%u/%u", k, m);
	return 0;
}

int pattern_parse_list(const char *s, struct pattern *out, size_t max)
{
	char buf[256], *save = NULL, *tok;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf)) {
		pr_err("--pattern: list too long (%zu characters, at most %zu)", strlen(s), sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct pattern p = { .kind = PAT__COUNT };

		if (!strncmp(tok, "mix", 3)) {
			if (parse_mix(tok, &p) < 0)
				return -EINVAL;
		} else {
			for (int k = 0; k < PAT__COUNT; k++)
				if (k != PAT_MIX && !strcmp(tok, kinds[k].name))
					p.kind = (enum pattern_kind)k;
			if (p.kind == PAT__COUNT) {
				const char *sug = suggest_name(tok, kind_name_at, PAT__COUNT, NULL);
				char mean[96];

				pr_err("--pattern: unknown pattern '%s'%s (expected hit, dep, l2, "
				       "llc, miss, miss-overlap or mix=K/M; "
				       "'atomcost list --patterns')", tok,
				       did_you_mean(sug, mean, sizeof(mean)));
				return -EINVAL;
			}
			snprintf(p.name, sizeof(p.name), "%s", kinds[p.kind].name);
		}
		for (size_t i = 0; i < n; i++)
			if (!strcmp(out[i].name, p.name)) {
				pr_err("--pattern: '%s' given twice", p.name);
				return -EINVAL;
			}
		if (n == max) {
			pr_err("--pattern: at most %zu patterns in one run", max);
			return -EINVAL;
		}
		out[n++] = p;
	}
	if (!n) {
		pr_err("--pattern: empty list (expected e.g. hit,l2,llc,miss)");
		return -EINVAL;
	}
	return (int)n;
}

uint64_t pattern_mix_mask(unsigned k, unsigned m)
{
	uint64_t mask = 0;

	if (!m || m > UNROLL || UNROLL % m || k > m)
		return 0;
	/* slot j of each group is atomic when floor((j+1)K/M) steps up: K
	 * slots per group, as evenly spaced as integers allow */
	for (unsigned i = 0; i < UNROLL; i++) {
		unsigned j = i % m;

		if ((j + 1) * k / m > j * k / m)
			mask |= 1ull << i;
	}
	return mask;
}

void pattern_sizes_from_topo(const struct topo *t, struct pattern_sizes *s)
{
	*s = (struct pattern_sizes){
		.l1d = topo_cache_size(t, 1), .l2 = topo_cache_size(t, 2), .llc = topo_llc_size(t),
		.line = topo_line_size(t) ? topo_line_size(t) : CACHE_LINE_BYTES,
	};
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static void fmt_bytes(char *buf, size_t len, uint64_t v)
{
	if (v >= (1ull << 30))
		snprintf(buf, len, "%.2f GiB", v / (double)(1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", v / (double)(1ull << 20));
	else
		snprintf(buf, len, "%" PRIu64 " KiB", v >> 10);
}

static int footprint_of(const struct pattern *p, const struct pattern_sizes *s, size_t *bytes,
			bool say)
{
	size_t fp = 0;
	char why[128] = "";	/* the size this pattern needs and hwloc does not give */

	/* a walk measured inside its level (hierarchy_walks): the middle of
	 * the level's plateau, where formulas on sizes can land on a knee */
	if (p->kind < PAT__COUNT && pattern_kind_has_buffer(p->kind) && s->walk[p->kind]) {
		fp = s->walk[p->kind];
		goto out;
	}
	switch (p->kind) {
	case PAT_HIT:
	case PAT_MIX:
		fp = TPUT_LINES * CACHE_LINE_BYTES;
		break;
	case PAT_DEP:
		if (!s->l1d)
			snprintf(why, sizeof(why), "hwloc reports no L1d size here");
		fp = s->l1d / 2;
		break;
	case PAT_L2:
		if (!s->l1d || s->l2 <= s->l1d)
			snprintf(why, sizeof(why), "needs an L2 larger than L1d, hwloc reports "
				 "L1d %zu, L2 %zu bytes", s->l1d, s->l2);
		fp = s->l2 / 2;
		if (fp < 2 * s->l1d)	/* small L2: halfway between the two */
			fp = (s->l1d + s->l2) / 2;
		break;
	case PAT_LLC:
		if (!s->l2 || s->llc <= s->l2)
			snprintf(why, sizeof(why), "needs a last-level cache larger than L2, "
				 "hwloc reports L2 %zu, LLC %zu bytes", s->l2, s->llc);
		/* 2 x L2, the smallest walk that defeats L2: a cyclic walk
		 * over more lines than an LRU-like cache holds misses on every
		 * line. Not LLC/2: hypervisors report inflated L3 sizes (508
		 * MiB "per core" on our Zen 5 guests), and the L3 share a core
		 * really gets can be small (walks of 4 MiB already cost DRAM
		 * latency on those guests, 2 MiB about 54 cycles). */
		fp = 2 * s->l2;
		if (fp > s->llc / 2)
			fp = (s->l2 + s->llc) / 2;
		break;
	case PAT_MISS:
	case PAT_MISS_OVERLAP:
		if (!s->llc)
			snprintf(why, sizeof(why), "hwloc reports no cache size here");
		fp = round_up(4 * s->llc, HUGE_BYTES);
		break;
	default:
		return -EINVAL;
	}
	if (*why) {
		if (say)
			pr_err("pattern %s: %s (give --footprint BYTES)", p->name, why);
		return -ENOTSUP;
	}
out:
	/* buffer walks take 64 lines at a time */
	*bytes = pattern_kind_has_buffer(p->kind) ? round_up(fp, MIN_LINES * CACHE_LINE_BYTES) : fp;
	return 0;
}

int pattern_footprint(const struct pattern *p, const struct pattern_sizes *s, size_t *bytes)
{
	return footprint_of(p, s, bytes, true);
}

/* Bytes a buffer of this footprint needs: the lines, the walk order, and
 * the successors while linking. */
static size_t buf_need(size_t footprint)
{
	return footprint + 2 * (footprint / CACHE_LINE_BYTES * sizeof(uint32_t));
}

uint64_t pattern_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

int pattern_parse_size(const char *what, const char *s, size_t *out)
{
	char *end;
	const char *units = "kmg", *u;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-')
		goto bad;
	if (*end) {
		u = strchr(units, tolower((unsigned char)*end));
		if (!u)
			goto bad;
		shift = 10 * (unsigned)(u - units + 1);
		end++;
		if (!strcasecmp(end, "ib") || !strcasecmp(end, "b"))
			end += strlen(end);
	}
	if (*end || v > (~0ull >> shift))
		goto bad;
	*out = (size_t)(v << shift);
	return 0;
bad:
	pr_err("%s: '%s' is not a size (expected bytes, or a number with K, M or G: 64M, 2G)", what, s);
	return -EINVAL;
}

/* splitmix64: small, seedable, good enough to shuffle lines. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (Lemire's multiply-shift; the bias for n < 2^32 is
 * below 2^-32, irrelevant to a walk order). */
static size_t rng_below(uint64_t *s, size_t n)
{
	return (size_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

void pattern_walk_order(uint32_t *order, size_t n, uint64_t seed)
{
	uint64_t ahead = seed;
	size_t jq[PREFETCH_AHEAD];

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	/* shuffle order[1..n): position 0 stays line 0, so each cycle arises
	 * from exactly one order. The swap partners are drawn PREFETCH_AHEAD
	 * steps early (same sequence) and prefetched: on a 2 GiB walk the
	 * order is 127 MiB and every swap would otherwise wait for DRAM. */
	for (size_t i = n - 1, k = 0; i > 1 && k < PREFETCH_AHEAD; i--, k++) {
		jq[k] = 1 + rng_below(&ahead, i);	/* in [1, i] */
		__builtin_prefetch(&order[jq[k]], 1);
	}
	for (size_t i = n - 1, k = 0; i > 1; i--, k = (k + 1) % PREFETCH_AHEAD) {
		size_t j = jq[k];
		uint32_t tmp = order[i];

		if (i > 1 + PREFETCH_AHEAD) {
			jq[k] = 1 + rng_below(&ahead, i - PREFETCH_AHEAD);
			__builtin_prefetch(&order[jq[k]], 1);
		}
		order[i] = order[j];
		order[j] = tmp;
	}
}

void pattern_thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128], *a, *b;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		snprintf(buf, len, "%s", a + 1);
	}
	fclose(f);
}

size_t pattern_thp_bytes(uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	size_t total = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, kb;

		char *dash = strchr(line, '-'), *sp = strchr(line, ' ');

		if (dash && sp && dash < sp && sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a < hi && b > lo;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			total += (size_t)kb << 10;
	}
	fclose(f);
	return total;
}

/* Anonymous memory, 2 MiB aligned, huge pages requested where THP allows. */
static int map_aligned(size_t bytes, bool want_huge, void **map, size_t *map_len, char **base,
		       bool *huge_requested)
{
	size_t len = bytes + HUGE_BYTES;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -errno;
	*map = m;
	*map_len = len;
	*base = (char *)round_up((uintptr_t)m, HUGE_BYTES);
	*huge_requested = want_huge && bytes >= HUGE_BYTES &&
			  !madvise(*base, round_up(bytes, HUGE_BYTES), MADV_HUGEPAGE);
	return 0;
}

/* Chain the lines in walk order. Through a successor array: its random
 * stores hit 4-byte slots of a 1/16-size array, then one sequential pass
 * writes the pointers; storing them straight into random lines of a 2 GiB
 * buffer took 3-4 times longer here. */
static int link_ring(struct pattern_buf *b, bool want_huge)
{
	void *map;
	size_t map_len, n = b->nlines;
	char *sbase;
	bool huge;
	uint32_t *succ;
	int ret = map_aligned(n * sizeof(uint32_t), want_huge, &map, &map_len, &sbase, &huge);

	if (ret < 0)
		return ret;
	succ = (uint32_t *)sbase;
	for (size_t k = 0; k < n; k++) {
		if (k + PREFETCH_AHEAD < n)
			__builtin_prefetch(&succ[b->idx[k + PREFETCH_AHEAD] / (b->stride / CACHE_LINE_BYTES)], 1);
		succ[b->idx[k] / (b->stride / CACHE_LINE_BYTES)] = b->idx[k + 1 == n ? 0 : k + 1];
	}
	for (size_t line = 0; line < n; line++)
		*(char **)(b->base + line * b->stride) = b->base + ((size_t)succ[line] << 6);
	munmap(map, map_len);
	return 0;
}

int pattern_buf_create(struct pattern_buf *b, size_t bytes, unsigned line, uint64_t seed,
		       struct topo *t, int node)
{
	uint64_t t0 = now_ns();
	bool want_huge, idx_huge;
	char *idx_base, sz[32];
	unsigned step;
	int ret;

	memset(b, 0, sizeof(*b));
	b->stride = line > CACHE_LINE_BYTES ? line : CACHE_LINE_BYTES;
	b->nlines = bytes / b->stride / MIN_LINES * MIN_LINES;
	b->bytes = bytes;
	b->seed = seed;
	b->node = node;
	fmt_bytes(sz, sizeof(sz), bytes);
	if (b->nlines < MIN_LINES || b->nlines > UINT32_MAX / (b->stride / CACHE_LINE_BYTES)) {
		pr_err("pattern: footprint %s is not between %u lines and 256 GiB", sz, MIN_LINES);
		return -EINVAL;
	}
	pattern_thp_mode(b->thp_mode, sizeof(b->thp_mode));
	want_huge = strcmp(b->thp_mode, "never") != 0;

	ret = map_aligned(bytes, want_huge, &b->map, &b->map_len, &b->base, &b->thp_requested);
	if (ret < 0) {
		pr_err("pattern: cannot map %s for the walk: %s", sz, strerror(-ret));
		return ret;
	}
	if (node >= 0 && (ret = topo_bind_memory(t, b->base, bytes, node)) < 0)
		goto out_unmap;
	/* touch every page twice, so no line is the shared zero page */
	memset(b->base, 1, bytes);
	memset(b->base, 0, bytes);

	ret = map_aligned(b->nlines * sizeof(uint32_t), want_huge, &b->idx_map, &b->idx_map_len,
			  &idx_base, &idx_huge);
	if (ret < 0) {
		pr_err("pattern: cannot map the walk order of %zu lines: %s", b->nlines, strerror(-ret));
		goto out_unmap;
	}
	b->idx = (uint32_t *)idx_base;
	pattern_walk_order(b->idx, b->nlines, seed);
	step = b->stride / CACHE_LINE_BYTES;
	if (step > 1)
		for (size_t k = 0; k < b->nlines; k++)
			b->idx[k] *= step;
	ret = link_ring(b, want_huge);
	if (ret < 0) {
		pr_err("pattern: cannot map the successors of %zu lines: %s", b->nlines, strerror(-ret));
		goto out_unmap;
	}
	b->cursor = b->base;
	b->thp_bytes = pattern_thp_bytes((uintptr_t)b->base, (uintptr_t)b->base + bytes);
	if (b->thp_bytes > bytes)	/* the VMA was merged with a neighbour */
		b->thp_bytes = bytes;
	b->page_bytes = b->thp_bytes * 2 >= bytes ? HUGE_BYTES : (size_t)sysconf(_SC_PAGESIZE);
	b->setup_s = (now_ns() - t0) / 1e9;
	return 0;

out_unmap:
	pattern_buf_destroy(b);	/* the walk order too, when linking failed */
	return ret;
}

void pattern_buf_destroy(struct pattern_buf *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	if (b->idx_map)
		munmap(b->idx_map, b->idx_map_len);
	memset(b, 0, sizeof(*b));
}

void pattern_buf_clean(struct pattern_buf *b)
{
	for (size_t k = 0; k < b->nlines; k++)
		*(uintptr_t *)(b->base + k * b->stride) &= ~(uintptr_t)(CACHE_LINE_BYTES - 1);
	b->cursor = (char *)((uintptr_t)b->cursor & ~(uintptr_t)(CACHE_LINE_BYTES - 1));
	b->dirty = false;
}

void pattern_ctx_attach(struct probe_ctx *ctx, const struct pattern_buf *b)
{
	ctx->pat_base = b->base;
	ctx->pat_idx = b->idx;
	ctx->pat_nidx = b->nlines;
	ctx->pat_pos = b->pos;
	ctx->pat_cursor = b->cursor;
}

/* ---- the plan: patterns and their footprints -------------------------- */

struct plan {
	struct pattern pat[PATTERN_MAX];
	size_t fp[PATTERN_MAX];
	int n;
	struct pattern_sizes sizes;
};

static int make_plan(struct topo *t, const struct run_opts *o, struct plan *pl)
{
	uint64_t avail = pattern_mem_available();
	int ret;

	pl->n = pattern_parse_list(o->patterns, pl->pat, PATTERN_MAX);
	if (pl->n < 0)
		return pl->n;
	if (o->sizes)	/* measured hierarchy (session.c) */
		pl->sizes = *o->sizes;
	else
		pattern_sizes_from_topo(t, &pl->sizes);
	for (int i = 0; i < pl->n; i++) {
		const struct pattern *p = &pl->pat[i];
		char need[32], have[32];

		if (!pattern_kind_has_buffer(p->kind)) {
			pattern_footprint(p, &pl->sizes, &pl->fp[i]);
			continue;
		}
		if (o->footprint) {
			pl->fp[i] = round_up(o->footprint, MIN_LINES * CACHE_LINE_BYTES);
		} else {
			ret = pattern_footprint(p, &pl->sizes, &pl->fp[i]);
			if (ret < 0)
				return ret;
		}
		fmt_bytes(need, sizeof(need), buf_need(pl->fp[i]));
		fmt_bytes(have, sizeof(have), avail);
		/* leave a quarter of the free memory to everything else */
		if (avail && buf_need(pl->fp[i]) > avail / 4 * 3) {
			pr_err("pattern %s: its buffer needs %s but only %s is available (MemAvailable); "
			       "give a smaller --footprint", p->name, need, have);
			return -EINVAL;
		}
		if (pl->fp[i] / CACHE_LINE_BYTES > UINT32_MAX) {
			pr_err("pattern %s: footprint %s exceeds 256 GiB; give a smaller --footprint",
			       p->name, need);
			return -EINVAL;
		}
	}
	return 0;
}

int pattern_check(struct topo *t, const struct run_opts *o)
{
	struct plan pl;
	int nnuma = topo_numa_count(t);

	if (o->footprint && !o->patterns) {
		pr_err("--footprint: sizes the buffers of --pattern dep, l2, llc, miss or miss-overlap; "
		       "give --pattern too");
		return -EINVAL;
	}
	if (o->footprint && o->footprint < MIN_LINES * CACHE_LINE_BYTES) {
		pr_err("--footprint: %zu bytes is below the smallest walk (%u lines, %u bytes)",
		       o->footprint, MIN_LINES, MIN_LINES * CACHE_LINE_BYTES);
		return -EINVAL;
	}
	if (o->mem_node >= 0 && o->mem_node >= (nnuma > 0 ? nnuma : 1)) {
		pr_err("--mem-node: node %d does not exist: this machine has %d NUMA node%s (0..%d)%s",
		       o->mem_node, nnuma, nnuma == 1 ? "" : "s", nnuma - 1,
		       nnuma == 1 ? "; a remote node cannot be measured here" : "");
		return -EINVAL;
	}
	if (!o->patterns)
		return 0;
	if (o->threads >= 2 || o->placement || o->sharing) {
		pr_err("--pattern: access patterns are measured on one thread; drop --threads, "
		       "--placement and --sharing, or --pattern");
		return -EINVAL;
	}
	if (o->mem_node >= 0 && nnuma <= 1)
		pr_info("--mem-node: one NUMA node here: the buffers are local, a remote node cannot be "
			"measured on this machine");
	return make_plan(t, o, &pl);
}

/* ---- the run ----------------------------------------------------------- */

/* V_CHASE: the walk with the op on word 1 (the row named by the pattern);
 * V_CHASE_PTR: the op on the pointer word (PATTERN+ptr). */
enum variant { V_HOT, V_CHASE, V_CHASE_PTR, V_INDEXED, V_OVERLAP, V_MIX, V_STORES };

static const char *const variant_names[] = {
	[V_HOT] = "hot-lines", [V_CHASE] = "word1", [V_CHASE_PTR] = "pointer-word",
	[V_INDEXED] = "indexed", [V_OVERLAP] = "overlap", [V_MIX] = "mix",
	[V_STORES] = "after-stores",
};

struct run_state {
	struct topo *t;
	const struct run_opts *o;
	struct report *rep;
	int cpu;
	const struct pattern *pat;
	size_t footprint;
	const struct pattern_sizes *sizes;
	struct pattern_buf *buf;	/* NULL for hit and mix */
	/* the plain walk of this pattern (load_chase), cycles; NAN: not measured */
	double chase_cyc, load_cyc;
	double stores_cyc;	/* hit: the bare stores of the hit+stores rows */
	uint64_t t0;
	size_t done, total;
};

static probe_kernel_fn kernel_of(const struct probe *p, enum pattern_kind k, enum probe_mode m,
				 enum variant v)
{
	const struct probe_pattern *pp = p->patterns;

	if (k == PAT_HIT)	/* hit+stores: the fast-path menu's context (pattern-kernels.h) */
		return v == V_HOT ? p->run[m] : v == V_STORES && m == MODE_THROUGHPUT ? p->ctx_stores : NULL;
	if (!pp)
		return NULL;
	if (k == PAT_MIX)
		return v == V_MIX ? pp->mix[m] : NULL;
	if (k == PAT_MISS_OVERLAP)
		return m == MODE_THROUGHPUT && v == V_OVERLAP ? pp->overlap : NULL;
	if (m == MODE_LATENCY)
		return v == V_CHASE ? pp->chase_w1 : v == V_CHASE_PTR ? pp->chase : NULL;
	return v == V_INDEXED ? pp->indexed : NULL;
}

static void pattern_info(const struct run_state *s, enum variant v, struct pattern_info *pi)
{
	const struct pattern_buf *b = s->buf;

	*pi = (struct pattern_info){
		.has = 1u << PX_NAME | 1u << PX_VARIANT | 1u << PX_FOOTPRINT | 1u << PX_LINE |
		       1u << (s->o->sizes ? PX_MEASURED : PX_HWLOC),
		.footprint_bytes = (long long)(b ? b->bytes : s->footprint),
		.line_bytes = (int)(b ? b->stride : s->sizes->line),
		.sizes = { ~0u, (long long)s->sizes->l1d, (long long)s->sizes->l2, (long long)s->sizes->llc },
	};
	snprintf(pi->name, sizeof(pi->name), "%s", s->pat->name);
	snprintf(pi->variant, sizeof(pi->variant), "%s", variant_names[v]);
	if (b) {
		pi->has |= HAS_KEYS(PX_LINES, PX_SETUP);
		pi->lines = (long long)b->nlines;
		pi->page_bytes = (long long)b->page_bytes;
		snprintf(pi->thp_mode, sizeof(pi->thp_mode), "%s", b->thp_mode);
		pi->thp_requested = b->thp_requested;
		pi->thp_bytes = (long long)b->thp_bytes;
		pi->seed = (long long)b->seed;
		pi->node = b->node >= 0 ? b->node : -1;
		pi->setup_s = b->setup_s;
	} else if (s->pat->kind == PAT_MIX) {
		pi->has |= 1u << PX_MIX_K | 1u << PX_MIX_M;
		pi->mix_k = (int)s->pat->mix_k;
		pi->mix_m = (int)s->pat->mix_m;
	}
}

/* The bare cost beside a row (key k) and the row's cost over it (k + 1). */
static void set_over(struct result_extra *x, enum result_extra_key k, struct result_over *o, double bare,
		     double med)
{
	x->has |= 1u << k | 1u << (k + 1);
	o->bare = bare;
	o->over = med - bare;
}

/* A measured row's pattern, the step of its walk, and its cost over the
 * bare walk, loads or stores; the bare walk's own cost is kept for them. */
static void row_extra(struct run_state *s, const struct probe *p, enum probe_mode m,
		      enum variant v, struct result *r)
{
	double med = result_cycles(s->rep, r->s.median);
	struct result_extra *x = &r->extra;

	x->has |= 1u << RX_PATTERN;
	pattern_info(s, v, &x->pattern);
	/* the step of the walk: the bare walk and the PATTERN rows follow the
	 * pointer as loaded; PATTERN+ptr rows mask it, one more cycle a step */
	if (v == V_CHASE || v == V_CHASE_PTR) {
		x->has |= 1u << RX_CHASE_STEP;
		snprintf(x->chase_step, sizeof(x->chase_step), "%s", v == V_CHASE_PTR ? "load, then and ~63" : "load");
	}
	if (!isnan(s->chase_cyc) && m == MODE_LATENCY)
		set_over(x, RX_CHASE, &x->chase, s->chase_cyc, med);
	if (!isnan(s->load_cyc) && m == MODE_THROUGHPUT)
		set_over(x, RX_LOAD, &x->load, s->load_cyc, med);
	if (v == V_STORES && !isnan(s->stores_cyc))
		set_over(x, RX_STORES, &x->stores, s->stores_cyc, med);
	if (p == &probe_load_chase) {
		if (m == MODE_LATENCY)
			s->chase_cyc = med;
		else
			s->load_cyc = med;
	}
}

static int run_row(struct run_state *s, const struct probe *p, enum probe_mode m, enum variant v,
		   probe_kernel_fn fn)
{
	struct probe_ctx ctx = { .mode = m, .cs_work = s->o->cs_work, .out_work = s->o->out_work };
	struct result *r;
	int ret;

	if (s->o->progress)
		fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", s->done + 1, s->total, s->pat->name, p->name,
			probe_mode_name(m));
	r = report_add(s->rep);
	if (!r)
		return -ENOMEM;
	runner_fill_identity(r, p, m);
	snprintf(r->pattern, sizeof(r->pattern), "%s%s", s->pat->name,
		 v == V_CHASE_PTR ? "+ptr" : v == V_STORES ? "+stores" : "");
	r->cpu_os = s->cpu;
	r->cpu_logical = topo_logical_of_os(s->t, s->cpu);

	ret = runner_ctx_init(p, &ctx);
	if (ret < 0)
		goto out_drop;
	/* the unmasked walks need links without the bits a pointer-word op set */
	if (s->buf && s->buf->dirty && v == V_CHASE)
		pattern_buf_clean(s->buf);
	if (s->buf)
		pattern_ctx_attach(&ctx, s->buf);
	if (v == V_MIX)
		ctx.mix_mask = p->atomicity == ATOMICITY_ATOMIC
			       ? pattern_mix_mask(s->pat->mix_k, s->pat->mix_m) : 0;
	/* hit is the default run's pattern: its throughput is swept the same way */
	if (v == V_HOT && m == MODE_THROUGHPUT && p->tput_sweep)
		ret = runner_measure_sweep(p->tput_sweep, &ctx, s->o, &s->rep->cal, r);
	else
		ret = runner_measure_kernel(fn, &ctx, s->o, &s->rep->cal, r);
	runner_check_bounds(r, m == MODE_LATENCY && (v == V_CHASE || v == V_CHASE_PTR ||
						     p->chain != CHAIN_NONE), &s->rep->cal);
	free(ctx.mem);
	if (s->buf) {	/* the next probe walks on from here, not over warm lines */
		s->buf->cursor = ctx.pat_cursor;
		s->buf->pos = ctx.pat_pos;
		s->buf->dirty |= v == V_CHASE_PTR;
	}
	r->migrated = sched_getcpu() != s->cpu;
	if (ret < 0 && (ret != -EINTR || r->nsamples < s->o->min_samples))
		goto out_drop;

	row_extra(s, p, m, v, r);
	s->done++;
	return ret;

out_drop:
	result_release(r);
	s->rep->n--;
	return ret;
}

/* The bare stores of the hit+stores rows (CTX_STORES stores a step, no op),
 * cycles per step; NAN when not measured. */
CONTEXT_BARE(kc_bare_stores)

static double bare_stores(struct run_state *s)
{
	struct probe_ctx ctx = { .mode = MODE_THROUGHPUT };
	struct result r = { 0 };
	double cyc = NAN;

	if (runner_ctx_init(&probe_store, &ctx) < 0)
		return NAN;
	if (runner_measure_kernel(kc_bare_stores, &ctx, s->o, &s->rep->cal, &r) >= 0 && r.nsamples)
		cyc = result_cycles(s->rep, r.s.median);
	result_release(&r);
	free(ctx.mem);
	return cyc;
}

/* Every row of this pattern; with count, only s->total grows. */
static int run_pattern(struct run_state *s, const struct probe *const *list, size_t n, bool count)
{
	const struct probe **todo = calloc(n + 1, sizeof(*todo));
	bool walk = pattern_kind_has_buffer(s->pat->kind);
	size_t k = 0;
	int ret = 0;

	if (!todo)
		return -ENOMEM;
	if (walk)	/* the plain walk first */
		todo[k++] = &probe_load_chase;
	for (size_t i = 0; i < n; i++)
		if (!walk || list[i] != &probe_load_chase)
			todo[k++] = list[i];
	for (size_t i = 0; !count && i < k && s->pat->kind == PAT_HIT &&
			   (s->o->mode_mask & (1u << MODE_THROUGHPUT)); i++)
		if (todo[i]->ctx_stores) {
			s->stores_cyc = bare_stores(s);
			break;
		}
	/* form by form, every probe in turn, so a probe's row and its twin's
	 * (next to it in the list) run a few ms apart and see the same host:
	 * their ratio in an epoch is then paired in time as well as in
	 * buffers; every other epoch runs the probes in reverse, so a drift
	 * within the form does not always favour the same side. The bare walk
	 * stays first: the rows after it are read against it. */
	for (int m = 0; m < MODE__COUNT && !ret; m++) {
		if (!(s->o->mode_mask & (1u << m)))
			continue;
		for (int v = V_HOT; v <= V_STORES && !ret; v++)
			for (size_t j = 0; j < k && !ret; j++) {
				size_t first = todo[0] == &probe_load_chase, i =
					s->o->epoch % 2 || j < first ? j : k - 1 - (j - first);
				probe_kernel_fn fn = kernel_of(todo[i], s->pat->kind, (enum probe_mode)m,
							       (enum variant)v);

				s->total += count && fn;
				if (count || !fn)
					continue;
				if (runner_out_of_time(s->o, s->rep, s->t0)) {
					ret = 1;
					break;
				}
				ret = run_row(s, todo[i], (enum probe_mode)m, (enum variant)v, fn);
			}
	}
	free(todo);
	return ret;
}

/* The walks must get slower level by level; when two neighbours cost about
 * the same, the cache sizes hwloc reports are not what this core gets (a
 * guest's L3 shared with other tenants, an inflated size): say so. */
static void check_levels(const double *chase_cyc, const size_t *fp)
{
	static const enum pattern_kind order[] = { PAT_DEP, PAT_L2, PAT_LLC, PAT_MISS };

	for (size_t i = 0; i + 1 < ARRAY_SIZE(order); i++) {
		enum pattern_kind a = order[i], b = order[i + 1];
		char fa[32], fb[32];

		if (isnan(chase_cyc[a]) || isnan(chase_cyc[b]) || chase_cyc[a] <= 0.7 * chase_cyc[b])
			continue;
		fmt_bytes(fa, sizeof(fa), fp[a]);
		fmt_bytes(fb, sizeof(fb), fp[b]);
		pr_warn("pattern %s: its %s walk costs %.1f cycles, %.0f%% of the %s walk (%s, %.1f "
			"cycles): the lines do not come from the level the pattern names on this core; "
			"give a smaller --footprint", kinds[a].name, fa, chase_cyc[a],
			100 * chase_cyc[a] / chase_cyc[b], kinds[b].name, fb, chase_cyc[b]);
	}
}

int pattern_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		size_t n, struct report *rep)
{
	double chase_cyc[PAT__COUNT];
	size_t chase_fp[PAT__COUNT] = { 0 };
	struct pattern_buf buf = { 0 };
	struct run_state s = { .t = t, .o = o, .rep = rep };
	struct plan pl;
	bool beyond_hit = false;
	uint64_t t0 = now_ns();
	int ret = runner_prepare(t, o, rep, &s.cpu);

	if (ret < 0)
		return ret;
	s.t0 = now_ns();
	ret = make_plan(t, o, &pl);
	if (ret < 0)
		goto out;
	for (int k = 0; k < PAT__COUNT; k++)
		chase_cyc[k] = NAN;
	s.sizes = &pl.sizes;
	for (int i = 0; i < pl.n; i++) {
		s.pat = &pl.pat[i];
		run_pattern(&s, list, n, true);
		beyond_hit |= s.pat->kind != PAT_HIT;
	}
	for (size_t i = 0; i < n && beyond_hit && o->progress; i++)
		if (!list[i]->patterns)
			pr_info("pattern: %s runs only under 'hit' (no op-at-an-address form)", list[i]->name);

	for (int i = 0; i < pl.n && !ret; i++) {
		s.pat = &pl.pat[i];
		s.footprint = pl.fp[i];
		s.buf = NULL;
		s.chase_cyc = s.load_cyc = s.stores_cyc = NAN;
		if (pattern_kind_has_buffer(s.pat->kind)) {
			if (buf.map && buf.bytes != pl.fp[i])
				pattern_buf_destroy(&buf);
			if (!buf.map) {	/* miss and miss-overlap share one buffer */
				char sz[32];

				fmt_bytes(sz, sizeof(sz), pl.fp[i]);
				if (o->progress)
					fprintf(stderr, "\r\033[Kpattern %s: preparing %s of lines", s.pat->name, sz);
				ret = pattern_buf_create(&buf, pl.fp[i], pl.sizes.line, PATTERN_SEED + o->epoch, t,
							 o->mem_node);
				if (ret < 0)
					break;
			}
			s.buf = &buf;
		}
		ret = run_pattern(&s, list, n, false);
		chase_cyc[s.pat->kind] = s.chase_cyc;
		chase_fp[s.pat->kind] = s.footprint;
		if (ret == -EINTR) {
			rep->partial = true;
			snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
		}
	}
	pattern_buf_destroy(&buf);
	if (!ret)
		check_levels(chase_cyc, chase_fp);
out:
	runner_finish(o, rep, t0);
	return ret > 0 ? 0 : ret;
}

void pattern_list(const struct topo *t, bool json)
{
	struct pattern_sizes sz;
	json_t *arr = json ? json_array() : NULL;

	if (t)
		pattern_sizes_from_topo(t, &sz);
	if (!json)
		printf("%-13s %-26s %-11s %s\n", "pattern", "forms", "footprint", "what it measures");
	for (int k = 0; k < PAT__COUNT; k++) {
		struct pattern p = { .kind = (enum pattern_kind)k, .mix_k = 1, .mix_m = 4 };
		size_t fp = 0;
		char fps[32] = "-";

		snprintf(p.name, sizeof(p.name), "%s", kinds[k].name);
		/* footprints on this machine; a missing cache level shows as '-' */
		if (t && !footprint_of(&p, &sz, &fp, false))
			fmt_bytes(fps, sizeof(fps), fp);
		if (json) {
			json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I}", "pattern", kinds[k].name,
							     "forms", kinds[k].forms, "description",
							     kinds[k].desc, "footprint_bytes",
							     (json_int_t)fp));
			continue;
		}
		printf("%-13s %-26s %-11s %s\n", kinds[k].name, kinds[k].forms, fps, kinds[k].desc);
	}
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(arr);
		return;
	}
	printf("\nForms: 'latency' under a pattern is its dependent form (the dep pattern's on L1\n"
	       "lines), 'throughput' its independent form; every pattern reports both where both\n"
	       "exist. PATTERN rows put the op on another word of the line the walk visits;\n"
	       "PATTERN+ptr rows on the word the walk reads its next address from, where a byte\n"
	       "op (orb, lock orb) fails store forwarding to the next 8-byte load, locked or not.\n"
	       "Buffer patterns also measure load_chase (the bare walk); extra.chase_cycles in\n"
	       "the JSON is that walk's cost.\n"
	       "Footprints: hwloc cache sizes above the first allowed PU; --footprint overrides.\n");
}
