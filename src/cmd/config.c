/* SPDX-License-Identifier: MIT */
/* cmd/config.c - `atomcost config`: the experiment file schema, and a check
 * of experiment files without running them. */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "config.h"

static void config_usage(FILE *f)
{
	fprintf(f, "usage: atomcost config --schema [--json]     every key: section, type, default, help\n"
		   "       atomcost config --check FILE... [--set section.key=value]...\n"
		   "                                            load each file; print its effective experiment (JSON)\n");
}

int cmd_config(int argc, char **argv)
{
	enum { O_SCHEMA = 256, O_JSON, O_CHECK, O_SET };
	static const struct option opts[] = {
		{ "schema", no_argument, NULL, O_SCHEMA },
		{ "json", no_argument, NULL, O_JSON },
		{ "check", no_argument, NULL, O_CHECK },
		{ "set", required_argument, NULL, O_SET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool schema = false, json = false, check = false;
	char *sets[64];
	size_t nsets = 0;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_SCHEMA:
			schema = true;
			break;
		case O_JSON:
			json = true;
			break;
		case O_CHECK:
			check = true;
			break;
		case O_SET:
			if (nsets == ARRAY_SIZE(sets)) {
				pr_err("--set: at most %zu overrides", ARRAY_SIZE(sets));
				return EXIT_USAGE;
			}
			sets[nsets++] = optarg;
			break;
		case 'h':
			config_usage(stdout);
			return EXIT_OK;
		default:
			config_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (schema == check) {
		config_usage(stderr);
		return EXIT_USAGE;
	}
	if (schema) {
		if (json) {
			json_t *j = config_schema_json();

			json_dumpf(j, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(j);
		} else {
			config_print_schema(stdout);
		}
		return EXIT_OK;
	}
	if (optind == argc) {
		pr_err("config --check: no file given (e.g. atomcost config --check configs/quick.conf)");
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct experiment *e;
		int ret = config_load(argv[i], sets, nsets, &e);
		json_t *j;

		if (ret < 0)
			return exit_code_for(ret);
		j = config_to_json(e);
		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
		config_free(e);
	}
	return EXIT_OK;
}
