/* SPDX-License-Identifier: MIT */
/* c2c.h - cache-line round trips between two PUs (the engine behind
 * `atomcost c2c` and the default characterization's topology part): two
 * pinned threads pass one line back and forth, a counter in its first word
 * saying whose turn it is (a writes odd values, b even ones), by cmpxchg or
 * by load and store; docs/locks.md says what each method moves. A sample
 * times C2C_ROUNDS round trips on a's timer.
 */
#ifndef ATOMCOST_C2C_H
#define ATOMCOST_C2C_H

#include <stdbool.h>
#include <stddef.h>

#include "clock.h"
#include "sections.h"	/* C2C_ROUNDS, struct c2c_row, c2c_where, the writers */
#include "topo.h"

struct c2c_pair {
	enum pair_class cls;
	int a, b;		/* OS indexes */
};

/* The pairs to measure, pure (never binds): one representative pair per
 * class this topology has (topo_find_pair's), closest class first, or every
 * pair of allowed PUs when all. *pairs is malloc'ed (the caller frees);
 * absent[c] is set for each class the topology lacks. 0 or -ENOMEM. */
int c2c_plan(const struct topo *t, bool all, struct c2c_pair **pairs, size_t *npairs,
	     bool absent[PAIR__COUNT]);

/* Measure every planned pair in every method of mmask (rows: npairs *
 * C2C__COUNT entries), pinning the calling thread to each pair's a.
 * *nrows gets the rows filled. 0, -EINTR or -errno. */
int c2c_run(struct topo *t, const struct c2c_pair *pairs, size_t npairs, unsigned mmask,
	    double seconds, bool progress, struct c2c_row *rows, size_t *nrows);

/* Fill o from rows measured on t: c2c_out_fill where they ran, the
 * allowed PUs and the topology's summary. 0 or -ENOMEM (o freed). */
int c2c_section_of(const struct topo *t, const struct calibration *cal, const struct c2c_row *rows,
		   size_t nrows, const bool *absent, unsigned mmask, bool all, struct c2c_out *o);

#endif
