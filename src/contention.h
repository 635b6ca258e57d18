/* SPDX-License-Identifier: MIT */
/* contention.h - N pinned threads on one cache line: `atomcost run
 * --threads N --placement P --sharing LIST` (and the arithmetic the tests
 * check on synthetic inputs).
 *
 * Every thread runs a probe's latency kernel for a fixed duration, started
 * together by a spinning barrier, on the same word (true sharing), on its
 * own word of the same line (false sharing) or on a private line (none).
 * One result per probe and sharing case (pattern "true-share",
 * "false-share", "no-share", so twins pair within a case); the per-thread
 * counts, fairness, overlap and CPU/wall ratios go to the result's
 * extra.contention.
 */
#ifndef ATOMCOST_CONTENTION_H
#define ATOMCOST_CONTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "result.h"
#include "runner.h"
#include "sections.h"	/* CONTENTION_*_MIN, the contention table's writer */
#include "topo.h"
#include "vocab.h"	/* enum sharing, its names and parser */

/* Coefficient of variation of the per-thread op counts: stddev / mean
 * (population stddev); 0 when all threads did the same work, 0 for n < 2. */
double contention_fairness(const uint64_t *ops, unsigned n);
/* Overlap of the run intervals [start_i, end_i): the length of their
 * intersection over the length of their union, in [0, 1]; 1 for n == 1. */
double contention_overlap(const uint64_t *start, const uint64_t *end, unsigned n);

/* Byte offset of thread i's word from the start of the shared area, for a
 * kernel touching `word` bytes, `line` the cache line size and `region`
 * the private area of one thread (a multiple of the page size). -EINVAL
 * when false sharing cannot fit nthreads words into one line. */
long contention_slot_offset(enum sharing s, unsigned i, unsigned nthreads, size_t word,
			    size_t line, size_t region);

/* A sweep list: "N", "A,B,C" or "A-B" (and mixes, "1,2,4-6"), each value in
 * 1..max (0..max with zero_ok), ascending and distinct, at most 16 values.
 * 0 or -EINVAL after a message naming what (the option) and the value. */
int contention_parse_sweep(const char *what, const char *s, uint64_t max, bool zero_ok,
			   struct run_sweep *out);

/* Threads of the plan: placement NULL means "spread". Maps an absent
 * class to -ENOTSUP (exit 4: unsupported here), after topo_plan's message. */
int contention_plan(const struct topo *t, const char *placement, unsigned nthreads,
		    int *os_out);

/* Measure every probe of list in every requested sharing case. Pins the
 * calling thread to the first planned PU for the calibration. 0, -EINTR
 * (rep->partial set) or -errno. */
int contention_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		   size_t n, struct report *rep);

#endif
