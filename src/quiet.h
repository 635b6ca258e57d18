/* SPDX-License-Identifier: MIT */
/* quiet.h - is the CPU this thread is pinned to ours? The share of wall
 * time the thread had its CPU over a stretch of work, and a wait for a
 * quiet window before work is repeated. Another task on the same PU takes
 * the CPU away without a migration or a context switch the thread can see
 * in its samples; its CPU time against wall time shows it. */
#ifndef ATOMCOST_QUIET_H
#define ATOMCOST_QUIET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A stretch is quiet when the thread had its CPU this share of the time or
 * more; a wait ends after a window this long at that share. */
#define QUIET_SHARE 0.95
#define QUIET_WINDOW_S 1.0

struct quiet_mark {
	uint64_t wall_ns, cpu_ns;
};

/* A stretch that lost less wall time than this lost none: the two clocks'
 * reads and an interrupt's handling (irq time is no task's) cost some
 * microseconds, which in a 36 us pass read as a share of 0.81, while
 * another task on the PU takes a slice of the scheduler's, 750 us or more. */
#define QUIET_LOST_FLOOR_NS 50000

/* Start a stretch; quiet_share: the share of wall time since the mark that
 * the calling thread had its CPU (0-1; 1 for an empty stretch or one that
 * lost under QUIET_LOST_FLOOR_NS). */
void quiet_start(struct quiet_mark *m);
double quiet_share(const struct quiet_mark *m);
/* The same from a stretch's wall and CPU nanoseconds. */
double quiet_share_of(uint64_t wall_ns, uint64_t cpu_ns);

/* Spin on the calling thread's CPU (pin it first) until it has had share of
 * the wall time or more over the last window_s, for at most budget_s.
 * true when the window came; *waited_s: the seconds spent either way. An
 * interruption (runner_stop) ends the wait at once, not quiet. */
bool quiet_wait(double share, double window_s, double budget_s, double *waited_s);

/* Spin seconds on the calling thread's CPU; the share it had (a probe of
 * how busy the PU it is pinned to is). */
double quiet_probe(double seconds);

/* The quietest allowed PU of t, the calling thread left bound to it: the
 * first allowed while a spinning thread gets QUIET_SHARE of it over
 * QUIET_PROBE_S, else the one whose thread got the largest share (2%
 * better than the first's to move). why: which and why, with each probed
 * PU's share. The PU's OS index, or -errno (binding failed). Each
 * candidate is probed for QUIET_PROBE_S seconds. */
#define QUIET_PROBE_S 0.15
struct topo;
int quiet_pick_cpu(struct topo *t, char *why, size_t len);

/* The patience of a run: how many seconds it may spend beyond its quiet
 * time waiting for quiet windows and repeating disturbed stretches, and
 * what it spent. */
struct quiet_budget {
	double patience_s;	/* the most it may spend */
	double waited_s;	/* in quiet_wait */
	double repeat_s;	/* in stretches run again */
	double lost_s;		/* what other tasks took from the stretches: took x (1 - share) */
	unsigned repeated;	/* stretches run again */
	unsigned kept_disturbed;	/* disturbed stretches not run again: patience ran out */
	unsigned vain;		/* waits in a row that found no quiet window */
};

/* After this many waits in a row found no quiet window, the machine is
 * busy without a break: no more waits, the patience is not spent. */
#define QUIET_VAIN_WAITS 2

/* After a stretch that took took_s with the thread at share of its CPU:
 * true to run it again (after quiet_budget_wait), when it was disturbed
 * (share < QUIET_SHARE) and the wait's window and another stretch as long
 * still fit in the patience left; false when quiet, or (counting it in
 * kept_disturbed) when the patience cannot pay for it or the last
 * QUIET_VAIN_WAITS waits were in vain. Pure. */
bool quiet_should_repeat(struct quiet_budget *b, double share, double took_s);

/* The longest one wait: a machine busy for longer is not waited out, its
 * patience goes to the stretches that a passing load disturbed. */
#define QUIET_WAIT_S 10.0

/* Wait for a quiet window within the patience left, and at most
 * QUIET_WAIT_S (counted in waited_s); true when it came, else the stretch
 * is kept disturbed. */
bool quiet_budget_wait(struct quiet_budget *b);

#endif
