/* SPDX-License-Identifier: MIT */
/* c2c.h - cache-line round trips between two PUs (the engine behind
 * `atomcost c2c` and the default characterization's topology part).
 *
 * Two threads pinned to PUs a and b pass one cache line back and forth, a
 * counter in its first word telling whose turn it is (a writes odd values,
 * b even ones). Two methods:
 *   cmpxchg     each side spins on `lock cmpxchg` until it turns the value
 *               it waits for into its own: a round trip moves the line at
 *               least twice (once to each side); a failed cmpxchg also takes
 *               the line exclusive, so waiting can move it more often.
 *   load-store  each side spins reading the line, then stores: per round
 *               trip 2 transfers (each side's read miss fetches the line the
 *               other side modified) and 2 invalidations (each store upgrades
 *               a line the other side holds shared).
 * A sample times C2C_ROUNDS round trips on a's timer; samples are kept for
 * a given time per pair and method.
 */
#ifndef ATOMCOST_C2C_H
#define ATOMCOST_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "clock.h"
#include "stats.h"
#include "topo.h"

#define C2C_ROUNDS 64		/* round trips per sample */

enum c2c_method { C2C_CMPXCHG, C2C_LOADSTORE, C2C__COUNT };

/* "cmpxchg", "load-store"; JSON keys "cmpxchg", "load_store"; what one
 * round trip moves. */
const char *c2c_method_name(enum c2c_method m);
const char *c2c_method_key(enum c2c_method m);
const char *c2c_method_transfers(enum c2c_method m);
/* "cmpxchg,load-store" (any subset) into 1u << C2C_* bits; -EINVAL after
 * a message. */
int c2c_parse_methods(const char *s, unsigned *mask);

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

struct c2c_row {
	enum pair_class cls;
	int a, b;
	enum c2c_method m;
	struct summary s;	/* ticks per round trip */
	size_t n;
	bool timed_out;
};

/* One pair, one method; the calling thread must already be pinned to a.
 * 0, -EINTR when stopped (row holds what was measured), or -errno. */
int c2c_measure_pair(struct topo *t, int a, int b, enum c2c_method m, double seconds,
		     struct c2c_row *row);

/* Measure every planned pair in every method of mmask (rows: npairs *
 * C2C__COUNT entries), pinning the calling thread to each pair's a.
 * *nrows gets the rows filled. 0, -EINTR or -errno. */
int c2c_run(struct topo *t, const struct c2c_pair *pairs, size_t npairs, unsigned mmask,
	    double seconds, bool progress, struct c2c_row *rows, size_t *nrows);

/* Where the rows were measured, for the writers: the allowed PUs (OS
 * indexes, the matrix's order) and the topology's one-line summary. */
struct c2c_where {
	const int *cpus;
	int ncpus;
	const char *summary;
};

/* Fill w from the topology (cpus: at least topo_allowed_count entries). */
void c2c_where_of(const struct topo *t, int *cpus, char *summary, size_t len, struct c2c_where *w);

/* Writers (report/c2c.c, model only): the JSON section ("atomcost-c2c/1")
 * and the table. */
json_t *c2c_to_json(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, unsigned mmask, bool all);
void c2c_write_text(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f);

#endif
