/* SPDX-License-Identifier: MIT */
/* cmd/report.c - `atomcost report RUN.json [-o FILE] [--format FMT]`:
 * rewrite a JSON report in another format (html, text, mail, csv, json).
 * Reads, never measures. */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "report.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost report RUN.json [-o FILE] [--format FMT] [--force]\n"
		"  -o, --output FILE   write FILE (format from its extension: %s)\n"
		"  --format FMT        %s (default: from -o, else text)\n"
		"  --force             overwrite an existing FILE\n"
		"  --c2c C2C.json      add the matrix of 'atomcost c2c --all-pairs --format json' (heat map)\n"
		"The HTML page is self-contained: fingerprint, atomic vs non-atomic bars per pattern,\n"
		"cost vs footprint curves and the c2c heat map when the report has them.\n",
		report_writer_names(true), report_writer_names(false));
}

/* --c2c FILE: the JSON of `atomcost c2c` becomes the report's "c2c"
 * section (drawn as heat maps, and kept when written as JSON). */
static int attach_c2c(struct report *rep, const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &e);

	if (!j) {
		if (e.line < 0 || strstr(e.text, "unable to open")) {
			pr_err("report: --c2c: cannot read '%s': %s", path, e.text);
			return -ENOENT;
		}
		pr_err("report: --c2c: %s:%d:%d: not valid JSON: %s", path, e.line, e.column, e.text);
		return -EINVAL;
	}
	if (!json_is_object(j) || !json_object_get(j, "matrix")) {
		pr_err("report: --c2c: '%s' has no \"matrix\" (expected the JSON of 'atomcost c2c --all-pairs --format json')",
		       path);
		json_decref(j);
		return -EINVAL;
	}
	if (!rep->sections)
		rep->sections = json_object();
	json_object_set_new(rep->sections, "c2c", j);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "c2c", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const struct report_writer *w = NULL;
	const char *out = NULL, *c2c = NULL;
	bool force = false;
	struct report rep;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			w = report_writer_find(optarg);
			if (!w) {
				pr_err("report: --format: unknown format '%s' (expected %s)", optarg,
				       report_writer_names(false));
				return EXIT_USAGE;
			}
			break;
		case 'F':
			force = true;
			break;
		case 'c':
			c2c = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return EXIT_OK;
		default:
			report_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		pr_err("report: give exactly one JSON report (got %d arguments; see 'atomcost report --help')",
		       argc - optind);
		return EXIT_USAGE;
	}
	if (!w && out) {
		w = report_writer_for_path(out);
		if (!w) {
			pr_err("report: -o: cannot tell the format of '%s' from its extension (use --format: %s)",
			       out, report_writer_names(false));
			return EXIT_USAGE;
		}
	}
	if (!w)
		w = report_writer_find("text");
	if (out) {
		ret = report_check_path(out, force);
		if (ret < 0)
			return ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret);
	}
	ret = report_read(argv[optind], &rep);
	if (ret < 0)
		return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
	if (c2c) {
		ret = attach_c2c(&rep, c2c);
		if (ret < 0) {
			report_free(&rep);
			return ret == -EINVAL ? EXIT_USAGE : exit_code_for(ret);
		}
	}
	if (out) {
		ret = report_write_file(&rep, w, out, force);
		if (ret == 0)
			pr_info("%s report written to %s", w->name, out);
	} else {
		ret = w->write(&rep, stdout);
	}
	report_free(&rep);
	return ret < 0 ? (ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret)) : EXIT_OK;
}
