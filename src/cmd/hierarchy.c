/* SPDX-License-Identifier: MIT */
/* cmd/hierarchy.c - `atomcost hierarchy`: the measured memory hierarchy
 * (latency staircase, levels beside hwloc's) and the split-lock probe, the
 * two facts about this machine's memory a kernel engineer wants first.
 * Parses, pins, calibrates and dispatches to hierarchy.c and splitlock.c. */
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "hierarchy.h"
#include "splitlock.h"
#include "topo.h"

struct hier_args {
	struct hierarchy_opts ho;
	const char *cpu;
	unsigned only, json;	/* only: both, staircase, splitlock */
	uint64_t split_ops;
};

#define A(f) offsetof(struct hier_args, f)
static const struct cmd_opt hier_opt[] = {
	{ .name = "only", .type = OPT_CHOICE, .arg = "WHAT", .off = A(only),
	  .choices = "both|staircase|splitlock", .def = "both", .help = "the staircase, the split lock or both" },
	{ .name = "cpu", .type = OPT_STR, .arg = "N", .off = A(cpu),
	  .help = "PU to run on (OS index, in the allowed cpuset); default: first allowed" },
	{ .name = "max-footprint", .type = OPT_SIZE, .arg = "SIZE", .off = A(ho.max_footprint),
	  .help = "largest footprint (64M, 1G); default: 8 x hwloc's LLC, 64-512 MiB, at most a "
		  "quarter of MemAvailable" },
	{ .name = "min-footprint", .type = OPT_SIZE, .arg = "SIZE", .off = A(ho.min_footprint),
	  .help = "smallest footprint, bytes" },
	{ .name = "steps", .type = OPT_INT, .arg = "N", .off = A(ho.steps_per_octave), .min = 1,
	  .max = 16, .help = "footprints per doubling" },
	{ .name = "epochs", .type = OPT_INT, .arg = "N", .off = A(ho.epochs), .min = 1,
	  .max = HIER_MAX_EPOCHS, .help = "sweeps, each on a fresh buffer and walk order; a point is "
					   "their median, a level's size their range" },
	{ .name = "time-budget", .type = OPT_DOUBLE, .arg = "S", .off = A(ho.time_budget_s), .min = 0.1,
	  .max = 600, .help = "start no epoch that would end past S seconds" },
	{ .name = "no-huge", .type = OPT_FLAG, .off = A(ho.no_huge),
	  .help = "4 KiB pages (default: hugetlb pages, else THP where it allows)" },
	{ .name = "split-ops", .type = OPT_U64, .arg = "N", .off = A(split_ops), .min = 64, .max = 1u << 20,
	  .help = "split ops timed, at most (default 4096)" },
	{ .name = "format", .type = OPT_CHOICE, .arg = "FMT", .off = A(json), .choices = "text|json",
	  .def = "text", .help = "output" },
};
#undef A

static const struct cmd_opts hier_cmd = {
	.usage = "usage: atomcost hierarchy [OPTIONS]\n\n"
	"Measures the memory hierarchy (latency of a dependent random chase against footprint,\n"
	"levels found at its knees and set beside hwloc's declared caches) and the split lock\n"
	"(a locked add across two cache lines against an aligned atomic_inc, with the\n"
	"kernel's split-lock mode; it locks the bus for every tenant of the host: --only\n"
	"staircase skips it). About 5-10 s.\n\n",
	.opt = hier_opt, .n = ARRAY_SIZE(hier_opt),
	.tail = "exit codes: 0 ok, 1 runtime failure, 2 usage, 4 unsupported here, 130/143 interrupted\n",
};

static int check_footprints(const struct hierarchy_opts *ho)
{
	if (ho->max_footprint && ho->max_footprint < ho->min_footprint) {
		pr_err("--max-footprint %zu is below --min-footprint %zu: give a larger maximum",
		       ho->max_footprint, ho->min_footprint);
		return -EINVAL;
	}
	if (ho->min_footprint < 4096) {
		pr_err("--min-footprint %zu: the chase needs at least 4K (64 lines)", ho->min_footprint);
		return -EINVAL;
	}
	return 0;
}

/* The staircase (into *h, allocated) and the split lock, as asked; prints
 * them. An exit code. */
static int measure(const struct hier_args *a, struct topo *t, int cpu, struct hierarchy_section **h)
{
	bool stair = a->only != 2, split = a->only != 1;
	struct splitlock_section sl;
	struct calibration cal;
	int ret, code = EXIT_OK;

	ret = topo_bind_thread(t, cpu);
	if (!ret)
		ret = clock_calibrate(&cal, cpu);
	if (ret < 0)
		return exit_code_for(ret);
	if (stair) {
		*h = malloc(sizeof(**h));
		if (!*h)
			return EXIT_RUNTIME;
		ret = hierarchy_measure(&a->ho, &cal, t, cpu, *h);
		if (ret < 0 && ret != -EINTR)
			return exit_code_for(ret);
		if (ret == -EINTR) {
			code = cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
			split = false;
		}
	}
	if (split) {
		splitlock_announce("--only staircase");
		ret = splitlock_measure(a->split_ops, &cal, &sl);
		if (!ret)
			ret = splitlock_reference(&cal, &sl);
		if (ret < 0)
			return exit_code_for(ret);
		if (!sl.supported && !stair)
			code = EXIT_UNSUPPORTED;
	}
	if (a->json) {
		struct report rep = { .cal = cal, .hier = *h, .split = split ? &sl : NULL };

		opts_print_json(calibration_sections_json(&rep));
		return code;
	}
	if (*h)
		hierarchy_print(*h, stdout);
	if (*h && split)
		putchar('\n');
	if (split)
		splitlock_print(&sl, stdout);
	return code;
}

int cmd_hierarchy(int argc, char **argv)
{
	struct hier_args a = { 0 };
	struct hierarchy_section *h = NULL;
	struct topo *t = NULL;
	int ret, cpu, code;

	hierarchy_default_opts(&a.ho);
	if ((code = opts_exit(opts_parse(&hier_cmd, argc, argv, &a))) >= 0)
		return code;
	if (check_footprints(&a.ho) < 0)
		return EXIT_USAGE;
	ret = topo_open(&t, NULL, NULL);
	if (ret < 0)
		return exit_code_for(ret);
	code = topo_parse_one_cpu(t, a.cpu, &cpu) < 0 ? EXIT_USAGE : measure(&a, t, cpu, &h);
	free(h);
	topo_close(t);
	return code;
}
