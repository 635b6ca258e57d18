/* SPDX-License-Identifier: MIT */
/* report/contention.c - the contention rows' table and, for a sweep
 * (--threads 1,2,4), one table and chart per probe (sections.h): reads
 * results, never measures. */
#include <math.h>
#include <string.h>

#include "sections.h"

#define SWEEP_BAR 40

/* The threads' CPU time over their ops, ns (lockhammer's cpu_ns/lock):
 * time a thread spent descheduled does not count. NAN: not recorded. */
static double cpu_ns_per_op(const struct contention_part *c)
{
	double cpu = 0, ops = 0;

	for (size_t k = 0; k < c->nper; k++) {
		cpu += c->per[k].cpu_s;
		ops += (double)c->per[k].ops;
	}
	return ops > 0 && cpu > 0 ? cpu * 1e9 / ops : NAN;
}

/* The cpu ns/op cell: "-" where the threads' CPU time was not recorded. */
static void cpu_ns_text(const struct contention_part *c, char *buf, size_t len)
{
	double v = cpu_ns_per_op(c);

	snprintf(buf, len, isnan(v) ? "-" : "%.1f", v);
}

/* The row's sharing case without the sweep point ("true-share@2t" ->
 * "true-share"), for grouping the points of one probe. */
static size_t case_len(const char *pattern)
{
	const char *at = strchr(pattern, '@');

	return at ? (size_t)(at - pattern) : strlen(pattern);
}

static bool same_group(const struct result *a, const struct contention_part *ca,
		       const struct result *b, const struct contention_part *cb)
{
	return !strcmp(a->name, b->name) && case_len(a->pattern) == case_len(b->pattern) &&
	       !strncmp(a->pattern, b->pattern, case_len(a->pattern)) && ca->cs_work == cb->cs_work &&
	       ca->outside_work == cb->outside_work && !strcmp(ca->placement, cb->placement);
}

size_t contention_sweep_group(const struct report *rep, size_t i, size_t *members, size_t max)
{
	const struct contention_part *c = result_contention(&rep->r[i]), *cj;
	size_t m = 0;

	if (!c)
		return 0;
	for (size_t j = 0; j < i; j++)
		if ((cj = result_contention(&rep->r[j])) && same_group(&rep->r[i], c, &rep->r[j], cj))
			return 0;	/* not the group's first row */
	for (size_t j = i; j < rep->n && m < max; j++)
		if ((cj = result_contention(&rep->r[j])) && same_group(&rep->r[i], c, &rep->r[j], cj))
			members[m++] = j;
	return m >= 2 ? m : 0;
}

void contention_handover_text(const struct contention_part *c, char *ho, char *qd, size_t len)
{
	snprintf(ho, len, "-");
	snprintf(qd, len, "-");
	if (c->has & 1u << CP_HANDOVER_SHARE)
		snprintf(ho, len, "%.3f", c->handover_share);
	if (c->has & 1u << CP_QUEUE_DEPTH)
		snprintf(qd, len, "%.2f", c->queue_depth);
}

/* For each probe, sharing case and work point measured at two thread
 * counts or more: cost per op and throughput against threads, and a bar
 * of the aggregate cost. */
static void sweep_write_text(const struct report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct contention_part *c = result_contention(&rep->r[i]);
		size_t members[CONTENTION_SWEEP_MAX], m = contention_sweep_group(rep, i, members,
										CONTENTION_SWEEP_MAX);
		double top = 0;

		if (!m)
			continue;
		for (size_t k = 0; k < m; k++)
			top = fmax(top, result_contention(&rep->r[members[k]])->aggregate_ns_per_op);
		fprintf(f, "\n# %s, %.*s sharing, %s, cs-work %lld, outside-work %lld: against threads\n",
			rep->r[i].name, (int)case_len(rep->r[i].pattern), rep->r[i].pattern, c->placement,
			c->cs_work, c->outside_work);
		fprintf(f, "%7s %8s %9s %9s %9s %8s %7s %6s %6s  %-*s\n", "threads", "med cyc",
			"agg ns/op", "Mops/s", "cpu ns/op", "max/min", "fair", "h-o", "qdepth", SWEEP_BAR,
			"agg ns/op (chart)");
		for (size_t k = 0; k < m; k++) {
			const struct result *r = &rep->r[members[k]];
			const struct contention_part *p = result_contention(r);
			int bar = top > 0 ? (int)lround(SWEEP_BAR * p->aggregate_ns_per_op / top) : 0;
			char ho[16], qd[16], cpu[16];

			contention_handover_text(p, ho, qd, sizeof(ho));
			cpu_ns_text(p, cpu, sizeof(cpu));
			fprintf(f, "%7d %8.2f %9.2f %9.2f %9s %8.2f %7.3f %6s %6s  %-*.*s%s%s\n", p->threads,
				result_cycles(rep, r->s.median), p->aggregate_ns_per_op,
				p->aggregate_ns_per_op > 0 ? 1e3 / p->aggregate_ns_per_op : 0,
				cpu, contention_max_min(p), p->fairness_cv, ho, qd, SWEEP_BAR, bar,
				"########################################",
				p->overlapped == 1 || p->threads < 2 ? "" : " NOT-OVERLAPPED",
				contention_unfair(p) ? " UNFAIR" : "");
		}
	}
}

const char *const contention_notes[CONTENTION_NOTES] = {
	"thread ns/op: a thread's run time / its ops (mean over threads); aggregate: union of the runs / all ops",
	"cpu ns/op: the threads' CPU time / their ops (lockhammer's cpu_ns/lock); max/min: most ops of a "
	"thread over the fewest",
	"med cyc: median of the per-chunk samples (cycles/op while running); ratio: of those medians vs the "
	"twin in the same case",
	"h-o: share of a lock's acquisitions whose previous holder was another thread; qdepth: mean threads "
	"waiting at an acquisition (queued locks); both from an instrumented pass on the same CPUs after the "
	"timed one",
};

const char *contention_head_text(const struct contention_part *c, char *buf, size_t len)
{
	snprintf(buf, len, "contention: %.2f s per case, cs-work %lld, outside-work %lld (work units ~ 1 cycle; "
		 "a sweep's rows name their point after '@' in the pattern)", c->duration_s, c->cs_work,
		 c->outside_work);
	return buf;
}

const char *contention_overlap_note(char *buf, size_t len)
{
	snprintf(buf, len, "NOT-OVERLAPPED: the threads' runs overlapped < %.0f%% or a thread ran < %.0f%% of its "
		 "wall time: they did not really contend all the time", CONTENTION_OVERLAP_MIN * 100,
		 CONTENTION_CPU_WALL_MIN * 100);
	return buf;
}

const char *contention_unfair_note(char *buf, size_t len)
{
	snprintf(buf, len, "UNFAIR: one thread did over %.0fx the ops of another: the row's figure is mostly "
		 "the faster thread's", CONTENTION_UNFAIR_MAX_MIN);
	return buf;
}

void contention_cells(const struct report *rep, const struct result *r, struct contention_cells *x)
{
	const struct contention_part *c = result_contention(r);

	memset(x, 0, sizeof(*x));
	snprintf(x->ratio, sizeof(x->ratio), "-");
	if (r->has_ratio)
		snprintf(x->ratio, sizeof(x->ratio), "%.2f", r->ratio);
	for (unsigned k = 0; k < c->nper; k++) {
		size_t l = strlen(x->cpus), m = strlen(x->ops);

		snprintf(x->cpus + l, sizeof(x->cpus) - l, "%s%d", k ? "," : "", c->per[k].cpu_os);
		snprintf(x->ops + m, sizeof(x->ops) - m, "%s%.3gM", k ? "," : "", c->per[k].ops / 1e6);
	}
	x->med_cyc = result_cycles(rep, r->s.median);
	x->thr_ns = result_ns(rep, c->thread_ticks_per_op);
	x->thr_cyc = result_cycles(rep, c->thread_ticks_per_op);
	x->agg_ns = result_ns(rep, c->aggregate_ticks_per_op);
	x->agg_cyc = result_cycles(rep, c->aggregate_ticks_per_op);
	cpu_ns_text(c, x->cpu_ns, sizeof(x->cpu_ns));
	x->max_min = contention_max_min(c);
	contention_handover_text(c, x->ho, x->qd, sizeof(x->ho));
	x->not_overlapped = c->overlapped != 1;
	x->unfair = contention_unfair(c);
}

void contention_write_text(const struct report *rep, FILE *f)
{
	bool header = false, flagged = false, unfair = false;
	char note[256];

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const struct contention_part *c = result_contention(r);
		struct contention_cells x;

		if (!c)
			continue;
		if (!header) {
			fprintf(f, "# %s\n", contention_head_text(c, note, sizeof(note)));
			for (size_t k = 0; k < CONTENTION_NOTES; k++)
				fprintf(f, "# %s\n", contention_notes[k]);
			fprintf(f, "%-22s %-9s %-6s %3s %-7s %8s %9s %8s %9s %8s %9s %7s %6s %7s %6s %6s %7s "
				"%8s %-13s %s\n",
				"probe", "placement", "share", "thr", "cpus", "med cyc", "thr ns/op", "thr cyc",
				"agg ns/op", "agg cyc", "cpu ns/op", "ratio", "fair", "max/min", "h-o", "qdepth",
				"overlap", "cpu/wall", "ops/thread", "");
			header = true;
		}
		contention_cells(rep, r, &x);
		flagged |= x.not_overlapped;
		unfair |= x.unfair;
		fprintf(f, "%-22s %-9s %-6s %3d %-7s %8.2f %9.2f %8.2f %9.2f %8.2f %9s %7s %6.3f %7.2f %6s %6s "
			"%7.3f %8.3f %-13s %s%s%s\n",
			r->name, c->placement, c->sharing, c->threads, x.cpus, x.med_cyc, x.thr_ns, x.thr_cyc,
			x.agg_ns, x.agg_cyc, x.cpu_ns, x.ratio, c->fairness_cv, x.max_min, x.ho, x.qd, c->overlap,
			c->cpu_wall_min, x.ops, x.not_overlapped ? "NOT-OVERLAPPED" : "", x.unfair ? " UNFAIR" : "",
			r->migrated ? " MIGRATED" : "");
	}
	if (flagged)
		fprintf(f, "# %s\n", contention_overlap_note(note, sizeof(note)));
	if (unfair)
		fprintf(f, "# %s\n", contention_unfair_note(note, sizeof(note)));
	sweep_write_text(rep, f);
}
