/* SPDX-License-Identifier: MIT */
/* test-card.c - the machine card's sentences follow the report's numbers:
 * a synthetic report gives known figures; the card must print them, pick
 * its verdict words by the noise rule, rank the menu by the cost in
 * context (not the chain latency), print ties as ties, and change when a
 * number changes. Exit 0 pass, 1 fail.
 */
#include "card.h"
#include "common.h"
#include "report.h"
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The epochs of a synthetic report and the relative jitter of each row's
 * epoch medians (a fixed zig-zag: deterministic). */
#define EPOCHS 5
static double jitter = 0.004;
static int epochs = EPOCHS;

static const char *insn_of(const char *name)
{
	return !strcmp(name, "set_bit") ? "lock orb $imm8,mem" : !strcmp(name, "__set_bit") ? "btsq $nr,mem" :
	       !strcmp(name, "__or_byte") ? "orb $imm8,mem (what C *byte |= mask compiles to)" : "";
}

static void add(struct report *rep, const char *name, enum probe_mode m, const char *pattern,
		double cycles)
{
	static const double z[EPOCHS] = { 1, -1, 0.5, -0.5, 0 };

	for (int e = 1; e <= epochs; e++) {
		struct result *r = report_add(rep);

		snprintf(r->name, sizeof(r->name), "%s", name);
		snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
		snprintf(r->insn, sizeof(r->insn), "%s", insn_of(name));
		r->mode = m;
		r->samples = malloc(sizeof(double));
		r->samples[0] = cycles * (1 + jitter * z[(e + strlen(name)) % EPOCHS]) * rep->cal.ticks_per_cycle;
		r->nsamples = 1;
		result_set_epoch(r, e);
		stats_summarize(r->samples, 1, &r->s);
	}
}

/* A contention row's placement, as contention.c writes it ("overlapped"
 * not said). */
static void set_placement(struct result *r, const char *placement)
{
	r->extra.has |= 1u << RX_CONTENTION;
	r->extra.contention.has |= 1u << CP_PLACEMENT;
	r->extra.contention.overlapped = -1;
	snprintf(r->extra.contention.placement, sizeof(r->extra.contention.placement), "%s", placement);
}

/* The op's cost over the bare walk, as pattern.c writes it. */
static void set_over_chase(struct result *r, double over)
{
	r->extra.has |= 1u << RX_OVER_CHASE;
	r->extra.chase.over = over;
}

static void add_share(struct report *rep, const char *name, const char *placement,
		      const char *pattern, double cycles)
{
	add(rep, name, MODE_LATENCY, pattern, cycles);
	for (size_t i = rep->n - epochs; i < rep->n; i++)
		set_placement(&rep->r[i], placement);
}

/* The menu's facts, as the runner writes them from the descriptor: on
 * every row of the probe. */
static void menu_facts(struct report *rep, const char *name, const char *need2, const char *safe)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].name, name)) {
			struct result_extra *x = &rep->r[i].extra;

			x->has |= 1u << RX_MENU_NEED | 1u << RX_SAFE_WHEN;
			snprintf(x->menu_need[0], sizeof(x->menu_need[0]), "%s", !strcmp(need2, "critical") ?
				 "short critical section" : "set a bit in a word only this CPU writes");
			x->nneed = 1;
			if (*need2 && strcmp(need2, "critical"))
				snprintf(x->menu_need[x->nneed++], sizeof(x->menu_need[0]), "%s", need2);
			snprintf(x->safe_when, sizeof(x->safe_when), "%s", safe);
		}
}

/* The card's facts, as the runner writes them from the descriptor (twin,
 * card_pair, card_share): on every row of the probe. */
static void card_facts(struct report *rep, const char *name, const char *twin, unsigned char pair,
		       unsigned char share)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].name, name)) {
			snprintf(rep->r[i].twin, sizeof(rep->r[i].twin), "%s", twin);
			rep->r[i].card_pair = pair;
			rep->r[i].card_share = share;
		}
}

/* Every row of a probe renamed, and the twin fields that name it. */
static void rename_probe(struct report *rep, const char *from, const char *to)
{
	for (size_t i = 0; i < rep->n; i++) {
		if (!strcmp(rep->r[i].name, from))
			snprintf(rep->r[i].name, sizeof(rep->r[i].name), "%s", to);
		if (!strcmp(rep->r[i].twin, from))
			snprintf(rep->r[i].twin, sizeof(rep->r[i].twin), "%s", to);
	}
}

/* The op between the steps of an L1 walk of 4.0 cycles a step: the dep
 * row, with what it adds over the bare walk, as pattern.c writes it. */
static void add_walk(struct report *rep, const char *name, double added)
{
	add(rep, name, MODE_LATENCY, "dep", 4.0 + added);
	for (size_t i = rep->n - epochs; i < rep->n; i++)
		set_over_chase(&rep->r[i], result_cycles(rep, rep->r[i].s.median) - 4.0);
}

static void make(struct report *rep, double l2_atomic)
{
	report_init(rep);
	rep->cal.ticks_per_cycle = 0.5;	/* 2 cycles per tick: the card converts */
	rep->cal.core_hz = 3e9;
	rep->cal.trustworthy = true;
	rep->meta = json_pack("{s:{s:{s:s, s:s, s:s, s:s}}}", "fingerprint", "cpu", "model_name",
			      "Test CPU", "family", "25", "model", "17", "microcode", "0x1");
	report_fingerprint(rep, NULL);
	add(rep, "set_bit", MODE_THROUGHPUT, "hit", 7.5);
	add(rep, "__set_bit", MODE_THROUGHPUT, "hit", 2.0);
	add(rep, "set_bit", MODE_LATENCY, "hit", 7.3);
	add(rep, "__set_bit", MODE_LATENCY, "hit", 8.0);
	add(rep, "__or_byte", MODE_THROUGHPUT, "hit", 1.0);
	add(rep, "__or_byte", MODE_LATENCY, "hit", 7.4);
	add(rep, "set_bit", MODE_LATENCY, "l2", l2_atomic);
	add(rep, "__set_bit", MODE_LATENCY, "l2", 16.0);
	add(rep, "set_bit_var", MODE_LATENCY, "hit", 8.1);
	add(rep, "__set_bit_var", MODE_LATENCY, "hit", 8.0);
	add(rep, "spin_lock", MODE_LATENCY, "hit", 20.0);
	add(rep, "preempt_disable", MODE_LATENCY, "hit", 2.0);
	/* in a walk the order is the other way round: plain ops add nothing */
	add_walk(rep, "set_bit", 4.0);
	add_walk(rep, "__set_bit", 0.0);
	add_walk(rep, "set_bit_var", 4.1);
	add_walk(rep, "__set_bit_var", 0.1);
	menu_facts(rep, "set_bit", "set a bit in a shared bitmap", "always (atomic, unordered)");
	menu_facts(rep, "__set_bit", "", "no concurrent writer to the word");
	menu_facts(rep, "set_bit_var", "set a bit in a shared bitmap", "always (atomic, unordered)");
	menu_facts(rep, "__set_bit_var", "", "no concurrent writer to the word");
	menu_facts(rep, "spin_lock", "critical", "always");
	menu_facts(rep, "preempt_disable", "critical", "same-CPU exclusion only (local_lock)");
	add_share(rep, "atomic_inc", "l3", "true-share", 60.0);
	add_share(rep, "atomic_inc", "l3", "false-share", 58.0);
	add_share(rep, "atomic_inc", "l3", "no-share", 8.0);
	card_facts(rep, "set_bit", "__set_bit", 1, 0);
	card_facts(rep, "atomic_inc", "local_inc", 0, 1);
}

static char *card_text(const struct report *rep)
{
	return TEST_TEXT(CHECK(card_write_text(rep, f) == 0, "card_write_text"));
}

static bool has(const char *text, const char *needle)
{
	bool ok = strstr(text, needle) != NULL;

	if (!ok)
		printf("--- card ---\n%s--- has no '%s'\n", text, needle);
	return ok;
}

/* The card's pair and sharing probe come from the results' card facts,
 * never from names: a renamed probe keeps its line, a probe without the
 * facts has none, and the lowest preference wins whatever the row order. */
static void test_card_facts(void)
{
	struct report rep;
	struct card c;
	char *t;

	make(&rep, 16.2);
	rename_probe(&rep, "set_bit", "setb");
	rename_probe(&rep, "__set_bit", "__setb");
	rename_probe(&rep, "atomic_inc", "counter_inc");
	t = card_text(&rep);
	CHECK(has(t, "atomicity setb (lock orb $imm8,mem) against __setb (btsq $nr,mem)") &&
	      has(t, "sharing   counter_inc by 2 threads"), "renamed probes keep their card lines");
	free(t);
	card_facts(&rep, "setb", "__setb", 0, 0);
	card_facts(&rep, "counter_inc", "local_inc", 0, 0);
	CHECK(card_build(&rep, &c) == 0 && !c.pair_atomic && !c.share_probe && !c.ncmp,
	      "without the facts the same rows make no pair and no sharing line");
	report_free(&rep);

	make(&rep, 16.2);
	add(&rep, "cmpxchg", MODE_LATENCY, "hit", 20.0);
	add(&rep, "cmpxchg_local", MODE_LATENCY, "hit", 9.0);
	add_share(&rep, "spin_lock", "l3", "true-share", 90.0);
	card_facts(&rep, "set_bit", "__set_bit", 2, 0);
	card_facts(&rep, "cmpxchg", "cmpxchg_local", 1, 0);
	card_facts(&rep, "atomic_inc", "local_inc", 0, 2);
	card_facts(&rep, "spin_lock", "", 0, 1);
	CHECK(card_build(&rep, &c) == 0 && c.pair_atomic && !strcmp(c.pair_atomic, "cmpxchg") &&
	      !strcmp(c.pair_plain, "cmpxchg_local") && c.share_probe && !strcmp(c.share_probe, "spin_lock"),
	      "preference 1 wins over 2 listed before it (pair %s, sharing %s)", c.pair_atomic, c.share_probe);
	card_facts(&rep, "cmpxchg", "absent", 1, 0);
	CHECK(card_build(&rep, &c) == 0 && c.pair_atomic && !strcmp(c.pair_atomic, "set_bit"),
	      "a pair whose twin was not measured gives way to the next preference");
	report_free(&rep);
}

/* the epochs' keys the card reads */
#define EPOCH_KEYS (1u << EP_EPOCH | 1u << EP_TICKS_PER_CYCLE | 1u << EP_TIMER_HZ | 1u << EP_CPU_SHARE)

/* The card's lines follow the synthetic report's known figures. */
static void test_lines(void)
{
	struct report rep;
	struct card c;
	char *t;
	const char *a, *b;

	make(&rep, 16.2);	/* 16.2 vs 16.0: within the 3% floor */
	CHECK(card_build(&rep, &c) == 0, "card_build");
	CHECK(c.pair_atomic && !strcmp(c.pair_atomic, "set_bit"), "the set_bit pair is used");
	t = card_text(&rep);
	CHECK(has(t, "Test CPU (family 25 model 17"), "machine line");
	/* hot line: 7.5 vs 2.0 cycles (the ticks were converted) */
	CHECK(has(t, "hot line, independent ops              7.50      2.00  +5.5 [") && has(t, "slower 3.7") &&
		      has(t, "+6.5 slower 7.5") && has(t, "-1.0 faster 0.50x"),
	      "hot-line line: the difference, its verdict, the lock's and the instruction's parts");
	CHECK(has(t, "they differ in the lock prefix, the instruction (orb against btsq) and the width (byte "
		     "against qword)") && has(t, "lock = set_bit against __or_byte"),
	      "what the pair differs in, and the lock-only control found by its instruction");
	/* 7.3 against 7.4: the lock costs nothing; the byte op chains faster */
	CHECK(has(t, "hot line, dependency chain") && has(t, "-0.7 [") && has(t, "-0.1 same") &&
		      has(t, "-0.6 faster"), "dependency chain: the pair's difference is the instruction's");
	CHECK(has(t, "L2 walk, op on another word           16.20     16.00  +0.2 [+0.1,+0.3]       same") && has(t, "same"),
	      "16.2 vs 16.0, tight epochs: same by equivalence");
	CHECK(has(t, "DRAM walk, op on another word     not measured"), "absent rows say so");
	CHECK(!strstr(t, "op on the followed word"), "a named variant the report lacks: no line");
	CHECK(has(t, "true/no sharing 7.5x (one process: not judged)"), "sharing ratio, not judged");
	CHECK(has(t, "noise     5 epochs") && has(t, "quiet"), "noise line");
	free(t);
	/* another task took the CPU for half of epoch 2: the card says so */
	rep.epochs = calloc(2, sizeof(*rep.epochs));
	if (!rep.epochs)
		abort();
	rep.nepochs = 2;
	rep.epochs[0] = (struct epoch_out){ .has = EPOCH_KEYS, .epoch = 1, .ticks_per_cycle = 0.5, .timer_hz = 2e9,
					    .cpu_share = 0.99 };
	rep.epochs[1] = (struct epoch_out){ .has = EPOCH_KEYS, .epoch = 2, .ticks_per_cycle = 0.52, .timer_hz = 2e9,
					    .cpu_share = 0.5 };
	t = card_text(&rep);
	CHECK(has(t, "DISTURBED: in 1 the thread had its CPU under 90% of the time (lowest 50%)") &&
		      has(t, "core clock 3.85-4.00 GHz over them"), "a disturbed epoch and the clock range");
	/* menu: ranked in context, not by the chain (set_bit 7.3 < __set_bit 8.0) */
	a = strstr(t, "\n     3 set_bit  ");
	b = strstr(t, "\n     1 __set_bit  ");
	CHECK(a && b && b < a, "menu ranked by the cost in a walk: __set_bit (+0.0) before set_bit (+4.0)");
	CHECK(has(t, "     1 __set_bit                 +0.0       -    8.00    2.00  no concurrent writer"),
	      "the option's walk, chain and throughput beside its safety condition");
	CHECK(has(t, "    =1 __set_bit_var             +0.1"), "0.1 cycles apart over 5 tight epochs: tied");
	CHECK(has(t, "     3 set_bit  ") && has(t, "    =3 set_bit_var  "), "set_bit +4.0 and set_bit_var +4.1: tied");
	CHECK(has(t, "  set a bit in a shared bitmap:\n     1 set_bit") ||
	      has(t, "  set a bit in a shared bitmap:\n     1 set_bit_var"), "a second need from the same rows");
	CHECK(has(t, "short critical section (no context rows: ranked by chain latency):\n"
		     "     1 preempt_disable") && has(t, "     2 spin_lock"),
	      "a need without context rows says what it is ranked by");
	CHECK(has(t, "split     not measured"), "no split-lock section: said so");
	free(t);
	/* a sibling or the host slowed the core in epochs 2 and 3: every
	 * result's drift chain read 1% slow there and its op 20% slower, while
	 * the thread had its CPU throughout: the card says DISTURBED and why */
	for (size_t i = 0; i < rep.n; i++) {
		struct result *r = &rep.r[i];
		bool hit = result_epoch(r) == 2 || result_epoch(r) == 3;

		r->clock_source = RESULT_CLOCK_CHAIN;
		r->clock_scale = hit ? 0.99 : 0.9996;
		if (hit)
			result_rescale(r, 1.2);
	}
	rep.epochs[1].cpu_share = 0.99;
	report_pair_twins(&rep);
	t = card_text(&rep);
	CHECK(has(t, "DISTURBED: the thread had its CPU 99% of the time or more, but the drift chain moved in ") &&
		      has(t, "(a sibling or the host slowed the core)") &&
		      has(t, "those results left out of the verdicts where a row kept 2 epochs"),
	      "a core slowed under the thread: the drift chain says so");
	free(t);
	report_free(&rep);
}

/* The sharing cases, the split lock, and verdicts that follow the numbers. */
static void test_sections(void)
{
	struct report rep;
	struct card c;
	char *t;

	/* one epoch of true sharing whose threads did not run together: the
	 * case measured no contention, on the line and in the chart */
	make(&rep, 16.2);
	for (size_t i = 0, k = 0; i < rep.n; i++)
		if (!strcmp(rep.r[i].pattern, "true-share") && k++ == 2)
			rep.r[i].extra.contention.overlapped = 0;
	CHECK(card_build(&rep, &c) == 0 && c.ncase == 3 && c.cases[0].no_overlap && !c.cases[1].no_overlap &&
	      c.cases[1].cycles == 58.0, "cases: one epoch without overlap marks the case; medians over the epochs");
	t = card_text(&rep);
	CHECK(has(t, "  l3                - /     58.0 /      8.0   (some cases' threads did not overlap"),
	      "a case without overlap in one epoch is left out of the sharing line");
	free(t);
	report_free(&rep);

	/* the split lock, from its section */
	make(&rep, 16.2);
	rep.split = calloc(1, sizeof(*rep.split));
	if (!rep.split)
		abort();
	*rep.split = (struct splitlock_section){
		.has = 1u << SL_SUPPORTED | 1u << SL_SIGBUS | 1u << SL_SPLIT_NS | 1u << SL_ALIGNED_NS | 1u << SL_RATIO |
		       1u << SL_KERNEL,
		.supported = true, .split_ns = 1041.0, .aligned_ns = 1.7, .ratio = 612.0,
		.kernel = { .has = 1u << SLK_WHY, .why = "not detected" },
	};
	t = card_text(&rep);
	CHECK(has(t, "1041 ns against 1.7 ns aligned (612x)") && has(t, "kernel: not detected"),
	      "split-lock line from the section");
	free(t);
	report_free(&rep);

	/* change one number: the sentence changes */
	make(&rep, 40.0);
	t = card_text(&rep);
	CHECK(has(t, "L2 walk, op on another word           40.00     16.00  +24.") && has(t, "slower 2.50x"),
	      "L2 verdict follows the number");
	free(t);
	report_free(&rep);

	/* 16.2 against 16.0 again, but the epochs 8% apart: not same, unresolved */
	jitter = 0.08;
	make(&rep, 16.2);
	t = card_text(&rep);
	CHECK(has(t, "unresolved") && has(t, "16.20     16.00  ") && has(t, "[-1.3,+1.9]       unresolved") &&
		      has(t, "unresolved: hot line, dependency chain, L2 walk, op on another word ("),
	      "a noisy equal pair is unresolved and listed, never same (%s)", "");
	jitter = 0.004;
	free(t);
	report_free(&rep);
}

/* The two full barriers of the ordering line, as the runner writes their
 * descriptors' facts (card_order, insn), behind a pending store. */
static void add_barriers(struct report *rep, double smp_mb, double mb)
{
	static const char *const name[] = { "smp_mb", "mb" }, *const insn[] = { "lock addl $0,-4(%rsp)", "mfence" };

	add(rep, name[0], MODE_LATENCY, "hit", smp_mb);
	add(rep, name[1], MODE_LATENCY, "hit", mb);
	for (size_t i = 0; i < rep->n; i++)
		for (int k = 0; k < 2; k++)
			if (!strcmp(rep->r[i].name, name[k])) {
				rep->r[i].card_order = (unsigned char)(k + 1);
				snprintf(rep->r[i].insn, sizeof(rep->r[i].insn), "%s", insn[k]);
			}
}

/* The ordering line: "cheapest" only when judged faster over the epochs
 * (an injected difference either way is found), "the same" for an A/A
 * pair, "cannot tell" when the epochs spread; the pair from the facts. */
static void test_order(void)
{
	static const struct {
		double smp_mb, mb, jitter;
		const char *says;
	} cases[] = {
		{ 20.0, 80.0, 0.004, "20.0 cyc, mb (mfence) 80.0 cyc behind a pending store: smp_mb cheapest" },
		{ 20.0, 15.0, 0.004, "20.0 cyc, mb (mfence) 15.0 cyc behind a pending store: mb cheapest" },
		{ 20.0, 20.0, 0.004, "behind a pending store: the same" },
		{ 20.0, 20.0, 0.08, "behind a pending store: cannot tell which is cheaper" },
	};
	struct report rep;
	char *t;

	make(&rep, 16.2);
	t = card_text(&rep);
	CHECK(has(t, "ordering  full barrier: not measured"), "no barrier rows: not measured");
	free(t);
	report_free(&rep);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		jitter = cases[i].jitter;
		make(&rep, 16.2);
		add_barriers(&rep, cases[i].smp_mb, cases[i].mb);
		t = card_text(&rep);
		CHECK(has(t, "ordering  full barrier: smp_mb (lock addl $0,-4(%rsp)) ") && has(t, cases[i].says),
		      "ordering line, case %zu", i);
		free(t);
		report_free(&rep);
	}
	jitter = 0.004;
	make(&rep, 16.2);
	add_barriers(&rep, 20.0, 80.0);
	rename_probe(&rep, "smp_mb", "fence_a");
	t = card_text(&rep);
	CHECK(has(t, "full barrier: fence_a (lock addl $0,-4(%rsp)) 20.0 cyc"), "renamed: the line from the facts");
	free(t);
	report_free(&rep);
}

/* The menu: injected costs found, ties by the rule, no list of names. */
static void test_menu(void)
{
	struct report rep;
	struct card c;
	char *t;

	/* the menu follows the numbers: an injected cost in the walk is found
	 * (2 cycles over 5 tight epochs: resolved, no longer tied) */
	make(&rep, 16.2);
	for (size_t i = 0; i < rep.n; i++)
		if (!strcmp(rep.r[i].name, "__set_bit_var") && !strcmp(rep.r[i].pattern, "dep")) {
			rep.r[i].s.median += 2.0 * rep.cal.ticks_per_cycle;
			set_over_chase(&rep.r[i], 2.1);
		}
	t = card_text(&rep);
	CHECK(has(t, "     2 __set_bit_var             +2.1"), "an injected 2 cycles in the walk: rank 2, not tied");
	free(t);
	{
		json_t *j = card_build(&rep, &c) ? NULL : card_to_json(&c);
		const json_t *o = json_array_get(json_object_get(json_array_get(json_object_get(j, "menu"), 0),
								 "options"), 0);

		CHECK(json_is_object(j) && json_array_size(json_object_get(j, "menu")) == 3,
		      "summary JSON with the menu: the three needs the results name");
		CHECK(!strcmp(json_string_value(json_object_get(o, "probe")), "__set_bit") &&
		      json_integer_value(json_object_get(o, "rank")) == 1 &&
		      json_is_real(json_object_get(o, "walk_cycles")) &&
		      json_real_value(json_object_get(o, "cycles")) == 8.0, "summary JSON: rank, walk and chain");
		json_decref(j);
	}
	report_free(&rep);

	/* one epoch: ties by the documented rule (5% or 0.5 cycles), and a
	 * probe renamed in the table is still on the menu (no name list) */
	epochs = 1;
	make(&rep, 16.2);
	for (size_t i = 0; i < rep.n; i++)
		if (!strcmp(rep.r[i].name, "__set_bit_var"))
			snprintf(rep.r[i].name, sizeof(rep.r[i].name), "__set_bit_renamed");
	t = card_text(&rep);
	CHECK(has(t, "    =1 __set_bit_renamed         +0.1"), "renamed probe on the menu, 0.1 apart: tied");
	CHECK(has(t, "     3 set_bit  ") && has(t, "    =3 set_bit_var  "), "one epoch, 4.0 and 4.1: tied by the rule");
	free(t);
	report_free(&rep);
	make(&rep, 16.2);
	for (size_t i = 0; i < rep.n; i++)
		if (!strcmp(rep.r[i].name, "__set_bit_var") && !strcmp(rep.r[i].pattern, "dep"))
			set_over_chase(&rep.r[i], 0.9);
	t = card_text(&rep);
	CHECK(has(t, "     2 __set_bit_var             +0.9"), "one epoch, 0.9 cycles apart: resolved");
	free(t);
	epochs = EPOCHS;
	report_free(&rep);
}

/* A contention row of probe name as contention.c writes it, in every
 * epoch: N threads at a placement, each its share of the ops (ops[k]), the
 * sweep point in the pattern; overlapped 0 in the last epoch: apart. */
static void add_cont(struct report *rep, const char *name, const char *pattern, int threads,
		     const char *placement, double cycles, int overlapped, const long long *ops)
{
	add(rep, name, MODE_LATENCY, pattern, cycles);
	for (size_t i = rep->n - epochs; i < rep->n; i++) {
		struct contention_part *c = &rep->r[i].extra.contention;

		set_placement(&rep->r[i], placement);
		c->threads = threads;
		c->has |= 1u << CP_THREADS | 1u << CP_OVERLAPPED | 1u << CP_PER_THREAD;
		c->overlapped = i == rep->n - 1 ? overlapped : 1;
		c->per = calloc((size_t)threads, sizeof(*c->per));
		c->nper = (size_t)threads;
		for (int k = 0; k < threads; k++)
			c->per[k] = (struct contention_thread){ .has = 1u << CT_CPU_OS | 1u << CT_OPS, .cpu_os = k,
								.ops = ops ? ops[k] : 1000 };
	}
}

/* The option of that probe in the first need that has it; NULL: none. */
static const json_t *menu_option_json(const json_t *card, const char *probe)
{
	const json_t *need, *op;
	size_t i, k;

	json_array_foreach(json_object_get(card, "menu"), i, need)
		json_array_foreach(json_object_get(need, "options"), k, op)
			if (!strcmp(json_string_value(json_object_get(op, "probe")), probe))
				return op;
	return NULL;
}

/* The menu under contention: a column per thread count an option was
 * measured at in true sharing, its figures where measured, '-' where not,
 * n/o where the threads did not overlap, '!' where unfair; none without
 * such rows; the same figures in the text, the HTML and the summary JSON. */
static void test_menu_contention(void)
{
	static const long long unfair[4] = { 1000, 1000, 1000, 3000 };
	struct report rep;
	struct card c;
	char *t, *h;
	json_t *j;
	const json_t *o;

	/* atomic_inc's sharing cases name no need: no column */
	make(&rep, 16.2);
	rep.charz = calloc(1, sizeof(*rep.charz));
	if (!rep.charz)
		abort();
	t = card_text(&rep);
	h = TEST_TEXT(report_write_html(&rep, f));
	CHECK(card_build(&rep, &c) == 0 && c.ncont == 0 && !strstr(t, "N thr") &&
	      has(t, "   walk  stores   chain    tput  safe when\n"),
	      "no option measured under contention: no column in the text");
	CHECK(h && !strstr(h, "class=\"cont\"") && strstr(h, "<th>tput</th><th></th><th>safe when</th>"),
	      "nor in the HTML:\n%s", h ? h : "");
	j = card_to_json(&c);
	CHECK(j && !json_object_get(menu_option_json(j, "spin_lock"), "contention"), "nor in the summary JSON");
	json_decref(j);
	free(t);
	free(h);

	/* spin_lock at 2 and 4 threads (its 1-thread point and false sharing
	 * are no contention figure), preempt_disable whose threads did not run
	 * together in one epoch */
	add_cont(&rep, "spin_lock", "true-share@1t", 1, "l3", 20.0, 1, NULL);
	add_cont(&rep, "spin_lock", "true-share@2t", 2, "l3", 90.0, 1, NULL);
	add_cont(&rep, "spin_lock", "false-share@2t", 2, "l3", 70.0, 1, NULL);
	add_cont(&rep, "spin_lock", "true-share@4t", 4, "l3", 200.0, 1, unfair);
	add_cont(&rep, "preempt_disable", "true-share@2t", 2, "l3", 3.0, 0, NULL);
	CHECK(card_build(&rep, &c) == 0 && c.ncont == 2 && c.cont[0].threads == 2 && c.cont[1].threads == 4 &&
	      !strcmp(c.cont[0].label, "2 thr") && !strcmp(c.cont[1].label, "4 thr"),
	      "two columns, 2 and 4 threads (%u: %s)", c.ncont, c.ncont ? c.cont[0].label : "");
	t = card_text(&rep);
	CHECK(has(t, "                                 walk  stores   chain    tput   2 thr   4 thr  safe when\n"),
	      "the menu's heading gains a column per thread count");
	CHECK(has(t, "     2 spin_lock                    -       -   20.00       -    90.0  200.0!  always\n"),
	      "spin_lock at 2 and 4 threads: the rows' medians, the unfair one marked");
	CHECK(has(t, "     1 preempt_disable              -       -    2.00       -     n/o       -  same-CPU"),
	      "threads apart: n/o; not measured at 4: -");
	CHECK(has(t, "     1 __set_bit                 +0.0       -    8.00    2.00       -       -  no concurrent"),
	      "an option never measured under contention: '-' in each column");
	CHECK(has(t, "placement l3, cs-work 0,") && has(t, "'n/o': its threads") && has(t, "'!': unfair"),
	      "the legend says the placement and the marks used");
	free(t);
	h = TEST_TEXT(report_write_html(&rep, f));
	CHECK(h && strstr(h, "<th>tput</th><th class=\"cont\">2 thr</th><th class=\"cont\">4 thr</th><th></th>") &&
	      strstr(h, "<code>spin_lock</code><td class=\"n\">-</td>") == NULL &&
	      strstr(h, "<td class=\"n\">20.00</td><td class=\"n\">-</td><td class=\"n cont\">90.0</td>"
			"<td class=\"n cont\">200.0!</td>") &&
	      strstr(h, "<td class=\"n\">2.00</td><td class=\"n\">-</td><td class=\"n cont\">n/o</td>"
			"<td class=\"n cont\">-</td>"),
	      "HTML: the same columns and cells");
	free(h);
	j = card_build(&rep, &c) ? NULL : card_to_json(&c);
	o = json_object_get(menu_option_json(j, "spin_lock"), "contention");
	CHECK(json_array_size(o) == 2 &&
	      json_integer_value(json_object_get(json_array_get(o, 0), "threads")) == 2 &&
	      json_real_value(json_object_get(json_array_get(o, 0), "cycles")) == 90.0 &&
	      json_real_value(json_object_get(json_array_get(o, 1), "cycles")) == 200.0 &&
	      json_is_true(json_object_get(json_array_get(o, 1), "unfair")),
	      "summary JSON: spin_lock's two points");
	o = json_object_get(menu_option_json(j, "preempt_disable"), "contention");
	CHECK(json_array_size(o) == 1 && json_is_null(json_object_get(json_array_get(o, 0), "cycles")) &&
	      json_is_false(json_object_get(json_array_get(o, 0), "overlapped")),
	      "summary JSON: threads apart, no figure");
	CHECK(!json_object_get(menu_option_json(j, "__set_bit"), "contention"),
	      "summary JSON: none where not measured");
	json_decref(j);

	/* a second placement at 2 threads: the labels name the placements */
	add_cont(&rep, "spin_lock", "true-share@2t", 2, "smt", 60.0, 1, NULL);
	CHECK(card_build(&rep, &c) == 0 && c.ncont == 3 && !strcmp(c.cont[0].label, "2 thr l3") &&
	      !strcmp(c.cont[1].label, "2 thr smt") && !strcmp(c.cont[2].label, "4 thr l3"),
	      "columns by placement: %s, %s, %s", c.cont[0].label, c.cont[1].label, c.cont[2].label);
	t = card_text(&rep);
	CHECK(has(t, "     90.0      60.0   200.0!  always\n") && !strstr(t, "placement l3,"),
	      "each placement its own figure, the legend names none");
	free(t);
	report_free(&rep);
}

/* A kernel row as kmod.c writes it: one row, context "kernel", the
 * user-space probe it sits beside, under emulation the note. */
static void add_kernel(struct report *rep, const char *name, const char *analog, double cycles, bool emulated)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	snprintf(r->user_analog, sizeof(r->user_analog), "%s", analog);
	r->context = RESULT_KERNEL;
	r->mode = MODE_LATENCY;
	r->samples = malloc(sizeof(double));
	r->samples[0] = cycles * rep->cal.ticks_per_cycle;
	r->nsamples = 1;
	stats_summarize(r->samples, 1, &r->s);
	if (emulated) {
		snprintf(r->extra.note, sizeof(r->extra.note), RESULT_EMULATED_NOTE);
		r->extra.has |= 1u << RX_NOTE;
	}
}

/* The kernel's figure beside its user-space analog: an injected real row
 * reaches the card and the menu; an emulated one, or one whose analog was
 * not measured here, leaves the card as it was, and no kernel row moves a
 * user-space figure of the same name. */
static void test_kernel(void)
{
	struct report rep;
	char *before, *t;

	make(&rep, 16.2);
	before = card_text(&rep);
	add_kernel(&rep, "set_bit", "set_bit", 15.0, true);
	add_kernel(&rep, "local_irq_save", "local_irq_save_analog", 7.1, false);
	add_kernel(&rep, "local_lock_irqsave", "__or_byte_tput", 12.0, false);	/* the analog in throughput only */
	t = card_text(&rep);
	CHECK(!strcmp(t, before), "an emulated kernel row, and one without its analog here: the card unchanged");
	free(t);
	rep.r[rep.n - 3].extra.has = 0;	/* the kernel's set_bit, real now */
	rep.r[rep.n - 3].extra.note[0] = '\0';
	t = card_text(&rep);
	CHECK(has(t, "kernel    set_bit 15.00 cyc beside the user-space analog set_bit 7.30\n"),
	      "a real kernel row beside its analog");
	CHECK(has(t, "always (atomic, unordered) [kernel: set_bit 15.00]\n"), "the menu's analog option");
	CHECK(!strstr(t, "local_irq_save "), "no line without the analog measured");
	free(t);
	add(&rep, "__or_byte_tput", MODE_THROUGHPUT, "hit", 1.0);
	t = card_text(&rep);
	CHECK(has(t, "kernel    local_lock_irqsave 12.00 cyc beside the user-space analog __or_byte_tput 1.00 "
		     "(throughput)\n"), "an analog measured in the other mode only: that mode, said");
	free(t);
	/* calibrated under emulation: no card at all, so not one figure of it */
	rep.cal.emulated = true;
	t = TEST_TEXT(CHECK(card_write_text(&rep, f) == -EDOM, "an emulated report: card_write_text -EDOM"));
	CHECK(!t[0], "an emulated report: no card, not one figure");
	free(t);
	free(before);
	report_free(&rep);
}

/* The Intel guest's first default run (tests/data): its staircase has no
 * third cache but a shelf at 2.8-6.7 MiB and 49 ns, this guest's share of
 * the 480 MiB L3 hwloc declares, where the llc walk (4 MiB) lies; its
 * cmpxchg m,r chain runs at 7.0 or 8.2 cycles (the rest: one state). */
static void test_intel_fixture(void)
{
	const char *src = getenv("ATOMCOST_SRCDIR");
	char path[4096], *t;
	struct report rep;
	struct card c;

	snprintf(path, sizeof(path), "%s/tests/data/intel-xeon-kvm-run1.json", src ? src : "..");
	report_init(&rep);
	if (report_read(path, &rep) < 0) {
		CHECK(0, "fixture %s read", path);
		return;
	}
	card_build(&rep, &c);
	CHECK(c.nstep == 5 && !strcmp(c.step[2].name, "L3 shelf") && c.step[2].declared == 480ll << 20 &&
		      !strcmp(c.step[3].name, "shelf") && !strcmp(c.step[4].name, "DRAM"),
	      "steps: %u, the third %s of %lld", c.nstep, c.step[2].name, c.step[2].declared);
	t = TEST_TEXT(card_write_text(&rep, f));
	CHECK(t && strstr(t, "caches    L1 45.2 KiB 5.2 cyc | L2 1.78 MiB 19.4 cyc | L3 shelf 2.83 MiB-6.73 MiB 49 ns, "
			     "of 480 MiB declared | shelf 11.3 MiB-19 MiB 91 ns | DRAM 177 ns"),
	      "the caches line shows the L3 shelf and the declared size:\n%s", t ? t : "");
	CHECK(t && strstr(t, "LLC walk 4 MiB in L3 shelf"), "the LLC walk names the step it walks");
	CHECK(t && strstr(t, "states    cmpxchg_local hit latency: 2 states, 7.01 (59%) and 8.21 (41%) cycles"),
	      "cmpxchg_local's two states on the card");
	CHECK(c.nmix == 1, "one mixed row on the card (%u)", c.nmix);
	CHECK(t && strstr(t, "the host likely traps split locks"), "57 us in a VM: the host traps split locks");
	free(t);
	report_free(&rep);
}

/* A compiler barrier (x86's smp_rmb: no instruction) beside its twin rmb
 * (lfence): neither gets a ratio, in any format; the empty one says why. */
static void test_no_insn(void)
{
	static const char *const fmt[] = { "text", "csv", "json", "mail", "html" };
	struct report rep;
	char *t;

	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.5;
	rep.cal.core_hz = 3e9;
	rep.cal.timer_hz = 1.5e9;
	add(&rep, "smp_rmb", MODE_THROUGHPUT, "hit", 0.02);
	add(&rep, "rmb", MODE_THROUGHPUT, "hit", 17.0);
	for (size_t i = 0; i < rep.n; i++) {
		snprintf(rep.r[i].twin, sizeof(rep.r[i].twin), "%s", rep.r[i].name[0] == 's' ? "rmb" : "smp_rmb");
		rep.r[i].no_insn = rep.r[i].name[0] == 's';
	}
	report_pair_twins(&rep);
	for (size_t i = 0; i < rep.n; i++)
		CHECK(!rep.r[i].has_ratio && rep.r[i].judge.v == VERDICT_NONE, "%s: no ratio", rep.r[i].name);
	for (size_t k = 0; k < ARRAY_SIZE(fmt); k++) {
		t = TEST_TEXT(report_writer_find(fmt[k])->write(&rep, f));
		CHECK(t && !strstr(t, "850") && !strstr(t, "0.0011") && !strstr(t, "0.0012") && !strstr(t, " 0.00 ") &&
		      !strstr(t, "x0.00"),
		      "%s: no ratio of 17.0 over 0.02 (850x) nor its inverse:\n%s", fmt[k], t ? t : "");
		if (!strcmp(fmt[k], "text"))
			CHECK(t && strstr(t, "no instruction here (compiler barrier)"), "text: the row says why");
		free(t);
	}
	report_free(&rep);
}

/* What the run did under load, and an untrustworthy calibration, on the
 * card, in the text header and the summary JSON; a report without the
 * meta says nothing of it. */
static void test_load(void)
{
	struct report rep;
	struct card c;
	char *t;
	json_t *j = NULL;

	make(&rep, 16.2);
	t = card_text(&rep);
	CHECK(!strstr(t, "load      ") && !strstr(t, "NOT TRUSTWORTHY"), "no meta: no load line; trusted: no warning");
	free(t);

	rep.charz = calloc(1, sizeof(*rep.charz));
	if (!rep.charz)
		abort();
	*rep.charz = (struct characterization_meta){
		.has = 1u << CZ_CPU | 1u << CZ_CPU_WHY | 1u << CZ_PATIENCE | 1u << CZ_WAITED | 1u << CZ_REPEATED |
		       1u << CZ_KEPT_DISTURBED,
		.cpu = 1, .patience_s = 60, .waited_s = 3.25, .repeated = 2, .kept_disturbed = 1 };
	snprintf(rep.charz->cpu_why, sizeof(rep.charz->cpu_why), "moved from CPU 0, the quietest allowed PU");
	rep.cal.trustworthy = false;
	rep.cal.chain_agreement = 0.021;
	rep.cal.timer_invariant = true;
	t = card_text(&rep);
	CHECK(has(t, "load      on CPU 1 (moved from CPU 0, the quietest allowed PU); waited 3.2 s for quiet, ran 2 "
		     "stretches again (patience 60 s); KEPT DISTURBED: 1 stretch as measured, the patience ran out"),
	      "the card says where it ran, how long it waited, what it ran again and that the patience ran out");
	CHECK(has(t, "CALIBRATION NOT TRUSTWORTHY: its add and imul chains 2.1% apart"),
	      "the card's clock line says why the calibration is not trusted");
	free(t);
	t = TEST_TEXT(report_write_text(&rep, f));
	CHECK(has(t, "# CALIBRATION NOT TRUSTWORTHY: its add and imul chains 2.1% apart"),
	      "so does the text report's header");
	free(t);
	CHECK(card_build(&rep, &c) == 0 && (j = card_to_json(&c)) &&
	      json_integer_value(json_object_get(json_object_get(j, "load"), "repeated")) == 2 &&
	      json_real_value(json_object_get(json_object_get(j, "load"), "waited_s")) == 3.25, "summary: card.load");
	json_decref(j);

	/* a --quick card says what it left out */
	rep.charz->has |= 1u << CZ_LEFT_OUT;
	snprintf(rep.charz->left_out, sizeof(rep.charz->left_out), "the L2, LLC and DRAM walks");
	rep.charz->kept_disturbed = 0;
	t = card_text(&rep);
	CHECK(has(t, "quick     left out: the L2, LLC and DRAM walks (a --quick card") &&
	      !strstr(t, "KEPT DISTURBED"), "a quick card names what it left out");
	free(t);
	report_free(&rep);
}

int main(void)
{
	test_load();
	test_lines();
	test_sections();
	test_menu();
	test_menu_contention();
	test_card_facts();
	test_order();
	test_kernel();
	test_intel_fixture();
	test_no_insn();
	return test_done("card");
}
