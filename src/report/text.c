/* SPDX-License-Identifier: MIT */
/* report/text.c - the aligned table printed on a terminal; a default
 * characterization (meta.characterization) starts with its machine card,
 * whether it comes from `atomcost run` or from `atomcost report X.json`. */
#include <math.h>
#include <string.h>

#include "card.h"
#include "compare.h"
#include "report.h"
#include "sections.h"

/* How the verdicts were reached, once above the table. */
static void verdict_rule(FILE *f)
{
	fprintf(f, "# vs: the row against its twin over the epochs (paired, each epoch fresh buffers, pinning and calibration): slower/faster when the 95%% interval of the ratio lies beyond the margin (%.0f%% or %.2f cycles, whichever is larger), same when the 90%% interval lies inside it (equivalence), else unresolved; analogs get none\n",
		JUDGE_MARGIN_REL * 100, JUDGE_MARGIN_ABS);
}

static const struct result_event *find_event(const struct result *r, const char *name)
{
	for (unsigned k = 0; k < r->nevents; k++)
		if (!strcmp(r->events[k].name, name))
			return &r->events[k];
	return NULL;
}

/* Events counted around the samples (pmu.c): hardware events per op
 * (median), software events per sample (mean). An event that could not be
 * counted is n/a with its reason, never 0. */
static void write_events(const struct report *rep, FILE *f)
{
	const struct result *cols = NULL;
	int w[RESULT_MAX_EVENTS];

	for (size_t i = 0; i < rep->n && !cols; i++)
		if (rep->r[i].nevents)
			cols = &rep->r[i];
	if (!cols)
		return;
	fprintf(f, "\n# events: hardware events per op (median), software events per sample (mean; "
		   "task-clock in ns), the median over the epochs; disturbed: samples with a context switch "
		   "or migration, over all epochs\n");
	fprintf(f, "%-20s %-7s %-10s %-11s", "probe", "pattern", "mode", "disturbed");
	for (unsigned k = 0; k < cols->nevents; k++) {
		int len = (int)strlen(cols->events[k].name);

		w[k] = len > 17 ? len : 17;
		fprintf(f, " %*s", w[k], cols->events[k].name);
	}
	fputc('\n', f);
	/* one line per row: with epochs, its disturbed samples summed and
	 * each event's median over the epochs */
	for (size_t i = 0; i < rep->n; i++) {
		static const struct result *g[1000];
		const struct result *r = &rep->r[i];
		size_t n = compare_group(rep, i, g, 1000), ns = 0;
		long dist = 0;
		char cell[48];

		if (!r->nevents || !compare_group_first(rep, i))
			continue;
		for (size_t j = 0; j < n; j++) {
			dist = dist < 0 || g[j]->disturbed < 0 ? -1 : dist + g[j]->disturbed;
			ns += g[j]->nsamples;
		}
		if (dist < 0)
			snprintf(cell, sizeof(cell), "unknown");
		else
			snprintf(cell, sizeof(cell), "%ld/%zu", dist, ns);
		fprintf(f, "%-20s %-7s %-10s %-11s", r->name, r->pattern, probe_mode_name(r->mode), cell);
		for (unsigned k = 0; k < cols->nevents; k++) {
			const struct result_event *e = find_event(r, cols->events[k].name);
			double v[1000];

			if (!e)
				snprintf(cell, sizeof(cell), "-");
			else if (!e->available)
				snprintf(cell, sizeof(cell), "n/a (%s)", e->why);
			else {
				size_t m = 0;

				for (size_t j = 0; j < n; j++) {
					const struct result_event *x = find_event(g[j], e->name);

					if (x && x->available)
						v[m++] = x->per_op ? x->median : x->mean;
				}
				snprintf(cell, sizeof(cell), "%.4g", stats_median(v, m));
			}
			fprintf(f, " %*s", w[k], cell);
		}
		fputc('\n', f);
	}
	/* each distinct reason once */
	for (size_t i = 0; i < rep->n; i++)
		for (unsigned k = 0; k < rep->r[i].nevents; k++) {
			const struct result_event *e = &rep->r[i].events[k];
			bool seen = false;

			if (e->available)
				continue;
			for (size_t j = 0; j <= i && !seen; j++)
				for (unsigned l = 0; l < rep->r[j].nevents && !seen; l++) {
					const struct result_event *p = &rep->r[j].events[l];

					if (p == e)
						break;
					seen = !p->available && !strcmp(p->name, e->name) &&
					       !strcmp(p->reason, e->reason);
				}
			if (!seen)
				fprintf(f, "# %s: n/a (%s)\n", e->name, e->reason);
		}
}

/* With epochs: one row per probe, pattern and mode, so the table stays as
 * long as with one. median: median of the epoch medians; ratio: geometric
 * mean of the epoch ratios and its 95% interval (stats_judge); spread:
 * relative sd of the row's epoch medians, the noise compare works with. */
static void write_epochs(const struct report *rep, FILE *f)
{
	static const struct result *g[1000];

	fprintf(f, "# %d epochs: median of epoch medians; ratio to twin over the epochs [95%% interval]; spread = sd/mean of the epoch medians\n",
		compare_max_epoch(rep));
	verdict_rule(f);
	fprintf(f, "%-20s %-20s %-7s %-10s %8s %8s %8s %8s %7s %-17s %-28s %6s %7s\n",
		"probe", "twin", "pattern", "mode", "cyc min", "median", "p90", "ns", "ratio",
		"[95% CI]", "vs", "spread", "samples");
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		double med[1000], p90[1000], mn = INFINITY, m;
		size_t n, ns = 0;
		char ratio[16] = "-", ci[32] = "", vs[48];

		if (!compare_group_first(rep, i))
			continue;
		n = compare_group(rep, i, g, 1000);
		for (size_t k = 0; k < n; k++) {
			med[k] = g[k]->s.median;
			p90[k] = g[k]->s.p90;
			mn = fmin(mn, g[k]->s.min);
			ns += g[k]->nsamples;
		}
		m = stats_median(med, n);
		if (r->has_ratio && isfinite(r->judge.ratio)) {
			snprintf(ratio, sizeof(ratio), "%.2f", r->judge.ratio);
			if (isfinite(r->judge.lo))
				snprintf(ci, sizeof(ci), "[%.2f,%.2f]", r->judge.lo, r->judge.hi);
		}
		result_judgment_text(r, vs, sizeof(vs));
		fprintf(f, "%-20s %-20s %-7s %-10s %8.2f %8.2f %8.2f %8.3f %7s %-17s %-28s %5.1f%% %7zu",
			r->name, r->twin[0] ? r->twin : "-", r->pattern, probe_mode_name(r->mode),
			result_cycles(rep, mn), result_cycles(rep, m), result_cycles(rep, stats_median(p90, n)),
			result_ns(rep, m), ratio, ci, vs, isfinite(r->epoch_spread) ? r->epoch_spread * 100 : 0.0, ns);
		if (r->footprint_lines)	/* the first epoch's best footprint */
			fprintf(f, " [%uw x %ul]", r->footprint_words, r->footprint_lines);
		fputc('\n', f);
	}
}

/* The engine's checks on a row (runner.c): a minimum below its physical
 * bound is shown as "!" and said, not printed as a figure; the footprint
 * a swept throughput was best at; an implausible overhead. */
static void engine_cells(const struct report *rep, const struct result *r, char *mincell,
			 size_t mlen, char *flags, size_t flen)
{
	size_t k = 0;

	flags[0] = '\0';
	if (r->min_flag) {
		snprintf(mincell, mlen, "!");
		k += (size_t)snprintf(flags + k, flen - k, " [min %.2f below bound %.2f]",
				      result_cycles(rep, r->s.min), result_cycles(rep, r->min_bound_ticks));
	} else {
		snprintf(mincell, mlen, "%.2f", result_cycles(rep, r->s.min));
	}
	if (r->footprint_lines && k < flen)
		k += (size_t)snprintf(flags + k, flen - k, " [%uw x %ul]", r->footprint_words,
				      r->footprint_lines);
	if (r->overhead_flag && k < flen)
		snprintf(flags + k, flen - k, " [overhead? fixed %.0f, N/2N %.0f ticks]",
			 r->overhead_ticks, r->overhead_extrap_ticks);
}

/* Throughput over footprints: median cycles per op at each, one line per
 * words-per-line count, the row's figure being the lowest. */
static void write_sweeps(const struct report *rep, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		unsigned w = 0;

		if (!r->nsweep || result_epoch(r) > 1)	/* with epochs: the first one's */
			continue;
		if (!head)
			fprintf(f, "\n# throughput over footprints: median cycles per op, W words on each of "
				   "L lines, cycled (wW  L:cycles; the row above is the lowest)\n");
		head = true;
		for (unsigned k = 0; k < r->nsweep; k++) {
			if (r->sweep[k].words != w) {
				w = r->sweep[k].words;
				fprintf(f, "%s%-20s %-7s w%-2u", k ? "\n" : "", k ? "" : r->name,
					k ? "" : r->pattern, w);
			}
			fprintf(f, " %2u:%.2f", r->sweep[k].lines, result_cycles(rep, r->sweep[k].median));
		}
		fputc('\n', f);
	}
}

int report_write_text(const struct report *rep, FILE *f)
{
	const struct calibration *c = &rep->cal;

	/* what a person reads first */
	if (json_object_get(rep->meta, "characterization") && rep->n) {
		int err = card_write_text(rep, f);

		if (err)
			return err;
		fputc('\n', f);
	}
	fprintf(f, "# atomcost: core %.3f GHz (timer %.4f GHz, %.4f ticks/cycle, %s)\n",
		c->core_hz / 1e9, c->timer_hz / 1e9, c->ticks_per_cycle, c->cycle_source);
	if (rep->pmu_ticks_per_cycle > 0)
		fprintf(f, "# cycles: PMU cycles event %.4f ticks/cycle, add chain %.4f: agree within %.2f%%\n",
			rep->pmu_ticks_per_cycle, rep->chain_ticks_per_cycle, rep->cycle_agreement * 100);
	if (rep->topo_summary[0])
		fprintf(f, "# topology: %s\n", rep->topo_summary);
	clock_print_self_checks(c, f, "# self-checks: ");
	fprintf(f, "# ns: wall time per op at the calibrated core clock (%.3f GHz), not at the clock of the moment\n",
		c->core_hz / 1e9);
	if (rep->partial)
		fprintf(f, "# PARTIAL: %s: results below are what was measured before it stopped\n",
			rep->partial_reason);
	if (compare_max_epoch(rep) > 1) {
		write_epochs(rep, f);
		write_sweeps(rep, f);
		write_events(rep, f);
		return 0;
	}
	/* contention results (threads > 1) have their own table */
	for (size_t i = 0; i < rep->n; i++)
		if (!contention_result(&rep->r[i])) {
			verdict_rule(f);
			fprintf(f, "%-20s %-20s %-7s %-10s %8s %8s %8s %8s %7s %-17s %-28s %7s\n",
				"probe", "twin", "pattern", "mode", "cyc min", "median", "p90", "ns",
				"ratio", "[95% CI]", "vs", "samples");
			break;
		}
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		char ratio[16] = "-", ci[32] = "", vs[48], mincell[16], flags[160];

		if (contention_result(r))
			continue;
		result_judgment_text(r, vs, sizeof(vs));
		if (r->has_ratio) {
			snprintf(ratio, sizeof(ratio), "%.2f", r->ratio);
			snprintf(ci, sizeof(ci), "[%.2f,%.2f]", r->ratio_lo, r->ratio_hi);
		}
		engine_cells(rep, r, mincell, sizeof(mincell), flags, sizeof(flags));
		fprintf(f, "%-20s %-20s %-7s %-10s %8s %8.2f %8.2f %8.3f %7s %-17s %-28s %7zu%s%s%s\n",
			r->name, r->twin[0] ? r->twin : "-", r->pattern, probe_mode_name(r->mode),
			mincell, result_cycles(rep, r->s.median),
			result_cycles(rep, r->s.p90), result_ns(rep, r->s.median), ratio, ci,
			vs, r->nsamples, r->migrated ? " MIGRATED" : "",
			r->ci_reached ? "" : " (CI target not reached)", flags);
	}
	write_sweeps(rep, f);
	contention_write_text(rep, f);
	write_events(rep, f);
	return 0;
}
