/* SPDX-License-Identifier: MIT */
/* repro/common.c - what every reproduction uses: print a post's published
 * table beside the measured one and compute conclusions from the measured
 * figures (repro.h, "published beside measured"). The run of an
 * experiment's reproductions is repro/run.c. */
#include "repro/repro.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common.h"
#include "fingerprint.h"
#include "kmod.h"
#include "quiet.h"
#include "result.h"
#include "runner.h"

/* ---- published beside measured ---- */

const struct repro_row *repro_table_row(const struct repro_table *t, const char *label)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].label, label))
			return &t->rows[i];
	return NULL;
}

/* Published figures as the post wrote them: integers without decimals. */
static const char *fmt_pub(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(b, n, "%.0f", v);
	else
		snprintf(b, n, "%.4g", v);
	return b;
}

/* Measured figures: three significant digits, no exponent below 1e6. */
static const char *fmt_meas(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(b, n, "-");
	else if (a >= 100)
		snprintf(b, n, "%.0f", v);
	else if (a >= 10)
		snprintf(b, n, "%.1f", v);
	else
		snprintf(b, n, "%.2f", v);
	return b;
}

static void print_row(FILE *out, int lw, const unsigned *cw, unsigned ncols, const char *label,
		      const double *pub, const double *meas, const char *note)
{
	char b[48];

	fprintf(out, "  %-*s |", lw, label);
	for (unsigned k = 0; k < ncols; k++)
		fprintf(out, " %*s", cw[k], fmt_pub(b, sizeof(b), pub ? pub[k] : NAN));
	fprintf(out, " |");
	for (unsigned k = 0; k < ncols; k++)
		fprintf(out, " %*s", cw[k], fmt_meas(b, sizeof(b), meas ? meas[k] : NAN));
	fprintf(out, " |");
	for (unsigned k = 0; k < ncols; k++) {
		double r = pub && meas && pub[k] > 0 ? meas[k] / pub[k] : NAN;

		if (isnan(r))
			snprintf(b, sizeof(b), "-");
		else
			snprintf(b, sizeof(b), "%.3g", r);
		fprintf(out, " %*s", cw[k], b);
	}
	if (note)
		fprintf(out, "  %s", note);
	fputc('\n', out);
}

int repro_print_beside(FILE *out, const struct repro_table *pub, const struct repro_table *meas)
{
	unsigned cw[REPRO_MAX_COLS], ncols = pub->ncols;
	int lw = 5, w = 0;

	if (ncols < 1 || ncols > REPRO_MAX_COLS || meas->ncols != ncols) {
		pr_err("repro: table '%s': %u published columns, %u measured (expected the same, 1..%d)",
		       pub->title, ncols, meas->ncols, REPRO_MAX_COLS);
		return -EINVAL;
	}
	for (unsigned k = 0; k < ncols; k++) {
		if (strcmp(pub->cols[k], meas->cols[k])) {
			pr_err("repro: table '%s': column %u is '%s' measured, '%s' published "
			       "(expected the published columns, in order)",
			       pub->title, k + 1, meas->cols[k], pub->cols[k]);
			return -EINVAL;
		}
		cw[k] = (unsigned)strlen(pub->cols[k]);
		if (cw[k] < 8)
			cw[k] = 8;
		w += (int)cw[k] + 1;	/* a group of all columns, each with its space */
	}
	for (size_t i = 0; i < meas->nrows; i++)
		if ((int)strlen(meas->rows[i].label) > lw)
			lw = (int)strlen(meas->rows[i].label);
	for (size_t i = 0; i < pub->nrows; i++)
		if ((int)strlen(pub->rows[i].label) > lw)
			lw = (int)strlen(pub->rows[i].label);

	fprintf(out, "%s\n", pub->title);
	if (pub->nrows)
		fprintf(out, "  published: %s, in %s; %s\n", pub->machine, pub->unit, pub->source);
	else
		fprintf(out, "  published: none (%s)\n", pub->source);
	fprintf(out, "  measured:  %s, in %s\n", meas->machine, meas->unit);
	fprintf(out, "  %-*s | %-*s | %-*s | %-*s\n", lw, "", w - 1, "published", w - 1, "measured",
		w - 1, "measured/published");
	fprintf(out, "  %-*s |", lw, "");
	for (int h = 0; h < 3; h++) {
		for (unsigned k = 0; k < ncols; k++)
			fprintf(out, " %*s", cw[k], pub->cols[k]);
		fprintf(out, "%s", h < 2 ? " |" : "");
	}
	fputc('\n', out);
	for (size_t i = 0; i < meas->nrows; i++) {
		const struct repro_row *m = &meas->rows[i], *p = repro_table_row(pub, m->label);
		const char *note = m->note ? m->note : p ? p->note : NULL;

		print_row(out, lw, cw, ncols, m->label, p ? p->v : NULL, m->v, note);
	}
	for (size_t i = 0; i < pub->nrows; i++) {
		const struct repro_row *p = &pub->rows[i];

		if (!repro_table_row(meas, p->label))
			print_row(out, lw, cw, ncols, p->label, p->v, NULL,
				  p->note ? p->note : "not measured");
	}
	return 0;
}

void repro_print_list(FILE *out, const char *head, const char *const *items, size_t n)
{
	fprintf(out, "%s\n", head);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  - %s\n", items[i]);
}

/* ---- the document (report/repro-doc.h) ---- */

void *repro_doc_grow(void **v, size_t *n, size_t *cap, size_t size)
{
	char *p = *v;

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;

		p = realloc(p, c * size);
		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

struct repro_mem {
	struct repro_mem *next;
	max_align_t data[];
};

void *repro_doc_keep(struct repro_doc *d, const void *p, size_t n)
{
	struct repro_mem *m = p ? malloc(sizeof(*m) + n) : NULL;

	if (!m)
		return NULL;
	m->next = d->mem;
	d->mem = m;
	return memcpy(m->data, p, n);
}

void repro_doc_part(struct repro_doc *d, enum repro_part p)
{
	for (size_t i = 0; i < d->nparts; i++)
		if (d->order[i] == p)
			return;
	d->order[d->nparts] = p;
	d->at[d->nparts++] = d->nown;
}

void repro_doc_free(struct repro_doc *d)
{
	for (size_t i = 0; i < d->n_recs; i++)
		json_decref(d->recs[i].figs);
	while (d->mem) {
		struct repro_mem *m = d->mem->next;

		free(d->mem);
		d->mem = m;
	}
	free(d->changes);
	free(d->conclusions);
	free(d->recs);
	free(d->kernel);
	json_decref(d->own);
	*d = (struct repro_doc){ 0 };
}

/* s copied into rc's document, NULL kept. */
static const char *str(struct repro_ctx *rc, const char *s)
{
	return s ? repro_doc_keep(rc->doc, s, strlen(s) + 1) : NULL;
}

void repro_print_changes(struct repro_ctx *rc, const char *const *items, size_t n)
{
	repro_print_list(rc->out, "What this machine changes:", items, n);
	if (!rc->doc)
		return;
	repro_doc_part(rc->doc, RP_CHANGES);
	for (size_t i = 0; i < n; i++) {
		const char **c = REPRO_DOC_ADD(rc->doc, changes);

		if (c)
			*c = str(rc, items[i]);
	}
}

const char *repro_bytes(char *buf, size_t len, size_t bytes)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	if (!bytes) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v == floor(v) ? "%.0f %s" : "%.1f %s", v, unit[u]);
	return buf;
}

size_t repro_cache(const struct repro_ctx *rc, int level)
{
	if (!rc->t)
		return 0;
	return level ? topo_cache_size(rc->t, level) : topo_llc_size(rc->t);
}

double repro_cycles_per_op(double ticks, double overhead, double ops, double ticks_per_cycle)
{
	if (!(ops > 0) || !(ticks_per_cycle > 0))
		return NAN;
	return (ticks - overhead) / ops / ticks_per_cycle;
}

/* The passes a claim is judged on: both figures measured (finite, above 0)
 * and the thread's CPU share high enough; *disturbed and *unmeasured count
 * the passes left out, so every pass is accounted for. */
static size_t claim_passes(const struct repro_claim *c, double *a, double *b, size_t *disturbed,
			   size_t *unmeasured)
{
	size_t m = 0;

	*disturbed = *unmeasured = 0;
	for (size_t k = 0; k < c->n && c->ea && c->eb && m < JUDGE_MAX_EPOCHS; k++) {
		if (!(c->ea[k] > 0) || !(c->eb[k] > 0) || !isfinite(c->ea[k]) || !isfinite(c->eb[k])) {
			(*unmeasured)++;
			continue;
		}
		if (c->share && c->share[k] < REPRO_SHARE_MIN) {
			(*disturbed)++;
			continue;
		}
		a[m] = c->ea[k];
		b[m++] = c->eb[k];
	}
	return m;
}

int repro_claims_prior(const struct repro_claim *c, size_t n, struct stats_prior *p)
{
	double *s2 = calloc(n ? n : 1, sizeof(double)), *df = calloc(n ? n : 1, sizeof(double));
	int ret = -ENOMEM;

	*p = (struct stats_prior){ .s2 = NAN, .df = 0 };
	if (s2 && df) {
		for (size_t i = 0; i < n; i++) {
			double a[JUDGE_MAX_EPOCHS], b[JUDGE_MAX_EPOCHS];
			size_t disturbed, unmeasured, m = claim_passes(&c[i], a, b, &disturbed, &unmeasured);

			df[i] = stats_judge_spread(a, b, m, &s2[i]);
		}
		ret = stats_prior_fit(s2, df, n, p);
	}
	free(s2);
	free(df);
	return ret;
}

enum verdict repro_conclusion_text(char *buf, size_t len, const struct repro_claim *c,
				   struct judgment *jout)
{
	double a[JUDGE_MAX_EPOCHS], b[JUDGE_MAX_EPOCHS];
	size_t disturbed, unmeasured, m = claim_passes(c, a, b, &disturbed, &unmeasured);
	struct judgment j = { .v = VERDICT_NONE };
	double ma = stats_median(a, m), mb = stats_median(b, m);
	char x[32], y[32], d[32];
	size_t n = 0;

	if (m)
		stats_judge_prior(a, b, m, c->prior, &j);
#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	fmt_meas(x, sizeof(x), ma);
	fmt_meas(y, sizeof(y), mb);
	fmt_meas(d, sizeof(d), fabs(mb - ma));
	PUT("conclusion %s: ", c->what);
	switch (j.v) {
	case VERDICT_FASTER:
		PUT("%s saves %s %s against %s here", c->a, d, c->unit, c->b);
		break;
	case VERDICT_SLOWER:
		PUT("%s costs %s %s more than %s here", c->a, d, c->unit, c->b);
		break;
	case VERDICT_SAME:
		PUT("%s and %s cost the same here, within %.0f%% by an equivalence test", c->a, c->b,
		    j.margin * 100);
		break;
	case VERDICT_UNRESOLVED:
		PUT("cannot tell %s from %s here", c->a, c->b);
		break;
	case VERDICT_NONE:
		if (disturbed)
			PUT("no verdict: every pass with figures of %s and %s was disturbed", c->a, c->b);
		else
			PUT("no verdict: %s or %s has no measured figure here", c->a, c->b);
		break;
	}
	if (j.v != VERDICT_NONE) {
		PUT(" (%s vs %s %s, x%.2f", x, y, c->unit, j.ratio);
		if (j.n >= 2)
			PUT(", 95%% x%.2f-%.2f", j.lo, j.hi);
		PUT(", %zu pass%s", j.n, j.n == 1 ? "" : "es");
		if (j.n >= 2 && c->prior && c->prior->df > 0)
			PUT(", spread moderated over the claims: %.0f df", j.df);
		if (j.v == VERDICT_UNRESOLVED)
			PUT(j.n < 2 ? ": one pass is no verdict" : ", spread %.0f%%", j.spread * 100);
		PUT(")");
	}
	if (disturbed)
		PUT(" [%zu disturbed pass%s left out]", disturbed, disturbed == 1 ? "" : "es");
	if (unmeasured && m + disturbed)
		PUT(" [%zu pass%s without a measured figure left out]", unmeasured,
		    unmeasured == 1 ? "" : "es");
	if (!isnan(c->pub_a) && !isnan(c->pub_b)) {
		fmt_pub(x, sizeof(x), c->pub_a);
		fmt_pub(y, sizeof(y), c->pub_b);
		fmt_pub(d, sizeof(d), fabs(c->pub_b - c->pub_a));
		PUT("; %s: %s %s %s %s (%s vs %s %s)",
		    c->pub_derived ? "derived from the post's tables" : "published", c->a,
		    c->pub_a <= c->pub_b ? "saves" : "costs", d,
		    c->pub_a <= c->pub_b ? c->pub_unit : "more", x, y, c->pub_unit);
	}
	if (c->pub_words)
		PUT("%s the post: \"%s\"", isnan(c->pub_a) || isnan(c->pub_b) ? "; published:" : ",",
		    c->pub_words);
	if (c->pub_machine && (c->pub_words || (!isnan(c->pub_a) && !isnan(c->pub_b))))
		PUT(" (%s)", c->pub_machine);
#undef PUT
	if (jout)
		*jout = j;
	return j.v;
}

/* A conclusion into the document; v: VERDICT_NONE with its reason, or
 * judged by j. NULL when there is none or no memory. */
static struct repro_conclusion *conclusion_add(struct repro_ctx *rc, const char *what,
					       const char *a, const char *b, enum verdict v,
					       const struct judgment *j, const char *reason,
					       const char *text)
{
	struct repro_conclusion *o;

	if (!rc->doc)
		return NULL;
	repro_doc_part(rc->doc, RP_CONCLUSIONS);
	o = REPRO_DOC_ADD(rc->doc, conclusions);
	if (!o)
		return NULL;
	*o = (struct repro_conclusion){ .what = str(rc, what), .a = str(rc, a), .b = str(rc, b),
					.text = str(rc, text), .reason = str(rc, reason), .v = v };
	if (j)
		o->j = *j;
	return o;
}

void repro_unjudged(struct repro_ctx *rc, const char *what, const char *a, const char *b,
		    const char *reason)
{
	char text[1024];

	snprintf(text, sizeof(text), "conclusion %s: no verdict: %s", what, reason);
	fprintf(rc->out, "%s\n", text);
	conclusion_add(rc, what, a, b, VERDICT_NONE, NULL, reason, text);
}

enum verdict repro_conclude(struct repro_ctx *rc, const struct repro_claim *c)
{
	double a[JUDGE_MAX_EPOCHS], b[JUDGE_MAX_EPOCHS];
	size_t disturbed, unmeasured, m = claim_passes(c, a, b, &disturbed, &unmeasured);
	struct judgment j;
	char text[1024];
	enum verdict v = repro_conclusion_text(text, sizeof(text), c, &j);
	struct repro_conclusion *o;

	fprintf(rc->out, "%s\n", text);
	o = conclusion_add(rc, c->what, c->a, c->b, v, &j,
			   v != VERDICT_NONE ? NULL
			   : disturbed	    ? "every pass with figures of both was disturbed"
					    : "no measured figure of one or both",
			   text);
	if (!o)
		return v;
	o->claim = true;
	o->meas_a = stats_median(a, m);
	o->meas_b = stats_median(b, m);
	o->passes = m;
	o->disturbed = disturbed;
	o->unmeasured = unmeasured;
	o->pub = !isnan(c->pub_a) && !isnan(c->pub_b);
	o->pub_a = c->pub_a;
	o->pub_b = c->pub_b;
	o->pub_derived = c->pub_derived;
	o->pub_row = str(rc, c->pub_row);
	o->per_pass = c->per_pass;
	if (c->per_pass) {
		o->n = c->n;
		o->pass_a = repro_doc_keep(rc->doc, c->ea, c->n * sizeof(double));
		o->pass_b = repro_doc_keep(rc->doc, c->eb, c->n * sizeof(double));
		o->pass_share = repro_doc_keep(rc->doc, c->share, c->n * sizeof(double));
	}
	return v;
}

/* Seconds the patience has left at now. */
static double patience_left(const struct repro_patience *pt, uint64_t now)
{
	double spent = pt->waited_s + pt->repeat_s;

	if (pt->patience_s >= 0)
		return pt->patience_s - spent;
	/* twice the quiet time so far */
	return 2 * ((double)(now - pt->start_ns) / 1e9 - spent) - spent;
}

bool repro_patience_pays(const struct repro_patience *pt, double took_s, uint64_t now)
{
	return patience_left(pt, now) >= QUIET_WINDOW_S + took_s;
}

bool repro_pass_again(struct repro_ctx *rc, const struct quiet_mark *p, double share,
		      const char *what, size_t pass, json_t *figs)
{
	struct repro_patience *pt = rc->patience;
	uint64_t now = now_ns();
	double took = (double)(now - p->wall_ns) / 1e9, waited = 0;
	bool again = false;
	struct repro_pass_rec *o;

	if (!(share < REPRO_SHARE_MIN)) {
		json_decref(figs);
		return false;
	}
	if (pt && repro_patience_pays(pt, took, now)) {
		/* at most half of what is left once the pass is run again, so
		 * that a load that ends later still finds patience for the
		 * passes after it, and never less than a window */
		double left = patience_left(pt, now) - took;

		again = quiet_wait(QUIET_SHARE, QUIET_WINDOW_S, fmax(left / 2, QUIET_WINDOW_S), &waited);
		pt->waited_s += waited;
		if (again) {
			pt->repeated++;
			pt->repeat_s += took;
		}
	}
	if (pt && !again)
		pt->kept_disturbed++;
	if (rc->doc)
		repro_doc_part(rc->doc, RP_DISTURBED);
	o = rc->doc ? REPRO_DOC_ADD(rc->doc, recs) : NULL;
	if (!o) {
		json_decref(figs);
		return again;
	}
	*o = (struct repro_pass_rec){ .what = str(rc, what), .pass = pass, .share = share, .seconds = took,
				      .waited_s = waited, .flag = again, .figs = figs };
	return again;
}

void repro_say_load(struct repro_ctx *c, const struct repro_patience *before)
{
	const struct repro_patience *pt = c->patience;
	double waited = pt->waited_s - before->waited_s;
	unsigned again = pt->repeated - before->repeated;
	unsigned kept = pt->kept_disturbed - before->kept_disturbed, retimed = pt->retimed - before->retimed;
	size_t un = 0, n = c->doc ? c->doc->n_conclusions : 0;
	char budget[64];

	if (pt->patience_s >= 0)
		snprintf(budget, sizeof(budget), "%.0f s", pt->patience_s);
	else
		snprintf(budget, sizeof(budget), "twice the quiet time");
	for (size_t i = 0; i < n; i++) {
		const struct repro_conclusion *o = &c->doc->conclusions[i];

		un += (o->v == VERDICT_NONE || !isfinite(o->j.ratio)) && o->reason;
	}
	fprintf(c->out, "under load: waited %.1f s for quiet windows, timed %u disturbed figure%s and "
			"ran %u disturbed pass%s again, kept %u disturbed%s (patience %s); %zu of %zu "
			"conclusions unjudged%s\n",
		waited, retimed, retimed == 1 ? "" : "s", again, again == 1 ? "" : "es", kept,
		!kept ? "" : pt->patience_s == 0 ? " out of the judgments: no patience to wait with"
					    : " out of the judgments: the patience ran out", budget, un, n,
		un ? " (their reasons above)" : "");
	if (!c->doc)
		return;
	c->doc->load = true;
	c->doc->patience_s = pt->patience_s;
	c->doc->waited_s = waited;
	c->doc->retimed = retimed;
	c->doc->repeated = again;
	c->doc->kept_disturbed = kept;
}

void repro_say_calibration(const struct calibration *cal, FILE *out, struct repro_doc *d)
{
	d->calibration_trustworthy = cal->trustworthy;
	if (!cal->trustworthy)
		fprintf(out, "calibration untrustworthy: the add and imul chains disagree by %.1f%% "
				 "(trusted within 1%%): core cycles below carry that error\n",
			cal->chain_agreement * 100);
}

long repro_preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

void repro_figure_start(struct repro_figure *f)
{
	f->tries++;
	f->cs = repro_preemptions();
	quiet_start(&f->m);
}

bool repro_figure_again(struct repro_figure *f, double *share)
{
	*share = quiet_share(&f->m);
	return repro_figure_again_of(f, *share, repro_preemptions() != f->cs);
}

bool repro_figure_again_of(struct repro_figure *f, double share, bool preempted)
{
	uint64_t now = now_ns();
	double took = (double)(now - f->m.wall_ns) / 1e9;

	if (!(share < REPRO_SHARE_MIN || preempted)) {
		if (f->pt)
			f->pt->vain_figures = 0;
		return false;
	}
	if (f->tries >= REPRO_FIGURE_TRIES) {
		if (f->pt)
			f->pt->vain_figures++;
		return false;
	}
	if (f->pt && f->pt->vain_figures >= REPRO_FIGURE_VAIN) {
		f->pt->given_up++;
		return false;
	}
	if (f->pt && patience_left(f->pt, now) < took)
		return false;
	if (f->pt) {
		f->pt->repeat_s += took;
		f->pt->retimed++;
	}
	return true;
}

void repro_figure_kept(struct repro_ctx *rc, const struct repro_figure *f, double share,
		       bool preempted, const char *what, size_t pass, json_t *figs)
{
	struct repro_pass_rec *o;

	if (rc->doc)
		repro_doc_part(rc->doc, RP_RETIMED);
	o = rc->doc ? REPRO_DOC_ADD(rc->doc, recs) : NULL;
	if (!o) {
		json_decref(figs);
		return;
	}
	*o = (struct repro_pass_rec){ .retimed = true, .what = str(rc, what), .pass = pass, .try_ = f->tries, .share = share,
				      .seconds = (double)(now_ns() - f->m.wall_ns) / 1e9,
				      .flag = preempted, .figs = figs };
}

/* ---- kernel mode (context = kernel) ---- */

#define KERNEL_NOTE "emulated: not a measurement"

/* Every row of k: printed as a table beside none of the post's (its
 * figures are in the tables above), and into the document's kernel rows. */
static int kernel_table(struct repro_ctx *rc, const struct repro_kernel *spec, const struct report *k)
{
	const char *note = k->cal.emulated ? KERNEL_NOTE : NULL;
	struct repro_row *rows = calloc(k->n + 1, sizeof(*rows));
	struct repro_table pub = { .title = spec->title, .source = spec->pub, .unit = "cycles", .ncols = 1,
				   .cols = { "per op" } };
	struct repro_table meas = { .title = spec->title, .machine = rc->machine,
				    .unit = "core cycles, in the kernel", .ncols = 1, .cols = { "per op" },
				    .nrows = k->n, .rows = rows };
	int ret;

	if (!rows)
		return -ENOMEM;
	if (rc->doc) {
		repro_doc_part(rc->doc, RP_KERNEL);
		rc->doc->kernel_emulated = k->cal.emulated;
		rc->doc->kernel_note = note;
	}
	for (size_t i = 0; i < k->n; i++) {
		const struct result *r = &k->r[i];
		double c = r->s.median / k->cal.ticks_per_cycle;
		struct repro_kernel_row *kr = rc->doc ? REPRO_DOC_ADD(rc->doc, kernel) : NULL;

		rows[i] = (struct repro_row){ r->name, { c }, note };
		if (kr)
			*kr = (struct repro_kernel_row){ str(rc, r->name), str(rc, r->insn), c, r->nsamples };
	}
	ret = repro_print_beside(rc->out, &pub, &meas);
	free(rows);
	return ret;
}

/* Each claim over the rows' samples, each sample a pass; none under
 * emulation. */
static void kernel_conclude(struct repro_ctx *rc, const struct repro_kernel *spec, const struct report *k)
{
	double ea[JUDGE_MAX_EPOCHS], eb[JUDGE_MAX_EPOCHS];
	char w[160];

	for (size_t i = 0; i < spec->nclaims; i++) {
		const struct repro_kclaim *cl = &spec->claims[i];
		/* kmod_run's rows: latency (the mode_mask below), pattern hit */
		const struct result *a = report_find(k, cl->a, MODE_LATENCY, "hit", RESULT_KERNEL);
		const struct result *b = report_find(k, cl->b, MODE_LATENCY, "hit", RESULT_KERNEL);
		struct repro_claim c = { .what = w, .a = cl->a, .b = cl->b, .unit = "cycles", .ea = ea,
					 .eb = eb, .pub_a = NAN, .pub_b = NAN };

		snprintf(w, sizeof(w), "%s, in the kernel", cl->what);
		if (k->cal.emulated || !a || !b) {
			repro_unjudged(rc, w, cl->a, cl->b, k->cal.emulated ? KERNEL_NOTE : "not measured");
			continue;
		}
		c.n = a->nsamples < b->nsamples ? a->nsamples : b->nsamples;
		c.n = c.n < JUDGE_MAX_EPOCHS ? c.n : JUDGE_MAX_EPOCHS;
		for (size_t p = 0; p < c.n; p++) {
			ea[p] = a->samples[p] / k->cal.ticks_per_cycle;
			eb[p] = b->samples[p] / k->cal.ticks_per_cycle;
		}
		repro_conclude(rc, &c);
	}
}

int repro_kernel_run(struct repro_ctx *rc, const struct repro_kernel *spec)
{
	struct run_opts o;
	struct report k;
	int ret;

	if (strcmp(config_str(rc->exp, spec->sec, "context"), "kernel"))
		return 0;
	runner_default_opts(&o);
	o.cpu_os = rc->cpu_os;
	o.mode_mask = 1u << MODE_LATENCY;
	o.max_samples = config_u64(rc->exp, spec->sec, "passes");
	o.max_samples = o.max_samples < 2 ? 2 : o.max_samples;
	report_init(&k);
	k.meta = json_object();
	fprintf(rc->out, "\n--- in the kernel: atomcost.ko, %zu samples per probe (docs/kernel.md)\n",
		o.max_samples);
	fflush(rc->out);
	ret = kmod_run(rc->t, &o, spec->probes, spec->nprobes, &k);
	if (k.cal.emulated)
		fprintf(rc->out, "%s (%s): the kernel's figures below are no one's\n", KERNEL_NOTE,
			k.cal.emulation);
	if (!ret)
		ret = kernel_table(rc, spec, &k);
	if (!ret)
		kernel_conclude(rc, spec, &k);
	report_free(&k);
	return ret;
}
