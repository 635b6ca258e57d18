/* SPDX-License-Identifier: MIT */
/* result.h - the one data model every report writer reads. The runner fills
 * it; writers never measure; report_read() rebuilds it from JSON. */
#ifndef ATOMCOST_RESULT_H
#define ATOMCOST_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "calibration.h"
#include "fingerprint.h"
#include "stats.h"
#include "vocab.h"

/* One event over a result's samples. An event that could not be counted
 * has available false and a reason, and no value: it is never shown as 0. */
#define RESULT_MAX_EVENTS 16
struct result_event {
	char name[96];		/* as asked for (cycles, amd64_fam19h_zen3::...) */
	bool available;
	bool per_op;		/* values per op (hardware events) or per sample (software) */
	char why[24];		/* short reason for a table cell */
	char reason[256];	/* the whole reason */
	size_t n;		/* samples it was counted over */
	double min, median, mean, max, total;
};

/* One footprint of a throughput sweep (words on each of lines), ticks per
 * op. A report read back without words has 1. */
#define RESULT_MAX_SWEEP 24
struct result_sweep {
	unsigned words, lines;
	size_t n;
	double min, p10, median, p90;
};

/* What rescaled a result's samples onto the report's clock (runner.c,
 * pmu_report_cycles): nothing (threads, reproductions), the drift chain
 * timed around each sample, or the PMU cycles counted in each sample. */
enum result_clock { RESULT_CLOCK_NONE, RESULT_CLOCK_CHAIN, RESULT_CLOCK_PMU };
const char *result_clock_name(enum result_clock c);
int result_clock_parse(const char *s, enum result_clock *out);

/* ---- a row's details beyond its timing: the JSON "extra" object, written
 * and read by report/json.c under the keys of its tables, in the order of
 * the enums here. has: which keys a part has, bit (1u << key); whoever
 * fills a member sets its bit (~0u: every key). Every has names its bits
 * by such an enum (here, sections.h), never by a number: json.c's tables
 * are indexed by it, so a key inserted in an enum moves no other key. */
#define HAS_KEYS(first, last) ((2u << (last)) - (1u << (first)))	/* first..last */
#define HAS_ALL(count) HAS_KEYS(0, (count) - 1)

/* The pattern a row walked (pattern.c). */
enum pattern_key {
	PX_NAME, PX_VARIANT, PX_FOOTPRINT, PX_LINE, PX_MEASURED, PX_HWLOC,	/* every pattern row */
	PX_LINES, PX_PAGE, PX_THP_MODE, PX_THP_REQUESTED, PX_THP_BYTES, PX_SEED, PX_NODE,
	PX_SETUP,			/* a buffer's */
	PX_MIX_K, PX_MIX_M,		/* mix's */
};
struct pattern_info {
	unsigned has;
	char name[32], variant[16];
	long long footprint_bytes;
	int line_bytes;
	struct result_cache_sizes { unsigned has; long long l1d, l2, llc; } sizes;	/* "measured" or "hwloc" */
	long long lines, page_bytes;
	char thp_mode[16];
	bool thp_requested;
	long long thp_bytes, seed, node;	/* node -1: null */
	double setup_s;
	int mix_k, mix_m;
};

/* A contention case's row (contention.c); ticks per op. */
enum { CT_CPU_OS, CT_CPU_LOGICAL, CT_OPS, CT_TICKS_PER_OP, CT_NS_PER_OP, CT_CPU_S, CT_CPU_WALL, CT_START_TICK,
       CT_END_TICK, CT_MIGRATED, CT__COUNT };
struct contention_thread {
	unsigned has;
	int cpu_os, cpu_logical;
	long long ops;
	double ticks_per_op, ns_per_op, cpu_s, cpu_wall;
	long long start_tick, end_tick;
	bool migrated;
};
enum { CP_THREADS, CP_PLACEMENT, CP_SHARING, CP_DURATION, CP_SLOT_STRIDE, CP_CS_WORK, CP_OUTSIDE_WORK,
       CP_TOTAL_OPS, CP_THREAD_TICKS, CP_THREAD_NS, CP_AGGREGATE_TICKS, CP_AGGREGATE_NS, CP_FAIRNESS_CV,
       CP_OVERLAP, CP_CPU_WALL_MIN, CP_OVERLAPPED, CP_STOPPING, CP_PER_THREAD, CP_HANDOVER_ACQ,
       CP_HANDOVER_SHARE, CP_QUEUE_DEPTH, CP__COUNT };
struct contention_part {
	unsigned has;
	int threads;
	char placement[16], sharing[8];
	double duration_s;
	long long slot_stride_bytes, cs_work, outside_work, total_ops;
	double thread_ticks_per_op, thread_ns_per_op, aggregate_ticks_per_op, aggregate_ns_per_op;
	double fairness_cv, overlap, cpu_wall_min;
	int overlapped;		/* the threads ran together: 1, 0, -1 not said */
	char stopping[40];
	struct contention_thread *per;	/* owned */
	size_t nper;
	/* a lock's hand-over pass on the same CPUs (true sharing only; bits
	 * CP_HANDOVER_ACQ.. of has): acquisitions counted, the
	 * share whose previous holder was another thread, and for a queued
	 * lock the mean threads waiting at an acquisition */
	long long handover_acquisitions;
	double handover_share, queue_depth;
};
#define CP_HANDOVER_BITS HAS_KEYS(CP_HANDOVER_ACQ, CP_QUEUE_DEPTH)

enum result_extra_key {	/* RX_OVER_X follows RX_X */
	RX_MENU_NEED, RX_SAFE_WHEN, RX_DISTURBED, RX_PATTERN, RX_CHASE_STEP, RX_CHASE, RX_OVER_CHASE,
	RX_LOAD, RX_OVER_LOAD, RX_STORES, RX_OVER_STORES, RX_CONTENTION, RX_NOTE, RX_SELF_CHECK,
	RX_STEP, RX_EPOCH, RX_PASS, RX_PROCESS, RX_MIXTURE,
};
#define RESULT_MAX_NEEDS 4
struct result_extra {
	unsigned has;
	/* what the row serves on the fast-path menu (the probe's descriptor) */
	char menu_need[RESULT_MAX_NEEDS][64];
	size_t nneed;
	char safe_when[96];
	size_t *disturbed_at;	/* owned: the samples with a context switch or migration (pmu.c) */
	size_t ndisturbed_at;
	struct pattern_info pattern;
	char chase_step[24];
	/* the bare walk's, loads' or stores' cost beside the row and the
	 * row's cost over it, cycles (pattern.c; RX_X, RX_OVER_X) */
	struct result_over { double bare, over; } chase, load, stores;
	struct contention_part contention;
	char note[256];
	struct result_self_check { unsigned has; double expected_cycles, cycles, deviation; } self_check;
	char step[24];		/* the characterization's step (session.c) */
	int epoch;		/* 1-based ("pass" in older reports, read into it) */
	int process;		/* compare's merged process */
	/* the steady states of the samples, ticks (stats_mixture; the bit is
	 * set only when there are two or more: report_pair_twins finds them) */
	struct mixture mix;
};

/* The note of every row timed under emulation (kmod.c): never on a card. */
#define RESULT_EMULATED_NOTE "emulated: not a measurement"

struct result {
	char name[64];		/* probe name */
	char twin[64];		/* "" when none */
	char family[32];
	char atomicity[16];
	char insn[160];
	char pattern[32];	/* access pattern ("hit") */
	enum probe_mode mode;
	int cpu_os, cpu_logical;
	uint64_t iters;		/* N of the N/2N difference */
	uint64_t ops_per_sample;	/* ops in one sample (2N * UNROLL) */
	/* The fixed overhead subtracted from each sample and the N/2N
	 * extrapolation kept to check it (docs/method.md); overhead_flag: either
	 * is implausible (runner.c, RUNNER_OVH_*). */
	double overhead_ticks, overhead_extrap_ticks;
	double sample_min_ticks;	/* fastest 2N timing, raw ticks (the overhead's yardstick) */
	bool overhead_flag;
	double clock_scale;	/* median factor applied to the samples (drift chain or PMU) */
	enum result_clock clock_source;	/* what rescaled the samples */
	/* Throughput swept over footprints (probe.tput_sweep): the row is the
	 * footprint with the lowest median; footprint_lines 0: not swept. */
	unsigned footprint_words, footprint_lines;
	struct result_sweep sweep[RESULT_MAX_SWEEP];
	unsigned nsweep;
	bool min_flag;	/* the fastest sample is below what the hardware can do */
	double min_bound_ticks;	/* the bound it fell below (runner_check_bounds) */
	size_t warmup;		/* samples dropped */
	double *samples;	/* every kept sample, timer ticks per op */
	size_t nsamples;
	struct summary s;	/* of samples, ticks per op */
	bool ci_reached;	/* stopped because the CI target was met */
	bool migrated;		/* the thread was found off its PU */
	bool analog;		/* the probe is a user-space stand-in (probe.analog): no verdicts */
	bool no_insn;		/* the probe runs no instruction here (a compiler barrier): it
				 * costs nothing, and neither it nor its twin gets a ratio */
	enum result_context { RESULT_USER, RESULT_KERNEL } context;	/* where it ran (kmod.c) */
	char user_analog[64];	/* a kernel row: the user-space probe it sits beside (kmod.c); "": none */
	unsigned char card_pair, card_share, card_order;	/* the card's lines it serves (probe.h), 0: none */
	/* vs twin in this epoch (report_pair_twins), and judged over every epoch */
	bool has_ratio;
	double ratio, ratio_lo, ratio_hi;
	struct judgment judge;
	/* relative sd of the row's own medians between epochs; NAN under 2 */
	double epoch_spread;
	struct result_extra extra;	/* JSON "extra" */
	/* events counted around each sample (pmu.c); nevents 0: none recorded */
	struct result_event events[RESULT_MAX_EVENTS];
	unsigned nevents;
	long disturbed;		/* samples with a context switch or migration; -1: unknown */
	double pmu_ticks_per_cycle;	/* timer ticks per PMU cycle (median over samples), 0: none */
};

/* The prior of the twin judgments of one kind of row: its context, mode
 * and pattern (report_pair_twins fits it, report_judge uses it). */
struct judge_kind {
	enum result_context ctx;
	enum probe_mode mode;
	char pattern[32];
	struct stats_prior prior;
};

struct report {
	struct calibration cal;
	json_t *topo;		/* topology description (owned) */
	json_t *meta;		/* fingerprint, command line, experiment (owned) */
	struct fingerprint fp;	/* meta.fingerprint's facts (report_fingerprint; owned) */
	json_t *sections;	/* other top-level JSON objects ("c2c", ...), kept as read (owned) */
	struct hierarchy_section *hier;	/* the measured staircase (sections.h; owned), NULL: none */
	struct splitlock_section *split;	/* the split lock (sections.h; owned), NULL: none */
	struct c2c_out *c2c;	/* the c2c round trips (sections.h; owned), NULL: none */
	struct characterization_meta *charz;	/* meta.characterization (sections.h; owned), NULL: none */
	struct epoch_out *epochs;	/* meta.epochs (sections.h; owned), NULL: none */
	size_t nepochs;
	json_t *tool;		/* read back: the measuring tool (owned); NULL: this build's */
	char topo_summary[256];
	struct result *r;
	size_t n, cap;
	struct judge_kind *kinds;	/* owned; from report_pair_twins */
	size_t nkinds;
	double *drift;		/* owned; from report_pair_twins: the drift chain's usual
				 * clock_scale in process p at [p - 1], NAN where it
				 * held no one speed (result_drifted) */
	size_t ndrift;
	bool partial;		/* interrupted or time-limited */
	char partial_reason[64];
	double wall_s;
	char started[40];	/* ISO 8601 UTC */
	/* Where PMU cycles count they replace the add chain in cal, whose figure
	 * stays here to show how well the two agree. 0: cycles not counted. */
	double pmu_ticks_per_cycle, chain_ticks_per_cycle, cycle_agreement;
};

void report_init(struct report *rep);
void report_free(struct report *rep);
struct result *report_add(struct report *rep);	/* a zeroed row; NULL: ENOMEM */
/* Free what r owns (samples, the extra's arrays); r stays a valid empty row. */
void result_release(struct result *r);
/* *d = *s, and s gives up what it owned. */
void result_move(struct result *d, struct result *s);
/* Move a result's ticks onto another clock (times k) and summarize again;
 * overheads stay raw ticks. */
void result_rescale(struct result *r, double k);
/* extra.epoch (1-based); 0 when none. */
static inline int result_epoch(const struct result *r)
{
	return r->extra.epoch;
}

/* The process of a merged result (extra.process; 1 when absent). */
static inline int result_process(const struct result *r)
{
	return r->extra.process ? r->extra.process : 1;
}

static inline void result_set_epoch(struct result *r, int epoch)
{
	r->extra.has |= 1u << RX_EPOCH;
	r->extra.epoch = epoch;
}
/* Fill every result's ratio to its twin in its epoch and the judgment over
 * the epochs (VERDICT_NONE where either is an analog), each row's spread
 * moderated by the prior of its kind, fitted over the spreads of the
 * report's rows of that kind (docs/method.md, "Three-valued verdicts"),
 * and its steady states (extra.mix, result_mixture). */
void report_pair_twins(struct report *rep);
/* The judgment of a row in a few words: "slower +11.0 cyc", "same (5%)",
 * "unresolved (5 epochs, spread 3.1%)", "analog", RESULT_NO_INSN, ""
 * without a twin. */
#define RESULT_NO_INSN "no instruction here (compiler barrier)"
void result_judgment_text(const struct result *r, char *buf, size_t len);
/* Where a row ran: "user" or "kernel" (every format says it). */
const char *result_context_name(enum result_context c);
/* A row whose figure is the emulator's: its note says so (kmod.c), or the
 * report was calibrated under emulation. Never on a card. */
bool report_row_emulated(const struct report *rep, const struct result *r);
/* x and y are one row: the same probe, mode, pattern and context. */
bool result_same_row(const struct result *x, const struct result *y);
/* The row of probe name in one mode, pattern and context; NULL if none. */
const struct result *report_find(const struct report *rep, const char *name,
				 enum probe_mode mode, const char *pattern, enum result_context ctx);
/* r's epoch was disturbed and run again (meta.epochs rerun): its rows stay
 * in the report, every sample, and out of the judgments and compare. */
bool result_rerun(const struct report *rep, const struct result *r);
/* r's drift chain ran at another speed than its process's usual one
 * (the fastest that recurs), in a process where such moves tell
 * disturbance: the core was disturbed for most of r's samples. The chain
 * rescales for a change of clock, not for a sibling or the host slowing
 * the op itself. On the Zen 4 guest the epochs whose chain moved sat
 * 0.7-9.3% from their row's held epochs (median over the rows) against
 * 0.03-0.08% for held ones; on the Intel guest the chain moves with the
 * clock in steps of 2.7-11% and the epochs it moved sit 0.05-0.08% off,
 * under RESULT_DRIFT_MIN_DEV: there it says nothing, and nothing is left
 * out. The test reads no figure of r's own but among every row's of its
 * process (docs/reports.md "Epochs whose drift chain moved"). */
#define RESULT_DRIFT_FLOOR 5e-4	/* a move: beyond this, relative */
#define RESULT_DRIFT_MIN_ROWS 20	/* chain-rescaled results a process needs */
#define RESULT_DRIFT_USUAL 0.10	/* results at the usual speed, at least */
#define RESULT_DRIFT_MIN_MOVED 5	/* moved epochs, to tell anything */
#define RESULT_DRIFT_TELLS 3.0	/* moved epochs this much further off than held ones */
#define RESULT_DRIFT_MIN_DEV 0.002	/* and at least this far (log) */
#define RESULT_DRIFT_KEEP 2	/* epochs a row keeps, or it keeps them all */
bool result_drifted(const struct report *rep, const struct result *r);
/* Whether the drift chain's moves tell disturbance in process proc (the
 * test result_drifted applies there). */
bool report_drift_tells(const struct report *rep, int proc);
/* Judge probe a against probe b over the epochs both ran in (core cycles,
 * stats_judge). Returns the number of paired epochs. */
size_t report_judge(const struct report *rep, enum result_context ctx, const char *a, const char *b,
		    enum probe_mode m, const char *pattern, struct judgment *j);
/* Median over the epochs of a row's medians, core cycles; NAN if absent.
 * User-space rows only: a kernel row of that name is another primitive. */
double report_median_cycles(const struct report *rep, const char *name, enum probe_mode m,
			    const char *pattern);
/* A row over its epochs (compare_group of rep->r[i]), ticks per op: the
 * medians of the epochs' statistics, the fastest sample, disturbed -1:
 * unknown; lo..hi: the range of the epoch medians (one epoch: its CI), and
 * of the ratio to the twin the same way (ratio_lo > ratio_hi: no ratio). */
struct report_row {
	size_t epochs, samples;
	long disturbed;
	double median, p10, p90, min, lo, hi, ratio_lo, ratio_hi;
	struct mixture mix;	/* of the samples of every epoch together (result_mixture) */
};
void report_row(const struct report *rep, size_t i, struct report_row *w);
/* The steady states of n samples of rows like r (ticks; stats_mixture with
 * the timer's step over r's ops per sample and the judgment's
 * JUDGE_MARGIN_ABS cycles as the smallest gap that matters). */
int result_mixture(const struct report *rep, const struct result *r, const double *v, size_t n,
		   struct mixture *m);
/* Whether r is drawn (or printed) with its twin t (NULL: none) under it: a
 * mutual pair once, from its more atomic side (card_atomic_rank), else
 * its first; a one-way twin (this_cpu_cmpxchg -> cmpxchg) is drawn with
 * its own pair too. r and t: the first results of their rows. */
bool report_pair_lead(const struct result *r, const struct result *t);
/* Epochs of one row: every result of rep with the name, mode and pattern
 * of rep->r[i], in report order. Returns how many (<= max stored). */
size_t compare_group(const struct report *rep, size_t i, const struct result **out, size_t max);
/* True when rep->r[i] is the first result of its group. */
bool compare_group_first(const struct report *rep, size_t i);
/* 2: atomic against every CPU (or a baseline), 1: only against this CPU,
 * 0: not atomic (the order the charts draw twins in). */
int card_atomic_rank(const struct result *r);

static inline double result_cycles(const struct report *rep, double ticks)
{
	return clock_ticks_to_cycles(&rep->cal, ticks);
}

static inline double result_ns(const struct report *rep, double ticks)
{
	return clock_ticks_to_ns(&rep->cal, ticks);
}

#endif
