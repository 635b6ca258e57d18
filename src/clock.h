/* SPDX-License-Identifier: MIT */
/* clock.h - timer calibration, the measuring: timer frequency against
 * CLOCK_MONOTONIC_RAW, fenced timer overhead, and timer ticks per core
 * cycle (docs/method.md). The record it fills is the model's
 * (calibration.h). */
#ifndef ATOMCOST_CLOCK_H
#define ATOMCOST_CLOCK_H

#include "calibration.h"

/* Calibrate on the calling thread (pin it first). 0 or -errno. */
int clock_calibrate(struct calibration *c, int cpu_os);

#endif
