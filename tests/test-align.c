/* SPDX-License-Identifier: MIT */
/* test-align.c - the code-alignment experiment without timing: every copy
 * of a placed loop sits where its placement says (address mod 4096 and mod
 * 64, inside one page or across a page end), the copies are the same bytes,
 * the atomic loops hold their lock prefixes and the plain ones none, the
 * checker refuses a table that lies, each copy runs and does its op; and
 * the spread / noise / verdict arithmetic on synthetic figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "harness.h"
#include "repro-align.h"

static void test_placements(const struct align_probe *p)
{
	const struct align_copy *c0 = &p->copy[0];
	size_t len0 = (size_t)(c0->end - c0->loop);

	CHECK(align_check_probe(p) == 0, "%s: the checker refuses the real table\n", p->name);
	CHECK(len0 > 27 && len0 < 4096 - 64, "%s: copy of %zu bytes\n", p->name, len0);
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		const struct align_copy *c = &p->copy[i];
		uintptr_t a = (uintptr_t)c->loop, e = (uintptr_t)c->end, t = (uintptr_t)c->tail;

		CHECK(c->off == align_offsets[i], "%s: copy %zu says %u\n", p->name, i, c->off);
		CHECK(a % 4096 == align_offsets[i], "%s: copy %zu at %lu in its page, not %u\n",
		      p->name, i, (unsigned long)(a % 4096), align_offsets[i]);
		CHECK(a % 64 == align_offsets[i] % 64, "%s: copy %zu at %lu in its line\n", p->name, i,
		      (unsigned long)(a % 64));
		if (align_is_page(i))
			CHECK(a / 4096 + 1 == (t - 1) / 4096, "%s: +%u: the loop does not cross one "
			      "page end\n", p->name, c->off);
		else
			CHECK(a / 4096 == (e - 1) / 4096, "%s: +%u leaves its page\n", p->name, c->off);
		CHECK(a < t && t < (uintptr_t)c->fn && t - a >= 27, "%s: +%u: tail at +%lu\n", p->name,
		      c->off, (unsigned long)(t - a));
		CHECK((size_t)(e - a) == len0 && !memcmp(c->loop, c0->loop, len0),
		      "%s: copy +%u is not the bytes of copy +%u\n", p->name, c->off, c0->off);
		CHECK((uintptr_t)c->fn > a && (uintptr_t)c->fn < e, "%s: +%u entry outside\n", p->name,
		      c->off);
	}
}

/* The atomic probes hold their locked ops in the timed loop (64, or 4 in an
 * inner loop of 16 iterations); the plain ones hold none. A locked op here
 * is the lock prefix 0xf0 before `orb $imm8` (0x80) or `cmpxchgq`
 * (0x48 0x0f 0xb1): a bare 0xf0 byte can be a jump displacement. */
static void test_lock_prefixes(const struct align_probe *p)
{
	const struct align_copy *c = &p->copy[0];
	bool atomic = !strncmp(p->name, "lock-", 5), inner = strstr(p->name, "-loop") != NULL;
	size_t n = 0;

	for (const unsigned char *b = c->loop; b + 4 <= c->tail; b++)
		n += b[0] == 0xf0 && (b[1] == 0x80 || (b[1] == 0x48 && b[2] == 0x0f && b[3] == 0xb1));
	CHECK(n == (atomic ? (inner ? 4u : 64u) : 0u), "%s: %zu lock prefixes in the loop\n",
	      p->name, n);
}

/* The checker must be able to fail: a copy pointing at another placement,
 * a shortened copy, a copy whose bytes differ. */
static void test_checker_refuses(const struct align_probe *p)
{
	struct align_probe bad;
	unsigned char *fake;
	size_t len = (size_t)(p->copy[0].end - p->copy[0].loop);

	bad = *p;
	bad.copy[3].loop = p->copy[4].loop;
	CHECK(align_check_probe(&bad) == -EIO, "%s: a copy at the wrong offset passed\n", p->name);
	bad = *p;
	bad.copy[5].end = p->copy[5].end - 1;
	CHECK(align_check_probe(&bad) == -EIO, "%s: a shorter copy passed\n", p->name);
	fake = aligned_alloc(4096, 8192);
	if (!fake)
		return;
	/* at the first page offset as it should be, but a loop too short to
	 * reach the next page */
	bad = *p;
	bad.copy[ALIGN_NLINE].loop = fake + align_offsets[ALIGN_NLINE];
	bad.copy[ALIGN_NLINE].tail = fake + align_offsets[ALIGN_NLINE] + 8;
	bad.copy[ALIGN_NLINE].fn = (probe_kernel_fn)(void *)(fake + align_offsets[ALIGN_NLINE] + 12);
	bad.copy[ALIGN_NLINE].end = fake + align_offsets[ALIGN_NLINE] + 40;
	CHECK(align_check_probe(&bad) == -EIO, "%s: a page placement inside one page passed\n",
	      p->name);
	/* same place and length, one byte changed */
	memcpy(fake + 8, p->copy[2].loop, len);
	fake[8 + len / 2] ^= 1;
	bad = *p;
	bad.copy[2].loop = fake + 8;
	bad.copy[2].end = fake + 8 + len;
	bad.copy[2].tail = fake + 8 + (p->copy[2].tail - p->copy[2].loop);
	bad.copy[2].fn = (probe_kernel_fn)(void *)(fake + 8 + (p->copy[2].end - p->copy[2].loop) - 1);
	CHECK(align_check_probe(&bad) == -EIO, "%s: a copy with other bytes passed\n", p->name);
	free(fake);
}

/* Every copy runs; the memory ops leave their mark (orb/btsq set bit 1;
 * cmpxchg writes back the 0 it found). */
static void test_run(const struct align_probe *p)
{
	void *mem = aligned_alloc(4096, ALIGN_MEM_BYTES);
	struct probe_ctx ctx = { .mem = mem, .mem_size = ALIGN_MEM_BYTES };
	bool sets_bit = strstr(p->insn, "orb") || strstr(p->insn, "bts");

	if (!mem)
		return;
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		align_prepare(mem);
		p->copy[i].fn(&ctx, 3);
		p->copy[i].fn(&ctx, 0);
		if (sets_bit)
			CHECK(*(uint64_t *)mem == 2, "%s +%u: word 0 is %#lx after the op\n", p->name,
			      p->copy[i].off, (unsigned long)*(uint64_t *)mem);
		else
			CHECK(*(uint64_t *)mem == 0, "%s +%u: word 0 changed\n", p->name, p->copy[i].off);
	}
	free(mem);
}

static void test_prepare(void)
{
	char *mem = aligned_alloc(4096, ALIGN_MEM_BYTES), *q;
	bool seen[8] = { false };
	size_t steps = 0;

	if (!mem)
		return;
	memset(mem, 0x55, ALIGN_MEM_BYTES);
	align_prepare(mem);
	CHECK(*(uint64_t *)mem == 0 && mem[511] == 0, "hot words not zeroed\n");
	q = mem + 4096;
	do {
		size_t line = (size_t)(q - (mem + 4096)) / 64;

		CHECK(line < 8 && (q - mem) % 64 == 0, "chase left the ring at %p\n", (void *)q);
		if (line >= 8 || seen[line])
			break;
		seen[line] = true;
		q = *(char **)q;
		steps++;
	} while (q != mem + 4096);
	CHECK(steps == 8 && q == mem + 4096, "ring of %zu lines, expected 8\n", steps);
	free(mem);
}

static void test_twins(void)
{
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		size_t j = align_page_twin(i);

		CHECK(!align_is_page(j) && align_offsets[j] == align_offsets[i] % 64,
		      "twin of +%u is +%u\n", align_offsets[i], align_offsets[j]);
		CHECK(align_is_page(i) || j == i, "line placement +%u has twin %zu\n",
		      align_offsets[i], j);
	}
	for (size_t i = 0; i < ALIGN_NPLACE; i++)
		CHECK(align_offsets[i] % 4 == 0 && (align_is_page(i) ? align_offsets[i] >= 4096 - 24 :
				align_offsets[i] == 4 * i), "placement %zu is +%u\n", i, align_offsets[i]);
}

static void test_pass_order(void)
{
	size_t first[4];

	for (size_t k = 0; k < 4; k++) {
		bool seen[ALIGN_NPLACE] = { false };
		size_t nseen = 0;

		for (size_t n = 0; n < ALIGN_NPLACE; n++) {
			size_t i = align_pass_index(k, n);

			if (i < ALIGN_NPLACE && !seen[i]) {
				seen[i] = true;
				nseen++;
			}
		}
		CHECK(nseen == ALIGN_NPLACE, "pass %zu visits %zu placements\n", k, nseen);
		first[k] = align_pass_index(k, 0);
	}
	CHECK(first[0] != first[1] && first[1] != first[2] && first[0] != first[2],
	      "passes start at %zu %zu %zu\n", first[0], first[1], first[2]);
	CHECK(align_pass_index(1, 1) + 1 == align_pass_index(1, 0) &&
	      align_pass_index(0, 1) == align_pass_index(0, 0) + 1, "directions do not alternate\n");
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

static void test_assess(void)
{
	double fig[4];
	struct align_assessment a;
	/* 4 placements x 3 passes; the last costs 5% more in every pass */
	const double shows[] = {
		10.01, 10.05, 9.98,
		10.1, 10.0, 10.02,
		10.0, 10.0, 10.0,
		10.5, 10.52, 10.49,
	};
	/* a 2% spread with tiny noise: under the 3% minimum floor */
	const double small[] = {
		10.0, 10.0, 10.0,
		10.2, 10.2, 10.2,
		10.1, 10.1, 10.1,
		10.0, 10.01, 10.0,
	};
	/* one placement moves 10% between passes; another is 8% slower than
	 * the fastest in every pass: the typical noise is what sets the floor */
	const double noisy[] = {
		10.0, 10.0, 10.0,
		10.8, 10.8, 10.8,
		10.0, 11.0, 10.5,
		10.2, 10.2, 10.2,
	};
	/* two disturbed passes at one placement: its median is 20% up, but the
	 * third pass does not repeat it */
	const double disturbed[] = {
		10.0, 10.0, 10.0,
		10.1, 10.0, 10.1,
		10.0, 12.0, 12.0,
		10.0, 10.1, 10.0,
	};
	/* the figure is the median of the passes, not the mean or the min */
	const double med[] = {
		10.0, 20.0, 10.0,
		12.0, 12.0, 11.0,
	};
	const double zero[] = { 10.0, 0.0, 10.0, 10.0 };
	const double nan_v[] = { 10.0, NAN, 10.0, 10.0 };

	CHECK(align_assess(shows, 4, 3, fig, &a) == 0, "shows: refused\n");
	CHECK(a.imin == 2 && a.imax == 3, "shows: best %zu worst %zu\n", a.imin, a.imax);
	CHECK(NEAR(fig[3], 10.5) && NEAR(fig[0], 10.01) && NEAR(fig[1], 10.02), "shows: figures\n");
	CHECK(NEAR(a.spread, 0.05), "shows: spread %g\n", a.spread);
	CHECK(NEAR(a.noise, ((10.05 / 9.98 - 1) + (10.52 / 10.49 - 1)) / 2), "shows: noise %g\n",
	      a.noise);
	CHECK(NEAR(a.noise_max, 10.1 / 10.0 - 1), "shows: largest noise %g\n", a.noise_max);
	CHECK(NEAR(a.floor, NOISE_FLOOR_MIN), "shows: floor %g\n", a.floor);
	CHECK(a.agree == 3 && a.kworst == 2 && NEAR(a.worst_a, 10.49) && NEAR(a.worst_b, 10.0),
	      "shows: %zu passes agree, least favourable %zu\n", a.agree, a.kworst);
	CHECK(a.verdict == VERDICT_SLOWER && a.shows, "shows: verdict %d\n", a.verdict);

	CHECK(align_assess(small, 4, 3, fig, &a) == 0, "small: refused\n");
	CHECK(NEAR(a.spread, 0.02) && a.imin == 0 && a.imax == 1, "small: spread %g\n", a.spread);
	CHECK(a.agree == 0 && a.verdict == VERDICT_SAME && !a.shows,
	      "small: 2%% shown above a 3%% floor\n");

	CHECK(align_assess(noisy, 4, 3, fig, &a) == 0, "noisy: refused\n");
	CHECK(NEAR(a.spread, 0.08) && NEAR(a.noise, 0) && NEAR(a.noise_max, 0.1) &&
	      NEAR(a.floor, NOISE_FLOOR_MIN), "noisy: spread %g noise %g/%g floor %g\n", a.spread,
	      a.noise, a.noise_max, a.floor);
	CHECK(a.imax == 1 && a.imin == 0 && a.agree == 3 && a.shows, "noisy: 8%% in every pass "
	      "not shown\n");

	CHECK(align_assess(disturbed, 4, 3, fig, &a) == 0, "disturbed: refused\n");
	CHECK(a.imax == 2 && NEAR(a.spread, 0.2) && a.agree == 2 && a.kworst == 0,
	      "disturbed: worst %zu, spread %g, %zu passes agree\n", a.imax, a.spread, a.agree);
	CHECK(a.verdict == VERDICT_SAME && !a.shows, "disturbed: two slow passes made a verdict\n");

	CHECK(align_assess(med, 2, 3, fig, &a) == 0, "median: refused\n");
	CHECK(NEAR(fig[0], 10.0) && NEAR(fig[1], 12.0), "median: %g %g\n", fig[0], fig[1]);
	CHECK(NEAR(a.noise, (1.0 + 1.0 / 11) / 2) && NEAR(a.spread, 0.2) && !a.shows,
	      "median: noise %g\n", a.noise);

	CHECK(align_assess(shows, 4, 1, fig, &a) == -EINVAL, "one pass accepted\n");
	CHECK(align_assess(shows, 1, 3, fig, &a) == -EINVAL, "one placement accepted\n");
	CHECK(align_assess(zero, 2, 2, fig, &a) == -EINVAL, "a zero figure accepted\n");
	CHECK(align_assess(nan_v, 2, 2, fig, &a) == -EINVAL, "a NaN figure accepted\n");
}

int main(void)
{
	log_quiet = 1;
	test_assess();
	test_twins();
	test_pass_order();
	test_prepare();
	if (align_nprobes == 0)
		printf("align: no placed loops on this architecture (placement checks skipped)\n");
	CHECK(ARCH_HAS_ALIGN_LOOPS ? align_nprobes == 11 : align_nprobes == 0, "%zu probes\n",
	      align_nprobes);
	for (size_t i = 0; i < align_nprobes; i++) {
		test_placements(&align_probes[i]);
		test_checker_refuses(&align_probes[i]);
		test_lock_prefixes(&align_probes[i]);
		test_run(&align_probes[i]);
		CHECK(align_probe_find(align_probes[i].name) == &align_probes[i], "find %s\n",
		      align_probes[i].name);
	}
	CHECK(align_probe_find("no-such-probe") == NULL, "found a probe that does not exist\n");
	return test_done("align");
}
