/* SPDX-License-Identifier: MIT */
/* repro/repro.h - what the reproductions of published scorings
 * (docs/reproductions.md) share: each prints the post's tables beside its
 * own, judges its conclusions over passes and fills its document
 * (report/repro-doc.h) for the report. Each one's own parts are in
 * repro/KIND.h. */
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
#include "report/repro-doc.h"
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
	struct repro_doc *doc;	/* this reproduction's figures (filled by it); NULL: none kept */
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

/* The document's lists, copies and parts (report/repro-doc.h), as
 * repro/common.c fills them. REPRO_DOC_ADD: one more zeroed element of list
 * name of d, NULL when out of memory. repro_doc_keep: n bytes of p copied
 * into d, freed with it (NULL when p is). repro_doc_part: part p made now
 * (the first time counts). */
#define REPRO_DOC_ADD(d, name) \
	repro_doc_grow((void **)&(d)->name, &(d)->n_##name, &(d)->cap_##name, sizeof(*(d)->name))
void *repro_doc_grow(void **v, size_t *n, size_t *cap, size_t size);
void *repro_doc_keep(struct repro_doc *d, const void *p, size_t n);
void repro_doc_part(struct repro_doc *d, enum repro_part p);
void repro_doc_free(struct repro_doc *d);

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
 * rep->meta["reproductions"][kind] (repro_doc_put). 0 or -errno. */
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
 * to the document's machine_changes. */
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
 * figures, to the document's conclusions. */
enum verdict repro_conclude(struct repro_ctx *rc, const struct repro_claim *c);
/* A conclusion that cannot be judged at all, printed ("conclusion WHAT: no
 * verdict: REASON") and kept in the document's conclusions with a null
 * ratio and its reason, as repro_conclude keeps its VERDICT_NONE ones. */
void repro_unjudged(struct repro_ctx *rc, const char *what, const char *a, const char *b,
		    const char *reason);

/* After pass `pass` of `what`, started at p, with share of its CPU (at
 * least quiet_share(p); less where a part of it had less): a
 * disturbed one (under REPRO_SHARE_MIN) is kept in the document's
 * disturbed_passes with figs (taken; NULL: none, its figures stay in
 * its slot), and when rc->patience pays for a quiet window and another pass
 * as long, the thread waits for one: true means run the pass again into
 * its slot. The kept record says which. */
bool repro_pass_again(struct repro_ctx *rc, const struct quiet_mark *p, double share,
		      const char *what, size_t pass, json_t *figs);
/* What a reproduction did under load since before (a copy of
 * *c->patience taken before it ran): its wait, the passes it ran again and
 * those it kept disturbed, and which conclusions stayed unjudged and why;
 * printed and into the document's load. */
void repro_say_load(struct repro_ctx *c, const struct repro_patience *before);
/* "calibration untrustworthy: ..." when it is, and its trust into d. */
void repro_say_calibration(const struct calibration *cal, FILE *out, struct repro_doc *d);
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
 * NULL: none), in the document's retimed_figures (what, pass, try, cpu_share,
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
 * the document's kernel rows, the claims judged. 0, or kmod_run's -errno. */
int repro_kernel_run(struct repro_ctx *rc, const struct repro_kernel *k);

#endif
