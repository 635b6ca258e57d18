/* SPDX-License-Identifier: MIT */
/* compare-n.h - several machines side by side: `atomcost compare A B C ...`.
 * Each column is one machine's card (card.h) and measured sections, read
 * from a full report or from a summary ("atomcost-summary/1", a reference
 * card: no samples). The rule is two-way compare's (compare.h) with one
 * process a side where a hot-line cell has epochs on both sides, else its
 * row's floor (enum compare_n_kind); docs/fleet.md, "The noise rule".
 */
#ifndef ATOMCOST_COMPARE_N_H
#define ATOMCOST_COMPARE_N_H

#include <stdbool.h>
#include <stdio.h>

#include "card.h"
#include "compare.h"
#include "sections.h"

/* Rows under a pattern or a sharing case moved by 25-55% between
 * processes of one build when they had settled (compare.h): the widest. */
#define COMPARE_N_WIDE_FLOOR 0.55
#define COMPARE_N_MAX 64		/* columns */
#define SUMMARY_SCHEMA "atomcost-summary/1"

enum compare_n_kind {
	CN_TEXT,	/* shown, never marked */
	CN_HOT,		/* hot-line figure: the base floor (a card's own when larger) */
	CN_WIDE,	/* pattern, sharing, c2c, level latency: COMPARE_N_WIDE_FLOOR */
	CN_SIZE,	/* measured size with its bracket: marked when brackets are apart */
};

struct compare_n_cell {
	bool present;
	double v, lo, hi;	/* lo/hi: the bracket of a CN_SIZE cell */
	char text[96];		/* CN_TEXT */
	bool marked;
	double change;		/* v / first column's v - 1 (epochs: of their means) */
	const double *ep;	/* the row's per-epoch medians, cycles (the document's); nep < 2: none */
	size_t nep;
	bool judged;		/* from the epochs of this and the first column */
	bool same;		/* judged, and the same within the margin (TOST) */
	double p, p_same, se, df, margin, detect;	/* of a judged cell */
};

struct compare_n_row {
	int section;		/* index into compare-n.c's sections */
	char label[128];
	char unit[16];		/* "cycles", "ns", "KiB", "x", "" */
	enum compare_n_kind kind;
	double floor;		/* relative floor of the row (CN_HOT, CN_WIDE) */
	struct compare_n_cell *cells;	/* one per column */
};

struct compare_n_col {
	char name[64];		/* short machine name (model family/model, or file/host) */
	const struct compare_n_doc *doc;	/* what the column was read from */
};

struct compare_n {
	struct compare_n_col *cols;	/* ncols */
	size_t ncols;
	struct compare_n_row *rows;
	size_t nrows, cap;
	size_t *index, nindex;	/* rows by key (compare-n.c: row_find), row + 1; 0: none */
	bool stale;		/* a row went in before others: index to rebuild */
	double base_floor;	/* for CN_HOT rows (before a card's own floor) */
	double margin;		/* of cells judged from epochs */
	double threshold;	/* p one more marked judged cell would need */
	size_t marked, missing, same, judged;
};

struct compare_n_opts {
	double noise_floor;	/* base floor for hot-line rows */
	double min_change;	/* margin of cells judged from epochs */
	bool all_rows;		/* every result line, not only the card's */
	bool fleet;		/* any number of columns named by host, none
				 * marked: fleet.h judges them */
};

/* One machine's document, typed: what side by side reads of a summary
 * (report_read_summary, report/summary.c). Absent numbers are 0, absent
 * strings "". */
struct cn_result {		/* one row of the summary: probe, pattern, mode */
	char probe[64], pattern[32], mode[16], placement[64];
	double median;		/* cycles */
	double *ep;		/* every epoch's median, cycles (owned) */
	size_t nep;
};

struct cn_label {		/* an operator's label (fingerprint "labels") */
	char key[32], value[96];
};

struct compare_n_doc {
	char path[256];
	bool summary;		/* read from a summary, not a full report */
	bool partial;
	char started[40], topology[128], version[32];
	char host[64], model_name[96], family[16], model[16], stepping[16], microcode[32];
	char kernel[64], cc[64], flags[96];
	char bios[96];		/* firmware: "vendor version date" */
	struct cn_label *label;	/* partition, features, inventory group, ... */
	size_t nlabel;
	int vm, trustworthy;	/* -1: not said; vm 1: the hypervisor flag is set */
	double core_hz;
	/* the card, read by the table that writes it (report/summary.c): its
	 * strings owned, NULL where absent; freed by free_card. NULL: none */
	struct card *card;
	void (*free_card)(struct card *c);
	struct cn_result *res;
	size_t nres;
	/* the report's own sections, as the codec reads them (NULL: none) */
	struct hierarchy_section *hier;
	struct c2c_out *c2c;
	struct splitlock_section *split;
};

/* Read one column's document: a summary as it is, a full report reduced to
 * its summary (report_write_summary), so both give the same column. 0 or
 * -errno, said with the path (-EINVAL: not JSON, or neither schema). */
int report_read_summary(const char *path, struct compare_n_doc *d);
void report_free_summary(struct compare_n_doc *d);	/* compare-n.c */
/* Whether path holds a summary (schema atomcost-summary/1), silently: the
 * reader that opens the file says what is wrong with it. */
bool report_is_summary(const char *path);

/* Build the rows from n documents (docs must outlive out). 0 or -errno
 * (-EINVAL for fewer than 2, or more than COMPARE_N_MAX columns, unless
 * o->fleet: then one or more). */
int compare_n_build(const struct compare_n_doc *docs, size_t n, const struct compare_n_opts *o,
		    struct compare_n *out);
void compare_n_free(struct compare_n *c);

/* compare_n_sections' title of the row's section. */
const char *compare_n_section(const struct compare_n_row *r);
/* A document's word: "?" for a fact it lacks. */
const char *cn_known(const char *s);

/* The writers (report/compare-n.c): v as a cell shows it, three
 * significant digits or so, a ratio with x, a KiB row as KiB or MiB when
 * sizes (the fleet's rows say their unit apart). */
void compare_n_value(const struct compare_n_row *r, double v, bool sizes, char *buf, size_t len);
int compare_n_write_text(const struct compare_n *c, FILE *f);
int compare_n_write_html(const struct compare_n *c, FILE *f);
extern const char compare_n_css[];	/* the HTML writers' style sheet */

#endif
