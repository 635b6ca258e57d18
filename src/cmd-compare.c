/* cmd-compare.c - `atomcost compare A.json B.json`: per probe, pattern and
 * mode the change of the median from A to B in core cycles with a 95% CI
 * and a verdict; mismatched fingerprints and the rule first, a one-line
 * summary last. A side may be several reports of separate processes
 * (a1.json,a2.json,a3.json): the spread between them is then measured.
 * The rule is in compare.h. Exit 0 whatever the verdicts
 * (--fail-on-regression: 1 when a row regressed, for CI scripts). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "compare.h"
#include "fingerprint.h"
#include "report.h"

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost compare A.json[,A2.json...] B.json[,B2.json...] [options]\n"
		"  --format FMT          text (default) or mail (72 columns, before - after)\n"
		"  --noise-floor PCT     change needed with one process on a side (default %.0f)\n"
		"  --min-change PCT      change needed with 2+ processes on both sides (default %.0f,\n"
		"                        never below)\n"
		"  --fail-on-regression  exit 1 when a row regressed\n"
		"  --as X=Y              A's probe X stands for B's probe Y (compare two probes:\n"
		"                        --as __set_bit=set_bit run.json run.json)\n"
		"Rows are compared in core cycles. A change is flagged when a Welch t test on the\n"
		"row's replicates (processes, else --repeat passes, else blocks of one run's\n"
		"samples) is significant after Holm-Bonferroni over all rows, and it exceeds the\n"
		"floor: how far rows move between processes, widened by the calibration\n"
		"difference of the two sides. Several reports per side (separate processes of\n"
		"one build) measure that spread instead of assuming it.\n",
		COMPARE_NOISE_FLOOR * 100, NOISE_FLOOR_MIN * 100);
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
			free(r->samples);
			json_decref(r->extra);
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

/* One side: a report, or a comma-separated list of reports of separate
 * processes of one build, merged into one (compare_merge). */
static int read_side(const char *arg, struct report *rep)
{
	char *list = strdup(arg), *save = NULL, *path;
	int ret = 0;
	bool first = true;

	if (!list)
		return -ENOMEM;
	for (path = strtok_r(list, ",", &save); path && ret == 0; path = strtok_r(NULL, ",", &save)) {
		struct report more;

		if (first) {
			ret = report_read(path, rep);
			first = false;
			continue;
		}
		ret = report_read(path, &more);
		if (ret < 0) {
			report_free(rep);
			break;
		}
		if (fingerprint_diff(fingerprint_of_meta(rep->meta), fingerprint_of_meta(more.meta),
				     NULL, NULL)) {
			pr_err("compare: '%s' comes from another machine, kernel or build than the reports before it in '%s' (a side is several runs of one build)",
			       path, arg);
			ret = -EINVAL;
		} else {
			ret = compare_merge(rep, &more);
		}
		report_free(&more);
		if (ret < 0)
			report_free(rep);
	}
	if (first) {
		pr_err("compare: '%s' names no report", arg);
		ret = -EINVAL;
	}
	free(list);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "noise-floor", required_argument, NULL, 'n' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ "as", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct compare_opts o;
	struct report a, b;
	struct comparison cmp;
	bool mail = false, fail_reg = false;
	const char *as = NULL;
	double pct;
	int c, ret, code = EXIT_OK;

	compare_default_opts(&o);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "mail")) {
				mail = true;
			} else if (strcmp(optarg, "text")) {
				pr_err("compare: --format: unknown format '%s' (expected text or mail)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_double("--noise-floor", optarg, NOISE_FLOOR_MIN * 100, 100, &pct) < 0)
				return EXIT_USAGE;
			o.noise_floor = pct / 100;
			break;
		case 'm':
			if (parse_double("--min-change", optarg, NOISE_FLOOR_MIN * 100, 100, &pct) < 0)
				return EXIT_USAGE;
			o.min_change = pct / 100;
			break;
		case 'r':
			fail_reg = true;
			break;
		case 'a':
			as = optarg;
			break;
		case 'h':
			compare_usage(stdout);
			return EXIT_OK;
		default:
			compare_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		pr_err("compare: give two JSON reports, A (before) and B (after); got %d", argc - optind);
		return EXIT_USAGE;
	}
	ret = read_side(argv[optind], &a);
	if (ret < 0)
		return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
	ret = read_side(argv[optind + 1], &b);
	if (ret < 0) {
		report_free(&a);
		return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
	}
	if (as && rename_rows(&a, as) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	ret = compare_reports(&a, &b, &o, &cmp);
	if (ret < 0) {
		pr_err("compare: %s", strerror(-ret));
		code = exit_code_for(ret);
		goto out;
	}
	if (mail)
		compare_write_mail(&cmp, &a, &b, argv[optind], argv[optind + 1], stdout);
	else
		compare_write_text(&cmp, &a, &b, argv[optind], argv[optind + 1], stdout);
	if (fail_reg && cmp.regressed)
		code = EXIT_RUNTIME;
	compare_free(&cmp);
out:
	report_free(&a);
	report_free(&b);
	return code;
}
