/* SPDX-License-Identifier: MIT */
/* minprobe.c - a minimal probe of what single x86-64 instructions cost, in
 * core cycles, written apart from atomcost to check it: it includes no
 * atomcost header (nothing from src/ or probes/), shares no code with the
 * engine, writes its own asm from the published mnemonics (Intel SDM, AMD
 * APM; the kernel sources for the lock and per-CPU forms) and, where a
 * quantity has more than one honest definition, uses another one than the
 * engine does.
 *
 *   minprobe [-c CPU] [-r REPS] [-w BYTES] [-a] [-j] [-l] [OP ...]
 *
 * Definitions (the engine's in brackets):
 * - core cycles: the PMU's cycles event (perf_event_open, user mode) where
 *   this machine has one; else a dependent chain of `imul %rdx,%rax`
 *   (3 cycles per imul on every x86-64 core of the published tables)
 *   timed right before and right after every loop [a dependent add chain,
 *   once per run]. The `add` op is that add chain measured by this clock:
 *   it reads 1.00 when the two definitions agree;
 * - clock: clock_gettime(CLOCK_MONOTONIC_RAW) around a whole loop of about
 *   1 ms, nothing subtracted [fenced rdtsc around short samples, overhead
 *   cancelled];
 * - latency, two ways: lat, every op on one word (the chain runs through
 *   memory, as uops.info chains a memory RMW); rlat, the op over 8 lines
 *   with its result carried to the next op in a register: the value
 *   xchg/xadd return (0) indexes the next op's address, the carry bts
 *   leaves goes into its bit-number register through a 1-cycle cmovc
 *   (counted in the figure) [the probe's one-word chain]. Not for cmpxchg:
 *   a successful one leaves %rax as it was, and on Zen 5 a plain cmpxchg
 *   "chained" through %rax ran at its throughput (3.0), so no chain;
 * - throughput, two ways: tput, op i on word 0 of line i mod L, the best of
 *   L = 1, 2, 4, ..., 32 lines; ptput, every word of L = 2, 4 or 8 lines
 *   (op i on word i mod 8L), and 2 or 4 words on each of 1-32 (1-16)
 *   lines (op i on word i mod W of line (i / W) mod L), the best: 16 words
 *   on 2 lines is what uops.info measures, a chain longer than 8 ops needs
 *   more words to hide [the engine's own sweep, whose footprints these are];
 * - walk: a random cyclic pointer walk of 64-byte lines over -w BYTES
 *   (default 16 KiB: in L1), `mov (%p),%p` then the op on word 1 (+8) of
 *   the line just visited: cycles per step, the op's cost added to the walk
 *   (op `load_chase` is the bare walk); cwalk: the same loop closed by three
 *   instructions (`sub; test; jnz`), as a compiled C loop is (`add; cmp;
 *   jne`), at 8 placements of its first byte in a 64-byte block (REPS / 3
 *   repetitions each, at least 5), the median placement (lo and hi in the
 *   JSON) [the engine's kernels are C loops: a
 *   plain op's walk step moved by 6% with the closing or the placement on a
 *   Zen 4, docs/validation.md]; the op `cmpxchgq_read` is cmpxchg as the
 *   kernel uses it, its comparand loaded from the word and its result used;
 * - a lock: lock + unlock pairs on one hot word (qspinlock's fast path:
 *   `lock cmpxchgl` 0->1 and a `movb $0` release; the one-width forms
 *   beside it), cycles per pair;
 * - per-CPU: `incq` and `addq %reg` through %fs at an offset into a
 *   __thread array (the kernel's this_cpu_inc is `incq %gs:var`,
 *   this_cpu_add of a run-time value `addq %reg,%gs:var`), chain and sweep.
 * Each timed loop is ONE asm statement: `.rept 8` of an `.irp` over
 * r8-r15 puts 64 copies of the op between `1:` and `dec; jnz 1b` (cwalk's:
 * `sub $1; test; jnz 1b`, after `.p2align 6` and its placement's nops); op k of
 * the 64 uses register r(8 + k % 8). Pinned with sched_setaffinity(), checked
 * with sched_getcpu(). Per repetition cycles/op is computed from that
 * repetition's loop and clock; the result is the median over REPS (default
 * 11) after one discarded warm-up; a repetition in which the thread was
 * preempted, or whose two imul chains differ by more than 1%, is run again.
 *
 * Output: one line per op and form, tab separated:
 *   name  form  cycles  words  lines  spread
 * spread is (max - min) / median of the repetitions; words x lines is the
 * footprint the figure was measured over. Lines starting with # are
 * comments (CPU, clock; with -a the whole sweep). -j: one JSON object.
 *
 * Disassembly checked with `objdump -d --no-show-raw-insn` on the binary:
 * each loop holds 64 copies of its body between `1:` and `dec; jne` (cwalk's
 * `sub; test; jne`, its first copy at byte 0, 8, ..., 56 of a 64-byte block) (the
 * op; for a walk the step and the op; for a lock the pair; for bts's rlat
 * the op and its cmovc) and no stack reference; a packed loop over L lines
 * addresses 8L distinct words, a W-word one W x L.
 *
 * Exit: 0 done, 1 error, 2 usage, 77 not x86-64.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__)
int main(void)
{
	puts("unsupported: minprobe measures x86-64 instructions only");
	return 77;
}
#else
#include <linux/perf_event.h>
#include <sys/syscall.h>

/* A loop returns the iterations it did not run: 0, unless a lock's fast
 * path failed (it cannot, single-threaded: checked). */
typedef uint64_t (*loop_fn)(char *p, uint64_t iters);

#define OPS_PER_ITER 64

/* Every loop starts from the same registers: rax = rdx = 0 (a cmpxchg
 * comparand equal to the zeroed words, and the value it stores: every
 * cmpxchg succeeds and writes), rcx = 5 (a bit number in a register),
 * r8-r15 = 1. */
#define SETUP_COMMON "xor %%eax,%%eax\n\txor %%edx,%%edx\n\tmov $5,%%ecx\n\t"	\
	"mov $1,%%r8d\n\tmov $1,%%r9d\n\tmov $1,%%r10d\n\tmov $1,%%r11d\n\t"	\
	"mov $1,%%r12d\n\tmov $1,%%r13d\n\tmov $1,%%r14d\n\tmov $1,%%r15d\n\t"

/* One loop of 8 x 8 copies of BODY. Inside the .irp, \r is 8..15 and the
 * assembler symbol mpk counts the copies 0..63. %[p] is the buffer (the
 * walks advance it). A lock's failed fast path jumps to 9: and leaves
 * iterations over. */
#define LOOPB(fname, setup, BODY) LOOP_AS(fname, setup, ".p2align 5\n", BODY, "dec %[n]\n\tjnz 1b\n9:\n")
/* The loop with its alignment (head) and its closing (tail) given. */
#define LOOP_AS(fname, setup, head, BODY, tail)						\
	static uint64_t fname(char *p, uint64_t iters)					\
	{										\
		__asm__ volatile(SETUP_COMMON setup					\
				 "\n\t.set mpk,0\n\t" head "1:\n\t.rept 8\n\t.irp r,8,9,10,11,12,13,14,15\n\t" \
				 BODY							\
				 "\n\t.set mpk,mpk+1\n\t.endr\n\t.endr\n\t" tail		\
				 : [n] "+r"(iters), [p] "+r"(p)				\
				 :							\
				 : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12",	\
				   "r13", "r14", "r15", "cc", "memory");		\
		return iters;								\
	}

/* Addresses: word 0 of line (k mod L); word (k mod 16) of 2 lines; the
 * same over the __thread array through %fs (local-exec TLS offset). */
#define NSWEEP 6	/* 1, 2, 4, 8, 16, 32 lines */
#define ADDR(L) "((mpk&(" #L "-1))*64)(%[p])"
#define NPACK 3		/* every word of 2, 4, 8 lines */
#define ADDR_PACK(L) "((mpk&(8*" #L "-1))*8)(%[p])"
#define ADDR_FS_PACK(L) "%%fs:mp_tls@tpoff+((mpk&(8*" #L "-1))*8)"
#define ADDR_FS(L) "%%fs:mp_tls@tpoff+((mpk&(" #L "-1))*64)"
#define WALK_STEP "mov (%[p]),%[p]\n\t"

#define SWEEP_OF(name, setup, OP, A)							\
	LOOPB(name##_1, setup, OP(A(1))) LOOPB(name##_2, setup, OP(A(2)))		\
	LOOPB(name##_4, setup, OP(A(4))) LOOPB(name##_8, setup, OP(A(8)))		\
	LOOPB(name##_16, setup, OP(A(16))) LOOPB(name##_32, setup, OP(A(32)))		\
	static const loop_fn name##_fns[NSWEEP] = { name##_1, name##_2, name##_4,	\
						    name##_8, name##_16, name##_32 };
/* the packed forms */
#define PACK_OF(name, setup, OP, A)							\
	LOOPB(name##_p2, setup, OP(A(2))) LOOPB(name##_p4, setup, OP(A(4)))		\
	LOOPB(name##_p8, setup, OP(A(8)))						\
	static const loop_fn name##_pk[NPACK] = { name##_p2, name##_p4, name##_p8 };
/* 2 words on each of 1-32 lines, 4 on each of 1-16, word first (op i on
 * word i mod W of line (i / W) mod L): atomcost's other footprints. Its
 * sweep found inc m64 at 0.735 cycles on 2 words x 16 lines of the Intel
 * Xeon guest, in every epoch of four runs, and 1.00 on every footprint
 * this probe had; a best over fewer footprints is another quantity. */
#define NPACKW 11
#define ADDR_PACKW(S, L) "((((mpk>>" #S ")&(" #L "-1))*64)+((mpk&((1<<" #S ")-1))*8))(%[p])"
#define PACKW_OF(name, setup, OP)							\
	LOOPB(name##_w2_1, setup, OP(ADDR_PACKW(1, 1))) LOOPB(name##_w2_2, setup, OP(ADDR_PACKW(1, 2))) \
	LOOPB(name##_w2_4, setup, OP(ADDR_PACKW(1, 4))) LOOPB(name##_w2_8, setup, OP(ADDR_PACKW(1, 8))) \
	LOOPB(name##_w2_16, setup, OP(ADDR_PACKW(1, 16)))				\
	LOOPB(name##_w2_32, setup, OP(ADDR_PACKW(1, 32)))				\
	LOOPB(name##_w4_1, setup, OP(ADDR_PACKW(2, 1))) LOOPB(name##_w4_2, setup, OP(ADDR_PACKW(2, 2))) \
	LOOPB(name##_w4_4, setup, OP(ADDR_PACKW(2, 4))) LOOPB(name##_w4_8, setup, OP(ADDR_PACKW(2, 8))) \
	LOOPB(name##_w4_16, setup, OP(ADDR_PACKW(2, 16)))				\
	static const loop_fn name##_pkw[NPACKW] = { name##_w2_1, name##_w2_2, name##_w2_4, \
		name##_w2_8, name##_w2_16, name##_w2_32, name##_w4_1, name##_w4_2, name##_w4_4, \
		name##_w4_8, name##_w4_16 };
static const int pkw_words[NPACKW] = { 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4 };
static const int pkw_lines[NPACKW] = { 1, 2, 4, 8, 16, 32, 1, 2, 4, 8, 16 };
/* the line sweep and the packed forms */
#define LOOPS(name, setup, OP)								\
	SWEEP_OF(name, setup, OP, ADDR) PACK_OF(name, setup, OP, ADDR_PACK)		\
	PACKW_OF(name, setup, OP)
/* the walk: one step, then the op on word 1 of the line reached */
#define WALK(name, setup, OP) LOOPB(name##_w, setup, WALK_STEP OP("8(%[p])")) CWALK(name, setup, OP)
/* The same walk closed as a compiled C loop closes (atomcost's kernels:
 * `add $1,%c; cmp %c,%n; jne`): three instructions, an update, a test and
 * the branch, here `sub $1,%n; test %n,%n; jnz` (13 bytes, as gcc's), where
 * LOOPB's asm closes with two (`dec; jnz`, 9 bytes); at NCPLACE placements
 * of the loop's first byte (every 8th byte of a 64-byte block). On the Zen 4
 * guest the closing alone moved the walk with `or`/`inc` on word 1 from 4.24
 * to 4.48 cycles a step, and a placement 2-4 bytes off moved atomcost's
 * own loop from 4.49 to 4.25 (docs/validation.md): a walk step with a plain
 * op is a figure of the loop's code as well as of the op. */
#define NCPLACE 8
#define LOOPC(fname, off, setup, BODY)							\
	LOOP_AS(fname, setup, ".p2align 6\n\t.fill " #off ",1,0x90\n", BODY,			\
		"sub $1,%[n]\n\ttest %[n],%[n]\n\tjnz 1b\n")
#define CW_AT(name, setup, OP, off) LOOPC(name##_cw##off, off, setup, WALK_STEP OP("8(%[p])"))
#define CWALK(name, setup, OP)								\
	CW_AT(name, setup, OP, 0) CW_AT(name, setup, OP, 8) CW_AT(name, setup, OP, 16)	\
	CW_AT(name, setup, OP, 24) CW_AT(name, setup, OP, 32) CW_AT(name, setup, OP, 40)	\
	CW_AT(name, setup, OP, 48) CW_AT(name, setup, OP, 56)				\
	static const loop_fn name##_cw[NCPLACE] = { name##_cw0, name##_cw8, name##_cw16,	\
		name##_cw24, name##_cw32, name##_cw40, name##_cw48, name##_cw56 };
/* the register-carried chain: the op over 8 lines, at an address indexed by
 * r8 (0), the register the previous op returned its value in: a value
 * that comes back from memory (xchg, xadd) does not depend on the register
 * the op consumed, so only the address can carry it to the next op */
#define ADDR_IDX "((mpk&7)*64)(%[p],%%r8)"
#define RCHAIN(name, OP) LOOPB(name##_r, "xor %%r8d,%%r8d\n\t", OP(ADDR_IDX))

/* Chains on registers: no memory, the .irp only repeats them. */
#define OPAQUE_ONE "mov $-1,%%rdx\n\tneg %%rdx\n\t"	/* rdx = 1, not an immediate */
LOOPB(add_1, OPAQUE_ONE, "add %%rdx,%%rax")
LOOPB(imul_1, OPAQUE_ONE, "imul %%rdx,%%rax")
/* the pointer chase walks a ring of 8 lines (region RING); the bare walk */
LOOPB(chase_1, "", "mov (%[p]),%[p]")
#define OP_NONE(a) ""
WALK(none, "", OP_NONE)

#define OP_LOAD(a) "mov " a ",%%r\\r"
#define OP_STORE(a) "mov %%r\\r," a
#define OP_LOCK_ORB(a) "lock orb $2," a
#define OP_ORB(a) "orb $2," a
#define OP_DS_ORB(a) "ds orb $2," a	/* the 0x3e prefix a UP kernel patches lock into */
#define OP_LOCK_XORB(a) "lock xorb $2," a
#define OP_BTCI(a) "btcq $5," a
#define OP_LOCK_ANDB(a) "lock andb $0xfd," a
#define OP_ANDB(a) "andb $0xfd," a
#define OP_LOCK_ORQ(a) "lock orq %%r\\r," a
#define OP_ORQ(a) "orq %%r\\r," a
#define OP_LOCK_ADDQ(a) "lock addq %%r\\r," a
#define OP_ADDQ(a) "addq %%r\\r," a
#define OP_LOCK_BTSI(a) "lock btsq $5," a
#define OP_BTSI(a) "btsq $5," a
#define OP_LOCK_BTSR(a) "lock btsq %%rcx," a
#define OP_BTSR(a) "btsq %%rcx," a
#define OP_BTRI(a) "btrq $5," a
#define OP_LOCK_BTRR(a) "lock btrq %%rcx," a
#define OP_BTRR(a) "btrq %%rcx," a
#define OP_LOCK_CMPXCHG(a) "lock cmpxchgq %%rdx," a
#define OP_CMPXCHG(a) "cmpxchgq %%rdx," a
/* the kernel's idiom around cmpxchg: old = READ_ONCE(*p); ret =
 * cmpxchg(p, old, new), ret then used (here new = old, so the pointer walk
 * stays intact, and ret added into rbx). The comparand comes from a load of
 * the word and the result is consumed: on the Zen 4 guest the walk read
 * 4.50 a step with a constant comparand, 4.25 with this, 4.01 with the
 * result left unused (docs/validation.md) */
#define OP_CMPXCHG_RD(a) "mov " a ",%%rax\n\tcmpxchgq %%rax," a "\n\tadd %%rax,%%rbx"
#define OP_LOCK_CMPXCHG_RD(a) "mov " a ",%%rax\n\tlock cmpxchgq %%rax," a "\n\tadd %%rax,%%rbx"
#define OP_XCHG(a) "xchgq %%r\\r," a
#define OP_LOCK_XADD(a) "lock xaddq %%r\\r," a
#define OP_XADD(a) "xaddq %%r\\r," a
#define OP_LOCK_INC(a) "lock incq " a
#define OP_INC(a) "incq " a
/* one register: the value that comes back is the next op's operand */
#define OP_XCHG1(a) "xchgq %%r8," a
#define OP_LOCK_XADD1(a) "lock xaddq %%r8," a
#define OP_XADD1(a) "xaddq %%r8," a
/* the carry bts returns, into the next bts's bit number (same value) */
#define OP_LOCK_BTSR_CF(a) "lock btsq %%rcx," a "\n\tcmovc %%rcx,%%rcx"
#define OP_BTSR_CF(a) "btsq %%rcx," a "\n\tcmovc %%rcx,%%rcx"
/* rdx:rax = 0 = the words: every cmpxchg16b succeeds and writes. The new
 * value rcx:rbx is the last op's rdx:rax, as a caller's new value comes
 * from the old one and as atomcost's loop has it: with a constant new
 * value the Intel Xeon guest read cmpxchg16b 14.1 cycles against
 * atomcost's 15.0 (2026-12-07), a loop without that dependency. */
#define CX16_SETUP "xor %%ebx,%%ebx\n\txor %%ecx,%%ecx\n\t"
#define CX16_NEW "mov %%rax,%%rbx\n\tmov %%rdx,%%rcx\n\t"
#define OP_LOCK_CX16(a) CX16_NEW "lock cmpxchg16b " a
#define OP_CX16(a) CX16_NEW "cmpxchg16b " a
/* Lock + unlock on one word, edx = 1. qspinlock's fast path
 * (queued_spin_lock: try_cmpxchg 0 -> 1 on the 32-bit word, then
 * queued_spin_unlock: a byte store of 0 to the locked byte); the same with
 * a 32-bit release; a test-and-set lock (xchgl) with a 32-bit release. */
#define LOCK_SETUP "mov $1,%%edx\n\t"
#define OP_SPIN_MOVB(a) "xor %%eax,%%eax\n\tlock cmpxchgl %%edx," a "\n\tjnz 9f\n\tmovb $0," a
#define OP_SPIN_MOVL(a) "xor %%eax,%%eax\n\tlock cmpxchgl %%edx," a "\n\tjnz 9f\n\tmovl $0," a
/* Ordering (issue 22): a store, then the full barrier the kernel's mb()
 * (mfence) or smp_mb() (a locked add to the stack, x86-64 since 4.15) is */
#define OP_ST_MFENCE(a) "mov %%r\\r," a "\n\tmfence"
#define OP_ST_LOCKADD(a) "mov %%r\\r," a "\n\tlock addl $0,-4(%%rsp)"
#define OP_TAS_MOVL(a) "mov %%edx,%%eax\n\txchgl %%eax," a "\n\ttest %%eax,%%eax\n\tjnz 9f\n\tmovl $0," a

/* the per-CPU area of this thread: %fs is its TLS block */
static __thread char mp_tls[32 * 64] __attribute__((aligned(64), used));

LOOPS(load, "", OP_LOAD)
LOOPS(store, "", OP_STORE)
LOOPS(lock_orb, "", OP_LOCK_ORB)
LOOPS(orb, "", OP_ORB)
LOOPS(ds_orb, "", OP_DS_ORB)
LOOPS(lock_xorb, "", OP_LOCK_XORB)
LOOPS(btci, "", OP_BTCI)
LOOPS(lock_andb, "", OP_LOCK_ANDB)
LOOPS(andb, "", OP_ANDB)
LOOPS(lock_orq, "", OP_LOCK_ORQ)
LOOPS(orq, "", OP_ORQ)
LOOPS(lock_addq, "", OP_LOCK_ADDQ)
LOOPS(addq, "", OP_ADDQ)
LOOPS(lock_btsi, "", OP_LOCK_BTSI)
LOOPS(btsi, "", OP_BTSI)
LOOPS(lock_btsr, "", OP_LOCK_BTSR)
LOOPS(btsr, "", OP_BTSR)
LOOPS(btri, "", OP_BTRI)
LOOPS(lock_btrr, "", OP_LOCK_BTRR)
LOOPS(btrr, "", OP_BTRR)
LOOPS(lock_cmpxchg, "", OP_LOCK_CMPXCHG)
LOOPS(cmpxchg, "", OP_CMPXCHG)
LOOPS(xchg, "", OP_XCHG)
LOOPS(lock_xadd, "", OP_LOCK_XADD)
LOOPS(xadd, "", OP_XADD)
LOOPS(lock_inc, "", OP_LOCK_INC)
LOOPS(inc, "", OP_INC)
/* cmpxchg16b needs 16-byte alignment: no packed form (word 1 would split) */
SWEEP_OF(lock_cx16, CX16_SETUP, OP_LOCK_CX16, ADDR)
SWEEP_OF(cx16, CX16_SETUP, OP_CX16, ADDR)
SWEEP_OF(inc_fs, "", OP_INC, ADDR_FS)
PACK_OF(inc_fs, "", OP_INC, ADDR_FS_PACK)
SWEEP_OF(addq_fs, "", OP_ADDQ, ADDR_FS)
PACK_OF(addq_fs, "", OP_ADDQ, ADDR_FS_PACK)
LOOPB(xchg_lat, "", OP_XCHG1(ADDR(1)))
LOOPB(lock_xadd_lat, "", OP_LOCK_XADD1(ADDR(1)))
LOOPB(xadd_lat, "", OP_XADD1(ADDR(1)))
RCHAIN(xchg, OP_XCHG1)
RCHAIN(lock_xadd, OP_LOCK_XADD1)
RCHAIN(xadd, OP_XADD1)
LOOPB(lock_btsr_r, "", OP_LOCK_BTSR_CF(ADDR(8)))
LOOPB(btsr_r, "", OP_BTSR_CF(ADDR(8)))
WALK(orb, "", OP_ORB)
WALK(lock_orb, "", OP_LOCK_ORB)
WALK(btsi, "", OP_BTSI)
WALK(btsr, "", OP_BTSR)
WALK(lock_btsr, "", OP_LOCK_BTSR)
WALK(inc, "", OP_INC)
WALK(lock_inc, "", OP_LOCK_INC)
WALK(cmpxchg, "", OP_CMPXCHG)
WALK(lock_cmpxchg, "", OP_LOCK_CMPXCHG)
WALK(cmpxchg_rd, "", OP_CMPXCHG_RD)
WALK(lock_cmpxchg_rd, "", OP_LOCK_CMPXCHG_RD)
LOOPS(st_mfence, "", OP_ST_MFENCE)
LOOPS(st_lockadd, "", OP_ST_LOCKADD)
WALK(st_mfence, "", OP_ST_MFENCE)
WALK(st_lockadd, "", OP_ST_LOCKADD)
LOOPB(mfence_1, "", "mfence")
LOOPB(lockadd_1, "", "lock addl $0,-4(%%rsp)")
LOOPB(spin_movb_1, LOCK_SETUP, OP_SPIN_MOVB(ADDR(1)))
LOOPB(spin_movl_1, LOCK_SETUP, OP_SPIN_MOVL(ADDR(1)))
LOOPB(tas_movl_1, LOCK_SETUP, OP_TAS_MOVL(ADDR(1)))

enum region { R_OPS, R_RING, R_WALK };

struct op {
	const char *name;	/* named by the instruction, not by any probe */
	const char *insn;	/* what the loop holds, in the published mnemonics */
	loop_fn lat;		/* one-word chain (registers only: add, imul) */
	loop_fn rlat;		/* result carried in a register, over 8 lines */
	const loop_fn *sweep;	/* one word on each of 1, 2, 4, ... 32 lines */
	const loop_fn *packed;	/* every word of 2, 4 and 8 lines */
	const loop_fn *packedw;	/* 2 words on 1-32 lines, 4 on 1-16 (PACKW_OF) */
	loop_fn walk;		/* the op on word 1 of each line of the walk */
	const loop_fn *cwalk;	/* the same, closed as a C loop, at NCPLACE placements */
	enum region region;	/* of lat */
};

#define SW(id) .lat = id##_1, .sweep = id##_fns
#define SWP(id) SW(id), .packed = id##_pk, .packedw = id##_pkw
#define TP(id) .sweep = id##_fns, .packed = id##_pk, .packedw = id##_pkw	/* with a latency loop of its own */
static const struct op ops[] = {
	{ "add", "add %rdx,%rax (rdx from mov $-1; neg)", .lat = add_1 },
	{ "imul", "imul %rdx,%rax", .lat = imul_1 },
	{ "load_chase", "mov (%reg),%reg (8-line ring; walk: the bare walk)", .lat = chase_1,
	  .region = R_RING, .walk = none_w, .cwalk = none_cw },
	{ "load", "mov mem,%reg", TP(load) },
	{ "mov_store", "mov %reg,mem", TP(store) },
	{ "lock_orb_imm", "lock or $imm8,m8", SWP(lock_orb), .walk = lock_orb_w, .cwalk = lock_orb_cw },
	{ "orb_imm", "or $imm8,m8", SWP(orb), .walk = orb_w, .cwalk = orb_cw },
	{ "ds_orb_imm", "ds or $imm8,m8", SWP(ds_orb) },
	{ "lock_xorb_imm", "lock xor $imm8,m8", SWP(lock_xorb) },
	{ "btcq_imm", "btc $imm8,m64", SWP(btci) },
	{ "lock_andb_imm", "lock and $imm8,m8", SWP(lock_andb) },
	{ "andb_imm", "and $imm8,m8", SWP(andb) },
	{ "lock_orq_reg", "lock or r64,m64", SWP(lock_orq) },
	{ "orq_reg", "or r64,m64", SWP(orq) },
	{ "lock_addq_reg", "lock add r64,m64", SWP(lock_addq) },
	{ "addq_reg", "add r64,m64", SWP(addq) },
	{ "lock_btsq_imm", "lock bts $imm8,m64", SWP(lock_btsi) },
	{ "btsq_imm", "bts $imm8,m64", SWP(btsi), .walk = btsi_w, .cwalk = btsi_cw },
	{ "lock_btsq_reg", "lock bts r64,m64 (rlat: CF -> cmovc -> bit number)", SWP(lock_btsr),
	  .rlat = lock_btsr_r, .walk = lock_btsr_w, .cwalk = lock_btsr_cw },
	{ "btsq_reg", "bts r64,m64 (rlat: CF -> cmovc -> bit number)", SWP(btsr),
	  .rlat = btsr_r, .walk = btsr_w, .cwalk = btsr_cw },
	{ "btrq_imm", "btr $imm8,m64", SWP(btri) },
	{ "lock_btrq_reg", "lock btr r64,m64", SWP(lock_btrr) },
	{ "btrq_reg", "btr r64,m64", SWP(btrr) },
	{ "lock_cmpxchgq", "lock cmpxchg r64,m64 (succeeds)", SWP(lock_cmpxchg),
	  .walk = lock_cmpxchg_w, .cwalk = lock_cmpxchg_cw },
	{ "cmpxchgq", "cmpxchg r64,m64 (succeeds)", SWP(cmpxchg), .walk = cmpxchg_w, .cwalk = cmpxchg_cw },
	{ "lock_cmpxchgq_read", "mov m64,%rax; lock cmpxchg %rax,m64; add %rax,%rbx (old = READ_ONCE; cmpxchg(p, old, old); result used)",
	  .walk = lock_cmpxchg_rd_w, .cwalk = lock_cmpxchg_rd_cw },
	{ "cmpxchgq_read", "mov m64,%rax; cmpxchg %rax,m64; add %rax,%rbx (old = READ_ONCE; cmpxchg(p, old, old); result used)",
	  .walk = cmpxchg_rd_w, .cwalk = cmpxchg_rd_cw },
	{ "xchgq", "xchg r64,m64 (lat: the value carried too; rlat: it indexes the next address)", TP(xchg), .lat = xchg_lat,
	  .rlat = xchg_r },
	{ "lock_xaddq", "lock xadd r64,m64 (lat: the value carried too; rlat: it indexes the next address)", TP(lock_xadd),
	  .lat = lock_xadd_lat, .rlat = lock_xadd_r },
	{ "xaddq", "xadd r64,m64 (lat: the value carried too; rlat: it indexes the next address)", TP(xadd), .lat = xadd_lat,
	  .rlat = xadd_r },
	{ "lock_cmpxchg16b", "lock cmpxchg16b m128 (succeeds; new value = the last op's rdx:rax)", SW(lock_cx16) },
	{ "cmpxchg16b", "cmpxchg16b m128 (succeeds; new value = the last op's rdx:rax)", SW(cx16) },
	{ "lock_incq", "lock inc m64", SWP(lock_inc), .walk = lock_inc_w, .cwalk = lock_inc_cw },
	{ "incq", "inc m64", SWP(inc), .walk = inc_w, .cwalk = inc_cw },
	{ "incq_fs", "inc %fs:tls_var (this_cpu_inc's form)", SW(inc_fs), .packed = inc_fs_pk },
	{ "addq_fs", "add r64,%fs:tls_var (this_cpu_add's form, a run-time value)", SW(addq_fs),
	  .packed = addq_fs_pk },
	{ "spin_cmpxchgl_movb", "lock cmpxchg r32,m32 0->1; jnz; mov $0,m8 (qspinlock fast path)",
	  .lat = spin_movb_1 },
	{ "spin_cmpxchgl_movl", "lock cmpxchg r32,m32 0->1; jnz; mov $0,m32", .lat = spin_movl_1 },
	{ "mfence", "mfence (back to back)", .lat = mfence_1 },
	{ "lock_addl_rsp", "lock addl $0,-4(%rsp) (back to back)", .lat = lockadd_1 },
	{ "store_mfence", "mov r64,m64; mfence (walk: then the next line's load)", TP(st_mfence),
	  .walk = st_mfence_w, .cwalk = st_mfence_cw },
	{ "store_lock_addl", "mov r64,m64; lock addl $0,-4(%rsp) (walk: then the next line's load)",
	  TP(st_lockadd), .walk = st_lockadd_w, .cwalk = st_lockadd_cw },
	{ "tas_xchgl_movl", "xchg r32,m32 (1); test; jnz; mov $0,m32", .lat = tas_movl_1 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

#define TARGET_NS 1e6		/* one timed loop: 1 ms, shorter than a time slice */
#define CAL_ITERS (1u << 12)	/* imul chain: 256 Ki imuls, about 0.2 ms */
#define MAX_REPS 101
#define WALK_OFF 4096		/* op lines and ring below, the walk above */

static char *buf;		/* 32 lines of words, the ring at lines 40-47, the walk */
static size_t walk_lines = 256;	/* -w: 16 KiB */
static int pmu_fd = -1;		/* the cycles event, when this machine counts it */
static char pmu_why[160] = "not tried";

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t pmu_read(void)
{
	uint64_t v = 0;

	if (pmu_fd < 0 || read(pmu_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/* The cycles event of this thread, user mode: kept only when it opens and
 * counts (in a guest without a virtual PMU it fails with ENOENT). */
static void pmu_open(void)
{
	struct perf_event_attr a;
	uint64_t c0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	pmu_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (pmu_fd < 0) {
		snprintf(pmu_why, sizeof(pmu_why), "unavailable (perf_event_open cycles: %s)",
			 strerror(errno));
		return;
	}
	c0 = pmu_read();
	imul_1(buf, CAL_ITERS);
	if (pmu_read() <= c0) {
		close(pmu_fd);
		pmu_fd = -1;
		snprintf(pmu_why, sizeof(pmu_why), "unavailable (the cycles event opens but counts 0)");
		return;
	}
	snprintf(pmu_why, sizeof(pmu_why), "PMU cycles event (perf_event_open, user mode)");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sattolo's shuffle: one random cycle through all walk lines, each line's
 * word 0 pointing to the next; its own generator (xorshift64), fixed seed. */
static void build_walk(void)
{
	char *w = buf + WALK_OFF;
	size_t *perm = malloc(walk_lines * sizeof(*perm));
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (!perm)
		return;
	for (size_t i = 0; i < walk_lines; i++)
		perm[i] = i;
	for (size_t i = walk_lines - 1; i > 0; i--) {
		size_t j, t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = (size_t)(x % i);
		t = perm[i], perm[i] = perm[j], perm[j] = t;
	}
	for (size_t i = 0; i < walk_lines; i++)
		*(char **)(w + i * 64) = w + perm[i] * 64;
	free(perm);
}

/* Reset the op words (cmpxchg needs them equal to rax = 0), rebuild the
 * ring (lines 40-47, word 0 of each -> the next) and clear word 1 of each
 * walk line and the per-CPU area. */
static void reset_buf(void)
{
	memset(buf, 0, 32 * 64);
	for (int i = 0; i < 8; i++)
		*(char **)(buf + (40 + i) * 64) = buf + (40 + (i + 1) % 8) * 64;
	for (size_t i = 0; i < walk_lines; i++)
		*(uint64_t *)(buf + WALK_OFF + i * 64 + 8) = 0;
	memset(mp_tls, 0, sizeof(mp_tls));
}

struct meas {
	double cycles;		/* by the clock in use: PMU, else imul */
	double imul_cycles;	/* by the imul chain, always */
	double spread, ns_per_cycle;
	int disturbed;		/* repetitions kept although disturbed */
	double lo, hi;		/* cwalk: the fastest and slowest placement (0: none) */
};

/* Involuntary context switches of this thread so far: a repetition that
 * was preempted is not kept. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

static char *region_base(enum region r)
{
	return r == R_RING ? buf + 40 * 64 : r == R_WALK ? buf + WALK_OFF : buf;
}

/* Loop iterations for about TARGET_NS: grow until a tenth, then scale. */
static uint64_t size_loop(loop_fn fn, char *p)
{
	uint64_t iters = 64;
	double t;

	for (;;) {
		double t0;

		reset_buf();
		t0 = now_ns();
		fn(p, iters);
		t = now_ns() - t0;
		if (t >= TARGET_NS / 10 || iters >= (1ull << 30))
			break;
		iters *= 2;
	}
	iters = (uint64_t)((double)iters * TARGET_NS / t);
	return iters < 16 ? 16 : iters;
}

/* cycles per op of fn, median over reps. Per repetition: the op loop
 * between two imul chains; imul clock = (t_op/n_op) / (t_imul/(3 n_imul));
 * PMU clock = counted cycles / n_op. Kept only when the thread was not
 * preempted and the two imul chains agree within 1%; run again otherwise,
 * up to 20 times the wanted count, then kept and counted as disturbed. */
static struct meas measure(loop_fn fn, enum region reg, int reps)
{
	double ratio[MAX_REPS], pmu[MAX_REPS], nspc[MAX_REPS], all[MAX_REPS];
	char *p = region_base(reg);
	uint64_t iters = size_loop(fn, p);
	double n_op = (double)iters * OPS_PER_ITER, n_cal = (double)CAL_ITERS * OPS_PER_ITER * 3;
	struct meas m = { 0 };
	int r = -1;

	for (int tries = 0; r < reps; tries++) {
		double a0, a1, t0, top, cal_ns;
		uint64_t c0, c1, left;
		long cs0;

		reset_buf();
		cs0 = preemptions();
		t0 = now_ns(), imul_1(buf, CAL_ITERS), a0 = now_ns() - t0;
		c0 = pmu_read(), t0 = now_ns();
		left = fn(p, iters);
		top = now_ns() - t0, c1 = pmu_read();
		t0 = now_ns(), imul_1(buf, CAL_ITERS), a1 = now_ns() - t0;
		if (left) {
			fprintf(stderr, "minprobe: a lock's fast path failed single-threaded\n");
			exit(1);
		}
		if (preemptions() != cs0 || a0 > 1.01 * a1 || a1 > 1.01 * a0) {
			if (tries < 20 * reps)
				continue;
			m.disturbed++;
		}
		if (r++ < 0)
			continue;	/* warm-up */
		cal_ns = (a0 + a1) / 2 / n_cal;
		ratio[r - 1] = top / n_op / cal_ns;
		pmu[r - 1] = (double)(c1 - c0) / n_op;
		nspc[r - 1] = cal_ns;
	}
	memcpy(all, pmu_fd >= 0 ? pmu : ratio, sizeof(double) * (size_t)reps);
	m.cycles = median_of(all, reps);
	m.spread = (all[reps - 1] - all[0]) / m.cycles;
	m.imul_cycles = median_of(ratio, reps);
	m.ns_per_cycle = median_of(nspc, reps);
	return m;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return perror("sched_getaffinity"), -1;
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
			;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "minprobe: cannot pin to CPU %d: %m\n", cpu);
		return -1;
	}
	if (sched_getcpu() != cpu) {
		fprintf(stderr, "minprobe: pinned to CPU %d but running on %d\n", cpu, sched_getcpu());
		return -1;
	}
	return cpu;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: minprobe [-c CPU] [-r REPS] [-w BYTES] [-a] [-j] [-l] [OP ...]\n"
		   "  -c CPU    pin to this CPU (default: the first allowed)\n"
		   "  -r REPS   repetitions, median taken (default 11, at most %d)\n"
		   "  -w BYTES  footprint of the pointer walk (default 16384: in L1)\n"
		   "  -a        also print the whole throughput sweep (# lines)\n"
		   "  -j        JSON instead of tab-separated lines\n"
		   "  -l        list the ops and their forms\n"
		   "output: name form cycles words lines spread; forms: lat (one-word chain),\n"
		   "rlat (result carried in a register over 8 lines), tput (best of 1-32 lines,\n"
		   "one word each), ptput (best of every word of 2, 4, 8 lines, and of 2 or 4 words on\n"
		   "1-32 lines), walk (cycles per step of an\n"
		   "L1 pointer walk with the op on word 1 of each line), cwalk (the same walk\n"
		   "closed as a C loop closes, the median of 8 placements of the loop)\n", MAX_REPS);
}

static int json, all_sweep, reps = 11, first_out = 1;

static void emit(const struct op *o, const char *form, const struct meas *m, int words,
		 size_t lines)
{
	if (json) {
		printf("%s\n  {\"op\": \"%s\", \"form\": \"%s\", \"cycles\": %.4f, "
		       "\"imul_cycles\": %.4f, \"words\": %d, \"lines\": %zu, \"spread\": %.4f, "
		       "\"disturbed_kept\": %d, \"insn\": \"%s\"", first_out ? "" : ",", o->name,
		       form, m->cycles, m->imul_cycles, words, lines, m->spread, m->disturbed,
		       o->insn);
		if (m->hi > 0)
			printf(", \"placements\": %d, \"lo\": %.4f, \"hi\": %.4f", NCPLACE, m->lo, m->hi);
		printf("}");
	} else {
		printf("%s\t%s\t%.3f\t%d\t%zu\t%.3f\n", o->name, form, m->cycles, words, lines,
		       m->spread);
		if (m->disturbed)
			printf("# %s %s: %d disturbed repetitions kept\n", o->name, form, m->disturbed);
	}
	first_out = 0;
	fflush(stdout);
}

/* The best of n footprints fns[k] (lines 1 << (k + lshift), words each):
 * its measurement, and its line count in *lines; with -a every one. */
static struct meas best_of(const struct op *o, const loop_fn *fns, int n, int lshift, int words,
			   int *lines)
{
	struct meas m, best = { 0 };

	for (int k = 0; k < n; k++) {
		m = measure(fns[k], R_OPS, reps);
		if (!k || m.cycles < best.cycles)
			best = m, *lines = 1 << (k + lshift);
		if (all_sweep && !json)
			printf("# %s over %d lines, %d word%s each: %.3f (spread %.3f)\n", o->name,
			       1 << (k + lshift), words, words > 1 ? "s" : "", m.cycles, m.spread);
	}
	return best;
}

static void run_op(const struct op *o)
{
	struct meas m;
	int lines;

	if (o->lat)
		m = measure(o->lat, o->region, reps), emit(o, "lat", &m, 1, 1);
	if (o->rlat)
		m = measure(o->rlat, R_OPS, reps), emit(o, "rlat", &m, 1, 8);
	if (o->sweep)
		m = best_of(o, o->sweep, NSWEEP, 0, 1, &lines), emit(o, "tput", &m, 1, (size_t)lines);
	if (o->packed) {
		int words = 8;

		m = best_of(o, o->packed, NPACK, 1, 8, &lines);
		for (int k = 0; o->packedw && k < NPACKW; k++) {	/* atomcost's other footprints */
			struct meas w = measure(o->packedw[k], R_OPS, reps);

			if (all_sweep && !json)
				printf("# %s over %d lines, %d words each: %.3f (spread %.3f)\n", o->name,
				       pkw_lines[k], pkw_words[k], w.cycles, w.spread);
			if (w.cycles < m.cycles)
				m = w, words = pkw_words[k], lines = pkw_lines[k];
		}
		emit(o, "ptput", &m, words, (size_t)lines);
	}
	if (o->walk)
		m = measure(o->walk, R_WALK, reps), emit(o, "walk", &m, 1, walk_lines);
	if (o->cwalk) {	/* the median placement, and the range */
		/* a third of the repetitions at each placement (at least 5): the
		 * median of 8 placements is the figure, 8 x REPS would add 30 s
		 * to a run of all ops */
		int preps = reps / 3 > 5 ? reps / 3 : reps < 5 ? reps : 5;
		struct meas pl[NCPLACE], t;

		for (int k = 0; k < NCPLACE; k++) {
			pl[k] = measure(o->cwalk[k], R_WALK, preps);
			if (all_sweep && !json)
				printf("# %s cwalk at placement %d: %.3f (spread %.3f)\n", o->name, 8 * k,
				       pl[k].cycles, pl[k].spread);
		}
		for (int i = 1; i < NCPLACE; i++)	/* by cycles */
			for (int k = i; k > 0 && pl[k].cycles < pl[k - 1].cycles; k--)
				t = pl[k], pl[k] = pl[k - 1], pl[k - 1] = t;
		m = pl[NCPLACE / 2];
		m.lo = pl[0].cycles;
		m.hi = pl[NCPLACE - 1].cycles;
		emit(o, "cwalk", &m, 1, walk_lines);
	}
}

static void read_model(char *model, size_t n)
{
	FILE *ci = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(model, n, "?");
	if (!ci)
		return;
	while (fgets(line, sizeof(line), ci))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, n, "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	fclose(ci);
}

/* Options into the globals; the first operand's index, or -1 (exit 0 when
 * *rc is 0, else usage error). */
static int parse(int argc, char **argv, int *cpu, int *rc)
{
	int opt;
	long w = 16384;

	*rc = 2;
	while ((opt = getopt(argc, argv, "c:r:w:ajlh")) != -1) {
		switch (opt) {
		case 'c': *cpu = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'w': w = atol(optarg); break;
		case 'a': all_sweep = 1; break;
		case 'j': json = 1; break;
		case 'l':
			for (size_t i = 0; i < NOPS; i++)
				printf("%-18s %s%s%s%s%s %s\n", ops[i].name, ops[i].lat ? " lat" : "",
				       ops[i].rlat ? " rlat" : "", ops[i].sweep ? " tput" : "",
				       ops[i].packed ? " ptput" : "", ops[i].walk ? " walk cwalk" : "",
				       ops[i].insn);
			*rc = 0;
			return -1;
		case 'h': usage(stdout); *rc = 0; return -1;
		default: usage(stderr); return -1;
		}
	}
	if (reps < 1 || reps > MAX_REPS || *cpu < -1 || w < 2 * 64 || w > (64l << 20)) {
		usage(stderr);
		return -1;
	}
	walk_lines = (size_t)w / 64;
	for (int i = optind; i < argc; i++) {
		size_t k;

		for (k = 0; k < NOPS && strcmp(argv[i], ops[k].name); k++)
			;
		if (k == NOPS) {
			fprintf(stderr, "minprobe: unknown op '%s' (-l lists them)\n", argv[i]);
			return -1;
		}
	}
	return optind;
}

int main(int argc, char **argv)
{
	int cpu = -1, rc, first = parse(argc, argv, &cpu, &rc);
	char model[128];
	struct meas add;

	if (first < 0)
		return rc;
	cpu = pin(cpu);
	if (cpu < 0)
		return 1;
	buf = aligned_alloc(4096, WALK_OFF + walk_lines * 64);
	if (!buf)
		return perror("aligned_alloc"), 1;
	build_walk();
	read_model(model, sizeof(model));
	/* wake the core up: half a second of imuls before anything counts */
	for (double t0 = now_ns(); now_ns() - t0 < 5e8;)
		imul_1(buf, CAL_ITERS);
	pmu_open();
	add = measure(add_1, R_OPS, reps);
	if (json)
		printf("{\"tool\": \"minprobe\", \"cpu\": %d, \"model\": \"%s\", \"reps\": %d, "
		       "\"core_ghz\": %.4f, \"clock\": \"%s\", \"pmu\": \"%s\", \"walk_bytes\": %zu, "
		       "\"results\": [", cpu, model, reps, 1 / add.ns_per_cycle,
		       pmu_fd >= 0 ? "pmu" : "imul", pmu_why, walk_lines * 64);
	else
		printf("# minprobe: CPU %d (%s), %d repetitions, core about %.3f GHz (imul chain)\n"
		       "# cycles from %s; PMU: %s; imul chain: 3 cycles per imul%s\n"
		       "# name\tform\tcycles\twords\tlines\tspread\n", cpu, model, reps,
		       1 / add.ns_per_cycle, pmu_fd >= 0 ? "the PMU" : "the imul chain", pmu_why,
		       pmu_fd >= 0 ? " (a check)" : " (the clock)");
	for (size_t k = 0; k < NOPS; k++) {
		int sel = argc == first;

		for (int i = first; i < argc; i++)
			sel |= !strcmp(argv[i], ops[k].name);
		if (sel)
			run_op(&ops[k]);
	}
	if (json)
		printf("\n]}\n");
	free(buf);
	return 0;
}
#endif
