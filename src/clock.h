/* SPDX-License-Identifier: MIT */
/* clock.h - timer calibration: timer frequency against CLOCK_MONOTONIC_RAW,
 * fenced timer overhead, and timer ticks per core cycle (docs/method.md). */
#ifndef ATOMCOST_CLOCK_H
#define ATOMCOST_CLOCK_H

#include <stdbool.h>
#include <jansson.h>

/* Load-to-use latency of a pointer chase on one L1 line (mov (%reg),%reg,
 * base addressing): 4 cycles on the x86-64 and arm64 cores we know (AMD
 * Zen 2-5, Intel since Skylake, Neoverse N1/V1). A self-check of the cycle
 * that shares nothing with the add chain. */
#define CLOCK_L1_CHASE_CYCLES 4

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
	 * construction): the imul chain (expected ARCH_MUL_LATENCY) and the L1
	 * load chase (expected CLOCK_L1_CHASE_CYCLES). 0: not measured. */
	double mul_cycles, mul_expected;
	double load_cycles, load_expected;
	double core_hz;			/* timer_hz / ticks_per_cycle */
	const char *cycle_source;	/* how cycles were obtained */
	const char *timer;		/* which timer reads */
	bool timer_invariant;		/* constant/nonstop TSC (or a fixed-rate counter) */
	bool trustworthy;		/* chains agree within 1%, spread small, not emulated */
	bool emulated;			/* an emulator runs this binary: timings are meaningless */
	const char *emulation;		/* why we think so ("" when not emulated) */
	int cpu_os;			/* PU it was measured on (-1: unpinned) */
};

/* Calibrate on the calling thread (pin it first). 0 or -errno. */
int clock_calibrate(struct calibration *c, int cpu_os);
void clock_print(const struct calibration *c, FILE *f);
/* One line: the imul and L1 chase self-checks with their expected values
 * and deviations, after prefix; nothing when they were not measured. */
void clock_print_self_checks(const struct calibration *c, FILE *f, const char *prefix);
json_t *clock_to_json(const struct calibration *c);
/* Read back what clock_to_json wrote (for compare and report). */
int clock_from_json(json_t *j, struct calibration *c);

static inline double clock_ticks_to_cycles(const struct calibration *c, double ticks)
{
	return ticks / c->ticks_per_cycle;
}

static inline double clock_ticks_to_ns(const struct calibration *c, double ticks)
{
	return ticks * 1e9 / c->timer_hz;
}

#endif
