/* SPDX-License-Identifier: MIT */
/* minprobe.c - a minimal probe of what single x86-64 instructions cost, in
 * core cycles, written apart from atomcost to check it: it includes no
 * atomcost header, shares no code with the engine, and times differently.
 *
 *   minprobe [-c CPU] [-r REPS] [-a] [-j] [OP ...]
 *
 * How it measures (each part differs from the engine on purpose):
 * - it pins itself with sched_setaffinity() to CPU (default: the first CPU
 *   the process may use) and checks sched_getcpu();
 * - each timed loop is ONE asm statement, hand-written loop included: an
 *   `.rept 8` of an `.irp` over 8 registers puts 64 copies of the op between
 *   `1:` and `dec; jnz 1b`, so the compiler can neither merge nor move
 *   anything. Op i of the 64 uses register r(8 + i % 8) and the word at
 *   line (i % LINES); LINES is 1 (every op on one word: the latency chain,
 *   through memory), 2, 4, 8, 16 or 32 (throughput: the op cycling over that
 *   many hot lines; the best is reported with its line count). The latency form
 *   of xchg and xadd uses one register instead, so that the value that
 *   comes back is also the next op's operand, as in `v = xchg(p, v)`: that
 *   chain is about half a cycle longer than the memory-only one;
 * - the clock is clock_gettime(CLOCK_MONOTONIC_RAW) around the whole loop
 *   (about 1 ms, 10^5 to 10^7 ops, the count fixed per op before timing):
 *   no TSC, no fences, nothing subtracted;
 * - cycles come from its own calibration, taken right before and right
 *   after every timed loop: a chain of dependent `add %rdx,%rax` whose
 *   addend is made opaquely (`mov $-1,%rdx; neg %rdx`; with an immediate
 *   some cores run such a chain faster than one add per cycle). Per
 *   repetition cycles/op = (t_op / n_op) / (t_add / n_add), with t_add the
 *   mean of the two chains around it; the result is the median over REPS
 *   (default 11) repetitions, after one discarded warm-up repetition. A
 *   repetition during which the thread was preempted, or whose two add
 *   chains differ by more than 1%, is thrown away and run again (the
 *   machine is shared);
 *   `imul` (3 cycles on x86-64) checks the calibration.
 *
 * Output: one line per op and form, tab separated:
 *   name  form  cycles  lines  spread
 * form is lat (the one-word chain) or tput (best of 1, 2, 4, ..., 32 lines);
 * spread is (max - min) / median of the repetitions. Lines starting with #
 * are comments (CPU, calibration; with -a every line count of the
 * throughput sweep). -j prints the same as one JSON object.
 *
 * Disassembly checked with `objdump -d --no-show-raw-insn build/tests/minprobe`:
 * every loop function holds exactly 64 copies of its instruction between the
 * loop label and `dec; jne`, with no other memory access (no spill, no
 * stack reference) inside the loop.
 *
 * Exit: 0 done, 1 error, 2 usage, 77 not x86-64.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

typedef void (*loop_fn)(char *p, uint64_t iters);

#define OPS_PER_ITER 64

/* Every loop starts from the same registers: rax = rdx = 0 (a cmpxchg
 * comparand equal to the zeroed words, and the value it stores: every
 * cmpxchg succeeds and the chain is a real read-modify-write chain),
 * rcx = 5 (a bit number in a register), r8-r15 = 1. */
#define SETUP_COMMON "xor %%eax,%%eax\n\txor %%edx,%%edx\n\tmov $5,%%ecx\n\t"	\
	"mov $1,%%r8d\n\tmov $1,%%r9d\n\tmov $1,%%r10d\n\tmov $1,%%r11d\n\t"	\
	"mov $1,%%r12d\n\tmov $1,%%r13d\n\tmov $1,%%r14d\n\tmov $1,%%r15d\n\t"

/* One loop over LINES lines: 8 x 8 ops. Inside the .irp, \r is 8..15 (the
 * op's register is %r\r) and the assembler symbol mpk counts the ops 0..63,
 * so the op's word is at line (mpk & (LINES - 1)). OP(addr) gives the op's
 * text for that address. */
#define NSWEEP 6	/* 1, 2, 4, 8, 16, 32 lines */
#define ADDR(L) "((mpk&(" #L "-1))*64)(%[p])"
#define LOOP1(name, L, setup, OP)							\
	static void name##_##L(char *p, uint64_t iters)					\
	{										\
		__asm__ volatile(SETUP_COMMON setup					\
				 "\n\t.set mpk,0\n\t.p2align 5\n1:\n\t.rept 8\n\t.irp r,8,9,10,11,12,13,14,15\n\t" \
				 OP(ADDR(L))						\
				 "\n\t.set mpk,mpk+1\n\t.endr\n\t.endr\n\tdec %[n]\n\tjnz 1b\n"		\
				 : [n] "+r"(iters)					\
				 : [p] "r"(p)						\
				 : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12",	\
				   "r13", "r14", "r15", "cc", "memory");		\
	}
#define LOOPS(name, setup, OP)								\
	LOOP1(name, 1, setup, OP) LOOP1(name, 2, setup, OP)				\
	LOOP1(name, 4, setup, OP) LOOP1(name, 8, setup, OP)				\
	LOOP1(name, 16, setup, OP) LOOP1(name, 32, setup, OP)				\
	static const loop_fn name##_fns[NSWEEP] = { name##_1, name##_2, name##_4,	\
						    name##_8, name##_16, name##_32 };

/* Chains on registers: no memory, the .irp only repeats them. */
#define OP_ADD(a) "add %%rdx,%%rax"
#define OP_IMUL(a) "imul %%rdx,%%rax"
#define OP_CHASE(a) "mov (%%rax),%%rax"
#define OPAQUE_ONE "mov $-1,%%rdx\n\tneg %%rdx\n\t"	/* rdx = 1, not an immediate */
LOOP1(add, 1, OPAQUE_ONE, OP_ADD)
LOOP1(imul, 1, OPAQUE_ONE, OP_IMUL)
/* the pointer chase walks a ring of 8 lines, each line's first word
 * pointing to the next: rax starts at the ring */
LOOP1(chase, 1, "mov %[p],%%rax\n\t", OP_CHASE)

#define OP_LOAD(a) "mov " a ",%%r\\r"
#define OP_STORE(a) "mov %%r\\r," a
#define OP_LOCK_ORB(a) "lock orb $2," a
#define OP_ORB(a) "orb $2," a
#define OP_LOCK_XORB(a) "lock xorb $2," a
#define OP_BTCI(a) "btcq $5," a
#define OP_LOCK_ANDB(a) "lock andb $0xfd," a
#define OP_ANDB(a) "andb $0xfd," a
#define OP_LOCK_ORQ(a) "lock orq %%r\\r," a
#define OP_ORQ(a) "orq %%r\\r," a
#define OP_LOCK_BTSI(a) "lock btsq $5," a
#define OP_BTSI(a) "btsq $5," a
#define OP_LOCK_BTSR(a) "lock btsq %%rcx," a
#define OP_BTSR(a) "btsq %%rcx," a
#define OP_BTRI(a) "btrq $5," a
#define OP_LOCK_BTRR(a) "lock btrq %%rcx," a
#define OP_BTRR(a) "btrq %%rcx," a
#define OP_LOCK_CMPXCHG(a) "lock cmpxchgq %%rdx," a
#define OP_CMPXCHG(a) "cmpxchgq %%rdx," a
#define OP_XCHG(a) "xchgq %%r\\r," a
#define OP_LOCK_XADD(a) "lock xaddq %%r\\r," a
#define OP_XADD(a) "xaddq %%r\\r," a
/* latency forms of the value-returning ops: one register, so the value
 * that comes back is the next op's operand (as in `v = xchg(p, v)`) */
#define OP_XCHG1(a) "xchgq %%r8," a
#define OP_LOCK_XADD1(a) "lock xaddq %%r8," a
#define OP_XADD1(a) "xaddq %%r8," a
#define OP_DS_ORB(a) "ds orb $2," a	/* the 0x3e prefix a UP kernel patches lock into */
/* rdx:rax = rcx:rbx = 0 = the words: every cmpxchg16b succeeds and writes */
#define CX16_SETUP "xor %%ebx,%%ebx\n\txor %%ecx,%%ecx\n\t"
#define OP_LOCK_CX16(a) "lock cmpxchg16b " a
#define OP_CX16(a) "cmpxchg16b " a
#define OP_LOCK_INC(a) "lock incq " a
#define OP_INC(a) "incq " a

LOOPS(load, "", OP_LOAD)
LOOPS(store, "", OP_STORE)
LOOPS(lock_orb, "", OP_LOCK_ORB)
LOOPS(orb, "", OP_ORB)
LOOPS(lock_xorb, "", OP_LOCK_XORB)
LOOPS(btci, "", OP_BTCI)
LOOPS(lock_andb, "", OP_LOCK_ANDB)
LOOPS(andb, "", OP_ANDB)
LOOPS(lock_orq, "", OP_LOCK_ORQ)
LOOPS(orq, "", OP_ORQ)
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
LOOP1(xchg_lat, 1, "", OP_XCHG1)
LOOP1(lock_xadd_lat, 1, "", OP_LOCK_XADD1)
LOOP1(xadd_lat, 1, "", OP_XADD1)
LOOPS(ds_orb, "", OP_DS_ORB)
LOOPS(lock_cx16, CX16_SETUP, OP_LOCK_CX16)
LOOPS(cx16, CX16_SETUP, OP_CX16)
LOOPS(lock_inc, "", OP_LOCK_INC)
LOOPS(inc, "", OP_INC)

static const loop_fn add_fns[1] = { add_1 }, imul_fns[1] = { imul_1 }, chase_fns[1] = { chase_1 };

enum { F_LAT = 1, F_TPUT = 2 };

struct op {
	const char *name;	/* named by the instruction, not by any probe */
	const char *insn;
	const loop_fn *fns;	/* [0] one line, then 2, 4, ... 32 lines */
	int forms;
	int chase;		/* needs the pointer ring */
	loop_fn lat;		/* latency form, when not fns[0] */
};

static const struct op ops[] = {
	{ "add", "add %reg,%reg (addend from a register)", add_fns, F_LAT, 0, NULL },
	{ "imul", "imul %reg,%reg", imul_fns, F_LAT, 0, NULL },
	{ "load_chase", "mov (%rax),%rax (8-line ring in L1)", chase_fns, F_LAT, 1, NULL },
	{ "load", "mov mem,%reg", load_fns, F_TPUT, 0, NULL },
	{ "mov_store", "mov %reg,mem", store_fns, F_TPUT, 0, NULL },
	{ "lock_orb_imm", "lock orb $imm8,mem", lock_orb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "orb_imm", "orb $imm8,mem", orb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "ds_orb_imm", "ds orb $imm8,mem", ds_orb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_xorb_imm", "lock xorb $imm8,mem", lock_xorb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "btcq_imm", "btcq $imm8,mem", btci_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_andb_imm", "lock andb $imm8,mem", lock_andb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "andb_imm", "andb $imm8,mem", andb_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_orq_reg", "lock orq %reg,mem", lock_orq_fns, F_LAT | F_TPUT, 0, NULL },
	{ "orq_reg", "orq %reg,mem", orq_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_btsq_imm", "lock btsq $imm8,mem", lock_btsi_fns, F_LAT | F_TPUT, 0, NULL },
	{ "btsq_imm", "btsq $imm8,mem", btsi_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_btsq_reg", "lock btsq %reg,mem", lock_btsr_fns, F_LAT | F_TPUT, 0, NULL },
	{ "btsq_reg", "btsq %reg,mem", btsr_fns, F_LAT | F_TPUT, 0, NULL },
	{ "btrq_imm", "btrq $imm8,mem", btri_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_btrq_reg", "lock btrq %reg,mem", lock_btrr_fns, F_LAT | F_TPUT, 0, NULL },
	{ "btrq_reg", "btrq %reg,mem", btrr_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_cmpxchgq", "lock cmpxchgq %reg,mem (succeeds)", lock_cmpxchg_fns, F_LAT | F_TPUT, 0, NULL },
	{ "cmpxchgq", "cmpxchgq %reg,mem (succeeds)", cmpxchg_fns, F_LAT | F_TPUT, 0, NULL },
	{ "xchgq", "xchgq %reg,mem", xchg_fns, F_LAT | F_TPUT, 0, xchg_lat_1 },
	{ "lock_xaddq", "lock xaddq %reg,mem", lock_xadd_fns, F_LAT | F_TPUT, 0, lock_xadd_lat_1 },
	{ "xaddq", "xaddq %reg,mem", xadd_fns, F_LAT | F_TPUT, 0, xadd_lat_1 },
	{ "lock_cmpxchg16b", "lock cmpxchg16b mem (succeeds)", lock_cx16_fns, F_LAT | F_TPUT, 0, NULL },
	{ "cmpxchg16b", "cmpxchg16b mem (succeeds)", cx16_fns, F_LAT | F_TPUT, 0, NULL },
	{ "lock_incq", "lock incq mem", lock_inc_fns, F_LAT | F_TPUT, 0, NULL },
	{ "incq", "incq mem", inc_fns, F_LAT | F_TPUT, 0, NULL },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

#define TARGET_NS 1e6		/* one timed loop: 1 ms, shorter than a time slice */
#define ADD_ITERS (1u << 13)	/* calibration loop: 512 Ki adds, about 0.16 ms */
#define MAX_REPS 101

static char *buf;		/* 32 lines of words for the ops, then the ring */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double time_loop(loop_fn fn, char *p, uint64_t iters)
{
	double t0 = now_ns();

	fn(p, iters);
	return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reset the op words (cmpxchg needs them equal to rax = 0) and rebuild
 * the ring (lines 40-47, first word of each -> the next). */
static void reset_buf(void)
{
	memset(buf, 0, 32 * 64);
	for (int i = 0; i < 8; i++)
		*(char **)(buf + (40 + i) * 64) = buf + (40 + (i + 1) % 8) * 64;
}

struct meas {
	double cycles, spread, ns_per_cycle;
	int disturbed;		/* repetitions kept although disturbed */
};

/* Involuntary context switches of this thread so far: a repetition that
 * was preempted is not kept. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* cycles per op of fn: median over reps of (t_op/n_op) / (t_add/n_add).
 * A repetition is kept only when the thread was not preempted and the two
 * add chains around the op agree within 1% (a slice lost to the host, or a
 * clock change, shows there); it is run again otherwise, up to 20 times
 * the wanted count, then the last ones are kept as they are and counted. */
static struct meas measure(loop_fn fn, int chase, int reps)
{
	double ratio[MAX_REPS], nspc[MAX_REPS], t;
	char *p = chase ? buf + 40 * 64 : buf;
	uint64_t iters = 64;
	struct meas m = { 0 };
	int r = -1;

	reset_buf();
	/* size the loop: grow until it runs a tenth of the target, then scale */
	while ((t = time_loop(fn, p, iters)) < TARGET_NS / 10 && iters < (1ull << 30))
		iters *= 2;
	iters = (uint64_t)((double)iters * TARGET_NS / t);
	if (iters < 16)
		iters = 16;
	for (int tries = 0; r < reps; tries++) {
		double a0, top, a1, add_ns;
		long cs0;

		reset_buf();
		cs0 = preemptions();
		a0 = time_loop(add_1, buf, ADD_ITERS);
		top = time_loop(fn, p, iters);
		a1 = time_loop(add_1, buf, ADD_ITERS);
		if (preemptions() != cs0 || a0 > 1.01 * a1 || a1 > 1.01 * a0) {
			if (tries < 20 * reps)
				continue;
			m.disturbed++;
		}
		if (r++ < 0)
			continue;	/* warm-up */
		add_ns = (a0 + a1) / 2 / ((double)ADD_ITERS * OPS_PER_ITER);
		ratio[r - 1] = top / ((double)iters * OPS_PER_ITER) / add_ns;
		nspc[r - 1] = add_ns;
	}
	qsort(ratio, (size_t)reps, sizeof(double), cmp_double);
	qsort(nspc, (size_t)reps, sizeof(double), cmp_double);
	m.cycles = ratio[reps / 2];
	m.spread = (ratio[reps - 1] - ratio[0]) / m.cycles;
	m.ns_per_cycle = nspc[reps / 2];
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
	fprintf(f, "usage: minprobe [-c CPU] [-r REPS] [-a] [-j] [OP ...]\n"
		   "  -c CPU   pin to this CPU (default: the first allowed)\n"
		   "  -r REPS  repetitions, median taken (default 11, odd, at most %d)\n"
		   "  -a       also print every line count of the throughput sweep (# lines)\n"
		   "  -j       JSON instead of tab-separated lines\n"
		   "  -l       list the ops\n"
		   "output: name form cycles lines spread (form lat: one-word chain;\n"
		   "tput: best of 1, 2, 4, 8, 16, 32 lines)\n", MAX_REPS);
}

int main(int argc, char **argv)
{
	int cpu = -1, reps = 11, json = 0, all = 0, opt, first = 1;
	struct meas cal;
	char model[128] = "?";
	FILE *ci;

	while ((opt = getopt(argc, argv, "c:r:ajlh")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'a': all = 1; break;
		case 'j': json = 1; break;
		case 'l':
			for (size_t i = 0; i < NOPS; i++)
				printf("%-14s %s\n", ops[i].name, ops[i].insn);
			return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || cpu < -1) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		size_t k;

		for (k = 0; k < NOPS && strcmp(argv[i], ops[k].name); k++)
			;
		if (k == NOPS) {
			fprintf(stderr, "minprobe: unknown op '%s' (-l lists them)\n", argv[i]);
			return 2;
		}
	}
	cpu = pin(cpu);
	if (cpu < 0)
		return 1;
	buf = aligned_alloc(4096, 4096);
	if (!buf)
		return perror("aligned_alloc"), 1;
	ci = fopen("/proc/cpuinfo", "r");
	if (ci) {
		char line[256];

		while (fgets(line, sizeof(line), ci))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(ci);
	}

	/* wake the core up: half a second of adds before anything counts */
	for (double t0 = now_ns(); now_ns() - t0 < 5e8;)
		add_1(buf, ADD_ITERS);
	cal = measure(add_1, 0, reps);
	if (json)
		printf("{\"tool\": \"minprobe\", \"cpu\": %d, \"model\": \"%s\", \"reps\": %d, "
		       "\"core_ghz\": %.4f, \"results\": [", cpu, model, reps, 1 / cal.ns_per_cycle);
	else
		printf("# minprobe: CPU %d (%s), %d repetitions, core about %.3f GHz "
		       "(dependent add chain)\n# name\tform\tcycles\tlines\tspread\n",
		       cpu, model, reps, 1 / cal.ns_per_cycle);
	fflush(stdout);

	for (size_t k = 0; k < NOPS; k++) {
		const struct op *o = &ops[k];
		struct meas best = { 0 }, m[NSWEEP], lat;
		int bestl = 0, n = (o->forms & F_TPUT) ? NSWEEP : 1, sel = argc == optind;

		for (int i = optind; i < argc; i++)
			sel |= !strcmp(argv[i], o->name);
		if (!sel)
			continue;
		for (int l = 0; l < n; l++) {
			m[l] = measure(o->fns[l], o->chase, reps);
			if (!l || m[l].cycles < best.cycles)
				best = m[l], bestl = 1 << l;
			if (all && !json && n > 1)
				printf("# %s over %d lines: %.3f (spread %.3f)\n", o->name, 1 << l,
				       m[l].cycles, m[l].spread);
		}
		lat = o->lat ? measure(o->lat, o->chase, reps) : m[0];
		for (int f = F_LAT; f <= F_TPUT; f <<= 1) {
			struct meas *r = f == F_LAT ? &lat : &best;
			int lines = f == F_LAT ? 1 : bestl;

			if (!(o->forms & f))
				continue;
			if (json)
				printf("%s\n  {\"op\": \"%s\", \"form\": \"%s\", \"cycles\": %.4f, "
				       "\"lines\": %d, \"spread\": %.4f, \"disturbed_kept\": %d, \"insn\": \"%s\"}",
				       first ? "" : ",", o->name, f == F_LAT ? "lat" : "tput",
				       r->cycles, lines, r->spread, r->disturbed, o->insn);
			else
				printf("%s\t%s\t%.3f\t%d\t%.3f\n", o->name, f == F_LAT ? "lat" : "tput",
				       r->cycles, lines, r->spread);
			if (r->disturbed && !json)
				printf("# %s %s: %d disturbed repetitions kept\n", o->name,
				       f == F_LAT ? "lat" : "tput", r->disturbed);
			first = 0;
		}
		fflush(stdout);
	}
	if (json)
		printf("\n]}\n");
	free(buf);
	return 0;
}
#endif
