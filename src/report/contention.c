/* SPDX-License-Identifier: MIT */
/* report/contention.c - the contention rows' table (sections.h): reads
 * results, never measures. */
#include <string.h>

#include "sections.h"

void contention_write_text(const struct report *rep, FILE *f)
{
	bool header = false, flagged = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const struct contention_part *c = result_contention(r);
		char ratio[32] = "-", cpus[96] = "", opsl[160] = "";

		if (!c)
			continue;
		if (!header) {
			fprintf(f, "# contention: %d threads, %.2f s per case, "
				"cs-work %lld, outside-work %lld (work units ~ 1 cycle)\n",
				c->threads, c->duration_s, c->cs_work, c->outside_work);
			fprintf(f, "# thread ns/op: a thread's run time / its ops (mean over threads);"
				" aggregate: union of the runs / all ops\n");
			fprintf(f, "# med cyc: median of the per-chunk samples (cycles/op while running);"
				" ratio: of those medians vs the twin in the same case\n");
			fprintf(f, "%-22s %-9s %-6s %-7s %8s %9s %8s %9s %8s %7s %6s %7s %8s %-13s %s\n",
				"probe", "placement", "share", "cpus", "med cyc", "thr ns/op", "thr cyc", "agg ns/op",
				"agg cyc", "ratio", "fair", "overlap", "cpu/wall", "ops/thread", "");
			header = true;
		}
		if (r->has_ratio)
			snprintf(ratio, sizeof(ratio), "%.2f", r->ratio);
		for (unsigned k = 0; k < c->nper; k++) {
			size_t l = strlen(cpus), m = strlen(opsl);

			snprintf(cpus + l, sizeof(cpus) - l, "%s%d", k ? "," : "", c->per[k].cpu_os);
			snprintf(opsl + m, sizeof(opsl) - m, "%s%.3gM", k ? "," : "", c->per[k].ops / 1e6);
		}
		flagged |= c->overlapped != 1;
		fprintf(f, "%-22s %-9s %-6s %-7s %8.2f %9.2f %8.2f %9.2f %8.2f %7s %6.3f %7.3f %8.3f %-13s %s%s\n",
			r->name, c->placement, c->sharing, cpus, result_cycles(rep, r->s.median),
			result_ns(rep, c->thread_ticks_per_op), result_cycles(rep, c->thread_ticks_per_op),
			result_ns(rep, c->aggregate_ticks_per_op), result_cycles(rep, c->aggregate_ticks_per_op), ratio,
			c->fairness_cv, c->overlap, c->cpu_wall_min, opsl, c->overlapped == 1 ? "" : "NOT-OVERLAPPED",
			r->migrated ? " MIGRATED" : "");
	}
	if (flagged)
		fprintf(f, "# NOT-OVERLAPPED: the threads' runs overlapped < %.0f%% or a thread ran"
			" < %.0f%% of its wall time: they did not really contend all the time\n",
			CONTENTION_OVERLAP_MIN * 100, CONTENTION_CPU_WALL_MIN * 100);
}
