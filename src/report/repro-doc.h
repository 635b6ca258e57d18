/* SPDX-License-Identifier: MIT */
/* report/repro-doc.h - what one reproduction hands the report, typed: its
 * header, conclusions, disturbed passes, figures timed again, machine
 * changes, kernel rows and load, filled by src/repro (repro.h) and written
 * by report/repro-doc.c alone. Its own tables are still JSON it builds
 * (repro_doc_own). */
#ifndef ATOMCOST_REPORT_REPRO_DOC_H
#define ATOMCOST_REPORT_REPRO_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "stats.h"

struct report;

/* Strings and arrays below are the document's (repro.h: repro_doc_keep). */
struct repro_conclusion {
	const char *what, *a, *b, *text, *reason, *pub_row;	/* reason, pub_row: NULL none */
	enum verdict v;
	struct judgment j;	/* v != VERDICT_NONE */
	bool claim;		/* a claim's (repro_conclude): the figures below follow */
	double meas_a, meas_b;
	size_t passes, disturbed, unmeasured;
	bool pub, pub_derived;	/* pub: pub_a and pub_b are given */
	double pub_a, pub_b;
	bool per_pass;		/* pass_* hold n figures each */
	size_t n;
	const double *pass_a, *pass_b, *pass_share;
};

/* A disturbed pass (repro_pass_again) or a figure's try taken again
 * (retimed: repro_figure_kept). */
struct repro_pass_rec {
	bool retimed;
	const char *what;
	size_t pass, try_;	/* try_: retimed only */
	double share, seconds, waited_s;	/* waited_s: disturbed only */
	bool flag;		/* disturbed: run again; retimed: preempted */
	json_t *figs;		/* the reproduction's figures of it (owned), NULL: none */
};

struct repro_kernel_row {
	const char *probe, *what;	/* what: its instruction, NULL: none */
	double cycles;
	size_t samples;
};

/* The parts besides the header, load and wall time, in the order first
 * made among the reproduction's own keys. */
enum repro_part { RP_CHANGES, RP_CONCLUSIONS, RP_DISTURBED, RP_RETIMED, RP_KERNEL, RP__COUNT };

#define REPRO_DOC_LIST(type, name) type *name; size_t n_##name, cap_##name
struct repro_doc {
	const char *kind, *seed, *source, *machine, *cpu_why;	/* seed NULL: no header */
	int cpu;
	bool calibration_trustworthy;
	REPRO_DOC_LIST(const char *, changes);
	REPRO_DOC_LIST(struct repro_conclusion, conclusions);
	REPRO_DOC_LIST(struct repro_pass_rec, recs);
	REPRO_DOC_LIST(struct repro_kernel_row, kernel);
	bool kernel_emulated;
	const char *kernel_note;	/* static; NULL: none */
	bool load;			/* the load below is filled */
	double patience_s;		/* < 0: twice the quiet time (null) */
	double waited_s;
	unsigned retimed, repeated, kept_disturbed;
	double wall_s;			/* 0: not measured */
	enum repro_part order[RP__COUNT];	/* part order[i] made at[i] own keys in */
	size_t at[RP__COUNT], nparts;
	json_t *own;			/* the reproduction's own keys (nown), in order */
	size_t nown;
	struct repro_mem *mem;		/* what repro_doc_keep copied */
};

/* The reproduction's own key (v taken; v NULL: nothing; d NULL: v freed). */
void repro_doc_own(struct repro_doc *d, const char *key, json_t *v);
/* d as meta.reproductions[d->kind] holds it. */
json_t *repro_doc_json(const struct repro_doc *d);
/* meta.reproductions made anew (empty) when d is NULL, else d written into
 * it. 0 or -ENOMEM. */
int repro_doc_put(struct report *rep, const struct repro_doc *d);
/* v[0..n) as a JSON array, null where not finite. */
json_t *repro_doubles_json(const double *v, size_t n);

#endif
