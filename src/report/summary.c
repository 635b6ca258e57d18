/* SPDX-License-Identifier: MIT */
/* report/summary.c - the summary JSON ("atomcost-summary/1"): what a
 * reference card keeps of a report, without per-sample arrays: the machine
 * (fingerprint, calibration, topology), the card's computed figures, one
 * line of statistics per result, and the hierarchy, split-lock and c2c
 * sections as measured. Kilobytes, where a full report with its samples is
 * megabytes; the full report stays what `run -o` writes. */
#include <errno.h>
#include <math.h>

#include "card.h"
#include "compare.h"
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
