/* SPDX-License-Identifier: MIT */
/* card.h - the machine card: one screen, computed from a report, that a
 * person reads first. What the machine is, what atomicity costs here (hot
 * line, dependency chain, L2/LLC/DRAM miss, sharing per topology class) and
 * a fast-path menu: for common needs, the options measured on this machine,
 * cheapest first, each with the condition under which it is safe.
 *
 * Every figure comes from the report's results; every comparison word
 * goes through the judgment over epochs (stats_judge: slower/faster beyond
 * a margin, same by equivalence, else unresolved). What
 * a report lacks is said to be not measured, never guessed.
 */
#ifndef ATOMCOST_CARD_H
#define ATOMCOST_CARD_H

#include <stdio.h>
#include <jansson.h>

#include "result.h"
#include "stats.h"

/* One comparison over the epochs, a against b, core cycles. */
struct card_part {
	const char *a, *b;	/* probe names; NULL: not measured */
	double a_cyc, b_cyc;	/* medians of the epoch medians */
	struct judgment j;	/* a against b (stats_judge) */
};

/* One line of the atomicity paragraph: the kernel pair under one pattern,
 * split into the lock's part (the atomic op against the same instruction
 * without the prefix) and the instruction's part (that unlocked op against
 * the kernel's non-atomic twin). */
struct card_cmp {
	const char *what;	/* "hot line, independent ops", ... */
	const char *pattern;	/* result pattern */
	enum probe_mode mode;
	struct card_part pair, lock, insn;
};

#define CARD_MAX_CMP 8
#define CARD_MAX_SHARE 8
#define CARD_MAX_NEEDS 6
#define CARD_MAX_OPTIONS 8

/* Contention of one locked op by topology class (pattern true-share, ...). */
struct card_share {
	char placement[32];
	double true_share, false_share, no_share;	/* cycles per op, 0: absent */
	bool not_overlapped;	/* a case whose threads did not run together (left out) */
};

/* One option of a need: a probe whose results name the need (extra.menu_need,
 * written from its descriptor), its costs in core cycles (medians over the
 * epochs; NAN: not measured) and the condition under which it is correct. */
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
};

/* What a need's options are ranked by: the cost in the walk where any
 * option has it, else after the stores, else the chain latency. */
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

struct card {
	const char *pair_atomic, *pair_plain;	/* the twin pair the sentences use */
	const char *lock_plain;	/* the atomic op without its lock prefix, when measured */
	char differs[160];	/* what the pair differs in: "the lock prefix only", ... */
	unsigned epochs;	/* most epochs of a row */
	unsigned unresolved;	/* atomicity lines without a definite verdict */
	double disturbed;	/* largest share of an epoch's samples disturbed */
	double cpu_share;	/* lowest share of an epoch's time the thread had its CPU; 1: unknown */
	unsigned disturbed_epochs;	/* epochs beyond CARD_DISTURBED or under CARD_CPU_SHARE */
	double ghz_lo, ghz_hi;	/* the core clock over the epochs; 0: one calibration */
	struct card_cmp cmp[CARD_MAX_CMP];
	unsigned ncmp;
	struct card_share share[CARD_MAX_SHARE];
	unsigned nshare;
	const char *share_probe;
	struct card_need need[CARD_MAX_NEEDS];
	unsigned nneed;
};
#define CARD_DISTURBED 0.05	/* an epoch with more disturbed samples was disturbed */
#define CARD_CPU_SHARE 0.90	/* an epoch whose thread had its CPU less was disturbed */

/* "slower 2.2x", "faster 0.45x", "same", "unresolved" for a part. */
/* The split-lock sentence: "a locked op across two cache lines: 1270 ns
 * against 4.6 ns for an aligned atomic_inc (277x)", "skipped (...)", ... */
const char *card_split_text(const struct report *rep, char *buf, size_t len);
const char *card_part_word(const struct card_part *p, char *buf, size_t len);
/* "+18.0 [+17.9,+18.1]" (the difference and its 95% interval), "-". */
const char *card_diff_cell(const struct card_part *p, char *buf, size_t len);
/* "+19.5 slower 2.1x", "+0.1 same", "-": a part in one cell. */
const char *card_part_cell(const struct card_part *p, char *buf, size_t len);

/* The menu's basis by name ("walk", "stores", "chain"), an option's cost
 * in a basis, and a cost as the card prints it ("+0.5" for what an op adds,
 * "7.13" for a latency, "-" when not measured). */
const char *card_basis_name(enum card_basis b);
double card_option_cost(const struct card_option *o, enum card_basis b);
void card_cost_text(double v, bool added, char *buf, size_t len);

/* Compute the card from the report. 0, or -EINVAL for an empty report. */
int card_build(const struct report *rep, struct card *c);
/* The card as text (one screen) and as a summary JSON object (figures
 * without samples, for reference cards and fleet compares). */
int card_write_text(const struct report *rep, FILE *f);
json_t *card_to_json(const struct report *rep);

#endif
