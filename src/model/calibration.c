/* SPDX-License-Identifier: MIT */
/* calibration.c - the calibration record out: its text and its JSON
 * (calibration.h); the engine that measures it is clock.c. */
#include "calibration.h"

static double deviation(double got, double want)
{
	return want > 0 ? got / want - 1 : 0;
}

void clock_print_self_checks(const struct calibration *c, FILE *f, const char *prefix)
{
	char load[160];

	if (!(c->mul_expected > 0))
		return;
	if (c->load_expected > 0 && c->core.name[0])
		snprintf(load, sizeof(load), "expected %.0f on a %s core, %+.2f%%", c->load_expected, c->core.name,
			 deviation(c->load_cycles, c->load_expected) * 100);
	else if (c->load_expected > 0)	/* a report from before the core was identified */
		snprintf(load, sizeof(load), "expected %.0f, %+.2f%%", c->load_expected,
			 deviation(c->load_cycles, c->load_expected) * 100);
	else
		snprintf(load, sizeof(load), "no expectation: the core is unknown");
	fprintf(f, "%simul chain %.3f cycles (expected %.0f, %+.2f%%), L1 load chase %.3f cycles "
		   "(%s); the add chain reads 1.00 by construction (it defines the cycle)\n", prefix,
		c->mul_cycles, c->mul_expected, deviation(c->mul_cycles, c->mul_expected) * 100, c->load_cycles,
		load);
}

void clock_print_core(const struct calibration *c, FILE *f, const char *prefix)
{
	if (c->core.how[0])
		fprintf(f, "%s%s%s%s\n", prefix, c->core.how, c->core.l1_source ? "; L1 load-to-use: " : "",
			c->core.l1_source ? c->core.l1_source : "");
}

void clock_print(const struct calibration *c, FILE *f)
{
	fprintf(f, "timer             %s\n", c->timer);
	fprintf(f, "timer frequency   %.4f GHz (spread %.3f%% over %d windows, vs CLOCK_MONOTONIC_RAW)\n",
		c->timer_hz / 1e9, c->timer_hz_spread * 100, CLOCK_FREQ_REPEATS);
	fprintf(f, "timer invariant   %s\n", c->timer_invariant ? "yes" : "NO (constant_tsc/nonstop_tsc missing)");
	fprintf(f, "timer overhead    %.0f ticks median, %.0f min (fenced start+stop)\n",
		c->overhead_median, c->overhead_min);
	fprintf(f, "ticks per cycle   %.4f (add chain), %.4f (imul chain, %.0f cycles each): agree within %.2f%%\n",
		c->ticks_per_cycle, c->ticks_per_cycle_mul, c->mul_expected, c->chain_agreement * 100);
	fprintf(f, "chain medians     %.4f (add), %.4f (imul): spread from disturbances\n",
		c->add_median, c->mul_median);
	clock_print_self_checks(c, f, "self-checks       ");
	clock_print_core(c, f, "core              ");
	fprintf(f, "core clock        %.3f GHz\n", c->core_hz / 1e9);
	fprintf(f, "cycles from       %s\n", c->cycle_source);
	if (c->cpu_os >= 0)
		fprintf(f, "measured on PU    P#%d\n", c->cpu_os);
	if (c->emulated)
		fprintf(f, "EMULATED          %s: timings are meaningless\n", c->emulation);
	if (!c->trustworthy)
		fprintf(f, "WARNING           calibration does not agree with itself: treat cycle figures with care\n");
}

json_t *core_to_json(const struct core_id *id)
{
	return json_pack("{s:s?, s:s, s:o, s:s?}", "name", id->name[0] ? id->name : NULL, "how", id->how,
			 "l1_load_cycles", id->l1_load_cycles > 0 ? json_real(id->l1_load_cycles) : json_null(),
			 "l1_source", id->l1_source);
}

json_t *clock_to_json(const struct calibration *c)
{
	json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:b, s:b, s:i, s:o}",
			 "timer_hz", c->timer_hz, "timer_hz_spread", c->timer_hz_spread,
			 "overhead_min_ticks", c->overhead_min,
			 "overhead_median_ticks", c->overhead_median,
			 "ticks_per_cycle", c->ticks_per_cycle,
			 "ticks_per_cycle_mul", c->ticks_per_cycle_mul,
			 "chain_agreement", c->chain_agreement, "core_hz", c->core_hz,
			 "cycle_source", c->cycle_source, "timer", c->timer,
			 "timer_invariant", c->timer_invariant, "trustworthy", c->trustworthy,
			 "cpu_os", c->cpu_os, "mul_latency",
			 c->mul_expected > 0 ? json_integer((json_int_t)c->mul_expected) : json_null());
	if (j) {
		json_object_set_new(j, "emulated", json_boolean(c->emulated));
		json_object_set_new(j, "emulation", json_string(c->emulation));
		if (c->mul_expected > 0)	/* measured (not a report read back without them) */
			json_object_set_new(j, "self_checks", json_pack(
			"{s:s, s:{s:f, s:f, s:f}, s:{s:f, s:f, s:f}}",
			"add_chain", "circular: defines the cycle (and rescales every sample), reads 1.00 by "
				     "construction",
			"imul_chain", "expected_cycles", c->mul_expected, "cycles", c->mul_cycles,
			"deviation", deviation(c->mul_cycles, c->mul_expected),
			"l1_load_chase", "expected_cycles", c->load_expected, "cycles", c->load_cycles,
			"deviation", deviation(c->load_cycles, c->load_expected)));
		if (c->core.how[0])	/* identified here (not read back from an older report) */
			json_object_set_new(j, "core", core_to_json(&c->core));
	}
	return j;
}
