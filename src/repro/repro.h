/* SPDX-License-Identifier: MIT */
/* repro/repro.h - reproductions of published scorings (docs/reproductions.md):
 * each prints the post's tables beside its own, judges its conclusions over
 * passes and returns its figures as JSON for the report. */
#ifndef ATOMCOST_REPRO_H
#define ATOMCOST_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "clock.h"
#include "config.h"
#include "quiet.h"
#include "report.h"
#include "stats.h"
#include "topo.h"

struct report;
struct run_opts;

struct repro_ctx {
	const struct experiment *exp;
	struct topo *t;
	const struct calibration *cal;
	int cpu_os;		/* the pinned PU of the calling thread */
	FILE *out;		/* the seed-shaped tables */
	json_t *json;		/* this reproduction's figures (filled by it) */
	json_t *conclusions;	/* json["conclusions"]: made by the first repro_conclude */
	const char *machine;	/* this machine in one line (fingerprint), for the tables */
	struct repro_patience *patience;	/* NULL: a disturbed pass is never run again */
};

/* What the reproductions of one run may spend under load (--patience)
 * waiting for a quiet window and running a disturbed pass again, and what
 * they spent. */
struct repro_patience {
	double patience_s;	/* < 0: twice the run's quiet time so far */
	uint64_t start_ns;	/* when the run began */
	double waited_s;	/* in quiet_wait */
	double repeat_s;	/* in passes that were run again */
	unsigned repeated;	/* passes run again */
	unsigned retimed;	/* figures timed again (repro_figure_again) */
	unsigned kept_disturbed;	/* disturbed passes not run again: the patience ran out */
	unsigned vain_figures;	/* figures in a row whose every try ran disturbed
				 * (repro_figure_again) */
	unsigned given_up;	/* disturbed figures not taken again for that */
};

/* One reproduction: src/repro/KIND.c ends with `const struct repro
 * repro_KIND` (HACKING.md, "Adding a reproduction"). */
struct repro {
	const char *kind;		/* [experiment] kind, its config section, its file */
	const char *seed;		/* the seed it reproduces */
	const char *source;		/* the post: author, list, date, subject */
	int (*run)(struct repro_ctx *c);
	const struct cfg_key *keys;	/* its section's rows of the config schema */
	size_t nkeys;
};
#define REPRO_KEYS(...) .keys = (const struct cfg_key[]){ __VA_ARGS__ },			\
	.nkeys = sizeof((const struct cfg_key[]){ __VA_ARGS__ }) / sizeof(struct cfg_key)

extern const struct repro *const repro_list[];
extern const size_t repro_count;

/* Every reproduction's kind and keys into the config schema
 * (config_schema_add), before any experiment is loaded; later calls do
 * nothing. 0 or -errno. */
int repro_register(void);

/* Run every reproduction listed in [experiment] kind, in order; pins and
 * calibrates first when rep->cal is not filled yet. Figures go to
 * rep->meta["reproductions"][kind]. 0 or -errno. */
int repro_run_all(const struct experiment *e, struct topo *t, const struct run_opts *o,
		  struct report *rep, FILE *out);

/* ---- published beside measured (repro/common.c, docs/reproductions.md) ---- */

#define REPRO_MAX_COLS 4

struct repro_row {
	const char *label;		/* as the post prints it: "kmalloc(8)" */
	double v[REPRO_MAX_COLS];	/* one per column; NAN: no figure */
	const char *note;		/* NULL, or what sets the row apart */
};

struct repro_table {
	const char *title;		/* "1. Kmalloc: repeatedly allocate then free, cmpxchg" */
	const char *source;		/* author, list, date, subject (published tables) */
	const char *machine;		/* where the figures were measured */
	const char *unit;		/* "cycles", "core cycles", "ticks per loop" */
	unsigned ncols;			/* 1..REPRO_MAX_COLS */
	const char *cols[REPRO_MAX_COLS];	/* column names: "kmalloc", "kfree" */
	size_t nrows;
	const struct repro_row *rows;
};

/* head, then each of items[0..n) on a line of its own after "  - ". */
void repro_print_list(FILE *out, const char *head, const char *const *items, size_t n);
/* What this machine changes against the post's (its caches against the
 * post's working sets, its CPUs against the post's, the geometry derived
 * from them): items[0..n) under "What this machine changes:", and appended
 * to rc->json["machine_changes"]. */
void repro_print_changes(struct repro_ctx *rc, const char *const *items, size_t n);
/* bytes in binary units ("512 KiB", "1.5 MiB"), "unknown" for 0; buf. */
const char *repro_bytes(char *buf, size_t len, size_t bytes);
/* The declared (hwloc) size of cache level (1-5; 0: the last level) of
 * rc->t; 0 when unknown or no topology. */
size_t repro_cache(const struct repro_ctx *rc, int level);
/* The row of t labelled label, or NULL. */
const struct repro_row *repro_table_row(const struct repro_table *t, const char *label);

/* pub and meas side by side, rows matched by label (pub's rows meas lacks
 * follow, "not measured"), with meas/pub per column. meas->cols must be
 * pub->cols, in order. A published table without rows prints "published:
 * none (source)": its source says why. 0, or -EINVAL (shapes differ). */
int repro_print_beside(FILE *out, const struct repro_table *pub, const struct repro_table *meas);

/* A claim "a costs less than b", judged by stats_judge over the passes'
 * paired figures (docs/method.md "Verdicts"): one pass is "cannot tell". */
struct repro_claim {
	const char *what;		/* "per kmalloc", "per kmalloc/kfree pair" */
	const char *a, *b;		/* "cmpxchg_local", "cmpxchg" */
	const char *unit;		/* of ea, eb: "cycles" */
	const double *ea, *eb;		/* per pass, paired: a's and b's cost (> 0) */
	size_t n;			/* passes */
	const double *share;		/* NULL, or per pass the share of its wall time the
					 * thread had its CPU (quiet_share); passes
					 * under REPRO_SHARE_MIN are left out, and said so */
	const char *pub_unit;		/* of pub_*: "cycles" */
	double pub_a, pub_b;		/* NAN: the post gives none */
	bool pub_derived;		/* pub_* computed from the post's tables, not stated in it */
	const char *pub_words;		/* the post's own summary, quoted; NULL: none */
	const char *pub_machine;	/* where pub_* were measured */
	const char *pub_row;		/* NULL, or the published row pub_* come from */
	bool per_pass;			/* the JSON keeps ea, eb and share too */
	const struct stats_prior *prior;	/* NULL, or the spread of a batch of claims
						 * (repro_claims_prior) it is moderated towards */
};

/* The prior of a batch of claims c[0..n): each claim's variance of its
 * undisturbed passes' log ratios (stats_judge_spread), fitted
 * (stats_prior_fit, Smyth 2004) so that a claim judged with it
 * (repro_claim.prior) borrows the degrees of freedom of the others. 0, or
 * -EINVAL when fewer than STATS_PRIOR_MIN_ROWS claims have two passes (p
 * then holds no prior: df 0). */
int repro_claims_prior(const struct repro_claim *c, size_t n, struct stats_prior *p);

/* A pass with less of its CPU than this was disturbed (another task ran on
 * the PU): the card's rule (card.h CARD_CPU_SHARE). */
#define REPRO_SHARE_MIN 0.90

/* The judgment of the claim over its undisturbed passes (j: NULL, or
 * filled), and its conclusion line (no newline) in buf. VERDICT_NONE when a
 * or b has no measured figure. */
enum verdict repro_conclusion_text(char *buf, size_t len, const struct repro_claim *c,
				   struct judgment *j);
/* repro_conclusion_text() printed to rc->out and appended, with its
 * figures, to rc->json["conclusions"]. */
enum verdict repro_conclude(struct repro_ctx *rc, const struct repro_claim *c);
/* A conclusion that cannot be judged at all, printed ("conclusion WHAT: no
 * verdict: REASON") and kept in rc->json["conclusions"] with a null ratio
 * and its reason, as repro_conclude keeps its VERDICT_NONE ones. */
void repro_unjudged(struct repro_ctx *rc, const char *what, const char *a, const char *b,
		    const char *reason);
/* v[0..n) as a JSON array, null where not finite. */
json_t *repro_doubles_json(const double *v, size_t n);

/* After pass `pass` of `what`, started at p, with share of its CPU (at
 * least quiet_share(p); less where a part of it had less): a
 * disturbed one (under REPRO_SHARE_MIN) is kept in rc->json
 * ["disturbed_passes"] with figs (taken; NULL: none, its figures stay in
 * its slot), and when rc->patience pays for a quiet window and another pass
 * as long, the thread waits for one: true means run the pass again into
 * its slot. The kept record says which. */
bool repro_pass_again(struct repro_ctx *rc, const struct quiet_mark *p, double share,
		      const char *what, size_t pass, json_t *figs);
/* What a reproduction did under load since before (a copy of
 * *c->patience taken before it ran): its wait, the passes it ran again and
 * those it kept disturbed, and which conclusions stayed unjudged and why;
 * printed and into c->json["load"]. */
void repro_say_load(struct repro_ctx *c, const struct repro_patience *before);
/* "calibration untrustworthy: ..." when it is, and its trust into
 * j["calibration_trustworthy"]. */
void repro_say_calibration(const struct calibration *cal, FILE *out, json_t *j);
/* May the patience pay for a wait and a pass of took_s more, now? Pure
 * but for the clock (the default's quiet time). */
bool repro_patience_pays(const struct repro_patience *pt, double took_s, uint64_t now);
/* Involuntary context switches of the calling thread so far; -1: unknown. */
long repro_preemptions(void);

/* One figure's timing, taken again until it ran clean: no involuntary
 * context switch, and its CPU share at least REPRO_SHARE_MIN (quiet.h: a
 * loss under QUIET_LOST_FLOOR_NS is none), at most REPRO_FIGURE_TRIES
 * times. Under load a timing shorter than the slices the scheduler gives
 * the thread mostly runs whole: a pass keeps its figures clean instead
 * of being left out whole. A try taken again is the patience's (pt, when
 * set: its repeat_s; none when the patience cannot pay for it). The loop:
 *	do { repro_figure_start(&f); ...time it... } while (repro_figure_again(&f, &share));
 * share: the last try's; f.tries: how many were taken. It is
 * repro_figure_again_of with the calling thread's share and preemptions. */
#define REPRO_FIGURE_TRIES 8
struct repro_figure {
	struct repro_patience *pt;	/* NULL: tries bounded by the count alone */
	struct quiet_mark m;
	long cs;
	unsigned tries;
};
void repro_figure_start(struct repro_figure *f);
bool repro_figure_again(struct repro_figure *f, double *share);
/* repro_figure_again for a figure whose share and preemption the caller
 * measured (threads it started: the least of their shares, any preempted
 * inside a timed phase; or the calling thread's, read once for the record):
 * the same rule, the same charge to the patience. Taken again when share
 * is under REPRO_SHARE_MIN or preempted, within the tries and the patience,
 * and (pt set) unless the last REPRO_FIGURE_VAIN figures in a row ran every
 * try disturbed: a load that does not let up disturbs every try of a
 * figure longer than its slices, and the patience is better kept for the
 * passes a passing load disturbs (pt->given_up counts those not taken
 * again; a clean try ends the row). */
#define REPRO_FIGURE_VAIN 4
bool repro_figure_again_of(struct repro_figure *f, double share, bool preempted);
/* A try that repro_figure_again_of took again: kept, with figs (taken;
 * NULL: none), in rc->json["retimed_figures"] (what, pass, try, cpu_share,
 * preempted, seconds, figures), so that no timing is lost when the next
 * try overwrites its figures. */
void repro_figure_kept(struct repro_ctx *rc, const struct repro_figure *f, double share,
		       bool preempted, const char *what, size_t pass, json_t *figs);

/* Core cycles per op from a timed loop: (ticks - overhead) / ops /
 * ticks_per_cycle; NAN when ops or ticks_per_cycle is not positive. The
 * overhead is the fixed timer-pair cost (calibration overhead_median). */
double repro_cycles_per_op(double ticks, double overhead, double ops, double ticks_per_cycle);

/* ---- kernel mode: `context = kernel` (repro/common.c, docs/kernel.md) ----
 * The post's own test also runs in atomcost.ko (kmod_run), one sample per
 * pass; under emulation (qemu TCG) no claim is judged. */
#define REPRO_CONTEXT_KEY(sec)								\
	{ sec, "context", CFG_ENUM, "user", "user|kernel", 0, 0, NULL,			\
	  "kernel: also run the post's test in atomcost.ko (root; docs/kernel.md) beside the model" }
struct repro_kclaim {
	const char *what;		/* "per op, the 2007 test" */
	const char *a, *b;		/* kernel rows (probe names): a costs less than b */
};
struct repro_kernel {
	const char *sec;		/* the section: its `context` and `passes` */
	const char *title;		/* of the kernel table */
	const char *pub;		/* where the post's figures are (the tables above) */
	char *const *probes;		/* kernel probe names, run in order */
	size_t nprobes;
	const struct repro_kclaim *claims;
	size_t nclaims;
};
/* Nothing unless sec's `context` is kernel; else the probes' rows (NAME,
 * NAME:free for a concurrent probe's free phase) printed and put in
 * rc->json["kernel"], the claims judged. 0, or kmod_run's -errno. */
int repro_kernel_run(struct repro_ctx *rc, const struct repro_kernel *k);

/* ---- 2004 buddy-bitmap test-atomics (repro/buddy-bitmap-2004.c) ---- */

#define BUDDY_CASES 8
extern const char *const buddy_notes[BUDDY_CASES];

/* Legacy mode: trials of cases 0..7 in order; mean[i] is the mean whole-loop
 * tick count of case i. Prints the eight `score %d is %16lld note: %s` lines
 * to out (NULL: none). *cold_sum receives the sum of the checksums the cold
 * preparations read back (the proof they ran). The trials are grouped into
 * passes of consecutive trials, which only reads each pass's CPU share into
 * share[p] (share not NULL); ticks[cs * trials + t]: each loop's ticks (ticks
 * not NULL). A disturbed pass is run again as repro_pass_again says (rc not
 * NULL), its trials then counted once, the rerun's. 0 or -errno. */
int buddy_legacy(unsigned trials, unsigned passes, long long mean[BUDDY_CASES], FILE *out,
		 uint64_t *cold_sum, double *ticks, double *share, struct repro_ctx *rc);
/* What this machine changes for legacy mode's cold cases: the posted
 * buffer and the one meant to evict it (2 x 512 KiB) against the L2 and LLC
 * (0: unknown), and whether they are still cold. Returns the length. */
int buddy_legacy_cold_text(char *buf, size_t len, size_t l2, size_t llc);
/* The legacy cold preparation: malloc + memset(fill) of 512 KiB, read back
 * one byte per line; returns the checksum (fill * lines). *keep receives the
 * buffer (the caller frees it), or keep is NULL (freed here). */
uint64_t buddy_cold_prep(unsigned char fill, void **keep);
/* How many cold preparations ran since the process started. */
extern volatile uint64_t buddy_cold_preps;
/* Legacy cold buffers held until the end of a run (the posted program never
 * freed them); beyond this many, each is freed at once. */
#define BUDDY_COLD_KEEP_MAX 600

/* Modern mode's cold walk: pairs of lines in a random single cycle, the ops
 * on word 0 of each line, a chase link in word 1 of the first, in the same
 * order. */
#define BUDDY_COLD_DEFAULT (256ul << 20)	/* far above any real LLC of the dev guests */
#define BUDDY_COLD_MIN (16ul << 20)
#define BUDDY_LINK_OFF 8
struct buddy_cold {
	void *map;
	size_t map_len;
	char *buf;		/* 2 MiB aligned */
	size_t bytes;		/* npairs * pair */
	size_t pair;		/* two lines */
	size_t npairs;
	uint32_t *order;	/* npairs + tail entries: the walk, then its start again */
	size_t pos;		/* where the next walk of the ops starts */
	char *cursor;		/* where the next chase starts */
	bool thp;		/* MADV_HUGEPAGE accepted */
};
/* The cold buffer size: requested (0: BUDDY_COLD_DEFAULT), at least 8 times
 * l2 (0: unknown) and BUDDY_COLD_MIN, at most half of mem_available (0:
 * unknown). 0, or -EINVAL / -ENOMEM after a message naming the value. */
int buddy_cold_bytes(size_t requested, size_t l2, uint64_t mem_available, size_t *bytes);
/* Map, touch and link a walk over bytes in lines of line bytes; tail: the
 * longest walk of the ops (at most npairs). Deterministic for a seed. */
int buddy_cold_create(struct buddy_cold *c, size_t bytes, size_t line, size_t tail, uint64_t seed);
void buddy_cold_destroy(struct buddy_cold *c);
/* Links followed from the first pair until back to it; 0 if the chain leaves
 * the buffer or does not return within npairs steps. */
size_t buddy_cold_ring_length(const struct buddy_cold *c);

/* Modern mode's loops: the posted eight cases, then cases 3-5 again on the
 * dependent walk (8-10: each pair's address from the previous pair's link). */
#define BUDDY_MODERN_CASES 11
/* One timed loop of modern mode, in ticks: variant v (0 2004, 1 kernel, 2
 * var, 3 orb, 4 orq, 5 ds, as the config's `variants`), case cs, iters
 * iterations of two ops; hot cases prepare hot first; cases 3-5 advance
 * c->pos, cases 8-10 c->cursor. */
uint64_t buddy_modern_loop(size_t v, int cs, char *hot, struct buddy_cold *c, size_t iters,
			   size_t line);

/* Conclusions over passes: the trials are split into passes of consecutive
 * trials (pass p: trials p*trials/passes up to (p+1)*trials/passes), each
 * with its own preparations; a pass's figure of a case is its median. */
#define BUDDY_PASSES 5
/* min(BUDDY_PASSES, trials) */
size_t buddy_passes(size_t trials);
/* med[p]: the median of v over the trials of pass p. */
void buddy_pass_medians(const double *v, size_t trials, size_t passes, double *med);
/* A ratio of means never goes out bare: "score1/score0 3.91 (2004: 8.48;
 * passes 3.80-4.02)", the ratio of the means of a and b over all trials,
 * the posted one (NAN: none), and the range of the passes' ratios of
 * means ("one pass: no spread" when passes < 2). Returns the length. */
int buddy_ratio_of_means_text(char *buf, size_t len, const char *name, const double *a,
			      const double *b, size_t trials, size_t passes, double posted);

/* ---- the SLUB model (repro/slub-cmpxchg-local.c), shared by the 2007 and 2015 ones ---- */

#define barrier() asm volatile("" ::: "memory")
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Which fast path the model runs. SLUB_FP_TID (0, what slab_cache_init
 * sets) is the kernel's since 2011: a per-CPU {freelist, tid} pair committed
 * by a 16-byte compare-and-exchange. SLUB_FP_2007 is the one the 2007 post
 * measured: the per-CPU freelist word alone, committed by a single-word
 * compare-and-exchange, no transaction id. */
enum slub_fastpath {
	SLUB_FP_TID,
	SLUB_FP_2007,
	SLUB_FP__COUNT,
};
extern const char *const slub_fastpath_names[SLUB_FP__COUNT];	/* config names */

enum slub_variant {
	SLUB_LOCKED,	/* 2011: lock cmpxchg16b; 2007: lock cmpxchgq, kfree's smp_rmb() (cmpxchg) */
	SLUB_LOCAL,	/* 2011: cmpxchg16b; 2007: cmpxchgq + preempt_disable analog,
			 * kfree's barrier() (cmpxchg_local) */
	SLUB_THIS_CPU,	/* cmpxchg16b / cmpxchgq %fs:off (this_cpu_cmpxchg) */
	SLUB_RSEQ,	/* rseq critical section on a per-CPU freelist (same in both) */
	SLUB_IRQOFF,	/* flags save + plain loads/stores (local_irq_save analog) */
	SLUB_LOCKED_BARRIER,	/* 2007 only: cmpxchg with barrier() in place of the rmb
				 * (the fence's share); measured whenever cmpxchg is */
	SLUB__COUNT,
};
/* Names in the config and the JSON; "cmpxchg+barrier" is not a config
 * name: listing cmpxchg measures it too, on the 2007 fast path. */
extern const char *const slub_variant_names[SLUB__COUNT];
/* NULL, or why the variant cannot run here, in fast path fp. */
const char *slub_variant_unavailable_in(enum slub_fastpath fp, enum slub_variant v);

/* Per-slab pair {freelist, counters} (kernel: slab->freelist, counters),
 * changed with a locked cmpxchg128 by remote frees. counters: inuse in the
 * low 32 bits, frozen (owned by a CPU) in bit 32. */
struct slab_meta {
	void *freelist;
	uint64_t counters;
	int32_t next;		/* partial list link, -1: end */
	int32_t on_partial;
} __attribute__((aligned(16)));

struct slab_cache {
	size_t size;		/* object size */
	unsigned shift;		/* slab bytes = 1 << shift, slabs aligned to it */
	unsigned objs;		/* objects per slab */
	unsigned id;		/* per-thread cpu struct slot */
	uint64_t gen;		/* detects a stale per-thread slot */
	char *map, *arena;
	size_t map_size, max_slabs, nslabs;
	struct slab_meta *meta;
	uint64_t lock;		/* the node's list_lock */
	int32_t partial;	/* partial list head, -1: empty */
	enum slub_fastpath fastpath;	/* SLUB_FP_TID unless set after init */
};

/* The slab's geometry as the kernel's calculate_order() picks it
 * (simplified: no waste fraction): at least slab_min_objects(ncpus) = 4 *
 * (fls(ncpus) + 1) objects (12 for 2 CPUs, 20 for 8), in the smallest slab
 * of 4 KiB << order (order at most 3) that holds them and one object.
 * Returns the objects per slab; *shift: log2 of the slab's bytes. */
unsigned slab_min_objects(unsigned ncpus);
unsigned slab_geometry(size_t size, unsigned ncpus, unsigned *shift);
/* The CPUs the kernel's nr_cpu_ids would count here (the configured ones):
 * what slab_cache_init sizes its slabs from. */
unsigned slab_model_cpus(void);
/* A cache for max_objects objects of size bytes (arena reserved up front),
 * its slabs as slab_geometry() picks them for slab_model_cpus(). 0 or
 * -errno. */
int slab_cache_init(struct slab_cache *s, size_t size, size_t max_objects);
void slab_cache_destroy(struct slab_cache *s);
void *slab_alloc(struct slab_cache *s, enum slub_variant v);
void slab_free(struct slab_cache *s, enum slub_variant v, void *obj);
/* Free objects: in slab freelists plus the calling thread's cpu freelist
 * (other threads add theirs with slab_cpu_free_count). SLUB_RSEQ keeps its
 * freelists per CPU, shared by the threads on that CPU: its count covers
 * every CPU's freelist. */
size_t slab_free_in_slabs(const struct slab_cache *s);
size_t slab_cpu_free_count(struct slab_cache *s, enum slub_variant v);
/* Give the calling thread's cpu freelist back to its slab (a flush); for
 * SLUB_RSEQ every CPU's freelist (call it when no thread allocates). */
void slab_cpu_flush(struct slab_cache *s, enum slub_variant v);
static inline size_t slab_index(const struct slab_cache *s, const void *obj)
{
	return (size_t)((const char *)obj - s->arena) >> s->shift;
}

/* The slab layer under every fast path (the 2007/2011 ones and the 2015
 * bulk ones): a free object's first word links it to the next. */
static inline void *slab_next(const void *obj)
{
	return *(void *const *)obj;
}

static inline void slab_set_next(void *obj, void *next)
{
	*(void **)obj = next;
}

/* The per-CPU structure (kmem_cache_cpu): freelist and tid form the 16-byte
 * pair of the 2011 fast path; the 2007 one commits on freelist alone. */
struct kmem_cpu {
	void *freelist;
	uint64_t tid;
	int64_t slab;		/* slab index, -1: none */
	uint64_t gen;		/* == cache gen when this slot is the cache's */
} __attribute__((aligned(16)));
#define SLUB_TID_STEP 1024	/* power of two >= CPUs: tids never collide across CPUs */

/* c, emptied first if it last served another cache (or an earlier pass). */
static inline struct kmem_cpu *slab_cpu_own(const struct slab_cache *s, struct kmem_cpu *c)
{
	if (__builtin_expect(c->gen != s->gen, 0)) {
		c->freelist = NULL;
		c->slab = -1;
		c->tid = 0;
		c->gen = s->gen;
	}
	return c;
}
/* ___slab_alloc: refill c (its slab's remote frees, else a partial slab,
 * else a new one, frozen to c), advance its tid; an object, NULL: full. */
void *slab_alloc_slow(struct slab_cache *s, struct kmem_cpu *c);
/* __slab_free: cnt objects head..tail of slab idx onto the slab's own
 * {freelist, counters} by a locked cmpxchg128; a full slab becomes partial. */
void slab_free_slow(struct slab_cache *s, size_t idx, void *head, void *tail, unsigned cnt);

/* The fast path, one template for both kernels' and every commit form (the
 * 2007 and 2011 variants, the 2015 bulk model's kernel commit and its plain
 * twin): alloc_##NAME(s) and free_##NAME(s, idx, head, tail, cnt) on a
 * CACHE *s, whose kmem_cpu is CPU(s); ALLOC_SLOW(s, c) and FREE_SLOW(s, idx,
 * head, tail, cnt) its slow paths; COMMIT(s, c, old, nlo, nhi) sets
 * {freelist, tid} to {nlo, nhi} when it still holds old[] (true), else
 * reloads old[]. TID 1, the kernel since 2011: tid read, barrier(), then the
 * freelist; a free checks the slab before it reads the freelist. TID 0, the
 * 2007 one: the freelist word alone (the commit ignores tid), read first; a
 * free orders it before its slab check with ORDER(); ENTER() and EXIT()
 * around both (the preempt count of cmpxchg_local). */
#define SLUB_FASTPATH(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT, TID, ENTER, EXIT, ORDER) \
static inline __attribute__((always_inline)) void *alloc_##NAME(CACHE *s)		\
{											\
	struct kmem_cpu *c;								\
	void *obj;									\
											\
	ENTER();									\
	c = CPU(s);									\
	for (;;) {									\
		uint64_t old[2] = { 0, TID ? c->tid : 0 };				\
											\
		if (TID)								\
			barrier();							\
		obj = c->freelist;							\
		if (unlikely(!obj)) {							\
			obj = ALLOC_SLOW(s, c);						\
			break;								\
		}									\
		old[0] = (uint64_t)(uintptr_t)obj;					\
		if (likely(COMMIT(s, c, old, (uint64_t)(uintptr_t)slab_next(obj),	\
				  old[1] + SLUB_TID_STEP)))				\
			break;								\
	}										\
	EXIT();										\
	return obj;									\
}											\
static inline __attribute__((always_inline)) void free_##NAME(CACHE *s, size_t idx,	\
							       void *head, void *tail,	\
							       unsigned cnt)		\
{											\
	struct kmem_cpu *c;								\
											\
	ENTER();									\
	c = CPU(s);									\
	for (;;) {									\
		uint64_t old[2] = { TID ? 0 : (uint64_t)(uintptr_t)c->freelist,	\
				    TID ? c->tid : 0 };					\
											\
		ORDER();								\
		if (unlikely((int64_t)idx != c->slab)) {				\
			FREE_SLOW(s, idx, head, tail, cnt);				\
			break;								\
		}									\
		if (TID)								\
			old[0] = (uint64_t)(uintptr_t)c->freelist;			\
		slab_set_next(tail, (void *)(uintptr_t)old[0]);				\
		if (likely(COMMIT(s, c, old, (uint64_t)(uintptr_t)head,		\
				  old[1] + SLUB_TID_STEP)))				\
			break;								\
	}										\
	EXIT();										\
}
#define SLUB_NOTHING() do { } while (0)
/* The kernel's since 2011. */
#define SLUB_TID_FASTPATHS(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT)		\
	SLUB_FASTPATH(NAME, CACHE, CPU, ALLOC_SLOW, FREE_SLOW, COMMIT, 1, SLUB_NOTHING,	\
		      SLUB_NOTHING, barrier)

/* The 2007 post's saving of cmpxchg_local over cmpxchg for test (1: repeat,
 * 2: pair) and column col (test 1: 0 kmalloc, 1 kfree), derived from its
 * tables, as it states no single figure: the lower median, over the given
 * sizes the post has (<= 2048), of its per-size differences, and the row
 * that holds it (*label; *a cmpxchg_local's, *b cmpxchg's figure). Returns
 * b - a, NAN when no size qualifies. */
double slub_pub_saving(int test, unsigned col, const uint64_t *sizes, size_t nsizes, double *a,
		       double *b, const char **label);

/* ---- the 2015 bulk alloc/free model (repro/slub-bulk-free.c) ----
 * SLUB as in v4.1 for the calling thread, with the posted series (netdev /
 * linux-mm, 15-16 Jun 2015) through 7/7; the bulk algorithms: */
enum bulk_algo {
	BULK_FALLBACK,	/* kmem_cache_alloc / kmem_cache_free one by one */
	BULK_PREVIOUS,	/* through 6/7: bulk alloc, free one by one (the post's "previous patch") */
	BULK_POSTED,	/* through 7/7: 6/7 bulk alloc + bulk free (IRQs toggled around __slab_free) */
	BULK_DETACHED,	/* later (v4.3): detached freelists, no IRQ toggling */
	BULK_TWIN,	/* the fallback with a plain compare-and-store commit: prices the commit */
	BULK__COUNT,
};
extern const char *const bulk_algo_names[BULK__COUNT];
/* Counts, as CONFIG_SLUB_STATS: __slab_free calls (each one group of
 * objects), ___slab_alloc refills; and the ops the what-if prices:
 * local_irq_disable/enable pairs, local_irq_save/restore pairs and
 * this_cpu_cmpxchg_double commits; and the twin's plain commits. */
struct bulk_stats {
	uint64_t free_slow, alloc_slow;
	uint64_t irq_pairs, irq_saves, cpu_cmpxchg, plain_commits;
};
/* The slab layer of the SLUB model, and the counts this model adds. */
struct bulk_cache {
	struct slab_cache s;
	struct bulk_stats st;
};
int bulk_cache_create(struct bulk_cache **out, size_t size, size_t max_objects);
void bulk_cache_destroy(struct bulk_cache *c);
/* n objects into p[] (0, or -ENOMEM with none allocated). */
int bulk_alloc(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p);
/* Free p[0..n) (the detached algorithm consumes p[]: entries set to NULL). */
void bulk_free(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p);
/* Free objects in the slabs and on the calling thread's CPU freelist. */
size_t bulk_cache_free_objects(struct bulk_cache *c);
/* The calling thread's CPU slab, -1: none. */
int64_t bulk_cpu_slab(struct bulk_cache *c);

/* The machine of the series' own figures (named in its commit messages)
 * and its CPUs (4 cores, 8 threads): what the post's slabs were sized for. */
#define BULK_POST_MACHINE "i7-4790K"
#define BULK_POST_CPUS 8
/* "objects per SIZE-byte slab: N here (..), M on the series' i7-4790K
 * (..)": slab_geometry for cpus_here and BULK_POST_CPUS. Returns the
 * length (snprintf). */
int bulk_geometry_text(char *buf, size_t len, size_t size, unsigned cpus_here);

/* One figure per priced op: a count per object, or a cost in core cycles
 * per op (a disable/enable pair, a save/restore pair, a commit). */
struct bulk_ops {
	double irq_pair, irq_save, cpu_cmpxchg;
};
/* The series' own figures (commit messages of 6/7 and 7/7, i7-4790K): 7, 37
 * and 9 cycles(tsc) of its 4.00 GHz TSC, taken as core cycles. */
extern const struct bulk_ops bulk_kernel_cost;
/* Ops per object between two snapshots over objs objects. */
void bulk_ops_per_object(const struct bulk_stats *s0, const struct bulk_stats *s1, double objs,
			 struct bulk_ops *per_obj);
/* WHAT-IF: timer ticks per object with each op's model cost (core cycles)
 * replaced by the kernel's: ticks + ticks_per_cycle * sum of
 * per_obj * (kernel - model). */
double bulk_whatif(double ticks, const struct bulk_ops *per_obj, const struct bulk_ops *model,
		   const struct bulk_ops *kernel, double ticks_per_cycle);
/* The commit's cost in context, core cycles per commit: the fallback's and
 * its plain-commit twin's timer ticks per object (one pass), commits per
 * object, ticks per core cycle. */
double bulk_commit_in_context(double fallback_ticks, double twin_ticks, double commits,
			      double ticks_per_cycle);

/* ---- the 2016 concurrent SLAB model (repro/slab-concurrent.c) ---- */

struct aslab_cache;
/* LOCKED: the post's "before" (the previous patch applied); LOCKLESS: the
 * seed's patch on top of it. */
enum aslab_variant { ASLAB_LOCKED, ASLAB_LOCKLESS };
int aslab_create(struct aslab_cache **out, size_t size, unsigned nthreads, size_t max_objects,
		 enum aslab_variant v);
void aslab_destroy(struct aslab_cache *c);
/* tid: 0..nthreads-1, the calling thread's per-CPU array cache. */
void *aslab_alloc(struct aslab_cache *c, unsigned tid);
void aslab_free(struct aslab_cache *c, unsigned tid, void *obj);
/* One thread's counts since aslab_create, kept by that thread (read them
 * from it, or when it is done). Before: locks = refills + grows + flushes
 * from one thread alone; after: one acquisition fewer per grow. */
struct aslab_stats {
	uint64_t refills, grows, flushes, locks, contended;
	uint64_t wait_ticks;	/* timer ticks spent waiting in the contended ones */
};
void aslab_stats(const struct aslab_cache *c, unsigned tid, struct aslab_stats *st);
/* Free objects everywhere (slabs, shared array, per-thread arrays) and the
 * total capacity of the slabs grown; call when no thread allocates. */
void aslab_count(struct aslab_cache *c, size_t *free_objs, size_t *capacity);

/* What the 2016 run's working set is against this machine's caches: n
 * objects per thread of each of sizes[0..nsizes), nth threads, the L2 and
 * LLC (0: unknown); which sizes keep a thread's objects in L2. Returns the
 * length (snprintf). */
int conc_footprint_text(char *buf, size_t len, unsigned nth, size_t n, const uint64_t *sizes,
			size_t nsizes, size_t l2, size_t llc);

/* One thread's timestamps: each phase starts right after a barrier released
 * the thread and ends right after its own last op, so the wait for the
 * slowest thread at the next barrier is in neither phase. */
struct conc_stamps {
	uint64_t alloc_start, alloc_end, free_start, free_end;
};
/* Average timer ticks per alloc and per free over nth threads of n ops each
 * (the post's "Average=A/F"). 0, -EINVAL (no thread or op), -ERANGE (stamps
 * out of order). */
int conc_average(const struct conc_stamps *st, unsigned nth, size_t n, double *alloc_avg,
		 double *free_avg);
/* How much of the longest thread's alloc (or free) phase every thread ran at
 * once: 0 (they ran one after the other) .. 1. */
double conc_overlap(const struct conc_stamps *st, unsigned nth, bool free_phase);

#endif
