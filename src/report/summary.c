/* SPDX-License-Identifier: MIT */
/* report/summary.c - the summary JSON ("atomcost-summary/1"): what a
 * reference card keeps of a report, without per-sample arrays: the machine
 * (fingerprint, calibration, topology), the card's computed figures, one
 * line of statistics per result, and the hierarchy, split-lock and c2c
 * sections as measured. Kilobytes, where a full report with its samples is
 * megabytes; the full report stays what `run -o` writes. Written here and
 * read back here (report_read_summary), a full report through its summary. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "card.h"
#include "compare.h"
#include "jtable.h"
#include "report.h"
#include "build-config.h"

/* One line per row (probe, pattern, mode): with epochs the median of the
 * epoch medians, the fastest sample of any, and every epoch's median in
 * epoch_medians (what `compare A B C` judges hot-line cells from). */
static json_t *row_json(const struct report *rep, size_t i)
{
	static const struct result *g[1000];
	const struct result *r = &rep->r[i];
	const struct contention_part *ct;
	double k = 1.0 / rep->cal.ticks_per_cycle;
	size_t n = compare_group(rep, i, g, 1000);
	struct report_row w;
	json_t *o;

	report_row(rep, i, &w);
	o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:{s:o, s:o, s:o, s:o}}",
		      "probe", r->name, "twin", r->twin, "pattern", r->pattern,
		      "mode", probe_mode_name(r->mode), "samples", (json_int_t)w.samples, "epochs", (json_int_t)n,
		      "cycles", "min", report_real(w.min * k), "p10", report_real(w.p10 * k),
		      "median", report_real(w.median * k), "p90", report_real(w.p90 * k));
	if (n > 1) {
		json_t *em = json_array();

		for (size_t j = 0; j < n; j++)
			json_array_append_new(em, report_real(g[j]->s.median * k));
		json_object_set_new(o, "epoch_medians", em);
	}

	if (r->footprint_lines)
		json_object_set_new(o, "footprint_lines", json_integer(r->footprint_lines));
	if (r->has_ratio)
		json_object_set_new(o, "ratio_to_twin", json_pack("{s:f, s:s, s:i, s:f}", "ratio", r->judge.ratio,
			"verdict", stats_verdict_name(r->judge.v), "epochs", (json_int_t)r->judge.n,
			"spread", isfinite(r->judge.spread) ? r->judge.spread : 0.0));
	if (r->analog)
		json_object_set_new(o, "analog", json_true());
	json_object_set_new(o, "context", json_string(result_context_name(r->context)));
	if (report_row_emulated(rep, r))
		json_object_set_new(o, "emulated", json_true());
	if (r->extra.has & 1u << RX_NOTE)
		json_object_set_new(o, "note", json_string(r->extra.note));
	if ((ct = result_contention(r)) && ct->placement[0])
		json_object_set_new(o, "placement", json_string(ct->placement));
	return o;
}

/* ---- the card, as card_build computed it ---- */

static json_t *num_or_null(double v)
{
	return isfinite(v) && v > 0 ? json_real(v) : json_null();
}

static json_t *part_json(const struct card_part *p)
{
	if (!p->a)
		return json_null();
	return json_pack("{s:s, s:s, s:o, s:o, s:s, s:i, s:o, s:o, s:o}", "a", p->a, "b", p->b, "a_cycles",
			 num_or_null(p->a_cyc), "b_cycles", num_or_null(p->b_cyc), "verdict",
			 stats_verdict_name(p->j.v), "epochs", (json_int_t)p->j.n, "diff_cycles",
			 report_real(p->j.diff), "diff_lo", report_real(p->j.diff_lo),
			 "diff_hi", report_real(p->j.diff_hi));
}

/* An option under contention: one item per column it was measured at
 * (cycles null where its threads did not run together). */
static json_t *menu_cont_json(const struct card *c, const struct card_option *op)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < c->ncont; k++) {
		const struct card_cont_cell *x = &op->cont[k];

		if (x->state == CARD_CONT_NONE)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:o, s:b, s:b}", "threads",
			(json_int_t)c->cont[k].threads, "placement", c->cont[k].placement, "cs_work",
			(json_int_t)c->cont[k].cs_work, "outside_work", (json_int_t)c->cont[k].outside_work,
			"cycles", x->state == CARD_CONT_MEASURED ? report_real(x->cycles) : json_null(),
			"overlapped", x->state == CARD_CONT_MEASURED, "unfair", x->unfair));
	}
	return a;
}

json_t *card_to_json(const struct card *c)
{
	json_t *o, *cmp, *share, *menu_j;

	cmp = json_array();
	for (unsigned i = 0; i < c->ncmp; i++)
		json_array_append_new(cmp, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o}", "what",
			c->cmp[i].what, "pattern", c->cmp[i].pattern, "mode", probe_mode_name(c->cmp[i].mode),
			"atomic_cycles", num_or_null(c->cmp[i].pair.a_cyc), "plain_cycles",
			num_or_null(c->cmp[i].pair.b_cyc), "verdict", stats_verdict_name(c->cmp[i].pair.j.v),
			"pair", part_json(&c->cmp[i].pair), "lock", part_json(&c->cmp[i].lock),
			"insn", part_json(&c->cmp[i].insn)));
	share = json_array();
	for (unsigned i = 0; i < c->nshare; i++)
		json_array_append_new(share, json_pack("{s:s, s:o, s:o, s:o}", "placement", c->share[i].placement,
			"true_share", num_or_null(c->share[i].true_share),
			"false_share", num_or_null(c->share[i].false_share),
			"no_share", num_or_null(c->share[i].no_share)));
	menu_j = json_array();
	for (unsigned n = 0; n < c->nneed; n++) {
		json_t *opts = json_array();

		/* cycles: the chain latency, as before the menu was ranked in context */
		for (unsigned k = 0; k < c->need[n].nopt; k++) {
			const struct card_option *op = &c->need[n].opt[k];

			json_t *oj = json_pack("{s:s, s:i, s:b, s:o, s:o, s:o, s:o, s:s, s:b}",
				"probe", op->probe, "rank", (json_int_t)op->rank, "tie", op->tie,
				"walk_cycles", report_real(op->walk),
				"stores_cycles", report_real(op->stores),
				"cycles", num_or_null(op->chain), "tput_cycles", num_or_null(op->tput),
				"safe_when", op->safe_when, "analog", op->analog);

			json_object_set_new(oj, "contention", menu_cont_json(c, op));
			if (!json_array_size(json_object_get(oj, "contention")))
				json_object_del(oj, "contention");	/* absent: not measured under contention */
			json_array_append_new(opts, oj);
		}
		json_array_append_new(menu_j, json_pack("{s:s, s:s, s:o}", "need", c->need[n].need, "ranked_by",
							card_basis_name(c->need[n].basis), "options", opts));
	}
	o = json_pack("{s:s?, s:s?, s:s?, s:s, s:i, s:f, s:i, s:f, s:o, s:s?, s:o, s:o, s:o}", "atomic",
		      c->pair_atomic, "plain", c->pair_plain, "unlocked", c->lock_plain, "differs", c->differs,
		      "epochs", (json_int_t)c->epochs, "disturbed", c->disturbed, "disturbed_epochs",
		      (json_int_t)c->disturbed_epochs, "cpu_share", c->cpu_share, "atomicity", cmp,
		      "sharing_probe", c->share_probe, "sharing", share, "menu", menu_j, "ordering",
		      part_json(&c->order));
	if (c->nmix) {	/* absent: no row of the card holds two states */
		json_t *m = json_array();

		for (unsigned i = 0; i < c->nmix; i++) {
			json_t *st = json_array();

			for (size_t k = 0; k < c->mix[i].m.nstates; k++)
				json_array_append_new(st, json_pack("{s:f, s:f}", "ticks", c->mix[i].m.state[k].value,
								    "share", c->mix[i].m.state[k].share));
			json_array_append_new(m, json_pack("{s:s, s:s, s:s, s:o}", "probe", c->mix[i].probe, "pattern",
							   c->mix[i].pattern, "mode", probe_mode_name(c->mix[i].mode),
							   "states", st));
		}
		json_object_set_new(o, "states", m);
	}
	if (c->load) {	/* absent: a report from before */
		char t[512];

		json_object_set_new(o, "load", json_pack("{s:i, s:s, s:f, s:f, s:i, s:i, s:s, s:s?}", "cpu",
			(json_int_t)c->load->cpu, "cpu_why", c->load->cpu_why, "waited_s", c->load->waited_s,
			"patience_s", c->load->patience_s, "repeated", (json_int_t)c->load->repeated,
			"kept_disturbed", (json_int_t)c->load->kept_disturbed, "text", card_load_text(c, t, sizeof(t)),
			"left_out", c->load->left_out[0] ? c->load->left_out : NULL));
	}
	if (c->nkernel) {	/* absent: no kernel row beside an analog */
		json_t *k = json_array();

		for (unsigned i = 0; i < c->nkernel; i++)
			json_array_append_new(k, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f}", "probe", c->kernel[i].probe,
				"analog", c->kernel[i].analog, "mode", probe_mode_name(c->kernel[i].mode),
				"analog_mode", probe_mode_name(c->kernel[i].user_mode),
				"kernel_cycles", c->kernel[i].kernel_cyc, "analog_cycles", c->kernel[i].user_cyc));
		json_object_set_new(o, "kernel", k);
	}
	return o;
}

int report_write_summary(const struct report *rep, FILE *f)
{
	json_t *rows = json_array(), *root;
	struct card card;
	int err = 0;

	for (size_t i = 0; i < rep->n; i++)
		if (compare_group_first(rep, i))
			json_array_append_new(rows, row_json(rep, i));
	root = json_pack("{s:s, s:{s:s, s:s}, s:s, s:b, s:o, s:s, s:o, s:o}",
			 "schema", "atomcost-summary/1",
			 "tool", "name", "atomcost", "version", ATOMCOST_VERSION,
			 "started", rep->started, "partial", rep->partial,
			 "calibration", clock_to_json(&rep->cal),
			 "topology_summary", rep->topo_summary,
			 "card", card_build(rep, &card) ? json_null() : card_to_json(&card), "results", rows);
	if (rep->tool)
		json_object_set(root, "tool", rep->tool);
	/* the pass-through: as the report has them */
	if (report_meta(rep, "fingerprint"))
		json_object_set(root, "fingerprint", report_meta(rep, "fingerprint"));
	report_typed_sections(rep, root);
	/* the staircase's points and the c2c matrix stay: small; nothing per sample */
	if (json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(5)) < 0)
		err = -EIO;
	fputc('\n', f);
	json_decref(root);
	return err ? err : (ferror(f) ? -EIO : 0);
}

/* ---- the summary read back, typed for side by side (compare-n.h): by
 * the codec's tables over the bytes (jtable.h), no tree ---- */

#define DOC(m, kind, key) JF(struct compare_n_doc, m, kind, key)
/* an array of the document's plain structs (no has) */
#define DOCA(m, key, f) JA(struct compare_n_doc, m, n##m, JK_OBJS, key, \
			   JT(f, sizeof(*((struct compare_n_doc *)0)->m), false))
static const struct jfield cpu_f[] = {
	DOC(model_name, JK_STR, "model_name"), DOC(family, JK_STR, "family"), DOC(model, JK_STR, "model"),
	DOC(stepping, JK_STR, "stepping"), DOC(microcode, JK_STR, "microcode"),
};
static const struct jfield kernel_f[] = { DOC(kernel, JK_STR, "release") };
static const struct jfield cc_f[] = { DOC(cc, JK_STR, "cc"), DOC(flags, JK_STR, "flags") };
static const struct jfield hv_f[] = { DOC(vm, JK_BOOL, "cpuid_flag") };
static const struct jfield fp_f[] = {
	DOC(host, JK_STR, "host"), JFLAT("cpu", cpu_f), JFLAT("kernel", kernel_f), JFLAT("compiler", cc_f),
	JFLAT("hypervisor", hv_f),
};
static const struct jfield tool_f[] = { DOC(version, JK_STR, "version") };
static const struct jfield cal_f[] = {
	DOC(trustworthy, JK_BOOL, "trustworthy"), DOC(core_hz, JK_REAL, "core_hz"),
};

#define PAIR(m, kind, key) JF(struct cn_pair, m, kind, key)
static const struct jfield pair_f[] = {
	PAIR(what, JK_STR, "what"), PAIR(mode, JK_STR, "mode"), PAIR(pattern, JK_STR, "pattern"),
	PAIR(atomic, JK_REAL, "atomic_cycles"), PAIR(plain, JK_REAL, "plain_cycles"),
};
static const struct jfield share_f[] = {
	JF(struct cn_share, placement, JK_STR, "placement"), JF(struct cn_share, cycles[0], JK_REAL, "true_share"),
	JF(struct cn_share, cycles[1], JK_REAL, "false_share"), JF(struct cn_share, cycles[2], JK_REAL, "no_share"),
};
static const struct jfield card_f[] = {
	DOC(card_floor, JK_REAL, "noise_floor"), DOC(atomic, JK_STR, "atomic"), DOC(plain, JK_STR, "plain"),
	DOC(sharing_probe, JK_STR, "sharing_probe"), DOCA(pair, "atomicity", pair_f),
	DOCA(share, "sharing", share_f),
};

/* One line per row (probe, pattern, mode) with every epoch's median. */
static const struct jfield median_f[] = { JF(struct cn_result, median, JK_REAL, "median") };
static const struct jfield row_f[] = {
	JF(struct cn_result, probe, JK_STR, "probe"), JF(struct cn_result, pattern, JK_STR, "pattern"),
	JF(struct cn_result, mode, JK_STR, "mode"), JF(struct cn_result, placement, JK_STR, "placement"),
	JFLAT("cycles", median_f),
	JA(struct cn_result, ep, nep, JK_REALS, "epoch_medians", NULL),
};

static const struct jfield doc_f[] = {
	DOC(partial, JK_BOOL, "partial"), DOC(started, JK_STR, "started"),
	DOC(topology, JK_STR, "topology_summary"), JFLAT("tool", tool_f), JFLAT("fingerprint", fp_f),
	JFLAT("calibration", cal_f), JFLAT("card", card_f),
	DOCA(res, "results", row_f),
};
static const struct jtable doc_t = JPLAIN(doc_f, struct compare_n_doc);
static const struct jfield option_f[] = {
	JF(struct cn_option, probe, JK_STR, "probe"), JF(struct cn_option, cycles, JK_REAL, "cycles"),
};
static const struct jtable option_t = JPLAIN(option_f, struct cn_option);

/* What the summary's scan carries besides the document. */
struct summary_scan {
	struct compare_n_doc *d;
	char schema[64];
	size_t capmenu, caplabel;
};

/* A need's options: one menu item each, whatever it is (as the tree read). */
static int options_scan(struct jscan *s, struct summary_scan *c)
{
	struct compare_n_doc *d = c->d;
	size_t k = 0;
	int ret;

	if (jscan_peek(s) != JS_ARRAY)
		return jscan_skip(s);
	if (jscan_enter(s, '[') < 0)
		return -EINVAL;
	while ((ret = jscan_item(s, &k)) == 1) {
		if (jtable_grow(&d->menu, d->nmenu, &c->capmenu, sizeof(*d->menu)) < 0)
			return -ENOMEM;
		memset(&d->menu[d->nmenu], 0, sizeof(*d->menu));
		ret = jtable_scan(&option_t, s, &d->menu[d->nmenu++], NULL, NULL);
		if (ret < 0)
			return ret;
	}
	return ret;
}

/* One need of the card's menu; its name goes to each of its options. */
static int need_scan(struct jscan *s, struct summary_scan *c)
{
	struct compare_n_doc *d = c->d;
	size_t first = d->nmenu, k = 0;
	char key[16], need[sizeof(d->menu->need)] = "";
	int ret;

	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	if (jscan_enter(s, '{') < 0)
		return -EINVAL;
	while ((ret = jscan_member(s, &k, key, sizeof(key))) == 1) {
		ret = !strcmp(key, "need") ? jtable_str(s, need, sizeof(need)) :
		      !strcmp(key, "options") ? options_scan(s, c) : jscan_skip(s);
		if (ret < 0)
			return ret;
	}
	for (size_t i = first; i < d->nmenu; i++)
		memcpy(d->menu[i].need, need, sizeof(need));
	return ret;
}

/* The card's keys besides its table: the menu, one item per need and option. */
static int card_other(struct jscan *s, const char *key, void *ctx)
{
	size_t k = 0;
	int ret;

	if (strcmp(key, "menu"))
		return 0;
	if (jscan_peek(s) != JS_ARRAY)
		return jscan_skip(s) < 0 ? -EINVAL : 1;
	if (jscan_enter(s, '[') < 0)
		return -EINVAL;
	while ((ret = jscan_item(s, &k)) == 1)
		if ((ret = need_scan(s, ctx)) < 0)
			return ret;
	return ret < 0 ? ret : 1;
}

/* The firmware as one word, "vendor version date" ("?" for one not said). */
static int firmware_scan(struct jscan *s, struct compare_n_doc *d)
{
	static const char *const keys[] = { "bios_vendor", "bios_version", "bios_date" };
	char key[16], w[3][sizeof(d->bios)] = { "?", "?", "?" }, all[sizeof(w) + 3];
	size_t k = 0, i;
	int ret;

	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	if (jscan_enter(s, '{') < 0)
		return -EINVAL;
	while ((ret = jscan_member(s, &k, key, sizeof(key))) == 1) {
		for (i = 0; i < ARRAY_SIZE(keys) && strcmp(keys[i], key); i++)
			;
		ret = i < ARRAY_SIZE(keys) && jscan_peek(s) == JS_STRING ? jscan_str(s, w[i], sizeof(w[i])) :
		      jscan_skip(s);
		if (ret < 0)
			return ret;
	}
	/* a long one is cut to the word's size, as the tree's reading cut it */
	if (!ret) {
		snprintf(all, sizeof(all), "%s %s %s", w[0], w[1], w[2]);
		k = strnlen(all, sizeof(d->bios) - 1);
		memcpy(d->bios, all, k);
		d->bios[k] = '\0';
	}
	return ret;
}

/* The operator's labels: each key with a string value. */
static int labels_scan(struct jscan *s, struct summary_scan *c)
{
	struct compare_n_doc *d = c->d;
	char key[sizeof(d->label->key)];
	size_t k = 0;
	int ret;

	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	if (jscan_enter(s, '{') < 0)
		return -EINVAL;
	while ((ret = jscan_member(s, &k, key, sizeof(key))) == 1) {
		if (jscan_peek(s) != JS_STRING) {
			ret = jscan_skip(s);
		} else if (jtable_grow(&d->label, d->nlabel, &c->caplabel, sizeof(*d->label)) < 0) {
			return -ENOMEM;
		} else {
			memcpy(d->label[d->nlabel].key, key, sizeof(key));
			ret = jscan_str(s, d->label[d->nlabel++].value, sizeof(d->label->value));
		}
		if (ret < 0)
			return ret;
	}
	return ret;
}

static int fingerprint_other(struct jscan *s, const char *key, void *ctx)
{
	struct summary_scan *c = ctx;
	int ret;

	if (!strcmp(key, "firmware"))
		ret = firmware_scan(s, c->d);
	else if (!strcmp(key, "labels"))
		ret = labels_scan(s, c);
	else
		return 0;
	return ret < 0 ? ret : 1;
}

/* doc_f's flat object of that key: its table */
static const struct jtable *flat_of(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(doc_f); i++)
		if (!strcmp(doc_f[i].key, key))
			return doc_f[i].sub;
	return NULL;
}

/* The document's keys besides its table: the schema, the card and the
 * fingerprint with their hooks, the typed sections. */
static int top_other(struct jscan *s, const char *key, void *ctx)
{
	struct summary_scan *c = ctx;
	int ret;

	if (!strcmp(key, "schema"))
		ret = jtable_str(s, c->schema, sizeof(c->schema));
	else if (!strcmp(key, "card"))
		ret = jtable_scan(flat_of(key), s, c->d, card_other, c);
	else if (!strcmp(key, "fingerprint"))
		ret = jtable_scan(flat_of(key), s, c->d, fingerprint_other, c);
	else
		return jtable_section(s, key, c->d);
	return ret < 0 ? ret : 1;
}

/* len bytes of a summary at buf into d (path names it), its schema into
 * c->schema; 0, -EINVAL said with path and where, -ENOMEM. */
static int doc_scan(const char *path, const char *buf, size_t len, struct summary_scan *c)
{
	struct compare_n_doc *d = c->d;
	struct jscan s;
	int line, col, ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(c->schema, sizeof(c->schema), "(none)");
	c->capmenu = c->caplabel = 0;
	d->vm = d->trustworthy = -1;
	jscan_init(&s, buf, len);
	if (jscan_peek(&s) != JS_OBJECT && jscan_peek(&s) != JS_ARRAY)
		ret = jscan_fail(&s, "'[' or '{' expected");
	else
		ret = jtable_scan(&doc_t, &s, d, top_other, c);
	if (!ret)
		ret = jscan_end(&s);
	if (ret == -EINVAL) {
		jscan_where(&s, &line, &col);
		pr_err("%s:%d:%d: not valid JSON: %s", path, line, col, s.why);
	}
	return ret;
}

/* The whole of path into *buf (owned); 0, -ENOENT (not readable), -EINVAL
 * (a directory), -ENOMEM; said with the path unless quiet. */
static int slurp(const char *path, char **buf, size_t *len, bool quiet)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	size_t cap = 1 << 16;
	struct stat st;
	ssize_t got = 1;

	*buf = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		ret = fd >= 0 && S_ISDIR(st.st_mode) ? -EINVAL : -ENOENT;
		if (quiet)
			goto out;
		if (ret == -EINVAL)
			pr_err("%s: is a directory (give a JSON report file)", path);
		else
			pr_err("%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size >= cap)
		cap = (size_t)st.st_size + 1;
	while (got > 0 && !ret) {
		if (*len + 1 >= cap && jtable_grow(buf, *len + 1, &cap, 1) < 0)
			ret = -ENOMEM;
		else if (!*buf && !(*buf = malloc(cap)))
			ret = -ENOMEM;
		else if ((got = read(fd, *buf + *len, cap - *len - 1)) > 0)
			*len += (size_t)got;
	}
	if (got < 0 && !ret) {
		ret = -ENOENT;
		if (!quiet)
			pr_err("%s: cannot read: %s", path, strerror(errno));
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A full report reduced to what its summary keeps, as its summary's bytes
 * (owned): one column reads the same from either. */
static int reduce(const char *path, char **buf, size_t *len)
{
	struct report rep;
	FILE *f;
	int ret = report_read(path, &rep);

	*buf = NULL;
	*len = 0;
	if (ret < 0)
		return ret;
	f = open_memstream(buf, len);
	ret = f ? report_write_summary(&rep, f) : -ENOMEM;
	if (f && fclose(f) && !ret)
		ret = -EIO;
	report_free(&rep);
	return ret;
}

int report_read_summary(const char *path, struct compare_n_doc *d)
{
	struct summary_scan c = { .d = d, .schema = "(none)" };
	char *buf;
	size_t len;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	ret = slurp(path, &buf, &len, false);
	if (!ret)
		ret = doc_scan(path, buf, len, &c);
	d->summary = !strcmp(c.schema, SUMMARY_SCHEMA);
	if (!ret && !d->summary && strcmp(c.schema, REPORT_SCHEMA)) {
		pr_err("%s: schema '%s' is neither a report ('%s') nor a summary ('%s'): give the JSON of atomcost run -o or of atomcost report X.json -o X.summary.json",
		       path, c.schema, REPORT_SCHEMA, SUMMARY_SCHEMA);
		ret = -EINVAL;
	} else if (!ret && !d->summary) {
		report_free_summary(d);
		free(buf);
		ret = reduce(path, &buf, &len);
		if (!ret)
			ret = doc_scan(path, buf, len, &c);
	}
	free(buf);
	if (ret < 0)
		report_free_summary(d);
	return ret;
}

bool report_is_summary(const char *path)
{
	char *buf, key[16], schema[sizeof(SUMMARY_SCHEMA) + 1] = "";
	struct jscan s;
	size_t len, k = 0;

	if (slurp(path, &buf, &len, true) < 0)
		return false;
	jscan_init(&s, buf, len);
	if (jscan_enter(&s, '{') == 0)
		while (jscan_member(&s, &k, key, sizeof(key)) == 1 && !*schema)
			if ((strcmp(key, "schema") ? jscan_skip(&s) : jtable_str(&s, schema, sizeof(schema))) < 0)
				break;
	free(buf);
	return !strcmp(schema, SUMMARY_SCHEMA);
}
