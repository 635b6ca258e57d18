/* SPDX-License-Identifier: MIT */
/* cmd/hierarchy.c - `atomcost hierarchy`: the measured memory hierarchy
 * (latency staircase, levels beside hwloc's) and the split-lock probe, the
 * two facts about this machine's memory a kernel engineer wants first.
 * Parses, pins, calibrates and dispatches to hierarchy.c and splitlock.c. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd.h"
#include "common.h"
#include "hierarchy.h"
#include "pattern.h"
#include "splitlock.h"
#include "topo.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost hierarchy [OPTIONS]\n\n"
		"Measures the memory hierarchy (latency of a dependent random chase against footprint,\n"
		"levels found at its knees and set beside hwloc's declared caches) and the split lock\n"
		"(a locked add across two cache lines against an aligned atomic_inc, with the\n"
		"kernel's split-lock mode; it locks the bus for every tenant of the host: --only\n"
		"staircase skips it). About 5-10 s.\n\n"
		"  --only WHAT           staircase or splitlock (default: both)\n"
		"  --cpu N               PU to run on (OS index, in the allowed cpuset); default: first allowed\n"
		"  --max-footprint SIZE  largest footprint (64M, 1G); default: 8 x hwloc's LLC, 64-512 MiB,\n"
		"                        at most a quarter of MemAvailable\n"
		"  --min-footprint SIZE  smallest footprint (default 4K)\n"
		"  --steps N             footprints per doubling, 1-16 (default 4)\n"
		"  --epochs N            sweeps, each on a fresh buffer and walk order, 1-8 (default 5);\n"
		"                        a point is their median, a level's size their range\n"
		"  --time-budget S       start no epoch that would end past S seconds (default 20)\n"
		"  --no-huge             4 KiB pages (default: hugetlb pages, else THP where it allows)\n"
		"  --split-ops N         split ops timed, at most (default 4096)\n"
		"  --format text|json    output (default text)\n"
		"exit codes: 0 ok, 1 runtime failure, 2 usage, 4 unsupported here, 130/143 interrupted\n");
}

int cmd_hierarchy(int argc, char **argv)
{
	enum { O_ONLY = 256, O_CPU, O_MAX, O_MIN, O_STEPS, O_EPOCHS, O_BUDGET, O_NOHUGE, O_SPLITOPS, O_FORMAT };
	static const struct option opts[] = {
		{ "only", required_argument, NULL, O_ONLY },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "max-footprint", required_argument, NULL, O_MAX },
		{ "min-footprint", required_argument, NULL, O_MIN },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "epochs", required_argument, NULL, O_EPOCHS },
		{ "time-budget", required_argument, NULL, O_BUDGET },
		{ "no-huge", no_argument, NULL, O_NOHUGE },
		{ "split-ops", required_argument, NULL, O_SPLITOPS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct hierarchy_opts ho;
	struct hierarchy *h = NULL;
	struct splitlock_result sl;
	struct calibration cal;
	const char *cpu_arg = NULL;
	bool stair = true, split = true, json = false;
	uint64_t split_ops = 0, v;
	struct topo *t = NULL;
	int c, ret, cpu, code = EXIT_OK;

	hierarchy_default_opts(&ho);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_ONLY:
			if (!strcmp(optarg, "staircase")) {
				split = false;
			} else if (!strcmp(optarg, "splitlock")) {
				stair = false;
			} else {
				pr_err("--only: '%s' is neither staircase nor splitlock", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_CPU:
			cpu_arg = optarg;
			break;
		case O_MAX:
			if (pattern_parse_size("--max-footprint", optarg, &ho.max_footprint) < 0)
				return EXIT_USAGE;
			break;
		case O_MIN:
			if (pattern_parse_size("--min-footprint", optarg, &ho.min_footprint) < 0)
				return EXIT_USAGE;
			break;
		case O_STEPS:
			if (parse_u64("--steps", optarg, 1, 16, &v) < 0)
				return EXIT_USAGE;
			ho.steps_per_octave = (unsigned)v;
			break;
		case O_EPOCHS:
			if (parse_u64("--epochs", optarg, 1, HIER_MAX_EPOCHS, &v) < 0)
				return EXIT_USAGE;
			ho.epochs = (unsigned)v;
			break;
		case O_BUDGET:
			if (parse_double("--time-budget", optarg, 0.1, 600, &ho.time_budget_s) < 0)
				return EXIT_USAGE;
			break;
		case O_NOHUGE:
			ho.no_huge = true;
			break;
		case O_SPLITOPS:
			if (parse_u64("--split-ops", optarg, 64, 1u << 20, &split_ops) < 0)
				return EXIT_USAGE;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "json")) {
				json = true;
			} else if (strcmp(optarg, "text")) {
				pr_err("--format: '%s' is neither text nor json", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("hierarchy: unexpected argument '%s' (see 'atomcost hierarchy --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (ho.max_footprint && ho.max_footprint < ho.min_footprint) {
		pr_err("--max-footprint %zu is below --min-footprint %zu: give a larger maximum",
		       ho.max_footprint, ho.min_footprint);
		return EXIT_USAGE;
	}
	if (ho.min_footprint < 4096) {
		pr_err("--min-footprint %zu: the chase needs at least 4K (64 lines)", ho.min_footprint);
		return EXIT_USAGE;
	}

	ret = topo_open(&t, NULL, NULL);
	if (ret < 0)
		return exit_code_for(ret);
	if (topo_parse_one_cpu(t, cpu_arg, &cpu) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	ret = topo_bind_thread(t, cpu);
	if (!ret)
		ret = clock_calibrate(&cal, cpu);
	if (ret < 0) {
		code = exit_code_for(ret);
		goto out;
	}
	if (stair) {
		h = malloc(sizeof(*h));
		if (!h) {
			code = EXIT_RUNTIME;
			goto out;
		}
		ret = hierarchy_measure(&ho, &cal, t, cpu, h);
		if (ret < 0 && ret != -EINTR) {
			code = exit_code_for(ret);
			goto out;
		}
		if (ret == -EINTR) {
			code = cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
			split = false;
		}
	}
	if (split) {
		splitlock_announce("--only staircase");
		ret = splitlock_measure(split_ops, &cal, &sl);
		if (!ret)
			ret = splitlock_reference(&cal, &sl);
		if (ret < 0) {
			code = exit_code_for(ret);
			goto out;
		}
		if (!sl.supported && !stair)
			code = EXIT_UNSUPPORTED;
	}
	if (json) {
		json_t *j = json_object();

		json_object_set_new(j, "calibration", clock_to_json(&cal));
		if (h)
			json_object_set_new(j, "hierarchy", hierarchy_to_json(h));
		if (split)
			json_object_set_new(j, "splitlock", splitlock_to_json(&sl));
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	} else {
		if (h)
			hierarchy_print(h, stdout);
		if (h && split)
			putchar('\n');
		if (split)
			splitlock_print(&sl, stdout);
	}
out:
	free(h);
	topo_close(t);
	return code;
}
