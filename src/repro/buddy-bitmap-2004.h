/* SPDX-License-Identifier: MIT */
/* repro/buddy-bitmap-2004.h - the 2004 buddy-bitmap test-atomics
 * (repro/buddy-bitmap-2004.c): its cases, cold buffers and passes, for the
 * tests. */
#ifndef ATOMCOST_REPRO_BUDDY_H
#define ATOMCOST_REPRO_BUDDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "repro/repro.h"

#define BUDDY_CASES 8
extern const char *const buddy_notes[BUDDY_CASES];

/* Legacy mode: trials of cases 0..7 in order; mean[i] is the mean whole-loop
 * tick count of case i. Prints the eight `score %d is %16lld note: %s` lines
 * to out (NULL: none). *cold_sum receives the sum of the checksums the cold
 * preparations read back (the proof they ran). The trials are grouped into
 * passes of consecutive trials, which only reads each pass's CPU share into
 * share[p] (share not NULL); ticks[cs * trials + t]: each loop's ticks (ticks
 * not NULL). A disturbed pass is run again as repro_pass_again says (rc not
 * NULL), its trials then counted once, the rerun's. 0 or -errno. */
int buddy_legacy(unsigned trials, unsigned passes, long long mean[BUDDY_CASES], FILE *out,
		 uint64_t *cold_sum, double *ticks, double *share, struct repro_ctx *rc);
/* What this machine changes for legacy mode's cold cases: the posted
 * buffer and the one meant to evict it (2 x 512 KiB) against the L2 and LLC
 * (0: unknown), and whether they are still cold. Returns the length. */
int buddy_legacy_cold_text(char *buf, size_t len, size_t l2, size_t llc);
/* The legacy cold preparation: malloc + memset(fill) of 512 KiB, read back
 * one byte per line; returns the checksum (fill * lines). *keep receives the
 * buffer (the caller frees it), or keep is NULL (freed here). */
uint64_t buddy_cold_prep(unsigned char fill, void **keep);
/* How many cold preparations ran since the process started. */
extern volatile uint64_t buddy_cold_preps;
/* Legacy cold buffers held until the end of a run (the posted program never
 * freed them); beyond this many, each is freed at once. */
#define BUDDY_COLD_KEEP_MAX 600

/* Modern mode's cold walk: pairs of lines in a random single cycle, the ops
 * on word 0 of each line, a chase link in word 1 of the first, in the same
 * order. */
#define BUDDY_COLD_DEFAULT (256ul << 20)	/* far above any real LLC of the dev guests */
#define BUDDY_COLD_MIN (16ul << 20)
#define BUDDY_LINK_OFF 8
struct buddy_cold {
	void *map;
	size_t map_len;
	char *buf;		/* 2 MiB aligned */
	size_t bytes;		/* npairs * pair */
	size_t pair;		/* two lines */
	size_t npairs;
	uint32_t *order;	/* npairs + tail entries: the walk, then its start again */
	size_t pos;		/* where the next walk of the ops starts */
	char *cursor;		/* where the next chase starts */
	bool thp;		/* MADV_HUGEPAGE accepted */
};
/* The cold buffer size: requested (0: BUDDY_COLD_DEFAULT), at least 8 times
 * l2 (0: unknown) and BUDDY_COLD_MIN, at most half of mem_available (0:
 * unknown). 0, or -EINVAL / -ENOMEM after a message naming the value. */
int buddy_cold_bytes(size_t requested, size_t l2, uint64_t mem_available, size_t *bytes);
/* Map, touch and link a walk over bytes in lines of line bytes; tail: the
 * longest walk of the ops (at most npairs). Deterministic for a seed. */
int buddy_cold_create(struct buddy_cold *c, size_t bytes, size_t line, size_t tail, uint64_t seed);
void buddy_cold_destroy(struct buddy_cold *c);
/* Links followed from the first pair until back to it; 0 if the chain leaves
 * the buffer or does not return within npairs steps. */
size_t buddy_cold_ring_length(const struct buddy_cold *c);

/* Modern mode's loops: the posted eight cases, then cases 3-5 again on the
 * dependent walk (8-10: each pair's address from the previous pair's link). */
#define BUDDY_MODERN_CASES 11
/* One timed loop of modern mode, in ticks: variant v (0 2004, 1 kernel, 2
 * var, 3 orb, 4 orq, 5 ds, as the config's `variants`), case cs, iters
 * iterations of two ops; hot cases prepare hot first; cases 3-5 advance
 * c->pos, cases 8-10 c->cursor. */
uint64_t buddy_modern_loop(size_t v, int cs, char *hot, struct buddy_cold *c, size_t iters,
			   size_t line);

/* Conclusions over passes: the trials are split into passes of consecutive
 * trials (pass p: trials p*trials/passes up to (p+1)*trials/passes), each
 * with its own preparations; a pass's figure of a case is its median. */
#define BUDDY_PASSES 5
/* min(BUDDY_PASSES, trials) */
size_t buddy_passes(size_t trials);
/* med[p]: the median of v over the trials of pass p. */
void buddy_pass_medians(const double *v, size_t trials, size_t passes, double *med);
/* A ratio of means never goes out bare: "score1/score0 3.91 (2004: 8.48;
 * passes 3.80-4.02)", the ratio of the means of a and b over all trials,
 * the posted one (NAN: none), and the range of the passes' ratios of
 * means ("one pass: no spread" when passes < 2). Returns the length. */
int buddy_ratio_of_means_text(char *buf, size_t len, const char *name, const double *a,
			      const double *b, size_t trials, size_t passes, double posted);

#endif
