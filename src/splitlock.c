/* SPDX-License-Identifier: MIT */
/* splitlock.c - the split-lock probe (splitlock.h). The split ops are
 * bounded in number (4096 by default) and time (SPLIT_TIME_CAP_NS): where
 * the kernel throttles them the probe stops early and says so.
 */
#include "splitlock.h"

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "arch/arch.h"
#include "card.h"
#include "core.h"
#include "common.h"
#include "probes.h"
#include "result.h"
#include "runner.h"
#include "stats.h"

#define DEFAULT_OPS 4096
#define MAX_OPS (1u << 20)
#define SPLIT_OFFSET 60		/* bytes 60..63 of one line, 0..3 of the next */
#define MISALIGNED_OFFSET 4	/* bytes 4..11: misaligned, one line */
#define THROTTLE_NS 1000000ull	/* one op over 1 ms: the kernel slept the task */
#define THROTTLED_OPS 4		/* single ops timed when throttled */
#define SPLIT_TIME_CAP_NS 2000000000ull
#define ALIGNED_ITERS 8		/* 512 aligned ops per sample */
#define ALIGNED_SAMPLES 64
#define REF_PROBE "atomic_inc"
#define REF_SECONDS 0.2

/* Is word a whitespace-separated token of the line starting at s (up to
 * the end of that line)? */
static bool line_has_word(const char *s, const char *word)
{
	size_t wl = strlen(word), len = strcspn(s, "\n");

	for (const char *p = s; (p = strstr(p, word)) && p + wl <= s + len; p++)
		if ((p == s || strchr(" \t", p[-1])) && strchr(" \t\n", p[wl]))
			return true;
	return false;
}

/* The first "flags" line of cpuinfo (x86: "flags\t\t: fpu vme ..."). */
static const char *flags_line(const char *cpuinfo)
{
	for (const char *p = cpuinfo; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "flags", 5) && (p[5] == ' ' || p[5] == '\t' || p[5] == ':'))
			return p;
	return NULL;
}

/* The value of split_lock_detect= on the kernel command line; given twice,
 * the last one, as the kernel's cmdline_find_option reads it. */
static bool cmdline_value(const char *cmdline, char *out, size_t len)
{
	static const char key[] = "split_lock_detect=";
	bool found = false;

	for (const char *p = cmdline; (p = strstr(p, key)); p += sizeof(key) - 1)
		if (p == cmdline || p[-1] == ' ' || p[-1] == '\t') {
			const char *v = p + sizeof(key) - 1;

			snprintf(out, len, "%.*s", (int)strcspn(v, " \t\n"), v);
			found = true;
		}
	return found;
}

int splitlock_parse(const char *cpuinfo, const char *cmdline, const char *mitigate,
		    struct splitlock_kernel *k)
{
	const char *fl = cpuinfo ? flags_line(cpuinfo) : NULL;
	bool given = false;
	int ret = 0;
	char tail[120] = "";

	memset(k, 0, sizeof(*k));
	k->mitigate = -1;
	if (fl) {
		k->flag_split_lock_detect = line_has_word(fl, "split_lock_detect");
		k->flag_bus_lock_detect = line_has_word(fl, "bus_lock_detect");
	}
	if (mitigate)
		(void)sscanf(mitigate, "%d", &k->mitigate);	/* unread: stays -1 */
	k->mode = SPLITLOCK_WARN;	/* the kernel's default */
	if (cmdline && cmdline_value(cmdline, k->cmdline, sizeof(k->cmdline))) {
		unsigned n;
		int used = 0;

		given = true;
		ret = -EINVAL;	/* unless the kernel takes it; else it keeps warn */
		for (int m = SPLITLOCK_OFF; m <= SPLITLOCK_FATAL; m++)
			if (!strcmp(k->cmdline, splitlock_mode_name((enum splitlock_mode)m))) {
				k->mode = (enum splitlock_mode)m;
				ret = 0;
			}
		if (sscanf(k->cmdline, "ratelimit:%u%n", &n, &used) == 1 && !k->cmdline[used] &&
		    n >= 1 && n <= 1000) {
			k->mode = SPLITLOCK_RATELIMIT;
			k->ratelimit = n;
			ret = 0;
		}
	}
	if (!k->flag_split_lock_detect && !k->flag_bus_lock_detect) {
		if (given)
			snprintf(tail, sizeof(tail), " (split_lock_detect=%s on the command line has no effect)",
				 k->cmdline);
		k->mode = SPLITLOCK_UNDETECTED;
		snprintf(k->why, sizeof(k->why), "not detected: the CPU, as this kernel sees it, has neither "
			 "split_lock_detect nor bus_lock_detect, so split locks run unchecked%s", tail);
		return ret;
	}
	if (k->mode == SPLITLOCK_OFF)
		snprintf(k->why, sizeof(k->why), "off (split_lock_detect=off): split locks run unchecked");
	else if (k->mode == SPLITLOCK_FATAL)
		snprintf(k->why, sizeof(k->why), "fatal (split_lock_detect=fatal): the kernel sends SIGBUS "
			 "to a task that splits a lock");
	else if (k->mode == SPLITLOCK_RATELIMIT)
		snprintf(k->why, sizeof(k->why), "ratelimit (split_lock_detect=%s): past %u bus locks a "
			 "second the kernel sleeps the task%s", k->cmdline, k->ratelimit,
			 k->flag_bus_lock_detect ? "" : " (needs bus_lock_detect, which is absent)");
	if (k->mode != SPLITLOCK_WARN)
		return ret;
	if (k->flag_split_lock_detect && k->mitigate > 0)
		snprintf(tail, sizeof(tail), "; kernel.split_lock_mitigate=1 also sleeps the task "
			 "about 10 ms per split lock and lets one such task run at a time");
	else if (k->mitigate == 0)
		snprintf(tail, sizeof(tail), "; kernel.split_lock_mitigate=0: no slowdown");
	snprintf(k->why, sizeof(k->why), "warn%s: the kernel logs a task's first split lock%s",
		 given ? " (split_lock_detect=warn)" : " (the default)", tail);
	return ret;
}

/* A small file read whole (the flags line of cpuinfo is in its first
 * processor's block, well within the buffer). NULL when unreadable. */
static char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

void splitlock_read_kernel(struct splitlock_kernel *k)
{
	static char cpuinfo[16384];
	char cmdline[4096], mit[32];
	const char *ci = slurp("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo));
	const char *cl = slurp("/proc/cmdline", cmdline, sizeof(cmdline));
	const char *mt = slurp("/proc/sys/kernel/split_lock_mitigate", mit, sizeof(mit));

	splitlock_parse(ci, cl, mt, k);
}

int splitlock_addresses(void *buf, size_t len, uint64_t **aligned, uint64_t **split)
{
	uintptr_t line = ((uintptr_t)buf + CACHELINE - 1) & ~(uintptr_t)(CACHELINE - 1);

	if (line + 2 * CACHELINE > (uintptr_t)buf + len)
		return -EINVAL;
	*aligned = (uint64_t *)line;
	*split = (uint64_t *)(line + SPLIT_OFFSET);
	return 0;
}

/* ---- SIGBUS, only around the probe -------------------------------------- */

static sigjmp_buf guard_jmp;
static volatile sig_atomic_t guard_armed;

static void on_sigbus(int sig)
{
	if (guard_armed) {
		guard_armed = 0;
		siglongjmp(guard_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int splitlock_guarded(void (*fn)(void *arg), void *arg)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old) < 0)
		return -errno;
	if (sigsetjmp(guard_jmp, 1)) {
		ret = -EFAULT;
	} else {
		guard_armed = 1;
		fn(arg);
		guard_armed = 0;
	}
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/* ---- the probe ------------------------------------------------------------ */

/* r as a run starts it: the kernel's mode, the constants, no figures. */
static void section_init(struct splitlock_section *r, bool supported)
{
	struct splitlock_kernel k;

	splitlock_read_kernel(&k);
	*r = (struct splitlock_section){
		.has = supported ? SPLITLOCK_HAS_MEASURED :
				   1u << SL_SUPPORTED | 1u << SL_UNSUPPORTED | 1u << SL_KERNEL,
		.supported = supported, .insn = ARCH_INSN_ADD, .split_offset = SPLIT_OFFSET,
		.misaligned_offset = MISALIGNED_OFFSET,
		.ratio_denominator = { .has = HAS_ALL(SLR__COUNT), .what = "none" },
		.kernel = { .has = HAS_ALL(SLK__COUNT), .flag_split_lock_detect = k.flag_split_lock_detect,
			    .flag_bus_lock_detect = k.flag_bus_lock_detect,
			    .split_lock_mitigate = k.mitigate },
	};
	snprintf(r->kernel.mode, sizeof(r->kernel.mode), "%s", splitlock_mode_name(k.mode));
	snprintf(r->kernel.why, sizeof(r->kernel.why), "%s", k.why);
	snprintf(r->kernel.cmdline, sizeof(r->kernel.cmdline), "%s", k.cmdline);
}

#if ARCH_HAS_SPLIT_LOCK
/* 64 `lock addq %reg,(mem)` per iteration on one word (ARCH_INSN_ADD); the
 * same loop times the aligned and the split word. noinline: one symbol for
 * the disassembly review. */
#define SL_STEP(i) arch_add(p, 1);
static __attribute__((noinline)) void locked_add_kernel(volatile uint64_t *p, uint64_t iters)
{
	for (uint64_t it = 0; it < iters; it++) {
		OPS64(SL_STEP)
	}
}

static __attribute__((noinline)) void locked_add_once(volatile uint64_t *p)
{
	arch_add(p, 1);
}

struct split_run {
	volatile uint64_t *split;
	const struct calibration *cal;
	uint64_t max_ops;
	double single_ns[1 + THROTTLED_OPS];	/* the first op, then the throttled ones */
	unsigned nsingle, nwant;
	double *samples;	/* ticks per op, one per 64 ops */
	size_t nsamples;
	bool throttled;
};

/* Split ops one at a time, until single_ns holds nwant of them. */
static void split_single(void *arg)
{
	struct split_run *s = arg;

	for (; s->nsingle < s->nwant; s->nsingle++) {
		uint64_t t0 = now_ns();

		locked_add_once(s->split);
		s->single_ns[s->nsingle] = (double)(now_ns() - t0);
	}
}

static void split_timed(void *arg)
{
	struct split_run *s = arg;
	uint64_t t0 = now_ns();

	locked_add_kernel(s->split, 1);	/* warm */
	for (s->nsamples = 0; s->nsamples < s->max_ops / UNROLL;) {
		uint64_t a = arch_timer_start(), b;

		locked_add_kernel(s->split, 1);
		b = arch_timer_stop();
		s->samples[s->nsamples++] = ((double)(b - a) - s->cal->overhead_min) / UNROLL;
		/* a sample over 1 ms: some op slept (or the task was preempted;
		 * the voluntary switches tell which) */
		if (clock_ticks_to_ns(s->cal, (double)(b - a)) > THROTTLE_NS)
			s->throttled = true;
		if (now_ns() - t0 > SPLIT_TIME_CAP_NS) {
			s->throttled = true;
			break;
		}
	}
}

/* Per-op median, in cycles and ns, and the fastest sample, of the locked
 * add on a word inside one line. */
static void time_inline(uint64_t *w, const struct calibration *cal, double *cycles, double *ns,
			double *min_cycles)
{
	double t[ALIGNED_SAMPLES];
	struct summary s;

	locked_add_kernel(w, ALIGNED_ITERS);
	for (int k = 0; k < ALIGNED_SAMPLES; k++) {
		uint64_t a = arch_timer_start(), b;

		locked_add_kernel(w, ALIGNED_ITERS);
		b = arch_timer_stop();
		t[k] = ((double)(b - a) - cal->overhead_min) / (ALIGNED_ITERS * UNROLL);
	}
	stats_summarize(t, ALIGNED_SAMPLES, &s);
	*cycles = clock_ticks_to_cycles(cal, s.median);
	*ns = clock_ticks_to_ns(cal, s.median);
	*min_cycles = clock_ticks_to_cycles(cal, s.min);
}

static long voluntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

/* The split ops: one alone (a SIGBUS, where the mode is fatal, or a
 * throttling sleep shows here), a few more when it was slow, else the
 * timed samples. */
static void time_split(struct split_run *s, const struct calibration *cal,
		       struct splitlock_section *r)
{
	struct summary st;

	s->nwant = 1;
	if (splitlock_guarded(split_single, s) == -EFAULT)
		goto sigbus;
	if (s->single_ns[0] > THROTTLE_NS) {
		/* slow alone: a kernel sleep, or a preemption; time a few more */
		s->nwant = 1 + THROTTLED_OPS;
		if (splitlock_guarded(split_single, s) == -EFAULT)
			goto sigbus;
		stats_summarize(s->single_ns + 1, THROTTLED_OPS, &st);
		if (st.median > THROTTLE_NS) {
			r->throttled = true;
			r->split_ops = s->nsingle;
			r->split_ns = st.median;
			r->split_cycles = r->split_ns * 1e-9 * cal->timer_hz / cal->ticks_per_cycle;
			r->split_min_cycles = st.min * 1e-9 * cal->timer_hz / cal->ticks_per_cycle;
		}
	}
	if (r->throttled)
		return;
	if (splitlock_guarded(split_timed, s) == -EFAULT)
		goto sigbus;
	stats_summarize(s->samples, s->nsamples, &st);
	r->split_ops = s->nsingle + UNROLL + s->nsamples * UNROLL;
	r->split_cycles = clock_ticks_to_cycles(cal, st.median);
	r->split_ns = clock_ticks_to_ns(cal, st.median);
	r->split_min_cycles = clock_ticks_to_cycles(cal, st.min);
	return;
sigbus:
	r->sigbus = true;
}

int splitlock_measure(uint64_t max_ops, const struct calibration *cal, struct splitlock_section *r)
{
	struct split_run s = { .cal = cal };
	uint64_t *aw, *sw, t0 = now_ns();
	long sw0;
	void *page;
	int ret;

	section_init(r, true);
	if (!max_ops)
		max_ops = DEFAULT_OPS;
	if (max_ops > MAX_OPS) {
		pr_err("splitlock: --split-ops %llu is more than %u: the probe must stay short",
		       (unsigned long long)max_ops, MAX_OPS);
		return -EINVAL;
	}
	max_ops = (max_ops + UNROLL - 1) / UNROLL * UNROLL;
	if (!(cal->ticks_per_cycle > 0) || !(cal->timer_hz > 0)) {
		pr_err("splitlock: no calibration (ticks per cycle %g): calibrate first", cal->ticks_per_cycle);
		return -EINVAL;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		ret = -errno;
		pr_err("splitlock: cannot map a page: %s", strerror(-ret));
		return ret;
	}
	splitlock_addresses(page, 4096, &aw, &sw);
	s.split = sw;
	s.max_ops = max_ops;
	s.samples = calloc(max_ops / UNROLL, sizeof(double));
	if (!s.samples) {
		munmap(page, 4096);
		return -ENOMEM;
	}

	/* aligned first: the reference, and the core warmed up; then a word
	 * misaligned inside one line (offset 4), which shows that the cost
	 * is the line crossing, not the misalignment */
	time_inline(aw, cal, &r->aligned_cycles, &r->aligned_ns, &r->aligned_min_cycles);
	r->aligned_ops = (long long)ALIGNED_SAMPLES * ALIGNED_ITERS * UNROLL;
	time_inline((uint64_t *)((char *)aw + MISALIGNED_OFFSET), cal, &r->misaligned_cycles,
		    &r->misaligned_ns, &r->misaligned_min_cycles);
	sw0 = voluntary_switches();
	time_split(&s, cal, r);
	r->voluntary_switches = voluntary_switches() - sw0;
	if (!r->sigbus) {
		/* slow samples count as throttling only when the task slept */
		if (s.throttled && !r->throttled)
			r->throttled = r->voluntary_switches > 0;
		splitlock_set_reference(r, r->aligned_cycles, r->aligned_ns, "the probe's own aligned ops");
	}
	free(s.samples);
	munmap(page, 4096);
	r->elapsed_s = (now_ns() - t0) / 1e9;
	return 0;
}
#else
int splitlock_measure(uint64_t max_ops, const struct calibration *cal, struct splitlock_section *r)
{
	section_init(r, false);
	snprintf(r->unsupported, sizeof(r->unsupported), "%s", ARCH_SPLIT_LOCK_ABSENT);
	return 0;
}
#endif

void splitlock_set_reference(struct splitlock_section *r, double cycles, double ns,
			     const char *what)
{
	r->ratio_denominator.cycles = cycles;
	r->ratio_denominator.ns = ns;
	snprintf(r->ratio_denominator.what, sizeof(r->ratio_denominator.what), "%s", what);
	r->ratio = cycles > 0 && !r->sigbus ? r->split_cycles / cycles : 0;
}

int splitlock_reference(const struct calibration *cal, struct splitlock_section *r)
{
	const struct probe *p = probe_find(REF_PROBE);
	struct result res = { 0 };
	struct run_opts o;
	int ret;

	if (!r->supported || !p || probe_unsupported(p))
		return 0;
	runner_default_opts(&o);
	o.max_seconds = REF_SECONDS;
	ret = runner_measure(p, MODE_LATENCY, &o, cal, &res);
	if (!ret && res.nsamples)
		splitlock_set_reference(r, clock_ticks_to_cycles(cal, res.s.median),
					clock_ticks_to_ns(cal, res.s.median),
					"atomic_inc hit latency, timed by the runner");
	result_release(&res);
	return ret == -EINTR ? 0 : ret;
}

bool splitlock_reference_from(struct splitlock_section *r, const struct report *rep)
{
	const struct result *row = report_find(rep, REF_PROBE, MODE_LATENCY, "hit", RESULT_USER);

	if (!row || !row->nsamples)
		return false;
	splitlock_set_reference(r, result_cycles(rep, row->s.median), result_ns(rep, row->s.median),
				"the atomic_inc hit latency row of this report");
	return true;
}

void splitlock_announce(const char *skip)
{
	if (!ARCH_HAS_SPLIT_LOCK)
		return;
	pr_warn("split lock: this run issues up to %u locked ops across two cache lines: each "
		"takes a bus lock, which stalls every core of this host and every tenant on it; %s "
		"skips them", DEFAULT_OPS, skip);
}

/* CPUID's hypervisor bit: 1 set, 0 clear, -1 unknown (card_machine.vm). */
static int hypervisor(void)
{
	struct core_facts c;

	return arch_core_facts(&c) < 0 ? -1 : (c.features & 1u << CF_HYPERVISOR) != 0;
}

void splitlock_print(const struct splitlock_section *s, FILE *f)
{
	if (!s->supported) {
		fprintf(f, "split lock: unsupported here: %s\n", s->unsupported);
		return;
	}
	fprintf(f, "split lock: kernel mode %s\n  %s\n", s->kernel.mode, s->kernel.why);
	if (s->sigbus) {
		fprintf(f, "  the split op was killed with SIGBUS (caught): this kernel forbids split locks "
			   "in user space; aligned %s costs %.1f cycles (%.1f ns)\n", s->insn,
			s->aligned_cycles, s->aligned_ns);
		return;
	}
	fprintf(f, "  %-34s %10s %10s %10s %8s\n", "", "cycles/op", "ns/op", "min cyc", "ops");
	fprintf(f, "  %-34s %10.1f %10.1f %10.1f %8llu\n", "aligned (one line)", s->aligned_cycles,
		s->aligned_ns, s->aligned_min_cycles, (unsigned long long)s->aligned_ops);
	fprintf(f, "  %-34s %10.1f %10.1f %10.1f %8llu\n", "misaligned (offset 4, one line)",
		s->misaligned_cycles, s->misaligned_ns, s->misaligned_min_cycles,
		(unsigned long long)s->aligned_ops);
	fprintf(f, "  %-34s %10.1f %10.1f %10.1f %8llu\n", "split (offset 60, two lines)",
		s->split_cycles, s->split_ns, s->split_min_cycles,
		(unsigned long long)s->split_ops);
	fprintf(f, "  split / aligned: %.0fx  (%s against %.1f cycles, %s; medians)\n", s->ratio,
		s->insn, s->ratio_denominator.cycles, s->ratio_denominator.what);
	if (card_split_trap_text(s->split_ns, hypervisor()))
		fprintf(f, "  %s\n", card_split_trap_text(s->split_ns, hypervisor()));
	if (s->throttled)
		fprintf(f, "  throttled: split ops took over 1 ms each or the probe hit its "
			   "%.0f s cap: the kernel sleeps split-locking tasks here (%lld "
			   "voluntary context switches); stopped after %llu ops\n",
			SPLIT_TIME_CAP_NS / 1e9, s->voluntary_switches,
			(unsigned long long)s->split_ops);
	else if (s->voluntary_switches > 0)
		fprintf(f, "  the task slept %lld times during the split ops\n",
			s->voluntary_switches);
}
