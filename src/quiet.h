/* SPDX-License-Identifier: MIT */
/* quiet.h - is the CPU this thread is pinned to ours? The share of wall
 * time the thread had its CPU over a stretch of work, and a wait for a
 * quiet window before work is repeated. Another task on the same PU takes
 * the CPU away without a migration or a context switch the thread can see
 * in its samples; its CPU time against wall time shows it. */
#ifndef ATOMCOST_QUIET_H
#define ATOMCOST_QUIET_H

#include <stdbool.h>
#include <stdint.h>

/* A stretch is quiet when the thread had its CPU this share of the time or
 * more; a wait ends after a window this long at that share. */
#define QUIET_SHARE 0.95
#define QUIET_WINDOW_S 1.0

struct quiet_mark {
	uint64_t wall_ns, cpu_ns;
};

/* Start a stretch; quiet_share: the share of wall time since the mark that
 * the calling thread had its CPU (0-1; 1 for an empty stretch). */
void quiet_start(struct quiet_mark *m);
double quiet_share(const struct quiet_mark *m);

/* Spin on the calling thread's CPU (pin it first) until it has had share of
 * the wall time or more over the last window_s, for at most budget_s.
 * true when the window came; *waited_s: the seconds spent either way. */
bool quiet_wait(double share, double window_s, double budget_s, double *waited_s);

#endif
