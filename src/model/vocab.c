/* SPDX-License-Identifier: MIT */
/* vocab.c - names and parsers of the model's vocabulary (vocab.h). */
#include "vocab.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

const char *vocab_name(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}

int vocab_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -EINVAL;
}

/* The names, then the short forms the parser takes too. */
static const char *const mode_names[] = { "latency", "throughput", "lat", "tput" };

const char *probe_mode_name(enum probe_mode m)
{
	return vocab_name(mode_names, MODE__COUNT, m);
}

int probe_mode_parse(const char *s, enum probe_mode *out)
{
	int m = vocab_index(mode_names, ARRAY_SIZE(mode_names), s);

	if (m >= 0)
		*out = (enum probe_mode)(m % MODE__COUNT);
	return m < 0 ? m : 0;
}

static const char *const atomicity_names[] = {
	[ATOMICITY_BASELINE] = "baseline", [ATOMICITY_ATOMIC] = "atomic",
	[ATOMICITY_LOCAL] = "local-only", [ATOMICITY_NONATOMIC] = "non-atomic",
};

const char *probe_atomicity_name(enum atomicity a)
{
	return vocab_name(atomicity_names, ARRAY_SIZE(atomicity_names), a);
}

/* Pair classes: the placement planner parses them, the writers print them. */
static const char *const class_names[] = { "smt", "l2", "l3", "numa", "package", "cross" };

const char *topo_pair_class_name(enum pair_class c)
{
	return vocab_name(class_names, PAIR__COUNT, c);
}

int topo_pair_class_parse(const char *s, enum pair_class *out)
{
	int c = vocab_index(class_names, PAIR__COUNT, s);

	if (c >= 0)
		*out = (enum pair_class)c;
	return c < 0 ? c : 0;
}

static const char *const method_names[C2C__COUNT] = { "cmpxchg", "load-store", "flag-ack" };
static const char *const method_keys[C2C__COUNT] = { "cmpxchg", "load_store", "flag_ack" };
static const char *const method_transfers[C2C__COUNT] = {
	">= 2 line transfers (failed cmpxchgs also pull the line exclusive)",
	"2 read misses, + 2 upgrades where a read miss takes the line shared (rows say which)",
	"2 lines (c2clat's): 2 read misses + 2 invalidations of the reader's copy",
};

const char *c2c_loadstore_seen(double store_after_read, double store_local, double round_trip)
{
	double extra = store_after_read - store_local, one_way = round_trip / 2;

	if (store_after_read <= 0 || store_local <= 0 || one_way <= 0)
		return NULL;
	if (extra < C2C_EXCLUSIVE_MAX * one_way)
		return "2 line transfers (measured: a store after the read miss cost a local store's)";
	if (extra > C2C_UPGRADE_MIN * one_way)
		return "2 read misses + 2 upgrades (measured: a store after a read miss waited)";
	return NULL;
}

const char *c2c_method_name(enum c2c_method m)
{
	return vocab_name(method_names, C2C__COUNT, m);
}

const char *c2c_method_key(enum c2c_method m)
{
	return vocab_name(method_keys, C2C__COUNT, m);
}

const char *c2c_method_transfers(enum c2c_method m)
{
	return vocab_name(method_transfers, C2C__COUNT, m);
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
		int i = vocab_index(names, (size_t)n, tok);

		if (i < 0) {
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
	return parse_mask(s, method_names, C2C__COUNT, "c2c: --method", "method", "cmpxchg, load-store, flag-ack",
			  "cmpxchg, load-store, flag-ack", mask);
}

static const char *const sharing_names[SHARING__COUNT] = { "true", "false", "none" };
static const char *const sharing_patterns[SHARING__COUNT] = {
	"true-share", "false-share", "no-share",
};

const char *contention_sharing_name(enum sharing s)
{
	return vocab_name(sharing_names, SHARING__COUNT, s);
}

const char *contention_sharing_pattern(enum sharing s)
{
	return vocab_name(sharing_patterns, SHARING__COUNT, s);
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

static const char *const splitlock_names[] = {
	[SPLITLOCK_UNDETECTED] = "undetected", [SPLITLOCK_OFF] = "off", [SPLITLOCK_WARN] = "warn",
	[SPLITLOCK_FATAL] = "fatal", [SPLITLOCK_RATELIMIT] = "ratelimit",
};

const char *splitlock_mode_name(enum splitlock_mode m)
{
	return vocab_name(splitlock_names, ARRAY_SIZE(splitlock_names), m);
}
