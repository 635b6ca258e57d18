// SPDX-License-Identifier: MIT
/* kops.c - the core pairs as the kernel defines them: set_bit() and
 * __set_bit() from <linux/bitops.h>, cmpxchg() and cmpxchg_local() from
 * <linux/atomic.h> (asm/cmpxchg.h), compiled against the headers of the
 * kernel the module runs on. In the kernel context the point is the
 * kernel's own code; ops.c times src/arch's asm, what user space times,
 * beside these as NAME:asm. The suite checks in the disassembly that both
 * emit the same instruction (tests/kernel/run.sh, check_loops). This file
 * cannot include src/arch/arch.h: its arch_cmpxchg & co. have the
 * kernel's own names. Latency and throughput forms as ops.c's. With the
 * runner's irqs off, cmpxchg and cmpxchg_local are the 2007 test's "with
 * irqs off" (src/repro asks for them by name); its "irq save/restore" is
 * prims.c's local_irq_save:store. */
#include <linux/atomic.h>
#include <linux/bitops.h>

#include "atomcost.h"

#define SINK(v) asm volatile("" : : "r"(v))
#define W(q) ((unsigned long *)(q))

AC_LOOP(k_set_bit_lat, , set_bit(0, W(p)), )
AC_LOOP(k_set_bit_tput, , set_bit(0, W(AC_LINE(p, i))), )
AC_LOOP(k___set_bit_lat, , __set_bit(0, W(p)), )
AC_LOOP(k___set_bit_tput, , __set_bit(0, W(AC_LINE(p, i))), )
AC_LOOP(k_cmpxchg_lat, u64 a = c->scratch, a = cmpxchg((u64 *)p, a, a), SINK(a))
AC_LOOP(k_cmpxchg_tput, u64 a = c->scratch, a = cmpxchg((u64 *)AC_LINE(p, i), a, a), SINK(a))
AC_LOOP(k_cmpxchg_local_lat, u64 a = c->scratch, a = cmpxchg_local((u64 *)p, a, a), SINK(a))
AC_LOOP(k_cmpxchg_local_tput, u64 a = c->scratch,
	a = cmpxchg_local((u64 *)AC_LINE(p, i), a, a), SINK(a))

/* The kernel's function, beside the user-space probe of its name. */
#define KFN_PAIR(nm, tw)							\
	{ .name = #nm, .twin = #tw, .analog = #nm, .what = k_##nm##_lat_what,	\
	  .fn = k_##nm##_lat, .ops = AC_UNROLL, .irqs = AC_IRQS_RUNNER },	\
	{ .name = #nm ":tput", .twin = #tw ":tput", .analog = #nm,		\
	  .what = k_##nm##_tput_what, .fn = k_##nm##_tput, .ops = AC_UNROLL,	\
	  .irqs = AC_IRQS_RUNNER }

const struct ac_probe ac_kfn_probes[] = {
	KFN_PAIR(set_bit, __set_bit),
	KFN_PAIR(__set_bit, set_bit),
	KFN_PAIR(cmpxchg, cmpxchg_local),
	KFN_PAIR(cmpxchg_local, cmpxchg),
};
const unsigned int ac_kfn_nprobes = sizeof(ac_kfn_probes) / sizeof(ac_kfn_probes[0]);
