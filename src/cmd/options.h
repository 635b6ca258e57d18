/* SPDX-License-Identifier: MIT */
/* cmd/options.h - one option table per command (stress-ng's per-unit
 * opts[]): getopt_long's array, --help, every range check and the command's
 * experiment-file keys come from it. A `def` is parsed into the field
 * before argv, else the field's initial value is printed as the default. */
#ifndef ATOMCOST_CMD_OPTIONS_H
#define ATOMCOST_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "common.h"
#include "config.h"

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
	const char *help;	/* one line, --help wraps it */
	size_t off;		/* the field in the command's argument struct */
	double min, max;	/* numbers (and the key's, for a number given as text) */
	const char *def;	/* default, parsed and printed */
	const char *choices;	/* OPT_CHOICE, and a CFG_ENUM_LIST key's */
	int (*parse)(const char *what, const char *val, void *field);	/* OPT_FN */
	/* Also this key of its section (opts_schema_add), typed as the option
	 * unless key_type (0: the option's), helped by help unless key_help (a
	 * --no-X flag's key says what true does, and defaults to true). */
	const char *key;
	enum cfg_type key_type;
	const char *key_help;
};

struct cmd_opts {
	const char *usage, *tail;	/* --help before and after the options */
	const struct cmd_opt *opt;
	size_t n;
	const char *section;	/* the section of its keys, NULL: none */
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
/* The options that are keys into the schema, after operand (NULL: none);
 * config_schema_add's return. */
int opts_schema_add(const struct cmd_opts *c, const struct cfg_key *operand);

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
