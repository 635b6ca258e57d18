/* SPDX-License-Identifier: MIT */
/* report/compare.c - the writers of a comparison (compare.h): the aligned
 * table and the 72-column mail shape. They read a computed comparison and
 * the two reports; the arithmetic and the verdicts are compare.c's. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "fingerprint.h"
#include "report.h"

struct diff_print {
	FILE *f;
	size_t n;
};

static void print_diff(const char *key, const char *a, const char *b, void *arg)
{
	struct diff_print *d = arg;

	if (d->n++ == 0)
		report_mail_wrap(d->f, "# ", "FINGERPRINTS DIFFER: the reports come from different machines, kernels or builds");
	report_mail_wrapf(d->f, "#   ", "%s: A '%s', B '%s'", key, a, b);
}

/* A side's name for the header: the file name without its directory (the
 * header must fit the 72-column mail format wherever the reports live);
 * for a list of processes, the first file name and how many more. */
static void side_name(const char *arg, char *buf, size_t len)
{
	const char *comma = arg ? strchr(arg, ',') : NULL, *slash;
	size_t more = 0, n;

	if (!arg) {
		snprintf(buf, len, "-");
		return;
	}
	n = comma ? (size_t)(comma - arg) : strlen(arg);
	for (const char *p = comma; p; p = strchr(p + 1, ','))
		more++;
	slash = memrchr(arg, '/', n);
	if (slash) {
		n -= (size_t)(slash + 1 - arg);
		arg = slash + 1;
	}
	snprintf(buf, len, more ? "%.*s and %zu more" : "%.*s", (int)n, arg, more);
}

static void side_line(FILE *f, const char *tag, const char *arg, const struct report *rep,
		      const struct fingerprint *fp)
{
	char name[256], line[512];
	int epochs = compare_max_epoch(rep), procs = compare_max_process(rep);

	side_name(arg, name, sizeof(name));
	if (procs > 1)
		fprintf(f, "# %s: %s (%s, %d processes, %d epochs)\n", tag, name, rep->started, procs,
			epochs);
	else if (epochs)
		fprintf(f, "# %s: %s (%s, %d epoch%s)\n", tag, name, rep->started, epochs,
			epochs > 1 ? "s" : "");
	else
		fprintf(f, "# %s: %s (%s, no epochs)\n", tag, name, rep->started);
	fingerprint_oneline(fp, line, sizeof(line));
	report_mail_wrap(f, "#    ", line);
}

static const char *const phi_sources[] = {
	[PHI_WITHIN] = "within", [PHI_BETWEEN] = "A-B", [PHI_OTHERS] = "others",
	[PHI_DEFAULT] = "default", [PHI_NONE] = "-",
};

/* Each kind of row (72 columns): how many, its process part and where it
 * came from, its shift as a whole; the prior degrees and the shared part
 * of the shifts on a line before. */
static void kinds_table(const struct comparison *c, FILE *f)
{
	double d0_lo = INFINITY, d0_hi = 0, ps = NAN;
	enum compare_phi_source src = PHI_NONE;

	for (size_t k = 0; k < c->nkinds; k++) {
		d0_lo = fmin(d0_lo, c->kinds[k].prior.df);
		d0_hi = fmax(d0_hi, c->kinds[k].prior.df);
		if (!isnan(c->kinds[k].phi_shift) && (isnan(ps) || c->kinds[k].phi_shift > ps)) {
			ps = c->kinds[k].phi_shift;
			src = c->kinds[k].shift_source;
		}
	}
	if (!c->nkinds)
		return;
	report_mail_wrapf(f, "# ",
			  "kinds: prior degrees d0 %.1f-%.1f; a kind's shift is its median row's change, its variance from the kind's epoch effects plus a shared process part (at most %.2f, %s)",
			  d0_lo, d0_hi, ps, phi_sources[src]);
	fprintf(f, "# %-19s %4s %12s %-19s %s\n", "kind", "rows", "phi", "shift [95% CI]", "as a whole");
	for (size_t k = 0; k < c->nkinds; k++) {
		const struct compare_kind *kd = &c->kinds[k];
		char name[64], phi[32] = "-", sh[48] = "-";

		snprintf(name, sizeof(name), "%s%s %s", kd->ctx == RESULT_KERNEL ? "kernel " : "", kd->pattern,
			 kd->mode == MODE_LATENCY ? "lat" : "tput");
		if (!isnan(kd->phi))
			snprintf(phi, sizeof(phi), "%.2f %s", kd->phi, phi_sources[kd->source]);
		if (isfinite(kd->se))
			snprintf(sh, sizeof(sh), "%+.1f%% [%+.1f,%+.1f]", expm1(kd->shift) * 100, expm1(kd->lo) * 100,
				 expm1(kd->hi) * 100);
		fprintf(f, "# %-19s %4zu %12s %-19s %s\n", name, kd->nrows, phi, sh,
			!isfinite(kd->se) ? "-" : kd->verdict == CMP_REGRESSED ? "regressed" :
			kd->verdict == CMP_IMPROVED ? "improved" : kd->verdict == CMP_SAME ? "same" : "cannot tell");
	}
}

static void header(const struct comparison *c, const struct report *a, const struct report *b,
		   const char *na, const char *nb, FILE *f)
{
	const struct fingerprint *fa = a->fp.n ? &a->fp : NULL, *fb = b->fp.n ? &b->fp : NULL;
	struct diff_print d = { .f = f };

	if (!fa || !fb)
		fprintf(f, "# fingerprint missing from %s: machines cannot be checked for a match\n",
			!fa ? (!fb ? "both reports" : "A") : "B");
	else
		fingerprint_diff(fa, fb, print_diff, &d);
	side_line(f, "A", na, a, fa);
	side_line(f, "B", nb, b, fb);
	/* the rule, with the figures this comparison used */
	report_mail_wrapf(f, "# ",
			  "rule: core cycles; a row's replicates are its epoch medians (%d and %d process%s), less what its kind's rows share in each epoch (the median row's move); %zu epoch%s whose drift chain moved (the core disturbed) and %zu outlier epoch%s (beyond %.0f robust spreads, at most one in five) left out, %zu row%s not tested (one side disturbed in most epochs, the other not); a row is judged on its change beyond its kind's shift, printed per kind below",
			  c->a_procs, c->b_procs, c->b_procs == 1 ? "" : "es", c->drifted, c->drifted == 1 ? "" : "s",
			  c->outliers, c->outliers == 1 ? "" : "s", COMPARE_OUTLIER_SPREADS, c->disturbed,
			  c->disturbed == 1 ? "" : "s");
	report_mail_wrapf(f, "# ",
			  "variances: each row's spread within processes moderated across its kind's rows in both reports (Smyth 2004; prior degrees d0), plus a process part phi per kind (in units of the epochs' variance) from the process means within a side (2+ reports a side: 'within') or from the rows' changes beyond their kind's shift ('A-B': one report a side, the median row's change taken as the kind's); a row whose process means spread beyond that (F test at %.0f%%) uses its own",
			  COMPARE_EXCESS_ALPHA * 100);
	report_mail_wrapf(f, "# ",
			  "margin %.1f%%: sqrt(min-change %.1f%%^2 + self-check %.2f%%^2), at least %.2f cycles/op; the core clocks differ by %.2f%% (each row's cycles carry their own calibration)",
			  c->margin * 100, c->min_change * 100, c->check_shift * 100, COMPARE_ABS_FLOOR,
			  c->cal_shift * 100);
	{
		char fam[2][96];

		for (int i = 0; i < 2; i++)
			snprintf(fam[i], sizeof(fam[i]), c->family_tested[i] ? "%zu %s (one more flag needs p < %.2g)" : "%zu %s",
				 c->family_tested[i], i ? "rows under a pattern" : "hot-line rows", c->threshold[i]);
		report_mail_wrapf(f, "# ",
				  "regressed/improved: the change lies beyond the margin (minimum-effect t test), Benjamini-Hochberg at FDR %.0f%% in two families: %s and %s; same: inside it (TOST at %.0f%%); otherwise cannot tell below the row's detectable change, and (+N runs) more reports a side would judge it at its spread",
				  c->q * 100, fam[0], fam[1], c->q * 100);
	}
	if (isfinite(c->detect_hot) || isfinite(c->detect_pattern)) {
		char hot[16] = "-", pat[16] = "-";

		if (isfinite(c->detect_hot))
			snprintf(hot, sizeof(hot), "%.1f%%", c->detect_hot * 100);
		if (isfinite(c->detect_pattern))
			snprintf(pat, sizeof(pat), "%.1f%%", c->detect_pattern * 100);
		report_mail_wrapf(f, "# ",
				  "detectable at this run count (median of the tested rows): hot rows %s, rows under a pattern %s",
				  hot, pat);
	}
	if (c->states)
		report_mail_wrapf(f, "# ",
				  "%zu row%s hold two or more steady states in their samples (extra.states): compared like with like, at the state both sides hold in the most epochs, each epoch's value of it (basis 'state'; the cycles shown are that state's)",
				  c->states, c->states == 1 ? "" : "s");
	if (c->untested > c->blocks_untested)
		report_mail_wrapf(f, "# ",
				  "%zu rows not tested: their kind's process part could not be estimated (too few rows); give 2+ reports a side (a1.json,a2.json)",
				  c->untested - c->blocks_untested);
	if (c->blocks)
		report_mail_wrapf(f, "# ",
				  "%zu rows on blocks of one run's samples (a side without epochs): margin %.1f%% (--noise-floor, how far rows move between processes), never same; %zu of them not tested (under a pattern, or a CI target missed)",
				  c->blocks, c->block_margin * 100, c->blocks_untested);
	kinds_table(c, f);
	if (c->calibration)
		report_mail_wrapf(f, "# ",
				  "CALIBRATION MOVED: a self-check (add_chain, imul_chain) changed by %.1f%%: the clock calibration differs between the runs, not the code; every margin includes it",
				  c->check_shift * 100);
}

static const char *const basis_names[] = {
	[BASIS_PROCESSES] = "procs", [BASIS_EPOCHS] = "epochs", [BASIS_BLOCKS] = "blocks",
	[BASIS_NONE] = "-",
};

int compare_write_text(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[300];

	header(c, a, b, na, nb, f);
	fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-6s %5s %6s %7s %s\n", "probe", "pattern", "mode",
		"A cycles", "B cycles", "change", "[95% CI]", "basis", "reps", "margin", "detect", "verdict");
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_row *r = &c->rows[i];
		char v[64], chg[16] = "-", ci[40] = "-", reps[16] = "-", margin[16] = "-", detect[16] = "-";
		char as[16] = "-", bs[16] = "-";

		if (r->verdict != CMP_ONLY_B)
			snprintf(as, sizeof(as), "%.3f", r->a_cycles);
		if (r->verdict != CMP_ONLY_A)
			snprintf(bs, sizeof(bs), "%.3f", r->b_cycles);
		if (isfinite(r->ratio))
			snprintf(chg, sizeof(chg), "%+.1f%%", (r->ratio - 1) * 100);
		if (isfinite(r->lo))
			snprintf(ci, sizeof(ci), "[%+.1f%%,%+.1f%%]", (r->lo - 1) * 100, (r->hi - 1) * 100);
		if (r->basis != BASIS_NONE)
			snprintf(reps, sizeof(reps), "%zu/%zu", r->a_reps, r->b_reps);
		if (isfinite(r->margin))
			snprintf(margin, sizeof(margin), "%.1f%%", r->margin * 100);
		if (isfinite(r->detect))
			snprintf(detect, sizeof(detect), r->detect < 10 ? "%.1f%%" : "%.0f%%", r->detect * 100);
		compare_verdict_text(r, v, sizeof(v));
		fprintf(f, "%-20s %-7s %-10s %9s %9s %8s %-19s %-6s %5s %6s %7s %s\n", r->name, r->pattern,
			probe_mode_name(r->mode), as, bs, chg, ci, isnan(r->state) ? basis_names[r->basis] : "state", reps,
			margin, detect, v);
	}
	compare_summary(c, sum, sizeof(sum));
	fprintf(f, "%s\n", sum);
	return 0;
}

/* One side of a mail row; "-" for a side that lacks the row. */
static void mail_side(bool has, double ticks, double ns, char *buf, size_t len)
{
	if (has)
		snprintf(buf, len, "%6.1f cycles(tsc) %7.3f ns", ticks, ns);
	else
		snprintf(buf, len, "%6s cycles(tsc) %7s ns", "-", "-");
}

/* 72 columns: a name line with the verdict on the right, then the kernel
 * shape "A - B" with N cycles(tsc) (TSC ticks, as the kernel's get_cycles
 * counts) and ns. The verdicts come from core cycles (header). */
int compare_write_mail(const struct comparison *c, const struct report *a,
		       const struct report *b, const char *na, const char *nb, FILE *f)
{
	char sum[300];

	header(c, a, b, na, nb, f);
	fprintf(f, "\n%-34s - %s\n", "A (before)", "B (after)");
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_row *r = &c->rows[i];
		char name[128], v[64], as[48], bs[48];

		snprintf(name, sizeof(name), "%s %s %s", r->name, r->pattern,
			 r->mode == MODE_LATENCY ? "lat" : "tput");
		compare_verdict_text(r, v, sizeof(v));
		fprintf(f, "%-*s%s\n", (int)(72 - strlen(v) > strlen(name) ? 72 - strlen(v) : strlen(name) + 1),
			name, v);
		mail_side(r->verdict != CMP_ONLY_B, r->a_ticks, r->a_ns, as, sizeof(as));
		mail_side(r->verdict != CMP_ONLY_A, r->b_ticks, r->b_ns, bs, sizeof(bs));
		fprintf(f, "  %s - %s\n", as, bs);
	}
	compare_summary(c, sum, sizeof(sum));
	fputc('\n', f);
	report_mail_wrap(f, "", sum);
	return 0;
}
