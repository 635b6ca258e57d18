/* SPDX-License-Identifier: MIT */
/* test-card.c - the machine card's sentences follow the report's numbers:
 * a synthetic report gives known figures; the card must print them, pick
 * its verdict words by the noise rule, order the menu by cost, and change
 * when a number changes. Exit 0 pass, 1 fail.
 */
#include "card.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* The epochs of a synthetic report and the relative jitter of each row's
 * epoch medians (a fixed zig-zag: deterministic). */
#define EPOCHS 5
static double jitter = 0.004;

static const char *insn_of(const char *name)
{
	return !strcmp(name, "set_bit") ? "lock orb $imm8,mem" : !strcmp(name, "__set_bit") ? "btsq $nr,mem" :
	       !strcmp(name, "__or_byte") ? "orb $imm8,mem (what C *byte |= mask compiles to)" : "";
}

static void add(struct report *rep, const char *name, enum probe_mode m, const char *pattern,
		double cycles)
{
	static const double z[EPOCHS] = { 1, -1, 0.5, -0.5, 0 };

	for (int e = 1; e <= EPOCHS; e++) {
		struct result *r = report_add(rep);

		snprintf(r->name, sizeof(r->name), "%s", name);
		snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
		snprintf(r->insn, sizeof(r->insn), "%s", insn_of(name));
		r->mode = m;
		r->samples = malloc(sizeof(double));
		r->samples[0] = cycles * (1 + jitter * z[(e + strlen(name)) % EPOCHS]) * rep->cal.ticks_per_cycle;
		r->nsamples = 1;
		r->extra = json_pack("{s:i}", "epoch", e);
		stats_summarize(r->samples, 1, &r->s);
	}
}

static void add_share(struct report *rep, const char *name, const char *placement,
		      const char *pattern, double cycles)
{
	add(rep, name, MODE_LATENCY, pattern, cycles);
	for (size_t i = rep->n - EPOCHS; i < rep->n; i++)
		json_object_set_new(rep->r[i].extra, "contention", json_pack("{s:s}", "placement", placement));
}

static void make(struct report *rep, double l2_atomic)
{
	report_init(rep);
	rep->cal.ticks_per_cycle = 0.5;	/* 2 cycles per tick: the card converts */
	rep->cal.core_hz = 3e9;
	rep->cal.trustworthy = true;
	rep->meta = json_pack("{s:{s:{s:s, s:s, s:s, s:s}}}", "fingerprint", "cpu", "model_name",
			      "Test CPU", "family", "25", "model", "17", "microcode", "0x1");
	add(rep, "set_bit", MODE_THROUGHPUT, "hit", 7.5);
	add(rep, "__set_bit", MODE_THROUGHPUT, "hit", 2.0);
	add(rep, "set_bit", MODE_LATENCY, "hit", 7.3);
	add(rep, "__set_bit", MODE_LATENCY, "hit", 8.0);
	add(rep, "__or_byte", MODE_THROUGHPUT, "hit", 1.0);
	add(rep, "__or_byte", MODE_LATENCY, "hit", 7.4);
	add(rep, "set_bit", MODE_LATENCY, "l2", l2_atomic);
	add(rep, "__set_bit", MODE_LATENCY, "l2", 16.0);
	add(rep, "set_bit_var", MODE_LATENCY, "hit", 8.1);
	add(rep, "spin_lock", MODE_LATENCY, "hit", 20.0);
	add(rep, "preempt_disable", MODE_LATENCY, "hit", 2.0);
	add_share(rep, "atomic_inc", "l3", "true-share", 60.0);
	add_share(rep, "atomic_inc", "l3", "false-share", 58.0);
	add_share(rep, "atomic_inc", "l3", "no-share", 8.0);
}

static char *card_text(const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(card_write_text(rep, f) == 0, "card_write_text");
	fclose(f);
	return buf;
}

static bool has(const char *text, const char *needle)
{
	bool ok = strstr(text, needle) != NULL;

	if (!ok)
		printf("--- card ---\n%s--- has no '%s'\n", text, needle);
	return ok;
}

int main(void)
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
	/* menu: set a bit only this CPU writes, cheapest first */
	a = strstr(t, "\n    set_bit  ");
	b = strstr(t, "\n    __set_bit  ");
	CHECK(a && b && a < b, "menu ordered by cost (set_bit 7.3 before __set_bit 8.0)");
	CHECK(has(t, "no concurrent writer"), "safety condition printed");
	CHECK(has(t, "per-CPU counter:\n    not measured"), "a need without options");
	CHECK(has(t, "split     not measured"), "no split-lock section: said so");
	free(t);
	report_free(&rep);

	/* the split lock, from its section */
	make(&rep, 16.2);
	rep.sections = json_pack("{s:{s:b, s:b, s:f, s:f, s:f, s:{s:s}}}", "splitlock", "supported", 1,
				 "sigbus", 0, "split_ns", 1041.0, "aligned_ns", 1.7, "ratio", 612.0, "kernel",
				 "why", "not detected");
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

	/* and the menu order follows the numbers */
	make(&rep, 16.2);
	for (size_t i = 0; i < rep.n; i++)
		if (!strcmp(rep.r[i].name, "__set_bit") && rep.r[i].mode == MODE_LATENCY &&
		    !strcmp(rep.r[i].pattern, "hit"))
			rep.r[i].s.median = 1.0 * rep.cal.ticks_per_cycle;
	t = card_text(&rep);
	a = strstr(t, "\n    set_bit  ");
	b = strstr(t, "\n    __set_bit  ");
	CHECK(a && b && b < a, "menu reorders when __set_bit gets cheaper");
	free(t);
	{
		json_t *j = card_to_json(&rep);

		CHECK(json_is_object(j) && json_array_size(json_object_get(j, "menu")) == 5,
		      "summary JSON with the menu");
		json_decref(j);
	}
	report_free(&rep);
	return test_done("card");
}
