/* SPDX-License-Identifier: MIT */
/* session.h - one run of an experiment over the engines: --epochs passes
 * merged onto one clock, and the default characterization of a machine
 * (`atomcost run` with no probe names): measured hierarchy, every twin pair
 * under the access patterns, locks, the split lock, and the topology
 * (c2c and contention per pair class). Commands parse and call this; the
 * engines (runner, pattern, contention, c2c, hierarchy, splitlock) measure.
 */
#ifndef ATOMCOST_SESSION_H
#define ATOMCOST_SESSION_H

#include "result.h"
#include "runner.h"
#include "topo.h"
#include "config.h"
#include <stdio.h>

/* The report's identity: start time, topology (JSON and summary) and the
 * machine fingerprint (cpu_os: the PU whose cpufreq it reads). */
void session_identity(struct report *rep, struct topo *t, int cpu_os);

/* One run of `atomcost run`: the engine the options ask for (N threads on a
 * line with --threads/--placement/--sharing; the characterization; else
 * the probes, with --epochs passes), then the reproductions an experiment
 * lists, their tables to repro_out. 0, -EINTR or -errno. */
int session_run(struct topo *t, struct run_opts *o, const struct probe *const *list, size_t n,
		const struct experiment *exp, bool characterize, FILE *repro_out, struct report *rep);

/* The trust verdict of --strict: true (after a message per reason) when the
 * calibration disagrees with itself, a thread migrated, more than 5% of a
 * row's samples were disturbed, or contention threads did not overlap. */
bool session_untrustworthy(const struct report *rep);

#endif
