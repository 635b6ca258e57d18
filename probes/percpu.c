/* SPDX-License-Identifier: MIT */
/* percpu.c - per-CPU counters without atomics: restartable sequences (rseq)
 * beside the per-CPU slot updated with `lock add` and with a plain add
 * (family "percpu"; the segment-relative `cmpxchgq %fs:` form is the
 * this_cpu_cmpxchg probe of the cmpxchg family).
 *
 * The per-CPU data is one 64-byte line per CPU at ctx->mem, slot = cpu *
 * 64, the CPU number read from the rseq area (cpu_id_start) as librseq and
 * the kernel's this_cpu ops do. rseq_add commits with a plain `addq`,
 * restarted by the kernel if the thread is preempted or migrated inside the
 * critical section; percpu_lock_add pays a locked add for the same
 * guarantee; percpu_add_nl is the unsafe plain add (an update is lost when
 * the thread moves between reading the CPU and the add).
 *
 * glibc 2.35+ registers rseq for every thread; when it did not
 * (GLIBC_TUNABLES=glibc.pthread.rseq=0, old kernel) the probes say so and do
 * not run (exit 4 when asked for by name).
 *
 * this_cpu_inc and this_cpu_add are the kernel's own per-CPU form: one
 * unlocked RMW through the segment base with a constant displacement
 * (`incq %gs:var`); here the variable is thread-local (`incq %fs:var`), the
 * thread standing for the CPU. Each probe of the fast-path menu also has
 * its context kernels (pattern-kernels.h): the op on its own words between
 * the steps of a walk and after pending stores.
 */
#include "probes.h"
#include "pattern-kernels.h"

#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/sysinfo.h>

#ifndef ARCH_HAS_RSEQ
#define ARCH_HAS_RSEQ 0
#endif

#define PCPU_STRIDE 64
#define PCPU_MAX_CPUS 4096
#define PCPU_MEM (PCPU_STRIDE * PCPU_MAX_CPUS)
/* the context kernels' slots start after the lines their stores write */
#define PCX_BASE (2 * TPUT_LINES * CACHE_LINE_BYTES)

#if ARCH_HAS_RSEQ

static const char *rseq_unsupported(void)
{
	static char why[160];
	int32_t cpu_id;

	if (__rseq_size == 0)
		return "rseq is not registered in this process (glibc did not register it: "
		       "GLIBC_TUNABLES=glibc.pthread.rseq=0 or a kernel without rseq)";
	cpu_id = *(volatile int32_t *)((char *)__builtin_thread_pointer() + __rseq_offset + 4);
	if (cpu_id < 0)
		return "rseq registration failed in this thread (cpu_id < 0)";
	if (get_nprocs_conf() > PCPU_MAX_CPUS) {
		snprintf(why, sizeof(why), "%d CPUs configured, the per-CPU array holds %d",
			 get_nprocs_conf(), PCPU_MAX_CPUS);
		return why;
	}
	return NULL;
}

#define PC_DECL char *base = p; const ptrdiff_t off = __rseq_offset
#define OP_RSEQ_ADD(i) arch_rseq_add(base, PCPU_STRIDE, 1, off);
PROBE_KERNEL(k_rseq_add_lat, PC_DECL, OP_RSEQ_ADD, )

#define OP_PC_LOCK_ADD(i) arch_add(base + arch_rseq_cpu_start(off) * PCPU_STRIDE, 1);
PROBE_KERNEL(k_percpu_lock_add_lat, PC_DECL, OP_PC_LOCK_ADD, )

#define OP_PC_ADD_NL(i) arch_add_nl(base + arch_rseq_cpu_start(off) * PCPU_STRIDE, 1);
PROBE_KERNEL(k_percpu_add_nl_lat, PC_DECL, OP_PC_ADD_NL, )

/* Every slot holds 0 and the op replaces 0 by 0: always succeeds and
 * stores, as the cmpxchg probes do. The expected value sits in a laundered
 * register (a constant would become `cmpq $0`). Throughput only: the
 * compare only decides the branch and the stored value is known before the
 * load, so one op's store does not wait for the previous op's load: a loop
 * of them is no chain, whatever the expected value is fed from. */
#define CX_DECL PC_DECL; bool ok_ = true; uint64_t z_ = 0; PROBE_LAUNDER(z_)
#define OP_RSEQ_CX(i) ok_ &= arch_rseq_cmpxchg(base, PCPU_STRIDE, z_, z_, off);
PROBE_KERNEL(k_rseq_cmpxchg_tput, CX_DECL, OP_RSEQ_CX, PROBE_SINK(ok_))

static uint64_t pc_sum(const uint64_t *a, int ncpu)
{
	uint64_t s = 0;

	for (int c = 0; c < ncpu; c++)
		s += a[c * PCPU_STRIDE / 8];
	return s;
}

static uint64_t pc_mem[PCPU_MEM / 8] __attribute__((aligned(64)));

/* 1000 adds through each form land in the slots exactly. */
static int verify_add(int form)
{
	int ncpu = get_nprocs_conf();

	if (rseq_unsupported())
		return 0;
	memset(pc_mem, 0, (size_t)ncpu * PCPU_STRIDE);
	for (int i = 0; i < 1000; i++) {
		char *b = (char *)pc_mem;

		if (form == 0)
			arch_rseq_add(b, PCPU_STRIDE, 1, __rseq_offset);
		else
			arch_add(b + arch_rseq_cpu_start(__rseq_offset) * PCPU_STRIDE, 1);
	}
	return pc_sum(pc_mem, ncpu) == 1000 ? 0 : -1;
}
static int verify_rseq_add(void) { return verify_add(0); }
static int verify_percpu_lock_add(void) { return verify_add(1); }

static int verify_percpu_add_nl(void)
{
	int ncpu = get_nprocs_conf();

	if (rseq_unsupported())
		return 0;
	memset(pc_mem, 0, (size_t)ncpu * PCPU_STRIDE);
	arch_add_nl((char *)pc_mem + arch_rseq_cpu_start(__rseq_offset) * PCPU_STRIDE, 3);
	return pc_sum(pc_mem, ncpu) == 3 ? 0 : -1;
}

/* Success replaces exactly one slot's value; a stale expected value fails
 * and changes nothing. */
static int verify_rseq_cmpxchg(void)
{
	int ncpu = get_nprocs_conf(), sixes = 0;
	char *b = (char *)pc_mem;

	if (rseq_unsupported())
		return 0;
	for (int c = 0; c < ncpu; c++)
		pc_mem[c * PCPU_STRIDE / 8] = 5;
	if (!arch_rseq_cmpxchg(b, PCPU_STRIDE, 5, 6, __rseq_offset))
		return -1;
	for (int c = 0; c < ncpu; c++)
		sixes += pc_mem[c * PCPU_STRIDE / 8] == 6;
	if (sixes != 1 || pc_sum(pc_mem, ncpu) != 5ull * ncpu + 1)
		return -1;
	/* 4 is in no slot: must fail */
	if (arch_rseq_cmpxchg(b, PCPU_STRIDE, 4, 9, __rseq_offset))
		return -1;
	return pc_sum(pc_mem, ncpu) == 5ull * ncpu + 1 ? 0 : -1;
}

/* The context kernels: the op on word (i % 8) of this CPU's line, so an op
 * finds the word written 8 ops earlier, not by the previous op; the slots
 * start after the 64 lines of ctx->mem the stores form writes. */
#define PCX_DECL char *base = p + PCX_BASE; const ptrdiff_t off = __rseq_offset
#define PCX_WORD(i) (((i) % 8) * 8)
#define rseq_add_CTX(i) arch_rseq_add(base + PCX_WORD(i), PCPU_STRIDE, 1, off);
PATTERN_CONTEXT(rseq_add, rseq_add_CTX, PCX_DECL, )
#define percpu_lock_add_CTX(i)							\
	arch_add(base + arch_rseq_cpu_start(off) * PCPU_STRIDE + PCX_WORD(i), 1);
PATTERN_CONTEXT(percpu_lock_add, percpu_lock_add_CTX, PCX_DECL, )
#define percpu_add_nl_CTX(i)							\
	arch_add_nl(base + arch_rseq_cpu_start(off) * PCPU_STRIDE + PCX_WORD(i), 1);
PATTERN_CONTEXT(percpu_add_nl, percpu_add_nl_CTX, PCX_DECL, )
#define rseq_cmpxchg_CTX(i) ok_ &= arch_rseq_cmpxchg(base + PCX_WORD(i), PCPU_STRIDE, z_, z_, off);
PATTERN_CONTEXT(rseq_cmpxchg, rseq_cmpxchg_CTX,
		PCX_DECL; bool ok_ = true; uint64_t z_ = 0; PROBE_LAUNDER(z_), PROBE_SINK(ok_))

/* The latency forms: every op on this CPU's slot, each reading the word the
 * previous op wrote while the thread stays on the CPU (CHAIN_MEMORY). */
#define PC_RUN(id) .run = { [MODE_LATENCY] = k_##id##_lat }, .chain = CHAIN_MEMORY,	\
		   .unsupported_now = rseq_unsupported, .verify = verify_##id
#define PC_RUN_TPUT(id) .run = { [MODE_THROUGHPUT] = k_##id##_tput },		\
		   .unsupported_now = rseq_unsupported, .verify = verify_##id
#define PC_INSN(s) .insn = s
#define PC_CTX(id) .patterns = &pat_##id, .ctx_stores = kc_##id##_stores
#else
#define PC_RUN(id) .unsupported = "no hand-written rseq critical section for this architecture yet"
#define PC_RUN_TPUT(id) PC_RUN(id)
#define PC_INSN(s) .insn = "-"
#define PC_CTX(id) .patterns = NULL
#endif

#if ARCH_HAS_SEG_PERCPU
/* this_cpu_inc / this_cpu_add: the per-CPU variables are one word on each
 * of 32 lines of a local-exec TLS array, every op's operand %fs:tc_area+k
 * (arch_percpu_inc). Latency: every op on word 0 (CHAIN_MEMORY); throughput:
 * the words and lines of the sweep (TPUT_OFF); context: op i on line i % 32. */
static __thread uint64_t tc_area[TPUT_LINES * CACHE_LINE_BYTES / 8]
	__attribute__((aligned(64), tls_model("local-exec"), used));
#define TC_ADD_DECL uint64_t n_ = 1; PROBE_LAUNDER(n_)
#define OP_TC_INC_L(i) arch_percpu_inc(tc_area, 0);
#define OP_TC_INC_T(i) arch_percpu_inc(tc_area, TPUT_OFF(i, 8));
#define OP_TC_ADD_L(i) arch_percpu_add(tc_area, 0, n_);
#define OP_TC_ADD_T(i) arch_percpu_add(tc_area, TPUT_OFF(i, 8), n_);
PROBE_KERNEL(k_this_cpu_inc_lat, , OP_TC_INC_L, )
PROBE_KERNEL_TPUT(k_this_cpu_inc_tput, , OP_TC_INC_T, )
PROBE_KERNEL(k_this_cpu_add_lat, TC_ADD_DECL, OP_TC_ADD_L, )
PROBE_KERNEL_TPUT(k_this_cpu_add_tput, TC_ADD_DECL, OP_TC_ADD_T, )
#define this_cpu_inc_CTX(i) arch_percpu_inc(tc_area, ((i) % TPUT_LINES) * CACHE_LINE_BYTES);
PATTERN_CONTEXT(this_cpu_inc, this_cpu_inc_CTX, , )
#define this_cpu_add_CTX(i) arch_percpu_add(tc_area, ((i) % TPUT_LINES) * CACHE_LINE_BYTES, n_);
PATTERN_CONTEXT(this_cpu_add, this_cpu_add_CTX, TC_ADD_DECL, )

/* Increments wrap, adds add, and only the addressed variable changes. */
static int verify_tc(bool add)
{
	uint64_t n = 2;

	memset(tc_area, 0, sizeof(tc_area));
	tc_area[8] = ~0ull;
	if (add)
		arch_percpu_add(tc_area, 64, n);
	else
		arch_percpu_inc(tc_area, 64);
	if (tc_area[8] != (add ? 1 : 0) || tc_area[0] || tc_area[16])
		return -1;
	arch_percpu_inc(tc_area, 0);
	return tc_area[0] == 1 ? 0 : -1;
}
static int verify_this_cpu_inc(void) { return verify_tc(false); }
static int verify_this_cpu_add(void) { return verify_tc(true); }

#define TC_RUN(id, is) .insn = is, KERNELS(this_cpu_##id), .verify = verify_this_cpu_##id,	\
	.patterns = &pat_this_cpu_##id, .ctx_stores = kc_this_cpu_##id##_stores
#else
#define TC_RUN(id, is) .insn = "-", .unsupported = "no segment-relative per-CPU addressing on this architecture"
#endif

#define PCPU_PROBE(id, twin_, at, ...)						\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "percpu",			\
		.atomicity = ATOMICITY_##at, __VA_ARGS__			\
	};
/* The rseq-era slot probes: one line per CPU, their context kernels, their
 * run forms (PC_RUN or PC_RUN_TPUT: run) and the menu need they meet. */
#define PC_SLOT_PROBE(id, twin_, at, run, need, insn_, ...)			\
	PCPU_PROBE(id, twin_, at, PC_INSN(insn_), .mem_size = PCPU_MEM + PCX_BASE,	\
		   .word_size = PCPU_STRIDE, PC_CTX(id), run(id), .menu_need = { need },	\
		   __VA_ARGS__)
PC_SLOT_PROBE(rseq_add, "percpu_lock_add", LOCAL, PC_RUN, NEED_PERCPU_COUNTER,
	      ARCH_INSN_RSEQ_ADD,
	      .kernel = "this_cpu_add (user space: rseq per-CPU counter)",
	      .kernel_src = "include/linux/percpu-defs.h this_cpu_add (rseq: kernel/rseq.c)",
	      .desc = "per-CPU counter add in a restartable sequence, committed by a plain add",
	      .safe_when = "rseq registered (glibc >= 2.35), restarts on migration")
PC_SLOT_PROBE(percpu_lock_add, "rseq_add", ATOMIC, PC_RUN, NEED_PERCPU_COUNTER,
	      "lock addq %reg,(slot) after movl %fs:cpu_id_start",
	      .kernel = "per-CPU slot + atomic_long_add (what rseq avoids)",
	      .kernel_src = ARCH_KSRC_ATOMIC " arch_atomic64_add (on a per-CPU slot)",
	      .desc = "the same per-CPU slot updated with a locked add",
	      .safe_when = "always (atomic), on the slot of the CPU it read")
PC_SLOT_PROBE(percpu_add_nl, "rseq_add", NONATOMIC, PC_RUN, NEED_PERCPU_COUNTER,
	      "addq %reg,(slot) after movl %fs:cpu_id_start (unsafe on migration)",
	      .kernel = "raw_cpu_add without preempt off (unsafe in user space)",
	      .kernel_src = "include/linux/percpu-defs.h raw_cpu_add",
	      .desc = "the per-CPU slot updated with a plain add: loses updates on migration",
	      .safe_when = "this CPU only, preemption off")
PC_SLOT_PROBE(rseq_cmpxchg, "this_cpu_cmpxchg", LOCAL, PC_RUN_TPUT, NEED_FREELIST,
	      ARCH_INSN_RSEQ_CMPXCHG,
	      .kernel = "this_cpu_cmpxchg (user space: rseq)",
	      .kernel_src = "include/linux/percpu-defs.h this_cpu_cmpxchg (rseq: kernel/rseq.c)",
	      .desc = "per-CPU compare-and-exchange in a restartable sequence, committed by a "
		      "store (throughput only: compare-then-store forms no chain)",
	      .safe_when = "rseq registered, restarts on migration")
/* this_cpu_inc and this_cpu_add: one instruction, as the kernel emits it. */
#define TC_SAFE "this CPU's counter: one instruction, safe against preemption and irqs"
PCPU_PROBE(this_cpu_inc, "atomic_inc", LOCAL, TC_RUN(inc, ARCH_INSN_PERCPU_INC),
	   .kernel = "this_cpu_inc",
	   .kernel_src = ARCH_KSRC_PERCPU " this_cpu_add_8 (percpu_add_op: inc for 1)",
	   .desc = "per-CPU counter increment through the segment base, as the kernel emits it",
	   .menu_need = { NEED_PERCPU_COUNTER }, .safe_when = TC_SAFE)
PCPU_PROBE(this_cpu_add, "percpu_lock_add", LOCAL, TC_RUN(add, ARCH_INSN_PERCPU_ADD),
	   .kernel = "this_cpu_add (run-time value)",
	   .kernel_src = ARCH_KSRC_PERCPU " this_cpu_add_8 (percpu_add_op: add %reg)",
	   .desc = "per-CPU counter add of a value in a register through the segment base",
	   .menu_need = { NEED_PERCPU_COUNTER }, .safe_when = TC_SAFE)
