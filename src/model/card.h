/* SPDX-License-Identifier: MIT */
/* card.h - the machine card (docs/card.md): one screen computed from a
 * report, never measured; what the report lacks is not measured, never
 * guessed. */
#ifndef ATOMCOST_CARD_H
#define ATOMCOST_CARD_H

#include <stdio.h>
#include <jansson.h>

#include "result.h"
#include "sections.h"
#include "stats.h"

/* One comparison over the epochs, a against b, core cycles. */
struct card_part {
	const char *a, *b;	/* probe names; NULL: not measured */
	double a_cyc, b_cyc;	/* medians of the epoch medians */
	struct judgment j;	/* a against b (stats_judge) */
};

/* One line of the atomicity paragraph: the pair under one pattern, and its
 * lock's and instruction's parts (docs/card.md). */
struct card_cmp {
	const char *what;	/* "hot line, independent ops", ... */
	const char *pattern;	/* result pattern */
	enum probe_mode mode;
	struct card_part pair, lock, insn;
	bool unresolved;	/* the pair measured, with no definite verdict */
};

#define CARD_MAX_CMP 8
#define CARD_MAX_SHARE 8
#define CARD_MAX_NEEDS 8
#define CARD_MAX_OPTIONS 8

/* Contention of one locked op on one placement. */
struct card_share {
	const char *placement;
	double true_share, false_share, no_share;	/* cycles per op, 0: absent */
	bool not_overlapped;	/* a case whose threads did not run together (left out) */
};

/* The menu under contention (docs/card.md): one column per thread count
 * N >= 2 and point (placement, cs-work, outside-work) at which some option
 * has a true-sharing contention row; fewest threads first. */
#define CARD_MAX_CONT 6
struct card_cont {
	int threads;
	const char *placement;	/* the rows' ("l3", "spread") */
	long long cs_work, outside_work;
	char label[48];		/* "2 thr"; with the placement and work where the columns differ */
};
/* An option at a column: its cycles per op per thread, the median of its
 * rows' medians; APART: its threads did not run together (overlapped
 * false in some row): not contention, no figure; unfair: a row's threads
 * did over CONTENTION_UNFAIR_MAX_MIN times each other's ops. */
enum card_cont_state { CARD_CONT_NONE, CARD_CONT_MEASURED, CARD_CONT_APART };
struct card_cont_cell {
	enum card_cont_state state;
	double cycles;
	bool unfair;
};

/* One option of a need: costs in core cycles (medians over the epochs;
 * NAN: not measured). */
struct card_option {
	const char *probe;	/* probe name */
	const char *safe_when;	/* condition under which it is correct */
	double walk;		/* added to an L1 pointer walk: dep row over the bare walk */
	double stores;		/* added after 4 pending stores: hit+stores over the bare stores */
	double chain;		/* same-word chain: hit latency */
	double tput;		/* independent: hit throughput, best footprint */
	unsigned rank;		/* 1 = cheapest in context; 0: no figure of the need's basis */
	bool tie;		/* shares the rank of the option above: the difference is not resolved */
	bool analog;
	const struct card_kernel *kernel;	/* the kernel's own primitive beside it; NULL: none */
	struct card_cont_cell cont[CARD_MAX_CONT];	/* at card.cont[k] */
};

/* A kernel row beside the user-space probe it names (result.user_analog),
 * both on a hot line: core cycles, medians over the epochs. */
#define CARD_MAX_KERNEL 32
struct card_kernel {
	const char *probe, *analog;
	enum probe_mode mode, user_mode;
	double kernel_cyc, user_cyc;
};

/* What a need's options are ranked by. */
enum card_basis { CARD_BASIS_WALK, CARD_BASIS_STORES, CARD_BASIS_CHAIN };

struct card_need {
	const char *need;	/* the need's words, from the results */
	enum card_basis basis;
	struct card_option opt[CARD_MAX_OPTIONS];
	unsigned nopt;		/* ranked options first, cheapest first */
};
/* Without epochs to judge from, two options within this are tied. */
#define CARD_TIE_REL 0.05
#define CARD_TIE_ABS 0.5	/* cycles */

/* One sharing case of a contention probe on a placement: median over the
 * epochs, core cycles per op; no_overlap: its threads did not run together
 * in some epoch. */
#define CARD_MAX_CASES 48
struct card_case {
	const char *probe, *placement, *pattern;
	double cycles;
	bool no_overlap;
	unsigned char share_rank;	/* result.card_share: the sharing line's choice */
};

/* One twin pair judged in each pattern of the ratio chart (card_ratio_label). */
#define CARD_RATIO_CATS 6
#define CARD_MAX_RATIO 8
struct card_ratio {
	const char *atomic, *plain;
	struct card_part part[CARD_RATIO_CATS];	/* part.a NULL: not measured */
};

/* One step of the measured staircase as the card shows it, in footprint
 * order: a cache level, a shelf (neither cache nor memory: named as the
 * share of the cache level hwloc declares next, when it declares one
 * larger than the shelf reaches), or memory. */
#define CARD_MAX_STEPS (2 * HIER_MAX_LEVELS)
struct card_step {
	const struct hier_level_out *l;
	char name[24];		/* "L2", "L3 shelf", "shelf", "DRAM" */
	bool shelf;
	long long declared;	/* a shelf's: the declared size of the level it is a share of; 0: none */
};
/* Which step a pattern's walk lies in (the footprint of its rows). */
#define CARD_MAX_WALKS 4
struct card_walk {
	const char *pattern;	/* "dep", "l2", "llc", "miss" */
	const char *label;	/* the atomicity line's: "L1", "L2", "LLC", "DRAM" */
	long long bytes;
	const char *step;	/* the card_step's name, "between L2 and L3 shelf", ... */
	char between[64];
};

/* A row on the card whose samples hold steady states (report_row's
 * mixture over the epochs): its median moves with their mix. */
#define CARD_MAX_MIX 8
struct card_mix {
	const char *probe, *pattern;
	enum probe_mode mode;
	struct mixture m;	/* values in ticks */
};

struct card {
	struct card_machine machine;
	const struct hierarchy_section *hier;	/* the measured hierarchy (rep's); NULL: none */
	struct card_step step[CARD_MAX_STEPS];
	unsigned nstep;
	struct card_walk walk[CARD_MAX_WALKS];
	unsigned nwalk;
	struct card_split split;
	const char *pair_atomic, *pair_plain;	/* the twin pair the sentences use */
	const char *atomic_insn, *plain_insn;	/* their instructions */
	const char *lock_plain;	/* the atomic op without its lock prefix, when measured */
	char differs[160];	/* what the pair differs in: "the lock prefix only", ... */
	unsigned epochs;	/* most epochs of a row */
	unsigned unresolved;	/* atomicity lines without a definite verdict */
	double disturbed;	/* largest share of an epoch's samples disturbed */
	double cpu_share;	/* lowest share of an epoch's time the thread had its CPU; 1: unknown */
	unsigned disturbed_epochs;	/* epochs beyond CARD_DISTURBED or under CARD_CPU_SHARE */
	size_t drifted, chained;	/* results whose drift chain moved (result_drifted),
					 * of those it rescaled on a steady chain */
	double ghz_lo, ghz_hi;	/* the core clock over the epochs; 0: one calibration */
	/* what the run did under load and what it left out
	 * (meta.characterization); load NULL: a report from before */
	const struct characterization_meta *load;
	struct card_cmp cmp[CARD_MAX_CMP];
	unsigned ncmp;
	struct card_share share[CARD_MAX_SHARE];
	unsigned nshare;
	const char *share_probe;
	struct card_need need[CARD_MAX_NEEDS];
	unsigned nneed;
	struct card_cont cont[CARD_MAX_CONT];	/* the menu's contention columns */
	unsigned ncont;
	unsigned cont_left;	/* points measured beyond CARD_MAX_CONT: not shown, said */
	bool cont_more;		/* and more than card_build counts */
	bool cont_apart, cont_unfair;	/* some cell is APART, some unfair */
	bool cont_by[3];	/* the columns differ in placement, cs-work, outside-work */
	struct card_kernel kernel[CARD_MAX_KERNEL];
	unsigned nkernel;
	struct card_mix mix[CARD_MAX_MIX];	/* the card's rows that are mixtures */
	unsigned nmix;
	/* the ordering line: the two lowest result.card_order, hit latency */
	struct card_part order;
	const char *order_insn_a, *order_insn_b;
	/* for the charts */
	struct card_ratio ratio[CARD_MAX_RATIO];
	unsigned nratio;
	const struct c2c_pair_out *c2c[C2C_MAX_PAIRS];	/* one round trip per class, in ns */
	unsigned nc2c;
	const char *c2c_absent[PAIR__COUNT];
	unsigned nabsent;
	struct card_case cases[CARD_MAX_CASES];
	unsigned ncase;
};
#define CARD_DISTURBED 0.05	/* an epoch with more disturbed samples was disturbed */
#define CARD_CPU_SHARE 0.90	/* an epoch whose thread had its CPU less was disturbed */
#define CARD_DRIFTED 0.10	/* a run whose drift chain moved in more of its results was */

/* "on CPU 1 (moved from CPU 0: ...); waited 3.1 s for quiet, ran 2
 * stretches again (patience 60 s)", and when the patience ran out, how
 * many disturbed stretches stayed as measured; NULL without the meta. */
const char *card_load_text(const struct card *c, char *buf, size_t len);
/* Why a calibration is not trustworthy ("the add and imul chains 2.1%
 * apart", ...); "" when it is. */
const char *card_cal_why(const struct calibration *cal, char *buf, size_t len);

/* "slower 2.2x", "faster 0.45x", "same", "unresolved" for a part. */
const char *card_part_word(const struct card_part *p, char *buf, size_t len);
/* "+18.0 [+17.9,+18.1]" (the difference and its 95% interval), "-". */
const char *card_diff_cell(const struct card_part *p, char *buf, size_t len);
/* "+19.5 slower 2.1x", "+0.1 same", "-": a part in one cell. */
const char *card_part_cell(const struct card_part *p, char *buf, size_t len);
/* The ordering line: "smp_mb (lock addl $0,-4(%rsp)) 20.0 cyc, mb (mfence)
 * 80.6 cyc behind a pending store: smp_mb cheapest", or why not measured. */
const char *card_order_text(const struct card *c, char *buf, size_t len);
/* "L1 45.2 KiB 5.2 cyc", "L3 shelf 2.83-6.73 MiB 48.8 ns, of 480 MiB
 * declared", "DRAM 177 ns": a step of the caches line. */
const char *card_step_text(const struct card_step *s, char *buf, size_t len);
/* "45.2 KiB", "996 KiB", "1.04 MiB", "1.88 GiB" (the card's sizes). */
const char *card_size_text(double bytes, char *buf, size_t len);
/* "virtual machine (hypervisor flag set)", ... for card_machine.vm. */
const char *card_vm_text(int vm);
/* The split-lock sentence: "a locked op across two cache lines: 1270 ns
 * against 4.6 ns for an aligned atomic_inc (277x)", "skipped (...)", ... */
const char *card_split_text(const struct card_split *s, char *buf, size_t len);
/* A split lock far slower than a bus lock (975-1,354 ns on the AMD guests,
 * docs/card.md) is trapped: over SPLITLOCK_TRAPPED_NS, in a VM, the host
 * likely runs split-lock detection the guest's kernel cannot see. The
 * sentence that says so and what it means for a workload with split locks;
 * NULL under the threshold. vm: card_machine.vm. */
#define SPLITLOCK_TRAPPED_NS 10000.0
const char *card_split_trap_text(double split_ns, int vm);
/* The label of a pattern of the ratio chart ("hit, latency", "l2"). */
const char *card_ratio_label(unsigned cat);

/* "local_irq_save 7.10 cyc beside the user-space analog
 * local_irq_save_analog 1.00 (throughput)": a throughput figure says so. */
const char *card_kernel_text(const struct card_kernel *k, char *buf, size_t len);

/* The menu's basis by name ("walk", "stores", "chain"), an option's cost
 * in a basis, and a cost as the card prints it ("+0.5" for what an op adds,
 * "7.13" for a latency, "-" when not measured). */
const char *card_basis_name(enum card_basis b);
double card_option_cost(const struct card_option *o, enum card_basis b);
void card_cost_text(double v, bool added, char *buf, size_t len);

/* An option's cell under contention as every format prints it: "61.2",
 * "61.2!" (unfair), "n/o" (its threads did not run together), "-" (not
 * measured under contention). */
const char *card_cont_text(const struct card_cont_cell *x, char *buf, size_t len);
/* What the menu's contention columns hold, one sentence ("" without
 * columns): the text's and the HTML's legend. */
const char *card_cont_legend(const struct card *c, char *buf, size_t len);

/* Compute the card from the report, once: every writer formats this. The
 * card's strings point into rep. 0, -EINVAL for an empty report, -EDOM for
 * one calibrated under emulation (a card never shows an emulated figure). */
int card_build(const struct report *rep, struct card *c);
/* A default characterization, not emulated: its writers start with the card. */
bool card_wanted(const struct report *rep);
/* The card as text (report/text.c) and as summary JSON (report/summary.c). */
int card_write_text(const struct report *rep, FILE *f);
json_t *card_to_json(const struct card *c);

#endif
