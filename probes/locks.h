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
/* The same, and *handovers: how often the lock passed from one thread to
 * another (0: the threads never contended, and the count proves nothing). */
int64_t locks_exclusion_run_ho(const char *name, unsigned nthreads, uint64_t iters,
			       uint64_t *handovers);

/* nthreads threads each take iters references to one shared count
 * (refcount_get_put, atomic_get_put, lockref_get_put, locked_get_put: the
 * get of each), then drop them (the put). Returns the final count (1, the
 * owner's reference, when every get and put was atomic) or -errno. */
int64_t locks_ref_run(const char *name, unsigned nthreads, uint64_t iters);

/* One thread takes writer (write_lock or write_seqlock) iters times and
 * moves two words together under it; nthreads - 1 threads read the pair
 * meanwhile (under read_lock, or as a read_seqcount section) until the
 * writer is done. Returns the reads that saw the words differ (0 when the
 * read side excludes the writer), *reads the reads made, or -errno. */
int64_t locks_reader_run(const char *writer, unsigned nthreads, uint64_t iters, uint64_t *reads);

/* Who took the lock after whom: an instrumented pass, not the timed one.
 * Every acquisition is counted while all threads run (the first to finish
 * stops the others), with the holder before it and the number of other
 * threads that had announced themselves (one locked add on a line of its
 * own before lock(), a locked sub after it) and not yet acquired. */
struct locks_handover {
	uint64_t acquisitions;
	uint64_t handovers;	/* the previous holder was another thread */
	double share;		/* handovers / (acquisitions - 1); 0 with one thread */
	double depth;		/* mean threads waiting at an acquisition */
	bool queued;		/* the lock queues its waiters: depth is a queue depth */
};

/* nthreads threads, thread i pinned to OS CPU cpus[i] (or spread over the
 * allowed set when cpus is NULL), each take the named lock at most iters
 * times, all stopping at the first to finish or after seconds (0: no
 * limit). 0 or -errno after a message (unknown name, not a lock that
 * excludes, no threads). */
int locks_handover_run(const char *name, unsigned nthreads, const int *cpus, uint64_t iters,
		       double seconds, struct locks_handover *out);
/* The same for a lock given by its functions (a test's planted lock). */
int locks_handover_run_fn(void (*lock)(volatile void *l), void (*unlock)(volatile void *l),
			  unsigned nthreads, const int *cpus, uint64_t iters, double seconds,
			  struct locks_handover *out);
/* Does the named lock queue its waiters (the qspinlock slow path, MCS,
 * CLH, osq)? */
bool locks_queued(const char *name);

/* osq_lock's stand-in for need_resched(): a waiter gives up and unqueues
 * after this many polls of its node (0: the default budget). For tests
 * that drive the unqueue path. */
void locks_osq_budget(unsigned polls);
/* How often an osq_lock waiter has unqueued in this process. */
uint64_t locks_osq_unqueued(void);

#endif
