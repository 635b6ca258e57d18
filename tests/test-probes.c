/* SPDX-License-Identifier: MIT */
/* test-probes.c - every probe's descriptor is well formed (kernel source,
 * a chain kind exactly when it has a latency form, a sweep that ends with
 * its throughput kernel), its semantic check passes, and each timed kernel
 * (every sweep footprint too) runs on its prepared memory. That each
 * declared chain is real is proved on the disassembly (test-disasm.sh). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probes.h"

static void run_one(const struct probe *p, enum probe_mode m, probe_kernel_fn fn)
{
	struct probe_ctx ctx = { .mode = m };
	size_t mem = p->mem_size ? p->mem_size : 64 * 1024;

	ctx.mem = aligned_alloc(4096, (mem + 4095) & ~(size_t)4095);
	memset(ctx.mem, 0, mem);
	ctx.mem_size = mem;
	CHECK(!p->setup || p->setup(&ctx) == 0, "%s: setup", p->name);
	fn(&ctx, 3);
	fn(&ctx, 1);
	free(ctx.mem);
}

static void run_kernels(const struct probe *p)
{
	for (int m = 0; m < MODE__COUNT; m++)
		if (p->run[m])
			run_one(p, (enum probe_mode)m, p->run[m]);
	for (int i = 0; p->tput_sweep && i < TPUT_NFOOT; i++)
		if (p->tput_sweep[i])
			run_one(p, MODE_THROUGHPUT, p->tput_sweep[i]);
}

/* The empty loop is the one latency-form kernel without an op, so without
 * a chain; every other latency form must declare how it chains. */
static bool is_empty_loop(const struct probe *p)
{
	return p->atomicity == ATOMICITY_BASELINE && !strcmp(p->name, "empty");
}

int main(void)
{
	CHECK(probe_count > 20, "probe table has %zu probes", probe_count);
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		bool any = p->run[MODE_LATENCY] || p->run[MODE_THROUGHPUT];

		CHECK(p->name && *p->name && p->family && *p->family, "probe %zu named", i);
		CHECK(p->insn && *p->insn && p->kernel && p->desc, "%s: insn/kernel/desc", p->name);
		CHECK(probe_find(p->name) == p, "%s: unique name", p->name);
		CHECK(p->unsupported ? !any : any, "%s: kernels iff supported", p->name);
		CHECK(p->kernel_src && *p->kernel_src, "%s: names the kernel source it mirrors", p->name);
		if (p->run[MODE_LATENCY] && !is_empty_loop(p))
			CHECK(p->chain != CHAIN_NONE, "%s: a latency form declares its chain", p->name);
		if (!p->unsupported)
			CHECK(p->chain == CHAIN_NONE || p->run[MODE_LATENCY],
			      "%s: a chain is declared only with a latency form", p->name);
		if (p->tput_sweep) {
			CHECK(p->tput_sweep[TPUT_FOOT_DEFAULT] == p->run[MODE_THROUGHPUT],
			      "%s: the 1 x 32 sweep kernel is the throughput form", p->name);
			/* only a 16-byte op lacks a footprint: 8 of its words overflow a line */
			for (int f = 0; f < TPUT_NFOOT; f++)
				CHECK(p->tput_sweep[f] != NULL || tput_footprints[f].words == 8,
				      "%s: sweep footprint %u words x %u lines", p->name,
				      tput_footprints[f].words, tput_footprints[f].lines);
		}
		if (p->twin) {
			const struct probe *t = probe_find(p->twin);

			CHECK(t != NULL, "%s: twin '%s' exists", p->name, p->twin);
			CHECK(t != p, "%s: not its own twin", p->name);
			if (t && p->atomicity == ATOMICITY_ATOMIC && t->atomicity != ATOMICITY_ATOMIC)
				CHECK(t->twin && !strcmp(t->twin, p->name), "%s <-> %s pair", p->name, t->name);
		}
		if (p->atomicity != ATOMICITY_BASELINE && !p->unsupported)
			CHECK(p->verify != NULL, "%s: has a semantic check", p->name);
		if (p->verify && !p->unsupported)
			CHECK(p->verify() == 0, "%s: semantics", p->name);
		if (!p->unsupported)
			run_kernels(p);
	}
	return test_done("probes");
}
