/* compare.c - the change between two reports, and whether it is real.
 * The decision rule is in compare.h and docs/reports.md; it is conservative
 * on purpose: a tool that cries "regressed 2%" on noise teaches its users
 * to ignore it. Times are compared in ns (each report's own TSC frequency),
 * not in core cycles: the cycle calibration itself wobbles by a few percent
 * between runs under a hypervisor. */
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
	o->min_change = COMPARE_MIN_CHANGE;
	o->resamples = COMPARE_RESAMPLES;
	o->seed = COMPARE_SEED;
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

/* xorshift64*: small, fast, and the same sequence everywhere. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static size_t rng_below(uint64_t *s, size_t n)
{
	return (size_t)(((rng_next(s) >> 11) * (double)n) / 9007199254740992.0);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of a bootstrap resample of sorted[0..n): draw n indices, count
 * them per index, walk the counts. O(n), no sort per resample. */
static double resample_median(const double *sorted, size_t n, uint32_t *count, uint64_t *s)
{
	size_t half = n / 2, seen = 0, lo = SIZE_MAX;

	memset(count, 0, n * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[rng_below(s, n)]++;
	for (size_t k = 0; k < n; k++) {
		seen += count[k];
		if (n % 2 == 0 && lo == SIZE_MAX && seen >= half)
			lo = k;
		if (seen > half)
			return n % 2 ? sorted[k] : (sorted[lo] + sorted[k]) / 2;
	}
	return sorted[n - 1];
}

int compare_bootstrap(const double *a, size_t na, const double *b, size_t nb,
		      unsigned resamples, uint64_t seed, double *ratio, double *lo, double *hi)
{
	double *sa = NULL, *sb = NULL, *r = NULL;
	uint32_t *count = NULL;
	uint64_t s = seed ? seed : 1;
	size_t m = 0;
	int ret = 0;

	if (!na || !nb || resamples < 20)
		return -EINVAL;
	sa = malloc(na * sizeof(*sa));
	sb = malloc(nb * sizeof(*sb));
	r = malloc(resamples * sizeof(*r));
	count = malloc((na > nb ? na : nb) * sizeof(*count));
	if (!sa || !sb || !r || !count) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	qsort(sa, na, sizeof(*sa), dbl_cmp);
	qsort(sb, nb, sizeof(*sb), dbl_cmp);
	{
		double ma = stats_quantile_sorted(sa, na, 0.5), mb = stats_quantile_sorted(sb, nb, 0.5);

		if (!(ma > 0) || !(mb > 0)) {
			ret = -EINVAL;
			goto out;
		}
		*ratio = mb / ma;
	}
	for (unsigned i = 0; i < resamples; i++) {
		double ma = resample_median(sa, na, count, &s);
		double mb = resample_median(sb, nb, count, &s);

		if (ma > 0)
			r[m++] = mb / ma;
	}
	if (m < resamples / 2) {
		ret = -EINVAL;
		goto out;
	}
	qsort(r, m, sizeof(*r), dbl_cmp);
	*lo = stats_quantile_sorted(r, m, 0.025);
	*hi = stats_quantile_sorted(r, m, 0.975);
out:
	free(sa);
	free(sb);
	free(r);
	free(count);
	return ret;
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

int compare_passes(const double *a, size_t na, const double *b, size_t nb,
		   double *ratio, double *lo, double *hi)
{
	double ma, va, mb, vb, qa, qb, se, df;

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
	/* Welch-Satterthwaite; identical passes (se 0) give df of the pooled case */
	df = se > 0 ? (qa + qb) * (qa + qb) /
			      (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1))
		    : (double)(na + nb - 2);
	*ratio = exp(mb - ma);
	*lo = exp(mb - ma - compare_t975(df) * se);
	*hi = exp(mb - ma + compare_t975(df) * se);
	return 0;
}

static double ns_per_tick(const struct report *rep)
{
	return 1e9 / rep->cal.timer_hz;
}

/* Median of pass medians (or the one median), ticks. */
static double group_median(const struct result *const *g, size_t n)
{
	double m[MAX_PASSES];

	for (size_t i = 0; i < n; i++)
		m[i] = g[i]->s.median;
	return stats_median(m, n);
}

/* (max - min) / median of the pass medians; 0 with fewer than 2 passes. */
static double group_spread(const struct result *const *g, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, med = group_median(g, n);

	if (n < 2 || !(med > 0))
		return 0;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, g[i]->s.median);
		hi = fmax(hi, g[i]->s.median);
	}
	return (hi - lo) / med;
}

static double *pooled(const struct result *const *g, size_t n, size_t *count)
{
	size_t total = 0, k = 0;
	double *v;

	for (size_t i = 0; i < n; i++)
		total += g[i]->nsamples;
	v = malloc((total ? total : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		memcpy(v + k, g[i]->samples, g[i]->nsamples * sizeof(*v));
		k += g[i]->nsamples;
	}
	*count = total;
	return v;
}

static uint64_t row_seed(uint64_t seed, const struct result *r)
{
	uint64_t h = seed ^ 0x9E3779B97F4A7C15ull;

	for (const char *p = r->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
	for (const char *p = r->pattern; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
	return h ^ ((uint64_t)r->mode << 40);
}

static int compare_row(const struct report *a, const struct result *const *ga, size_t na,
		       const struct report *b, const struct result *const *gb, size_t nb,
		       const struct compare_opts *o, struct compare_row *row)
{
	double sa = ns_per_tick(a), sb = ns_per_tick(b), change;
	bool sig;
	int ret;

	row->a_passes = na;
	row->b_passes = nb;
	row->a_ticks = group_median(ga, na);
	row->b_ticks = group_median(gb, nb);
	row->a_ns = row->a_ticks * sa;
	row->b_ns = row->b_ticks * sb;
	row->a_cycles = result_cycles(a, row->a_ticks);
	row->b_cycles = result_cycles(b, row->b_ticks);
	if (na >= 2 && nb >= 2) {
		double ma[MAX_PASSES], mb[MAX_PASSES];

		for (size_t i = 0; i < na; i++)
			ma[i] = ga[i]->s.median * sa;
		for (size_t i = 0; i < nb; i++)
			mb[i] = gb[i]->s.median * sb;
		row->basis = BASIS_PASSES;
		row->floor = 0;
		ret = compare_passes(ma, na, mb, nb, &row->ratio, &row->lo, &row->hi);
		if (ret == 0 && row->a_ns > 0 && row->b_ns > 0) {
			/* The width comes from the between-pass spread; the centre is
			 * the ratio of the medians of the pass medians, so one odd
			 * pass widens the interval instead of moving the estimate
			 * (and the change printed agrees with the A and B columns). */
			double c = row->b_ns / row->a_ns, w = row->ratio;

			row->lo *= c / w;
			row->hi *= c / w;
			row->ratio = c;
		}
	} else {
		size_t ca = 0, cb = 0;
		double *va = pooled(ga, na, &ca), *vb = pooled(gb, nb, &cb);

		row->basis = BASIS_SAMPLES;
		row->floor = fmax(o->noise_floor, fmax(group_spread(ga, na), group_spread(gb, nb)));
		ret = va && vb ? compare_bootstrap(va, ca, vb, cb, o->resamples, row_seed(o->seed, ga[0]),
						   &row->ratio, &row->lo, &row->hi)
			       : -ENOMEM;
		free(va);
		free(vb);
		if (ret == 0) {
			/* ticks -> ns: the ratio scales by the TSC frequencies */
			row->ratio *= sb / sa;
			row->lo *= sb / sa;
			row->hi *= sb / sa;
		}
	}
	if (ret == -EINVAL) {
		/* a zero or negative median (the empty probe): no ratio to speak of */
		row->ratio = row->lo = row->hi = NAN;
		row->verdict = CMP_SAME;
		return 0;
	}
	if (ret < 0)
		return ret;
	change = fabs(row->ratio - 1.0);
	sig = (row->lo > 1.0 || row->hi < 1.0) && change >= o->min_change;
	if (row->basis == BASIS_SAMPLES)
		sig = sig && change > row->floor;
	row->verdict = !sig ? CMP_SAME : row->ratio > 1.0 ? CMP_REGRESSED : CMP_IMPROVED;
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

int compare_reports(const struct report *a, const struct report *b,
		    const struct compare_opts *o, struct comparison *out)
{
	static const struct result *ga[MAX_PASSES], *gb[MAX_PASSES];
	size_t cap = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fp_diffs = fingerprint_diff(fingerprint_of_meta(a->meta), fingerprint_of_meta(b->meta),
					 NULL, NULL);
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
			row->a_passes = na;
			row->a_ticks = group_median(ga, na);
			row->a_ns = row->a_ticks * ns_per_tick(a);
			row->a_cycles = result_cycles(a, row->a_ticks);
			out->unmatched++;
			continue;
		}
		ret = compare_row(a, ga, na, b, gb, nb, o, row);
		if (ret < 0) {
			compare_free(out);
			return ret;
		}
		if (row->verdict == CMP_IMPROVED)
			out->improved++;
		else if (row->verdict == CMP_REGRESSED)
			out->regressed++;
		else
			out->same++;
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
		row->b_passes = compare_group(b, j, gb, MAX_PASSES);
		row->b_ticks = group_median(gb, row->b_passes);
		row->b_ns = row->b_ticks * ns_per_tick(b);
		row->b_cycles = result_cycles(b, row->b_ticks);
		out->unmatched++;
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
	default:
		snprintf(buf, len, "no significant change");
	}
}

void compare_summary(const struct comparison *c, char *buf, size_t len)
{
	size_t rows = c->improved + c->regressed + c->same;

	snprintf(buf, len,
		 "summary: %zu rows compared: %zu improved, %zu regressed, %zu no significant change (%.0f%% unchanged); %zu in one report only",
		 rows, c->improved, c->regressed, c->same,
		 rows ? 100.0 * (double)c->same / (double)rows : 0.0, c->unmatched);
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


static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : (path ? path : "");
}

static void header(const struct comparison *c, const struct report *a, const struct report *b,
		   const char *na, const char *nb, FILE *f)
{
	const json_t *fa = fingerprint_of_meta(a->meta), *fb = fingerprint_of_meta(b->meta);
	struct diff_print d = { .f = f };
	char line[512];
	int pa = compare_max_pass(a), pb = compare_max_pass(b);

	if (!fa || !fb)
		fprintf(f, "# fingerprint missing from %s: machines cannot be checked for a match\n",
			!fa ? (!fb ? "both reports" : "A") : "B");
	else
		fingerprint_diff(fa, fb, print_diff, &d);
	/* file names without their directories: the header must fit the
	 * 72-column mail format wherever the reports live */
	fprintf(f, "# A: %s (%s, %d pass%s)\n", base_name(na), a->started, pa ? pa : 1, pa > 1 ? "es" : "");
	fingerprint_oneline(fa, line, sizeof(line));
	report_mail_wrap(f, "#    ", line);
	fprintf(f, "# B: %s (%s, %d pass%s)\n", base_name(nb), b->started, pb ? pb : 1, pb > 1 ? "es" : "");
	fingerprint_oneline(fb, line, sizeof(line));
	report_mail_wrap(f, "#    ", line);
	if (pa < 2 || pb < 2)
		report_mail_wrap(f, "# ", "without --repeat passes on both sides, a change must also exceed the noise floor ('floor N%'): within-run samples understate run-to-run variance");
	(void)c;
}

static const char *basis_name(const struct compare_row *r)
{
	switch (r->basis) {
	case BASIS_PASSES:
		return "passes";
	case BASIS_SAMPLES:
		return "samples";
	default:
		return "-";
	}
}

int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[256];

	header(c, a, b, na, nb, f);
	fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-10s %s\n", "probe", "pattern", "mode",
		"A ns", "B ns", "change", "[95% CI]", "basis", "verdict");
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_row *r = &c->rows[i];
		char v[64], chg[16] = "-", ci[40] = "-", basis[24];
		char as[16] = "-", bs[16] = "-";

		if (r->verdict != CMP_ONLY_B)
			snprintf(as, sizeof(as), "%.3f", r->a_ns);
		if (r->verdict != CMP_ONLY_A)
			snprintf(bs, sizeof(bs), "%.3f", r->b_ns);
		if (r->basis != BASIS_NONE && isfinite(r->ratio)) {
			snprintf(chg, sizeof(chg), "%+.1f%%", (r->ratio - 1) * 100);
			snprintf(ci, sizeof(ci), "[%+.1f%%,%+.1f%%]", (r->lo - 1) * 100,
				 (r->hi - 1) * 100);
		}
		snprintf(basis, sizeof(basis), "%s", basis_name(r));
		if (r->basis == BASIS_SAMPLES)
			snprintf(basis, sizeof(basis), "floor %.0f%%", r->floor * 100);
		compare_verdict_text(r, v, sizeof(v));
		fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-10s %s\n", r->name, r->pattern,
			probe_mode_name(r->mode), as, bs, chg, ci, basis, v);
	}
	compare_summary(c, sum, sizeof(sum));
	fprintf(f, "%s\n", sum);
	return 0;
}

/* 72 columns: a name line with the verdict on the right, then the kernel
 * shape "A - B" with N cycles(tsc) (TSC ticks, as the kernel's get_cycles
 * counts) and ns. */
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[256];

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
