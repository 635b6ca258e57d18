/* repro-common.c - run the reproductions an experiment lists, in order, and
 * put their figures into the report (rep->meta["reproductions"]). */
#include "repro.h"

#include <string.h>

#include "common.h"
#include "result.h"
#include "runner.h"

static const struct {
	const char *kind;
	int (*run)(struct repro_ctx *c);
	const char *seed;
} repros[] = {
	{ "buddy-bitmap-2004", repro_buddy_run, "buddy-bitmap-test-atomics-2004" },
	{ "slub-cmpxchg-local", repro_slub_run, "slub-cmpxchg-local-2007" },
	{ "slub-bulk-free", repro_bulk_run, "slub-bulk-free-2015" },
	{ "slab-concurrent", repro_concurrent_run, "slab-lockless-shared-check-2016" },
};

int repro_run_all(const struct experiment *e, struct topo *t, const struct run_opts *o,
		  struct report *rep, FILE *out)
{
	int cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
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
	all = json_object_get(rep->meta, "reproductions");
	if (!all) {
		all = json_object();
		json_object_set_new(rep->meta, "reproductions", all);
	}
	for (size_t i = 0; i < ARRAY_SIZE(repros); i++) {
		struct repro_ctx c = { .exp = e, .t = t, .cal = &rep->cal, .cpu_os = cpu, .out = out };
		uint64_t t0 = now_ns();

		if (!config_kind_has(e, repros[i].kind))
			continue;
		if (runner_stop)
			return -EINTR;
		c.json = json_pack("{s:s,s:i}", "seed", repros[i].seed, "cpu", cpu);
		json_object_set_new(all, repros[i].kind, c.json);
		fprintf(out, "\n=== %s (reproduces seeds/%s.txt)\n", repros[i].kind, repros[i].seed);
		ret = repros[i].run(&c);
		json_object_set_new(c.json, "wall_s", json_real((now_ns() - t0) / 1e9));
		if (ret < 0)
			return ret;
	}
	return 0;
}
