/* SPDX-License-Identifier: MIT */
/* compare.h - is B faster or slower than A, and can we tell?
 *
 * Rows are matched by probe, mode and pattern and compared in core cycles
 * (ticks / that report's ticks per cycle): ns carry each run's clock, and a
 * core that ran 1% faster in B is not a regression. The change is the
 * ratio of medians B/A. A row is flagged only when both hold:
 *  - significant: a Welch t test on the logs of the row's replicates,
 *    corrected for the number of rows compared (Holm-Bonferroni at
 *    family-wise alpha). Replicates are, by preference, processes (several
 *    reports per side, "a1.json,a2.json"), --epochs passes, or blocks of
 *    the time-ordered samples of one run;
 *  - larger than the row's floor: sqrt(base^2 + cal^2 + check^2), where
 *    base is --min-change (never below NOISE_FLOOR_MIN) when both sides
 *    hold two or more processes, and the between-process floor
 *    --noise-floor (default COMPARE_NOISE_FLOOR) otherwise, because one
 *    process cannot show how far a row moves from one process to the next;
 *    cal is the relative difference of the two reports' ticks per cycle;
 *    check is how far the calibration self-checks moved.
 * Without two processes per side, only settled hot-line rows get a
 * verdict: a row that missed its CI target (ci_reached) in either report,
 * and a row under an access pattern or a sharing case (anything but
 * "hit": each process places its buffers, pages and threads anew), gets
 * none, "no verdict (one process)". In A/A pairs on the development guest
 * such rows moved by 25-55% (settled) and up to 5x (unsettled) between
 * processes of one build.
 * The self-checks (add_chain, imul_chain: fixed cycles per op by
 * construction) are never regressions: their move widens every floor, and
 * one that moved by more than COMPARE_CAL_TOLERANCE, the smallest floor a
 * verdict can use, is a calibration problem, reported as such.
 * A change must also exceed COMPARE_ABS_FLOOR cycles per op: below that
 * moves the residual of the overhead cancellation (the empty probe reads
 * 0.016-0.028 cycles per op from one process to the next).
 */
#ifndef ATOMCOST_COMPARE_H
#define ATOMCOST_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "result.h"

/* One process per side: how far a settled hot-line row's median moves
 * between processes of the same build. In A/A pairs on the development
 * guest (tests/bench-aa.sh, docs/reports.md) such rows moved by up to
 * 16-25% (bimodal rows: atomic_add_return latency read 7.18 or 8.33
 * cycles depending on the process, __set_bit throughput +24.5%) and once
 * 31% (sigprocmask, two system calls), while their within-run intervals
 * were about 1%. The A/A benchmark passes at this floor with no margin. */
#define COMPARE_NOISE_FLOOR NOISE_FLOOR_PROCESS
#define COMPARE_ALPHA 0.05		/* family-wise, over the rows compared */
#define COMPARE_BLOCKS 8		/* blocks of one run's time-ordered samples */
#define COMPARE_CAL_TOLERANCE NOISE_FLOOR_MIN	/* self-check move that is a calibration problem */
#define COMPARE_ABS_FLOOR 0.05		/* cycles per op */

struct compare_opts {
	double noise_floor;	/* base floor unless both sides hold >= 2 processes */
	double min_change;	/* base floor when they do (raised to NOISE_FLOOR_MIN) */
	double alpha;		/* family-wise error rate (Holm) */
};

enum compare_verdict {
	CMP_SAME,		/* no significant change */
	CMP_IMPROVED,		/* B is faster */
	CMP_REGRESSED,		/* B is slower */
	CMP_ONLY_A,		/* row missing from B */
	CMP_ONLY_B,		/* row missing from A */
	CMP_CALIBRATION,	/* a self-check moved: the calibration, not the code */
	CMP_UNSETTLED,		/* one process per side cannot pin the row down: no verdict */
};

enum compare_basis {
	BASIS_PROCESSES,	/* spread between processes (reports) */
	BASIS_EPOCHS,		/* spread between --epochs passes */
	BASIS_BLOCKS,		/* spread between blocks of one run's samples */
	BASIS_NONE,		/* unmatched row, or no positive median */
};

struct compare_row {
	char name[64];
	char pattern[32];
	enum probe_mode mode;
	double a_ticks, b_ticks;	/* medians (of pass medians when passes), ticks/op */
	double a_cycles, b_cycles, a_ns, b_ns;	/* in each report's own calibration */
	double ratio, lo, hi;		/* B/A in core cycles, 95% CI (one row alone) */
	double p;			/* Welch p-value before the correction; NAN: none */
	double floor;			/* relative change needed, all components */
	size_t a_reps, b_reps;		/* replicates on each side */
	bool self_check;		/* add_chain or imul_chain latency */
	bool unsettled;			/* one process per side, and a CI target missed or not "hit" */
	enum compare_basis basis;
	enum compare_verdict verdict;
};

struct comparison {
	struct compare_row *rows;
	size_t n;
	size_t improved, regressed, same, unmatched, calibration, unsettled;
	size_t tested;			/* rows in the Holm family */
	size_t fp_diffs;		/* fingerprint facts that differ */
	double alpha;
	double cal_shift;		/* |tpc_B / tpc_A - 1| */
	double check_shift;		/* largest |change| of a self-check */
	double base_floor;		/* base of the floors (see above) */
	int a_procs, b_procs;		/* processes on each side */
};

void compare_default_opts(struct compare_opts *o);

/* Compare every row of a and b. 0 or -errno (ENOMEM). */
int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out);
void compare_free(struct comparison *c);

/* Add the results of another process of the same build to into: its
 * samples are brought onto into's clock (ticks per cycle), and every
 * result gets extra.process and a pass number after into's. from is
 * emptied (report_free it). 0 or -ENOMEM. */
int compare_merge(struct report *into, struct report *from);
/* Process of a merged result (extra.process, 1 when absent). */
int compare_process(const struct result *r);
/* Largest process number in rep (1 for one report). */
int compare_max_process(const struct report *rep);

/* Printed "improved 12.3%", "regressed 4.0%", "no significant change",
 * "calibration moved 2.0%", "no verdict (one process)". The percentage is the change of cycles per op
 * relative to A. */
void compare_verdict_text(const struct compare_row *r, char *buf, size_t len);

/* Writers: aligned table (--format text), and the 72-column before/after
 * shape kernel engineers paste (--format mail). Mismatched fingerprints and
 * the rule applied come first, the one-line summary last. */
int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f);
void compare_summary(const struct comparison *c, char *buf, size_t len);

/* The arithmetic, exposed for the tests. */

/* Ratio of geometric means of b over a with a Welch 95% interval on the
 * logs and its two-sided p-value. Needs na, nb >= 2 and positive values. */
int compare_welch(const double *a, size_t na, const double *b, size_t nb,
		  double *ratio, double *lo, double *hi, double *p);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double compare_t975(double df);

/* Passes of one row: every result of rep with the name, mode and pattern of
 * rep->r[i], in report order. Returns how many (<= max stored). */
size_t compare_group(const struct report *rep, size_t i, const struct result **out, size_t max);
/* True when rep->r[i] is the first result of its group. */
bool compare_group_first(const struct report *rep, size_t i);
/* Largest pass number in rep (0: no --epochs passes). */
int compare_max_epoch(const struct report *rep);

#endif
