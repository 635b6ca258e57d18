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

int compare_max_pass(const struct report *rep)
{
	int m = 0;

	for (size_t i = 0; i < rep->n; i++)
		if (result_pass(&rep->r[i]) > m)
			m = result_pass(&rep->r[i]);
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
		    set_int(r, "pass", result_pass(r) ? result_pass(r) : 1) < 0)
			return -ENOMEM;
	}
	base = compare_max_pass(into);
	proc = compare_max_process(into) + 1;
	for (size_t i = 0; i < from->n; i++) {
		struct result *s = &from->r[i], *d = report_add(into);
		int pass = result_pass(s);

		if (!d)
			return -ENOMEM;
		*d = *s;
		s->samples = NULL;
		s->extra = NULL;
		/* onto into's clock, as --repeat does for its later passes:
		 * cycles (ticks / ticks per cycle) are unchanged */
		result_rescale(d, k);
		if (set_int(d, "process", proc) < 0 || set_int(d, "pass", base + (pass ? pass : 1)) < 0)
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

		if (basis == BASIS_PASSES) {
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
		row->basis = na >= 2 && nb >= 2 ? BASIS_PASSES : BASIS_BLOCKS;
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

struct diff_print {
	FILE *f;
	size_t n;
};

static void print_diff(const char *key, const char *a, const char *b, void *arg)
{
	struct diff_print *d = arg;

	char line[700];

	if (d->n++ == 0)
		report_mail_wrap(d->f, "# ", "FINGERPRINTS DIFFER: the reports come from different machines, kernels or builds");
	snprintf(line, sizeof(line), "%s: A '%s', B '%s'", key, a, b);
	report_mail_wrap(d->f, "#   ", line);
}


/* A side's name for the header: the file name without its directory (the
 * header must fit the 72-column mail format wherever the reports live);
 * for a list of processes, the first file name and how many more. */
static void side_name(const char *arg, char *buf, size_t len)
{
	const char *comma = arg ? strchr(arg, ',') : NULL, *slash;
	size_t more = 0, n;

	if (!arg) {
		snprintf(buf, len, "-");
		return;
	}
	n = comma ? (size_t)(comma - arg) : strlen(arg);
	for (const char *p = comma; p; p = strchr(p + 1, ','))
		more++;
	slash = memrchr(arg, '/', n);
	if (slash) {
		n -= (size_t)(slash + 1 - arg);
		arg = slash + 1;
	}
	if (more)
		snprintf(buf, len, "%.*s and %zu more", (int)n, arg, more);
	else
		snprintf(buf, len, "%.*s", (int)n, arg);
}

static void side_line(FILE *f, const char *tag, const char *arg, const struct report *rep)
{
	char name[256];
	int passes = compare_max_pass(rep), procs = compare_max_process(rep);

	side_name(arg, name, sizeof(name));
	if (procs > 1)
		fprintf(f, "# %s: %s (%s, %d processes, %d passes)\n", tag, name, rep->started, procs,
			passes);
	else
		fprintf(f, "# %s: %s (%s, %d pass%s)\n", tag, name, rep->started, passes ? passes : 1,
			passes > 1 ? "es" : "");
}

static void header(const struct comparison *c, const struct report *a, const struct report *b,
		   const char *na, const char *nb, FILE *f)
{
	const json_t *fa = fingerprint_of_meta(a->meta), *fb = fingerprint_of_meta(b->meta);
	struct diff_print d = { .f = f };
	char line[512];

	if (!fa || !fb)
		fprintf(f, "# fingerprint missing from %s: machines cannot be checked for a match\n",
			!fa ? (!fb ? "both reports" : "A") : "B");
	else
		fingerprint_diff(fa, fb, print_diff, &d);
	side_line(f, "A", na, a);
	fingerprint_oneline(fa, line, sizeof(line));
	report_mail_wrap(f, "#    ", line);
	side_line(f, "B", nb, b);
	fingerprint_oneline(fb, line, sizeof(line));
	report_mail_wrap(f, "#    ", line);
	/* the rule, with the figures this comparison used */
	if (c->a_procs >= 2 && c->b_procs >= 2)
		snprintf(line, sizeof(line),
			 "rule: core cycles; %d and %d processes: replicates are processes, base floor %.1f%%",
			 c->a_procs, c->b_procs, c->base_floor * 100);
	else
		snprintf(line, sizeof(line),
			 "rule: core cycles; base floor %.1f%% with one process on a side (how far hot-line rows move between processes; --noise-floor); only hit rows that reached their CI target get a verdict; several reports per side (a1.json,a2.json) compare every row on its measured spread",
			 c->base_floor * 100);
	report_mail_wrap(f, "# ", line);
	snprintf(line, sizeof(line),
		 "floor per row: sqrt(base^2 + calibration %.2f%%^2 + self-check %.2f%%^2), and %.2f cycles/op",
		 c->cal_shift * 100, c->check_shift * 100, COMPARE_ABS_FLOOR);
	report_mail_wrap(f, "# ", line);
	snprintf(line, sizeof(line), "significant: Welch t, Holm-Bonferroni over %zu rows at %.0f%%",
		 c->tested, c->alpha * 100);
	report_mail_wrap(f, "# ", line);
	if (c->calibration) {
		snprintf(line, sizeof(line),
			 "CALIBRATION MOVED: a self-check (add_chain, imul_chain) changed by %.1f%%: the clock calibration differs between the runs, not the code; every floor includes it",
			 c->check_shift * 100);
		report_mail_wrap(f, "# ", line);
	}
}

static const char *basis_name(const struct compare_row *r)
{
	switch (r->basis) {
	case BASIS_PROCESSES:
		return "procs";
	case BASIS_PASSES:
		return "passes";
	case BASIS_BLOCKS:
		return "blocks";
	default:
		return "-";
	}
}

int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[300];

	header(c, a, b, na, nb, f);
	fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-13s %s\n", "probe", "pattern", "mode",
		"A cycles", "B cycles", "change", "[95% CI]", "basis/floor", "verdict");
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_row *r = &c->rows[i];
		char v[64], chg[16] = "-", ci[40] = "-", basis[32] = "-";
		char as[16] = "-", bs[16] = "-";

		if (r->verdict != CMP_ONLY_B)
			snprintf(as, sizeof(as), "%.3f", r->a_cycles);
		if (r->verdict != CMP_ONLY_A)
			snprintf(bs, sizeof(bs), "%.3f", r->b_cycles);
		if (r->basis != BASIS_NONE && isfinite(r->ratio))
			snprintf(chg, sizeof(chg), "%+.1f%%", (r->ratio - 1) * 100);
		if (r->basis != BASIS_NONE && isfinite(r->lo))
			snprintf(ci, sizeof(ci), "[%+.1f%%,%+.1f%%]", (r->lo - 1) * 100,
				 (r->hi - 1) * 100);
		if (r->basis != BASIS_NONE)
			snprintf(basis, sizeof(basis), "%s %.1f%%", basis_name(r), r->floor * 100);
		compare_verdict_text(r, v, sizeof(v));
		fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-13s %s\n", r->name, r->pattern,
			probe_mode_name(r->mode), as, bs, chg, ci, basis, v);
	}
	compare_summary(c, sum, sizeof(sum));
	fprintf(f, "%s\n", sum);
	return 0;
}

/* 72 columns: a name line with the verdict on the right, then the kernel
 * shape "A - B" with N cycles(tsc) (TSC ticks, as the kernel's get_cycles
 * counts) and ns. The verdicts come from core cycles (header). */
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[300];

	header(c, a, b, na, nb, f);
	fprintf(f, "\n%-34s - %s\n", "A (before)", "B (after)");
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_row *r = &c->rows[i];
		char name[128], v[64];

		snprintf(name, sizeof(name), "%s %s %s", r->name, r->pattern,
			 r->mode == MODE_LATENCY ? "lat" : "tput");
		compare_verdict_text(r, v, sizeof(v));
		fprintf(f, "%-*s%s\n", (int)(72 - strlen(v) > strlen(name) ? 72 - strlen(v) : strlen(name) + 1),
			name, v);
		fprintf(f, "  %6.1f cycles(tsc) %7.3f ns - %6.1f cycles(tsc) %7.3f ns\n",
			r->verdict == CMP_ONLY_B ? NAN : r->a_ticks,
			r->verdict == CMP_ONLY_B ? NAN : r->a_ns,
			r->verdict == CMP_ONLY_A ? NAN : r->b_ticks,
			r->verdict == CMP_ONLY_A ? NAN : r->b_ns);
	}
	compare_summary(c, sum, sizeof(sum));
	fputc('\n', f);
	report_mail_wrap(f, "", sum);
	return 0;
}
