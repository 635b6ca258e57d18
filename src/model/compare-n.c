/* SPDX-License-Identifier: MIT */
/* compare-n.c - machines side by side (compare-n.h): the card rows of
 * several reports or summaries, one column per machine, each cell marked
 * only when it leaves the first column by more than its row's floor. Reads
 * documents, never measures. */
#include "compare-n.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "common.h"
#include "report.h"

const char *const compare_n_sections[] = {
	"machine",
	"memory hierarchy (measured: dependent random chase)",
	"atomicity: the atomic op against its non-atomic twin",
	"split lock (a locked add across two cache lines)",
	"c2c: a line's round trip between two PUs, by topology class",
	"sharing: one locked op by 2 threads, by topology class",
	"fast-path menu (hit latency)",
	"every result line (median)",
};

enum { S_MACHINE, S_HIER, S_ATOM, S_SPLIT, S_C2C, S_SHARE, S_MENU, S_RESULTS };

/* ---- reading ------------------------------------------------------------ */

static const char *schema_of(const json_t *root)
{
	return json_string_value(json_object_get(root, "schema"));
}

int compare_n_is_summary(const char *path, bool *summary)
{
	json_error_t e;
	json_t *root = json_load_file(path, 0, &e);

	*summary = false;
	if (!root)	/* said by whichever reader then opens it */
		return e.line < 0 || strstr(e.text, "unable to open") ? -ENOENT : -EINVAL;
	*summary = schema_of(root) && !strcmp(schema_of(root), SUMMARY_SCHEMA);
	json_decref(root);
	return 0;
}

/* A full report reduced to what its summary keeps: one column reads the
 * same from either. */
static int reduce(const char *path, json_t **doc)
{
	struct report rep;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_error_t e;
	int ret = report_read(path, &rep);

	if (ret < 0)
		return ret;
	f = open_memstream(&buf, &len);
	if (!f) {
		report_free(&rep);
		return -ENOMEM;
	}
	ret = report_write_summary(&rep, f);
	if (fclose(f) && !ret)
		ret = -EIO;
	report_free(&rep);
	if (!ret) {
		*doc = json_loadb(buf, len, 0, &e);
		if (!*doc)
			ret = -ENOMEM;
	}
	free(buf);
	return ret;
}

int compare_n_read(const char *path, json_t **doc, bool *summary)
{
	json_error_t e;
	json_t *root;
	const char *schema;

	*doc = NULL;
	*summary = false;
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	if (!root) {
		if (e.line < 0 || strstr(e.text, "unable to open")) {
			pr_err("compare: %s: cannot read: %s", path, e.text);
			return -ENOENT;
		}
		pr_err("compare: %s:%d:%d: not valid JSON: %s", path, e.line, e.column, e.text);
		return -EINVAL;
	}
	schema = schema_of(root);
	if (schema && !strcmp(schema, SUMMARY_SCHEMA)) {
		*doc = root;
		*summary = true;
		return 0;
	}
	if (!schema || strcmp(schema, REPORT_SCHEMA)) {
		pr_err("compare: %s: schema '%s' is neither a report ('%s') nor a summary ('%s'): give the JSON of atomcost run -o or of atomcost report X.json -o X.summary.json",
		       path, schema ? schema : "(none)", REPORT_SCHEMA, SUMMARY_SCHEMA);
		json_decref(root);
		return -EINVAL;
	}
	json_decref(root);
	return reduce(path, doc);
}

/* ---- rows ----------------------------------------------------------------- */

struct emit {
	struct compare_n *c;
	size_t col;
	const json_t *doc;	/* the column's document */
	int err;
};

static struct compare_n_cell *cell(struct emit *e, int section, const char *label, const char *unit,
				   enum compare_n_kind kind)
{
	struct compare_n *c = e->c;
	struct compare_n_row *r;

	if (e->err)
		return NULL;
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].section == section && !strcmp(c->rows[i].label, label) &&
		    !strcmp(c->rows[i].unit, unit)) {
			/* the first figure of a row wins (repeated passes) */
			return c->rows[i].cells[e->col].present ? NULL : &c->rows[i].cells[e->col];
		}
	if (c->nrows == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct compare_n_row *nr = realloc(c->rows, ncap * sizeof(*nr));

		if (!nr) {
			e->err = -ENOMEM;
			return NULL;
		}
		c->rows = nr;
		c->cap = ncap;
	}
	{
		/* a row first met in a later column goes after the last row of its
		 * group (the label up to ':', a need of the menu, a comparison),
		 * else at the end of its section: rows are emitted section by
		 * section, so the end is the current section's */
		const char *colon = strchr(label, ':');
		size_t glen = colon ? (size_t)(colon - label) : 0, at = c->nrows;

		for (size_t i = 0; i < c->nrows && glen; i++)
			if (c->rows[i].section == section && !strncmp(c->rows[i].label, label, glen) &&
			    c->rows[i].label[glen] == ':')
				at = i + 1;
		memmove(&c->rows[at + 1], &c->rows[at], (c->nrows - at) * sizeof(*r));
		r = &c->rows[at];
	}
	memset(r, 0, sizeof(*r));
	r->cells = calloc(c->ncols, sizeof(*r->cells));
	c->nrows++;
	if (!r->cells) {
		e->err = -ENOMEM;
		return NULL;
	}
	r->section = section;
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	r->kind = kind;
	return &r->cells[e->col];
}

static void text(struct emit *e, int section, const char *label, const char *s)
{
	struct compare_n_cell *k;

	if (!s || !*s)
		return;
	k = cell(e, section, label, "", CN_TEXT);
	if (!k)
		return;
	k->present = true;
	snprintf(k->text, sizeof(k->text), "%s", s);
}

static const char *str(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(b ? json_object_get(o, a) : o, b ? b : a));
}

/* A figure; nothing when v is not a positive number (null: not measured). */
static struct compare_n_cell *num(struct emit *e, int section, const char *label, const char *unit,
				  enum compare_n_kind kind, const json_t *v)
{
	struct compare_n_cell *k;

	if (!json_is_number(v) || !(json_number_value(v) > 0))
		return NULL;
	k = cell(e, section, label, unit, kind);
	if (!k)
		return NULL;
	k->present = true;
	k->v = k->lo = k->hi = json_number_value(v);
	return k;
}

/* A hot-line cell's epochs: the cycles medians of every result of the
 * column's document with this probe, pattern, mode (and no placement), in
 * order (a row measured over K epochs appears K times). */
static void epochs(struct emit *e, struct compare_n_cell *k, const char *probe, const char *pattern,
		   const char *mode)
{
	const json_t *r;
	size_t i, n = 0;

	if (!k || e->err || !probe)
		return;
	json_array_foreach(json_object_get(e->doc, "results"), i, r) {
		const json_t *em = json_object_get(r, "epoch_medians");
		size_t j;

		if (strcmp(str(r, "probe", NULL) ?: "", probe) || strcmp(str(r, "pattern", NULL) ?: "", pattern) ||
		    strcmp(str(r, "mode", NULL) ?: "", mode) || json_object_get(r, "placement"))
			continue;
		n++;
		if (json_array_size(em) < 2)
			continue;
		/* a summary's row: its epochs listed */
		k->ep = malloc(json_array_size(em) * sizeof(*k->ep));
		if (!k->ep) {
			e->err = -ENOMEM;
			return;
		}
		for (j = 0; j < json_array_size(em); j++)
			k->ep[k->nep++] = json_number_value(json_array_get(em, j));
		return;
	}
	if (n < 2)
		return;
	k->ep = malloc(n * sizeof(*k->ep));
	if (!k->ep) {
		e->err = -ENOMEM;
		return;
	}
	json_array_foreach(json_object_get(e->doc, "results"), i, r) {
		double v = json_number_value(json_object_get(json_object_get(r, "cycles"), "median"));

		if (!strcmp(str(r, "probe", NULL) ?: "", probe) && !strcmp(str(r, "pattern", NULL) ?: "", pattern) &&
		    !strcmp(str(r, "mode", NULL) ?: "", mode) && !json_object_get(r, "placement"))
			k->ep[k->nep++] = v;
	}
}

static void machine_rows(struct emit *e, const json_t *doc, bool summary)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	const json_t *cal = json_object_get(doc, "calibration");
	const json_t *hv = json_object_get(fp, "hypervisor");
	char buf[96];

	text(e, S_MACHINE, "host", str(fp, "host", NULL));
	text(e, S_MACHINE, "model", str(fp, "cpu", "model_name"));
	if (str(fp, "cpu", "family")) {
		snprintf(buf, sizeof(buf), "%s/%s stepping %s", str(fp, "cpu", "family"),
			 str(fp, "cpu", "model") ?: "?", str(fp, "cpu", "stepping") ?: "?");
		text(e, S_MACHINE, "family/model", buf);
	}
	text(e, S_MACHINE, "microcode", str(fp, "cpu", "microcode"));
	text(e, S_MACHINE, "kernel", str(fp, "kernel", "release"));
	if (hv)
		text(e, S_MACHINE, "virtual machine",
		     json_is_true(json_object_get(hv, "cpuid_flag")) ? "yes (hypervisor flag)" : "no flag");
	text(e, S_MACHINE, "topology", str(doc, "topology_summary", NULL));
	if (json_number_value(json_object_get(cal, "core_hz")) > 0) {
		snprintf(buf, sizeof(buf), "%.3f GHz", json_number_value(json_object_get(cal, "core_hz")) / 1e9);
		text(e, S_MACHINE, "core clock", buf);
	}
	if (json_is_boolean(json_object_get(cal, "trustworthy")))
		text(e, S_MACHINE, "calibration",
		     json_is_true(json_object_get(cal, "trustworthy")) ? "trustworthy" : "NOT TRUSTWORTHY");
	snprintf(buf, sizeof(buf), "%s%s", str(doc, "started", NULL) ?: "?",
		 json_is_true(json_object_get(doc, "partial")) ? " PARTIAL" : "");
	text(e, S_MACHINE, "measured", buf);
	if (str(doc, "tool", "version")) {
		snprintf(buf, sizeof(buf), "atomcost %.16s, %.24s %.40s", str(doc, "tool", "version"),
			 str(fp, "compiler", "cc") ?: "?", str(fp, "compiler", "flags") ?: "");
		text(e, S_MACHINE, "built with", buf);
	}
	text(e, S_MACHINE, "read from", summary ? "summary" : "full report");
}

static void hierarchy_rows(struct emit *e, const json_t *doc)
{
	const json_t *levels = json_object_get(json_object_get(doc, "hierarchy"), "levels"), *lv;
	size_t i;
	char label[128];

	json_array_foreach(levels, i, lv) {
		const char *name = str(lv, "level", NULL) ?: "?";
		struct compare_n_cell *k;

		if (json_is_true(json_object_get(lv, "memory"))) {
			num(e, S_HIER, "DRAM latency", "ns", CN_WIDE, json_object_get(lv, "ns"));
			num(e, S_HIER, "DRAM latency", "cycles", CN_WIDE, json_object_get(lv, "cycles"));
			continue;
		}
		snprintf(label, sizeof(label), "%s size", name);
		if (json_number_value(json_object_get(lv, "size_bytes")) > 0 &&
		    (k = cell(e, S_HIER, label, "KiB", CN_SIZE))) {
			double lo = json_number_value(json_object_get(lv, "size_lo"));
			double hi = json_number_value(json_object_get(lv, "size_hi"));

			k->present = true;
			k->v = json_number_value(json_object_get(lv, "size_bytes")) / 1024;
			k->lo = lo > 0 ? lo / 1024 : k->v;
			k->hi = hi > 0 ? hi / 1024 : INFINITY;	/* null: no footprint beyond */
		}
		if (json_number_value(json_object_get(lv, "hwloc_size")) > 0) {
			char v[32];

			snprintf(v, sizeof(v), "%.0f KiB", json_number_value(json_object_get(lv, "hwloc_size")) / 1024);
			snprintf(label, sizeof(label), "%s size declared by hwloc", name);
			text(e, S_HIER, label, v);
		}
		/* the L1 chase is the hot-line dependent load */
		snprintf(label, sizeof(label), "%s latency", name);
		num(e, S_HIER, label, "cycles", i == 0 ? CN_HOT : CN_WIDE, json_object_get(lv, "cycles"));
	}
}

static void atomicity_rows(struct emit *e, const json_t *card)
{
	const char *atomic = str(card, "atomic", NULL), *plain = str(card, "plain", NULL);
	const json_t *a;
	size_t i;
	char label[128];

	if (!atomic || !plain)
		return;
	json_array_foreach(json_object_get(card, "atomicity"), i, a) {
		const char *what = str(a, "what", NULL) ?: "?", *mode = str(a, "mode", NULL) ?: "latency";
		enum compare_n_kind kind = !strcmp(str(a, "pattern", NULL) ?: "", "hit") ? CN_HOT : CN_WIDE;
		struct compare_n_cell *k;
		double ac = json_number_value(json_object_get(a, "atomic_cycles"));
		double pc = json_number_value(json_object_get(a, "plain_cycles"));

		snprintf(label, sizeof(label), "%s: %s", what, atomic);
		k = num(e, S_ATOM, label, "cycles", kind, json_object_get(a, "atomic_cycles"));
		if (kind == CN_HOT)
			epochs(e, k, atomic, "hit", mode);
		snprintf(label, sizeof(label), "%s: %s", what, plain);
		k = num(e, S_ATOM, label, "cycles", kind, json_object_get(a, "plain_cycles"));
		if (kind == CN_HOT)
			epochs(e, k, plain, "hit", mode);
		if (ac > 0 && pc > 0) {
			json_t *r = json_real(ac / pc);

			snprintf(label, sizeof(label), "%s: %s / %s", what, atomic, plain);
			num(e, S_ATOM, label, "x", kind, r);
			json_decref(r);
		}
	}
}

static void splitlock_rows(struct emit *e, const json_t *doc)
{
	const json_t *s = json_object_get(doc, "splitlock");

	if (!s)
		return;
	text(e, S_SPLIT, "kernel split-lock mode", str(s, "kernel", "mode"));
	if (!json_is_true(json_object_get(s, "supported"))) {
		text(e, S_SPLIT, "split lock", str(s, "unsupported", NULL));
		return;
	}
	if (json_is_true(json_object_get(s, "sigbus"))) {
		text(e, S_SPLIT, "split lock", "killed with SIGBUS (forbidden here)");
	} else {
		num(e, S_SPLIT, "split locked add", "cycles", CN_WIDE, json_object_get(s, "split_cycles"));
		num(e, S_SPLIT, "split / aligned", "x", CN_WIDE, json_object_get(s, "ratio"));
	}
	num(e, S_SPLIT, "aligned locked add", "cycles", CN_HOT, json_object_get(s, "aligned_cycles"));
}

static void c2c_rows(struct emit *e, const json_t *doc)
{
	const json_t *c2c = json_object_get(doc, "c2c"), *p;
	size_t i;
	char label[128];

	json_array_foreach(json_object_get(c2c, "pairs"), i, p) {
		const char *cls = str(p, "class", NULL) ?: "?", *m = str(p, "method", NULL) ?: "?";

		snprintf(label, sizeof(label), "%s, %s round trip", cls, m);
		num(e, S_C2C, label, "ns", CN_WIDE, json_object_get(json_object_get(p, "round_trip_ns"), "median"));
		snprintf(label, sizeof(label), "%s, %s round trip", cls, m);
		num(e, S_C2C, label, "cycles", CN_WIDE,
		    json_object_get(json_object_get(p, "round_trip_cycles"), "median"));
	}
	json_array_foreach(json_object_get(c2c, "absent_classes"), i, p) {
		snprintf(label, sizeof(label), "%s", json_string_value(p) ?: "?");
		text(e, S_C2C, label, "absent here");
	}
}

static void sharing_rows(struct emit *e, const json_t *card)
{
	static const char *const cases[][2] = {
		{ "true_share", "true sharing" }, { "false_share", "false sharing" }, { "no_share", "no sharing" },
	};
	const char *probe = str(card, "sharing_probe", NULL);
	const json_t *s;
	size_t i;
	char label[128];

	if (!probe)
		return;
	json_array_foreach(json_object_get(card, "sharing"), i, s)
		for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
			snprintf(label, sizeof(label), "%s, %s %s", str(s, "placement", NULL) ?: "?", probe,
				 cases[k][1]);
			num(e, S_SHARE, label, "cycles", CN_WIDE, json_object_get(s, cases[k][0]));
		}
}

static void menu_rows(struct emit *e, const json_t *card)
{
	const json_t *need, *opt;
	size_t i, k;
	char label[128];

	json_array_foreach(json_object_get(card, "menu"), i, need) {
		const json_t *opts = json_object_get(need, "options");

		json_array_foreach(opts, k, opt) {
			snprintf(label, sizeof(label), "%s: %s", str(need, "need", NULL) ?: "?",
				 str(opt, "probe", NULL) ?: "?");
			epochs(e, num(e, S_MENU, label, "cycles", CN_HOT, json_object_get(opt, "cycles")),
			       str(opt, "probe", NULL), "hit", "latency");
		}
	}
}

static void result_rows(struct emit *e, const json_t *doc)
{
	const json_t *r;
	struct compare_n_cell *k;
	size_t i;
	char label[128];

	json_array_foreach(json_object_get(doc, "results"), i, r) {
		const char *pattern = str(r, "pattern", NULL) ?: "?";
		const char *placement = str(r, "placement", NULL);

		snprintf(label, sizeof(label), "%s %s %s%s%s", str(r, "probe", NULL) ?: "?", pattern,
			 str(r, "mode", NULL) ?: "?", placement ? " " : "", placement ? placement : "");
		k = num(e, S_RESULTS, label, "cycles", !strcmp(pattern, "hit") ? CN_HOT : CN_WIDE,
			json_object_get(json_object_get(r, "cycles"), "median"));
		if (placement || !k)
			continue;
		epochs(e, k, str(r, "probe", NULL), pattern, str(r, "mode", NULL) ?: "?");
		/* the row over its epochs, not the first epoch's median */
		if (k->nep)
			k->v = k->lo = k->hi = stats_median(k->ep, k->nep);
	}
}

/* ---- names ---------------------------------------------------------------- */

static void cut(char *s, const char *word)
{
	char *p;

	while ((p = strstr(s, word)))
		memmove(p, p + strlen(word), strlen(p + strlen(word)) + 1);
}

/* "AMD EPYC 9R14 96-Core Processor", 25, 17 -> "AMD EPYC 9R14 25/17" */
static void machine_name(const json_t *doc, char *buf, size_t len)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	char model[96], *p, *q;

	snprintf(model, sizeof(model), "%s", str(fp, "cpu", "model_name") ?: "unknown CPU");
	cut(model, "(R)");
	cut(model, "(TM)");
	cut(model, "(tm)");
	cut(model, " Processor");
	if ((p = strstr(model, " CPU @")) || (p = strstr(model, " @ ")))
		*p = '\0';
	if ((p = strstr(model, "-Core")) ) {
		/* drop " 96-Core" */
		for (q = p; q > model && q[-1] != ' '; q--)
			;
		memmove(q > model ? q - 1 : q, p + 5, strlen(p + 5) + 1);
	}
	/* squeeze spaces */
	for (p = q = model; *p; p++)
		if (*p != ' ' || (q > model && q[-1] != ' '))
			*q++ = *p;
	while (q > model && q[-1] == ' ')
		q--;
	*q = '\0';
	if (str(fp, "cpu", "family"))
		snprintf(buf, len, "%.40s %.8s/%.8s", model, str(fp, "cpu", "family"),
			 str(fp, "cpu", "model") ?: "?");
	else
		snprintf(buf, len, "%.60s", model);
}

static void file_name(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	snprintf(buf, len, "%s", slash ? slash + 1 : path);
	n = strlen(buf);
	if (n > 13 && !strcmp(buf + n - 13, ".summary.json"))
		buf[n - 13] = '\0';
	else if (n > 5 && !strcmp(buf + n - 5, ".json"))
		buf[n - 5] = '\0';
}

static size_t count_equal(const struct compare_n *c, size_t i)
{
	size_t k = 0;

	for (size_t j = 0; j < c->ncols; j++)
		k += !strcmp(c->cols[j].name, c->cols[i].name);
	return k;
}

/* The machine name, or where two columns share it, the file name; where
 * files share theirs too (one directory per host), the host; else the
 * column's number. */
static void name_columns(struct compare_n *c, json_t *const *docs)
{
	char tmp[COMPARE_N_MAX][64];

	for (size_t i = 0; i < c->ncols; i++)
		machine_name(docs[i], c->cols[i].name, sizeof(c->cols[i].name));
	for (size_t i = 0; i < c->ncols; i++) {
		tmp[i][0] = '\0';
		if (count_equal(c, i) > 1)
			file_name(c->cols[i].path, tmp[i], sizeof(tmp[i]));
	}
	for (size_t i = 0; i < c->ncols; i++)
		if (tmp[i][0])
			snprintf(c->cols[i].name, sizeof(c->cols[i].name), "%.63s", tmp[i]);
	for (size_t i = 0; i < c->ncols; i++) {
		const char *host = str(json_object_get(docs[i], "fingerprint"), "host", NULL);

		tmp[i][0] = '\0';
		if (count_equal(c, i) > 1)
			snprintf(tmp[i], sizeof(tmp[i]), "%s", host ? host : "");
	}
	for (size_t i = 0; i < c->ncols; i++)
		if (tmp[i][0])
			snprintf(c->cols[i].name, sizeof(c->cols[i].name), "%.63s", tmp[i]);
	for (size_t i = 0; i < c->ncols; i++)
		if (count_equal(c, i) > 1)
			snprintf(c->cols[i].name, sizeof(c->cols[i].name), "machine %zu", i + 1);
}

/* ---- the rule ------------------------------------------------------------- */

/* Test cell b against column 1's cell a from their epochs (compare.h):
 * the change of the means of the logs, its Welch se and df, the minimum-
 * effect and TOST p-values against the margin. */
static void judge(const struct compare_n *c, const struct compare_n_cell *a, struct compare_n_cell *b,
		  const int *proc)
{
	struct compare_est ea, eb;
	double d;

	if (compare_estimate(a->ep, proc, a->nep, &ea) < 0 || compare_estimate(b->ep, proc, b->nep, &eb) < 0)
		return;
	d = eb.mean - ea.mean;
	b->se = sqrt(ea.var + eb.var);
	b->df = b->se > 0 ? (ea.var + eb.var) * (ea.var + eb.var) /
				    (ea.var * ea.var / ea.df + eb.var * eb.var / eb.df)
			  : ea.df + eb.df;
	b->margin = fmax(c->margin, COMPARE_ABS_FLOOR / exp(ea.mean));
	b->change = expm1(d);
	compare_tests(d, b->se, b->df, log1p(b->margin), &b->p, &b->p_same);
	b->judged = true;
}

/* The floor rule, for a cell with no epochs to test. */
static void floor_mark(const struct compare_n_row *r, const struct compare_n_cell *a, struct compare_n_cell *b)
{
	b->change = b->v / a->v - 1;
	if (r->kind == CN_SIZE)
		b->marked = b->lo > a->hi || b->hi < a->lo;
	else
		b->marked = fabs(log(b->v / a->v)) > log1p(r->floor) && fabs(b->v - a->v) > r->abs_floor;
}

static int mark(struct compare_n *c)
{
	size_t n = c->nrows * c->ncols, maxep = 1, k, fam;
	double *p = malloc((n ? n : 1) * sizeof(*p));
	bool *rej = malloc((n ? n : 1) * sizeof(*rej));
	int *proc = NULL, ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		maxep = c->rows[i / c->ncols].cells[i % c->ncols].nep > maxep ?
				c->rows[i / c->ncols].cells[i % c->ncols].nep : maxep;
	proc = calloc(maxep, sizeof(*proc));	/* one process: every epoch 0 */
	if (!p || !rej || !proc)
		goto out;
	for (size_t i = 0; i < c->nrows; i++) {
		struct compare_n_row *r = &c->rows[i];
		const struct compare_n_cell *a = &r->cells[0];

		r->floor = r->kind == CN_HOT ? c->base_floor :
			   r->kind == CN_WIDE ? fmax(COMPARE_N_WIDE_FLOOR, c->base_floor) : 0;
		r->abs_floor = !strcmp(r->unit, "cycles") ? COMPARE_ABS_FLOOR : 0;
		for (size_t j = 0; j < c->ncols; j++) {
			struct compare_n_cell *b = &r->cells[j];

			p[i * c->ncols + j] = NAN;
			c->missing += !b->present;
			if (!b->present || j == 0 || !a->present || r->kind == CN_TEXT)
				continue;
			if (r->kind == CN_HOT && a->nep >= 2 && b->nep >= 2)
				judge(c, a, b, proc);
			if (b->judged)
				p[i * c->ncols + j] = b->p;
			else
				floor_mark(r, a, b);
		}
	}
	ret = compare_bh(p, n, COMPARE_Q, rej, &k, &fam);
	if (ret < 0)
		goto out;
	c->judged = fam;
	c->threshold = fam ? fmin(COMPARE_Q, COMPARE_Q * (double)(k + 1) / (double)fam) : NAN;
	for (size_t i = 0; i < n; i++) {
		struct compare_n_cell *b = &c->rows[i / c->ncols].cells[i % c->ncols];

		if (b->judged) {
			b->marked = rej[i];
			b->same = !rej[i] && b->p_same <= COMPARE_Q;
			b->detect = compare_detect(b->se, b->df, log1p(b->margin), c->threshold);
		}
		c->marked += b->marked;
		c->same += b->same;
	}
out:
	free(p);
	free(rej);
	free(proc);
	return ret;
}

int compare_n_build(json_t *const *docs, const char *const *paths, const bool *summary, size_t n,
		    const struct compare_n_opts *o, struct compare_n *out)
{
	struct emit e = { .c = out };
	double card_floor = 0;

	memset(out, 0, sizeof(*out));
	if (n < 2 || n > COMPARE_N_MAX) {
		pr_err("compare: %zu documents: side by side takes 2 to %d", n, COMPARE_N_MAX);
		return -EINVAL;
	}
	out->ncols = n;
	for (size_t i = 0; i < n; i++) {
		struct compare_n_col *col = &out->cols[i];

		snprintf(col->path, sizeof(col->path), "%s", paths[i]);
		snprintf(col->started, sizeof(col->started), "%s", str(docs[i], "started", NULL) ?: "?");
		snprintf(col->topology, sizeof(col->topology), "%s", str(docs[i], "topology_summary", NULL) ?: "?");
		col->summary = summary && summary[i];
		col->partial = json_is_true(json_object_get(docs[i], "partial"));
		card_floor = fmax(card_floor, json_number_value(json_object_get(json_object_get(docs[i], "card"),
										  "noise_floor")));
	}
	out->base_floor = fmax(fmax(o->noise_floor, NOISE_FLOOR_MIN), card_floor);
	out->margin = fmax(o->min_change, NOISE_FLOOR_MIN);
	name_columns(out, docs);
	/* every column emits its rows section by section; a row first met in
	 * a later column lands at the end of its section */
	for (int s = S_MACHINE; s <= S_RESULTS && !e.err; s++)
		for (size_t i = 0; i < n && !e.err; i++) {
			const json_t *card = json_object_get(docs[i], "card");

			e.col = i;
			e.doc = docs[i];
			switch (s) {
			case S_MACHINE:
				machine_rows(&e, docs[i], out->cols[i].summary);
				break;
			case S_HIER:
				hierarchy_rows(&e, docs[i]);
				break;
			case S_ATOM:
				atomicity_rows(&e, card);
				break;
			case S_SPLIT:
				splitlock_rows(&e, docs[i]);
				break;
			case S_C2C:
				c2c_rows(&e, docs[i]);
				break;
			case S_SHARE:
				sharing_rows(&e, card);
				break;
			case S_MENU:
				menu_rows(&e, card);
				break;
			case S_RESULTS:
				if (o->all_rows)
					result_rows(&e, docs[i]);
				break;
			}
		}
	if (e.err) {
		compare_n_free(out);
		return e.err;
	}
	e.err = mark(out);
	if (e.err) {
		compare_n_free(out);
		return e.err;
	}
	return 0;
}

void compare_n_free(struct compare_n *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		for (size_t j = 0; j < c->ncols && c->rows[i].cells; j++)
			free(c->rows[i].cells[j].ep);
		free(c->rows[i].cells);
	}
	free(c->rows);
	c->rows = NULL;
	c->nrows = c->cap = 0;
}

/* ---- writers -------------------------------------------------------------- */

static void fmt_value(const struct compare_n_row *r, double v, char *buf, size_t len)
{
	if (!strcmp(r->unit, "x"))
		snprintf(buf, len, v >= 100 ? "%.0fx" : v >= 10 ? "%.1fx" : "%.2fx", v);
	else if (!strcmp(r->unit, "KiB"))
		snprintf(buf, len, v >= 4096 ? "%.1f MiB" : "%.0f KiB", v >= 4096 ? v / 1024 : v);
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
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
	fmt_value(r, k->v, v, sizeof(v));
	if (k->marked)
		snprintf(buf, len, "%s *%+.0f%%", v, k->change * 100);
	else if (k->same)
		snprintf(buf, len, "%s =", v);
	else
		snprintf(buf, len, "%s", v);
}

static void floor_text(const struct compare_n_row *r, size_t ncols, char *buf, size_t len)
{
	for (size_t j = 1; j < ncols; j++)
		if (r->cells[j].judged) {
			snprintf(buf, len, "%.0f%% ep", r->cells[j].margin * 100);
			return;
		}
	switch (r->kind) {
	case CN_TEXT:
		snprintf(buf, len, "-");
		break;
	case CN_SIZE:
		snprintf(buf, len, "bracket");
		break;
	default:
		snprintf(buf, len, "%.0f%%", r->floor * 100);
	}
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

int compare_n_write_text(const struct compare_n *c, FILE *f)
{
	int lw = 20, cw[COMPARE_N_MAX] = { 0 };
	char buf[160], rule[1536];
	int section = -1;

	for (size_t i = 0; i < c->nrows; i++) {
		int l = (int)strlen(c->rows[i].label) + (strcmp(c->rows[i].unit, "ns") ? 2 : 7);

		if (l > lw)
			lw = l;
	}
	if (lw > 60)
		lw = 60;
	for (size_t j = 0; j < c->ncols; j++) {
		cw[j] = (int)strlen(c->cols[j].name) + 4;
		if (cw[j] < 12)
			cw[j] = 12;
		for (size_t i = 0; i < c->nrows; i++) {
			cell_text(&c->rows[i], &c->rows[i].cells[j], buf, sizeof(buf));
			if ((int)strlen(buf) > cw[j])
				cw[j] = (int)strlen(buf);
		}
		if (cw[j] > 24)
			cw[j] = 24;
	}
	fprintf(f, "# atomcost compare: %zu machines side by side, the card's rows\n", c->ncols);
	for (size_t j = 0; j < c->ncols; j++)
		fprintf(f, "# [%zu] %-24s %s (%s, %s%s)\n#     %s\n", j + 1, c->cols[j].name, c->cols[j].path,
			c->cols[j].started, c->cols[j].summary ? "summary" : "full report",
			c->cols[j].partial ? ", PARTIAL" : "", c->cols[j].topology);
	rule_text(c, rule, sizeof(rule));
	report_mail_wrap(f, "# ", rule);
	fprintf(f, "%-*s", lw, "row");
	for (size_t j = 0; j < c->ncols; j++) {
		snprintf(buf, sizeof(buf), "[%zu] %s", j + 1, c->cols[j].name);
		fprintf(f, " %-*.*s", cw[j], cw[j], buf);
	}
	fprintf(f, " floor\n");
	for (size_t s = 0; s < ARRAY_SIZE(compare_n_sections); s++)
		for (size_t i = 0; i < c->nrows; i++) {
			const struct compare_n_row *r = &c->rows[i];
			char label[200];

			if (r->section != (int)s)
				continue;
			if (section != r->section) {
				fprintf(f, "## %s\n", compare_n_sections[s]);
				section = r->section;
			}
			snprintf(label, sizeof(label), "  %s%s", r->label, strcmp(r->unit, "ns") ? "" : " (ns)");
			fit(label, lw);
			fprintf(f, "%-*s", lw, label);
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

static const char css[] =
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
	char rule[1536], buf[160];

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>atomcost compare: %zu machines</title>\n<style>%s</style></head><body>\n"
		   "<h1>atomcost compare: %zu machines side by side</h1>\n<table class=\"cols\">\n",
		c->ncols, css, c->ncols);
	for (size_t j = 0; j < c->ncols; j++) {
		fprintf(f, "<tr><th>[%zu]</th><td><b>", j + 1);
		report_html_escape(f, c->cols[j].name);
		fputs("</b></td><td>", f);
		report_html_escape(f, c->cols[j].path);
		fputs("</td><td>", f);
		report_html_escape(f, c->cols[j].started);
		fprintf(f, "</td><td>%s%s</td></tr>\n", c->cols[j].summary ? "summary" : "full report",
			c->cols[j].partial ? ", PARTIAL" : "");
	}
	rule_text(c, rule, sizeof(rule));
	fputs("</table>\n<p class=\"note\">", f);
	report_html_escape(f, rule);
	fputs(" <span style=\"color:#a4161a\">Red</span>: costs more than column 1, "
	      "<span style=\"color:#1b6b3a\">green</span>: less.</p>\n<table class=\"n\">\n<tr><th>row</th>", f);
	for (size_t j = 0; j < c->ncols; j++) {
		fprintf(f, "<th>[%zu] ", j + 1);
		report_html_escape(f, c->cols[j].name);
		fputs("</th>", f);
	}
	fputs("<th>floor</th></tr>\n", f);
	for (size_t s = 0; s < ARRAY_SIZE(compare_n_sections); s++) {
		bool head = false;

		for (size_t i = 0; i < c->nrows; i++) {
			const struct compare_n_row *r = &c->rows[i];

			if (r->section != (int)s)
				continue;
			if (!head) {
				fprintf(f, "<tr class=\"sec\"><th colspan=\"%zu\">", c->ncols + 2);
				report_html_escape(f, compare_n_sections[s]);
				fputs("</th></tr>\n", f);
				head = true;
			}
			fputs("<tr><td class=\"l\">", f);
			report_html_escape(f, r->label);
			if (!strcmp(r->unit, "ns"))
				fputs(" (ns)", f);
			fputs("</td>", f);
			for (size_t j = 0; j < c->ncols; j++) {
				const struct compare_n_cell *k = &r->cells[j];

				cell_text(r, k, buf, sizeof(buf));
				fprintf(f, "<td class=\"v%s%s\"", r->kind == CN_TEXT ? " t" : "", !k->present ? " missing" :
					k->marked ? (k->change > 0 ? " up" : " down") : "");
				if (k->marked)
					fprintf(f, " title=\"%+.1f%% against column 1, beyond the floor\"", k->change * 100);
				fputc('>', f);
				report_html_escape(f, buf);
				fputs("</td>", f);
			}
			floor_text(r, c->ncols, buf, sizeof(buf));
			fprintf(f, "<td>%s</td></tr>\n", buf);
		}
	}
	fprintf(f, "</table>\n<p class=\"note\">%zu rows, %zu machines: %zu cells marked, %zu the same (of %zu judged "
		   "from epochs), %zu missing; the others cannot tell. Written by atomcost " ATOMCOST_VERSION
		   "; self-contained, no scripts.</p>\n</body></html>\n",
		c->nrows, c->ncols, c->marked, c->same, c->judged, c->missing);
	return ferror(f) ? -EIO : 0;
}
