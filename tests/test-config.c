/* SPDX-License-Identifier: MIT */
/* test-config.c - the experiment file schema: a reproduction's rows join it
 * (once, with valid defaults), every key takes a good value and refuses a
 * bad one, unknown/duplicate keys and unknown sections are errors, overrides
 * win. The model alone has no [run] keys (run's option table adds them at
 * startup): test-cli loads the shipped experiments through the binary. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "config.h"
#include "harness.h"

static char tmpdir[] = "/tmp/atomcost-test-config-XXXXXX";

static int load_text(const char *text, struct experiment **e)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/t.conf", tmpdir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	ret = config_load(path, NULL, 0, e);
	return ret;
}

/* Whether the experiment sets the key (file or override), not its default. */
static bool is_set(const struct experiment *e, const char *section, const char *key)
{
	for (size_t i = 0; i < cfg_schema_count; i++)
		if (!strcmp(cfg_schema[i].section, section) && !strcmp(cfg_schema[i].key, key))
			return e->value[i];
	return false;
}

/* A section as it joins the schema at startup (repro_register, or run's
 * options for [run]), one key of each type [experiment] has not. */
static const struct cfg_key fake[] = {
	{ "fake-repro", "mode", CFG_ENUM, "both", "legacy|modern|both", 0, 0, NULL, "a mode" },
	{ "fake-repro", "trials", CFG_U64, "100", NULL, 1, 100000, NULL, "trials" },
	{ "fake-repro", "sizes", CFG_U64_LIST, "8,16", NULL, 8, 1 << 20, NULL, "object sizes" },
	{ "fake-repro", "names", CFG_STR_LIST, NULL, NULL, 0, 0, NULL, "probe names" },
	{ "fake-repro", "seconds", CFG_DOUBLE, "0.4", NULL, 0.001, 3600, "max-seconds", "seconds" },
	{ "fake-repro", "twins", CFG_BOOL, "true", NULL, 0, 0, "no-twins", "twins" },
}, bad_default = { "fake-2", "trials", CFG_U64, "0", NULL, 1, 9, NULL, "trials" };

/* A good and a bad value for a key, from its type. */
static void good_bad(const struct cfg_key *k, char *good, char *bad, size_t n)
{
	char first[64];

	switch (k->type) {
	case CFG_STR:
		snprintf(good, n, "spread");
		snprintf(bad, n, "%s", "");
		break;
	case CFG_STR_LIST:
		snprintf(good, n, "a,b");
		snprintf(bad, n, "a,,b");
		break;
	case CFG_ENUM:
	case CFG_ENUM_LIST:
		snprintf(first, sizeof(first), "%s", k->choices);
		*strchr(first, '|') = 0;
		snprintf(good, n, "%s", first);
		snprintf(bad, n, "%.40snope", first);
		break;
	case CFG_U64:
	case CFG_U64_LIST:
		snprintf(good, n, "%.0f", k->max);
		snprintf(bad, n, "%.0f", k->max + 1);
		break;
	case CFG_DOUBLE:
		snprintf(good, n, "%g", k->min);
		snprintf(bad, n, "%g", k->min - 1);
		break;
	case CFG_BOOL:
		snprintf(good, n, "yes");
		snprintf(bad, n, "maybe");
		break;
	}
}

int main(void)
{
	struct experiment *e;
	char text[512], good[64], bad[64];

	log_quiet = 1;
	if (!mkdtemp(tmpdir))
		return 1;
	CHECK(config_schema_add("fake-repro", fake, ARRAY_SIZE(fake)) == 0, "a reproduction's rows join");
	CHECK(config_schema_add("fake-2", fake, 1) == -EINVAL, "a key twice is refused");
	CHECK(config_schema_add("fake-2", &bad_default, 1) == -EINVAL, "a default out of range is refused");
	CHECK(load_text("[experiment]\nkind = fake-2\n", &e) == -EINVAL, "a refused kind is not added");

	/* every key: a good value loads and reads back, a bad one is refused */
	for (size_t i = 0; i < cfg_schema_count; i++) {
		const struct cfg_key *k = &cfg_schema[i];
		char *ov;

		good_bad(k, good, bad, sizeof(good));
		snprintf(text, sizeof(text), "[%s]\n%s = %s\n", k->section, k->key, good);
		CHECK(load_text(text, &e) == 0, "good value '%s' for %s.%s", good, k->section, k->key);
		if (e) {
			CHECK(!strcmp(config_str(e, k->section, k->key), good), "%s.%s reads back", k->section,
			      k->key);
			CHECK(e->line[i] == 2, "%s.%s line recorded", k->section, k->key);
			config_free(e);
		}
		if (*bad || k->type == CFG_STR) {
			snprintf(text, sizeof(text), "[%s]\n%s = %s\n", k->section, k->key, bad);
			CHECK(load_text(text, &e) == -EINVAL, "bad value '%s' for %s.%s refused", bad,
			      k->section, k->key);
		}
		/* the same through --set */
		if (asprintf(&ov, "%s.%s=%s", k->section, k->key, bad) > 0) {
			if (*bad)
				CHECK(config_load(NULL, &ov, 1, &e) == -EINVAL, "--set %s refused", ov);
			free(ov);
		}
	}

	/* unknown key and section, duplicates, keys outside sections */
	CHECK(load_text("[fake-repro]\ntrial = 2\n", &e) == -EINVAL, "unknown key");
	CHECK(load_text("[experimnt]\n", &e) == -EINVAL, "unknown empty section");
	CHECK(load_text("[fake-repro]\nmode = legacy\nmode = both\n", &e) == -EINVAL, "duplicate key");
	CHECK(load_text("mode = latency\n", &e) == -EINVAL, "key outside a section");
	CHECK(load_text("[fake-repro]\nmode\n", &e) == -EINVAL, "not key = value");
	CHECK(load_text("[experiment]\nkind = probes, bogus\n", &e) == -EINVAL, "bad list item");
	CHECK(load_text("[fake-repro]\nmode = legacy, modern\n", &e) == -EINVAL, "enum is not a list");
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
		CHECK(config_load(path, NULL, 0, &e) == -ENOENT, "missing file is -ENOENT");
	}

	/* --set splits at the last dot before '=' and wins over the file's
	 * key (not a duplicate), which then has no line */
	{
		char *dotted[] = { "fake-repro.mode.x=legacy" }, *nodot[] = { "mode=legacy" },
		     *mode[] = { "fake-repro.mode = modern" }, path[300];

		CHECK(config_load(NULL, dotted, 1, &e) == -EINVAL, "section 'fake-repro.mode' is unknown");
		CHECK(config_load(NULL, nodot, 1, &e) == -EINVAL, "no dot: not section.key=value");
		CHECK(load_text("[fake-repro]\nmode = legacy\n", &e) == 0, "a file's mode");
		config_free(e);
		snprintf(path, sizeof(path), "%s/t.conf", tmpdir);
		CHECK(config_load(path, mode, 1, &e) == 0, "--set over the file's key");
		if (e) {
			json_t *j = config_to_json(e);
			json_t *m = json_object_get(json_object_get(json_object_get(j, "values"), "fake-repro"),
						    "mode");

			CHECK(!strcmp(config_str(e, "fake-repro", "mode"), "modern"), "the override wins");
			CHECK(!strcmp(json_string_value(json_object_get(m, "source")), "override") &&
				      !json_object_get(m, "line"),
			      "the override's source, and no file line");
			json_decref(j);
			config_free(e);
		}
	}

	/* defaults, comments, lists, overrides */
	CHECK(load_text("# c\n; c\n[experiment]\nkind = characterization, fake-repro ; why\n", &e) == 0,
	      "comments and lists");
	if (e) {
		CHECK(config_kind_has(e, "fake-repro") && !config_kind_has(e, "probes"), "kind list");
		CHECK(config_u64(e, "fake-repro", "trials") == 100, "default trials");
		CHECK(!is_set(e, "fake-repro", "trials"), "default is not set");
		config_free(e);
	}
	{
		char *ov[] = { "fake-repro.trials=7", "fake-repro.sizes=16,8" };
		uint64_t v[4];

		CHECK(config_load(NULL, ov, 2, &e) == 0, "overrides without a file");
		if (e) {
			CHECK(config_u64(e, "fake-repro", "trials") == 7, "override applied");
			CHECK(config_u64_list(e, "fake-repro", "sizes", v, 4) == 2 && v[1] == 8, "u64 list");
			CHECK(e->source[0] == CFG_SRC_DEFAULT, "untouched key from default");
			{
				json_t *j = config_to_json(e);

				CHECK(json_array_size(json_object_get(j, "overrides")) == 2, "overrides in JSON");
				CHECK(!strcmp(json_string_value(json_object_get(json_object_get(json_object_get(
						  json_object_get(j, "values"), "fake-repro"), "trials"),
						  "source")), "override"), "source in JSON");
				{
					size_t nkeys = 0;
					const char *sk;
					json_t *sv;

					json_object_foreach(json_object_get(j, "values"), sk, sv)
						nkeys += json_object_size(sv);
					CHECK(nkeys == cfg_schema_count, "every key once in JSON (%zu of %zu)",
					      nkeys, cfg_schema_count);
				}
				json_decref(j);
			}
			config_free(e);
		}
	}

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			return 1;
	}
	return test_done("config");
}
