/* SPDX-License-Identifier: MIT */
/* arch/x86_64.c - one-time CPU feature detection (cpuid is fine here: it is
 * never inside a timed region). */
#include "arch/arch.h"

#include <cpuid.h>

bool arch_x86_have_rdtscp;

void arch_init(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		arch_x86_have_rdtscp = (d >> 27) & 1;
}
