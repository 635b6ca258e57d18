/* SPDX-License-Identifier: MIT */
/* cmd/c2c.c - `atomcost c2c`: cache-line round-trip latency between PUs
 * (the engine is c2c.c). By default one representative pair per topology
 * class (c2c_plan), so a machine with hundreds of PUs costs a handful of
 * pairs; absent classes are listed as absent. --all-pairs measures every
 * pair of allowed PUs and fills the whole matrix (JSON: "matrix").
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "c2c.h"
#include "clock.h"
#include "cmd.h"
#include "common.h"
#include "report.h"
#include "runner.h"
#include "stats.h"
#include "topo.h"

static void c2c_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost c2c [options]\n"
		"  Cache-line round trip between two PUs: cmpxchg ping-pong and load/store ping-pong.\n"
		"  Default: one representative pair per topology class (smt, l2, l3, numa, package,\n"
		"  cross); a class this machine lacks is listed as absent.\n"
		"  --all-pairs         every pair of allowed PUs (the full matrix)\n"
		"  --method LIST       cmpxchg,load-store (default both)\n"
		"  --max-seconds S     sampling time per pair and method (default 0.2)\n"
		"  --format FMT        stdout: text (default) or json\n"
		"  -o, --output FILE   write the JSON (table and matrix) to FILE\n"
		"  --force             overwrite FILE\n");
}

static int dump_json(void *arg, FILE *f)
{
	if (json_dumpf(arg, f, JSON_INDENT(1)) < 0)
		return -EIO;
	fputc('\n', f);
	return 0;
}

/* Through the reports' atomic writer: temporary file, fsync, rename; an
 * existing file only with --force. */
static int write_json_file(json_t *j, const char *path, bool force)
{
	return report_write_atomic(path, force, dump_json, j);
}

int cmd_c2c(int argc, char **argv)
{
	enum { O_ALL = 256, O_METHOD, O_MAXS, O_FORMAT, O_FORCE };
	static const struct option opts[] = {
		{ "all-pairs", no_argument, NULL, O_ALL },
		{ "method", required_argument, NULL, O_METHOD },
		{ "max-seconds", required_argument, NULL, O_MAXS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool all = false, json_out = false, force = false, absent[PAIR__COUNT] = { false };
	unsigned mmask = (1u << C2C__COUNT) - 1;
	double seconds = 0.2;
	const char *out = NULL;
	struct c2c_row *rows = NULL;
	struct c2c_pair *pairs = NULL;
	size_t nrows = 0, npairs = 0;
	struct calibration cal;
	struct topo *t = NULL;
	int c, err = 0, npu;
	json_t *j;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_ALL:
			all = true;
			break;
		case O_METHOD:
			if (c2c_parse_methods(optarg, &mmask) < 0)
				return EXIT_USAGE;
			break;
		case O_MAXS:
			if (parse_double("c2c: --max-seconds", optarg, 0.001, 600, &seconds) < 0)
				return EXIT_USAGE;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "json"))
				json_out = true;
			else if (strcmp(optarg, "text")) {
				pr_err("c2c: --format: unknown format '%s' (expected text or json)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case O_FORCE:
			force = true;
			break;
		case 'h':
			c2c_usage(stdout);
			return EXIT_OK;
		default:
			c2c_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("c2c: unexpected argument '%s' (see 'atomcost c2c --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (out && !force && access(out, F_OK) == 0) {
		pr_err("c2c: '%s' exists (use --force to overwrite it)", out);
		return EXIT_USAGE;
	}
	err = topo_open(&t, NULL, NULL);
	if (err)
		return exit_code_for(err);
	npu = topo_allowed_count(t);
	if (npu < 2) {
		pr_err("c2c: only %d PU allowed (a round trip needs 2; check taskset/cgroups)", npu);
		topo_close(t);
		return EXIT_UNSUPPORTED;
	}
	if (c2c_plan(t, all, &pairs, &npairs, absent) < 0 ||
	    !(rows = calloc(npairs * C2C__COUNT + 1, sizeof(*rows)))) {
		free(pairs);
		topo_close(t);
		return EXIT_RUNTIME;
	}
	err = topo_bind_thread(t, topo_allowed_os(t, 0));
	if (!err)
		err = clock_calibrate(&cal, topo_allowed_os(t, 0));
	if (err)
		goto out;

	err = c2c_run(t, pairs, npairs, mmask, seconds, isatty(STDERR_FILENO), rows, &nrows);
	if (err && err != -EINTR)
		goto out;
	{
		int *cpus = calloc((size_t)npu, sizeof(int));
		char summ[256];
		struct c2c_where w;

		if (!cpus) {
			err = -ENOMEM;
			goto out;
		}
		c2c_where_of(t, cpus, summ, sizeof(summ), &w);
		j = c2c_to_json(&cal, &w, rows, nrows, absent, mmask, all);
		if (!json_out)
			c2c_write_text(&cal, &w, rows, nrows, absent, stdout);
		free(cpus);
	}
	if (json_out) {
		json_dumpf(j, stdout, JSON_INDENT(1));
		fputc('\n', stdout);
	}
	if (out) {
		int werr = write_json_file(j, out, force);

		if (werr && !err)
			err = werr;
	}
	json_decref(j);
out:
	free(rows);
	free(pairs);
	topo_close(t);
	if (err == -EINTR)
		return cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
	return exit_code_for(err);
}
