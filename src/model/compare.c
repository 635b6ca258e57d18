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

#define MAX_PASSES 1000
#define MAX_REPS (MAX_PASSES * COMPARE_BLOCKS)

void compare_default_opts(struct compare_opts *o)
{
	o->noise_floor = COMPARE_NOISE_FLOOR;
	o->min_change = COMPARE_MARGIN;
	o->q = COMPARE_Q;
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
			       1 - stats_f_cdf(v_proc / v_epoch, (double)(np - 1), (double)dfw) < COMPARE_POOL_ALPHA)) {
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

int compare_max_process(const struct report *rep)
{
	return largest(rep, result_process, 1);
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
			proc[k] = result_process(g[i]);
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
		procs |= result_process(g[i]) != result_process(g[0]);
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

/* The change B/A of a row with its standard error and degrees of freedom:
 * the log ratio, its 95% interval. */
static void row_interval(struct compare_row *row, double d)
{
	double t = stats_t_quantile(0.975, row->df);

	row->ratio = exp(d);
	row->lo = exp(d - t * row->se);
	row->hi = exp(d + t * row->se);
}

/* Welch-Satterthwaite degrees of freedom of va + vb (both 0: the sum). */
static double welch_df(double va, double dfa, double vb, double dfb)
{
	return va + vb > 0 ? (va + vb) * (va + vb) / (va * va / dfa + vb * vb / dfb) : dfa + dfb;
}

/* A side without epochs on either side: COMPARE_BLOCKS blocks of each
 * result's time-ordered samples, one level (compare_estimate). */
static void blocks_row(const struct report *a, const struct result *const *ga, size_t na,
		       const struct report *b, const struct result *const *gb, size_t nb,
		       struct compare_row *row)
{
	static double ra[MAX_REPS], rb[MAX_REPS];
	static int pa[MAX_REPS], pb[MAX_REPS];
	struct compare_est ea, eb;

	row->basis = BASIS_BLOCKS;
	row->unsettled = side_unsettled(ga, na, true) || side_unsettled(gb, nb, true);
	row->a_reps = replicates(a, ga, na, true, ra, pa, MAX_REPS);
	row->b_reps = replicates(b, gb, nb, true, rb, pb, MAX_REPS);
	if (compare_estimate(ra, pa, row->a_reps, &ea) < 0 || compare_estimate(rb, pb, row->b_reps, &eb) < 0) {
		/* a median <= 0 (the empty probe), or too few samples */
		centre(a, ga, na, &row->a_ticks, &row->a_cycles, &row->a_ns);
		centre(b, gb, nb, &row->b_ticks, &row->b_cycles, &row->b_ns);
		row->basis = BASIS_NONE;
		return;
	}
	row->a_cycles = exp(ea.mean);
	row->b_cycles = exp(eb.mean);
	row->se = sqrt(ea.var + eb.var);
	row->df = welch_df(ea.var, ea.df, eb.var, eb.df);
	row_interval(row, eb.mean - ea.mean);
}

/* A side of a row over its epochs: its values kept (side_stats sums
 * them). 0, -ENOMEM, or -EINVAL (a median <= 0, fewer than two epochs). */
static int side_of(const struct report *rep, const struct result *const *g, size_t n,
		   struct compare_side *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->y = malloc((n + 1) * sizeof(*sd->y));
	sd->proc = malloc((n + 1) * sizeof(*sd->proc));
	sd->ep = malloc((n + 1) * sizeof(*sd->ep));
	sd->out = calloc(n + 1, sizeof(*sd->out));
	if (!sd->y || !sd->proc || !sd->ep || !sd->out)
		return -ENOMEM;
	sd->n = replicates(rep, g, n, false, sd->y, sd->proc, n);
	for (size_t i = 0; i < sd->n; i++) {
		if (!(sd->y[i] > 0))
			return -EINVAL;
		sd->y[i] = log(sd->y[i]);
		sd->ep[i] = result_epoch(g[i]);
	}
	return sd->n >= 2 ? 0 : -EINVAL;
}

static void side_free(struct compare_side *sd)
{
	free(sd->y);
	free(sd->proc);
	free(sd->ep);
	free(sd->out);
}

/* Mark the outlier epochs of a side (COMPARE_OUTLIER_SPREADS): in each
 * process, at most one epoch in five, the furthest first, each against the
 * median of the process's epochs with a spread never below floor. A row
 * whose epochs hold two states keeps them: more than one in five apart is
 * a spread, not an outlier. */
static void side_outliers(struct compare_side *sd, double floor)
{
	double v[MAX_PASSES], dev[MAX_PASSES];

	sd->dropped = 0;
	memset(sd->out, 0, sd->n * sizeof(*sd->out));
	for (size_t i = 0; i < sd->n; i++) {
		size_t k = 0, allowed, far;
		double m, scale;
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = sd->proc[j] != sd->proc[i];
		if (!first)
			continue;
		for (size_t j = i; j < sd->n && k < MAX_PASSES; j++)
			if (sd->proc[j] == sd->proc[i])
				v[k++] = sd->y[j];
		allowed = k / 5;
		m = stats_median(v, k);
		for (size_t j = 0; j < k; j++)
			dev[j] = fabs(v[j] - m);
		scale = fmax(1.4826 * stats_median(dev, k), floor);
		for (size_t d = 0; d < allowed; d++) {
			far = SIZE_MAX;
			for (size_t j = i; j < sd->n; j++)
				if (sd->proc[j] == sd->proc[i] && !sd->out[j] &&
				    fabs(sd->y[j] - m) > COMPARE_OUTLIER_SPREADS * scale &&
				    (far == SIZE_MAX || fabs(sd->y[j] - m) > fabs(sd->y[far] - m)))
					far = j;
			if (far == SIZE_MAX)
				break;
			sd->out[far] = true;
			sd->dropped++;
		}
	}
}

/* The effect of (proc, ep) in e (0 when absent). */
static double effect(const struct compare_effect *e, size_t n, int proc, int ep)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].proc == proc && e[i].ep == ep)
			return e[i].v;
	return 0;
}

/* A side's mean, spread within processes and spread of its process means,
 * each value less its epoch's effect eff and each process mean less its
 * process's effect peff (NULL: none). */
static void side_stats(struct compare_side *sd, const struct compare_effect *eff, size_t neff,
		       const struct compare_effect *peff, size_t npeff)
{
	double pm[MAX_PASSES], inv_k = 0;
	size_t np = 0;

	sd->mean = sd->s2 = sd->df = sd->ssb = 0;
	for (size_t i = 0; i < sd->n && np < MAX_PASSES; i++) {
		double m = 0, ss = 0, v;
		size_t k = 0, j;

		for (j = 0; j < i && sd->proc[j] != sd->proc[i]; j++)
			;
		if (j < i)	/* each process once, at its first epoch */
			continue;
		for (j = i; j < sd->n; j++)
			if (sd->proc[j] == sd->proc[i] && !sd->out[j]) {
				m += sd->y[j] - effect(eff, neff, sd->proc[j], sd->ep[j]);
				k++;
			}
		if (!k)
			continue;
		m /= (double)k;
		for (j = i; j < sd->n; j++)
			if (sd->proc[j] == sd->proc[i] && !sd->out[j]) {
				v = sd->y[j] - effect(eff, neff, sd->proc[j], sd->ep[j]) - m;
				ss += v * v;
			}
		pm[np++] = m - effect(peff, npeff, sd->proc[i], 0);
		sd->s2 += ss;
		sd->df += (double)(k - 1);
		inv_k += 1.0 / (double)k;
	}
	for (size_t p = 0; p < np; p++)
		sd->mean += pm[p] / (double)np;
	for (size_t p = 0; p < np; p++)
		sd->ssb += (pm[p] - sd->mean) * (pm[p] - sd->mean);
	sd->s2 = sd->df > 0 ? sd->s2 / sd->df : NAN;
	sd->procs = np;
	sd->k = (double)np / inv_k;
}

/* The steady states of an epoch's result in core cycles (its median when
 * it holds one, extra.states otherwise); how many. */
static size_t epoch_states(const struct report *rep, const struct result *r, double *v)
{
	if (!(r->extra.has & 1u << RX_MIXTURE) || r->extra.mix.nstates < 2) {
		v[0] = result_cycles(rep, r->s.median);
		return 1;
	}
	for (size_t k = 0; k < r->extra.mix.nstates; k++)
		v[k] = result_cycles(rep, r->extra.mix.state[k].value);
	return r->extra.mix.nstates;
}

/* The state of v[0..m) nearest t within the judgment margin (5% or a
 * quarter cycle, as the states were told apart); m when none. */
static size_t nearest_state(const double *v, size_t m, double t)
{
	size_t best = m;

	for (size_t j = 0; j < m; j++)
		if (fabs(v[j] - t) <= fmax(JUDGE_MARGIN_REL * t, JUDGE_MARGIN_ABS) &&
		    (best == m || fabs(v[j] - t) < fabs(v[best] - t)))
			best = j;
	return best;
}

/* How many of a side's epochs hold a state near t. */
static size_t holding(const struct report *rep, const struct result *const *g, size_t n, double t)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double v[MIX_MAX_STATES];
		size_t m = epoch_states(rep, g[i], v);

		k += nearest_state(v, m, t) < m;
	}
	return k;
}

/* A side's epochs at state t: each epoch's state nearest t; an epoch
 * without one is left out. */
static void at_state(const struct report *rep, const struct result *const *g, struct compare_side *sd, double t)
{
	size_t k = 0, n = sd->n;

	for (size_t i = 0; i < n; i++) {
		double v[MIX_MAX_STATES];
		size_t m = epoch_states(rep, g[i], v), j = nearest_state(v, m, t);

		if (j == m)
			continue;
		sd->y[k] = log(v[j]);
		sd->proc[k] = sd->proc[i];
		sd->ep[k++] = sd->ep[i];
	}
	sd->n = k;
}

/* A side's epochs at their lowest state. */
static void lowest_state(const struct report *rep, const struct result *const *g, struct compare_side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		double v[MIX_MAX_STATES];

		epoch_states(rep, g[i], v);
		sd->y[i] = log(v[0]);	/* the states are by value */
	}
}

/* A row whose epochs hold two or more steady states on either side is
 * compared like with like: at the state both sides hold in the most
 * epochs (two or more each), its value in each epoch (row->state); where
 * no state is held on both sides but every epoch holds several, at the
 * lowest state of each. */
static void compare_state(const struct report *a, const struct result *const *ga, size_t na,
			  const struct report *b, const struct result *const *gb, size_t nb, struct compare_row *row)
{
	size_t best = 0;
	bool mixed = false;

	for (size_t i = 0; i < na + nb; i++) {
		const struct result *r = i < na ? ga[i] : gb[i - na];

		mixed |= (r->extra.has & 1u << RX_MIXTURE) && r->extra.mix.nstates >= 2;
	}
	for (size_t i = 0; i < na && mixed; i++) {
		double v[MIX_MAX_STATES];
		size_t m = epoch_states(a, ga[i], v);

		for (size_t j = 0; j < m; j++) {
			size_t ha = holding(a, ga, na, v[j]), hb = holding(b, gb, nb, v[j]);

			if (ha >= 2 && hb >= 2 && ha + hb > best) {
				best = ha + hb;
				row->state = v[j];
			}
		}
	}
	if (!isnan(row->state)) {
		at_state(a, ga, &row->sa, row->state);
		at_state(b, gb, &row->sb, row->state);
		return;
	}
	/* no state held on both sides (every state moved): where every
	 * epoch of both holds several, the lowest against the lowest */
	for (size_t i = 0; i < na + nb; i++) {
		const struct result *r = i < na ? ga[i] : gb[i - na];

		if (!(r->extra.has & 1u << RX_MIXTURE) || r->extra.mix.nstates < 2)
			return;
	}
	lowest_state(a, ga, &row->sa);
	lowest_state(b, gb, &row->sb);
	row->state = exp(row->sa.y[0]);
}

/* Each side of a row over its epochs, or blocks when a side has fewer
 * than two results; the interval waits for the kinds (finish_row). */
static int compare_row(const struct report *a, const struct result *const *ga, size_t na,
		       const struct report *b, const struct result *const *gb, size_t nb,
		       struct compare_row *row)
{
	int ea = 0, eb = 0;

	row->self_check = self_check(ga[0]);
	row->kind = -1;
	row->state = NAN;
	figures_unknown(row);
	if (na < 2 || nb < 2) {
		blocks_row(a, ga, na, b, gb, nb, row);
	} else if ((ea = side_of(a, ga, na, &row->sa)) < 0 || (eb = side_of(b, gb, nb, &row->sb)) < 0) {
		if (ea == -ENOMEM || eb == -ENOMEM)
			return -ENOMEM;
		centre(a, ga, na, &row->a_ticks, &row->a_cycles, &row->a_ns);
		centre(b, gb, nb, &row->b_ticks, &row->b_cycles, &row->b_ns);
		row->basis = BASIS_NONE;
		return 0;
	} else {
		row->basis = BASIS_EPOCHS;
		compare_state(a, ga, na, b, gb, nb, row);
		row->a_reps = row->sa.n;
		row->b_reps = row->sb.n;
		side_stats(&row->sa, NULL, 0, NULL, 0);
		side_stats(&row->sb, NULL, 0, NULL, 0);
		row->a_cycles = exp(row->sa.mean);
		row->b_cycles = exp(row->sb.mean);
	}
	row->a_ticks = row->a_cycles * a->cal.ticks_per_cycle;
	row->b_ticks = row->b_cycles * b->cal.ticks_per_cycle;
	row->a_ns = result_ns(a, row->a_ticks);
	row->b_ns = result_ns(b, row->b_ticks);
	return 0;
}

/* ---- the kinds: shared effects, moderated variances, process parts ----- */

/* One row side, row or kind that speaks to a process component phi: a
 * statistic num / (c0 + c1 phi) that is F(d1, d2) under the model. */
struct phi_item {
	double num, c0, c1, d1, d2;
};

/* The median over items of P(F <= statistic at phi). */
static double phi_median(const struct phi_item *it, size_t n, double phi, double *scratch)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = stats_f_cdf(it[i].num / (it[i].c0 + it[i].c1 * phi), it[i].d1, it[i].d2);
	return stats_median(scratch, n);
}

/* The phi at which the items' median statistic sits at its median under
 * the model (a robust method of moments: a few changed or odd rows move a
 * median little); 0 when the items spread no more than their epochs say. */
static double phi_solve(const struct phi_item *it, size_t n, double *scratch)
{
	double lo = -14, hi = 14;	/* log phi */

	if (phi_median(it, n, 0, scratch) <= 0.5)
		return 0;
	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;

		if (phi_median(it, n, exp(mid), scratch) > 0.5)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

/* The item of a side with 2+ processes: its process means' variance
 * against s2 (phi + 1/k). */
static struct phi_item within_item(const struct compare_side *s)
{
	return (struct phi_item){ .num = s->ssb / (double)(s->procs - 1), .c0 = s->s2_mod / s->k, .c1 = s->s2_mod,
				  .d1 = (double)(s->procs - 1), .d2 = s->df_mod };
}

/* The item of a difference d of two sides' means (one process a side),
 * each side with a variance s2 per epoch over k epochs and p processes. */
static struct phi_item between_item(double d, double s2a, double ka, double pa, double dfa, double s2b,
				    double kb, double pb, double dfb)
{
	return (struct phi_item){ .num = d * d, .c0 = s2a / (ka * pa) + s2b / (kb * pb), .c1 = s2a / pa + s2b / pb,
				  .d1 = 1, .d2 = welch_df(s2a / pa, dfa, s2b / pb, dfb) };
}

static int kind_of(struct comparison *c, const struct result *r)
{
	struct compare_kind *k;

	for (size_t i = 0; i < c->nkinds; i++)
		if (c->kinds[i].ctx == r->context && c->kinds[i].mode == r->mode &&
		    !strcmp(c->kinds[i].pattern, r->pattern)) {
			c->kinds[i].nrows++;
			return (int)i;
		}
	if (!(k = realloc(c->kinds, (c->nkinds + 1) * sizeof(*k))))
		return -ENOMEM;
	c->kinds = k;
	k = &k[c->nkinds];
	*k = (struct compare_kind){ .ctx = r->context, .mode = r->mode, .nrows = 1, .phi = NAN,
				    .source = PHI_NONE, .phi_shift = NAN, .shift_source = PHI_NONE,
				    .shift = NAN, .se = NAN, .p = NAN, .p_same = NAN };
	snprintf(k->pattern, sizeof(k->pattern), "%s", r->pattern);
	return (int)c->nkinds++;
}

/* The median over the rows of kind k of f(row, side, arg) where defined
 * (finite); NAN under STATS_PRIOR_MIN_ROWS of them. */
static double kind_median(const struct comparison *c, size_t k, int side,
			  double (*f)(const struct compare_side *s, const void *arg), const void *arg,
			  double *scratch)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].kind == (int)k) {
			double v = f(side ? &c->rows[i].sb : &c->rows[i].sa, arg);

			if (isfinite(v))
				scratch[n++] = v;
		}
	return n >= STATS_PRIOR_MIN_ROWS ? stats_median(scratch, n) : NAN;
}

/* (process, epoch) of a value, for kind_median. */
struct at {
	int proc, ep;
};

/* A row side's value at (proc, ep) less its process's mean; NAN if absent. */
static double epoch_dev(const struct compare_side *s, const void *arg)
{
	const struct at *at = arg;
	double m = 0, v = NAN;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->proc[i] == at->proc) {
			m += s->y[i];
			k++;
			if (s->ep[i] == at->ep)
				v = s->y[i];
		}
	return k >= 2 ? v - m / (double)k : NAN;
}

/* A row side's process mean at proc less the side's mean; NAN if absent. */
static double proc_dev(const struct compare_side *s, const void *arg)
{
	const struct at *at = arg;
	double m = 0;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->proc[i] == at->proc) {
			m += s->y[i];
			k++;
		}
	return k ? m / (double)k - s->mean : NAN;
}

/* The effects shared by kind k's rows on each side: per epoch (the median
 * row's deviation from its process mean) and, with 2+ processes, per
 * process; the epoch effects' variance within processes. */
static int kind_effects(struct comparison *c, size_t k, double *scratch)
{
	struct compare_kind *kd = &c->kinds[k];
	double ss = 0, df = 0;

	for (int side = 0; side < 2; side++) {
		size_t cap = 0;

		for (size_t i = 0; i < c->n; i++)
			if (c->rows[i].kind == (int)k)
				cap = (side ? c->rows[i].sb.n : c->rows[i].sa.n) > cap ?
					      (side ? c->rows[i].sb.n : c->rows[i].sa.n) : cap;
		kd->eff[side] = calloc(cap + 1, sizeof(*kd->eff[side]));
		kd->peff[side] = calloc(cap + 1, sizeof(*kd->peff[side]));
		if (!kd->eff[side] || !kd->peff[side])
			return -ENOMEM;
		for (size_t i = 0; i < c->n; i++) {
			const struct compare_side *s = side ? &c->rows[i].sb : &c->rows[i].sa;

			if (c->rows[i].kind != (int)k)
				continue;
			for (size_t j = 0; j < s->n; j++) {
				struct at at = { s->proc[j], s->ep[j] };
				bool seen = false;

				for (size_t e = 0; e < kd->neff[side] && !seen; e++)
					seen = kd->eff[side][e].proc == at.proc && kd->eff[side][e].ep == at.ep;
				if (seen || kd->neff[side] == cap)
					continue;
				kd->eff[side][kd->neff[side]++] = (struct compare_effect){
					at.proc, at.ep, kind_median(c, k, side, epoch_dev, &at, scratch) };
			}
		}
		/* an epoch too few rows ran in has no effect of its own */
		for (size_t e = 0; e < kd->neff[side]; e++)
			if (isnan(kd->eff[side][e].v))
				kd->eff[side][e].v = 0;
	}
	/* the epoch effects' spread within each process (pooled) */
	for (int side = 0; side < 2; side++)
		for (size_t e = 0; e < kd->neff[side]; e++) {
			double m = 0;
			size_t n = 0;

			for (size_t f = 0; f < kd->neff[side]; f++)
				if (kd->eff[side][f].proc == kd->eff[side][e].proc) {
					m += kd->eff[side][f].v;
					n++;
				}
			ss += (kd->eff[side][e].v - m / (double)n) * (kd->eff[side][e].v - m / (double)n);
			df += (n - 1.0) / (double)n;
		}
	kd->s2_eff = df > 0 ? ss / df : NAN;
	kd->df_eff = df;
	return 0;
}

/* Kind k's process effects per side (2+ processes): the median row's
 * process mean against its side's mean, its epochs' effects taken out. */
static void kind_process_effects(struct comparison *c, size_t k, double *scratch)
{
	struct compare_kind *kd = &c->kinds[k];

	for (int side = 0; side < 2; side++)
		for (size_t e = 0; e < kd->neff[side]; e++) {
			struct at at = { kd->eff[side][e].proc, 0 };
			bool seen = false;

			for (size_t f = 0; f < kd->npeff[side] && !seen; f++)
				seen = kd->peff[side][f].proc == at.proc;
			if (!seen)
				kd->peff[side][kd->npeff[side]++] = (struct compare_effect){
					at.proc, 0, kind_median(c, k, side, proc_dev, &at, scratch) };
		}
	for (int side = 0; side < 2; side++)
		for (size_t f = 0; f < kd->npeff[side]; f++)
			if (isnan(kd->peff[side][f].v))
				kd->peff[side][f].v = 0;
}

/* A row's change beyond its kind's shift (log). */
static double own_change(const struct comparison *c, const struct compare_row *r)
{
	return r->sb.mean - r->sa.mean - c->kinds[r->kind].shift;
}

/* Kind k: its rows' sides with the shared effects taken out, the prior of
 * their epochs' variances, their moderated variances, the kind's shift
 * (the median row's change) and phi: from the sides with 2+ processes
 * where there are enough, else from the rows' changes beyond the shift. */
static int fit_kind(struct comparison *c, size_t k, double *s2, double *df, struct phi_item *it)
{
	struct compare_kind *kd = &c->kinds[k];
	size_t n = 0, within = 0, between = 0;
	int ret = kind_effects(c, k, s2);

	if (ret)
		return ret;
	kind_process_effects(c, k, s2);
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].kind == (int)k)
			for (int side = 0; side < 2; side++) {
				struct compare_side *sd = side ? &c->rows[i].sb : &c->rows[i].sa;

				side_stats(sd, kd->eff[side], kd->neff[side], kd->peff[side], kd->npeff[side]);
				s2[n] = sd->s2;
				df[n++] = sd->df;
			}
	stats_prior_fit(s2, df, n, &kd->prior);
	n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].kind == (int)k)
			for (int side = 0; side < 2; side++) {
				struct compare_side *sd = side ? &c->rows[i].sb : &c->rows[i].sa;

				side_outliers(sd, kd->prior.df > 0 ? sqrt(kd->prior.s2) : 0);
				side_stats(sd, kd->eff[side], kd->neff[side], kd->peff[side], kd->npeff[side]);
				s2[n] = sd->s2;
				df[n++] = sd->df;
			}
	stats_prior_fit(s2, df, n, &kd->prior);
	n = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];

		if (r->kind != (int)k)
			continue;
		s2[n++] = r->sb.mean - r->sa.mean;
		for (int side = 0; side < 2; side++) {
			struct compare_side *sd = side ? &r->sb : &r->sa;

			sd->s2_mod = stats_moderated(sd->df > 0 ? sd->s2 : NAN, sd->df, &kd->prior);
			sd->df_mod = sd->df + kd->prior.df;
			if (sd->procs >= 2 && sd->s2_mod > 0 && sd->df_mod > 0)
				it[within++] = within_item(sd);
		}
	}
	kd->shift = n >= STATS_PRIOR_MIN_ROWS ? stats_median(s2, n) : 0;
	if (within < STATS_PRIOR_MIN_ROWS)
		for (size_t i = 0; i < c->n; i++) {
			const struct compare_row *r = &c->rows[i];
			const struct compare_side *a = &r->sa, *b = &r->sb;

			if (r->kind == (int)k && a->s2_mod > 0 && b->s2_mod > 0 && a->df_mod > 0 && b->df_mod > 0)
				it[between++] = between_item(own_change(c, r), a->s2_mod, a->k, (double)a->procs,
							     a->df_mod, b->s2_mod, b->k, (double)b->procs, b->df_mod);
		}
	if (within >= STATS_PRIOR_MIN_ROWS || between >= STATS_PRIOR_MIN_ROWS) {
		bool w = within >= STATS_PRIOR_MIN_ROWS;

		kd->phi_n = w ? within : between;
		kd->source = w ? PHI_WITHIN : PHI_BETWEEN;
		kd->phi = phi_solve(it, kd->phi_n, s2);
	}
	return 0;
}

/* The variance of a side's own part of its mean: the kind's model, or its
 * own process means where they spread beyond it (COMPARE_EXCESS_ALPHA). */
static void side_var(struct compare_side *s, double phi)
{
	s->var = s->s2_mod * (phi + 1 / s->k) / (double)s->procs;
	s->vdf = s->df_mod;
	if (s->procs >= 2 && s->s2_mod > 0) {
		struct phi_item it = within_item(s);

		s->excess = stats_f_cdf(it.num / (it.c0 + it.c1 * phi), it.d1, it.d2) > 1 - COMPARE_EXCESS_ALPHA;
	} else if (s->procs >= 2) {
		s->excess = true;	/* no epochs within a process: only the process means */
	}
	if (s->excess) {
		s->var = fmax(s->df > 0 ? s->var : 0, s->ssb / (double)(s->procs - 1) / (double)s->procs);
		s->vdf = (double)(s->procs - 1);
	}
}

/* The kind's shift as a whole: its epoch effects' variance over each
 * side's epochs, and the shared process part phi_shift of it. */
static void kind_shift_se(struct compare_kind *kd, double pa, double ka, double pb, double kb)
{
	double v = kd->s2_eff * ((kd->phi_shift + 1 / ka) / pa + (kd->phi_shift + 1 / kb) / pb);

	kd->se = sqrt(v);
	kd->df = kd->df_eff;
}

/* A row on epochs, its kind fitted: its change beyond its kind's shift,
 * with the uncertainty of that shift (a median of the kind's rows). */
static void finish_row(struct comparison *c, struct compare_row *r)
{
	const struct compare_kind *kd = &c->kinds[r->kind];
	double v_shift, fa, fb;

	if (isnan(kd->phi)) {
		r->unsettled = true;
		return;
	}
	side_var(&r->sa, kd->phi);
	side_var(&r->sb, kd->phi);
	if (r->sa.excess || r->sb.excess)
		r->basis = BASIS_PROCESSES;
	/* a median of n rows varies pi/2 times as much as their mean */
	v_shift = kd->nrows >= STATS_PRIOR_MIN_ROWS ? M_PI / 2 * (r->sa.var + r->sb.var) / (double)kd->nrows : 0;
	r->se = sqrt(r->sa.var + r->sb.var + v_shift);
	r->df = welch_df(r->sa.var, r->sa.vdf, r->sb.var, r->sb.vdf);
	row_interval(r, own_change(c, r));
	/* the centres shown are those compared: outliers and shared effects out */
	fa = exp(r->sa.mean) / r->a_cycles;
	fb = exp(r->sb.mean) / r->b_cycles;
	r->a_cycles *= fa;
	r->a_ticks *= fa;
	r->a_ns *= fa;
	r->b_cycles *= fb;
	r->b_ticks *= fb;
	r->b_ns *= fb;
}

/* The shared process part of each kind's shift: within sides from the
 * process effects (2+ processes a side), else across the kinds from
 * their shifts. Kinds that cannot be fitted take the largest of the others. */
static void fit_shifts(struct comparison *c, struct phi_item *it, double *scratch)
{
	size_t n = 0;
	double largest = NAN;

	for (size_t k = 0; k < c->nkinds; k++) {
		struct compare_kind *kd = &c->kinds[k];
		size_t m = 0;

		if (!(kd->s2_eff > 0))
			continue;
		for (int side = 0; side < 2; side++)
			if (kd->npeff[side] >= 2) {
				double ss = 0;
				size_t e = kd->neff[side];

				for (size_t f = 0; f < kd->npeff[side]; f++)
					ss += kd->peff[side][f].v * kd->peff[side][f].v;
				it[m++] = (struct phi_item){ .num = ss / (double)(kd->npeff[side] - 1),
							     .c0 = kd->s2_eff * (double)kd->npeff[side] / (double)e,
							     .c1 = kd->s2_eff, .d1 = (double)(kd->npeff[side] - 1),
							     .d2 = kd->df_eff };
			}
		if (m) {
			kd->phi_shift = phi_solve(it, m, scratch);
			kd->shift_source = PHI_WITHIN;
			largest = isnan(largest) ? kd->phi_shift : fmax(largest, kd->phi_shift);
		}
	}
	for (size_t k = 0; k < c->nkinds; k++) {
		const struct compare_kind *kd = &c->kinds[k];

		if (kd->shift_source == PHI_NONE && kd->s2_eff > 0 && kd->npeff[0] && kd->npeff[1])
			it[n++] = between_item(kd->shift, kd->s2_eff, (double)kd->neff[0] / (double)kd->npeff[0],
					       (double)kd->npeff[0], kd->df_eff, kd->s2_eff,
					       (double)kd->neff[1] / (double)kd->npeff[1], (double)kd->npeff[1],
					       kd->df_eff);
	}
	if (n >= STATS_PRIOR_MIN_ROWS) {
		double phi = phi_solve(it, n, scratch);

		for (size_t k = 0; k < c->nkinds; k++)
			if (c->kinds[k].shift_source == PHI_NONE && c->kinds[k].s2_eff > 0) {
				c->kinds[k].phi_shift = phi;
				c->kinds[k].shift_source = PHI_BETWEEN;
			}
		largest = isnan(largest) ? phi : fmax(largest, phi);
	}
	for (size_t k = 0; k < c->nkinds; k++) {
		struct compare_kind *kd = &c->kinds[k];

		if (kd->shift_source == PHI_NONE && kd->s2_eff > 0) {
			kd->phi_shift = isnan(largest) ? COMPARE_PHI_DEFAULT : largest;
			kd->shift_source = isnan(largest) ? PHI_DEFAULT : PHI_OTHERS;
		}
		if (kd->shift_source != PHI_NONE && kd->npeff[0] && kd->npeff[1])
			kind_shift_se(kd, (double)kd->npeff[0], (double)kd->neff[0] / (double)kd->npeff[0],
				      (double)kd->npeff[1], (double)kd->neff[1] / (double)kd->npeff[1]);
	}
}

/* Every kind fitted, then every row on epochs finished. Kinds with too few
 * rows of their own take the largest phi of the others. */
static int fit_kinds(struct comparison *c)
{
	double *s2 = malloc((2 * c->n + 1) * sizeof(*s2)), *df = malloc((2 * c->n + 1) * sizeof(*df));
	struct phi_item *it = malloc((2 * c->n + 1) * sizeof(*it));
	double largest = NAN;
	int ret = s2 && df && it ? 0 : -ENOMEM;

	for (size_t k = 0; k < c->nkinds && !ret; k++) {
		ret = fit_kind(c, k, s2, df, it);
		if (!isnan(c->kinds[k].phi))
			largest = isnan(largest) ? c->kinds[k].phi : fmax(largest, c->kinds[k].phi);
	}
	for (size_t k = 0; k < c->nkinds && !ret; k++)
		if (isnan(c->kinds[k].phi)) {
			c->kinds[k].phi = isnan(largest) ? COMPARE_PHI_DEFAULT : largest;
			c->kinds[k].source = isnan(largest) ? PHI_DEFAULT : PHI_OTHERS;
		}
	if (!ret)
		fit_shifts(c, it, s2);
	for (size_t i = 0; i < c->n && !ret; i++)
		if (c->rows[i].kind >= 0) {
			finish_row(c, &c->rows[i]);
			c->outliers += c->rows[i].sa.dropped + c->rows[i].sb.dropped;
		}
	free(s2);
	free(df);
	free(it);
	return ret;
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
	c->states += !isnan(r->state);
	c->untested += r->unsettled;
	c->blocks_untested += r->unsettled && r->basis == BASIS_BLOCKS;
	(*by[r->verdict])++;
}

/* Each kind's shift as a whole against the margin: a family of its own
 * under Benjamini-Hochberg at q; same by its TOST. */
static int decide_kinds(struct comparison *c, const struct compare_opts *o, double *p, bool *rej)
{
	size_t k, fam;
	int ret;

	for (size_t i = 0; i < c->nkinds; i++) {
		struct compare_kind *kd = &c->kinds[i];

		kd->margin = c->margin;
		kd->verdict = CMP_CANNOT_TELL;
		p[i] = NAN;
		if (isfinite(kd->se) && kd->df > 0) {
			double t = stats_t_quantile(0.975, kd->df);

			compare_tests(kd->shift, kd->se, kd->df, log1p(kd->margin), &kd->p, &kd->p_same);
			kd->lo = kd->shift - t * kd->se;
			kd->hi = kd->shift + t * kd->se;
			p[i] = kd->p;
		}
	}
	ret = compare_bh(p, c->nkinds, o->q, rej, &k, &fam);
	for (size_t i = 0; i < c->nkinds && !ret; i++) {
		struct compare_kind *kd = &c->kinds[i];

		if (rej[i])
			kd->verdict = kd->shift > 0 ? CMP_REGRESSED : CMP_IMPROVED;
		else if (kd->p_same <= o->q)
			kd->verdict = CMP_SAME;
		c->kinds_moved += rej[i];
	}
	return ret;
}

/* A row's family for the false discovery rate: 0 on hot lines, 1 under a
 * pattern or sharing. */
static int family(const struct compare_row *r)
{
	return strcmp(r->pattern, "hit") != 0;
}

/* The median detectable change of the tested rows on hot lines (hot) or
 * under a pattern; NAN when none. scratch holds c->n values. */
static double median_detect(const struct comparison *c, bool hot, double *scratch)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (!isnan(c->rows[i].detect) && !strcmp(c->rows[i].pattern, "hit") == hot)
			scratch[n++] = c->rows[i].detect;
	return stats_median(scratch, n);
}

/* The reports a side more that would judge a row that cannot tell: the
 * standard error its change needs (inside the margin by the TOST quantile,
 * or beyond it by its family's next flag), its variance falling with the
 * processes a side; -1 at the margin, -2 beyond COMPARE_MAX_MORE_RUNS. */
static int more_runs(const struct comparison *c, const struct compare_row *r)
{
	double d = fabs(log(r->ratio)), m = log1p(r->margin), need, p;

	need = d < m ? (m - d) / stats_t_quantile(0.95, r->df)
		     : (d - m) / stats_t_quantile(1 - c->threshold[family(r)] / 2, r->df);
	if (!(need > 0))
		return -1;
	p = (double)(r->sa.procs > r->sb.procs ? r->sa.procs : r->sb.procs);
	p = ceil(p * (r->se / need) * (r->se / need)) - p;
	return p > COMPARE_MAX_MORE_RUNS ? -2 : (int)fmax(1, p);
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
	/* two families, hot-line rows and rows under a pattern (or sharing),
	 * each under Benjamini-Hochberg at q: the hot rows, a hundred times
	 * more precise, do not pay for the pattern rows' number */
	ret = 0;
	for (int f = 0; f < 2 && !ret; f++) {
		double *pf = malloc((c->n ? c->n : 1) * sizeof(*pf));
		bool *rf = malloc((c->n ? c->n : 1) * sizeof(*rf));

		ret = pf && rf ? 0 : -ENOMEM;
		for (size_t i = 0; i < c->n && !ret; i++)
			pf[i] = family(&c->rows[i]) == f ? pc[i] : NAN;
		if (!ret)
			ret = compare_bh(pf, c->n, o->q, rf, &k, &fam);
		for (size_t i = 0; i < c->n && !ret; i++)
			if (family(&c->rows[i]) == f)
				rc[i] = rf[i];
		c->tested += fam;
		c->family_tested[f] = fam;
		/* what one more flagged row would need (the step-up's next rank) */
		c->threshold[f] = fam ? fmin(o->q, o->q * (double)(k + 1) / (double)fam) : NAN;
		free(pf);
		free(rf);
	}
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];

		if (r->self_check && isfinite(r->ratio) && fabs(r->ratio - 1) > COMPARE_CAL_TOLERANCE)
			r->verdict = CMP_CALIBRATION;
		else if (rc[i])
			r->verdict = r->ratio > 1 ? CMP_REGRESSED : CMP_IMPROVED;
		else if (r->p_same <= o->q)
			r->verdict = CMP_SAME;
		if (!isnan(r->p))
			r->detect = compare_detect(r->se, r->df, log1p(r->margin), c->threshold[family(r)]);
		if (r->verdict == CMP_CANNOT_TELL && r->kind >= 0 && isfinite(r->se))
			r->more_runs = more_runs(c, r);
		count(c, r);
	}
	ret = decide_kinds(c, o, pc, rc);
	c->detect_hot = median_detect(c, true, pc);
	c->detect_pattern = median_detect(c, false, pc);
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
	row->kind = -1;
	row->state = NAN;
	row->verdict = in_b ? CMP_ONLY_B : CMP_ONLY_A;
	if (in_b)
		centre(rep, g, n, &row->b_ticks, &row->b_cycles, &row->b_ns);
	else
		centre(rep, g, n, &row->a_ticks, &row->a_cycles, &row->a_ns);
	figures_unknown(row);
}

/* A row's results less those of epochs run again (result_rerun), as the
 * run's own judgments leave them; all of them if that leaves none. */
static size_t settled(const struct report *rep, const struct result **g, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!result_rerun(rep, g[i]))
			g[k++] = g[i];
	return k ? k : n;
}

/* A side of a row against its epochs whose drift chain moved: the test
 * off in some process (DRIFT_OFF), every process keeping RESULT_DRIFT_KEEP
 * results whose chain held (DRIFT_HELD), or some process with the test on
 * keeping fewer (DRIFT_SHORT: the row was disturbed nearly throughout). */
enum drift_side { DRIFT_OFF, DRIFT_HELD, DRIFT_SHORT };

static enum drift_side drift_side(const struct report *rep, const struct result *const *g, size_t n)
{
	enum drift_side d = DRIFT_HELD;

	for (size_t i = 0; i < n; i++) {
		size_t held = 0;

		if (!report_drift_tells(rep, result_process(g[i]))) {
			d = d == DRIFT_SHORT ? d : DRIFT_OFF;
			continue;
		}
		for (size_t j = 0; j < n; j++)
			held += result_process(g[j]) == result_process(g[i]) && !result_drifted(rep, g[j]);
		if (held < RESULT_DRIFT_KEEP)
			d = DRIFT_SHORT;
	}
	return d;
}

/* Both sides of a row less their results whose drift chain moved, where
 * the test is on in every process of both and each keeps RESULT_DRIFT_KEEP
 * others. Where one side was disturbed nearly throughout and the other
 * was not, *disturbed: comparing them would compare a quiet core with a
 * disturbed one (on a busy host an A/A pair read x1.5 so). Else both
 * whole. Returns the results left out. */
static size_t undrift(const struct report *a, const struct result **ga, size_t *na,
		      const struct report *b, const struct result **gb, size_t *nb, bool *disturbed)
{
	enum drift_side da = drift_side(a, ga, *na), db = drift_side(b, gb, *nb);
	size_t out = 0;

	*disturbed = (da == DRIFT_SHORT) != (db == DRIFT_SHORT);
	if (da != DRIFT_HELD || db != DRIFT_HELD)
		return 0;
	for (int side = 0; side < 2; side++) {
		const struct report *rep = side ? b : a;
		const struct result **g = side ? gb : ga;
		size_t *n = side ? nb : na, k = 0;

		for (size_t i = 0; i < *n; i++)
			if (!result_drifted(rep, g[i]))
				g[k++] = g[i];
		out += *n - k;
		*n = k;
	}
	return out;
}

int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out)
{
	static const struct result *ga[MAX_PASSES], *gb[MAX_PASSES];
	size_t cap = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->fp_diffs = fingerprint_diff(&a->fp, &b->fp, NULL, NULL);
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
			bool disturbed = false;

			if (!compare_group_first(x, i))
				continue;
			for (size_t j = 0; j < y->n && !ny; j++)
				if (result_same_row(&x->r[i], &y->r[j]))
					ny = settled(y, gy, compare_group(y, j, gy, MAX_PASSES));
			if (in_b && ny)
				continue;
			row = add_row(out, &cap, &x->r[i]);
			if (!row)
				goto out;
			nx = settled(x, gx, compare_group(x, i, gx, MAX_PASSES));
			if (ny)	/* x is a here: in_b skipped rows both have */
				out->drifted += undrift(a, ga, &nx, b, gb, &ny, &disturbed);
			if (ny && compare_row(a, ga, nx, b, gb, ny, row) < 0)
				goto out;
			row->disturbed = ny && disturbed;
			row->unsettled |= row->disturbed;
			out->disturbed += row->disturbed;
			if (!ny)
				only(row, x, gx, nx, in_b);
			if (row->basis == BASIS_EPOCHS && (row->kind = kind_of(out, &x->r[i])) < 0)
				goto out;
		}
	}
	ret = fit_kinds(out);
	if (!ret)
		ret = decide(out, o);
out:
	if (ret < 0)
		compare_free(out);
	return ret;
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		side_free(&c->rows[i].sa);
		side_free(&c->rows[i].sb);
	}
	for (size_t k = 0; k < c->nkinds; k++)
		for (int side = 0; side < 2; side++) {
			free(c->kinds[k].eff[side]);
			free(c->kinds[k].peff[side]);
		}
	free(c->rows);
	free(c->kinds);
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
		if (r->disturbed)
			snprintf(buf, len, "cannot tell (one side disturbed: its drift chain moved in most epochs)");
		else if (r->unsettled && r->basis == BASIS_BLOCKS)
			snprintf(buf, len, "cannot tell (one process, no epochs)");
		else if (r->unsettled)
			snprintf(buf, len, "cannot tell (one process a side)");
		else if (isnan(r->detect))
			snprintf(buf, len, "cannot tell (median <= 0 or too few samples)");
		else {
			int w = snprintf(buf, len, r->detect < 10 ? "cannot tell below %.1f%%" : "cannot tell below %.0f%%",
					 r->detect * 100);

			if (r->more_runs && w > 0 && (size_t)w < len)
				snprintf(buf + w, len - (size_t)w,
					 r->more_runs == -2 ? " (>%d runs)" : r->more_runs == -1 ? " (at the margin)" :
					 r->more_runs == 1 ? " (+%d run)" : " (+%d runs)",
					 r->more_runs < 0 ? COMPARE_MAX_MORE_RUNS : r->more_runs);
		}
	}
}

size_t compare_kinds_regressed(const struct comparison *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nkinds; k++)
		n += c->kinds[k].verdict == CMP_REGRESSED;
	return n;
}

void compare_summary(const struct comparison *c, char *buf, size_t len)
{
	int w = snprintf(buf, len,
			 "summary: %zu rows: %zu regressed, %zu improved, %zu same, %zu cannot tell, %zu calibration problem%s, %zu in one report only",
			 c->n, c->regressed, c->improved, c->same, c->cannot_tell, c->calibration,
			 c->calibration == 1 ? "" : "s", c->unmatched);

	if (c->kinds_moved && w > 0 && (size_t)w < len)
		snprintf(buf + w, len - (size_t)w, "; %zu kind%s moved as a whole (%zu regressed)", c->kinds_moved,
			 c->kinds_moved == 1 ? "" : "s", compare_kinds_regressed(c));
}
