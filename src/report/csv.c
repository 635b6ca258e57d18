/* SPDX-License-Identifier: MIT */
/* report/csv.c - one row per result (per pass with --epochs), RFC 4180
 * quoting, numbers in C locale. Columns are documented in docs/reports.md;
 * new columns are only ever appended. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "report.h"
#include "sections.h"

void report_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.6g", v);
	else
		fputc(',', f);
}

int report_write_csv(const struct report *rep, FILE *f)
{
	fputs("probe,twin,family,atomicity,insn,pattern,mode,epoch,cpu_os,"
	      "cycles_min,cycles_p10,cycles_median,cycles_p90,cycles_ci_lo,cycles_ci_hi,"
	      "ns_median,ticks_median,samples,outliers,ratio,ratio_lo,ratio_hi,ci_reached,migrated,"
	      "extra,verdict,epochs,spread,context,emulated\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		char *extra = report_extra_text(r);
		const char *str[] = { r->name, r->twin, r->family, r->atomicity, r->insn,
				      r->pattern };
		const double cyc[] = { r->s.min, r->s.p10, r->s.median, r->s.p90, r->s.ci_lo,
				       r->s.ci_hi };

		for (size_t k = 0; k < ARRAY_SIZE(str); k++) {
			if (k)
				fputc(',', f);
			report_csv_str(f, str[k]);
		}
		fprintf(f, ",%s,%d,%d", probe_mode_name(r->mode), result_epoch(r), r->cpu_os);
		for (size_t k = 0; k < ARRAY_SIZE(cyc); k++)
			csv_num(f, result_cycles(rep, cyc[k]));
		csv_num(f, result_ns(rep, r->s.median));
		csv_num(f, r->s.median);
		fprintf(f, ",%zu,%zu", r->nsamples, r->s.outliers);
		csv_num(f, r->has_ratio ? r->ratio : NAN);
		csv_num(f, r->has_ratio ? r->ratio_lo : NAN);
		csv_num(f, r->has_ratio ? r->ratio_hi : NAN);
		fprintf(f, ",%d,%d,", r->ci_reached, r->migrated);
		report_csv_str(f, extra ? extra : "");
		/* the judgment over the epochs (empty: no ratio, or an analog) */
		fprintf(f, ",%s", r->has_ratio && r->judge.v != VERDICT_NONE ? stats_verdict_name(r->judge.v) : "");
		fprintf(f, ",%zu", r->has_ratio ? r->judge.n : 0);
		csv_num(f, r->has_ratio && r->judge.v != VERDICT_NONE ? r->judge.spread : NAN);
		fprintf(f, ",%s,%d\n", result_context_name(r->context), report_row_emulated(rep, r));
		free(extra);
	}
	return ferror(f) ? -EIO : 0;
}
