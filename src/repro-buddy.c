/* repro-buddy.c - the 2004 buddy-bitmap "test-atomics" scoring (seed
 * buddy-bitmap-test-atomics-2004, ../shared/reference/test-atomics-2004.md).
 *
 * Legacy mode rebuilds the posted program: 512 KiB buffer, 128-byte line,
 * stride of two lines (2048 iterations), 100 trials of cases 0..7 in order,
 * unserialized rdtsc around each whole loop, the mean tick count, and the
 * line `score %d is %16lld note: %s`. Its loops are NOT unrolled (the
 * original's were not), on purpose. Documented hygiene fixes, nothing else:
 *  1. the ops are `asm volatile` with a memory clobber (the original's
 *     __set_bit was plain asm: a compiler may merge the repeated ops);
 *  2. the cold preparation (malloc + memset of another 512 KiB) is made
 *     observable: its bytes are read back into a checksum the caller gets,
 *     so gcc cannot delete it (gcc 12 -O2 deletes the original's), and the
 *     buffer is freed (the original leaked 512 KiB per cold case).
 * The legacy "cache miss" cases still use 512 KiB, which no longer evicts
 * anything from today's caches: that is the point of comparing with modern.
 *
 * Modern mode: the same eight cases sized from hwloc (line size; the buffer
 * is the L2 size, as 2004 used its L2 size), evicted by clflush of every line
 * (a sweep larger than the LLC hwloc reports here, 508 MiB, would be slow
 * and still uncertain), pinned, serialized timer, core cycles, median / min /
 * CI over the trials and per-op figures beside the totals, for each
 * instruction pair today's kernel emits.
 */
#include "repro.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "common.h"
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

/* Posted on 27 Aug 2004 (Xeon MP 1.9 GHz, 32-bit). */
static const long long posted_2004[BUDDY_CASES] = {
	64011, 543011, 303901, 344261, 1131085, 593443, 118455, 416195,
};

static const bool case_cold[BUDDY_CASES] = { 0, 0, 0, 1, 1, 1, 0, 0 };

volatile uint64_t buddy_cold_preps;

#define LEGACY_SIZE (512 * 1024)
#define LEGACY_LINE 128
#define LEGACY_TRIALS 100

/* Keep a pointer's memory "used": the compiler must assume the asm reads
 * every byte it points to, so stores before it cannot be deleted. */
#define ESCAPE(p) asm volatile("" : : "r"(p) : "memory")

uint64_t buddy_cold_prep(unsigned char fill)
{
	unsigned char *p = malloc(LEGACY_SIZE);
	uint64_t sum = 0;

	if (!p)
		return 0;
	memset(p, fill, LEGACY_SIZE);
	ESCAPE(p);
	for (size_t i = 0; i < LEGACY_SIZE; i += LEGACY_LINE)
		sum += ((volatile unsigned char *)p)[i];
	free(p);
	buddy_cold_preps = buddy_cold_preps + 1;
	return sum;
}

static void hot_prep(char *buf, size_t size)
{
	memset(buf, 0, size);
	ESCAPE(buf);
}

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

int buddy_legacy(unsigned trials, long long mean[BUDDY_CASES], FILE *out, uint64_t *cold_sum)
{
	char *buf = mmap(NULL, LEGACY_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long total[BUDDY_CASES] = { 0 };

	*cold_sum = 0;
	if (buf == MAP_FAILED) {
		pr_err("buddy-bitmap-2004: cannot map the %d KiB buffer", LEGACY_SIZE / 1024);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < trials; t++) {
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			if (case_cold[cs])
				*cold_sum += buddy_cold_prep((unsigned char)(1 + (t * BUDDY_CASES + cs) % 127));
			else
				hot_prep(buf, LEGACY_SIZE);
			total[cs] += (long long)legacy_case(cs, buf);
		}
	}
	munmap(buf, LEGACY_SIZE);
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		mean[cs] = trials ? total[cs] / (long long)trials : 0;
		if (out)
			fprintf(out, "score %d is %16lld note: %s\n", cs, mean[cs], buddy_notes[cs]);
	}
	return 0;
}
#else
int buddy_legacy(unsigned trials, long long mean[BUDDY_CASES], FILE *out, uint64_t *cold_sum)
{
	pr_err("buddy-bitmap-2004: legacy mode needs the 32-bit bts and a raw timer (x86 only)");
	return -ENOTSUP;
}
#endif

/* ---- modern mode ---- */

struct buddy_variant {
	const char *name, *atomic, *plain;
};

static const struct buddy_variant variants[] = {
	{ "2004", "lock btsl $nr,mem", "btsl $nr,mem" },
	{ "orb", ARCH_INSN_SET_BIT_IMM, ARCH_INSN_SET_BIT_IMM_NL },
	{ "btsq", ARCH_INSN_SET_BIT_VAR, ARCH_INSN_SET_BIT_VAR_NL },
	{ "orq", ARCH_INSN_OR_WORD, ARCH_INSN_OR_WORD_NL },
	{ "ds", ARCH_INSN_SET_BIT_IMM_DS, ARCH_INSN_SET_BIT_IMM_NL },
};

/* The eight loops for one instruction pair: A(p, nr) atomic, N(p, nr)
 * plain, identical otherwise. Serialized timer around each whole loop. */
#define MODERN_CASES(V, A, N)								\
static __attribute__((noinline)) uint64_t modern_##V(int cs, char *buf, size_t iters,	\
						     size_t line)			\
{											\
	uint64_t t0 = 0, t1 = 0;							\
	size_t i, off;									\
	char *b2 = buf + line;								\
											\
	switch (cs) {									\
	case 0: MLOOP(N(buf, 1); N(b2, 2)) break;					\
	case 1: MLOOP(A(buf, 1); A(b2, 2)) break;					\
	case 2: MLOOP(N(buf, 1); A(b2, 2)) break;					\
	case 3: MLOOP(N(buf + off, 1); N(b2 + off, 2)) break;				\
	case 4: MLOOP(A(buf + off, 1); A(b2 + off, 2)) break;				\
	case 5: MLOOP(N(buf + off, 1); A(b2 + off, 2)) break;				\
	case 6: MLOOP(N(buf + off, 1); N(buf + off, 2)) break;				\
	case 7: MLOOP(N(buf + off, 1); A(buf + off, 2)) break;				\
	}										\
	return t1 - t0;									\
}
#define MLOOP(BODY)								\
	t0 = arch_timer_start();						\
	for (i = 0, off = 0; i < iters; i++, off += 2 * line) {			\
		BODY;								\
	}									\
	t1 = arch_timer_stop();

#define OP_ORB_A(p, nr) arch_set_bit_imm(p, 1u << (nr))
#define OP_ORB_N(p, nr) arch_set_bit_imm_nl(p, 1u << (nr))
#define OP_BTSQ_A(p, nr) arch_set_bit_var(nr, p)
#define OP_BTSQ_N(p, nr) arch_set_bit_var_nl(nr, p)
#define OP_ORQ_A(p, nr) arch_or_word(p, 1ull << (nr))
#define OP_ORQ_N(p, nr) arch_or_word_nl(p, 1ull << (nr))
#if defined(ARCH_HAS_BIT32_IMM) && ARCH_HAS_BIT32_IMM
#define OP_2004_A(p, nr) arch_bts32_imm(p, nr)
#define OP_2004_N(p, nr) arch_bts32_imm_nl(p, nr)
#else
#define OP_2004_A OP_ORB_A
#define OP_2004_N OP_ORB_N
#endif
#if defined(ARCH_HAS_DS_PREFIX) && ARCH_HAS_DS_PREFIX
#define OP_DS_A(p, nr) arch_set_bit_imm_ds(p, 1u << (nr))
#else
#define OP_DS_A OP_ORB_N
#endif

MODERN_CASES(2004, OP_2004_A, OP_2004_N)
MODERN_CASES(orb, OP_ORB_A, OP_ORB_N)
MODERN_CASES(btsq, OP_BTSQ_A, OP_BTSQ_N)
MODERN_CASES(orq, OP_ORQ_A, OP_ORQ_N)
MODERN_CASES(ds, OP_DS_A, OP_ORB_N)

typedef uint64_t (*modern_fn)(int cs, char *buf, size_t iters, size_t line);
static const modern_fn modern_fns[] = { modern_2004, modern_orb, modern_btsq, modern_orq, modern_ds };

static const char *variant_unavailable(size_t v)
{
#if !(defined(ARCH_HAS_BIT32_IMM) && ARCH_HAS_BIT32_IMM)
	if (v == 0)
		return "no 32-bit bts with an immediate on this architecture";
#endif
#if !(defined(ARCH_HAS_DS_PREFIX) && ARCH_HAS_DS_PREFIX)
	if (v == 4)
		return "no ds-prefixed (UP-patched) form on this architecture";
#endif
	return NULL;
}

static void cold_prep(char *buf, size_t size, size_t line, char *sweep, size_t sweep_size)
{
#if defined(ARCH_HAS_CACHE_FLUSH) && ARCH_HAS_CACHE_FLUSH
	(void)sweep;
	(void)sweep_size;
	for (size_t i = 0; i < size; i += line)
		arch_flush_line(buf + i);
	arch_mfence();
#else
	memset(sweep, 1, sweep_size);
	ESCAPE(sweep);
#endif
}

static int run_modern(struct repro_ctx *rc, unsigned trials)
{
	const struct experiment *e = rc->exp;
	size_t line = topo_line_size(rc->t), l2 = topo_cache_size(rc->t, 2);
	size_t size = config_u64(e, "buddy-bitmap-2004", "buffer"), iters, sweep_size = 0;
	double tpc = rc->cal->ticks_per_cycle, ovh = rc->cal->overhead_min;
	double *samples[BUDDY_CASES] = { 0 };
	char *buf = NULL, *sweep = NULL;
	json_t *jvars = json_object();
	int ret = 0;

	json_object_set_new(rc->json, "modern", jvars);
	if (!line)
		line = 64;
	if (!size)
		size = l2 ? l2 : LEGACY_SIZE;
	size = size / (2 * line) * (2 * line);
	if (size < 4 * line) {
		pr_err("buddy-bitmap-2004: buffer: %zu bytes is less than 4 lines of %zu", size, line);
		return -EINVAL;
	}
	iters = size / (2 * line);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
#if !(defined(ARCH_HAS_CACHE_FLUSH) && ARCH_HAS_CACHE_FLUSH)
	sweep_size = 2 * topo_llc_size(rc->t);
	if (sweep_size < 64u << 20)
		sweep_size = 64u << 20;
	sweep = malloc(sweep_size);
	if (!sweep) {
		ret = -ENOMEM;
		goto out;
	}
#endif
	for (int cs = 0; cs < BUDDY_CASES; cs++) {
		samples[cs] = malloc(trials * sizeof(double));
		if (!samples[cs]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	fprintf(rc->out, "\nmodern: CPU %d pinned, line %zu B, buffer %zu KiB (%s), stride %zu B, %zu "
			 "iterations, %u trials,\n        cold = %s, serialized timer, core cycles "
			 "(%.4f ticks/cycle), timer overhead %.0f ticks subtracted\n",
		rc->cpu_os, line, size / 1024, config_u64(e, "buddy-bitmap-2004", "buffer") ? "buffer key" : "L2 from hwloc",
		2 * line, iters, trials,
		sweep ? "sweep of 2x the LLC" : "clflush of every line + mfence", tpc, ovh);
	json_object_set_new(rc->json, "modern_setup",
			    json_pack("{s:I,s:I,s:I,s:I,s:s}", "line", (json_int_t)line, "buffer",
				      (json_int_t)size, "iterations", (json_int_t)iters, "trials",
				      (json_int_t)trials, "cold", sweep ? "sweep" : "clflush"));

	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		json_t *jv, *jcases = json_array();
		double med[BUDDY_CASES];
		const char *why = variant_unavailable(v);

		if (!config_list_has(e, "buddy-bitmap-2004", "variants", variants[v].name)) {
			json_decref(jcases);
			continue;
		}
		jv = json_pack("{s:s,s:s}", "atomic", variants[v].atomic, "plain", variants[v].plain);
		json_object_set_new(jvars, variants[v].name, jv);
		fprintf(rc->out, "\nvariant %s: atomic %s, non-atomic %s\n", variants[v].name,
			variants[v].atomic, variants[v].plain);
		if (why) {
			fprintf(rc->out, "unavailable: %s\n", why);
			json_object_set_new(jv, "unavailable", json_string(why));
			json_decref(jcases);
			continue;
		}
		/* warm-up trial, not kept */
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			hot_prep(buf, size);
			modern_fns[v](cs, buf, iters, line);
		}
		for (unsigned t = 0; t < trials; t++)
			for (int cs = 0; cs < BUDDY_CASES; cs++) {
				if (case_cold[cs])
					cold_prep(buf, size, line, sweep, sweep_size);
				else
					hot_prep(buf, size);
				samples[cs][t] = ((double)modern_fns[v](cs, buf, iters, line) - ovh) / tpc;
			}
		fprintf(rc->out, "%-8s %12s %12s %25s %9s  %s\n", "score", "median cyc", "min cyc",
			"[95% CI of median]", "cyc/op", "note");
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			struct summary s;
			char ci[64];

			stats_summarize(samples[cs], trials, &s);
			med[cs] = s.median;
			snprintf(ci, sizeof(ci), "[%.0f, %.0f]", s.ci_lo, s.ci_hi);
			fprintf(rc->out, "score %d  %12.0f %12.0f %25s %9.2f  %s\n", cs, s.median, s.min, ci,
				s.median / (2.0 * iters), buddy_notes[cs]);
			json_array_append_new(jcases, json_pack("{s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:f}", "score", cs,
				"note", buddy_notes[cs], "median_cycles", s.median, "min_cycles", s.min,
				"ci_lo", s.ci_lo, "ci_hi", s.ci_hi, "mean_cycles", s.mean,
				"per_op_cycles", s.median / (2.0 * iters)));
		}
		json_object_set_new(jv, "cases", jcases);
		fprintf(rc->out, "ratios (2004 posted in parentheses): score1/score0 %.2f (%.2f)  score4/score3 "
				 "%.2f (%.2f)  score5/score3 %.2f (%.2f)  score7/score6 %.2f (%.2f)\n",
			med[1] / med[0], (double)posted_2004[1] / posted_2004[0], med[4] / med[3],
			(double)posted_2004[4] / posted_2004[3], med[5] / med[3],
			(double)posted_2004[5] / posted_2004[3], med[7] / med[6],
			(double)posted_2004[7] / posted_2004[6]);
		json_object_set_new(jv, "ratios", json_pack("{s:f,s:f,s:f,s:f}", "score1/score0",
			med[1] / med[0], "score4/score3", med[4] / med[3], "score5/score3",
			med[5] / med[3], "score7/score6", med[7] / med[6]));
		fflush(rc->out);
	}
out:
	for (int cs = 0; cs < BUDDY_CASES; cs++)
		free(samples[cs]);
	free(sweep);
	munmap(buf, size);
	return ret;
}

int repro_buddy_run(struct repro_ctx *rc)
{
	const char *mode = config_str(rc->exp, "buddy-bitmap-2004", "mode");
	unsigned trials = (unsigned)config_u64(rc->exp, "buddy-bitmap-2004", "trials");
	int ret = 0;

	if (strcmp(mode, "modern")) {
		long long mean[BUDDY_CASES];
		uint64_t cold_sum;
		json_t *a = json_array(), *p = json_array();

		fprintf(rc->out, "legacy: the 2004 program (512 KiB, 128-byte lines, %u trials, mean "
				 "rdtsc ticks per loop, unpinned timer reads unserialized)\n", trials);
		ret = buddy_legacy(trials, mean, rc->out, &cold_sum);
		if (ret < 0)
			return ret;
		for (int cs = 0; cs < BUDDY_CASES; cs++) {
			json_array_append_new(a, json_integer(mean[cs]));
			json_array_append_new(p, json_integer(posted_2004[cs]));
		}
		json_object_set_new(rc->json, "legacy", json_pack("{s:o,s:o,s:I,s:f,s:f}", "scores", a,
			"posted_2004", p, "trials", (json_int_t)trials, "score1/score0",
			(double)mean[1] / mean[0], "score4/score3", (double)mean[4] / mean[3]));
		fprintf(rc->out, "legacy ratios: score1/score0 %.2f (2004: %.2f)  score4/score3 %.2f (2004: %.2f)\n",
			(double)mean[1] / mean[0], (double)posted_2004[1] / posted_2004[0],
			(double)mean[4] / mean[3], (double)posted_2004[4] / posted_2004[3]);
		fflush(rc->out);
	}
	if (strcmp(mode, "legacy"))
		ret = run_modern(rc, trials);
	return ret;
}
