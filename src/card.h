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

struct card_option {
	const char *probe;	/* probe name */
	const char *safe_when;	/* condition under which it is correct */
	double cycles;		/* hit latency median, cycles */
	bool analog;
};

struct card_need {
	const char *need;
	struct card_option opt[CARD_MAX_OPTIONS];
	unsigned nopt;		/* measured options, cheapest first */
};

struct card {
	const char *pair_atomic, *pair_plain;	/* the twin pair the sentences use */
	const char *lock_plain;	/* the atomic op without its lock prefix, when measured */
	char differs[160];	/* what the pair differs in: "the lock prefix only", ... */
	unsigned epochs;	/* most epochs of a row */
	unsigned unresolved;	/* atomicity lines without a definite verdict */
	double disturbed;	/* largest share of an epoch's samples disturbed */
	unsigned disturbed_epochs;	/* epochs with more than CARD_DISTURBED of them */
	double cal_moved;	/* relative range of the epochs' calibration, 0: one */
	struct card_cmp cmp[CARD_MAX_CMP];
	unsigned ncmp;
	struct card_share share[CARD_MAX_SHARE];
	unsigned nshare;
	const char *share_probe;
	struct card_need need[CARD_MAX_NEEDS];
	unsigned nneed;
};
#define CARD_DISTURBED 0.05	/* an epoch with more disturbed samples was disturbed */
#define CARD_CAL_MOVED 0.01	/* calibration moving more between epochs: disturbed */

/* "slower 2.2x", "faster 0.45x", "same", "unresolved" for a part. */
const char *card_part_word(const struct card_part *p, char *buf, size_t len);
/* "+18.0 [+17.9,+18.1]" (the difference and its 95% interval), "-". */
const char *card_diff_cell(const struct card_part *p, char *buf, size_t len);
/* "+19.5 slower 2.1x", "+0.1 same", "-": a part in one cell. */
const char *card_part_cell(const struct card_part *p, char *buf, size_t len);

/* Compute the card from the report. 0, or -EINVAL for an empty report. */
int card_build(const struct report *rep, struct card *c);
/* The card as text (one screen) and as a summary JSON object (figures
 * without samples, for reference cards and fleet compares). */
int card_write_text(const struct report *rep, FILE *f);
json_t *card_to_json(const struct report *rep);

#endif
