/* test-runner.c - the runner end to end on the real machine: pinned,
 * calibrated, every sample kept, twins paired, JSON written atomically and
 * read back equal. No timing thresholds: structure and invariants only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "harness.h"
#include "probes.h"
#include "report.h"
#include "runner.h"

int main(void)
{
	const struct probe *list[] = { &probe_add_chain, &probe_set_bit, &probe___set_bit };
	struct run_opts o;
	struct report rep, back;
	struct topo *t;
	char dir[] = "/tmp/atomcost-test-XXXXXX", path[128];

	log_quiet = 1;
	CHECK(topo_open(&t, NULL, NULL) == 0, "topology");
	runner_default_opts(&o);
	o.max_seconds = 0.02;
	o.min_samples = 8;
	o.cpu_os = topo_allowed_os(t, topo_allowed_count(t) - 1);
	report_init(&rep);
	CHECK(runner_run(t, &o, list, 3, &rep) == 0, "runner_run");
	CHECK(rep.n == 5, "add_chain latency + 2 probes x 2 forms = 5 results, got %zu", rep.n);
	CHECK(rep.cal.ticks_per_cycle > 0 && rep.cal.timer_hz > 0, "calibrated");
	for (size_t i = 0; i < rep.n; i++) {
		const struct result *r = &rep.r[i];

		CHECK(r->nsamples >= 8 && r->samples, "%s: samples kept (%zu)", r->name, r->nsamples);
		CHECK(r->cpu_os == o.cpu_os && !r->migrated, "%s: ran on P#%d", r->name, o.cpu_os);
		CHECK(r->ops_per_sample == 2 * r->iters * UNROLL, "%s: ops per sample", r->name);
		CHECK(r->s.n == r->nsamples && r->s.min <= r->s.median && r->s.median <= r->s.p90,
		      "%s: summary ordered", r->name);
		CHECK(r->s.ci_lo <= r->s.median && r->s.median <= r->s.ci_hi, "%s: CI brackets", r->name);
	}
	{
		const struct result *a = report_find(&rep, "set_bit", MODE_THROUGHPUT, "hit");
		const struct result *b = report_find(&rep, "__set_bit", MODE_THROUGHPUT, "hit");

		CHECK(a && b && a->has_ratio && b->has_ratio, "twins paired");
		if (a && b && a->has_ratio)
			CHECK(fabs(a->ratio * b->ratio - 1) < 1e-9 && a->ratio_lo <= a->ratio &&
			      a->ratio <= a->ratio_hi, "ratio and its inverse, interval brackets");
		CHECK(report_find(&rep, "add_chain", MODE_THROUGHPUT, "hit") == NULL,
		      "no throughput form for add_chain");
	}

	CHECK(mkdtemp(dir) != NULL, "tmpdir");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CHECK(report_write_file(&rep, report_writer_find("json"), path, false) == 0, "write json");
	CHECK(report_write_file(&rep, report_writer_find("json"), path, false) == -EEXIST,
	      "existing report not overwritten");
	CHECK(report_write_file(&rep, report_writer_find("json"), path, true) == 0, "overwrite when asked");
	CHECK(report_read(path, &back) == 0, "read back");
	CHECK(back.n == rep.n, "same result count");
	for (size_t i = 0; i < back.n && i < rep.n; i++) {
		CHECK(!strcmp(back.r[i].name, rep.r[i].name) && back.r[i].mode == rep.r[i].mode,
		      "result %zu identity", i);
		CHECK(back.r[i].nsamples == rep.r[i].nsamples &&
		      fabs(back.r[i].s.median - rep.r[i].s.median) <= 1e-9 * fabs(rep.r[i].s.median),
		      "result %zu samples round trip", i);
	}
	CHECK(fabs(back.cal.ticks_per_cycle - rep.cal.ticks_per_cycle) < 1e-9, "calibration round trip");
	report_free(&back);
	unlink(path);
	rmdir(dir);
	report_free(&rep);
	topo_close(t);
	return test_done("runner");
}
