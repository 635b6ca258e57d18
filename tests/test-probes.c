/* test-probes.c - every probe's descriptor is well formed, its semantic
 * check passes, and each timed kernel runs on its prepared memory. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probes.h"

static void run_kernels(const struct probe *p)
{
	for (int m = 0; m < MODE__COUNT; m++) {
		struct probe_ctx ctx = { .mode = (enum probe_mode)m };
		size_t mem = p->mem_size ? p->mem_size : 64 * 1024;

		if (!p->run[m])
			continue;
		ctx.mem = aligned_alloc(4096, (mem + 4095) & ~(size_t)4095);
		memset(ctx.mem, 0, mem);
		ctx.mem_size = mem;
		CHECK(!p->setup || p->setup(&ctx) == 0, "%s: setup", p->name);
		p->run[m](&ctx, 3);
		p->run[m](&ctx, 1);
		free(ctx.mem);
	}
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
