/* SPDX-License-Identifier: MIT */
/* report/html.c - `atomcost report RUN.json -o report.html`: one
 * self-contained page (inline CSS and SVG; no script, no network). A default
 * characterization starts with its machine card and the card as charts; then
 * bars per pattern and mode, cost vs footprint curves, the c2c heat map, the
 * results and the fingerprint. Every string from the report goes through
 * html_escape(): names and facts come from files a user may edit. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "card.h"
#include "common.h"
#include "compare.h"
#include "build-config.h"
#include "fingerprint.h"
#include "report.h"

#define W 760			/* chart width, px */
#define COL_ATOMIC "#c8553d"
#define COL_PLAIN "#3a7ca5"
#define COL_BASE "#999999"
#define COL_LOCAL "#e09f3e"

/* Text as HTML (&, <, >, quotes escaped). */
static void html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" :
				*s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;

		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

void report_htmlf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (size_t lit; *fmt; fmt++) {
		char spec[16], conv;

		lit = strcspn(fmt, "%");
		fwrite(fmt, 1, lit, f);
		fmt += lit;
		if (!*fmt)
			break;
		lit = strspn(fmt + 1, "-+ #.0123456789lz") + 2;
		snprintf(spec, sizeof(spec), "%.*s", (int)lit, fmt);
		conv = fmt[lit - 1];
		fmt += lit - 1;
		if (conv == 's')
			html_escape(f, va_arg(ap, const char *));
		else if (conv == 'f' || conv == 'g')
			fprintf(f, spec, va_arg(ap, double));
		else if (conv == '%')
			fputc('%', f);
		else if (strchr(spec, 'z'))
			fprintf(f, spec, va_arg(ap, size_t));
		else if (strstr(spec, "ll"))
			fprintf(f, spec, va_arg(ap, long long));
		else
			fprintf(f, spec, va_arg(ap, int));
	}
	va_end(ap);
}

/* one colour per curve or pair */
static const char *const palette[] = { "#c8553d", "#3a7ca5", "#588157", "#8f2d56",
				       "#f28f3b", "#6a4c93", "#2a9d8f", "#6d6875" };

/* 4096 -> "4K", 1572864 -> "1.5M" (chart ticks); iec: "4 KiB", "1.5 MiB" */
static void size_str(double bytes, char *buf, size_t len, bool iec)
{
	static const char *const unit[][2] = { { "K", " KiB" }, { "M", " MiB" }, { "G", " GiB" } };
	int u = bytes >= 1 << 30 ? 2 : bytes >= 1 << 20 ? 1 : 0;
	double v = bytes / pow(1024, u + 1);

	snprintf(buf, len, v >= 10 ? "%.0f%s" : "%.2g%s", v, unit[u][iec]);
}

static void fp_rows(FILE *f, const char *prefix, const json_t *v)
{
	char key[256];
	const char *k;
	size_t i;
	json_t *x;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x) {
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", k);
			fp_rows(f, key, x);
		}
		return;
	}
	report_htmlf(f, "<tr><th>%s</th><td>%s", prefix, json_string_value(v));
	if (json_is_number(v))
		fprintf(f, "%.6g", json_number_value(v));
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "true" : "false", f);
	else if (json_is_null(v))
		fputs("-", f);
	json_array_foreach(v, i, x) {
		if (i)
			fputc(' ', f);
		report_htmlf(f, "%s", json_string_value(x));
		if (json_is_number(x))
			fprintf(f, "%g", json_number_value(x));
	}
	fputs("</td></tr>\n", f);
}

/* The report's rows, grouped over the epochs once for every chart: the
 * median of the epoch medians (core cycles), the whisker (the median's CI
 * for one epoch, the range of the epoch medians for several) and the
 * footprint the pattern walks over (NAN: none). */
struct row {
	const struct result *r;
	const struct row *twin;	/* its twin's, in the same mode and pattern; NULL: none */
	double cyc, lo, hi, fp;
};

struct rows {
	struct row *v;
	size_t n;
	int epochs;
};

static const struct row *row_find(const struct rows *rs, const char *name, enum probe_mode m, const char *pattern)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].r->mode == m && !strcmp(rs->v[i].r->name, name) && !strcmp(rs->v[i].r->pattern, pattern))
			return &rs->v[i];
	return NULL;
}

static int rows_build(const struct report *rep, struct rows *rs)
{
	rs->n = 0;
	rs->epochs = compare_max_epoch(rep);
	rs->v = calloc(rep->n ? rep->n : 1, sizeof(*rs->v));
	if (!rs->v)
		return -ENOMEM;
	for (size_t i = 0; i < rep->n; i++) {
		const struct pattern_info *pi = &rep->r[i].extra.pattern;
		struct report_row e;

		if (!compare_group_first(rep, i))
			continue;
		report_row(rep, i, &e);
		rs->v[rs->n++] = (struct row){ &rep->r[i], NULL, result_cycles(rep, e.median), result_cycles(rep, e.lo),
					       result_cycles(rep, e.hi),
					       pi->has & 1u << PX_FOOTPRINT ? (double)pi->footprint_bytes : NAN };
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct result *r = rs->v[i].r;

		rs->v[i].twin = r->twin[0] ? row_find(rs, r->twin, r->mode, r->pattern) : NULL;
	}
	return 0;
}

static const char *color_of(const struct result *r)
{
	int k = card_atomic_rank(r);

	return !strcmp(r->atomicity, "baseline") ? COL_BASE : k == 0 ? COL_PLAIN : k == 1 ? COL_LOCAL : COL_ATOMIC;
}

#define BAR_LW 230
#define BAR_H 16

/* A chart's figure and svg, w x h from the top y0, with its title. */
static void svg_open(FILE *f, const char *klass, int w, int h, int y0, const char *title)
{
	report_htmlf(f, "<figure><svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 %d %d %d\" role=\"img\"><title>%s</title>\n", klass, w, h, y0, w, h, title);
}

/* One bar with its whisker and value; ratio: to the twin drawn under it. */
static void bar(const struct row *w, double scale, int y, double ratio, FILE *f)
{
	report_htmlf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text><rect class=\"bar\" x=\"%d\" y=\"%d\" "
	    "width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s, %.2f cycles</title></rect>", BAR_LW - 6,
	    y + 12, w->r->name, BAR_LW, y + 1, fmax(w->cyc, 0) * scale, BAR_H - 3, color_of(w->r), w->r->name,
	    w->r->insn, w->cyc);
	if (isfinite(w->lo) && isfinite(w->hi))
		fprintf(f, "<path class=\"whisker\" d=\"M%.1f %d H%.1f M%.1f %d v6 M%.1f %d v6\"/>",
			BAR_LW + fmax(w->lo, 0) * scale, y + 7, BAR_LW + w->hi * scale, BAR_LW + fmax(w->lo, 0) * scale,
			y + 4, BAR_LW + w->hi * scale, y + 4);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.2f", BAR_LW + fmax(w->hi, w->cyc) * scale + 4, y + 12,
		w->cyc);
	if (isfinite(ratio))
		fprintf(f, " (x%.2f)", ratio);
	fputs("</text>\n", f);
}

/* Whether w is drawn in the bars of pattern and mode, with its twin under
 * it (report_pair_lead). */
static bool bar_lead(const struct row *w, const char *pattern, enum probe_mode mode)
{
	return w->r->mode == mode && !strcmp(w->r->pattern, pattern) &&
	       report_pair_lead(w->r, w->twin ? w->twin->r : NULL);
}

static void bars_chart(const struct rows *rs, const char *pattern, enum probe_mode mode, FILE *f)
{
	const char *mn = probe_mode_name(mode);
	double max = 0, scale;
	char title[128];
	int y = 0;

	for (size_t k = 0; k < rs->n; k++)
		if (bar_lead(&rs->v[k], pattern, mode)) {
			max = fmax(max, fmax(rs->v[k].hi, rs->v[k].twin ? rs->v[k].twin->hi : 0));
			y += BAR_H * (rs->v[k].twin ? 2 : 1) + 8;
		}
	if (!y || !(max > 0))
		return;
	max *= 1.12;
	scale = (W - BAR_LW - 70) / max;
	report_htmlf(f, "<h3>%s, %s</h3>\n", pattern, mn);
	snprintf(title, sizeof(title), "%s %s: core cycles per op", pattern, mn);
	svg_open(f, "bars", W, y + 40, 0, title);
	for (int k = 0; k <= 4; k++) {	/* axis with 5 ticks */
		double v = max * k / 4.0, x = BAR_LW + (W - BAR_LW - 70) * v / max;

		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			   "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%.3g</text>\n", x, x, y, x, y + 14, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">core cycles per op (median; whisker: %s)</text>\n",
		BAR_LW, y + 32, rs->epochs > 1 ? "range of pass medians" : "95% CI of the median");
	y = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const struct row *w = &rs->v[k];

		if (!bar_lead(w, pattern, mode))
			continue;
		bar(w, scale, y, w->r->has_ratio && w->twin ? w->cyc / fmax(w->twin->cyc, 1e-9) : NAN, f);
		if (w->twin)
			bar(w->twin, scale, y + BAR_H, NAN, f);
		y += BAR_H * (w->twin ? 2 : 1) + 8;
	}
	report_htmlf(f, "</svg><figcaption>%s, %s: <span style=\"color:%s\">&#9632;</span> atomic, <span style=\"color:%s\">"
	    "&#9632;</span> local-only (atomic against this CPU), <span style=\"color:%s\">&#9632;</span> non-atomic, "
	    "<span style=\"color:%s\">&#9632;</span> baseline; (xN) is the ratio to the twin drawn under it."
	    "</figcaption></figure>\n", pattern, mn, COL_ATOMIC, COL_LOCAL, COL_PLAIN, COL_BASE);
}

/* Variant of a pattern ("l2+w1" -> "+w1", "l2" -> ""): one curve per probe
 * and variant. */
static const char *variant_of(const struct result *r)
{
	const char *plus = strchr(r->pattern, '+');

	return plus ? plus : "";
}

static bool same_curve(const struct row *a, const struct row *b)
{
	return a->r->mode == b->r->mode && !strcmp(a->r->name, b->r->name) &&
	       !strcmp(variant_of(a->r), variant_of(b->r)) && a->fp > 0 && b->fp > 0;
}

/* A plot area: x the log2 of bytes, y cycles on a log10 or a linear scale. */
struct plot {
	int lw, top, pw, ph;
	double xmin, xmax, ylo, yhi;
	bool ylog;
};

static double plot_x(const struct plot *p, double bytes)
{
	return p->lw + p->pw * (log2(bytes) - p->xmin) / (p->xmax - p->xmin);
}

static double plot_y(const struct plot *p, double v)
{
	if (!p->ylog)
		return p->top + p->ph - p->ph * v / p->yhi;
	return p->top + p->ph - p->ph * (log10(fmax(v, p->ylo)) - log10(p->ylo)) / (log10(p->yhi) - log10(p->ylo));
}

static void fp_axes(const struct plot *s, FILE *f)
{
	for (int k = 0; k <= (s->ylog ? (int)lround(log10(s->yhi / s->ylo)) : 4); k++) {
		double yv = s->ylog ? s->ylo * pow(10, k) : s->yhi * k / 4.0, yy = plot_y(s, yv);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
			   "<text x=\"%d\" y=\"%.1f\" class=\"label\">%g</text>\n",
			s->lw, yy, s->lw + s->pw, yy, s->lw - 4, yy + 4, yv);
	}
	for (double e = ceil(s->xmin); e <= s->xmax; e += ceil((s->xmax - s->xmin) / 10)) {
		double x = s->lw + s->pw * (e - s->xmin) / (s->xmax - s->xmin), bytes = pow(2, e);
		char t[32];

		size_str(bytes, t, sizeof(t), false);
		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			   "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%s</text>\n", x, x, s->ph, x, s->ph + 14, t);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">footprint (bytes, log scale); y: core cycles per op "
		   "(median%s)</text>\n", s->lw, s->ph + 34, s->ylog ? ", log scale" : "");
}

/* One probe's curve: its points in footprint order, each with its figure,
 * and its legend line at the right (end labels collide). */
static void fp_curve(const struct rows *rs, const struct plot *s, const struct row *w, int ncurve, FILE *f)
{
	const char *col = palette[ncurve % ARRAY_SIZE(palette)];
	double lastx = s->lw + s->pw;
	bool first = true;

	fprintf(f, "<path class=\"curve\" stroke=\"%s\" d=\"", col);
	for (double prev = -INFINITY;;) {
		const struct row *best = NULL;

		for (size_t j = 0; j < rs->n; j++)
			if (same_curve(&rs->v[j], w) && rs->v[j].fp > prev && (!best || rs->v[j].fp < best->fp))
				best = &rs->v[j];
		if (!best)
			break;
		prev = best->fp;
		fprintf(f, "%s%.1f %.1f", first ? "M" : " L", plot_x(s, prev), plot_y(s, best->cyc));
		first = false;
	}
	fputs("\"/>", f);
	for (size_t j = 0; j < rs->n; j++) {
		const struct row *q = &rs->v[j];

		if (!same_curve(q, w))
			continue;
		report_htmlf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: %.2f cycles, %.0f bytes</title>"
		    "</circle>", plot_x(s, q->fp), plot_y(s, q->cyc), col, q->r->name, q->r->pattern, q->cyc, q->fp);
	}
	report_htmlf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" "
	    "y=\"%d\" class=\"value\" fill=\"%s\">%s%s</text>\n", lastx + 12, 8 + 14 * ncurve, lastx + 26, 8 + 14 * ncurve,
	    col, lastx + 30, 12 + 14 * ncurve, col, w->r->name, variant_of(w->r));
}

/* Cycles per op against footprint: one curve per probe and variant. */
static void footprint_chart(const struct rows *rs, enum probe_mode mode, FILE *f)
{
	struct plot s = { 60, 0, W - 60 - 170, 300, INFINITY, -INFINITY, 0, 0, false };
	double ymin = INFINITY, ymax = 0;
	char title[64];
	int ncurve = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct row *w = &rs->v[i];

		if (w->r->mode != mode || !(w->fp > 0))
			continue;
		s.xmin = fmin(s.xmin, log2(w->fp));
		s.xmax = fmax(s.xmax, log2(w->fp));
		ymax = fmax(ymax, w->cyc);
		if (w->cyc > 0)
			ymin = fmin(ymin, w->cyc);
	}
	if (!isfinite(s.xmin) || !(ymax > 0))
		return;
	if (s.xmax - s.xmin < 1)
		s.xmax = s.xmin + 1;
	ymax *= 1.1;
	s.ylog = isfinite(ymin) && ymax / ymin > 20;	/* L1 hit to DRAM miss */
	s.ylo = s.ylog ? pow(10, floor(log10(ymin))) : 0;
	s.yhi = s.ylog ? pow(10, ceil(log10(ymax))) : ymax;
	snprintf(title, sizeof(title), "%s: cycles per op vs footprint", probe_mode_name(mode));
	fprintf(f, "<h3>%s</h3>\n", probe_mode_name(mode));
	svg_open(f, "curves", W, s.ph + 62, -12, title);
	fp_axes(&s, f);
	for (size_t i = 0; i < rs->n; i++) {
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = same_curve(&rs->v[j], &rs->v[i]);
		if (rs->v[i].r->mode == mode && rs->v[i].fp > 0 && !dup)
			fp_curve(rs, &s, &rs->v[i], ncurve++, f);
	}
	fputs("</svg><figcaption>Cost against the memory the op walks over; each point is one "
	      "pattern's median.</figcaption></figure>\n", f);
}

/* The OS index of row i of a matrix (the row index where cpus has none). */
static long long heat_cpu(const struct c2c_matrix_out *mx, int i)
{
	return (size_t)i < mx->ncpus ? (long long)mx->cpus[i] : i;
}

/* Matrix k of the c2c section as a heat map: v[i][j] the cost of moving a
 * line from cpus[i] to cpus[j] (NAN: not measured). method NULL: the
 * section's only matrix; unit NULL: ns. */
static void heatmap(const struct c2c_matrix_out *mx, int k, const char *method, const char *unit,
		    FILE *f)
{
	int n = (int)mx->nv[k], lw = 50, cell = n > 32 ? 12 : n > 8 ? 24 : 48;
	double lo = INFINITY, hi = -INFINITY;
	const double *v = mx->v[k];

	unit = unit ? unit : "ns";
	if (method)
		report_htmlf(f, "<h3>%s</h3>\n", method);
	for (int i = 0; i < n * n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	svg_open(f, "heatmap", lw + n * cell + 360, lw + n * cell + 30, 0, "cache-to-cache transfer cost");
	for (int i = 0; i < n; i++) {
		long long os = heat_cpu(mx, i);

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"label\">%lld</text><text x=\"%.1f\" y=\"%d\" class=\"tick\">"
			   "%lld</text>", lw - 4, lw + i * cell + cell / 2.0 + 4, os, lw + i * cell + cell / 2.0, lw - 6, os);
		for (int j = 0; j < n; j++) {
			double val = v[i * n + j], t = hi > lo ? (val - lo) / (hi - lo) : 0;

			fprintf(f, "<rect class=\"cell%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", isnan(val) ?
				" none" : "", lw + j * cell, lw + i * cell, cell - 1, cell - 1);
			if (isnan(val)) {
				fputs("/>", f);
				continue;
			}
			/* light yellow (cheap) to dark red (dear) */
			report_htmlf(f, " fill=\"rgb(%d,%d,%d)\"><title>%lld -&gt; %lld: %.1f %s"
				     "</title></rect>", (int)(255 - 100 * t), (int)(240 - 210 * t),
				     (int)(180 - 150 * t), os, heat_cpu(mx, j), val, unit);
			if (cell >= 48)
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"cellv\">%.0f</text>",
					lw + j * cell + cell / 2.0, lw + i * cell + cell / 2.0 + 4, val);
		}
		fputc('\n', f);
	}
	report_htmlf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">row: from CPU, column: to CPU; %.1f to %.1f %s</text></svg>"
	    "<figcaption>Cache-to-cache transfer cost (the c2c section of the report); grey: not measured."
	    "</figcaption></figure>\n", lw, lw + n * cell + 20, lo, hi, unit);
}

/* ---- the machine card and its charts ------------------------------------ */

/* The levels (the size used), the pages and epochs, each size's range
 * over the epochs, an L3 smaller than declared as the effective share, and
 * TLB reach on its own line (as the text card). */
static void card_caches(const struct card *c, FILE *f)
{
	const struct hierarchy_section *h = c->hier;
	int epochs = h && h->has & 1u << HS_EPOCHS ? h->epochs : 0, vm = c->machine.vm;
	char a[32], b[32];

	if (!h || !h->nlevels) {
		fputs("measured hierarchy not in this report", f);
		return;
	}
	for (unsigned i = 0; i < c->nstep; i++) {
		const struct hier_level_out *l = c->step[i].l;
		char t[96];

		fputs(i ? " | " : "", f);
		if (l->memory || c->step[i].shelf) {	/* a shelf: the share of a declared level, or neither */
			report_htmlf(f, "%s (%.0f cycles)", card_step_text(&c->step[i], t, sizeof(t)), l->cycles);
			continue;
		}
		size_str((double)l->size_bytes, a, sizeof(a), true);
		report_htmlf(f, "%s %s %.1f cycles", hier_level_name(l), a, l->cycles);
		if (l->size_min > 0) {
			size_str((double)l->size_min, a, sizeof(a), true);
			size_str(l->size_max > 0 ? (double)l->size_max : 0, b, sizeof(b), true);
			fprintf(f, " <small>(%s%s%s over the epochs)</small>", a, strcmp(a, b) ? "-" : "",
				strcmp(a, b) ? b : "");
		}
	}
	if (epochs)
		fprintf(f, " (measured: %d epoch%s, %s pages)", epochs, epochs == 1 ? "" : "s",
			h->pages.page_bytes >= 1 << 21 ? "2 MiB" : "4 KiB: huge pages not had,");
	else
		fputs(" (measured)", f);
	for (size_t i = 0; i < h->nlevels; i++) {
		const struct hier_level_out *l = &h->levels[i];
		const char *name = hier_level_name(l);

		if (!(l->hwloc_size > 0) || !hier_level_disagrees(l))
			continue;
		size_str((double)l->hwloc_size, a, sizeof(a), true);
		size_str((double)l->size_bytes, b, sizeof(b), true);
		if (l->effective_share)
			report_htmlf(f, "<br>%s effective share about %s of %s declared: shared "
				     "with other %s", name, b, a, vm > 0 ? "tenants" : "cores");
		else
			report_htmlf(f, "<br><span class=\"warn\">hwloc declares %s = %s, measured "
				     "about %s: the patterns use the measured size</span>",
				     name, a, b);
	}
	if (h->tlb.has)
		size_str((double)(h->tlb.reach_bytes > 0 ? h->tlb.reach_bytes :
				  h->tlb.compared_to_bytes), a, sizeof(a), true);
	if (h->tlb.has && h->tlb.reach_bytes > 0)
		fprintf(f, "<br>TLB reach about %s (4 KiB pages cost more past it; not a cache level)", a);
	else if (h->tlb.has)
		fprintf(f, "<br>TLB: 4 KiB and 2 MiB pages walk alike up to %s (huge pages did not move the "
			   "staircase here)", a);
}

static void card_machine(const struct report *rep, const struct card *c, FILE *f)
{
	const struct card_machine *m = &c->machine;
	char t[512];

	report_htmlf(f, "<table class=\"card\"><tr><th>machine</th><td>%s (family %s model %s, microcode %s)<br>%s %s, %s, %s"
	    "</td></tr>\n<tr><th>clock</th><td>core %.3f GHz, cycles from %s; ", m->cpu, m->family, m->model,
	    m->microcode, m->sysname, m->release, card_vm_text(m->vm),
	    rep->topo_summary[0] ? rep->topo_summary : "topology unknown", rep->cal.core_hz / 1e9,
	    rep->cal.cycle_source[0] ? rep->cal.cycle_source : "?");
	fputs(rep->cal.trustworthy ? "calibration trustworthy" : "<span class=\"warn\">CALIBRATION NOT TRUSTWORTHY</span>: ",
	      f);
	report_htmlf(f, "%s", card_cal_why(&rep->cal, t, sizeof(t)));
	if (rep->cal.core.how[0])	/* which core, on what evidence */
		report_htmlf(f, "</td></tr>\n<tr><th>core</th><td>%s", rep->cal.core.how);
	if (card_load_text(c, t, sizeof(t)))
		report_htmlf(f, "</td></tr>\n<tr><th>load</th><td>%s", t);
	if (c->load && c->load->left_out[0])
		report_htmlf(f, "</td></tr>\n<tr><th>quick</th><td>left out: %s (a --quick card)", c->load->left_out);
	fputs("</td></tr>\n<tr><th>caches</th><td>", f);
	card_caches(c, f);
	report_htmlf(f, "</td></tr>\n<tr><th>split lock</th><td>%s", card_split_text(&c->split, t, sizeof(t)));
	if (c->split.state == CARD_SPLIT_MEASURED && card_split_trap_text(c->split.split_ns, c->machine.vm))
		report_htmlf(f, "<br>%s", card_split_trap_text(c->split.split_ns, c->machine.vm));
	if (c->split.has_kernel)
		report_htmlf(f, "<br>kernel: %s", c->split.kernel_why);
	report_htmlf(f, "</td></tr>\n<tr><th>ordering</th><td>full barrier: %s", card_order_text(c, t, sizeof(t)));
	for (unsigned k = 0; k < c->nkernel; k++)
		report_htmlf(f, "</td></tr>\n<tr><th>kernel</th><td>%s", card_kernel_text(&c->kernel[k], t, sizeof(t)));
	for (unsigned k = 0; k < c->nmix; k++)	/* as the text card's states line */
		report_htmlf(f, "</td></tr>\n<tr><th>%s</th><td>%s %s %s: %zu states, %s cycles (share of samples): its "
			     "median moves with their mix", k ? "" : "states", c->mix[k].probe, c->mix[k].pattern,
			     probe_mode_name(c->mix[k].mode), c->mix[k].m.nstates,
			     stats_mixture_text(&c->mix[k].m, 1 / rep->cal.ticks_per_cycle, t, sizeof(t)));
	fputs("</td></tr>\n</table>\n", f);
}

static void card_atomicity(const struct card *c, FILE *f)
{
	if (!c->pair_atomic) {
		fputs("<p>atomicity: not measured (no atomic/non-atomic twin pair in this report)</p>\n", f);
		return;
	}
	report_htmlf(f, "<h3>The cost of atomicity: %s against %s</h3>\n<p class=\"note\">They differ in %s", c->pair_atomic,
	    c->pair_plain, c->differs);
	if (c->lock_plain)
		report_htmlf(f, ". The lock's part: %s against %s (the same op unlocked); the instruction's part: %s against %s",
		    c->pair_atomic, c->lock_plain, c->lock_plain, c->pair_plain);
	fprintf(f, ". Cycles per op, medians of %u epochs; slower or faster only beyond %.0f%% or %.2f cycles, "
		   "same only by an equivalence test, else unresolved.</p>\n<table class=\"res card\"><tr><th>where"
		   "</th><th>mode</th><th>atomic</th><th>non-atomic</th><th>difference [95%% CI]</th><th>verdict</th>"
		   "<th>lock's part</th><th>instruction's part</th></tr>\n", c->epochs, JUDGE_MARGIN_REL * 100,
		JUDGE_MARGIN_ABS);
	for (unsigned i = 0; i < c->ncmp; i++) {
		const struct card_cmp *k = &c->cmp[i];
		char d[48], v[32], l[32], s[32];

		report_htmlf(f, "<tr><td>%s</td><td>%s</td>", k->what, probe_mode_name(k->mode));
		if (!k->pair.a)
			fputs("<td colspan=\"6\" class=\"note\">not measured</td></tr>\n", f);
		else
			fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%s</td><td>%s</td>"
				   "<td>%s</td><td>%s</td></tr>\n", k->pair.a_cyc, k->pair.b_cyc,
				card_diff_cell(&k->pair, d, sizeof(d)), card_part_word(&k->pair, v, sizeof(v)),
				card_part_cell(&k->lock, l, sizeof(l)), card_part_cell(&k->insn, s, sizeof(s)));
	}
	fputs("</table>\n", f);
}

static void card_sharing(const struct card *c, FILE *f)
{
	if (!c->share_probe) {
		fputs("<p>sharing: not measured (no contention rows in this report)</p>\n", f);
		return;
	}
	report_htmlf(f, "<h3>Sharing: %s by 2 threads, per topology class</h3>\n<table class=\"res card\"><tr><th>class</th>"
	    "<th>true sharing</th><th>false sharing</th><th>no sharing</th><th>cycles per op</th></tr>\n",
	    c->share_probe);
	for (unsigned i = 0; i < c->nshare; i++) {
		const struct card_share *s = &c->share[i];
		const double v[3] = { s->true_share, s->false_share, s->no_share };

		report_htmlf(f, "<tr><td>%s</td>", s->placement);
		for (int k = 0; k < 3; k++)
			fprintf(f, v[k] > 0 ? "<td class=\"n\">%.1f</td>" : "<td class=\"n note\">-</td>", v[k]);
		fputs("<td>", f);
		if (s->not_overlapped)
			fputs("some cases' threads did not overlap: not contention, left out. ", f);
		if (s->no_share > 0 && s->true_share > 0)
			fprintf(f, "true/no sharing %.1fx (one process: not judged)", s->true_share / s->no_share);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One option of a need's menu: rank, probe, its costs, a spark bar of its
 * cost in the need's basis (max: the need's dearest) and when it is safe. */
static void menu_option(const struct card *c, const struct card_option *op, enum card_basis basis, double max,
			FILE *f)
{
	const double v[4] = { op->walk, op->stores, op->chain, op->tput };
	double cost = fmax(card_option_cost(op, basis), 0);
	char cell[5][16], cont[16];

	for (int k = 0; k < 4; k++)	/* walk and stores: what the op adds */
		card_cost_text(v[k], k < 2, cell[k], sizeof(cell[k]));
	snprintf(cell[4], sizeof(cell[4]), op->rank ? "%s%u" : "-", op->tie ? "=" : "", op->rank);
	report_htmlf(f, "<td class=\"n\">%s</td><td><code>%s</code></td><td class=\"n\">%s</td>"
	    "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>", cell[4], op->probe,
	    cell[0], cell[1], cell[2], cell[3]);
	for (unsigned k = 0; k < c->ncont; k++)	/* under contention, where measured */
		report_htmlf(f, "<td class=\"n cont\">%s</td>", card_cont_text(&op->cont[k], cont, sizeof(cont)));
	report_htmlf(f, "<td><svg class=\"spark\" width=\"120\" height=\"10\" role=\"img\"><rect x=\"0\" "
	    "y=\"1\" width=\"%.1f\" height=\"8\" fill=\"%s\"/></svg></td><td>%s",
	    max > 0 && isfinite(cost) ? 120 * cost / max : 0, op->rank == 1 ? COL_PLAIN : COL_BASE, op->safe_when);
	if (op->kernel)
		report_htmlf(f, " [kernel: <code>%s</code> %.2f]", op->kernel->probe, op->kernel->kernel_cyc);
	fputs(op->analog ? " <i>[analog: not the real primitive]</i></td></tr>\n" : "</td></tr>\n", f);
}

static void card_menu(const struct card *c, FILE *f)
{
	unsigned cols = 9 + c->ncont;
	char legend[512];

	fputs("<h3>Fast-path menu: for a need, the cycles each option adds to independent work here, "
	      "cheapest first</h3>\n<p class=\"note\">walk: added to an L1 pointer walk (the op between its "
	      "steps); stores: added after 4 pending stores; = : tied with the option above (the difference "
	      "is not resolved); chain: same-word latency; tput: best throughput.", f);
	if (c->ncont)
		report_htmlf(f, " %s.", card_cont_legend(c, legend, sizeof(legend)));
	fputs("</p>\n<table class=\"res card menu\"><tr><th>need</th><th>rank</th><th>option</th><th>walk</th>"
	      "<th>stores</th><th>chain</th><th>tput</th>", f);
	for (unsigned k = 0; k < c->ncont; k++)
		report_htmlf(f, "<th class=\"cont\">%s</th>", c->cont[k].label);
	fputs("<th></th><th>safe when</th></tr>\n", f);
	if (!c->nneed)
		fprintf(f, "<tr><td colspan=\"%u\" class=\"note\">not in this report (no result names a need)"
			"</td></tr>\n", cols);
	for (unsigned n = 0; n < c->nneed; n++) {
		const struct card_need *nd = &c->need[n];
		double max = 0;

		for (unsigned o = 0; o < nd->nopt; o++)
			max = fmax(max, fmax(card_option_cost(&nd->opt[o], nd->basis), 0));
		report_htmlf(f, "<tr class=\"need\"><td rowspan=\"%u\">%s<br><span class=\"note\">ranked by: %s</span></td>",
		    nd->nopt ? nd->nopt : 1, nd->need, card_basis_name(nd->basis));
		if (!nd->nopt)
			fprintf(f, "<td colspan=\"%u\" class=\"note\">not measured</td></tr>\n", cols - 1);
		for (unsigned o = 0; o < nd->nopt; o++) {
			fputs(o ? "<tr>" : "", f);
			menu_option(c, &nd->opt[o], nd->basis, max, f);
		}
	}
	fputs("</table>\n", f);
}

/* The measured staircase: cycles per load of the dependent chase against
 * the footprint (log x, log y), the detected levels as bands with their
 * measured size (solid) and hwloc's declared sizes (dashed). The level
 * bands, labelled at the top; the grid: 1, 2, 5 per decade up, a tick
 * every power of 4 across. */
static void stair_frame(const struct plot *s, const struct hierarchy_section *h, FILE *f)
{
	static const char *const band[] = { "#eef4fa", "#fbf1e6", "#eef6ee", "#f6eef6", "#f4f4f4" };

	for (size_t i = 0; i < h->nlevels; i++) {
		const struct hier_level_out *l = &h->levels[i];
		double x0 = plot_x(s, (double)l->first_bytes);
		double x1 = plot_x(s, (double)l->last_bytes);
		char lab[64];

		if (!(l->first_bytes > 0) || !(l->last_bytes >= l->first_bytes))
			continue;
		if (l->memory)
			snprintf(lab, sizeof(lab), "DRAM %.0f ns", l->ns);
		else
			snprintf(lab, sizeof(lab), "%.6s %.1f cyc", hier_level_name(l), l->cycles);
		report_htmlf(f, "<rect class=\"level\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			     "height=\"%d\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\" "
			     "class=\"lvl\">%s</text>\n", x0, s->top, fmax(x1 - x0, 2), s->ph,
			     band[i % ARRAY_SIZE(band)], (x0 + x1) / 2, s->top + 14, lab);
	}
	for (double d = s->ylo; d <= s->yhi * 1.001; d *= 10)
		for (int m = 1; m <= 5 && d * m <= s->yhi * 1.001; m += (m == 1 ? 1 : 3))
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
				   "<text x=\"%d\" y=\"%.1f\" class=\"label\">%g</text>\n",
				s->lw, plot_y(s, d * m), s->lw + s->pw, plot_y(s, d * m), s->lw - 4, plot_y(s, d * m) + 4, d * m);
	for (double e = 2 * ceil(s->xmin / 2), x; e <= s->xmax; e += 2) {
		char t[32];

		size_str(pow(2, e), t, sizeof(t), false);
		x = plot_x(s, pow(2, e));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/><text x=\"%.1f\" y=\"%d\" "
			   "class=\"tick\">%s</text>\n", x, s->top + s->ph, x, s->top + s->ph + 4, x, s->top + s->ph + 16, t);
	}
}

/* hwloc's declared sizes, dashed, labelled below the top; the measured
 * sizes: a solid line, the bracket under it. */
static void stair_sizes(const struct plot *s, const struct hierarchy_section *h, FILE *f)
{
	char t[32];

	for (unsigned i = 0; i < h->nhwloc_caches; i++) {
		double b = (double)h->hwloc_caches[i];

		if (!(b > 0) || log2(b) < s->xmin || log2(b) > s->xmax)
			continue;
		size_str(b, t, sizeof(t), false);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"hwloc\"/>"
			   "<text x=\"%.1f\" y=\"%d\" class=\"hwlab\">hwloc L%u %s</text>\n", plot_x(s, b), s->top,
			plot_x(s, b), s->top + s->ph, plot_x(s, b) + 3, s->top + s->ph - 18 - 12 * (int)(i % 2), i + 1, t);
	}
	for (size_t i = 0; i < h->nlevels; i++) {
		const struct hier_level_out *l = &h->levels[i];
		double x = plot_x(s, (double)l->size_bytes), lo = plot_x(s, (double)l->size_lo);
		double hi = plot_x(s, fmin((double)l->size_hi, pow(2, s->xmax)));

		if (!(l->size_bytes > 0) || l->memory)
			continue;
		size_str((double)l->size_bytes, t, sizeof(t), false);
		report_htmlf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			     "class=\"measured\"/><text x=\"%.1f\" y=\"%d\" class=\"mlab\">%s %s "
			     "measured</text>", x, s->top + 18, x, s->top + s->ph, x - 3,
			     s->top + 30, hier_level_name(l), t);
		if (l->size_lo > 0 && l->size_hi > l->size_lo)
			fprintf(f, "<path class=\"bracket\" d=\"M%.1f %d H%.1f M%.1f %d v8 M%.1f %d v8\"/>",
				lo, s->top + s->ph - 8, hi, lo, s->top + s->ph - 12, hi,
				s->top + s->ph - 12);
		fputc('\n', f);
	}
}

/* A point of the staircase that can be drawn on log axes. */
static bool stair_drawn(const struct hier_point_out *p)
{
	return p->bytes > 0 && p->cycles > 0;
}

static void stair_points(const struct plot *s, const struct hierarchy_section *h, FILE *f)
{
	const char *op = "M";

	fputs("<path class=\"curve\" stroke=\"#222\" d=\"", f);
	for (size_t i = 0; i < h->npoints; i++) {
		const struct hier_point_out *p = &h->points[i];

		if (!stair_drawn(p))
			continue;
		fprintf(f, "%s%.1f %.1f", op, plot_x(s, (double)p->bytes), plot_y(s, p->cycles));
		op = " L";
	}
	fputs("\"/>\n", f);
	for (size_t i = 0; i < h->npoints; i++) {
		const struct hier_point_out *p = &h->points[i];
		char t[32];

		if (!stair_drawn(p))
			continue;
		size_str((double)p->bytes, t, sizeof(t), false);
		fprintf(f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"><title>%s: %.2f "
			   "cycles, %.2f ns</title></circle>", plot_x(s, (double)p->bytes),
			plot_y(s, p->cycles), t, p->cycles, p->ns);
	}
}

static void staircase_chart(const struct card *c, FILE *f)
{
	const struct hierarchy_section *h = c->hier;
	struct plot s = { 50, 34, W - 50 - 20, 300, INFINITY, -INFINITY, INFINITY, 0, true };

	for (size_t i = 0; h && i < h->npoints; i++) {
		const struct hier_point_out *p = &h->points[i];

		if (!stair_drawn(p))
			continue;
		s.xmin = fmin(s.xmin, log2((double)p->bytes));
		s.xmax = fmax(s.xmax, log2((double)p->bytes));
		s.ylo = fmin(s.ylo, p->cycles);
		s.yhi = fmax(s.yhi, p->cycles);
	}
	fputs("<h3>Measured memory hierarchy (the staircase)</h3>\n", f);
	if (!isfinite(s.xmin) || s.xmax - s.xmin < 1) {
		fputs("<p class=\"note\">No measured hierarchy in this report (the default characterization, "
		      "atomcost run with no probe names, measures it; so does atomcost hierarchy).</p>\n", f);
		return;
	}
	s.ylo = pow(10, floor(log10(s.ylo)));
	s.yhi = pow(10, ceil(log10(s.yhi)));
	svg_open(f, "staircase", W, s.top + s.ph + 44, 0,
		 "measured memory hierarchy: cycles per dependent load against footprint");
	stair_frame(&s, h, f);
	stair_sizes(&s, h, f);
	stair_points(&s, h, f);
	fprintf(f, "\n<text x=\"%d\" y=\"%d\" class=\"axis\">footprint of the dependent random chase (bytes, log "
		   "scale); y: core cycles per load (log scale)</text>\n</svg><figcaption>Bands: the levels found at the "
		   "knees of the staircase; solid lines: each level's measured size, with the bracket of footprints it "
		   "lies between; dashed: the sizes hwloc declares (in a virtual machine they can be fiction)."
		   "</figcaption></figure>\n", s.lw, s.top + s.ph + 36);
}

/* Atomic over non-atomic by pattern (card_build's ratio pairs): one bar
 * per twin pair in each pattern, on a log scale around 1 (no cost); a bar
 * judged the same over the epochs (stats_judge) is drawn pale. */
#define RC_LW 50
#define RC_TOP 10
#define RC_PH 260
#define RC_PW (W - RC_LW - 150)

static double rc_y(double r, double lmin, double lmax)
{
	return RC_TOP + RC_PH - RC_PH * (log2(r) - lmin) / (lmax - lmin);
}

static bool rc_drawn(const struct card_part *p)
{
	return p->a && p->a_cyc > 0 && p->b_cyc > 0;
}

static void ratio_bars(const struct card *c, double lmin, double lmax, FILE *f)
{
	double gw = (double)RC_PW / CARD_RATIO_CATS, y0 = rc_y(1, lmin, lmax);

	for (unsigned g = 0; g < CARD_RATIO_CATS; g++) {
		double x0 = RC_LW + g * gw, bw = gw * 0.8 / (double)c->nratio;

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%s</text>\n", x0 + gw / 2, RC_TOP + RC_PH + 16,
			card_ratio_label(g));
		for (unsigned k = 0; k < c->nratio; k++) {
			const struct card_part *p = &c->ratio[k].part[g];
			double y1 = rc_y(p->a_cyc / p->b_cyc, lmin, lmax), x = x0 + gw * 0.1 + k * bw;

			if (!rc_drawn(p))
				continue;
			fprintf(f, "<rect class=\"rbar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>",
				x, fmin(y0, y1), fmax(bw - 1, 1), fmax(fabs(y1 - y0), 1), palette[k % ARRAY_SIZE(palette)],
				p->j.v == VERDICT_SAME ? " fill-opacity=\"0.3\"" : "");
			report_htmlf(f, "<title>%s / %s, %s: %.2f / %.2f cycles = %.2fx: %s over %zu epochs</title></rect>\n", p->a,
			    p->b, card_ratio_label(g), p->a_cyc, p->b_cyc, p->a_cyc / p->b_cyc, stats_verdict_name(p->j.v),
			    p->j.n);
		}
	}
}

static void ratio_chart(const struct card *c, FILE *f)
{
	double lmin = -1, lmax = 1;

	fputs("<h3>Atomic against non-atomic, by access pattern</h3>\n", f);
	if (!c->nratio) {
		fputs("<p class=\"note\">No twin pair measured under the access patterns (the default "
		      "characterization measures them under hit, dep, l2, llc and miss).</p>\n", f);
		return;
	}
	for (unsigned k = 0; k < c->nratio; k++)
		for (unsigned g = 0; g < CARD_RATIO_CATS; g++)
			if (rc_drawn(&c->ratio[k].part[g])) {
				lmin = fmin(lmin, floor(log2(c->ratio[k].part[g].a_cyc / c->ratio[k].part[g].b_cyc)));
				lmax = fmax(lmax, ceil(log2(c->ratio[k].part[g].a_cyc / c->ratio[k].part[g].b_cyc)));
			}
	svg_open(f, "ratios", W, RC_TOP + RC_PH + 44, 0, "atomic over non-atomic cycles per op, by pattern");
	for (double e = lmin; e <= lmax; e += 1)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"%s\"/>"
			   "<text x=\"%d\" y=\"%.1f\" class=\"label\">%gx</text>\n", RC_LW, rc_y(pow(2, e), lmin, lmax),
			RC_LW + RC_PW, rc_y(pow(2, e), lmin, lmax), e == 0 ? "one" : "grid", RC_LW - 4,
			rc_y(pow(2, e), lmin, lmax) + 4, pow(2, e));
	ratio_bars(c, lmin, lmax, f);
	for (unsigned k = 0; k < c->nratio; k++)
		report_htmlf(f, "<rect x=\"%d\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%u\" "
		    "class=\"value\">%s</text>\n", RC_LW + RC_PW + 12, RC_TOP + 4 + 16 * k, palette[k % ARRAY_SIZE(palette)],
		    RC_LW + RC_PW + 26, RC_TOP + 13 + 16 * k, c->ratio[k].atomic);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">atomic op's cycles over its non-atomic twin's (log scale; "
		   "1x: atomicity costs nothing)</text>\n</svg>", RC_LW, RC_TOP + RC_PH + 36);
	fprintf(f, "<figcaption>One bar per twin pair (the atomic op named; its twin is the non-atomic form) in each "
		   "access pattern, ordered from the core outwards; pale: the same cost shown by an equivalence test "
		   "over the epochs (within %.0f%% or %.2f cycles).</figcaption></figure>\n", JUDGE_MARGIN_REL * 100,
		JUDGE_MARGIN_ABS);
}

/* Horizontal bars: one per item, a label on the left, the value and an
 * optional whisker; grey with a note when not valid. */
struct hbar {
	char label[64];
	double v, lo, hi;	/* lo/hi: whisker, NAN: none */
	const char *color;
	const char *note;	/* drawn instead of the value when set */
};

static void hbars(const struct hbar *b, size_t n, const char *unit, const char *klass, FILE *f)
{
	int label_w = 200, row_h = 18, h = (int)n * row_h + 36;
	double max = 0, scale;

	for (size_t i = 0; i < n; i++)
		max = fmax(max, fmax(b[i].v, isfinite(b[i].hi) ? b[i].hi : 0));
	if (!(max > 0))
		max = 1;
	max *= 1.15;
	scale = (W - label_w - 150) / max;
	svg_open(f, klass, W, h, 0, unit);
	for (int k = 0; k <= 4; k++) {
		double v = max * k / 4, x = label_w + v * scale;

		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%zu\" class=\"grid\"/><text x=\"%.1f\" y=\"%zu\" "
			   "class=\"tick\">%.3g</text>\n", x, x, n * row_h, x, n * row_h + 14, v);
	}
	for (size_t i = 0; i < n; i++) {
		int y = (int)i * row_h;

		report_htmlf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>", label_w - 6, y + 13, b[i].label);
		fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s>", label_w,
			y + 2, fmax(b[i].v, 0) * scale, row_h - 5, b[i].note ? COL_BASE : b[i].color,
			b[i].note ? " fill-opacity=\"0.4\"" : "");
		report_htmlf(f, "<title>%s: %.1f %s</title></rect>", b[i].label, b[i].v, unit);
		if (isfinite(b[i].lo) && isfinite(b[i].hi))
			fprintf(f, "<path class=\"whisker\" d=\"M%.1f %d H%.1f\"/>", label_w + b[i].lo * scale, y + 9,
				label_w + b[i].hi * scale);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.1f", label_w + fmax(b[i].v, isfinite(b[i].hi) ?
			b[i].hi : 0) * scale + 4, y + 13, b[i].v);
		if (b[i].note)
			report_htmlf(f, " (%s)", b[i].note);
		fputs("</text>\n", f);
	}
	report_htmlf(f, "<text x=\"%d\" y=\"%zu\" class=\"axis\">%s</text></svg>", label_w, n * row_h + 30, unit);
}

/* The c2c section's matrices: the flat one of older sections (its unit
 * beside it), else one heat map per method. */
static void heatmaps(const struct c2c_out *o, FILE *f)
{
	const struct c2c_matrix_out *mx = o ? &o->matrix : NULL;
	bool flat = o && o->has & 1u << C2O_FLAT_MATRIX, any = false;

	fputs("<h2>Cache-to-cache transfers</h2>\n", f);
	for (int m = 0; o && m < (flat ? 1 : C2C__COUNT); m++) {
		const char *method = flat ? NULL : c2c_method_key((enum c2c_method)m);

		if (!mx->nv[m])
			continue;
		heatmap(mx, m, method, (flat ? o->has & 1u << C2O_FLAT_UNIT : mx->has & 1u << C2M_UNIT) ? mx->unit : NULL,
			f);
		any = true;
	}
	if (o && !any)
		fputs("<p class=\"note\">The report's c2c section has no matrix.</p>\n", f);
	else if (!o)
		fputs("<p class=\"note\">The report has no c2c section (atomcost report RUN.json "
		      "--c2c C2C.json adds the JSON of atomcost c2c --all-pairs).</p>\n", f);
}

/* The c2c round trip of one pair per topology class (the c2c section). */
static void c2c_class_chart(const struct card *c, FILE *f)
{
	struct hbar b[C2C_MAX_PAIRS] = { 0 };

	fputs("<h3>Cache-to-cache round trip, by topology class</h3>\n", f);
	if (!c->nc2c) {
		fputs("<p class=\"note\">No c2c round trips in this report.</p>\n", f);
		return;
	}
	for (unsigned n = 0; n < c->nc2c; n++) {
		const struct c2c_pair_out *p = c->c2c[n];

		b[n] = (struct hbar){ .v = p->ns.median, .lo = p->ns.p10, .hi = p->ns.p90,
				      .color = COL_ATOMIC };
		b[n].note = p->timed_out ? "timed out" : NULL;
		snprintf(b[n].label, sizeof(b[n].label), "%.12s (PU %d, %d) %.12s",
			 *p->cls ? p->cls : "?", p->cpu_a, p->cpu_b, *p->method ? p->method : "?");
	}
	hbars(b, c->nc2c, "ns per round trip (median; whisker p10 to p90)", "c2c-class", f);
	fputs("<figcaption>The line goes to the other PU and back; one pair per class this machine has.", f);
	if (c->nabsent) {
		fputs(" Absent here (no PU pair of the class):", f);
		for (unsigned i = 0; i < c->nabsent; i++)
			report_htmlf(f, " %s", c->c2c_absent[i]);
		fputc('.', f);
	}
	fputs("</figcaption></figure>\n", f);
}

/* True, false and no sharing of each contention probe, per class (the
 * card's cases). Cases whose threads did not run together are drawn grey
 * and said: they measured no contention. */
static void sharing_chart(const struct card *c, FILE *f)
{
	struct hbar b[CARD_MAX_CASES] = { 0 };

	fputs("<h3>Contention: true, false and no sharing, by topology class</h3>\n", f);
	if (!c->ncase) {
		fputs("<p class=\"note\">No contention rows in this report.</p>\n", f);
		return;
	}
	for (unsigned n = 0; n < c->ncase; n++) {
		const struct card_case *k = &c->cases[n];

		b[n] = (struct hbar){ .v = k->cycles, .lo = NAN, .hi = NAN, .note = k->no_overlap ? "no overlap" : NULL,
				      .color = !strcmp(k->pattern, "true-share") ? COL_ATOMIC :
					       !strcmp(k->pattern, "false-share") ? COL_LOCAL : COL_PLAIN };
		snprintf(b[n].label, sizeof(b[n].label), "%.12s %.20s %.12s", k->placement, k->probe, k->pattern);
	}
	hbars(b, c->ncase, "core cycles per op per thread (median)", "sharing", f);
	fprintf(f, "<figcaption>2 threads on a pair of PUs of the class: <span style=\"color:%s\">&#9632;</span> true "
		   "sharing (one word), <span style=\"color:%s\">&#9632;</span> false sharing (two words of one line), "
		   "<span style=\"color:%s\">&#9632;</span> no sharing (lines apart); grey, \"no overlap\": the "
		   "two threads did not run at the same time, so the case measured no contention (the card leaves "
		   "it out).</figcaption></figure>\n",
		COL_ATOMIC, COL_LOCAL, COL_PLAIN);
}

/* Per sweep group (--threads 1,2,4): the aggregate cost at each thread
 * count; a point whose threads did not run together is grey and said. */
static void sweep_charts(const struct report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->n; i++) {
		size_t members[CONTENTION_SWEEP_MAX];
		size_t m = contention_sweep_group(rep, i, members, CONTENTION_SWEEP_MAX);
		struct hbar b[CONTENTION_SWEEP_MAX] = { 0 };

		if (!m)
			continue;
		for (size_t k = 0; k < m; k++) {
			const struct contention_part *p = result_contention(&rep->r[members[k]]);
			bool apart = p->threads > 1 && p->overlapped != 1;

			b[k] = (struct hbar){ .v = p->aggregate_ns_per_op, .lo = NAN, .hi = NAN,
					      .color = COL_ATOMIC,
					      .note = apart ? "not overlapped" :
						      contention_unfair(p) ? "unfair" : NULL };
			snprintf(b[k].label, sizeof(b[k].label), "%d thread%s", p->threads,
				 p->threads == 1 ? "" : "s");
		}
		report_htmlf(f, "<h3>%s, %s sharing, %s: against threads</h3>\n", rep->r[i].name,
			     result_contention(&rep->r[i])->sharing, result_contention(&rep->r[i])->placement);
		hbars(b, m, "ns per op, all threads together", "sweep", f);
		fputs("<figcaption>The aggregate cost (the union of the threads' runs over all their ops) "
		      "at each thread count; grey: the threads did not run together (not overlapped) or "
		      "one did over twice the ops of another (unfair).</figcaption></figure>\n", f);
	}
}

/* The contention rows' table, the text table's columns and words
 * (report/contention.c computes both): h-o and qdepth "-" where a row does
 * not hold them. Like the text, only for a report of one epoch. */
static void contention_table(const struct report *rep, FILE *f)
{
	bool header = false, flagged = false, unfair = false;
	char note[256];

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const struct contention_part *c = result_contention(r);
		struct contention_cells x;

		if (!c)
			continue;
		if (!header) {
			report_htmlf(f, "<h2 id=\"contention\">Contention</h2>\n<p class=\"note\">%s",
				     contention_head_text(c, note, sizeof(note)));
			for (size_t k = 0; k < CONTENTION_NOTES; k++)
				report_htmlf(f, "<br>%s", contention_notes[k]);
			fputs("</p>\n<table class=\"res contention\"><tr><th>probe</th><th>placement</th><th>share</th>"
			      "<th>thr</th><th>cpus</th><th>med cyc</th><th>thr ns/op</th><th>thr cyc</th>"
			      "<th>agg ns/op</th><th>agg cyc</th><th>cpu ns/op</th><th>ratio</th><th>fair</th>"
			      "<th>max/min</th><th>h-o</th><th>qdepth</th><th>overlap</th><th>cpu/wall</th>"
			      "<th>ops/thread</th><th></th></tr>\n", f);
			header = true;
		}
		contention_cells(rep, r, &x);
		flagged |= x.not_overlapped;
		unfair |= x.unfair;
		report_htmlf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td class=\"n\">%d</td><td>%s</td>"
			     "<td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
			     "<td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%s</td>"
			     "<td class=\"n\">%s</td><td class=\"n\">%.3f</td><td class=\"n\">%.2f</td>"
			     "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.3f</td>"
			     "<td class=\"n\">%.3f</td><td>%s</td><td>%s%s%s</td></tr>\n",
			     r->name, c->placement, c->sharing, c->threads, x.cpus, x.med_cyc, x.thr_ns, x.thr_cyc,
			     x.agg_ns, x.agg_cyc, x.cpu_ns, x.ratio, c->fairness_cv, x.max_min, x.ho, x.qd,
			     c->overlap, c->cpu_wall_min, x.ops, x.not_overlapped ? "NOT-OVERLAPPED" : "",
			     x.unfair ? " UNFAIR" : "", r->migrated ? " MIGRATED" : "");
	}
	if (!header)
		return;
	fputs("</table>\n", f);
	if (flagged)
		report_htmlf(f, "<p class=\"note\">%s</p>\n", contention_overlap_note(note, sizeof(note)));
	if (unfair)
		report_htmlf(f, "<p class=\"note\">%s</p>\n", contention_unfair_note(note, sizeof(note)));
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;max-width:1000px;margin:1em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.5em}h3{font-size:1em;margin:1em 0 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;font-size:12px}td,th{padding:1px 6px;text-align:left;vertical-align:top}"
	"table.fp th{font-weight:normal;color:#555}table.res td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"table.res tr:nth-child(even){background:#f4f4f4}"
	"svg text{font:11px sans-serif}.label{text-anchor:end}.tick{text-anchor:middle;fill:#555}"
	".axis{fill:#555}.grid{stroke:#ddd}.whisker{stroke:#222;fill:none}.value{fill:#222}"
	".curve{fill:none;stroke-width:2}.cell.none{fill:#ddd}.cellv{text-anchor:middle;fill:#111}"
	"figure{margin:1em 0}figcaption{color:#555;font-size:12px}.note{color:#555}"
	".warn{color:#a00;font-weight:bold}"
	"table.card{margin:.4em 0}table.card th{color:#555;font-weight:normal}table.card td.n{text-align:right}"
	"table.menu tr.need td{border-top:1px solid #ccc}table.menu code{font-size:12px}"
	".lvl{text-anchor:middle;fill:#333;font-weight:bold}.hwloc{stroke:#a4161a;stroke-dasharray:5 4}"
	".hwlab{fill:#a4161a}.measured{stroke:#222;stroke-width:1.5}.mlab{text-anchor:end;fill:#222}"
	".bracket{stroke:#222;fill:none}.pt{fill:#222}.one{stroke:#222;stroke-width:1.5}";

/* The title and what the page is of: the machine in a line, when and how
 * long, the calibration, and what to read with care. */
static void page_head(const struct report *rep, FILE *f)
{
	struct card_machine m;
	const struct calibration *c = &rep->cal;
	int passes = compare_max_epoch(rep);
	char line[512];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>atomcost report", f);
	report_machine(rep, &m);
	if (m.host)
		report_htmlf(f, ": %s", m.host);
	report_htmlf(f, " %s</title>\n", rep->started);
	fprintf(f, "<style>%s</style></head><body>\n<h1>atomcost report</h1>\n<p>", css);
	fingerprint_oneline(&rep->fp, line, sizeof(line));
	report_htmlf(f, "%s<br>measured %s in %.1f s; %zu results", line, rep->started, rep->wall_s, rep->n);
	if (passes > 1)
		fprintf(f, " in %d interleaved passes (figures are medians of the pass medians)", passes);
	report_htmlf(f, ". Core %.3f GHz, timer %.4f GHz, %.4f ticks per core cycle (%s).</p>\n", c->core_hz / 1e9,
	    c->timer_hz / 1e9, c->ticks_per_cycle, c->cycle_source);
	if (!c->trustworthy)
		fputs("<p class=\"warn\">The cycle calibration does not agree with itself: read core-cycle figures with care.</p>\n", f);
	if (rep->partial)
		report_htmlf(f, "<p class=\"warn\">PARTIAL report (%s): only what was measured before it stopped.</p>\n",
		    rep->partial_reason);
}

/* Atomic against non-atomic bars per pattern and mode, and the cost
 * against the footprint, from the rows grouped once. */
static void row_charts(const struct report *rep, const struct rows *rs, FILE *f)
{
	bool any_fp = false;

	fputs("<h2>Atomic vs non-atomic, per pattern</h2>\n", f);
	for (size_t i = 0; i < rep->n; i++) {	/* each pattern once, in the order of the results */
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(rep->r[j].pattern, rep->r[i].pattern);
		for (int m = 0; m < MODE__COUNT && !seen; m++)
			bars_chart(rs, rep->r[i].pattern, (enum probe_mode)m, f);
	}
	if (!rep->n)
		fputs("<p class=\"note\">No results.</p>\n", f);
	fputs("<h2>Cost vs footprint</h2>\n", f);
	for (size_t i = 0; i < rs->n; i++)
		any_fp |= rs->v[i].fp > 0;
	if (any_fp)
		for (int m = 0; m < MODE__COUNT; m++)
			footprint_chart(rs, (enum probe_mode)m, f);
	else
		fputs("<p class=\"note\">No result carries a footprint (run with --pattern hit,l2,llc,miss to draw the curves).</p>\n", f);
}

/* Every result, with its judgment over the epochs. */
static void results_table(const struct report *rep, FILE *f)
{
	fprintf(f, "<h2>Results</h2>\n<p class=\"note\">vs twin: the row against its twin over the epochs "
		   "(each with fresh buffers, pinning and calibration): slower or faster when the 95%% interval of "
		   "the ratio lies beyond the margin (%.0f%% or %.2f cycles), same when the 90%% interval lies "
		   "inside it (an equivalence test), else unresolved. Analogs lack the real semantics and get no "
		   "verdict.</p>\n", JUDGE_MARGIN_REL * 100, JUDGE_MARGIN_ABS);
	fputs("<table class=\"res\"><tr><th>probe</th><th>twin</th><th>pattern</th>"
	      "<th>mode</th><th>context</th><th>epoch</th><th>insn</th><th>cycles min</th><th>median</th><th>p90</th><th>ns</th>"
	      "<th>ratio in the epoch [95% CI]</th><th>vs twin, over the epochs</th><th>samples</th></tr>\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		char v[48];

		/* each row's context and emulation mark */
		report_htmlf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td><td class=\"n\">%d</td><td>%s</td>"
		    "<td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.3f</td>",
		    r->name, r->twin[0] ? r->twin : "-", r->pattern, probe_mode_name(r->mode),
		    result_context_name(r->context), report_row_emulated(rep, r) ? ", emulated" : "", result_epoch(r), r->insn,
		    result_cycles(rep, r->s.min), result_cycles(rep, r->s.median), result_cycles(rep, r->s.p90),
		    result_ns(rep, r->s.median));
		if (r->has_ratio)
			fprintf(f, "<td class=\"n\">%.2f [%.2f, %.2f]</td>", r->ratio, r->ratio_lo, r->ratio_hi);
		else
			fputs("<td class=\"n\">-</td>", f);
		/* the judgment over the epochs (report_pair_twins) */
		result_judgment_text(r, v, sizeof(v));
		fprintf(f, "<td>%s</td><td class=\"n\">%zu%s</td></tr>\n", !r->has_ratio ? "-" :
			r->judge.v == VERDICT_NONE ? "analog: none" : v, r->nsamples, r->migrated ? " MIGRATED" : "");
	}
	fputs("</table>\n", f);
}

int report_write_html(const struct report *rep, FILE *f)
{
	static const char *const meta_rows[] = { "command_line", "experiment" };
	struct card card;
	struct rows rs;
	int err = rows_build(rep, &rs);

	if (err)
		return err;
	page_head(rep, f);
	if (rep->cal.emulated)
		report_htmlf(f, "<p><b>EMULATED</b> (%s): every figure is the emulator's, not a measurement; "
			     "no card.</p>\n", rep->cal.emulation);
	/* a default characterization: the card first, then its charts */
	if (card_wanted(rep) && !card_build(rep, &card)) {
		fprintf(f, "<h2 id=\"card\">Machine card%s</h2>\n", rep->partial ? " (PARTIAL run)" : "");
		card_machine(rep, &card, f);
		card_atomicity(&card, f);
		card_sharing(&card, f);
		card_menu(&card, f);
		fputs("<h2 id=\"charts\">The card as charts</h2>\n", f);
		staircase_chart(&card, f);
		ratio_chart(&card, f);
		c2c_class_chart(&card, f);
		sharing_chart(&card, f);
	}
	sweep_charts(rep, f);
	row_charts(rep, &rs, f);
	free(rs.v);
	heatmaps(rep->c2c, f);
	results_table(rep, f);
	if (compare_max_epoch(rep) <= 1)
		contention_table(rep, f);
	fputs("<h2>Machine fingerprint</h2>\n<table class=\"fp\">\n", f);
	if (rep->fp.n)
		fp_rows(f, "", report_meta(rep, "fingerprint"));
	else
		fputs("<tr><td>this report carries no fingerprint</td></tr>\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(meta_rows); i++)
		if (report_meta(rep, meta_rows[i]))
			fp_rows(f, meta_rows[i], report_meta(rep, meta_rows[i]));
	fputs("</table>\n<p class=\"note\">Written by atomcost " ATOMCOST_VERSION
	      " from the JSON report; self-contained, no scripts.</p>\n</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
