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

/* ---- the card, as card_build computed it: one table writes it and reads
 * it back (side by side, compare-n.h) ---- */

static json_t *mode_put(const void *m, const void *root)
{
	return json_string(probe_mode_name(*(const enum probe_mode *)m));
}

static int mode_get(struct jscan *s, void *m)
{
	char w[16];
	int ret = jtable_str(s, w, sizeof(w));

	probe_mode_parse(w, m);	/* the default, latency, when unknown */
	return ret;
}

static json_t *verdict_put(const void *m, const void *root)
{
	return json_string(stats_verdict_name(*(const enum verdict *)m));
}

static json_t *basis_put(const void *m, const void *root)
{
	return json_string(card_basis_name(*(const enum card_basis *)m));
}

/* An option under contention: one item per column it was measured at
 * (cycles null where its threads did not run together); none: left out. */
static json_t *cont_put(const void *m, const void *root)
{
	const struct card_cont_cell *x = m;
	const struct card *c = root;
	json_t *a = json_array();

	for (unsigned k = 0; k < c->ncont; k++)
		if (x[k].state != CARD_CONT_NONE)
			json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:o, s:b, s:b}", "threads",
				(json_int_t)c->cont[k].threads, "placement", c->cont[k].placement, "cs_work",
				(json_int_t)c->cont[k].cs_work, "outside_work", (json_int_t)c->cont[k].outside_work,
				"cycles", x[k].state == CARD_CONT_MEASURED ? report_real(x[k].cycles) : json_null(),
				"overlapped", x[k].state == CARD_CONT_MEASURED, "unfair", x[k].unfair));
	if (json_array_size(a))
		return a;
	json_decref(a);
	return NULL;
}

/* What the run did under load; left out for a report from before. */
static json_t *load_put(const void *m, const void *root)
{
	const struct characterization_meta *l = *(const struct characterization_meta *const *)m;
	char t[512];

	return !l ? NULL : json_pack("{s:i, s:s, s:f, s:f, s:i, s:i, s:s, s:s?}", "cpu", (json_int_t)l->cpu,
		"cpu_why", l->cpu_why, "waited_s", l->waited_s, "patience_s", l->patience_s, "repeated",
		(json_int_t)l->repeated, "kept_disturbed", (json_int_t)l->kept_disturbed, "text",
		card_load_text(root, t, sizeof(t)), "left_out", l->left_out[0] ? l->left_out : NULL);
}

static const struct jhook mode_h = { mode_put, mode_get }, verdict_h = { verdict_put, NULL },
			  basis_h = { basis_put, NULL }, cont_h = { cont_put, NULL }, load_h = { load_put, NULL };
#define HOOK(type, m, key, h) { key, JK_HOOK, offsetof(type, m), sizeof(((type *)0)->m), 0, 0, NULL, 0, false, h }
/* a card_part, null when not measured */
#define PART(type, m, key) { key, JK_OBJN, offsetof(type, m), sizeof(struct card_part), 0, 0, \
			     JT(part_f, sizeof(struct card_part), false), 0, false, NULL }
/* an array in place of plain structs of fields f, left out without items when opt */
#define LIST(type, m, key, f, opt) { key, JK_OBJS, offsetof(type, m), sizeof(((type *)0)->m[0]), \
	offsetof(type, n##m), ARRAY_SIZE(((type *)0)->m), JT(f, sizeof(((type *)0)->m[0]), false), \
	sizeof(((type *)0)->n##m), opt, NULL }

#define CP(m, kind, key) JF(struct card_part, m, kind, key)
static const struct jfield part_f[] = {
	CP(a, JK_PSTR, "a"), CP(b, JK_PSTR, "b"), CP(a_cyc, JK_POS, "a_cycles"), CP(b_cyc, JK_POS, "b_cycles"),
	HOOK(struct card_part, j.v, "verdict", &verdict_h), CP(j.n, JK_INT, "epochs"),
	CP(j.diff, JK_REALN, "diff_cycles"), CP(j.diff_lo, JK_REALN, "diff_lo"), CP(j.diff_hi, JK_REALN, "diff_hi"),
};
#define CC(m, kind, key) JF(struct card_cmp, m, kind, key)
static const struct jfield cmp_f[] = {
	CC(what, JK_PSTR, "what"), CC(pattern, JK_PSTR, "pattern"), HOOK(struct card_cmp, mode, "mode", &mode_h),
	CC(pair.a_cyc, JK_POS, "atomic_cycles"), CC(pair.b_cyc, JK_POS, "plain_cycles"),
	HOOK(struct card_cmp, pair.j.v, "verdict", &verdict_h), PART(struct card_cmp, pair, "pair"),
	PART(struct card_cmp, lock, "lock"), PART(struct card_cmp, insn, "insn"),
};
#define CS(m, kind) JM(struct card_share, m, kind)
static const struct jfield share_f[] = {
	CS(placement, JK_PSTR), CS(true_share, JK_POS), CS(false_share, JK_POS), CS(no_share, JK_POS),
};
#define CO(m, kind, key) JF(struct card_option, m, kind, key)
static const struct jfield option_f[] = {
	CO(probe, JK_PSTR, "probe"), CO(rank, JK_INT, "rank"), CO(tie, JK_BOOL, "tie"),
	CO(walk, JK_REALN, "walk_cycles"), CO(stores, JK_REALN, "stores_cycles"), CO(chain, JK_POS, "cycles"),
	CO(tput, JK_POS, "tput_cycles"), CO(safe_when, JK_PSTR, "safe_when"), CO(analog, JK_BOOL, "analog"),
	HOOK(struct card_option, cont, "contention", &cont_h),
};
static const struct jfield need_f[] = {
	JM(struct card_need, need, JK_PSTR), HOOK(struct card_need, basis, "ranked_by", &basis_h),
	LIST(struct card_need, opt, "options", option_f, false),
};
static const struct jfield state_f[] = {
	JF(struct mix_state, value, JK_REAL, "ticks"), JM(struct mix_state, share, JK_REAL),
};
static const struct jfield mix_f[] = {
	JM(struct card_mix, probe, JK_PSTR), JM(struct card_mix, pattern, JK_PSTR),
	HOOK(struct card_mix, mode, "mode", &mode_h),
	JAIN(struct card_mix, m.state, m.nstates, JK_OBJS, "states", JT(state_f, sizeof(struct mix_state), false)),
};
static const struct jfield kernel_f[] = {
	JM(struct card_kernel, probe, JK_PSTR), JM(struct card_kernel, analog, JK_PSTR),
	HOOK(struct card_kernel, mode, "mode", &mode_h), HOOK(struct card_kernel, user_mode, "analog_mode", &mode_h),
	JF(struct card_kernel, kernel_cyc, JK_REAL, "kernel_cycles"),
	JF(struct card_kernel, user_cyc, JK_REAL, "analog_cycles"),
};
#define CD(m, kind, key) JF(struct card, m, kind, key)
static const struct jfield card_f[] = {
	CD(pair_atomic, JK_PSTR, "atomic"), CD(pair_plain, JK_PSTR, "plain"), CD(lock_plain, JK_PSTR, "unlocked"),
	CD(differs, JK_STR, "differs"), CD(epochs, JK_INT, "epochs"), CD(disturbed, JK_REAL, "disturbed"),
	CD(disturbed_epochs, JK_INT, "disturbed_epochs"), CD(cpu_share, JK_REAL, "cpu_share"),
	LIST(struct card, cmp, "atomicity", cmp_f, false), CD(share_probe, JK_PSTR, "sharing_probe"),
	LIST(struct card, share, "sharing", share_f, false), LIST(struct card, need, "menu", need_f, false),
	PART(struct card, order, "ordering"), LIST(struct card, mix, "states", mix_f, true),
	HOOK(struct card, load, "load", &load_h), LIST(struct card, kernel, "kernel", kernel_f, true),
};
static const struct jtable card_t = JPLAIN(card_f, struct card);

json_t *card_to_json(const struct card *c)
{
	return jtable_json(&card_t, c);
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
static const struct jfield cpu_f[] = {
	DOC(model_name, JK_STR, "model_name"), DOC(family, JK_STR, "family"), DOC(model, JK_STR, "model"),
	DOC(stepping, JK_STR, "stepping"), DOC(microcode, JK_STR, "microcode"),
};
static const struct jfield release_f[] = { DOC(kernel, JK_STR, "release") };
static const struct jfield cc_f[] = { DOC(cc, JK_STR, "cc"), DOC(flags, JK_STR, "flags") };
static const struct jfield hv_f[] = { DOC(vm, JK_BOOL, "cpuid_flag") };
static const struct jfield fp_f[] = {
	DOC(host, JK_STR, "host"), JFLAT("cpu", cpu_f), JFLAT("kernel", release_f), JFLAT("compiler", cc_f),
	JFLAT("hypervisor", hv_f),
};
static const struct jfield tool_f[] = { DOC(version, JK_STR, "version") };
static const struct jfield cal_f[] = {
	DOC(trustworthy, JK_BOOL, "trustworthy"), DOC(core_hz, JK_REAL, "core_hz"),
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
	DOC(topology, JK_STR, "topology_summary"), JFLAT("tool", tool_f), JFLAT("calibration", cal_f),
	JA(struct compare_n_doc, res, nres, JK_OBJS, "results", JT(row_f, sizeof(struct cn_result), false)),
};
static const struct jtable doc_t = JPLAIN(doc_f, struct compare_n_doc);

/* What the summary's scan carries besides the document. */
struct summary_scan {
	struct compare_n_doc *d;
	char schema[64];
	size_t caplabel;
};

/* No keys of its own: an object read member by member by a jtable_other. */
static const struct jtable any_t = { NULL, 0, 0, false };

struct firmware_words {
	char w[3][sizeof(((struct compare_n_doc *)0)->bios)];
};

static int firmware_word(struct jscan *s, const char *key, void *ctx)
{
	static const char *const keys[] = { "bios_vendor", "bios_version", "bios_date" };
	struct firmware_words *fw = ctx;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys) && strcmp(keys[i], key); i++)
		;
	if (i == ARRAY_SIZE(keys) || jscan_peek(s) != JS_STRING)
		return 0;	/* skipped */
	return jscan_str(s, fw->w[i], sizeof(fw->w[i])) < 0 ? -EINVAL : 1;
}

/* The firmware as one word, "vendor version date" ("?" for one not said). */
static int firmware_scan(struct jscan *s, struct compare_n_doc *d)
{
	struct firmware_words fw = { { "?", "?", "?" } };
	char all[sizeof(fw.w) + 3];
	size_t k;
	int ret;

	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	ret = jtable_scan(&any_t, s, NULL, firmware_word, &fw);
	/* a long one is cut to the word's size, as the tree's reading cut it */
	if (!ret) {
		snprintf(all, sizeof(all), "%s %s %s", fw.w[0], fw.w[1], fw.w[2]);
		k = strnlen(all, sizeof(d->bios) - 1);
		memcpy(d->bios, all, k);
		d->bios[k] = '\0';
	}
	return ret;
}

/* One of the operator's labels: a key with a string value. */
static int label_one(struct jscan *s, const char *key, void *ctx)
{
	struct summary_scan *c = ctx;
	struct compare_n_doc *d = c->d;

	if (jscan_peek(s) != JS_STRING)
		return 0;	/* skipped */
	if (jtable_grow(&d->label, d->nlabel, &c->caplabel, sizeof(*d->label)) < 0)
		return -ENOMEM;
	snprintf(d->label[d->nlabel].key, sizeof(d->label->key), "%s", key);
	return jscan_str(s, d->label[d->nlabel++].value, sizeof(d->label->value)) < 0 ? -EINVAL : 1;
}

static int fingerprint_other(struct jscan *s, const char *key, void *ctx)
{
	struct summary_scan *c = ctx;
	int ret;

	if (!strcmp(key, "firmware"))
		ret = firmware_scan(s, c->d);
	else if (!strcmp(key, "labels"))
		ret = jtable_scan(&any_t, s, NULL, label_one, c);
	else
		return 0;
	return ret < 0 ? ret : 1;
}

static void card_free(struct card *c)
{
	jtable_free(&card_t, c);
	free(c);
}

/* The card by its table (one of null or another kind: none). */
static int card_scan(struct jscan *s, struct compare_n_doc *d)
{
	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	if (d->card)
		return jscan_fail(s, "duplicate object key");
	d->card = calloc(1, sizeof(*d->card));
	d->free_card = card_free;
	return d->card ? jtable_scan(&card_t, s, d->card, NULL, NULL) : -ENOMEM;
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
		ret = card_scan(s, c->d);
	else if (!strcmp(key, "fingerprint"))
		ret = jtable_scan(JT(fp_f, 0, false), s, c->d, fingerprint_other, c);
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
	c->caplabel = 0;
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
