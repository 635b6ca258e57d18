/* SPDX-License-Identifier: MIT */
/* test-pmu.c - events: names, reasons, the software group, per-op and
 * per-sample normalization, the PMU-cycles arithmetic, and how an event
 * that cannot be counted reaches the reports (n/a with its reason, never 0).
 *
 * Hardware events are tested for what this machine gives: where they open,
 * their counts are checked; where they do not, the reason is. The arithmetic
 * of the cycles path, which needs a PMU, is tested on synthetic numbers.
 * Exit 0 pass, 1 fail, 77 skip (no perf_event_open at all).
 */
#include "common.h"
#include "build-config.h"
#include "harness.h"
#include "pmu.h"
#include "report.h"
#include "result.h"
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct pmu_event *find(const struct pmu_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->ev[i].name, name))
			return &s->ev[i];
	return NULL;
}

static void test_explain(void)
{
	char why[24], r[PMU_REASON_LEN];

	pmu_explain(ENOENT, true, &(struct pmu_perm){ 2, true, true }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "no hardware PMU exposed to this VM (ENOENT)") != NULL, "ENOENT in a VM: %s\n", r);
	CHECK(!strcmp(why, "no PMU"), "short reason '%s'\n", why);
	pmu_explain(ENOENT, true, &(struct pmu_perm){ 2, true, false }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "VM") == NULL && strstr(r, "ENOENT") != NULL, "ENOENT on metal: %s\n", r);
	pmu_explain(EACCES, true, &(struct pmu_perm){ 3, false, false }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "perf_event_paranoid=3") != NULL && !strcmp(why, "paranoid"), "paranoid 3: %s\n", r);
	pmu_explain(EACCES, false, &(struct pmu_perm){ 2, false, false }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "perf_event_paranoid=2") != NULL && strstr(r, "kernel") != NULL,
	      "paranoid 2: %s\n", r);
	pmu_explain(EPERM, false, &(struct pmu_perm){ 1, false, false }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "not root") != NULL && !strcmp(why, "not root"), "not root: %s\n", r);
	pmu_explain(EOPNOTSUPP, true, &(struct pmu_perm){ 0, true, false }, why, sizeof(why), r, sizeof(r));
	CHECK(strstr(r, "EOPNOTSUPP") != NULL, "EOPNOTSUPP: %s\n", r);

	CHECK(pmu_kernel_allowed(2, true), "root may count the kernel at paranoid 2\n");
	CHECK(!pmu_kernel_allowed(2, false), "non-root may not at paranoid 2\n");
	CHECK(pmu_kernel_allowed(1, false), "anyone may at paranoid 1\n");
	CHECK(!pmu_kernel_allowed(3, false), "non-root may not at paranoid 3\n");
}

static void test_arithmetic(void)
{
	double dt[7] = { 750, 1500, 760, 0, 7500, 740, 300 };
	double dc[7] = { 1000, 2000, 1000, 1000, 10000, 1000, 0 };
	double v[5] = { 3, 1, 2, 5, 4 };
	struct result_event st;

	/* ratios 0.75 0.75 0.76 (0: skipped) 0.75 0.74 (no cycles: skipped) */
	CHECK(fabs(pmu_ticks_per_cycle(dt, dc, 7) - 0.75) < 1e-12, "median ticks/cycle %g\n",
	      pmu_ticks_per_cycle(dt, dc, 7));
	CHECK(pmu_ticks_per_cycle(dt, dc, 0) == 0, "no samples: 0\n");
	CHECK(pmu_ticks_per_cycle(dt + 6, dc + 6, 1) == 0, "no cycles: 0\n");
	pmu_stat_of(v, 5, &st);
	CHECK(st.n == 5 && st.min == 1 && st.max == 5 && st.median == 3 && st.mean == 3 && st.total == 15,
	      "stat n %zu min %g max %g median %g mean %g total %g\n", st.n, st.min, st.max, st.median,
	      st.mean, st.total);
}

static void test_report_cycles(void)
{
	struct report rep;
	struct result *r;
	const char *chain_src = "dependent add chain";

	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.75;
	rep.cal.timer_hz = 2.4e9;
	rep.cal.core_hz = 3.2e9;
	snprintf(rep.cal.cycle_source, sizeof(rep.cal.cycle_source), "%s", chain_src);
	r = report_add(&rep);
	r->pmu_ticks_per_cycle = 0;	/* cycles not counted in this result */
	pmu_report_cycles(&rep);
	CHECK(rep.cal.ticks_per_cycle == 0.75 && rep.pmu_ticks_per_cycle == 0 &&
	      !strcmp(rep.cal.cycle_source, chain_src), "without PMU cycles the add chain stays\n");

	r = report_add(&rep);
	r->pmu_ticks_per_cycle = 0.80;
	r = report_add(&rep);
	r->pmu_ticks_per_cycle = 0.78;
	r = report_add(&rep);
	r->pmu_ticks_per_cycle = 0.90;
	pmu_report_cycles(&rep);
	CHECK(rep.pmu_ticks_per_cycle == 0.80, "median over results %g\n", rep.pmu_ticks_per_cycle);
	CHECK(rep.chain_ticks_per_cycle == 0.75, "chain kept %g\n", rep.chain_ticks_per_cycle);
	CHECK(rep.cal.ticks_per_cycle == 0.80, "conversion uses the PMU %g\n", rep.cal.ticks_per_cycle);
	CHECK(fabs(rep.cal.core_hz - 3.0e9) < 1, "core clock from the PMU %g\n", rep.cal.core_hz);
	CHECK(fabs(rep.cycle_agreement - 0.05 / 0.75) < 1e-12, "agreement %g\n", rep.cycle_agreement);
	CHECK(strstr(rep.cal.cycle_source, "PMU cycles") != NULL, "source says PMU: %s\n",
	      rep.cal.cycle_source);
	report_free(&rep);
}

/* The drift is corrected once. Raw samples of 8 ticks per op; the core ran
 * at 0.80 ticks per cycle while they were timed (so 10 cycles per op), the
 * add chain was calibrated at 0.75. One result counted PMU cycles (0.80),
 * the other only had the drift chain (0.80 around every sample). Both must
 * read 10.00 cycles; rescaling the PMU one by the chain as well would read
 * 8 * 0.75/0.80 / 0.80 = 9.375. */
static void test_drift_once(void)
{
	double t2n[4] = { 800, 800, 800, 800 }, chain[5] = { 0.80, 0.80, 0.80, 0.80, 0.80 };
	double samples_pmu[4], samples_chain[4];
	struct report rep;
	struct result *a, *b;

	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.75;
	rep.cal.timer_hz = 2.4e9;
	rep.cal.core_hz = 3.2e9;
	a = report_add(&rep);
	a->ops_per_sample = 100;
	a->samples = samples_pmu;
	a->pmu_ticks_per_cycle = 0.80;
	runner_to_per_op(t2n, chain, 4, 0, 0.75, a->pmu_ticks_per_cycle, a);
	CHECK(a->clock_source == RESULT_CLOCK_PMU && a->samples[0] == 8 && a->clock_scale == 1,
	      "PMU result: raw samples, not rescaled by the chain (%g, %s)\n", a->samples[0],
	      result_clock_name(a->clock_source));
	b = report_add(&rep);
	a = &rep.r[0];
	b->ops_per_sample = 100;
	b->samples = samples_chain;
	runner_to_per_op(t2n, chain, 4, 0, 0.75, 0, b);
	CHECK(b->clock_source == RESULT_CLOCK_CHAIN && fabs(b->samples[0] - 7.5) < 1e-12,
	      "chain result: rescaled onto the calibration (%g)\n", b->samples[0]);
	stats_summarize(a->samples, a->nsamples, &a->s);
	stats_summarize(b->samples, b->nsamples, &b->s);
	pmu_report_cycles(&rep);
	CHECK(rep.cal.ticks_per_cycle == 0.80, "report uses the PMU's 0.80 (%g)\n",
	      rep.cal.ticks_per_cycle);
	CHECK(fabs(result_cycles(&rep, rep.r[0].s.median) - 10) < 1e-9,
	      "PMU result reads 10.00 cycles (%g)\n", result_cycles(&rep, rep.r[0].s.median));
	CHECK(fabs(result_cycles(&rep, rep.r[1].s.median) - 10) < 1e-9,
	      "chain result reads 10.00 cycles (%g)\n", result_cycles(&rep, rep.r[1].s.median));
	rep.r[0].samples = rep.r[1].samples = NULL;	/* on the stack */
	report_free(&rep);
}

static void test_names(void)
{
	static struct pmu_set s;
	int ret;

	ret = pmu_set_resolve(&s, "cyclse", false);
	CHECK(ret == -EINVAL && exit_code_for(ret) == EXIT_USAGE, "misspelt name refused: %d\n", ret);
	ret = pmu_set_resolve(&s, "no-such-event-at-all", false);
	CHECK(ret == -EINVAL, "unknown name refused: %d\n", ret);
#if HAVE_LIBPFM
	ret = pmu_set_resolve(&s, "nosuchpmu::FOO", false);
	CHECK(ret == -EINVAL, "unknown PMU refused: %d\n", ret);
	ret = pmu_set_resolve(&s, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", false);
	CHECK(ret == 0 && find(&s, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES") &&
	      !find(&s, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES")->hw, "libpfm4 software event: %d\n", ret);
	/* a misspelt event of a PMU libpfm4 knows, detected here or not */
	ret = pmu_set_resolve(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONX", false);
	CHECK(ret == -EINVAL, "misspelt event of a known PMU refused: %d\n", ret);
	/* a real event of a CPU this may not be: n/a with the reason, or counted */
	ret = pmu_set_resolve(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONS", false);
	CHECK(ret == 0, "a known PMU's event is not a usage error: %d\n", ret);
	if (ret == 0) {
		const struct pmu_event *e = find(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONS");

		CHECK(e && e->hw && (e->available || e->reason[0]), "zen3 event: %s\n",
		      e ? e->reason : "missing");
	}
#else
	ret = pmu_set_resolve(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONS", false);
	CHECK(ret == 0, "libpfm4 string without libpfm4: n/a, not an error (%d)\n", ret);
	if (!ret) {
		const struct pmu_event *e = find(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONS");

		CHECK(e && !e->available && strstr(e->reason, "built without libpfm4"),
		      "reason: %s\n", e ? e->reason : "missing");
	}
	ret = pmu_set_resolve(&s, "amd64_fam19h_zen3::RETIRED_LOCK_INSTRUCTIONS", true);
	CHECK(ret == -ENOTSUP, "... and refused with --require-events (%d)\n", ret);
#endif
	/* always-on events are there, once, even when also asked for */
	ret = pmu_set_resolve(&s, "task-clock", false);
	CHECK(ret == 0 && s.n == 3 && find(&s, "context-switches") && find(&s, "cpu-migrations") &&
	      find(&s, "task-clock") && find(&s, "task-clock")->requested, "always-on set: n %u\n", s.n);
}

/* cycles asked for: counted where a PMU is, n/a with a reason elsewhere */
static void test_hardware(void)
{
	static struct pmu_set s;
	const struct pmu_event *c;
	int ret = pmu_set_resolve(&s, "cycles,instructions", false);

	CHECK(ret == 0, "cycles,instructions resolve: %d\n", ret);
	c = find(&s, "cycles");
	CHECK(c && c->hw && c->requested, "cycles is a requested hardware event\n");
	if (!c)
		return;
	if (c->available) {
		printf("note: this machine counts cycles: the PMU path is checked below\n");
		CHECK(s.idx_cycles >= 0, "idx_cycles set\n");
		return;
	}
	printf("note: cycles n/a here: %s\n", c->reason);
	CHECK(c->reason[0] && c->why[0] && c->err, "n/a with errno %d, reason '%s'\n", c->err, c->reason);
	CHECK(s.idx_cycles < 0, "no cycles index when n/a\n");
	ret = pmu_set_resolve(&s, "cycles", true);
	CHECK(ret == -ENOTSUP && exit_code_for(ret) == EXIT_UNSUPPORTED,
	      "--require-events: -ENOTSUP, exit 4 (%d)\n", ret);
}

static void burn(volatile uint64_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*x += i;
}

/* The software group opens, counts are read and normalized. */
static int test_software_group(void)
{
	static struct pmu_set s;
	struct pmu_group g;
	struct pmu_reading a, b;
	const size_t pages = 64;
	long psz = sysconf(_SC_PAGESIZE);
	volatile uint64_t x = 0;
	char *m;
	double d;
	int ret, ipf;

	ret = pmu_set_resolve(&s, "page-faults", false);
	CHECK(ret == 0, "software set resolves: %d\n", ret);
	if (!find(&s, "task-clock") || !find(&s, "task-clock")->available) {
		printf("skip: task-clock does not open here: %s\n",
		       find(&s, "task-clock") ? find(&s, "task-clock")->reason : "?");
		return TEST_SKIP;
	}
	ipf = (int)(find(&s, "page-faults") - s.ev);
	pmu_group_open(&g, &s);
	CHECK(g.leader[1] >= 0 && g.leader[0] < 0, "group opens, software leader only (no hardware asked)\n");
	CHECK(pmu_group_read(&g, &a) == 0, "first read\n");
	m = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED, "mmap\n");
	if (m != MAP_FAILED) {
		for (size_t i = 0; i < pages; i++)
			m[i * psz] = 1;	/* one fault per page */
		munmap(m, pages * psz);
	}
	burn(&x, 2000000);
	usleep(2000);	/* sleeping is a context switch */
	CHECK(pmu_group_read(&g, &b) == 0, "second read\n");
	CHECK(pmu_delta(&g, &a, &b, (unsigned)s.idx_task, &d) && d > 0, "task-clock advanced: %g ns\n", d);
	if (g.ok[ipf])
		CHECK(pmu_delta(&g, &a, &b, (unsigned)ipf, &d) && d >= (double)pages,
		      "page faults %g >= %zu pages\n", d, pages);
	if (s.idx_cs >= 0)
		CHECK(pmu_delta(&g, &a, &b, (unsigned)s.idx_cs, &d) && d >= 1,
		      "context switch counted with the kernel included: %g\n", d);
	else
		printf("note: context-switches n/a here: %s\n", find(&s, "context-switches")->reason);
	pmu_group_close(&g);
	return 0;
}

/* The sampler: per-sample values, per-op normalization of hardware events
 * from the N/2N difference, disturbed samples, summaries into a result. */
static void test_sampler(void)
{
	static struct pmu_set s;
	struct pmu_sampler sm;
	struct result res;
	volatile uint64_t x = 0;
	const size_t n = 40;
	int ret;

	ret = pmu_set_resolve(&s, "cycles,context-switches", false);
	CHECK(ret == 0, "resolve: %d\n", ret);
	memset(&res, 0, sizeof(res));
	CHECK(pmu_sampler_start(&sm, &s, n, 1000) == 0, "sampler starts\n");
	for (size_t i = 0; i < n; i++) {
		pmu_sampler_before(&sm);
		burn(&x, 20000);
		pmu_sampler_mid(&sm);
		burn(&x, 40000);
		if (i == n / 2)
			usleep(1000);	/* disturb one sample */
		pmu_sampler_after(&sm, i, 1000, 2000);
	}
	pmu_sampler_finish(&sm, n, &res);
	CHECK(res.nevents == s.n, "one summary per event: %u\n", res.nevents);
	for (unsigned k = 0; k < res.nevents; k++) {
		const struct result_event *e = &res.events[k];

		if (!strcmp(e->name, "cycles")) {
			CHECK(e->per_op, "cycles per op\n");
			if (e->available)
				/* 20000 more iterations of burn in 2N than in N, over 1000 ops */
				CHECK(e->median > 0 && res.pmu_ticks_per_cycle > 0,
				      "cycles per op %g, ticks/cycle %g\n", e->median, res.pmu_ticks_per_cycle);
			else
				CHECK(e->reason[0] && e->why[0] && e->n == 0 && res.pmu_ticks_per_cycle == 0,
				      "cycles n/a: %s\n", e->reason);
		}
		if (!strcmp(e->name, "task-clock") && e->available)
			CHECK(!e->per_op && e->n == n && e->min > 0, "task-clock per sample: n %zu min %g\n",
			      e->n, e->min);
		if (!strcmp(e->name, "context-switches") && e->available)
			CHECK(e->total >= 1 && e->n == n, "context switches counted: total %g\n", e->total);
	}
	if (s.idx_cs >= 0) {
		CHECK(res.disturbed >= 1 && res.disturbed <= (long)n, "disturbed %ld of %zu\n",
		      res.disturbed, n);
		CHECK(res.extra.has & 1u << RX_DISTURBED && res.extra.ndisturbed_at == (size_t)res.disturbed,
		      "disturbed indices listed\n");
	} else {
		CHECK(res.disturbed == -1, "disturbed unknown without context switches\n");
	}
	result_release(&res);
}

/* n/a reaches the text and JSON reports with its reason, never as 0. */
static void test_reports(void)
{
	struct report rep, back;
	struct result *r;
	char path[] = "/tmp/atomcost-test-pmu-XXXXXX";
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd;

	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.75;
	rep.cal.timer_hz = 2.4e9;
	rep.cal.core_hz = 3.2e9;
	snprintf(rep.cal.cycle_source, sizeof(rep.cal.cycle_source), "%s", "test");
	snprintf(rep.cal.timer, sizeof(rep.cal.timer), "%s", "test");
	r = report_add(&rep);
	snprintf(r->name, sizeof(r->name), "set_bit");
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	r->nsamples = 3;
	r->samples = malloc(3 * sizeof(double));
	r->samples[0] = 10;
	r->samples[1] = 11;
	r->samples[2] = 12;
	stats_summarize(r->samples, 3, &r->s);
	r->nevents = 2;
	r->disturbed = 1;
	snprintf(r->events[0].name, sizeof(r->events[0].name), "cycles");
	r->events[0].per_op = true;
	snprintf(r->events[0].why, sizeof(r->events[0].why), "no PMU");
	snprintf(r->events[0].reason, sizeof(r->events[0].reason),
		 "no hardware PMU exposed to this VM (ENOENT)");
	snprintf(r->events[1].name, sizeof(r->events[1].name), "context-switches");
	r->events[1].available = true;
	r->events[1].n = 3;
	r->events[1].mean = 1.0 / 3;
	r->events[1].total = 1;

	f = open_memstream(&text, &len);
	report_write_text(&rep, f);
	fclose(f);
	CHECK(strstr(text, "n/a (no PMU)") && strstr(text, "# cycles: n/a (no hardware PMU exposed to this VM (ENOENT))"),
	      "text shows n/a with the reason:\n%s\n", text);
	CHECK(strstr(text, "1/3") != NULL, "text shows disturbed samples\n");
	free(text);

	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp\n");
	if (fd < 0)
		goto out;
	f = fdopen(fd, "w");
	report_write_json(&rep, f);
	fclose(f);
	if (report_read(path, &back) == 0) {
		const struct result *b = &back.r[0];

		CHECK(b->nevents == 2 && !b->events[0].available && b->disturbed == 1,
		      "read back: %u events, disturbed %ld\n", b->nevents, b->disturbed);
		CHECK(!strcmp(b->events[0].reason, r->events[0].reason), "reason read back: %s\n",
		      b->events[0].reason);
		CHECK(b->events[1].available && fabs(b->events[1].mean - 1.0 / 3) < 1e-9,
		      "value read back\n");
		report_free(&back);
	} else {
		CHECK(0, "report_read\n");
	}
	{
		json_t *j = report_to_json(&rep), *e0;

		e0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "results"), 0),
						    "events"), 0);
		CHECK(json_is_null(json_object_get(e0, "value")) &&
		      json_is_string(json_object_get(e0, "reason")), "JSON: value null and a reason\n");
		json_decref(j);
	}
	unlink(path);
out:
	report_free(&rep);
}

int main(void)
{
	int sw;

	log_quiet = 1;
	test_explain();
	test_arithmetic();
	test_report_cycles();
	test_drift_once();
	test_names();
	test_hardware();
	sw = test_software_group();
	if (sw != TEST_SKIP)
		test_sampler();
	test_reports();
	return test_done("test-pmu");
}
