/* SPDX-License-Identifier: MIT */
/* test-c2c.c - the c2c pair plan on machines we do not have (hwloc
 * synthetic topologies): one pair per class present, the classes right,
 * absent classes said, and a 1024-PU machine planned in well under a
 * second with the number of pairs bounded by the number of classes. And
 * the section: rows filled into it, written, attached back (--c2c) and
 * written again the same, read by the writers' view.
 * Exit 0 pass, 1 fail.
 */
#include "c2c.h"
#include "harness.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Plan on a synthetic topology; check each pair's class and the absent set
 * against `want` (classes expected present). Returns the plan's time. */
static double check_plan(const char *syn, unsigned want, bool all, size_t want_pairs)
{
	struct topo *t;
	struct c2c_pair *p = NULL;
	size_t n = 0;
	bool absent[PAIR__COUNT];
	double t0, dt = 0;

	if (topo_open(&t, syn, NULL)) {
		CHECK(0, "topo_open '%s'", syn);
		return 0;
	}
	t0 = now_s();
	CHECK(c2c_plan(t, all, &p, &n, absent) == 0, "%s: plan", syn);
	dt = now_s() - t0;
	CHECK(n == want_pairs, "%s: %zu pairs, want %zu", syn, n, want_pairs);
	for (int c = 0; c < PAIR__COUNT; c++)
		CHECK(absent[c] == !(want & (1u << c)), "%s: class %s %s", syn,
		      topo_pair_class_name((enum pair_class)c), absent[c] ? "absent" : "present");
	for (size_t i = 0; i < n; i++) {
		CHECK(p[i].a != p[i].b, "%s: pair %zu of two PUs", syn, i);
		CHECK(topo_classify(t, p[i].a, p[i].b) == p[i].cls, "%s: pair %d,%d is %s", syn,
		      p[i].a, p[i].b, topo_pair_class_name(p[i].cls));
		if (!all && i)
			CHECK(p[i - 1].cls < p[i].cls, "%s: one pair per class, closest first", syn);
	}
	free(p);
	topo_close(t);
	return dt;
}

#define ALL_CLASSES ((1u << PAIR__COUNT) - 1)

/* Two methods on PUs 2 and 5, one row without samples (no entry). */
static void check_section(void)
{
	struct calibration cal = { .timer_hz = 2e9, .ticks_per_cycle = 0.5, .core_hz = 4e9, .cycle_source = "synthetic",
				   .timer = "synthetic timer", .cpu_os = 3, .mul_expected = 3, .mul_cycles = 3.5,
				   .load_expected = 4, .load_cycles = 4, .emulation = "" };
	int cpus[] = { 2, 5 };
	struct c2c_where w = { .cpus = cpus, .ncpus = 2, .summary = "2 PUs" };
	struct c2c_row rows[3] = {
		{ .cls = PAIR_L3, .a = 2, .b = 5, .m = C2C_CMPXCHG, .n = 10, .s = { .median = 200, .p10 = 190, .p90 = 220 } },
		{ .cls = PAIR_L3, .a = 2, .b = 5, .m = C2C_LOADSTORE, .n = 10, .s = { .median = 300 },
		  .store_after_read = 150, .store_local = 50 },
		{ .cls = PAIR_SMT, .a = 2, .b = 5, .m = C2C_LOADSTORE, .n = 0, .timed_out = true },
	};
	bool absent[PAIR__COUNT] = { [PAIR_NUMA] = true };
	char path[] = "/tmp/atomcost-test-c2c-XXXXXX";
	struct c2c_out o;
	struct report rep;
	json_t *j, *back;
	const double *ls;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && c2c_out_fill(&o, &cal, &w, rows, 3, absent, 3, true) == 0, "section filled");
	CHECK(o.npairs == 2 && o.nabsent == 1 && !strcmp(o.absent[0], "numa"), "no entry without samples: %zu",
	      o.npairs);
	CHECK(!strcmp(o.cal.cycle_source, "synthetic") && o.cal.cpu_os == 3 && o.cal.mul_latency == 3,
	      "its calibration as written");
	j = c2c_out_json(&o);
	CHECK(json_dump_file(j, path, JSON_INDENT(1)) == 0, "written to %s", path);
	report_init(&rep);
	CHECK(report_attach_c2c(&rep, path) == 0 && rep.c2c, "attached back");
	back = rep.c2c ? c2c_out_json(rep.c2c) : NULL;
	CHECK(json_equal(j, back), "what is attached is what was written");
	ls = rep.c2c ? rep.c2c->matrix.v[C2C_LOADSTORE] : NULL;
	CHECK(ls && rep.c2c->npairs == 2 && fabs(rep.c2c->pairs[0].ns.median - 100) < 1e-9 &&
		      rep.c2c->matrix.cpus[1] == 5 && fabs(ls[1] - 150) < 1e-9 && isnan(ls[0]),
	      "round trips in ns, by CPU, per method");
	CHECK(o.npairs == 2 && strstr(o.pairs[1].transfers, "upgrades (measured") &&
	      !strstr(o.pairs[0].transfers, "measured"),
	      "the load-store entry says what was measured: %s", o.npairs == 2 ? o.pairs[1].transfers : "");
	json_decref(j);
	json_decref(back);
	c2c_out_free(&o);
	report_free(&rep);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

/* What a store right after the read miss says (ticks; round trip 1000,
 * one way 500): its cost over a local store's against a transfer. */
static void check_seen(void)
{
	const char *x = c2c_loadstore_seen(110, 100, 1000), *u = c2c_loadstore_seen(500, 100, 1000);

	CHECK(x && strstr(x, "local store's"), "10 of 500: the read miss took the line exclusive (%s)",
	      x ? x : "NULL");
	CHECK(u && strstr(u, "upgrades"), "400 of 500: the store upgraded a shared line (%s)", u ? u : "NULL");
	CHECK(!c2c_loadstore_seen(250, 100, 1000), "150 of 500: between, cannot tell");
	CHECK(!c2c_loadstore_seen(110, 0, 1000) && !c2c_loadstore_seen(0, 100, 1000),
	      "not measured: nothing said");
	CHECK(strlen(x ? x : "") < sizeof(((struct c2c_pair_out *)0)->transfers) &&
	      strlen(u ? u : "") < sizeof(((struct c2c_pair_out *)0)->transfers) &&
	      strlen(c2c_method_transfers(C2C_LOADSTORE)) <
		      sizeof(((struct c2c_pair_out *)0)->transfers),
	      "the texts fit the entry's field");
}

int main(void)
{
	double dt;

	check_seen();
	check_section();

	/* 2 packages x 2 NUMA x 16 cores x 2 SMT: no shared L2/L3 objects */
	check_plan("pack:2 numa:2 core:16 pu:2", ALL_CLASSES & ~(1u << PAIR_L2 | 1u << PAIR_L3), false, 4);
	/* two L3s per NUMA node: a same-node pair sharing no cache exists */
	check_plan("pack:2 numa:2 l3:2 l2:2 core:2 pu:2", ALL_CLASSES, false, PAIR__COUNT);
	check_plan("pack:1 core:2 pu:1", 1u << PAIR_NUMA, false, 1);
	check_plan("pack:1 core:4 pu:1", 1u << PAIR_NUMA, true, 6);	/* every pair */
	/* 1024 PUs: the default plan is one pair per class, fast */
	dt = check_plan("pack:4 numa:2 l3:4 l2:8 core:2 pu:2", ALL_CLASSES, false, PAIR__COUNT);
	CHECK(dt < 1.0, "1024 PUs planned in %.3f s (< 1 s)", dt);
	return test_done("c2c");
}
