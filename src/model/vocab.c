/* SPDX-License-Identifier: MIT */
/* vocab.c - names and parsers of the model's vocabulary (vocab.h). */
#include "vocab.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

/* Probe modes and atomicity classes. */
static const char *const mode_names[MODE__COUNT] = {
	[MODE_LATENCY] = "latency",
	[MODE_THROUGHPUT] = "throughput",
};

const char *probe_mode_name(enum probe_mode m)
{
	return m < MODE__COUNT ? mode_names[m] : "?";
}

int probe_mode_parse(const char *s, enum probe_mode *out)
{
	for (int m = 0; m < MODE__COUNT; m++) {
		if (!strcmp(s, mode_names[m]) || (!strcmp(s, m == MODE_LATENCY ? "lat" : "tput"))) {
			*out = (enum probe_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const atomicity_names[] = {
	[ATOMICITY_BASELINE] = "baseline", [ATOMICITY_ATOMIC] = "atomic",
	[ATOMICITY_LOCAL] = "local-only", [ATOMICITY_NONATOMIC] = "non-atomic",
};

const char *probe_atomicity_name(enum atomicity a)
{
	return (unsigned)a < ARRAY_SIZE(atomicity_names) ? atomicity_names[a] : "?";
}

/* Pair classes: the placement planner parses them, the writers print them. */
static const char *const class_names[PAIR__COUNT] = {
	[PAIR_SMT] = "smt",
	[PAIR_L2] = "l2",
	[PAIR_L3] = "l3",
	[PAIR_NUMA] = "numa",
	[PAIR_PACKAGE] = "package",
	[PAIR_CROSS] = "cross",
};

const char *topo_pair_class_name(enum pair_class c)
{
	return (unsigned)c < PAIR__COUNT ? class_names[c] : "?";
}

int topo_pair_class_parse(const char *s, enum pair_class *out)
{
	for (int c = 0; c < PAIR__COUNT; c++) {
		if (s && !strcmp(s, class_names[c])) {
			*out = c;
			return 0;
		}
	}
	return -EINVAL;
}

/* c2c methods. */
static const char *const method_names[C2C__COUNT] = { "cmpxchg", "load-store" };
static const char *const method_keys[C2C__COUNT] = { "cmpxchg", "load_store" };
static const char *const method_transfers[C2C__COUNT] = {
	">= 2 line transfers (failed cmpxchgs also pull the line exclusive)",
	"2 line transfers (read misses) + 2 invalidations (store upgrades)",
};

const char *c2c_method_name(enum c2c_method m)
{
	return m < C2C__COUNT ? method_names[m] : "?";
}

const char *c2c_method_key(enum c2c_method m)
{
	return m < C2C__COUNT ? method_keys[m] : "?";
}

const char *c2c_method_transfers(enum c2c_method m)
{
	return m < C2C__COUNT ? method_transfers[m] : "?";
}

/* A comma-separated list of names[0..n) into a mask of 1u << index;
 * -EINVAL after a message naming opt, what an item is and what was
 * expected (expect_item for an unknown one, expect for an empty list). A
 * list too long for the buffer is refused: cutting it could drop an item
 * unsaid. */
static int parse_mask(const char *list, const char *const *names, int n, const char *opt,
		      const char *item, const char *expect_item, const char *expect, unsigned *mask)
{
	char buf[128], all[64] = "", *save = NULL, *tok;

	*mask = 0;
	if (strlen(list) >= sizeof(buf)) {
		for (int i = 0; i < n; i++)
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? ", " : "", names[i]);
		pr_err("%s: '%s' is too long (expected a list of %s)", opt, list, all);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = 0;

		while (i < n && strcmp(tok, names[i]))
			i++;
		if (i == n) {
			pr_err("%s: unknown %s '%s' (expected %s)", opt, item, tok, expect_item);
			return -EINVAL;
		}
		*mask |= 1u << i;
	}
	if (!*mask) {
		pr_err("%s: empty list (expected %s)", opt, expect);
		return -EINVAL;
	}
	return 0;
}

int c2c_parse_methods(const char *s, unsigned *mask)
{
	return parse_mask(s, method_names, C2C__COUNT, "c2c: --method", "method", "cmpxchg, load-store",
			  "cmpxchg, load-store", mask);
}

/* Sharing cases of the contention runs. */
static const char *const sharing_names[SHARING__COUNT] = { "true", "false", "none" };
static const char *const sharing_patterns[SHARING__COUNT] = {
	"true-share", "false-share", "no-share",
};

const char *contention_sharing_name(enum sharing s)
{
	return s < SHARING__COUNT ? sharing_names[s] : "?";
}

const char *contention_sharing_pattern(enum sharing s)
{
	return s < SHARING__COUNT ? sharing_patterns[s] : "?";
}

int contention_parse_sharing(const char *list, unsigned *mask)
{
	*mask = (1u << SHARING__COUNT) - 1;
	if (!list)
		return 0;
	return parse_mask(list, sharing_names, SHARING__COUNT, "--sharing", "case",
			  "true (same word), false (same line, own words) or none (private lines), comma-separated",
			  "true, false, none or a comma-separated mix", mask);
}

/* Split-lock modes. */
static const char *const splitlock_names[] = {
	[SPLITLOCK_UNDETECTED] = "undetected", [SPLITLOCK_OFF] = "off", [SPLITLOCK_WARN] = "warn",
	[SPLITLOCK_FATAL] = "fatal", [SPLITLOCK_RATELIMIT] = "ratelimit",
};

const char *splitlock_mode_name(enum splitlock_mode m)
{
	return (unsigned)m < ARRAY_SIZE(splitlock_names) ? splitlock_names[m] : "?";
}
