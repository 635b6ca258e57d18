/* SPDX-License-Identifier: MIT */
/* cmd/options.c - a command's option table into getopt_long, --help,
 * checked values and experiment-file keys (cmd/options.h). */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "cmd/options.h"
#include "config.h"
#include "pattern.h"
#include "report.h"

#define OPT_ID_BASE 256	/* getopt value of an option without a letter: base + index */
#define HELP_COLUMN_MAX 24
#define LINE_WIDTH 79

static const struct cmd_opt help_opt = {
	.name = "help", .letter = 'h', .type = OPT_FLAG, .help = "this help"
};

/* The index of val among choices "a|b|c". */
static int choice_index(const char *what, const char *choices, const char *val, unsigned *out)
{
	size_t len = strlen(val);
	unsigned i = 0;

	for (const char *p = choices; *p; i++) {
		size_t n = strcspn(p, "|");

		if (n == len && !strncmp(p, val, n)) {
			*out = i;
			return 0;
		}
		p += n + (p[n] == '|');
	}
	pr_err("%s: unknown value '%s' (expected %s)", what, val, choices);
	return -EINVAL;
}

int opts_set(const struct cmd_opts *c, const struct cmd_opt *o, const char *what,
	     const char *val, void *args)
{
	void *f = (char *)args + o->off;
	struct opt_list *l = f;
	uint64_t u;
	double d;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)f = true;
		return 0;
	case OPT_STR:
		*(const char **)f = val;
		return 0;
	case OPT_LIST:
		if (l->n == ARRAY_SIZE(l->v)) {
			pr_err("%s: given more than %zu times", what, ARRAY_SIZE(l->v));
			return -EINVAL;
		}
		l->v[l->n++] = (char *)val;
		return 0;
	case OPT_U64:
		return parse_u64(what, val, (uint64_t)o->min, (uint64_t)o->max, f);
	case OPT_INT:
		if (parse_u64(what, val, (uint64_t)o->min, (uint64_t)o->max, &u) < 0)
			return -EINVAL;
		*(int *)f = (int)u;
		return 0;
	case OPT_DOUBLE:
		return parse_double(what, val, o->min, o->max, f);
	case OPT_PCT:
		if (parse_double(what, val, o->min, o->max, &d) < 0)
			return -EINVAL;
		*(double *)f = d / 100;
		return 0;
	case OPT_SIZE:
		return pattern_parse_size(what, val, f);
	case OPT_CHOICE:
		return choice_index(what, o->choices, val, f);
	case OPT_FN:
		return o->parse(what, val, f);
	}
	return -EINVAL;
}

int opts_writer(const char *what, const char *val, void *field)
{
	const struct report_writer **w = field;

	*w = report_writer_find(val);
	if (*w)
		return 0;
	pr_err("%s: unknown format '%s' (expected one of: %s)", what, val, report_writer_names(false));
	return -EINVAL;
}

int opts_print_json(json_t *j)
{
	if (!j)
		return EXIT_RUNTIME;
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
	return EXIT_OK;
}

int opts_defaults(const struct cmd_opts *c, void *args)
{
	for (size_t i = 0; i < c->n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "--%s (default, internal error)", c->opt[i].name);
		if (c->opt[i].def && opts_set(c, &c->opt[i], what, c->opt[i].def, args) < 0)
			return -EINVAL;
	}
	return 0;
}

/* " (default X)": the table's, else a number field's value when it lies
 * in the range (an unset value, such as 0 for "the engine's default", lies
 * outside), or a string's. */
static void default_text(const struct cmd_opt *o, const void *args, char *buf, size_t len)
{
	const void *f = (const char *)args + o->off;
	const char *s = o->def ? o->def : o->type == OPT_STR ? *(const char *const *)f : NULL;
	double x;

	buf[0] = 0;
	if (s || o->type < OPT_U64 || o->type > OPT_SIZE) {
		if (s)
			snprintf(buf, len, " (default\a%s)", s);
		return;
	}
	x = o->type == OPT_U64 ? (double)*(const uint64_t *)f : o->type == OPT_INT ? *(const int *)f :
	    o->type == OPT_SIZE ? (double)*(const size_t *)f : *(const double *)f;
	x *= o->type == OPT_PCT ? 100 : 1;
	if (o->type == OPT_SIZE ? x > 0 : x >= o->min && x <= o->max)
		snprintf(buf, len, " (default\a%.15g)", x);
}

/* "  HEAD  text", the text wrapped at LINE_WIDTH under its column; '\a'
 * is a space that does not break. */
static void print_wrapped(FILE *f, const char *head, int col, const char *text)
{
	int at = fprintf(f, "  %-*s  ", col, head), indent = col + 4;

	if (at > indent) {
		fprintf(f, "\n%*s", indent, "");
		at = indent;
	}
	while (*text) {
		size_t w = strcspn(text, " ");

		if (at > indent && at + 1 + (int)w > LINE_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			at = indent;
		} else if (at > indent) {
			at += fprintf(f, " ");
		}
		for (size_t i = 0; i < w; i++)
			fputc(text[i] == '\a' ? ' ' : text[i], f);
		at += (int)w;
		text += w + strspn(text + w, " ");
	}
	fputc('\n', f);
}

static int head_of(const struct cmd_opt *o, char *buf, size_t len)
{
	int n = o->letter ? snprintf(buf, len, "-%c, ", o->letter) : 0;

	return n + snprintf(buf + n, len - n, "--%s%s%s", o->name, o->arg ? " " : "",
			    o->arg ? o->arg : "");
}

void opts_usage(const struct cmd_opts *c, const void *args, FILE *f)
{
	int col = 0;
	char head[64], def[96], text[768];

	for (size_t i = 0; i <= c->n; i++) {
		int n = head_of(i < c->n ? &c->opt[i] : &help_opt, head, sizeof(head));

		col = n > col && n <= HELP_COLUMN_MAX ? n : col;
	}
	fputs(c->usage, f);
	for (size_t i = 0; i <= c->n; i++) {
		const struct cmd_opt *o = i < c->n ? &c->opt[i] : &help_opt;

		head_of(o, head, sizeof(head));
		default_text(o, args, def, sizeof(def));
		/* a writer's choices are report_writers[]'s, never a list by hand */
		snprintf(text, sizeof(text), "%s%s%s%s", o->help ? o->help : "",
			 o->parse == opts_writer ? ": " : "", o->parse == opts_writer ? report_writer_names(false) : "",
			 def);
		print_wrapped(f, head, col, text);
	}
	if (c->tail)
		fputs(c->tail, f);
}

static const struct cmd_opt *opt_of(const struct cmd_opts *c, int id)
{
	if (id >= OPT_ID_BASE)
		return (size_t)(id - OPT_ID_BASE) < c->n ? &c->opt[id - OPT_ID_BASE] : NULL;
	for (size_t i = 0; i < c->n; i++)
		if (c->opt[i].letter == id)
			return &c->opt[i];
	return id == 'h' ? &help_opt : NULL;
}

int opts_schema_add(const struct cmd_opts *c, const struct cfg_key *operand)
{
	static const enum cfg_type by_type[OPT_FN + 1] = {	/* the others: CFG_STR */
		[OPT_FLAG] = CFG_BOOL, [OPT_LIST] = CFG_STR_LIST, [OPT_U64] = CFG_U64, [OPT_INT] = CFG_U64,
		[OPT_DOUBLE] = CFG_DOUBLE, [OPT_PCT] = CFG_DOUBLE, [OPT_CHOICE] = CFG_ENUM,
	};
	struct cfg_key rows[c->n + 1];
	size_t n = 0;

	if (operand)
		rows[n++] = *operand;
	for (const struct cmd_opt *o = c->opt; o < c->opt + c->n; o++)
		if (o->key)
			rows[n++] = (struct cfg_key){ c->section, o->key, o->key_type ? o->key_type : by_type[o->type],
				o->type != OPT_FLAG ? o->def : strncmp(o->name, "no-", 3) ? "false" : "true",
				o->choices, o->min, o->max, o->name, o->key_help ? o->key_help : o->help };
	return config_schema_add(NULL, rows, n);
}

int opts_argv(const struct cmd_opts *c, int argc, char **argv, void *args)
{
	struct option lo[c->n + 2];
	char so[2 * c->n + 3], what[64];
	size_t ns = 0;
	int id;

	for (size_t i = 0; i <= c->n; i++) {
		const struct cmd_opt *o = i < c->n ? &c->opt[i] : &help_opt;

		lo[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					 o->letter ? o->letter : OPT_ID_BASE + (int)i };
		if (o->letter) {
			so[ns++] = (char)o->letter;
			if (o->arg)
				so[ns++] = ':';
		}
	}
	so[ns] = 0;
	memset(&lo[c->n + 1], 0, sizeof(lo[0]));
	while ((id = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct cmd_opt *o = opt_of(c, id);

		if (!o) {	/* getopt said what */
			pr_err("%s: see 'atomcost %s --help'", argv[0], argv[0]);
			return -EINVAL;
		}
		if (o == &help_opt) {
			opts_usage(c, args, stdout);
			return 1;
		}
		snprintf(what, sizeof(what), "--%s", o->name);
		if (opts_set(c, o, what, optarg, args) < 0)
			return -EINVAL;
	}
	if (c->max_operands >= 0 && argc - optind > c->max_operands) {
		pr_err("%s: unexpected argument '%s' (see 'atomcost %s --help')", argv[0],
		       argv[optind + c->max_operands], argv[0]);
		return -EINVAL;
	}
	return 0;
}

int opts_parse(const struct cmd_opts *c, int argc, char **argv, void *args)
{
	return opts_defaults(c, args) < 0 ? -EINVAL : opts_argv(c, argc, argv, args);
}
