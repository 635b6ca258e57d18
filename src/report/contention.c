/* SPDX-License-Identifier: MIT */
/* report/contention.c - the contention rows' table (sections.h): reads
 * results, never measures. */
#include <string.h>

#include "sections.h"

static json_t *cont_of(const struct result *r)
{
	return r->extra ? json_object_get(r->extra, "contention") : NULL;
}

bool contention_result(const struct result *r)
{
	return cont_of(r) != NULL;
}

static double jnum(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

void contention_write_text(const struct report *rep, FILE *f)
{
	bool header = false, flagged = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		json_t *c = cont_of(r), *per;
		double tpo, agg;
		char ratio[32] = "-", cpus[96] = "", opsl[160] = "";
		size_t k;
		json_t *pt;

		if (!c)
			continue;
		per = json_object_get(c, "per_thread");
		if (!header) {
			fprintf(f, "# contention: %d threads, %.2f s per case, "
				"cs-work %lld, outside-work %lld (work units ~ 1 cycle)\n",
				(int)jnum(c, "threads"), jnum(c, "duration_s"),
				(long long)json_integer_value(json_object_get(c, "cs_work")),
				(long long)json_integer_value(json_object_get(c, "outside_work")));
			fprintf(f, "# thread ns/op: a thread's run time / its ops (mean over threads);"
				" aggregate: union of the runs / all ops\n");
			fprintf(f, "# med cyc: median of the per-chunk samples (cycles/op while running);"
				" ratio: of those medians vs the twin in the same case\n");
			fprintf(f, "%-22s %-9s %-6s %-7s %8s %9s %8s %9s %8s %7s %6s %7s %8s %-13s %s\n",
				"probe", "placement", "share", "cpus", "med cyc", "thr ns/op", "thr cyc", "agg ns/op",
				"agg cyc", "ratio", "fair", "overlap", "cpu/wall", "ops/thread", "");
			header = true;
		}
		tpo = jnum(c, "thread_ticks_per_op");
		agg = jnum(c, "aggregate_ticks_per_op");
		if (r->has_ratio)
			snprintf(ratio, sizeof(ratio), "%.2f", r->ratio);
		json_array_foreach(per, k, pt) {
			size_t l = strlen(cpus), m = strlen(opsl);
			double ops = jnum(pt, "ops");

			snprintf(cpus + l, sizeof(cpus) - l, "%s%d", k ? "," : "",
				 (int)json_integer_value(json_object_get(pt, "cpu_os")));
			snprintf(opsl + m, sizeof(opsl) - m, "%s%.3gM", k ? "," : "", ops / 1e6);
		}
		if (!json_is_true(json_object_get(c, "overlapped")))
			flagged = true;
		fprintf(f, "%-22s %-9s %-6s %-7s %8.2f %9.2f %8.2f %9.2f %8.2f %7s %6.3f %7.3f %8.3f %-13s %s%s\n",
			r->name, json_string_value(json_object_get(c, "placement")),
			json_string_value(json_object_get(c, "sharing")), cpus,
			result_cycles(rep, r->s.median), result_ns(rep, tpo), result_cycles(rep, tpo), result_ns(rep, agg),
			result_cycles(rep, agg), ratio, jnum(c, "fairness_cv"), jnum(c, "overlap"),
			jnum(c, "cpu_wall_min"), opsl,
			json_is_true(json_object_get(c, "overlapped")) ? "" : "NOT-OVERLAPPED",
			r->migrated ? " MIGRATED" : "");
	}
	if (flagged)
		fprintf(f, "# NOT-OVERLAPPED: the threads' runs overlapped < %.0f%% or a thread ran"
			" < %.0f%% of its wall time: they did not really contend all the time\n",
			CONTENTION_OVERLAP_MIN * 100, CONTENTION_CPU_WALL_MIN * 100);
}
