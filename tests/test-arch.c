/* SPDX-License-Identifier: MIT */
/* test-arch.c - the semantics of the architecture layer's own forms that no
 * probe reaches: on arm64 both the LSE and the LL/SC implementation of every
 * primitive (the probes time only one of them per build); everywhere, the
 * timer advances and the calibration chains run. Runs under qemu-aarch64. */
#include <string.h>

#include "arch/arch.h"
#include "harness.h"

#if ARCH_HAS_LLSC && ARCH_HAS_LSE
typedef uint64_t (*cas_fn)(volatile void *, uint64_t, uint64_t);
typedef uint64_t (*rmw_fn)(volatile void *, uint64_t);
typedef bool (*casp_fn)(volatile void *, uint64_t *, uint64_t, uint64_t);

static void check_cas(const char *name, cas_fn op)
{
	uint64_t w = 5;

	CHECK(op(&w, 5, 8) == 5 && w == 8, "%s: success returns old and stores", name);
	CHECK(op(&w, 5, 9) == 8 && w == 8, "%s: failure returns seen and stores nothing", name);
}

static void check_rmw(const char *name, rmw_fn op, uint64_t start, uint64_t arg, uint64_t want)
{
	uint64_t w = start;

	CHECK(op(&w, arg) == start && w == want, "%s: returns %llx, leaves %llx (got %llx)", name,
	      (unsigned long long)start, (unsigned long long)want, (unsigned long long)w);
}

static void check_casp(const char *name, casp_fn op)
{
	uint64_t pair[2] __attribute__((aligned(16))) = { 1, 2 };
	uint64_t old[2] = { 1, 2 };

	CHECK(op(pair, old, 0x11, 0x22) && pair[0] == 0x11 && pair[1] == 0x22,
	      "%s: success moves both halves", name);
	old[0] = 0x11;
	old[1] = 0x99;
	CHECK(!op(pair, old, 5, 6) && pair[0] == 0x11 && pair[1] == 0x22 && old[0] == 0x11 &&
	      old[1] == 0x22, "%s: a differing high half fails and returns the pair seen", name);
	old[0] = 0x10;
	old[1] = 0x22;
	CHECK(!op(pair, old, 5, 6) && pair[0] == 0x11 && old[0] == 0x11,
	      "%s: a differing low half fails", name);
}

static void check_arm64_forms(void)
{
	uint64_t w;

	arch_init();
	printf("arm64: LSE %s on this CPU\n", arch_arm64_have_lse ? "present" : "absent");
	/* LL/SC forms run on every arm64 core */
	check_cas("ldxr/stxr cas", arch_llsc_cas);
	check_cas("ldxr/stlxr casal", arch_llsc_casal);
	check_rmw("ldxr/stxr fetch_or", arch_llsc_fetch_or_relaxed, 0x10, 0x2, 0x12);
	check_rmw("ldxr/stlxr fetch_or", arch_llsc_fetch_or, 0x10, 0x2, 0x12);
	check_rmw("ldxr/stxr fetch_andnot", arch_llsc_fetch_andnot_relaxed, 0x13, 0x2, 0x11);
	check_rmw("ldxr/stxr fetch_add", arch_llsc_fetch_add_relaxed, ~0ull, 1, 0);
	check_rmw("ldxr/stlxr fetch_add", arch_llsc_fetch_add, 40, 2, 42);
	check_rmw("ldxr/stlxr xchg", arch_llsc_xchg, 3, 4, 4);
	check_casp("ldxp/stxp casp", arch_llsc_casp);
	check_casp("ldxp/stlxp caspal", arch_llsc_caspal);
	check_rmw("plain fetch_or", arch_plain_fetch_or, 0x10, 0x2, 0x12);
	check_rmw("plain fetch_andnot", arch_plain_fetch_andnot, 0x13, 0x2, 0x11);
	if (!arch_arm64_have_lse) {
		printf("arm64: LSE forms not run (no LSE here)\n");
		return;
	}
	check_cas("cas", arch_lse_cas);
	check_cas("casal", arch_lse_casal);
	check_rmw("ldsetal", arch_lse_fetch_or, 0x10, 0x2, 0x12);
	check_rmw("swpal", arch_lse_swpal, 3, 4, 4);
	check_rmw("ldaddal", arch_lse_ldaddal, 40, 2, 42);
	check_rmw("ldadd", arch_lse_ldadd, ~0ull, 1, 0);
	w = 0x10;
	arch_lse_or(&w, 0x2);
	CHECK(w == 0x12, "stset");
	arch_lse_andnot(&w, 0x10);
	CHECK(w == 0x2, "stclr");
	arch_lse_stadd(&w, 40);
	CHECK(w == 42, "stadd");
	check_casp("casp", arch_lse_casp);
	check_casp("caspal", arch_lse_caspal);
}
#endif

int main(void)
{
	uint64_t a, b, w = 0;

	arch_init();
	printf("arch %s, atomics %s, timer %s\n", ARCH_NAME, ARCH_ATOMICS_IMPL, arch_timer_name());
	/* the timer never runs backwards and advances over a real workload */
	a = arch_timer_start();
	arch_add_chain(1 << 14);
	arch_mul_chain(1 << 12);
	b = arch_timer_stop();
	CHECK(b > a, "timer advances over 1M dependent adds (%llu -> %llu)", (unsigned long long)a,
	      (unsigned long long)b);
	arch_store(&w, 7);
	arch_smp_mb();
	CHECK(arch_load(&w) == 7, "store, barrier, load");
	arch_add(&w, 3);
	CHECK(w == 10, "arch_add");
	arch_add_nl(&w, 3);
	CHECK(w == 13, "arch_add_nl");
	/* __set_bit/__clear_bit address the whole word (bts/btr, not a byte
	 * op); the C |= byte form touches only its byte */
	w = 0;
	arch___set_bit_imm(&w, 1);
	arch___set_bit_imm(&w, 63);
	CHECK(w == (2 | 1ull << 63), "arch___set_bit_imm: %llx", (unsigned long long)w);
	arch___clear_bit_imm(&w, 63);
	CHECK(w == 2, "arch___clear_bit_imm: %llx", (unsigned long long)w);
	arch_or_byte_nl(&w, 0x81);
	CHECK(w == 0x83, "arch_or_byte_nl: %llx", (unsigned long long)w);
	arch_set_bit_imm(&w, 0x10);
	arch_clear_bit_imm(&w, 0x2);
	CHECK(w == 0x91, "arch_set_bit_imm / arch_clear_bit_imm: %llx", (unsigned long long)w);
	CHECK(arch_test_and_set_bit(40, &w) == false && arch_test_and_set_bit(40, &w) == true &&
	      w == (0x91 | 1ull << 40), "arch_test_and_set_bit, constant nr");
#if ARCH_HAS_LLSC && ARCH_HAS_LSE
	check_arm64_forms();
#endif
	return test_done("arch");
}
