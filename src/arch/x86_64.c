/* SPDX-License-Identifier: MIT */
/* arch/x86_64.c - one-time CPU feature detection (cpuid is fine here: it is
 * never inside a timed region). */
#include "arch/arch.h"

#include <cpuid.h>
#include <errno.h>
#include <string.h>

#include "core.h"

bool arch_x86_have_rdtscp;

void arch_init(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		arch_x86_have_rdtscp = (d >> 27) & 1;
}

int arch_hypervisor_sig(char sig[13])
{
	unsigned a, b, c, d;

	sig[0] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 31 & 1))
		return 0;
	/* the leaf is outside __get_cpuid's range check: a hypervisor that
	 * sets the bit answers it (vendor in ebx, ecx, edx) */
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	return 1;
}

/* The per-core data cache sizes of a deterministic cache leaf (4 on Intel,
 * 0x8000001d on AMD): each subleaf one cache, type 0 ends the list. */
static void cache_sizes(unsigned leaf, struct core_facts *f)
{
	unsigned a, b, c, d;

	for (unsigned i = 0; i < 16; i++) {
		unsigned type, level, kib;

		__cpuid_count(leaf, i, a, b, c, d);
		type = a & 0x1f;
		level = (a >> 5) & 7;
		if (!type)
			break;
		kib = (((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1) / 1024;
		if (level == 1 && type == 1)	/* data */
			f->l1d_kib = kib;
		else if (level == 2 && (type == 1 || type == 3))	/* data or unified */
			f->l2_kib = kib;
	}
}

int arch_core_facts(struct core_facts *f)
{
	unsigned max, a, b, c, d, fam, model;

	memset(f, 0, sizeof(*f));
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return -EOPNOTSUPP;
	memcpy(f->vendor, &b, 4);
	memcpy(f->vendor + 4, &d, 4);
	memcpy(f->vendor + 8, &c, 4);
	__cpuid(1, a, b, c, d);
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	f->family = fam == 0xf ? fam + ((a >> 20) & 0xff) : fam;
	f->model = fam == 6 || fam == 0xf ? ((a >> 12) & 0xf0) | model : model;
	f->features |= (c >> 31 & 1u) << CF_HYPERVISOR;
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		f->features |= (b >> 5 & 1u) << CF_AVX2 | (b >> 16 & 1u) << CF_AVX512F |
			       (c >> 6 & 1u) << CF_AVX512_VBMI2 | (c >> 11 & 1u) << CF_AVX512_VNNI |
			       (d >> 15 & 1u) << CF_HYBRID | (d >> 23 & 1u) << CF_AVX512_FP16 |
			       (d >> 24 & 1u) << CF_AMX_TILE;
		__cpuid_count(7, 1, a, b, c, d);
		f->features |= (a >> 5 & 1u) << CF_AVX512_BF16 | (a >> 21 & 1u) << CF_AMX_FP16;
	}
	if (max >= 0x1a) {
		__cpuid_count(0x1a, 0, a, b, c, d);
		f->core_type = a >> 24;
	}
	arch_hypervisor_sig(f->hv_vendor);	/* leaf 0x40000000's vendor, "" on bare metal */
	if (!strcmp(f->vendor, "AuthenticAMD") && __get_cpuid_max(0x80000000, NULL) >= 0x8000001d)
		cache_sizes(0x8000001d, f);
	else if (max >= 4)
		cache_sizes(4, f);
	return 0;
}
