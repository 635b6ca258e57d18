/* SPDX-License-Identifier: MIT */
/* test-locks.c - every lock of the lock family excludes: 2 threads take it
 * a million times in all around a non-atomic increment (load, add, store)
 * of a shared counter, and the final count is exact; the read sides of the
 * qrwlock and the seqlock never see a writer's pair half-written; each
 * reference count keeps its semantics (probe verify: saturation, dec-and-
 * test at zero) and loses no get or put from 2 threads; the local-only
 * analogs pass their own semantic checks.
 * Exit 0 pass, 1 fail, 77 skip (fewer than 2 allowed PUs).
 */
#include "harness.h"

#include <sched.h>
#include <string.h>

#include "common.h"
#include "locks.h"
#include "probes.h"

#define NTHREADS 2
#define ITERS 500000	/* per thread: 1,000,000 acquisitions in all */
#define REF_ITERS 200000
#define WRITES 200000
#define MIN_HANDOVERS 1000

/* A planted lock that alternates its two threads strictly: each waits for
 * its turn and gives the turn to the other (thread numbers by arrival). */
static unsigned pp_arrived;
static __thread int pp_me = -1;

static void pp_lock(volatile void *l)
{
	volatile int *turn = l;

	if (pp_me < 0)
		pp_me = (int)__atomic_fetch_add(&pp_arrived, 1, __ATOMIC_RELAXED) % 2;
	while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != pp_me)
		sched_yield();
}

static void pp_unlock(volatile void *l)
{
	__atomic_store_n((volatile int *)l, 1 - pp_me, __ATOMIC_RELEASE);
}

/* The hand-over pass: 0 alone, about 1 for a strict ping-pong. */
static void check_handover(void)
{
	struct locks_handover h;
	int err;

	err = locks_handover_run("spin_lock", 1, NULL, 100000, 0, &h);
	CHECK(!err && h.acquisitions == 100000 && h.share == 0 && h.depth == 0,
	      "spin_lock, 1 thread: %llu acquisitions, hand-over share %.3f, depth %.3f (expected "
	      "100000, 0, 0)", (unsigned long long)h.acquisitions, h.share, h.depth);
	CHECK(h.queued, "spin_lock is a queued lock");
	err = locks_handover_run_fn(pp_lock, pp_unlock, 2, NULL, 20000, 0, &h);
	CHECK(!err && h.acquisitions >= 20000 && h.share > 0.99,
	      "ping-pong, 2 threads: %llu acquisitions, hand-over share %.4f (expected > 0.99)",
	      (unsigned long long)h.acquisitions, h.share);
	CHECK(!h.queued, "a planted lock is not said to queue");
	err = locks_handover_run("osq_lock", 2, NULL, 1ull << 40, 0.2, &h);
	CHECK(!err && h.share >= 0 && h.share <= 1 && h.depth >= 0 && h.depth <= 1,
	      "osq_lock, 2 threads: share %.3f and depth %.3f within [0, 1]", h.share, h.depth);
	printf("osq_lock, 2 threads: %llu acquisitions, hand-over share %.3f, queue depth %.3f\n",
	       (unsigned long long)h.acquisitions, h.share, h.depth);
	CHECK(locks_handover_run("read_lock", 2, NULL, 10, 0, &h) == -EINVAL,
	      "the hand-over pass takes only a lock that excludes");
}

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
	int64_t lost, got;
	uint64_t reads = 0;
	size_t nlock = 0, nref = 0;

	log_quiet = 1;
	if (npu < 2) {
		printf("test-locks: %d PU allowed, exclusion needs 2: skipped\n", npu);
		return TEST_SKIP;
	}
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		bool lock = !strcmp(p->family, "lock"), ref = !strcmp(p->family, "refcount");

		if (!lock && !ref)
			continue;
		nlock += lock;
		nref += ref;
		CHECK(p->twin && probe_find(p->twin), "%s has a twin that exists", p->name);
		if (p->unsupported) {
			printf("%s: unsupported here (%s)\n", p->name, p->unsupported);
			continue;
		}
		CHECK(p->verify && p->verify() == 0, "%s: verify()", p->name);
		if (locks_excludes(p->name)) {
			uint64_t ho = 0;
			int tries = 0;

			/* a count proves exclusion only if the lock changed
			 * hands: on a busy machine the two threads may not run
			 * at once, so try again (the count must be exact every
			 * time) until they have contended */
			do {
				got = locks_exclusion_run_ho(p->name, NTHREADS, ITERS, &ho);
				CHECK(got == (int64_t)NTHREADS * ITERS,
				      "%s: %u threads x %d protected increments = %lld (expected %lld)",
				      p->name, NTHREADS, ITERS, (long long)got,
				      (long long)NTHREADS * ITERS);
			} while (got == (int64_t)NTHREADS * ITERS && ho < MIN_HANDOVERS && ++tries < 5);
			/* a note, not a check: whether the scheduler ran the
			 * two threads at once is not deterministic */
			printf("%s: %llu hand-overs between the threads%s\n", p->name,
			       (unsigned long long)ho,
			       ho < MIN_HANDOVERS ? " (never contended: the count proves little)" : "");
		}
	}
	/* osq_lock's unqueue path: with a budget of one poll nearly every
	 * waiter gives up, unlinks itself and queues again; still exclusive */
	if (probe_find("osq_lock") && !probe_find("osq_lock")->unsupported) {
		uint64_t unq = locks_osq_unqueued();

		locks_osq_budget(1);
		got = locks_exclusion_run("osq_lock", NTHREADS, ITERS);
		/* 4 threads: a waiter with both a predecessor and a successor
		 * unlinks itself (steps A-C), on 2 PUs oversubscribed */
		CHECK(locks_exclusion_run("osq_lock", 4, ITERS / 5) == 4 * (ITERS / 5),
		      "osq_lock, spin budget 1: 4 threads x %d protected increments", ITERS / 5);
		locks_osq_budget(0);
		unq = locks_osq_unqueued() - unq;
		CHECK(got == (int64_t)NTHREADS * ITERS,
		      "osq_lock, spin budget 1: %u threads x %d protected increments = %lld",
		      NTHREADS, ITERS, (long long)got);
		printf("osq_lock, spin budget 1: %llu unqueues\n", (unsigned long long)unq);
	}
	if (probe_find("osq_lock") && !probe_find("osq_lock")->unsupported)
		check_handover();
	CHECK(nlock >= 20, "lock family has its %zu variants", nlock);
	CHECK(nref >= 5, "refcount family has its %zu variants", nref);
	if (!probe_find("refcount_get_put") || probe_find("refcount_get_put")->unsupported)
		return test_done("test-locks");

	/* shared counts: every get and put of two threads kept */
	static const char *const shared[] = { "refcount_get_put", "atomic_get_put",
					      "lockref_get_put", "locked_get_put" };
	for (size_t i = 0; i < ARRAY_SIZE(shared); i++) {
		got = locks_ref_run(shared[i], NTHREADS, REF_ITERS);
		CHECK(got == 1, "%s: %u threads x %d gets then puts leave the owner's 1 (got %lld)",
		      shared[i], NTHREADS, REF_ITERS, (long long)got);
	}
	CHECK(locks_ref_run("spin_lock", 2, 10) == -EINVAL, "a lock is not a reference count");

	/* readers against a writer */
	got = locks_reader_run("write_lock", NTHREADS, WRITES, &reads);
	CHECK(got == 0, "read_lock: %lld of %llu reads saw a half-written pair", (long long)got,
	      (unsigned long long)reads);
	got = locks_reader_run("write_seqlock", NTHREADS, WRITES, &reads);
	CHECK(got == 0, "read_seqcount: %lld of %llu reads saw a half-written pair", (long long)got,
	      (unsigned long long)reads);
	CHECK(locks_reader_run("spin_lock", 2, 10, &reads) == -EINVAL,
	      "the reader check takes only a reader-writer lock's writer");

	CHECK(locks_exclusion_run("preempt_disable", 2, 10) == -EINVAL,
	      "a local-only lock is refused by the exclusion harness");
	CHECK(locks_exclusion_run("no_such_lock", 2, 10) == -EINVAL, "an unknown lock is refused");

	/* Control, not a check (it cannot be made deterministic): without a
	 * lock the same increments lose updates when the threads overlap. */
	lost = (int64_t)NTHREADS * ITERS - locks_exclusion_run(NULL, NTHREADS, ITERS);
	printf("control: without a lock %lld of %u increments were lost%s\n", (long long)lost,
	       NTHREADS * ITERS, lost ? "" : " (the threads did not overlap this time)");
	return test_done("test-locks");
}
