/* SPDX-License-Identifier: MIT */
/* stats.h - order statistics over kept samples. */
#ifndef ATOMCOST_STATS_H
#define ATOMCOST_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double min, p10, p25, median, p75, p90, max;
	double mean, stddev;
	double ci_lo, ci_hi;	/* 95% confidence interval of the median */
	size_t outliers;	/* beyond 3 IQR from the quartiles (Tukey far out) */
};

/* Median of unsorted data (the input is not modified). NAN when n == 0. */
double stats_median(const double *v, size_t n);
/* 0-based ranks bounding a 95% distribution-free confidence interval of the
 * median (binomial order statistics, normal approximation). */
void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi);
/* Summarize n samples (not modified). -EINVAL when n == 0. */
int stats_summarize(const double *v, size_t n, struct summary *s);

/* The noise rule (docs/method.md): two figures of the same kind differ only
 * when their ratio leaves 1 by more than a noise floor measured between
 * runs (passes or processes), and never by less than NOISE_FLOOR_MIN,
 * whatever within-run confidence intervals say: samples within one run are
 * serially correlated and understate the noise between runs. */
#define NOISE_FLOOR_MIN 0.03
/* The floor for a figure measured in one process when nothing measured its
 * noise between processes and it is not a settled hot-line figure (it
 * missed its CI target, or depends on where the process placed its
 * buffers, pages or threads): in A/A runs of one build on the development
 * guest such figures, and their twin ratios, moved by 25-55% between
 * processes, and a 3% floor called a twin ratio slower in one process and
 * faster in the next for 36 of 200 pattern rows (docs/reports.md). */
#define NOISE_FLOOR_PROCESS 0.25
enum verdict {
	VERDICT_SAME,		/* within the floor */
	VERDICT_SLOWER,		/* a costs more than b */
	VERDICT_FASTER,		/* a costs less than b */
	VERDICT_NONE,		/* no verdict may be given (analog, missing figure) */
	VERDICT_UNRESOLVED,	/* the data cannot tell (stats_judge) */
};
const char *stats_verdict_name(enum verdict v);

/* The judgment of a pair from the spread between epochs (docs/method.md,
 * "Three-valued verdicts"): the epochs' log ratios log(a/b), with Student t
 * intervals, against the margin (JUDGE_MARGIN_REL of b, never less than
 * JUDGE_MARGIN_ABS cycles): slower or faster when the 95% interval lies
 * beyond it, same when the 90% interval lies inside it (TOST), else
 * unresolved, and always with fewer than 2 epochs. */
#define JUDGE_MARGIN_REL 0.05
#define JUDGE_MARGIN_ABS 0.25	/* cycles */
#define JUDGE_MAX_EPOCHS 64

struct judgment {
	enum verdict v;
	size_t n;			/* epochs */
	double ratio, lo, hi;		/* a/b: the median epoch's, and the 95% interval */
	double diff, diff_lo, diff_hi;	/* a - b in the units given, at b's median */
	double spread;			/* sd of the epochs' log ratios (relative spread) */
	double margin;			/* relative margin used */
	double df;			/* of the interval: epochs - 1, plus the prior's */
	bool disturbed;			/* unresolved: the row's drift chain moved in nearly
					 * every epoch (report_judge) */
};
/* Judge paired per-epoch costs (same units, > 0; pairs with a value <= 0 or
 * NaN are skipped). Fills j; returns its verdict. */
enum verdict stats_judge(const double *a, const double *b, size_t n, struct judgment *j);
struct stats_prior;
/* The same with the variance of the log ratios moderated by prior (NULL:
 * none; stats_prior_fit over the spreads of the run's rows of one kind). */
enum verdict stats_judge_prior(const double *a, const double *b, size_t n, const struct stats_prior *prior,
			       struct judgment *j);
/* The variance of the log ratios that stats_judge uses (*s2) and its
 * degrees of freedom (0: fewer than two valid pairs, *s2 untouched). */
int stats_judge_spread(const double *a, const double *b, size_t n, double *s2);
/* Relative standard deviation (sd / mean) of n values; NAN when n < 2. */
double stats_rel_sd(const double *v, size_t n);
/* Quantile p in (0,1) of Student's t with df degrees of freedom (df >= 1;
 * 0.975 at df 4 is 2.776). NAN outside. */
double stats_t_quantile(double p, double df);

/* Steady states in a row's samples (docs/method.md, 5: a dependent chain
 * can run in one of two states for longer than a sample, so its samples
 * pile up at each state's value, with the samples that caught a switch
 * between them; a median then moves with the mix). A state is a spike:
 * a window of +-MIX_SPIKE_HALF of its value that holds MIX_SPIKE_MIN of the
 * samples or more, and MIX_SPIKE_RATIO times the samples of either window of
 * that width beside it (2-4 half-widths away), so a diffuse tail of
 * disturbed samples is no state. Spikes closer than the judgment's margin
 * (JUDGE_MARGIN_REL, or min_gap in the samples' unit: 0.25 cycles) are one
 * state: they cannot move a verdict. The samples split between two states
 * at the geometric middle of their values; a state must hold MIX_SHARE_MIN
 * of them. Measured on the Intel guest's fixtures (tests/data): cmpxchg_local's
 * hit latency, 7.01 and 8.22 cycles, in all 20 epochs; load_chase's
 * shoulder at 5.5-5.8 (one peak and a tail) in none. */
#define MIX_MAX_STATES 4
#define MIX_MIN_SAMPLES 50	/* fewer cannot show a spike of MIX_SPIKE_MIN */
#define MIX_SPIKE_HALF 0.0025
#define MIX_SPIKE_MIN 0.05
#define MIX_SPIKE_RATIO 3.0
#define MIX_SHARE_MIN 0.10
struct mixture {
	size_t nstates;		/* 0: not tested (too few samples), 1: one state, 2+: mixed */
	struct mix_state {
		double value;	/* the spike's centre: the median of its window's samples */
		double share;	/* of the samples, on its side of the splits */
	} state[MIX_MAX_STATES];	/* by value */
};
/* Find the states of n samples (not modified). resolution: the smallest
 * step a sample can take (a timer tick over the ops in a sample; the spike
 * window is never narrower than 2 of them); min_gap: the smallest
 * difference between two states that matters, in the samples' unit (0:
 * the relative margin alone). Returns the number of states (0 when n <
 * MIX_MIN_SAMPLES), or -ENOMEM. */
int stats_mixture(const double *v, size_t n, double resolution, double min_gap, struct mixture *m);
/* "7.00 (57%) and 8.22 (43%)": the states of a mixed m, each value times
 * scale (ticks to cycles), "" for one state. */
const char *stats_mixture_text(const struct mixture *m, double scale, char *buf, size_t len);

/* Two-sided p-value of Student's t statistic with df degrees of freedom
 * (regularized incomplete beta). 1 for t == 0, NAN for df <= 0. */
double stats_t_pvalue(double t, double df);

/* P(F <= f) for Fisher's F with d1, d2 (real, > 0) degrees of freedom. */
double stats_f_cdf(double f, double d1, double d2);

/* Moderated variances (Smyth 2004, the limma model; docs/reports.md): the
 * variances s2 of many rows of one kind, each with its degrees of freedom,
 * are read as draws around a prior s0^2 carrying d0 degrees; a row's
 * moderated variance (d0 s0^2 + df s2) / (d0 + df) has d0 + df degrees.
 * The fit needs STATS_PRIOR_MIN_ROWS rows with a positive variance
 * (-EINVAL: p->df 0, no prior); d0 is at most the rows' degrees together. */
#define STATS_PRIOR_MIN_ROWS 5
struct stats_prior {
	double s2, df;
};
int stats_prior_fit(const double *s2, const double *df, size_t n, struct stats_prior *p);
/* The moderated variance of a row (s2 with df); the prior alone for df 0;
 * s2 itself without a prior (p->df 0). */
double stats_moderated(double s2, double df, const struct stats_prior *p);

#endif
