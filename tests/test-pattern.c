/* SPDX-License-Identifier: MIT */
/* test-pattern.c - access patterns: the walk is one cycle through every
 * line, footprints follow the caches of synthetic topologies, the mix mask
 * spreads K of M, lists and sizes parse, every probe's pattern kernels
 * run on a tiny buffer, walk it in the recorded order and leave the chain
 * intact, and the lock-prefix-only controls are in place. Deterministic:
 * nothing here is timed. Exit 0 pass, 1 fail.
 */
#include "common.h"
#include "harness.h"
#include "pattern.h"
#include "probes.h"
#include "runner.h"

#include <stdlib.h>
#include <string.h>

/* Walk the ring from base (masking low bits): the number of steps until it
 * returns to base, 0 if it leaves the buffer or exceeds nlines steps. */
static size_t ring_length(const struct pattern_buf *b)
{
	const char *q = b->base;
	size_t n = 0;

	do {
		uintptr_t v = *(const uintptr_t *)q & ~(uintptr_t)(CACHE_LINE_BYTES - 1);

		if (v < (uintptr_t)b->base || v >= (uintptr_t)b->base + b->bytes)
			return 0;
		q = (const char *)v;
		if (++n > b->nlines)
			return 0;
	} while (q != b->base);
	return n;
}

static void test_walk_order(void)
{
	static const size_t sizes[] = { 2, 3, 64, 1000, 4096, 100003 };

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t n = sizes[s], steps = 0, cur = 0;
		uint32_t *o = malloc(n * sizeof(*o)), *succ = malloc(n * sizeof(*succ));
		unsigned char *seen = calloc(n, 1);
		bool once = true;

		pattern_walk_order(o, n, 42);
		for (size_t k = 0; k < n; k++) {
			once &= o[k] < n && !seen[o[k]];
			if (o[k] < n)
				seen[o[k]] = 1;
			succ[o[k] % n] = o[(k + 1) % n];
		}
		CHECK(once, "n=%zu: every line exactly once in the order", n);
		CHECK(o[0] == 0, "n=%zu: the walk starts at line 0", n);
		/* the successor function is a single cycle of length n */
		do {
			cur = succ[cur];
			steps++;
		} while (cur != 0 && steps <= n);
		CHECK(steps == n, "n=%zu: one cycle of %zu lines (got %zu)", n, n, steps);
		free(o);
		free(succ);
		free(seen);
	}
	{
		uint32_t a[256], b[256], c[256];

		pattern_walk_order(a, 256, 7);
		pattern_walk_order(b, 256, 7);
		pattern_walk_order(c, 256, 8);
		CHECK(!memcmp(a, b, sizeof(a)), "same seed, same order");
		CHECK(memcmp(a, c, sizeof(a)), "another seed, another order");
	}
}

static struct topo *syn(const char *s)
{
	struct topo *t = NULL;
	int err = topo_open(&t, s, NULL);

	CHECK(!err, "synthetic topology '%s' opens (%d)", s, err);
	return err ? NULL : t;
}

static size_t fp_of(const struct pattern_sizes *sz, const char *name, int *err)
{
	struct pattern p;
	size_t fp = 0;

	if (pattern_parse_list(name, &p, 1) != 1) {
		*err = -EINVAL;
		return 0;
	}
	*err = pattern_footprint(&p, sz, &fp);
	return fp;
}

static void test_footprints(void)
{
	/* this machine's shape: L1d 48 KiB, L2 1 MiB, a 508 MiB L3 */
	struct topo *t = syn("pack:1 l3:1(size=532676608) l2:2(size=1048576) l1d:1(size=49152) "
			     "core:1 pu:1");
	struct pattern_sizes sz;
	int err;
	size_t fp;

	if (!t)
		return;
	pattern_sizes_from_topo(t, &sz);
	CHECK(sz.l1d == 49152 && sz.l2 == 1048576 && sz.llc == 532676608,
	      "sizes from hwloc: l1d %zu l2 %zu llc %zu", sz.l1d, sz.l2, sz.llc);
	fp = fp_of(&sz, "dep", &err);
	CHECK(!err && fp == 24576, "dep = L1d/2 = 24 KiB (got %zu)", fp);
	fp = fp_of(&sz, "l2", &err);
	CHECK(!err && fp == 524288 && fp > sz.l1d && fp < sz.l2, "l2 = L2/2, above L1d (got %zu)", fp);
	fp = fp_of(&sz, "llc", &err);
	CHECK(!err && fp == 2u << 20, "llc = 2 x L2 when LLC/2 is larger (got %zu)", fp);
	fp = fp_of(&sz, "miss", &err);
	CHECK(!err && fp >= 4 * sz.llc && fp % (2u << 20) == 0,
	      "miss >= 4 x LLC, 2 MiB multiple (got %zu)", fp);
	fp = fp_of(&sz, "miss-overlap", &err);
	CHECK(!err && fp >= 4 * sz.llc, "miss-overlap uses the miss footprint (got %zu)", fp);
	topo_close(t);

	/* an LLC of 2 x L2: llc halfway between L2 and LLC, still above L2 */
	t = syn("pack:1 l3:1(size=1048576) l2:4(size=524288) l1d:1(size=32768) core:1 pu:1");
	if (t) {
		pattern_sizes_from_topo(t, &sz);
		fp = fp_of(&sz, "llc", &err);
		CHECK(!err && fp == 786432, "llc = (L2 + LLC)/2 with a 1 MiB LLC (got %zu)", fp);
		fp = fp_of(&sz, "l2", &err);
		CHECK(!err && fp == 262144, "l2 = L2/2 = 256 KiB (got %zu)", fp);
		topo_close(t);
	}

	/* a small L2: l2 lands halfway between L1d and L2 */
	t = syn("pack:1 l2:1(size=131072) l1d:1(size=49152) core:1 pu:1");
	if (t) {
		pattern_sizes_from_topo(t, &sz);
		fp = fp_of(&sz, "l2", &err);
		CHECK(!err && fp == (sz.l1d + sz.l2) / 2 && fp > sz.l1d && fp < sz.l2,
		      "l2 halfway between L1d and L2 (got %zu)", fp);
		/* the L2 is the last level: no llc pattern here */
		fp_of(&sz, "llc", &err);
		CHECK(err == -ENOTSUP, "llc without a level above L2 -> -ENOTSUP (%d)", err);
		topo_close(t);
	}

	/* no cache sizes at all */
	t = syn("pack:1 core:2 pu:1");
	if (t) {
		pattern_sizes_from_topo(t, &sz);
		fp_of(&sz, "dep", &err);
		CHECK(err == -ENOTSUP, "dep without an L1d size -> -ENOTSUP (%d)", err);
		fp_of(&sz, "miss", &err);
		CHECK(err == -ENOTSUP, "miss without cache sizes -> -ENOTSUP (%d)", err);
		fp = fp_of(&sz, "hit", &err);
		CHECK(!err && fp == TPUT_LINES * CACHE_LINE_BYTES, "hit: the hot lines (got %zu)", fp);
		topo_close(t);
	}
}

static void test_check(void)
{
	struct topo *t = syn("pack:1 l3:1(size=532676608) l2:1(size=1048576) l1d:1(size=49152) "
			     "core:1 pu:1");
	struct run_opts o;

	if (!t)
		return;
	runner_default_opts(&o);
	o.patterns = "hit,l2,mix=1/4";
	CHECK(pattern_check(t, &o) == 0, "hit,l2,mix=1/4 accepted");
	o.patterns = "miss";
	o.footprint = (size_t)1 << 50;	/* 1 PiB: no machine has it available */
	CHECK(pattern_check(t, &o) == -EINVAL, "a footprint beyond available memory -> -EINVAL");
	o.footprint = 100;
	CHECK(pattern_check(t, &o) == -EINVAL, "a footprint below 64 lines -> -EINVAL");
	o.footprint = 0;
	o.mem_node = 1;
	CHECK(pattern_check(t, &o) == -EINVAL, "--mem-node beyond the nodes -> -EINVAL");
	topo_close(t);
}

static void test_parse(void)
{
	struct pattern p[PATTERN_MAX];
	size_t v;
	int n;

	n = pattern_parse_list("hit,l2,llc,miss", p, PATTERN_MAX);
	CHECK(n == 4 && p[0].kind == PAT_HIT && p[3].kind == PAT_MISS, "hit,l2,llc,miss (%d)", n);
	n = pattern_parse_list("mix=1/4,miss-overlap,dep", p, PATTERN_MAX);
	CHECK(n == 3 && p[0].kind == PAT_MIX && p[0].mix_k == 1 && p[0].mix_m == 4 &&
	      !strcmp(p[0].name, "mix=1/4") && p[1].kind == PAT_MISS_OVERLAP && p[2].kind == PAT_DEP,
	      "mix=1/4,miss-overlap,dep (%d)", n);
	static const char *const bad[] = { "", "bogus", "mis", "mix", "mix=", "mix=1/3", "mix=5/4",
					   "mix=1/0", "mix=1/4x", "mix=-1/4", "hit,hit", ",",
					   "mix=1/128" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(pattern_parse_list(bad[i], p, PATTERN_MAX) == -EINVAL, "'%s' refused", bad[i]);

	CHECK(!pattern_parse_size("x", "64M", &v) && v == 64u << 20, "64M");
	CHECK(!pattern_parse_size("x", "2GiB", &v) && v == 2ull << 30, "2GiB");
	CHECK(!pattern_parse_size("x", "4096", &v) && v == 4096, "4096");
	CHECK(!pattern_parse_size("x", "1536k", &v) && v == 1536u << 10, "1536k");
	CHECK(pattern_parse_size("x", "12Q", &v) == -EINVAL, "12Q refused");
	CHECK(pattern_parse_size("x", "-1M", &v) == -EINVAL, "-1M refused");
	CHECK(pattern_parse_size("x", "", &v) == -EINVAL, "empty refused");
}

static void test_mix_mask(void)
{
	static const unsigned ms[] = { 1, 2, 4, 8, 16, 32, 64 };

	for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
		for (unsigned k = 0; k <= ms[i]; k++) {
			uint64_t mask = pattern_mix_mask(k, ms[i]);
			bool ok = true;

			for (unsigned g = 0; g < UNROLL; g += ms[i]) {
				uint64_t grp = ms[i] == 64 ? mask : (mask >> g) & ((1ull << ms[i]) - 1);

				ok &= (unsigned)__builtin_popcountll(grp) == k;
			}
			CHECK(ok, "mix=%u/%u: %u atomic slots in every group of %u", k, ms[i], k, ms[i]);
		}
	}
	CHECK(pattern_mix_mask(1, 4) == 0x8888888888888888ull, "mix=1/4 is every 4th slot (%#llx)",
	      (unsigned long long)pattern_mix_mask(1, 4));
	CHECK(pattern_mix_mask(0, 4) == 0 && pattern_mix_mask(64, 64) == ~0ull, "0/4 none, 64/64 all");
}

static bool links_clean(const struct pattern_buf *b)
{
	for (size_t k = 0; k < b->nlines; k++)
		if (*(const uintptr_t *)(b->base + k * b->stride) & (CACHE_LINE_BYTES - 1))
			return false;
	return true;
}

/* Every probe's pattern kernels on a 128-line buffer: the chase follows the
 * recorded order, the index walk advances and wraps, and no op breaks the
 * chain the other probes follow. */
static void test_kernels(void)
{
	struct pattern_buf b;
	size_t nk = 0;

	if (pattern_buf_create(&b, 128 * CACHE_LINE_BYTES, 64, 1, NULL, -1) < 0) {
		CHECK(0, "a 128-line buffer");
		return;
	}
	CHECK(b.nlines == 128 && ring_length(&b) == 128, "ring of 128 lines (%zu)",
	      ring_length(&b));

	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		const struct probe_pattern *pp = p->patterns;
		probe_kernel_fn fns[] = { pp ? pp->chase : NULL, pp ? pp->chase_w1 : NULL,
					  pp ? pp->indexed : NULL, pp ? pp->overlap : NULL,
					  pp ? pp->mix[MODE_LATENCY] : NULL,
					  pp ? pp->mix[MODE_THROUGHPUT] : NULL };

		if (!pp || p->unsupported)
			continue;
		CHECK(pp->chase_w1 || p == &probe_load_chase, "%s: offers the chase forms", p->name);
		CHECK(pp->indexed && pp->overlap, "%s: offers the throughput forms", p->name);
		for (size_t f = 0; f < ARRAY_SIZE(fns); f++) {
			struct probe_ctx ctx = { .mode = f < 2 || f == 4 ? MODE_LATENCY : MODE_THROUGHPUT };

			if (!fns[f])
				continue;
			if (runner_ctx_init(p, &ctx) < 0) {
				CHECK(0, "%s: context", p->name);
				continue;
			}
			b.cursor = b.base;
			b.pos = 0;
			pattern_ctx_attach(&ctx, &b);
			ctx.mix_mask = pattern_mix_mask(1, 2);
			fns[f](&ctx, 3);	/* 192 steps: one lap and a half */
			nk++;
			if (f < 2)
				CHECK(ctx.pat_cursor == b.base + ((size_t)b.idx[192 % 128] << 6),
				      "%s kernel %zu: the chase is at step 192 of the order", p->name, f);
			if (f == 2 || f == 3)
				CHECK(ctx.pat_pos == 192 % 128, "%s kernel %zu: index walk at 64 (%zu)",
				      p->name, f, ctx.pat_pos);
			CHECK(ring_length(&b) == 128, "%s kernel %zu: chain intact", p->name, f);
			/* a pointer-word op may leave low bits in the links: the
			 * unmasked walks (bare chase, word 1) need them cleaned */
			if (f == 0 && p != &probe_load_chase) {
				pattern_buf_clean(&b);
				CHECK(links_clean(&b), "%s: links clean after pattern_buf_clean", p->name);
			} else if (f < 4) {
				CHECK(links_clean(&b), "%s kernel %zu leaves the links as they were",
				      p->name, f);
			}
			free(ctx.mem);
		}
	}
	CHECK(nk >= 100, "%zu pattern kernels ran", nk);

	/* what the ops did: inc on word 1 of every line once per lap (indexed),
	 * and 64 increments per iteration of the mix kernel, whatever the mask */
	{
		const struct probe_pattern *pp = probe_atomic_inc.patterns;
		struct probe_ctx ctx = { .mode = MODE_THROUGHPUT };
		bool all = true;

		pattern_buf_destroy(&b);
		if (pattern_buf_create(&b, 128 * CACHE_LINE_BYTES, 64, 1, NULL, -1) < 0)
			return;
		if (runner_ctx_init(&probe_atomic_inc, &ctx) < 0)
			return;
		pattern_ctx_attach(&ctx, &b);
		pp->indexed(&ctx, 4);	/* 256 entries: two laps */
		for (size_t k = 0; k < b.nlines; k++)
			all &= ((uint64_t *)(b.base + k * CACHE_LINE_BYTES))[1] == 2;
		CHECK(all, "atomic_inc indexed: word 1 of every line incremented once per lap");
		ctx.mix_mask = pattern_mix_mask(1, 4);
		memset(ctx.mem, 0, 8);
		pp->mix[MODE_LATENCY](&ctx, 5);
		CHECK(*(uint64_t *)ctx.mem == 5 * UNROLL, "mix=1/4 of atomic_inc/local_inc: 320 increments (%llu)",
		      (unsigned long long)*(uint64_t *)ctx.mem);
		free(ctx.mem);
	}
	pattern_buf_destroy(&b);
}

/* The lock-prefix-only controls (docs/patterns.md): the same instruction,
 * width and operand with and without `lock`, each pair in the default run
 * and under every buffer pattern, both forms where the other pairs have
 * them, so the lock's own cost is measured beside each kernel pair's. */
static void test_controls(void)
{
	static const struct {
		const struct probe *locked, *plain;
		bool ptr;	/* the op may run on the pointer word */
	} ctl[] = {
		{ &probe_set_bit, &probe___or_byte, true },
		{ &probe_set_bit_var, &probe___set_bit_var, true },
		{ &probe_cmpxchg, &probe_cmpxchg_local, true },
		{ &probe_atomic_inc, &probe_local_inc, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ctl); i++) {
		const struct probe *a = ctl[i].locked, *n = ctl[i].plain;
		const char *ai = a->insn;

		CHECK(a->in_default && n->in_default, "%s/%s: in the default run", a->name, n->name);
		CHECK(a->patterns && n->patterns, "%s/%s: pattern kernels", a->name, n->name);
		if (!a->patterns || !n->patterns)
			continue;
		CHECK(a->patterns->chase_w1 && n->patterns->chase_w1 && a->patterns->indexed &&
		      n->patterns->indexed, "%s/%s: the walk and its independent form", a->name, n->name);
		CHECK(!a->patterns->chase == !ctl[i].ptr && !n->patterns->chase == !ctl[i].ptr,
		      "%s/%s: the +ptr form %s", a->name, n->name, ctl[i].ptr ? "on both" : "on neither");
		/* x86: the plain insn is the locked one without its prefix */
		if (!strncmp(ai, "lock ", 5))
			CHECK(!strncmp(n->insn, ai + 5, strlen(ai + 5)), "%s is %s without lock ('%s')",
			      n->name, a->name, n->insn);
	}
}

int main(void)
{
	log_quiet = 1;
	arch_init();
	test_walk_order();
	test_footprints();
	test_check();
	test_parse();
	test_mix_mask();
	test_kernels();
	test_controls();
	return test_done("pattern");
}
