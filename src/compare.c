/* SPDX-License-Identifier: MIT */
/* compare.c - the change between two reports, and whether it is real.
 * The decision rule is in compare.h and docs/reports.md; it is conservative
 * on purpose: a tool that cries "regressed 2%" on noise teaches its users
 * to ignore it. Times are compared in core cycles: ns carry each run's
 * clock (a core that ran faster in B is not a change of the code), and
 * the calibration's own wobble between the two reports widens the floor
 * instead of being read as a change. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fingerprint.h"
#include "report.h"

#define MAX_PASSES 1000

void compare_default_opts(struct compare_opts *o)
{
	o->noise_floor = COMPARE_NOISE_FLOOR;
	o->min_change = NOISE_FLOOR_MIN;
	o->alpha = COMPARE_ALPHA;
}

static bool same_row(const struct result *x, const struct result *y)
{
	return x->mode == y->mode && !strcmp(x->name, y->name) && !strcmp(x->pattern, y->pattern);
}

size_t compare_group(const struct report *rep, size_t i, const struct result **out, size_t max)
{
	size_t n = 0;

	for (size_t j = 0; j < rep->n; j++)
		if (same_row(&rep->r[i], &rep->r[j])) {
			if (n < max)
				out[n] = &rep->r[j];
			n++;
		}
	return n < max ? n : max;
}

bool compare_group_first(const struct report *rep, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_row(&rep->r[i], &rep->r[j]))
			return false;
	return true;
}

int compare_max_epoch(const struct report *rep)
{
	int m = 0;

	for (size_t i = 0; i < rep->n; i++)
		if (result_epoch(&rep->r[i]) > m)
			m = result_epoch(&rep->r[i]);
	return m;
}

/* t(0.975, df) for df = 1..30; beyond, the Cornish-Fisher expansion. */
double compare_t975(double df)
{
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z;

	if (!(df >= 1))
		return t[0];
	if (df <= 30)
		return t[(int)floor(df) - 1];	/* floor: the wider quantile */
	return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

static void mean_var_log(const double *v, size_t n, double *mean, double *var)
{
	double m = 0, s = 0;

	for (size_t i = 0; i < n; i++)
		m += log(v[i]);
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		s += (log(v[i]) - m) * (log(v[i]) - m);
	*mean = m;
	*var = s / (double)(n - 1);
}

int compare_welch(const double *a, size_t na, const double *b, size_t nb,
		  double *ratio, double *lo, double *hi, double *p)
{
	double ma, va, mb, vb, qa, qb, se, df, d;

	if (na < 2 || nb < 2)
		return -EINVAL;
	for (size_t i = 0; i < na; i++)
		if (!(a[i] > 0))
			return -EINVAL;
	for (size_t i = 0; i < nb; i++)
		if (!(b[i] > 0))
			return -EINVAL;
	mean_var_log(a, na, &ma, &va);
	mean_var_log(b, nb, &mb, &vb);
	qa = va / (double)na;
	qb = vb / (double)nb;
	se = sqrt(qa + qb);
	d = mb - ma;
	/* Welch-Satterthwaite; identical replicates (se 0) give the pooled df */
	df = se > 0 ? (qa + qb) * (qa + qb) /
			      (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1))
		    : (double)(na + nb - 2);
	*ratio = exp(d);
	*lo = exp(d - compare_t975(df) * se);
	*hi = exp(d + compare_t975(df) * se);
	*p = se > 0 ? stats_t_pvalue(d / se, df) : (d == 0 ? 1.0 : 0.0);
	return 0;
}

int compare_process(const struct result *r)
{
	json_t *p = json_object_get(r->extra, "process");

	return json_is_integer(p) ? (int)json_integer_value(p) : 1;
}

int compare_max_process(const struct report *rep)
{
	int m = 1;

	for (size_t i = 0; i < rep->n; i++)
		if (compare_process(&rep->r[i]) > m)
			m = compare_process(&rep->r[i]);
	return m;
}

static int set_int(struct result *r, const char *key, int v)
{
	if (!r->extra)
		r->extra = json_object();
	if (!r->extra || json_object_set_new(r->extra, key, json_integer(v)) < 0)
		return -ENOMEM;
	return 0;
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

		if (json_object_get(r->extra, "process"))
			continue;
		if (set_int(r, "process", 1) < 0 ||
		    set_int(r, "epoch", result_epoch(r) ? result_epoch(r) : 1) < 0)
			return -ENOMEM;
	}
	base = compare_max_epoch(into);
	proc = compare_max_process(into) + 1;
	for (size_t i = 0; i < from->n; i++) {
		struct result *s = &from->r[i], *d = report_add(into);
		int pass = result_epoch(s);

		if (!d)
			return -ENOMEM;
		*d = *s;
		s->samples = NULL;
		s->extra = NULL;
		/* onto into's clock, as --epochs does for its later passes:
		 * cycles (ticks / ticks per cycle) are unchanged */
		result_rescale(d, k);
		if (set_int(d, "process", proc) < 0 || set_int(d, "epoch", base + (pass ? pass : 1)) < 0)
			return -ENOMEM;
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

static size_t group_processes(const struct result *const *g, size_t n)
{
	int m = 0;

	for (size_t i = 0; i < n; i++)
		if (compare_process(g[i]) > m)
			m = compare_process(g[i]);
	return (size_t)m;
}

/* Every result of the group reached its CI target. */
static bool group_settled(const struct result *const *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!g[i]->ci_reached)
			return false;
	return true;
}

/* Replicates of a row in core cycles, for the given basis: one per
 * process (median of its pass medians), one per pass, or COMPARE_BLOCKS
 * block medians of each pass's time-ordered samples. */
static size_t replicates(const struct report *rep, const struct result *const *g, size_t n,
			 enum compare_basis basis, double *out, size_t max)
{
	size_t k = 0;

	if (basis == BASIS_PROCESSES) {
		size_t np = group_processes(g, n);

		for (size_t p = 1; p <= np && k < max; p++) {
			double m[MAX_PASSES];
			size_t c = 0;

			for (size_t i = 0; i < n; i++)
				if ((size_t)compare_process(g[i]) == p)
					m[c++] = g[i]->s.median;
			if (c)
				out[k++] = result_cycles(rep, stats_median(m, c));
		}
		return k;
	}
	for (size_t i = 0; i < n && k < max; i++) {
		size_t ns = g[i]->nsamples, nb = COMPARE_BLOCKS, len;

		if (basis == BASIS_EPOCHS) {
			out[k++] = result_cycles(rep, g[i]->s.median);
			continue;
		}
		if (ns < 2 * nb)
			nb = ns / 2;
		if (nb < 1)
			continue;
		len = ns / nb;
		for (size_t b = 0; b < nb && k < max; b++)
			out[k++] = result_cycles(rep, stats_median(g[i]->samples + b * len, len));
	}
	return k;
}

static int compare_row(const struct report *a, const struct result *const *ga, size_t na,
		       const struct report *b, const struct result *const *gb, size_t nb,
		       const struct compare_opts *o, struct comparison *c, struct compare_row *row)
{
	static double ra[MAX_PASSES * COMPARE_BLOCKS], rb[MAX_PASSES * COMPARE_BLOCKS];
	size_t pa = group_processes(ga, na), pb = group_processes(gb, nb);
	double base;
	int ret;

	row->a_ticks = group_median(ga, na);
	row->b_ticks = group_median(gb, nb);
	row->a_ns = result_ns(a, row->a_ticks);
	row->b_ns = result_ns(b, row->b_ticks);
	row->a_cycles = result_cycles(a, row->a_ticks);
	row->b_cycles = result_cycles(b, row->b_ticks);
	row->self_check = self_check(ga[0]);
	if (pa < 2 || pb < 2)
		row->unsettled = !group_settled(ga, na) || !group_settled(gb, nb) ||
				 strcmp(ga[0]->pattern, "hit");
	if (pa >= 2 && pb >= 2) {
		row->basis = BASIS_PROCESSES;
		base = fmax(o->min_change, NOISE_FLOOR_MIN);
	} else {
		row->basis = na >= 2 && nb >= 2 ? BASIS_EPOCHS : BASIS_BLOCKS;
		base = fmax(o->noise_floor, NOISE_FLOOR_MIN);
	}
	row->a_reps = replicates(a, ga, na, row->basis, ra, ARRAY_SIZE(ra));
	row->b_reps = replicates(b, gb, nb, row->basis, rb, ARRAY_SIZE(rb));
	row->floor = sqrt(base * base + c->cal_shift * c->cal_shift);
	row->p = NAN;
	if (!(row->a_cycles > 0) || !(row->b_cycles > 0)) {
		/* a zero or negative median (the empty probe): no ratio */
		row->ratio = row->lo = row->hi = NAN;
		row->basis = BASIS_NONE;
		return 0;
	}
	ret = compare_welch(ra, row->a_reps, rb, row->b_reps, &row->ratio, &row->lo, &row->hi, &row->p);
	if (ret == -EINVAL) {
		row->lo = row->hi = row->p = NAN;
		ret = 0;
	}
	if (ret < 0)
		return ret;
	/* The centre is the ratio of the medians, so the change printed
	 * agrees with the A and B columns; the width stays the replicates'. */
	if (isfinite(row->lo)) {
		double w = row->ratio;

		row->ratio = row->b_cycles / row->a_cycles;
		row->lo *= row->ratio / w;
		row->hi *= row->ratio / w;
	} else {
		row->ratio = row->b_cycles / row->a_cycles;
	}
	return 0;
}

static struct compare_row *add_row(struct comparison *c, size_t *cap)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct compare_row *r = realloc(c->rows, ncap * sizeof(*r));

		if (!r)
			return NULL;
		c->rows = r;
		*cap = ncap;
	}
	memset(&c->rows[c->n], 0, sizeof(c->rows[0]));
	return &c->rows[c->n++];
}

static void ident(struct compare_row *row, const struct result *r)
{
	snprintf(row->name, sizeof(row->name), "%s", r->name);
	snprintf(row->pattern, sizeof(row->pattern), "%s", r->pattern);
	row->mode = r->mode;
}

/* Verdicts: self-checks first (a moved one widens every floor), then the
 * Holm-Bonferroni step-down over the p-values of the other rows. */
static int decide(struct comparison *c, const struct compare_opts *o)
{
	double *p = NULL, check = 0;
	bool *rej = NULL;
	int ret = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];

		if (r->self_check && r->basis != BASIS_NONE && isfinite(r->ratio))
			check = fmax(check, fabs(r->ratio - 1));
	}
	c->check_shift = check;
	p = malloc((c->n ? c->n : 1) * sizeof(*p));
	rej = malloc((c->n ? c->n : 1) * sizeof(*rej));
	if (!p || !rej) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];
		bool tested = r->verdict != CMP_ONLY_A && r->verdict != CMP_ONLY_B &&
			      r->basis != BASIS_NONE && !r->self_check && !r->unsettled && isfinite(r->p);

		if (r->verdict != CMP_ONLY_A && r->verdict != CMP_ONLY_B)
			r->floor = sqrt(r->floor * r->floor + check * check);
		p[i] = tested ? r->p : NAN;
		c->tested += tested;
	}
	ret = stats_holm(p, c->n, o->alpha, rej);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		struct compare_row *r = &c->rows[i];

		if (r->verdict == CMP_ONLY_A || r->verdict == CMP_ONLY_B) {
			c->unmatched++;
			continue;
		}
		if (r->self_check && isfinite(r->ratio) && fabs(r->ratio - 1) > COMPARE_CAL_TOLERANCE)
			r->verdict = CMP_CALIBRATION;
		else if (r->unsettled && !r->self_check)
			r->verdict = CMP_UNSETTLED;
		else if (rej[i] && fabs(log(r->ratio)) > log1p(r->floor) &&
			 fabs(r->b_cycles - r->a_cycles) > COMPARE_ABS_FLOOR)
			r->verdict = r->ratio > 1 ? CMP_REGRESSED : CMP_IMPROVED;
		else
			r->verdict = CMP_SAME;
		switch (r->verdict) {
		case CMP_IMPROVED:
			c->improved++;
			break;
		case CMP_REGRESSED:
			c->regressed++;
			break;
		case CMP_CALIBRATION:
			c->calibration++;
			break;
		case CMP_UNSETTLED:
			c->unsettled++;
			break;
		default:
			c->same++;
		}
	}
out:
	free(p);
	free(rej);
	return ret;
}

int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out)
{
	static const struct result *ga[MAX_PASSES], *gb[MAX_PASSES];
	size_t cap = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fp_diffs = fingerprint_diff(fingerprint_of_meta(a->meta), fingerprint_of_meta(b->meta),
					 NULL, NULL);
	out->alpha = o->alpha;
	out->a_procs = compare_max_process(a);
	out->b_procs = compare_max_process(b);
	out->base_floor = out->a_procs >= 2 && out->b_procs >= 2 ? fmax(o->min_change, NOISE_FLOOR_MIN)
								 : fmax(o->noise_floor, NOISE_FLOOR_MIN);
	out->cal_shift = fabs(b->cal.ticks_per_cycle / a->cal.ticks_per_cycle - 1);
	for (size_t i = 0; i < a->n; i++) {
		struct compare_row *row;
		size_t na, nb = 0;

		if (!compare_group_first(a, i))
			continue;
		row = add_row(out, &cap);
		if (!row)
			goto enomem;
		ident(row, &a->r[i]);
		na = compare_group(a, i, ga, MAX_PASSES);
		for (size_t j = 0; j < b->n && !nb; j++)
			if (same_row(&a->r[i], &b->r[j]))
				nb = compare_group(b, j, gb, MAX_PASSES);
		if (!nb) {
			row->basis = BASIS_NONE;
			row->verdict = CMP_ONLY_A;
			row->a_ticks = group_median(ga, na);
			row->a_ns = result_ns(a, row->a_ticks);
			row->a_cycles = result_cycles(a, row->a_ticks);
			row->ratio = row->p = NAN;
			continue;
		}
		ret = compare_row(a, ga, na, b, gb, nb, o, out, row);
		if (ret < 0) {
			compare_free(out);
			return ret;
		}
	}
	for (size_t j = 0; j < b->n; j++) {
		struct compare_row *row;
		bool found = false;

		if (!compare_group_first(b, j))
			continue;
		for (size_t i = 0; i < a->n && !found; i++)
			found = same_row(&a->r[i], &b->r[j]);
		if (found)
			continue;
		row = add_row(out, &cap);
		if (!row)
			goto enomem;
		ident(row, &b->r[j]);
		row->basis = BASIS_NONE;
		row->verdict = CMP_ONLY_B;
		row->b_ticks = group_median(gb, compare_group(b, j, gb, MAX_PASSES));
		row->b_ns = result_ns(b, row->b_ticks);
		row->b_cycles = result_cycles(b, row->b_ticks);
		row->ratio = row->p = NAN;
	}
	ret = decide(out, o);
	if (ret < 0) {
		compare_free(out);
		return ret;
	}
	return 0;
enomem:
	compare_free(out);
	return -ENOMEM;
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
	case CMP_ONLY_A:
		snprintf(buf, len, "only in A");
		break;
	case CMP_ONLY_B:
		snprintf(buf, len, "only in B");
		break;
	case CMP_CALIBRATION:
		snprintf(buf, len, "calibration moved %+.1f%%", (r->ratio - 1.0) * 100);
		break;
	case CMP_UNSETTLED:
		snprintf(buf, len, "no verdict (one process)");
		break;
	default:
		snprintf(buf, len, "no significant change");
	}
}

void compare_summary(const struct comparison *c, char *buf, size_t len)
{
	size_t rows = c->improved + c->regressed + c->same + c->calibration + c->unsettled;
	size_t judged = rows - c->unsettled;	/* the share unchanged is of rows with a verdict */

	snprintf(buf, len,
		 "summary: %zu rows compared: %zu improved, %zu regressed, %zu no significant change (%.0f%% unchanged), %zu calibration problem%s, %zu without a verdict (one process); %zu in one report only",
		 rows, c->improved, c->regressed, c->same,
		 judged ? 100.0 * (double)c->same / (double)judged : 0.0, c->calibration,
		 c->calibration == 1 ? "" : "s", c->unsettled, c->unmatched);
}
