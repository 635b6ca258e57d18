/* SPDX-License-Identifier: MIT */
/* baseline.c - reference loops: the empty probe (what N/2N leaves of the loop
 * itself), the add and imul chains that check the cycle conversion, an L1
 * load chase and plain stores. */
#include "probes.h"
#include "pattern-kernels.h"

#include <string.h>

/* The loop with no op: one empty asm per iteration stops the compiler from
 * deleting it. Its per-"op" residual is reported as the method's floor. */
static __attribute__((noinline)) void k_empty(struct probe_ctx *ctx, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void k_add_chain(struct probe_ctx *ctx, uint64_t iters)
{
	arch_add_chain(iters);
}

static __attribute__((noinline)) void k_imul_chain(struct probe_ctx *ctx, uint64_t iters)
{
	arch_mul_chain(iters);
}

/* Ring of TPUT_LINES lines, each pointing to the next: a chase that stays in L1. */
static int setup_ring(struct probe_ctx *ctx)
{
	char *p = ctx->mem;

	for (int i = 0; i < TPUT_LINES; i++)
		*(char **)(p + i * CACHE_LINE_BYTES) = p + ((i + 1) % TPUT_LINES) * CACHE_LINE_BYTES;
	return 0;
}

/* latency: p = *p, each load's address is the previous load's value. */
#define OP_CHASE(i) q = (char *)arch_load(q);
PROBE_KERNEL(k_load_lat, char *q = p, OP_CHASE, PROBE_SINK(q))
/* throughput: independent loads over 1..8 words x 1..32 lines (the sweep). */
#define OP_LOAD_T(i) arch_load(TPUT_ADDR(p, i));
PROBE_KERNEL_TPUT(k_load_tput, , OP_LOAD_T, )

/* Stores only write: a loop of them carries no dependency from one to the
 * next, so the store offers no latency form, only throughput. */
#define OP_STORE_T(i) arch_store(TPUT_ADDR(p, i), v);
PROBE_KERNEL_TPUT(k_store_tput, uint64_t v = ctx->scratch, OP_STORE_T, )

static int verify_ring(void)
{
	char buf[TPUT_LINES * CACHE_LINE_BYTES] __attribute__((aligned(64)));
	struct probe_ctx c = { .mem = buf, .mem_size = sizeof(buf) };
	char *q = buf;

	setup_ring(&c);
	for (int i = 0; i < TPUT_LINES; i++)
		q = (char *)arch_load(q);
	return q == buf ? 0 : -1;
}

static int verify_store(void)
{
	uint64_t w = 0;

	arch_store(&w, 0x1234);
	return arch_load(&w) == 0x1234 ? 0 : -1;
}

/* Every baseline is in the default run. */
#define BASE_PROBE(id, insn_, ...)						\
	const struct probe probe_##id = {					\
		.name = #id, .family = "baseline", .atomicity = ATOMICITY_BASELINE,	\
		.insn = insn_, .in_default = true, __VA_ARGS__			\
	};
/* no op, so no chain: the one latency-form kernel without one */
BASE_PROBE(empty, "(none: loop only)", .kernel = "-", .kernel_src = "-",
	   .desc = "the timed loop with no op: the residual the method leaves",
	   .run = { [MODE_LATENCY] = k_empty })
BASE_PROBE(add_chain, "add %reg,%reg (dependent, addend from a register)",
	   .kernel = "-", .kernel_src = "-", .chain = CHAIN_REGISTER,
	   .desc = "1-cycle dependent adds: checks the TSC-to-cycle conversion (1.00)",
	   .run = { [MODE_LATENCY] = k_add_chain })
BASE_PROBE(imul_chain, "imul %reg,%reg (dependent)", .kernel = "-", .kernel_src = "-",
	   .chain = CHAIN_REGISTER,
	   .desc = "dependent multiplies: an independent check of the conversion (3.00 on x86-64)",
	   .run = { [MODE_LATENCY] = k_imul_chain })

/* The bare walk of every access pattern: the cost each op is read against. */
PATTERN_PLAIN(load_chase)

BASE_PROBE(load_chase, ARCH_INSN_LOAD, .kernel = "READ_ONCE",
	   .kernel_src = "include/asm-generic/rwonce.h READ_ONCE",
	   .desc = "L1 load: pointer chase (latency) and independent loads (throughput)",
	   .chain = CHAIN_REGISTER,
	   .run = { [MODE_LATENCY] = k_load_lat, [MODE_THROUGHPUT] = k_load_tput },
	   .tput_sweep = k_load_tput_sweep, .setup = setup_ring, .verify = verify_ring,
	   .patterns = &pat_load_chase)
BASE_PROBE(store, ARCH_INSN_STORE, .kernel = "WRITE_ONCE",
	   .kernel_src = "include/asm-generic/rwonce.h WRITE_ONCE",
	   .desc = "plain store to independent lines (throughput only: stores form no chain)",
	   .run = { [MODE_THROUGHPUT] = k_store_tput }, .tput_sweep = k_store_tput_sweep,
	   .verify = verify_store)
