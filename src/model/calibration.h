/* SPDX-License-Identifier: MIT */
/* calibration.h - the calibration record (docs/method.md), its text, its
 * JSON (report/meta.c) and the conversions; clock.h's clock_calibrate
 * measures it. */
#ifndef ATOMCOST_CALIBRATION_H
#define ATOMCOST_CALIBRATION_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "core.h"

/* Frequency windows of the calibration (each 40 ms). */
#define CLOCK_FREQ_REPEATS 5

struct calibration {
	double timer_hz;		/* timer ticks per second */
	double timer_hz_spread;		/* relative spread over the repeats */
	double overhead_min;		/* fenced start/stop pair, ticks */
	double overhead_median;
	double ticks_per_cycle;		/* fastest dependent add chain repeat */
	double ticks_per_cycle_mul;	/* from the multiply chain */
	double add_median, mul_median;	/* medians over the repeats */
	double chain_agreement;		/* |add - mul| / add */
	/* Self-checks in add-chain cycles (the add chain itself reads 1 by
	 * construction): the imul chain (expected: the arch's multiply
	 * latency) and the L1 load chase (expected: the identified core's
	 * load-to-use; 0: no expectation, core.how says why). 0: not measured. */
	double mul_cycles, mul_expected;
	double load_cycles, load_expected;
	struct core_id core;		/* the core, from CPUID (clock.c); name "": unknown */
	double core_hz;			/* timer_hz / ticks_per_cycle */
	char cycle_source[128];		/* how cycles were obtained */
	char timer[64];			/* which timer reads */
	bool timer_invariant;		/* constant/nonstop TSC (or a fixed-rate counter) */
	bool trustworthy;		/* chains agree within 1%, spread small, not emulated */
	bool emulated;			/* an emulator runs this binary: timings are meaningless */
	char emulation[160];		/* why we think so ("" when not emulated) */
	int cpu_os;			/* PU it was measured on (-1: unpinned) */
};

void clock_print(const struct calibration *c, FILE *f);
/* One line: the imul and L1 chase self-checks with their expected values
 * and deviations, after prefix; nothing when they were not measured. */
void clock_print_self_checks(const struct calibration *c, FILE *f, const char *prefix);
/* One line: which core, on what evidence, and where its L1 figure comes
 * from (nothing for a report from before the core was identified). */
void clock_print_core(const struct calibration *c, FILE *f, const char *prefix);
json_t *clock_to_json(const struct calibration *c);
/* The identified core as the calibration and the fingerprint record it:
 * {name (null: unknown), how, l1_load_cycles (null: no expectation), l1_source}. */
json_t *core_to_json(const struct core_id *id);
struct report;
/* {calibration, then rep's typed sections}: `atomcost hierarchy --json`. */
json_t *calibration_sections_json(const struct report *rep);

/* A self-check's relative deviation from its expectation (0: none). */
static inline double clock_deviation(double got, double want)
{
	return want > 0 ? got / want - 1 : 0;
}

static inline double clock_ticks_to_cycles(const struct calibration *c, double ticks)
{
	return ticks / c->ticks_per_cycle;
}

static inline double clock_ticks_to_ns(const struct calibration *c, double ticks)
{
	return ticks * 1e9 / c->timer_hz;
}

#endif
