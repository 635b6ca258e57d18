/* SPDX-License-Identifier: MIT */
/* stats.c - quantiles, median confidence interval, outliers. No
 * distribution is assumed: timing samples are skewed and often bimodal
 * (docs/method.md, noise and verdicts), so the median's interval comes from order statistics. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q in (0,1) of n > 0 sorted values, linear interpolation between
 * order statistics (Hyndman-Fan type 7, as R and numpy default). */
static double stats_quantile_sorted(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t i = (size_t)h;

	return i + 1 >= n ? s[n - 1] : s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

/* A sorted copy of v[0..n) (n > 0), to free; NULL on ENOMEM. */
static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (s) {
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_double);
	}
	return s;
}

/* The mean of v[0..n) (n > 0); *sd its sample standard deviation (0 for
 * one value). */
static double mean_sd(const double *v, size_t n, double *sd)
{
	double m = 0, s = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	*sd = n > 1 ? sqrt(s / (double)(n - 1)) : 0;
	return m;
}

/* The k-th smallest of x[0..n) (0-based, k < n), x reordered so that
 * x[k] holds it and none after it is smaller (Hoare's selection): a
 * median in O(n), where a fleet's 10,000 machines sorted for each row,
 * group and key were a third of its compare. */
static double select_kth(double *x, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, at = (ptrdiff_t)k;

	while (lo < hi) {
		double pivot = x[lo + (hi - lo) / 2], t;
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				t = x[i];
				x[i++] = x[j];
				x[j--] = t;
			}
		}
		if (at <= j)
			hi = j;
		else if (at >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

double stats_median(const double *v, size_t n)
{
	double buf[64], *x = n <= 64 ? buf : malloc(n * sizeof(*x)), m, next;
	double h = (double)(n - 1) * 0.5;
	size_t i = (n - 1) / 2;

	if (!n || !x)
		return NAN;
	memcpy(x, v, n * sizeof(*x));
	m = select_kth(x, n, i);
	/* stats_quantile_sorted's interpolation, with the next order
	 * statistic: the least of those after the median */
	if (i + 1 < n) {
		next = x[i + 1];
		for (size_t j = i + 2; j < n; j++)
			next = x[j] < next ? x[j] : next;
		m += (h - (double)i) * (next - m);
	}
	if (x != buf)
		free(x);
	return m;
}

void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi)
{
	/* ranks n/2 -+ 1.96 sqrt(n)/2 (1-based), converted to 0-based */
	double half = 1.959964 * sqrt((double)n) / 2.0;
	double l = floor((double)n / 2.0 - half);
	double h = ceil((double)n / 2.0 + half) + 1.0;

	if (n == 0) {
		*lo = *hi = 0;
		return;
	}
	*lo = (size_t)fmax(l, 1) - 1;
	*hi = (size_t)fmin(h, (double)n) - 1;
}

int stats_summarize(const double *v, size_t n, struct summary *s)
{
	double *x, iqr;
	size_t lo, hi;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return -EINVAL;
	x = sorted_copy(v, n);
	if (!x)
		return -ENOMEM;
	s->n = n;
	s->min = x[0];
	s->max = x[n - 1];
	s->p10 = stats_quantile_sorted(x, n, 0.10);
	s->p25 = stats_quantile_sorted(x, n, 0.25);
	s->median = stats_quantile_sorted(x, n, 0.50);
	s->p75 = stats_quantile_sorted(x, n, 0.75);
	s->p90 = stats_quantile_sorted(x, n, 0.90);
	s->mean = mean_sd(x, n, &s->stddev);
	stats_median_ci_ranks(n, &lo, &hi);
	s->ci_lo = x[lo];
	s->ci_hi = x[hi];
	iqr = s->p75 - s->p25;
	for (size_t i = 0; i < n; i++)
		if (x[i] > s->p75 + 3 * iqr || x[i] < s->p25 - 3 * iqr)
			s->outliers++;
	free(x);
	return 0;
}

/* The first of sorted x[0, n) above y (or at it, when at is set). */
static size_t bound(const double *x, size_t n, double y, bool at)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (x[mid] < y || (!at && x[mid] == y))
			l = mid + 1;
		else
			h = mid;
	}
	return l;
}

/* Samples of sorted x[0, n) inside [lo, hi]. */
static size_t count_in(const double *x, size_t n, double lo, double hi)
{
	return bound(x, n, hi, false) - bound(x, n, lo, true);
}

struct spike {
	double at;
	size_t count;
};

static int spike_cmp(const void *a, const void *b)
{
	const struct spike *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count) - (x->count > y->count) : (x->at > y->at) - (x->at < y->at);
}

/* The median of the sorted samples in [lo, hi] (some are). */
static double median_in(const double *x, size_t n, double lo, double hi)
{
	size_t first = bound(x, n, lo, true);

	return stats_quantile_sorted(x + first, count_in(x, n, lo, hi), 0.5);
}

int stats_mixture(const double *v, size_t n, double resolution, double min_gap, struct mixture *m)
{
	struct spike *sp;
	double *x;
	size_t ns = 0, start = 0;

	memset(m, 0, sizeof(*m));
	if (n < MIX_MIN_SAMPLES)
		return 0;
	x = sorted_copy(v, n);
	sp = malloc(n * sizeof(*sp));
	if (!x || !sp) {
		free(x);
		free(sp);
		return -ENOMEM;
	}
	/* every sample's window: a spike candidate where it is dense enough
	 * and stands out of both windows beside it */
	for (size_t i = 0; i < n; i++) {
		double h = fmax(MIX_SPIKE_HALF * fabs(x[i]), 2 * resolution);
		size_t c = count_in(x, n, x[i] - h, x[i] + h);
		size_t side = count_in(x, n, x[i] - 4 * h, x[i] - 2 * h);
		size_t right = count_in(x, n, x[i] + 2 * h, x[i] + 4 * h);

		side = right > side ? right : side;
		if ((double)c >= MIX_SPIKE_MIN * (double)n && (double)c >= MIX_SPIKE_RATIO * (double)side)
			sp[ns++] = (struct spike){ x[i], c };
	}
	/* the densest first; a spike within the margin of one kept is its own */
	qsort(sp, ns, sizeof(*sp), spike_cmp);
	for (size_t i = 0; i < ns && m->nstates < MIX_MAX_STATES; i++) {
		bool near = false;

		for (size_t k = 0; k < m->nstates && !near; k++) {
			double a = m->state[k].value, b = sp[i].at, d = fabs(a - b);

			near = d < min_gap || d < JUDGE_MARGIN_REL * fmin(fabs(a), fabs(b));
		}
		if (!near)
			m->state[m->nstates++].value = sp[i].at;
	}
	for (size_t i = 1; i < m->nstates; i++)	/* by value: a handful */
		for (size_t k = i; k > 0 && m->state[k].value < m->state[k - 1].value; k--) {
			struct mix_state t = m->state[k];

			m->state[k] = m->state[k - 1];
			m->state[k - 1] = t;
		}
	/* shares: split at the geometric middle between neighbours; a state
	 * holding too few is no state (its samples join the nearest) */
	for (size_t k = 0; k < m->nstates; k++) {
		double a = m->state[k].value, b = k + 1 < m->nstates ? m->state[k + 1].value : INFINITY;
		double cut = isfinite(b) ? (a > 0 && b > 0 ? sqrt(a * b) : (a + b) / 2) : INFINITY;
		size_t end = start;

		while (end < n && x[end] < cut)
			end++;
		m->state[k].share = (double)(end - start) / (double)n;
		start = end;
	}
	for (size_t k = 0, to; k < m->nstates;) {
		if (m->state[k].share >= MIX_SHARE_MIN || m->nstates == 1) {
			k++;
			continue;
		}
		/* give the share to the nearer neighbour */
		to = k == 0 ? 1 : k + 1 == m->nstates ? k - 1 :
		     m->state[k].value - m->state[k - 1].value < m->state[k + 1].value - m->state[k].value ? k - 1 :
		     k + 1;
		m->state[to].share += m->state[k].share;
		memmove(&m->state[k], &m->state[k + 1], (m->nstates - k - 1) * sizeof(m->state[0]));
		m->nstates--;
		k = 0;
	}
	/* each state's value: the median of its spike's window */
	for (size_t k = 0; k < m->nstates; k++) {
		double h = fmax(MIX_SPIKE_HALF * fabs(m->state[k].value), 2 * resolution);

		m->state[k].value = median_in(x, n, m->state[k].value - h, m->state[k].value + h);
	}
	if (!m->nstates)	/* no spike at all: one state, at the median */
		m->state[m->nstates++] = (struct mix_state){ stats_quantile_sorted(x, n, 0.5), 1 };
	free(x);
	free(sp);
	return (int)m->nstates;
}

const char *stats_mixture_text(const struct mixture *m, double scale, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t k = 0; m->nstates > 1 && k < m->nstates && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.2f (%.0f%%)",
				      !k ? "" : k + 1 == m->nstates ? " and " : ", ", m->state[k].value * scale,
				      m->state[k].share * 100);
	return buf;
}

const char *stats_verdict_name(enum verdict v)
{
	static const char *const names[] = {
		[VERDICT_SAME] = "same", [VERDICT_SLOWER] = "slower", [VERDICT_FASTER] = "faster",
		[VERDICT_NONE] = "-", [VERDICT_UNRESOLVED] = "unresolved",
	};

	return (unsigned)v <= VERDICT_UNRESOLVED ? names[v] : "-";
}

/* One term aa of the continued fraction, modified Lentz: the factor it
 * brings to the fraction. */
static double lentz_step(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	*d = fabs(*d) < tiny ? tiny : *d;
	*c = 1 + aa / *c;
	*c = fabs(*c) < tiny ? tiny : *c;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction of the incomplete beta. */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
	h = d;

	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz_step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_pvalue(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1e7;

	if (!(p > 0 && p < 1) || !(df >= 1))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	/* bisection on the two-sided tail: P(|T| > t) = 2 (1 - p) */
	for (int i = 0; i < 200 && hi - lo > 1e-9 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_pvalue(mid, df) > 2 * (1 - p))
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_f_cdf(double f, double d1, double d2)
{
	if (!(d1 > 0) || !(d2 > 0) || isnan(f) || isinf(d1) || isinf(d2))
		return NAN;
	if (f <= 0)
		return 0;
	if (isinf(f))
		return 1;
	/* P(F <= f) = I_x(d1/2, d2/2) at x = d1 f / (d1 f + d2) */
	return beta_inc(d1 / 2, d2 / 2, d1 * f / (d1 * f + d2));
}

/* ---- moderated variances (Smyth 2004) ---------------------------------- */

/* psi(x) and psi'(x), x > 0: the recurrences up to 6, then the asymptotic
 * series (error below 1e-12 there). */
static double digamma(double x)
{
	double r = 0, f;

	for (; x < 6; x += 1)
		r -= 1 / x;
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

static double trigamma(double x)
{
	double r = 0, f;

	for (; x < 6; x += 1)
		r += 1 / (x * x);
	f = 1 / (x * x);
	return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* y with psi'(y) = v (psi' falls from infinity to 0): bisection on log y. */
static double trigamma_inverse(double v)
{
	double lo = -30, hi = 30;

	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (trigamma(exp(mid)) > v)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

int stats_prior_fit(const double *s2, const double *df, size_t n, struct stats_prior *p)
{
	double e_sum = 0, e_ss = 0, tri = 0, dsum = 0, e_mean, v;
	size_t k = 0;

	*p = (struct stats_prior){ .s2 = NAN, .df = 0 };
	/* e = log s2 - psi(df/2) + log(df/2) has mean log s0^2 - psi(d0/2) +
	 * log(d0/2) and variance psi'(d0/2) + psi'(df/2) (Smyth 2004, 4.1) */
	for (size_t i = 0; i < n; i++) {
		if (!(s2[i] > 0) || !(df[i] > 0) || !isfinite(s2[i]))
			continue;
		e_sum += log(s2[i]) - digamma(df[i] / 2) + log(df[i] / 2);
		k++;
	}
	if (k < STATS_PRIOR_MIN_ROWS)
		return -EINVAL;
	e_mean = e_sum / (double)k;
	for (size_t i = 0; i < n; i++) {
		double e;

		if (!(s2[i] > 0) || !(df[i] > 0) || !isfinite(s2[i]))
			continue;
		e = log(s2[i]) - digamma(df[i] / 2) + log(df[i] / 2) - e_mean;
		e_ss += e * e;
		tri += trigamma(df[i] / 2);
		dsum += df[i];
	}
	v = e_ss / (double)(k - 1) - tri / (double)k;
	/* no more prior degrees than the rows hold together: variances that
	 * agree better than their dfs predict do not make one row's variance
	 * known exactly */
	p->df = v > 0 ? fmin(2 * trigamma_inverse(v), dsum) : dsum;
	p->s2 = exp(e_mean + digamma(p->df / 2) - log(p->df / 2));
	return 0;
}

double stats_moderated(double s2, double df, const struct stats_prior *p)
{
	if (!(p->df > 0))
		return s2;
	if (!(df > 0) || isnan(s2))
		return p->s2;
	return (p->df * p->s2 + df * s2) / (p->df + df);
}

double stats_rel_sd(const double *v, size_t n)
{
	double sd = 0, m = n < 2 ? 0 : mean_sd(v, n, &sd);

	return m != 0 ? sd / fabs(m) : NAN;
}

enum verdict stats_judge(const double *a, const double *b, size_t n, struct judgment *j)
{
	return stats_judge_prior(a, b, n, NULL, j);
}

int stats_judge_spread(const double *a, const double *b, size_t n, double *s2)
{
	double l[JUDGE_MAX_EPOCHS], sd;
	size_t k = 0;

	for (size_t i = 0; i < n && k < JUDGE_MAX_EPOCHS; i++)
		if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]))
			l[k++] = log(a[i] / b[i]);
	if (k < 2)
		return 0;
	mean_sd(l, k, &sd);
	*s2 = sd * sd;
	return (int)k - 1;
}

enum verdict stats_judge_prior(const double *a, const double *b, size_t n, const struct stats_prior *prior,
			       struct judgment *j)
{
	double l[JUDGE_MAX_EPOCHS], bs[JUDGE_MAX_EPOCHS], mean, sd, se, bm, lm, df;
	size_t k = 0;

	memset(j, 0, sizeof(*j));
	j->v = VERDICT_UNRESOLVED;
	j->ratio = j->lo = j->hi = j->diff = j->diff_lo = j->diff_hi = j->spread = NAN;
	for (size_t i = 0; i < n && k < JUDGE_MAX_EPOCHS; i++)
		if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i])) {
			l[k] = log(a[i] / b[i]);
			bs[k++] = b[i];
		}
	j->n = k;
	if (!k) {
		j->v = VERDICT_NONE;
		return j->v;
	}
	mean = mean_sd(l, k, &sd);
	bm = stats_median(bs, k);
	j->margin = fmax(JUDGE_MARGIN_REL, JUDGE_MARGIN_ABS / bm);
	/* the point shown is the median epoch's ratio, so one wild epoch does
	 * not move it away from the medians printed beside it; the interval
	 * and the tests use the mean, which that epoch widens */
	j->ratio = exp(stats_median(l, k));
	j->diff = bm * (j->ratio - 1);
	if (k < 2)
		return j->v;
	j->spread = sd;
	/* the epochs' variance moderated towards the run's rows of its kind
	 * (report_pair_twins): more degrees of freedom, the same model */
	df = (double)(k - 1);
	if (prior && prior->df > 0) {
		sd = sqrt(stats_moderated(sd * sd, df, prior));
		df += prior->df;
	}
	j->df = df;
	se = sd / sqrt((double)k);
	j->lo = exp(mean - stats_t_quantile(0.975, df) * se);
	j->hi = exp(mean + stats_t_quantile(0.975, df) * se);
	j->diff_lo = bm * (j->lo - 1);
	j->diff_hi = bm * (j->hi - 1);
	lm = log1p(j->margin);
	if (log(j->lo) > lm)
		j->v = VERDICT_SLOWER;
	else if (log(j->hi) < -lm)
		j->v = VERDICT_FASTER;
	else if (fabs(mean) + stats_t_quantile(0.95, df) * se < lm)
		j->v = VERDICT_SAME;
	return j->v;
}
