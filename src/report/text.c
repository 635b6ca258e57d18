/* SPDX-License-Identifier: MIT */
/* report/text.c - the aligned table printed on a terminal; a default
 * characterization (meta.characterization) starts with its machine card,
 * whether it comes from `atomcost run` or from `atomcost report X.json`. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "card.h"
#include "compare.h"
#include "report.h"
#include "sections.h"

/* How the verdicts were reached, then the table's head (spread: with epochs). */
static void table_head(bool spread, FILE *f)
{
	fprintf(f, "# vs: the row against its twin over the epochs (paired, each epoch fresh buffers, pinning and calibration): slower/faster when the 95%% interval of the ratio lies beyond the margin (%.0f%% or %.2f cycles, whichever is larger), same when the 90%% interval lies inside it (equivalence), else unresolved; analogs get none\n",
		JUDGE_MARGIN_REL * 100, JUDGE_MARGIN_ABS);
	fprintf(f, "# [N states: v (share) ...]: the samples hold N steady states, cycles and share of the samples (docs/card.md, states): the median moves with the mix, compare state by state\n");
	fprintf(f, "%-20s %-20s %-7s %-10s %8s %8s %8s %8s %7s %-17s %-28s %s%7s\n", "probe",
		"twin", "pattern", "mode", "cyc min", "median", "p90", "ns", "ratio", "[95% CI]",
		"vs", spread ? "spread " : "", "samples");
}

static const struct result_event *find_event(const struct result *r, const char *name)
{
	for (unsigned k = 0; k < r->nevents; k++)
		if (!strcmp(r->events[k].name, name))
			return &r->events[k];
	return NULL;
}

/* One event's cell of a row over its epochs g[0..n): the median of the
 * epochs' figures, "n/a (why)" or "-". */
static void event_cell(const struct result *r, const struct result *const *g, size_t n, const char *name,
		       char *cell, size_t len)
{
	const struct result_event *e = find_event(r, name);
	double v[1000];
	size_t m = 0;

	if (!e) {
		snprintf(cell, len, "-");
		return;
	}
	if (!e->available) {
		snprintf(cell, len, "n/a (%s)", e->why);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		const struct result_event *x = find_event(g[j], e->name);

		if (x && x->available)
			v[m++] = x->per_op ? x->median : x->mean;
	}
	snprintf(cell, len, "%.4g", stats_median(v, m));
}

/* The first event of rep not counted with e's name and reason. */
static const struct result_event *first_reason(const struct report *rep, const struct result_event *e)
{
	for (size_t i = 0; i < rep->n; i++)
		for (unsigned k = 0; k < rep->r[i].nevents; k++) {
			const struct result_event *p = &rep->r[i].events[k];

			if (!p->available && !strcmp(p->name, e->name) && !strcmp(p->reason, e->reason))
				return p;
		}
	return e;
}

/* Each distinct reason an event could not be counted, once. */
static void event_reasons(const struct report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->n; i++)
		for (unsigned k = 0; k < rep->r[i].nevents; k++) {
			const struct result_event *e = &rep->r[i].events[k];

			if (!e->available && first_reason(rep, e) == e)
				fprintf(f, "# %s: n/a (%s)\n", e->name, e->reason);
		}
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
		size_t n = compare_group(rep, i, g, 1000);
		struct report_row row;
		char cell[48];

		if (!r->nevents || !compare_group_first(rep, i))
			continue;
		report_row(rep, i, &row);
		snprintf(cell, sizeof(cell), row.disturbed < 0 ? "unknown" : "%ld/%zu", row.disturbed, row.samples);
		fprintf(f, "%-20s %-7s %-10s %-11s", r->name, r->pattern, probe_mode_name(r->mode), cell);
		for (unsigned k = 0; k < cols->nevents; k++) {
			event_cell(r, g, n, cols->events[k].name, cell, sizeof(cell));
			fprintf(f, " %*s", w[k], cell);
		}
		fputc('\n', f);
	}
	event_reasons(rep, f);
}

/* A kernel row's context, the analog it sits beside and its note (an
 * emulated row says so); a user-space row's nothing. */
static const char *context_cell(const struct report *rep, const struct result *r, char *buf, size_t len)
{
	bool note = r->extra.has & 1u << RX_NOTE;

	buf[0] = '\0';
	if (r->context == RESULT_KERNEL)
		snprintf(buf, len, " [kernel%s%s%s%s]", r->user_analog[0] ? ", beside " : "", r->user_analog,
			 note ? ": " : "", note ? r->extra.note : "");
	else if (report_row_emulated(rep, r))
		snprintf(buf, len, " [user: " RESULT_EMULATED_NOTE "]");
	return buf;
}

/* One line of the table. With epochs (w: the row over them): the median
 * of the epoch medians, the ratio to the twin over the epochs (the
 * geometric mean of the epoch ratios and its 95% interval, stats_judge)
 * and the spread (relative sd of the epoch medians, the noise compare
 * works with); else the result's own figures, its ratio in the epoch and
 * the engine's checks. */
static void write_row(const struct report *rep, const struct result *r, const struct report_row *w, FILE *f)
{
	double ratio = w ? r->judge.ratio : r->ratio, lo = w ? r->judge.lo : r->ratio_lo;
	double hi = w ? r->judge.hi : r->ratio_hi, med = w ? w->median : r->s.median;
	char rc[16] = "-", ci[32] = "", vs[48], mincell[16], spread[16] = "", flags[288], ctx[360];
	char bound[96] = "", fp[48] = "", ovh[96] = "", st[96], states[112] = "";
	const struct mixture *mix;

	if (r->has_ratio && isfinite(ratio)) {
		snprintf(rc, sizeof(rc), "%.2f", ratio);
		if (isfinite(lo))
			snprintf(ci, sizeof(ci), "[%.2f,%.2f]", lo, hi);
	}
	result_judgment_text(r, vs, sizeof(vs));
	/* the engine's checks (runner.c): "!" and why for a minimum below its
	 * physical bound, an implausible overhead, a sweep's best footprint */
	snprintf(mincell, sizeof(mincell), !w && r->min_flag ? "!" : "%.2f",
		 result_cycles(rep, w ? w->min : r->s.min));
	if (!w && r->min_flag)
		snprintf(bound, sizeof(bound), " [min %.2f below bound %.2f]",
			 result_cycles(rep, r->s.min), result_cycles(rep, r->min_bound_ticks));
	if (!w && r->overhead_flag)
		snprintf(ovh, sizeof(ovh), " [overhead? fixed %.0f, N/2N %.0f ticks]",
			 r->overhead_ticks, r->overhead_extrap_ticks);
	if (r->footprint_lines)
		snprintf(fp, sizeof(fp), " [%uw x %ul]", r->footprint_words, r->footprint_lines);
	if (w)
		snprintf(spread, sizeof(spread), "%5.1f%% ", isfinite(r->epoch_spread) ? r->epoch_spread * 100 : 0.0);
	mix = w ? &w->mix : &r->extra.mix;
	if (mix->nstates > 1)	/* a median that moves with the mix: say the states */
		snprintf(states, sizeof(states), " [%zu states: %s]", mix->nstates,
			 stats_mixture_text(mix, 1 / rep->cal.ticks_per_cycle, st, sizeof(st)));
	snprintf(flags, sizeof(flags), "%s%s%s%s", bound, fp, ovh, states);
	fprintf(f, "%-20s %-20s %-7s %-10s %8s %8.2f %8.2f %8.3f %7s %-17s %-28s %s%7zu%s%s%s%s\n", r->name,
		r->twin[0] ? r->twin : "-", r->pattern, probe_mode_name(r->mode), mincell, result_cycles(rep, med),
		result_cycles(rep, w ? w->p90 : r->s.p90), result_ns(rep, med), rc, ci, vs, spread,
		w ? w->samples : r->nsamples, !w && r->migrated ? " MIGRATED" : "",
		w || r->ci_reached ? "" : " (CI target not reached)", flags, context_cell(rep, r, ctx, sizeof(ctx)));
}

/* The table: with epochs one line per row over them, so that it stays as
 * long as with one; else one per result, the contention results (threads
 * > 1) left to their own table. */
static void write_table(const struct report *rep, bool epochs, FILE *f)
{
	bool head = false;

	if (epochs)
		fprintf(f, "# %d epochs: median of epoch medians; ratio to twin over the epochs [95%% interval]; spread = sd/mean of the epoch medians\n",
			compare_max_epoch(rep));
	for (size_t i = 0; i < rep->n; i++) {
		struct report_row w;

		if (epochs ? !compare_group_first(rep, i) : result_contention(&rep->r[i]) != NULL)
			continue;
		if (!head)
			table_head(epochs, f);
		head = true;
		if (epochs)
			report_row(rep, i, &w);
		write_row(rep, &rep->r[i], epochs ? &w : NULL, f);
	}
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

/* ---- the machine card: formats what card_build computed ---------------- */

/* The levels and how they were measured, each size's range over the epochs. */
static void write_levels(const struct card *c, FILE *f)
{
	const struct hierarchy_section *h = c->hier;
	bool huge = h->pages.page_bytes >= 1 << 21;
	int epochs = h->has & 1u << HS_EPOCHS ? h->epochs : 0;
	const char *why = h->pages.has & 1u << HPG_SOURCE ? h->pages.source : "?";	/* no huge pages */
	char a[96], b[32];

	fprintf(f, "caches   ");
	for (unsigned i = 0; i < c->nstep; i++)
		fprintf(f, " %s%s", i ? "| " : "", card_step_text(&c->step[i], a, sizeof(a)));
	if (!epochs) {
		fprintf(f, " (measured)\n");
		return;
	}
	fprintf(f, " (measured: %d epoch%s, %s pages%s%s)\n", epochs, epochs == 1 ? "" : "s",
		huge ? "2 MiB" : "4 KiB", huge ? "" : ": huge pages not had, ",
		huge ? "" : why);
	fprintf(f, "          sizes over the epochs:");
	for (size_t i = 0; i < h->nlevels; i++) {
		const struct hier_level_out *l = &h->levels[i];

		if (!(l->size_min > 0))
			continue;
		card_size_text((double)l->size_min, a, sizeof(a));
		card_size_text(l->size_max > 0 ? (double)l->size_max : 0, b, sizeof(b));
		fprintf(f, "%s %s %s%s%s", i ? "," : "", hier_level_name(l), a,
			strcmp(a, b) ? "-" : "", strcmp(a, b) ? b : "");
	}
	fputc('\n', f);
}

/* The measured hierarchy: the levels, an L3 smaller than declared as the
 * effective share, and TLB reach apart. */
static void write_caches(const struct card *c, FILE *f)
{
	const struct hierarchy_section *h = c->hier;
	char a[32], b[32];

	if (!h || !h->nlevels) {
		fprintf(f, "caches    measured hierarchy not in this report\n");
		return;
	}
	write_levels(c, f);
	for (size_t i = 0; i < h->nlevels; i++) {
		const struct hier_level_out *l = &h->levels[i];

		card_size_text((double)l->size_bytes, a, sizeof(a));
		card_size_text((double)l->hwloc_size, b, sizeof(b));
		if (l->hwloc_size > 0 && l->effective_share)
			fprintf(f, "          %s effective share about %s of %s declared: shared with other %s\n",
				hier_level_name(l), a, b, c->machine.vm > 0 ? "tenants" : "cores");
		else if (l->hwloc_size > 0 && hier_level_disagrees(l))
			fprintf(f, "          warning: hwloc declares %s = %s, measured about %s: the patterns use "
				"the measured size\n", hier_level_name(l), b, a);
	}
	if (h->tlb.has && h->tlb.reach_bytes > 0)
		fprintf(f, "          TLB reach about %s (4 KiB pages cost more past it; not a cache level)\n",
			card_size_text((double)h->tlb.reach_bytes, a, sizeof(a)));
	else if (h->tlb.has)
		fprintf(f, "          TLB: 4 KiB and 2 MiB pages walk alike up to %s (huge pages "
			"did not move the staircase here)\n",
			card_size_text((double)h->tlb.compared_to_bytes, a, sizeof(a)));
}

static void write_machine(const struct report *rep, const struct card *c, FILE *f)
{
	const struct card_machine *m = &c->machine;
	char why[160];

	fprintf(f, "machine   %s (family %s model %s, microcode %s)\n", m->cpu, m->family, m->model,
		m->microcode);
	fprintf(f, "          %s %s, %s, %s\n", m->sysname, m->release, card_vm_text(m->vm),
		rep->topo_summary[0] ? rep->topo_summary : "topology unknown");
	clock_print_core(&rep->cal, f, "core      ");
	fprintf(f, "clock     core %.3f GHz, cycles: %s; %s%s%s\n", rep->cal.core_hz / 1e9,
		rep->cal.cycle_source[0] ? rep->cal.cycle_source : "?",
		rep->cal.trustworthy ? "calibration trustworthy" : "CALIBRATION NOT TRUSTWORTHY",
		rep->cal.trustworthy ? "" : ": ", card_cal_why(&rep->cal, why, sizeof(why)));
	write_caches(c, f);
}

static void write_atomicity(const struct card *c, FILE *f)
{
	if (!c->pair_atomic) {
		fprintf(f, "atomicity not measured (no atomic/non-atomic twin pair in this report)\n");
		return;
	}
	fprintf(f, "atomicity %s (%s) against %s (%s): they differ in %s\n", c->pair_atomic, c->atomic_insn,
		c->pair_plain, c->plain_insn, c->differs);
	if (c->lock_plain)
		fprintf(f, "          split: lock = %s against %s (the same op unlocked); insn = %s against %s\n",
			c->pair_atomic, c->lock_plain, c->lock_plain, c->pair_plain);
	fprintf(f, "          cycles per op, medians of %u epoch%s; slower/faster beyond %.0f%% or %.2f cycles, "
		   "same only by equivalence\n", c->epochs, c->epochs == 1 ? "" : "s", JUDGE_MARGIN_REL * 100,
		JUDGE_MARGIN_ABS);
	fprintf(f, "  %-33s %9s %9s  %-22s %-14s %-20s %s\n", "where", "atomic", "plain", "difference [95% CI]",
		"verdict", c->lock_plain ? "lock's part" : "", c->lock_plain ? "insn's part" : "");
	for (unsigned i = 0; i < c->ncmp; i++) {
		const struct card_cmp *k = &c->cmp[i];
		char d[48], v[32], l[32], s[32];

		if (!k->pair.a) {
			fprintf(f, "  %-33s not measured\n", k->what);
			continue;
		}
		fprintf(f, "  %-33s %9.2f %9.2f  %-22s %-14s %-20s %s\n", k->what, k->pair.a_cyc, k->pair.b_cyc,
			card_diff_cell(&k->pair, d, sizeof(d)), card_part_word(&k->pair, v, sizeof(v)),
			c->lock_plain ? card_part_cell(&k->lock, l, sizeof(l)) : "",
			c->lock_plain ? card_part_cell(&k->insn, s, sizeof(s)) : "");
	}
	/* which step of the staircase each walk covered: a walk sized from a
	 * declared L3 can land in a shelf, or between two steps */
	for (unsigned i = 0; i < c->nwalk; i++) {
		char b[32];

		fprintf(f, "%s%s walk %s in %s%s", i ? "" : "          ", c->walk[i].label,
			card_size_text((double)c->walk[i].bytes, b, sizeof(b)), c->walk[i].step ?: "?",
			i + 1 < c->nwalk ? ", " : "\n");
	}
}

/* Whether the run was quiet enough, what it did about it, and what it
 * left unresolved. */
static void write_noise(const struct card *c, FILE *f)
{
	bool disturbed = c->disturbed_epochs > 0;
	bool drifted = c->chained && (double)c->drifted > CARD_DRIFTED * (double)c->chained;
	char load[512];

	fprintf(f, "noise     %u epoch%s, each with fresh buffers, pinning and calibration; ", c->epochs,
		c->epochs == 1 ? "" : "s");
	if (disturbed)
		fprintf(f, "DISTURBED: in %u the thread had its CPU under %.0f%% of the time (lowest %.0f%%) or "
			   "over %.0f%% of the samples saw a context switch (worst %.0f%%)", c->disturbed_epochs,
			CARD_CPU_SHARE * 100, c->cpu_share * 100, CARD_DISTURBED * 100, c->disturbed * 100);
	else if (drifted)
		fprintf(f, "DISTURBED: the thread had its CPU %.0f%% of the time or more, but the drift chain "
			   "moved in %zu of %zu results (a sibling or the host slowed the core)", c->cpu_share * 100,
			c->drifted, c->chained);
	else
		fprintf(f, "quiet (the thread had its CPU %.0f%% of the time or more)", c->cpu_share * 100);
	if (c->ghz_hi > 0)
		fprintf(f, "; core clock %.2f-%.2f GHz over them", c->ghz_lo, c->ghz_hi);
	if (drifted)
		fprintf(f, "; those results left out of the verdicts where a row kept %d epochs", RESULT_DRIFT_KEEP);
	else if (c->drifted)
		fprintf(f, "; %zu of %zu results whose drift chain moved (the core disturbed) left out of the "
			   "verdicts where a row kept %d epochs", c->drifted, c->chained, RESULT_DRIFT_KEEP);
	fputc('\n', f);
	if (card_load_text(c, load, sizeof(load)))
		fprintf(f, "load      %s\n", load);
	if (c->load && c->load->left_out[0])
		fprintf(f, "quick     left out: %s (a --quick card; the whole card: atomcost run)\n", c->load->left_out);
	if (!c->unresolved)
		return;
	fprintf(f, "          unresolved:");
	for (unsigned i = 0, k = 0; i < c->ncmp; i++)
		if (c->cmp[i].unresolved)
			fprintf(f, "%s %s", k++ ? "," : "", c->cmp[i].what);
	fprintf(f, " (%s)\n", c->epochs < 2 ? "one epoch cannot be judged: --epochs 5" :
		c->load && c->load->kept_disturbed ? "disturbed stretches were kept as measured (the load line says "
		"why): a quieter machine or a longer --patience would settle them" :
		disturbed ? "a quieter machine or more epochs would settle them" :
		"the difference sits near the margin or the epochs spread too far");
}

/* The card's rows whose samples hold steady states: each state, since the
 * median printed moves with their mix. */
static void write_states(const struct report *rep, const struct card *c, FILE *f)
{
	char t[96];

	for (unsigned i = 0; i < c->nmix; i++)
		fprintf(f, "%s%s %s %s: %zu states, %s cycles (share of samples)\n",
			i ? "          " : "states    ", c->mix[i].probe, c->mix[i].pattern,
			probe_mode_name(c->mix[i].mode), c->mix[i].m.nstates,
			stats_mixture_text(&c->mix[i].m, 1 / rep->cal.ticks_per_cycle, t, sizeof(t)));
	if (c->nmix)
		fprintf(f, "          (a median on this card moves with the mix of its states: compare state by state)\n");
}

static void write_splitlock(const struct card *c, FILE *f)
{
	const struct card_split *s = &c->split;
	const char *trap = s->state == CARD_SPLIT_MEASURED ? card_split_trap_text(s->split_ns, c->machine.vm) : NULL;
	char t[256];

	fprintf(f, "split     %s\n", card_split_text(s, t, sizeof(t)));
	if (trap)
		fprintf(f, "          %s\n", trap);
	if (s->state == CARD_SPLIT_MEASURED || s->state == CARD_SPLIT_SIGBUS)
		fprintf(f, "          kernel: %s\n", s->kernel_why ? s->kernel_why : "mode unknown");
}

static void write_share(const struct card *c, FILE *f)
{
	if (!c->share_probe) {
		fprintf(f, "sharing   not measured (no contention rows in this report)\n");
		return;
	}
	fprintf(f, "sharing   %s by 2 threads, cycles per op (true / false / no sharing):\n", c->share_probe);
	for (unsigned i = 0; i < c->nshare; i++) {
		const struct card_share *s = &c->share[i];
		char v[3][16];
		const double x[3] = { s->true_share, s->false_share, s->no_share };

		for (int k = 0; k < 3; k++)
			snprintf(v[k], sizeof(v[k]), x[k] > 0 ? "%.1f" : "-", x[k]);
		fprintf(f, "  %-10s %8s / %8s / %8s", s->placement, v[0], v[1], v[2]);
		if (s->not_overlapped)
			fprintf(f, "   (some cases' threads did not overlap: not contention, left out)");
		/* one measurement per case, no epochs: a ratio, not a verdict */
		if (s->no_share > 0 && s->true_share > 0)
			fprintf(f, "   true/no sharing %.1fx (one process: not judged)", s->true_share / s->no_share);
		fputc('\n', f);
	}
}

static void write_menu(const struct card *c, FILE *f)
{
	char legend[512];
	int w[CARD_MAX_CONT] = { 0 };

	fprintf(f, "fast-path menu: the cycles an op adds to independent work (walk: an L1 pointer walk;\n"
		   "          stores: 4 pending stores), cheapest first, = tied with the one above (not\n"
		   "          resolved); chain latency and best throughput beside:\n");
	for (unsigned k = 0; k < c->ncont; k++)	/* a column as wide as its label */
		w[k] = strlen(c->cont[k].label) > 7 ? (int)strlen(c->cont[k].label) : 7;
	if (c->ncont)
		report_mail_wrap(f, "          ", card_cont_legend(c, legend, sizeof(legend)));
	if (c->nneed) {
		fprintf(f, "  %-27s %7s %7s %7s %7s", "", "walk", "stores", "chain", "tput");
		for (unsigned k = 0; k < c->ncont; k++)
			fprintf(f, " %*s", w[k], c->cont[k].label);
		fprintf(f, "  %s\n", "safe when");
	} else
		fprintf(f, "  not in this report (no result names a need: a report from before the menu was "
			   "drawn from the results)\n");
	for (unsigned n = 0; n < c->nneed; n++) {
		const struct card_need *nd = &c->need[n];

		fprintf(f, "  %s%s:\n", nd->need, nd->basis == CARD_BASIS_WALK ? "" :
			nd->basis == CARD_BASIS_STORES ? " (no walk rows: ranked after the stores)" :
			" (no context rows: ranked by chain latency)");
		for (unsigned o = 0; o < nd->nopt; o++) {
			const struct card_option *op = &nd->opt[o];
			const double v[4] = { op->walk, op->stores, op->chain, op->tput };
			char rank[16], cell[4][16], cont[16];

			snprintf(rank, sizeof(rank), op->rank ? "%s%u" : "-", op->tie ? "=" : "", op->rank);
			for (int k = 0; k < 4; k++)	/* walk and stores: what the op adds */
				card_cost_text(v[k], k < 2, cell[k], sizeof(cell[k]));
			fprintf(f, "  %4s %-22s %7s %7s %7s %7s", rank, op->probe, cell[0], cell[1], cell[2],
				cell[3]);
			for (unsigned k = 0; k < c->ncont; k++)
				fprintf(f, " %*s", w[k], card_cont_text(&op->cont[k], cont, sizeof(cont)));
			fprintf(f, "  %s%s", op->safe_when, op->analog ? " [analog: not the real primitive]" : "");
			if (op->kernel)
				fprintf(f, " [kernel: %s %.2f]", op->kernel->probe, op->kernel->kernel_cyc);
			fputc('\n', f);
		}
	}
}

int card_write_text(const struct report *rep, FILE *f)
{
	struct card c;
	int err = card_build(rep, &c);
	char t[256];

	if (err)
		return err;
	fprintf(f, "== atomcost machine card%s ==\n", rep->partial ? " (PARTIAL run)" : "");
	write_machine(rep, &c, f);
	write_atomicity(&c, f);
	write_noise(&c, f);
	write_states(rep, &c, f);
	write_share(&c, f);
	write_splitlock(&c, f);
	fprintf(f, "ordering  full barrier: %s\n", card_order_text(&c, t, sizeof(t)));
	write_menu(&c, f);
	for (unsigned k = 0; k < c.nkernel; k++)
		fprintf(f, "kernel    %s\n", card_kernel_text(&c.kernel[k], t, sizeof(t)));
	fprintf(f, "==\n");
	return ferror(f) ? -EIO : 0;
}

int report_write_text(const struct report *rep, FILE *f)
{
	const struct calibration *c = &rep->cal;
	bool epochs = compare_max_epoch(rep) > 1;
	char why[160];

	if (card_wanted(rep)) {
		int err = card_write_text(rep, f);

		if (err)
			return err;
		fputc('\n', f);
	}
	if (c->emulated)
		fprintf(f, "# EMULATED (%s): every figure below is the emulator's, not a measurement; no card\n",
			c->emulation);
	fprintf(f, "# atomcost: core %.3f GHz (timer %.4f GHz, %.4f ticks/cycle, %s)\n",
		c->core_hz / 1e9, c->timer_hz / 1e9, c->ticks_per_cycle, c->cycle_source);
	if (!c->trustworthy)
		fprintf(f, "# CALIBRATION NOT TRUSTWORTHY: %s: cycle figures may be off by as much\n",
			card_cal_why(c, why, sizeof(why)));
	if (rep->pmu_ticks_per_cycle > 0)
		fprintf(f, "# cycles: PMU cycles event %.4f ticks/cycle, add chain %.4f: agree within %.2f%%\n",
			rep->pmu_ticks_per_cycle, rep->chain_ticks_per_cycle, rep->cycle_agreement * 100);
	if (rep->topo_summary[0])
		fprintf(f, "# topology: %s\n", rep->topo_summary);
	clock_print_self_checks(c, f, "# self-checks: ");
	clock_print_core(c, f, "# core: ");
	fprintf(f, "# ns: wall time per op at the calibrated core clock (%.3f GHz), not at the clock of the moment\n",
		c->core_hz / 1e9);
	if (rep->partial)
		fprintf(f, "# PARTIAL: %s: results below are what was measured before it stopped\n",
			rep->partial_reason);
	write_table(rep, epochs, f);
	write_sweeps(rep, f);
	if (!epochs)
		contention_write_text(rep, f);
	write_events(rep, f);
	return 0;
}
