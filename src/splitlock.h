/* SPDX-License-Identifier: MIT */
/* splitlock.h - the split lock: a locked read-modify-write whose 8 bytes
 * straddle two cache lines (a bus lock, felt by every core), against the
 * same op inside one line. Linux may warn, throttle the task or kill it
 * with SIGBUS (docs/hierarchy.md "The split lock" has the modes): the mode
 * is read before the probe, and a SIGBUS is caught, never fatal.
 */
#ifndef ATOMCOST_SPLITLOCK_H
#define ATOMCOST_SPLITLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "sections.h"
#include "vocab.h"	/* enum splitlock_mode, its names */

/* What the kernel says about split locks. */
struct splitlock_kernel {
	bool flag_split_lock_detect;	/* cpuinfo flag: #AC before the op */
	bool flag_bus_lock_detect;	/* cpuinfo flag: #DB after the op */
	char cmdline[24];		/* the split_lock_detect= value, "" when absent */
	int mitigate;			/* kernel.split_lock_mitigate, -1: absent */
	unsigned ratelimit;		/* N of ratelimit:N */
	enum splitlock_mode mode;	/* what applies to user space */
	char why[200];			/* one sentence: the mode and what it does to a split lock */
};

/* Decide the mode from the text of /proc/cpuinfo (its flags line is
 * enough), /proc/cmdline and /proc/sys/kernel/split_lock_mitigate; NULL
 * for a file that could not be read. Pure. -EINVAL (no message) for a
 * split_lock_detect= value the kernel would not accept: the mode is then
 * the kernel's default, as the kernel does. */
int splitlock_parse(const char *cpuinfo, const char *cmdline, const char *mitigate,
		    struct splitlock_kernel *k);
/* The same from this system's files. */
void splitlock_read_kernel(struct splitlock_kernel *k);

/* The aligned and the split address of a 64-bit word in a buffer of at
 * least two lines (128 bytes), the split one at line offset 60: bytes
 * 60..63 in one line, 0..3 in the next. 0, or -EINVAL when the buffer is
 * too small. Pure. */
int splitlock_addresses(void *buf, size_t len, uint64_t **aligned, uint64_t **split);

/* Run fn(arg) with a SIGBUS handler installed only for the call: 0 when it
 * returned, -EFAULT when a SIGBUS ended it (the handler jumps back out). The
 * previous SIGBUS action is restored in both cases. */
int splitlock_guarded(void (*fn)(void *arg), void *arg);

/* The section's keys when a split lock was measured: all but skipped and
 * unsupported. */
#define SPLITLOCK_HAS_MEASURED \
	(HAS_ALL(SL__COUNT) & ~(1u << SL_SKIPPED | 1u << SL_UNSUPPORTED))

/* Time `max_ops` (rounded to 64, 0: 4096) split `lock add`s and as many
 * aligned ones on the calling (pinned, calibrated) thread, into the report's
 * section (sections.h), kernel mode included. Returns 0 with
 * r->supported false where the architecture has no split lock, 0 with
 * r->sigbus when the kernel sent SIGBUS, or -errno after a message. */
int splitlock_measure(uint64_t max_ops, const struct calibration *cal, struct splitlock_section *r);

/* The ratio's denominator: an aligned locked RMW timed as the report's
 * rows are (docs/hierarchy.md says why not the probe's own aligned ops).
 * splitlock_set_reference takes one given; splitlock_reference times
 * atomic_inc's latency kernel with the runner on the calling (pinned,
 * calibrated) thread, as `atomcost run atomic_inc` does. 0 or -errno. */
void splitlock_set_reference(struct splitlock_section *r, double cycles, double ns,
			     const char *what);
int splitlock_reference(const struct calibration *cal, struct splitlock_section *r);
/* The reference from rep's atomic_inc hit latency row (its median, with
 * rep's calibration): true, or false when rep has no such row. */
struct report;
bool splitlock_reference_from(struct splitlock_section *r, const struct report *rep);

/* Say on stderr, before the split ops, that they lock the bus for every
 * tenant of the host, and how to skip them (skip: "--no-split-lock"). */
void splitlock_announce(const char *skip);

/* The section as `atomcost hierarchy` prints it. */
void splitlock_print(const struct splitlock_section *s, FILE *f);

#endif
