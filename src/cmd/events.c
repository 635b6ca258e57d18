/* SPDX-License-Identifier: MIT */
/* cmd/events.c - `atomcost events`: which PMUs libpfm4 detects, and which
 * events really open here (perf_event_open decides), with the reason for
 * each that does not. */
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "pmu.h"

static const struct cmd_opt events_opt[] = {
	{ .name = "all", .letter = 'a', .type = OPT_FLAG,
	  .help = "also try every event of every PMU libpfm4 detects" },
};

static const struct cmd_opts events_cmd = {
	.usage = "usage: atomcost events [--all]\n"
		 "  Lists the PMUs libpfm4 detects, then tries perf_event_open on each perf-style\n"
		 "  event name (what 'run -e' accepts) and says why each that does not open cannot.\n",
	.opt = events_opt, .n = ARRAY_SIZE(events_opt),
};

int cmd_events(int argc, char **argv)
{
	bool all = false;
	int ret;

	if ((ret = opts_exit(opts_parse(&events_cmd, argc, argv, &all))) >= 0)
		return ret;
	ret = pmu_print_events(stdout, all);
	return ret < 0 ? exit_code_for(ret) : EXIT_OK;
}
