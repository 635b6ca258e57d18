/* SPDX-License-Identifier: MIT */
/* card.c - the machine card (card.h): computed from a report, never
 * measured here. */
#include "card.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "fingerprint.h"

/* The comparisons the atomicity paragraph makes, in reading order. */
static const struct {
	const char *what, *pattern;
	enum probe_mode mode;
} cmp_rows[] = {
	{ "hot line, independent ops", "hit", MODE_THROUGHPUT },
	{ "hot line, dependency chain", "hit", MODE_LATENCY },
	{ "dependent walk in L1", "dep", MODE_LATENCY },
	{ "L2 miss, dependent", "l2", MODE_LATENCY },
	{ "LLC miss, dependent", "llc", MODE_LATENCY },
	{ "DRAM miss, dependent", "miss", MODE_LATENCY },
};

/* The twin pairs tried for the paragraph, first measured one wins. */
static const char *const pairs[][2] = {
	{ "set_bit", "__set_bit" },
	{ "cmpxchg", "cmpxchg_local" },
};

/* Locked ops and locks whose contention rows the sharing line uses. */
static const char *const share_probes[] = { "atomic_inc", "cmpxchg", "set_bit", "spin_lock" };

/* The fast-path menu: needs and the options that meet them, with the
 * condition under which each is correct. Options a report lacks are left
 * out; a need with no measured option is said to be not measured. */
static const struct {
	const char *need;
	struct {
		const char *probe, *safe_when;
	} opt[CARD_MAX_OPTIONS];
} menu[] = {
	{ "set a bit in a word only this CPU writes",
	  { { "__set_bit", "no concurrent writer to the word" },
	    { "__set_bit_var", "no concurrent writer to the word" },
	    { "set_bit", "always (atomic)" },
	    { "set_bit_var", "always (atomic)" } } },
	{ "set a bit in a shared bitmap",
	  { { "set_bit", "always (atomic, unordered)" },
	    { "set_bit_var", "always (atomic, unordered)" },
	    { "test_and_set_bit", "always (atomic, fully ordered)" } } },
	{ "per-CPU counter",
	  { { "local_inc", "this CPU only, preemption off" },
	    { "rseq_add", "rseq registered (glibc >= 2.35), restarts on migration" },
	    { "percpu_add_nl", "this CPU only, preemption off" },
	    { "atomic_inc", "always (atomic)" } } },
	{ "lockless freelist pop/push",
	  { { "cmpxchg_local", "this CPU only, irqs/preemption off" },
	    { "this_cpu_cmpxchg", "this CPU's data, preemption off" },
	    { "rseq_cmpxchg", "rseq registered, restarts on migration" },
	    { "cmpxchg", "always (atomic); ABA needs a tag" },
	    { "cmpxchg128", "always (atomic, with an ABA tag)" } } },
	{ "short critical section",
	  { { "preempt_disable", "same-CPU exclusion only (local_lock)" },
	    { "spin_lock", "always" },
	    { "ticket_lock", "always (FIFO)" },
	    { "bit_spin_lock", "always (lock bit in a flags word)" },
	    { "pthread_spin", "always (user space)" },
	    { "pthread_mutex", "always (sleeps under contention)" } } },
};

static const struct result *find(const struct report *rep, const char *name, enum probe_mode m,
				 const char *pattern)
{
	return report_find(rep, name, m, pattern);
}

static double med_cycles(const struct report *rep, const struct result *r)
{
	return r && r->nsamples ? result_cycles(rep, r->s.median) : NAN;
}

/* The floor the card's verdicts use: the report's between-pass floor when
 * it recorded one in meta.noise_floor, never below the documented minimum. */
static double card_floor(const struct report *rep)
{
	double f = json_number_value(json_object_get(rep->meta, "noise_floor"));

	return f > NOISE_FLOOR_MIN ? f : NOISE_FLOOR_MIN;
}

static void build_cmp(const struct report *rep, struct card *c)
{
	c->pair_atomic = c->pair_plain = NULL;
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]) && !c->pair_atomic; p++)
		if (find(rep, pairs[p][0], MODE_LATENCY, "hit") && find(rep, pairs[p][1], MODE_LATENCY, "hit")) {
			c->pair_atomic = pairs[p][0];
			c->pair_plain = pairs[p][1];
		}
	c->ncmp = 0;
	if (!c->pair_atomic)
		return;
	for (size_t i = 0; i < sizeof(cmp_rows) / sizeof(cmp_rows[0]); i++) {
		struct card_cmp *k = &c->cmp[c->ncmp++];
		const struct result *a = find(rep, c->pair_atomic, cmp_rows[i].mode, cmp_rows[i].pattern);
		const struct result *n = find(rep, c->pair_plain, cmp_rows[i].mode, cmp_rows[i].pattern);

		k->what = cmp_rows[i].what;
		k->pattern = cmp_rows[i].pattern;
		k->mode = cmp_rows[i].mode;
		k->atomic = med_cycles(rep, a);
		k->plain = med_cycles(rep, n);
		k->ok = isfinite(k->atomic) && isfinite(k->plain);
		/* the table's rule: a pair that one process cannot pin down
		 * (pattern rows, CI not reached) carries a larger floor */
		k->floor = a && a->has_ratio && a->verdict_floor > c->floor ? a->verdict_floor : c->floor;
		k->v = k->ok ? stats_verdict(k->atomic, k->plain, k->floor) : VERDICT_NONE;
	}
}

static const char *placement_of(const struct result *r)
{
	const json_t *ct = r->extra ? json_object_get(r->extra, "contention") : NULL;
	const char *s = json_string_value(json_object_get(ct, "placement"));

	return s ? s : "?";
}

static void build_share(const struct report *rep, struct card *c)
{
	c->nshare = 0;
	c->share_probe = NULL;
	for (size_t p = 0; p < sizeof(share_probes) / sizeof(share_probes[0]) && !c->share_probe; p++)
		for (size_t i = 0; i < rep->n; i++)
			if (!strcmp(rep->r[i].name, share_probes[p]) &&
			    !strcmp(rep->r[i].pattern, "true-share")) {
				c->share_probe = share_probes[p];
				break;
			}
	if (!c->share_probe)
		return;
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		struct card_share *s = NULL;
		double cyc = med_cycles(rep, r);

		if (strcmp(r->name, c->share_probe) || !strstr(r->pattern, "-share") || !isfinite(cyc))
			continue;
		/* threads that did not run at the same time measured no contention */
		if (json_is_false(json_object_get(json_object_get(r->extra, "contention"), "overlapped")))
			cyc = NAN;
		for (unsigned k = 0; k < c->nshare; k++)
			if (!strcmp(c->share[k].placement, placement_of(r)))
				s = &c->share[k];
		if (!s) {
			if (c->nshare == CARD_MAX_SHARE)
				continue;
			s = &c->share[c->nshare++];
			memset(s, 0, sizeof(*s));
			snprintf(s->placement, sizeof(s->placement), "%s", placement_of(r));
		}
		if (!isfinite(cyc))
			s->not_overlapped = true;
		else if (!strcmp(r->pattern, "true-share"))
			s->true_share = cyc;
		else if (!strcmp(r->pattern, "false-share"))
			s->false_share = cyc;
		else if (!strcmp(r->pattern, "no-share"))
			s->no_share = cyc;
	}
}

static void build_menu(const struct report *rep, struct card *c)
{
	c->nneed = 0;
	for (size_t n = 0; n < sizeof(menu) / sizeof(menu[0]) && c->nneed < CARD_MAX_NEEDS; n++) {
		struct card_need *nd = &c->need[c->nneed++];

		nd->need = menu[n].need;
		nd->nopt = 0;
		for (size_t o = 0; o < CARD_MAX_OPTIONS && menu[n].opt[o].probe; o++) {
			const struct result *r = find(rep, menu[n].opt[o].probe, MODE_LATENCY, "hit");
			double cyc = med_cycles(rep, r);
			unsigned k;

			if (!isfinite(cyc))
				continue;
			/* insertion by cost: cheapest first */
			for (k = nd->nopt; k > 0 && nd->opt[k - 1].cycles > cyc; k--)
				nd->opt[k] = nd->opt[k - 1];
			nd->opt[k] = (struct card_option){ .probe = menu[n].opt[o].probe,
							   .safe_when = menu[n].opt[o].safe_when,
							   .cycles = cyc, .analog = r->analog };
			nd->nopt++;
		}
	}
}

int card_build(const struct report *rep, struct card *c)
{
	memset(c, 0, sizeof(*c));
	if (!rep || !rep->n)
		return -EINVAL;
	c->floor = card_floor(rep);
	build_cmp(rep, c);
	build_share(rep, c);
	build_menu(rep, c);
	return 0;
}

/* ---- text ------------------------------------------------------------ */

static const char *fp_str(const json_t *fp, const char *a, const char *b)
{
	const char *s = json_string_value(json_object_get(json_object_get(fp, a), b));

	return s ? s : "?";
}

static void write_machine(const struct report *rep, FILE *f)
{
	const json_t *fp = fingerprint_of_meta(rep->meta);
	const json_t *hv = json_object_get(fp, "hypervisor");
	const json_t *hier = rep->sections ? json_object_get(rep->sections, "hierarchy") : NULL;
	const json_t *levels = json_object_get(hier, "levels");
	bool vm = json_is_true(json_object_get(hv, "cpuid_flag"));
	size_t i;
	const json_t *lv;

	fprintf(f, "machine   %s (family %s model %s, microcode %s)\n", fp_str(fp, "cpu", "model_name"),
		fp_str(fp, "cpu", "family"), fp_str(fp, "cpu", "model"), fp_str(fp, "cpu", "microcode"));
	fprintf(f, "          %s %s, %s, %s\n", fp_str(fp, "kernel", "sysname"),
		fp_str(fp, "kernel", "release"),
		!hv ? "VM or not: unknown" : vm ? "virtual machine (hypervisor flag set)" : "no hypervisor flag",
		rep->topo_summary[0] ? rep->topo_summary : "topology unknown");
	fprintf(f, "clock     core %.3f GHz, cycles: %s; %s\n", rep->cal.core_hz / 1e9,
		rep->cal.cycle_source ? rep->cal.cycle_source : "?",
		rep->cal.trustworthy ? "calibration trustworthy" : "CALIBRATION NOT TRUSTWORTHY");
	if (json_array_size(levels)) {
		fprintf(f, "caches   ");
		json_array_foreach(levels, i, lv) {
			double kib = json_number_value(json_object_get(lv, "size_bytes")) / 1024.0;
			const char *name = json_string_value(json_object_get(lv, "level"));

			if (json_is_true(json_object_get(lv, "memory")))
				fprintf(f, " %sDRAM %.0f ns", i ? "| " : "", json_number_value(json_object_get(lv, "ns")));
			else
				fprintf(f, " %s%s %.0f %s %.1f cyc", i ? "| " : "", name ? name : "?",
					kib >= 1024 ? kib / 1024 : kib, kib >= 1024 ? "MiB" : "KiB",
					json_number_value(json_object_get(lv, "cycles")));
		}
		fprintf(f, " (measured)\n");
		json_array_foreach(levels, i, lv) {
			double hw = json_number_value(json_object_get(lv, "hwloc_size"));

			if (hw > 0 && json_is_false(json_object_get(lv, "agrees")))
				fprintf(f, "          warning: hwloc declares %s = %.0f KiB, measured about %.0f KiB: "
					"the patterns use the measured size\n",
					json_string_value(json_object_get(lv, "level")), hw / 1024,
					json_number_value(json_object_get(lv, "size_bytes")) / 1024);
		}
	} else {
		fprintf(f, "caches    measured hierarchy not in this report\n");
	}
}

static const char *mode_word(enum probe_mode m)
{
	return m == MODE_LATENCY ? "latency" : "throughput";
}

static void write_atomicity(const struct card *c, FILE *f)
{
	if (!c->pair_atomic) {
		fprintf(f, "atomicity not measured (no atomic/non-atomic twin pair in this report)\n");
		return;
	}
	fprintf(f, "atomicity %s against %s, cycles per op (a verdict only beyond the row's noise floor):\n",
		c->pair_atomic, c->pair_plain);
	for (unsigned i = 0; i < c->ncmp; i++) {
		const struct card_cmp *k = &c->cmp[i];

		if (!k->ok) {
			fprintf(f, "  %-28s not measured\n", k->what);
			continue;
		}
		fprintf(f, "  %-28s %7.2f vs %7.2f %-10s ", k->what, k->atomic, k->plain, mode_word(k->mode));
		switch (k->v) {
		case VERDICT_SLOWER:
			fprintf(f, "the lock costs %.1fx (+%.1f cycles)", k->atomic / k->plain,
				k->atomic - k->plain);
			break;
		case VERDICT_FASTER:
			fprintf(f, "the atomic form is faster (%.2fx)", k->atomic / k->plain);
			break;
		case VERDICT_SAME:
			fprintf(f, "same: the cost of atomicity vanishes here");
			break;
		case VERDICT_NONE:
			fprintf(f, "no verdict");
			break;
		}
		fprintf(f, " [floor %.0f%%]\n", k->floor * 100);
	}
}

/* The split lock (splitlock section): what a locked op across two cache
 * lines costs here, and what the kernel does about it. */
static void write_splitlock(const struct report *rep, FILE *f)
{
	const json_t *sl = rep->sections ? json_object_get(rep->sections, "splitlock") : NULL;
	const json_t *k = json_object_get(sl, "kernel");
	const char *why = json_string_value(json_object_get(k, "why"));

	if (!sl) {
		fprintf(f, "split     not measured\n");
		return;
	}
	if (!json_is_true(json_object_get(sl, "supported"))) {
		fprintf(f, "split     no split lock on this architecture\n");
		return;
	}
	if (json_is_true(json_object_get(sl, "sigbus")))
		fprintf(f, "split     a locked op across two cache lines is killed here (SIGBUS)");
	else
		fprintf(f, "split     a locked op across two cache lines: %.0f ns against %.1f ns aligned (%.0fx)",
			json_number_value(json_object_get(sl, "split_ns")),
			json_number_value(json_object_get(sl, "aligned_ns")),
			json_number_value(json_object_get(sl, "ratio")));
	fprintf(f, "\n          kernel: %s\n", why ? why : "mode unknown");
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
		if (s->no_share > 0 && s->true_share > 0 &&
		    stats_verdict(s->true_share, s->no_share, c->floor) == VERDICT_SLOWER)
			fprintf(f, "   sharing the line costs %.1fx", s->true_share / s->no_share);
		fputc('\n', f);
	}
}

static void write_menu(const struct card *c, FILE *f)
{
	fprintf(f, "fast-path menu (hit latency, cycles; cheapest first; safe when ...):\n");
	for (unsigned n = 0; n < c->nneed; n++) {
		const struct card_need *nd = &c->need[n];

		fprintf(f, "  %s:\n", nd->need);
		if (!nd->nopt)
			fprintf(f, "    not measured\n");
		for (unsigned o = 0; o < nd->nopt; o++)
			fprintf(f, "    %-20s %7.2f  %s%s\n", nd->opt[o].probe, nd->opt[o].cycles,
				nd->opt[o].safe_when, nd->opt[o].analog ? " [analog: not the real primitive]" : "");
	}
}

int card_write_text(const struct report *rep, FILE *f)
{
	struct card c;
	int err = card_build(rep, &c);

	if (err)
		return err;
	fprintf(f, "== atomcost machine card%s ==\n", rep->partial ? " (PARTIAL run)" : "");
	write_machine(rep, f);
	write_atomicity(&c, f);
	write_share(&c, f);
	write_splitlock(rep, f);
	write_menu(&c, f);
	fprintf(f, "==\n");
	return ferror(f) ? -EIO : 0;
}

/* ---- summary JSON ---------------------------------------------------- */

static json_t *num_or_null(double v)
{
	return isfinite(v) && v > 0 ? json_real(v) : json_null();
}

json_t *card_to_json(const struct report *rep)
{
	struct card c;
	json_t *o, *cmp, *share, *menu_j;

	if (card_build(rep, &c))
		return json_null();
	cmp = json_array();
	for (unsigned i = 0; i < c.ncmp; i++)
		json_array_append_new(cmp, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s}", "what", c.cmp[i].what,
			"pattern", c.cmp[i].pattern, "mode", mode_word(c.cmp[i].mode),
			"atomic_cycles", num_or_null(c.cmp[i].atomic), "plain_cycles", num_or_null(c.cmp[i].plain),
			"verdict", stats_verdict_name(c.cmp[i].v)));
	share = json_array();
	for (unsigned i = 0; i < c.nshare; i++)
		json_array_append_new(share, json_pack("{s:s, s:o, s:o, s:o}", "placement", c.share[i].placement,
			"true_share", num_or_null(c.share[i].true_share),
			"false_share", num_or_null(c.share[i].false_share),
			"no_share", num_or_null(c.share[i].no_share)));
	menu_j = json_array();
	for (unsigned n = 0; n < c.nneed; n++) {
		json_t *opts = json_array();

		for (unsigned k = 0; k < c.need[n].nopt; k++)
			json_array_append_new(opts, json_pack("{s:s, s:f, s:s, s:b}", "probe", c.need[n].opt[k].probe,
				"cycles", c.need[n].opt[k].cycles, "safe_when", c.need[n].opt[k].safe_when,
				"analog", c.need[n].opt[k].analog));
		json_array_append_new(menu_j, json_pack("{s:s, s:o}", "need", c.need[n].need, "options", opts));
	}
	o = json_pack("{s:s?, s:s?, s:f, s:o, s:s?, s:o, s:o}", "atomic", c.pair_atomic, "plain", c.pair_plain,
		      "noise_floor", c.floor, "atomicity", cmp, "sharing_probe", c.share_probe,
		      "sharing", share, "menu", menu_j);
	return o;
}
