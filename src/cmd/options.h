/* SPDX-License-Identifier: MIT */
/* cmd/options.h - one option table per command (stress-ng's per-unit
 * opts[]): getopt_long's array, --help and every range check come from it.
 * A `def` is parsed into the field before argv, else the field's initial
 * value is printed as the default. A `run` option that is an experiment
 * file's [run] key takes range, default and help from its schema row. */
#ifndef ATOMCOST_CMD_OPTIONS_H
#define ATOMCOST_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "common.h"

enum opt_type {
	OPT_FLAG,	/* bool, set true */
	OPT_STR,	/* const char *, as given */
	OPT_LIST,	/* struct opt_list: each use appends one */
	OPT_U64,	/* numbers, from here to OPT_SIZE: uint64_t in [min, max] */
	OPT_INT,	/* int or unsigned in [min, max] */
	OPT_DOUBLE,	/* double in [min, max] */
	OPT_PCT,	/* double: a percentage in [min, max], kept as a fraction */
	OPT_SIZE,	/* size_t: bytes, 64M, 2G (pattern_parse_size) */
	OPT_CHOICE,	/* unsigned: the value's index in choices "a|b|c" (give a def) */
	OPT_FN,		/* parse(what, value, field) */
};

struct opt_list {
	char *v[64];
	size_t n;
};

struct cmd_opt {
	const char *name;	/* long option, "--" name */
	int letter;		/* short option, 0: none */
	enum opt_type type;
	const char *arg;	/* its argument in --help; NULL: a flag */
	const char *help;	/* one line, --help wraps it; NULL: the [run] row's */
	size_t off;		/* the field in the command's argument struct */
	double min, max;	/* numbers; unset: the [run] row's */
	const char *def;	/* default, parsed and printed; NULL: the [run] row's */
	const char *choices;	/* OPT_CHOICE */
	int (*parse)(const char *what, const char *val, void *field);	/* OPT_FN */
};

struct cmd_opts {
	const char *usage, *tail;	/* --help before and after the options */
	const struct cmd_opt *opt;
	size_t n;
	const char *section;	/* schema rows the options may stand for, NULL: none */
	int max_operands;	/* -1: any */
};

/* Defaults, then argv's options into args (opts_parse is both). 0:
 * parsed, operands from optind; 1: --help printed; -EINVAL: refused
 * (message printed). */
int opts_defaults(const struct cmd_opts *c, void *args);
int opts_argv(const struct cmd_opts *c, int argc, char **argv, void *args);
int opts_parse(const struct cmd_opts *c, int argc, char **argv, void *args);
void opts_usage(const struct cmd_opts *c, const void *args, FILE *f);
/* Apply one option's value (NULL for a flag); `what` names it in messages.
 * 0 or -EINVAL after a message. */
int opts_set(const struct cmd_opts *c, const struct cmd_opt *o, const char *what,
	     const char *val, void *args);
/* The option an experiment key maps to (its row's `option`), or NULL. */
const struct cmd_opt *opts_for_key(const struct cmd_opts *c, const char *option);

/* OPT_FN for a report format: the field is a const struct report_writer *. */
int opts_writer(const char *what, const char *val, void *field);

/* j on stdout, indented by 2, then dropped: EXIT_OK, or EXIT_RUNTIME when
 * j is NULL (its builder failed). */
int opts_print_json(json_t *j);

/* opts_parse's result as an exit code for the command, or -1 to go on. */
static inline int opts_exit(int ret)
{
	return ret == 0 ? -1 : ret > 0 ? EXIT_OK : EXIT_USAGE;
}

#endif
