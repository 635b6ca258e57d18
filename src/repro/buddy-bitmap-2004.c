/* SPDX-License-Identifier: MIT */
/* repro/buddy-bitmap-2004.c - the 2004 buddy-bitmap "test-atomics" scoring
 * (docs/reproductions.md, section 1).
 *
 * Legacy mode rebuilds the posted program: 512 KiB buffer, 128-byte line,
 * stride of two lines (2048 iterations), 100 trials of cases 0..7 in order,
 * unserialized rdtsc around each whole loop, the mean tick count, and the
 * line `score %d is %16lld note: %s`. Its loops are NOT unrolled (the
 * original's were not), on purpose. It deviates from the posted program only
 * where listed in legacy_deviations[] (printed with every run).
 *
 * Modern mode: the same eight cases, 2048 iterations of two ops each as
 * posted, pinned, serialized timer, core cycles, median / min / CI over the
 * trials, for each instruction pair today's kernel (or C) emits. The hot
 * cases are as posted. The cold cases (3-5) must miss, and a buffer walked
 * in address order does not: the prefetchers stream it (with clflush before
 * each trial, the cold atomic case cost what the hot one did). So the cold
 * cases walk pairs of lines in a random single cycle over a buffer far
 * larger than the caches (struct buddy_cold), keep their position across
 * trials, and the plain chase latency of the same walk is measured and
 * printed beside, against the latency of a walk that fits in L2.
 */
#include "repro.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "common.h"
#include "pattern.h"
#include "stats.h"

const char *const buddy_notes[BUDDY_CASES] = {
	"cache hit, no atomic",
	"cache hit, atomic",
	"cache hit, mixture",
	"cache miss, no atomic",
	"cache miss, atomic",
	"cache miss, mixture",
	"cache hit, dependency, noatomic",
	"cache hit, dependency, mixture",
};

static const char *const score_labels[BUDDY_CASES] = {
	"score 0", "score 1", "score 2", "score 3", "score 4", "score 5", "score 6", "score 7",
};

/* The posted table, as posted (rdtsc ticks per loop of 2048 iterations). */
static const struct repro_row posted_rows[BUDDY_CASES] = {
	{ "score 0", { 64011 }, "cache hit, no atomic" },
	{ "score 1", { 543011 }, "cache hit, atomic" },
	{ "score 2", { 303901 }, "cache hit, mixture" },
	{ "score 3", { 344261 }, "cache miss, no atomic" },
	{ "score 4", { 1131085 }, "cache miss, atomic" },
	{ "score 5", { 593443 }, "cache miss, mixture" },
	{ "score 6", { 118455 }, "cache hit, dependency, noatomic" },
	{ "score 7", { 416195 }, "cache hit, dependency, mixture" },
};
static const struct repro_table posted_2004 = {
	.title = "2004 test-atomics scores (smaller is better)",
	.source = "Kamezawa Hiroyuki, linux-mm/lhms-devel, 27 Aug 2004, "
		  "\"[RFC] buddy allocator without bitmap [2/4]\"",
	.machine = "Intel Xeon MP 1.9 GHz (NetBurst), 512 KiB L2, 32-bit, unpinned, nice -10",
	.unit = "rdtsc ticks per loop of 2048 iterations (= core cycles on that CPU)",
	.ncols = 1,
	.cols = { "per loop" },
	.nrows = BUDDY_CASES,
	.rows = posted_rows,
};
#define POSTED(cs) (posted_rows[cs].v[0])
#define POSTED_MACHINE "Xeon MP 1.9 GHz, 2004"

static const bool case_cold[BUDDY_CASES] = { 0, 0, 0, 1, 1, 1, 0, 0 };

volatile uint64_t buddy_cold_preps;

#define LEGACY_SIZE (512 * 1024)
#define LEGACY_LINE 128
#define LEGACY_ITERS (LEGACY_SIZE / (2 * LEGACY_LINE))

/* Keep a pointer's memory "used": the compiler must assume the asm reads
 * every byte it points to, so stores before it cannot be deleted. */
#define ESCAPE(p) asm volatile("" : : "r"(p) : "memory")

/* malloc + memset + read back; *keep receives the buffer (the caller frees
 * it later) or NULL when keep is NULL (freed here). */
static uint64_t cold_prep_keep(unsigned char fill, void **keep)
{
	unsigned char *p = malloc(LEGACY_SIZE);
	uint64_t sum = 0;

	if (keep)
		*keep = NULL;
	if (!p)
		return 0;
	memset(p, fill, LEGACY_SIZE);
	ESCAPE(p);
	for (size_t i = 0; i < LEGACY_SIZE; i += LEGACY_LINE)
		sum += ((volatile unsigned char *)p)[i];
	if (keep)
		*keep = p;
	else
		free(p);
	buddy_cold_preps = buddy_cold_preps + 1;
	return sum;
}

uint64_t buddy_cold_prep(unsigned char fill)
{
	return cold_prep_keep(fill, NULL);
}

static void hot_prep(char *buf, size_t size)
{
	memset(buf, 0, size);
	ESCAPE(buf);
}

/* What legacy mode does differently from the posted program, every item. */
static const char *const legacy_deviations[] = {
	"__set_bit is `asm volatile` with a memory clobber (posted: plain asm, which a compiler "
	"may merge or move)",
	"the cold preparation reads its 512 KiB back into a checksum (gcc 12 -O2 deletes the "
	"posted malloc + memset, whose result is unused)",
	"x86-64 build, gcc -O2 (posted: 32-bit, compiler and flags unknown); the ops are the "
	"posted 32-bit `btsl $nr`, the loop counter and pointers are 64-bit",
	NULL,
};

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

/* The legacy run; ticks[cs * trials + t] receives each loop's ticks when
 * not NULL. */
static int legacy_run(unsigned trials, long long mean[BUDDY_CASES], FILE *out, uint64_t *cold_sum,
		      double *ticks)
{
	char *buf = mmap(NULL, LEGACY_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long total[BUDDY_CASES] = { 0 };
	void **kept = calloc(BUDDY_COLD_KEEP_MAX, sizeof(void *));
	size_t nkept = 0;

	*cold_sum = 0;
	if (buf == MAP_FAILED || !kept) {
		pr_err("buddy-bitmap-2004: cannot map the %d KiB buffer", LEGACY_SIZE / 1024);
		if (buf != MAP_FAILED)
			munmap(buf, LEGACY_SIZE);
		free(kept);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < trials; t++) {
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			unsigned char fill = (unsigned char)(1 + (t * BUDDY_CASES + cs) % 127);

			if (!case_cold[cs])
				hot_prep(buf, LEGACY_SIZE);
			else if (nkept < BUDDY_COLD_KEEP_MAX)
				*cold_sum += cold_prep_keep(fill, &kept[nkept++]);
			else
				*cold_sum += cold_prep_keep(fill, NULL);
			{
				uint64_t dt = legacy_case(cs, buf);

				total[cs] += (long long)dt;
				if (ticks)
					ticks[(size_t)cs * trials + t] = (double)dt;
			}
		}
	}
	for (size_t k = 0; k < nkept; k++)
		free(kept[k]);
	free(kept);
	munmap(buf, LEGACY_SIZE);
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		mean[cs] = trials ? total[cs] / (long long)trials : 0;
		if (out)
			fprintf(out, "score %d is %16lld note: %s\n", cs, mean[cs], buddy_notes[cs]);
	}
	return 0;
}
#else
static int legacy_run(unsigned trials, long long mean[BUDDY_CASES], FILE *out, uint64_t *cold_sum,
		      double *ticks)
{
	pr_err("buddy-bitmap-2004: legacy mode needs the 32-bit bts and a raw timer (x86 only)");
	return -ENOTSUP;
}
#endif

int buddy_legacy(unsigned trials, long long mean[BUDDY_CASES], FILE *out, uint64_t *cold_sum)
{
	return legacy_run(trials, mean, out, cold_sum, NULL);
}

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
	c->pos = 0;
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

struct buddy_variant {
	const char *name, *atomic, *plain, *what;
	const char *aname, *pname;	/* what the pair is called in conclusions */
};

static const struct buddy_variant variants[] = {
	{ "2004", "lock btsl $nr,mem", "btsl $nr,mem", "the posted pair (i386 set_bit / __set_bit)",
	  "set_bit", "__set_bit" },
	{ "kernel", ARCH_INSN_SET_BIT_IMM, ARCH_INSN___SET_BIT_IMM,
	  "today's set_bit / __set_bit with a constant nr", "set_bit", "__set_bit" },
	{ "var", ARCH_INSN_SET_BIT_VAR, ARCH_INSN_SET_BIT_VAR_NL,
	  "set_bit / __set_bit with a variable nr", "set_bit", "__set_bit" },
	{ "orb", ARCH_INSN_SET_BIT_IMM, ARCH_INSN_OR_BYTE_NL, "set_bit against C *byte |= mask", "set_bit",
	  "C |= on a byte" },
	{ "orq", ARCH_INSN_OR_WORD, ARCH_INSN_OR_WORD_NL, "C *word |= mask, locked and not", "lock orq",
	  "C |= on a word" },
	{ "ds", ARCH_INSN_SET_BIT_IMM_DS, ARCH_INSN___SET_BIT_IMM,
	  "a uniprocessor kernel's patched set_bit / __set_bit", "UP-patched set_bit", "__set_bit" },
};

/* The eight loops for one instruction pair: A(p, nr) atomic, N(p, nr)
 * plain, identical otherwise; 8 iterations (16 ops) per loop turn.
 * hot: the buffer of the hot cases; ord: the cold walk's order from its
 * current position; cold: its buffer. Serialized timer around the loop. */
#define MODERN_CASES(V, A, N)								\
static __attribute__((noinline)) uint64_t modern_##V(int cs, char *hot, const uint32_t *ord, \
						     char *cold, size_t iters, size_t line)	\
{											\
	uint64_t t0 = 0, t1 = 0;							\
	char *b2 = hot + line;								\
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
	}										\
	(void)ord;									\
	(void)cold;									\
	(void)b2;									\
	return t1 - t0;									\
}
/* cases 0-2: the same two words, one line apart, every iteration */
#define B_SAME(k, O1, O2) O1(hot, 1); O2(b2, 2);
/* cases 3-5: the first word of a pair of lines and the word one line
 * further, pairs in the cold walk's random order */
#define B_COLD(k, O1, O2) { char *q_ = cold + (size_t)ord[i + (k)] * pair; O1(q_, 1); O2(q_ + line, 2); }
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
#else
#define OP_2004_A OP_KERNEL_A
#define OP_2004_N OP_KERNEL_N
#endif
#if defined(ARCH_HAS_DS_PREFIX) && ARCH_HAS_DS_PREFIX
#define OP_DS_A(p, nr) arch_set_bit_imm_ds(p, 1u << (nr))
#else
#define OP_DS_A OP_KERNEL_N
#endif

MODERN_CASES(2004, OP_2004_A, OP_2004_N)
MODERN_CASES(kernel, OP_KERNEL_A, OP_KERNEL_N)
MODERN_CASES(var, OP_VAR_A, OP_VAR_N)
MODERN_CASES(orb, OP_KERNEL_A, OP_ORB_N)
MODERN_CASES(orq, OP_ORQ_A, OP_ORQ_N)
MODERN_CASES(ds, OP_DS_A, OP_KERNEL_N)

typedef uint64_t (*modern_fn)(int cs, char *hot, const uint32_t *ord, char *cold, size_t iters,
			      size_t line);
static const modern_fn modern_fns[] = { modern_2004, modern_kernel, modern_var, modern_orb,
					modern_orq, modern_ds };

static const char *variant_unavailable(size_t v)
{
#if !(defined(ARCH_HAS_BIT32_IMM) && ARCH_HAS_BIT32_IMM)
	if (v == 0)
		return "no 32-bit bts with an immediate on this architecture";
#endif
#if !(defined(ARCH_HAS_DS_PREFIX) && ARCH_HAS_DS_PREFIX)
	if (v == 5)
		return "no ds-prefixed (UP-patched) form on this architecture";
#endif
	(void)v;
	return NULL;
}

/* Median core cycles per step of `trials` chases of `steps` links. */
static double chase_cycles(struct buddy_cold *c, size_t steps, unsigned trials,
			   const struct calibration *cal)
{
	double v[16];

	if (trials > 16)
		trials = 16;
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

static void conclude_variant(struct repro_ctx *rc, const struct buddy_variant *bv,
			     const struct summary *s, bool main_pair)
{
	struct repro_claim c = {
		.unit = "cycles per loop", .pub_unit = "ticks per loop", .pub_machine = POSTED_MACHINE,
		.n = 1,
	};
	char what[96];

	snprintf(what, sizeof(what), "%s, hot line (score 0 vs 1)", bv->name);
	c.what = what;
	c.a = bv->pname;
	c.b = bv->aname;
	c.ea = &s[0].median;
	c.eb = &s[1].median;
	c.pub_a = POSTED(0);
	c.pub_b = POSTED(1);
	repro_conclude(rc, &c);
	snprintf(what, sizeof(what), "%s, cold line (score 3 vs 4)", bv->name);
	c.ea = &s[3].median;
	c.eb = &s[4].median;
	c.pub_a = POSTED(3);
	c.pub_b = POSTED(4);
	repro_conclude(rc, &c);
	snprintf(what, sizeof(what), "%s, cold mixture (score 3 vs 5)", bv->name);
	c.b = "one of the two ops atomic";
	c.eb = &s[5].median;
	c.pub_b = POSTED(5);
	repro_conclude(rc, &c);
	if (!main_pair)
		return;
	/* 2004: a miss without the lock cost less than the lock on a hit */
	snprintf(what, sizeof(what), "%s, a miss against the lock (score 3 vs 1)", bv->name);
	c.a = "a cold line, no atomic";
	c.b = "a hot line, atomic";
	c.ea = &s[3].median;
	c.eb = &s[1].median;
	c.pub_a = POSTED(3);
	c.pub_b = POSTED(1);
	repro_conclude(rc, &c);
}

static int run_modern(struct repro_ctx *rc, unsigned trials)
{
	const struct experiment *e = rc->exp;
	const char *sec = "buddy-bitmap-2004";
	size_t line = topo_line_size(rc->t), l2 = topo_cache_size(rc->t, 2);
	size_t iters = LEGACY_ITERS, hot_size, cold_bytes = 0;
	const struct calibration *cal = rc->cal;
	double *samples[BUDDY_CASES] = { 0 }, lat_cold, lat_l2;
	struct buddy_cold cold = { 0 }, l2walk = { 0 };
	char *hot = NULL;
	json_t *jvars = json_object();
	int ret;

	json_object_set_new(rc->json, "modern", jvars);
	if (!line)
		line = 64;
	hot_size = iters * 2 * line;
	ret = buddy_cold_bytes(config_u64(e, sec, "cold_buffer"), l2, pattern_mem_available(), &cold_bytes);
	if (ret < 0)
		return ret;
	hot = mmap(NULL, hot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hot == MAP_FAILED)
		return -ENOMEM;
	ret = buddy_cold_create(&cold, cold_bytes, line, iters, PATTERN_SEED);
	if (ret < 0)
		goto out;
	/* the reference: the same kind of walk over half the L2 */
	ret = buddy_cold_create(&l2walk, (l2 ? l2 : 1u << 20) / 2, line, 0, PATTERN_SEED + 1);
	if (ret < 0)
		goto out;
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		samples[cs] = malloc(trials * sizeof(double));
		if (!samples[cs]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	lat_l2 = chase_cycles(&l2walk, 8 * (l2walk.npairs / 8), 5, cal);
	lat_cold = chase_cycles(&cold, iters, 5, cal);
	fprintf(rc->out, "\nmodern: CPU %d pinned, line %zu B, %zu iterations of 2 ops, %u trials, "
			 "serialized timer, core cycles (%.4f ticks/cycle),\n        timer overhead "
			 "%.0f ticks subtracted\n", rc->cpu_os, line, iters, trials, cal->ticks_per_cycle,
		cal->overhead_min);
	fprintf(rc->out, "  hot cases: %zu KiB buffer (0-2: the same two words; 6-7: pairs of lines in "
			 "address order)\n", hot_size >> 10);
	fprintf(rc->out, "  cold cases: pairs of lines in a random single cycle over %zu MiB (%s; "
			 "THP %s), position kept across trials\n", cold.bytes >> 20,
		config_u64(e, sec, "cold_buffer") ? "cold_buffer key" : "default, not hwloc's LLC",
		cold.thp ? "requested" : "not available");
	fprintf(rc->out, "  chase latency of that walk: %.1f cycles (%.1f ns) per line; of the same "
			 "walk over %zu KiB (in L2): %.1f cycles\n", lat_cold,
		clock_ticks_to_ns(cal, lat_cold * cal->ticks_per_cycle), l2walk.bytes >> 10, lat_l2);
	{
		double twice_l2 = 2 * lat_l2;
		struct repro_claim c = {
			.what = "the cold walk misses", .a = "the cold walk's chase",
			.b = "twice an L2-resident chase", .unit = "cycles per line", .pub_a = NAN,
			.pub_b = NAN, .ea = &lat_cold, .eb = &twice_l2, .n = 1,
		};

		/* "costs more" means the cold cases really miss */
		if (repro_conclude(rc, &c) != VERDICT_SLOWER)
			fprintf(rc->out, "WARNING: the cold walk is not well above L2 latency: the cold "
					 "cases below do not measure misses (raise cold_buffer)\n");
	}
	json_object_set_new(rc->json, "modern_setup",
			    json_pack("{s:I,s:I,s:I,s:I,s:I,s:b,s:f,s:f,s:I}", "line", (json_int_t)line,
				      "hot_buffer", (json_int_t)hot_size, "cold_buffer",
				      (json_int_t)cold.bytes, "iterations", (json_int_t)iters, "trials",
				      (json_int_t)trials, "thp_requested", cold.thp,
				      "cold_chase_cycles", lat_cold, "l2_chase_cycles", lat_l2,
				      "l2_chase_bytes", (json_int_t)l2walk.bytes));

	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		const struct buddy_variant *bv = &variants[v];
		struct repro_row rows[BUDDY_CASES];
		char notes[BUDDY_CASES][96], title[160], munit[96];
		struct repro_table meas = {
			.title = title, .machine = rc->machine ? rc->machine : "this machine",
			.unit = munit, .ncols = 1, .cols = { "per loop" }, .nrows = BUDDY_CASES,
			.rows = rows,
		};
		struct summary s[BUDDY_CASES];
		const char *why = variant_unavailable(v);
		json_t *jv, *jcases;

		if (!config_list_has(e, sec, "variants", bv->name))
			continue;
		jv = json_pack("{s:s,s:s,s:s}", "atomic", bv->atomic, "plain", bv->plain, "what", bv->what);
		json_object_set_new(jvars, bv->name, jv);
		fprintf(rc->out, "\nvariant %s: set_bit %s, __set_bit %s (%s)\n", bv->name, bv->atomic,
			bv->plain, bv->what);
		if (why) {
			fprintf(rc->out, "unavailable: %s\n", why);
			json_object_set_new(jv, "unavailable", json_string(why));
			continue;
		}
		/* warm-up trial, not kept */
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			hot_prep(hot, hot_size);
			modern_fns[v](cs, hot, cold.order + cold.pos, cold.buf, iters, line);
			if (case_cold[cs])
				cold.pos = (cold.pos + iters) % cold.npairs;
		}
		for (unsigned t = 0; t < trials; t++)
			for (int cs = 0; cs < BUDDY_CASES; cs++) {
				uint64_t ticks;

				if (!case_cold[cs])
					hot_prep(hot, hot_size);
				ticks = modern_fns[v](cs, hot, cold.order + cold.pos, cold.buf, iters, line);
				if (case_cold[cs])
					cold.pos = (cold.pos + iters) % cold.npairs;
				samples[cs][t] = repro_cycles_per_op((double)ticks, cal->overhead_min, 1,
								     cal->ticks_per_cycle);
			}
		jcases = json_array();
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			stats_summarize(samples[cs], trials, &s[cs]);
			snprintf(notes[cs], sizeof(notes[cs]), "%s; %.2f cyc/op, min %.0f, CI [%.0f, %.0f]",
				 buddy_notes[cs], s[cs].median / (2.0 * iters), s[cs].min, s[cs].ci_lo,
				 s[cs].ci_hi);
			rows[cs] = (struct repro_row){ score_labels[cs], { s[cs].median }, notes[cs] };
			json_array_append_new(jcases, json_pack("{s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
				"score", cs, "note", buddy_notes[cs], "median_cycles", s[cs].median,
				"min_cycles", s[cs].min, "ci_lo", s[cs].ci_lo, "ci_hi", s[cs].ci_hi,
				"mean_cycles", s[cs].mean, "per_op_cycles", s[cs].median / (2.0 * iters),
				"posted_2004", POSTED(cs)));
		}
		json_object_set_new(jv, "cases", jcases);
		snprintf(title, sizeof(title), "variant %s: scores beside the 2004 ones", bv->name);
		snprintf(munit, sizeof(munit), "median core cycles per loop of %zu iterations", iters);
		ret = repro_print_beside(rc->out, &posted_2004, &meas);
		if (ret < 0)
			goto out;
		fprintf(rc->out, "ratios (2004 in parentheses): score1/score0 %.2f (%.2f)  score4/score3 "
				 "%.2f (%.2f)  score5/score3 %.2f (%.2f)  score7/score6 %.2f (%.2f)\n",
			s[1].median / s[0].median, POSTED(1) / POSTED(0), s[4].median / s[3].median,
			POSTED(4) / POSTED(3), s[5].median / s[3].median, POSTED(5) / POSTED(3),
			s[7].median / s[6].median, POSTED(7) / POSTED(6));
		json_object_set_new(jv, "ratios", json_pack("{s:f,s:f,s:f,s:f}", "score1/score0",
			s[1].median / s[0].median, "score4/score3", s[4].median / s[3].median,
			"score5/score3", s[5].median / s[3].median, "score7/score6",
			s[7].median / s[6].median));
		conclude_variant(rc, bv, s, !strcmp(bv->name, "kernel") || !strcmp(bv->name, "2004"));
		fflush(rc->out);
	}
out:
	for (int cs = 0; cs < BUDDY_CASES; cs++)
		free(samples[cs]);
	buddy_cold_destroy(&cold);
	buddy_cold_destroy(&l2walk);
	munmap(hot, hot_size);
	return ret;
}

static int run_legacy(struct repro_ctx *rc, unsigned trials)
{
	long long mean[BUDDY_CASES];
	uint64_t cold_sum;
	json_t *a = json_array(), *p = json_array(), *dev = json_array(), *med = json_array();
	struct repro_row rows[BUDDY_CASES];
	struct summary s[BUDDY_CASES];
	char notes[BUDDY_CASES][80];
	double *ticks;
	struct repro_table meas = {
		.title = "legacy: the posted program's scores beside the posted ones",
		.machine = rc->machine ? rc->machine : "this machine",
		.unit = "mean rdtsc ticks per loop of 2048 iterations (TSC ticks, not core cycles)",
		.ncols = 1, .cols = { "per loop" }, .nrows = BUDDY_CASES, .rows = rows,
	};
	int cpu = bound_cpu(), ret, n = 0;
	char pin[160], reuse[200];

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
			 "rdtsc ticks per loop), %s\ndeviations from the posted program:\n", trials, pin);
	for (const char *const *d = legacy_deviations; *d; d++) {
		fprintf(rc->out, "  %d. %s\n", ++n, *d);
		json_array_append_new(dev, json_string(*d));
	}
	fprintf(rc->out, "  %d. %s\n  %d. %s\n", n + 1, pin, n + 2, reuse);
	json_array_append_new(dev, json_string(pin));
	json_array_append_new(dev, json_string(reuse));
	ticks = malloc((size_t)trials * BUDDY_CASES * sizeof(double));
	ret = ticks ? legacy_run(trials, mean, rc->out, &cold_sum, ticks) : -ENOMEM;
	if (ret < 0) {
		free(ticks);
		json_decref(a);
		json_decref(p);
		json_decref(dev);
		return ret;
	}
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		stats_summarize(ticks + (size_t)cs * trials, trials, &s[cs]);
		snprintf(notes[cs], sizeof(notes[cs]), "%s; median %.0f, min %.0f", buddy_notes[cs],
			 s[cs].median, s[cs].min);
		json_array_append_new(a, json_integer(mean[cs]));
		json_array_append_new(p, json_integer((json_int_t)POSTED(cs)));
		json_array_append_new(med, json_real(s[cs].median));
		rows[cs] = (struct repro_row){ score_labels[cs], { (double)mean[cs] }, notes[cs] };
	}
	free(ticks);
	json_object_set_new(rc->json, "legacy", json_pack("{s:o,s:o,s:o,s:o,s:I,s:i,s:f,s:f,s:f}",
		"scores", a, "medians", med, "posted_2004", p, "deviations", dev, "trials",
		(json_int_t)trials, "cpu", cpu,
		"score1/score0", (double)mean[1] / mean[0], "score4/score3", (double)mean[4] / mean[3],
		"score5/score3", (double)mean[5] / mean[3]));
	ret = repro_print_beside(rc->out, &posted_2004, &meas);
	if (ret < 0)
		return ret;
	fprintf(rc->out, "legacy ratios of the means (2004 in parentheses): score1/score0 %.2f (%.2f)  "
			 "score4/score3 %.2f (%.2f)  score5/score3 %.2f (%.2f)\n",
		(double)mean[1] / mean[0], POSTED(1) / POSTED(0), (double)mean[4] / mean[3],
		POSTED(4) / POSTED(3), (double)mean[5] / mean[3], POSTED(5) / POSTED(3));
	fprintf(rc->out, "legacy ratios of the medians: score1/score0 %.2f  score4/score3 %.2f  "
			 "score5/score3 %.2f\n", s[1].median / s[0].median, s[4].median / s[3].median,
		s[5].median / s[3].median);
	{
		/* on the medians: one disturbed loop moves a mean of 100 */
		struct repro_claim c = {
			.what = "legacy, hot line (score 0 vs 1, medians)", .a = "__set_bit (btsl)",
			.b = "set_bit (lock btsl)", .unit = "ticks per loop", .pub_unit = "ticks per loop",
			.ea = &s[0].median, .eb = &s[1].median, .n = 1, .pub_a = POSTED(0),
			.pub_b = POSTED(1), .pub_machine = POSTED_MACHINE,
			.pub_words = "atomic ops are 10x more costly, yes? / yes, when L2 cache hits",
		};

		repro_conclude(rc, &c);
		c.what = "legacy, \"cold\" line (score 3 vs 4, medians)";
		c.ea = &s[3].median;
		c.eb = &s[4].median;
		c.pub_a = POSTED(3);
		c.pub_b = POSTED(4);
		c.pub_words = NULL;
		repro_conclude(rc, &c);
	}
	fflush(rc->out);
	return 0;
}

int repro_buddy_run(struct repro_ctx *rc)
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
