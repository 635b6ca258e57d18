/* SPDX-License-Identifier: MIT */
/* compare.c - the change between two reports (compare.h). A verdict needs
 * power: a row whose replicates cannot flag a change says how large a
 * change it could have flagged, never "no change". */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fingerprint.h"
#include "report.h"

#define MAX_PASSES 1000
#define MAX_REPS (MAX_PASSES * COMPARE_BLOCKS)

void compare_default_opts(struct compare_opts *o)
{
	o->noise_floor = COMPARE_NOISE_FLOOR;
	o->min_change = COMPARE_MARGIN;
	o->q = COMPARE_Q;
}

size_t compare_group(const struct report *rep, size_t i, const struct result **out, size_t max)
{
	size_t n = 0;

	for (size_t j = 0; j < rep->n; j++)
		if (result_same_row(&rep->r[i], &rep->r[j])) {
			if (n < max)
				out[n] = &rep->r[j];
			n++;
		}
	return n < max ? n : max;
}

bool compare_group_first(const struct report *rep, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (result_same_row(&rep->r[i], &rep->r[j]))
			return false;
	return true;
}

/* The largest of(r) over rep's results, m when none is larger. */
static int largest(const struct report *rep, int (*of)(const struct result *), int m)
{
	for (size_t i = 0; i < rep->n; i++)
		m = of(&rep->r[i]) > m ? of(&rep->r[i]) : m;
	return m;
}

int compare_max_epoch(const struct report *rep)
{
	return largest(rep, result_epoch, 0);
}

/* P(F > f) for Fisher's F with d1, d2 degrees of freedom: I_x(d2/2, d1/2)
 * at x = d2 / (d2 + d1 f), from the t distribution's I_x(a, 1/2) (odd d1)
 * or x^a (even d1), raised in b by I_x(a, b + 1) = I_x(a, b) +
 * x^a (1 - x)^b / (b B(a, b)). */
double compare_f_upper(double f, unsigned d1, unsigned d2)
{
	double a = d2 / 2.0, x, b, p;

	if (!(f > 0) || !d1 || !d2)
		return 1;
	x = d2 / (d2 + d1 * f);
	b = d1 % 2 ? 0.5 : 1;
	p = d1 % 2 ? stats_t_pvalue(sqrt(d2 * (1 - x) / x), d2) : pow(x, a);
	for (; b < d1 / 2.0; b += 1)
		p += exp(a * log(x) + b * log1p(-x) - lgamma(a) - lgamma(b) + lgamma(a + b)) / b;
	return fmin(1, fmax(0, p));
}

int compare_estimate(const double *v, const int *proc, size_t n, struct compare_est *e)
{
	double pm[MAX_PASSES], ssw = 0, inv_k = 0, mean = 0, ssb = 0, v_proc = NAN, v_epoch = NAN;
	size_t np = 0, dfw = 0;

	memset(e, 0, sizeof(*e));
	if (n < 2)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return -EINVAL;
	/* each process once, at its first replicate: its mean and the sum of
	 * squares of its epochs around it */
	for (size_t i = 0; i < n; i++) {
		double m = 0, s = 0;
		size_t k = 0, j;

		for (j = 0; j < i && proc[j] != proc[i]; j++)
			;
		if (j < i)
			continue;
		if (np == MAX_PASSES)
			return -EINVAL;
		for (j = i; j < n; j++)
			if (proc[j] == proc[i]) {
				m += log(v[j]);
				k++;
			}
		m /= (double)k;
		for (j = i; j < n; j++)
			if (proc[j] == proc[i])
				s += (log(v[j]) - m) * (log(v[j]) - m);
		pm[np++] = m;
		ssw += s;
		dfw += k - 1;
		inv_k += 1.0 / (double)k;
	}
	for (size_t p = 0; p < np; p++)
		mean += pm[p] / (double)np;
	for (size_t p = 0; p < np; p++)
		ssb += (pm[p] - mean) * (pm[p] - mean);
	if (np >= 2)
		v_proc = ssb / (double)(np - 1) / (double)np;
	if (dfw > 0)
		v_epoch = ssw / (double)dfw * inv_k / (double)(np * np);
	e->mean = mean;
	e->n = n;
	e->procs = np;
	e->var_proc = v_proc;
	/* process means that vary more than their epochs predict (the F test
	 * of the one-way layout at COMPARE_POOL_ALPHA) carry a level of
	 * their own; else the pooled epochs estimate the same variance with
	 * more degrees of freedom */
	if (isnan(v_epoch) || (np >= 2 && v_proc > v_epoch &&
			       compare_f_upper(v_proc / v_epoch, (unsigned)(np - 1), (unsigned)dfw) < COMPARE_POOL_ALPHA)) {
		e->var = v_proc;
		e->df = (double)(np - 1);
		e->level = BASIS_PROCESSES;
	} else {
		e->var = v_epoch;
		e->df = (double)dfw;
		e->level = BASIS_EPOCHS;
	}
	return 0;
}

/* P(T > x / se) for Student's t with df degrees of freedom (se 0: x's sign). */
static double upper_tail(double x, double se, double df)
{
	double t = se > 0 ? x / se : x > 0 ? INFINITY : x < 0 ? -INFINITY : 0;
	double p2 = stats_t_pvalue(t, df);

	return t > 0 ? p2 / 2 : 1 - p2 / 2;
}

void compare_tests(double d, double se, double df, double delta, double *p_change, double *p_same)
{
	*p_change = fmin(1, 2 * fmin(upper_tail(d - delta, se, df),
				     upper_tail(-d - delta, se, df)));
	*p_same = fmax(upper_tail(d + delta, se, df), upper_tail(delta - d, se, df));
}

double compare_detect(double se, double df, double delta, double alpha)
{
	return expm1(delta + stats_t_quantile(1 - alpha / 2, df) * se);
}

struct p_at {
	double p;
	size_t i;
};

static int cmp_p_at(const void *a, const void *b)
{
	const struct p_at *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

int compare_bh(const double *p, size_t m, double q, bool *reject, size_t *k, size_t *family)
{
	struct p_at *s;
	size_t n = 0, cut = 0;

	memset(reject, 0, m * sizeof(*reject));
	s = malloc((m ? m : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		if (!isnan(p[i]))
			s[n++] = (struct p_at){ p[i], i };
	/* a fleet tests rows x machines: 400,000 cells */
	qsort(s, n, sizeof(*s), cmp_p_at);
	/* step up: the largest j with p_(j) <= j q / n, and every p below */
	for (size_t j = 0; j < n; j++)
		if (s[j].p <= q * (double)(j + 1) / (double)n)
			cut = j + 1;
	for (size_t j = 0; j < cut; j++)
		reject[s[j].i] = true;
	*k = cut;
	*family = n;
	free(s);
	return 0;
}

/* Process of a merged result (extra.process, 1 when absent). */
static int compare_process(const struct result *r)
{
	return r->extra.process ? r->extra.process : 1;
}

int compare_max_process(const struct report *rep)
{
	return largest(rep, compare_process, 1);
}

static void set_process(struct result *r, int process, int epoch)
{
	r->extra.has |= 1u << RX_PROCESS;
	r->extra.process = process;
	result_set_epoch(r, epoch);
}

int compare_merge(struct report *into, struct report *from)
{
	int base, proc;
	double k = into->cal.ticks_per_cycle / from->cal.ticks_per_cycle;

	if (!(k > 0) || !isfinite(k))
		return -EINVAL;
	/* a report that was never merged becomes process 1, pass >= 1 */
	for (size_t i = 0; i < into->n; i++) {
		struct result *r = &into->r[i];

		if (!(r->extra.has & 1u << RX_PROCESS))
			set_process(r, 1, result_epoch(r) ? result_epoch(r) : 1);
	}
	base = compare_max_epoch(into);
	proc = compare_max_process(into) + 1;
	for (size_t i = 0; i < from->n; i++) {
		struct result *s = &from->r[i], *d = report_add(into);
		int pass = result_epoch(s);

		if (!d)
			return -ENOMEM;
		result_move(d, s);
		/* onto into's clock, as --epochs does for its later passes:
		 * cycles (ticks / ticks per cycle) are unchanged */
		result_rescale(d, k);
		set_process(d, proc, base + (pass ? pass : 1));
	}
	from->n = 0;
	report_pair_twins(into);
	return 0;
}

/* The calibration self-checks: cycles per op fixed by construction (the
 * add chain is the calibration itself, the imul chain its check). */
static bool self_check(const struct result *r)
{
	return r->mode == MODE_LATENCY && (!strcmp(r->name, "add_chain") || !strcmp(r->name, "imul_chain"));
}

/* Median of pass medians (or the one median), ticks. */
static double group_median(const struct result *const *g, size_t n)
{
	double m[MAX_PASSES];

	for (size_t i = 0; i < n; i++)
		m[i] = g[i]->s.median;
	return stats_median(m, n);
}

/* A side's centre from its results' medians: ticks, cycles and ns per op. */
static void centre(const struct report *rep, const struct result *const *g, size_t n,
		   double *ticks, double *cycles, double *ns)
{
	*ticks = group_median(g, n);
	*cycles = result_cycles(rep, *ticks);
	*ns = result_ns(rep, *ticks);
}

/* Replicates of one side of a row in core cycles, with their processes:
 * its per-epoch medians, or COMPARE_BLOCKS block medians of each
 * result's time-ordered samples (one level: process 1). */
static size_t replicates(const struct report *rep, const struct result *const *g, size_t n,
			 bool blocks, double *out, int *proc, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i++) {
		size_t ns = g[i]->nsamples, nb = COMPARE_BLOCKS, len;

		if (!blocks) {
			proc[k] = compare_process(g[i]);
			out[k++] = result_cycles(rep, g[i]->s.median);
			continue;
		}
		if (ns < 2 * nb)
			nb = ns / 2;
		if (nb < 1)
			continue;
		len = ns / nb;
		for (size_t b = 0; b < nb && k < max; b++) {
			proc[k] = 1;
			out[k++] = result_cycles(rep, stats_median(g[i]->samples + b * len, len));
		}
	}
	return k;
}

/* Whether one side leaves its row untested: a pattern row from one
 * process, or on blocks a result that missed its CI target. */
static bool side_unsettled(const struct result *const *g, size_t n, bool blocks)
{
	bool procs = false, settled = true;

	for (size_t i = 0; i < n; i++) {
		procs |= compare_process(g[i]) != compare_process(g[0]);
		settled &= g[i]->ci_reached;
	}
	return (strcmp(g[0]->pattern, "hit") && !procs) || (blocks && !settled);
}

/* Not estimated (yet): no change, interval, test or margin to print. */
static void figures_unknown(struct compare_row *row)
{
	row->ratio = row->lo = row->hi = row->se = row->df = NAN;
	row->p = row->p_same = row->margin = row->detect = NAN;
}

/* Each side's centre and the variance of its mean; the change B/A with
 * its Welch standard error, degrees of freedom and 95% interval. Epochs
 * when both sides hold two or more results of the row, else blocks. */
static void compare_row(const struct report *a, const struct result *const *ga, size_t na,
			const struct report *b, const struct result *const *gb, size_t nb,
			struct compare_row *row)
{
	static double ra[MAX_REPS], rb[MAX_REPS];
	static int pa[MAX_REPS], pb[MAX_REPS];
	struct compare_est ea, eb;
	bool blocks = na < 2 || nb < 2;
	double d, t;

	row->self_check = self_check(ga[0]);
	row->basis = blocks ? BASIS_BLOCKS : BASIS_EPOCHS;
	row->unsettled = side_unsettled(ga, na, blocks) || side_unsettled(gb, nb, blocks);
	row->a_reps = replicates(a, ga, na, blocks, ra, pa, MAX_REPS);
	row->b_reps = replicates(b, gb, nb, blocks, rb, pb, MAX_REPS);
	figures_unknown(row);
	if (compare_estimate(ra, pa, row->a_reps, &ea) < 0 ||
	    compare_estimate(rb, pb, row->b_reps, &eb) < 0) {
		/* a median <= 0 (the empty probe), or too few samples */
		centre(a, ga, na, &row->a_ticks, &row->a_cycles, &row->a_ns);
		centre(b, gb, nb, &row->b_ticks, &row->b_cycles, &row->b_ns);
		row->basis = BASIS_NONE;
		return;
	}
	if (!blocks && (ea.level == BASIS_PROCESSES || eb.level == BASIS_PROCESSES))
		row->basis = BASIS_PROCESSES;
	row->a_cycles = exp(ea.mean);
	row->b_cycles = exp(eb.mean);
	row->a_ticks = row->a_cycles * a->cal.ticks_per_cycle;
	row->b_ticks = row->b_cycles * b->cal.ticks_per_cycle;
	row->a_ns = result_ns(a, row->a_ticks);
	row->b_ns = result_ns(b, row->b_ticks);
	d = eb.mean - ea.mean;
	if (row->basis == BASIS_PROCESSES && ea.procs >= 2 && ea.procs == eb.procs) {
		/* a row that varies between processes on either side is
		 * compared at that level on both, with the pooled (Student)
		 * variance of the process means: with the same number of
		 * processes a side it holds its level under unequal
		 * variances, and keeps the degrees of freedom that Welch's
		 * correction gives away with 2 or 3 processes a side */
		double dfp = (double)(ea.procs + eb.procs - 2);
		double sp = ((double)(ea.procs - 1) * ea.var_proc * (double)ea.procs +
			     (double)(eb.procs - 1) * eb.var_proc * (double)eb.procs) / dfp;

		row->se = sqrt(sp * (1.0 / (double)ea.procs + 1.0 / (double)eb.procs));
		row->df = dfp;
	} else {
		row->se = sqrt(ea.var + eb.var);
		/* Welch-Satterthwaite; both variances 0: the sum of the dfs */
		row->df = row->se > 0 ? (ea.var + eb.var) * (ea.var + eb.var) /
						(ea.var * ea.var / ea.df + eb.var * eb.var / eb.df)
				      : ea.df + eb.df;
	}
	t = stats_t_quantile(0.975, row->df);
	row->ratio = exp(d);
	row->lo = exp(d - t * row->se);
	row->hi = exp(d + t * row->se);
}

/* A new row for the results like r (ENOMEM: NULL). */
static struct compare_row *add_row(struct comparison *c, size_t *cap, const struct result *r)
{
	struct compare_row *row;

	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;

		row = realloc(c->rows, ncap * sizeof(*row));
		if (!row)
			return NULL;
		c->rows = row;
		*cap = ncap;
	}
	row = memset(&c->rows[c->n++], 0, sizeof(c->rows[0]));
	snprintf(row->name, sizeof(row->name), "%s", r->name);
	snprintf(row->pattern, sizeof(row->pattern), "%s", r->pattern);
	row->mode = r->mode;
	return row;
}

/* A row's tests against its margin; NAN p-values leave it out of the
 * families: unmatched, no ratio, untested blocks, a moved self-check. */
static void test_row(const struct comparison *c, struct compare_row *r)
{
	if (r->verdict == CMP_ONLY_A || r->verdict == CMP_ONLY_B || r->basis == BASIS_NONE ||
	    r->unsettled || (r->self_check && fabs(r->ratio - 1) > COMPARE_CAL_TOLERANCE))
		return;
	r->margin = fmax(r->basis == BASIS_BLOCKS ? c->block_margin : c->margin,
			 COMPARE_ABS_FLOOR / r->a_cycles);
	compare_tests(log(r->ratio), r->se, r->df, log1p(r->margin), &r->p, &r->p_same);
	/* blocks understate the spread between processes: never "same" */
	if (r->basis == BASIS_BLOCKS)
		r->p_same = NAN;
}

static void count(struct comparison *c, const struct compare_row *r)
{
	size_t *const by[] = {
		[CMP_CANNOT_TELL] = &c->cannot_tell, [CMP_SAME] = &c->same,
		[CMP_IMPROVED] = &c->improved, [CMP_REGRESSED] = &c->regressed,
		[CMP_ONLY_A] = &c->unmatched, [CMP_ONLY_B] = &c->unmatched,
		[CMP_CALIBRATION] = &c->calibration,
	};

	c->blocks += r->basis == BASIS_BLOCKS;
	c->untested += r->unsettled;
	c->blocks_untested += r->unsettled && r->basis == BASIS_BLOCKS;
	(*by[r->verdict])++;
}

/* Verdicts: the self-checks' move widens every margin; changes are
 * discoveries under Benjamini-Hochberg, an equivalence each row's own TOST. */
static int decide(struct comparison *c, const struct compare_opts *o)
{
	double *pc, m = fmax(o->min_change, NOISE_FLOOR_MIN);
	double mb = fmax(o->noise_floor, NOISE_FLOOR_MIN);
	bool *rc;
	size_t k, fam;
	int ret = -ENOMEM;

	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].self_check && isfinite(c->rows[i].ratio))
			c->check_shift = fmax(c->check_shift, fabs(c->rows[i].ratio - 1));
	/* The core clocks of the two sides (cal_shift) do not widen it: each
	 * sample is in the cycles of its own drift chain, and where a moved
	 * clock does move a row (a DRAM access is fixed in ns) the row's own
	 * spread between epochs or processes carries it; the self-checks
	 * moving is what says the calibration itself went wrong. */
	c->min_change = m;
	c->margin = sqrt(m * m + c->check_shift * c->check_shift);
	c->block_margin = sqrt(mb * mb + c->check_shift * c->check_shift);
	c->q = o->q;
	pc = malloc((c->n ? c->n : 1) * sizeof(*pc));
	rc = malloc((c->n ? c->n : 1) * sizeof(*rc));
	if (!pc || !rc)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		test_row(c, &c->rows[i]);
		pc[i] = c->rows[i].p;
	}
	ret = compare_bh(pc, c->n, o->q, rc, &k, &fam);
	if (ret < 0)
		goto out;
	c->tested = fam;
	/* what one more flagged row would need (the step-up's next rank) */
	c->threshold = fam ? fmin(o->q, o->q * (double)(k + 1) / (double)fam) : NAN;
	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];

		if (r->self_check && isfinite(r->ratio) && fabs(r->ratio - 1) > COMPARE_CAL_TOLERANCE)
			r->verdict = CMP_CALIBRATION;
		else if (rc[i])
			r->verdict = r->ratio > 1 ? CMP_REGRESSED : CMP_IMPROVED;
		else if (r->p_same <= o->q)
			r->verdict = CMP_SAME;
		if (!isnan(r->p))
			r->detect = compare_detect(r->se, r->df, log1p(r->margin), c->threshold);
		count(c, r);
	}
out:
	free(pc);
	free(rc);
	return ret;
}

/* A row of one report only: that side's centre, nothing compared. */
static void only(struct compare_row *row, const struct report *rep, const struct result *const *g,
		 size_t n, bool in_b)
{
	row->basis = BASIS_NONE;
	row->verdict = in_b ? CMP_ONLY_B : CMP_ONLY_A;
	if (in_b)
		centre(rep, g, n, &row->b_ticks, &row->b_cycles, &row->b_ns);
	else
		centre(rep, g, n, &row->a_ticks, &row->a_cycles, &row->a_ns);
	figures_unknown(row);
}

int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out)
{
	static const struct result *ga[MAX_PASSES], *gb[MAX_PASSES];
	size_t cap = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->fp_diffs = fingerprint_diff(fingerprint_of_meta(a->meta), fingerprint_of_meta(b->meta),
					 NULL, NULL);
	out->a_procs = compare_max_process(a);
	out->b_procs = compare_max_process(b);
	out->cal_shift = fabs(b->cal.ticks_per_cycle / a->cal.ticks_per_cycle - 1);
	/* A's rows in its order, then those only in B */
	for (int in_b = 0; in_b < 2; in_b++) {
		const struct report *x = in_b ? b : a, *y = in_b ? a : b;
		const struct result **gx = in_b ? gb : ga, **gy = in_b ? ga : gb;

		for (size_t i = 0; i < x->n; i++) {
			struct compare_row *row;
			size_t nx, ny = 0;

			if (!compare_group_first(x, i))
				continue;
			for (size_t j = 0; j < y->n && !ny; j++)
				if (result_same_row(&x->r[i], &y->r[j]))
					ny = compare_group(y, j, gy, MAX_PASSES);
			if (in_b && ny)
				continue;
			row = add_row(out, &cap, &x->r[i]);
			if (!row)
				goto out;
			nx = compare_group(x, i, gx, MAX_PASSES);
			if (ny)
				compare_row(a, ga, nx, b, gb, ny, row);
			else
				only(row, x, gx, nx, in_b);
		}
	}
	ret = decide(out, o);
out:
	if (ret < 0)
		compare_free(out);
	return ret;
}

void compare_free(struct comparison *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

void compare_verdict_text(const struct compare_row *r, char *buf, size_t len)
{
	switch (r->verdict) {
	case CMP_IMPROVED:
		snprintf(buf, len, "improved %.1f%%", (1.0 - r->ratio) * 100);
		break;
	case CMP_REGRESSED:
		snprintf(buf, len, "regressed %.1f%%", (r->ratio - 1.0) * 100);
		break;
	case CMP_SAME:
		/* a margin set by the absolute floor reads better in cycles */
		if (r->margin * r->a_cycles <= COMPARE_ABS_FLOOR * 1.0001)
			snprintf(buf, len, "same within %.2f cycles", COMPARE_ABS_FLOOR);
		else
			snprintf(buf, len, "same within %.1f%%", r->margin * 100);
		break;
	case CMP_ONLY_A:
	case CMP_ONLY_B:
		snprintf(buf, len, "only in %s", r->verdict == CMP_ONLY_A ? "A" : "B");
		break;
	case CMP_CALIBRATION:
		snprintf(buf, len, "calibration moved %+.1f%%", (r->ratio - 1.0) * 100);
		break;
	default:
		if (r->unsettled && r->basis == BASIS_BLOCKS)
			snprintf(buf, len, "cannot tell (one process, no epochs)");
		else if (r->unsettled)
			snprintf(buf, len, "cannot tell (one process a side)");
		else if (isnan(r->detect))
			snprintf(buf, len, "cannot tell (median <= 0 or too few samples)");
		else
			snprintf(buf, len, r->detect < 10 ? "cannot tell below %.1f%%" : "cannot tell below %.0f%%",
				 r->detect * 100);
	}
}

void compare_summary(const struct comparison *c, char *buf, size_t len)
{
	snprintf(buf, len,
		 "summary: %zu rows: %zu regressed, %zu improved, %zu same, %zu cannot tell, %zu calibration problem%s, %zu in one report only",
		 c->n, c->regressed, c->improved, c->same, c->cannot_tell, c->calibration,
		 c->calibration == 1 ? "" : "s", c->unmatched);
}
