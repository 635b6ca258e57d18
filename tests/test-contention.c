/* SPDX-License-Identifier: MIT */
/* test-contention.c - the contention runner's arithmetic and planning on
 * synthetic inputs (fairness, overlap, slot offsets, --sharing parsing,
 * placement on synthetic topologies with 2 packages, SMT and 4 NUMA nodes,
 * and a machine without SMT), --threads/--cs-work sweep lists and the plan of
 * every point of a sweep, then one short real run of 2 threads and one
 * sweep of 1,2 threads (skipped when fewer than 2 PUs are allowed). No timing thresholds: the machine is
 * shared and noisy.
 * Exit 0 pass, 1 fail, 77 skip.
 */
#include "harness.h"

#include <math.h>
#include <sched.h>
#include <string.h>

#include "common.h"
#include "contention.h"
#include "probes.h"
#include "report.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_fairness(void)
{
	uint64_t eq[4] = { 100, 100, 100, 100 }, half[2] = { 50, 150 }, zero[2] = { 0, 0 };
	uint64_t one[1] = { 7 }, three[3] = { 10, 20, 30 };

	CHECK(near(contention_fairness(eq, 4), 0), "equal counts: fairness cv 0");
	CHECK(near(contention_fairness(half, 2), 0.5), "50/150: cv 0.5 (got %g)",
	      contention_fairness(half, 2));
	CHECK(near(contention_fairness(three, 3), sqrt(200.0 / 3) / 20),
	      "10/20/30: cv sqrt(200/3)/20 (got %g)", contention_fairness(three, 3));
	CHECK(near(contention_fairness(zero, 2), 0), "no ops: cv 0, not NaN");
	CHECK(near(contention_fairness(one, 1), 0), "one thread: cv 0");
}

static void test_overlap(void)
{
	uint64_t s1[2] = { 0, 5 }, e1[2] = { 10, 15 };
	uint64_t s2[2] = { 3, 3 }, e2[2] = { 9, 9 };
	uint64_t s3[2] = { 0, 20 }, e3[2] = { 10, 30 };
	uint64_t s4[3] = { 0, 2, 4 }, e4[3] = { 10, 12, 8 };
	uint64_t s5[1] = { 4 }, e5[1] = { 9 };

	CHECK(near(contention_overlap(s1, e1, 2), 5.0 / 15), "[0,10) [5,15): 5/15 (got %g)",
	      contention_overlap(s1, e1, 2));
	CHECK(near(contention_overlap(s2, e2, 2), 1), "identical intervals: 1");
	CHECK(near(contention_overlap(s3, e3, 2), 0), "disjoint intervals: 0");
	CHECK(near(contention_overlap(s4, e4, 3), 4.0 / 12), "3 threads: [4,8) of [0,12) (got %g)",
	      contention_overlap(s4, e4, 3));
	CHECK(near(contention_overlap(s5, e5, 1), 1), "one thread: 1");
}

static void test_slots(void)
{
	CHECK(contention_slot_offset(SHARING_TRUE, 3, 4, 8, 64, 8192) == 0, "true sharing: same word");
	CHECK(contention_slot_offset(SHARING_FALSE, 1, 2, 8, 64, 8192) == 8,
	      "false sharing, 8-byte words: thread 1 at 8");
	CHECK(contention_slot_offset(SHARING_FALSE, 3, 4, 16, 64, 8192) == 48,
	      "false sharing, 16-byte words: thread 3 at 48");
	CHECK(contention_slot_offset(SHARING_FALSE, 1, 2, 40, 64, 8192) == -EINVAL,
	      "a 40-byte lock (pthread_mutex_t, padded to 64) cannot false-share a 64-byte line");
	CHECK(contention_slot_offset(SHARING_FALSE, 8, 9, 8, 64, 8192) == -EINVAL,
	      "9 threads x 8 bytes do not fit a 64-byte line");
	CHECK(contention_slot_offset(SHARING_NONE, 2, 4, 8, 64, 8192) == 16384,
	      "no sharing: one region per thread");
}

static void test_parse(void)
{
	unsigned m = 0;

	CHECK(!contention_parse_sharing(NULL, &m) && m == 7, "no --sharing: all three cases");
	CHECK(!contention_parse_sharing("none,true", &m) &&
	      m == ((1u << SHARING_NONE) | (1u << SHARING_TRUE)), "'none,true'");
	CHECK(contention_parse_sharing("true,maybe", &m) == -EINVAL, "'maybe' is refused");
	CHECK(contention_parse_sharing(",", &m) == -EINVAL, "an empty list is refused");
	CHECK(!strcmp(contention_sharing_pattern(SHARING_FALSE), "false-share"),
	      "false sharing results carry pattern 'false-share'");
}

/* 2 packages x 2 NUMA nodes x 2 L3 x 2 L2 x 2 cores x 2 SMT: every class. */
#define SYN_ALL "pack:2 numa:2 l3:2 l2:2 core:2 pu:2"

static void test_plan(void)
{
	struct topo *t;
	int os[8];

	CHECK(!topo_open(&t, SYN_ALL, NULL), "open '%s'", SYN_ALL);
	CHECK(topo_numa_count(t) == 4, "4 NUMA nodes (got %d)", topo_numa_count(t));
	for (int c = 0; c < PAIR__COUNT; c++) {
		const char *name = topo_pair_class_name((enum pair_class)c);
		int err = contention_plan(t, name, 2, os);

		CHECK(!err && topo_classify(t, os[0], os[1]) == (enum pair_class)c,
		      "placement %s: 2 threads form a %s pair (err %d, cpus %d,%d)", name, name, err,
		      os[0], os[1]);
	}
	CHECK(!contention_plan(t, "cross", 4, os) && topo_classify(t, os[0], os[3]) == PAIR_CROSS,
	      "placement cross, 4 threads: each crosses packages with thread 0");
	CHECK(!contention_plan(t, NULL, 4, os) && topo_classify(t, os[0], os[1]) == PAIR_CROSS,
	      "default placement (spread): threads 0 and 1 on different packages");
	CHECK(contention_plan(t, "smt", 3, os) == -ENOTSUP,
	      "smt with 3 threads on 2-way SMT: absent -> -ENOTSUP (exit 4)");
	topo_close(t);

	CHECK(!topo_open(&t, "pack:1 core:4 pu:1", NULL), "open a machine without SMT");
	CHECK(contention_plan(t, "smt", 2, os) == -ENOTSUP, "no SMT: placement smt is absent");
	CHECK(contention_plan(t, "l3", 2, os) == -ENOTSUP, "no L3 object: placement l3 is absent");
	CHECK(!contention_plan(t, "list:3,1", 2, os) && os[0] == 3 && os[1] == 1, "list:3,1");
	CHECK(contention_plan(t, "list:9", 1, os) == -EINVAL, "list naming a missing PU: -EINVAL");
	topo_close(t);
}

static void test_sweep_parse(void)
{
	struct run_sweep w;

	CHECK(contention_parse_sweep("--threads", "2", 1024, false, &w) == 0 && w.n == 1 && w.v[0] == 2,
	      "sweep '2': one value");
	CHECK(contention_parse_sweep("--threads", "1,2,4", 1024, false, &w) == 0 && w.n == 3 &&
	      w.v[0] == 1 && w.v[1] == 2 && w.v[2] == 4, "sweep '1,2,4': three values");
	CHECK(contention_parse_sweep("--threads", "1-3,8", 1024, false, &w) == 0 && w.n == 4 &&
	      w.v[2] == 3 && w.v[3] == 8, "sweep '1-3,8': 1 2 3 8");
	CHECK(contention_parse_sweep("--cs-work", "0,50", 1000000, true, &w) == 0 && w.n == 2 &&
	      w.v[0] == 0, "work sweep '0,50': 0 allowed");
	CHECK(contention_parse_sweep("--threads", "0", 1024, false, &w) == -EINVAL, "0 threads refused");
	CHECK(contention_parse_sweep("--threads", "4-2", 1024, false, &w) == -EINVAL, "descending range refused");
	CHECK(contention_parse_sweep("--threads", "2,1", 1024, false, &w) == -EINVAL, "descending list refused");
	CHECK(contention_parse_sweep("--threads", "2,2", 1024, false, &w) == -EINVAL, "repeated value refused");
	CHECK(contention_parse_sweep("--threads", "1,", 1024, false, &w) == -EINVAL, "trailing comma refused");
	CHECK(contention_parse_sweep("--threads", "x", 1024, false, &w) == -EINVAL, "garbage refused");
	CHECK(contention_parse_sweep("--threads", "2000", 1024, false, &w) == -EINVAL, "over the maximum refused");
	CHECK(contention_parse_sweep("--threads", "1-17", 1024, false, &w) == -EINVAL, "more than 16 points refused");
}

/* Every point of a sweep has its plan on a synthetic machine: spread puts
 * the threads on distinct PUs. */
static void test_sweep_plans(void)
{
	struct topo *t;
	unsigned counts[] = { 1, 2, 4, 8 };

	CHECK(!topo_open(&t, SYN_ALL, NULL), "open '%s'", SYN_ALL);
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		int os[8];
		bool distinct = true;

		CHECK(contention_plan(t, NULL, counts[i], os) == 0, "sweep point %u threads: planned",
		      counts[i]);
		for (unsigned a = 0; a < counts[i]; a++)
			for (unsigned b = a + 1; b < counts[i]; b++)
				distinct &= os[a] != os[b];
		CHECK(distinct, "sweep point %u threads: distinct PUs", counts[i]);
	}
	topo_close(t);
}

static cpu_set_t start_set;	/* the allowed PUs at start */

/* A real sweep of 1 and 2 threads: one row per probe, case and point, the
 * point in the pattern, twins paired within a point. Structure only. */
static void test_real_sweep(void)
{
	const struct probe *list[2] = { probe_find("spin_lock"), probe_find("spin_lock_xchg_unlock") };
	struct run_opts o;
	struct report rep;
	struct topo *t;
	cpu_set_t s;
	int err;

	/* test_run left this thread pinned to its first PU: allow all again */
	if (sched_setaffinity(0, sizeof(start_set), &start_set) ||
	    sched_getaffinity(0, sizeof(s), &s) || CPU_COUNT(&s) < 2 || probe_unsupported(list[0])) {
		printf("real sweep: fewer than 2 PUs allowed or no lock probes here: skipped\n");
		return;
	}
	if (topo_open(&t, NULL, NULL))
		return;
	runner_default_opts(&o);
	o.max_seconds = 0.02;
	o.sharing = "true";
	CHECK(contention_parse_sweep("--threads", "1,2", 1024, false, &o.threads_sweep) == 0, "sweep 1,2");
	o.threads = 2;
	report_init(&rep);
	err = contention_run(t, &o, list, 2, &rep);
	CHECK(!err && rep.n == 4, "2 probes x 2 points: 4 rows (err %d, n %zu)", err, rep.n);
	for (size_t i = 0; i < rep.n; i++) {
		const struct contention_part *c = result_contention(&rep.r[i]);
		char want[32];

		if (!c)
			continue;
		snprintf(want, sizeof(want), "true-share@%dt", c->threads);
		CHECK(!strcmp(rep.r[i].pattern, want) && (int)c->nper == c->threads,
		      "row %zu: pattern %s (expected %s), %zu threads' details", i, rep.r[i].pattern, want,
		      c->nper);
		CHECK(rep.r[i].has_ratio, "row %zu (%s, %d threads): paired with its twin", i,
		      rep.r[i].name, c->threads);
	}
	/* the report's sweep groups: one per probe, its 1- and 2-thread rows */
	for (size_t i = 0, groups = 0; i < rep.n; i++) {
		size_t members[CONTENTION_SWEEP_MAX], m = contention_sweep_group(&rep, i, members, 64);

		groups += m > 0;
		CHECK(!m || (m == 2 && !strcmp(rep.r[members[0]].name, rep.r[members[1]].name) &&
			     result_contention(&rep.r[members[1]])->threads == 2),
		      "row %zu: a group of its probe's 1- and 2-thread rows (got %zu rows)", i, m);
		if (i == rep.n - 1)
			CHECK(groups == 2, "2 sweep groups, one per probe (got %zu)", groups);
	}
	report_free(&rep);
	topo_close(t);
}

/* One short real run: structure only, never timing. */
static void test_run(void)
{
	const struct probe *list[] = { probe_find("atomic_inc") };
	struct run_opts o;
	struct report rep;
	struct topo *t;
	cpu_set_t s;
	int err;

	if (sched_getaffinity(0, sizeof(s), &s) || CPU_COUNT(&s) < 2) {
		printf("real run: fewer than 2 PUs allowed: skipped\n");
		return;
	}
	if (topo_open(&t, NULL, NULL))
		return;
	runner_default_opts(&o);
	o.threads = 2;
	o.max_seconds = 0.02;
	o.placement = "spread";
	report_init(&rep);
	err = contention_run(t, &o, list, 1, &rep);
	CHECK(!err && rep.n == 3, "2 threads x 3 sharing cases: 3 results (err %d, n %zu)", err, rep.n);
	for (size_t i = 0; i < rep.n; i++) {
		const struct contention_part *c = result_contention(&rep.r[i]);
		long long sum = 0;

		CHECK(c && c->nper == 2, "%s: per-thread details for 2 threads", rep.r[i].pattern);
		for (size_t k = 0; c && k < c->nper; k++)
			sum += c->per[k].ops;
		CHECK(c && c->total_ops > 0 && sum == c->total_ops, "%s: per-thread ops add up to total_ops",
		      rep.r[i].pattern);
		CHECK(c && c->overlap >= 0 && c->overlap <= 1, "%s: overlap %g in [0,1]", rep.r[i].pattern,
		      c ? c->overlap : NAN);
		CHECK(rep.r[i].nsamples > 0, "%s: chunk samples kept", rep.r[i].pattern);
	}
	report_free(&rep);
	topo_close(t);
}

int main(void)
{
	log_quiet = 1;
	sched_getaffinity(0, sizeof(start_set), &start_set);
	test_fairness();
	test_overlap();
	test_slots();
	test_parse();
	test_plan();
	test_run();
	test_sweep_parse();
	test_sweep_plans();
	test_real_sweep();
	return test_done("test-contention");
}
