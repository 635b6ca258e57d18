/* SPDX-License-Identifier: MIT */
/* fleet.c - a fleet compare (fleet.h): reads documents, never measures. */
#include "fleet.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"

/* ---- the machines' keys --------------------------------------------------- */

/* Room for item n of the array at *a: its capacity *cap doubled, from
 * first. 0 or -ENOMEM (the array as it was). */
static int room(void *a, size_t n, size_t *cap, size_t first, size_t each)
{
	size_t c = *cap ? 2 * *cap : first;
	void *g = n < *cap ? *(void **)a : realloc(*(void **)a, c * each);

	if (!g)
		return -ENOMEM;
	*(void **)a = g;
	*cap = n < *cap ? *cap : c;
	return 0;
}

/* The value index of (key, value), the key and value made where none is;
 * FLEET_NONE for an empty value, -ENOMEM through *err. */
static uint32_t dim_value(struct fleet *f, const char *key, const char *value, int *err)
{
	struct fleet_dim *k;
	size_t d, v;

	if (!*value || (f->group_by && strcmp(f->group_by, key)))
		return FLEET_NONE;
	for (d = 0; d < f->ndim && strcmp(f->dim[d].key, key); d++)
		;
	if (d == FLEET_DIMS)
		return FLEET_NONE;	/* more keys than a fleet can show: the first ones */
	k = &f->dim[d];
	if (d == f->ndim)
		snprintf(f->dim[f->ndim++].key, sizeof(k->key), "%s", key);
	for (v = 0; v < k->nvalue && strcmp(k->value[v], value); v++)
		;
	if (v == k->nvalue) {
		size_t cap = k->cap;

		if (room(&k->value, v, &cap, 8, sizeof(*k->value)) || room(&k->count, v, &k->cap, 8, sizeof(*k->count))) {
			*err = -ENOMEM;
			return FLEET_NONE;
		}
		snprintf(k->value[k->nvalue], sizeof(*k->value), "%s", value);
		k->count[k->nvalue++] = 0;
	}
	k->count[v]++;
	return (uint32_t)(d << 24 | v);	/* the key in the top byte: see val_of */
}

static size_t val_dim(uint32_t x)
{
	return x >> 24;
}

static size_t val_index(uint32_t x)
{
	return x & 0xffffff;
}

/* A machine's keys: its CPU, microcode, kernel and firmware, and every
 * label of the operator (Slurm partition and features, inventory group). */
static int machine_keys(struct fleet *f, struct fleet_machine *m, const struct compare_n_doc *d)
{
	char cpu[160];
	int err = 0;
	size_t k = 0;
	uint32_t x;

	snprintf(cpu, sizeof(cpu), "%s %s/%s", *d->model_name ? d->model_name : "unknown CPU", cn_known(d->family),
		 cn_known(d->model));
	for (size_t i = 0; i < FLEET_DIMS; i++)
		m->val[i] = FLEET_NONE;
#define KEY(name, value)                                                        \
	do {                                                                    \
		x = dim_value(f, name, value, &err);                            \
		if (x != FLEET_NONE)                                            \
			m->val[val_dim(x)] = x;                                 \
	} while (0)
	KEY("cpu", cpu);
	KEY("microcode", d->microcode);
	KEY("kernel", d->kernel);
	KEY("bios", d->bios);
	for (k = 0; k < d->nlabel; k++)
		KEY(d->label[k].key, d->label[k].value);
#undef KEY
	return err;
}

/* ---- reading, one machine at a time --------------------------------------- */

int fleet_init(struct fleet *f, const struct compare_n_opts *o, const char *group_by)
{
	memset(f, 0, sizeof(*f));
	f->o = *o;
	f->o.fleet = true;
	f->group_by = group_by;
	f->margin = fmax(o->min_change, NOISE_FLOOR_MIN);
	return 0;
}

static int skip(struct fleet *f, const char *path, const char *why)
{
	if (room(&f->skip, f->nskip, &f->capskip, 16, sizeof(*f->skip)))
		return -ENOMEM;
	snprintf(f->skip[f->nskip].path, sizeof(f->skip->path), "%s", path);
	f->skip[f->nskip++].why = why;
	return 0;
}

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The slot of host in the table (NULL in it: not read yet). */
static char **host_slot(const struct fleet *f, const char *host)
{
	size_t i = hash(host) & (f->hostcap - 1);

	while (f->host[i] && strcmp(f->host[i], host))
		i = (i + 1) & (f->hostcap - 1);
	return &f->host[i];
}

/* The machine index of host; -EEXIST when read already. */
static int host_add(struct fleet *f, const char *host)
{
	char **slot;

	if (2 * (f->nmach + 1) > f->hostcap) {	/* keep it half empty */
		size_t cap = f->hostcap ? 2 * f->hostcap : 256, old = f->hostcap;
		char **o = f->host;

		f->host = calloc(cap, sizeof(*f->host));
		if (!f->host) {
			f->host = o;
			return -ENOMEM;
		}
		f->hostcap = cap;
		for (size_t i = 0; i < old; i++)
			if (o[i])
				*host_slot(f, o[i]) = o[i];
		free(o);
	}
	slot = host_slot(f, host);
	if (*slot)
		return -EEXIST;
	*slot = strdup(host);
	return *slot ? 0 : -ENOMEM;
}

static bool same_row(const struct compare_n_row *a, const struct compare_n_row *b)
{
	return a->section == b->section && !strcmp(a->label, b->label) && !strcmp(a->unit, b->unit);
}

/* The fleet's row like r, made (at the end) where none is; NULL on ENOMEM. */
static struct fleet_row *row_of(struct fleet *f, const struct compare_n_row *r)
{
	size_t i;

	/* documents emit their rows in one order: the one after the last met first */
	i = f->next < f->nrows && same_row(&f->row[f->next].head, r) ? f->next : 0;
	for (; i < f->nrows && !same_row(&f->row[i].head, r); i++)
		;
	if (i == f->nrows) {
		if (room(&f->row, f->nrows, &f->caprow, 256, sizeof(*f->row)))
			return NULL;
		f->row[f->nrows] = (struct fleet_row){ .head = *r };
		f->row[f->nrows++].head.cells = NULL;
	}
	f->next = i + 1;
	return &f->row[i];
}

/* The half-width of the 95% interval of a cell's epochs' mean, relative
 * (the relative sd of the epochs for the sd of their logs); 0 without. */
static float own_noise(struct fleet *f, const struct compare_n_cell *k)
{
	double t;

	if (k->nep < 2)
		return 0;
	/* the quantile is a bisection over the t distribution: once per count */
	if (k->nep < ARRAY_SIZE(f->t975) && !f->t975[k->nep])
		f->t975[k->nep] = stats_t_quantile(0.975, (double)k->nep - 1);
	t = k->nep < ARRAY_SIZE(f->t975) ? f->t975[k->nep] : stats_t_quantile(0.975, (double)k->nep - 1);
	return (float)(t * stats_rel_sd(k->ep, k->nep) / sqrt((double)k->nep));
}

static int row_add(struct fleet *f, struct fleet_row *s, const struct compare_n_cell *k, uint32_t machine)
{
	size_t cap[2] = { s->cap, s->cap };

	/* three arrays of one capacity: it grows with the last */
	if (room(&s->v, s->n, &cap[0], 64, sizeof(*s->v)) || room(&s->own, s->n, &cap[1], 64, sizeof(*s->own)) ||
	    room(&s->m, s->n, &s->cap, 64, sizeof(*s->m)))
		return -ENOMEM;
	s->v[s->n] = (float)k->v;
	s->own[s->n] = own_noise(f, k);
	s->m[s->n++] = machine;
	return 0;
}

int fleet_add(struct fleet *f, const struct compare_n_doc *d)
{
	struct compare_n_opts o = f->o;
	struct fleet_machine *m;
	struct compare_n cn;
	int ret;

	if (f->nmach >= 0xffffff)
		return -E2BIG;
	if (room(&f->mach, f->nmach, &f->capm, 256, sizeof(*f->mach)))
		return -ENOMEM;
	o.all_rows = true;	/* every row is judged; the writers show the card's alone */
	ret = compare_n_build(d, 1, &o, &cn);
	if (ret < 0)
		return ret;
	m = &f->mach[f->nmach];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", cn.cols[0].name);
	ret = machine_keys(f, m, d);
	for (size_t i = 0; i < cn.nrows && !ret; i++) {
		const struct compare_n_cell *k = &cn.rows[i].cells[0];
		struct fleet_row *s;

		if (cn.rows[i].kind == CN_TEXT || !k->present || !(k->v > 0))
			continue;
		s = row_of(f, &cn.rows[i]);
		ret = s ? row_add(f, s, k, (uint32_t)f->nmach) : -ENOMEM;
	}
	compare_n_free(&cn);
	f->nmach += !ret;
	return ret;
}

int fleet_add_read(struct fleet *f, const char *path, int read, const struct compare_n_doc *d)
{
	int ret = read;

	f->files++;
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		f->unread += ret == -ENOENT;
		return skip(f, path, ret == -ENOENT ? "cannot read" : "not a summary (truncated, not JSON or another schema)");
	}
	ret = *d->host ? host_add(f, d->host) : 0;
	if (ret == -EEXIST) {
		pr_err("%s: host '%s' was read already: skipped (one summary per host)", path, d->host);
		f->dup++;
		ret = skip(f, path, "duplicate host");
	} else if (!ret) {
		ret = fleet_add(f, d);
	}
	return ret;
}

/* ---- the rule ------------------------------------------------------------- */

bool fleet_result_row(const struct fleet_row *r)
{
	/* compare-n.c's last section, emitted only with all_rows */
	return !strncmp(compare_n_section(&r->head), "every result line", 17);
}

/* The row's machines: median, p10 and p90 and the robust spread of the
 * logs. x: scratch for s->n values. */
static int row_stats(struct fleet_row *s, double *x)
{
	struct summary sum;

	for (size_t j = 0; j < s->n; j++)
		x[j] = s->v[j];
	if (!s->n)
		return 0;
	if (stats_summarize(x, s->n, &sum) < 0)
		return -ENOMEM;
	s->median = sum.median;
	s->p10 = sum.p10;
	s->p90 = sum.p90;
	s->mlog = log(sum.median);
	for (size_t j = 0; j < s->n; j++)
		x[j] = fabs(log(s->v[j]) - s->mlog);
	s->spread = FLEET_MAD_SD * stats_median(x, s->n);
	s->judged = s->n >= FLEET_MIN;
	return 0;
}

/* A difference d (of logs) over a spread as t with df degrees of freedom,
 * two-sided: beyond no spread at all is beyond it. BH compares p only with
 * q k / m <= q: a |t| under 1.96 has p over 5% for any df (the normal's is
 * the smallest), and is never rejected, so its exact p is not computed
 * (1): at 10,000 machines most of the CPU went there. */
static double t_p(double d, double spread, double df)
{
	double t = spread > 0 ? d / spread : copysign(INFINITY, d);

	if (d == 0 || fabs(t) < 1.96)
		return 1;
	return stats_t_pvalue(t, df);
}

/* A group's figures in a row: its members' logs (x, scratch), their median
 * against the fleet's, over the larger of the fleet's spread and the
 * group's own, as the standard error of a median. */
static void group_test(const struct fleet *f, const struct fleet_row *s, size_t dim, size_t value, double *x,
		       struct fleet_shift *g)
{
	double med, own, sp, se, t, df;
	size_t n = 0;

	for (size_t j = 0; j < s->n; j++) {
		uint32_t v = f->mach[s->m[j]].val[dim];

		if (v != FLEET_NONE && val_index(v) == value)
			x[n++] = log(s->v[j]);
	}
	*g = (struct fleet_shift){ .dim = dim, .value = value, .n = n, .p = NAN };
	if (n < FLEET_MIN || n == s->n)
		return;
	med = stats_median(x, n);
	for (size_t j = 0; j < n; j++)
		x[j] = fabs(x[j] - med);
	own = FLEET_MAD_SD * stats_median(x, n);
	sp = fmax(s->spread, own);
	/* the degrees of freedom of the spread used: the fleet's or the group's */
	df = FLEET_MAD_EFF * ((double)(sp == s->spread ? s->n : n) - 1);
	se = FLEET_MEDIAN_SE * sp / sqrt((double)n);
	t = stats_t_quantile(0.975, df);
	g->median = exp(med);
	g->change = exp(med - s->mlog) - 1;
	g->lo = exp(med - s->mlog - t * se) - 1;
	g->hi = exp(med - s->mlog + t * se) - 1;
	g->z = se > 0 ? (med - s->mlog) / se : copysign(INFINITY, med - s->mlog);
	g->p = t_p(med - s->mlog, se, df);
}

/* A moved group lies wholly beyond the margin: its interval leaves out
 * every change within it. */
static bool moved(const struct fleet *f, const struct fleet_shift *g)
{
	return g->lo > f->margin || g->hi < -f->margin;
}

static int by_change(const void *a, const void *b)
{
	const struct fleet_shift *x = a, *y = b;
	double u = fabs(log1p(x->change)), v = fabs(log1p(y->change));

	return u < v ? 1 : u > v ? -1 : x->row < y->row ? -1 : x->row > y->row;
}

/* Every (row, key, group) of two or more groups tested; those BH keeps at
 * COMPARE_Q that moved beyond the margin kept, largest change first. */
static int find_shifts(struct fleet *f, double *x)
{
	struct fleet_shift *all;
	size_t m = 0, k;
	double *p;
	bool *rej;
	int ret;

	for (size_t d = 0; d < f->ndim; d++)
		m += f->dim[d].nvalue > 1 ? f->dim[d].nvalue : 0;
	m *= f->nrows;
	all = calloc(m ? m : 1, sizeof(*all));
	p = calloc(m ? m : 1, sizeof(*p));
	rej = calloc(m ? m : 1, sizeof(*rej));
	ret = all && p && rej ? 0 : -ENOMEM;
	m = 0;
	for (size_t i = 0; !ret && i < f->nrows; i++)
		for (size_t d = 0; f->row[i].judged && d < f->ndim; d++)
			for (size_t v = 0; f->dim[d].nvalue > 1 && v < f->dim[d].nvalue; v++) {
				if (f->dim[d].count[v] < FLEET_MIN)
					continue;
				group_test(f, &f->row[i], d, v, x, &all[m]);
				all[m].row = i;
				p[m] = all[m].p;
				m++;
			}
	if (!ret)
		ret = compare_bh(p, m, COMPARE_Q, rej, &k, &f->gtests);
	f->gthreshold = f->gtests ? fmin(COMPARE_Q, COMPARE_Q * (double)(k + 1) / (double)f->gtests) : NAN;
	for (size_t i = 0; !ret && i < m; i++)
		if (rej[i] && moved(f, &all[i]))
			all[f->nshift++] = all[i];
	if (!ret) {
		qsort(all, f->nshift, sizeof(*all), by_change);
		f->shift = all;
		all = NULL;
	}
	free(all);
	free(p);
	free(rej);
	return ret;
}

/* The moved group of machine j in row i, or NULL. */
static const struct fleet_shift *moved_group(const struct fleet *f, size_t i, size_t j)
{
	for (size_t g = 0; g < f->nshift; g++) {
		const struct fleet_shift *s = &f->shift[g];
		uint32_t v = f->mach[j].val[s->dim];

		if (s->row == i && v != FLEET_NONE && val_index(v) == s->value)
			return s;
	}
	return NULL;
}

/* Beyond FLEET_K robust sds, the margin, and where the cell has epochs its
 * own noise (the 95% interval of its epochs' mean leaves out the
 * reference). d: the difference of logs from the reference. */
static bool far(const struct fleet *f, double d, double spread, double own)
{
	d = fabs(d);
	return d > FLEET_K * spread && d > log1p(f->margin) && d > own;
}

static int by_named(const void *a, const void *b)
{
	const struct fleet_named *x = a, *y = b;
	double u = fabs(log1p(x->change)), v = fabs(log1p(y->change));

	return u < v ? 1 : u > v ? -1 : x->row < y->row ? -1 : x->row > y->row;
}

/* Every judged cell against its reference: the fleet's median and spread,
 * or, in a row where the machine's group moved, the group's median (its
 * members share the group's line, and one beyond its group is named).
 * BH at COMPARE_Q over every cell; those far enough named, largest first.
 * at: each row's first cell in p. */
static int find_named(struct fleet *f)
{
	size_t m = 0, k, *at = calloc(f->nrows + 1, sizeof(*at));
	double *p;
	bool *rej;
	int ret = 0;

	for (size_t i = 0; at && i < f->nrows; i++)
		at[i + 1] = m += f->row[i].judged ? f->row[i].n : 0;
	p = malloc((m ? m : 1) * sizeof(*p));
	rej = malloc((m ? m : 1) * sizeof(*rej));
	if (!at || !p || !rej)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < f->nrows; i++) {
		const struct fleet_row *s = &f->row[i];

		for (size_t j = 0; s->judged && j < s->n; j++) {
			const struct fleet_shift *g = f->nshift ? moved_group(f, i, s->m[j]) : NULL;
			double ref = g ? log(g->median) : s->mlog;

			p[at[i] + j] = t_p(log(s->v[j]) - ref, s->spread, FLEET_MAD_EFF * ((double)s->n - 1));
		}
	}
	if (!ret)
		ret = compare_bh(p, m, COMPARE_Q, rej, &k, &f->tests);
	/* BH lets about one name in twenty be false: with a few real names
	 * in 4 million cells its cut relaxes to z 5.4, where a normal fleet
	 * has a false cell in one compare of three. A name sends someone
	 * to a machine: the cell alone must also lie below q / tests
	 * (Bonferroni), so a compare names a false cell in at most q of the
	 * times, however many real ones it names. */
	f->threshold = f->tests ? COMPARE_Q / (double)f->tests : NAN;
	f->named = !ret ? malloc((k ? k : 1) * sizeof(*f->named)) : NULL;
	if (!ret && !f->named)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < f->nrows; i++) {
		struct fleet_row *s = &f->row[i];

		for (size_t j = 0; s->judged && j < s->n; j++) {
			const struct fleet_shift *g = f->nshift ? moved_group(f, i, s->m[j]) : NULL;
			double ref = g ? log(g->median) : s->mlog, d = log(s->v[j]) - ref;
			struct fleet_machine *mc = &f->mach[s->m[j]];

			if (!rej[at[i] + j] || !(p[at[i] + j] < f->threshold) || !far(f, d, s->spread, s->own[j]))
				continue;
			f->named[f->nnamed++] = (struct fleet_named){ .row = i, .machine = s->m[j], .v = s->v[j],
				.ref = exp(ref), .change = expm1(d), .z = s->spread > 0 ? d / s->spread : copysign(INFINITY, d),
				.p = p[at[i] + j] };
			s->named++;
			f->machines_named += !mc->named;
			mc->named = true;
		}
	}
	if (!ret)
		qsort(f->named, f->nnamed, sizeof(*f->named), by_named);
	free(at);
	free(p);
	free(rej);
	return ret;
}

/* Rows in section order (a row first met in a later machine went to the
 * end), stable: insertion. */
static void sort_rows(struct fleet *f)
{
	for (size_t i = 1; i < f->nrows; i++) {
		struct fleet_row r = f->row[i];
		size_t j = i;

		for (; j > 0 && f->row[j - 1].head.section > r.head.section; j--)
			f->row[j] = f->row[j - 1];
		f->row[j] = r;
	}
}

int fleet_judge(struct fleet *f)
{
	size_t most = 0;
	double *x;
	int ret = 0;

	if (f->group_by && !f->ndim) {
		pr_err("compare: --group-by '%s': no machine has that key (keys: cpu, microcode, kernel, bios, and the labels of the fingerprint: partition, features, group, ...)",
		       f->group_by);
		return -EINVAL;
	}
	sort_rows(f);
	for (size_t i = 0; i < f->nrows; i++)
		most = f->row[i].n > most ? f->row[i].n : most;
	x = malloc((most ? most : 1) * sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < f->nrows && !ret; i++)
		ret = row_stats(&f->row[i], x);
	if (!ret)
		ret = find_shifts(f, x);
	if (!ret)
		ret = find_named(f);
	free(x);
	return ret;
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; i < f->nrows; i++) {
		free(f->row[i].v);
		free(f->row[i].own);
		free(f->row[i].m);
	}
	for (size_t d = 0; d < f->ndim; d++) {
		free(f->dim[d].value);
		free(f->dim[d].count);
	}
	for (size_t i = 0; i < f->hostcap; i++)
		free(f->host[i]);
	free(f->host);
	free(f->row);
	free(f->mach);
	free(f->skip);
	free(f->named);
	free(f->shift);
	memset(f, 0, sizeof(*f));
}
