/* SPDX-License-Identifier: MIT */
/* fleet.h - a fleet of machines: `atomcost compare --fleet` (and any
 * compare of more than COMPARE_N_MAX files). Hundreds to thousands of
 * summaries, their rows built as side by side builds them (compare-n.h),
 * then per row the fleet's median and robust spread, and the machines
 * beyond it named (fleet.c: far, cell_p); the whole fleet is every
 * machine's reference. docs/fleet.md says why.
 */
#ifndef ATOMCOST_FLEET_H
#define ATOMCOST_FLEET_H

#include <stdio.h>

#include "compare-n.h"

/* Iglewicz and Hoaglin's cut for one value at a time, 3.5 robust sds,
 * would name hundreds of a fleet's 100,000 cells by chance; Benjamini-
 * Hochberg over them lets about one name in twenty be false, and with a
 * few real names one false name among them is common (a generated fleet
 * of 60 machines x 24 rows 1% apart: a false name in 9 of 40 seeds at
 * 3.5, in 4 of 100 at 5; a MAD from 60 machines is 15% loose).
 * A name sends someone to a machine: 5 robust sds, one normal cell in
 * 1.7 million. */
#define FLEET_K 5.0
#define FLEET_MAD_SD 1.4826	/* MAD to the standard deviation of a normal */
#define FLEET_MAD_EFF 0.37	/* the MAD's efficiency against the sd's (normal) */
#define FLEET_MIN 5		/* machines a row needs to be judged */

struct fleet_skip {
	char path[256];
	const char *why;
};

/* The documents read, and the files skipped. */
struct fleet_in {
	struct compare_n_doc *docs;
	size_t n, files;
	struct fleet_skip *skip;
	size_t nskip, unread, dup;	/* skipped; of them unreadable, a host read already */
};

struct fleet_row {
	size_t n, named;		/* machines with the row; of them named */
	double median, p10, p90;	/* in the row's unit */
	double mlog, spread;		/* log of the median; robust sd of the logs */
	bool judged;			/* n >= FLEET_MIN */
};

struct fleet_named {
	size_t row, col;
	double change, z, p;		/* v / median - 1; d / spread; the cell's p */
};

struct fleet_group {
	char label[192];		/* model family/model microcode */
	size_t n, named;		/* machines; of them named in some row */
};

struct fleet {
	struct compare_n cn;		/* rows x machines (fleet mode: none marked) */
	const struct fleet_in *in;
	struct fleet_row *row;		/* per row of cn */
	struct fleet_group *group;
	size_t ngroup, *group_of;	/* per machine */
	struct fleet_named *named;	/* by row, then machine */
	size_t nnamed, machines_named, tests;
	double margin, threshold;	/* relative margin; p a further name would need */
};

/* Read n files, skipping (named on stderr, counted in in) those that cannot
 * be read, are neither summary nor report, or repeat a host already read.
 * 0 or -ENOMEM. */
int fleet_read(char *const *paths, size_t n, struct fleet_in *in);
void fleet_in_free(struct fleet_in *in);

/* Judge the fleet in (2 or more documents; in must outlive f). 0 or -errno. */
int fleet_build(const struct fleet_in *in, const struct compare_n_opts *o, struct fleet *f);
void fleet_free(struct fleet *f);

/* The writers (report/fleet.c). */
int fleet_write_text(const struct fleet *f, FILE *out);
int fleet_write_csv(const struct fleet *f, FILE *out);
int fleet_write_html(const struct fleet *f, FILE *out);

#endif
