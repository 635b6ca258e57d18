/* SPDX-License-Identifier: MIT */
/* pmu.h - hardware and software events (docs/events.md: the names, the
 * always-on events, the two groups). Whether an event can be had is decided
 * by perf_event_open only (libpfm4 lists a PMU from CPUID even where the
 * hypervisor exposes none). */
#ifndef ATOMCOST_PMU_H
#define ATOMCOST_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#define PMU_MAX_EVENTS 16
#define PMU_NAME_LEN 96
#define PMU_REASON_LEN 256

struct pmu_event {
	char name[PMU_NAME_LEN];	/* as requested (or the always-on alias) */
	struct perf_event_attr attr;
	bool hw;		/* counted by a CPU PMU (hardware group), summarized per op;
				 * else per sample (software events) */
	bool requested;		/* named with -e (else always-on) */
	bool available;		/* opened here */
	int err;		/* the errno perf_event_open gave (0: none) */
	char why[24];		/* short reason for a table cell ("no PMU", "paranoid") */
	char reason[PMU_REASON_LEN];	/* plain-language reason when !available */
};

/* What decides whether an event opens for this process. */
struct pmu_perm {
	int paranoid;		/* /proc/sys/kernel/perf_event_paranoid */
	bool privileged;	/* root or CAP_PERFMON */
	bool vm;		/* under a hypervisor */
};

struct pmu_set {
	struct pmu_event ev[PMU_MAX_EVENTS];
	unsigned n;
	int idx_cs, idx_mig, idx_task, idx_cycles;	/* -1: not in the set / not available */
	struct pmu_perm perm;	/* read when the set was resolved */
};

/* Build the set from a comma-separated list (NULL or "": only the always-on
 * software events), and try each event on the calling thread. An unknown
 * name or a bad libpfm4 string prints one message with a suggestion and
 * returns -EINVAL (exit 2). With require, an event that cannot be counted
 * here prints its reason and returns -ENOTSUP (exit 4). */
int pmu_set_resolve(struct pmu_set *s, const char *list, bool require);

/* One probe thread's counters. Open on the thread that runs the probe. */
struct pmu_group {
	const struct pmu_set *set;
	int leader[2];			/* [0] hardware, [1] software; -1: none */
	int fd[PMU_MAX_EVENTS];		/* when ok */
	uint64_t id[PMU_MAX_EVENTS];
	bool ok[PMU_MAX_EVENTS];	/* open in this thread's group */
	char reason[PMU_MAX_EVENTS][PMU_REASON_LEN];	/* why not, when !ok */
};

struct pmu_reading {
	uint64_t val[PMU_MAX_EVENTS];
	uint64_t enabled[2], running[2];	/* per group, ns */
};

/* Open, reset and enable the groups on the calling thread. Events that
 * do not open here are marked !ok with a reason. */
void pmu_group_open(struct pmu_group *g, const struct pmu_set *s);
/* Read both groups (one read() each). 0 or -errno. */
int pmu_group_read(const struct pmu_group *g, struct pmu_reading *r);
void pmu_group_close(struct pmu_group *g);

/* Counts of event i between two readings; false when it could not be
 * counted over the whole interval (not open, or its group was multiplexed
 * off the PMU for part of it, which would make the delta an estimate). */
bool pmu_delta(const struct pmu_group *g, const struct pmu_reading *a,
	       const struct pmu_reading *b, unsigned i, double *out);

/* Timer ticks per core cycle from per-sample N/2N differences of ticks and
 * PMU cycles: the median of dticks[i] / dcycles[i] over pairs with positive
 * cycles. 0 when none. */
double pmu_ticks_per_cycle(const double *dticks, const double *dcycles, size_t n);

/* May kernel-raised software events (context switches, migrations) be
 * counted with the kernel included? paranoid <= 1, or root/CAP_PERFMON. */
bool pmu_kernel_allowed(int paranoid, bool privileged);
/* The reason (short and long) for a perf_event_open errno. */
void pmu_explain(int err, bool hw, const struct pmu_perm *p, char *why, size_t whylen,
		 char *reason, size_t len);

/* n, min, median, mean, max and total of event values over samples (per op
 * or per sample). */
struct result_event;
void pmu_stat_of(const double *v, size_t n, struct result_event *st);

/* Per-sample bookkeeping for one measurement (runner.c). A sample times N
 * then 2N iterations; the groups are read before (a), between (b) and after
 * (c), never inside a fenced timing. The after-reading of one sample is the
 * before-reading of the next unless marked stale (work was done between).
 * Hardware events per op ((c - b) - (b - a)) / (N * UNROLL), software
 * events per sample (c - a): docs/events.md says why. */
struct result;
struct pmu_sampler {
	struct pmu_group g;
	struct pmu_set *own;	/* the default set, when started with NULL */
	bool active, stale;
	struct pmu_reading a, b, c;
	size_t cap;
	double ops_n;		/* ops in the N timing */
	double *v;		/* [event][sample]: value, NAN when not counted */
	signed char *disturbed;	/* per sample: 1 switch/migration, 0 none, -1 unknown */
	double *dticks, *dcycles;	/* per sample: t_2N - t_N and the cycles in it */
};

/* Open the groups on the calling thread (set NULL: the always-on software
 * events). 0 or -ENOMEM. */
int pmu_sampler_start(struct pmu_sampler *s, const struct pmu_set *set, size_t cap,
		      uint64_t ops_n);
void pmu_sampler_before(struct pmu_sampler *s);
void pmu_sampler_mid(struct pmu_sampler *s);
/* Read c and record sample i from the readings and its two timings. */
void pmu_sampler_after(struct pmu_sampler *s, size_t i, double t_n, double t_2n);
static inline void pmu_sampler_stale(struct pmu_sampler *s)
{
	s->stale = true;
}
/* Summaries of the first n samples into res (events, disturbed,
 * pmu_ticks_per_cycle, extra.disturbed_at); closes and frees. */
void pmu_sampler_finish(struct pmu_sampler *s, size_t n, struct result *res);

/* When the cycles event counted in the results, its ticks per cycle (the
 * median over results) replaces the add chain's in rep->cal, and the report
 * keeps both and their agreement. Nothing changes otherwise. */
struct report;
void pmu_report_cycles(struct report *rep);

/* `atomcost events`: what libpfm4 detects, and what opens here. */
int pmu_print_events(FILE *f, bool all);

#endif
