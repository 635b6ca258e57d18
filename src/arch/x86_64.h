/* SPDX-License-Identifier: MIT */
/* arch/x86_64.h - x86-64: fenced TSC, calibration chains, and every timed
 * primitive as one asm statement.
 *
 * Each primitive is `asm volatile` with a "memory" clobber so that the
 * compiler can neither merge repeated ops nor move them across each other;
 * the memory operand is "+m" so the compiler picks a displacement addressing
 * mode (OPS64 offsets become displacements). Each probe's .kernel_src
 * names the kernel file (ARCH_KSRC_*) and macro whose instruction it runs.
 */
#ifndef ATOMCOST_ARCH_INSIDE
#error "include arch/arch.h, not arch/x86_64.h: arch.h picks the architecture"
#endif
#ifndef ATOMCOST_ARCH_X86_64_H
#define ATOMCOST_ARCH_X86_64_H

#ifndef __KERNEL__
#include <stdbool.h>
#include <stdint.h>
#endif

#define ARCH_NAME "x86_64"
#define ARCH_ATOMICS_IMPL "asm"
#define ARCH_TIMER_IS_CYCLE_CLOCK 1	/* TSC: calibrated to core cycles */
#define ARCH_HAS_LOCAL_RMW 1	/* unlocked RMW instructions exist (cmpxchg_local) */
#define ARCH_HAS_CMPXCHG128 1	/* cmpxchg16b (cx16) */
#define ARCH_HAS_CPUID 1	/* arch_hypervisor_sig, arch_core_facts (x86_64.c) */
#define ARCH_HAS_SEG_PERCPU 1	/* %fs:-relative ops, the this_cpu_* form */
#define ARCH_HAS_DS_PREFIX 1	/* UP-patched `ds` form of locked ops */
#define ARCH_HAS_LLSC 0
#define ARCH_HAS_LSE 0
#define ARCH_HAS_SPLIT_LOCK 1	/* a locked RMW may straddle two lines (src/splitlock.c) */

extern bool arch_x86_have_rdtscp;

void arch_init(void);

/* Timer: `lfence; rdtsc; lfence` before (lfence is dispatch-serializing on
 * AMD with the LFENCE_RDTSC bit Linux sets, and on Intel): the timed code
 * cannot start before the read. Never cpuid: in a VM it exits to the
 * hypervisor (microseconds). */
static inline uint64_t arch_timer_start(void)
{
	uint32_t lo, hi;

	asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* After: `rdtscp; lfence` (rdtscp waits for earlier instructions to
 * execute); guests without rdtscp (seen on our KVM machines) use the same
 * fenced rdtsc as the start, so the overhead still cancels in N/2N. */
static inline uint64_t arch_timer_stop(void)
{
	uint32_t lo, hi, aux;

	if (arch_x86_have_rdtscp)
		asm volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	else
		asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline const char *arch_timer_name(void)
{
	return arch_x86_have_rdtscp ? "lfence;rdtsc;lfence .. rdtscp;lfence"
				    : "lfence;rdtsc;lfence .. lfence;rdtsc;lfence (no rdtscp)";
}

static inline void arch_cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

/* 64 dependent adds per iteration; the addend comes from a register built
 * opaquely (mov $-1; neg) because an immediate addend lets some cores run the
 * chain faster than one add per cycle (docs/method.md). */
static inline void arch_add_chain(uint64_t iters)
{
	uint64_t one, acc = 0;

	asm volatile("mov $-1, %[one]\n\tneg %[one]" : [one] "=r"(one));
	for (uint64_t i = 0; i < iters; i++)
		asm volatile(".rept 64\n\tadd %[one], %[acc]\n\t.endr"
			     : [acc] "+r"(acc) : [one] "r"(one));
}

/* 64 dependent 64-bit imuls (3-cycle latency on every x86-64 core we know). */
#define ARCH_MUL_LATENCY 3
static inline void arch_mul_chain(uint64_t iters)
{
	uint64_t one, acc = 1;

	asm volatile("mov $-1, %[one]\n\tneg %[one]" : [one] "=r"(one));
	for (uint64_t i = 0; i < iters; i++)
		asm volatile(".rept 64\n\timul %[one], %[acc]\n\t.endr"
			     : [acc] "+r"(acc) : [one] "r"(one));
}

/* Where the kernel defines each primitive on this architecture (probe
 * .kernel_src: this file, then the macro or function the probe mirrors). */
#define ARCH_KSRC_BITOPS "arch/x86/include/asm/bitops.h"
#define ARCH_KSRC_BITOPS_NL "arch/x86/include/asm/bitops.h"
#define ARCH_KSRC_CMPXCHG "arch/x86/include/asm/cmpxchg.h"
#define ARCH_KSRC_CMPXCHG128 "arch/x86/include/asm/cmpxchg_64.h"
#define ARCH_KSRC_ATOMIC "arch/x86/include/asm/atomic64_64.h"
#define ARCH_KSRC_LOCAL "arch/x86/include/asm/local.h"
#define ARCH_KSRC_PERCPU "arch/x86/include/asm/percpu.h"
#define ARCH_KSRC_PREEMPT "arch/x86/include/asm/preempt.h"
#define ARCH_KSRC_IRQFLAGS "arch/x86/include/asm/irqflags.h"

/* ---- primitives ---------------------------------------------------------
 * Naming: arch_<op> is the atomic form, arch_<op>_nl the same instruction
 * without lock (non-atomic, or local-only where the kernel calls it so).
 */
#define X86_M8(p) (*(volatile uint8_t *)(p))
#define X86_M64(p) (*(volatile uint64_t *)(p))

/* The kernel's arch/x86/include/asm/bitops.h: set_bit with a constant nr is
 * `lock orb $CONST_MASK, CONST_MASK_ADDR` (the byte holding the bit), but
 * __set_bit is always `btsq` ("Ir": `btsq $nr,mem` for a constant nr).
 * The plain `orb` is what C `*byte |= mask` compiles to: a different
 * primitive (arch_or_byte_nl), never __set_bit. */
#define ARCH_INSN_SET_BIT_IMM "lock orb $imm8,mem"
#define ARCH_INSN___SET_BIT_IMM "btsq $nr,mem"
#define ARCH_INSN_OR_BYTE_NL "orb $imm8,mem (what C *byte |= mask compiles to)"
#define ARCH_INSN_SET_BIT_IMM_DS "ds orb $imm8,mem (0x3e prefix, UP-patched lock)"
/* set_bit(const nr): byte OR with the immediate mask 1 << (nr & 7), on the
 * byte that holds the bit (callers pass the mask and that byte). */
#define arch_set_bit_imm(p, mask) \
	asm volatile("lock orb %[k], %[m]" : [m] "+m"(X86_M8(p)) : [k] "i"(mask) : "memory")
/* __set_bit(const nr): `btsq $nr, word` (nr < 64, a compile-time constant). */
#define arch___set_bit_imm(p, nr) \
	asm volatile("btsq %[n], %[m]" : [m] "+m"(X86_M64(p)) : [n] "J"(nr) : "memory", "cc")
/* C `*byte |= mask`: a plain byte OR with an immediate. */
#define arch_or_byte_nl(p, mask) \
	asm volatile("orb %[k], %[m]" : [m] "+m"(X86_M8(p)) : [k] "i"(mask) : "memory", "cc")
#define arch_set_bit_imm_ds(p, mask) \
	asm volatile(".byte 0x3e\n\torb %[k], %[m]" : [m] "+m"(X86_M8(p)) : [k] "i"(mask) : "memory")

/* arch_<op>(args) and arch_<op>_nl: `lock insn %reg,mem` and the same
 * instruction unlocked, on the 64-bit word at p, with reg the operand.
 * X86_TWINS(def) does the same for other shapes: def(suffix, prefix)
 * defines arch_<op><suffix> with its asm string starting with prefix. */
#define X86_TWINS(def) def(, "lock ") def(_nl, "")
#define X86_RMW_REG(op, insn, args, reg)					\
	static inline void arch_##op args					\
	{									\
		asm volatile("lock " insn " %[r], %[m]"				\
			     : [m] "+m"(X86_M64(p)) : [r] "r"(reg) : "memory");	\
	}									\
	static inline void arch_##op##_nl args					\
	{									\
		asm volatile(insn " %[r], %[m]"					\
			     : [m] "+m"(X86_M64(p)) : [r] "r"(reg) : "memory");	\
	}

#define ARCH_INSN_SET_BIT_VAR "lock btsq %reg,mem"
#define ARCH_INSN_SET_BIT_VAR_NL "btsq %reg,mem"
/* set_bit(variable nr): nr must be < 64 (bts with a register index addresses
 * outside the word otherwise; callers mask it). */
X86_RMW_REG(set_bit_var, "btsq", (uint64_t nr, volatile void *p), nr)

#define ARCH_INSN_OR_WORD "lock orq %reg,mem"
#define ARCH_INSN_OR_WORD_NL "orq %reg,mem (what C |= compiles to)"
X86_RMW_REG(or_word, "orq", (volatile void *p, uint64_t mask), mask)

/* clear_bit(const nr): `lock andb $~mask` on the byte; __clear_bit(const
 * nr): `btrq $nr` (arch___clear_bit). clear_bit_unlock is barrier() +
 * clear_bit, __clear_bit_unlock barrier() + __clear_bit on x86. */
#define ARCH_INSN_CLEAR_BIT_IMM "lock andb $~imm8,mem"
#define ARCH_INSN___CLEAR_BIT_IMM "btrq $nr,mem"
#define arch_clear_bit_imm(p, mask) \
	asm volatile("lock andb %[k], %[m]" : [m] "+m"(X86_M8(p)) : [k] "i"((uint8_t)~(mask)) : "memory")
#define arch___clear_bit_imm(p, nr) \
	asm volatile("btrq %[n], %[m]" : [m] "+m"(X86_M64(p)) : [n] "J"(nr) : "memory", "cc")

/* change_bit(const nr): `lock xorb $mask` on the byte that holds the bit
 * (arch_change_bit, CONST_MASK_ADDR, as set_bit); __change_bit(const nr):
 * `btcq $nr` (arch___change_bit). */
#define ARCH_INSN_CHANGE_BIT_IMM "lock xorb $imm8,mem"
#define ARCH_INSN___CHANGE_BIT_IMM "btcq $nr,mem"
#define arch_change_bit_imm(p, mask) \
	asm volatile("lock xorb %[k], %[m]" : [m] "+m"(X86_M8(p)) : [k] "i"(mask) : "memory")
#define arch___change_bit_imm(p, nr) \
	asm volatile("btcq %[n], %[m]" : [m] "+m"(X86_M64(p)) : [n] "J"(nr) : "memory", "cc")

#define ARCH_INSN_CLEAR_BIT_VAR "lock btrq %reg,mem"
#define ARCH_INSN_CLEAR_BIT_VAR_NL "btrq %reg,mem"
X86_RMW_REG(clear_bit_var, "btrq", (uint64_t nr, volatile void *p), nr)

#define ARCH_INSN_TEST_AND_SET_BIT "lock btsq %reg,mem; setc"
#define ARCH_INSN_TEST_AND_SET_BIT_NL "btsq %reg,mem; setc"
/* Returns the old bit. Fully ordered (locked) / non-atomic. "Jr" as the
 * kernel's "Ir": a constant nr (bit_spin_lock) becomes `btsq $nr`. */
#define X86_TEST_AND_SET_BIT(sfx, lk)						\
	static inline bool arch_test_and_set_bit##sfx(uint64_t nr, volatile void *p) \
	{									\
		bool old;							\
										\
		asm volatile(lk "btsq %[n], %[m]"				\
			     : [m] "+m"(X86_M64(p)), "=@ccc"(old) : [n] "Jr"(nr) : "memory");	\
		return old;							\
	}
X86_TWINS(X86_TEST_AND_SET_BIT)

#define ARCH_INSN_CMPXCHG "lock cmpxchgq %reg,mem"
#define ARCH_INSN_CMPXCHG_NL "cmpxchgq %reg,mem"
/* Returns the value seen in memory (== old on success). */
#define X86_CMPXCHG(sfx, lk)							\
	static inline uint64_t arch_cmpxchg##sfx(volatile void *p, uint64_t old, uint64_t nw) \
	{									\
		asm volatile(lk "cmpxchgq %[n], %[m]"				\
			     : [m] "+m"(X86_M64(p)), "+a"(old) : [n] "r"(nw) : "memory");	\
		return old;							\
	}
X86_TWINS(X86_CMPXCHG)

#define ARCH_INSN_TRY_CMPXCHG "lock cmpxchgq %reg,mem; flags (ZF) consumed"
#define ARCH_INSN_TRY_CMPXCHG_NL "cmpxchgq %reg,mem; flags (ZF) consumed"
/* try_cmpxchg: true on success; on failure *old receives the value seen. */
#define X86_TRY_CMPXCHG(sfx, lk)						\
	static inline bool arch_try_cmpxchg##sfx(volatile void *p, uint64_t *old, uint64_t nw) \
	{									\
		bool ok;							\
										\
		asm volatile(lk "cmpxchgq %[n], %[m]"				\
			     : [m] "+m"(X86_M64(p)), "+a"(*old), "=@ccz"(ok)		\
			     : [n] "r"(nw) : "memory");					\
		return ok;							\
	}
X86_TWINS(X86_TRY_CMPXCHG)

#define ARCH_INSN_XCHG "xchgq %reg,mem (implicitly locked)"
#define ARCH_INSN_XCHG_NL "movq mem,%tmp; movq %reg,mem"
static inline uint64_t arch_xchg(volatile void *p, uint64_t v)
{
	asm volatile("xchgq %[v], %[m]" : [m] "+m"(X86_M64(p)), [v] "+r"(v) : : "memory");
	return v;
}
static inline uint64_t arch_xchg_nl(volatile void *p, uint64_t v)
{
	uint64_t old;

	asm volatile("movq %[m], %[o]\n\tmovq %[v], %[m]"
		     : [m] "+m"(X86_M64(p)), [o] "=&r"(old) : [v] "r"(v) : "memory");
	return old;
}

#define ARCH_INSN_XADD "lock xaddq %reg,mem"
#define ARCH_INSN_XADD_NL "xaddq %reg,mem"
/* Returns the old value. */
#define X86_XADD(sfx, lk)							\
	static inline uint64_t arch_xadd##sfx(volatile void *p, uint64_t v)	\
	{									\
		asm volatile(lk "xaddq %[v], %[m]"				\
			     : [m] "+m"(X86_M64(p)), [v] "+r"(v) : : "memory");		\
		return v;							\
	}
X86_TWINS(X86_XADD)

#define ARCH_INSN_INC "lock incq mem"
#define ARCH_INSN_INC_NL "incq mem"
#define X86_INC(sfx, lk)							\
	static inline void arch_inc##sfx(volatile void *p)			\
	{									\
		asm volatile(lk "incq %[m]" : [m] "+m"(X86_M64(p)) : : "memory");	\
	}
X86_TWINS(X86_INC)

#define ARCH_INSN_ADD "lock addq %reg,mem"
X86_RMW_REG(add, "addq", (volatile void *p, uint64_t v), v)

#define ARCH_INSN_CMPXCHG128 "lock cmpxchg16b mem"
#define ARCH_INSN_CMPXCHG128_NL "cmpxchg16b mem"
/* 16-byte compare-and-exchange; p must be 16-byte aligned. old[0..1] is
 * {lo, hi}; on return it holds the value seen. Returns true on success. */
#define X86_CMPXCHG128(sfx, lk)							\
	static inline bool arch_cmpxchg128##sfx(volatile void *p, uint64_t *old, uint64_t nlo,	\
						uint64_t nhi)			\
	{									\
		bool ok;							\
										\
		asm volatile(lk "cmpxchg16b %[m]"				\
			     : [m] "+m"(*(volatile __int128 *)p), "+a"(old[0]), "+d"(old[1]),	\
			       "=@ccz"(ok)					\
			     : "b"(nlo), "c"(nhi) : "memory");			\
		return ok;							\
	}
X86_TWINS(X86_CMPXCHG128)

#define ARCH_INSN_PERCPU_CMPXCHG "cmpxchgq %reg,%fs:(%off) (this_cpu_cmpxchg form)"
/* The this_cpu form: one unlocked cmpxchg addressed through the segment
 * base, as the kernel's `cmpxchgq %reg,%gs:var`. `off` is the variable's
 * offset from the thread pointer (arch_percpu_offset). */
static inline uint64_t arch_percpu_cmpxchg(uintptr_t off, uint64_t old, uint64_t nw)
{
	asm volatile("cmpxchgq %[n], %%fs:(%[o])" : "+a"(old) : [n] "r"(nw), [o] "r"(off) : "memory");
	return old;
}
/* The same with a constant displacement (disp must be a compile-time
 * constant): `cmpxchgq %reg,%fs:disp(%off)`. */
#define arch_percpu_cmpxchg_disp(off, disp, old, nw) ({				\
	uint64_t o_ = (old);							\
	asm volatile("cmpxchgq %[n], %%fs:%c[d](%[o])"				\
		     : "+a"(o_) : [n] "r"(nw), [o] "r"(off), [d] "i"(disp) : "memory");	\
	o_; })
static inline uintptr_t arch_percpu_offset(const void *tls_var)
{
	return (uintptr_t)tls_var - (uintptr_t)__builtin_thread_pointer();
}

#define ARCH_INSN_PERCPU_INC "incq %fs:var (this_cpu_inc form)"
#define ARCH_INSN_PERCPU_ADD "addq %reg,%fs:var (this_cpu_add form)"
/* this_cpu_inc, this_cpu_add: one unlocked RMW of a per-CPU variable through
 * the segment base, as the kernel's percpu_add_op emits them (`incq
 * %gs:var` for 1, `addq %reg,%gs:var` for a run-time value): atomic against
 * this CPU's interrupts, not against other CPUs. var names a file-scope
 * local-exec TLS variable (__attribute__((used))) and disp is a constant, so
 * the operand is %fs:var@tpoff+disp, an absolute displacement with no base
 * register, as the kernel's %gs:var. Written out in the asm because gcc,
 * given a TLS array as an "m" operand, hoists the offset into a base register
 * (%fs:(%reg)), and Zen's memory renaming then forwards a chain of them at 1
 * cycle where the kernel's absolute form takes about 7. */
#define arch_percpu_inc(var, disp) \
	asm volatile("incq %%fs:" #var "@tpoff+%c[d]" : : [d] "i"(disp) : "memory", "cc")
#define arch_percpu_add(var, disp, val) \
	asm volatile("addq %[v], %%fs:" #var "@tpoff+%c[d]" : : [v] "r"(val), [d] "i"(disp) : "memory", "cc")

/* Plain load and store, for baselines. */
#define ARCH_INSN_LOAD "movq mem,%reg"
#define ARCH_INSN_STORE "movq %reg,mem"
static inline uint64_t arch_load(const volatile void *p)
{
	uint64_t v;

	asm volatile("movq %[m], %[v]" : [v] "=r"(v) : [m] "m"(*(const volatile uint64_t *)p) : "memory");
	return v;
}
static inline void arch_store(volatile void *p, uint64_t v)
{
	asm volatile("movq %[v], %[m]" : [m] "=m"(X86_M64(p)) : [v] "r"(v) : "memory");
}

/* Full barrier as the kernel's smp_mb() (a locked add to the stack). */
static inline void arch_smp_mb(void)
{
	asm volatile("lock addl $0, -4(%%rsp)" ::: "memory", "cc");
}

/* Read barrier as the x86-64 kernels of 2007 had smp_rmb() (= rmb() under
 * CONFIG_SMP, include/asm-x86_64/system.h): `lfence`, which on AMD with the
 * LFENCE_RDTSC bit and on Intel also waits for every earlier instruction.
 * Later kernels made x86's smp_rmb() a compiler barrier (loads are not
 * reordered with loads there): this is the historical form, for the 2007
 * SLUB reproduction. */
#define ARCH_INSN_SMP_RMB "lfence"
static inline void arch_smp_rmb(void)
{
	asm volatile("lfence" ::: "memory");
}

/* ---- ordering: barriers, acquire/release, lock/unlock bitops ------------
 * As arch/x86/include/asm/barrier.h and bitops.h emit them (probes/ordering.c).
 * x86 is TSO: only a store followed by a load to another address may be
 * reordered, so smp_rmb, smp_wmb and smp_mb__{before,after}_atomic are
 * barrier() and release/acquire are plain moves; smp_mb() is the locked add
 * of arch_smp_mb (since 4.15: cheaper than mb()'s mfence, which also orders
 * non-temporal stores and WC memory). Each "memory" clobber is the barrier(). */
#define ARCH_KSRC_BARRIER "arch/x86/include/asm/barrier.h"
#define ARCH_KSRC_BITOPS_LOCK "arch/x86/include/asm/bitops.h"
#define ARCH_INSN_BARRIER "barrier() (no instruction)"
#define ARCH_INSN_SMP_MB "lock addl $0,-4(%rsp)"
#define ARCH_INSN_MB "mfence"
#define ARCH_INSN_RMB ARCH_INSN_SMP_RMB
#define ARCH_INSN_WMB "sfence"
#define ARCH_INSN_SMP_RMB_NOW ARCH_INSN_BARRIER
#define ARCH_INSN_SMP_WMB ARCH_INSN_BARRIER
#define ARCH_INSN_MB_AROUND_ATOMIC ARCH_INSN_BARRIER
#define ARCH_INSN_STORE_RELEASE "movq %reg,mem (release: a plain store)"
#define ARCH_INSN_LOAD_ACQUIRE "movq mem,%reg (acquire: a plain load)"
#define ARCH_INSN_CLEAR_BIT_UNLOCK ARCH_INSN_CLEAR_BIT_IMM
#define ARCH_INSN___CLEAR_BIT_UNLOCK ARCH_INSN___CLEAR_BIT_IMM
#define ARCH_INSN_TEST_AND_SET_BIT_LOCK ARCH_INSN_TEST_AND_SET_BIT
static inline void arch_barrier(void)
{
	asm volatile("" ::: "memory");
}
static inline void arch_mb(void)
{
	asm volatile("mfence" ::: "memory");
}
static inline void arch_wmb(void)
{
	asm volatile("sfence" ::: "memory");
}
#define arch_rmb arch_smp_rmb	/* lfence: the 2007 smp_rmb was rmb() */
#define arch_smp_rmb_now arch_barrier	/* smp_rmb() of current kernels */
#define arch_smp_wmb arch_barrier
#define arch_smp_mb__before_atomic arch_barrier
#define arch_smp_mb__after_atomic arch_barrier
#define arch_smp_store_release(p, v) arch_store(p, v)
#define arch_smp_load_acquire(p) arch_load(p)
/* clear_bit_unlock is barrier(); clear_bit (`lock andb`), __clear_bit_unlock
 * barrier(); __clear_bit (`btrq`: an x86 store is a release), and
 * test_and_set_bit_lock is test_and_set_bit (`lock btsq`). */
#define arch_clear_bit_unlock(p, mask) arch_clear_bit_imm(p, mask)
#define arch___clear_bit_unlock(p, nr) arch___clear_bit_imm(p, nr)
#define arch_test_and_set_bit_lock(nr, p) arch_test_and_set_bit(nr, p)

/* Lock-word primitives and rseq per-CPU critical sections. */
#include "arch/x86_64-rseq.h"

/* ---- reproductions of published scorings ----------------------
 * What the reproductions (src/repro/) need beyond the primitives above. Other architectures
 * leave these capabilities undefined (treated as 0) and the reproductions
 * say which variant cannot run there.
 *   ARCH_HAS_TIMER_RAW   arch_timer_raw(): the unserialized counter read the
 *                        2004 program used (rdtsc alone, no fences)
 *   ARCH_HAS_BIT32_IMM   arch_bts32_imm / _nl: `lock btsl $nr,mem` / `btsl`,
 *                        the 2004 program's set_bit / __set_bit (i386)
 *   ARCH_HAS_SEG_PERCPU128 arch_percpu_cmpxchg128: `cmpxchg16b %fs:(off)`,
 *                        the this_cpu_cmpxchg128 form
 */
#define ARCH_HAS_TIMER_RAW 1
#define ARCH_HAS_BIT32_IMM 1
#define ARCH_HAS_SEG_PERCPU128 1

/* A bare rdtsc: earlier instructions may still be in flight and later ones
 * may start before it. Only the legacy 2004 mode uses it, on purpose. */
static inline uint64_t arch_timer_raw(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* i386 set_bit/__set_bit of 2004 with a constant nr (< 32): 32-bit bts with
 * an immediate bit number. Fully ordered (locked) / non-atomic. */
#define arch_bts32_imm(p, nr) \
	asm volatile("lock btsl %[n], %[m]" : [m] "+m"(*(volatile uint32_t *)(p)) : [n] "I"(nr) : "memory", "cc")
#define arch_bts32_imm_nl(p, nr) \
	asm volatile("btsl %[n], %[m]" : [m] "+m"(*(volatile uint32_t *)(p)) : [n] "I"(nr) : "memory", "cc")

#define ARCH_INSN_PERCPU_CMPXCHG128 "cmpxchg16b %fs:(%off) (this_cpu_cmpxchg128 form)"
/* this_cpu_cmpxchg128: unlocked cmpxchg16b addressed through the segment
 * base, as the kernel's `cmpxchg16b %gs:var`. off from arch_percpu_offset();
 * the variable must be 16-byte aligned. old[0..1] = {lo, hi} receives the
 * value seen. True on success. */
static inline bool arch_percpu_cmpxchg128(uintptr_t off, uint64_t *old, uint64_t nlo, uint64_t nhi)
{
	bool ok;

	asm volatile("cmpxchg16b %%fs:(%[o])"
		     : "+a"(old[0]), "+d"(old[1]), "=@ccz"(ok)
		     : "b"(nlo), "c"(nhi), [o] "r"(off) : "memory");
	return ok;
}

/* Timed loops placed at chosen code addresses (code-alignment experiment);
 * user space only. */
#ifndef __KERNEL__
#include "arch/x86_64-align.h"
#endif

#endif
