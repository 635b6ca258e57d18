/* SPDX-License-Identifier: MIT */
/* clock.c - calibrate the timer: frequency against CLOCK_MONOTONIC_RAW, the
 * fenced start/stop overhead, and ticks per core cycle from a dependent add
 * chain checked by a multiply chain (docs/method.md). */
#include "clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "common.h"
#include "stats.h"

#define FREQ_WINDOW_NS 40000000ull	/* 40 ms per frequency window */
#define CHAIN_REPEATS 31
#define CHAIN_ITERS 4096		/* 262144 dependent ops per timing */
#define OVERHEAD_REPEATS 2001

/* Spin so the core leaves any idle/low-frequency state before we time it. */
static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		arch_cpu_relax();
}

/* Ticks per ns over a window, bracketing each timer read with the reference
 * clock to bound the error. */
static double measure_timer_hz(void)
{
	uint64_t n0a = now_ns(), t0 = arch_timer_start(), n0b = now_ns();
	uint64_t n1a, t1, n1b;

	while (now_ns() - n0a < FREQ_WINDOW_NS)
		;
	n1a = now_ns();
	t1 = arch_timer_stop();
	n1b = now_ns();
	return (double)(t1 - t0) * 1e9 / ((double)((n1a + n1b) - (n0a + n0b)) / 2.0);
}

/* Chain timings for N and 2N iterations, interleaved between the two chains
 * so they see the same conditions. Disturbances (interrupts, a busy sibling
 * thread on the host) only add time, so each length's fastest repeat is its
 * estimate, and min(2N) - min(N) cancels timer and loop overhead. (The min
 * of per-repeat differences would be biased low: a disturbed N timing makes
 * its difference small.) The same with medians is kept to show the spread. */
static double chain_time(void (*chain)(uint64_t), uint64_t iters)
{
	uint64_t a = arch_timer_start();

	chain(iters);
	return (double)(arch_timer_stop() - a);
}

/* One line that holds its own address: each load's address is the value
 * the previous load returned (mov (%reg),%reg, base addressing), the L1
 * load-to-use latency, a self-check built from nothing the add chain uses. */
static void *chase_line[8] __attribute__((aligned(64)));

#define CHASE_STEP(i) q = *(void *const volatile *)q;
static __attribute__((noinline)) void l1_chase(uint64_t iters)
{
	void *q = chase_line[0];

	for (uint64_t i = 0; i < iters; i++) {
		OPS64(CHASE_STEP)
	}
	asm volatile("" : : "r"(q));
}

static double min_of(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = fmin(m, v[i]);
	return m;
}

/* The core from CPUID (core.h); its L1 load-to-use, 0 when unknown. */
static double identify(struct core_id *id)
{
	struct core_facts f;

	if (arch_core_facts(&f) < 0) {
		memset(id, 0, sizeof(*id));
		snprintf(id->how, sizeof(id->how), "unknown core: this build reads no CPUID (%s)", ARCH_NAME);
		return 0;
	}
	core_identify(&f, id);
	return id->l1_load_cycles;
}

static void chains(struct calibration *c)
{
	double a1[CHAIN_REPEATS], a2[CHAIN_REPEATS], m1[CHAIN_REPEATS], m2[CHAIN_REPEATS];
	double l1[CHAIN_REPEATS], l2[CHAIN_REPEATS];
	const double ops = 64.0 * CHAIN_ITERS;

	chase_line[0] = chase_line;
	for (int r = 0; r < CHAIN_REPEATS; r++) {
		a1[r] = chain_time(arch_add_chain, CHAIN_ITERS);
		a2[r] = chain_time(arch_add_chain, 2 * CHAIN_ITERS);
		m1[r] = chain_time(arch_mul_chain, CHAIN_ITERS);
		m2[r] = chain_time(arch_mul_chain, 2 * CHAIN_ITERS);
		l1[r] = chain_time(l1_chase, CHAIN_ITERS);
		l2[r] = chain_time(l1_chase, 2 * CHAIN_ITERS);
	}
	c->ticks_per_cycle = (min_of(a2, CHAIN_REPEATS) - min_of(a1, CHAIN_REPEATS)) / ops;
	c->ticks_per_cycle_mul = (min_of(m2, CHAIN_REPEATS) - min_of(m1, CHAIN_REPEATS)) /
				 (ops * ARCH_MUL_LATENCY);
	c->mul_expected = ARCH_MUL_LATENCY;
	/* the load-to-use of a pointer chase on one L1 line (mov (%reg),%reg):
	 * the identified core's (4 on Zen 2-5 and Skylake, 5 on Sunny Cove and
	 * Golden Cove and later); a self-check of the cycle that shares
	 * nothing with the add chain, none on a core the table lacks */
	c->load_expected = identify(&c->core);
	if (c->ticks_per_cycle > 0) {
		c->mul_cycles = ARCH_MUL_LATENCY * c->ticks_per_cycle_mul / c->ticks_per_cycle;
		c->load_cycles = (min_of(l2, CHAIN_REPEATS) - min_of(l1, CHAIN_REPEATS)) / ops /
				 c->ticks_per_cycle;
	}
	c->add_median = (stats_median(a2, CHAIN_REPEATS) - stats_median(a1, CHAIN_REPEATS)) / ops;
	c->mul_median = (stats_median(m2, CHAIN_REPEATS) - stats_median(m1, CHAIN_REPEATS)) /
			(ops * ARCH_MUL_LATENCY);
}

/* What /proc/cpuinfo says of the timer and of emulation. The TSC is
 * invariant with constant_tsc and nonstop_tsc; the other timers (cntvct,
 * clock_gettime) run at a fixed frequency.
 *
 * Emulation (qemu-user running a foreign binary, Rosetta, box64): every
 * timing then describes the translator, not the CPU. The kernel's
 * /proc/cpuinfo describes the real CPU, and qemu-user (7.2) passes it
 * through: an x86 description under an arm64 binary, or the reverse, gives
 * the emulator away. Full-system emulation (qemu's TCG, a kernel suite's
 * guest) is machine_checks'. The timing itself is
 * checked too: a translated add chain and multiply chain run at the same
 * speed, so their ratio misses the multiply latency (that alone only makes
 * the calibration untrustworthy). */
static void cpuinfo_checks(struct calibration *c)
{
	char why[160];
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool x86 = false, arm = false, flags = false;

	c->timer_invariant = !ARCH_TIMER_IS_CYCLE_CLOCK;
	while (f && fgets(line, sizeof(line), f)) {
		x86 |= !strncmp(line, "vendor_id", 9);
		arm |= !strncmp(line, "CPU implementer", 15);
		if (ARCH_TIMER_IS_CYCLE_CLOCK && !flags && !strncmp(line, "flags", 5)) {
			flags = true;
			c->timer_invariant = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		}
	}
	if (f)
		fclose(f);
	why[0] = '\0';
	if (!strcmp(ARCH_NAME, "aarch64") && x86 && !arm)
		snprintf(why, sizeof(why), "/proc/cpuinfo describes an x86 CPU under this %s binary (qemu-user?)",
			 ARCH_NAME);
	else if (!strcmp(ARCH_NAME, "x86_64") && arm && !x86)
		snprintf(why, sizeof(why), "/proc/cpuinfo describes an arm64 CPU under this %s binary (Rosetta, box64, qemu-user?)",
			 ARCH_NAME);
	else if (getenv("QEMU_LD_PREFIX") && strcmp(ARCH_NAME, "generic"))
		snprintf(why, sizeof(why), "QEMU_LD_PREFIX is set (qemu-user?)");
	snprintf(c->emulation, sizeof(c->emulation), "%s", why);
	c->emulated = why[0] != '\0';
}

/* The first line of a sysfs or procfs file, "" if none. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Full-system emulation, from what the machine is rather than from a model
 * string (qemu names TCG in its model name only for -cpu max): the CPU's
 * hypervisor leaf (qemu's TCG answers "TCGTCGTCGTCG" for every -cpu model,
 * qemu 7.2 checked with qemu64 and max; "KVMKVMKVM" and the other
 * hypervisors that name themselves run the real CPU). Where the leaf says
 * nothing (arm64 has none for user space; a leaf hidden or empty), DMI or
 * the device tree saying qemu, with a multiply chain that runs as fast as
 * the add chain (translated code: a real multiply has its latency), is
 * TCG. Runs after chains(). */
static void machine_checks(struct calibration *c)
{
	char why[160] = "";
	char sig[13], vendor[64], dt[64];
	int hv = arch_hypervisor_sig(sig);

	if (c->emulated)
		return;
	if (hv > 0 && !strcmp(sig, "TCGTCGTCGTCG")) {
		snprintf(why, sizeof(why), "qemu TCG (CPUID leaf 0x40000000 says %s)", sig);
	} else if (hv <= 0 || !sig[0]) {
		first_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
		first_line("/proc/device-tree/compatible", dt, sizeof(dt));	/* its first string */
		if ((strstr(vendor, "QEMU") || strstr(dt, "linux,dummy-virt")) && c->mul_cycles > 0 &&
		    c->mul_cycles < ARCH_MUL_LATENCY / 2.0)
			snprintf(why, sizeof(why), "qemu (%s) without a hypervisor leaf, its multiply chain at "
				 "%.2f cycles as fast as an add: TCG", vendor[0] ? "DMI" : "device tree",
				 c->mul_cycles);
	}
	if (why[0]) {
		snprintf(c->emulation, sizeof(c->emulation), "%s", why);
		c->emulated = true;
	}
}

/* A calibration whose chains disagree (or whose timer windows spread) is
 * measured again, up to this many times in all, and the most consistent
 * kept: under load another task's time lands in one chain and not the
 * other (the add and imul chains were 1.2-4.4% apart in 8 of 17 reports of
 * a busy machine). Emulation and a variable timer do not go away. */
#define CLOCK_TRIES 3

static int calibrate_once(struct calibration *c)
{
	double hz[CLOCK_FREQ_REPEATS], ovh[OVERHEAD_REPEATS];
	struct summary s;

	spin_ns(20000000ull);
	for (int i = 0; i < CLOCK_FREQ_REPEATS; i++)
		hz[i] = measure_timer_hz();
	stats_summarize(hz, CLOCK_FREQ_REPEATS, &s);
	c->timer_hz = s.median;
	c->timer_hz_spread = (s.max - s.min) / c->timer_hz;
	if (!(c->timer_hz > 0)) {
		pr_err("calibrate: timer frequency measured as %g Hz: the timer does not advance", c->timer_hz);
		return -EIO;
	}

	for (int i = 0; i < OVERHEAD_REPEATS; i++) {
		uint64_t a = arch_timer_start();
		uint64_t b = arch_timer_stop();
		ovh[i] = (double)(b - a);
	}
	c->overhead_median = stats_median(ovh, OVERHEAD_REPEATS);
	c->overhead_min = min_of(ovh, OVERHEAD_REPEATS);

	chains(c);
	if (!(c->ticks_per_cycle > 0)) {
		pr_err("calibrate: add chain measured %g ticks per cycle: the timer is too coarse for this build",
		       c->ticks_per_cycle);
		return -EIO;
	}
	machine_checks(c);
	c->chain_agreement = fabs(c->ticks_per_cycle_mul - c->ticks_per_cycle) / c->ticks_per_cycle;
	c->core_hz = c->timer_hz / c->ticks_per_cycle;
	snprintf(c->cycle_source, sizeof(c->cycle_source), "dependent add chain against the timer (no PMU cycles)");
	c->trustworthy = c->chain_agreement < 0.01 && c->timer_hz_spread < 0.01 && c->timer_invariant &&
			 !c->emulated;
	return 0;
}

int clock_calibrate(struct calibration *c, int cpu_os)
{
	struct calibration best;
	int ret;

	memset(c, 0, sizeof(*c));
	arch_init();
	c->cpu_os = cpu_os;
	snprintf(c->timer, sizeof(c->timer), "%s", arch_timer_name());
	cpuinfo_checks(c);
	ret = calibrate_once(c);
	for (int i = 1; !ret && i < CLOCK_TRIES && !c->trustworthy && c->timer_invariant && !c->emulated; i++) {
		best = *c;
		ret = calibrate_once(c);
		if (!ret && fmax(c->chain_agreement, c->timer_hz_spread) > fmax(best.chain_agreement,
										    best.timer_hz_spread))
			*c = best;
	}
	if (!ret && c->emulated)
		pr_warn("calibrate: running under emulation: %s: timings measure the emulator, not this CPU",
			c->emulation);
	return ret;
}
