/* SPDX-License-Identifier: MIT */
/* sections.h - typed report sections beside the results: the engines fill
 * them, report/json.c codes them, the writers print them. */
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
	/* load-store: median ticks of a store and a full fence right after
	 * the read miss that gave a its turn, and on a line of a's own (0:
	 * not measured): whether the store had to upgrade a shared line */
	double store_after_read, store_local;
};

/* Where the rows were measured: the allowed PUs (OS indexes, the matrix's
 * order) and the topology's one-line summary. */
struct c2c_where {
	const int *cpus;
	int ncpus;
	const char *summary;
};

/* A calibration as written (clock_to_json's keys), kept whole where a
 * section carries its own run's (c2c). mul_latency -1: null. */
struct calibration_check_out { unsigned has; double expected_cycles, cycles, deviation; };
struct calibration_out {
	unsigned has;
	double timer_hz, timer_hz_spread, overhead_min_ticks, overhead_median_ticks, ticks_per_cycle;
	double ticks_per_cycle_mul, chain_agreement, core_hz;
	char cycle_source[128], timer[64];
	bool timer_invariant, trustworthy;
	int cpu_os;
	long long mul_latency;
	bool emulated;
	char emulation[160];
	struct calibration_checks_out {
		unsigned has;
		char add_chain[128];
		struct calibration_check_out imul_chain, l1_load_chase;
	} self_checks;
};

/* The section ("atomcost-c2c/1", docs/reports.md): one entry per pair and
 * method (has 0: null), the classes absent here, one matrix per method
 * (v[m][i * n + j] from cpus[i] to cpus[j], ns, NAN: null). Arrays owned. */
enum { C2S_MIN, C2S_P10, C2S_MEDIAN, C2S_P90, C2S_MAX, C2S__COUNT };
struct c2c_summary_out { unsigned has; double min, p10, median, p90, max; };
enum { C2P_CLASS, C2P_CPU_A, C2P_CPU_B, C2P_METHOD, C2P_TRANSFERS, C2P_SAMPLES, C2P_TIMED_OUT, C2P_TICKS,
       C2P_NS, C2P_CYCLES, C2P_ONE_WAY_NS, C2P__COUNT };
struct c2c_pair_out {
	unsigned has;
	char cls[16];
	int cpu_a, cpu_b;
	char method[16], transfers[96];
	long long samples;
	bool timed_out;
	struct c2c_summary_out ticks, ns, cycles;
	double one_way_ns;
};
/* c2c_out's keys: hand-made sections may have one matrix, its unit and
 * CPUs beside it (C2O_FLAT_*); c2c_matrix_out's: a matrix per method
 * (C2M_MATRIX + enum c2c_method). methods' bits are enum c2c_method. */
enum { C2O_FLAT_UNIT, C2O_FLAT_CPUS, C2O_SCHEMA, C2O_MODE, C2O_CAL, C2O_TOPOLOGY, C2O_ROUNDS, C2O_METHODS,
       C2O_PAIRS, C2O_ABSENT, C2O_MATRIX, C2O_FLAT_MATRIX, C2O__COUNT };
enum { C2M_CPUS, C2M_UNIT, C2M_MATRIX, C2M__COUNT = C2M_MATRIX + C2C__COUNT };
struct c2c_out {
	unsigned has;
	char schema[24], mode[24];
	struct calibration_out cal;
	char topology[256];
	int rounds_per_sample;
	struct c2c_methods_out { unsigned has; char transfers[C2C__COUNT][96]; } methods;
	struct c2c_pair_out *pairs;
	size_t npairs;
	char absent[PAIR__COUNT][16];
	size_t nabsent;
	struct c2c_matrix_out {
		unsigned has;
		size_t *cpus, ncpus;
		char unit[40];
		double *v[C2C__COUNT];
		size_t nv[C2C__COUNT];
	} matrix;
};

/* Fill o from the rows (report/c2c.c); 0 or -ENOMEM (o freed). */
int c2c_out_fill(struct c2c_out *o, const struct calibration *cal, const struct c2c_where *w,
		 const struct c2c_row *rows, size_t nrows, const bool *absent, unsigned mmask, bool all);
void c2c_out_free(struct c2c_out *o);	/* result.c */
/* The section as JSON, and the calibration as written (report/json.c). */
json_t *c2c_out_json(const struct c2c_out *o);
int calibration_out_of(const struct calibration *c, struct calibration_out *o);

void c2c_write_text(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f);

/* ---- contention: N pinned threads on one cache line (contention.h) */

/* A case whose threads overlapped less than this, or a thread that ran less
 * than this share of its wall time, did not really contend. */
#define CONTENTION_OVERLAP_MIN 0.9
#define CONTENTION_CPU_WALL_MIN 0.9

/* The contention table for those results (nothing when there are none),
 * then a table and chart per sweep group. */
void contention_write_text(const struct report *rep, FILE *f);

/* A thread did over this many times the ops of another: the row's figure
 * is mostly one thread's, said beside it (UNFAIR). */
#define CONTENTION_UNFAIR_MAX_MIN 2.0
bool contention_unfair(const struct contention_part *c);
/* The most ops of one thread over the fewest (1: all equal; INFINITY: a
 * thread did none). */
double contention_max_min(const struct contention_part *c);
/* The hand-over share and queue depth as the tables print them ("0.512",
 * "0.37"); "-" where the row does not hold them, never 0. */
void contention_handover_text(const struct contention_part *c, char *ho, char *qd, size_t len);
/* One contention row's figures as the tables (text and HTML) print them. */
struct contention_cells {
	char cpus[96], ops[160];	/* "0,1", "16.4M,2.42M" */
	char ratio[32], ho[16], qd[16], cpu_ns[16];	/* "-": not in the row */
	double med_cyc, thr_ns, thr_cyc, agg_ns, agg_cyc, max_min;
	bool not_overlapped, unfair;
};
void contention_cells(const struct report *rep, const struct result *r, struct contention_cells *x);
/* The table's words, the same in every format: its heading, what its
 * columns mean (one note a line), and what its flags say. */
#define CONTENTION_NOTES 4
extern const char *const contention_notes[CONTENTION_NOTES];
const char *contention_head_text(const struct contention_part *c, char *buf, size_t len);
const char *contention_overlap_note(char *buf, size_t len);
const char *contention_unfair_note(char *buf, size_t len);
/* A sweep group: the rows of one probe, sharing case, placement and work
 * point at several thread counts. When row i is a group's first row and
 * the group has 2 rows or more, its rows (up to max) go to members and
 * their number is returned; else 0. */
#define CONTENTION_SWEEP_MAX 64
size_t contention_sweep_group(const struct report *rep, size_t i, size_t *members, size_t max);

/* ---- what the writers read of a report, typed, so that no writer reads
 * JSON (report/json.c decodes it). Strings point into the report. */

/* A row's extra as compact JSON with sorted keys, the CSV's column
 * (malloc'd; NULL: none). */
char *report_extra_text(const struct result *r);

/* NULL when r is no contention row. */
const struct contention_part *result_contention(const struct result *r);

#define C2C_MAX_PAIRS 32	/* the card's round trips, one per class and method */
/* --c2c FILE: the JSON of `atomcost c2c` becomes rep's c2c section. 0 or
 * -errno, said. */
int report_attach_c2c(struct report *rep, const char *path);

/* An epoch's clock, time and CPU share (meta.epochs: one per epoch and
 * step; step "": null); rerun: it was disturbed and run again as a later
 * epoch (its rows stay, every sample). The EP_* bits in has say which
 * keys an epoch holds. */
enum { EP_EPOCH, EP_STEP, EP_TICKS_PER_CYCLE, EP_TIMER_HZ, EP_WALL, EP_CPU_SHARE, EP_PARTIAL, EP_RERUN,
       EP__COUNT };
struct epoch_out {
	unsigned has;
	int epoch;
	char step[32];
	double ticks_per_cycle, timer_hz, wall_s, cpu_share;
	bool partial, rerun;
};

/* The default characterization's steps, each with its time and status,
 * where the patterns' sizes came from, and what it did under load: the PU
 * it measured on and why, the patience it had (--patience), the seconds it
 * waited for quiet, the stretches (epochs, the staircase, the sharing
 * cases) it ran again and those it kept disturbed when the patience ran
 * out; a --quick card says what it left out (meta.characterization; the
 * CZ_* bits in has say which keys a report holds). */
#define CHARZ_MAX_STEPS 8
enum { CZS_STEP, CZS_SECONDS, CZS_STATUS, CZS__COUNT };
struct charz_step {
	unsigned has;
	char step[96];
	double seconds;
	char status[32];
};
enum { CZ_STEPS, CZ_PATTERN_SIZES, CZ_COMPLETE, CZ_CPU, CZ_CPU_WHY, CZ_PATIENCE, CZ_WAITED, CZ_REPEATED,
       CZ_KEPT_DISTURBED, CZ_KEPT_WHY, CZ_LEFT_OUT, CZ__COUNT };
struct characterization_meta {
	unsigned has;
	struct charz_step steps[CHARZ_MAX_STEPS];
	size_t nsteps;
	char pattern_sizes[48];
	bool complete;
	int cpu;
	char cpu_why[160];
	double patience_s, waited_s;
	int repeated, kept_disturbed;
	char kept_why[96];	/* why disturbed stretches were kept: "the patience ran out", ... */
	char left_out[160];	/* "": the whole card */
};

/* The epochs' own calibrations and CPU shares, for the writers; NAN where
 * an epoch says nothing. Returns how many. */
#define REPORT_MAX_EPOCHS 64
struct epoch_meta {
	int epoch;
	double ticks_per_cycle, timer_hz, cpu_share;
};
size_t report_epochs(const struct report *rep, struct epoch_meta *e, size_t max);

/* The machine, from the fingerprint ("?" where it says nothing). */
struct card_machine {
	const char *cpu, *family, *model, *microcode, *sysname, *release;
	int vm;			/* hypervisor flag: 1 set, 0 not set, -1 unknown */
	const char *host, *tool_version;	/* NULL: not said */
};

/* The split lock (splitlock section). */
enum card_split_state { CARD_SPLIT_NONE, CARD_SPLIT_SKIPPED, CARD_SPLIT_UNSUPPORTED, CARD_SPLIT_SIGBUS,
			CARD_SPLIT_MEASURED };
struct card_split {
	enum card_split_state state;
	const char *skipped;	/* why it was skipped */
	bool has_kernel;	/* the section says what the kernel does */
	const char *kernel_why;	/* NULL: mode unknown */
	double split_ns, aligned_ns, ratio;
	bool vs_atomic_inc;	/* the aligned figure is the atomic_inc row's */
};

/* The card's machine and split lock out of the report (result.c). */
void report_machine(const struct report *rep, struct card_machine *m);
void report_split(const struct report *rep, struct card_split *s);

/* The one pass-through: a block of the report's meta as it was read, for
 * the writers that show or copy it whole. NULL when absent. */
json_t *report_meta(const struct report *rep, const char *key);

/* ---- hierarchy: the measured staircase. A key is in the JSON when its bit
 * is in the object's has (older reports lack some); absent sizes are -1. */

#define HIER_MAX_POINTS 160
#define HIER_MAX_LEVELS 8
#define HIER_MAX_HWLOC 5	/* cache levels hwloc can declare */
#define HIER_MAX_EPOCHS 8

enum { HP_BYTES, HP_CYCLES, HP_CYCLES_MIN, HP_NS, HP_SPREAD, HP_PASS_SPREAD, HP_SAMPLES, HP_LOADS, HP__COUNT };
struct hier_point_out {
	unsigned has;
	long long bytes;
	double cycles, cycles_min, ns, spread;
	int samples;
	long long loads_per_sample;
};

/* a level's keys in their groups: every level (HL_LEVEL to HL_SEEN), its
 * inner step (HL_INNER_*), its walk, a cache's size (HL_SIZE to
 * HL_EFFECTIVE_SHARE); an unstable plateau has HL_CYCLES to HL_SEEN */
enum { HL_LEVEL, HL_MEMORY, HL_CYCLES, HL_NS, HL_FIRST, HL_LAST, HL_SEEN, HL_INNER_CYCLES, HL_INNER_NS,
       HL_INNER_FROM, HL_INNER_TO, HL_WALK, HL_SIZE, HL_SIZE_LO, HL_SIZE_HI, HL_SIZE_MIN, HL_SIZE_MAX,
       HL_HWLOC_SIZE, HL_AGREES, HL_EFFECTIVE_SHARE, HL__COUNT };
struct hier_level_out {
	unsigned has;
	char level[16];
	bool memory;
	double cycles, ns;
	long long first_bytes, last_bytes;
	int epochs_seen;
	double inner_cycles, inner_ns;
	long long inner_from, inner_to, walk_bytes, size_bytes, size_lo;
	long long size_hi, size_min, size_max, hwloc_size;	/* -1: null */
	bool agrees, effective_share;
};

/* A level's name ("?" where the section has none), and whether hwloc's
 * size is not what was measured (result.c). */
const char *hier_level_name(const struct hier_level_out *l);
bool hier_level_disagrees(const struct hier_level_out *l);

enum { HE_CACHES, HE_MEMORY, HE_CACHE_SIZES, HE_HUGE_BYTES, HE_CYCLES, HE__COUNT };
enum { HPG_SOURCE, HPG_THP_MODE, HPG_HUGE_REQUESTED, HPG_HUGE_BYTES, HPG_PAGE_BYTES, HPG__COUNT };
enum { HT_METHOD, HT_COMPARED_TO, HT_REACH, HT_CYCLES_4K, HT__COUNT };
struct hier_epoch_out {
	unsigned has;
	int caches;
	bool memory;
	size_t cache_sizes[HIER_MAX_LEVELS], ncache_sizes;
	long long huge_bytes;
	double cycles[HIER_MAX_POINTS];
	size_t ncycles;
};

enum { HS_METHOD, HS_CPU, HS_SEED, HS_TPC, HS_TIMER_HZ, HS_PAGES, HS_MAX, HS_MAX_REASON, HS_PASSES, HS_EPOCHS,
       HS_PLANNED, HS_INTERRUPTED, HS_MEMORY, HS_TRUNCATED, HS_DISAGREES, HS_ELAPSED, HS_POINTS, HS_LEVELS,
       HS_SHELVES, HS_UNSTABLE, HS_HWLOC, HS_PER_EPOCH, HS_TLB, HS__COUNT };
struct hierarchy_section {
	unsigned has;
	char method[160];
	int cpu;
	long long seed;
	double ticks_per_cycle, timer_hz;
	struct hier_pages_out {
		unsigned has;
		char source[40], thp_mode[16];
		bool huge_requested;
		long long huge_bytes, page_bytes;
	} pages;
	long long max_footprint;
	char max_reason[96];
	int epochs, epochs_planned;
	bool interrupted, reached_memory, truncated, disagrees;
	double elapsed_s;
	struct hier_point_out points[HIER_MAX_POINTS];
	size_t npoints;
	struct hier_level_out levels[HIER_MAX_LEVELS], shelves[HIER_MAX_LEVELS], unstable[HIER_MAX_LEVELS];
	size_t nlevels, nshelves, nunstable;
	size_t hwloc_caches[HIER_MAX_HWLOC], nhwloc_caches;
	struct hier_epoch_out per_epoch[HIER_MAX_EPOCHS];
	size_t nper_epoch;
	struct hier_tlb_out {	/* has 0: null (huge pages not had) */
		unsigned has;
		char method[96];
		long long compared_to_bytes, reach_bytes;	/* reach -1: null */
		double cycles_4k[HIER_MAX_POINTS];
		size_t ncycles_4k;
	} tlb;
};

/* ---- split lock: one locked op across two lines (skipped alone under
 * --no-split-lock; unsupported: supported, unsupported and kernel).
 * cmdline "": null. */
enum { SL_SKIPPED, SL_SUPPORTED, SL_UNSUPPORTED, SL_INSN, SL_OFFSET, SL_KERNEL, SL_SIGBUS, SL_THROTTLED,
       SL_SPLIT_OPS, SL_ALIGNED_OPS, SL_SPLIT_NS, SL_SPLIT_CYCLES, SL_SPLIT_MIN, SL_ALIGNED_NS, SL_ALIGNED_CYCLES,
       SL_ALIGNED_MIN, SL_RATIO, SL_DENOMINATOR, SL_MISALIGNED_OFFSET, SL_MISALIGNED_CYCLES, SL_MISALIGNED_NS,
       SL_SWITCHES, SL_ELAPSED, SL__COUNT };
enum { SLK_MODE, SLK_WHY, SLK_FLAG_SPLIT_LOCK, SLK_FLAG_BUS_LOCK, SLK_CMDLINE, SLK_MITIGATE, SLK__COUNT };
enum { SLR_WHAT, SLR_CYCLES, SLR_NS, SLR__COUNT };
struct splitlock_section {
	unsigned has;
	char skipped[32];
	bool supported;
	char unsupported[128], insn[32];
	int split_offset;
	struct splitlock_kernel_out {
		unsigned has;
		char mode[24], why[200];
		bool flag_split_lock_detect, flag_bus_lock_detect;
		char cmdline[24];
		int split_lock_mitigate;
	} kernel;
	bool sigbus, throttled;	/* SIGBUS caught; the kernel slept the task (ops over 1 ms) */
	long long split_ops, aligned_ops;	/* ops timed */
	/* per op: the median and the fastest sample; ratio: split / ratio_denominator */
	double split_ns, split_cycles, split_min_cycles, aligned_ns, aligned_cycles, aligned_min_cycles, ratio;
	struct splitlock_ref_out { unsigned has; char what[64]; double cycles, ns; } ratio_denominator;
	int misaligned_offset;
	double misaligned_cycles, misaligned_ns;
	double misaligned_min_cycles;	/* for `atomcost hierarchy`'s table: not a JSON key */
	long long voluntary_switches;	/* during the split ops: the task slept */
	double elapsed_s;
};

/* rep's typed sections (hierarchy, splitlock) into root, in that order. */
void report_typed_sections(const struct report *rep, json_t *root);

#endif
