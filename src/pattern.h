/* SPDX-License-Identifier: MIT */
/* pattern.h - access patterns (--pattern, docs/patterns.md): where the
 * line an op touches comes from, whether each op waits for the previous
 * one, mixtures, misses around an op. The pure parts (parsing, footprints,
 * walk order, mix mask) run on synthetic topologies for the tests.
 */
#ifndef ATOMCOST_PATTERN_H
#define ATOMCOST_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "probe.h"
#include "result.h"
#include "topo.h"

struct run_opts;

enum pattern_kind {
	PAT_HIT,		/* the hot-line kernels (run[]) */
	PAT_DEP,		/* chase over L1-resident lines */
	PAT_L2,			/* chase over a footprint that fits L2, not L1d */
	PAT_LLC,		/* ... fits the LLC, not L2 */
	PAT_MISS,		/* ... at least 4x the LLC */
	PAT_MISS_OVERLAP,	/* independent misses with one op between them */
	PAT_MIX,		/* mix=K/M on the hot lines */
	PAT__COUNT,
};

struct pattern {
	enum pattern_kind kind;
	unsigned mix_k, mix_m;	/* mix=K/M */
	char name[24];		/* canonical spelling ("miss", "mix=1/4") */
};

#define PATTERN_MAX 16
/* The fixed seed of the walk order (recorded in every result; below 2^53
 * so JSON readers that hold numbers as doubles keep it exact). */
#define PATTERN_SEED 20040827ull

/* Parse "hit,l2,mix=1/4". Returns the count, or -EINVAL after a message
 * naming the bad element. */
int pattern_parse_list(const char *s, struct pattern *out, size_t max);

/* K atomic slots spread evenly over each M of the 64 op slots (M divides 64). */
uint64_t pattern_mix_mask(unsigned k, unsigned m);

/* Cache sizes the footprints are derived from. */
struct pattern_sizes {
	size_t l1d, l2, llc;	/* bytes, 0: unknown */
	unsigned line;		/* bytes */
	/* footprints measured inside a level (hierarchy_walks), 0: from the
	 * sizes above */
	size_t walk[PAT__COUNT];
};
void pattern_sizes_from_topo(const struct topo *t, struct pattern_sizes *s);
/* Footprint of a buffer pattern: walk[kind] where set; else dep L1d/2; l2
 * L2/2 (at least 2 L1d, else halfway between); llc 2 L2 (at most halfway
 * between L2 and LLC); miss and miss-overlap 4 LLC, rounded up to 2 MiB.
 * Then a multiple of 64 lines. 0, or -ENOTSUP after a message
 * when a needed size is unknown or the levels do not nest. Pure. */
int pattern_footprint(const struct pattern *p, const struct pattern_sizes *s, size_t *bytes);
/* The transparent-huge-page mode ("always", "madvise", "never"; "unknown"
 * when unreadable) into buf, and the AnonHugePages of the mappings
 * overlapping [lo, hi), bytes (/proc/self/smaps). */
void pattern_thp_mode(char *buf, size_t len);
size_t pattern_thp_bytes(uintptr_t lo, uintptr_t hi);
/* MemAvailable from /proc/meminfo, bytes; 0 when unknown. */
uint64_t pattern_mem_available(void);
/* Parse "64M", "2G", "1536k", "4096" (binary units). -EINVAL after a message. */
int pattern_parse_size(const char *what, const char *s, size_t *out);

/* A random walk order over n lines: order[0] = 0 and order[1..n) a
 * Fisher-Yates shuffle. Linking order[k] -> order[k+1 mod n] gives a single
 * cycle through every line, uniformly chosen among the (n-1)! cycles, the
 * same distribution as Sattolo's algorithm, and the throughput form reads
 * the same order without walking the ring. Deterministic for a seed. */
void pattern_walk_order(uint32_t *order, size_t n, uint64_t seed);

/* A buffer of lines chained in walk order. */
struct pattern_buf {
	void *map;		/* the mapping (2 MiB aligned inside) */
	size_t map_len;
	char *base;		/* first line */
	size_t bytes;		/* footprint */
	size_t nlines;		/* lines in the walk (bytes / stride) */
	unsigned stride;	/* bytes between walk lines: max(64, line size) */
	uint32_t *idx;		/* walk order, 64-byte units; nlines entries */
	void *idx_map;
	size_t idx_map_len;
	char *cursor;		/* chase position, kept across probes */
	size_t pos;		/* index position, kept across probes */
	uint64_t seed;
	int node;		/* --mem-node, -1: default */
	char thp_mode[16];	/* "always", "madvise", "never", "unknown" */
	bool thp_requested;	/* madvise(MADV_HUGEPAGE) issued */
	size_t thp_bytes;	/* AnonHugePages of the range after touching */
	size_t page_bytes;	/* page size of most of the range */
	double setup_s;		/* allocation, touching and linking */
	bool dirty;		/* a PATTERN+ptr op may have set low bits of the links */
};

/* Map, bind (node >= 0), touch and link a buffer. t may be NULL when
 * node < 0. 0 or -errno after a message. */
int pattern_buf_create(struct pattern_buf *b, size_t bytes, unsigned line, uint64_t seed,
		       struct topo *t, int node);
void pattern_buf_destroy(struct pattern_buf *b);
/* Clear the low 6 bits of every link (one sequential pass), so the walks
 * that follow the pointer word unmasked (the bare chase, the PATTERN rows,
 * op on word 1) can run after a PATTERN+ptr row set some of them. Clears
 * b->dirty. */
void pattern_buf_clean(struct pattern_buf *b);
/* Point ctx at the buffer (cursor and position included). */
void pattern_ctx_attach(struct probe_ctx *ctx, const struct pattern_buf *b);

/* Check --pattern, --footprint and --mem-node against this topology and the
 * available memory, before anything is measured. 0 or -EINVAL/-ENOTSUP
 * after a message. */
int pattern_check(struct topo *t, const struct run_opts *o);

/* Pin and calibrate as runner_run does (runner_prepare), measure every
 * probe of list under every pattern of o->patterns into rep, and finish
 * the rows (runner_finish). */
int pattern_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		size_t n, struct report *rep);

/* `atomcost list --patterns`: one line per pattern (json: an array). */
void pattern_list(const struct topo *t, bool json);

#endif
