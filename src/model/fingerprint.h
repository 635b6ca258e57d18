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

/* A report's fingerprint as the model reads it: the codec (report/json.c,
 * fingerprint_from_json) flattens the JSON object once into its facts in
 * the document's order, each object before its members, the whole first
 * (key ""). No facts: the report has no fingerprint. */
enum fingerprint_kind { FP_OBJECT, FP_ARRAY, FP_STRING, FP_INTEGER, FP_REAL, FP_TRUE, FP_FALSE, FP_NULL };
struct fingerprint_fact {
	char *key;		/* "cpu.model_name": the dotted path (read: at most 255 bytes) */
	char *text;		/* a string's value, an integer's digits, an array's JSON */
	double num;		/* a number's value */
	unsigned depth;		/* 0 the whole, 1 its members, ... */
	enum fingerprint_kind kind;
};
struct fingerprint {
	struct fingerprint_fact *facts;
	size_t n;
};

/* fp out of j (NULL or not an object: none), replacing what it held.
 * 0 or -ENOMEM (fp then empty). */
int fingerprint_from_json(struct fingerprint *fp, const json_t *j);
void fingerprint_free(struct fingerprint *fp);
/* Gather the fingerprint into fp (replacing what it held): root prefixes
 * every /proc and /sys path ("" or NULL: the real system; tests pass a fake
 * tree), cpu_os selects the cpufreq directory (-1: cpu0), topo_summary may
 * be NULL. 0 or -ENOMEM (fp then empty). The codec (report/json.c) writes
 * it as the report's JSON (fingerprint_collect: a new reference, NULL on
 * ENOMEM) and records there the calibration's core and timer (TSC)
 * frequency and the identified core (fingerprint_set_clock, core_to_json). */
int fingerprint_gather(struct fingerprint *fp, const char *root, int cpu_os, const char *topo_summary);
json_t *fingerprint_collect(const char *root, int cpu_os, const char *topo_summary);
void fingerprint_set_clock(json_t *fp, const struct calibration *cal);
/* The fact at a dotted key ("" the whole), NULL when absent; a string
 * fact's text, else dflt. */
const struct fingerprint_fact *fingerprint_find(const struct fingerprint *fp, const char *key);
const char *fingerprint_str(const struct fingerprint *fp, const char *key, const char *dflt);

/* One line for table headers: "AMD EPYC (fam 26 model 2 step 1), KVM guest,
 * Linux 6.1.0, gcc 12.2.0 -O2". */
void fingerprint_oneline(const struct fingerprint *fp, char *buf, size_t len);

/* Call fn for every fact that differs between two fingerprints, by their
 * dotted keys; core and timer frequencies differ when they are more than
 * 18% apart. Host, tool build and kernel build string are not compared.
 * Returns the number of differences. */
typedef void (*fingerprint_diff_fn)(const char *key, const char *a, const char *b, void *arg);
size_t fingerprint_diff(const struct fingerprint *a, const struct fingerprint *b, fingerprint_diff_fn fn,
			void *arg);

#endif
