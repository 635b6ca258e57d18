/* SPDX-License-Identifier: MIT */
/* card.c - the machine card (card.h): computed from a report, never
 * measured here. */
#include "card.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "compare.h"

/* The comparisons of the atomicity paragraph, in reading order (docs/card.md). */
static const struct {
	const char *what, *pattern;
	enum probe_mode mode;
	const char *chart;	/* label in the ratio chart; NULL: not there */
} cmp_rows[] = {
	{ "hot line, independent ops", "hit", MODE_THROUGHPUT, "hit, throughput" },
	{ "hot line, dependency chain", "hit", MODE_LATENCY, "hit, latency" },
	{ "L1 walk, op on another word", "dep", MODE_LATENCY, "dep" },
	{ "L1 walk, op on the followed word", "dep+ptr", MODE_LATENCY, NULL },
	{ "L2 walk, op on another word", "l2", MODE_LATENCY, "l2" },
	{ "LLC walk, op on another word", "llc", MODE_LATENCY, "llc" },
	{ "DRAM walk, op on another word", "miss", MODE_LATENCY, "miss" },
};

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
	static const char suffix[] = "bwlq", *const width[] = { "byte", "word", "dword", "qword" };
	size_t n = strlen(mn);
	const char *k = n ? strchr(suffix, mn[n - 1]) : NULL;

	if (n > 3 && !strcmp(mn + n - 3, "16b"))
		return "16 bytes";
	return k ? width[k - suffix] : NULL;
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
	if (!strcmp(ma, mb))
		snprintf(c->differs, sizeof(c->differs), "%s",
			 strncmp(a->insn, "lock ", 5) ? "not in a lock prefix" : "the lock prefix only");
	else if ((wa = width_of(ma)) && (wb = width_of(mb)) && strcmp(wa, wb))
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
	*p = (struct card_part){ .j.v = VERDICT_NONE };
	if (!a || !b)
		return;
	p->a_cyc = report_median_cycles(rep, a, m, pattern);
	p->b_cyc = report_median_cycles(rep, b, m, pattern);
	if (!isfinite(p->a_cyc) || !isfinite(p->b_cyc))
		return;
	p->a = a;
	p->b = b;
	report_judge(rep, RESULT_USER, a, b, m, pattern, &p->j);
}

/* The first hit latency row of the lowest rank over `above` on a card line
 * (from the descriptors, no names here): result.card_pair, of a row whose
 * twin was measured there too, else card_order. */
static const struct result *lowest_row(const struct report *rep, bool pair, unsigned above)
{
	const struct result *best = NULL;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		unsigned k = pair ? r->card_pair : r->card_order;

		if (k > above && (!best || k < (pair ? best->card_pair : best->card_order)) &&
		    r->mode == MODE_LATENCY && !strcmp(r->pattern, "hit") &&
		    (!pair || report_find(rep, r->twin, MODE_LATENCY, "hit", r->context)))
			best = r;
	}
	return best;
}

static void build_cmp(const struct report *rep, struct card *c)
{
	const struct result *a = lowest_row(rep, true, 0), *n;

	if (!a)
		return;
	n = report_find(rep, a->twin, MODE_LATENCY, "hit", a->context);
	c->pair_atomic = a->name;
	c->pair_plain = n->name;
	describe_pair(a, n, c);
	c->atomic_insn = a->insn;
	c->plain_insn = n->insn;
	c->lock_plain = unlocked_twin(rep, a);
	if (c->lock_plain && !strcmp(c->lock_plain, c->pair_plain))
		c->lock_plain = NULL;	/* the pair is the lock prefix alone */
	for (size_t i = 0; i < ARRAY_SIZE(cmp_rows); i++) {
		struct card_cmp *k = &c->cmp[c->ncmp];

		*k = (struct card_cmp){ .what = cmp_rows[i].what, .pattern = cmp_rows[i].pattern,
					.mode = cmp_rows[i].mode };
		judge_part(rep, c->pair_atomic, c->pair_plain, k->pattern, k->mode, &k->pair);
		if (!k->pair.a && strchr(k->pattern, '+'))
			continue;	/* a named variant this report lacks: no line */
		judge_part(rep, c->pair_atomic, c->lock_plain, k->pattern, k->mode, &k->lock);
		judge_part(rep, c->lock_plain, c->pair_plain, k->pattern, k->mode, &k->insn);
		c->ncmp++;
		k->unresolved = k->pair.a && (k->pair.j.v == VERDICT_UNRESOLVED || k->pair.j.v == VERDICT_NONE);
		c->unresolved += k->unresolved;
	}
}

/* How disturbed the epochs were: the share of each epoch's samples that
 * saw a context switch or a migration, and the share of its time the
 * thread had its CPU (meta.epochs: a task sharing the PU takes it without a
 * switch inside most samples); and the core clock over the epochs (it moves
 * with boost: it informs, it does not disturb). */
static void build_noise(const struct report *rep, struct card *c)
{
	struct epoch_meta e[REPORT_MAX_EPOCHS];
	size_t ne = report_epochs(rep, e, REPORT_MAX_EPOCHS);
	bool bad[JUDGE_MAX_EPOCHS + 1] = { false };

	c->cpu_share = 1;
	for (int ep = 0; ep <= compare_max_epoch(rep) && ep <= JUDGE_MAX_EPOCHS; ep++) {
		double dist = 0, all = 0;

		for (size_t k = 0; k < rep->n; k++)
			if (result_epoch(&rep->r[k]) == ep) {
				dist += rep->r[k].disturbed > 0 ? (double)rep->r[k].disturbed : 0;
				all += (double)rep->r[k].nsamples;
			}
		if (!(all > 0))
			continue;
		c->disturbed = fmax(c->disturbed, dist / all);
		bad[ep] = dist / all > CARD_DISTURBED;
		c->epochs = (unsigned)ep;	/* the last with rows (1-based; 0: none) */
	}
	for (size_t k = 0; k < rep->n; k++) {
		const struct result *r = &rep->r[k];
		c->chained += r->clock_source == RESULT_CLOCK_CHAIN && report_drift_tells(rep, result_process(r));
		c->drifted += result_drifted(rep, r);
	}
	for (size_t i = 0; i < ne; i++) {
		int ep = e[i].epoch;
		double ghz = e[i].timer_hz / e[i].ticks_per_cycle / 1e9;

		if (e[i].ticks_per_cycle > 0 && e[i].timer_hz > 0) {
			c->ghz_lo = c->ghz_lo > 0 ? fmin(c->ghz_lo, ghz) : ghz;
			c->ghz_hi = fmax(c->ghz_hi, ghz);
		}
		if (isfinite(e[i].cpu_share)) {
			c->cpu_share = fmin(c->cpu_share, e[i].cpu_share);
			if (ep >= 0 && ep <= JUDGE_MAX_EPOCHS && e[i].cpu_share < CARD_CPU_SHARE)
				bad[ep] = true;
		}
	}
	for (int ep = 0; ep <= JUDGE_MAX_EPOCHS; ep++)
		c->disturbed_epochs += bad[ep];
}


const char *card_load_text(const struct card *c, char *buf, size_t len)
{
	const struct characterization_meta *m = c->load;
	size_t l;

	if (!m)
		return NULL;
	l = (size_t)snprintf(buf, len, "on CPU %d (%s); ", m->cpu, m->cpu_why);
	if (l < len && !m->repeated && !(m->waited_s > 0.05))
		l += (size_t)snprintf(buf + l, len - l, "nothing waited for or run again");
	else if (l < len)
		l += (size_t)snprintf(buf + l, len - l, "waited %.1f s for quiet, ran %d stretch%s again", m->waited_s,
				      m->repeated, m->repeated == 1 ? "" : "es");	/* "0 stretches": waited in vain */
	if (l < len)
		l += (size_t)snprintf(buf + l, len - l, " (patience %.0f s)", m->patience_s);
	if (l < len && m->kept_disturbed)
		snprintf(buf + l, len - l, "; KEPT DISTURBED: %d stretch%s as measured, %s (every sample; "
			 "judged with the others)", m->kept_disturbed, m->kept_disturbed == 1 ? "" : "es",
			 m->kept_why[0] ? m->kept_why : "the patience ran out");
	return buf;
}

const char *card_cal_why(const struct calibration *cal, char *buf, size_t len)
{
	snprintf(buf, len, "%s", "");
	if (cal->trustworthy)
		return buf;
	if (cal->emulated)
		snprintf(buf, len, "running under emulation: %s", cal->emulation);
	else if (!(cal->chain_agreement < 0.01))
		snprintf(buf, len, "its add and imul chains %.1f%% apart (over 1%%: another task had the CPU, "
			 "or the clock moved)", cal->chain_agreement * 100);
	else if (!(cal->timer_hz_spread < 0.01))
		snprintf(buf, len, "its timer frequency windows %.1f%% apart", cal->timer_hz_spread * 100);
	else
		snprintf(buf, len, "the timer is not invariant (no constant_tsc and nonstop_tsc)");
	return buf;
}

const char *card_part_word(const struct card_part *p, char *buf, size_t len)
{
	enum verdict v = p->j.v;

	if (p->a && (v == VERDICT_SLOWER || v == VERDICT_FASTER))
		snprintf(buf, len, "%s %.2fx", stats_verdict_name(v), p->j.ratio);
	else
		snprintf(buf, len, "%s", !p->a ? "not measured" : v == VERDICT_SAME ? "same" :
			 v == VERDICT_NONE ? "no verdict" : "unresolved");
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

/* The ordering line's pair: the two lowest card_order. */
static void build_order(const struct report *rep, struct card *c)
{
	const struct result *a = lowest_row(rep, false, 0);
	const struct result *b = a ? lowest_row(rep, false, a->card_order) : NULL;

	judge_part(rep, a ? a->name : NULL, b ? b->name : NULL, "hit", MODE_LATENCY, &c->order);
	if (!c->order.a)
		return;
	c->order_insn_a = a->insn;
	c->order_insn_b = b->insn;
}

const char *card_order_text(const struct card *c, char *buf, size_t len)
{
	const struct card_part *p = &c->order;
	enum verdict v = p->j.v;

	if (!p->a)
		snprintf(buf, len, "not measured (no full-barrier rows in this report)");
	else
		snprintf(buf, len, "%s (%s) %.1f cyc, %s (%s) %.1f cyc behind a pending store: %s%s", p->a,
			 c->order_insn_a, p->a_cyc, p->b, c->order_insn_b, p->b_cyc,
			 v == VERDICT_FASTER ? p->a : v == VERDICT_SLOWER ? p->b : "",
			 v == VERDICT_FASTER || v == VERDICT_SLOWER ? " cheapest" :
			 v == VERDICT_SAME ? "the same" : "cannot tell which is cheaper");
	return buf;
}

/* ---- the machine and the sections -------------------------------------- */

const char *card_size_text(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB" };
	double v = bytes / 1024;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v >= 100 ? "%.0f %s" : "%.3g %s", v, unit[u]);
	return buf;
}

/* The staircase in footprint order: the caches, the shelves between the
 * last cache and memory, memory. The first shelf is the share of the next
 * cache level hwloc declares (docs/hierarchy.md: a shared L3 of which this
 * PU gets a part, the rest of the chase going to memory), when hwloc
 * declares one larger than the shelf reaches. */
static void build_steps(struct card *c)
{
	const struct hierarchy_section *h = c->hier;
	size_t ncaches = 0;

	for (size_t i = 0; h && i < h->nlevels; i++)
		ncaches += !h->levels[i].memory;
	for (size_t i = 0; h && i < h->nlevels + h->nshelves && c->nstep < CARD_MAX_STEPS; i++) {
		bool shelf = i >= ncaches && i < ncaches + h->nshelves;
		const struct hier_level_out *l = i < ncaches ? &h->levels[i] : shelf ? &h->shelves[i - ncaches] :
						 &h->levels[i - h->nshelves];
		struct card_step *s = &c->step[c->nstep++];

		*s = (struct card_step){ .l = l, .shelf = shelf };
		if (shelf && i == ncaches && ncaches < h->nhwloc_caches &&
		    (long long)h->hwloc_caches[ncaches] > l->last_bytes) {
			s->declared = (long long)h->hwloc_caches[ncaches];
			snprintf(s->name, sizeof(s->name), "L%u shelf", (unsigned)(ncaches + 1) % 10);
		} else {
			snprintf(s->name, sizeof(s->name), "%s",
				 shelf ? "shelf" : l->memory ? "DRAM" : hier_level_name(l));
		}
	}
}

const char *card_step_text(const struct card_step *s, char *buf, size_t len)
{
	const struct hier_level_out *l = s->l;
	char a[32], b[32], d[32];

	if (l->memory)
		snprintf(buf, len, "DRAM %.0f ns", l->ns);
	else if (s->shelf)
		snprintf(buf, len, "%s %s-%s %.0f ns%s%s%s", s->name, card_size_text((double)l->first_bytes, a, sizeof(a)),
			 card_size_text((double)l->last_bytes, b, sizeof(b)), l->ns, s->declared ? ", of " : "",
			 s->declared ? card_size_text((double)s->declared, d, sizeof(d)) : "",
			 s->declared ? " declared" : "");
	else
		snprintf(buf, len, "%s %s %.1f cyc", s->name, card_size_text((double)l->size_bytes, a, sizeof(a)),
			 l->cycles);
	return buf;
}

/* The footprint each walk of the atomicity lines covered (its rows'
 * extra.pattern), and the step of the staircase it lies in: a walk sized
 * from hwloc's declared L3 can land in a shelf, or between two steps. */
static void build_walks(const struct report *rep, struct card *c)
{
	static const char *const walks[] = { "dep", "l2", "llc", "miss" };
	static const char *const label[] = { "L1", "L2", "LLC", "DRAM" };	/* as the lines say */

	for (size_t w = 0; w < ARRAY_SIZE(walks); w++) {
		struct card_walk *k = &c->walk[c->nwalk];

		for (size_t i = 0; i < rep->n && !k->pattern; i++) {
			const struct result *r = &rep->r[i];

			if (!strcmp(r->pattern, walks[w]) && r->extra.pattern.has & 1u << PX_FOOTPRINT)
				*k = (struct card_walk){ .pattern = walks[w], .label = label[w],
							.bytes = r->extra.pattern.footprint_bytes };
		}
		if (!k->pattern)
			continue;
		c->nwalk++;
		for (unsigned s = 0; s < c->nstep && !k->step; s++) {
			const struct hier_level_out *l = c->step[s].l;

			if (k->bytes < l->first_bytes && s) {
				char t[sizeof(k->between)];

				snprintf(t, sizeof(t), "between %s and %s", c->step[s - 1].name, c->step[s].name);
				memcpy(k->between, t, sizeof(t));
				k->step = k->between;
			} else if (k->bytes <= l->last_bytes || l->memory) {
				k->step = c->step[s].name;
			}
		}
	}
}

const char *card_vm_text(int vm)
{
	return vm < 0 ? "VM or not: unknown" : vm ? "virtual machine (hypervisor flag set)" : "no hypervisor flag";
}

const char *card_split_text(const struct card_split *s, char *buf, size_t len)
{
	static const char *const said[] = {
		[CARD_SPLIT_NONE] = "not measured",
		[CARD_SPLIT_UNSUPPORTED] = "no split lock on this architecture",
		[CARD_SPLIT_SIGBUS] = "a locked op across two cache lines is killed here (SIGBUS)",
	};

	if (s->state == CARD_SPLIT_SKIPPED)
		snprintf(buf, len, "skipped (%s)", s->skipped ? s->skipped : "?");
	else if (s->state == CARD_SPLIT_MEASURED)
		snprintf(buf, len, "a locked op across two cache lines: %.0f ns against %.1f ns %s (%.0fx)",
			 s->split_ns, s->aligned_ns, s->vs_atomic_inc ? "for an aligned atomic_inc" : "aligned",
			 s->ratio);
	else
		snprintf(buf, len, "%s", said[s->state]);
	return buf;
}

const char *card_split_trap_text(double split_ns, int vm)
{
	if (!(split_ns > SPLITLOCK_TRAPPED_NS))
		return NULL;
	return vm > 0 ? "far beyond a bus lock (about 1 us): the host likely traps split locks (split-lock detection "
			"on the host, invisible to this guest's kernel); a workload with split locks pays this for "
			"each, and the host may also log, slow or stop the guest for them: align the data" :
			"far beyond a bus lock (about 1 us): something under this kernel traps split locks (firmware "
			"or a hypervisor that sets no hypervisor flag); a workload with split locks pays this for "
			"each: align the data";
}

/* The c2c round trip of one pair per topology class (c2c section). */
static void build_c2c(const struct report *rep, struct card *c)
{
	const struct c2c_out *o = rep->c2c;

	for (size_t i = 0; o && i < o->npairs && c->nc2c < C2C_MAX_PAIRS; i++)
		if (o->pairs[i].ns.has)
			c->c2c[c->nc2c++] = &o->pairs[i];
	for (size_t i = 0; o && i < o->nabsent; i++)
		c->c2c_absent[c->nabsent++] = o->absent[i];
}

/* The placement of a contention row; NULL for another row. */
static const char *placement_of(const struct result *r)
{
	const struct contention_part *ct = result_contention(r);

	return ct && ct->placement[0] ? ct->placement : NULL;
}

/* Whether the threads of a case ran together in every epoch. */
static bool overlapped(const struct report *rep, const struct result *q, const char *pl)
{
	const struct contention_part *ct;

	for (size_t i = 0; i < rep->n; i++)
		if (rep->r[i].mode == q->mode && !strcmp(rep->r[i].name, q->name) && !strcmp(rep->r[i].pattern, q->pattern) &&
		    (ct = result_contention(&rep->r[i])) && !strcmp(ct->placement, pl) && ct->overlapped == 0)
			return false;
	return true;
}

/* True, false and no sharing of every contention probe on each placement:
 * one group per probe and placement, started at its true-share row. */
static void build_cases(const struct report *rep, struct card *c)
{
	for (size_t i = 0; i < rep->n && c->ncase + SHARING__COUNT <= CARD_MAX_CASES; i++) {
		const struct result *r = &rep->r[i];
		const char *pl = placement_of(r);

		if (!pl || strcmp(r->pattern, contention_sharing_pattern(SHARING_TRUE)) ||
		    !compare_group_first(rep, i))
			continue;
		for (int k = 0; k < SHARING__COUNT; k++)
			for (size_t j = 0; j < rep->n; j++) {
				const struct result *q = &rep->r[j];
				const char *pattern = contention_sharing_pattern(k);

				if (strcmp(q->name, r->name) || strcmp(q->pattern, pattern) ||
				    !compare_group_first(rep, j) || strcmp(placement_of(q) ?: "", pl))
					continue;
				c->cases[c->ncase++] = (struct card_case){
					.probe = q->name, .placement = pl, .pattern = pattern,
					.cycles = report_median_cycles(rep, q->name, q->mode, q->pattern),
					.no_overlap = !overlapped(rep, q, pl), .share_rank = q->card_share,
				};
				break;
			}
	}
}

/* The sharing line: the cases of the lowest result.card_share by placement;
 * a case whose threads did not run together is left out, and said. */
static void build_share(struct card *c)
{
	const struct card_case *best = NULL;

	for (unsigned i = 0; i < c->ncase; i++)
		if (c->cases[i].share_rank && (!best || c->cases[i].share_rank < best->share_rank))
			best = &c->cases[i];
	c->share_probe = best ? best->probe : NULL;
	for (unsigned i = 0; c->share_probe && i < c->ncase; i++) {
		const struct card_case *k = &c->cases[i];
		struct card_share *s = NULL;

		if (strcmp(k->probe, c->share_probe) || !isfinite(k->cycles))
			continue;
		for (unsigned j = 0; j < c->nshare && !s; j++)
			if (!strcmp(c->share[j].placement, k->placement))
				s = &c->share[j];
		if (!s && c->nshare == CARD_MAX_SHARE)
			continue;
		if (!s)
			s = memset(&c->share[c->nshare++], 0, sizeof(*s));
		s->placement = k->placement;
		if (k->no_overlap)
			s->not_overlapped = true;
		else
			*(k->pattern[0] == 't' ? &s->true_share : k->pattern[0] == 'f' ? &s->false_share :
			  &s->no_share) = k->cycles;
	}
}

const char *card_ratio_label(unsigned cat)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmp_rows); i++)
		if (cmp_rows[i].chart && !cat--)
			return cmp_rows[i].chart;
	return NULL;
}

/* Atomic over non-atomic by pattern: the twin pairs measured under the
 * patterns (dep), else those of the hot line, each judged in every
 * pattern of the chart. */
static void build_ratio(const struct report *rep, struct card *c)
{
	for (size_t i = 0; i < 2 * rep->n && c->nratio < CARD_MAX_RATIO; i++) {
		const struct result *r = &rep->r[i % rep->n], *t;
		bool seen = false;

		if (i == rep->n && c->nratio)
			break;
		if (!r->twin[0] || card_atomic_rank(r) != 2 || strcmp(r->pattern, i < rep->n ? "dep" : "hit"))
			continue;
		t = report_find(rep, r->twin, r->mode, r->pattern, r->context);
		if (!t || card_atomic_rank(t) >= 2)
			continue;
		for (unsigned k = 0; k < c->nratio; k++)
			seen |= !strcmp(c->ratio[k].atomic, r->name);
		if (seen)
			continue;
		c->ratio[c->nratio].atomic = r->name;
		c->ratio[c->nratio].plain = r->twin;
		for (size_t k = 0, g = 0; k < ARRAY_SIZE(cmp_rows); k++)
			if (cmp_rows[k].chart)
				judge_part(rep, r->name, r->twin, cmp_rows[k].pattern, cmp_rows[k].mode,
					   &c->ratio[c->nratio].part[g++]);
		c->nratio++;
	}
}

/* ---- the fast-path menu: from the results' extra.menu_need and
 * extra.safe_when alone (docs/card.md), no list of names here. */
static const struct {
	const char *name, *pattern;	/* the row whose figure over the bare work ranks */
	enum probe_mode mode;
} basis[] = {
	[CARD_BASIS_WALK] = { "walk", "dep", MODE_LATENCY },		/* over_chase_cycles */
	[CARD_BASIS_STORES] = { "stores", "hit+stores", MODE_THROUGHPUT },	/* over_stores_cycles */
	[CARD_BASIS_CHAIN] = { "chain", "hit", MODE_LATENCY },
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
		bool walk = b == CARD_BASIS_WALK;

		if (r->mode != basis[b].mode || strcmp(r->name, name) || strcmp(r->pattern, basis[b].pattern))
			continue;
		if (r->extra.has & 1u << (walk ? RX_OVER_CHASE : RX_OVER_STORES))
			v[n++] = walk ? r->extra.chase.over : r->extra.stores.over;
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

		for (size_t k = 0; k < r->extra.nneed; k++) {
			struct card_need *nd = need_of(c, r->extra.menu_need[k]);
			unsigned o = 0;

			while (nd && o < nd->nopt && strcmp(nd->opt[o].probe, r->name))
				o++;
			if (!nd || o < nd->nopt || o == CARD_MAX_OPTIONS)
				continue;
			nd->opt[nd->nopt++] = (struct card_option){
				.probe = r->name, .analog = r->analog,
				.safe_when = r->extra.safe_when[0] ? r->extra.safe_when : "?" };
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

	if (report_judge(rep, RESULT_USER, hi->probe, lo->probe, basis[b].mode, basis[b].pattern, &j) >= 2)
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

/* ---- the menu under contention: the options' true-sharing contention
 * rows at N >= 2 threads (a characterization's sharing step gives them at
 * 2); what no row holds stays NONE, never a figure. */

/* A true-sharing contention row at 2 threads or more, user space, with
 * samples; NULL for another row. */
static const struct contention_part *cont_row(const struct result *r)
{
	const struct contention_part *ct = result_contention(r);
	const char *tp = contention_sharing_pattern(SHARING_TRUE);
	size_t l = strlen(tp);

	if (!ct || ct->threads < 2 || r->context != RESULT_USER || !r->nsamples || strncmp(r->pattern, tp, l) ||
	    (r->pattern[l] && r->pattern[l] != '@'))
		return NULL;
	return ct;
}

static bool cont_is(const struct card_cont *k, const struct contention_part *ct)
{
	return k->threads == ct->threads && !strcmp(k->placement, ct->placement) && k->cs_work == ct->cs_work &&
	       k->outside_work == ct->outside_work;
}

static bool menu_has(const struct card *c, const char *probe)
{
	for (unsigned n = 0; n < c->nneed; n++)
		for (unsigned o = 0; o < c->need[n].nopt; o++)
			if (!strcmp(c->need[n].opt[o].probe, probe))
				return true;
	return false;
}

/* Fewest threads first, then the placements in the order the report
 * measured them, then the least work. */
static bool cont_before(const struct card_cont *a, unsigned pa, const struct card_cont *b, unsigned pb)
{
	if (a->threads != b->threads)
		return a->threads < b->threads;
	if (pa != pb)
		return pa < pb;
	if (a->cs_work != b->cs_work)
		return a->cs_work < b->cs_work;
	return a->outside_work < b->outside_work;
}

/* The columns: every point some option was measured at, up to
 * CARD_MAX_CONT; the label names what differs between them. */
static void cont_columns(const struct report *rep, struct card *c)
{
	struct card_cont k[64] = { 0 };
	unsigned place[ARRAY_SIZE(k)], nk = 0;
	bool pl = false, cs = false, out = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct contention_part *ct = cont_row(&rep->r[i]);
		unsigned j = 0, p = 0;

		if (!ct || !menu_has(c, rep->r[i].name))
			continue;
		while (j < nk && !cont_is(&k[j], ct))
			j++;
		if (j < nk)
			continue;
		if (nk == ARRAY_SIZE(k)) {
			c->cont_more = true;	/* past the room: "at least" */
			continue;
		}
		while (p < nk && strcmp(k[p].placement, ct->placement))
			p++;
		place[nk] = p < nk ? place[p] : nk;
		k[nk++] = (struct card_cont){ .threads = ct->threads, .placement = ct->placement,
					      .cs_work = ct->cs_work, .outside_work = ct->outside_work };
	}
	for (unsigned o = 1; o < nk; o++) {	/* insertion sort: a handful */
		struct card_cont t = k[o];
		unsigned tp = place[o], j = o;

		for (; j > 0 && cont_before(&t, tp, &k[j - 1], place[j - 1]); j--) {
			k[j] = k[j - 1];
			place[j] = place[j - 1];
		}
		k[j] = t;
		place[j] = tp;
	}
	c->ncont = nk < CARD_MAX_CONT ? nk : CARD_MAX_CONT;
	c->cont_left = nk - c->ncont;
	for (unsigned j = 1; j < c->ncont; j++) {
		pl |= strcmp(k[j].placement, k[0].placement) != 0;
		cs |= k[j].cs_work != k[0].cs_work;
		out |= k[j].outside_work != k[0].outside_work;
	}
	c->cont_by[0] = pl;
	c->cont_by[1] = cs;
	c->cont_by[2] = out;
	for (unsigned j = 0; j < c->ncont; j++) {
		struct card_cont *d = &c->cont[j];
		size_t l;

		*d = k[j];
		l = (size_t)snprintf(d->label, sizeof(d->label), "%d thr", d->threads);
		if (pl && l < sizeof(d->label))
			l += (size_t)snprintf(d->label + l, sizeof(d->label) - l, " %s", d->placement);
		if (cs && l < sizeof(d->label))
			l += (size_t)snprintf(d->label + l, sizeof(d->label) - l, " cs%lld", d->cs_work);
		if (out && l < sizeof(d->label))
			snprintf(d->label + l, sizeof(d->label) - l, " out%lld", d->outside_work);
	}
}

/* An option's cell at a column, from its rows there (its epochs). */
static struct card_cont_cell cont_cell(const struct report *rep, const char *probe, const struct card_cont *k)
{
	struct card_cont_cell x = { .state = CARD_CONT_NONE, .cycles = NAN };
	double v[JUDGE_MAX_EPOCHS];
	size_t n = 0;
	bool apart = false;

	for (size_t i = 0; i < rep->n && n < JUDGE_MAX_EPOCHS; i++) {
		const struct contention_part *ct = cont_row(&rep->r[i]);

		if (!ct || strcmp(rep->r[i].name, probe) || !cont_is(k, ct))
			continue;
		v[n++] = result_cycles(rep, rep->r[i].s.median);
		apart |= ct->overlapped == 0;
		x.unfair |= contention_unfair(ct);
	}
	if (apart) {
		x.state = CARD_CONT_APART;
		x.unfair = false;	/* no figure to qualify */
	} else if (n) {
		x.state = CARD_CONT_MEASURED;
		x.cycles = stats_median(v, n);
	}
	return x;
}

static void build_menu_cont(const struct report *rep, struct card *c)
{
	cont_columns(rep, c);
	for (unsigned n = 0; n < c->nneed; n++)
		for (unsigned o = 0; o < c->need[n].nopt; o++)
			for (unsigned j = 0; j < c->ncont; j++) {
				struct card_cont_cell *x = &c->need[n].opt[o].cont[j];

				*x = cont_cell(rep, c->need[n].opt[o].probe, &c->cont[j]);
				c->cont_apart |= x->state == CARD_CONT_APART;
				c->cont_unfair |= x->unfair;
			}
}

const char *card_cont_text(const struct card_cont_cell *x, char *buf, size_t len)
{
	if (x->state == CARD_CONT_MEASURED)
		snprintf(buf, len, "%.1f%s", x->cycles, x->unfair ? "!" : "");
	else
		snprintf(buf, len, "%s", x->state == CARD_CONT_APART ? "n/o" : "-");
	return buf;
}

const char *card_cont_legend(const struct card *c, char *buf, size_t len)
{
	size_t l;

	*buf = '\0';
	if (!c->ncont)
		return buf;
	l = (size_t)snprintf(buf, len, "N thr: under contention, cycles per op of each of N threads taking the "
			     "one lock or word (true sharing), median of the contention rows");
	/* what the columns share, said once */
	if (!c->cont_by[0] && l < len)
		l += (size_t)snprintf(buf + l, len - l, ", placement %s", c->cont[0].placement);
	if (!c->cont_by[1] && l < len)
		l += (size_t)snprintf(buf + l, len - l, ", cs-work %lld", c->cont[0].cs_work);
	if (!c->cont_by[2] && l < len)
		l += (size_t)snprintf(buf + l, len - l, ", outside-work %lld", c->cont[0].outside_work);
	if (l < len)
		l += (size_t)snprintf(buf + l, len - l, "; '-': not measured under contention");
	if (c->cont_apart && l < len)
		l += (size_t)snprintf(buf + l, len - l, "; 'n/o': its threads did not run together (not "
				      "contention, left out)");
	if (c->cont_unfair && l < len)
		l += (size_t)snprintf(buf + l, len - l, "; '!': unfair (a thread did over %.0fx the ops of another: "
				      "mostly the faster thread's figure)", CONTENTION_UNFAIR_MAX_MIN);
	if (c->cont_left && l < len)
		snprintf(buf + l, len - l, "; %s%u more points measured, not shown (the results have them)",
			 c->cont_more ? "at least " : "", c->cont_left);
	return buf;
}

/* The kernel rows that name a user-space analog measured here, beside
 * it; an emulated row never (its timing is qemu's). The menu option that
 * is the analog points at the first kernel latency line beside it. */
static void build_kernel(const struct report *rep, struct card *c)
{
	for (size_t i = 0; i < rep->n && c->nkernel < CARD_MAX_KERNEL; i++) {
		const struct result *r = &rep->r[i];
		struct card_kernel k = { .probe = r->name, .analog = r->user_analog, .mode = r->mode,
					 .user_mode = r->mode };
		unsigned d = 0;

		if (r->context != RESULT_KERNEL || !r->user_analog[0] || !r->nsamples || report_row_emulated(rep, r))
			continue;
		while (d < c->nkernel && (strcmp(c->kernel[d].probe, k.probe) || c->kernel[d].mode != k.mode))
			d++;
		k.kernel_cyc = result_cycles(rep, r->s.median);
		k.user_cyc = report_median_cycles(rep, k.analog, k.mode, "hit");
		if (!isfinite(k.user_cyc)) {
			k.user_mode = k.mode == MODE_LATENCY ? MODE_THROUGHPUT : MODE_LATENCY;
			k.user_cyc = report_median_cycles(rep, k.analog, k.user_mode, "hit");
		}
		if (d == c->nkernel && isfinite(k.user_cyc))
			c->kernel[c->nkernel++] = k;
	}
	for (unsigned n = 0; n < c->nneed; n++)
		for (unsigned o = 0; o < c->need[n].nopt; o++)
			for (unsigned d = 0; d < c->nkernel; d++)
				if (c->kernel[d].mode == MODE_LATENCY && !c->need[n].opt[o].kernel &&
				    !strcmp(c->kernel[d].analog, c->need[n].opt[o].probe))
					c->need[n].opt[o].kernel = &c->kernel[d];
}

const char *card_kernel_text(const struct card_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s %.2f cyc%s beside the user-space analog %s %.2f%s", k->probe, k->kernel_cyc,
		 k->mode == MODE_THROUGHPUT ? " (throughput)" : "", k->analog, k->user_cyc,
		 k->user_mode == MODE_THROUGHPUT ? " (throughput)" : "");
	return buf;
}

/* The row (first of its epochs) of probe name, if the card shows it and it
 * holds two or more states over its epochs, into the card's mixtures. */
static void add_mix(const struct report *rep, struct card *c, const char *name, enum probe_mode m,
		    const char *pattern)
{
	struct report_row w;

	if (!name)
		return;	/* not measured */
	for (unsigned k = 0; k < c->nmix; k++)
		if (!strcmp(c->mix[k].probe, name) && c->mix[k].mode == m && !strcmp(c->mix[k].pattern, pattern))
			return;
	for (size_t i = 0; i < rep->n && c->nmix < CARD_MAX_MIX; i++) {
		const struct result *r = &rep->r[i];

		if (r->mode != m || r->context != RESULT_USER || strcmp(r->name, name) || strcmp(r->pattern, pattern) ||
		    !compare_group_first(rep, i))
			continue;
		report_row(rep, i, &w);
		if (w.mix.nstates > 1)
			c->mix[c->nmix++] = (struct card_mix){ r->name, r->pattern, m, w.mix };
		return;
	}
}

/* The mixtures among the rows the card's figures come from: the
 * atomicity pair in each place, and each menu option's chain and
 * throughput on the hot line. */
static void build_mix(const struct report *rep, struct card *c)
{
	for (unsigned i = 0; i < c->ncmp; i++) {
		add_mix(rep, c, c->cmp[i].pair.a, c->cmp[i].mode, c->cmp[i].pattern);
		add_mix(rep, c, c->cmp[i].pair.b, c->cmp[i].mode, c->cmp[i].pattern);
	}
	for (unsigned n = 0; n < c->nneed; n++)
		for (unsigned o = 0; o < c->need[n].nopt; o++) {
			add_mix(rep, c, c->need[n].opt[o].probe, MODE_LATENCY, "hit");
			add_mix(rep, c, c->need[n].opt[o].probe, MODE_THROUGHPUT, "hit");
		}
}

int card_build(const struct report *rep, struct card *c)
{
	memset(c, 0, sizeof(*c));
	if (!rep || !rep->n)
		return -EINVAL;
	if (rep->cal.emulated)	/* every figure is the emulator's: no card */
		return -EDOM;
	report_machine(rep, &c->machine);
	c->hier = rep->hier;
	build_steps(c);
	build_walks(rep, c);
	report_split(rep, &c->split);
	build_cmp(rep, c);
	build_noise(rep, c);
	c->load = rep->charz && rep->charz->has & 1u << CZ_WAITED ? rep->charz : NULL;
	menu_collect(rep, c);
	for (unsigned n = 0; n < c->nneed; n++)
		menu_rank(rep, &c->need[n]);
	build_menu_cont(rep, c);
	build_kernel(rep, c);
	build_order(rep, c);
	build_ratio(rep, c);
	build_c2c(rep, c);
	build_cases(rep, c);
	build_share(c);
	build_mix(rep, c);
	return 0;
}

bool card_wanted(const struct report *rep)
{
	return rep->n && rep->charz && !rep->cal.emulated;
}

