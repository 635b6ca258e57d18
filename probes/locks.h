/* SPDX-License-Identifier: MIT */
/* locks.h - the lock family's exclusion harness, shared by the probes'
 * verify() and tests/test-locks.c. */
#ifndef ATOMCOST_LOCKS_H
#define ATOMCOST_LOCKS_H

#include <stdbool.h>
#include <stdint.h>

/* Does the probe of this name protect against other CPUs (false for the
 * local-only preempt_disable and the analogs local_irq_save_analog,
 * sigprocmask)? */
bool locks_excludes(const char *name);

/* The out-of-line lock and unlock of a lock that excludes other CPUs (the
 * bodies its probe's kernel inlines), for a harness of its own (the 2008
 * hand-over timing, repro/code-alignment-2008.c). 0, -ENOENT (no such
 * lock) or -ENOTSUP (no lock-word primitives on this architecture). */
int locks_ops(const char *name, void (**lock)(volatile void *l), void (**unlock)(volatile void *l));

/* nthreads unpinned threads each take the named lock iters times around a
 * non-atomic increment of a shared counter (load, add, store). Returns the
 * final count (nthreads * iters when the lock excludes), or -errno after a
 * message (unknown name, no threads). With name NULL the increments run
 * without any lock: lost updates then show that the threads overlapped. */
int64_t locks_exclusion_run(const char *name, unsigned nthreads, uint64_t iters);

#endif
