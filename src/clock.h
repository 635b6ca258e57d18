/* SPDX-License-Identifier: MIT */
/* clock.h - timer calibration, the measuring: timer frequency against
 * CLOCK_MONOTONIC_RAW, fenced timer overhead, and timer ticks per core
 * cycle (docs/method.md). The record it fills is the model's
 * (calibration.h). */
#ifndef ATOMCOST_CLOCK_H
#define ATOMCOST_CLOCK_H

#include "calibration.h"

/* Load-to-use latency of a pointer chase on one L1 line (mov (%reg),%reg,
 * base addressing): 4 cycles on the x86-64 and arm64 cores we know (AMD
 * Zen 2-5, Intel since Skylake, Neoverse N1/V1). A self-check of the cycle
 * that shares nothing with the add chain. */
#define CLOCK_L1_CHASE_CYCLES 4

/* Calibrate on the calling thread (pin it first). 0 or -errno. */
int clock_calibrate(struct calibration *c, int cpu_os);

#endif
