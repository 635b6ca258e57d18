/* SPDX-License-Identifier: MIT */
/* arch/x86_64-rseq.h - x86-64 lock-word primitives and restartable-sequence
 * (rseq) per-CPU operations, for probes/locks.c and probes/percpu.c.
 *
 * Included at the end of arch/x86_64.h. Like the rest of that header, every
 * primitive is one `asm volatile` with a "memory" clobber, so the compiler can
 * neither merge nor reorder them; the comment on each says what the kernel
 * executes for the same thing.
 *
 * Capabilities (other architectures leave them undefined, probes treat
 * undefined as 0):
 *   ARCH_HAS_LOCK_INSNS  lock-word ops below (32-bit cmpxchg, byte release
 *                        store, xadd ticket, the qspinlock's byte and
 *                        half-word parts, 32-bit atomic_t ops, flags save)
 *   ARCH_HAS_RSEQ        hand-written rseq critical sections below
 */
#ifndef ATOMCOST_ARCH_INSIDE
#error "include arch/arch.h, not arch/x86_64-rseq.h: arch.h picks the architecture"
#endif
#ifndef ATOMCOST_ARCH_X86_64_RSEQ_H
#define ATOMCOST_ARCH_X86_64_RSEQ_H

#ifndef __KERNEL__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#define ARCH_HAS_LOCK_INSNS 1

#define X86_M32(p) (*(volatile uint32_t *)(p))
#define X86_M16(p) (*(volatile uint16_t *)(p))

/* ---- lock words ---------------------------------------------------------- */

/* The queued spinlock fast path: atomic_try_cmpxchg_acquire(&lock->val, 0, 1).
 * True when the lock was taken. Fully ordered (every locked op is). */
static inline bool arch_lock_cmpxchg32(volatile void *p, uint32_t old, uint32_t nw)
{
	bool ok;

	asm volatile("lock cmpxchgl %[n], %[m]"
		     : [m] "+m"(X86_M32(p)), "+a"(old), "=@ccz"(ok) : [n] "r"(nw) : "memory");
	return ok;
}

/* Test-and-set: returns the old word. */
static inline uint32_t arch_xchg32(volatile void *p, uint32_t v)
{
	asm volatile("xchgl %[v], %[m]" : [m] "+m"(X86_M32(p)), [v] "+r"(v) : : "memory");
	return v;
}

/* An atomic byte release (the "atomic unlock" twin of arch_release8). */
static inline uint8_t arch_xchg8(volatile void *p, uint8_t v)
{
	asm volatile("xchgb %[v], %[m]" : [m] "+m"(X86_M8(p)), [v] "+q"(v) : : "memory");
	return v;
}

/* smp_store_release(&lock->locked, 0): a plain byte store. x86 stores are
 * releases (TSO), so the kernel's spin_unlock needs no locked op. */
static inline void arch_release8(volatile void *p)
{
	asm volatile("movb $0, %[m]" : [m] "=m"(X86_M8(p)) : : "memory");
}

/* The same release as a store of the whole 32-bit word: shows what the
 * byte store costs when the next lock reads the word (a narrower store
 * cannot forward to a wider load). */
static inline void arch_release32(volatile void *p)
{
	asm volatile("movl $0, %[m]" : [m] "=m"(X86_M32(p)) : : "memory");
}

/* READ_ONCE of a 32-bit lock word (the read in read-before-RMW spinning). */
static inline uint32_t arch_load32(const volatile void *p)
{
	uint32_t v;

	asm volatile("movl %[m], %[v]" : [v] "=r"(v) : [m] "m"(*(const volatile uint32_t *)p) : "memory");
	return v;
}

/* Ticket lock word: head (now serving) in the low 16 bits, tail (next
 * ticket) in the high 16. Taking a ticket is `lock xaddl $0x10000`; returns
 * the old word. */
static inline uint32_t arch_ticket_take(volatile void *p)
{
	uint32_t v = 0x10000;

	asm volatile("lock xaddl %[v], %[m]" : [m] "+m"(X86_M32(p)), [v] "+r"(v) : : "memory");
	return v;
}

static inline uint16_t arch_ticket_head(const volatile void *p)
{
	uint16_t v;

	asm volatile("movw %[m], %[v]" : [v] "=r"(v) : [m] "m"(*(const volatile uint16_t *)p) : "memory");
	return v;
}

/* Release: the pre-4.2 kernel's `addw $1, head` WITHOUT lock
 * (UNLOCK_LOCK_PREFIX is empty on x86): only the owner writes head, and a
 * concurrent `lock xaddl` on the whole word cannot be lost because the addw
 * writes only the head half. */
static inline void arch_ticket_release(volatile void *p)
{
	asm volatile("addw $1, %[m]" : [m] "+m"(X86_M16(p)) : : "memory", "cc");
}

/* ---- queued spinlock slow path, qrwlock, refcount (32-bit words) ---------
 * The qspinlock word (include/asm-generic/qspinlock_types.h): locked byte
 * at +0, pending byte at +1, tail (CPU + 1 and node index) in the upper 16
 * bits at +2, so the kernel writes each part with a store of its width. */

/* Store a byte / a 16-bit half: set_locked (`movb $1`), clear_pending
 * (`movb $0` at +1), clear_pending_set_locked (`movw $1`): plain stores,
 * releases on x86. */
static inline void arch_store8(volatile void *p, uint8_t v)
{
	asm volatile("movb %[v], %[m]" : [m] "=m"(X86_M8(p)) : [v] "qi"(v) : "memory");
}

static inline void arch_store16(volatile void *p, uint16_t v)
{
	asm volatile("movw %[v], %[m]" : [m] "=m"(X86_M16(p)) : [v] "ri"(v) : "memory");
}

static inline void arch_store32(volatile void *p, uint32_t v)
{
	asm volatile("movl %[v], %[m]" : [m] "=m"(X86_M32(p)) : [v] "ri"(v) : "memory");
}

/* READ_ONCE of the locked byte (smp_cond_load_acquire(&lock->locked, !VAL)). */
static inline uint8_t arch_load8(const volatile void *p)
{
	uint8_t v;

	asm volatile("movb %[m], %[v]" : [v] "=q"(v) : [m] "m"(*(const volatile uint8_t *)p) : "memory");
	return v;
}

/* atomic_try_cmpxchg on a 32-bit word: true on success; on failure *old
 * receives the value seen (the fast path hands it to the slow path). */
static inline bool arch_try_cmpxchg32(volatile void *p, uint32_t *old, uint32_t nw)
{
	bool ok;

	asm volatile("lock cmpxchgl %[n], %[m]"
		     : [m] "+m"(X86_M32(p)), "+a"(*old), "=@ccz"(ok) : [n] "r"(nw) : "memory");
	return ok;
}

/* xchg_tail: `xchgw` of the tail half (the kernel's form for NR_CPUS <
 * 16K); returns the old half. */
static inline uint16_t arch_xchg16(volatile void *p, uint16_t v)
{
	asm volatile("xchgw %[v], %[m]" : [m] "+m"(X86_M16(p)), [v] "+r"(v) : : "memory");
	return v;
}

/* queued_fetch_set_pending_acquire (arch/x86/include/asm/qspinlock.h):
 * `lock btsl $nr` and the old bit from CF. */
static inline bool arch_test_and_set_bit32(volatile void *p, unsigned nr)
{
	bool old;

	asm volatile("lock btsl %[n], %[m]" : [m] "+m"(X86_M32(p)), "=@ccc"(old) : [n] "Ir"(nr) : "memory");
	return old;
}

/* atomic_fetch_add on an atomic_t (`lock xaddl`): returns the old value.
 * refcount_inc / refcount_dec_and_test and the qrwlock reader count. */
static inline uint32_t arch_xadd32(volatile void *p, uint32_t v)
{
	asm volatile("lock xaddl %[v], %[m]" : [m] "+m"(X86_M32(p)), [v] "+r"(v) : : "memory");
	return v;
}

/* atomic_inc / atomic_dec_and_test on an atomic_t (`lock incl`, `lock decl;
 * sete`), the unchecked counterparts of refcount_t. */
static inline void arch_inc32(volatile void *p)
{
	asm volatile("lock incl %[m]" : [m] "+m"(X86_M32(p)) : : "memory", "cc");
}

static inline bool arch_dec_and_test32(volatile void *p)
{
	bool z;

	asm volatile("lock decl %[m]" : [m] "+m"(X86_M32(p)), "=@ccz"(z) : : "memory");
	return z;
}

/* atomic_or (`lock orl`): the qrwlock writer's _QW_WAITING. */
static inline void arch_or32(volatile void *p, uint32_t v)
{
	asm volatile("lock orl %[v], %[m]" : [m] "+m"(X86_M32(p)) : [v] "ri"(v) : "memory", "cc");
}

/* this_cpu_inc / this_cpu_dec through a per-CPU pointer held in a register
 * (percpu_ref_get/put: `incq %gs:(%reg)`, `decq %gs:(%reg)`): off from
 * arch_percpu_offset(), the same for every thread as a per-CPU pointer is
 * the same for every CPU. */
static inline void arch_percpu_inc_at(uintptr_t off)
{
	asm volatile("incq %%fs:(%[o])" : : [o] "r"(off) : "memory", "cc");
}

static inline void arch_percpu_dec_at(uintptr_t off)
{
	asm volatile("decq %%fs:(%[o])" : : [o] "r"(off) : "memory", "cc");
}

/* preempt_disable / preempt_enable on a thread-local counter, addressed
 * through %fs as the kernel's `incl %gs:__preempt_count`. var must be a
 * __thread variable with tls_model("local-exec") so the operand becomes
 * %fs:var@tpoff (check the disassembly). The kernel keeps the
 * PREEMPT_NEED_RESCHED bit inverted in the count, so `decl; je` branches only
 * when the count reaches 0 AND a reschedule is due: initialize var to
 * 0x80000000. arch_preempt_dec returns that "resched due" condition. */
#define arch_preempt_inc(var) asm volatile("incl %[c]" : [c] "+m"(var) : : "memory", "cc")
#define arch_preempt_dec(var) ({							\
	bool z_;									\
	asm volatile("decl %[c]" : [c] "+m"(var), "=@ccz"(z_) : : "memory");		\
	z_;										\
})

/* local_irq_save: the kernel runs `pushfq; popq %reg; cli`. cli/sti fault in
 * user space; the flags read is kept and the "irqs off" state goes to a
 * thread-local byte. Returns the flags. */
static inline uint64_t arch_save_flags(void)
{
	uint64_t f;

	asm volatile("pushfq\n\tpopq %[f]" : [f] "=r"(f) : : "memory");
	return f;
}
#define ARCH_FLAGS_IF 0x200ull

/* ---- restartable sequences ---------------------------------------------
 * glibc >= 2.35 registers one struct rseq per thread at the thread pointer
 * plus __rseq_offset: cpu_id_start at +0, cpu_id at +4, rseq_cs at +8.
 * A critical section is: store the address of its struct rseq_cs descriptor
 * (section __rseq_cs) into rseq_cs, then (label 1) compare cpu_id with the
 * CPU whose slot we computed, then the single committing instruction, then
 * (label 2) the end. If the thread is preempted, migrated or signalled
 * between 1 and 2 the kernel moves its IP to the abort handler, which must be
 * preceded by the 4-byte signature glibc registered (RSEQ_SIG 0x53053053,
 * emitted as the operand of a `ud1` so a disassembler stays in sync). The
 * abort handler jumps back to the C retry label.
 * The descriptor is also listed in __rseq_cs_ptr_array, as librseq does, so
 * tools can find every critical section. User space only: the kernel
 * module (__KERNEL__) leaves this part out. */
#ifndef __KERNEL__
#define ARCH_HAS_RSEQ 1

#define X86_RSEQ_CS_BEGIN							\
	".pushsection __rseq_cs, \"aw\"\n\t"					\
	".balign 32\n"								\
	"333:\n\t"								\
	".long 0x0, 0x0\n\t"							\
	".quad 331f, (332f - 331f), 334f\n\t"					\
	".popsection\n\t"							\
	".pushsection __rseq_cs_ptr_array, \"aw\"\n\t"				\
	".quad 333b\n\t"							\
	".popsection\n\t"							\
	"leaq 333b(%%rip), %%rax\n\t"						\
	"movq %%rax, %%fs:8(%[off])\n"						\
	"331:\n\t"								\
	"cmpl %[cpu], %%fs:4(%[off])\n\t"					\
	"jnz 334f\n\t"

#define X86_RSEQ_CS_END(abort)							\
	"332:\n\t"								\
	".pushsection __rseq_failure, \"ax\"\n\t"				\
	".byte 0x0f, 0xb9, 0x3d\n\t"						\
	".long 0x53053053\n"							\
	"334:\n\t"								\
	"jmp %l[" #abort "]\n\t"						\
	".popsection\n\t"

/* cpu_id_start of this thread's rseq area (always a valid CPU number). */
static inline uint32_t arch_rseq_cpu_start(ptrdiff_t rseq_off)
{
	uint32_t cpu;

	asm volatile("movl %%fs:(%[off]), %[c]" : [c] "=r"(cpu) : [off] "r"(rseq_off) : "memory");
	return cpu;
}

#define ARCH_INSN_RSEQ_ADD "addq %reg,(slot) committing rseq: movl %fs:cpu_id_start; movq $cs,%fs:rseq_cs; cmpl cpu,%fs:cpu_id; jnz abort"
/* Per-CPU add: *(base + cpu * stride) += v, committed by one unlocked addq,
 * restarted if the thread leaves the CPU in between. */
static inline void arch_rseq_add(char *base, size_t stride, uint64_t v, ptrdiff_t rseq_off)
{
	uint32_t cpu;
	char *slot;

retry:
	cpu = arch_rseq_cpu_start(rseq_off);
	slot = base + (size_t)cpu * stride;
	asm goto(X86_RSEQ_CS_BEGIN
		 "addq %[v], (%[slot])\n"
		 X86_RSEQ_CS_END(retry)
		 : : [slot] "r"(slot), [v] "r"(v), [cpu] "r"(cpu), [off] "r"(rseq_off)
		 : "memory", "cc", "rax" : retry);
}

#define ARCH_INSN_RSEQ_CMPXCHG "cmpq old,(slot); jnz fail; movq new,(slot) committing rseq: movl %fs:cpu_id_start; movq $cs,%fs:rseq_cs; cmpl cpu,%fs:cpu_id; jnz abort"
/* Per-CPU compare-and-exchange: if *(slot) == old store nw, committed by one
 * plain store. Returns true on success, false when the value differed. */
static inline bool arch_rseq_cmpxchg(char *base, size_t stride, uint64_t old, uint64_t nw,
				     ptrdiff_t rseq_off)
{
	uint32_t cpu;
	char *slot;

retry:
	cpu = arch_rseq_cpu_start(rseq_off);
	slot = base + (size_t)cpu * stride;
	asm goto(X86_RSEQ_CS_BEGIN
		 "cmpq %[old], (%[slot])\n\t"
		 "jnz %l[fail]\n\t"
		 "movq %[nw], (%[slot])\n"
		 X86_RSEQ_CS_END(retry)
		 : : [slot] "r"(slot), [old] "r"(old), [nw] "r"(nw), [cpu] "r"(cpu),
		     [off] "r"(rseq_off)
		 : "memory", "cc", "rax" : retry, fail);
	return true;
fail:
	return false;
}

/* Per-CPU list pop (the SLUB alloc fast path as a restartable sequence):
 * slot = base + cpu * stride holds the head of a list linked through each
 * object's first word. Inside one critical section: read head, stop if it is
 * NULL, read head's next, and store next into the slot, the single commit.
 * Head and next are both read inside the section, so a thread preempted,
 * signalled or migrated anywhere before the commit restarts from the read of
 * its CPU number: it can neither pop an object another thread took meanwhile
 * (ABA) nor keep using another CPU's slot. *cpu_out receives the CPU whose
 * slot was used. Returns head (NULL: that CPU's list was empty). */
static inline void *arch_rseq_pop(char *base, size_t stride, ptrdiff_t rseq_off, uint32_t *cpu_out)
{
	uint32_t cpu;
	char *slot;
	void *head, *next;

retry:
	cpu = arch_rseq_cpu_start(rseq_off);
	slot = base + (size_t)cpu * stride;
	asm goto(X86_RSEQ_CS_BEGIN
		 "movq (%[slot]), %[head]\n\t"
		 "testq %[head], %[head]\n\t"
		 "jz 332f\n\t"
		 "movq (%[head]), %[next]\n\t"
		 "movq %[next], (%[slot])\n"
		 X86_RSEQ_CS_END(retry)
		 : [head] "=&r"(head), [next] "=&r"(next)
		 : [slot] "r"(slot), [cpu] "r"(cpu), [off] "r"(rseq_off)
		 : "memory", "cc", "rax" : retry);
	*cpu_out = cpu;
	return head;
}

/* Per-CPU list push of the chain first..last (linked through each object's
 * first word; last's link is overwritten) onto slot = base + cpu * stride,
 * only while the 64-bit word at slot + tag_off equals tag (SLUB: the object
 * belongs to this CPU's slab). Inside one critical section: compare the tag,
 * read the head, link last to it, then the single commit: store first into
 * the slot. The link store goes to objects the caller owns, so a restart
 * simply rewrites it. Returns true when pushed, false when the tag differed
 * (nothing stored). */
static inline bool arch_rseq_push(char *base, size_t stride, size_t tag_off, uint64_t tag, void *first,
				  void *last, ptrdiff_t rseq_off)
{
	uint32_t cpu;
	char *slot;

retry:
	cpu = arch_rseq_cpu_start(rseq_off);
	slot = base + (size_t)cpu * stride;
	asm goto(X86_RSEQ_CS_BEGIN
		 "cmpq %[tag], (%[tagp])\n\t"
		 "jnz %l[fail]\n\t"
		 "movq (%[slot]), %%rax\n\t"
		 "movq %%rax, (%[last])\n\t"
		 "movq %[first], (%[slot])\n"
		 X86_RSEQ_CS_END(retry)
		 : : [slot] "r"(slot), [tagp] "r"(slot + tag_off), [tag] "r"(tag), [first] "r"(first),
		     [last] "r"(last), [cpu] "r"(cpu), [off] "r"(rseq_off)
		 : "memory", "cc", "rax" : retry, fail);
	return true;
fail:
	return false;
}

#endif /* !__KERNEL__ */

#endif
