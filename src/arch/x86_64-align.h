/* SPDX-License-Identifier: MIT */
/* arch/x86_64-align.h - timed loops placed at chosen code addresses, for the
 * code-alignment experiment (src/repro/code-alignment-2008.c, docs/reproductions.md).
 *
 * A placed loop is one copy of a loop body written in assembly, put by the
 * assembler at a chosen offset from a 4 KiB page boundary: `.p2align 12`,
 * then `.skip OFFSET` bytes of int3 that are never executed, then the loop.
 * Every copy of a probe is the same bytes (all jumps are relative and local),
 * so two copies differ only by where they sit: a difference in their cost is
 * the cost of the placement.
 *
 * Layout of one copy (symbols are global, so the C side can check them):
 *
 *   <page> + OFFSET:
 *   atomcost_align_<id>_<OFFSET>_loop:   1: REPT x OP   (64 ops)
 *                                           sub $1,%rsi; jnz 1b
 *   atomcost_align_<id>_<OFFSET>_tail:   2: ret
 *   atomcost_align_<id>_<OFFSET>:           mov (%rdi),%rdx; SETUP
 *                                           test %rsi,%rsi; jz 2b; jmp 1b
 *   atomcost_align_<id>_<OFFSET>_end:
 *
 * The entry is a probe_kernel_fn (SysV: %rdi = ctx, %rsi = iterations); it
 * reads ctx->mem, the first member of struct probe_ctx (repro/code-alignment-2008.c
 * asserts the offset). It sits after the loop, so the loop's first byte is
 * at exactly <page> + OFFSET and the entry code is the same in every copy.
 * Clobbers only caller-saved registers (rax, rcx, rdx, rsi, r8-r11, flags).
 *
 * ARCH_ALIGN_PROBES(X) lists the probes:
 *   X(id, name, insn, form, setup, op, rept)
 * id: symbol part; name: on the command line; insn: the timed instruction;
 * form: latency or throughput (and what carries the chain); setup: asm
 * before the loop; op: asm repeated `rept` times (rept * ops in op = 64).
 * In op, .Lk counts the repetitions (0..rept-1), for displacements.
 * Registers at loop entry: %rdx = ctx->mem (page aligned, zeroed: hot words
 * in its first lines, the chase ring in its second page, built by the C
 * side, align_prepare); %rcx = 1 where setup says so, built as
 * `mov $-1; neg` so no core sees an immediate (docs/method.md).
 */
#ifndef ATOMCOST_ARCH_INSIDE
#error "include arch/arch.h, not arch/x86_64-align.h: arch.h picks the architecture"
#endif
#ifndef ATOMCOST_ARCH_X86_64_ALIGN_H
#define ATOMCOST_ARCH_X86_64_ALIGN_H

#define ARCH_HAS_ALIGN_LOOPS 1

#define X86_ALIGN_ONE "mov $-1, %rcx\n\tneg %rcx\n\t"

/* An inner loop of 16 iterations, each applying `op` to 4 consecutive lines
 * and stepping 4 lines on: 64 ops over the first 4 KiB of ctx->mem, %rdx
 * back at the start afterwards. A line is visited again only 64 ops later,
 * so the ops do not chain through memory. */
#define X86_ALIGN_LOOP4(op)							\
	"mov $16, %eax\n3:\n\t"						\
	op " (%rdx)\n\t" op " 64(%rdx)\n\t" op " 128(%rdx)\n\t" op " 192(%rdx)\n\t"	\
	"add $256, %rdx\n\tdec %eax\n\tjnz 3b\n\tsub $4096, %rdx"

#define ARCH_ALIGN_PROBES(X)							\
	X(add, "add", "add %rcx,%rax", "latency (register chain, 1-cycle op)",	\
	  X86_ALIGN_ONE "xor %eax, %eax",					\
	  "add %rcx, %rax", 64)							\
	X(add4, "add-tput", "add %rcx,%r8..%r11", "throughput (4 chains, front-end bound)", \
	  X86_ALIGN_ONE "xor %r8d, %r8d\n\txor %r9d, %r9d\n\txor %r10d, %r10d\n\txor %r11d, %r11d", \
	  "add %rcx, %r8\n\tadd %rcx, %r9\n\tadd %rcx, %r10\n\tadd %rcx, %r11", 16)	\
	X(addloop, "add-loop", "add %rcx,%r8..%r11; dec; jnz", "throughput (4 add chains in a "	\
	  "6-instruction inner loop: a taken branch every 4 adds)",		\
	  X86_ALIGN_ONE "xor %r8d, %r8d\n\txor %r9d, %r9d\n\txor %r10d, %r10d\n\txor %r11d, %r11d", \
	  "mov $16, %eax\n3:\n\tadd %rcx, %r8\n\tadd %rcx, %r9\n\tadd %rcx, %r10\n\t"	\
	  "add %rcx, %r11\n\tdec %eax\n\tjnz 3b", 1)				\
	X(orbloop, "orb-loop", "orb $2,mem x4; add; dec; jnz", "throughput (64 lines, 4 per "	\
	  "iteration of a 7-instruction inner loop: a taken branch every 4 ops)",	\
	  "",									\
	  X86_ALIGN_LOOP4("orb $2,"), 1)					\
	X(lockorbloop, "lock-orb-loop", "lock orb $2,mem x4; add; dec; jnz", "throughput (64 "	\
	  "lines, 4 per iteration of a 7-instruction inner loop: a taken branch every 4 ops)", \
	  "",									\
	  X86_ALIGN_LOOP4("lock orb $2,"), 1)					\
	X(chase, "chase", "mov (%rax),%rax", "latency (pointer chase, 8 L1 lines)",	\
	  "lea 4096(%rdx), %rax",						\
	  "mov (%rax), %rax", 64)						\
	X(orb, "orb", "orb $2,mem", "latency (one byte, memory chain)",	\
	  "",									\
	  "orb $2, (%rdx)", 64)							\
	X(lock_orb, "lock-orb", "lock orb $2,mem", "latency (one byte, memory chain)", \
	  "",									\
	  "lock orb $2, (%rdx)", 64)						\
	X(bts, "btsq", "btsq %rcx,mem", "latency (one word, memory chain)",	\
	  X86_ALIGN_ONE,							\
	  "btsq %rcx, (%rdx)", 64)						\
	X(cmpxchg, "cmpxchgq-tput", "cmpxchgq %rcx,mem", "throughput (8 lines)", \
	  "xor %eax, %eax\n\txor %ecx, %ecx",					\
	  "cmpxchgq %rcx, ((.Lk & 7) * 64)(%rdx)", 64)				\
	X(lock_cmpxchg, "lock-cmpxchgq-tput", "lock cmpxchgq %rcx,mem", "throughput (8 lines)", \
	  "xor %eax, %eax\n\txor %ecx, %ecx",					\
	  "lock cmpxchgq %rcx, ((.Lk & 7) * 64)(%rdx)", 64)

/* One copy of probe `id` with its loop at <page> + off (a decimal literal).
 * A string for top-level asm; see the layout above. The comparand of the
 * cmpxchg probes (%rax = 0) always matches the zeroed words, so every op
 * succeeds and writes 0 back: no op depends on another. */
#define X86_ALIGN_SYM(id, off, sfx) "atomcost_align_" #id "_" #off sfx
/* A global label, and one that starts a function (objdump shows it whole). */
#define X86_ALIGN_LABEL(id, off, sfx)						\
	".globl " X86_ALIGN_SYM(id, off, sfx) "\n" X86_ALIGN_SYM(id, off, sfx) ":\n"
#define X86_ALIGN_FUNC(id, off, sfx)						\
	".type " X86_ALIGN_SYM(id, off, sfx) ", @function\n" X86_ALIGN_LABEL(id, off, sfx)
#define ARCH_ALIGN_COPY(id, off, setup, op, rept)				\
	".pushsection .text.atomcost_align,\"ax\",@progbits\n"			\
	".p2align 12, 0xcc\n"							\
	".if " #off "\n.skip " #off ", 0xcc\n.endif\n"						\
	X86_ALIGN_FUNC(id, off, "_loop")					\
	"1:\n"									\
	".set .Lk, 0\n"								\
	".rept " #rept "\n\t"							\
	op "\n"									\
	".set .Lk, .Lk + 1\n"							\
	".endr\n\t"								\
	"sub $1, %rsi\n\t"							\
	"jnz 1b\n"								\
	X86_ALIGN_LABEL(id, off, "_tail")					\
	"2:\n\t"								\
	"ret\n"									\
	".size " X86_ALIGN_SYM(id, off, "_loop") ", . - " X86_ALIGN_SYM(id, off, "_loop") "\n" \
	X86_ALIGN_FUNC(id, off, "") "\t"					\
	"mov (%rdi), %rdx\n\t"							\
	setup "\n\t"								\
	"test %rsi, %rsi\n\t"							\
	"jz 2b\n\t"								\
	"jmp 1b\n"								\
	".size " X86_ALIGN_SYM(id, off, "") ", . - " X86_ALIGN_SYM(id, off, "") "\n" \
	X86_ALIGN_LABEL(id, off, "_end")					\
	".popsection\n"

#endif
