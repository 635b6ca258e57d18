/* SPDX-License-Identifier: MIT */
/* arch/aarch64.c - one-time CPU feature detection: LSE atomics from the
 * auxiliary vector (never inside a timed region). */
#include "arch/arch.h"

#include <errno.h>

#include <sys/auxv.h>

#include "common.h"

#ifndef HWCAP_ATOMICS
#define HWCAP_ATOMICS (1 << 8)
#endif

bool arch_arm64_have_lse;

void arch_init(void)
{
	arch_arm64_have_lse = (getauxval(AT_HWCAP) & HWCAP_ATOMICS) != 0;
#if !defined(ATOMCOST_ARM64_LLSC)
	static bool warned;

	if (!arch_arm64_have_lse && !warned) {
		warned = true;
		pr_warn("arch: this CPU has no LSE atomics (ARMv8.0): the LSE probes will fault; "
			"rebuild with meson setup -Dc_args=-DATOMCOST_ARM64_LLSC=1 to time the LL/SC forms");
	}
#endif
}
