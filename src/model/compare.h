/* SPDX-License-Identifier: MIT */
/* compare.h - is B faster or slower than A, the same, or can we not tell?
 * Rows are matched by probe, mode and pattern and compared in core cycles.
 * The rule, with its figures and where they come from: docs/reports.md,
 * "compare: how it decides".
 */
#ifndef ATOMCOST_COMPARE_H
#define ATOMCOST_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "result.h"

/* Blocks (no epochs on a side): how far a settled hot-line row's median
 * moves between processes of the same build. In A/A pairs on the
 * development guest (tests/bench-aa.sh, docs/reports.md) such rows moved
 * by up to 16-25% (bimodal rows: atomic_add_return latency read 7.18 or
 * 8.33 cycles depending on the process, __set_bit throughput +24.5%) and
 * once 31% (sigprocmask, two system calls), while their within-run
 * intervals were about 1%. */
#define COMPARE_NOISE_FLOOR NOISE_FLOOR_PROCESS
/* The practical margin: a change of a primitive's cost smaller than this
 * is not worth a verdict, and it is the self-check tolerance below: a
 * calibration that moved by less is not flagged, so a code change of
 * that size cannot be told from it. */
#define COMPARE_MARGIN NOISE_FLOOR_MIN
#define COMPARE_Q 0.05			/* false discovery rate over the rows tested */
/* The preliminary test that keeps a process level (compare_estimate, the
 * side-by-side cells): epochs are pooled unless it is significant at 25%,
 * the level Bozivich, Bancroft and Hartley (1956) recommend for
 * "sometimes pooling". */
#define COMPARE_POOL_ALPHA 0.25
/* A row whose process means spread beyond its kind's model at this level
 * (compare_reports) is compared on its own process means. */
#define COMPARE_EXCESS_ALPHA 0.01
/* An epoch further than this many robust spreads from its process's
 * median epoch (1.4826 MAD, never below the kind's typical spread) is an
 * outlier: a burst of interference that hit a few rows of one epoch. It is
 * kept in the report and left out of the row's mean and spread. */
#define COMPARE_OUTLIER_SPREADS 5.0
/* The process part assumed where no kind has rows enough to measure it (a
 * handful of rows a side): above the largest measured on the development
 * guests (docs/reports.md: 0-1.25 on the Intel Xeon guest, one report a
 * side), so a small comparison is judged, and conservatively. */
#define COMPARE_PHI_DEFAULT 1.5
/* More reports a side than this are not offered as a way to judge a row. */
#define COMPARE_MAX_MORE_RUNS 20
#define COMPARE_BLOCKS 8		/* blocks of one run's time-ordered samples */
#define COMPARE_CAL_TOLERANCE NOISE_FLOOR_MIN	/* self-check move that is a calibration problem */
#define COMPARE_ABS_FLOOR 0.05		/* cycles per op */

struct compare_opts {
	double noise_floor;	/* margin of rows on blocks (no epochs on a side) */
	double min_change;	/* the practical margin m (raised to NOISE_FLOOR_MIN) */
	double q;		/* false discovery rate (Benjamini-Hochberg) */
};

enum compare_verdict {
	CMP_CANNOT_TELL,	/* neither a change nor an equivalence shown */
	CMP_SAME,		/* equivalent within the margin (TOST) */
	CMP_IMPROVED,		/* B is faster, beyond the margin */
	CMP_REGRESSED,		/* B is slower, beyond the margin */
	CMP_ONLY_A,		/* row missing from B */
	CMP_ONLY_B,		/* row missing from A */
	CMP_CALIBRATION,	/* a self-check moved: the calibration, not the code */
};

enum compare_basis {
	BASIS_PROCESSES,	/* a side's variance from its process means */
	BASIS_EPOCHS,		/* from its epochs (pooled within processes) */
	BASIS_BLOCKS,		/* blocks of one run's samples (no epochs) */
	BASIS_NONE,		/* unmatched row, or no positive median */
};

/* One side of a row: the mean of its log replicates and the variance of
 * that mean, from the level that carries it. */
struct compare_est {
	double mean, var, df;
	double var_proc;		/* variance of the mean from the process means; NAN under 2 */
	size_t n, procs;		/* replicates, processes */
	enum compare_basis level;	/* BASIS_PROCESSES or BASIS_EPOCHS */
};

/* One side of a row over its epochs, in log core cycles: each epoch's
 * value with its process and epoch number, less its kind's epoch effect;
 * the mean of the process means, and the pooled spread of the epochs
 * within processes. */
struct compare_side {
	double *y;			/* owned */
	int *proc, *ep;			/* owned */
	bool *out;			/* owned: an outlier epoch, left out of the figures */
	size_t n, procs, dropped;
	double mean;
	double s2, df;			/* epochs within processes; df 0: none */
	double s2_mod, df_mod;		/* moderated by the kind's prior */
	double ssb;			/* process means around mean (less the kind's), sum of squares */
	double k;			/* epochs per process (harmonic mean) */
	double var, vdf;		/* of the row's own part of the mean, as compared */
	bool excess;			/* its process means beyond its kind's model */
};

/* Where a process component came from. */
enum compare_phi_source {
	PHI_WITHIN,	/* the process means within each side (2+ reports a side) */
	PHI_BETWEEN,	/* the A-B differences (one report a side) */
	PHI_OTHERS,	/* too few rows or kinds: the largest of the others' */
	PHI_DEFAULT,	/* no kind could be fitted: COMPARE_PHI_DEFAULT */
	PHI_NONE,	/* not estimated */
};

/* An epoch's (or a process's) effect shared by every row of a kind. */
struct compare_effect {
	int proc, ep;
	double v;
};

/* A kind of row (context, mode and pattern) over both reports. Its rows
 * move together from epoch to epoch (each epoch draws new buffers for all
 * of them) and from process to process: that shared part is the kind's
 * shift, judged on a line of its own; each row is judged on its change
 * beyond its kind's. phi: a row's process variance beyond its epochs, in
 * units of its epochs' variance; phi_shift: the kind's shared process
 * variance in units of its epoch effects' variance. */
struct compare_kind {
	enum result_context ctx;
	enum probe_mode mode;
	char pattern[32];
	size_t nrows;
	struct stats_prior prior;
	double phi;
	size_t phi_n;			/* row sides or rows phi was fitted on */
	enum compare_phi_source source;
	struct compare_effect *eff[2];	/* per side: epoch effects (owned) */
	struct compare_effect *peff[2];	/* per side: process effects (owned) */
	size_t neff[2], npeff[2];
	double s2_eff, df_eff;		/* variance of the epoch effects within processes */
	double phi_shift;
	enum compare_phi_source shift_source;
	double shift, se, df, lo, hi;	/* B/A of the kind as a whole: median row, log */
	double p, p_same, margin;
	enum compare_verdict verdict;
};

struct compare_row {
	char name[64];
	char pattern[32];
	enum probe_mode mode;
	double a_ticks, b_ticks;	/* each side's centre, ticks/op (one median: ONLY_A/B) */
	double a_cycles, b_cycles, a_ns, b_ns;	/* in each report's own calibration */
	double ratio, lo, hi;		/* B/A in core cycles, 95% CI (one row alone) */
	double se, df;			/* of the log ratio */
	double p;			/* minimum-effect p-value (beyond the margin); NAN: untested */
	double p_same;			/* TOST p-value (inside the margin); NAN: not testable */
	double margin;			/* relative margin of the row, all components */
	double detect;			/* smallest change the row could flag; NAN: untested */
	size_t a_reps, b_reps;		/* replicates on each side */
	struct compare_side sa, sb;	/* on epochs */
	int kind;			/* in comparison.kinds; -1: blocks or unmatched */
	double state;			/* cycles: the steady state compared (a row whose
					 * epochs hold several); NAN: the epochs' medians */
	int more_runs;			/* cannot tell: reports a side more that would judge it;
					 * -1: none would (at the margin); -2: more than
					 * COMPARE_MAX_MORE_RUNS; 0: not said */
	bool self_check;		/* add_chain or imul_chain latency */
	bool disturbed;			/* untested: one side's drift chain moved in all but
					 * RESULT_DRIFT_KEEP epochs or more, not the other's */
	bool unsettled;			/* untested: its kind has no process component,
					 * or blocks and a CI target missed or a pattern */
	enum compare_basis basis;	/* processes when either side's variance came from them */
	enum compare_verdict verdict;
};

struct comparison {
	struct compare_row *rows;
	size_t n;
	size_t improved, regressed, same, cannot_tell, unmatched, calibration;
	size_t tested;			/* rows in the families (BH) */
	size_t family_tested[2];	/* of them on hot lines, under a pattern */
	size_t untested;		/* rows not tested (unsettled) */
	size_t blocks, blocks_untested;	/* rows on blocks; of them not tested */
	size_t fp_diffs;		/* fingerprint facts that differ */
	double q;
	double threshold[2];		/* p a further row of each family needs to be flagged:
					 * (R + 1) q / tested */
	double cal_shift;		/* |tpc_B / tpc_A - 1| */
	double check_shift;		/* largest |change| of a self-check */
	double min_change;		/* m */
	double margin;			/* sqrt(m^2 + check^2) (decide) */
	double block_margin;		/* the same with --noise-floor for m */
	int a_procs, b_procs;		/* processes on each side */
	struct compare_kind *kinds;
	size_t nkinds;
	double detect_hot, detect_pattern;	/* median detectable change of the tested rows */
	size_t kinds_moved;		/* kinds whose shift as a whole is beyond the margin */
	size_t outliers;		/* epochs left out (COMPARE_OUTLIER_SPREADS) */
	size_t drifted;			/* epochs left out: their drift chain moved */
	size_t disturbed;		/* rows untested: one side disturbed (compare_row.disturbed) */
	size_t states;			/* rows compared at one steady state */
};

void compare_default_opts(struct compare_opts *o);

/* Compare every row of a and b. 0 or -errno (ENOMEM). */
int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out);
void compare_free(struct comparison *c);

/* Add the results of another process of the same build to into: its
 * samples are brought onto into's clock (ticks per cycle), and every
 * result gets extra.process and an epoch number after into's. from is
 * emptied (report_free it). 0 or -ENOMEM. */
int compare_merge(struct report *into, struct report *from);
/* Largest process number in rep (1 for one report). */
int compare_max_process(const struct report *rep);

/* Printed "regressed 4.0%", "improved 12.3%", "same within 3.0%" (or
 * "within 0.05 cycles" where the absolute floor set the margin),
 * "cannot tell below 9.1%", "cannot tell (one process a side)" (a
 * pattern row), "cannot tell (one process, no epochs)",
 * "calibration moved +2.0%", "only in A"; a row that cannot tell adds
 * what would judge it: " (+2 runs)" more reports a side, " (>20 runs)",
 * " (at the margin)". The percentage of a change is
 * that of cycles per op relative to A. */
void compare_verdict_text(const struct compare_row *r, char *buf, size_t len);

/* Writers: aligned table (--format text), and the 72-column before/after
 * shape kernel engineers paste (--format mail). Mismatched fingerprints and
 * the rule applied come first, the one-line summary last. */
int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
void compare_summary(const struct comparison *c, char *buf, size_t len);
/* Kinds whose shift as a whole regressed (--fail-on-regression counts them). */
size_t compare_kinds_regressed(const struct comparison *c);

/* The arithmetic, exposed for the tests. */

/* The two-level estimate of one side from n positive values (cycles) and
 * their process numbers. -EINVAL for n < 2 or a value <= 0. */
int compare_estimate(const double *v, const int *proc, size_t n, struct compare_est *e);
/* Minimum-effect and TOST p-values of a log difference d with standard
 * error se and df degrees of freedom against the log margin delta. */
void compare_tests(double d, double se, double df, double delta, double *p_change, double *p_same);
/* Smallest relative change flagged at two-sided level alpha. */
double compare_detect(double se, double df, double delta, double alpha);
/* Benjamini-Hochberg step-up over the finite p-values among m (NAN: not
 * in the family): reject[i] set for the discoveries at false discovery
 * rate q, *k their number, *family the finite ones. 0 or -ENOMEM. */
int compare_bh(const double *p, size_t m, double q, bool *reject, size_t *k, size_t *family);

/* Largest epoch number in rep (0: no epochs). */
int compare_max_epoch(const struct report *rep);

#endif
