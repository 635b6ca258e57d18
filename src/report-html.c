/* report-html.c - `atomcost report RUN.json -o report.html`: one
 * self-contained page (inline CSS, inline SVG drawn here; no script, no
 * network) with the fingerprint, atomic vs non-atomic bars per pattern and
 * mode, cost vs footprint curves (results carrying extra.footprint), and
 * the c2c matrix as a heat map (a top-level "c2c" section). Every string
 * from the report goes through html_str(): probe names and fingerprint
 * facts come from files a user may have edited. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compare.h"
#include "build-config.h"
#include "fingerprint.h"
#include "report.h"

#define MAX_GROUP 1000
#define W 760			/* chart width, px */
#define COL_ATOMIC "#c8553d"
#define COL_PLAIN "#3a7ca5"
#define COL_BASE "#999999"
#define COL_LOCAL "#e09f3e"

static void html_str(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* Median of pass medians (cycles) of rep->r[i]'s group, and the interval
 * drawn as a whisker: the median's CI for one pass, the range of the pass
 * medians for several. */
static double group_cycles(const struct report *rep, size_t i, double *lo, double *hi)
{
	static const struct result *g[MAX_GROUP];
	double m[MAX_GROUP];
	size_t n = compare_group(rep, i, g, MAX_GROUP);

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t k = 0; k < n; k++) {
		m[k] = result_cycles(rep, g[k]->s.median);
		*lo = fmin(*lo, result_cycles(rep, n > 1 ? g[k]->s.median : g[k]->s.ci_lo));
		*hi = fmax(*hi, result_cycles(rep, n > 1 ? g[k]->s.median : g[k]->s.ci_hi));
	}
	return stats_median(m, n);
}

static void fp_rows(FILE *f, const char *prefix, const json_t *v)
{
	char key[256];

	if (json_is_object(v)) {
		const char *k;
		json_t *x;

		json_object_foreach((json_t *)v, k, x) {
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", k);
			fp_rows(f, key, x);
		}
		return;
	}
	fputs("<tr><th>", f);
	html_str(f, prefix);
	fputs("</th><td>", f);
	if (json_is_string(v)) {
		html_str(f, json_string_value(v));
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;

		json_array_foreach(v, i, x) {
			if (i)
				fputc(' ', f);
			if (json_is_string(x))
				html_str(f, json_string_value(x));
			else if (json_is_number(x))
				fprintf(f, "%g", json_number_value(x));
		}
	} else if (json_is_number(v)) {
		fprintf(f, "%.6g", json_number_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", f);
	} else {
		fputs("-", f);
	}
	fputs("</td></tr>\n", f);
}

static const struct result *find_twin(const struct report *rep, const struct result *r, size_t *idx)
{
	for (size_t j = 0; j < rep->n; j++) {
		const struct result *t = &rep->r[j];

		if (t->mode == r->mode && !strcmp(t->name, r->twin) && !strcmp(t->pattern, r->pattern)) {
			*idx = j;
			return t;
		}
	}
	return NULL;
}

static int rank(const struct result *r)
{
	if (!strcmp(r->atomicity, "non-atomic"))
		return 0;
	if (!strcmp(r->atomicity, "local-only"))
		return 1;
	return 2;
}

static const char *color_of(const struct result *r)
{
	if (!strcmp(r->atomicity, "baseline"))
		return COL_BASE;
	return rank(r) == 0 ? COL_PLAIN : rank(r) == 1 ? COL_LOCAL : COL_ATOMIC;
}

static bool seen_pattern(const struct report *rep, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(rep->r[j].pattern, rep->r[i].pattern))
			return true;
	return false;
}

/* Horizontal bars for one pattern and mode: every probe whose twin ran too
 * (the atomic one with its non-atomic twin below it), then the others. */
static void bars_chart(const struct report *rep, const char *pattern, enum probe_mode mode, FILE *f)
{
	size_t idx[512], n = 0;
	double max = 0, lo, hi;
	int label_w = 230, row_h = 16, y;

	for (size_t i = 0; i < rep->n && n < ARRAY_SIZE(idx); i++) {
		const struct result *r = &rep->r[i], *t;
		size_t ti;

		if (r->mode != mode || strcmp(r->pattern, pattern) || !compare_group_first(rep, i))
			continue;
		t = r->twin[0] ? find_twin(rep, r, &ti) : NULL;
		/* a mutual pair is drawn once, the less atomic probe under the
		 * more atomic one; a one-way twin (this_cpu_cmpxchg -> cmpxchg)
		 * is drawn with its own bar pair */
		if (t && !strcmp(t->twin, r->name) &&
		    (rank(t) > rank(r) || (rank(t) == rank(r) && ti < i)))
			continue;
		idx[n++] = i;
		group_cycles(rep, i, &lo, &hi);
		max = fmax(max, hi);
		if (t) {
			group_cycles(rep, ti, &lo, &hi);
			max = fmax(max, hi);
		}
	}
	if (!n || !(max > 0))
		return;
	max *= 1.12;

	/* count the bars to size the picture */
	y = 0;
	for (size_t k = 0; k < n; k++) {
		const struct result *r = &rep->r[idx[k]];
		size_t ti;

		y += row_h + (r->twin[0] && find_twin(rep, r, &ti) ? row_h : 0) + 8;
	}
	fputs("<h3>", f);
	html_str(f, pattern);
	fprintf(f, ", %s</h3>\n", probe_mode_name(mode));
	fprintf(f, "<figure><svg class=\"chart bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\"><title>",
		W, y + 40, W, y + 40);
	html_str(f, pattern);
	fprintf(f, " %s: core cycles per op</title>\n", probe_mode_name(mode));
	/* axis with 5 ticks */
	for (int k = 0; k <= 4; k++) {
		double v = max * k / 4.0;
		double x = label_w + (W - label_w - 70) * v / max;

		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			   "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%.3g</text>\n",
			x, x, y, x, y + 14, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">core cycles per op (median; whisker: %s)</text>\n",
		label_w, y + 32, compare_max_pass(rep) > 1 ? "range of pass medians" : "95% CI of the median");
	y = 0;
	for (size_t k = 0; k < n; k++) {
		const struct result *r = &rep->r[idx[k]], *t;
		size_t ti = 0;
		const struct result *pair[2];
		size_t pidx[2], np = 0;

		t = r->twin[0] ? find_twin(rep, r, &ti) : NULL;
		pair[np] = r;
		pidx[np++] = idx[k];
		if (t) {
			pair[np] = t;
			pidx[np++] = ti;
		}
		for (size_t p = 0; p < np; p++) {
			double m = group_cycles(rep, pidx[p], &lo, &hi);
			double scale = (W - label_w - 70) / max;
			double bw = fmax(m, 0) * scale;

			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">", label_w - 6, y + 12);
			html_str(f, pair[p]->name);
			fputs("</text>", f);
			fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
				label_w, y + 1, bw, row_h - 3,
				color_of(pair[p]));
			html_str(f, pair[p]->name);
			fputs(": ", f);
			html_str(f, pair[p]->insn);
			fprintf(f, ", %.2f cycles</title></rect>", m);
			if (isfinite(lo) && isfinite(hi))
				fprintf(f, "<path class=\"whisker\" d=\"M%.1f %d H%.1f M%.1f %d v6 M%.1f %d v6\"/>",
					label_w + fmax(lo, 0) * scale, y + 7, label_w + hi * scale,
					label_w + fmax(lo, 0) * scale, y + 4, label_w + hi * scale, y + 4);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.2f", label_w + fmax(hi, m) * scale + 4,
				y + 12, m);
			if (p == 0 && r->has_ratio && t)
				fprintf(f, " (x%.2f)", m / fmax(group_cycles(rep, ti, &lo, &hi), 1e-9));
			fputs("</text>\n", f);
			y += row_h;
		}
		y += 8;
	}
	fputs("</svg><figcaption>", f);
	html_str(f, pattern);
	fprintf(f, ", %s: <span style=\"color:%s\">&#9632;</span> atomic, <span style=\"color:%s\">&#9632;</span> "
		   "local-only (atomic against this CPU), "
		   "<span style=\"color:%s\">&#9632;</span> non-atomic, <span style=\"color:%s\">&#9632;</span> baseline; "
		   "(xN) is the ratio to the twin drawn under it.</figcaption></figure>\n",
		probe_mode_name(mode), COL_ATOMIC, COL_LOCAL, COL_PLAIN, COL_BASE);
}

/* Bytes the pattern walks over: extra.pattern.footprint_bytes (pattern.c),
 * or a plain extra.footprint / extra.footprint_bytes. */
static double footprint_of(const struct result *r)
{
	json_t *v = json_object_get(json_object_get(r->extra, "pattern"), "footprint_bytes");

	if (!v)
		v = json_object_get(r->extra, "footprint");
	if (!v)
		v = json_object_get(r->extra, "footprint_bytes");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Variant of a pattern ("l2+w1" -> "+w1", "l2" -> ""): one curve per probe
 * and variant. */
static const char *variant_of(const struct result *r)
{
	const char *plus = strchr(r->pattern, '+');

	return plus ? plus : "";
}

static bool same_curve(const struct result *a, const struct result *b)
{
	return a->mode == b->mode && !strcmp(a->name, b->name) && !strcmp(variant_of(a), variant_of(b));
}

struct yscale {
	bool log;
	double lo, hi;
	int h;
};

static double y_of(const struct yscale *s, double v)
{
	if (s->log)
		return s->h - s->h * (log10(fmax(v, s->lo)) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
	return s->h - s->h * v / s->hi;
}

/* Cycles per op against footprint (log2 x): one path per probe. */
static void footprint_chart(const struct report *rep, enum probe_mode mode, FILE *f)
{
	static const char *const colors[] = { "#c8553d", "#3a7ca5", "#588157", "#8f2d56",
					      "#f28f3b", "#6a4c93", "#2a9d8f", "#6d6875" };
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0, ymin = INFINITY, lo, hi;
	struct yscale ys;
	int lw = 60, h = 300, pw = W - lw - 170, ncurve = 0;

	for (size_t i = 0; i < rep->n; i++) {
		double fp = footprint_of(&rep->r[i]);

		if (rep->r[i].mode != mode || !(fp > 0))
			continue;
		xmin = fmin(xmin, log2(fp));
		xmax = fmax(xmax, log2(fp));
		ymax = fmax(ymax, group_cycles(rep, i, &lo, &hi));
		if (group_cycles(rep, i, &lo, &hi) > 0)
			ymin = fmin(ymin, group_cycles(rep, i, &lo, &hi));
	}
	if (!isfinite(xmin) || !(ymax > 0))
		return;
	if (xmax - xmin < 1)
		xmax = xmin + 1;
	ymax *= 1.1;
	/* a log y axis when costs span more than 20x (L1 hit to DRAM miss) */
	ys.log = isfinite(ymin) && ymax / ymin > 20;
	ys.lo = ys.log ? pow(10, floor(log10(ymin))) : 0;
	ys.hi = ys.log ? pow(10, ceil(log10(ymax))) : ymax;
	ys.h = h;
	fprintf(f, "<h3>%s</h3>\n<figure><svg class=\"chart curves\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 -12 %d %d\" role=\"img\"><title>%s: cycles per op vs footprint</title>\n",
		probe_mode_name(mode), W, h + 62, W, h + 62, probe_mode_name(mode));
	for (int k = 0; k <= (ys.log ? (int)lround(log10(ys.hi / ys.lo)) : 4); k++) {
		double yv = ys.log ? ys.lo * pow(10, k) : ymax * k / 4.0, yy = y_of(&ys, yv);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
			   "<text x=\"%d\" y=\"%.1f\" class=\"label\">%g</text>\n",
			lw, yy, lw + pw, yy, lw - 4, yy + 4, yv);
	}
	for (double e = ceil(xmin); e <= xmax; e += ceil((xmax - xmin) / 10)) {
		double x = lw + pw * (e - xmin) / (xmax - xmin);
		double bytes = pow(2, e);

		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>", x, x, h);
		if (bytes >= 1 << 30)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%gG</text>\n", x, h + 14, bytes / (1 << 30));
		else if (bytes >= 1 << 20)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%gM</text>\n", x, h + 14, bytes / (1 << 20));
		else
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%gK</text>\n", x, h + 14, bytes / 1024);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">footprint (bytes, log scale); y: core cycles per op (median%s)</text>\n",
		lw, h + 34, ys.log ? ", log scale" : "");
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const char *col = colors[ncurve % ARRAY_SIZE(colors)];
		bool first = true, dup = false;
		double lastx = 0, lasty = 0;

		if (r->mode != mode || !(footprint_of(r) > 0) || !compare_group_first(rep, i))
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = same_curve(&rep->r[j], r) && footprint_of(&rep->r[j]) > 0;
		if (dup)
			continue;
		/* points of this probe, in footprint order */
		fprintf(f, "<path class=\"curve\" stroke=\"%s\" d=\"", col);
		for (double prev = -INFINITY;;) {
			size_t best = SIZE_MAX;

			for (size_t j = 0; j < rep->n; j++) {
				const struct result *q = &rep->r[j];
				double fp = footprint_of(q);

				if (!same_curve(q, r) || !(fp > prev) || !compare_group_first(rep, j))
					continue;
				if (best == SIZE_MAX || fp < footprint_of(&rep->r[best]))
					best = j;
			}
			if (best == SIZE_MAX)
				break;
			prev = footprint_of(&rep->r[best]);
			lastx = lw + pw;
			lasty = y_of(&ys, group_cycles(rep, best, &lo, &hi));
			fprintf(f, "%s%.1f %.1f", first ? "M" : " L", lw + pw * (log2(prev) - xmin) / (xmax - xmin), lasty);
			first = false;
		}
		fputs("\"/>", f);
		for (size_t j = 0; j < rep->n; j++) {
			const struct result *q = &rep->r[j];
			double fp = footprint_of(q);

			if (!same_curve(q, r) || !(fp > 0) || !compare_group_first(rep, j))
				continue;
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
				lw + pw * (log2(fp) - xmin) / (xmax - xmin),
				y_of(&ys, group_cycles(rep, j, &lo, &hi)), col);
			html_str(f, q->name);
			fputs(" ", f);
			html_str(f, q->pattern);
			fprintf(f, ": %.2f cycles, %.0f bytes</title></circle>", group_cycles(rep, j, &lo, &hi), fp);
		}
		/* legend at the right, one line per curve (end labels collide) */
		(void)lasty;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
			   "<text x=\"%.1f\" y=\"%d\" class=\"value\" fill=\"%s\">",
			lastx + 12, 8 + 14 * ncurve, lastx + 26, 8 + 14 * ncurve, col, lastx + 30, 12 + 14 * ncurve, col);
		html_str(f, r->name);
		html_str(f, variant_of(r));
		fputs("</text>\n", f);
		ncurve++;
	}
	fputs("</svg><figcaption>Cost against the memory the op walks over; each point is one "
	      "pattern's median.</figcaption></figure>\n", f);
}

/* One heat map: m[i][j] the cost of moving a line from cpus[i] to cpus[j]. */
static void heatmap(const json_t *m, const json_t *cpus, const char *unit, const char *method, FILE *f)
{
	size_t n = json_array_size(m), cell;
	double lo = INFINITY, hi = -INFINITY;
	int lw = 50;

	if (method) {
		fputs("<h3>", f);
		html_str(f, method);
		fputs("</h3>\n", f);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < json_array_size(json_array_get(m, i)); j++) {
			json_t *v = json_array_get(json_array_get(m, i), j);

			if (json_is_number(v)) {
				lo = fmin(lo, json_number_value(v));
				hi = fmax(hi, json_number_value(v));
			}
		}
	cell = n > 32 ? 12 : n > 8 ? 24 : 48;
	fprintf(f, "<figure><svg class=\"chart heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
		   "viewBox=\"0 0 %zu %zu\" role=\"img\"><title>cache-to-cache transfer cost</title>\n",
		lw + n * cell + 360, lw + n * cell + 30, lw + n * cell + 360, lw + n * cell + 30);
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(m, i);
		json_t *ci = json_array_get(cpus, i);
		long long os = json_is_integer(ci) ? (long long)json_integer_value(ci) : (long long)i;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"label\">%lld</text>", lw - 4,
			lw + i * cell + cell / 2.0 + 4, os);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%lld</text>", lw + i * cell + cell / 2.0,
			lw - 6, os);
		for (size_t j = 0; j < n; j++) {
			json_t *v = json_array_get(row, j);
			double t, val;
			int r, g, b;

			if (!json_is_number(v)) {
				fprintf(f, "<rect class=\"cell none\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\"/>",
					lw + j * cell, lw + i * cell, cell - 1, cell - 1);
				continue;
			}
			val = json_number_value(v);
			t = hi > lo ? (val - lo) / (hi - lo) : 0;
			/* light yellow (cheap) to dark red (dear) */
			r = (int)(255 - 100 * t);
			g = (int)(240 - 210 * t);
			b = (int)(180 - 150 * t);
			fprintf(f, "<rect class=\"cell\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\" fill=\"rgb(%d,%d,%d)\">"
				   "<title>%lld -&gt; %zu: %.1f ",
				lw + j * cell, lw + i * cell, cell - 1, cell - 1, r, g, b, os, j, val);
			html_str(f, unit ? unit : "ns");
			fputs("</title></rect>", f);
			if (cell >= 48)
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"cellv\">%.0f</text>",
					lw + j * cell + cell / 2.0, lw + i * cell + cell / 2.0 + 4, val);
		}
		fputc('\n', f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%zu\" class=\"axis\">row: from CPU, column: to CPU; %.1f to %.1f ",
		lw, lw + n * cell + 20, lo, hi);
	html_str(f, unit ? unit : "ns");
	fputs("</text></svg><figcaption>Cache-to-cache transfer cost (the c2c section of the "
	      "report); grey: not measured.</figcaption></figure>\n", f);
}

/* The "c2c" section, either of
 *   {"unit": "ns", "cpus": [os...], "matrix": [[v|null...]...]}
 *   the document of `atomcost c2c --format json`, whose "matrix" is
 *   {"cpus": [...], "unit": "...", "cmpxchg": [[...]], "load_store": [[...]]}:
 *   one heat map per method. */
static void c2c_chart(const json_t *c2c, FILE *f)
{
	const json_t *m = json_object_get(c2c, "matrix");
	const char *k;
	json_t *v;
	bool any = false;

	if (json_is_array(m) && json_array_size(m)) {
		heatmap(m, json_object_get(c2c, "cpus"), json_string_value(json_object_get(c2c, "unit")),
			NULL, f);
		return;
	}
	json_object_foreach((json_t *)m, k, v) {
		if (!json_is_array(v) || !json_is_array(json_array_get(v, 0)))
			continue;
		heatmap(v, json_object_get(m, "cpus"), json_string_value(json_object_get(m, "unit")), k, f);
		any = true;
	}
	if (!any)
		fputs("<p class=\"note\">The report's c2c section has no matrix.</p>\n", f);
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
	".warn{color:#a00;font-weight:bold}";

int report_write_html(const struct report *rep, FILE *f)
{
	const json_t *fp = fingerprint_of_meta(rep->meta);
	const json_t *c2c = json_object_get(rep->sections, "c2c");
	const char *host = json_string_value(json_object_get(fp, "host"));
	const struct calibration *c = &rep->cal;
	char line[512];
	bool any_fp = false;
	int passes = compare_max_pass(rep);

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>atomcost report", f);
	if (host) {
		fputs(": ", f);
		html_str(f, host);
	}
	fputs(" ", f);
	html_str(f, rep->started);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>atomcost report</h1>\n<p>", css);
	fingerprint_oneline(fp, line, sizeof(line));
	html_str(f, line);
	fputs("<br>measured ", f);
	html_str(f, rep->started);
	fprintf(f, " in %.1f s; %zu results", rep->wall_s, rep->n);
	if (passes > 1)
		fprintf(f, " in %d interleaved passes (figures are medians of the pass medians)", passes);
	fprintf(f, ". Core %.3f GHz, timer %.4f GHz, %.4f ticks per core cycle (", c->core_hz / 1e9,
		c->timer_hz / 1e9, c->ticks_per_cycle);
	html_str(f, c->cycle_source);
	fputs(").</p>\n", f);
	if (!c->trustworthy)
		fputs("<p class=\"warn\">The cycle calibration does not agree with itself: read core-cycle figures with care.</p>\n", f);
	if (rep->partial) {
		fputs("<p class=\"warn\">PARTIAL report (", f);
		html_str(f, rep->partial_reason);
		fputs("): only what was measured before it stopped.</p>\n", f);
	}

	fputs("<h2>Atomic vs non-atomic, per pattern</h2>\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		if (seen_pattern(rep, i))
			continue;
		for (int m = 0; m < MODE__COUNT; m++)
			bars_chart(rep, rep->r[i].pattern, (enum probe_mode)m, f);
	}
	if (!rep->n)
		fputs("<p class=\"note\">No results.</p>\n", f);

	fputs("<h2>Cost vs footprint</h2>\n", f);
	for (size_t i = 0; i < rep->n; i++)
		any_fp |= footprint_of(&rep->r[i]) > 0;
	if (any_fp)
		for (int m = 0; m < MODE__COUNT; m++)
			footprint_chart(rep, (enum probe_mode)m, f);
	else
		fputs("<p class=\"note\">No result carries a footprint (run with --pattern hit,l2,llc,miss to draw the curves).</p>\n", f);

	fputs("<h2>Cache-to-cache transfers</h2>\n", f);
	if (c2c)
		c2c_chart(c2c, f);
	else
		fputs("<p class=\"note\">The report has no c2c section (atomcost report RUN.json --c2c C2C.json adds the JSON of atomcost c2c --all-pairs).</p>\n", f);

	fprintf(f, "<h2>Results</h2>\n<p class=\"note\">vs twin: slower or faster only when the ratio leaves 1 by more "
		   "than the floor in brackets (the spread of the ratio between --repeat passes, at least %.0f%%, "
		   "the documented minimum); else same. Analogs lack the real semantics and get no verdict.</p>\n",
		NOISE_FLOOR_MIN * 100);
	fputs("<h2>Results</h2>\n<table class=\"res\"><tr><th>probe</th><th>twin</th><th>pattern</th>"
	      "<th>mode</th><th>pass</th><th>insn</th><th>cycles min</th><th>median</th><th>p90</th><th>ns</th>"
	      "<th>ratio [95% CI]</th><th>vs twin (floor)</th><th>samples</th></tr>\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];

		fputs("<tr><td>", f);
		html_str(f, r->name);
		fputs("</td><td>", f);
		html_str(f, r->twin[0] ? r->twin : "-");
		fputs("</td><td>", f);
		html_str(f, r->pattern);
		fprintf(f, "</td><td>%s</td><td class=\"n\">%d</td><td>", probe_mode_name(r->mode), result_pass(r));
		html_str(f, r->insn);
		fprintf(f, "</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
			   "<td class=\"n\">%.3f</td>",
			result_cycles(rep, r->s.min), result_cycles(rep, r->s.median),
			result_cycles(rep, r->s.p90), result_ns(rep, r->s.median));
		if (r->has_ratio)
			fprintf(f, "<td class=\"n\">%.2f [%.2f, %.2f]</td>", r->ratio, r->ratio_lo, r->ratio_hi);
		else
			fputs("<td class=\"n\">-</td>", f);
		/* the verdict of the noise rule, with its floor (report_pair_twins) */
		if (r->has_ratio && r->verdict != VERDICT_NONE)
			fprintf(f, "<td>%s (%.1f%%)</td>", stats_verdict_name(r->verdict), r->verdict_floor * 100);
		else
			fprintf(f, "<td>%s</td>", r->has_ratio ? "analog: none" : "-");
		fprintf(f, "<td class=\"n\">%zu%s</td></tr>\n", r->nsamples, r->migrated ? " MIGRATED" : "");
	}
	fputs("</table>\n<h2>Machine fingerprint</h2>\n<table class=\"fp\">\n", f);
	if (fp)
		fp_rows(f, "", fp);
	else
		fputs("<tr><td>this report carries no fingerprint</td></tr>\n", f);
	if (json_object_get(rep->meta, "command_line")) {
		fp_rows(f, "command_line", json_object_get(rep->meta, "command_line"));
	}
	if (json_object_get(rep->meta, "experiment"))
		fp_rows(f, "experiment", json_object_get(rep->meta, "experiment"));
	fputs("</table>\n<p class=\"note\">Written by atomcost " ATOMCOST_VERSION
	      " from the JSON report; self-contained, no scripts.</p>\n</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
