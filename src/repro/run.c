/* SPDX-License-Identifier: MIT */
/* repro/run.c - the reproductions' registry (meson.build's `repros`), and
 * the run of those an experiment lists, in order, with their figures put
 * into the report (rep->meta["reproductions"], by repro_doc_put). */
#include "repro/repro.h"

#include <errno.h>
#include <string.h>

#include "common.h"
#include "fingerprint.h"
#include "quiet.h"
#include "result.h"
#include "runner.h"

#include "repro-list.h"	/* REPROS: X(kind) per reproduction, from meson.build */

#define X(kind) extern const struct repro repro_##kind;
REPROS
#undef X
#define X(kind) &repro_##kind,
const struct repro *const repro_list[] = { REPROS };
#undef X
const size_t repro_count = ARRAY_SIZE(repro_list);

int repro_register(void)
{
	static bool done;
	int ret = 0;

	for (size_t i = 0; !done && i < repro_count && !ret; i++)
		ret = config_schema_add(repro_list[i]->kind, repro_list[i]->keys, repro_list[i]->nkeys);
	done = true;
	return ret;
}

int repro_run_all(const struct experiment *e, struct topo *t, const struct run_opts *o,
		  struct report *rep, FILE *out)
{
	int cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
	struct repro_patience patience = { .patience_s = o->patience_s };
	char machine[384], why[192] = "named (--cpu)";
	int ret;

	if (rep->cal.timer_hz <= 0) {
		/* no CPU named: the quietest allowed one, as the characterization does */
		ret = o->cpu_named ? topo_bind_thread(t, cpu) : quiet_pick_cpu(t, why, sizeof(why));
		if (ret < 0)
			return ret;
		cpu = o->cpu_named ? cpu : ret;
		if (!o->cpu_named)
			fprintf(out, "reproductions on CPU %d: %s\n", cpu, why);
		ret = clock_calibrate(&rep->cal, cpu);
		if (ret < 0)
			return ret;
	} else {
		/* runner_run left this thread pinned to its CPU */
		cpu = rep->cal.cpu_os >= 0 ? rep->cal.cpu_os : cpu;
		snprintf(why, sizeof(why), "the CPU the probes ran on");
	}
	fingerprint_oneline(&rep->fp, machine, sizeof(machine));
	if (rep->cal.core_hz > 0) {
		size_t l = strlen(machine);

		snprintf(machine + l, sizeof(machine) - l, ", core %.2f GHz", rep->cal.core_hz / 1e9);
	}
	ret = repro_doc_put(rep, NULL);
	patience.start_ns = now_ns();
	for (size_t i = 0; i < repro_count && ret >= 0; i++) {
		const struct repro *r = repro_list[i];
		struct repro_doc d = { .kind = r->kind, .seed = r->seed, .source = r->source,
				       .machine = machine, .cpu = cpu, .cpu_why = why };
		struct repro_ctx c = { .exp = e, .t = t, .cal = &rep->cal, .cpu_os = cpu, .out = out,
				       .doc = &d, .machine = machine, .patience = &patience };
		struct repro_patience before = patience;
		uint64_t t0 = now_ns();

		if (!config_kind_has(e, r->kind))
			continue;
		if (runner_stop)
			return -EINTR;
		fprintf(out, "\n=== %s: reproduces %s (docs/reproductions.md)\n", r->kind, r->source);
		repro_say_calibration(&rep->cal, out, &d);
		ret = r->run(&c);
		repro_say_load(&c, &before);
		d.wall_s = (now_ns() - t0) / 1e9;
		if (repro_doc_put(rep, &d) < 0 && ret >= 0)
			ret = -ENOMEM;
		repro_doc_free(&d);
	}
	return ret < 0 ? ret : 0;
}

