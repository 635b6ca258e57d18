/* SPDX-License-Identifier: MIT */
/* bitops.c - set_bit, clear_bit, test_and_set_bit and their non-atomic twins
 * (kernel include/asm-generic/bitops, arch/x86/include/asm/bitops.h).
 *
 * Each twin is the instruction the kernel emits: set_bit(const nr) is
 * `lock orb $mask`, but __set_bit is `btsq $nr` (never `orb`); the plain
 * `orb` that C `*byte |= mask` compiles to is its own probe, __or_byte.
 *
 * Latency form: every op hits the same word, so each reads the word the
 * previous op wrote (CHAIN_MEMORY). Throughput form: 1..8 words on each of
 * 1..32 hot lines (the sweep), cycled, so ops are independent. Twins are
 * generated from the same template and differ only in the op.
 */
#include "probes.h"
#include "pattern-kernels.h"

#include <string.h>

#define BIT_NR 1		/* constant nr 1, as set_bit(1, p) */
#define BIT_IMM (1u << BIT_NR)	/* its byte mask: set_bit's `lock orb $2` */

/* Variable bit number kept in a register, masked to the word (docs/method.md). */
#define NR_DECL uint64_t nr = ctx->scratch & 63
#define MASK_DECL uint64_t m = 1ull << (ctx->scratch & 63)
/* test_and_set_bit: the returned bit is consumed (added into a register
 * accumulator; a bool accumulator lets gcc park every flag on the stack), as
 * a caller testing it would. The chain runs through the word, not acc. */
#define TSB_DECL NR_DECL; uint64_t acc = 0

/* Every kernel of a probe comes from its op at an address, <id>_X(x); the
 * hot kernels run it on p (latency) and over the sweep. The access patterns
 * (pattern-kernels.h) run it at an arbitrary line: the bit ops change only
 * bits 1 and 5 of the first word, below the line offset a chase masks off,
 * so they also run on the pointer word. There the bit number and mask sit
 * in a laundered register, as in the hot kernels. */
#define BIT_PAIR(ida, idn, decls, pat_decls, tail)				\
	PROBE_KERNELS_AT(ida, ida##_X, decls, tail)				\
	PROBE_KERNELS_AT(idn, idn##_X, decls, tail)				\
	PATTERN_PAIR(ida, ida##_X, idn, idn##_X, 0, pat_decls, tail)
#define PAT_NR_DECL uint64_t nr = 5; PROBE_LAUNDER(nr)
#define PAT_MASK_DECL uint64_t m = 1ull << 5; PROBE_LAUNDER(m)
#define PAT_TSB_DECL PAT_NR_DECL; uint64_t acc = 0

#define set_bit_X(x) arch_set_bit_imm(x, BIT_IMM);
#define __set_bit_X(x) arch___set_bit_imm(x, BIT_NR);
BIT_PAIR(set_bit, __set_bit, , , )
CONTEXT_STORES_PAIR(set_bit, set_bit_X, __set_bit, __set_bit_X, , )
/* set_bit's op without the lock prefix (same byte, same immediate): the
 * lock-prefix-only control of set_bit under every pattern. */
#define __or_byte_X(x) arch_or_byte_nl(x, BIT_IMM);
PROBE_KERNELS_AT(__or_byte, __or_byte_X, , )
PATTERN_ONE(__or_byte, __or_byte_X, 0, , , NULL, NULL)
#if ARCH_HAS_DS_PREFIX
#define set_bit_ds_X(x) arch_set_bit_imm_ds(x, BIT_IMM);
PROBE_KERNELS_AT(set_bit_ds, set_bit_ds_X, , )
#endif
#define set_bit_var_X(x) arch_set_bit_var(nr, x);
#define __set_bit_var_X(x) arch_set_bit_var_nl(nr, x);
BIT_PAIR(set_bit_var, __set_bit_var, NR_DECL, PAT_NR_DECL, )
CONTEXT_STORES_PAIR(set_bit_var, set_bit_var_X, __set_bit_var, __set_bit_var_X, PAT_NR_DECL, )
#define or_word_X(x) arch_or_word(x, m);
#define __or_word_X(x) arch_or_word_nl(x, m);
BIT_PAIR(or_word, __or_word, MASK_DECL, PAT_MASK_DECL, )
#define clear_bit_X(x) arch_clear_bit_imm(x, BIT_IMM);
#define __clear_bit_X(x) arch___clear_bit_imm(x, BIT_NR);
BIT_PAIR(clear_bit, __clear_bit, , , )
#define change_bit_X(x) arch_change_bit_imm(x, BIT_IMM);
#define __change_bit_X(x) arch___change_bit_imm(x, BIT_NR);
BIT_PAIR(change_bit, __change_bit, , , )
#define clear_bit_var_X(x) arch_clear_bit_var(nr, x);
#define __clear_bit_var_X(x) arch_clear_bit_var_nl(nr, x);
BIT_PAIR(clear_bit_var, __clear_bit_var, NR_DECL, PAT_NR_DECL, )
#define test_and_set_bit_X(x) acc += arch_test_and_set_bit(nr, x); PROBE_LAUNDER(acc);
#define __test_and_set_bit_X(x) acc += arch_test_and_set_bit_nl(nr, x); PROBE_LAUNDER(acc);
BIT_PAIR(test_and_set_bit, __test_and_set_bit, TSB_DECL, PAT_TSB_DECL, PROBE_SINK(acc))
CONTEXT_STORES_PAIR(test_and_set_bit, test_and_set_bit_X, __test_and_set_bit,
		    __test_and_set_bit_X, PAT_TSB_DECL, PROBE_SINK(acc))

/* Variable-nr kernels read their bit number from scratch. */
static int setup_nr(struct probe_ctx *ctx)
{
	ctx->scratch = 5;
	return 0;
}

/* ---- semantics ------------------------------------------------------- */

static int check_word(uint64_t got, uint64_t want)
{
	return got == want ? 0 : -1;
}

/* One op on a word holding init must leave want. */
#define VERIFY_OP(id, init, op, want)						\
	static int verify_##id(void)						\
	{									\
		uint64_t w = (init);						\
										\
		op;								\
		return check_word(w, want);					\
	}
VERIFY_OP(set_bit, 0x10, arch_set_bit_imm(&w, BIT_IMM), 0x12)
VERIFY_OP(__or_byte, 0x10, arch_or_byte_nl(&w, BIT_IMM), 0x12)
#if ARCH_HAS_DS_PREFIX
VERIFY_OP(set_bit_ds, 0x10, arch_set_bit_imm_ds(&w, BIT_IMM), 0x12)
#endif
VERIFY_OP(or_word, 1, arch_or_word(&w, 1ull << 40), 1 | (1ull << 40))
VERIFY_OP(__or_word, 1, arch_or_word_nl(&w, 1ull << 40), 1 | (1ull << 40))
VERIFY_OP(clear_bit, 0xff, arch_clear_bit_imm(&w, BIT_IMM), 0xfd)
/* A bit above the first byte too: bts and btr address the whole word. */
VERIFY_OP(__set_bit, 0x10, arch___set_bit_imm(&w, BIT_NR); arch___set_bit_imm(&w, 40),
	  0x12 | (1ull << 40))
VERIFY_OP(__clear_bit, 0xff | (1ull << 40), arch___clear_bit_imm(&w, BIT_NR);
	  arch___clear_bit_imm(&w, 40), 0xfd)

/* Bit 63 and the masking rule: only the addressed word changes. */
static int verify_var(void (*op)(uint64_t, volatile void *), int set)
{
	uint64_t w[2] = { set ? 0 : ~0ull, set ? 0 : ~0ull };

	op(63, &w[0]);
	op(5, &w[0]);
	if (set)
		return check_word(w[0], (1ull << 63) | (1ull << 5)) | check_word(w[1], 0);
	return check_word(w[0], ~((1ull << 63) | (1ull << 5))) | check_word(w[1], ~0ull);
}

static int verify_set_bit_var(void) { return verify_var(arch_set_bit_var, 1); }
static int verify___set_bit_var(void) { return verify_var(arch_set_bit_var_nl, 1); }
static int verify_clear_bit_var(void) { return verify_var(arch_clear_bit_var, 0); }
static int verify___clear_bit_var(void) { return verify_var(arch_clear_bit_var_nl, 0); }

/* change_bit toggles: twice restores the word. */
static int verify_change_bit(void)
{
	uint64_t w = 0x10;
	int err;

	arch_change_bit_imm(&w, BIT_IMM);
	err = check_word(w, 0x12);
	arch_change_bit_imm(&w, BIT_IMM);
	return err | check_word(w, 0x10);
}

static int verify___change_bit(void)
{
	uint64_t w = 0x10;
	int err;

	arch___change_bit_imm(&w, BIT_NR);
	arch___change_bit_imm(&w, 40);
	err = check_word(w, 0x12 | (1ull << 40));
	arch___change_bit_imm(&w, BIT_NR);
	return err | check_word(w, 0x10 | (1ull << 40));
}

static int verify_tas(bool (*op)(uint64_t, volatile void *))
{
	uint64_t w = 0;
	bool first = op(7, &w), second = op(7, &w);

	return (!first && second && w == (1ull << 7)) ? 0 : -1;
}

static int verify_test_and_set_bit(void) { return verify_tas(arch_test_and_set_bit); }
static int verify___test_and_set_bit(void) { return verify_tas(arch_test_and_set_bit_nl); }

/* A descriptor with its kernels, pattern kernels and verify named by id. */
#define BIT_PROBE(id, twin_, at, insn_, ...)					\
	const struct probe probe_##id = {					\
		.name = #id, .twin = twin_, .family = "bitops",			\
		.atomicity = ATOMICITY_##at, .insn = insn_, KERNELS(id),	\
		.patterns = &pat_##id, .verify = verify_##id, __VA_ARGS__	\
	};
/* Twins named after their op: op(nr) from ARCH_KSRC_BITOPS arch_<op> and
 * __op(nr) from ARCH_KSRC_BITOPS_NL arch___<op>, described as what they do. */
#define BIT_TWINS(ida, idn, op, nr, what, insn_a, insn_n, ...)			\
	BIT_PROBE(ida, #idn, ATOMIC, insn_a, .kernel = #op "(" nr ")",		\
		  KSRC(ARCH_KSRC_BITOPS, "arch_" #op), .desc = "atomic " what, __VA_ARGS__)	\
	BIT_PROBE(idn, #ida, NONATOMIC, insn_n, .kernel = "__" #op "(" nr ")",	\
		  KSRC(ARCH_KSRC_BITOPS_NL, "arch___" #op), .desc = "non-atomic " what, __VA_ARGS__)
BIT_PROBE(set_bit, "__set_bit", ATOMIC, ARCH_INSN_SET_BIT_IMM,
	  .kernel = "set_bit(const nr)", KSRC(ARCH_KSRC_BITOPS, "arch_set_bit"),
	  .desc = "atomic bit set, constant bit number", .in_default = true,
	  .menu_need = { NEED_OWN_BIT, NEED_SHARED_BIT }, .safe_when = "always (atomic, unordered)",
	  .ctx_stores = kc_set_bit_stores, .card_pair = 1)
BIT_PROBE(__set_bit, "set_bit", NONATOMIC, ARCH_INSN___SET_BIT_IMM,
	  .kernel = "__set_bit(const nr)", KSRC(ARCH_KSRC_BITOPS_NL, "arch___set_bit"),
	  .desc = "non-atomic bit set, constant bit number", .in_default = true,
	  .menu_need = { NEED_OWN_BIT }, .safe_when = "no concurrent writer to the word",
	  .ctx_stores = kc___set_bit_stores)
BIT_PROBE(__or_byte, "set_bit", NONATOMIC, ARCH_INSN_OR_BYTE_NL,
	  .kernel = "C `*byte |= mask` (not __set_bit)", .kernel_src = "- (C, no kernel macro)",
	  .in_default = true, .desc = "a plain byte OR with an immediate: set_bit's op without "
				      "lock, what C |= compiles to")

const struct probe probe_set_bit_ds = {
	.name = "set_bit_ds", .twin = "set_bit", .family = "bitops",
	.atomicity = ATOMICITY_LOCAL,
#if ARCH_HAS_DS_PREFIX
	.insn = ARCH_INSN_SET_BIT_IMM_DS, KERNELS(set_bit_ds), .verify = verify_set_bit_ds,
#else
	.insn = "-", .unsupported = "no lock-prefix patching on this architecture",
#endif
	.kernel = "set_bit on a UP-booted kernel (lock patched to ds)",
	KSRC(ARCH_KSRC_BITOPS, "arch_set_bit (LOCK_PREFIX patched by alternatives_smp_unlock)"),
	.desc = "the lock prefix replaced by ds, as a uniprocessor kernel runs it",
};

BIT_PROBE(or_word, "__or_word", ATOMIC, ARCH_INSN_OR_WORD,
	  .kernel = "atomic_long_or", KSRC(ARCH_KSRC_ATOMIC, "arch_atomic64_or"),
	  .desc = "atomic word OR with a mask in a register", .setup = setup_nr)
BIT_PROBE(__or_word, "or_word", NONATOMIC, ARCH_INSN_OR_WORD_NL,
	  .kernel = "C `word |= mask`", .kernel_src = "- (C, no kernel macro)",
	  .desc = "what the compiler emits for C |= (timed in asm)", .in_default = true,
	  .setup = setup_nr)
BIT_PROBE(set_bit_var, "__set_bit_var", ATOMIC, ARCH_INSN_SET_BIT_VAR,
	  .kernel = "set_bit(variable nr)", KSRC(ARCH_KSRC_BITOPS, "arch_set_bit"),
	  .desc = "atomic bit set, bit number in a register", .in_default = true, .setup = setup_nr,
	  .menu_need = { NEED_OWN_BIT, NEED_SHARED_BIT }, .safe_when = "always (atomic, unordered)",
	  .ctx_stores = kc_set_bit_var_stores)
BIT_PROBE(__set_bit_var, "set_bit_var", NONATOMIC, ARCH_INSN_SET_BIT_VAR_NL,
	  .kernel = "__set_bit(variable nr)", KSRC(ARCH_KSRC_BITOPS_NL, "arch___set_bit"),
	  .desc = "non-atomic bit set, bit number in a register", .in_default = true,
	  .setup = setup_nr, .menu_need = { NEED_OWN_BIT },
	  .safe_when = "no concurrent writer to the word", .ctx_stores = kc___set_bit_var_stores)
BIT_TWINS(clear_bit, __clear_bit, clear_bit, "const nr", "bit clear, constant bit number",
	  ARCH_INSN_CLEAR_BIT_IMM, ARCH_INSN___CLEAR_BIT_IMM, .in_default = true)
BIT_TWINS(change_bit, __change_bit, change_bit, "const nr", "bit toggle, constant bit number",
	  ARCH_INSN_CHANGE_BIT_IMM, ARCH_INSN___CHANGE_BIT_IMM)
BIT_TWINS(clear_bit_var, __clear_bit_var, clear_bit, "variable nr",
	  "bit clear, bit number in a register", ARCH_INSN_CLEAR_BIT_VAR,
	  ARCH_INSN_CLEAR_BIT_VAR_NL, .setup = setup_nr)
BIT_PROBE(test_and_set_bit, "__test_and_set_bit", ATOMIC, ARCH_INSN_TEST_AND_SET_BIT,
	  .kernel = "test_and_set_bit", KSRC(ARCH_KSRC_BITOPS, "arch_test_and_set_bit"),
	  .desc = "atomic, fully ordered, returns the old bit", .in_default = true,
	  .setup = setup_nr, .menu_need = { NEED_SHARED_BIT },
	  .safe_when = "always (atomic, fully ordered)", .ctx_stores = kc_test_and_set_bit_stores)
BIT_PROBE(__test_and_set_bit, "test_and_set_bit", NONATOMIC, ARCH_INSN_TEST_AND_SET_BIT_NL,
	  .kernel = "__test_and_set_bit", KSRC(ARCH_KSRC_BITOPS_NL, "arch___test_and_set_bit"),
	  .desc = "non-atomic, returns the old bit", .in_default = true, .setup = setup_nr,
	  .ctx_stores = kc___test_and_set_bit_stores)
