/* SPDX-License-Identifier: MIT */
/* repro/run.c - run the reproductions an experiment lists, in order, and
 * put their figures into the report (rep->meta["reproductions"]). */
#include "repro.h"

#include <errno.h>
#include <string.h>

#include "common.h"
#include "fingerprint.h"
#include "result.h"
#include "runner.h"

/* source: the post each reproduction reproduces (docs/reproductions.md has
 * one section per reproduction, under its kind). */
static const struct {
	const char *kind;
	int (*run)(struct repro_ctx *c);
	const char *seed;
	const char *source;
} repros[] = {
	{ "buddy-bitmap-2004", repro_buddy_run, "buddy-bitmap-test-atomics-2004",
	  "Hiroyuki Kamezawa, lhms-devel, 2004, \"Re: [RFC] buddy allocator without bitmap [2/4]\"" },
	{ "slub-cmpxchg-local", repro_slub_run, "slub-cmpxchg-local-2007",
	  "Mathieu Desnoyers, LKML, 21 Aug 2007, \"Re: [PATCH] SLUB use cmpxchg_local\"" },
	{ "slub-bulk-free", repro_bulk_run, "slub-bulk-free-2015",
	  "Jesper Dangaard Brouer / Joonsoo Kim, linux-mm, 16 Jun 2015, "
	  "\"Re: [PATCH 7/7] slub: initial bulk free implementation\"" },
	{ "slab-concurrent", repro_concurrent_run, "slab-lockless-shared-check-2016",
	  "Joonsoo Kim, linux-mm, 12 Apr 2016, patch making slab's free-object check lockless "
	  "(Christoph Lameter's concurrent alloc/free benchmark)" },
	{ "code-alignment-2008", repro_align_run, "slub-partial-pages-variance-2008",
	  "Christoph Lameter, linux-mm, Jan 2008, \"Re: SLUB: Increasing partial pages\" "
	  "(~3% variance between kernel builds, blamed on code alignment)" },
};

int repro_run_all(const struct experiment *e, struct topo *t, const struct run_opts *o,
		  struct report *rep, FILE *out)
{
	int cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
	char machine[384];
	json_t *all;
	int ret;

	if (rep->cal.timer_hz <= 0) {
		ret = topo_bind_thread(t, cpu);
		if (ret < 0)
			return ret;
		ret = clock_calibrate(&rep->cal, cpu);
		if (ret < 0)
			return ret;
	} else {
		/* runner_run left this thread pinned to its CPU */
		cpu = rep->cal.cpu_os >= 0 ? rep->cal.cpu_os : cpu;
	}
	if (!rep->meta)
		rep->meta = json_object();
	fingerprint_oneline(fingerprint_of_meta(rep->meta), machine, sizeof(machine));
	if (rep->cal.core_hz > 0) {
		size_t l = strlen(machine);

		snprintf(machine + l, sizeof(machine) - l, ", core %.2f GHz", rep->cal.core_hz / 1e9);
	}
	all = json_object_get(rep->meta, "reproductions");
	if (!all) {
		all = json_object();
		json_object_set_new(rep->meta, "reproductions", all);
	}
	for (size_t i = 0; i < ARRAY_SIZE(repros); i++) {
		struct repro_ctx c = { .exp = e, .t = t, .cal = &rep->cal, .cpu_os = cpu, .out = out,
				       .machine = machine };
		uint64_t t0 = now_ns();

		if (!config_kind_has(e, repros[i].kind))
			continue;
		if (runner_stop)
			return -EINTR;
		c.json = json_pack("{s:s,s:s,s:s,s:i}", "seed", repros[i].seed, "source",
				   repros[i].source, "machine", machine, "cpu", cpu);
		json_object_set_new(all, repros[i].kind, c.json);
		fprintf(out, "\n=== %s: reproduces %s (docs/reproductions.md)\n", repros[i].kind,
			repros[i].source);
		ret = repros[i].run(&c);
		json_object_set_new(c.json, "wall_s", json_real((now_ns() - t0) / 1e9));
		if (ret < 0)
			return ret;
	}
	return 0;
}

