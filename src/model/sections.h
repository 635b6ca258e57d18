/* SPDX-License-Identifier: MIT */
/* sections.h - typed report sections beside the results: what the engines
 * fill (c2c.h, contention.h) and the writers print (report/c2c.c,
 * report/contention.c). Model only: no engine header. */
#ifndef ATOMCOST_SECTIONS_H
#define ATOMCOST_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "calibration.h"
#include "result.h"
#include "stats.h"
#include "vocab.h"

/* ---- c2c: cache-line round trips between two PUs (c2c.h) */

#define C2C_ROUNDS 64		/* round trips per sample */

struct c2c_row {
	enum pair_class cls;
	int a, b;
	enum c2c_method m;
	struct summary s;	/* ticks per round trip */
	size_t n;
	bool timed_out;
};

/* Where the rows were measured, for the writers: the allowed PUs (OS
 * indexes, the matrix's order) and the topology's one-line summary. */
struct c2c_where {
	const int *cpus;
	int ncpus;
	const char *summary;
};

/* The JSON section ("atomcost-c2c/1") and the table. */
json_t *c2c_to_json(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, unsigned mmask, bool all);
void c2c_write_text(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f);

/* ---- contention: N pinned threads on one cache line (contention.h) */

/* A case whose threads overlapped less than this, or a thread that ran less
 * than this share of its wall time, did not really contend. */
#define CONTENTION_OVERLAP_MIN 0.9		/* below: threads did not run together */
#define CONTENTION_CPU_WALL_MIN 0.9

/* True when r came from contention_run (extra has "contention"). */
bool contention_result(const struct result *r);
/* The contention table for those results (nothing when there are none). */
void contention_write_text(const struct report *rep, FILE *f);

#endif
