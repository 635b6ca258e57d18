// SPDX-License-Identifier: MIT
/* ops.c - the probes whose op is one of src/arch's definitions, the very
 * asm statements the user-space probes time (probes/bitops.c,
 * probes/cmpxchg.c), here run inside the kernel with irqs off: NAME:asm,
 * each beside the kernel's own NAME (kops.c).
 *
 * Latency form: the same word every op (a memory chain); throughput form
 * ("<name>:tput"): op i on line i % AC_LINES. cmpxchg always succeeds (the
 * word and the expected value are 0), so every op writes. */
#include <linux/types.h>

#include "arch/arch.h"
#include "atomcost.h"

#define SINK(v) asm volatile("" : : "r"(v))

AC_LOOP(set_bit_lat, , arch_set_bit_imm(p, 1), )
AC_LOOP(set_bit_tput, , arch_set_bit_imm(AC_LINE(p, i), 1), )
AC_LOOP(__set_bit_lat, , arch___set_bit_imm(p, 0), )
AC_LOOP(__set_bit_tput, , arch___set_bit_imm(AC_LINE(p, i), 0), )
AC_LOOP(cmpxchg_lat, u64 a = c->scratch, a = arch_cmpxchg(p, a, a), SINK(a))
AC_LOOP(cmpxchg_tput, u64 a = c->scratch, a = arch_cmpxchg(AC_LINE(p, i), a, a), SINK(a))
AC_LOOP(cmpxchg_local_lat, u64 a = c->scratch, a = arch_cmpxchg_nl(p, a, a), SINK(a))
AC_LOOP(cmpxchg_local_tput, u64 a = c->scratch, a = arch_cmpxchg_nl(AC_LINE(p, i), a, a), SINK(a))

#define OP_PAIR(nm, tw, insn)							\
	{ .name = #nm ":asm", .twin = #tw ":asm", .analog = #nm, .what = insn,	\
	  .fn = nm##_lat, .ops = AC_UNROLL, .irqs = AC_IRQS_RUNNER },		\
	{ .name = #nm ":asm:tput", .twin = #tw ":asm:tput", .analog = #nm,	\
	  .what = insn, .fn = nm##_tput, .ops = AC_UNROLL, .irqs = AC_IRQS_RUNNER }

const struct ac_probe ac_op_probes[] = {
	OP_PAIR(set_bit, __set_bit, ARCH_INSN_SET_BIT_IMM),
	OP_PAIR(__set_bit, set_bit, ARCH_INSN___SET_BIT_IMM),
	OP_PAIR(cmpxchg, cmpxchg_local, ARCH_INSN_CMPXCHG),
	OP_PAIR(cmpxchg_local, cmpxchg, ARCH_INSN_CMPXCHG_NL),
};
const unsigned int ac_op_nprobes = sizeof(ac_op_probes) / sizeof(ac_op_probes[0]);
