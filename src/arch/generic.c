/* SPDX-License-Identifier: MIT */
/* arch/generic.c - nothing to detect: the C11 build asks the compiler for
 * every primitive and the OS for the time. */
#include "arch/arch.h"

volatile int gen_cx128_lock;

void arch_init(void)
{
}

/* The generic build asks no CPU: clock.c asks DMI and the device tree. */
int arch_hypervisor_sig(char sig[13])
{
	sig[0] = '\0';
	return -1;
}
