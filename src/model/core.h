/* SPDX-License-Identifier: MIT */
/* core.h - which core this is, from CPUID facts (src/arch reads them):
 * vendor, family and model where they are real, features, cache sizes,
 * the hybrid core type. A hypervisor may show a model number of its own
 * (the Intel Xeon guest: model 167, a Rocket Lake's, on a core with AMX):
 * the features then decide, and the identification says on what evidence.
 * Every expectation (the L1 load chase's cycles, the published rows of
 * tests/published.tsv) comes from the identified core; an unknown core
 * gets none, with the reason. */
#ifndef ATOMCOST_CORE_H
#define ATOMCOST_CORE_H

#include <stdbool.h>
#include <stddef.h>

/* The features the table reads; named as Linux's cpuinfo flags. */
enum core_feature {
	CF_HYPERVISOR, CF_AVX2, CF_AVX512F, CF_AVX512_VNNI, CF_AVX512_VBMI2, CF_AVX512_BF16, CF_AVX512_FP16,
	CF_AMX_TILE, CF_AMX_FP16, CF_HYBRID, CF__COUNT,
};

struct core_facts {
	char vendor[16];		/* "GenuineIntel", "AuthenticAMD"; "": not read */
	unsigned family, model;		/* display family and model (CPUID leaf 1) */
	unsigned features;		/* 1u << CF_* */
	char hv_vendor[16];		/* leaf 0x40000000 ("KVMKVMKVM"); "": none */
	unsigned l1d_kib, l2_kib;	/* per core (leaf 4, or 0x8000001d); 0: unknown */
	unsigned core_type;		/* leaf 0x1a EAX[31:24]: 0x20 Atom, 0x40 Core; 0: none */
};

/* Set the features named in a cpuinfo or lscpu flags line ("fpu vme ...
 * amx_tile ..."); others are ignored. */
void core_facts_set_flags(struct core_facts *f, const char *flags);

struct core_id {
	char name[32];		/* "Golden Cove", "Zen 4": tests/published.tsv's core; "": unknown */
	char how[256];		/* on what evidence, or why unknown */
	double l1_load_cycles;	/* the L1 load-to-use a pointer chase shows; 0: no expectation */
	const char *l1_source;	/* where that figure is published */
};

/* Identify the core: *id filled; returns true when known. */
bool core_identify(const struct core_facts *f, struct core_id *id);

#endif
