/* SPDX-License-Identifier: MIT */
/* report/meta.c - the model's records as JSON: the calibration and its
 * core (calibration.h), the experiment, its schema and what `atomcost run`
 * was asked for (config.h). The model holds them typed, writes no JSON. */
#include "config.h"
#include "sections.h"

json_t *core_to_json(const struct core_id *id)
{
	return json_pack("{s:s?, s:s, s:o, s:s?}", "name", id->name[0] ? id->name : NULL, "how", id->how,
			 "l1_load_cycles", id->l1_load_cycles > 0 ? json_real(id->l1_load_cycles) : json_null(),
			 "l1_source", id->l1_source);
}

static json_t *self_checks_json(const struct calibration *c)
{
	return json_pack("{s:s, s:{s:f, s:f, s:f}, s:{s:f, s:f, s:f}}",
		"add_chain", "circular: defines the cycle (and rescales every sample), reads 1.00 by "
			     "construction",
		"imul_chain", "expected_cycles", c->mul_expected, "cycles", c->mul_cycles,
		"deviation", clock_deviation(c->mul_cycles, c->mul_expected),
		"l1_load_chase", "expected_cycles", c->load_expected, "cycles", c->load_cycles,
		"deviation", clock_deviation(c->load_cycles, c->load_expected));
}

/* self_checks when measured and core when identified here: a report read
 * back from before them has neither. */
json_t *clock_to_json(const struct calibration *c)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:b, s:b, s:i, s:o, s:b, s:s, "
			 "s:o*, s:o*}",
			 "timer_hz", c->timer_hz, "timer_hz_spread", c->timer_hz_spread,
			 "overhead_min_ticks", c->overhead_min,
			 "overhead_median_ticks", c->overhead_median,
			 "ticks_per_cycle", c->ticks_per_cycle,
			 "ticks_per_cycle_mul", c->ticks_per_cycle_mul,
			 "chain_agreement", c->chain_agreement, "core_hz", c->core_hz,
			 "cycle_source", c->cycle_source, "timer", c->timer,
			 "timer_invariant", c->timer_invariant, "trustworthy", c->trustworthy,
			 "cpu_os", c->cpu_os, "mul_latency",
			 c->mul_expected > 0 ? json_integer((json_int_t)c->mul_expected) : json_null(),
			 "emulated", c->emulated, "emulation", c->emulation,
			 "self_checks", c->mul_expected > 0 ? self_checks_json(c) : NULL,
			 "core", c->core.how[0] ? core_to_json(&c->core) : NULL);
}

static const char *const source_names[] = { "default", "file", "override" };

json_t *config_to_json(const struct experiment *e)
{
	json_t *j = json_object(), *vals = json_object(), *ovs = json_array();

	json_object_set_new(j, "file", e && e->file ? json_string(e->file) : json_null());
	for (size_t i = 0; e && i < e->noverrides; i++)
		json_array_append_new(ovs, json_string(e->overrides[i]));
	json_object_set_new(j, "overrides", ovs);
	/* one object per section, in the order the schema first names them;
	 * each key's value, where it came from and (from the file) its line */
	for (size_t i = 0; i < cfg_schema_count; i++) {
		json_t *sec = json_object_get(vals, cfg_schema[i].section);
		bool set = e && e->value[i];

		if (!sec)
			json_object_set_new(vals, cfg_schema[i].section, sec = json_object());
		json_object_set_new(sec, cfg_schema[i].key, json_pack("{s:s?, s:s, s:o*}",
			"value", set ? e->value[i] : cfg_schema[i].def,
			"source", source_names[set ? e->source[i] : CFG_SRC_DEFAULT],
			"line", set && e->line[i] ? json_integer(e->line[i]) : NULL));
	}
	json_object_set_new(j, "values", vals);
	return j;
}

json_t *config_schema_json(void)
{
	json_t *a = json_array();

	for (const struct cfg_key *k = cfg_schema; k < cfg_schema + cfg_schema_count; k++) {
		bool num = k->type == CFG_U64 || k->type == CFG_U64_LIST || k->type == CFG_DOUBLE;

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s*, s:o*, s:o*, s:o*}",
			"section", k->section, "key", k->key, "type", cfg_type_names[k->type],
			"default", k->def, "help", k->help, "choices", k->choices,
			"min", num ? json_real(k->min) : NULL, "max", num ? json_real(k->max) : NULL,
			"option", !k->option ? NULL : *k->option ? json_sprintf("--%s", k->option) :
			json_string("PROBE...")));
	}
	return a;
}

json_t *run_request_json(const struct run_request *r)
{
	json_t *cmd = json_array(), *probes = json_array(), *modes = json_array(), *x;

	for (int i = 0; i < r->argc; i++)
		json_array_append_new(cmd, json_string(r->argv[i]));
	for (size_t i = 0; i < r->nprobes; i++)
		json_array_append_new(probes, json_string(r->probes[i]));
	for (enum probe_mode m = 0; m < MODE__COUNT; m++)
		if (r->mode_mask & (1u << m))
			json_array_append_new(modes, json_string(probe_mode_name(m)));
	x = json_pack("{s:o, s:o, s:s, s:i, s:f, s:f, s:f, s:i}", "probes", probes, "modes", modes,
		      "patterns", r->patterns ? r->patterns : "default", "cpu", r->cpu,
		      "max_seconds", r->max_seconds, "target_ci", r->target_ci,
		      "time_limit_s", r->time_limit_s, "epochs", r->epochs);
	if (r->exp)
		json_object_update_new(x, config_to_json(r->exp));
	return json_pack("{s:o, s:o}", "command_line", cmd, "experiment", x);
}
