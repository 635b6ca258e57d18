/* SPDX-License-Identifier: MIT */
/* calibration.c - the calibration record as text (calibration.h; its JSON
 * is report/meta.c's); the engine that measures it is clock.c. */
#include "calibration.h"

void clock_print_self_checks(const struct calibration *c, FILE *f, const char *prefix)
{
	char load[160];

	if (!(c->mul_expected > 0))
		return;
	if (c->load_expected > 0)	/* no core name: a report from before the core was identified */
		snprintf(load, sizeof(load), "expected %.0f%s%s%s, %+.2f%%", c->load_expected,
			 c->core.name[0] ? " on a " : " by the build that wrote this report, for every core",
			 c->core.name, c->core.name[0] ? " core" : "", clock_deviation(c->load_cycles, c->load_expected) * 100);
	else
		snprintf(load, sizeof(load), "no expectation: the core is unknown");
	fprintf(f, "%simul chain %.3f cycles (expected %.0f, %+.2f%%), L1 load chase %.3f cycles "
		   "(%s); the add chain reads 1.00 by construction (it defines the cycle)\n", prefix,
		c->mul_cycles, c->mul_expected, clock_deviation(c->mul_cycles, c->mul_expected) * 100, c->load_cycles,
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
