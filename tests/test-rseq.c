/* SPDX-License-Identifier: MIT */
/* test-rseq.c - the hand-written rseq critical sections are exact: 8
 * threads on all allowed PUs (unpinned, so they are preempted and migrate
 * inside critical sections) add to per-CPU counters and the sum is exact;
 * the same with per-CPU cmpxchg increments. With rseq disabled by glibc's
 * tunable the probes say they cannot run (checked in a re-executed child).
 * Exit 0 pass, 1 fail, 77 skip (rseq not registered here).
 */
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "probes.h"

#ifndef ARCH_HAS_RSEQ
#define ARCH_HAS_RSEQ 0
#endif

#define NTHREADS 8
#define ADDS 200000
#define CXS 50000
#define STRIDE 64

#if ARCH_HAS_RSEQ
static char *area;
static int ncpu;
static volatile int go;

static void *adder(void *arg)
{
	while (!go)
		arch_cpu_relax();
	for (int i = 0; i < ADDS; i++)
		arch_rseq_add(area, STRIDE, 1, __rseq_offset);
	return NULL;
}

static void *cx_incrementer(void *arg)
{
	while (!go)
		arch_cpu_relax();
	for (int i = 0; i < CXS; i++) {
		uint64_t v;

		/* read this CPU's slot, then replace it by v + 1 only if this CPU
		 * still holds v: a per-CPU increment without a locked op */
		do
			v = *(volatile uint64_t *)(area + arch_rseq_cpu_start(__rseq_offset) * STRIDE);
		while (!arch_rseq_cmpxchg(area, STRIDE, v, v + 1, __rseq_offset));
	}
	return NULL;
}

static uint64_t sum(void)
{
	uint64_t s = 0;

	for (int c = 0; c < ncpu; c++)
		s += *(uint64_t *)(area + c * STRIDE);
	return s;
}

static void run(void *(*fn)(void *), const char *what, uint64_t expect)
{
	pthread_t t[NTHREADS];

	memset(area, 0, (size_t)ncpu * STRIDE);
	go = 0;
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	go = 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(sum() == expect, "%s: %d threads sum to %llu (got %llu)", what, NTHREADS,
	      (unsigned long long)expect, (unsigned long long)sum());
}
#endif

int main(int argc, char **argv)
{
	const char *why;
	int status = -1;
	pid_t pid;

	log_quiet = 1;
	why = probe_unsupported(probe_find("rseq_add"));
	if (argc > 1 && !strcmp(argv[1], "--child-disabled"))
		/* rseq off by tunable: the probes must say so */
		return why && strstr(why, "rseq") ? 0 : 1;
	if (!ARCH_HAS_RSEQ || why) {
		printf("test-rseq: %s: skipped\n", why ? why : "no rseq critical sections for this arch");
		return TEST_SKIP;
	}
#if ARCH_HAS_RSEQ
	ncpu = get_nprocs_conf();
	area = aligned_alloc(64, (size_t)ncpu * STRIDE);
	if (!area)
		return 1;
	run(adder, "rseq per-CPU add", (uint64_t)NTHREADS * ADDS);
	run(cx_incrementer, "rseq per-CPU cmpxchg increment", (uint64_t)NTHREADS * CXS);
	free(area);

	for (const char *const *n = (const char *const[]){ "rseq_add", "percpu_lock_add",
							   "percpu_add_nl", "rseq_cmpxchg", NULL };
	     *n; n++) {
		const struct probe *p = probe_find(*n);

		CHECK(p && p->verify && p->verify() == 0, "%s: verify()", *n);
	}
#endif
	pid = fork();
	if (pid == 0) {
		char *args[] = { argv[0], "--child-disabled", NULL };
		char *env[] = { "GLIBC_TUNABLES=glibc.pthread.rseq=0", NULL };

		execve("/proc/self/exe", args, env);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "with GLIBC_TUNABLES=glibc.pthread.rseq=0 the rseq probes report unsupported (status %d)",
	      status);
	return test_done("test-rseq");
}
