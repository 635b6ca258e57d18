/* SPDX-License-Identifier: MIT */
/* config.c - experiment files (INI via inih) against one declarative schema.
 *
 * The schema is the only place where a key, its type, default, range and
 * help text live: the parser, `atomcost config --schema` and the report's
 * effective experiment (report/meta.c) read it. Its rows are [experiment]'s
 * below, [run]'s from `atomcost run`'s option table (cmd/run.c) and each
 * reproduction's, added at startup (config_schema_add). inih does the INI
 * syntax; we feed it through our own reader so that every message can name
 * file:line, and so that section headers are checked even when a section
 * has no keys (inih only reports key=value lines).
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "common.h"

static const struct cfg_key builtin[] = {
	/* [experiment]: each reproduction adds its kind (config_schema_add) */
	{ "experiment", "kind", CFG_ENUM_LIST, "probes", "probes|characterization", 0, 0, NULL,
	  "what to run, in order: the probe table (or the default characterization, with its [run] "
	  "keys) and/or reproductions of published scorings" },
	{ "experiment", "description", CFG_STR, NULL, NULL, 0, 0, NULL,
	  "one line saying what the experiment answers (copied into the report)" },
};
const struct cfg_key *cfg_schema = builtin;
size_t cfg_schema_count = ARRAY_SIZE(builtin);

const char *const cfg_type_names[] = {
	[CFG_STR] = "string", [CFG_ENUM] = "enum", [CFG_ENUM_LIST] = "list",
	[CFG_STR_LIST] = "list", [CFG_U64] = "integer", [CFG_U64_LIST] = "integer list",
	[CFG_DOUBLE] = "number", [CFG_BOOL] = "boolean",
};

/* ---- schema lookup ---- */

/* The schema row of section.key (key NULL: the section's first); -1: none. */
static int key_index(const char *section, const char *key)
{
	for (size_t i = 0; i < cfg_schema_count; i++)
		if (!strcmp(cfg_schema[i].section, section) && (!key || !strcmp(cfg_schema[i].key, key)))
			return (int)i;
	return -1;
}

/* Distinct section names, for suggestions. */
static const char *section_at(size_t i, void *arg)
{
	if (i >= cfg_schema_count)
		return NULL;
	for (size_t j = 0; j < i; j++)
		if (!strcmp(cfg_schema[j].section, cfg_schema[i].section))
			return NULL;
	return cfg_schema[i].section;
}

static const char *key_at(size_t i, void *arg)
{
	const char *section = arg;

	return i < cfg_schema_count && !strcmp(cfg_schema[i].section, section) ? cfg_schema[i].key
									      : NULL;
}

struct choice_ctx {
	char buf[256];
	const char *item[32];
	size_t n;
};

static void split_choices(const char *choices, struct choice_ctx *c)
{
	char *save = NULL, *tok;

	snprintf(c->buf, sizeof(c->buf), "%s", choices);
	c->n = 0;
	for (tok = strtok_r(c->buf, "|", &save); tok && c->n < ARRAY_SIZE(c->item);
	     tok = strtok_r(NULL, "|", &save))
		c->item[c->n++] = tok;
}

static const char *choice_at(size_t i, void *arg)
{
	struct choice_ctx *c = arg;

	return i < c->n ? c->item[i] : NULL;
}

/* ---- value checking ---- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const words[] = { "false", "true", "no", "yes", "off", "on", "0", "1" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(s, words[i])) {
			*out = i % 2;	/* the odd words say yes */
			return 0;
		}
	return -EINVAL;
}

/* An item of an enum or enum list: 0 when it is one of k's choices, else
 * -EINVAL after a message with the closest choice. */
static int check_choice(const struct cfg_key *k, const char *what, const char *t,
			struct choice_ctx *ch)
{
	char mean[96], choices[256];

	for (size_t i = 0; i < ch->n; i++)
		if (!strcmp(t, ch->item[i]))
			return 0;
	snprintf(choices, sizeof(choices), "%s", k->choices);
	for (char *c = strchr(choices, '|'); c; c = strchr(c, '|'))
		*c = ',';
	pr_err("%s: unknown value '%s'%s (expected %s%s)", what, t,
	       did_you_mean(suggest_name(t, choice_at, ch->n, ch), mean, sizeof(mean)),
	       k->type == CFG_ENUM ? "one of " : "a list of ", choices);
	return -EINVAL;
}

/* Check one value against its key; print "WHERE: ..." on error. */
static int check_value(const struct cfg_key *k, const char *where, const char *value)
{
	char what[512], buf[1024], *save = buf, *tok;
	struct choice_ctx ch = { .n = 0 };
	uint64_t u;
	double d;
	bool b;

	snprintf(what, sizeof(what), "%s: %s in [%s]", where, k->key, k->section);
	switch (k->type) {
	case CFG_STR:
		if (*value)
			return 0;
		pr_err("%s: empty value (expected %s)", what, k->help);
		return -EINVAL;
	case CFG_BOOL:
		if (parse_bool(value, &b) == 0)
			return 0;
		pr_err("%s: '%s' is not a boolean (expected true or false)", what, value);
		return -EINVAL;
	case CFG_U64:
		return parse_u64(what, value, (uint64_t)k->min, (uint64_t)k->max, &u);
	case CFG_DOUBLE:
		return parse_double(what, value, k->min, k->max, &d);
	default:	/* the lists and the single enum */
		break;
	}
	if (k->choices)
		split_choices(k->choices, &ch);
	snprintf(buf, sizeof(buf), "%s", value);
	if (!*trim(buf)) {
		pr_err("%s: empty value (expected %s)", what,
		       k->choices ? k->choices : cfg_type_names[k->type]);
		return -EINVAL;
	}
	/* strsep, not strtok: "a,,b" has an empty item */
	while ((tok = strsep(&save, ","))) {
		char *t = trim(tok);

		if (!*t) {
			pr_err("%s: empty item in '%s' (expected a comma-separated list)", what, value);
			return -EINVAL;
		}
		if (k->type == CFG_U64_LIST && parse_u64(what, t, (uint64_t)k->min, (uint64_t)k->max, &u) < 0)
			return -EINVAL;
		if ((k->type == CFG_ENUM || k->type == CFG_ENUM_LIST) && check_choice(k, what, t, &ch) < 0)
			return -EINVAL;
		if (k->type == CFG_ENUM && save) {
			pr_err("%s: '%s' is a list (expected one value)", what, value);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- rows registered at startup ---- */

int config_schema_add(const char *kind, const struct cfg_key *rows, size_t n)
{
	static struct cfg_key *grown;
	static char kinds[256];	/* split_choices' size */
	size_t ki = (size_t)key_index("experiment", "kind"), l = strlen(kinds);
	struct cfg_key *s;

	for (size_t i = 0; i < n; i++)
		if (key_index(rows[i].section, rows[i].key) >= 0 ||
		    (rows[i].def && check_value(&rows[i], "config: schema default", rows[i].def) < 0)) {
			pr_err("config: %s.%s twice, or its default refused (internal error)",
			       rows[i].section, rows[i].key);
			return -EINVAL;
		}
	if (!l)
		l = (size_t)snprintf(kinds, sizeof(kinds), "%s", builtin[ki].choices);
	if (kind && l + strlen(kind) + 2 > sizeof(kinds))
		return -E2BIG;
	s = realloc(grown, (cfg_schema_count + n) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (!grown)
		memcpy(s, builtin, sizeof(builtin));
	memcpy(s + cfg_schema_count, rows, n * sizeof(*rows));
	if (kind)
		snprintf(kinds + l, sizeof(kinds) - l, "|%s", kind);
	s[ki].choices = kinds;
	cfg_schema = grown = s;
	cfg_schema_count += n;
	return 0;
}

/* ---- the experiment ---- */

void config_free(struct experiment *e)
{
	if (!e)
		return;
	if (e->value)
		for (size_t i = 0; i < cfg_schema_count; i++)
			free((char *)e->value[i]);
	free(e->value);
	free(e->source);
	free(e->line);
	for (size_t i = 0; i < e->noverrides; i++)
		free(e->overrides[i]);
	free(e->overrides);
	free(e->file);
	free(e);
}

static int report_unknown_key(const char *where, const char *section, const char *key)
{
	char mean[96];

	if (key_index(section, NULL) < 0)
		pr_err("%s: unknown section [%s]%s ('atomcost config --schema' lists them)", where, section,
		       did_you_mean(suggest_name(section, section_at, cfg_schema_count, NULL), mean,
				    sizeof(mean)));
	else
		pr_err("%s: unknown key '%s' in [%s]%s ('atomcost config --schema' lists them)", where, key,
		       section, did_you_mean(suggest_name(key, key_at, cfg_schema_count, (void *)section),
					     mean, sizeof(mean)));
	return -EINVAL;
}

/* Set section.key to value, from the file (at line) or an override (line
 * 0): 0, or -EINVAL / -ENOMEM after a message that starts with where. */
static int set_key(struct experiment *e, const char *where, const char *section, const char *key,
		   const char *value, enum cfg_source src, int line)
{
	int idx = key_index(section, key);
	enum cfg_type ty;
	char *v;

	if (idx < 0)
		return report_unknown_key(where, section, key);
	if (src == CFG_SRC_FILE && e->source[idx] == CFG_SRC_FILE) {
		pr_err("%s: duplicate key '%s' in [%s] (first set on line %d)", where, key, section,
		       e->line[idx]);
		return -EINVAL;
	}
	if (check_value(&cfg_schema[idx], where, value) < 0)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	/* lists are kept as "a,b,c": an option takes them as written */
	ty = cfg_schema[idx].type;
	if (ty == CFG_ENUM_LIST || ty == CFG_STR_LIST || ty == CFG_U64_LIST) {
		char *w = v;

		for (const char *r = value; *r; r++)
			if (!isspace((unsigned char)*r))
				*w++ = *r;
		*w = 0;
	}
	free((char *)e->value[idx]);
	e->value[idx] = v;
	e->source[idx] = src;
	e->line[idx] = line;
	return 0;
}

struct parse_state {
	struct experiment *e;
	FILE *f;
	const char *file;
	int line;
	int err;
};

/* inih reader: one line per call, so the line counter names the line the
 * handler is about to see; section headers are checked here. */
static char *reader(char *str, int num, void *arg)
{
	struct parse_state *ps = arg;
	char *r = fgets(str, num, ps->f), *s, *end;

	if (!r)
		return NULL;
	ps->line++;
	if (!strchr(str, '\n') && !feof(ps->f) && !ps->err) {
		pr_err("%s:%d: line too long (at most %d characters)", ps->file, ps->line, num - 2);
		ps->err = -EINVAL;
	}
	s = str;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '[' && !ps->err) {
		char name[256], where[512];

		end = strchr(s, ']');
		if (!end)
			return r;	/* inih reports the syntax error */
		snprintf(name, sizeof(name), "%.*s", (int)(end - s - 1), s + 1);
		snprintf(where, sizeof(where), "%s:%d", ps->file, ps->line);
		if (key_index(trim(name), NULL) < 0)
			ps->err = report_unknown_key(where, trim(name), "");
	}
	return r;
}

/* inih handler: nonzero means "line accepted"; our own errors are kept in
 * ps->err (reported once, with file:line), so it always accepts. */
static int handler(void *arg, const char *section, const char *name, const char *value)
{
	struct parse_state *ps = arg;
	char where[512];

	snprintf(where, sizeof(where), "%s:%d", ps->file, ps->line);
	if (ps->err)
		return 1;
	if (*section) {
		ps->err = set_key(ps->e, where, section, name, value, CFG_SRC_FILE, ps->line);
	} else {
		pr_err("%s: key '%s' outside a section (put it under [experiment], [run], ...)", where, name);
		ps->err = -EINVAL;
	}
	return 1;
}

static int apply_override(struct experiment *e, const char *ov)
{
	char buf[512], *eq, *dot, where[600];

	snprintf(buf, sizeof(buf), "%s", ov);
	eq = strchr(buf, '=');
	if (eq)
		*eq = 0;
	dot = eq ? strrchr(buf, '.') : NULL;	/* the key holds no dot, the section may */
	if (!dot) {
		pr_err("--set: '%s' is not section.key=value (e.g. --set buddy-bitmap-2004.trials=10)", ov);
		return -EINVAL;
	}
	*dot = 0;
	snprintf(where, sizeof(where), "--set %s", ov);
	return set_key(e, where, trim(buf), trim(dot + 1), trim(eq + 1), CFG_SRC_OVERRIDE, 0);
}

/* Parse FILE into e: 0, or -errno after one message with file:line. */
static int load_file(struct experiment *e, const char *file)
{
	struct parse_state ps = { .e = e, .file = file, .f = fopen(file, "r") };
	int r;

	if (!ps.f) {
		r = -errno;
		pr_err("config: cannot open '%s': %s (experiment files are in configs/)", file, strerror(-r));
		return r;
	}
	r = ini_parse_stream(reader, &ps, handler, &ps);
	fclose(ps.f);
	if (r && !ps.err) {
		pr_err("%s:%d: not INI syntax (expected [section] or key = value)", file, r);
		return -EINVAL;
	}
	return ps.err;
}

int config_load(const char *file, char *const *overrides, size_t noverrides,
		struct experiment **out)
{
	struct experiment *e = calloc(1, sizeof(*e));
	int ret = -ENOMEM;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->value = calloc(cfg_schema_count, sizeof(*e->value));
	e->source = calloc(cfg_schema_count, sizeof(*e->source));
	e->line = calloc(cfg_schema_count, sizeof(*e->line));
	e->overrides = calloc(noverrides + 1, sizeof(char *));
	if (!e->value || !e->source || !e->line || !e->overrides)
		goto err;
	e->file = file ? strdup(file) : NULL;
	ret = file ? load_file(e, file) : 0;
	for (size_t i = 0; i < noverrides && !ret; i++) {
		e->overrides[e->noverrides++] = strdup(overrides[i]);
		ret = apply_override(e, overrides[i]);
	}
	if (!ret) {
		*out = e;
		return 0;
	}
err:
	config_free(e);
	return ret;
}

/* ---- getters ---- */

static int must_index(const char *section, const char *key)
{
	int idx = key_index(section, key);

	if (idx < 0) {
		fprintf(stderr, "atomcost: BUG: no config key %s.%s in the schema\n", section, key);
		abort();
	}
	return idx;
}

const char *config_str(const struct experiment *e, const char *section, const char *key)
{
	int idx = must_index(section, key);

	return e && e->value[idx] ? e->value[idx] : cfg_schema[idx].def;
}

uint64_t config_u64(const struct experiment *e, const char *section, const char *key)
{
	const char *s = config_str(e, section, key);

	return s ? strtoull(s, NULL, 0) : 0;
}

double config_double(const struct experiment *e, const char *section, const char *key)
{
	const char *s = config_str(e, section, key);

	return s ? strtod(s, NULL) : 0;
}

bool config_bool(const struct experiment *e, const char *section, const char *key)
{
	const char *s = config_str(e, section, key);
	bool b = false;

	if (s)
		parse_bool(s, &b);
	return b;
}

bool config_list_has(const struct experiment *e, const char *section, const char *key,
		     const char *item)
{
	const char *s = config_str(e, section, key);
	char buf[1024], *save = NULL, *tok;

	if (!s)
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(trim(tok), item))
			return true;
	return false;
}

size_t config_u64_list(const struct experiment *e, const char *section, const char *key,
		       uint64_t *out, size_t max)
{
	const char *s = config_str(e, section, key);
	char buf[1024], *save = NULL, *tok;
	size_t n = 0;

	if (!s)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
		out[n++] = strtoull(trim(tok), NULL, 0);
	return n;
}

bool config_kind_has(const struct experiment *e, const char *kind)
{
	return config_list_has(e, "experiment", "kind", kind);
}

/* ---- schema output ---- */

void config_print_schema(FILE *f)
{
	const char *last = "";

	fprintf(f, "# atomcost experiment file schema: INI, '#' or ';' comments.\n"
		   "# Unknown sections and keys, bad values and duplicate keys are errors.\n"
		   "# Override any key on the command line: --set section.key=value\n");
	for (size_t i = 0; i < cfg_schema_count; i++) {
		const struct cfg_key *k = &cfg_schema[i];
		char range[64] = "";

		if (strcmp(last, k->section))
			fprintf(f, "\n[%s]\n", k->section);
		last = k->section;
		if (k->type == CFG_U64 || k->type == CFG_U64_LIST)
			snprintf(range, sizeof(range), " %.0f..%.0f", k->min, k->max);
		else if (k->type == CFG_DOUBLE)
			snprintf(range, sizeof(range), " %g..%g", k->min, k->max);
		fprintf(f, "# %s\n#   type: %s%s%s%s", k->help, cfg_type_names[k->type], range,
			k->choices ? " of " : "", k->choices ? k->choices : "");
		if (k->option)
			fprintf(f, "; run option: %s%s", *k->option ? "--" : "",
				*k->option ? k->option : "PROBE... (positional)");
		fprintf(f, "\n%s%s = %s\n", k->def ? "" : ";", k->key, k->def ? k->def : "");
	}
}
