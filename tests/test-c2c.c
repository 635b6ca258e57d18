/* SPDX-License-Identifier: MIT */
/* test-c2c.c - the c2c pair plan on machines we do not have (hwloc
 * synthetic topologies): one pair per class present, the classes right,
 * absent classes said, and a 1024-PU machine planned in well under a
 * second with the number of pairs bounded by the number of classes.
 * Exit 0 pass, 1 fail.
 */
#include "c2c.h"
#include "harness.h"

#include <stdlib.h>
#include <time.h>

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

int main(void)
{
	double dt;

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
