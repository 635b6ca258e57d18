/* SPDX-License-Identifier: MIT */
/* cmd/report.c - `atomcost report RUN.json [-o FILE] [--format FMT]`:
 * rewrite a JSON report in another format (html, text, mail, csv, json).
 * Reads, never measures. */
#include <stddef.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "report.h"
#include "sections.h"

struct report_args {
	const char *out, *c2c;
	const struct report_writer *w;
	bool force;
};

#define A(f) offsetof(struct report_args, f)
static const struct cmd_opt report_opt[] = {
	{ .name = "output", .letter = 'o', .type = OPT_STR, .arg = "FILE", .off = A(out),
	  .help = "write FILE (format from its extension)" },
	{ .name = "format", .type = OPT_FN, .arg = "FMT", .off = A(w), .parse = opts_writer,
	  .help = "the format (default: from -o, else text)" },
	{ .name = "force", .type = OPT_FLAG, .off = A(force), .help = "overwrite an existing FILE" },
	{ .name = "c2c", .type = OPT_STR, .arg = "C2C.json", .off = A(c2c),
	  .help = "add the matrix of 'atomcost c2c --all-pairs --format json' (heat map)" },
};
#undef A

static const struct cmd_opts report_cmd = {
	.usage = "usage: atomcost report RUN.json [-o FILE] [--format FMT] [--force]\n",
	.opt = report_opt, .n = ARRAY_SIZE(report_opt), .max_operands = 1,
	.tail = "The HTML page is self-contained: fingerprint, atomic vs non-atomic bars per pattern,\n"
		"cost vs footprint curves and the c2c heat map when the report has them.\n",
};

/* The writer: --format's, else -o's extension's, else text. */
static int pick_writer(struct report_args *a)
{
	if (!a->w && a->out) {
		a->w = report_writer_for_path(a->out);
		if (!a->w) {
			pr_err("report: -o: cannot tell the format of '%s' from its extension (use --format: %s)",
			       a->out, report_writer_names(false));
			return -EINVAL;
		}
	}
	if (!a->w)
		a->w = report_writer_find("text");
	return a->out ? report_check_path(a->out, a->force) : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct report rep;
	int ret;

	ret = opts_parse(&report_cmd, argc, argv, &a);
	if (ret > 0)
		printf("formats: %s; extensions: %s\n", report_writer_names(false), report_writer_names(true));
	if (ret)
		return opts_exit(ret);
	if (optind + 1 != argc) {
		pr_err("report: give exactly one JSON report (got %d arguments; see 'atomcost report --help')",
		       argc - optind);
		return EXIT_USAGE;
	}
	ret = pick_writer(&a);
	if (ret >= 0)
		ret = report_read(argv[optind], &rep);
	if (ret < 0)
		return ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret);
	if (a.c2c)
		ret = report_attach_c2c(&rep, a.c2c);
	if (!ret && a.out) {
		ret = report_write_file(&rep, a.w, a.out, a.force);
		if (!ret)
			pr_info("%s report written to %s", a.w->name, a.out);
	} else if (!ret) {
		ret = a.w->write(&rep, stdout);
	}
	report_free(&rep);
	return ret >= 0 ? EXIT_OK : ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret);
}
