/* SPDX-License-Identifier: MIT */
/* test-atomicity.c - two pinned threads hammer one word. Through the atomic
 * primitive the total is exact; through the non-atomic twin updates are
 * lost, which proves the threads really overlapped (so the exact total is
 * not luck). Skips (77) where fewer than 2 PUs are allowed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "harness.h"
#include "probes.h"
#include "topo.h"

#define ADDS 1000000

enum op { OP_XADD, OP_INC, OP_CMPXCHG_LOOP, OP_CX128_LOOP, OP_INC_NL, OP_ADD_NL };

static struct topo *topo;
static int cpus[2];
static pthread_barrier_t barrier;
static uint64_t word __attribute__((aligned(64)));
static uint64_t pair[2] __attribute__((aligned(64)));
static enum op cur;

static void *worker(void *arg)
{
	int idx = (int)(intptr_t)arg;

	if (topo_bind_thread(topo, cpus[idx]) < 0)
		return (void *)1;
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < ADDS; i++) {
		switch (cur) {
		case OP_XADD:
			arch_xadd(&word, 1);
			break;
		case OP_INC:
			arch_inc(&word);
			break;
		case OP_CMPXCHG_LOOP: {
			uint64_t old = arch_load(&word);

			while (!arch_try_cmpxchg(&word, &old, old + 1))
				;
			break;
		}
		case OP_CX128_LOOP: {
#if ARCH_HAS_CMPXCHG128
			uint64_t old[2] = { arch_load(&pair[0]), arch_load(&pair[1]) };

			while (!arch_cmpxchg128(pair, old, old[0] + 1, old[1] + 2))
				;
#endif
			break;
		}
		case OP_INC_NL:
			arch_inc_nl(&word);
			break;
		case OP_ADD_NL:
			arch_add_nl(&word, 1);
			break;
		}
	}
	return NULL;
}

/* ---- every counter of the probe table (probe.counts), through its own
 * timed kernel: a new counter probe is checked without editing this file */

#define KERNEL_ITERS 20000	/* x 64 ops per thread */

static const struct probe *cur_probe;
static uint64_t *kword;

static void *kernel_worker(void *arg)
{
	int idx = (int)(intptr_t)arg;
	struct probe_ctx ctx = { .mem = kword, .mem_size = 4096, .mode = MODE_LATENCY };

	if (topo_bind_thread(topo, cpus[idx]) < 0)
		return (void *)1;
	if (cur_probe->setup && cur_probe->setup(&ctx) < 0)
		return (void *)1;
	pthread_barrier_wait(&barrier);
	cur_probe->run[MODE_LATENCY](&ctx, KERNEL_ITERS);
	return NULL;
}

static uint64_t run_kernel(const struct probe *p)
{
	pthread_t t[2];
	void *r0, *r1;

	memset(kword, 0, 4096);
	cur_probe = p;
	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&t[0], NULL, kernel_worker, (void *)0);
	pthread_create(&t[1], NULL, kernel_worker, (void *)1);
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	pthread_barrier_destroy(&barrier);
	CHECK(!r0 && !r1, "%s: threads pinned", p->name);
	return kword[0];
}

static void check_counters(void)
{
	const uint64_t per_thread = (uint64_t)KERNEL_ITERS * UNROLL;
	size_t atomic = 0;

	kword = aligned_alloc(4096, 4096);
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		uint64_t want, got;

		if (!p->counts || !p->run[MODE_LATENCY] || probe_unsupported(p))
			continue;
		want = 2 * per_thread * p->counts;
		if (p->atomicity == ATOMICITY_ATOMIC) {
			got = run_kernel(p);
			CHECK(got == want, "%s (atomic): two threads keep every update (%llu of %llu)", p->name,
			      (unsigned long long)got, (unsigned long long)want);
			atomic++;
			continue;
		}
		/* retried: a 2-vCPU guest does not always run both at once */
		got = want;
		for (int tries = 0; tries < 20 && got == want; tries++)
			got = run_kernel(p);
		CHECK(got < want, "%s (%s): two threads lose updates (%llu of %llu kept)", p->name,
		      probe_atomicity_name(p->atomicity), (unsigned long long)got, (unsigned long long)want);
	}
	CHECK(atomic > 0, "the probe table declares atomic counters (%zu)", atomic);
	free(kword);
}

static uint64_t run(enum op op)
{
	pthread_t t[2];
	void *r0, *r1;

	word = 0;
	pair[0] = pair[1] = 0;
	cur = op;
	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&t[0], NULL, worker, (void *)0);
	pthread_create(&t[1], NULL, worker, (void *)1);
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	pthread_barrier_destroy(&barrier);
	CHECK(!r0 && !r1, "threads pinned");
	return op == OP_CX128_LOOP ? pair[0] : word;
}

int main(void)
{
	if (topo_open(&topo, NULL, NULL) < 0)
		return 1;
	if (topo_allowed_count(topo) < 2) {
		printf("atomicity: SKIP: needs 2 allowed PUs, have %d\n", topo_allowed_count(topo));
		topo_close(topo);
		return TEST_SKIP;
	}
	cpus[0] = topo_allowed_os(topo, 0);
	cpus[1] = topo_allowed_os(topo, 1);

	check_counters();
	CHECK(run(OP_XADD) == 2 * ADDS, "lock xadd: exact total");
	CHECK(run(OP_INC) == 2 * ADDS, "lock inc: exact total");
	CHECK(run(OP_CMPXCHG_LOOP) == 2 * ADDS, "lock cmpxchg loop: exact total");
#if ARCH_HAS_CMPXCHG128
	CHECK(run(OP_CX128_LOOP) == 2 * ADDS && pair[1] == 4 * ADDS, "cmpxchg128 loop: both halves exact");
#endif
#if ARCH_HAS_LOCAL_RMW
	/* The non-atomic twins must lose updates: retried, because a 2-vCPU
	 * guest does not always run both vCPUs at once. */
	{
		enum op nl[] = { OP_INC_NL, OP_ADD_NL };

		for (size_t k = 0; k < 2; k++) {
			uint64_t got = 2 * ADDS;

			for (int tries = 0; tries < 20 && got == 2 * ADDS; tries++)
				got = run(nl[k]);
			CHECK(got < 2 * ADDS, "non-atomic twin %zu loses updates (%llu of %d kept)", k,
			      (unsigned long long)got, 2 * ADDS);
			printf("non-atomic twin %zu: %llu of %d updates kept\n", k,
			       (unsigned long long)got, 2 * ADDS);
		}
	}
#endif
	topo_close(topo);
	return test_done("atomicity");
}
