/* SPDX-License-Identifier: MIT */
/* card.c - the machine card (card.h): computed from a report, never
 * measured here. */
#include "card.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "fingerprint.h"

/* The comparisons the atomicity paragraph makes, in reading order. The
 * walks put the op on another word of the visited line; the followed-word
 * form (dep+ptr) shows what a byte RMW on the word the next load reads
 * does to store forwarding, locked or not. */
static const struct {
	const char *what, *pattern;
	enum probe_mode mode;
} cmp_rows[] = {
	{ "hot line, independent ops", "hit", MODE_THROUGHPUT },
	{ "hot line, dependency chain", "hit", MODE_LATENCY },
	{ "L1 walk, op on another word", "dep", MODE_LATENCY },
	{ "L1 walk, op on the followed word", "dep+ptr", MODE_LATENCY },
	{ "L2 walk, op on another word", "l2", MODE_LATENCY },
	{ "LLC walk, op on another word", "llc", MODE_LATENCY },
	{ "DRAM walk, op on another word", "miss", MODE_LATENCY },
};

/* The twin pairs tried for the paragraph, first measured one wins. */
static const char *const pairs[][2] = {
	{ "set_bit", "__set_bit" },
	{ "cmpxchg", "cmpxchg_local" },
};

/* Locked ops and locks whose contention rows the sharing line uses. */
static const char *const share_probes[] = { "atomic_inc", "cmpxchg", "set_bit", "spin_lock" };

static const struct result *find(const struct report *rep, const char *name, enum probe_mode m,
				 const char *pattern)
{
	return report_find(rep, name, m, pattern);
}

static double med_cycles(const struct report *rep, const struct result *r)
{
	return r && r->nsamples ? result_cycles(rep, r->s.median) : NAN;
}

/* The mnemonic of an instruction string, without a lock prefix and
 * without what follows the first operand list ("lock orb $imm8,mem" ->
 * "orb"); *ops gets the operands up to a " (" or ";" note. */
static void mnemonic(const char *insn, char *m, size_t mlen, char *ops, size_t olen)
{
	const char *s = strncmp(insn, "lock ", 5) ? insn : insn + 5;
	size_t k = strcspn(s, " ");
	size_t o = s[k] ? strcspn(s + k + 1, ";(") : 0;

	snprintf(m, mlen, "%.*s", (int)k, s);
	snprintf(ops, olen, "%.*s", (int)o, s[k] ? s + k + 1 : "");
	while (strlen(ops) && ops[strlen(ops) - 1] == ' ')
		ops[strlen(ops) - 1] = '\0';
}

static const char *width_of(const char *mn)
{
	size_t n = strlen(mn);

	if (n > 3 && !strcmp(mn + n - 3, "16b"))
		return "16 bytes";
	switch (n ? mn[n - 1] : 0) {
	case 'b':
		return "byte";
	case 'w':
		return "word";
	case 'l':
		return "dword";
	case 'q':
		return "qword";
	}
	return NULL;
}

/* The atomic op without its lock prefix: a probe measured in the report
 * whose instruction is the atomic's with the prefix dropped (set_bit's
 * `lock orb $imm8,mem` -> __or_byte's `orb $imm8,mem`). Found from the
 * instructions, not from a list of names. */
static const char *unlocked_twin(const struct report *rep, const struct result *atomic)
{
	char m[32], ops[64], m2[32], ops2[64];

	if (strncmp(atomic->insn, "lock ", 5))
		return NULL;
	mnemonic(atomic->insn, m, sizeof(m), ops, sizeof(ops));
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];

		if (!strncmp(r->insn, "lock ", 5) || r->mode != MODE_LATENCY || strcmp(r->pattern, "hit"))
			continue;
		mnemonic(r->insn, m2, sizeof(m2), ops2, sizeof(ops2));
		if (!strcmp(m, m2) && !strcmp(ops, ops2))
			return r->name;
	}
	return NULL;
}

static void describe_pair(const struct result *a, const struct result *b, struct card *c)
{
	char ma[32], oa[64], mb[32], ob[64];
	const char *wa, *wb;

	mnemonic(a->insn, ma, sizeof(ma), oa, sizeof(oa));
	mnemonic(b->insn, mb, sizeof(mb), ob, sizeof(ob));
	wa = width_of(ma);
	wb = width_of(mb);
	if (!strcmp(ma, mb))
		snprintf(c->differs, sizeof(c->differs), "%s",
			 strncmp(a->insn, "lock ", 5) ? "not in a lock prefix" : "the lock prefix only");
	else if (wa && wb && strcmp(wa, wb))
		snprintf(c->differs, sizeof(c->differs),
			 "the lock prefix, the instruction (%s against %s) and the width (%s against %s)", ma, mb,
			 wa, wb);
	else
		snprintf(c->differs, sizeof(c->differs), "the lock prefix and the instruction (%s against %s)",
			 ma, mb);
}

static void judge_part(const struct report *rep, const char *a, const char *b, const char *pattern,
		       enum probe_mode m, struct card_part *p)
{
	memset(p, 0, sizeof(*p));
	p->j.v = VERDICT_NONE;
	if (!a || !b)
		return;
	p->a_cyc = report_median_cycles(rep, a, m, pattern);
	p->b_cyc = report_median_cycles(rep, b, m, pattern);
	if (!isfinite(p->a_cyc) || !isfinite(p->b_cyc))
		return;
	p->a = a;
	p->b = b;
	report_judge(rep, a, b, m, pattern, &p->j);
}

static void build_cmp(const struct report *rep, struct card *c)
{
	const struct result *a = NULL, *n = NULL;

	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]) && !c->pair_atomic; p++) {
		a = find(rep, pairs[p][0], MODE_LATENCY, "hit");
		n = find(rep, pairs[p][1], MODE_LATENCY, "hit");
		if (a && n) {
			c->pair_atomic = pairs[p][0];
			c->pair_plain = pairs[p][1];
		}
	}
	if (!c->pair_atomic)
		return;
	describe_pair(a, n, c);
	c->lock_plain = unlocked_twin(rep, a);
	if (c->lock_plain && !strcmp(c->lock_plain, c->pair_plain))
		c->lock_plain = NULL;	/* the pair is the lock prefix alone */
	for (size_t i = 0; i < sizeof(cmp_rows) / sizeof(cmp_rows[0]); i++) {
		struct card_cmp *k = &c->cmp[c->ncmp];

		k->what = cmp_rows[i].what;
		k->pattern = cmp_rows[i].pattern;
		k->mode = cmp_rows[i].mode;
		judge_part(rep, c->pair_atomic, c->pair_plain, k->pattern, k->mode, &k->pair);
		if (!k->pair.a && strchr(k->pattern, '+'))
			continue;	/* a named variant this report lacks: no line */
		judge_part(rep, c->pair_atomic, c->lock_plain, k->pattern, k->mode, &k->lock);
		judge_part(rep, c->lock_plain, c->pair_plain, k->pattern, k->mode, &k->insn);
		c->ncmp++;
		if (k->pair.a && (k->pair.j.v == VERDICT_UNRESOLVED || k->pair.j.v == VERDICT_NONE))
			c->unresolved++;
	}
}

/* How disturbed the epochs were: the share of each epoch's samples that
 * saw a context switch or a migration, and the share of its time the
 * measuring thread had its CPU (meta.epochs, written by the session: a task
 * sharing the PU takes it without a switch inside most samples); and the
 * core clock over the epochs (it moves with boost: each epoch's samples are
 * in its own cycles, so this informs, it does not disturb). */
static void build_noise(const struct report *rep, struct card *c)
{
	const json_t *eps = json_object_get(rep->meta, "epochs"), *e;
	bool bad[JUDGE_MAX_EPOCHS + 1] = { false };
	size_t i;

	c->cpu_share = 1;
	for (int ep = 0; ep <= compare_max_epoch(rep) && ep <= JUDGE_MAX_EPOCHS; ep++) {
		double dist = 0, all = 0;

		for (size_t k = 0; k < rep->n; k++)
			if (result_epoch(&rep->r[k]) == ep) {
				dist += rep->r[k].disturbed > 0 ? (double)rep->r[k].disturbed : 0;
				all += (double)rep->r[k].nsamples;
			}
		if (all > 0 && dist / all > c->disturbed)
			c->disturbed = dist / all;
		bad[ep] = all > 0 && dist / all > CARD_DISTURBED;
		if (ep > 0 && all > 0 && (unsigned)ep > c->epochs)
			c->epochs = (unsigned)ep;
	}
	json_array_foreach(eps, i, e) {
		int ep = (int)json_integer_value(json_object_get(e, "epoch"));
		double t = json_number_value(json_object_get(e, "ticks_per_cycle"));
		double hz = json_number_value(json_object_get(e, "timer_hz"));
		const json_t *sh = json_object_get(e, "cpu_share");

		if (t > 0 && hz > 0) {
			c->ghz_lo = c->ghz_lo > 0 ? fmin(c->ghz_lo, hz / t / 1e9) : hz / t / 1e9;
			c->ghz_hi = fmax(c->ghz_hi, hz / t / 1e9);
		}
		if (json_is_number(sh)) {
			c->cpu_share = fmin(c->cpu_share, json_number_value(sh));
			if (ep >= 0 && ep <= JUDGE_MAX_EPOCHS && json_number_value(sh) < CARD_CPU_SHARE)
				bad[ep] = true;
		}
	}
	for (int ep = 0; ep <= JUDGE_MAX_EPOCHS; ep++)
		c->disturbed_epochs += bad[ep];
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

/* ---- the fast-path menu ------------------------------------------------
 * Drawn from the results alone: each result carries the needs its probe
 * meets and when it is safe (extra.menu_need, extra.safe_when, from the
 * probe's descriptor), so a renamed or new probe is on the menu without a
 * list here, and a report read back draws the same menu. The options of a
 * need are ranked by the cycles they add to independent work (the basis:
 * an L1 pointer walk, else pending stores, else the chain latency alone);
 * two neighbours are tied where their difference is not resolved. */
static const struct {
	const char *name, *pattern, *key;	/* key: extra over the bare work */
	enum probe_mode mode;
} basis[] = {
	[CARD_BASIS_WALK] = { "walk", "dep", "over_chase_cycles", MODE_LATENCY },
	[CARD_BASIS_STORES] = { "stores", "hit+stores", "over_stores_cycles", MODE_THROUGHPUT },
	[CARD_BASIS_CHAIN] = { "chain", "hit", NULL, MODE_LATENCY },
};

const char *card_basis_name(enum card_basis b)
{
	return basis[b].name;
}

double card_option_cost(const struct card_option *o, enum card_basis b)
{
	return b == CARD_BASIS_WALK ? o->walk : b == CARD_BASIS_STORES ? o->stores : o->chain;
}

void card_cost_text(double v, bool added, char *buf, size_t len)
{
	double r = round(v * 10) / 10;

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (added)
		snprintf(buf, len, "%+.1f", r == 0 ? 0.0 : r);	/* no "-0.0" */
	else
		snprintf(buf, len, "%.2f", v);
}

/* Median over the epochs of a number the rows carry in extra, cycles. */
static double extra_median(const struct report *rep, const char *name, enum card_basis b)
{
	double v[JUDGE_MAX_EPOCHS];
	size_t n = 0;

	for (size_t i = 0; i < rep->n && n < JUDGE_MAX_EPOCHS; i++) {
		const struct result *r = &rep->r[i];
		const json_t *x = r->extra ? json_object_get(r->extra, basis[b].key) : NULL;

		if (r->mode == basis[b].mode && !strcmp(r->name, name) && !strcmp(r->pattern, basis[b].pattern) &&
		    json_is_number(x))
			v[n++] = json_number_value(x);
	}
	return n ? stats_median(v, n) : NAN;
}

/* The need of that name, in order of first appearance; NULL when full. */
static struct card_need *need_of(struct card *c, const char *need)
{
	for (unsigned n = 0; n < c->nneed; n++)
		if (!strcmp(c->need[n].need, need))
			return &c->need[n];
	if (c->nneed == CARD_MAX_NEEDS)
		return NULL;
	c->need[c->nneed] = (struct card_need){ .need = need };
	return &c->need[c->nneed++];
}

static void menu_collect(const struct report *rep, struct card *c)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const json_t *needs = r->extra ? json_object_get(r->extra, "menu_need") : NULL, *nv;
		const char *safe = r->extra ? json_string_value(json_object_get(r->extra, "safe_when")) : NULL;
		size_t k;

		json_array_foreach(needs, k, nv) {
			struct card_need *nd = json_is_string(nv) ? need_of(c, json_string_value(nv)) : NULL;
			unsigned o = 0;

			while (nd && o < nd->nopt && strcmp(nd->opt[o].probe, r->name))
				o++;
			if (!nd || o < nd->nopt || o == CARD_MAX_OPTIONS)
				continue;
			nd->opt[nd->nopt++] = (struct card_option){ .probe = r->name, .safe_when = safe ? safe : "?",
								    .analog = r->analog };
		}
	}
}

/* hi (ranked after lo) is tied with lo: over the epochs, unless the rows
 * with the op (the walk, the stores) judge it slower; from one epoch,
 * within CARD_TIE_REL or CARD_TIE_ABS. */
static bool menu_tied(const struct report *rep, enum card_basis b, const struct card_option *lo,
		      const struct card_option *hi)
{
	double x = card_option_cost(lo, b), y = card_option_cost(hi, b);
	struct judgment j;

	if (report_judge(rep, hi->probe, lo->probe, basis[b].mode, basis[b].pattern, &j) >= 2)
		return j.v != VERDICT_SLOWER;
	return y - x <= fmax(CARD_TIE_ABS, CARD_TIE_REL * fmax(fabs(x), fabs(y)));
}

/* Options with a figure of the basis first, cheapest first; the others
 * (unranked) after, by chain latency. */
static bool menu_before(const struct card_option *a, const struct card_option *b, enum card_basis bs)
{
	double x = card_option_cost(a, bs), y = card_option_cost(b, bs);

	if (isfinite(x) != isfinite(y))
		return isfinite(x);
	if (isfinite(x) && x != y)
		return x < y;
	return a->chain < b->chain || (isfinite(a->chain) && !isfinite(b->chain));
}

static void menu_rank(const struct report *rep, struct card_need *nd)
{
	bool have[] = { false, false, false };

	for (unsigned o = 0; o < nd->nopt; o++) {
		struct card_option *op = &nd->opt[o];

		op->walk = extra_median(rep, op->probe, CARD_BASIS_WALK);
		op->stores = extra_median(rep, op->probe, CARD_BASIS_STORES);
		op->chain = report_median_cycles(rep, op->probe, MODE_LATENCY, "hit");
		op->tput = report_median_cycles(rep, op->probe, MODE_THROUGHPUT, "hit");
		for (int b = 0; b < 3; b++)
			have[b] |= isfinite(card_option_cost(op, (enum card_basis)b));
	}
	nd->basis = have[CARD_BASIS_WALK] ? CARD_BASIS_WALK :
		    have[CARD_BASIS_STORES] ? CARD_BASIS_STORES : CARD_BASIS_CHAIN;
	for (unsigned o = 1; o < nd->nopt; o++) {	/* insertion sort: a handful */
		struct card_option t = nd->opt[o];
		unsigned k = o;

		for (; k > 0 && menu_before(&t, &nd->opt[k - 1], nd->basis); k--)
			nd->opt[k] = nd->opt[k - 1];
		nd->opt[k] = t;
	}
	for (unsigned o = 0; o < nd->nopt; o++) {
		struct card_option *op = &nd->opt[o];

		if (!isfinite(card_option_cost(op, nd->basis)))
			continue;	/* rank 0: not measured in the basis */
		op->tie = o > 0 && menu_tied(rep, nd->basis, &nd->opt[o - 1], op);
		op->rank = op->tie ? nd->opt[o - 1].rank : o + 1;
	}
}

static void build_menu(const struct report *rep, struct card *c)
{
	c->nneed = 0;
	menu_collect(rep, c);
	for (unsigned n = 0; n < c->nneed; n++)
		menu_rank(rep, &c->need[n]);
}

int card_build(const struct report *rep, struct card *c)
{
	memset(c, 0, sizeof(*c));
	if (!rep || !rep->n)
		return -EINVAL;
	build_cmp(rep, c);
	build_noise(rep, c);
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

/* "45.2 KiB", "996 KiB", "1.04 MiB" (the card's sizes) */
static const char *size_text(double bytes, char *buf, size_t len)
{
	bool mib = bytes >= 1 << 20;
	double v = bytes / (mib ? 1 << 20 : 1 << 10);

	snprintf(buf, len, v >= 100 ? "%.0f %s" : "%.3g %s", v, mib ? "MiB" : "KiB");
	return buf;
}

/* The measured hierarchy: each level (the size used), the pages and
 * epochs it was measured with, each size's range over the epochs, an L3
 * smaller than declared as the effective share, and TLB reach apart. */
static void write_caches(const json_t *hier, bool vm, FILE *f)
{
	const json_t *levels = json_object_get(hier, "levels"), *lv, *tlb = json_object_get(hier, "tlb");
	double page = json_number_value(json_object_get(json_object_get(hier, "pages"), "page_bytes"));
	const char *src = json_string_value(json_object_get(json_object_get(hier, "pages"), "source"));
	int epochs = (int)json_integer_value(json_object_get(hier, "epochs"));
	char a[32], b[32];
	size_t i;

	if (!json_array_size(levels)) {
		fprintf(f, "caches    measured hierarchy not in this report\n");
		return;
	}
	fprintf(f, "caches   ");
	json_array_foreach(levels, i, lv) {
		const char *name = json_string_value(json_object_get(lv, "level"));

		if (json_is_true(json_object_get(lv, "memory")))
			fprintf(f, " %sDRAM %.0f ns", i ? "| " : "", json_number_value(json_object_get(lv, "ns")));
		else
			fprintf(f, " %s%s %s %.1f cyc", i ? "| " : "", name ? name : "?",
				size_text(json_number_value(json_object_get(lv, "size_bytes")), a, sizeof(a)),
				json_number_value(json_object_get(lv, "cycles")));
	}
	if (epochs)
		fprintf(f, " (measured: %d epoch%s, %s pages%s%s)\n", epochs, epochs == 1 ? "" : "s",
			page >= 1 << 21 ? "2 MiB" : "4 KiB", page >= 1 << 21 ? "" : ": huge pages not had, ",
			page >= 1 << 21 ? "" : src ? src : "?");
	else
		fprintf(f, " (measured)\n");
	if (epochs) {
		fprintf(f, "          sizes over the epochs:");
		json_array_foreach(levels, i, lv) {
			if (!(json_number_value(json_object_get(lv, "size_min")) > 0))
				continue;
			size_text(json_number_value(json_object_get(lv, "size_min")), a, sizeof(a));
			size_text(json_number_value(json_object_get(lv, "size_max")), b, sizeof(b));
			fprintf(f, "%s %s %s%s%s", i ? "," : "", json_string_value(json_object_get(lv, "level")), a,
				strcmp(a, b) ? "-" : "", strcmp(a, b) ? b : "");
		}
		fputc('\n', f);
	}
	json_array_foreach(levels, i, lv) {
		double hw = json_number_value(json_object_get(lv, "hwloc_size"));
		const char *name = json_string_value(json_object_get(lv, "level"));

		size_text(json_number_value(json_object_get(lv, "size_bytes")), a, sizeof(a));
		if (hw > 0 && json_is_true(json_object_get(lv, "effective_share")))
			fprintf(f, "          %s effective share about %s of %s declared: shared with other %s\n",
				name, a, size_text(hw, b, sizeof(b)), vm ? "tenants" : "cores");
		else if (hw > 0 && json_is_false(json_object_get(lv, "agrees")))
			fprintf(f, "          warning: hwloc declares %s = %s, measured about %s: the patterns use "
				"the measured size\n", name, size_text(hw, b, sizeof(b)), a);
	}
	if (json_is_object(tlb) && json_number_value(json_object_get(tlb, "reach_bytes")) > 0)
		fprintf(f, "          TLB reach about %s (4 KiB pages cost more past it; not a cache level)\n",
			size_text(json_number_value(json_object_get(tlb, "reach_bytes")), a, sizeof(a)));
	else if (json_is_object(tlb))
		fprintf(f, "          TLB: 4 KiB and 2 MiB pages walk alike up to %s (huge pages did not move "
			"the staircase here)\n",
			size_text(json_number_value(json_object_get(tlb, "compared_to_bytes")), a, sizeof(a)));
}

static void write_machine(const struct report *rep, FILE *f)
{
	const json_t *fp = fingerprint_of_meta(rep->meta);
	const json_t *hv = json_object_get(fp, "hypervisor");
	const json_t *hier = rep->sections ? json_object_get(rep->sections, "hierarchy") : NULL;
	bool vm = json_is_true(json_object_get(hv, "cpuid_flag"));

	fprintf(f, "machine   %s (family %s model %s, microcode %s)\n", fp_str(fp, "cpu", "model_name"),
		fp_str(fp, "cpu", "family"), fp_str(fp, "cpu", "model"), fp_str(fp, "cpu", "microcode"));
	fprintf(f, "          %s %s, %s, %s\n", fp_str(fp, "kernel", "sysname"),
		fp_str(fp, "kernel", "release"),
		!hv ? "VM or not: unknown" : vm ? "virtual machine (hypervisor flag set)" : "no hypervisor flag",
		rep->topo_summary[0] ? rep->topo_summary : "topology unknown");
	fprintf(f, "clock     core %.3f GHz, cycles: %s; %s\n", rep->cal.core_hz / 1e9,
		rep->cal.cycle_source ? rep->cal.cycle_source : "?",
		rep->cal.trustworthy ? "calibration trustworthy" : "CALIBRATION NOT TRUSTWORTHY");
	write_caches(hier, vm, f);
}

static const char *mode_word(enum probe_mode m)
{
	return m == MODE_LATENCY ? "latency" : "throughput";
}

const char *card_part_word(const struct card_part *p, char *buf, size_t len)
{
	const struct judgment *j = &p->j;

	if (!p->a)
		snprintf(buf, len, "not measured");
	else if (j->v == VERDICT_SLOWER || j->v == VERDICT_FASTER)
		snprintf(buf, len, "%s %.2fx", stats_verdict_name(j->v), j->ratio);
	else if (j->v == VERDICT_SAME)
		snprintf(buf, len, "same");
	else if (j->v == VERDICT_NONE)
		snprintf(buf, len, "no verdict");
	else
		snprintf(buf, len, "unresolved");
	return buf;
}

const char *card_diff_cell(const struct card_part *p, char *buf, size_t len)
{
	if (!p->a)
		snprintf(buf, len, "-");
	else if (isfinite(p->j.diff_lo))
		snprintf(buf, len, "%+.1f [%+.1f,%+.1f]", p->j.diff, p->j.diff_lo, p->j.diff_hi);
	else
		snprintf(buf, len, "%+.1f", p->j.diff);
	return buf;
}

const char *card_part_cell(const struct card_part *p, char *buf, size_t len)
{
	char w[32];

	if (!p->a)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f %s", p->j.diff, card_part_word(p, w, sizeof(w)));
	return buf;
}

static void write_atomicity(const struct report *rep, const struct card *c, FILE *f)
{
	const struct result *a, *n;

	if (!c->pair_atomic) {
		fprintf(f, "atomicity not measured (no atomic/non-atomic twin pair in this report)\n");
		return;
	}
	a = find(rep, c->pair_atomic, MODE_LATENCY, "hit");
	n = find(rep, c->pair_plain, MODE_LATENCY, "hit");
	fprintf(f, "atomicity %s (%s) against %s (%s): they differ in %s\n", c->pair_atomic, a->insn,
		c->pair_plain, n->insn, c->differs);
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
}

/* Whether the run was quiet enough, and what it left unresolved. */
static void write_noise(const struct card *c, FILE *f)
{
	bool disturbed = c->disturbed_epochs > 0;

	fprintf(f, "noise     %u epoch%s, each with fresh buffers, pinning and calibration; ", c->epochs,
		c->epochs == 1 ? "" : "s");
	if (disturbed)
		fprintf(f, "DISTURBED: in %u the thread had its CPU under %.0f%% of the time (lowest %.0f%%) or "
			   "over %.0f%% of the samples saw a context switch (worst %.0f%%)", c->disturbed_epochs,
			CARD_CPU_SHARE * 100, c->cpu_share * 100, CARD_DISTURBED * 100, c->disturbed * 100);
	else
		fprintf(f, "quiet (the thread had its CPU %.0f%% of the time or more)", c->cpu_share * 100);
	if (c->ghz_hi > 0)
		fprintf(f, "; core clock %.2f-%.2f GHz over them", c->ghz_lo, c->ghz_hi);
	fputc('\n', f);
	if (!c->unresolved)
		return;
	fprintf(f, "          unresolved:");
	for (unsigned i = 0, k = 0; i < c->ncmp; i++)
		if (c->cmp[i].pair.a && (c->cmp[i].pair.j.v == VERDICT_UNRESOLVED || c->cmp[i].pair.j.v == VERDICT_NONE))
			fprintf(f, "%s %s", k++ ? "," : "", c->cmp[i].what);
	fprintf(f, " (%s)\n", c->epochs < 2 ? "one epoch cannot be judged: --epochs 5" :
		disturbed ? "a quieter machine or more epochs would settle them" :
		"the difference sits near the margin or the epochs spread too far");
}

const char *card_split_text(const struct report *rep, char *buf, size_t len)
{
	const json_t *sl = rep->sections ? json_object_get(rep->sections, "splitlock") : NULL;
	/* the denominator: the report's aligned atomic_inc hit latency row
	 * (the session puts it in the section), in older reports the
	 * probe's own aligned ops */
	const json_t *den = json_object_get(sl, "ratio_denominator");
	const char *what = json_string_value(json_object_get(den, "what"));

	if (!sl)
		snprintf(buf, len, "not measured");
	else if (json_object_get(sl, "skipped"))
		snprintf(buf, len, "skipped (%s)", json_string_value(json_object_get(sl, "skipped")));
	else if (!json_is_true(json_object_get(sl, "supported")))
		snprintf(buf, len, "no split lock on this architecture");
	else if (json_is_true(json_object_get(sl, "sigbus")))
		snprintf(buf, len, "a locked op across two cache lines is killed here (SIGBUS)");
	else
		snprintf(buf, len, "a locked op across two cache lines: %.0f ns against %.1f ns %s (%.0fx)",
			 json_number_value(json_object_get(sl, "split_ns")),
			 json_number_value(json_object_get(den ? den : sl, den ? "ns" : "aligned_ns")),
			 what && strstr(what, "atomic_inc") ? "for an aligned atomic_inc" : "aligned",
			 json_number_value(json_object_get(sl, "ratio")));
	return buf;
}

/* The split lock (splitlock section): what a locked op across two cache
 * lines costs here, and what the kernel does about it. */
static void write_splitlock(const struct report *rep, FILE *f)
{
	const json_t *sl = rep->sections ? json_object_get(rep->sections, "splitlock") : NULL;
	const char *why = json_string_value(json_object_get(json_object_get(sl, "kernel"), "why"));
	char t[256];

	fprintf(f, "split     %s\n", card_split_text(rep, t, sizeof(t)));
	if (json_is_true(json_object_get(sl, "supported")) && !json_object_get(sl, "skipped"))
		fprintf(f, "          kernel: %s\n", why ? why : "mode unknown");
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
	fprintf(f, "fast-path menu: the cycles an op adds to independent work (walk: an L1 pointer walk;\n"
		   "          stores: 4 pending stores), cheapest first, = tied with the one above (not\n"
		   "          resolved); chain latency and best throughput beside:\n");
	if (c->nneed)
		fprintf(f, "  %-27s %7s %7s %7s %7s  %s\n", "", "walk", "stores", "chain", "tput", "safe when");
	else
		fprintf(f, "  not in this report (no result names a need: a report from before the menu was "
			   "drawn from the results)\n");
	for (unsigned n = 0; n < c->nneed; n++) {
		const struct card_need *nd = &c->need[n];

		fprintf(f, "  %s%s:\n", nd->need, nd->basis == CARD_BASIS_WALK ? "" :
			nd->basis == CARD_BASIS_STORES ? " (no walk rows: ranked after the stores)" :
			" (no context rows: ranked by chain latency)");
		for (unsigned o = 0; o < nd->nopt; o++) {
			const struct card_option *op = &nd->opt[o];
			char rank[16], w[16], st[16], ch[16], tp[16];

			snprintf(rank, sizeof(rank), op->rank ? "%s%u" : "-", op->tie ? "=" : "", op->rank);
			card_cost_text(op->walk, true, w, sizeof(w));
			card_cost_text(op->stores, true, st, sizeof(st));
			card_cost_text(op->chain, false, ch, sizeof(ch));
			card_cost_text(op->tput, false, tp, sizeof(tp));
			fprintf(f, "  %4s %-22s %7s %7s %7s %7s  %s%s\n", rank, op->probe, w, st, ch, tp,
				op->safe_when, op->analog ? " [analog: not the real primitive]" : "");
		}
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
	write_atomicity(rep, &c, f);
	write_noise(&c, f);
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

static json_t *part_json(const struct card_part *p)
{
	if (!p->a)
		return json_null();
	return json_pack("{s:s, s:s, s:o, s:o, s:s, s:i, s:o, s:o, s:o}", "a", p->a, "b", p->b, "a_cycles",
			 num_or_null(p->a_cyc), "b_cycles", num_or_null(p->b_cyc), "verdict",
			 stats_verdict_name(p->j.v), "epochs", (json_int_t)p->j.n, "diff_cycles",
			 isfinite(p->j.diff) ? json_real(p->j.diff) : json_null(), "diff_lo",
			 isfinite(p->j.diff_lo) ? json_real(p->j.diff_lo) : json_null(), "diff_hi",
			 isfinite(p->j.diff_hi) ? json_real(p->j.diff_hi) : json_null());
}

json_t *card_to_json(const struct report *rep)
{
	struct card c;
	json_t *o, *cmp, *share, *menu_j;

	if (card_build(rep, &c))
		return json_null();
	cmp = json_array();
	for (unsigned i = 0; i < c.ncmp; i++)
		json_array_append_new(cmp, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o}", "what",
			c.cmp[i].what, "pattern", c.cmp[i].pattern, "mode", mode_word(c.cmp[i].mode),
			"atomic_cycles", num_or_null(c.cmp[i].pair.a_cyc), "plain_cycles",
			num_or_null(c.cmp[i].pair.b_cyc), "verdict", stats_verdict_name(c.cmp[i].pair.j.v),
			"pair", part_json(&c.cmp[i].pair), "lock", part_json(&c.cmp[i].lock),
			"insn", part_json(&c.cmp[i].insn)));
	share = json_array();
	for (unsigned i = 0; i < c.nshare; i++)
		json_array_append_new(share, json_pack("{s:s, s:o, s:o, s:o}", "placement", c.share[i].placement,
			"true_share", num_or_null(c.share[i].true_share),
			"false_share", num_or_null(c.share[i].false_share),
			"no_share", num_or_null(c.share[i].no_share)));
	menu_j = json_array();
	for (unsigned n = 0; n < c.nneed; n++) {
		json_t *opts = json_array();

		/* cycles: the chain latency, as before the menu was ranked in context */
		for (unsigned k = 0; k < c.need[n].nopt; k++) {
			const struct card_option *op = &c.need[n].opt[k];

			json_array_append_new(opts, json_pack("{s:s, s:i, s:b, s:o, s:o, s:o, s:o, s:s, s:b}",
				"probe", op->probe, "rank", (json_int_t)op->rank, "tie", op->tie,
				"walk_cycles", isfinite(op->walk) ? json_real(op->walk) : json_null(),
				"stores_cycles", isfinite(op->stores) ? json_real(op->stores) : json_null(),
				"cycles", num_or_null(op->chain), "tput_cycles", num_or_null(op->tput),
				"safe_when", op->safe_when, "analog", op->analog));
		}
		json_array_append_new(menu_j, json_pack("{s:s, s:s, s:o}", "need", c.need[n].need, "ranked_by",
							card_basis_name(c.need[n].basis), "options", opts));
	}
	o = json_pack("{s:s?, s:s?, s:s?, s:s, s:i, s:f, s:i, s:f, s:o, s:s?, s:o, s:o}", "atomic",
		      c.pair_atomic, "plain", c.pair_plain, "unlocked", c.lock_plain, "differs", c.differs,
		      "epochs", (json_int_t)c.epochs, "disturbed", c.disturbed, "disturbed_epochs",
		      (json_int_t)c.disturbed_epochs, "cpu_share", c.cpu_share, "atomicity", cmp,
		      "sharing_probe", c.share_probe, "sharing", share, "menu", menu_j);
	return o;
}
