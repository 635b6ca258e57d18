/* SPDX-License-Identifier: MIT */
/* result.c - the report data model: adding results and pairing twins. */
#include "result.h"
#include "common.h"
#include "sections.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *rep)
{
	memset(rep, 0, sizeof(*rep));
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		result_release(&rep->r[i]);
	free(rep->r);
	json_decref(rep->topo);
	json_decref(rep->meta);
	fingerprint_free(&rep->fp);
	json_decref(rep->tool);
	json_decref(rep->sections);
	free(rep->hier);
	free(rep->split);
	c2c_out_free(rep->c2c);
	free(rep->c2c);
	free(rep->charz);
	free(rep->epochs);
	free(rep->kinds);
	free(rep->drift);
	memset(rep, 0, sizeof(*rep));
}

void result_release(struct result *r)
{
	free(r->samples);
	free(r->extra.disturbed_at);
	free(r->extra.contention.per);
	r->samples = NULL;
	r->extra.disturbed_at = NULL;
	r->extra.contention.per = NULL;
}

void result_move(struct result *d, struct result *s)
{
	*d = *s;
	s->samples = NULL;
	s->extra.disturbed_at = NULL;
	s->extra.contention.per = NULL;
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

int card_atomic_rank(const struct result *r)
{
	return !strcmp(r->atomicity, probe_atomicity_name(ATOMICITY_NONATOMIC)) ? 0 :
	       !strcmp(r->atomicity, probe_atomicity_name(ATOMICITY_LOCAL)) ? 1 : 2;
}

const struct contention_part *result_contention(const struct result *r)
{
	return r->extra.has & 1u << RX_CONTENTION ? &r->extra.contention : NULL;
}

double contention_max_min(const struct contention_part *c)
{
	long long lo = -1, hi = 0;

	for (size_t k = 0; k < c->nper; k++) {
		lo = lo < 0 || c->per[k].ops < lo ? c->per[k].ops : lo;
		hi = c->per[k].ops > hi ? c->per[k].ops : hi;
	}
	return lo > 0 ? (double)hi / (double)lo : hi ? INFINITY : 1;
}

bool contention_unfair(const struct contention_part *c)
{
	return contention_max_min(c) > CONTENTION_UNFAIR_MAX_MIN;
}

struct result *report_add(struct report *rep)
{
	if (rep->n == rep->cap) {
		size_t cap = rep->cap ? rep->cap * 2 : 64;
		struct result *r = realloc(rep->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		rep->r = r;
		rep->cap = cap;
	}
	memset(&rep->r[rep->n], 0, sizeof(rep->r[0]));
	return &rep->r[rep->n++];
}

const struct result *report_find(const struct report *rep, const char *name,
				 enum probe_mode mode, const char *pattern, enum result_context ctx)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];

		if (r->mode == mode && r->context == ctx && !strcmp(r->name, name) &&
		    !strcmp(r->pattern, pattern))
			return r;
	}
	return NULL;
}

static const char *const clock_names[] = {
	[RESULT_CLOCK_NONE] = "none", [RESULT_CLOCK_CHAIN] = "drift_chain",
	[RESULT_CLOCK_PMU] = "pmu_cycles",
};

const char *result_clock_name(enum result_clock c)
{
	return vocab_name(clock_names, ARRAY_SIZE(clock_names), c);
}

int result_clock_parse(const char *s, enum result_clock *out)
{
	int c = vocab_index(clock_names, ARRAY_SIZE(clock_names), s);

	if (c >= 0)
		*out = (enum result_clock)c;
	return c < 0 ? c : 0;
}

void result_rescale(struct result *r, double k)
{
	for (size_t j = 0; j < r->nsamples; j++)
		r->samples[j] *= k;
	for (unsigned j = 0; j < r->nsweep; j++) {
		r->sweep[j].min *= k;
		r->sweep[j].p10 *= k;
		r->sweep[j].median *= k;
		r->sweep[j].p90 *= k;
	}
	r->min_bound_ticks *= k;
	r->clock_scale *= k;
	for (size_t j = 0; j < r->extra.mix.nstates; j++)
		r->extra.mix.state[j].value *= k;
	if (r->nsamples)
		stats_summarize(r->samples, r->nsamples, &r->s);
}

bool result_same_row(const struct result *x, const struct result *y)
{
	return x->mode == y->mode && !strcmp(x->name, y->name) && !strcmp(x->pattern, y->pattern) &&
	       x->context == y->context;
}

const char *result_context_name(enum result_context c)
{
	return c == RESULT_KERNEL ? "kernel" : "user";
}

bool report_row_emulated(const struct report *rep, const struct result *r)
{
	return rep->cal.emulated || ((r->extra.has & 1u << RX_NOTE) && strstr(r->extra.note, RESULT_EMULATED_NOTE));
}

/* The row of probe name in r's mode, pattern, context and epoch (with
 * samples, if sampled), or NULL. */
static const struct result *epoch_row(const struct report *rep, const char *name,
				      const struct result *r, bool sampled)
{
	for (size_t j = 0; j < rep->n; j++) {
		const struct result *c = &rep->r[j];

		if (c->mode == r->mode && c->context == r->context && !strcmp(c->name, name) &&
		    !strcmp(c->pattern, r->pattern) && result_epoch(c) == result_epoch(r) &&
		    (c->nsamples || !sampled))
			return c;
	}
	return NULL;
}

bool result_rerun(const struct report *rep, const struct result *r)
{
	for (size_t i = 0; i < rep->nepochs; i++)
		if (rep->epochs[i].rerun && rep->epochs[i].epoch == result_epoch(r) &&
		    !strcmp(rep->epochs[i].step, r->extra.step))
			return true;
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static bool chained(const struct result *r, int proc)
{
	return r->clock_source == RESULT_CLOCK_CHAIN && r->clock_scale > 0 && result_process(r) == proc;
}

/* The drift chain's usual speed in process proc: the fastest clock_scale
 * that RESULT_DRIFT_USUAL of its results share (within RESULT_DRIFT_FLOOR
 * of it, log scale; their median), over RESULT_DRIFT_MIN_ROWS results or
 * more; NAN otherwise. A disturbance only slows the chain, so its usual
 * speed is the fastest that recurs, even where most results were
 * disturbed (a busy host: 35-59% of a run's results at it). */
static double drift_usual(const struct report *rep, int proc, double *v)
{
	size_t k = 0, lo, hi;

	for (size_t i = 0; i < rep->n; i++)
		if (chained(&rep->r[i], proc))
			v[k++] = log(rep->r[i].clock_scale);
	if (k < RESULT_DRIFT_MIN_ROWS)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	lo = hi = k;
	for (size_t i = k; i-- > 0;) {
		while (lo > 0 && v[lo - 1] >= v[i] - RESULT_DRIFT_FLOOR)
			lo--;
		while (hi > i + 1 && v[hi - 1] > v[i] + RESULT_DRIFT_FLOOR)
			hi--;
		if ((double)(hi - lo) >= RESULT_DRIFT_USUAL * (double)k)
			return exp(stats_median(v + lo, hi - lo));
	}
	return NAN;
}

/* Whether the chain's moves tell disturbance in process proc: over its
 * rows, an epoch whose chain moved from centre sits RESULT_DRIFT_TELLS
 * times further from the median of its row's held epochs than a held
 * epoch does (medians over the rows), and RESULT_DRIFT_MIN_DEV or more.
 * Where the chain follows the clock (the Intel guest: steps of 2.7-11%,
 * rescaled away) the moved ones sit no further. Every row of the process
 * speaks, so one row's own figures hardly move it. Under
 * RESULT_DRIFT_MIN_MOVED moves the chain held: on, so that a quiet side
 * compares like with like with one whose disturbed epochs are left out. */
static bool drift_tells(const struct report *rep, int proc, double centre, double *held, double *moved)
{
	size_t nh = 0, nm = 0, nmoved = 0;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		double h[JUDGE_MAX_EPOCHS], m[JUDGE_MAX_EPOCHS], c;
		size_t kh = 0, km = 0, first = i;

		if (!chained(r, proc) || !(r->s.median > 0) || !result_epoch(r))
			continue;
		nmoved += fabs(r->clock_scale / centre - 1) > RESULT_DRIFT_FLOOR;
		for (size_t j = 0; j < rep->n && first == i; j++)	/* each row once */
			if (j < i && chained(&rep->r[j], proc) && rep->r[j].s.median > 0 &&
			    result_epoch(&rep->r[j]) && result_same_row(r, &rep->r[j]))
				first = j;
		if (first != i)
			continue;
		for (size_t j = i; j < rep->n; j++) {
			const struct result *x = &rep->r[j];

			if (!chained(x, proc) || !(x->s.median > 0) || !result_epoch(x) || !result_same_row(r, x))
				continue;
			if (fabs(x->clock_scale / centre - 1) > RESULT_DRIFT_FLOOR) {
				if (km < JUDGE_MAX_EPOCHS)
					m[km++] = log(x->s.median);
			} else if (kh < JUDGE_MAX_EPOCHS) {
				h[kh++] = log(x->s.median);
			}
		}
		if (!kh)
			continue;
		c = stats_median(h, kh);
		for (size_t j = 0; j < km; j++)
			moved[nm++] = fabs(m[j] - c);
		for (size_t j = 0; kh >= 2 && j < kh; j++)
			held[nh++] = fabs(h[j] - c);
	}
	if (nmoved < RESULT_DRIFT_MIN_MOVED)
		return true;	/* the chain held: a few moves say nothing either way */
	if (nm < RESULT_DRIFT_MIN_MOVED)
		return false;
	return stats_median(moved, nm) >= fmax(nh ? RESULT_DRIFT_TELLS * stats_median(held, nh) : 0,
					     RESULT_DRIFT_MIN_DEV);
}

static void drift_fit(struct report *rep)
{
	double *v = malloc((rep->n + 1) * sizeof(*v)), *w = malloc((rep->n + 1) * sizeof(*w));
	int procs = 1;

	for (size_t i = 0; i < rep->n; i++)
		procs = rep->r[i].extra.process > procs ? rep->r[i].extra.process : procs;
	free(rep->drift);
	rep->ndrift = 0;
	rep->drift = v && w ? malloc((size_t)procs * sizeof(*rep->drift)) : NULL;
	for (int p = 1; rep->drift && p <= procs; p++) {
		double c = drift_usual(rep, p, v);

		rep->drift[rep->ndrift++] = !isnan(c) && drift_tells(rep, p, c, v, w) ? c : NAN;
	}
	free(v);
	free(w);
}

bool report_drift_tells(const struct report *rep, int proc)
{
	return proc >= 1 && (size_t)proc <= rep->ndrift && !isnan(rep->drift[proc - 1]);
}

bool result_drifted(const struct report *rep, const struct result *r)
{
	size_t p = (size_t)result_process(r);

	return r->clock_source == RESULT_CLOCK_CHAIN && r->clock_scale > 0 && p <= rep->ndrift &&
	       fabs(r->clock_scale / rep->drift[p - 1] - 1) > RESULT_DRIFT_FLOOR;
}

/* The per-epoch costs (core cycles) of a (x) and b (y) in the epochs both
 * ran in, an epoch run again left out, and one whose drift chain moved on
 * either side where RESULT_DRIFT_KEEP others remain; where fewer remain
 * the row was disturbed nearly throughout: all kept, *disturbed (its
 * verdict is unresolved, as compare leaves such a row untested). Returns
 * how many. */
static size_t judge_pairs(const struct report *rep, enum result_context ctx, const char *a, const char *b,
			  enum probe_mode m, const char *pattern, double *x, double *y, bool *disturbed)
{
	bool moved[JUDGE_MAX_EPOCHS];
	size_t n = 0, clean = 0, k = 0;

	for (size_t i = 0; i < rep->n && n < JUDGE_MAX_EPOCHS; i++) {
		const struct result *r = &rep->r[i], *t;

		if (r->mode != m || strcmp(r->name, a) || strcmp(r->pattern, pattern) || !r->nsamples ||
		    r->context != ctx || result_rerun(rep, r) || !(t = epoch_row(rep, b, r, true)))
			continue;
		moved[n] = result_drifted(rep, r) || result_drifted(rep, t);
		clean += !moved[n];
		x[n] = result_cycles(rep, r->s.median);
		y[n++] = result_cycles(rep, t->s.median);
	}
	*disturbed = clean < RESULT_DRIFT_KEEP && clean < n;
	if (clean < RESULT_DRIFT_KEEP)
		return n;
	for (size_t i = 0; i < n; i++)
		if (!moved[i]) {
			x[k] = x[i];
			y[k++] = y[i];
		}
	return k;
}

/* The kind of rows in ctx, mode m under pattern: its index in rep->kinds,
 * added when add is set; -1 when absent (or ENOMEM). */
static ssize_t judge_kind(struct report *rep, enum result_context ctx, enum probe_mode m,
			  const char *pattern, bool add)
{
	struct judge_kind *k;

	for (size_t i = 0; i < rep->nkinds; i++)
		if (rep->kinds[i].ctx == ctx && rep->kinds[i].mode == m && !strcmp(rep->kinds[i].pattern, pattern))
			return (ssize_t)i;
	if (!add || !(k = realloc(rep->kinds, (rep->nkinds + 1) * sizeof(*k))))
		return -1;
	rep->kinds = k;
	k = &k[rep->nkinds];
	*k = (struct judge_kind){ .ctx = ctx, .mode = m };
	snprintf(k->pattern, sizeof(k->pattern), "%s", pattern);
	return (ssize_t)rep->nkinds++;
}

size_t report_judge(const struct report *rep, enum result_context ctx, const char *a, const char *b,
		    enum probe_mode m, const char *pattern, struct judgment *j)
{
	double x[JUDGE_MAX_EPOCHS], y[JUDGE_MAX_EPOCHS];
	bool disturbed;
	size_t n = judge_pairs(rep, ctx, a, b, m, pattern, x, y, &disturbed);
	ssize_t k = judge_kind((struct report *)rep, ctx, m, pattern, false);

	stats_judge_prior(x, y, n, k >= 0 ? &rep->kinds[k].prior : NULL, j);
	if (disturbed && j->v != VERDICT_NONE) {
		j->v = VERDICT_UNRESOLVED;
		j->disturbed = true;
	}
	return n;
}

double report_median_cycles(const struct report *rep, const char *name, enum probe_mode m,
			    const char *pattern)
{
	double v[JUDGE_MAX_EPOCHS];
	size_t n = 0;

	for (size_t i = 0; i < rep->n && n < JUDGE_MAX_EPOCHS; i++) {
		const struct result *r = &rep->r[i];

		if (r->mode == m && !strcmp(r->name, name) && !strcmp(r->pattern, pattern) && r->nsamples &&
		    r->context == RESULT_USER)
			v[n++] = result_cycles(rep, r->s.median);
	}
	return n ? stats_median(v, n) : NAN;
}

int result_mixture(const struct report *rep, const struct result *r, const double *v, size_t n,
		   struct mixture *m)
{
	double gap = JUDGE_MARGIN_ABS * rep->cal.ticks_per_cycle;

	return stats_mixture(v, n, r->ops_per_sample ? 1.0 / (double)r->ops_per_sample : 0,
			     gap > 0 ? gap : 0, m);
}

/* The states of the row's samples over every epoch (report_row). */
static void row_mixture(const struct report *rep, const struct result *const *g, size_t n, struct report_row *w)
{
	double *all = w->samples ? malloc(w->samples * sizeof(*all)) : NULL;
	size_t k = 0;

	memset(&w->mix, 0, sizeof(w->mix));
	if (!all)
		return;
	for (size_t e = 0; e < n; e++) {
		memcpy(all + k, g[e]->samples, g[e]->nsamples * sizeof(*all));
		k += g[e]->nsamples;
	}
	result_mixture(rep, g[0], all, k, &w->mix);
	free(all);
}

void report_row(const struct report *rep, size_t i, struct report_row *w)
{
	static const struct result *g[1000];
	double med[1000], p10[1000], p90[1000];
	size_t n = compare_group(rep, i, g, ARRAY_SIZE(g));

	*w = (struct report_row){ .epochs = n, .min = INFINITY, .lo = INFINITY, .hi = -INFINITY,
				  .ratio_lo = INFINITY, .ratio_hi = -INFINITY };
	for (size_t k = 0; k < n; k++) {
		const struct result *r = g[k];

		med[k] = r->s.median;
		p10[k] = r->s.p10;
		p90[k] = r->s.p90;
		w->min = fmin(w->min, r->s.min);
		w->samples += r->nsamples;
		w->disturbed = w->disturbed < 0 || r->disturbed < 0 ? -1 : w->disturbed + r->disturbed;
		w->lo = fmin(w->lo, n > 1 ? r->s.median : r->s.ci_lo);
		w->hi = fmax(w->hi, n > 1 ? r->s.median : r->s.ci_hi);
		if (r->has_ratio) {
			w->ratio_lo = fmin(w->ratio_lo, n > 1 ? r->ratio : r->ratio_lo);
			w->ratio_hi = fmax(w->ratio_hi, n > 1 ? r->ratio : r->ratio_hi);
		}
	}
	w->median = stats_median(med, n);
	w->p10 = stats_median(p10, n);
	w->p90 = stats_median(p90, n);
	row_mixture(rep, g, n, w);
}

bool report_pair_lead(const struct result *r, const struct result *t)
{
	int a = card_atomic_rank(r), b = t ? card_atomic_rank(t) : 0;

	return !t || strcmp(t->twin, r->name) || b < a || (b == a && r <= t);
}

/* Judge the row of rep->r[i] (its first result) against its twin over the
 * epochs, and give every result of the row the judgment and the spread of
 * its own epoch medians. */
static void judge_row(struct report *rep, size_t i)
{
	const struct result *r0 = &rep->r[i], *t = epoch_row(rep, r0->twin, r0, false);
	double own[JUDGE_MAX_EPOCHS];
	struct judgment j;
	size_t k = 0;

	for (size_t e = i; e < rep->n && k < JUDGE_MAX_EPOCHS; e++)
		if (result_same_row(&rep->r[e], r0) && rep->r[e].nsamples)
			own[k++] = rep->r[e].s.median;
	if (r0->has_ratio)
		report_judge(rep, r0->context, r0->name, r0->twin, r0->mode, r0->pattern, &j);
	if (r0->has_ratio && (r0->analog || (t && t->analog)))
		j.v = VERDICT_NONE;
	for (size_t e = i; e < rep->n; e++)
		if (result_same_row(&rep->r[e], r0)) {
			rep->r[e].epoch_spread = stats_rel_sd(own, k);
			if (r0->has_ratio)
				rep->r[e].judge = j;
		}
}

/* A row judged against its twin: the first of its group, with a ratio,
 * neither side an analog. */
static bool judged(const struct report *rep, size_t i)
{
	const struct result *r = &rep->r[i], *t;

	if (!r->has_ratio || r->analog || !compare_group_first(rep, i))
		return false;
	t = epoch_row(rep, r->twin, r, false);
	return !(t && t->analog);
}

/* Each kind's prior from the spreads of its judged rows (none where fewer
 * than STATS_PRIOR_MIN_ROWS rows have one; ENOMEM: no priors at all). */
static void fit_priors(struct report *rep)
{
	double *s2 = malloc((rep->n + 1) * sizeof(*s2)), *df = malloc((rep->n + 1) * sizeof(*df));
	ssize_t *kind = malloc((rep->n + 1) * sizeof(*kind));
	size_t m = 0;

	rep->nkinds = 0;
	for (size_t i = 0; i < rep->n && s2 && df && kind; i++) {
		const struct result *r = &rep->r[i];
		double x[JUDGE_MAX_EPOCHS], y[JUDGE_MAX_EPOCHS];
		size_t n;

		if (!judged(rep, i))
			continue;
		bool disturbed;

		n = judge_pairs(rep, r->context, r->name, r->twin, r->mode, r->pattern, x, y, &disturbed);
		kind[m] = judge_kind(rep, r->context, r->mode, r->pattern, true);
		df[m] = stats_judge_spread(x, y, n, &s2[m]);
		m += kind[m] >= 0 && df[m] > 0 && !disturbed;	/* its spread is the disturbance's */
	}
	for (size_t k = 0; k < rep->nkinds; k++) {
		size_t n = 0;

		/* this kind's rows to the front of copies: s2 and df hold
		 * every kind's, in row order */
		double *ks = malloc((m + 1) * sizeof(*ks)), *kd = malloc((m + 1) * sizeof(*kd));

		for (size_t i = 0; i < m && ks && kd; i++)
			if (kind[i] == (ssize_t)k) {
				ks[n] = s2[i];
				kd[n++] = df[i];
			}
		if (ks && kd)
			stats_prior_fit(ks, kd, n, &rep->kinds[k].prior);
		free(ks);
		free(kd);
	}
	free(s2);
	free(df);
	free(kind);
}

/* Ratio of medians within one epoch, with an interval from the two
 * medians' CIs: [lo_a / hi_b, hi_a / lo_b], printed for reference only.
 * The verdict comes from the epochs (stats_judge): samples within one
 * epoch are serially correlated and share its buffers, pages and
 * calibration, and their intervals understate the noise between epochs.
 * An analog on either side gets no verdict. */
void report_pair_twins(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct result *r = &rep->r[i];
		const struct result *t;

		r->has_ratio = false;
		r->judge = (struct judgment){ .v = VERDICT_NONE };
		r->epoch_spread = NAN;
		/* the states, unless known (read back, or found before a rescale) */
		if (!(r->extra.has & 1u << RX_MIXTURE) &&
		    result_mixture(rep, r, r->samples, r->nsamples, &r->extra.mix) > 1)
			r->extra.has |= 1u << RX_MIXTURE;
		if (!r->twin[0] || !r->nsamples)
			continue;
		t = epoch_row(rep, r->twin, r, false);
		if (!t || !t->nsamples || t->s.median <= 0 || t->s.ci_lo <= 0 || r->no_insn || t->no_insn)
			continue;	/* no ratio to or of an op that is no instruction */
		r->has_ratio = true;
		r->ratio = r->s.median / t->s.median;
		r->ratio_lo = r->s.ci_lo / t->s.ci_hi;
		r->ratio_hi = r->s.ci_hi / t->s.ci_lo;
	}
	drift_fit(rep);
	fit_priors(rep);
	for (size_t i = 0; i < rep->n; i++)
		if (compare_group_first(rep, i))
			judge_row(rep, i);
}

void result_judgment_text(const struct result *r, char *buf, size_t len)
{
	const struct judgment *j = &r->judge;

	if (r->no_insn)
		snprintf(buf, len, "%s", RESULT_NO_INSN);
	else if (!r->has_ratio)
		snprintf(buf, len, "%s", "");
	else if (j->v == VERDICT_NONE)
		snprintf(buf, len, "analog");
	else if (j->v == VERDICT_SLOWER || j->v == VERDICT_FASTER)
		snprintf(buf, len, "%s %+.1f cyc", stats_verdict_name(j->v), j->diff);
	else if (j->v == VERDICT_SAME)
		snprintf(buf, len, "same (%.0f%%)", j->margin * 100);
	else if (j->disturbed)
		snprintf(buf, len, "unresolved (disturbed)");
	else if (j->n < 2)
		snprintf(buf, len, "unresolved (1 epoch)");
	else
		snprintf(buf, len, "unresolved (%zu ep, %.1f%%)", j->n, j->spread * 100);
}


/* ---- the sections as the card and the writers read them (sections.h,
 * card.h): 0, NAN and "?" where a report says nothing. Strings point into
 * the report. */

void c2c_out_free(struct c2c_out *o)
{
	if (!o)
		return;
	free(o->pairs);
	free(o->matrix.cpus);
	for (int m = 0; m < C2C__COUNT; m++)
		free(o->matrix.v[m]);
	o->pairs = NULL;
	o->matrix.cpus = NULL;
	memset(o->matrix.v, 0, sizeof(o->matrix.v));
}

static double had(unsigned has, unsigned key, double v)
{
	return has & 1u << key ? v : NAN;
}

size_t report_epochs(const struct report *rep, struct epoch_meta *e, size_t max)
{
	size_t n;

	for (n = 0; n < rep->nepochs && n < max; n++) {
		const struct epoch_out *o = &rep->epochs[n];

		e[n] = (struct epoch_meta){
			.epoch = o->epoch, .ticks_per_cycle = had(o->has, EP_TICKS_PER_CYCLE, o->ticks_per_cycle),
			.timer_hz = had(o->has, EP_TIMER_HZ, o->timer_hz),
			.cpu_share = had(o->has, EP_CPU_SHARE, o->cpu_share),
		};
	}
	return n;
}

const char *hier_level_name(const struct hier_level_out *l)
{
	return l->has & 1u << HL_LEVEL ? l->level : "?";
}

bool hier_level_disagrees(const struct hier_level_out *l)
{
	return l->has & 1u << HL_AGREES && !l->agrees;
}

/* Against the report's aligned atomic_inc hit latency row (the session
 * puts it in the section as the denominator), in older reports the
 * probe's own aligned ops. */
void report_split(const struct report *rep, struct card_split *s)
{
	const struct splitlock_section *sl = rep->split;
	bool den = sl && sl->has & 1u << SL_DENOMINATOR;

	if (!sl)
		return;
	s->state = sl->has & 1u << SL_SKIPPED ? CARD_SPLIT_SKIPPED : !sl->supported ? CARD_SPLIT_UNSUPPORTED :
		   sl->sigbus ? CARD_SPLIT_SIGBUS : CARD_SPLIT_MEASURED;
	s->skipped = sl->has & 1u << SL_SKIPPED ? sl->skipped : NULL;
	s->has_kernel = sl->has & 1u << SL_KERNEL;
	s->kernel_why = sl->kernel.has & 1u << SLK_WHY ? sl->kernel.why : NULL;
	s->split_ns = sl->split_ns;
	s->aligned_ns = den ? sl->ratio_denominator.ns : sl->aligned_ns;
	s->ratio = sl->ratio;
	s->vs_atomic_inc = den && strstr(sl->ratio_denominator.what, "atomic_inc");
}

void report_machine(const struct report *rep, struct card_machine *m)
{
	const struct fingerprint *fp = &rep->fp;
	const struct fingerprint_fact *flag = fingerprint_find(fp, "hypervisor.cpuid_flag");

	*m = (struct card_machine){
		.cpu = fingerprint_str(fp, "cpu.model_name", "?"), .family = fingerprint_str(fp, "cpu.family", "?"),
		.model = fingerprint_str(fp, "cpu.model", "?"), .microcode = fingerprint_str(fp, "cpu.microcode", "?"),
		.sysname = fingerprint_str(fp, "kernel.sysname", "?"),
		.release = fingerprint_str(fp, "kernel.release", "?"),
		.vm = !fingerprint_find(fp, "hypervisor") ? -1 : flag && flag->kind == FP_TRUE,
		.host = fingerprint_str(fp, "host", NULL), .tool_version = fingerprint_str(fp, "tool_version", NULL),
	};
}
