/* test-repro-models.c - the arithmetic and the access orders of three
 * reproductions, on synthetic inputs (no timing thresholds):
 *  - 2016 concurrent slab: per-phase averages exclude the barrier waits
 *    (a thread that finishes early waits for the slow one; the old
 *    arithmetic, end of alloc = start of free, counted that wait as alloc);
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "harness.h"
#include "repro.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

/* Two threads of 10 ops: thread 0 allocates in 100 ticks and waits 900 at
 * the barrier for thread 1 (1000 ticks); then thread 0 frees in 200 and
 * thread 1 in 400. Per op: alloc (10 + 100) / 2 = 55, free (20 + 40) / 2 = 30.
 * The old arithmetic gave alloc (100 + 900 + 1000) / 20 = 100. */
static void test_conc_average(void)
{
	struct conc_stamps st[2] = {
		{ .alloc_start = 1000, .alloc_end = 1100, .free_start = 2005, .free_end = 2205 },
		{ .alloc_start = 1003, .alloc_end = 2003, .free_start = 2004, .free_end = 2404 },
	};
	struct conc_stamps bad = { .alloc_start = 10, .alloc_end = 5, .free_start = 20, .free_end = 30 };
	double a = -1, f = -1;

	CHECK(conc_average(st, 2, 10, &a, &f) == 0, "two threads average");
	CHECK(near(a, 55.0), "alloc excludes the barrier wait: %.3f ticks/op, expected 55", a);
	CHECK(near(f, 30.0), "free excludes the barrier wait: %.3f ticks/op, expected 30", f);
	CHECK(!near(a, 100.0), "not the old arithmetic (alloc up to the other barrier): %.3f", a);
	CHECK(conc_average(st, 1, 10, &a, &f) == 0 && near(a, 10.0) && near(f, 20.0),
	      "one thread: %.3f/%.3f, expected 10/20", a, f);
	CHECK(conc_average(st, 2, 0, &a, &f) == -EINVAL, "no ops refused");
	CHECK(conc_average(st, 0, 10, &a, &f) == -EINVAL, "no thread refused");
	CHECK(conc_average(&bad, 1, 10, &a, &f) == -ERANGE, "stamps out of order refused");
}

int main(void)
{
	log_quiet = 1;
	test_conc_average();
	return test_done("repro-models");
}
