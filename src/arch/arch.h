/* SPDX-License-Identifier: MIT */
/* arch.h - the only place that tests the target architecture.
 *
 * Each architecture header offers the same small API (timer, calibration
 * chains, one inline function or macro per primitive) and ARCH_HAS_*
 * capability macros; probes test capabilities, never architectures.
 *
 * Common API every arch provides:
 *   ARCH_NAME, ARCH_ATOMICS_IMPL ("asm", "asm-lse", "asm-llsc", "c11")
 *   void arch_init(void)                         detect CPU features once
 *   uint64_t arch_timer_start(void), arch_timer_stop(void)
 *   const char *arch_timer_name(void)
 *   void arch_add_chain(uint64_t iters)          64 dependent 1-cycle adds per iteration
 *   void arch_mul_chain(uint64_t iters)          64 dependent multiplies per iteration
 *   ARCH_MUL_LATENCY                             cycles per multiply in that chain
 *   void arch_cpu_relax(void)
 *   int arch_core_facts(struct core_facts *f)    the core's CPUID facts (src/model/core.h)
 */
#ifndef ATOMCOST_ARCH_H
#define ATOMCOST_ARCH_H

/* Under __KERNEL__ (kernel/, the atomcost.ko module) the same op
 * definitions compile against the kernel's types; what only user space has
 * (rseq, the placed loops, libc) is left out there. */
#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#endif

/* The architecture headers refuse to be included other than from here
 * (Concurrency Kit's gcc/<arch>/ck_pr.h way): #error without this token. */
#define ATOMCOST_ARCH_INSIDE 1
#if defined(ATOMCOST_GENERIC)
#include "arch/generic.h"
#elif defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#else
#include "arch/generic.h"
#endif
#undef ATOMCOST_ARCH_INSIDE

#ifndef __KERNEL__
/* What the CPU itself says of a hypervisor, asked once (never in timed
 * code): 1 with its signature in sig (x86-64: CPUID leaf 0x40000000 when
 * CPUID.1 sets the hypervisor bit: "KVMKVMKVM", qemu TCG's "TCGTCGTCGTCG";
 * "" when the leaf is empty), 0 when it says there is none, -1 where the
 * architecture has no such question (arm64, generic: clock.c asks DMI and
 * the device tree). */
#if ARCH_HAS_CPUID
int arch_hypervisor_sig(char sig[13]);
#else
static inline int arch_hypervisor_sig(char sig[13])
{
	sig[0] = '\0';
	return -1;
}
#endif
#endif

/* Stand-ins for x86-only forms on architectures without them: segment-
 * relative per-CPU addressing and the UP-patched `ds` form. They only let
 * shared code compile; code tests the capability and never times them. */
#if !ARCH_HAS_SEG_PERCPU
#define ARCH_INSN_PERCPU_CMPXCHG "(no segment-relative per-CPU form on this architecture)"
#define ARCH_INSN_PERCPU_CMPXCHG128 ARCH_INSN_PERCPU_CMPXCHG
static inline uintptr_t arch_percpu_offset(const void *v)
{
	return (uintptr_t)v;
}
static inline uint64_t arch_percpu_cmpxchg(uintptr_t off, uint64_t old, uint64_t nw)
{
	return arch_cmpxchg_nl((volatile void *)off, old, nw);
}
static inline bool arch_percpu_cmpxchg128(uintptr_t off, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
	return arch_cmpxchg128_nl((volatile void *)off, old, nlo, nhi);
}
#endif
#if !ARCH_HAS_DS_PREFIX
#define ARCH_INSN_SET_BIT_IMM_DS "(no ds-prefix form on this architecture)"
#endif

#ifndef __KERNEL__
/* The facts that identify the core (core.h: vendor, family and model,
 * features, per-core L1D and L2, hybrid core type, hypervisor vendor),
 * read once, outside any timed region: 0, or -EOPNOTSUPP where this build
 * reads none (arm64, the generic C11 build). */
struct core_facts;
#if ARCH_HAS_CPUID
int arch_core_facts(struct core_facts *f);
#else
static inline int arch_core_facts(struct core_facts *f)
{
	(void)f;
	return -EOPNOTSUPP;
}
#endif
#endif

/* Unrolling helpers shared by every architecture: OPS64(OP) expands to
 * OP(0) OP(1) ... OP(63) with constant indexes, so an op on "line i" becomes
 * a displacement, not an address computation. */
#define OPS8_(OP, b) OP((b) + 0) OP((b) + 1) OP((b) + 2) OP((b) + 3) \
		     OP((b) + 4) OP((b) + 5) OP((b) + 6) OP((b) + 7)
#define OPS64(OP) OPS8_(OP, 0) OPS8_(OP, 8) OPS8_(OP, 16) OPS8_(OP, 24) \
		  OPS8_(OP, 32) OPS8_(OP, 40) OPS8_(OP, 48) OPS8_(OP, 56)
#define UNROLL 64

/* Independent (throughput) forms spread their ops over this many lines. */
#define TPUT_LINES 32

#endif
