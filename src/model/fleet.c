/* SPDX-License-Identifier: MIT */
/* fleet.c - a fleet compare (fleet.h): per row the fleet's median and
 * robust spread, the machines beyond it named. Reads documents, never
 * measures. */
#include "fleet.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "common.h"
#include "report.h"
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
			skip(in, path, ret == -ENOENT ? "cannot read" : "not a summary (truncated, not JSON or another schema)");
			continue;
		}
		twin = same_host(in, d);
		if (twin) {
			pr_err("%s: host '%s' was read from %s already: skipped (one summary per host)", path, d->host,
			       twin->path);
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

/* p of d / sd with df degrees of freedom where the spread may be 0: a
 * difference over no spread at all is beyond it. */
static double p_of(double d, double sd, double df)
{
	if (sd > 0)
		return stats_t_pvalue(d / sd, df);
	return d == 0 ? 1 : 0;
}

/* A cell's p-value: its difference from the fleet median over the fleet's
 * spread, t with the degrees of freedom of the spread: a MAD estimates a
 * normal sd with FLEET_MAD_EFF of the efficiency of the sd (Rousseeuw
 * and Croux 1993), so it is worth that share of n - 1. */
static double cell_p(const struct fleet_row *s, const struct compare_n_cell *k)
{
	return p_of(log(k->v) - s->mlog, s->spread, FLEET_MAD_EFF * ((double)s->n - 1));
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

/* Name the cells BH rejects that are far enough, by row then machine. */
static int name_cells(struct fleet *f, const double *p, const bool *rej)
{
	const struct compare_n *c = &f->cn;
	bool *hit = calloc(c->ncols, sizeof(*hit));

	if (!hit)
		return -ENOMEM;
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t j = 0; j < c->ncols; j++) {
			const struct compare_n_cell *k = &c->rows[i].cells[j];
			struct fleet_row *s = &f->row[i];
			struct fleet_named *nm, *more;

			if (!rej[i * c->ncols + j] || !far(f, s, k))
				continue;
			more = realloc(f->named, (f->nnamed + 1) * sizeof(*more));
			if (!more) {
				free(hit);
				return -ENOMEM;
			}
			f->named = more;
			nm = &f->named[f->nnamed++];
			*nm = (struct fleet_named){ .row = i, .col = j, .change = k->v / s->median - 1,
						    .z = z_of(s, k), .p = p[i * c->ncols + j] };
			s->named++;
			f->group[f->group_of[j]].named += !hit[j];
			f->machines_named += !hit[j];
			hit[j] = true;
		}
	free(hit);
	return 0;
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
			 *d->family ? d->family : "?", *d->model ? d->model : "?", *d->microcode ? d->microcode : "?");
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
		ret = name_cells(f, p, rej);
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

/* ---- writers -------------------------------------------------------------- */

static void fleet_rule(const struct fleet *f, char *buf, size_t len)
{
	snprintf(buf, len,
		 "Each row over the machines that have it: the fleet median, p10 and p90, and the spread (%.4g x the median absolute deviation of the logs: a robust relative sd). "
		 "A machine is named in a row when its difference from the fleet median lies beyond %.1f spreads, beyond %.0f%% (--min-change), "
		 "beyond its own noise where its summary holds epochs (the 95%% interval of its epochs' mean leaves the fleet median out), "
		 "and its difference over the spread (t, %.2f (machines - 1) df: the MAD's efficiency) survives Benjamini-Hochberg at %.0f%% over the %zu rows x machines tested (p below %.3g here). "
		 "Rows held by fewer than %d machines are not judged. "
		 "The whole fleet is every machine's reference: a group of another CPU or microcode shows as names in the rows it differs in.",
		 FLEET_MAD_SD, FLEET_K, f->margin * 100, FLEET_MAD_EFF, COMPARE_Q * 100, f->tests, f->threshold, FLEET_MIN);
}

static void skipped_text(const struct fleet *f, char *buf, size_t len)
{
	size_t unread = 0, dup = 0;

	for (size_t i = 0; i < f->in->nskip; i++) {
		unread += !strcmp(f->in->skip[i].why, "cannot read");
		dup += !strcmp(f->in->skip[i].why, "duplicate host");
	}
	snprintf(buf, len, "%zu of %zu files skipped: %zu cannot be read, %zu not a summary, %zu duplicate host",
		 f->in->nskip, f->in->files, unread, f->in->nskip - unread - dup, dup);
}

/* v in the row's unit, three significant digits or so. */
static void fmt(const struct compare_n_row *r, double v, char *buf, size_t len)
{
	snprintf(buf, len, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
	if (!strcmp(r->unit, "x"))
		strncat(buf, "x", len - strlen(buf) - 1);
}

static void text_head(const struct fleet *f, FILE *out)
{
	char buf[2048];

	skipped_text(f, buf, sizeof(buf));
	fprintf(out, "# atomcost compare: a fleet of %zu machines, %zu rows (%s)\n", f->cn.ncols, f->cn.nrows, buf);
	for (size_t i = 0; i < f->in->nskip; i++)
		fprintf(out, "# skipped %s: %s\n", f->in->skip[i].path, f->in->skip[i].why);
	fprintf(out, "# %zu groups by CPU model, family/model and microcode:\n", f->ngroup);
	for (size_t g = 0; g < f->ngroup; g++)
		fprintf(out, "#   g%-3zu %5zu machines, %zu named: %s\n", g + 1, f->group[g].n, f->group[g].named,
			f->group[g].label);
	fleet_rule(f, buf, sizeof(buf));
	report_mail_wrap(out, "# ", buf);
}

/* The names of a row: how many, "-" when it was not judged. */
static void named_text(const struct fleet_row *s, char *buf, size_t len)
{
	if (s->judged)
		snprintf(buf, len, "%zu", s->named);
	else
		snprintf(buf, len, "-");
}

/* The row's median, p10 and p90 as text. */
static void fmt3(const struct compare_n_row *r, const struct fleet_row *s, char v[3][32])
{
	fmt(r, s->median, v[0], sizeof(v[0]));
	fmt(r, s->p10, v[1], sizeof(v[1]));
	fmt(r, s->p90, v[2], sizeof(v[2]));
}

int fleet_write_text(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;
	char v[3][32], named[16], skipped[256];

	text_head(f, out);
	fprintf(out, "%-56s %-6s %8s %8s %8s %8s %7s %6s\n", "row", "unit", "machines", "median", "p10", "p90", "spread",
		"named");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_n_row *r = &c->rows[i];
		const struct fleet_row *s = &f->row[i];

		if (r->kind == CN_TEXT)
			continue;
		if (i == 0 || r->section != c->rows[i - 1].section)
			fprintf(out, "## %s\n", compare_n_section(r));
		fmt3(r, s, v);
		named_text(s, named, sizeof(named));
		fprintf(out, "  %-54.54s %-6s %8zu %8s %8s %8s %6.1f%% %6s\n", r->label, r->unit, s->n, v[0], v[1],
			v[2], s->spread * 100, named);
	}
	fprintf(out, "## named: %zu cells on %zu machines\n", f->nnamed, f->machines_named);
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct compare_n_row *r = &c->rows[nm->row];

		fmt(r, r->cells[nm->col].v, v[0], sizeof(v[0]));
		fmt(r, f->row[nm->row].median, v[1], sizeof(v[1]));
		fprintf(out, "  %s (g%zu): %s: %s %s against the fleet's %s, %+.1f%% (z %.1f, p %.2g)\n",
			c->cols[nm->col].name, f->group_of[nm->col] + 1, r->label, v[0], r->unit, v[1],
			nm->change * 100, nm->z, nm->p);
	}
	skipped_text(f, skipped, sizeof(skipped));
	fprintf(out, "summary: %zu rows x %zu machines in %zu groups: %zu cells named on %zu machines (of %zu tested); %s\n",
		c->nrows, c->ncols, f->ngroup, f->nnamed, f->machines_named, f->tests, skipped);
	return ferror(out) ? -EIO : 0;
}

/* ---- CSV: one line per row, named cell, group and skipped file ---------- */

static void csv_line(FILE *out, const char *kind, const char *section, const char *row, const char *unit,
		     const char *machine, size_t group)
{
	const char *s[] = { section, row, unit, machine };

	fputs(kind, out);
	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		fputc(',', out);
		report_csv_str(out, s[i] ? s[i] : "");
	}
	if (group)
		fprintf(out, ",g%zu", group);
	else
		fputc(',', out);
}

static void csv_nums(FILE *out, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			fprintf(out, ",%.6g", v[i]);
		else
			fputc(',', out);
	fputc('\n', out);
}

int fleet_write_csv(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;

	fputs("kind,section,row,unit,machine,group,machines,value,median,p10,p90,spread,change,z,p\n", out);
	for (size_t g = 0; g < f->ngroup; g++) {
		double v[] = { (double)f->group[g].n, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };

		csv_line(out, "group", NULL, f->group[g].label, NULL, NULL, g + 1);
		csv_nums(out, v, ARRAY_SIZE(v));
	}
	for (size_t i = 0; i < f->in->nskip; i++) {
		csv_line(out, "skipped", NULL, f->in->skip[i].why, NULL, f->in->skip[i].path, 0);
		csv_nums(out, NULL, 0);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct fleet_row *s = &f->row[i];
		double v[] = { (double)s->n, NAN, s->median, s->p10, s->p90, s->spread, NAN, NAN, NAN };

		if (c->rows[i].kind == CN_TEXT)
			continue;
		csv_line(out, "row", compare_n_section(&c->rows[i]), c->rows[i].label, c->rows[i].unit, NULL, 0);
		csv_nums(out, v, ARRAY_SIZE(v));
	}
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct compare_n_row *r = &c->rows[nm->row];
		const struct fleet_row *s = &f->row[nm->row];
		double v[] = { (double)s->n, r->cells[nm->col].v, s->median, s->p10, s->p90, s->spread,
			       nm->change, nm->z, nm->p };

		csv_line(out, "named", compare_n_section(r), r->label, r->unit, c->cols[nm->col].name,
			 f->group_of[nm->col] + 1);
		csv_nums(out, v, ARRAY_SIZE(v));
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- HTML ----------------------------------------------------------------- */

static void html_cell(FILE *out, const char *s)
{
	fputs("<td>", out);
	report_html_escape(out, s);
	fputs("</td>", out);
}

static void html_head(const struct fleet *f, FILE *out)
{
	char buf[2048];

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		     "<title>atomcost compare: a fleet of %zu machines</title>\n<style>%s</style></head><body>\n"
		     "<h1>atomcost compare: a fleet of %zu machines</h1>\n<p class=\"note\">",
		f->cn.ncols, compare_n_css, f->cn.ncols);
	skipped_text(f, buf, sizeof(buf));
	report_html_escape(out, buf);
	fputs("</p>\n<table class=\"cols\">\n", out);
	for (size_t i = 0; i < f->in->nskip; i++) {
		fputs("<tr><th>skipped</th>", out);
		html_cell(out, f->in->skip[i].path);
		html_cell(out, f->in->skip[i].why);
		fputs("</tr>\n", out);
	}
	for (size_t g = 0; g < f->ngroup; g++) {
		fprintf(out, "<tr><th>g%zu</th><td>%zu machines, %zu named</td>", g + 1, f->group[g].n,
			f->group[g].named);
		html_cell(out, f->group[g].label);
		fputs("</tr>\n", out);
	}
	fleet_rule(f, buf, sizeof(buf));
	fputs("</table>\n<p class=\"note\">", out);
	report_html_escape(out, buf);
	fputs("</p>\n", out);
}

static void html_named(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;
	char v[2][32];

	fprintf(out, "<h2>named: %zu cells on %zu machines</h2>\n<table class=\"n\">\n"
		     "<tr><th>machine</th><th>group</th><th>row</th><th>value</th><th>fleet median</th>"
		     "<th>change</th><th>z</th><th>p</th></tr>\n", f->nnamed, f->machines_named);
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct compare_n_row *r = &c->rows[nm->row];

		fmt(r, r->cells[nm->col].v, v[0], sizeof(v[0]));
		fmt(r, f->row[nm->row].median, v[1], sizeof(v[1]));
		fputs("<tr>", out);
		html_cell(out, c->cols[nm->col].name);
		fprintf(out, "<td>g%zu</td>", f->group_of[nm->col] + 1);
		html_cell(out, r->label);
		fprintf(out, "<td class=\"v\">%s %s</td><td class=\"v\">%s</td><td class=\"v %s\">%+.1f%%</td>"
			     "<td class=\"v\">%.1f</td><td class=\"v\">%.2g</td></tr>\n", v[0], r->unit, v[1],
			nm->change > 0 ? "up" : "down", nm->change * 100, nm->z, nm->p);
	}
	fputs("</table>\n", out);
}

int fleet_write_html(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;
	char v[3][32], named[16];

	html_head(f, out);
	html_named(f, out);
	fputs("<h2>rows</h2>\n<table class=\"n\">\n<tr><th>row</th><th>unit</th><th>machines</th><th>median</th>"
	      "<th>p10</th><th>p90</th><th>spread</th><th>named</th></tr>\n", out);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_n_row *r = &c->rows[i];
		const struct fleet_row *s = &f->row[i];

		if (r->kind == CN_TEXT)
			continue;
		if (i == 0 || r->section != c->rows[i - 1].section) {
			fputs("<tr class=\"sec\"><th colspan=\"8\">", out);
			report_html_escape(out, compare_n_section(r));
			fputs("</th></tr>\n", out);
		}
		fmt3(r, s, v);
		named_text(s, named, sizeof(named));
		fputs("<tr>", out);
		html_cell(out, r->label);
		html_cell(out, r->unit);
		fprintf(out, "<td class=\"v\">%zu</td><td class=\"v\">%s</td><td class=\"v\">%s</td>"
			     "<td class=\"v\">%s</td><td class=\"v\">%.1f%%</td><td class=\"v\">%s</td></tr>\n", s->n,
			v[0], v[1], v[2], s->spread * 100, named);
	}
	fputs("</table>\n<p class=\"note\">Written by atomcost " ATOMCOST_VERSION "; self-contained, no scripts.</p>\n"
	      "</body></html>\n", out);
	return ferror(out) ? -EIO : 0;
}
