/* SPDX-License-Identifier: MIT */
/* repro/code-alignment-2008.h - the code-alignment experiment's parts that
 * tests see (repro/code-alignment-2008.c says what it measures and why). */
#ifndef ATOMCOST_REPRO_ALIGN_H
#define ATOMCOST_REPRO_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"
#include "stats.h"

#ifndef ARCH_HAS_ALIGN_LOOPS
#define ARCH_HAS_ALIGN_LOOPS 0
#endif

/* Placements: the loop's first byte at this offset from a 4 KiB page. 16 in
 * one 64-byte line (+0, +4, .. +60), 4 in the last 24 bytes of a page, so
 * that every loop (27 bytes or more) crosses into the next page. */
#define ALIGN_NLINE 16
#define ALIGN_NPAGE 4
#define ALIGN_NPLACE (ALIGN_NLINE + ALIGN_NPAGE)
extern const unsigned align_offsets[ALIGN_NPLACE];
/* Index of the line placement with the same offset mod 64 as placement i. */
size_t align_page_twin(size_t i);
static inline bool align_is_page(size_t i)
{
	return i >= ALIGN_NLINE;
}

struct align_copy {
	unsigned off;			/* intended address of the loop mod 4096 */
	probe_kernel_fn fn;		/* the entry */
	const unsigned char *loop;	/* first byte of the loop */
	const unsigned char *tail;	/* the ret after the loop: [loop, tail) is timed */
	const unsigned char *end;	/* one past the copy's last byte */
};

struct align_probe {
	const char *name;	/* on the command line and in the config */
	const char *insn;	/* the timed instruction */
	const char *form;	/* latency or throughput, and what carries it */
	struct align_copy copy[ALIGN_NPLACE];
};

/* The probes of this architecture; none where !ARCH_HAS_ALIGN_LOOPS. */
extern const struct align_probe align_probes[];
extern const size_t align_nprobes;
/* Bytes the kernels use at ctx->mem (page aligned): hot words in the first
 * 8 lines, the chase ring in the second page. */
#define ALIGN_MEM_BYTES 8192
/* Zero ctx->mem (ALIGN_MEM_BYTES) and build the chase ring. */
void align_prepare(void *mem);

/* Check that every copy of p is where it claims (loop address mod 4096 ==
 * off; a line placement's copy stays in its page, a page placement's timed
 * loop [loop, tail) crosses into the next), that the copies are the same
 * bytes, and that the tail and the entry lie inside the copy, in order. 0, or -EIO after a message naming the copy. */
int align_check_probe(const struct align_probe *p);

/* The n-th placement (0..ALIGN_NPLACE-1) timed in pass `pass`: each pass
 * starts 7 placements further on and runs the other way than the one
 * before, so no placement is always the first or always next to the same
 * neighbour, and a slow drift of the machine does not line up with the
 * offset. Every pass visits every placement once. */
size_t align_pass_index(size_t pass, size_t n);

/* The passes a run may have (config: passes, 2..20). */
#define ALIGN_MAX_PASSES 20
/* The judgment's unit: one iteration of a probe's loop, 64 ops, so that the
 * 5% relative margin decides, not stats_judge's absolute one (0.25 cycles:
 * 25-100% of these per-op figures; docs/reproductions.md, section 5). */
#define ALIGN_JUDGE_OPS 64

/* The assessment of one probe (or of a ratio of two, placement by
 * placement). Each pass k is judged on the pair the OTHER undisturbed
 * passes chose (leave one out). */
struct align_assessment {
	double spread;			/* fig[imax] / fig[imin] - 1 */
	double noise, noise_max;	/* what re-running one placement moves (max/min - 1 of
					 * its pass medians): the median over the placements,
					 * the largest; shown, not judged on */
	size_t imin, imax;		/* the fastest and slowest placement by figure */
	size_t used, agree;		/* undisturbed passes; those whose pair is imax, imin */
	/* pass k's medians of the slowest and fastest of its pair, per 64 ops; NAN: none */
	double ea[ALIGN_MAX_PASSES], eb[ALIGN_MAX_PASSES];
	struct judgment j;		/* of ea against eb, the undisturbed passes */
	bool shows;			/* j.v is VERDICT_SLOWER */
};

/* pass_med[i * npass + k]: median cost of placement i in pass k (> 0);
 * share: NULL, or per pass its CPU share (quiet_share: passes under
 * REPRO_SHARE_MIN are disturbed). Fills *a and fig[0..nplace), the median
 * of each placement's undisturbed pass medians. 0, or -EINVAL (not
 * 2..ALIGN_NPLACE placements and 2..ALIGN_MAX_PASSES passes, or a figure
 * that is not a positive number). */
int align_assess(const double *pass_med, size_t nplace, size_t npass, const double *share,
		 double *fig, struct align_assessment *a);

/* ---- the non-atomic unlock question: the hand-over harness ----
 * The holder stamps the timer just before its release, the next holder,
 * when it is the other thread, just after its acquire; the stamps and the
 * owner sit on the lock's line, as a slab's fields sit beside page->flags. */
struct unlock_line {
	uint64_t lock;		/* bit 0: the bit spinlock */
	uint64_t owner;		/* id of the last holder; 0: none yet */
	uint64_t released;	/* timer tick just before the last release */
} __attribute__((aligned(64)));

#define UNLOCK_SAMPLE_CAP 16384
struct unlock_thread {
	unsigned id;		/* 1, 2, ..: never 0 */
	uint64_t acquired;	/* acquisitions */
	uint64_t handovers;	/* acquisitions from the other thread */
	uint64_t backwards;	/* hand-overs stamped before the release: the two
				 * PUs' timers disagree; no sample kept */
	size_t nsamples, stride;	/* every stride-th hand-over is kept */
	double samples[UNLOCK_SAMPLE_CAP];	/* hand-over times, ticks */
};
void unlock_thread_init(struct unlock_thread *th, unsigned id);
/* In the critical section, th took the lock of l at tick t. */
void unlock_acquired(struct unlock_line *l, struct unlock_thread *th, uint64_t t);

struct unlock_summary {
	double handover_ticks;	/* median of the kept hand-over times; NAN: none */
	double handover_share;	/* hand-overs / acquisitions */
	double fairness;	/* stddev / mean of the threads' acquisitions */
	uint64_t acquired, handovers, backwards;
};
/* Pool n threads' records. 0, -EINVAL (no thread), -ENOMEM. */
int unlock_summarize(const struct unlock_thread *const *th, unsigned n, struct unlock_summary *s);

#endif
