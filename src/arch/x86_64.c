/* SPDX-License-Identifier: MIT */
/* arch/x86_64.c - one-time CPU feature detection (cpuid is fine here: it is
 * never inside a timed region). */
#include "arch/arch.h"

#include <cpuid.h>
#include <string.h>

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
