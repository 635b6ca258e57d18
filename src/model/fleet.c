/* SPDX-License-Identifier: MIT */
/* fleet.c - a fleet compare (fleet.h): reads documents, never measures. */
#include "fleet.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"

/* ---- reading -------------------------------------------------------------- */

static void skip(struct fleet_in *in, const char *path, const char *why)
{
	struct fleet_skip *s = &in->skip[in->nskip++];

	snprintf(s->path, sizeof(s->path), "%s", path);
	s->why = why;
}

/* The document read before d with d's host, or NULL. */
static const struct compare_n_doc *same_host(const struct fleet_in *in, const struct compare_n_doc *d)
{
	for (size_t i = 0; *d->host && i < in->n; i++)
		if (!strcmp(in->docs[i].host, d->host))
			return &in->docs[i];
	return NULL;
}

int fleet_read(char *const *paths, size_t n, struct fleet_in *in)
{
	memset(in, 0, sizeof(*in));
	in->docs = calloc(n ? n : 1, sizeof(*in->docs));
	in->skip = calloc(n ? n : 1, sizeof(*in->skip));
	if (!in->docs || !in->skip) {
		fleet_in_free(in);
		return -ENOMEM;
	}
	for (in->files = 0; in->files < n; in->files++) {
		const char *path = paths[in->files];
		struct compare_n_doc *d = &in->docs[in->n];
		const struct compare_n_doc *twin;
		int ret = report_read_summary(path, d);	/* says what is wrong */

		if (ret == -ENOMEM) {
			fleet_in_free(in);
			return ret;
		}
		if (ret < 0) {
			in->unread += ret == -ENOENT;
			skip(in, path, ret == -ENOENT ? "cannot read" : "not a summary (truncated, not JSON or another schema)");
			continue;
		}
		twin = same_host(in, d);
		if (twin) {
			pr_err("%s: host '%s' was read from %s already: skipped (one summary per host)", path, d->host,
			       twin->path);
			in->dup++;
			skip(in, path, "duplicate host");
			report_free_summary(d);
			continue;
		}
		in->n++;
	}
	return 0;
}

void fleet_in_free(struct fleet_in *in)
{
	for (size_t i = 0; in->docs && i < in->n; i++)
		report_free_summary(&in->docs[i]);
	free(in->docs);
	free(in->skip);
	memset(in, 0, sizeof(*in));
}

/* ---- the rule ------------------------------------------------------------- */

/* The row's machines: median, p10, p90 and the robust spread of the logs.
 * x: scratch for ncols values. */
static int row_stats(const struct compare_n_row *r, size_t ncols, double *x, struct fleet_row *s)
{
	struct summary sum;
	size_t n = 0;

	for (size_t j = 0; j < ncols; j++)
		if (r->cells[j].present && r->cells[j].v > 0)
			x[n++] = r->cells[j].v;
	s->n = n;
	if (!n || r->kind == CN_TEXT)
		return 0;
	if (stats_summarize(x, n, &sum) < 0)
		return -ENOMEM;
	s->median = sum.median;
	s->p10 = sum.p10;
	s->p90 = sum.p90;
	s->mlog = log(sum.median);
	for (size_t j = 0; j < n; j++)
		x[j] = fabs(log(x[j]) - s->mlog);
	s->spread = FLEET_MAD_SD * stats_median(x, n);
	s->judged = n >= FLEET_MIN;
	return 0;
}

/* Beyond FLEET_K robust sds, the margin, and where the cell has epochs its
 * own noise: the 95% interval of its epochs' mean (their relative sd for
 * the sd of their logs) leaves out the fleet median. */
static bool far(const struct fleet *f, const struct fleet_row *s, const struct compare_n_cell *k)
{
	double d = fabs(log(k->v) - s->mlog), own = 0;

	if (k->nep >= 2)
		own = stats_t_quantile(0.975, (double)k->nep - 1) * stats_rel_sd(k->ep, k->nep) /
		      sqrt((double)k->nep);
	return d > FLEET_K * s->spread && d > log1p(f->margin) && d > own;
}

/* The cell's difference in spreads (infinite over none). */
static double z_of(const struct fleet_row *s, const struct compare_n_cell *k)
{
	double d = log(k->v) - s->mlog;

	return s->spread > 0 ? d / s->spread : copysign(INFINITY, d);
}

/* A cell's p-value: its difference from the fleet median over the fleet's
 * spread, t with the degrees of freedom of the spread: a MAD estimates a
 * normal sd with FLEET_MAD_EFF of the efficiency of the sd (Rousseeuw
 * and Croux 1993), so it is worth that share of n - 1. A difference over
 * no spread at all is beyond it. */
static double cell_p(const struct fleet_row *s, const struct compare_n_cell *k)
{
	double df = FLEET_MAD_EFF * ((double)s->n - 1);

	return log(k->v) == s->mlog ? 1 : stats_t_pvalue(z_of(s, k), df);
}

/* Every row's statistics and every cell's p (NAN: not tested). */
static int test_cells(struct fleet *f, double *p)
{
	const struct compare_n *c = &f->cn;
	double *x = malloc(c->ncols * sizeof(*x));
	int ret = 0;

	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < c->nrows && !ret; i++) {
		struct fleet_row *s = &f->row[i];

		ret = row_stats(&c->rows[i], c->ncols, x, s);
		for (size_t j = 0; j < c->ncols; j++) {
			const struct compare_n_cell *k = &c->rows[i].cells[j];

			p[i * c->ncols + j] = s->judged && k->present && k->v > 0 ? cell_p(s, k) : NAN;
		}
	}
	free(x);
	return ret;
}

/* Name the cells BH rejects (nrej) that are far enough, by row then machine. */
static int name_cells(struct fleet *f, const double *p, const bool *rej, size_t nrej)
{
	const struct compare_n *c = &f->cn;
	bool *hit = calloc(c->ncols, sizeof(*hit));
	int ret = -ENOMEM;

	f->named = malloc((nrej ? nrej : 1) * sizeof(*f->named));
	for (size_t i = 0; hit && f->named && i < c->nrows; i++)
		for (size_t j = 0; j < c->ncols; j++) {
			const struct compare_n_cell *k = &c->rows[i].cells[j];
			struct fleet_row *s = &f->row[i];

			if (!rej[i * c->ncols + j] || !far(f, s, k))
				continue;
			f->named[f->nnamed++] = (struct fleet_named){ .row = i, .col = j,
				.change = k->v / s->median - 1, .z = z_of(s, k), .p = p[i * c->ncols + j] };
			s->named++;
			f->group[f->group_of[j]].named += !hit[j];
			f->machines_named += !hit[j];
			hit[j] = true;
		}
	if (hit && f->named)
		ret = 0;
	free(hit);
	return ret;
}

/* Groups by CPU model, family/model and microcode, in order of first
 * appearance. */
static int group_machines(struct fleet *f)
{
	size_t n = f->cn.ncols;

	f->group = calloc(n, sizeof(*f->group));
	f->group_of = calloc(n, sizeof(*f->group_of));
	if (!f->group || !f->group_of)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		const struct compare_n_doc *d = f->cn.cols[j].doc;
		char label[sizeof(f->group->label)];
		size_t g;

		snprintf(label, sizeof(label), "%s %s/%s microcode %s", *d->model_name ? d->model_name : "unknown CPU",
			 cn_known(d->family), cn_known(d->model), cn_known(d->microcode));
		for (g = 0; g < f->ngroup && strcmp(f->group[g].label, label); g++)
			;
		if (g == f->ngroup)
			snprintf(f->group[f->ngroup++].label, sizeof(label), "%s", label);
		f->group[g].n++;
		f->group_of[j] = g;
	}
	return 0;
}

int fleet_build(const struct fleet_in *in, const struct compare_n_opts *o, struct fleet *f)
{
	struct compare_n_opts fo = *o;
	size_t m, k;
	double *p = NULL;
	bool *rej = NULL;
	int ret;

	memset(f, 0, sizeof(*f));
	f->in = in;
	f->margin = fmax(o->min_change, NOISE_FLOOR_MIN);
	fo.fleet = true;
	ret = compare_n_build(in->docs, in->n, &fo, &f->cn);
	if (ret < 0)
		return ret;
	m = f->cn.nrows * f->cn.ncols;
	f->row = calloc(f->cn.nrows ? f->cn.nrows : 1, sizeof(*f->row));
	p = malloc((m ? m : 1) * sizeof(*p));
	rej = malloc((m ? m : 1) * sizeof(*rej));
	ret = f->row && p && rej ? group_machines(f) : -ENOMEM;
	if (!ret)
		ret = test_cells(f, p);
	if (!ret)
		ret = compare_bh(p, m, COMPARE_Q, rej, &k, &f->tests);
	f->threshold = f->tests ? fmin(COMPARE_Q, COMPARE_Q * (double)(k + 1) / (double)f->tests) : NAN;
	if (!ret)
		ret = name_cells(f, p, rej, k);
	free(p);
	free(rej);
	if (ret < 0)
		fleet_free(f);
	return ret;
}

void fleet_free(struct fleet *f)
{
	compare_n_free(&f->cn);
	free(f->row);
	free(f->group);
	free(f->group_of);
	free(f->named);
	memset(f, 0, sizeof(*f));
}
