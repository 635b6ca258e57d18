/* report-text.c - the aligned table printed on a terminal. */
#include <math.h>
#include <string.h>

#include "report.h"

static const char *verdict(const struct result *r)
{
	if (!r->has_ratio)
		return "";
	if (r->ratio_lo > 1.0)
		return "slower";
	if (r->ratio_hi < 1.0)
		return "faster";
	return "same";
}

int report_write_text(const struct report *rep, FILE *f)
{
	const struct calibration *c = &rep->cal;

	fprintf(f, "# atomcost: core %.3f GHz (timer %.4f GHz, %.4f ticks/cycle, %s)\n",
		c->core_hz / 1e9, c->timer_hz / 1e9, c->ticks_per_cycle, c->cycle_source);
	if (rep->topo_summary[0])
		fprintf(f, "# topology: %s\n", rep->topo_summary);
	if (rep->partial)
		fprintf(f, "# PARTIAL: %s: results below are what was measured before it stopped\n",
			rep->partial_reason);
	fprintf(f, "%-20s %-20s %-7s %-10s %8s %8s %8s %8s %7s %-17s %-6s %7s\n",
		"probe", "twin", "pattern", "mode", "cyc min", "median", "p90", "ns", "ratio",
		"[95% CI]", "vs", "samples");
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		char ratio[16] = "-", ci[32] = "";

		if (r->has_ratio) {
			snprintf(ratio, sizeof(ratio), "%.2f", r->ratio);
			snprintf(ci, sizeof(ci), "[%.2f,%.2f]", r->ratio_lo, r->ratio_hi);
		}
		fprintf(f, "%-20s %-20s %-7s %-10s %8.2f %8.2f %8.2f %8.3f %7s %-17s %-6s %7zu%s%s\n",
			r->name, r->twin[0] ? r->twin : "-", r->pattern, probe_mode_name(r->mode),
			result_cycles(rep, r->s.min), result_cycles(rep, r->s.median),
			result_cycles(rep, r->s.p90), result_ns(rep, r->s.median), ratio, ci,
			verdict(r), r->nsamples, r->migrated ? " MIGRATED" : "",
			r->ci_reached ? "" : " (CI target not reached)");
	}
	return 0;
}
