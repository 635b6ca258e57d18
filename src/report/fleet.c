/* SPDX-License-Identifier: MIT */
/* report/fleet.c - a fleet compare (fleet.h) as text, CSV, HTML and JSON: the
 * groups that moved, the machines named (largest change first), the rows'
 * medians and spreads. Formats what fleet_judge decided, never judges. */
#include "fleet.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "build-config.h"
#include "common.h"
#include "report.h"

static void fleet_rule(const struct fleet *f, char *buf, size_t len)
{
	char p[48] = "nothing tested here", g[48] = "none tested here";

	if (f->tests && isfinite(f->threshold))
		snprintf(p, sizeof(p), "p below %.3g here", f->threshold);
	if (f->gtests && isfinite(f->gthreshold))
		snprintf(g, sizeof(g), "p below %.3g here", f->gthreshold);
	snprintf(buf, len,
		 "Each row over the machines that have it: the fleet median, p10 and p90, and the spread (%.4g x the median absolute deviation of the logs: a robust relative sd). "
		 "A group (machines that share a key: CPU, microcode, kernel, BIOS, a label such as a Slurm partition or an inventory group) moved in a row when the 95%% interval of its median's change from the fleet median (its standard error %.4g x the larger of the fleet's and the group's spread over sqrt(members), t with %.2f (machines - 1) df of the spread used) lies wholly beyond %.0f%% (--min-change), "
		 "and survives Benjamini-Hochberg at %.0f%% over the %zu rows x groups of at least %d tested (%s). "
		 "A machine is named in a row when its difference from its reference (the fleet median, or its moved group's median in the rows its group moved) lies beyond %.1f spreads, beyond %.0f%%, "
		 "beyond its own noise where its summary holds epochs (the 95%% interval of its epochs' mean leaves the reference out), "
		 "and its difference over the spread (t, %.2f (machines - 1) df: the MAD's efficiency) survives Benjamini-Hochberg at %.0f%% over the %zu rows x machines tested and, alone, %.0f%% over that count (Bonferroni: %s). "
		 "False alarms: at most %.2f falsely named machines expected per compare, at 10,000 machines as at 10, however many real outliers it names; at most %.2f falsely moved groups expected per compare when no group moved, and at most %.0f%% of the moved groups when some did. "
		 "Rows held by fewer than %d machines are not judged.",
		 FLEET_MAD_SD, FLEET_MEDIAN_SE, FLEET_MAD_EFF, f->margin * 100, COMPARE_Q * 100, f->gtests, FLEET_MIN, g,
		 FLEET_K, f->margin * 100, FLEET_MAD_EFF, COMPARE_Q * 100, f->tests, COMPARE_Q * 100, p, COMPARE_Q,
		 COMPARE_Q, COMPARE_Q * 100, FLEET_MIN);
}

static void skipped_text(const struct fleet *f, char *buf, size_t len)
{
	snprintf(buf, len, "%zu of %zu files skipped: %zu cannot be read, %zu not a summary, %zu duplicate host",
		 f->nskip, f->files, f->unread, f->nskip - f->unread - f->dup, f->dup);
}

/* Rows shown: the card's, every row with --all. */
static bool shown(const struct fleet *f, size_t i)
{
	return f->o.all_rows || !fleet_result_row(&f->row[i]);
}


/* "microcode 0x1000065" */
static void group_name(const struct fleet *f, const struct fleet_shift *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", f->dim[g->dim].key, f->dim[g->dim].value[g->value]);
}

static bool member(const struct fleet *f, const struct fleet_shift *g, size_t j)
{
	uint32_t v = f->mach[j].val[g->dim];

	return v != FLEET_NONE && (v & 0xffffff) == g->value;
}

/* The moved group a named cell was held against, or NULL (the fleet). */
static const struct fleet_shift *named_group(const struct fleet *f, const struct fleet_named *nm)
{
	for (size_t g = 0; g < f->nshift; g++)
		if (f->shift[g].row == nm->row && member(f, &f->shift[g], nm->machine))
			return &f->shift[g];
	return NULL;
}

/* What a named cell was held against: "the fleet's", or its moved group's. */
static void reference(const struct fleet *f, const struct fleet_named *nm, char *buf, size_t len)
{
	const struct fleet_shift *g = named_group(f, nm);
	char name[160];

	if (g)
		group_name(f, g, name, sizeof(name));
	snprintf(buf, len, "%s's", g ? name : "the fleet");
}

/* A moved group's name, its median and the fleet's as cells show them. */
static const struct fleet_row *shift_text(const struct fleet *f, const struct fleet_shift *g, char name[160],
					  char v[][32])
{
	const struct fleet_row *s = &f->row[g->row];

	group_name(f, g, name, 160);
	compare_n_value(&s->head, g->median, false, v[0], 32);
	compare_n_value(&s->head, s->median, false, v[1], 32);
	return s;
}

/* A named cell's figure and reference as cells show them, and whose. */
static const struct fleet_row *named_text(const struct fleet *f, const struct fleet_named *nm, char v[][32],
					  char ref[200])
{
	const struct fleet_row *s = &f->row[nm->row];

	compare_n_value(&s->head, nm->v, false, v[0], 32);
	compare_n_value(&s->head, nm->ref, false, v[1], 32);
	reference(f, nm, ref, 200);
	return s;
}

static void text_head(const struct fleet *f, FILE *out)
{
	char buf[4096];

	skipped_text(f, buf, sizeof(buf));
	fprintf(out, "# atomcost compare: a fleet of %zu machines, %zu rows (%s)\n", f->nmach, f->nrows, buf);
	for (size_t i = 0; i < f->nskip; i++)
		fprintf(out, "# skipped %s: %s\n", f->skip[i].path, f->skip[i].why);
	fprintf(out, "# groups by %zu key%s%s:\n", f->ndim, f->ndim == 1 ? "" : "s", f->group_by ? " (--group-by)" : "");
	for (size_t d = 0; d < f->ndim; d++) {
		fprintf(out, "#   %s:", f->dim[d].key);
		for (size_t v = 0; v < f->dim[d].nvalue; v++)
			fprintf(out, "%s %s (%zu)", v ? "," : "", f->dim[d].value[v], f->dim[d].count[v]);
		fputc('\n', out);
	}
	fleet_rule(f, buf, sizeof(buf));
	report_mail_wrap(out, "# ", buf);
}

/* Row i's median, p10 and p90 as text, and its names: how many, "-" when
 * it was not judged. */
static void row_text(const struct fleet *f, size_t i, char v[4][32])
{
	const struct fleet_row *s = &f->row[i];

	compare_n_value(&s->head, s->median, false, v[0], sizeof(v[0]));
	compare_n_value(&s->head, s->p10, false, v[1], sizeof(v[1]));
	compare_n_value(&s->head, s->p90, false, v[2], sizeof(v[2]));
	snprintf(v[3], sizeof(v[3]), s->judged ? "%zu" : "-", s->named);
}

/* The section row i opens, "" when it opens none. */
static const char *opens(const struct fleet *f, size_t i)
{
	return i == 0 || f->row[i].head.section != f->row[i - 1].head.section ? compare_n_section(&f->row[i].head) : "";
}

static void text_members(const struct fleet *f, const struct fleet_shift *g, FILE *out)
{
	size_t col = 0;

	fputs("    members:", out);
	for (size_t j = 0; j < f->nmach; j++)
		if (member(f, g, j)) {
			if (col++ % 8 == 0 && col > 1)
				fputs("\n            ", out);
			fprintf(out, " %s", f->mach[j].name);
		}
	fputc('\n', out);
}

int fleet_write_text(const struct fleet *f, bool members, FILE *out)
{
	char v[4][32], skipped[256], name[160], ref[200];

	text_head(f, out);
	fprintf(out, "## groups that moved: %zu (largest change first)\n", f->nshift);
	for (size_t i = 0; i < f->nshift; i++) {
		const struct fleet_shift *g = &f->shift[i];
		const struct fleet_row *s = shift_text(f, g, name, v);

		fprintf(out, "  %s: %zu machines, %s %+.1f%% [%+.1f,%+.1f] (%s %s against the fleet's %s; z %.1f, p %.2g)\n",
			name, g->n, s->head.label, g->change * 100, g->lo * 100, g->hi * 100, v[0], s->head.unit, v[1],
			g->z, g->p);
		if (members)
			text_members(f, g, out);
	}
	fprintf(out, "## machines named: %zu cells on %zu machines (largest change first)\n", f->nnamed,
		f->machines_named);
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct fleet_row *s = named_text(f, nm, v, ref);

		fprintf(out, "  %s: %s: %s %s against %s %s, %+.1f%% (z %.1f, p %.2g)\n", f->mach[nm->machine].name,
			s->head.label, v[0], s->head.unit, ref, v[1], nm->change * 100, nm->z, nm->p);
	}
	fprintf(out, "## rows%s\n", f->o.all_rows ? "" : " (the card's; --all: every result line too)");
	fprintf(out, "%-56s %-6s %8s %8s %8s %8s %7s %6s\n", "row", "unit", "machines", "median", "p10", "p90", "spread",
		"named");
	for (size_t i = 0; i < f->nrows; i++) {
		if (!shown(f, i))
			continue;
		row_text(f, i, v);
		if (*opens(f, i))
			fprintf(out, "### %s\n", opens(f, i));
		fprintf(out, "  %-54.54s %-6s %8zu %8s %8s %8s %6.1f%% %6s\n", f->row[i].head.label, f->row[i].head.unit,
			f->row[i].n, v[0], v[1], v[2], f->row[i].spread * 100, v[3]);
	}
	skipped_text(f, skipped, sizeof(skipped));
	fprintf(out, "summary: %zu rows x %zu machines: %zu group%s moved (of %zu tested), %zu cells named on %zu machines (of %zu tested); %s\n",
		f->nrows, f->nmach, f->nshift, f->nshift == 1 ? "" : "s", f->gtests, f->nnamed, f->machines_named,
		f->tests, skipped);
	return ferror(out) ? -EIO : 0;
}

/* ---- CSV: one line per group, skipped file, row, moved group, member and
 * named cell ---------------------------------------------------------------- */

static void csv_line(FILE *out, const char *kind, const char *section, const char *row, const char *unit,
		     const char *machine, const char *group)
{
	const char *s[] = { section, row, unit, machine, group };

	fputs(kind, out);
	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		fputc(',', out);
		report_csv_str(out, s[i] ? s[i] : "");
	}
}

/* machines, value, median, p10, p90, spread, change, lo, hi, z, p */
static void csv_nums(FILE *out, const double *v, size_t n)
{
	for (size_t i = 0; i < 11; i++)
		if (v && i < n && isfinite(v[i]))
			fprintf(out, ",%.6g", v[i]);
		else
			fputc(',', out);
	fputc('\n', out);
}

int fleet_write_csv(const struct fleet *f, bool members, FILE *out)
{
	char name[160];

	fputs("kind,section,row,unit,machine,group,machines,value,median,p10,p90,spread,change,lo,hi,z,p\n", out);
	for (size_t d = 0; d < f->ndim; d++)
		for (size_t v = 0; v < f->dim[d].nvalue; v++) {
			double n[] = { (double)f->dim[d].count[v] };

			snprintf(name, sizeof(name), "%s %s", f->dim[d].key, f->dim[d].value[v]);
			csv_line(out, "group", NULL, NULL, NULL, NULL, name);
			csv_nums(out, n, 1);
		}
	for (size_t i = 0; i < f->nskip; i++) {
		csv_line(out, "skipped", NULL, f->skip[i].why, NULL, f->skip[i].path, NULL);
		csv_nums(out, NULL, 0);
	}
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *s = &f->row[i];
		double v[] = { (double)s->n, NAN, s->median, s->p10, s->p90, s->spread };

		if (!shown(f, i))
			continue;
		csv_line(out, "row", compare_n_section(&s->head), s->head.label, s->head.unit, NULL, NULL);
		csv_nums(out, v, ARRAY_SIZE(v));
	}
	for (size_t i = 0; i < f->nshift; i++) {
		const struct fleet_shift *g = &f->shift[i];
		const struct fleet_row *s = &f->row[g->row];
		double v[] = { (double)g->n, g->median, s->median, s->p10, s->p90, s->spread, g->change, g->lo, g->hi,
			       g->z, g->p };

		group_name(f, g, name, sizeof(name));
		csv_line(out, "moved", compare_n_section(&s->head), s->head.label, s->head.unit, NULL, name);
		csv_nums(out, v, ARRAY_SIZE(v));
		for (size_t j = 0; members && j < f->nmach; j++)
			if (member(f, g, j)) {
				csv_line(out, "member", compare_n_section(&s->head), s->head.label, s->head.unit,
					 f->mach[j].name, name);
				csv_nums(out, NULL, 0);
			}
	}
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct fleet_row *s = &f->row[nm->row];
		double v[] = { (double)s->n, nm->v, nm->ref, s->p10, s->p90, s->spread, nm->change, NAN, NAN, nm->z, nm->p };
		const struct fleet_shift *g = named_group(f, nm);

		if (g)
			group_name(f, g, name, sizeof(name));
		csv_line(out, "named", compare_n_section(&s->head), s->head.label, s->head.unit, f->mach[nm->machine].name,
			 g ? name : NULL);
		csv_nums(out, v, ARRAY_SIZE(v));
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- HTML ----------------------------------------------------------------- */

static void html_head(const struct fleet *f, FILE *out)
{
	char buf[4096];

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		     "<title>atomcost compare: a fleet of %zu machines</title>\n<style>%s</style></head><body>\n"
		     "<h1>atomcost compare: a fleet of %zu machines</h1>\n<p class=\"note\">",
		f->nmach, compare_n_css, f->nmach);
	skipped_text(f, buf, sizeof(buf));
	report_htmlf(out, "%s</p>\n<table class=\"cols\">\n", buf);
	for (size_t i = 0; i < f->nskip; i++)
		report_htmlf(out, "<tr><th>skipped</th><td>%s</td><td>%s</td></tr>\n", f->skip[i].path, f->skip[i].why);
	for (size_t d = 0; d < f->ndim; d++)
		for (size_t v = 0; v < f->dim[d].nvalue; v++)
			report_htmlf(out, "<tr><th>%s</th><td>%s</td><td>%zu machines</td></tr>\n", f->dim[d].key,
				     f->dim[d].value[v], f->dim[d].count[v]);
	fleet_rule(f, buf, sizeof(buf));
	report_htmlf(out, "</table>\n<p class=\"note\">%s</p>\n", buf);
}

static void html_verdicts(const struct fleet *f, bool members, FILE *out)
{
	char v[2][32], name[160], ref[200];

	fprintf(out, "<h2>groups that moved: %zu</h2>\n<table class=\"n\">\n<tr><th>group</th><th>machines</th>"
		     "<th>row</th><th>group median</th><th>fleet median</th><th>change [95%% CI]</th><th>p</th></tr>\n",
		f->nshift);
	for (size_t i = 0; i < f->nshift; i++) {
		const struct fleet_shift *g = &f->shift[i];
		const struct fleet_row *s = shift_text(f, g, name, v);

		report_htmlf(out, "<tr><td>%s</td><td class=\"v\">%zu</td><td>%s</td><td class=\"v\">%s %s</td>"
			     "<td class=\"v\">%s</td><td class=\"v %s\">%+.1f%% [%+.1f,%+.1f]</td><td class=\"v\">%.2g</td></tr>\n",
			     name, g->n, s->head.label, v[0], s->head.unit, v[1], g->change > 0 ? "up" : "down",
			     g->change * 100, g->lo * 100, g->hi * 100, g->p);
		for (size_t j = 0; members && j < f->nmach; j++)
			if (member(f, g, j))
				report_htmlf(out, "<tr><td></td><td colspan=\"6\">%s</td></tr>\n", f->mach[j].name);
	}
	fprintf(out, "</table>\n<h2>machines named: %zu cells on %zu machines</h2>\n<table class=\"n\">\n"
		     "<tr><th>machine</th><th>row</th><th>value</th><th>against</th>"
		     "<th>change</th><th>z</th><th>p</th></tr>\n", f->nnamed, f->machines_named);
	for (size_t i = 0; i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct fleet_row *s = named_text(f, nm, v, ref);

		report_htmlf(out, "<tr><td>%s</td><td>%s</td><td class=\"v\">%s %s</td><td class=\"v\">%s %s</td>"
			     "<td class=\"v %s\">%+.1f%%</td><td class=\"v\">%.1f</td><td class=\"v\">%.2g</td></tr>\n",
			     f->mach[nm->machine].name, s->head.label, v[0], s->head.unit, ref, v[1],
			     nm->change > 0 ? "up" : "down", nm->change * 100, nm->z, nm->p);
	}
	fputs("</table>\n", out);
}

int fleet_write_html(const struct fleet *f, bool members, FILE *out)
{
	char v[4][32];

	html_head(f, out);
	html_verdicts(f, members, out);
	fputs("<h2>rows</h2>\n<table class=\"n\">\n<tr><th>row</th><th>unit</th><th>machines</th><th>median</th>"
	      "<th>p10</th><th>p90</th><th>spread</th><th>named</th></tr>\n", out);
	for (size_t i = 0; i < f->nrows; i++) {
		if (!shown(f, i))
			continue;
		row_text(f, i, v);
		if (*opens(f, i))
			report_htmlf(out, "<tr class=\"sec\"><th colspan=\"8\">%s</th></tr>\n", opens(f, i));
		report_htmlf(out, "<tr><td>%s</td><td>%s</td><td class=\"v\">%zu</td><td class=\"v\">%s</td>"
			     "<td class=\"v\">%s</td><td class=\"v\">%s</td><td class=\"v\">%.1f%%</td>"
			     "<td class=\"v\">%s</td></tr>\n", f->row[i].head.label, f->row[i].head.unit, f->row[i].n,
			     v[0], v[1], v[2], f->row[i].spread * 100, v[3]);
	}
	fputs("</table>\n<p class=\"note\">Written by atomcost " ATOMCOST_VERSION "; self-contained, no scripts.</p>\n"
	      "</body></html>\n", out);
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON: the same verdicts and rows, for scripts ------------------------ */

/* A number, or null where it is not one (an infinite z over no spread). */
static json_t *num_json(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *rows_json(const struct fleet *f)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < f->nrows; i++) {
		const struct fleet_row *s = &f->row[i];

		if (shown(f, i))
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:I}",
				"section", compare_n_section(&s->head), "row", s->head.label, "unit", s->head.unit,
				"machines", (json_int_t)s->n, "median", num_json(s->median), "p10", num_json(s->p10),
				"p90", num_json(s->p90), "spread", num_json(s->spread), "judged", s->judged,
				"named", (json_int_t)s->named));
	}
	return a;
}

static json_t *moved_json(const struct fleet *f, bool members)
{
	json_t *a = json_array();
	char name[160];

	for (size_t i = 0; a && i < f->nshift; i++) {
		const struct fleet_shift *g = &f->shift[i];
		const struct fleet_row *s = &f->row[g->row];
		json_t *o, *m = members ? json_array() : NULL;

		group_name(f, g, name, sizeof(name));
		for (size_t j = 0; m && j < f->nmach; j++)
			if (member(f, g, j))
				json_array_append_new(m, json_string(f->mach[j].name));
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "group", name,
			      "key", f->dim[g->dim].key, "value", f->dim[g->dim].value[g->value], "section",
			      compare_n_section(&s->head), "row", s->head.label, "unit", s->head.unit, "machines",
			      (json_int_t)g->n, "median", num_json(g->median), "fleet_median", num_json(s->median),
			      "change", num_json(g->change), "lo", num_json(g->lo), "hi", num_json(g->hi), "z",
			      num_json(g->z), "p", num_json(g->p));
		if (o && m)
			json_object_set_new(o, "members", m);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *named_json(const struct fleet *f)
{
	json_t *a = json_array();
	char name[160];

	for (size_t i = 0; a && i < f->nnamed; i++) {
		const struct fleet_named *nm = &f->named[i];
		const struct fleet_row *s = &f->row[nm->row];
		const struct fleet_shift *g = named_group(f, nm);

		if (g)
			group_name(f, g, name, sizeof(name));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o}", "machine",
			f->mach[nm->machine].name, "section", compare_n_section(&s->head), "row", s->head.label, "unit",
			s->head.unit, "value", num_json(nm->v), "reference", num_json(nm->ref), "against",
			g ? name : "fleet", "change", num_json(nm->change), "z", num_json(nm->z), "p", num_json(nm->p)));
	}
	return a;
}

int fleet_write_json(const struct fleet *f, bool members, FILE *out)
{
	json_t *keys = json_object(), *skipped = json_array(), *root;
	char rule[4096];
	int ret;

	for (size_t d = 0; keys && d < f->ndim; d++) {
		json_t *v = json_object();

		for (size_t k = 0; v && k < f->dim[d].nvalue; k++)
			json_object_set_new(v, f->dim[d].value[k], json_integer((json_int_t)f->dim[d].count[k]));
		json_object_set_new(keys, f->dim[d].key, v);
	}
	for (size_t i = 0; skipped && i < f->nskip; i++)
		json_array_append_new(skipped, json_pack("{s:s, s:s}", "path", f->skip[i].path, "why", f->skip[i].why));
	fleet_rule(f, rule, sizeof(rule));
	root = json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:s, s:{s:I, s:o, s:I, s:o}, s:o, s:o, s:o}", "schema",
			 "atomcost-fleet/1", "machines", (json_int_t)f->nmach, "rows", (json_int_t)f->nrows, "files",
			 (json_int_t)f->files, "skipped", skipped, "keys", keys, "rule", rule, "tests", "cells",
			 (json_int_t)f->tests, "cells_p", num_json(f->threshold), "groups", (json_int_t)f->gtests,
			 "groups_p", num_json(f->gthreshold), "moved", moved_json(f, members), "named", named_json(f),
			 "rows_shown", rows_json(f));
	if (!root)
		return -ENOMEM;
	ret = json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) < 0 || fputc('\n', out) == EOF ? -EIO : 0;
	json_decref(root);
	return ret || ferror(out) ? -EIO : 0;
}
