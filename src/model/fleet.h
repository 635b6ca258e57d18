/* SPDX-License-Identifier: MIT */
/* fleet.h - a fleet of machines: `atomcost compare --fleet` (and any
 * compare of more than COMPARE_N_MAX files). Up to tens of thousands of
 * summaries, read one at a time (fleet_add_read): each document's rows are
 * built as side by side builds them (compare-n.h), and a row keeps only
 * each machine's figure and own noise (floats), so memory grows by a few
 * KB per machine, not by the document. Then per row the fleet's median and
 * robust spread; the groups of machines that moved together (a key of the
 * fingerprint or of the operator's labels: CPU, microcode, kernel, BIOS,
 * Slurm partition and features, inventory group, any --group-by KEY); and
 * the machines beyond their reference named (fleet.c: far, cell_p).
 * docs/fleet.md says why.
 */
#ifndef ATOMCOST_FLEET_H
#define ATOMCOST_FLEET_H

#include <stdint.h>
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
#define FLEET_MEDIAN_SE 1.2533	/* sd of a normal sample's median, times sqrt(n) / sd */
#define FLEET_MIN 5		/* machines a row (and a group) needs to be judged */
#define FLEET_DIMS 16		/* group keys */
#define FLEET_NONE UINT32_MAX	/* a machine without a value for a key */

struct fleet_skip {
	char path[256];
	const char *why;
};

/* One row: its head as side by side has it (no cells), and per machine
 * that has it the figure, the machine and its own noise (the half-width of
 * its epochs' 95% interval, relative; 0 without epochs). */
struct fleet_row {
	struct compare_n_row head;
	float *v, *own;
	uint32_t *m;
	size_t n, cap, named;		/* machines with the row; of them named */
	double median, p10, p90;	/* in the row's unit */
	double mlog, spread;		/* log of the median; robust sd of the logs */
	bool judged;			/* n >= FLEET_MIN */
};

/* A key machines are grouped by, and its values (groups). */
struct fleet_dim {
	char key[32];
	char (*value)[96];
	size_t *count, nvalue, cap;
};

struct fleet_machine {
	char name[64];			/* host, else the file's name */
	uint32_t val[FLEET_DIMS];	/* its value of each key, FLEET_NONE */
	bool named;
};

struct fleet_named {			/* a machine beyond its reference in a row */
	size_t row, machine;
	double v, ref, change, z, p;	/* ref: the fleet's median, or its moved group's */
};

struct fleet_shift {			/* a group that moved together in a row */
	size_t row, dim, value, n;
	double median, change, lo, hi, z, p;	/* change and its 95% interval, relative */
};

struct fleet {
	struct compare_n_opts o;
	const char *group_by;		/* the one key to group by; NULL: every key */
	double margin, threshold, gthreshold;	/* relative margin; p a further name would need */
	struct fleet_machine *mach;
	size_t nmach, capm;
	struct fleet_row *row;
	size_t nrows, caprow, next;
	struct fleet_dim dim[FLEET_DIMS];
	size_t ndim;
	char **host;			/* hash of the hosts read (duplicates) */
	size_t hostcap;
	struct fleet_skip *skip;
	size_t nskip, capskip, files, unread, dup;
	struct fleet_named *named;	/* largest change first */
	size_t nnamed, machines_named, tests;
	struct fleet_shift *shift;	/* largest change first */
	size_t nshift, gtests;
	double t975[64];		/* t's 97.5% quantile by epochs (0: not yet) */
};

/* An empty fleet judged by o (margin, all_rows: the table shows every
 * result row, every row is judged anyway); group_by NULL or the one key.
 * 0 or -ENOMEM. */
int fleet_init(struct fleet *f, const struct compare_n_opts *o, const char *group_by);
/* Add the machine of one file as its reader gave it (read: what
 * report_read_summary returned, which said what is wrong), or skip it
 * (named, counted) when it could not be read, is neither summary nor
 * report, or repeats a host already read. 0 or -ENOMEM. */
int fleet_add_read(struct fleet *f, const char *path, int read, const struct compare_n_doc *d);
/* Add one machine's document (d need not outlive the call). 0 or -errno. */
int fleet_add(struct fleet *f, const struct compare_n_doc *d);
/* Judge the machines added: rows, groups, names. 0 or -errno (-EINVAL:
 * group_by is no key of any machine). */
int fleet_judge(struct fleet *f);
void fleet_free(struct fleet *f);

/* Whether row r is one of "every result line" (not the card's). */
bool fleet_result_row(const struct fleet_row *r);

/* The writers (report/fleet.c). members: list each moved group's machines. */
int fleet_write_text(const struct fleet *f, bool members, FILE *out);
int fleet_write_csv(const struct fleet *f, bool members, FILE *out);
int fleet_write_html(const struct fleet *f, bool members, FILE *out);
int fleet_write_json(const struct fleet *f, bool members, FILE *out);

#endif
