/* SPDX-License-Identifier: MIT */
/* cmd/compare.c - `atomcost compare A.json B.json`: per probe, pattern and
 * mode the change from A to B in core cycles with a 95% CI, the smallest
 * change the row could flag, and a verdict (regressed, improved, same,
 * cannot tell); mismatched fingerprints and the rule first, a one-line
 * summary last. A side may be several reports of separate processes
 * (a1.json,a2.json,a3.json): their epochs are then nested in processes.
 * The rule: compare.h, docs/reports.md. Exit 0 whatever the verdicts
 * (--fail-on-regression: 1 when a row regressed, for CI scripts).
 * Three or more files, a summary among them, or --cards: the machines side
 * by side, the card's rows one column per machine (compare-n.h). More than
 * COMPARE_N_MAX files, or --fleet: a fleet, each row's median and spread,
 * the groups that moved and the machines beyond it named (fleet.h);
 * unreadable files and repeated hosts are skipped and counted, exit 2 when
 * fewer than two remain, --fail-on: 1 when what it names was found. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "compare.h"
#include "compare-n.h"
#include "fingerprint.h"
#include "fleet.h"
#include "report.h"

struct compare_args {
	struct compare_n_opts no;	/* side by side; two-way takes the same margins */
	unsigned format;		/* text, mail, html, csv, json */
	bool fail_reg, cards, members;
	unsigned fail_on;		/* a fleet: none, outlier, group, any */
	const char *as, *group_by;
};

#define A(f) offsetof(struct compare_args, f)
static const struct cmd_opt compare_opt[] = {
	{ .name = "format", .type = OPT_CHOICE, .arg = "FMT", .off = A(format), .def = "text",
	  .choices = "text|mail|html|csv|json",
	  .help = "text or mail (72 columns, before - after); side by side: text or html; a fleet: text, html, csv or json" },
	{ .name = "min-change", .type = OPT_PCT, .arg = "PCT", .off = A(no.min_change),
	  .min = NOISE_FLOOR_MIN * 100, .max = 100,
	  .help = "the practical margin, never lower: smaller changes are not worth a verdict" },
	{ .name = "noise-floor", .type = OPT_PCT, .arg = "PCT", .off = A(no.noise_floor),
	  .min = NOISE_FLOOR_MIN * 100, .max = 100, .help = "margin of rows of a side without epochs" },
	{ .name = "fail-on-regression", .type = OPT_FLAG, .off = A(fail_reg),
	  .help = "exit 1 when a row regressed" },
	{ .name = "as", .type = OPT_STR, .arg = "X=Y", .off = A(as),
	  .help = "A's probe X stands for B's probe Y (compare two probes: --as __set_bit=set_bit "
		  "run.json run.json)" },
	{ .name = "cards", .type = OPT_FLAG, .off = A(cards),
	  .help = "two files side by side (as for three or more)" },
	{ .name = "all", .type = OPT_FLAG, .off = A(no.all_rows),
	  .help = "side by side: every result line too, not only the card's" },
	{ .name = "fleet", .type = OPT_FLAG, .off = A(no.fleet),
	  .help = "the files as a fleet: each row's median and spread, the machines beyond it named "
		  "(always above 64 files)" },
	{ .name = "group-by", .type = OPT_STR, .arg = "KEY", .off = A(group_by),
	  .help = "a fleet: group the machines by this key alone (cpu, microcode, kernel, bios, or a label: "
		  "partition, features, group, ...); every key unset" },
	{ .name = "members", .type = OPT_FLAG, .off = A(members),
	  .help = "a fleet: list the machines of each group that moved" },
	{ .name = "fail-on", .type = OPT_CHOICE, .arg = "WHAT", .off = A(fail_on), .def = "none",
	  .choices = "none|outlier|group|any",
	  .help = "a fleet: exit 1 when a machine is named (outlier), a group moved (group), or either (any)" },
};
#undef A

static const struct cmd_opts compare_cmd = {
	.usage = "usage: atomcost compare A.json[,A2.json...] B.json[,B2.json...] [options]\n"
		 "       atomcost compare A.json B.json C.json ... [--format text|html] [--all]\n"
		 "       atomcost compare --fleet FILE... [--format text|html|csv|json] [--all] [--members]\n"
		 "                [--group-by KEY] [--fail-on outlier|group|any]\n",
	.opt = compare_opt, .n = ARRAY_SIZE(compare_opt), .max_operands = -1,
};

/* After the options in --help: the rule. */
static void compare_rule(FILE *f)
{
	fprintf(f,
		"Rows are compared in core cycles. A row's replicates are its epochs' medians\n"
		"(several reports per side: epochs within processes), less what the rows of\n"
		"its kind (pattern and mode) share in each epoch; its spread is moderated over\n"
		"the kind, with a process part per kind. A row is judged on its change beyond\n"
		"its kind's shift (each kind's shift is judged on its own line):\n"
		"  regressed/improved P%%  the change lies beyond the margin (t test),\n"
		"  same within M%%         it lies inside the margin (equivalence test, TOST),\n"
		"  cannot tell below X%%   neither: X is the smallest change its data could flag.\n"
		"Changes are corrected over hot-line rows and over pattern rows apart\n"
		"(Benjamini-Hochberg, %.0f%% false discoveries each). The margin is --min-change\n"
		"widened by the move of the self-checks; docs/reports.md has the model. A\n"
		"side without epochs (an old report) falls back to blocks of its samples:\n"
		"only settled hit rows are tested, against --noise-floor, never called same.\n"
		"Side by side (three or more files, a summary JSON among them, or --cards): each\n"
		"file a full report or a summary (atomcost report X.json -o X.summary.json), one\n"
		"column per machine, each cell against the first column: hot-line cells with\n"
		"epochs in both files are judged as above (marked, '=' the same, or cannot\n"
		"tell); other cells are marked only beyond their row's floor: --noise-floor on\n"
		"hot-line rows, %.0f%% on rows under a pattern, sharing or c2c (docs/fleet.md).\n"
		"A fleet (--fleet, or more than %d files), read one summary at a time: per row\n"
		"the fleet's median and robust spread (%.4g x MAD of the logs). A group (cpu,\n"
		"microcode, kernel, bios, or a label: partition, features, group; --group-by\n"
		"KEY for one) moved where its median's 95%% interval lies beyond --min-change\n"
		"(Benjamini-Hochberg over rows x groups): one line, --members lists it. A\n"
		"machine is named where it lies beyond %.1f spreads of its reference (the fleet,\n"
		"or its moved group), beyond --min-change and its own noise, survives\n"
		"Benjamini-Hochberg over rows x machines and, alone, %.0f%% / their number.\n"
		"--fail-on outlier|group|any: exit 1 when found. Files that cannot be read,\n"
		"are not a summary or repeat a host are named and skipped; exit 2 when fewer\n"
		"than two remain.\n",
		COMPARE_Q * 100, COMPARE_N_WIDE_FLOOR * 100, COMPARE_N_MAX, FLEET_MAD_SD, FLEET_K, COMPARE_Q * 100);
}

/* --as X=Y: A's rows of probe X stand for B's rows of probe Y (A's own Y
 * rows are dropped). Compares two probes of one report, e.g. the non-atomic
 * twin against the atomic one: `--as __set_bit=set_bit r.json r.json`. */
static int rename_rows(struct report *a, const char *spec)
{
	char from[64], to[64];
	const char *eq = strchr(spec, '=');
	size_t k = 0, hits = 0;

	if (!eq || eq == spec || !eq[1] || (size_t)(eq - spec) >= sizeof(from) || strlen(eq + 1) >= sizeof(to)) {
		pr_err("compare: --as: '%s' is not PROBE=PROBE (e.g. __set_bit=set_bit)", spec);
		return -EINVAL;
	}
	snprintf(from, sizeof(from), "%.*s", (int)(eq - spec), spec);
	snprintf(to, sizeof(to), "%s", eq + 1);
	for (size_t i = 0; i < a->n; i++) {
		struct result *r = &a->r[i];

		if (!strcmp(r->name, to)) {
			result_release(r);
			continue;
		}
		if (!strcmp(r->name, from)) {
			snprintf(r->name, sizeof(r->name), "%s", to);
			hits++;
		}
		a->r[k++] = *r;
	}
	a->n = k;
	if (!hits) {
		pr_err("compare: --as: report A has no probe '%s'", from);
		return -EINVAL;
	}
	return 0;
}

/* Counts the facts that make two reports another machine, kernel or
 * build: all but the measured core clock, which compare_merge rescales
 * (under load the add chain read 4.26 and 4.53 GHz in two runs of one
 * build on the development guest, 6% apart). */
static void count_identity(const char *key, const char *a, const char *b, void *arg)
{
	*(size_t *)arg += strcmp(key, "core_hz") != 0;
}

/* One side: a report, or a comma-separated list of reports of separate
 * processes of one build, merged into one (compare_merge). */
static int read_side(const char *arg, struct report *rep)
{
	char *list = strdup(arg), *save = NULL, *path;
	int ret;

	if (!list)
		return -ENOMEM;
	path = strtok_r(list, ",", &save);
	ret = path ? report_read(path, rep) : -EINVAL;
	if (!path)
		pr_err("compare: '%s' names no report", arg);
	while (!ret && (path = strtok_r(NULL, ",", &save))) {
		struct report more;
		size_t diffs = 0;

		ret = report_read(path, &more);
		if (!ret) {
			fingerprint_diff(&rep->fp, &more.fp, count_identity, &diffs);
			if (diffs) {
				pr_err("compare: '%s' comes from another machine, kernel or build than the reports before it in '%s' (a side is several runs of one build)",
				       path, arg);
				ret = -EINVAL;
			} else {
				ret = compare_merge(rep, &more);
			}
			report_free(&more);
		}
		if (ret < 0)
			report_free(rep);
	}
	free(list);
	return ret;
}

/* The machines side by side: one column per file. */
static int compare_side_by_side(char **files, size_t n, const struct compare_n_opts *o, bool html)
{
	static struct compare_n_doc docs[COMPARE_N_MAX];
	struct compare_n cn;
	int ret = 0;
	size_t k;

	for (k = 0; k < n && !ret; k++) {
		if (strchr(files[k], ',')) {
			pr_err("compare: '%s': side by side takes one file per machine, not a comma-separated list (that is for two-way compare)",
			       files[k]);
			ret = -EINVAL;
		} else {
			ret = report_read_summary(files[k], &docs[k]);
		}
	}
	if (!ret)
		ret = compare_n_build(docs, n, o, &cn);
	if (!ret) {
		ret = html ? compare_n_write_html(&cn, stdout) : compare_n_write_text(&cn, stdout);
		compare_n_free(&cn);
	}
	for (k = 0; k < n; k++)
		report_free_summary(&docs[k]);
	return ret < 0 ? exit_code_for(ret) : EXIT_OK;
}

/* A fleet: the files read one at a time, bad ones skipped. Exit 1 with
 * --fail-on when what it names was found (as --fail-on-regression). */
static int compare_fleet(char **files, size_t n, const struct compare_args *a)
{
	static int (*const write[])(const struct fleet *f, bool members, FILE *out) = {
		fleet_write_text, NULL, fleet_write_html, fleet_write_csv, fleet_write_json,
	};
	struct fleet f;
	int ret = fleet_init(&f, &a->no, a->group_by), code = EXIT_OK;

	for (size_t i = 0; !ret && i < n; i++) {
		struct compare_n_doc d;

		ret = report_read_summary(files[i], &d);	/* says what is wrong */
		ret = fleet_add_read(&f, files[i], ret, &d);
		report_free_summary(&d);
	}
	if (!ret && f.nmach < 2) {
		pr_err("compare: %zu of %zu files read: a fleet needs two or more summaries", f.nmach, n);
		fleet_free(&f);
		return EXIT_USAGE;
	}
	if (!ret && f.nskip)
		pr_err("compare: %zu of %zu files skipped (named above); comparing %zu", f.nskip, n, f.nmach);
	if (!ret)
		ret = fleet_judge(&f);
	if (!ret)
		ret = write[a->format](&f, a->members, stdout);
	if (!ret && ((a->fail_on & 1 && f.nnamed) || (a->fail_on & 2 && f.nshift)))
		code = EXIT_RUNTIME;
	fleet_free(&f);
	return ret < 0 ? exit_code_for(ret) : code;
}

/* Two sides, A before and B after: a verdict per row. An exit code. */
static int compare_two(const struct compare_args *ca, char **files)
{
	struct compare_opts o;
	struct comparison cmp;
	struct report a, b;
	int ret, code = EXIT_OK;

	compare_default_opts(&o);
	o.noise_floor = ca->no.noise_floor;
	o.min_change = ca->no.min_change;
	ret = read_side(files[0], &a);
	if (ret < 0)
		return exit_code_for(ret);
	ret = read_side(files[1], &b);
	if (ret < 0) {
		report_free(&a);
		return exit_code_for(ret);
	}
	ret = ca->as ? rename_rows(&a, ca->as) : 0;	/* -EINVAL: exit 2 */
	if (!ret && (ret = compare_reports(&a, &b, &o, &cmp)) < 0)
		pr_err("compare: %s", strerror(-ret));
	if (ret < 0) {
		code = exit_code_for(ret);
		goto out;
	}
	(ca->format == 1 ? compare_write_mail : compare_write_text)(&cmp, &a, &b, files[0], files[1],
								     stdout);
	if (ca->fail_reg && (cmp.regressed || compare_kinds_regressed(&cmp)))
		code = EXIT_RUNTIME;
	compare_free(&cmp);
out:
	report_free(&a);
	report_free(&b);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { .no = { .noise_floor = COMPARE_NOISE_FLOOR, .min_change = COMPARE_MARGIN } };
	int ret, n;

	ret = opts_parse(&compare_cmd, argc, argv, &a);
	if (ret > 0)
		compare_rule(stdout);
	if (ret)
		return opts_exit(ret);
	n = argc - optind;
	/* a summary has no samples: it can only stand side by side */
	for (int i = optind; n == 2 && i < argc && !a.cards; i++)
		a.cards = !strchr(argv[i], ',') && report_is_summary(argv[i]);
	if (a.no.fleet || n > COMPARE_N_MAX) {
		if (a.fail_reg || a.as || a.cards || a.format == 1) {
			pr_err("compare: a fleet takes --format text|html|csv|json, --min-change, --all, --members, --group-by and --fail-on; --fail-on-regression, --as, --cards and --format mail are for two or a few files");
			return EXIT_USAGE;
		}
		return compare_fleet(argv + optind, (size_t)n, &a);
	}
	if (a.members || a.group_by || a.fail_on) {
		pr_err("compare: --members, --group-by and --fail-on are for a fleet (--fleet, or more than %d files)",
		       COMPARE_N_MAX);
		return EXIT_USAGE;
	}
	if (a.format >= 3) {
		pr_err("compare: --format csv and json are for a fleet (--fleet, or more than %d files)", COMPARE_N_MAX);
		return EXIT_USAGE;
	}
	if (n >= 3 || a.cards) {
		if (n < 2) {
			pr_err("compare: --cards: give two or more JSON reports or summaries; got %d", n);
			return EXIT_USAGE;
		}
		if (a.fail_reg || a.as || a.format == 1) {
			pr_err("compare: --fail-on-regression, --as and --format mail are for two-way compare (two full reports); side by side takes --format text|html, --min-change, --noise-floor and --all");
			return EXIT_USAGE;
		}
		return compare_side_by_side(argv + optind, (size_t)n, &a.no, a.format == 2);
	}
	if (n != 2) {
		pr_err("compare: give two JSON reports, A (before) and B (after), or three or more to set machines side by side; got %d",
		       n);
		return EXIT_USAGE;
	}
	if (a.format == 2 || a.no.all_rows) {
		pr_err("compare: --format html and --all are for machines side by side (three or more files, or --cards)");
		return EXIT_USAGE;
	}
	return compare_two(&a, argv + optind);
}
