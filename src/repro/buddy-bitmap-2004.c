/* SPDX-License-Identifier: MIT */
/* repro/buddy-bitmap-2004.c - the 2004 buddy-bitmap "test-atomics" scoring:
 * legacy mode rebuilds the posted program (its loops NOT unrolled, as the
 * original's were not; legacy_header lists every deviation), modern mode
 * times the same cases for each instruction pair today's kernel emits
 * (docs/reproductions.md, section 1, says what each mode measures).
 *
 * The cold cases must miss, and a buffer walked in address order does not:
 * the prefetchers stream it (with clflush before each trial, the cold
 * atomic case cost what the hot one did). So modern mode walks pairs of
 * lines in a random single cycle (struct buddy_cold).
 */
#include "repro/buddy-bitmap-2004.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "common.h"
#include "pattern.h"

/* The posted notes; the measured rows print them. */
const char *const buddy_notes[BUDDY_CASES] = {
	"cache hit, no atomic", "cache hit, atomic", "cache hit, mixture", "cache miss, no atomic",
	"cache miss, atomic", "cache miss, mixture", "cache hit, dependency, noatomic",
	"cache hit, dependency, mixture",
};

/* The posted table, as posted (rdtsc ticks per loop of 2048 iterations). */
static const struct repro_row posted_rows[BUDDY_CASES] = {
	{ "score 0", { 64011 }, NULL },	  { "score 1", { 543011 }, NULL },
	{ "score 2", { 303901 }, NULL },  { "score 3", { 344261 }, NULL },
	{ "score 4", { 1131085 }, NULL }, { "score 5", { 593443 }, NULL },
	{ "score 6", { 118455 }, NULL },  { "score 7", { 416195 }, NULL },
};
static const struct repro_table posted_2004 = {
	.title = "2004 test-atomics scores (smaller is better)",
	.source = "Kamezawa Hiroyuki, linux-mm/lhms-devel, 27 Aug 2004, "
		  "\"[RFC] buddy allocator without bitmap [2/4]\"",
	.machine = "Intel Xeon MP 1.9 GHz (NetBurst), 512 KiB L2, 32-bit (per the program's own "
		   "message, <412EBD22.2090508@jp.fujitsu.com>), unpinned, nice -10",
	.unit = "rdtsc ticks per loop of 2048 iterations (= core cycles on that CPU)",
	.ncols = 1, .cols = { "per loop" }, .nrows = BUDDY_CASES, .rows = posted_rows,
};
#define POSTED(cs) (posted_rows[cs].v[0])
#define POSTED_MACHINE "Xeon MP 1.9 GHz, 2004"

volatile uint64_t buddy_cold_preps;

#define LEGACY_SIZE (512 * 1024)
#define LEGACY_LINE 128
#define LEGACY_ITERS (LEGACY_SIZE / (2 * LEGACY_LINE))

/* Keep a pointer's memory "used": the compiler must assume the asm reads
 * every byte it points to, so stores before it cannot be deleted. */
#define ESCAPE(p) asm volatile("" : : "r"(p) : "memory")

uint64_t buddy_cold_prep(unsigned char fill, void **keep)
{
	unsigned char *p = malloc(LEGACY_SIZE);
	uint64_t sum = 0;

	if (keep)
		*keep = p;
	if (!p)
		return 0;
	memset(p, fill, LEGACY_SIZE);
	ESCAPE(p);
	for (size_t i = 0; i < LEGACY_SIZE; i += LEGACY_LINE)
		sum += ((volatile unsigned char *)p)[i];
	if (!keep)
		free(p);
	buddy_cold_preps = buddy_cold_preps + 1;
	return sum;
}

static void hot_prep(char *buf, size_t size)
{
	memset(buf, 0, size);
	ESCAPE(buf);
}

/* ---- passes ---- */

/* Row labels of both modes (legacy: the first BUDDY_CASES). */
static const char *const labels[BUDDY_MODERN_CASES] = {
	"score 0", "score 1", "score 2", "score 3", "score 4", "score 5", "score 6", "score 7",
	"score 3d", "score 4d", "score 5d",
};

/* The first trial of pass p (p == passes: one past the last trial). */
static size_t pass_first(size_t p, size_t trials, size_t passes)
{
	return p * trials / passes;
}

size_t buddy_passes(size_t trials)
{
	return trials < BUDDY_PASSES ? trials : BUDDY_PASSES;
}

void buddy_pass_medians(const double *v, size_t trials, size_t passes, double *med)
{
	for (size_t p = 0; p < passes; p++) {
		size_t t0 = pass_first(p, trials, passes);

		med[p] = stats_median(v + t0, pass_first(p + 1, trials, passes) - t0);
	}
}

static double mean_of(const double *v, size_t from, size_t to)
{
	double sum = 0;

	for (size_t t = from; t < to; t++)
		sum += v[t];
	return to > from ? sum / (double)(to - from) : NAN;
}

int buddy_ratio_of_means_text(char *buf, size_t len, const char *name, const double *a,
			      const double *b, size_t trials, size_t passes, double posted)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t n = 0;

#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	PUT("%s %.2f (", name, mean_of(a, 0, trials) / mean_of(b, 0, trials));
	if (!isnan(posted))
		PUT("2004: %.2f; ", posted);
	if (passes < 2) {
		PUT("one pass: no spread)");
		return (int)n;
	}
	for (size_t p = 0; p < passes; p++) {
		size_t t0 = pass_first(p, trials, passes), t1 = pass_first(p + 1, trials, passes);
		double r = mean_of(a, t0, t1) / mean_of(b, t0, t1);

		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
	}
	PUT("%zu passes %.2f-%.2f)", passes, lo, hi);
#undef PUT
	return (int)n;
}

/* The cold cases of both modes (modern 8-10: 3-5 on the dependent walk). */
static const bool case_cold[BUDDY_MODERN_CASES] = { 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1 };
#if defined(ARCH_HAS_BIT32_IMM) && ARCH_HAS_BIT32_IMM && defined(ARCH_HAS_TIMER_RAW) && ARCH_HAS_TIMER_RAW

/* The 2004 loop bodies, one function so the disassembly shows them all. */
static __attribute__((noinline)) uint64_t legacy_case(int cs, char *buf)
{
	uint64_t t0 = 0, t1 = 0;
	size_t i;

#define LEGACY_LOOP(BODY)						\
	t0 = arch_timer_raw();						\
	for (i = 0; i < LEGACY_SIZE; i += 2 * LEGACY_LINE) {		\
		BODY;							\
	}								\
	t1 = arch_timer_raw();
	switch (cs) {
	case 0: LEGACY_LOOP(arch_bts32_imm_nl(buf, 1); arch_bts32_imm_nl(buf + LEGACY_LINE, 2)) break;
	case 1: LEGACY_LOOP(arch_bts32_imm(buf, 1); arch_bts32_imm(buf + LEGACY_LINE, 2)) break;
	case 2: LEGACY_LOOP(arch_bts32_imm_nl(buf, 1); arch_bts32_imm(buf + LEGACY_LINE, 2)) break;
	case 3: LEGACY_LOOP(arch_bts32_imm_nl(buf + i, 1); arch_bts32_imm_nl(buf + i + LEGACY_LINE, 2)) break;
	case 4: LEGACY_LOOP(arch_bts32_imm(buf + i, 1); arch_bts32_imm(buf + i + LEGACY_LINE, 2)) break;
	case 5: LEGACY_LOOP(arch_bts32_imm_nl(buf + i, 1); arch_bts32_imm(buf + i + LEGACY_LINE, 2)) break;
	case 6: LEGACY_LOOP(arch_bts32_imm_nl(buf + i, 1); arch_bts32_imm_nl(buf + i, 2)) break;
	case 7: LEGACY_LOOP(arch_bts32_imm_nl(buf + i, 1); arch_bts32_imm(buf + i, 2)) break;
	}
#undef LEGACY_LOOP
	return t1 - t0;
}

int buddy_legacy(unsigned trials, unsigned passes, long long mean[BUDDY_CASES], FILE *out,
		 uint64_t *cold_sum, double *ticks, double *share, struct repro_ctx *rc)
{
	char *buf = mmap(NULL, LEGACY_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long total[BUDDY_CASES] = { 0 };
	void *kept[BUDDY_COLD_KEEP_MAX];
	size_t nkept = 0;

	*cold_sum = 0;
	if (buf == MAP_FAILED) {
		pr_err("buddy-bitmap-2004: cannot map the %d KiB buffer", LEGACY_SIZE / 1024);
		return -ENOMEM;
	}
	for (unsigned p = 0; p < passes; p++) {
		size_t t0 = pass_first(p, trials, passes), t1 = pass_first(p + 1, trials, passes);
		long long sum[BUDDY_CASES];
		struct quiet_mark ps;
		double sh;

		do {
			json_t *figs;

			memset(sum, 0, sizeof(sum));
			quiet_start(&ps);
			for (size_t t = t0; t < t1; t++)
				for (int cs = 0; cs < BUDDY_CASES; cs++) {
					unsigned char fill = (unsigned char)(1 + (t * BUDDY_CASES + cs) % 127);
					uint64_t dt;

					if (!case_cold[cs])
						hot_prep(buf, LEGACY_SIZE);
					else
						*cold_sum += buddy_cold_prep(fill, nkept < BUDDY_COLD_KEEP_MAX ?
										   &kept[nkept++] : NULL);
					dt = legacy_case(cs, buf);
					sum[cs] += (long long)dt;
					if (ticks)
						ticks[(size_t)cs * trials + t] = (double)dt;
				}
			sh = quiet_share(&ps);
			if (share)
				share[p] = sh;
			if (!rc)
				break;
			/* a pass run again: its means, the scores' unit */
			figs = json_object();
			for (int cs = 0; cs < BUDDY_CASES; cs++)
				json_object_set_new(figs, labels[cs],
						    json_real((double)sum[cs] / (double)(t1 - t0)));
			if (!repro_pass_again(rc, &ps, sh, "legacy trials", p, figs))
				break;
		} while (1);
		for (int cs = 0; cs < BUDDY_CASES; cs++)
			total[cs] += sum[cs];
	}
	for (size_t k = 0; k < nkept; k++)
		free(kept[k]);
	munmap(buf, LEGACY_SIZE);
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		mean[cs] = trials ? total[cs] / (long long)trials : 0;
		if (out)
			fprintf(out, "score %d is %16lld note: %s\n", cs, mean[cs], buddy_notes[cs]);
	}
	return 0;
}
#else
int buddy_legacy(unsigned trials, unsigned passes, long long mean[BUDDY_CASES], FILE *out,
		 uint64_t *cold_sum, double *ticks, double *share, struct repro_ctx *rc)
{
	pr_err("buddy-bitmap-2004: legacy mode needs the 32-bit bts and a raw timer (x86 only)");
	return -ENOTSUP;
}
#endif

/* ---- the cold walk ---- */

int buddy_cold_bytes(size_t requested, size_t l2, uint64_t mem_available, size_t *bytes)
{
	size_t b = requested ? requested : BUDDY_COLD_DEFAULT;

	*bytes = 0;
	if (l2 && b < 8 * l2) {
		pr_err("buddy-bitmap-2004: cold_buffer: %zu bytes is less than 8 times the L2 (%zu KiB): "
		       "the cold cases would hit (expected at least %zu, e.g. 256M)", b, l2 >> 10, 8 * l2);
		return -EINVAL;
	}
	if (b < BUDDY_COLD_MIN) {
		pr_err("buddy-bitmap-2004: cold_buffer: %zu bytes is less than %lu MiB (expected e.g. 256M)",
		       b, BUDDY_COLD_MIN >> 20);
		return -EINVAL;
	}
	if (mem_available && b > mem_available / 2) {
		pr_err("buddy-bitmap-2004: cold_buffer: %zu MiB is more than half the available memory "
		       "(%llu MiB); set a smaller cold_buffer", b >> 20,
		       (unsigned long long)(mem_available >> 20));
		return -ENOMEM;
	}
	*bytes = b;
	return 0;
}

int buddy_cold_create(struct buddy_cold *c, size_t bytes, size_t line, size_t tail, uint64_t seed)
{
	size_t align = 2u << 20;

	memset(c, 0, sizeof(*c));
	c->pair = 2 * line;
	c->npairs = bytes / c->pair;
	if (line < 16 || c->npairs < 2 || c->npairs > UINT32_MAX || tail > c->npairs) {
		pr_err("buddy-bitmap-2004: cold walk of %zu bytes in %zu-byte lines: out of range "
		       "(expected at least two pairs of lines, at most 2^32)", bytes, line);
		return -EINVAL;
	}
	c->bytes = c->npairs * c->pair;
	c->map_len = c->bytes + align;
	c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		pr_err("buddy-bitmap-2004: cannot map the %zu MiB cold buffer", c->bytes >> 20);
		return -ENOMEM;
	}
	c->buf = (char *)(((uintptr_t)c->map + align - 1) & ~(uintptr_t)(align - 1));
	c->thp = madvise(c->buf, c->bytes, MADV_HUGEPAGE) == 0;
	/* touch every page with a non-zero value first: no shared zero page */
	memset(c->buf, 1, c->bytes);
	memset(c->buf, 0, c->bytes);
	c->order = malloc((c->npairs + tail) * sizeof(uint32_t));
	if (!c->order) {
		buddy_cold_destroy(c);
		return -ENOMEM;
	}
	pattern_walk_order(c->order, c->npairs, seed);
	/* the walk's start again after its end: a walk of up to `tail` pairs
	 * never wraps inside the timed loop */
	memcpy(c->order + c->npairs, c->order, tail * sizeof(uint32_t));
	/* chase links in word 1 of each pair's first line (the ops use word 0
	 * of both lines): order[k] -> order[k + 1], a single cycle */
	for (size_t k = 0; k < c->npairs; k++)
		*(char **)(c->buf + (size_t)c->order[k] * c->pair + BUDDY_LINK_OFF) =
			c->buf + (size_t)c->order[(k + 1) % c->npairs] * c->pair + BUDDY_LINK_OFF;
	c->cursor = c->buf + (size_t)c->order[c->npairs / 2] * c->pair + BUDDY_LINK_OFF;
	return 0;
}

void buddy_cold_destroy(struct buddy_cold *c)
{
	if (c->map)
		munmap(c->map, c->map_len);
	free(c->order);
	memset(c, 0, sizeof(*c));
}

size_t buddy_cold_ring_length(const struct buddy_cold *c)
{
	char *start = c->buf + BUDDY_LINK_OFF, *p = start;

	for (size_t n = 1; n <= c->npairs; n++) {
		p = *(char **)p;
		if (p < c->buf || p >= c->buf + c->bytes || (size_t)(p - c->buf) % c->pair != BUDDY_LINK_OFF)
			return 0;
		if (p == start)
			return n;
	}
	return 0;
}

/* A dependent chase of steps links (a multiple of 8) from *cursor, timed. */
static __attribute__((noinline)) uint64_t chase(char **cursor, size_t steps)
{
	char *p = *cursor;
	uint64_t t0, t1;

#define STEP(k) p = (char *)(uintptr_t)arch_load(p);
	t0 = arch_timer_start();
	for (size_t i = 0; i < steps; i += 8) {
		OPS8_(STEP, 0)
	}
	t1 = arch_timer_stop();
#undef STEP
	*cursor = p;
	return t1 - t0;
}

/* ---- modern mode ---- */

static const int modern_posted[BUDDY_MODERN_CASES] = { 0, 1, 2, 3, 4, 5, 6, 7, 3, 4, 5 };
static const char *const modern_notes[BUDDY_MODERN_CASES] = {
	"cache hit, no atomic", "cache hit, atomic", "cache hit, mixture",
	"cache miss, independent walk, no atomic", "cache miss, independent walk, atomic",
	"cache miss, independent walk, mixture", "cache hit, dependency, noatomic",
	"cache hit, dependency, mixture", "cache miss, dependent walk, no atomic",
	"cache miss, dependent walk, atomic", "cache miss, dependent walk, mixture",
};
/* The table's order: each dependent cold case after the independent ones. */
static const int modern_shown[BUDDY_MODERN_CASES] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 6, 7 };

/* The loops for one instruction pair: A(p, nr) atomic, N(p, nr) plain,
 * identical otherwise; 8 iterations (16 ops) per loop turn. hot: the buffer
 * of the hot cases; ord: the cold walk's order from its current position;
 * cold: its buffer; *cursor: the dependent walk's link (advanced). Serialized
 * timer around the loop. */
#define MODERN_CASES(V, A, N)								\
static __attribute__((noinline)) uint64_t modern_##V(int cs, char *hot, const uint32_t *ord, \
						     char *cold, char **cursor, size_t iters,	\
						     size_t line)				\
{											\
	uint64_t t0 = 0, t1 = 0;							\
	char *b2 = hot + line, *d_ = *cursor;						\
	size_t i, pair = 2 * line;							\
											\
	switch (cs) {									\
	case 0: MLOOP(B_SAME, N, N) break;						\
	case 1: MLOOP(B_SAME, A, A) break;						\
	case 2: MLOOP(B_SAME, N, A) break;						\
	case 3: MLOOP(B_COLD, N, N) break;						\
	case 4: MLOOP(B_COLD, A, A) break;						\
	case 5: MLOOP(B_COLD, N, A) break;						\
	case 6: MLOOP(B_WALK, N, N) break;						\
	case 7: MLOOP(B_WALK, N, A) break;						\
	case 8: MLOOP(B_DEP, N, N) break;						\
	case 9: MLOOP(B_DEP, A, A) break;						\
	case 10: MLOOP(B_DEP, N, A) break;						\
	}										\
	*cursor = d_;									\
	return t1 - t0;									\
}
/* cases 0-2: the same two words, one line apart, every iteration */
#define B_SAME(k, O1, O2) O1(hot, 1); O2(b2, 2);
/* cases 3-5: the first word of a pair of lines and the word one line
 * further, pairs in the cold walk's random order: the addresses are known
 * ahead, so the misses of successive pairs overlap */
#define B_COLD(k, O1, O2) { char *q_ = cold + (size_t)ord[i + (k)] * pair; O1(q_, 1); O2(q_ + line, 2); }
/* cases 8-10: the same pairs and ops, but each pair's address is the chase
 * link loaded at the previous pair (word 1 of its first line; the ops touch
 * word 0 of each line, so the load never waits on their stores), as buddy
 * merging goes from a page to its buddy to the parent: one miss after the
 * other */
#define B_DEP(k, O1, O2)								\
	{ char *q_ = d_ - BUDDY_LINK_OFF; O1(q_, 1); O2(q_ + line, 2);			\
	  d_ = (char *)(uintptr_t)arch_load(d_); }
/* cases 6-7: both ops on the same word, pairs of lines in address order */
#define B_WALK(k, O1, O2) { char *q_ = hot + (i + (k)) * pair; O1(q_, 1); O2(q_, 2); }
#define MLOOP(B, O1, O2)							\
	t0 = arch_timer_start();						\
	for (i = 0; i < iters; i += 8) {					\
		B(0, O1, O2) B(1, O1, O2) B(2, O1, O2) B(3, O1, O2)		\
		B(4, O1, O2) B(5, O1, O2) B(6, O1, O2) B(7, O1, O2)		\
	}									\
	t1 = arch_timer_stop();

#define OP_KERNEL_A(p, nr) arch_set_bit_imm(p, 1u << (nr))
#define OP_KERNEL_N(p, nr) arch___set_bit_imm(p, nr)
#define OP_VAR_A(p, nr) arch_set_bit_var(nr, p)
#define OP_VAR_N(p, nr) arch_set_bit_var_nl(nr, p)
#define OP_ORB_N(p, nr) arch_or_byte_nl(p, 1u << (nr))
#define OP_ORQ_A(p, nr) arch_or_word(p, 1ull << (nr))
#define OP_ORQ_N(p, nr) arch_or_word_nl(p, 1ull << (nr))
#if defined(ARCH_HAS_BIT32_IMM) && ARCH_HAS_BIT32_IMM
#define OP_2004_A(p, nr) arch_bts32_imm(p, nr)
#define OP_2004_N(p, nr) arch_bts32_imm_nl(p, nr)
#define NO_2004 NULL
#else
#define OP_2004_A OP_KERNEL_A
#define OP_2004_N OP_KERNEL_N
#define NO_2004 "no 32-bit bts with an immediate on this architecture"
#endif
#if ARCH_HAS_DS_PREFIX
#define OP_DS_A(p, nr) arch_set_bit_imm_ds(p, 1u << (nr))
#define NO_DS NULL
#else
#define OP_DS_A OP_KERNEL_N
#define NO_DS "no ds-prefixed (UP-patched) form on this architecture"
#endif

MODERN_CASES(2004, OP_2004_A, OP_2004_N)
MODERN_CASES(kernel, OP_KERNEL_A, OP_KERNEL_N)
MODERN_CASES(var, OP_VAR_A, OP_VAR_N)
MODERN_CASES(orb, OP_KERNEL_A, OP_ORB_N)
MODERN_CASES(orq, OP_ORQ_A, OP_ORQ_N)
MODERN_CASES(ds, OP_DS_A, OP_KERNEL_N)

struct buddy_variant {
	const char *name, *atomic, *plain, *what;
	const char *aname, *pname;	/* what the pair is called in conclusions */
	uint64_t (*loop)(int cs, char *hot, const uint32_t *ord, char *cold, char **cursor,
			 size_t iters, size_t line);
	const char *unavailable;	/* NULL, or why not on this architecture */
};

static const struct buddy_variant variants[] = {
	{ "2004", "lock btsl $nr,mem", "btsl $nr,mem", "the posted pair (i386 set_bit / __set_bit)",
	  "set_bit", "__set_bit", modern_2004, NO_2004 },
	{ "kernel", ARCH_INSN_SET_BIT_IMM, ARCH_INSN___SET_BIT_IMM,
	  "today's set_bit / __set_bit with a constant nr", "set_bit", "__set_bit", modern_kernel, NULL },
	{ "var", ARCH_INSN_SET_BIT_VAR, ARCH_INSN_SET_BIT_VAR_NL,
	  "set_bit / __set_bit with a variable nr", "set_bit", "__set_bit", modern_var, NULL },
	{ "orb", ARCH_INSN_SET_BIT_IMM, ARCH_INSN_OR_BYTE_NL, "set_bit against C *byte |= mask", "set_bit",
	  "C |= on a byte", modern_orb, NULL },
	{ "orq", ARCH_INSN_OR_WORD, ARCH_INSN_OR_WORD_NL, "C *word |= mask, locked and not", "lock orq",
	  "C |= on a word", modern_orq, NULL },
	{ "ds", ARCH_INSN_SET_BIT_IMM_DS, ARCH_INSN___SET_BIT_IMM,
	  "a uniprocessor kernel's patched set_bit / __set_bit", "UP-patched set_bit", "__set_bit",
	  modern_ds, NO_DS },
};
#define NVARIANTS ARRAY_SIZE(variants)

uint64_t buddy_modern_loop(size_t v, int cs, char *hot, struct buddy_cold *c, size_t iters,
			   size_t line)
{
	uint64_t ticks;

	if (v >= NVARIANTS || cs < 0 || cs >= BUDDY_MODERN_CASES)
		return 0;
	if (!case_cold[cs])
		hot_prep(hot, iters * 2 * line);
	ticks = variants[v].loop(cs, hot, c->order + c->pos, c->buf, &c->cursor, iters, line);
	if (cs >= 3 && cs <= 5)
		c->pos = (c->pos + iters) % c->npairs;
	return ticks;
}

/* Core cycles per step of `trials` chases of `steps` links
 * into v[]; returns their median. */
static double chase_cycles(struct buddy_cold *c, size_t steps, unsigned trials,
			   const struct calibration *cal, double *v)
{
	chase(&c->cursor, steps);	/* warm-up, not kept */
	for (unsigned t = 0; t < trials; t++)
		v[t] = repro_cycles_per_op((double)chase(&c->cursor, steps), cal->overhead_min,
					   (double)steps, cal->ticks_per_cycle);
	return stats_median(v, trials);
}

/* The CPU this thread is bound to alone, or -1. */
static int bound_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

/* One run of modern mode: its buffers, samples and passes. */
struct modern {
	size_t line, iters, hot_size, trials, passes;
	char *hot;
	struct buddy_cold cold, l2walk;
	double *samples;	/* [(cs * NVARIANTS + v) * trials + t] core cycles per loop */
	double share[NVARIANTS][BUDDY_PASSES];	/* each variant's CPU share in each pass */
	size_t vlist[NVARIANTS], nv;		/* the variants measured, in config order */
};

/* A claim of the post: case ca costs less than case cb; a, b NULL: the
 * pair's own plain and atomic op. */
struct buddy_claim {
	const char *what;
	int ca, cb;
	const char *a, *b;
};

/* Judge claims[0..n) (at most MAX_CLAIMS) over the passes' medians pm,
 * each named "who, what"; the post's words go with the first. */
#define MAX_CLAIMS 8
static void conclude_claims(struct repro_ctx *rc, const char *who, const char *plain,
			    const char *atomic, const struct buddy_claim *claims, size_t n,
			    double pm[][BUDDY_PASSES], size_t passes, const double *share,
			    const char *unit, const char *words)
{
	char what[MAX_CLAIMS][128];
	struct repro_claim c[MAX_CLAIMS];
	struct stats_prior prior;

	n = n < MAX_CLAIMS ? n : MAX_CLAIMS;
	for (size_t k = 0; k < n; k++) {
		int ca = claims[k].ca, cb = claims[k].cb;

		c[k] = (struct repro_claim){
			.what = what[k], .a = claims[k].a ? claims[k].a : plain,
			.b = claims[k].b ? claims[k].b : atomic, .unit = unit, .ea = pm[ca],
			.eb = pm[cb], .n = passes, .share = share, .pub_unit = "ticks per loop",
			.pub_a = POSTED(modern_posted[ca]), .pub_b = POSTED(modern_posted[cb]),
			.pub_machine = POSTED_MACHINE, .pub_words = k ? NULL : words, .prior = &prior,
		};
		snprintf(what[k], sizeof(what[k]), "%s, %s", who, claims[k].what);
	}
	/* the claims of one variant borrow each other's spread between passes */
	repro_claims_prior(c, n, &prior);
	for (size_t k = 0; k < n; k++)
		repro_conclude(rc, &c[k]);
}

/* Each claim names its walk: the post's cold case walked in address order;
 * ours walks independently (3-5, misses overlap) and dependently (8-10).
 * The last two are judged for the main pairs only. */
static const struct buddy_claim modern_claims[] = {
	{ "hot line (score 0 vs 1)", 0, 1, NULL, NULL },
	{ "cold line, independent walk (score 3 vs 4)", 3, 4, NULL, NULL },
	{ "cold line, dependent walk (score 3d vs 4d)", 8, 9, NULL, NULL },
	{ "cold mixture, independent walk (score 3 vs 5)", 3, 5, NULL,
	  "one of the two ops atomic" },
	{ "cold mixture, dependent walk (score 3d vs 5d)", 8, 10, NULL,
	  "one of the two ops atomic" },
	{ "a miss against the lock, independent walk (score 3 vs 1)", 3, 1,
	  "a cold line, no atomic", "a hot line, atomic" },
	{ "a miss against the lock, dependent walk (score 3d vs 1)", 8, 1,
	  "a cold line, no atomic", "a hot line, atomic" },
};

static void modern_free(struct modern *m)
{
	free(m->samples);
	buddy_cold_destroy(&m->cold);
	buddy_cold_destroy(&m->l2walk);
	if (m->hot)
		munmap(m->hot, m->hot_size);
}

/* Buffers, walks and sample arrays; the variants to measure. */
static int modern_setup(struct repro_ctx *rc, struct modern *m, unsigned trials)
{
	const struct experiment *e = rc->exp;
	const char *sec = "buddy-bitmap-2004";
	size_t l2 = topo_cache_size(rc->t, 2), cold_bytes = 0;
	int ret;

	m->line = topo_line_size(rc->t) ? topo_line_size(rc->t) : CACHELINE;
	m->iters = LEGACY_ITERS;
	m->hot_size = m->iters * 2 * m->line;
	m->trials = trials;
	m->passes = buddy_passes(trials);
	for (size_t v = 0; v < NVARIANTS; v++)
		if (config_list_has(e, sec, "variants", variants[v].name) && !variants[v].unavailable)
			m->vlist[m->nv++] = v;
	ret = buddy_cold_bytes(config_u64(e, sec, "cold_buffer"), l2, pattern_mem_available(), &cold_bytes);
	if (ret < 0)
		return ret;
	m->hot = mmap(NULL, m->hot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->hot == MAP_FAILED) {
		m->hot = NULL;
		return -ENOMEM;
	}
	ret = buddy_cold_create(&m->cold, cold_bytes, m->line, m->iters, PATTERN_SEED);
	if (ret < 0)
		return ret;
	/* the reference: the same kind of walk over half the L2 */
	ret = buddy_cold_create(&m->l2walk, (l2 ? l2 : 1u << 20) / 2, m->line, 0, PATTERN_SEED + 1);
	if (ret < 0)
		return ret;
	m->samples = calloc(BUDDY_MODERN_CASES * NVARIANTS * trials, sizeof(double));
	return m->samples ? 0 : -ENOMEM;
}

/* The cold walk's chase against one within L2: 5 chases of each, paired. */
static void modern_walk_check(struct repro_ctx *rc, struct modern *m)
{
	const struct calibration *cal = rc->cal;
	double vl2[5], vcold[5], twice[5], lat_l2, lat_cold;
	struct repro_claim c = {
		.what = "the cold walk misses", .a = "the cold walk's chase",
		.b = "twice an L2-resident chase", .unit = "cycles per line", .pub_a = NAN,
		.pub_b = NAN, .ea = vcold, .eb = twice, .n = 5,
	};

	lat_l2 = chase_cycles(&m->l2walk, 8 * (m->l2walk.npairs / 8), 5, cal, vl2);
	lat_cold = chase_cycles(&m->cold, m->iters, 5, cal, vcold);
	for (int k = 0; k < 5; k++)
		twice[k] = 2 * vl2[k];
	fprintf(rc->out, "  chase latency of that walk: %.1f cycles (%.1f ns) per line; of the same "
			 "walk over %zu KiB (in L2): %.1f cycles\n", lat_cold,
		clock_ticks_to_ns(cal, lat_cold * cal->ticks_per_cycle), m->l2walk.bytes >> 10, lat_l2);
	/* "costs more" means the cold cases really miss */
	if (repro_conclude(rc, &c) != VERDICT_SLOWER)
		fprintf(rc->out, "WARNING: the cold walk is not well above L2 latency: the cold "
				 "cases below do not measure misses (raise cold_buffer)\n");
	repro_doc_own(rc->doc, "modern_setup",
			    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:f,s:f,s:I}", "line",
				      (json_int_t)m->line, "hot_buffer", (json_int_t)m->hot_size,
				      "cold_buffer", (json_int_t)m->cold.bytes, "iterations",
				      (json_int_t)m->iters, "trials", (json_int_t)m->trials, "passes",
				      (json_int_t)m->passes, "thp_requested", m->cold.thp,
				      "cold_chase_cycles", lat_cold, "l2_chase_cycles", lat_l2,
				      "l2_chase_bytes", (json_int_t)m->l2walk.bytes));
}

/* The passes: each measures every variant (in config order, reversed every
 * other pass), a warm-up trial first, then its trials of every case (in
 * order, reversed every other trial). Each sample is timed again until
 * clean (repro_figure_again), and the CPU share of a variant's pass is its
 * least clean sample's: a preemption leaves out that stretch, not the
 * whole pass. */
static void modern_measure(struct repro_ctx *rc, struct modern *m)
{
	const struct calibration *cal = rc->cal;

	for (size_t p = 0; p < m->passes; p++) {
		size_t t0 = pass_first(p, m->trials, m->passes), t1 = pass_first(p + 1, m->trials, m->passes);

		for (size_t k = 0; k < m->nv; k++) {
			size_t v = m->vlist[p & 1 ? m->nv - 1 - k : k];
			struct quiet_mark ps;
			json_t *figs;
			char what[64];

			snprintf(what, sizeof(what), "variant %s", variants[v].name);
			do {
				/* the pass's share: its least clean sample's */
				quiet_start(&ps);
				m->share[v][p] = 1;
				for (int cs = 0; cs < BUDDY_MODERN_CASES; cs++)
					buddy_modern_loop(v, cs, m->hot, &m->cold, m->iters, m->line);
				for (size_t t = t0; t < t1; t++)
					for (int j = 0; j < BUDDY_MODERN_CASES; j++) {
						int cs = t & 1 ? BUDDY_MODERN_CASES - 1 - j : j;
						struct repro_figure f = { .pt = rc->patience };
						uint64_t ticks;
						double sh;

						do {
							repro_figure_start(&f);
							ticks = buddy_modern_loop(v, cs, m->hot, &m->cold, m->iters,
										  m->line);
						} while (repro_figure_again(&f, &sh));
						m->share[v][p] = fmin(m->share[v][p], sh);
						m->samples[(cs * NVARIANTS + v) * m->trials + t] =
							repro_cycles_per_op((double)ticks, cal->overhead_min,
									    1, cal->ticks_per_cycle);
					}
				/* a pass run again: its medians, core cycles per loop */
				figs = json_object();
				for (int cs = 0; cs < BUDDY_MODERN_CASES; cs++)
					json_object_set_new(figs, labels[cs], report_real(stats_median(
						m->samples + (cs * NVARIANTS + v) * m->trials + t0, t1 - t0)));
			} while (repro_pass_again(rc, &ps, m->share[v][p], what, p, figs));
		}
	}
}

/* The ratios of two cases' medians the tables are read by; legacy mode has
 * no dependent walk (4d/3d). */
static const struct {
	const char *name;
	int a, b;
} ratios[] = {
	{ "score1/score0", 1, 0 }, { "score4/score3", 4, 3 }, { "score4d/score3d", 9, 8 },
	{ "score5/score3", 5, 3 }, { "score7/score6", 7, 6 },
};

/* head, then each ratio of the medians in s; in modern mode (jr not NULL)
 * with the posted one in parentheses, and into jr. */
static void print_ratios(FILE *out, const char *head, const struct summary *s, json_t *jr)
{
	fputs(head, out);
	for (size_t k = 0; k < ARRAY_SIZE(ratios); k++) {
		int a = ratios[k].a, b = ratios[k].b;

		if (!jr && a >= BUDDY_CASES)
			continue;
		fprintf(out, "%s %s %.2f", k ? " " : "", ratios[k].name, s[a].median / s[b].median);
		if (jr && a < BUDDY_CASES)
			fprintf(out, " (%.2f)", POSTED(a) / POSTED(b));
		if (jr)
			json_object_set_new(jr, ratios[k].name, json_real(s[a].median / s[b].median));
	}
	fputc('\n', out);
}

/* Every item of a NULL-terminated list of deviations, numbered, and into
 * j when not NULL. */
static void print_deviations(FILE *out, const char *const *d, json_t *j)
{
	fprintf(out, "deviations from the posted program:\n");
	for (int n = 1; *d; d++, n++) {
		fprintf(out, "  %d. %s\n", n, *d);
		if (j)
			json_array_append_new(j, json_string(*d));
	}
}

/* One variant's table beside the posted one, its ratios and conclusions,
 * its figures into jv. */
static int modern_report_variant(struct repro_ctx *rc, const struct modern *m, size_t v, json_t *jv)
{
	const struct buddy_variant *bv = &variants[v];
	struct repro_row rows[BUDDY_MODERN_CASES];
	char notes[BUDDY_MODERN_CASES][112], title[160], munit[96];
	struct repro_table meas = {
		.title = title, .machine = rc->machine ? rc->machine : "this machine", .unit = munit,
		.ncols = 1, .cols = { "per loop" }, .nrows = BUDDY_MODERN_CASES, .rows = rows,
	};
	struct summary s[BUDDY_MODERN_CASES];
	double pm[BUDDY_MODERN_CASES][BUDDY_PASSES], d = 2.0 * m->iters;
	json_t *jcases = json_array(), *jr;
	bool main_pair;

	for (int k = 0; k < BUDDY_MODERN_CASES; k++) {
		int cs = modern_shown[k];
		const double *x = m->samples + (cs * NVARIANTS + v) * m->trials;

		stats_summarize(x, m->trials, &s[cs]);
		buddy_pass_medians(x, m->trials, m->passes, pm[cs]);
		snprintf(notes[k], sizeof(notes[k]), "%s; %.2f cyc/op, min %.0f, CI [%.0f, %.0f]",
			 modern_notes[cs], s[cs].median / d, s[cs].min, s[cs].ci_lo, s[cs].ci_hi);
		rows[k] = (struct repro_row){ labels[cs], { s[cs].median }, notes[k] };
		json_array_append_new(jcases, json_pack("{s:i,s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
			"score", modern_posted[cs], "label", labels[cs], "note", modern_notes[cs],
			"walk", !case_cold[cs] ? "hot" : cs >= 8 ? "dependent" : "independent",
			"median_cycles", s[cs].median, "min_cycles", s[cs].min, "ci_lo", s[cs].ci_lo,
			"ci_hi", s[cs].ci_hi, "mean_cycles", s[cs].mean, "per_op_cycles", s[cs].median / d,
			"posted_2004", POSTED(modern_posted[cs])));
	}
	json_object_set_new(jv, "cases", jcases);
	json_object_set_new(jv, "pass_cpu_share", repro_doubles_json(m->share[v], m->passes));
	snprintf(title, sizeof(title), "variant %s: scores beside the 2004 ones", bv->name);
	snprintf(munit, sizeof(munit), "median core cycles per loop of %zu iterations", m->iters);
	if (repro_print_beside(rc->out, &posted_2004, &meas) < 0)
		return -EINVAL;
	jr = json_object();
	json_object_set_new(jv, "ratios", jr);
	print_ratios(rc->out, "ratios of the medians (2004 in parentheses):", s, jr);
	main_pair = !strcmp(bv->name, "kernel") || !strcmp(bv->name, "2004");
	conclude_claims(rc, bv->name, bv->pname, bv->aname, modern_claims,
			ARRAY_SIZE(modern_claims) - (main_pair ? 0 : 2), pm, m->passes, m->share[v],
			"cycles per loop", NULL);
	fflush(rc->out);
	return 0;
}

/* What modern mode does differently from the posted program, every item. */
static const char *const modern_deviations[] = {
	"pinned, serialized timer, core cycles, medians (posted: unpinned, raw rdtsc, means)",
	"the hot buffer is 2048 pairs of this machine's lines (posted: 128-byte lines, 512 KiB)",
	"cold cases walk pairs of lines in a random cycle over a buffer far above the LLC (posted: "
	"address order over 512 KiB after evicting it with another 512 KiB, which streams today)",
	"cases 3d-5d added: the cold cases on a dependent walk (each pair's address loaded at the "
	"previous pair, as buddy merging goes page, buddy, parent)",
	"trials in passes, cases in alternating order, conclusions over the passes' medians "
	"(posted: cases 0..7 in order, one mean each)",
	NULL,
};

/* What this machine changes for modern mode: its buffers against its
 * caches, sized from them. */
static void modern_changes(struct repro_ctx *rc, const struct modern *m)
{
	char hot[300], cold[300], a[32], b[32], c[32];
	const char *items[] = { hot, cold };
	size_t l1 = repro_cache(rc, 1), llc = repro_cache(rc, 0);

	snprintf(hot, sizeof(hot), "hot cases 6-7 walk %s (2048 pairs of %zu-byte lines) against this "
		 "machine's L1d of %s and L2 of %s (declared): %s", repro_bytes(a, sizeof(a), m->hot_size),
		 m->line, repro_bytes(b, sizeof(b), l1), repro_bytes(c, sizeof(c), repro_cache(rc, 2)),
		 l1 && m->hot_size <= l1 ? "from L1" : "from beyond L1 (the posted walk was in its L2)");
	snprintf(cold, sizeof(cold), "cold cases walk %s against this machine's LLC of %s (declared): "
		 "%s", repro_bytes(a, sizeof(a), m->cold.bytes), repro_bytes(b, sizeof(b), llc),
		 !llc ? "whether they miss it is not known" : m->cold.bytes >= 4 * llc ?
		 "at least 4 times it, so they miss" : "under 4 times it: raise cold_buffer");
	repro_print_changes(rc, items, ARRAY_SIZE(items));
}

static int run_modern(struct repro_ctx *rc, unsigned trials)
{
	const struct calibration *cal = rc->cal;
	struct modern m = { 0 };
	json_t *jvars = json_object();
	int ret;

	repro_doc_own(rc->doc, "modern", jvars);
	ret = modern_setup(rc, &m, trials);
	if (ret < 0)
		goto out;
	fprintf(rc->out, "\nmodern: CPU %d pinned, line %zu B, %zu iterations of 2 ops, %u trials in "
			 "%zu passes, serialized timer, core cycles (%.4f ticks/cycle),\n        timer "
			 "overhead %.0f ticks subtracted\n", rc->cpu_os, m.line, m.iters, trials, m.passes,
		cal->ticks_per_cycle, cal->overhead_min);
	print_deviations(rc->out, modern_deviations, NULL);
	modern_changes(rc, &m);
	fprintf(rc->out, "  hot cases: %zu KiB buffer (0-2: the same two words; 6-7: pairs of lines in "
			 "address order)\n", m.hot_size >> 10);
	fprintf(rc->out, "  cold cases: pairs of lines in a random single cycle over %zu MiB (%s; "
			 "THP %s); 3-5 independent (addresses from the order), 3d-5d dependent (from "
			 "the links), positions kept across trials\n", m.cold.bytes >> 20,
		config_u64(rc->exp, "buddy-bitmap-2004", "cold_buffer") ? "cold_buffer key" :
									  "default, not hwloc's LLC",
		m.cold.thp ? "requested" : "not available");
	modern_walk_check(rc, &m);
	modern_measure(rc, &m);
	for (size_t v = 0; v < NVARIANTS && ret == 0; v++) {
		const struct buddy_variant *bv = &variants[v];
		json_t *jv;

		if (!config_list_has(rc->exp, "buddy-bitmap-2004", "variants", bv->name))
			continue;
		jv = json_pack("{s:s,s:s,s:s}", "atomic", bv->atomic, "plain", bv->plain, "what", bv->what);
		json_object_set_new(jvars, bv->name, jv);
		fprintf(rc->out, "\nvariant %s: set_bit %s, __set_bit %s (%s)\n", bv->name, bv->atomic,
			bv->plain, bv->what);
		if (bv->unavailable) {
			fprintf(rc->out, "unavailable: %s\n", bv->unavailable);
			json_object_set_new(jv, "unavailable", json_string(bv->unavailable));
		} else {
			ret = modern_report_variant(rc, &m, v, jv);
		}
	}
out:
	modern_free(&m);
	return ret;
}

int buddy_legacy_cold_text(char *buf, size_t len, size_t l2, size_t llc)
{
	char a[32], b[32];
	int k = snprintf(buf, len, "legacy \"cold\" cases 3-5: the 512 KiB buffer and the 512 KiB "
			 "that should evict it (1 MiB) against this machine's L2 of %s and LLC of %s "
			 "(declared; the posted machine's L2: 512 KiB): ", repro_bytes(a, sizeof(a), l2),
			 repro_bytes(b, sizeof(b), llc));

	if (k < 0 || (size_t)k >= len)
		return k;
	if (!l2)
		return k + snprintf(buf + k, len - k, "whether they miss here is not known");
	if (2 * LEGACY_SIZE <= l2)
		return k + snprintf(buf + k, len - k, "both fit in L2, so the cold cases hit L2 here: "
				    "they are not cold");
	if (llc > l2 && 2 * LEGACY_SIZE <= llc)
		return k + snprintf(buf + k, len - k, "they overflow L2 but fit in the LLC, so the cold "
				    "cases hit the LLC here, not memory");
	return k + snprintf(buf + k, len - k, "they overflow L2%s, so the cold cases miss here too",
			    llc > l2 ? " and the LLC" : "");
}

/* The legacy header: pinning, buffer reuse and every deviation, printed and
 * appended to dev. */
static void legacy_header(struct repro_ctx *rc, unsigned trials, size_t passes, int cpu, json_t *dev)
{
	char pin[160], reuse[200];
	const char *const deviations[] = {
		"__set_bit is `asm volatile` with a memory clobber (posted: plain asm, which a "
		"compiler may merge or move)",
		"the cold preparation reads its 512 KiB back into a checksum (gcc 12 -O2 deletes the "
		"posted malloc + memset, whose result is unused)",
		"x86-64 build, gcc -O2 (posted: 32-bit, compiler and flags unknown); the ops are the "
		"posted 32-bit `btsl $nr`, the loop counter and pointers are 64-bit",
		pin, reuse, NULL,
	};

	if (cpu >= 0)
		snprintf(pin, sizeof(pin), "pinned to CPU %d (posted: unpinned, nice -10)", cpu);
	else
		snprintf(pin, sizeof(pin), "unpinned, as posted (posted: nice -10, here not niced)");
	if ((size_t)trials * 3 <= BUDDY_COLD_KEEP_MAX)
		snprintf(reuse, sizeof(reuse), "the %u cold buffers (%u MiB) are freed at the end "
			 "(posted: never freed); each cold preparation gets fresh memory, as posted",
			 trials * 3, trials * 3 / 2);
	else
		snprintf(reuse, sizeof(reuse), "the first %d cold buffers are kept until the end, later "
			 "ones freed at once, so malloc hands the same 512 KiB back (posted: a fresh "
			 "buffer every time)", BUDDY_COLD_KEEP_MAX);
	fprintf(rc->out, "legacy: the 2004 program (512 KiB, 128-byte lines, %u trials, mean unserialized "
			 "rdtsc ticks per loop), %s\n", trials, pin);
	print_deviations(rc->out, deviations, dev);
	fprintf(rc->out, "the trials run as posted, read in %zu passes of consecutive trials (each "
			 "with its own cold preparations); conclusions from the passes' medians\n", passes);
}

/* What this machine changes for legacy mode: where its buffers live. */
static void legacy_changes(struct repro_ctx *rc)
{
	char cold[400], hot[300], a[32];
	const char *items[] = { cold, hot };
	size_t l2 = repro_cache(rc, 2);

	buddy_legacy_cold_text(cold, sizeof(cold), l2, repro_cache(rc, 0));
	snprintf(hot, sizeof(hot), "hot cases 6-7 walk the 512 KiB buffer: %s this machine's L2 of %s "
		 "(declared), %s", l2 >= LEGACY_SIZE ? "it fits" : l2 ? "it overflows" : "against",
		 repro_bytes(a, sizeof(a), l2),
		 l2 >= LEGACY_SIZE ? "so they hit L2, as on the posted machine's 512 KiB L2"
				   : "where the posted machine's 512 KiB L2 held it");
	repro_print_changes(rc, items, ARRAY_SIZE(items));
}

/* The ratios of means, each with the spread of the passes' ratios, and the
 * conclusions over the passes' medians. */
static void legacy_conclude(struct repro_ctx *rc, const double *ticks, unsigned trials, size_t passes,
			    const double *share, json_t *jl)
{
	static const struct buddy_claim claims[] = {
		{ "hot line (score 0 vs 1)", 0, 1, NULL, NULL },
		{ "\"cold\" line (score 3 vs 4)", 3, 4, NULL, NULL },
		{ "hot dependency (score 6 vs 7)", 6, 7, NULL, "one of the two ops atomic" },
	};
	double pm[BUDDY_CASES][BUDDY_PASSES];
	json_t *jr = json_array();
	char text[160];

	fprintf(rc->out, "legacy ratios of the means over all %u trials (the post's scores are means of "
			 "100), with the range of the passes' ratios of means: a mean moves with one "
			 "disturbed loop, read the medians\n ", trials);
	for (size_t k = 0; k < ARRAY_SIZE(ratios); k++) {
		const int a = ratios[k].a, b = ratios[k].b;

		if (a >= BUDDY_CASES)
			continue;
		buddy_ratio_of_means_text(text, sizeof(text), ratios[k].name, ticks + (size_t)a * trials,
					  ticks + (size_t)b * trials, trials, passes, POSTED(a) / POSTED(b));
		fprintf(rc->out, " %s", text);
		json_array_append_new(jr, json_string(text));
	}
	fputc('\n', rc->out);
	json_object_set_new(jl, "ratios_of_means", jr);
	for (int cs = 0; cs < BUDDY_CASES; cs++)
		buddy_pass_medians(ticks + (size_t)cs * trials, trials, passes, pm[cs]);
	conclude_claims(rc, "legacy", "__set_bit (btsl)", "set_bit (lock btsl)", claims,
			ARRAY_SIZE(claims), pm, passes, share, "ticks per loop",
			"atomic ops are 10x more costly, yes? / yes, when L2 cache hits");
}

static int run_legacy(struct repro_ctx *rc, unsigned trials)
{
	long long mean[BUDDY_CASES];
	uint64_t cold_sum;
	json_t *dev = json_array(), *jl;
	struct repro_row rows[BUDDY_CASES];
	struct summary s[BUDDY_CASES];
	char notes[BUDDY_CASES][80];
	double *ticks, share[BUDDY_PASSES];
	struct repro_table meas = {
		.title = "legacy: the posted program's scores beside the posted ones",
		.machine = rc->machine ? rc->machine : "this machine",
		.unit = "mean rdtsc ticks per loop of 2048 iterations (TSC ticks, not core cycles)",
		.ncols = 1, .cols = { "per loop" }, .nrows = BUDDY_CASES, .rows = rows,
	};
	size_t passes = buddy_passes(trials);
	int cpu = bound_cpu(), ret;

	legacy_header(rc, trials, passes, cpu, dev);
	legacy_changes(rc);
	ticks = malloc((size_t)trials * BUDDY_CASES * sizeof(double));
	ret = ticks ? buddy_legacy(trials, (unsigned)passes, mean, rc->out, &cold_sum, ticks, share, rc)
		    : -ENOMEM;
	if (ret < 0) {
		free(ticks);
		json_decref(dev);
		return ret;
	}
	json_t *a = json_array(), *p = json_array(), *med = json_array();

	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		stats_summarize(ticks + (size_t)cs * trials, trials, &s[cs]);
		snprintf(notes[cs], sizeof(notes[cs]), "%s; median %.0f, min %.0f", buddy_notes[cs],
			 s[cs].median, s[cs].min);
		json_array_append_new(a, json_integer(mean[cs]));
		json_array_append_new(p, json_integer((json_int_t)POSTED(cs)));
		json_array_append_new(med, json_real(s[cs].median));
		rows[cs] = (struct repro_row){ labels[cs], { (double)mean[cs] }, notes[cs] };
	}
	jl = json_pack("{s:o,s:o,s:o,s:o,s:I,s:i,s:I,s:o}", "scores", a, "medians", med, "posted_2004",
		       p, "deviations", dev, "trials", (json_int_t)trials, "cpu", cpu, "passes",
		       (json_int_t)passes, "pass_cpu_share", repro_doubles_json(share, passes));
	repro_doc_own(rc->doc, "legacy", jl);
	ret = repro_print_beside(rc->out, &posted_2004, &meas);
	if (!ret) {
		print_ratios(rc->out, "legacy ratios of the medians (all trials):", s, NULL);
		legacy_conclude(rc, ticks, trials, passes, share, jl);
		fflush(rc->out);
	}
	free(ticks);
	return ret;
}

static int repro_buddy_run(struct repro_ctx *rc)
{
	const char *mode = config_str(rc->exp, "buddy-bitmap-2004", "mode");
	unsigned trials = (unsigned)config_u64(rc->exp, "buddy-bitmap-2004", "trials");
	int ret = 0;

	if (strcmp(mode, "modern")) {
		ret = run_legacy(rc, trials);
		if (ret < 0)
			return ret;
	}
	if (strcmp(mode, "legacy"))
		ret = run_modern(rc, trials);
	return ret;
}

const struct repro repro_buddy_bitmap_2004 = {
	.kind = "buddy-bitmap-2004", .seed = "buddy-bitmap-test-atomics-2004", .run = repro_buddy_run,
	.source = "Hiroyuki Kamezawa, lhms-devel, 2004, \"Re: [RFC] buddy allocator without bitmap [2/4]\"",
	REPRO_KEYS(
	{ "buddy-bitmap-2004", "mode", CFG_ENUM, "both", "legacy|modern|both", 0, 0, NULL,
	  "legacy: the 2004 program's constants, loops, mean and line format; modern: sized from "
	  "hwloc, pinned, serialized, core cycles, median/min/CI" },
	{ "buddy-bitmap-2004", "trials", CFG_U64, "100", NULL, 1, 100000, NULL,
	  "trials per case (2004: 100); each trial runs cases 0..7 in order; conclusions judge "
	  "the medians of 5 passes of consecutive trials" },
	{ "buddy-bitmap-2004", "variants", CFG_ENUM_LIST, "2004,kernel,var,orb,orq,ds",
	  "2004|kernel|var|orb|orq|ds", 0, 0, NULL,
	  "modern mode instruction pairs (set_bit / __set_bit): 2004 (lock btsl $nr / btsl $nr), "
	  "kernel (lock orb $imm / btsq $nr: today's constant nr), var (lock btsq %reg / btsq %reg), "
	  "orb (lock orb $imm / orb: C |= on a byte), orq (lock orq / orq: C |= on a word), ds (ds "
	  "orb: the lock a uniprocessor kernel patches out / btsq $nr)" },
	{ "buddy-bitmap-2004", "cold_buffer", CFG_U64, "0", NULL, 0, 1ull << 40, NULL,
	  "modern mode: bytes the cold cases walk in random order (0: 256 MiB; at least 8x L2)" }),
};
