/* SPDX-License-Identifier: MIT */
/* card.h - the machine card: one screen, computed from a report, that a
 * person reads first. What the machine is, what atomicity costs here (hot
 * line, dependency chain, L2/LLC/DRAM miss, sharing per topology class) and
 * a fast-path menu: for common needs, the options measured on this machine,
 * cheapest first, each with the condition under which it is safe.
 *
 * Every figure comes from the report's results; every comparison word
 * ("costs 3.6x", "same") goes through the noise rule (stats_verdict). What
 * a report lacks is said to be not measured, never guessed.
 */
#ifndef ATOMCOST_CARD_H
#define ATOMCOST_CARD_H

#include <stdio.h>
#include <jansson.h>

#include "result.h"
#include "stats.h"

/* One comparison of an atomic op with its non-atomic twin, in core cycles
 * (medians); ok false when either side was not measured. */
struct card_cmp {
	const char *what;	/* "hot line, independent ops", ... */
	const char *pattern;	/* result pattern */
	enum probe_mode mode;
	bool ok;
	double atomic, plain;	/* cycles per op */
	double floor;		/* the row's noise floor: the card's, or the pair's
				 * own (report_pair_twins) when larger */
	enum verdict v;		/* atomic against plain */
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
	struct card_cmp cmp[CARD_MAX_CMP];
	unsigned ncmp;
	struct card_share share[CARD_MAX_SHARE];
	unsigned nshare;
	const char *share_probe;
	struct card_need need[CARD_MAX_NEEDS];
	unsigned nneed;
	double floor;		/* the noise floor the verdicts used */
};

/* Compute the card from the report. 0, or -EINVAL for an empty report. */
int card_build(const struct report *rep, struct card *c);
/* The card as text (one screen) and as a summary JSON object (figures
 * without samples, for reference cards and fleet compares). */
int card_write_text(const struct report *rep, FILE *f);
json_t *card_to_json(const struct report *rep);

#endif
