/* SPDX-License-Identifier: MIT */
/* cmd/c2c.c - `atomcost c2c`: cache-line round-trip latency between PUs
 * (the engine is c2c.c). By default one representative pair per topology
 * class (c2c_plan), so a machine with hundreds of PUs costs a handful of
 * pairs; absent classes are listed as absent. --all-pairs measures every
 * pair of allowed PUs and fills the whole matrix (JSON: "matrix").
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "c2c.h"
#include "clock.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "report.h"
#include "topo.h"

static int dump_json(void *arg, FILE *f)
{
	if (json_dumpf(arg, f, JSON_INDENT(1)) < 0)
		return -EIO;
	fputc('\n', f);
	return 0;
}

struct c2c_args {
	bool all, force;
	unsigned methods, json;
	double seconds;
	const char *out;
};

static int parse_methods(const char *what, const char *val, void *mask)
{
	return c2c_parse_methods(val, mask);
}

#define A(f) offsetof(struct c2c_args, f)
static const struct cmd_opt c2c_opt[] = {
	{ .name = "all-pairs", .type = OPT_FLAG, .off = A(all),
	  .help = "every pair of allowed PUs (the full matrix)" },
	{ .name = "method", .type = OPT_FN, .arg = "LIST", .off = A(methods), .parse = parse_methods,
	  .def = "cmpxchg,load-store", .help = "cmpxchg, load-store, flag-ack (two lines, c2clat's)" },
	{ .name = "max-seconds", .type = OPT_DOUBLE, .arg = "S", .off = A(seconds), .min = 0.001,
	  .max = 600, .def = "0.2", .help = "sampling time per pair and method" },
	{ .name = "format", .type = OPT_CHOICE, .arg = "FMT", .off = A(json), .choices = "text|json",
	  .def = "text", .help = "stdout: text or json" },
	{ .name = "output", .letter = 'o', .type = OPT_STR, .arg = "FILE", .off = A(out),
	  .help = "write the JSON (table and matrix) to FILE" },
	{ .name = "force", .type = OPT_FLAG, .off = A(force), .help = "overwrite FILE" },
};
#undef A

static const struct cmd_opts c2c_cmd = {
	.usage = "usage: atomcost c2c [options]\n"
	"  Cache-line round trip between two PUs: cmpxchg ping-pong and load/store ping-pong.\n"
	"  Default: one representative pair per topology class (smt, l2, l3, numa, package,\n"
	"  cross); a class this machine lacks is listed as absent.\n",
	.opt = c2c_opt, .n = ARRAY_SIZE(c2c_opt),
};

/* The table (text or JSON on stdout) and the JSON file; err is the run's
 * (-EINTR: what was measured is still written). */
static int c2c_output(const struct c2c_args *a, struct topo *t, const struct calibration *cal,
		      const struct c2c_row *rows, size_t nrows, const bool *absent, int err)
{
	struct c2c_out o;
	struct c2c_where w = { .summary = o.topology };	/* what the text names */
	json_t *j;

	if (c2c_section_of(t, cal, rows, nrows, absent, a->methods, a->all, &o))
		return -ENOMEM;
	j = c2c_out_json(&o);
	if (a->json)
		dump_json(j, stdout);
	else
		c2c_write_text(cal, &w, rows, nrows, absent, stdout);
	if (a->out) {	/* the reports' atomic writer: temporary file, fsync, rename */
		int werr = report_write_atomic(a->out, a->force, dump_json, j);

		err = err ? err : werr;
	}
	json_decref(j);
	c2c_out_free(&o);
	return err;
}

int cmd_c2c(int argc, char **argv)
{
	struct c2c_args a = { 0 };
	bool absent[PAIR__COUNT] = { false };
	struct c2c_row *rows = NULL;
	struct c2c_pair *pairs = NULL;
	size_t nrows = 0, npairs = 0;
	struct calibration cal;
	struct topo *t = NULL;
	int err, npu;

	if ((err = opts_exit(opts_parse(&c2c_cmd, argc, argv, &a))) >= 0)
		return err;
	if (a.out && !a.force && access(a.out, F_OK) == 0) {
		pr_err("c2c: '%s' exists (use --force to overwrite it)", a.out);
		return EXIT_USAGE;
	}
	err = topo_open(&t, NULL, NULL);
	if (err)
		return exit_code_for(err);
	npu = topo_allowed_count(t);
	if (npu < 2) {
		pr_err("c2c: only %d PU allowed (a round trip needs 2; check taskset/cgroups)", npu);
		err = -ENOTSUP;	/* exit 4 */
	} else if (c2c_plan(t, a.all, &pairs, &npairs, absent) < 0 ||
		   !(rows = calloc(npairs * C2C__COUNT + 1, sizeof(*rows)))) {
		err = -ENOMEM;
	} else {
		err = topo_bind_thread(t, topo_allowed_os(t, 0));
	}
	if (!err)
		err = clock_calibrate(&cal, topo_allowed_os(t, 0));
	if (!err)
		err = c2c_run(t, pairs, npairs, a.methods, a.seconds, isatty(STDERR_FILENO), rows, &nrows);
	if (!err || err == -EINTR)
		err = c2c_output(&a, t, &cal, rows, nrows, absent, err);
	free(rows);
	free(pairs);
	topo_close(t);
	if (err == -EINTR)
		return cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
	return exit_code_for(err);
}
