/* SPDX-License-Identifier: MIT */
/* arch/generic.c - nothing to detect: the C11 build asks the compiler for
 * every primitive and the OS for the time. */
#include "arch/arch.h"

#include <errno.h>

volatile int gen_cx128_lock;

void arch_init(void)
{
}
