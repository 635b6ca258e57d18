/* SPDX-License-Identifier: MIT */
/* test-litmus.c - store buffering (SB), the case a full barrier exists for:
 * two pinned threads, each stores its flag then reads the other's. Without
 * a barrier x86-64 (TSO) and arm64 let both reads return the old values
 * (each load passes its own pending store); with smp_mb() (x86 `lock addl
 * $0,-4(%rsp)`, arm64 `dmb ish`), mb() (`mfence`, `dsb sy`) or a store by
 * xchg (x86's smp_store_mb) that outcome must never be seen, which proves
 * the barrier probes (probes/ordering.c) order what they claim.
 *
 * Round r: each thread announces r and waits for the other's announcement,
 * stores r into its flag, orders (or not), reads the other's flag: r-1 is
 * the old value. Both old in one round is the SB outcome. The no-barrier
 * half must SEE it, but a 2-vCPU guest does not always run both threads at
 * once: it loops longer (bounded) and skips that half, never fails it, when
 * the reordering does not show; the barrier halves fail on a single one.
 * Skips (77) where fewer than 2 PUs are allowed. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "arch/arch.h"
#include "harness.h"
#include "topo.h"

#define ROUNDS 100000		/* per try */
#define TRIES_NONE 20		/* the no-barrier half: until it is seen */
#define TRIES_BARRIER 3
#define TRY_SECONDS 30		/* no try starts after this (qemu-user is slow) */

enum order { ORD_NONE, ORD_SMP_MB, ORD_MB, ORD_XCHG, ORD__COUNT };
static const char *const order_name[ORD__COUNT] = {
	"no barrier", "smp_mb() (" ARCH_INSN_SMP_MB ")", "mb() (" ARCH_INSN_MB ")",
	"xchg, x86's smp_store_mb (" ARCH_INSN_XCHG ")",
};

struct line {
	uint64_t v;
} __attribute__((aligned(64)));

static struct topo *topo;
static int cpus[2];
static struct line flag[2], announce[2];
static unsigned char old_seen[2][ROUNDS];
static enum order cur;

static void spin_until(struct line *l, uint64_t r)
{
	while (arch_load(&l->v) < r)
		arch_cpu_relax();
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg;

	if (topo_bind_thread(topo, cpus[k]) < 0)
		return (void *)1;
	for (uint64_t r = 1; r <= ROUNDS; r++) {
		arch_store(&announce[k].v, r);
		spin_until(&announce[!k], r);
		if (cur == ORD_XCHG) {
			(void)arch_xchg(&flag[k].v, r);
		} else {
			arch_store(&flag[k].v, r);
			if (cur == ORD_SMP_MB)
				arch_smp_mb();
			else if (cur == ORD_MB)
				arch_mb();
		}
		old_seen[k][r - 1] = arch_load(&flag[!k].v) != r;
	}
	return NULL;
}

/* One try: ROUNDS rounds; the number in which both reads saw old values. */
static long run(enum order o)
{
	pthread_t t[2];
	void *r0, *r1;
	long both = 0;

	cur = o;
	for (int k = 0; k < 2; k++)
		flag[k].v = announce[k].v = 0;
	pthread_create(&t[0], NULL, worker, (void *)0);
	pthread_create(&t[1], NULL, worker, (void *)1);
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	if (r0 || r1) {
		CHECK(0, "threads pinned");
		return -1;
	}
	for (int r = 0; r < ROUNDS; r++)
		both += old_seen[0][r] && old_seen[1][r];
	return both;
}

static int check_order(enum order o, time_t t0)
{
	int tries = o == ORD_NONE ? TRIES_NONE : TRIES_BARRIER, done = 0;
	long seen = 0;

	while (done < tries && (done == 0 || time(NULL) - t0 < TRY_SECONDS) && !(o == ORD_NONE && seen)) {
		long n = run(o);

		if (n < 0)
			return -1;
		seen += n;
		done++;
	}
	printf("litmus SB, %s: both reads old in %ld of %d rounds\n", order_name[o], seen, done * ROUNDS);
	if (o != ORD_NONE)
		CHECK(seen == 0, "%s: store buffering seen %ld times", order_name[o], seen);
	else if (!seen)
		printf("litmus SB: SKIP the no-barrier half: no reordering in %d rounds "
		       "(both threads rarely ran at once)\n", done * ROUNDS);
	return seen > 0;
}

int main(void)
{
	time_t t0 = time(NULL);
	int none_seen;

	if (topo_open(&topo, NULL, NULL) < 0)
		return 1;
	if (topo_allowed_count(topo) < 2) {
		printf("litmus: SKIP: needs 2 allowed PUs, have %d\n", topo_allowed_count(topo));
		topo_close(topo);
		return TEST_SKIP;
	}
	cpus[0] = topo_allowed_os(topo, 0);
	cpus[1] = topo_allowed_os(topo, 1);
	none_seen = check_order(ORD_NONE, t0);
	for (int o = ORD_SMP_MB; o < ORD__COUNT; o++)
		check_order((enum order)o, t0);
	topo_close(topo);
	if (none_seen == 0 && !t_failed) {
		printf("litmus: the barriers held, but the no-barrier half was not observed\n");
		return TEST_SKIP;
	}
	return test_done("litmus");
}
