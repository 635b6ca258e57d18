/* SPDX-License-Identifier: MIT */
/* compare-n.c - machines side by side (compare-n.h): reads documents,
 * never measures. */
#include "compare-n.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *const compare_n_sections[] = {
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

/* ---- rows ----------------------------------------------------------------- */

struct emit {
	struct compare_n *c;
	size_t col;
	size_t next;	/* the row after the last one met */
	int err;
};

static bool row_is(const struct compare_n_row *r, int section, const char *label, const char *unit)
{
	return r->section == section && !strcmp(r->label, label) && !strcmp(r->unit, unit);
}

static uint64_t row_hash(int section, const char *label, const char *unit)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)section;

	for (const char *p = label; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (const char *p = unit; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The rows by key, open addressing: looking a row up by scanning made a
 * document of n rows cost n^2 / 2 compares (a fleet's every machine).
 * Rebuilt when rows moved or the index is half full. 0 or -ENOMEM. */
static int index_rows(struct compare_n *c)
{
	size_t want = 64;

	while (want < 2 * (c->nrows + 1))
		want *= 2;
	if (want > c->nindex) {
		size_t *n = realloc(c->index, want * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->index = n;
		c->nindex = want;
	} else if (!c->stale) {
		return 0;
	}
	memset(c->index, 0, c->nindex * sizeof(*c->index));
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_n_row *r = &c->rows[i];
		size_t h = (size_t)row_hash(r->section, r->label, r->unit) & (c->nindex - 1);

		while (c->index[h])
			h = (h + 1) & (c->nindex - 1);
		c->index[h] = i + 1;
	}
	c->stale = false;
	return 0;
}

/* The row of that key, c->nrows when none (or on ENOMEM: e->err). */
static size_t row_find(struct emit *e, int section, const char *label, const char *unit)
{
	struct compare_n *c = e->c;
	size_t h;

	/* documents emit their rows in one order: the row after the last
	 * one met first */
	if (e->next < c->nrows && row_is(&c->rows[e->next], section, label, unit))
		return e->next;
	if (index_rows(c) < 0) {
		e->err = -ENOMEM;
		return c->nrows;
	}
	for (h = (size_t)row_hash(section, label, unit) & (c->nindex - 1); c->index[h];
	     h = (h + 1) & (c->nindex - 1))
		if (row_is(&c->rows[c->index[h] - 1], section, label, unit))
			return c->index[h] - 1;
	return c->nrows;
}

/* Row at, just made, into the index: an appended one in place, else (or
 * when the index is missing or half full) the index is rebuilt later. */
static void index_add(struct compare_n *c, size_t at)
{
	const struct compare_n_row *r = &c->rows[at];
	size_t h;

	if (at + 1 < c->nrows || !c->nindex || 2 * c->nrows > c->nindex) {
		c->stale = true;
		return;
	}
	for (h = (size_t)row_hash(r->section, r->label, r->unit) & (c->nindex - 1); c->index[h];
	     h = (h + 1) & (c->nindex - 1))
		;
	c->index[h] = at + 1;
}

/* Where a new row goes: after the last row of its group (the label up to
 * ':', a need of the menu, a comparison) when a later column brings it,
 * else at the end of its section: rows are emitted section by section, so
 * the end is the current section's. */
static size_t row_at(const struct compare_n *c, int section, const char *label)
{
	const char *colon = strchr(label, ':');
	size_t glen = colon ? (size_t)(colon - label) : 0, at = c->nrows;

	for (size_t i = 0; glen && i < c->nrows; i++)
		if (c->rows[i].section == section && !strncmp(c->rows[i].label, label, glen) &&
		    c->rows[i].label[glen] == ':')
			at = i + 1;
	return at;
}

/* The cell of this column in the row of that section, label and unit (the
 * row made where none is), now present; NULL when it already was (the
 * first figure of a row wins: repeated passes) or on ENOMEM (e->err). */
static struct compare_n_cell *cell(struct emit *e, int section, const char *label, const char *unit,
				   enum compare_n_kind kind)
{
	struct compare_n *c = e->c;
	struct compare_n_cell *cells;
	struct compare_n_row *r;
	size_t i, at;

	if (e->err)
		return NULL;
	i = row_find(e, section, label, unit);
	if (e->err)
		return NULL;
	if (i < c->nrows) {
		e->next = i + 1;
		cells = c->rows[i].cells[e->col].present ? NULL : &c->rows[i].cells[e->col];
		if (cells)
			cells->present = true;
		return cells;
	}
	at = row_at(c, section, label);
	if (c->nrows == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;

		r = realloc(c->rows, ncap * sizeof(*r));
		if (r) {
			c->rows = r;
			c->cap = ncap;
		}
	}
	cells = c->nrows < c->cap ? calloc(c->ncols, sizeof(*cells)) : NULL;
	if (!cells) {
		e->err = -ENOMEM;
		return NULL;
	}
	memmove(&c->rows[at + 1], &c->rows[at], (c->nrows++ - at) * sizeof(*r));
	r = &c->rows[at];
	*r = (struct compare_n_row){ .section = section, .kind = kind, .cells = cells };
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	index_add(c, at);
	e->next = at + 1;
	cells[e->col].present = true;
	return &cells[e->col];
}

static void text(struct emit *e, int section, const char *label, const char *s)
{
	struct compare_n_cell *k = s && *s ? cell(e, section, label, "", CN_TEXT) : NULL;

	if (k)
		snprintf(k->text, sizeof(k->text), "%.95s", s);
}

/* Whether a document says s: not NULL nor "". */
static bool said(const char *s)
{
	return s && *s;
}

const char *cn_known(const char *s)
{
	return said(s) ? s : "?";
}

/* A figure; nothing when v is not a positive number (not measured). */
static struct compare_n_cell *num(struct emit *e, int section, const char *label, const char *unit,
				  enum compare_n_kind kind, double v)
{
	struct compare_n_cell *k = v > 0 ? cell(e, section, label, unit, kind) : NULL;

	if (k)
		k->v = k->lo = k->hi = v;
	return k;
}

/* A hot-line cell's epochs: those of the column's row with this probe and
 * mode under the hit pattern (and no placement). */
static void epochs(const struct compare_n_doc *d, struct compare_n_cell *k, const char *probe, const char *mode)
{
	for (size_t i = 0; k && said(probe) && i < d->nres; i++) {
		const struct cn_result *r = &d->res[i];

		if (!strcmp(r->probe, probe) && !strcmp(r->pattern, "hit") && !strcmp(r->mode, mode) &&
		    !*r->placement) {
			k->ep = r->nep >= 2 ? r->ep : NULL;
			k->nep = r->nep >= 2 ? r->nep : 0;
			return;
		}
	}
}

static void machine_rows(struct emit *e, const struct compare_n_doc *d)
{
	char buf[96];

	text(e, S_MACHINE, "host", d->host);
	text(e, S_MACHINE, "model", d->model_name);
	if (*d->family) {
		snprintf(buf, sizeof(buf), "%s/%s stepping %s", d->family, cn_known(d->model), cn_known(d->stepping));
		text(e, S_MACHINE, "family/model", buf);
	}
	text(e, S_MACHINE, "microcode", d->microcode);
	text(e, S_MACHINE, "kernel", d->kernel);
	if (d->vm >= 0)
		text(e, S_MACHINE, "virtual machine", d->vm ? "yes (hypervisor flag)" : "no flag");
	text(e, S_MACHINE, "topology", d->topology);
	if (d->core_hz > 0) {
		snprintf(buf, sizeof(buf), "%.3f GHz", d->core_hz / 1e9);
		text(e, S_MACHINE, "core clock", buf);
	}
	if (d->trustworthy >= 0)
		text(e, S_MACHINE, "calibration", d->trustworthy ? "trustworthy" : "NOT TRUSTWORTHY");
	snprintf(buf, sizeof(buf), "%s%s", cn_known(d->started), d->partial ? " PARTIAL" : "");
	text(e, S_MACHINE, "measured", buf);
	if (*d->version) {
		snprintf(buf, sizeof(buf), "atomcost %.16s, %.24s %.40s", d->version, cn_known(d->cc), d->flags);
		text(e, S_MACHINE, "built with", buf);
	}
	text(e, S_MACHINE, "read from", d->summary ? "summary" : "full report");
}

static void hierarchy_rows(struct emit *e, const struct compare_n_doc *d)
{
	char label[256];

	for (size_t i = 0; d->hier && i < d->hier->nlevels; i++) {
		const struct hier_level_out *lv = &d->hier->levels[i];
		const char *name = cn_known(lv->level);
		struct compare_n_cell *k;

		if (lv->memory) {
			num(e, S_HIER, "DRAM latency", "ns", CN_WIDE, lv->ns);
			num(e, S_HIER, "DRAM latency", "cycles", CN_WIDE, lv->cycles);
			continue;
		}
		snprintf(label, sizeof(label), "%s size", name);
		if (lv->size_bytes > 0 && (k = cell(e, S_HIER, label, "KiB", CN_SIZE))) {
			k->v = lv->size_bytes / 1024.0;
			k->lo = lv->size_lo > 0 ? lv->size_lo / 1024.0 : k->v;
			/* no size_hi: no footprint beyond */
			k->hi = lv->size_hi > 0 ? lv->size_hi / 1024.0 : INFINITY;
		}
		if (lv->hwloc_size > 0) {
			char v[32];

			snprintf(v, sizeof(v), "%.0f KiB", lv->hwloc_size / 1024.0);
			snprintf(label, sizeof(label), "%s size declared by hwloc", name);
			text(e, S_HIER, label, v);
		}
		/* the L1 chase is the hot-line dependent load */
		snprintf(label, sizeof(label), "%s latency", name);
		num(e, S_HIER, label, "cycles", i == 0 ? CN_HOT : CN_WIDE, lv->cycles);
	}
}

static void atomicity_rows(struct emit *e, const struct compare_n_doc *d)
{
	const struct card *c = d->card;
	char label[256];

	if (!c || !said(c->pair_atomic) || !said(c->pair_plain))
		return;
	for (unsigned i = 0; i < c->ncmp; i++) {
		const struct card_part *a = &c->cmp[i].pair;
		const char *what = cn_known(c->cmp[i].what), *mode = probe_mode_name(c->cmp[i].mode);
		enum compare_n_kind kind = !strcmp(cn_known(c->cmp[i].pattern), "hit") ? CN_HOT : CN_WIDE;
		struct compare_n_cell *k;

		for (int side = 0; side < 2; side++) {
			const char *probe = side ? c->pair_plain : c->pair_atomic;

			snprintf(label, sizeof(label), "%s: %s", what, probe);
			k = num(e, S_ATOM, label, "cycles", kind, side ? a->b_cyc : a->a_cyc);
			if (kind == CN_HOT)
				epochs(d, k, probe, mode);
		}
		if (a->a_cyc > 0 && a->b_cyc > 0) {
			snprintf(label, sizeof(label), "%s: %s / %s", what, c->pair_atomic, c->pair_plain);
			num(e, S_ATOM, label, "x", kind, a->a_cyc / a->b_cyc);
		}
	}
}

static void splitlock_rows(struct emit *e, const struct compare_n_doc *d)
{
	const struct splitlock_section *s = d->split;

	if (!s)
		return;
	text(e, S_SPLIT, "kernel split-lock mode", s->kernel.mode);
	if (!s->supported) {
		text(e, S_SPLIT, "split lock", s->unsupported);
		return;
	}
	if (s->sigbus) {
		text(e, S_SPLIT, "split lock", "killed with SIGBUS (forbidden here)");
	} else {
		num(e, S_SPLIT, "split locked add", "cycles", CN_WIDE, s->split_cycles);
		num(e, S_SPLIT, "split / aligned", "x", CN_WIDE, s->ratio);
	}
	num(e, S_SPLIT, "aligned locked add", "cycles", CN_HOT, s->aligned_cycles);
}

/* The classes measured, then those absent here. */
static void c2c_rows(struct emit *e, const struct compare_n_doc *d)
{
	char label[256];

	for (size_t i = 0; d->c2c && i < d->c2c->npairs; i++) {
		const struct c2c_pair_out *p = &d->c2c->pairs[i];

		snprintf(label, sizeof(label), "%s, %s round trip", cn_known(p->cls), cn_known(p->method));
		num(e, S_C2C, label, "ns", CN_WIDE, p->ns.median);
		num(e, S_C2C, label, "cycles", CN_WIDE, p->cycles.median);
	}
	for (size_t i = 0; d->c2c && i < d->c2c->nabsent; i++)
		text(e, S_C2C, cn_known(d->c2c->absent[i]), "absent here");
}

static void sharing_rows(struct emit *e, const struct compare_n_doc *d)
{
	static const char *const cases[] = { "true sharing", "false sharing", "no sharing" };
	const struct card *c = d->card;
	char label[256];

	for (unsigned i = 0; c && said(c->share_probe) && i < c->nshare; i++) {
		const double v[] = { c->share[i].true_share, c->share[i].false_share, c->share[i].no_share };

		for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
			snprintf(label, sizeof(label), "%s, %s %s", cn_known(c->share[i].placement), c->share_probe,
				 cases[k]);
			num(e, S_SHARE, label, "cycles", CN_WIDE, v[k]);
		}
	}
}

static void menu_rows(struct emit *e, const struct compare_n_doc *d)
{
	const struct card *c = d->card;
	char label[256];

	for (unsigned n = 0; c && n < c->nneed; n++)
		for (unsigned i = 0; i < c->need[n].nopt; i++) {
			const struct card_option *o = &c->need[n].opt[i];

			snprintf(label, sizeof(label), "%s: %s", cn_known(c->need[n].need), cn_known(o->probe));
			epochs(d, num(e, S_MENU, label, "cycles", CN_HOT, o->chain), o->probe, "latency");
		}
}

static void result_rows(struct emit *e, const struct compare_n_doc *d)
{
	struct compare_n_cell *k;
	char label[256];

	for (size_t i = 0; i < d->nres; i++) {
		const struct cn_result *r = &d->res[i];

		snprintf(label, sizeof(label), "%s %s %s%s%s", cn_known(r->probe), cn_known(r->pattern), cn_known(r->mode),
			 *r->placement ? " " : "", r->placement);
		k = num(e, S_RESULTS, label, "cycles", !strcmp(r->pattern, "hit") ? CN_HOT : CN_WIDE, r->median);
		if (*r->placement || !k || r->nep < 2)
			continue;
		/* the row over its epochs, not the first epoch's median */
		k->ep = r->ep;
		k->nep = r->nep;
		k->v = k->lo = k->hi = stats_median(r->ep, r->nep);
	}
}

/* ---- names ---------------------------------------------------------------- */

/* "AMD EPYC 9R14 96-Core Processor", 25, 17 -> "AMD EPYC 9R14 25/17" */
static void machine_name(const struct compare_n_doc *d, char *buf, size_t len)
{
	static const char *const noise[] = { "(R)", "(TM)", "(tm)", " Processor" };
	char model[96], *p, *q;

	snprintf(model, sizeof(model), "%s", *d->model_name ? d->model_name : "unknown CPU");
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		while ((p = strstr(model, noise[i])))
			memmove(p, p + strlen(noise[i]), strlen(p + strlen(noise[i])) + 1);
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
	if (*d->family)
		snprintf(buf, len, "%.40s %.8s/%.8s", model, d->family, cn_known(d->model));
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
static void name_columns(struct compare_n *c, const struct compare_n_doc *docs)
{
	char tmp[COMPARE_N_MAX][64];

	for (size_t i = 0; i < c->ncols; i++)
		machine_name(&docs[i], c->cols[i].name, sizeof(c->cols[i].name));
	/* each step names every column still shared, then renames them at once */
	for (int step = 0; step < 3; step++) {
		for (size_t i = 0; i < c->ncols; i++) {
			tmp[i][0] = '\0';
			if (count_equal(c, i) < 2)
				continue;
			if (step == 0)
				file_name(docs[i].path, tmp[i], sizeof(tmp[i]));
			else if (step == 1)
				snprintf(tmp[i], sizeof(tmp[i]), "%s", docs[i].host);
			else
				snprintf(tmp[i], sizeof(tmp[i]), "machine %zu", i + 1);
		}
		for (size_t i = 0; i < c->ncols; i++)
			if (tmp[i][0])
				snprintf(c->cols[i].name, sizeof(c->cols[i].name), "%.63s", tmp[i]);
	}
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
		b->marked = fabs(log(b->v / a->v)) > log1p(r->floor) &&
			    fabs(b->v - a->v) > (strcmp(r->unit, "cycles") ? 0 : COMPARE_ABS_FLOOR);
}

static int mark(struct compare_n *c)
{
	size_t n = c->nrows * c->ncols, maxep = 1, k, fam;
	double *p = malloc((n ? n : 1) * sizeof(*p));
	bool *rej = malloc((n ? n : 1) * sizeof(*rej));
	int *proc, ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		maxep = (size_t)fmax(maxep, c->rows[i / c->ncols].cells[i % c->ncols].nep);
	proc = calloc(maxep, sizeof(*proc));	/* one process: every epoch 0 */
	if (!p || !rej || !proc)
		goto out;
	for (size_t i = 0; i < c->nrows; i++) {
		struct compare_n_row *r = &c->rows[i];
		const struct compare_n_cell *a = &r->cells[0];

		r->floor = r->kind == CN_HOT ? c->base_floor :
			   r->kind == CN_WIDE ? fmax(COMPARE_N_WIDE_FLOOR, c->base_floor) : 0;
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


/* The rows of each section, in compare_n_sections' order. */
static void (*const section_rows[])(struct emit *e, const struct compare_n_doc *d) = {
	machine_rows, hierarchy_rows, atomicity_rows, splitlock_rows, c2c_rows, sharing_rows, menu_rows,
	result_rows,
};

int compare_n_build(const struct compare_n_doc *docs, size_t n, const struct compare_n_opts *o,
		    struct compare_n *out)
{
	struct emit e = { .c = out };

	memset(out, 0, sizeof(*out));
	/* a fleet adds its machines one at a time (fleet_add) */
	if (n < (o->fleet ? 1 : 2) || (n > COMPARE_N_MAX && !o->fleet)) {
		pr_err("compare: %zu documents: side by side takes 2 to %d", n, COMPARE_N_MAX);
		return -EINVAL;
	}
	out->cols = calloc(n, sizeof(*out->cols));
	if (!out->cols)
		return -ENOMEM;
	out->ncols = n;
	for (size_t i = 0; i < n; i++) {
		out->cols[i].doc = &docs[i];
		/* a fleet's machines are its hosts (fleet_add_read: one file each) */
		if (o->fleet && *docs[i].host)
			snprintf(out->cols[i].name, sizeof(out->cols[i].name), "%s", docs[i].host);
		else if (o->fleet)
			file_name(docs[i].path, out->cols[i].name, sizeof(out->cols[i].name));
	}
	out->base_floor = fmax(o->noise_floor, NOISE_FLOOR_MIN);
	out->margin = fmax(o->min_change, NOISE_FLOOR_MIN);
	if (!o->fleet)
		name_columns(out, docs);
	for (int s = S_MACHINE; s <= S_RESULTS && !e.err; s++)
		for (size_t i = 0; i < n && !e.err && (s != S_RESULTS || o->all_rows); i++) {
			e.col = i;
			section_rows[s](&e, &docs[i]);
		}
	if (!e.err && !o->fleet)
		e.err = mark(out);
	if (e.err)
		compare_n_free(out);
	return e.err;
}

void report_free_summary(struct compare_n_doc *d)
{
	for (size_t i = 0; i < d->nres; i++)
		free(d->res[i].ep);
	if (d->card)
		d->free_card(d->card);
	free(d->label);
	free(d->res);
	free(d->hier);
	c2c_out_free(d->c2c);
	free(d->c2c);
	free(d->split);
	memset(d, 0, sizeof(*d));
}

void compare_n_free(struct compare_n *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].cells);
	free(c->rows);
	free(c->cols);
	free(c->index);
	memset(c, 0, sizeof(*c));
}

/* The section a row opens under (compare_n_sections' title). */
const char *compare_n_section(const struct compare_n_row *r)
{
	return compare_n_sections[r->section];
}
