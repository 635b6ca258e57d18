/* SPDX-License-Identifier: MIT */
/* cmd/config.c - `atomcost config`: the experiment file schema, and a check
 * of experiment files without running them. */
#include <stddef.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "config.h"

struct config_args {
	bool schema, json, check;
	struct opt_list sets;
};

#define A(f) offsetof(struct config_args, f)
static const struct cmd_opt config_opt[] = {
	{ .name = "schema", .type = OPT_FLAG, .off = A(schema),
	  .help = "every key: section, type, default, help" },
	{ .name = "json", .type = OPT_FLAG, .off = A(json), .help = "the schema as JSON" },
	{ .name = "check", .type = OPT_FLAG, .off = A(check),
	  .help = "load each FILE; print its effective experiment (JSON)" },
	{ .name = "set", .type = OPT_LIST, .arg = "SEC.KEY=VAL", .off = A(sets),
	  .help = "override a key of each FILE" },
};
#undef A

static const struct cmd_opts config_cmd = {
	.usage = "usage: atomcost config --schema [--json]\n"
		 "       atomcost config --check FILE... [--set section.key=value]...\n",
	.opt = config_opt, .n = ARRAY_SIZE(config_opt), .max_operands = -1,
};

int cmd_config(int argc, char **argv)
{
	struct config_args a = { 0 };
	int code;

	if ((code = opts_exit(opts_parse(&config_cmd, argc, argv, &a))) >= 0)
		return code;
	if (a.schema == a.check) {
		opts_usage(&config_cmd, &a, stderr);
		return EXIT_USAGE;
	}
	if (a.schema && a.json)
		return opts_print_json(config_schema_json());
	if (a.schema) {
		config_print_schema(stdout);
		return EXIT_OK;
	}
	if (optind == argc) {
		pr_err("config --check: no file given (e.g. atomcost config --check configs/quick.conf)");
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct experiment *e;
		int ret = config_load(argv[i], a.sets.v, a.sets.n, &e);

		if (ret < 0)
			return exit_code_for(ret);
		opts_print_json(config_to_json(e));
		config_free(e);
	}
	return EXIT_OK;
}
