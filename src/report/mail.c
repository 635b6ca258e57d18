/* SPDX-License-Identifier: MIT */
/* report/mail.c - `--format mail`: plain 72-column text in the shape kernel
 * engineers paste into patches and list posts:
 *
 *   non-atomic (before)                - atomic (after)
 *   set_bit hit lat: lock orb $imm,mem                   x20.66 [20.6,20.8]
 *       1.0 cycles(tsc)   0.296 ns -   12.8 cycles(tsc)   6.108 ns
 *
 * "cycles(tsc)" are TSC ticks, as the kernel's get_cycles() counts them
 * (the 2015 slub bulk-free benchmark posts, docs/reproductions.md); the header
 * says how many ticks a core cycle is. Each pair is printed once, the less
 * atomic probe before. With --epochs a row is the median of the epoch
 * medians and the bracket is the range of the pass ratios. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "card.h"
#include "compare.h"
#include "build-config.h"
#include "fingerprint.h"
#include "report.h"

void report_mail_wrap(FILE *f, const char *prefix, const char *text)
{
	size_t width = 72 - strlen(prefix);
	const char *p = text;

	while (*p) {
		size_t n = strlen(p), cut = n;

		if (n > width) {
			cut = width;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width;	/* one long word: hard break */
		}
		fprintf(f, "%s%.*s\n", prefix, (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

void report_mail_wrapf(FILE *f, const char *prefix, const char *fmt, ...)
{
	char line[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	report_mail_wrap(f, prefix, line);
}

/* A row whose samples hold steady states: each, since its median moves
 * with their mix (docs/card.md, states). */
static void mail_states(const struct result *r, const struct report_row *w, FILE *f)
{
	char t[96];

	if (w->mix.nstates > 1)
		fprintf(f, "  %s: %zu states, %s cycles(tsc)\n", r->name, w->mix.nstates,
			stats_mixture_text(&w->mix, 1, t, sizeof(t)));
}

/* What measured, when, the calibration and how to read the verdicts. */
static void mail_header(const struct report *rep, FILE *f)
{
	const struct calibration *c = &rep->cal;
	struct card_machine m;
	static struct card card;	/* large: not on the stack */
	char line[512];
	int passes = compare_max_epoch(rep);

	/* the version that measured, not the one reading */
	report_machine(rep, &m);
	report_mail_wrapf(f, "", "atomcost %s, %s: atomic vs non-atomic cost per op",
			  m.tool_version ? m.tool_version : ATOMCOST_VERSION, rep->started);
	fingerprint_oneline(&rep->fp, line, sizeof(line));
	report_mail_wrap(f, "", line);
	report_mail_wrapf(f, "", "core %.3f GHz, TSC %.4f GHz: cycles(tsc) are TSC ticks, %.4f per core cycle (%s)",
			  c->core_hz / 1e9, c->timer_hz / 1e9, c->ticks_per_cycle,
			  c->trustworthy ? "calibration consistent" : "calibration NOT consistent");
	if (!c->trustworthy)
		report_mail_wrapf(f, "", "CALIBRATION NOT TRUSTWORTHY: %s", card_cal_why(c, line, sizeof(line)));
	if (card_wanted(rep) && !card_build(rep, &card) && card_load_text(&card, line, sizeof(line)))
		report_mail_wrapf(f, "", "load: %s", line);
	if (passes > 1)
		report_mail_wrapf(f, "", "%d epochs: median of epoch medians; [..] is the range of the epoch ratios",
				  passes);
	report_mail_wrapf(f, "", "slower/faster: the 95%% interval of the ratio over the epochs lies beyond %.0f%% (or %.2f cycles); same: its 90%% interval lies inside (equivalence); else unresolved; analogs get none",
			  JUDGE_MARGIN_REL * 100, JUDGE_MARGIN_ABS);
	if (rep->partial)
		report_mail_wrapf(f, "", "PARTIAL (%s): only what was measured before it stopped", rep->partial_reason);
	if (c->emulated)
		report_mail_wrapf(f, "", "EMULATED (%s): every figure is the emulator's, not a measurement",
				  c->emulation);
}

int report_write_mail(const struct report *rep, FILE *f)
{
	mail_header(rep, f);
	fprintf(f, "\n%-34s - %s\n", "twin, less atomic (before)", "probe (after)");
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i], *t;
		struct report_row b, a;
		char name[512], ratio[96] = "", v[48], ctx[32];

		if (!compare_group_first(rep, i))
			continue;
		t = r->twin[0] ? report_find(rep, r->twin, r->mode, r->pattern, r->context) : NULL;
		if (!report_pair_lead(r, t))
			continue;
		report_row(rep, i, &b);
		/* a row's context and mark: "[kernel]", "[kernel, emulated]", "[emulated]" */
		snprintf(ctx, sizeof(ctx), r->context == RESULT_KERNEL || report_row_emulated(rep, r) ? " [%s%s%s]" : "",
			 r->context == RESULT_KERNEL ? "kernel" : "",
			 r->context == RESULT_KERNEL && report_row_emulated(rep, r) ? ", " : "",
			 report_row_emulated(rep, r) ? "emulated" : "");
		snprintf(name, sizeof(name), "%s%s%s %s %s%s: %s", t ? t->name : "", t ? " - " : "",
			 r->name, r->pattern, r->mode == MODE_LATENCY ? "lat" : "tput", ctx, r->insn);
		if (!t) {
			if (strlen(name) > 34)	/* too long: without its ": insn" */
				name[strlen(name) - strlen(r->insn) - 2] = '\0';
			fprintf(f, "%-34s   %6.1f cycles(tsc) %7.3f ns\n", name, b.median, result_ns(rep, b.median));
			mail_states(r, &b, f);
			continue;
		}
		report_row(rep, (size_t)(t - rep->r), &a);
		result_judgment_text(r, v, sizeof(v));
		if (isfinite(b.ratio_lo))
			snprintf(ratio, sizeof(ratio), "x%.2f [%.2f,%.2f] %s", a.median > 0 ? b.median / a.median : NAN,
				 b.ratio_lo, b.ratio_hi, v);
		if (strlen(name) + 1 + strlen(ratio) > 72)
			name[strlen(name) - strlen(r->insn) - 2] = '\0';
		/* at least one space between the name and the ratio: a long
		 * name pushes the line past 72 rather than touch it */
		fprintf(f, "%-*s %s\n", (int)(71 - strlen(ratio)), name, ratio);
		fprintf(f, "  %6.1f cycles(tsc) %7.3f ns - %6.1f cycles(tsc) %7.3f ns\n", a.median,
			result_ns(rep, a.median), b.median, result_ns(rep, b.median));
		mail_states(t, &a, f);
		mail_states(r, &b, f);
	}
	return 0;
}
