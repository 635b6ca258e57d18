/* SPDX-License-Identifier: MIT */
/* cmd/events.c - `atomcost events`: which PMUs libpfm4 detects, and which
 * events really open here (perf_event_open decides), with the reason for
 * each that does not. */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "pmu.h"

static void events_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost events [--all]\n"
		"  Lists the PMUs libpfm4 detects, then tries perf_event_open on each perf-style\n"
		"  event name (what 'run -e' accepts) and says why each that does not open cannot.\n"
		"  --all   also try every event of every PMU libpfm4 detects\n");
}

int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool all = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			events_usage(stdout);
			return EXIT_OK;
		default:
			events_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("events: unexpected argument '%s' (expected only --all)", argv[optind]);
		return EXIT_USAGE;
	}
	ret = pmu_print_events(stdout, all);
	return ret < 0 ? exit_code_for(ret) : EXIT_OK;
}
