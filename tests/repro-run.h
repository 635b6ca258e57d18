/* SPDX-License-Identifier: MIT */
/* repro-run.h - the reproduction tests' one way to run a reproduction on a
 * small experiment: overrides loaded as the experiment, the printed text
 * kept in a buffer, the figures in t->doc and as JSON in t->json. */
#ifndef ATOMCOST_TESTS_REPRO_RUN_H
#define ATOMCOST_TESTS_REPRO_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "repro/repro.h"

struct repro_test_run {
	struct experiment *e;
	struct repro_ctx rc;
	struct repro_doc doc;
	json_t *json;		/* doc as the report writes it */
	char *text;		/* what the reproduction printed */
	size_t len;
	int ret;		/* what it returned */
};

/* Load ov[0..n) as the experiment and run the reproduction `kind` on it
 * under cal. -1 when the experiment does not load (nothing to free then). */
static inline int repro_test_run(struct repro_test_run *t, const char *kind, char **ov, size_t n,
				 const struct calibration *cal)
{
	int (*run)(struct repro_ctx *) = NULL;

	*t = (struct repro_test_run){ .rc = { .cal = cal, .machine = "Test CPU" } };
	for (size_t i = 0; i < repro_count; i++)
		if (!strcmp(repro_list[i]->kind, kind))
			run = repro_list[i]->run;
	if (!run || repro_register() < 0 || config_load(NULL, ov, n, &t->e) < 0)
		return -1;
	t->rc.exp = t->e;
	t->rc.doc = &t->doc;
	t->rc.out = open_memstream(&t->text, &t->len);
	t->ret = run(&t->rc);
	fclose(t->rc.out);
	t->json = repro_doc_json(&t->doc);
	return 0;
}

static inline void repro_test_done(struct repro_test_run *t)
{
	json_decref(t->json);
	repro_doc_free(&t->doc);
	free(t->text);
	config_free(t->e);
}

#endif
