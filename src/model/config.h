/* SPDX-License-Identifier: MIT */
/* config.h - experiment files against one schema (config.c), CLI overrides
 * on top, and the effective experiment as JSON for every report
 * (report/meta.c). Includes
 * the generated build settings (build-config.h) for the modules that need both.
 */
#ifndef ATOMCOST_CONFIG_H
#define ATOMCOST_CONFIG_H

#include "build-config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

enum cfg_type {
	CFG_STR,	/* free text */
	CFG_ENUM,	/* one of choices */
	CFG_ENUM_LIST,	/* comma list, each one of choices */
	CFG_STR_LIST,	/* comma list of free words */
	CFG_U64,
	CFG_U64_LIST,	/* comma list of integers in [min, max] */
	CFG_DOUBLE,
	CFG_BOOL,	/* true/false, yes/no, on/off, 1/0 */
};

/* One key of the schema. */
struct cfg_key {
	const char *section;
	const char *key;
	enum cfg_type type;
	const char *def;	/* default, as written in a file; NULL: unset */
	const char *choices;	/* ENUM, ENUM_LIST: "a|b|c" */
	double min, max;	/* numbers and list items */
	const char *option;	/* `atomcost run` option it is ("--" dropped; "": the operands), NULL: none */
	const char *help;
};

/* The schema: [experiment], then the rows added at startup ([run], from
 * `atomcost run`'s options, then the reproductions'). */
extern const struct cfg_key *cfg_schema;
extern size_t cfg_schema_count;
extern const char *const cfg_type_names[];	/* by enum cfg_type: "string", ... */

/* Add kind (NULL: none) to [experiment] kind's choices and rows[0..n) to
 * the schema (each reproduction, by repro_register), before any experiment
 * is loaded. A key already there, or a default its row refuses, is a
 * programming error: -EINVAL with a message; -E2BIG, -ENOMEM. */
int config_schema_add(const char *kind, const struct cfg_key *rows, size_t n);

enum cfg_source { CFG_SRC_DEFAULT, CFG_SRC_FILE, CFG_SRC_OVERRIDE };

struct experiment {
	char *file;			/* NULL: none (defaults and overrides only) */
	const char **value;		/* per schema key, NULL: unset */
	enum cfg_source *source;
	int *line;			/* file line, 0 when not from the file */
	char **overrides;		/* "section.key=value" as given */
	size_t noverrides;
};

/* Load FILE (NULL: none), then apply overrides ("section.key=value").
 * 0, or -EINVAL (bad syntax, unknown key or section, bad value, duplicate)
 * / -ENOENT (no such file) after one message with file:line. */
int config_load(const char *file, char *const *overrides, size_t noverrides,
		struct experiment **out);
void config_free(struct experiment *e);

/* Typed getters by section and key (the key must be in the schema: a typo
 * here is a programming error and aborts). Unset values read as the
 * schema's default. */
const char *config_str(const struct experiment *e, const char *section, const char *key);
uint64_t config_u64(const struct experiment *e, const char *section, const char *key);
double config_double(const struct experiment *e, const char *section, const char *key);
bool config_bool(const struct experiment *e, const char *section, const char *key);
/* A list item's presence (ENUM_LIST, STR_LIST). */
bool config_list_has(const struct experiment *e, const char *section, const char *key,
		     const char *item);
/* Integers of a U64_LIST into out[0..max); returns the count. */
size_t config_u64_list(const struct experiment *e, const char *section, const char *key,
		       uint64_t *out, size_t max);

/* The effective experiment: file, overrides, every key with its value and
 * where it came from (report/meta.c). */
json_t *config_to_json(const struct experiment *e);

/* What `atomcost run` was asked for, as its report's meta records it:
 * argv, the probes, forms and limits, the experiment (NULL: none). */
struct run_request {
	int argc, cpu, epochs;
	char **argv;
	const char *const *probes;	/* nprobes names */
	size_t nprobes;
	unsigned mode_mask;		/* 1u << enum probe_mode */
	const char *patterns;		/* NULL: the default */
	double max_seconds, target_ci, time_limit_s;
	const struct experiment *exp;
};
json_t *run_request_json(const struct run_request *r);

/* Print the schema (`atomcost config --schema`), text or JSON (report/meta.c). */
void config_print_schema(FILE *f);
json_t *config_schema_json(void);


/* Is this experiment kind listed in [experiment] kind? */
bool config_kind_has(const struct experiment *e, const char *kind);

#endif
