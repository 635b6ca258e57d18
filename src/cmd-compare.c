/* cmd-compare.c - `atomcost compare A.json B.json`: per probe, pattern and
 * mode the change of the median from A to B with a 95% CI and a verdict;
 * mismatched fingerprints first, a one-line summary last. The rule is in
 * compare.h. Exit 0 whatever the verdicts (--fail-on-regression: 1 when a
 * row regressed, for CI scripts). */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "compare.h"
#include "report.h"

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost compare A.json B.json [options]\n"
		"  --format FMT          text (default) or mail (72 columns, before - after)\n"
		"  --noise-floor PCT     change needed when either report lacks --repeat passes (default %.0f)\n"
		"  --min-change PCT      never significant below this (default %.0f)\n"
		"  --fail-on-regression  exit 1 when a row regressed\n"
		"A change is judged on the spread between --repeat passes when both reports have\n"
		"2 or more; otherwise on a bootstrap of the kept samples plus the noise floor,\n"
		"because samples of one run understate the variance between runs.\n",
		COMPARE_NOISE_FLOOR * 100, COMPARE_MIN_CHANGE * 100);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "noise-floor", required_argument, NULL, 'n' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct compare_opts o;
	struct report a, b;
	struct comparison cmp;
	bool mail = false, fail_reg = false;
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
			if (parse_double("--noise-floor", optarg, 0, 100, &pct) < 0)
				return EXIT_USAGE;
			o.noise_floor = pct / 100;
			break;
		case 'm':
			if (parse_double("--min-change", optarg, 0, 100, &pct) < 0)
				return EXIT_USAGE;
			o.min_change = pct / 100;
			break;
		case 'r':
			fail_reg = true;
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
	ret = report_read(argv[optind], &a);
	if (ret < 0)
		return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
	ret = report_read(argv[optind + 1], &b);
	if (ret < 0) {
		report_free(&a);
		return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
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
