/* SPDX-License-Identifier: MIT */
/* test-locks.c - every lock of the lock family excludes: threads increment
 * a counter non-atomically (load, add, store) under the lock and the final
 * count is exact; the local-only analogs pass their own semantic checks.
 * Exit 0 pass, 1 fail, 77 skip (fewer than 2 allowed PUs).
 */
#include "harness.h"

#include <sched.h>
#include <string.h>

#include "common.h"
#include "locks.h"
#include "probes.h"

#define ITERS 50000

static int allowed_pus(void)
{
	cpu_set_t s;

	if (sched_getaffinity(0, sizeof(s), &s))
		return 1;
	return CPU_COUNT(&s);
}

int main(void)
{
	int npu = allowed_pus();
	unsigned nthreads = npu > 4 ? 4 : (unsigned)npu;
	int64_t lost;
	size_t nlock = 0;

	log_quiet = 1;
	if (npu < 2) {
		printf("test-locks: %d PU allowed, exclusion needs 2: skipped\n", npu);
		return TEST_SKIP;
	}
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];

		if (strcmp(p->family, "lock"))
			continue;
		nlock++;
		CHECK(p->twin && probe_find(p->twin), "%s has a twin that exists", p->name);
		if (p->unsupported) {
			printf("%s: unsupported here (%s)\n", p->name, p->unsupported);
			continue;
		}
		CHECK(p->verify && p->verify() == 0, "%s: verify()", p->name);
		if (locks_excludes(p->name)) {
			int64_t got = locks_exclusion_run(p->name, nthreads, ITERS);

			CHECK(got == (int64_t)nthreads * ITERS,
			      "%s: %u threads x %d protected increments = %lld (expected %lld)",
			      p->name, nthreads, ITERS, (long long)got, (long long)nthreads * ITERS);
		}
	}
	CHECK(nlock >= 14, "lock family has its %zu variants", nlock);
	CHECK(locks_exclusion_run("preempt_disable", 2, 10) == -EINVAL,
	      "a local-only lock is refused by the exclusion harness");
	CHECK(locks_exclusion_run("no_such_lock", 2, 10) == -EINVAL, "an unknown lock is refused");

	/* Control, not a check (it cannot be made deterministic): without a
	 * lock the same increments lose updates when the threads overlap. */
	lost = (int64_t)nthreads * 1000000 - locks_exclusion_run(NULL, nthreads, 1000000);
	printf("control: without a lock %lld of %u increments were lost%s\n", (long long)lost,
	       nthreads * 1000000, lost ? "" : " (the threads did not overlap this time)");
	return test_done("test-locks");
}
