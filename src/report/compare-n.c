/* SPDX-License-Identifier: MIT */
/* report/compare-n.c - machines side by side (compare-n.h) as text and
 * HTML: one column per machine, the rule said with its figures. Formats
 * what compare_n_build decided, never judges. */
#include "compare-n.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "build-config.h"
#include "report.h"

void compare_n_value(const struct compare_n_row *r, double v, bool sizes, char *buf, size_t len)
{
	if (sizes && !strcmp(r->unit, "KiB"))
		snprintf(buf, len, v >= 4096 ? "%.1f MiB" : "%.0f KiB", v >= 4096 ? v / 1024 : v);
	else	/* three significant digits or so; a ratio says x */
		snprintf(buf, len, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s", v,
			 strcmp(r->unit, "x") ? "" : "x");
}

static void cell_text(const struct compare_n_row *r, const struct compare_n_cell *k, char *buf, size_t len)
{
	char v[48];

	if (!k->present) {
		snprintf(buf, len, "missing");
		return;
	}
	if (r->kind == CN_TEXT) {
		snprintf(buf, len, "%s", k->text);
		return;
	}
	compare_n_value(r, k->v, true, v, sizeof(v));
	snprintf(buf, len, k->marked ? "%s *%+.0f%%" : k->same ? "%s =" : "%s", v, k->change * 100);
}

static void floor_text(const struct compare_n_row *r, size_t ncols, char *buf, size_t len)
{
	for (size_t j = 1; j < ncols; j++)
		if (r->cells[j].judged) {
			snprintf(buf, len, "%.0f%% ep", r->cells[j].margin * 100);
			return;
		}
	snprintf(buf, len, r->kind == CN_TEXT ? "-" : r->kind == CN_SIZE ? "bracket" : "%.0f%%",
		 r->floor * 100);
}

/* Cut s to w columns, a '~' saying it was cut. */
static void fit(char *s, int w)
{
	if ((int)strlen(s) > w && w > 1) {
		s[w - 1] = '~';
		s[w] = '\0';
	}
}

/* The rule, said once with the figures this comparison used. */
static void rule_text(const struct compare_n *c, char *buf, size_t len)
{
	snprintf(buf, len,
		 "Each cell against column 1 (one process per machine). Hot-line cells whose reports both hold epochs (%zu cells, floor column 'ep'): marked * with the change when it lies beyond the margin (%.0f%%, --min-change, and %.2f cycles; Benjamini-Hochberg at FDR %.0f%%), '=' when an equivalence test (TOST) puts it inside; "
		 "other cells, with no spread to test, marked only beyond the row's floor: "
		 "%.0f%% on hot-line rows (how far a settled hit row moves between processes of one build; --noise-floor), "
		 "%.0f%% on rows under an access pattern, sharing, c2c, level latencies and the split lock (the widest settled move of such rows between processes), "
		 "and by more than %.2f cycles; a measured cache size when its bracket does not overlap column 1's. "
		 "An unmarked cell is not the same: it cannot tell below its margin or floor. "
		 "Figures are medians in core cycles per op unless the row says ns (sizes in KiB/MiB, ratios with x); text rows are never marked.",
		 c->judged, c->margin * 100, COMPARE_ABS_FLOOR, COMPARE_Q * 100,
		 c->base_floor * 100, fmax(COMPARE_N_WIDE_FLOOR, c->base_floor) * 100, COMPARE_ABS_FLOOR);
}

/* Whether row i opens its section (the rows are in section order: cell()). */
static bool opens_section(const struct compare_n *c, size_t i)
{
	return i == 0 || c->rows[i].section != c->rows[i - 1].section;
}

/* A row's label as the text writer's first column shows it; the HTML
 * writer shows it without the indent. */
static void row_label(const struct compare_n_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "  %s%s", r->label, strcmp(r->unit, "ns") ? "" : " (ns)");
}

int compare_n_write_text(const struct compare_n *c, FILE *f)
{
	int lw = 20, cw[COMPARE_N_MAX] = { 0 };
	char buf[200], rule[1536];

	for (size_t j = 0; j < c->ncols; j++)
		cw[j] = (int)fmax(12, (double)strlen(c->cols[j].name) + 4);
	for (size_t i = 0; i < c->nrows; i++) {
		row_label(&c->rows[i], buf, sizeof(buf));
		lw = (int)fmax(lw, (double)strlen(buf));
		for (size_t j = 0; j < c->ncols; j++) {
			cell_text(&c->rows[i], &c->rows[i].cells[j], buf, sizeof(buf));
			cw[j] = (int)fmax(cw[j], (double)strlen(buf));
		}
	}
	lw = (int)fmin(lw, 60);
	fprintf(f, "# atomcost compare: %zu machines side by side, the card's rows\n", c->ncols);
	for (size_t j = 0; j < c->ncols; j++) {
		const struct compare_n_doc *d = c->cols[j].doc;

		cw[j] = (int)fmin(cw[j], 24);
		fprintf(f, "# [%zu] %-24s %s (%s, %s%s)\n#     %s\n", j + 1, c->cols[j].name, d->path,
			cn_known(d->started), d->summary ? "summary" : "full report", d->partial ? ", PARTIAL" : "",
			cn_known(d->topology));
	}
	rule_text(c, rule, sizeof(rule));
	report_mail_wrap(f, "# ", rule);
	fprintf(f, "%-*s", lw, "row");
	for (size_t j = 0; j < c->ncols; j++) {
		snprintf(buf, sizeof(buf), "[%zu] %s", j + 1, c->cols[j].name);
		fprintf(f, " %-*.*s", cw[j], cw[j], buf);
	}
	fprintf(f, " floor\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_n_row *r = &c->rows[i];

		if (opens_section(c, i))
			fprintf(f, "## %s\n", compare_n_section(r));
		row_label(r, buf, sizeof(buf));
		fit(buf, lw);
		fprintf(f, "%-*s", lw, buf);
		for (size_t j = 0; j < c->ncols; j++) {
			cell_text(r, &r->cells[j], buf, sizeof(buf));
			fit(buf, cw[j]);
			fprintf(f, " %-*s", cw[j], buf);
		}
		floor_text(r, c->ncols, buf, sizeof(buf));
		fprintf(f, " %s\n", buf);
	}
	fprintf(f, "summary: %zu rows, %zu machines: %zu cells marked, %zu the same (of %zu judged from epochs), %zu missing; the others cannot tell\n",
		c->nrows, c->ncols, c->marked, c->same, c->judged, c->missing);
	return ferror(f) ? -EIO : 0;
}

const char compare_n_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.5em}table{border-collapse:collapse;font-size:12px}"
	"td,th{padding:2px 8px;text-align:left;vertical-align:top}"
	"table.cols th{font-weight:normal;color:#555}"
	"table.n td.v{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"table.n td.l{white-space:nowrap}table.n td.t{white-space:normal;max-width:14em}"
	"table.n tr.sec th{background:#e8e8e8;font-weight:bold;padding-top:6px}"
	"table.n tr:nth-child(even) td{background:#f7f7f7}"
	"td.up{color:#a4161a;font-weight:bold}td.down{color:#1b6b3a;font-weight:bold}"
	"td.missing{color:#999;font-style:italic}.note{color:#555}";

int compare_n_write_html(const struct compare_n *c, FILE *f)
{
	char rule[1536], buf[200];

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>atomcost compare: %zu machines</title>\n<style>%s</style></head><body>\n"
		   "<h1>atomcost compare: %zu machines side by side</h1>\n<table class=\"cols\">\n",
		c->ncols, compare_n_css, c->ncols);
	for (size_t j = 0; j < c->ncols; j++) {
		const struct compare_n_doc *d = c->cols[j].doc;

		report_htmlf(f, "<tr><th>[%zu]</th><td><b>%s</b></td><td>%s</td><td>%s</td><td>%s%s</td></tr>\n", j + 1,
			     c->cols[j].name, d->path, cn_known(d->started), d->summary ? "summary" : "full report",
			     d->partial ? ", PARTIAL" : "");
	}
	rule_text(c, rule, sizeof(rule));
	report_htmlf(f, "</table>\n<p class=\"note\">%s <span style=\"color:#a4161a\">Red</span>: costs more than column 1, "
		     "<span style=\"color:#1b6b3a\">green</span>: less.</p>\n<table class=\"n\">\n<tr><th>row</th>", rule);
	for (size_t j = 0; j < c->ncols; j++)
		report_htmlf(f, "<th>[%zu] %s</th>", j + 1, c->cols[j].name);
	fputs("<th>floor</th></tr>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_n_row *r = &c->rows[i];

		if (opens_section(c, i))
			report_htmlf(f, "<tr class=\"sec\"><th colspan=\"%zu\">%s</th></tr>\n", c->ncols + 2,
				     compare_n_section(r));
		row_label(r, buf, sizeof(buf));
		report_htmlf(f, "<tr><td class=\"l\">%s</td>", buf + 2);
		for (size_t j = 0; j < c->ncols; j++) {
			const struct compare_n_cell *k = &r->cells[j];

			cell_text(r, k, buf, sizeof(buf));
			fprintf(f, "<td class=\"v%s%s\"", r->kind == CN_TEXT ? " t" : "", !k->present ? " missing" :
				k->marked ? (k->change > 0 ? " up" : " down") : "");
			if (k->marked)
				fprintf(f, " title=\"%+.1f%% against column 1, beyond the floor\"", k->change * 100);
			report_htmlf(f, ">%s</td>", buf);
		}
		floor_text(r, c->ncols, buf, sizeof(buf));
		fprintf(f, "<td>%s</td></tr>\n", buf);
	}
	fprintf(f, "</table>\n<p class=\"note\">%zu rows, %zu machines: %zu cells marked, %zu the same (of %zu judged "
		   "from epochs), %zu missing; the others cannot tell. Written by atomcost " ATOMCOST_VERSION
		   "; self-contained, no scripts.</p>\n</body></html>\n",
		c->nrows, c->ncols, c->marked, c->same, c->judged, c->missing);
	return ferror(f) ? -EIO : 0;
}
