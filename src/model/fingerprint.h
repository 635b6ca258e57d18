/* SPDX-License-Identifier: MIT */
/* fingerprint.h - the machine fingerprint every report carries, its keys
 * and sources (docs/reports.md, "Machine fingerprint"). */
#ifndef ATOMCOST_FINGERPRINT_H
#define ATOMCOST_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "calibration.h"

/* A fact whose file does not exist, or exists and cannot be read: never dropped. */
#define FINGERPRINT_ABSENT "absent"
#define FINGERPRINT_UNREADABLE "unreadable"

/* src/arch's ARCH_NAME and ARCH_ATOMICS_IMPL: the model never sees the arch
 * headers, so main.c hands them over; a program that never set them (the
 * model's tests, the fuzzers) records "none". */
struct fingerprint_arch {
	const char *name, *atomics;
};
extern struct fingerprint_arch fingerprint_arch;

/* Collect the fingerprint. root prefixes every /proc and /sys path ("" or
 * NULL: the real system; tests pass a fake tree). cpu_os selects the
 * cpufreq directory (-1: cpu0). topo_summary may be NULL. New reference,
 * NULL on ENOMEM. */
json_t *fingerprint_collect(const char *root, int cpu_os, const char *topo_summary);

/* Record the calibration's core and timer (TSC) frequency in fp, and the
 * identified core ("core": core_to_json). */
void fingerprint_set_clock(json_t *fp, const struct calibration *cal);

/* meta["fingerprint"] or NULL (report/json.c). */
json_t *fingerprint_of_meta(const json_t *meta);

/* One line for table headers: "AMD EPYC (fam 26 model 2 step 1), KVM guest,
 * Linux 6.1.0, gcc 12.2.0 -O2". */
void fingerprint_oneline(const json_t *fp, char *buf, size_t len);

/* Call fn for every fact that differs between two fingerprints, flattened
 * to "a.b.c" keys; frequencies differ when they are more than 5% apart.
 * Host, tool build and command are not compared. Returns the number of
 * differences. */
typedef void (*fingerprint_diff_fn)(const char *key, const char *a, const char *b, void *arg);
size_t fingerprint_diff(const json_t *a, const json_t *b, fingerprint_diff_fn fn, void *arg);

#endif
