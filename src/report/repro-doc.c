/* SPDX-License-Identifier: MIT */
/* report/repro-doc.c - the codec of meta.reproductions: a reproduction's
 * typed document (repro-doc.h) as JSON, its parts where it made them among
 * its own keys, every key in the order the reports have always had. */
#include "repro-doc.h"

#include <errno.h>
#include <math.h>

#include "report.h"

void repro_doc_own(struct repro_doc *d, const char *key, json_t *v)
{
	if (!d) {
		json_decref(v);
		return;
	}
	if (!d->own)
		d->own = json_object();
	json_object_set_new(d->own, key, v);
	d->nown = json_object_size(d->own);
}

json_t *repro_doubles_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, v ? report_real(v[i]) : json_null());
	return a;
}

static json_t *conclusion_json(const struct repro_conclusion *c)
{
	bool judged = c->v != VERDICT_NONE;
	const struct judgment *j = &c->j;
	json_t *o;

	o = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:s}", "what", c->what, "a", c->a, "b", c->b,
		      "verdict", judged ? stats_verdict_name(c->v) : "none", "ratio",
		      judged ? report_real(j->ratio) : json_null(), "lo",
		      judged ? report_real(j->lo) : json_null(), "hi",
		      judged ? report_real(j->hi) : json_null(), "spread",
		      judged ? report_real(j->spread) : json_null(), "margin",
		      judged ? report_real(j->margin) : json_null(), "text", c->text);
	if (judged)
		json_object_set_new(o, "df", report_real(j->n >= 2 ? j->df : NAN));
	if (c->reason)
		json_object_set_new(o, "reason", json_string(c->reason));
	if (!c->claim)
		return o;
	json_object_update_new(o, json_pack("{s:o,s:o,s:o,s:I,s:I}", "meas_a", report_real(c->meas_a),
					    "meas_b", report_real(c->meas_b), "saves",
					    report_real(c->meas_b - c->meas_a), "passes",
					    (json_int_t)c->passes, "disturbed", (json_int_t)c->disturbed));
	if (c->pub) {
		json_object_set_new(o, "pub_a", json_real(c->pub_a));
		json_object_set_new(o, "pub_b", json_real(c->pub_b));
		json_object_set_new(o, "pub_derived", json_boolean(c->pub_derived));
	}
	if (c->per_pass) {
		json_object_set_new(o, "pass_a", repro_doubles_json(c->pass_a, c->n));
		json_object_set_new(o, "pass_b", repro_doubles_json(c->pass_b, c->n));
		json_object_set_new(o, "pass_share", repro_doubles_json(c->pass_share, c->n));
	}
	if (c->pub_row)
		json_object_set_new(o, "pub_row", json_string(c->pub_row));
	if (c->unmeasured)
		json_object_set_new(o, "unmeasured", json_integer((json_int_t)c->unmeasured));
	return o;
}

static json_t *pass_rec_json(const struct repro_pass_rec *r)
{
	json_t *o;

	if (r->retimed)
		o = json_pack("{s:s,s:I,s:I,s:o,s:b,s:f}", "what", r->what, "pass", (json_int_t)r->pass,
			      "try", (json_int_t)r->try_, "cpu_share", report_real(r->share), "preempted",
			      r->flag, "seconds", r->seconds);
	else
		o = json_pack("{s:s,s:I,s:o,s:f,s:f,s:b}", "what", r->what, "pass", (json_int_t)r->pass,
			      "cpu_share", report_real(r->share), "seconds", r->seconds, "waited_s",
			      r->waited_s, "run_again", r->flag);
	if (r->figs)
		json_object_set(o, "figures", r->figs);
	return o;
}

static json_t *kernel_json(const struct repro_doc *d)
{
	json_t *jk = json_pack("{s:s,s:b,s:s}", "context", "kernel", "emulated", d->kernel_emulated,
			       "unit", "core cycles per op (per object), median of the samples");
	json_t *jr = json_array();

	if (d->kernel_note)
		json_object_set_new(jk, "note", json_string(d->kernel_note));
	json_object_set_new(jk, "rows", jr);
	for (size_t i = 0; i < d->n_kernel; i++) {
		const struct repro_kernel_row *r = &d->kernel[i];

		json_array_append_new(jr, json_pack("{s:s,s:s,s:o,s:I}", "probe", r->probe, "what", r->what,
						    "cycles", report_real(r->cycles), "samples",
						    (json_int_t)r->samples));
	}
	return jk;
}

static json_t *part_json(const struct repro_doc *d, enum repro_part p)
{
	json_t *a = p == RP_KERNEL ? NULL : json_array();

	switch (p) {
	case RP_CHANGES:
		for (size_t i = 0; i < d->n_changes; i++)
			json_array_append_new(a, json_string(d->changes[i]));
		break;
	case RP_CONCLUSIONS:
		for (size_t i = 0; i < d->n_conclusions; i++)
			json_array_append_new(a, conclusion_json(&d->conclusions[i]));
		break;
	case RP_DISTURBED:
	case RP_RETIMED:
		for (size_t i = 0; i < d->n_recs; i++)
			if (d->recs[i].retimed == (p == RP_RETIMED))
				json_array_append_new(a, pass_rec_json(&d->recs[i]));
		break;
	default:
		return kernel_json(d);
	}
	return a;
}

static const char *const part_key[RP__COUNT] = {
	[RP_CHANGES] = "machine_changes", [RP_CONCLUSIONS] = "conclusions",
	[RP_DISTURBED] = "disturbed_passes", [RP_RETIMED] = "retimed_figures", [RP_KERNEL] = "kernel",
};

/* The parts made when the own keys were at. */
static void parts_at(json_t *o, const struct repro_doc *d, size_t at)
{
	for (size_t i = 0; i < d->nparts; i++)
		if (d->at[i] == at)
			json_object_set_new(o, part_key[d->order[i]], part_json(d, d->order[i]));
}

static json_t *load_json(const struct repro_doc *d)
{
	json_t *un = json_array();

	for (size_t i = 0; i < d->n_conclusions; i++) {
		const struct repro_conclusion *c = &d->conclusions[i];

		if (c->v == VERDICT_NONE || !isfinite(c->j.ratio))
			json_array_append_new(un, json_pack("{s:s,s:s}", "what", c->what, "reason",
							    c->reason));
	}
	return json_pack("{s:o,s:f,s:i,s:i,s:i,s:o}", "patience_s",
			 d->patience_s >= 0 ? json_real(d->patience_s) : json_null(), "waited_s",
			 d->waited_s, "retimed", (int)d->retimed, "repeated", (int)d->repeated,
			 "kept_disturbed", (int)d->kept_disturbed, "unjudged", un);
}

json_t *repro_doc_json(const struct repro_doc *d)
{
	json_t *o = !d->seed ? json_object() :
		    json_pack("{s:s,s:s,s:s,s:i,s:s,s:b}", "seed", d->seed, "source", d->source,
			      "machine", d->machine, "cpu", d->cpu, "cpu_why", d->cpu_why,
			      "calibration_trustworthy", d->calibration_trustworthy), *v;
	const char *k;
	size_t at = 0;

	json_object_foreach(d->own, k, v) {
		parts_at(o, d, at++);
		json_object_set(o, k, v);
	}
	parts_at(o, d, at);
	if (d->load)
		json_object_set_new(o, "load", load_json(d));
	if (d->wall_s > 0)
		json_object_set_new(o, "wall_s", json_real(d->wall_s));
	return o;
}

int repro_doc_put(struct report *rep, const struct repro_doc *d)
{
	json_t *all;

	if (!rep->meta)
		rep->meta = json_object();
	if (!d)
		return json_object_set_new(rep->meta, "reproductions", json_object()) ? -ENOMEM : 0;
	all = json_object_get(rep->meta, "reproductions");
	return json_object_set_new(all, d->kind, repro_doc_json(d)) ? -ENOMEM : 0;
}
