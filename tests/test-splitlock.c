/* SPDX-License-Identifier: MIT */
/* test-splitlock.c - the split-lock probe's pure parts: the kernel mode
 * from synthetic cpuinfo, command line and sysctl text; the split address
 * really straddles two lines; the SIGBUS guard catches and restores; a
 * split locked add is still atomic (two threads, exact sum); and the ratio
 * is taken against the report's atomic_inc hit latency row, which the
 * card prints (or says the step was skipped). No timing. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "card.h"
#include "common.h"
#include "harness.h"
#include "result.h"
#include "splitlock.h"

static const char ci_sld[] =
	"processor\t: 0\nvendor_id\t: GenuineIntel\n"
	"flags\t\t: fpu vme de pse split_lock_detect avx512f\nbugs\t\t: spectre_v1\n\n"
	"processor\t: 1\nflags\t\t: fpu vme de pse split_lock_detect avx512f\n";
static const char ci_bld[] = "processor\t: 0\nflags\t\t: fpu sse2 bus_lock_detect\n";
static const char ci_none[] = "processor\t: 0\nflags\t\t: fpu sse2 rdtscp constant_tsc\n";
/* the word elsewhere than on the flags line, or as part of another word */
static const char ci_decoy[] =
	"processor\t: 0\nbugs\t\t: split_lock_detect\nflags\t\t: fpu xsplit_lock_detect bus_lock_detect_x\n";

static void test_parse(void)
{
	struct splitlock_kernel k;
	int ret;

	ret = splitlock_parse(ci_sld, "quiet console=ttyS0", "1\n", &k);
	CHECK(!ret && k.mode == SPLITLOCK_WARN && k.flag_split_lock_detect && !k.flag_bus_lock_detect &&
	      k.mitigate == 1 && strstr(k.why, "10 ms") && strstr(k.why, "default"),
	      "sld, no cmdline, mitigate 1: warn with sleep (%s)", k.why);
	ret = splitlock_parse(ci_sld, "quiet", "0\n", &k);
	CHECK(!ret && k.mode == SPLITLOCK_WARN && k.mitigate == 0 && strstr(k.why, "no slowdown"),
	      "mitigate 0: warn without sleep (%s)", k.why);
	ret = splitlock_parse(ci_sld, "ro split_lock_detect=fatal quiet\n", NULL, &k);
	CHECK(!ret && k.mode == SPLITLOCK_FATAL && k.mitigate == -1 && !strcmp(k.cmdline, "fatal") &&
	      strstr(k.why, "SIGBUS"), "fatal (%s)", k.why);
	ret = splitlock_parse(ci_sld, "split_lock_detect=off", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_OFF, "off");
	ret = splitlock_parse(ci_bld, "a split_lock_detect=ratelimit:10 b", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_RATELIMIT && k.ratelimit == 10 && k.flag_bus_lock_detect &&
	      !strstr(k.why, "absent"), "ratelimit:10 (%s)", k.why);
	ret = splitlock_parse(ci_sld, "split_lock_detect=ratelimit:10", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_RATELIMIT && strstr(k.why, "absent"),
	      "ratelimit without bus_lock_detect said (%s)", k.why);
	ret = splitlock_parse(ci_bld, "split_lock_detect=ratelimit:0", "1", &k);
	CHECK(ret == -EINVAL && k.mode == SPLITLOCK_WARN, "ratelimit:0 rejected, warn kept");
	ret = splitlock_parse(ci_bld, "split_lock_detect=ratelimit:1001", "1", &k);
	CHECK(ret == -EINVAL && k.mode == SPLITLOCK_WARN, "ratelimit:1001 rejected");
	ret = splitlock_parse(ci_bld, "split_lock_detect=fatalx", "1", &k);
	CHECK(ret == -EINVAL && k.mode == SPLITLOCK_WARN, "fatalx rejected");
	ret = splitlock_parse(ci_sld, "split_lock_detect=off split_lock_detect=fatal", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_FATAL, "the last value wins");
	ret = splitlock_parse(ci_sld, "nosplit_lock_detect=fatal", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_WARN && !k.cmdline[0], "another option's suffix is not it");
	ret = splitlock_parse(ci_none, "split_lock_detect=fatal", "1", &k);
	CHECK(!ret && k.mode == SPLITLOCK_UNDETECTED && strstr(k.why, "no effect"),
	      "no flag: undetected, the fatal option without effect (%s)", k.why);
	ret = splitlock_parse(ci_decoy, "", "1", &k);
	CHECK(!ret && !k.flag_split_lock_detect && !k.flag_bus_lock_detect && k.mode == SPLITLOCK_UNDETECTED,
	      "decoys are not flags");
	ret = splitlock_parse(NULL, NULL, NULL, &k);
	CHECK(!ret && k.mode == SPLITLOCK_UNDETECTED && k.mitigate == -1, "nothing readable: undetected");
	CHECK(!strcmp(splitlock_mode_name(SPLITLOCK_RATELIMIT), "ratelimit"), "mode name");
}

static void test_addresses(void)
{
	static char buf[512] __attribute__((aligned(64)));

	for (size_t off = 0; off < 64; off += 7) {
		uint64_t *a, *s;
		uintptr_t sa, aa;

		CHECK(!splitlock_addresses(buf + off, sizeof(buf) - off, &a, &s), "offset %zu", off);
		sa = (uintptr_t)s;
		aa = (uintptr_t)a;
		CHECK(sa / 64 != (sa + 7) / 64 && sa % 64 == 60, "split word %#lx straddles a boundary",
		      (unsigned long)sa);
		CHECK(aa % 8 == 0 && aa / 64 == (aa + 7) / 64, "aligned word %#lx in one line", (unsigned long)aa);
		CHECK(aa >= (uintptr_t)(buf + off) && sa + 8 <= (uintptr_t)buf + sizeof(buf), "inside the buffer");
	}
	{
		uint64_t *a, *s;

		CHECK(splitlock_addresses(buf + 1, 128, &a, &s) == -EINVAL, "128 unaligned bytes are too few");
		CHECK(!splitlock_addresses(buf, 128, &a, &s), "128 aligned bytes are enough");
	}
}

static int ran_after;

static void raise_bus(void *arg)
{
	raise(SIGBUS);
	ran_after = 1;	/* never reached */
}

static void plain(void *arg)
{
	*(int *)arg = 42;
}

static void test_guard(void)
{
	struct sigaction before, after;
	int v = 0;

	sigaction(SIGBUS, NULL, &before);
	CHECK(splitlock_guarded(raise_bus, NULL) == -EFAULT && !ran_after, "SIGBUS caught");
	CHECK(splitlock_guarded(raise_bus, NULL) == -EFAULT, "caught again (the guard re-arms)");
	CHECK(splitlock_guarded(plain, &v) == 0 && v == 42, "a plain call returns 0");
	sigaction(SIGBUS, NULL, &after);
	CHECK(after.sa_handler == before.sa_handler, "SIGBUS action restored");
}

#if ARCH_HAS_SPLIT_LOCK
/* A split lock is still a lock: two threads adding to a word across two
 * lines lose no update. */
#define ADDS 5000
static uint64_t *split_word;

static void *adder(void *arg)
{
	for (int i = 0; i < ADDS; i++)
		arch_add(split_word, 1);
	return NULL;
}

static void add_both(void *arg)
{
	pthread_t th;

	pthread_create(&th, NULL, adder, NULL);
	adder(NULL);
	pthread_join(th, NULL);
}

static void test_atomic(void)
{
	static char buf[256] __attribute__((aligned(64)));
	struct splitlock_kernel k;
	uint64_t *a, sum;

	splitlock_read_kernel(&k);
	if (k.mode == SPLITLOCK_FATAL || k.mode == SPLITLOCK_RATELIMIT ||
	    (k.mode == SPLITLOCK_WARN && k.flag_split_lock_detect && k.mitigate > 0)) {
		printf("skip atomicity: the kernel would kill or throttle split locks (%s)\n", k.why);
		return;
	}
	splitlock_addresses(buf, sizeof(buf), &a, &split_word);
	if (splitlock_guarded(add_both, NULL) == -EFAULT) {
		printf("skip atomicity: SIGBUS on a split lock (%s)\n", k.why);
		return;
	}
	/* read the straddling word bytewise: a C load of it is undefined */
	memcpy(&sum, split_word, sizeof(sum));
	CHECK(sum == 2 * ADDS, "split lock atomic: %llu, expected %d", (unsigned long long)sum, 2 * ADDS);
}
#else
static void test_atomic(void)
{
	struct splitlock_section r;

	CHECK(splitlock_measure(0, NULL, &r) == 0 && !r.supported && r.unsupported[0],
	      "no split lock here: reported unsupported");
}
#endif

static void add_row(struct report *rep, const char *name, const char *pattern, double cycles)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	r->mode = MODE_LATENCY;
	r->samples = malloc(sizeof(double));
	r->samples[0] = cycles * rep->cal.ticks_per_cycle;
	r->nsamples = 1;
	stats_summarize(r->samples, 1, &r->s);
}

static char *card_of(const struct report *rep)
{
	return TEST_TEXT(CHECK(card_write_text(rep, f) == 0, "card_write_text"));
}

/* A split op of 3600 cycles; the probe's own aligned ops caught a fast
 * phase (6.2 cycles: 581x), the report's atomic_inc row reads 7.3 (493x). */
static void test_ratio(void)
{
	struct splitlock_section *s = malloc(sizeof(*s));
	struct report rep, one = { .split = s };
	json_t *j = json_object(), *o;
	char *t;

	if (!s)
		abort();
	*s = (struct splitlock_section){ .has = SPLITLOCK_HAS_MEASURED, .supported = true,
					 .split_cycles = 3600, .split_ns = 1000,
					 .aligned_cycles = 6.2, .aligned_ns = 1.72,
					 .ratio_denominator.has = HAS_ALL(SLR__COUNT) };
	splitlock_set_reference(s, s->aligned_cycles, s->aligned_ns, "the probe's own aligned ops");
	CHECK(fabs(s->ratio - 3600 / 6.2) < 0.01, "own aligned: %.1fx", s->ratio);
	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.5;
	rep.cal.core_hz = 3.6e9;
	rep.cal.timer_hz = 1.8e9;
	add_row(&rep, "atomic_inc", "true-share", 40);	/* contention: not the reference */
	CHECK(!splitlock_reference_from(s, &rep) && fabs(s->ratio - 3600 / 6.2) < 0.01,
	      "no atomic_inc hit row: the reference stays");
	add_row(&rep, "atomic_inc", "hit", 7.3);
	add_row(&rep, "atomic_inc", "hit", 9.9);	/* a later epoch: the first row is the report's */
	CHECK(splitlock_reference_from(s, &rep) && fabs(s->ratio - 3600 / 7.3) < 0.01 &&
	      fabs(s->ratio_denominator.cycles - 7.3) < 1e-9 &&
	      fabs(s->ratio_denominator.ns - 7.3 / 3.6) < 1e-6 &&
	      strstr(s->ratio_denominator.what, "atomic_inc"),
	      "the atomic_inc row: %.1fx against %.2f cycles", s->ratio,
	      s->ratio_denominator.cycles);
	report_typed_sections(&one, j);
	o = json_object_get(j, "splitlock");
	CHECK(fabs(json_number_value(json_object_get(o, "ratio")) - 493.15) < 0.01 &&
	      strstr(json_string_value(json_object_get(json_object_get(o, "ratio_denominator"), "what")) ?: "",
		     "atomic_inc") && !json_object_get(o, "skipped"), "json: ratio and its denominator");
	json_decref(j);
	rep.split = s;
	t = card_of(&rep);
	CHECK(t && strstr(t, "1000 ns against 2.0 ns for an aligned atomic_inc (493x)") &&
		      !strstr(t, "traps split locks"), "card:\n%s", t);
	free(t);
	/* 57 us, as on the Intel Xeon guest: a bus lock costs about 1 us, so
	 * something traps it; in a VM the host (its split-lock detection) */
	s->split_ns = 57365;
	t = card_of(&rep);
	CHECK(t && strstr(t, "far beyond a bus lock (about 1 us): something under this kernel traps split locks"),
	      "57 us, no hypervisor flag:\n%s", t);
	free(t);
	CHECK(strstr(card_split_trap_text(57365, 1), "the host likely traps split locks (split-lock detection on the "
						     "host, invisible to this guest's kernel); a workload with split "
						     "locks pays this for each") &&
		      !card_split_trap_text(1354, 1) && !card_split_trap_text(SPLITLOCK_TRAPPED_NS, 1),
	      "the trap sentence past 10 us only");
	*s = (struct splitlock_section){ .has = 1u << SL_SKIPPED, .skipped = "--no-split-lock" };
	t = card_of(&rep);
	CHECK(t && strstr(t, "split     skipped (--no-split-lock)\n"), "card, skipped:\n%s", t);
	free(t);
	report_free(&rep);
}

int main(void)
{
	log_quiet = 1;
	test_parse();
	test_addresses();
	test_guard();
	test_atomic();
	test_ratio();
	return test_done("splitlock");
}
