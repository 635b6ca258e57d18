/* SPDX-License-Identifier: MIT */
/* test-repro-models.c - the arithmetic and the access orders of three
 * reproductions, on synthetic inputs (no timing thresholds):
 *  - 2016 concurrent slab: per-phase averages exclude the barrier waits
 *    (a thread that finishes early waits for the slow one; the old
 *    arithmetic, end of alloc = start of free, counted that wait as alloc);
 *    the node-lock acquisitions of "before" (the previous patch applied)
 *    and of "after" (the seed's lockless check) on one thread's sequence;
 *  - 2004 buddy bitmap: the cold cases' walk is a single random cycle over
 *    every pair of lines, with no sequential or constant-stride runs a
 *    prefetcher could follow, over a buffer far larger than the L2, and the
 *    buffer size rule refuses sizes that would hit;
 *  - 2015 bulk free: every algorithm hands out distinct objects and takes
 *    them all back; the posted bulk free takes the slow path (and so the
 *    IRQ toggles around it) once per object when the objects come from
 *    different slabs, never when they come from the CPU slab; detached
 *    freelists take it once per slab.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "harness.h"
#include "repro/buddy-bitmap-2004.h"
#include "repro/slab-concurrent.h"
#include "repro/slub-bulk-free.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

/* Two threads of 10 ops: thread 0 allocates in 100 ticks and waits 900 at
 * the barrier for thread 1 (1000 ticks); then thread 0 frees in 200 and
 * thread 1 in 400. Per op: alloc (10 + 100) / 2 = 55, free (20 + 40) / 2 = 30.
 * The old arithmetic gave alloc (100 + 900 + 1000) / 20 = 100. */
static void test_conc_average(void)
{
	struct conc_stamps st[2] = {
		{ .alloc_start = 1000, .alloc_end = 1100, .free_start = 2005, .free_end = 2205 },
		{ .alloc_start = 1003, .alloc_end = 2003, .free_start = 2004, .free_end = 2404 },
	};
	struct conc_stamps bad = { .alloc_start = 10, .alloc_end = 5, .free_start = 20, .free_end = 30 };
	double a = -1, f = -1;

	CHECK(conc_average(st, 2, 10, &a, &f) == 0, "two threads average");
	CHECK(near(a, 55.0), "alloc excludes the barrier wait: %.3f ticks/op, expected 55", a);
	CHECK(near(f, 30.0), "free excludes the barrier wait: %.3f ticks/op, expected 30", f);
	CHECK(!near(a, 100.0), "not the old arithmetic (alloc up to the other barrier): %.3f", a);
	CHECK(conc_average(st, 1, 10, &a, &f) == 0 && near(a, 10.0) && near(f, 20.0),
	      "one thread: %.3f/%.3f, expected 10/20", a, f);
	CHECK(conc_average(st, 2, 0, &a, &f) == -EINVAL, "no ops refused");
	CHECK(conc_average(st, 0, 10, &a, &f) == -EINVAL, "no thread refused");
	CHECK(conc_average(&bad, 1, 10, &a, &f) == -ERANGE, "stamps out of order refused");
	/* alloc: 1003..1100 of the longest (1000 ticks) together; free: 2005..2205 of 400 */
	CHECK(near(conc_overlap(st, 2, false), 97.0 / 1000), "alloc overlap %.4f, expected 0.097",
	      conc_overlap(st, 2, false));
	CHECK(near(conc_overlap(st, 2, true), 200.0 / 400), "free overlap %.4f, expected 0.5",
	      conc_overlap(st, 2, true));
	{
		struct conc_stamps apart[2] = {
			{ .alloc_start = 0, .alloc_end = 10, .free_start = 30, .free_end = 40 },
			{ .alloc_start = 10, .alloc_end = 20, .free_start = 40, .free_end = 50 },
		};

		CHECK(conc_overlap(apart, 2, false) == 0 && conc_overlap(apart, 2, true) == 0,
		      "threads one after the other do not overlap");
		CHECK(near(conc_overlap(apart, 1, false), 1.0), "one thread overlaps itself");
	}
}

/* One thread's deterministic sequence on a new cache of variant v: allocate
 * k / 50 and free them (they end in the array and shared caches while no
 * slab has a free object), allocate k, free them in order, allocate k, free
 * them in reverse, allocate k / 2. The objects handed out, as offsets from
 * the first one, go to off[] (k / 50 + 2.5k entries); st receives the
 * thread's counts. 0, or -1. */
static int aslab_sequence(enum aslab_variant v, size_t size, size_t k, ptrdiff_t *off,
			  struct aslab_stats *st)
{
	struct aslab_cache *c;
	void **obj = malloc(k * sizeof(void *));
	char *base = NULL;
	size_t m = 0;
	int ret = 0;

	if (!obj || aslab_create(&c, size, 1, k, v) < 0) {
		free(obj);
		return -1;
	}
	for (int round = 0; round < 4; round++) {
		size_t want = round == 0 ? k / 50 : round == 3 ? k / 2 : k;

		for (size_t i = 0; i < want; i++) {
			obj[i] = aslab_alloc(c, 0);
			if (!obj[i])
				ret = -1;
			base = base ? base : obj[i];
			off[m++] = (char *)obj[i] - base;
		}
		for (size_t i = 0; round < 3 && i < want; i++)
			aslab_free(c, 0, obj[round == 2 ? want - 1 - i : i]);
	}
	aslab_stats(c, 0, st);
	aslab_destroy(c);
	free(obj);
	return ret;
}

/* The post's "before" is the previous patch ("refill cpu cache through a
 * new slab without holding a node lock"): one node-lock acquisition per
 * refill, one more per grow (the new slab fills the array cache without the
 * lock, then is attached under it), one per flush. The model that predated
 * that patch attached the slab under the lock and retook it to take objects:
 * two more per grow, and this test fails on it. The seed's patch changes
 * that alone: the same objects in the same order, one acquisition fewer per
 * grow (one thread: every grow follows an empty node). */
static void test_aslab_locks(size_t size)
{
	enum { K = 3000, M = K / 50 + K * 5 / 2 };
	static ptrdiff_t off[2][M];
	struct aslab_stats s[2];
	const struct aslab_stats *b = &s[0], *a = &s[1];

	CHECK(aslab_sequence(ASLAB_LOCKED, size, K, off[0], &s[0]) == 0 &&
	      aslab_sequence(ASLAB_LOCKLESS, size, K, off[1], &s[1]) == 0, "size %zu: sequences ran", size);
	CHECK(b->grows > 0 && b->refills > b->grows && b->flushes > 0,
	      "size %zu: the sequence grows (%llu), refills without growing (%llu refills) and flushes "
	      "(%llu)", size, (unsigned long long)b->grows, (unsigned long long)b->refills,
	      (unsigned long long)b->flushes);
	CHECK(b->locks == b->refills + b->grows + b->flushes,
	      "size %zu: before takes the node lock once per refill, once more per grow, once per flush: "
	      "%llu, expected %llu (%llu refills, %llu grows, %llu flushes)", size,
	      (unsigned long long)b->locks, (unsigned long long)(b->refills + b->grows + b->flushes),
	      (unsigned long long)b->refills, (unsigned long long)b->grows,
	      (unsigned long long)b->flushes);
	CHECK(a->locks == a->refills + a->flushes,
	      "size %zu: after skips the lock before each grow: %llu, expected %llu", size,
	      (unsigned long long)a->locks, (unsigned long long)(a->refills + a->flushes));
	CHECK(a->refills == b->refills && a->grows == b->grows && a->flushes == b->flushes &&
	      b->locks - a->locks == b->grows,
	      "size %zu: after differs from before by one acquisition per grow alone", size);
	CHECK(!memcmp(off[0], off[1], sizeof(off[0])), "size %zu: both hand out the same objects in "
	      "the same order", size);
	CHECK(a->contended == 0 && b->contended == 0 && a->wait_ticks == 0 && b->wait_ticks == 0,
	      "size %zu: one thread never finds the lock taken nor waits", size);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* 8 MiB in 64-byte lines: 65536 pairs of lines. */
static void test_cold_walk(void)
{
	const size_t line = 64, bytes = 8u << 20, l2 = 1u << 20;
	struct buddy_cold c;
	size_t seq = 0, same_stride = 0, run = 0, longest = 0;
	long *delta;
	char *seen;

	if (buddy_cold_create(&c, bytes, line, 2048, 20040827) < 0) {
		CHECK(0, "cold walk of 8 MiB created");
		return;
	}
	CHECK(c.npairs == bytes / (2 * line), "%zu pairs, expected %zu", c.npairs, bytes / (2 * line));
	CHECK(c.bytes > l2, "buffer %zu bytes exceeds the L2 %zu", c.bytes, l2);
	CHECK(buddy_cold_ring_length(&c) == c.npairs, "the chase links form one cycle over every pair "
	      "(ring %zu of %zu)", buddy_cold_ring_length(&c), c.npairs);
	seen = calloc(c.npairs, 1);
	delta = malloc(c.npairs * sizeof(long));
	for (size_t k = 0; k < c.npairs; k++) {
		long d = (long)c.order[(k + 1) % c.npairs] - (long)c.order[k];

		if (c.order[k] < c.npairs)
			seen[c.order[k]]++;
		delta[k] = d;
		if (d >= -2 && d <= 2)
			seq++;
		if (k && d == delta[k - 1]) {
			same_stride++;
			run++;
			longest = run > longest ? run : longest;
		} else {
			run = 0;
		}
	}
	{
		size_t once = 0;

		for (size_t k = 0; k < c.npairs; k++)
			once += seen[k] == 1;
		CHECK(once == c.npairs, "the order visits every pair once (%zu of %zu)", once, c.npairs);
	}
	/* a uniform random cycle: P(|d| <= 2) ~ 4/n per step, P(same d) ~ 1/n */
	CHECK(seq < c.npairs / 1000, "%zu of %zu steps go to a neighbouring pair", seq, c.npairs);
	CHECK(same_stride < c.npairs / 1000, "%zu of %zu steps repeat the previous stride", same_stride,
	      c.npairs);
	CHECK(longest < 3, "longest run of one stride: %zu steps", longest);
	qsort(delta, c.npairs, sizeof(long), cmp_long);
	{
		size_t most = 0, cur = 1;

		for (size_t k = 1; k < c.npairs; k++) {
			cur = delta[k] == delta[k - 1] ? cur + 1 : 1;
			most = cur > most ? cur : most;
		}
		CHECK(most < 16, "no stride dominates: the most common one occurs %zu times", most);
	}
	/* the tail repeats the start: a walk of 2048 never leaves the array */
	CHECK(!memcmp(c.order + c.npairs, c.order, 2048 * sizeof(uint32_t)), "tail repeats the start");
	free(seen);
	free(delta);
	buddy_cold_destroy(&c);
}

static void test_cold_bytes(void)
{
	size_t b = 1;

	CHECK(buddy_cold_bytes(0, 1u << 20, 0, &b) == 0 && b == BUDDY_COLD_DEFAULT,
	      "default %zu", b);
	CHECK(BUDDY_COLD_DEFAULT >= 64 * (1u << 20), "the default is 64 times a 1 MiB L2 or more");
	CHECK(buddy_cold_bytes(4u << 20, 1u << 20, 0, &b) == -EINVAL && b == 0,
	      "4 MiB refused with a 1 MiB L2");
	CHECK(buddy_cold_bytes(1u << 20, 0, 0, &b) == -EINVAL, "1 MiB refused, L2 unknown");
	CHECK(buddy_cold_bytes(256u << 20, 1u << 20, 256u << 20, &b) == -ENOMEM,
	      "more than half the available memory refused");
	CHECK(buddy_cold_bytes(64u << 20, 2u << 20, 1ull << 34, &b) == 0 && b == 64u << 20,
	      "64 MiB with a 2 MiB L2");
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static bool distinct(void **v, size_t n)
{
	void **c = malloc(n * sizeof(void *));
	bool ok = true;

	memcpy(c, v, n * sizeof(void *));
	qsort(c, n, sizeof(void *), cmp_ptr);
	for (size_t i = 0; i < n && ok; i++)
		ok = c[i] && (i == 0 || c[i] != c[i - 1]);
	free(c);
	return ok;
}

static void test_bulk_roundtrip(enum bulk_algo a)
{
	struct bulk_cache *c;
	void *p[250];

	if (bulk_cache_create(&c, 256, 4096) < 0) {
		CHECK(0, "bulk cache");
		return;
	}
	for (size_t n = 1; n <= 250; n += 37) {
		CHECK(bulk_alloc(c, a, n, p) == 0, "%s: alloc %zu", bulk_algo_names[a], n);
		CHECK(distinct(p, n), "%s: %zu distinct objects", bulk_algo_names[a], n);
		for (size_t i = 0; i < n; i++)
			memset(p[i], 0xa5, 256);	/* the objects are the caller's */
		bulk_free(c, a, n, p);
		CHECK(bulk_cache_free_objects(c) == c->s.nslabs * c->s.objs,
		      "%s: all %zu objects back after bulk %zu (%zu free)", bulk_algo_names[a],
		      c->s.nslabs * c->s.objs, n, bulk_cache_free_objects(c));
	}
	bulk_cache_destroy(c);
}

/* 40 full slabs; free one object of each of 32 slabs other than the CPU
 * slab, then objects of the CPU slab only. */
static void test_bulk_slow_paths(void)
{
	struct bulk_cache *c;
	struct bulk_stats s0, s1;
	unsigned objs;
	void **pool, *p[64];
	size_t n = 0, cpu_slab;

	if (bulk_cache_create(&c, 256, 8192) < 0) {
		CHECK(0, "bulk cache");
		return;
	}
	objs = c->s.objs;
	pool = malloc(40 * objs * sizeof(void *));
	CHECK(bulk_alloc(c, BULK_FALLBACK, 40 * objs, pool) == 0, "fill 40 slabs");
	cpu_slab = slab_index(&c->s, pool[40 * objs - 1]);	/* the last slab taken */
	for (size_t s = 0; s < 40 && n < 32; s++)
		if (s != cpu_slab && slab_index(&c->s, pool[s * objs]) != cpu_slab)
			p[n++] = pool[s * objs];
	s0 = c->st;
	bulk_free(c, BULK_POSTED, n, p);
	s1 = c->st;
	CHECK(s1.free_slow - s0.free_slow == n, "posted, %zu objects of %zu slabs: %llu slow-path "
	      "frees, expected one per object", n, n, (unsigned long long)(s1.free_slow - s0.free_slow));
	CHECK(bulk_alloc(c, BULK_FALLBACK, n, p) == 0, "take them back");
	{
		size_t other = 0;

		/* taking them back made one of their slabs the CPU slab */
		for (size_t i = 0; i < n; i++)
			other += (int64_t)slab_index(&c->s, p[i]) != bulk_cpu_slab(c);
		CHECK(other + 1 >= n && other < n, "%zu of %zu in the CPU slab", n - other, n);
		s0 = c->st;
		bulk_free(c, BULK_DETACHED, n, p);
		s1 = c->st;
		CHECK(s1.free_slow - s0.free_slow == other, "detached, %zu slabs: %llu slow-path frees, "
		      "expected one per slab but the CPU's (%zu)", n,
		      (unsigned long long)(s1.free_slow - s0.free_slow), other);
	}
	CHECK(bulk_alloc(c, BULK_FALLBACK, n, p) == 0, "take them back again");
	/* objects of one slab, not the CPU's: one group */
	{
		size_t s = 0, k = 0;

		while ((int64_t)slab_index(&c->s, pool[s * objs]) == bulk_cpu_slab(c))
			s++;
		for (k = 0; k < objs && k < 8; k++)
			p[k] = pool[s * objs + k];
		s0 = c->st;
		bulk_free(c, BULK_DETACHED, k, p);
		s1 = c->st;
		CHECK(s1.free_slow - s0.free_slow == 1, "detached, %zu objects of one slab: %llu "
		      "slow-path frees, expected 1", k, (unsigned long long)(s1.free_slow - s0.free_slow));
	}
	/* a fresh CPU slab: bulk-allocated objects all come from it */
	{
		struct bulk_cache *d;

		CHECK(bulk_cache_create(&d, 256, 1024) == 0, "second cache");
		CHECK(bulk_alloc(d, BULK_FALLBACK, 4, p) == 0, "4 objects of the first slab");
		s0 = d->st;
		bulk_free(d, BULK_POSTED, 4, p);
		s1 = d->st;
		CHECK(s1.free_slow == s0.free_slow, "posted, objects of the CPU slab: no slow path (%llu)",
		      (unsigned long long)(s1.free_slow - s0.free_slow));
		bulk_cache_destroy(d);
	}
	free(pool);
	bulk_cache_destroy(c);
}

int main(void)
{
	log_quiet = 1;
	test_conc_average();
	test_aslab_locks(64);
	test_aslab_locks(512);
	test_aslab_locks(4096);
	test_cold_walk();
	test_cold_bytes();
	for (int a = 0; a < BULK__COUNT; a++)
		test_bulk_roundtrip((enum bulk_algo)a);
	test_bulk_slow_paths();
	return test_done("repro-models");
}
