/* SPDX-License-Identifier: MIT */
/* report/fleet.c - a fleet compare (fleet.h) as text, CSV and HTML: the
 * rows' medians and spreads, the groups, the machines named. Formats what
 * fleet_build decided, never judges. */
#include "fleet.h"

#include <errno.h>
#include <math.h>

#include "build-config.h"
#include "common.h"
#include "report.h"

static void fleet_rule(const struct fleet *f, char *buf, size_t len)
{
	char p[48] = "nothing tested here";

	if (f->tests && isfinite(f->threshold))
		snprintf(p, sizeof(p), "p below %.3g here", f->threshold);
	snprintf(buf, len,
		 "Each row over the machines that have it: the fleet median, p10 and p90, and the spread (%.4g x the median absolute deviation of the logs: a robust relative sd). "
		 "A machine is named in a row when its difference from the fleet median lies beyond %.1f spreads, beyond %.0f%% (--min-change), "
		 "beyond its own noise where its summary holds epochs (the 95%% interval of its epochs' mean leaves the fleet median out), "
		 "and its difference over the spread (t, %.2f (machines - 1) df: the MAD's efficiency) survives Benjamini-Hochberg at %.0f%% over the %zu rows x machines tested (%s). "
		 "Rows held by fewer than %d machines are not judged. "
		 "The whole fleet is every machine's reference: a group of another CPU or microcode shows as names in the rows it differs in.",
		 FLEET_MAD_SD, FLEET_K, f->margin * 100, FLEET_MAD_EFF, COMPARE_Q * 100, f->tests, p, FLEET_MIN);
}

static void skipped_text(const struct fleet *f, char *buf, size_t len)
{
	const struct fleet_in *in = f->in;

	snprintf(buf, len, "%zu of %zu files skipped: %zu cannot be read, %zu not a summary, %zu duplicate host",
		 in->nskip, in->files, in->unread, in->nskip - in->unread - in->dup, in->dup);
}

/* Rows with figures: the text rows (the machine's name, ...) are not shown. */
static size_t figure_rows(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->cn.nrows; i++)
		n += f->cn.rows[i].kind != CN_TEXT;
	return n;
}

static void text_head(const struct fleet *f, FILE *out)
{
	char buf[2048];

	skipped_text(f, buf, sizeof(buf));
	fprintf(out, "# atomcost compare: a fleet of %zu machines, %zu rows (%s)\n", f->cn.ncols, figure_rows(f),
		buf);
	for (size_t i = 0; i < f->in->nskip; i++)
		fprintf(out, "# skipped %s: %s\n", f->in->skip[i].path, f->in->skip[i].why);
	fprintf(out, "# %zu group%s by CPU model, family/model and microcode:\n", f->ngroup, f->ngroup == 1 ? "" : "s");
	for (size_t g = 0; g < f->ngroup; g++)
		fprintf(out, "#   g%-3zu %5zu machines, %zu named: %s\n", g + 1, f->group[g].n, f->group[g].named,
			f->group[g].label);
	fleet_rule(f, buf, sizeof(buf));
	report_mail_wrap(out, "# ", buf);
}

/* Row i's median, p10 and p90 as text, and its names: how many, "-" when
 * it was not judged. NULL for a text row (no figures), else the title of
 * the section it opens, "" when it opens none. */
static const char *row_text(const struct fleet *f, size_t i, char v[4][32])
{
	const struct compare_n_row *r = &f->cn.rows[i];
	const struct fleet_row *s = &f->row[i];

	if (r->kind == CN_TEXT)
		return NULL;
	compare_n_value(r, s->median, false, v[0], sizeof(v[0]));
	compare_n_value(r, s->p10, false, v[1], sizeof(v[1]));
	compare_n_value(r, s->p90, false, v[2], sizeof(v[2]));
	snprintf(v[3], sizeof(v[3]), s->judged ? "%zu" : "-", s->named);
	return i == 0 || r->section != f->cn.rows[i - 1].section ? compare_n_section(r) : "";
}

int fleet_write_text(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;
	char v[4][32], skipped[256];

	text_head(f, out);
	fprintf(out, "%-56s %-6s %8s %8s %8s %8s %7s %6s\n", "row", "unit", "machines", "median", "p10", "p90", "spread",
		"named");
	for (size_t i = 0; i < c->nrows; i++) {
		const char *sec = row_text(f, i, v);

		if (sec && *sec)
			fprintf(out, "## %s\n", sec);
		if (sec)
			fprintf(out, "  %-54.54s %-6s %8zu %8s %8s %8s %6.1f%% %6s\n", c->rows[i].label, c->rows[i].unit,
				f->row[i].n, v[0], v[1], v[2], f->row[i].spread * 100, v[3]);
	}
	fprintf(out, "## named: %zu cells on %zu machines\n", f->nnamed, f->machines_named);
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct compare_n_row *r = &c->rows[nm->row];

		compare_n_value(r, r->cells[nm->col].v, false, v[0], sizeof(v[0]));
		compare_n_value(r, f->row[nm->row].median, false, v[1], sizeof(v[1]));
		fprintf(out, "  %s (g%zu): %s: %s %s against the fleet's %s, %+.1f%% (z %.1f, p %.2g)\n",
			c->cols[nm->col].name, f->group_of[nm->col] + 1, r->label, v[0], r->unit, v[1],
			nm->change * 100, nm->z, nm->p);
	}
	skipped_text(f, skipped, sizeof(skipped));
	fprintf(out, "summary: %zu rows x %zu machines in %zu group%s: %zu cells named on %zu machines (of %zu tested); %s\n",
		figure_rows(f), c->ncols, f->ngroup, f->ngroup == 1 ? "" : "s", f->nnamed, f->machines_named, f->tests, skipped);
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

static void html_head(const struct fleet *f, FILE *out)
{
	char buf[2048];

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		     "<title>atomcost compare: a fleet of %zu machines</title>\n<style>%s</style></head><body>\n"
		     "<h1>atomcost compare: a fleet of %zu machines</h1>\n<p class=\"note\">",
		f->cn.ncols, compare_n_css, f->cn.ncols);
	skipped_text(f, buf, sizeof(buf));
	report_htmlf(out, "%s</p>\n<table class=\"cols\">\n", buf);
	for (size_t i = 0; i < f->in->nskip; i++)
		report_htmlf(out, "<tr><th>skipped</th><td>%s</td><td>%s</td></tr>\n", f->in->skip[i].path,
			     f->in->skip[i].why);
	for (size_t g = 0; g < f->ngroup; g++)
		report_htmlf(out, "<tr><th>g%zu</th><td>%zu machines, %zu named</td><td>%s</td></tr>\n", g + 1,
			     f->group[g].n, f->group[g].named, f->group[g].label);
	fleet_rule(f, buf, sizeof(buf));
	report_htmlf(out, "</table>\n<p class=\"note\">%s</p>\n", buf);
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

		compare_n_value(r, r->cells[nm->col].v, false, v[0], sizeof(v[0]));
		compare_n_value(r, f->row[nm->row].median, false, v[1], sizeof(v[1]));
		report_htmlf(out, "<tr><td>%s</td><td>g%zu</td><td>%s</td><td class=\"v\">%s %s</td><td class=\"v\">%s</td>"
			     "<td class=\"v %s\">%+.1f%%</td><td class=\"v\">%.1f</td><td class=\"v\">%.2g</td></tr>\n",
			     c->cols[nm->col].name, f->group_of[nm->col] + 1, r->label, v[0], r->unit, v[1],
			     nm->change > 0 ? "up" : "down", nm->change * 100, nm->z, nm->p);
	}
	fputs("</table>\n", out);
}

int fleet_write_html(const struct fleet *f, FILE *out)
{
	const struct compare_n *c = &f->cn;
	char v[4][32];

	html_head(f, out);
	html_named(f, out);
	fputs("<h2>rows</h2>\n<table class=\"n\">\n<tr><th>row</th><th>unit</th><th>machines</th><th>median</th>"
	      "<th>p10</th><th>p90</th><th>spread</th><th>named</th></tr>\n", out);
	for (size_t i = 0; i < c->nrows; i++) {
		const char *sec = row_text(f, i, v);

		if (sec && *sec)
			report_htmlf(out, "<tr class=\"sec\"><th colspan=\"8\">%s</th></tr>\n", sec);
		if (sec)
			report_htmlf(out, "<tr><td>%s</td><td>%s</td><td class=\"v\">%zu</td><td class=\"v\">%s</td>"
				     "<td class=\"v\">%s</td><td class=\"v\">%s</td><td class=\"v\">%.1f%%</td>"
				     "<td class=\"v\">%s</td></tr>\n", c->rows[i].label, c->rows[i].unit, f->row[i].n,
				     v[0], v[1], v[2], f->row[i].spread * 100, v[3]);
	}
	fputs("</table>\n<p class=\"note\">Written by atomcost " ATOMCOST_VERSION "; self-contained, no scripts.</p>\n"
	      "</body></html>\n", out);
	return ferror(out) ? -EIO : 0;
}
