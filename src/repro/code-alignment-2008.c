/* SPDX-License-Identifier: MIT */
/* repro/code-alignment-2008.c - does code placement move what an op costs? (seed
 * slub-partial-pages-variance-2008: tbench moved ~3% between kernel builds
 * of the same source, and the poster suspected where the code fell in the
 * cache lines.) Each probe's loop is timed at every placement of its .h by
 * the engine's sampler, in passes that run the placements in alternating
 * order; align_assess judges the slowest placement against the fastest.
 * Then the seed's one claim about atomics, the non-atomic unlock patch's 1%
 * regression (unlock_experiment). docs/reproductions.md, section 5, says
 * how and why.
 */
#include "repro/code-alignment-2008.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "common.h"
#include "contention.h"
#include "locks.h"
#include "repro/repro.h"
#include "result.h"
#include "runner.h"

/* M(..., off) for every placement, in order (code-alignment-2008.h). */
#define ALIGN_PLACEMENTS(M, ...)						\
	M(__VA_ARGS__, 0) M(__VA_ARGS__, 4) M(__VA_ARGS__, 8) M(__VA_ARGS__, 12)	\
	M(__VA_ARGS__, 16) M(__VA_ARGS__, 20) M(__VA_ARGS__, 24) M(__VA_ARGS__, 28)	\
	M(__VA_ARGS__, 32) M(__VA_ARGS__, 36) M(__VA_ARGS__, 40) M(__VA_ARGS__, 44)	\
	M(__VA_ARGS__, 48) M(__VA_ARGS__, 52) M(__VA_ARGS__, 56) M(__VA_ARGS__, 60)	\
	M(__VA_ARGS__, 4072) M(__VA_ARGS__, 4080) M(__VA_ARGS__, 4088) M(__VA_ARGS__, 4092)
#define OFFSET(unused, off) off,
const unsigned align_offsets[ALIGN_NPLACE] = { ALIGN_PLACEMENTS(OFFSET, 0) };

/* Line placement j is at +4j (test-align holds the table to it). */
size_t align_page_twin(size_t i)
{
	return align_offsets[i] % 64 / 4;
}

#if ARCH_HAS_ALIGN_LOOPS
/* The entries read ctx->mem as the first word of the context. */
_Static_assert(offsetof(struct probe_ctx, mem) == 0, "placed loops read ctx->mem at offset 0");

/* The copies, in their own text section (objdump: atomcost_align_*). */
#define EMIT_COPY(id, setup, op, rept, off) ARCH_ALIGN_COPY(id, off, setup, op, rept)
#define EMIT_PROBE(id, name, insn, form, setup, op, rept)			\
	ALIGN_PLACEMENTS(EMIT_COPY, id, setup, op, rept)
asm(ARCH_ALIGN_PROBES(EMIT_PROBE));

#define DECL_COPY(id, off)							\
	void atomcost_align_##id##_##off(struct probe_ctx *ctx, uint64_t iters);	\
	extern const unsigned char atomcost_align_##id##_##off##_loop[];	\
	extern const unsigned char atomcost_align_##id##_##off##_tail[];	\
	extern const unsigned char atomcost_align_##id##_##off##_end[];
#define DECL_PROBE(id, name, insn, form, setup, op, rept) ALIGN_PLACEMENTS(DECL_COPY, id)
ARCH_ALIGN_PROBES(DECL_PROBE)

#define ENTRY_COPY(id, off)							\
	{ off, atomcost_align_##id##_##off, atomcost_align_##id##_##off##_loop,	\
	  atomcost_align_##id##_##off##_tail, atomcost_align_##id##_##off##_end },
#define ENTRY_PROBE(id, name, insn, form, setup, op, rept)			\
	{ name, insn, form, { ALIGN_PLACEMENTS(ENTRY_COPY, id) } },
const struct align_probe align_probes[] = { ARCH_ALIGN_PROBES(ENTRY_PROBE) };
const size_t align_nprobes = ARRAY_SIZE(align_probes);
#else
const struct align_probe align_probes[1];
const size_t align_nprobes = 0;
#endif

/* The chase ring: 8 lines of the second page, visited 0 3 6 1 4 7 2 5 (so
 * no two consecutive loads are neighbours). */
void align_prepare(void *mem)
{
	char *ring = (char *)mem + 4096;

	memset(mem, 0, ALIGN_MEM_BYTES);
	for (unsigned i = 0; i < 8; i++)
		*(void **)(ring + 64 * ((3 * i) % 8)) = ring + 64 * ((3 * (i + 1)) % 8);
}

int align_check_probe(const struct align_probe *p)
{
	const struct align_copy *c0 = &p->copy[0];
	size_t len0 = (size_t)(c0->end - c0->loop);

	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		const struct align_copy *c = &p->copy[i];
		uintptr_t a = (uintptr_t)c->loop, e = (uintptr_t)c->end;
		uintptr_t f = (uintptr_t)c->fn, t = (uintptr_t)c->tail;
		size_t len = (size_t)(e - a);
		bool crosses = align_is_page(i) ? a / 4096 != (t - 1) / 4096 : a / 4096 != (e - 1) / 4096;

		if (c->off != align_offsets[i] || a % 4096 != c->off) {
			pr_err("code-alignment: %s copy %zu: loop at %#lx, %lu from its page, not %u "
			       "(the linker did not keep the section's 4 KiB alignment?)",
			       p->name, i, (unsigned long)a, (unsigned long)(a % 4096), align_offsets[i]);
			return -EIO;
		}
		if (!(a < t && t < f && f < e)) {
			pr_err("code-alignment: %s copy at %u: loop %#lx, tail %#lx, entry %#lx, end "
			       "%#lx are not in that order", p->name, c->off, (unsigned long)a,
			       (unsigned long)t, (unsigned long)f, (unsigned long)e);
			return -EIO;
		}
		if (crosses != align_is_page(i)) {
			pr_err("code-alignment: %s copy at %u: its %s (%zu bytes) %s a page boundary, "
			       "the placement says it %s", p->name, c->off,
			       align_is_page(i) ? "loop" : "copy",
			       align_is_page(i) ? (size_t)(t - a) : len,
			       crosses ? "crosses" : "does not cross", align_is_page(i) ? "does" : "does not");
			return -EIO;
		}
		if (len != len0 || memcmp(c->loop, c0->loop, len)) {
			pr_err("code-alignment: %s copy at %u differs from the copy at %u (%zu vs %zu "
			       "bytes): the placements would time different code", p->name, c->off,
			       c0->off, len, len0);
			return -EIO;
		}
	}
	return 0;
}

/* The slowest and fastest placement by the median over the undisturbed
 * passes other than skip (npass: none skipped); false when no pass is left. */
static bool pick_pair(const double *pass_med, size_t nplace, size_t npass, const bool *ok,
		      size_t skip, double *fig, size_t *imin, size_t *imax)
{
	double v[ALIGN_MAX_PASSES];

	*imin = *imax = 0;
	for (size_t i = 0; i < nplace; i++) {
		size_t m = 0;

		for (size_t k = 0; k < npass; k++)
			if (ok[k] && k != skip)
				v[m++] = pass_med[i * npass + k];
		if (!m)
			return false;
		fig[i] = stats_median(v, m);
		if (fig[i] < fig[*imin])
			*imin = i;
		if (fig[i] > fig[*imax])
			*imax = i;
	}
	return true;
}

int align_assess(const double *pass_med, size_t nplace, size_t npass, const double *share,
		 double *fig, struct align_assessment *a)
{
	double ea[ALIGN_MAX_PASSES], eb[ALIGN_MAX_PASSES], range[ALIGN_NPLACE], tmp[ALIGN_NPLACE];
	bool ok[ALIGN_MAX_PASSES];

	memset(a, 0, sizeof(*a));
	if (nplace < 2 || nplace > ALIGN_NPLACE || npass < 2 || npass > ALIGN_MAX_PASSES)
		return -EINVAL;
	for (size_t i = 0; i < nplace * npass; i++)
		if (!(pass_med[i] > 0) || !isfinite(pass_med[i]))
			return -EINVAL;
	for (size_t k = 0; k < npass; k++) {
		ok[k] = !share || share[k] >= REPRO_SHARE_MIN;
		a->used += ok[k];
	}
	/* with every pass disturbed, the figures are all there is to show */
	if (!a->used)
		for (size_t k = 0; k < npass; k++)
			ok[k] = true;
	for (size_t i = 0; i < nplace; i++) {
		const double *m = pass_med + i * npass;
		double lo = m[0], hi = m[0];

		for (size_t k = 1; k < npass; k++) {
			lo = fmin(lo, m[k]);
			hi = fmax(hi, m[k]);
		}
		range[i] = hi / lo - 1;
		a->noise_max = fmax(a->noise_max, range[i]);
	}
	a->noise = stats_median(range, nplace);
	pick_pair(pass_med, nplace, npass, ok, npass, fig, &a->imin, &a->imax);
	a->spread = fig[a->imax] / fig[a->imin] - 1;
	/* every pass, disturbed or not, gets its pair from the undisturbed
	 * others: repro_conclude leaves the disturbed ones out again, and says so */
	for (size_t k = 0; k < npass; k++) {
		bool judged = a->used && ok[k];
		size_t lo, hi;

		a->ea[k] = a->eb[k] = NAN;
		if (pick_pair(pass_med, nplace, npass, ok, k, tmp, &lo, &hi)) {
			a->ea[k] = pass_med[hi * npass + k] * ALIGN_JUDGE_OPS;
			a->eb[k] = pass_med[lo * npass + k] * ALIGN_JUDGE_OPS;
			a->agree += judged && hi == a->imax && lo == a->imin;
		}
		ea[k] = judged ? a->ea[k] : NAN;
		eb[k] = judged ? a->eb[k] : NAN;
	}
	stats_judge(ea, eb, npass, &a->j);
	a->shows = a->j.v == VERDICT_SLOWER;
	return 0;
}

/* The post's four tbench runs (one kernel build each, PUB_MACHINE), in its
 * order, and the spread table computed from them. */
#define TB1 2316.87
#define TB2 2257.49
#define TB3 2264.11
#define TB4 2280.62
static const double tbench_2008[] = { TB1, TB2, TB3, TB4 };
#define PUB_MACHINE "x86_64 8p SMP 8G, 2.6.24-rc8 slab, one build per run"
#define PUB_WORDS "So a ~3% variance!"
static const struct repro_row tbench_rows[] = {
	{ "tbench, 4 kernel builds", { TB1, TB2, (TB1 / TB2 - 1) * 100 },
	  "MB/sec: the fastest and slowest build" },
};
static const struct repro_table tbench_table = {
	.title = "spread: published across kernel builds, measured across code placements",
	.source = "Christoph Lameter, linux-mm, Jan 2008, \"Re: SLUB: Increasing partial pages\"",
	.machine = PUB_MACHINE,
	.unit = "tbench MB/sec (8 procs), spread = fastest / slowest - 1",
	.ncols = 3, .cols = { "best", "worst", "spread %" },
	.nrows = ARRAY_SIZE(tbench_rows), .rows = tbench_rows,
};

struct place_acc {
	double *samples;	/* pooled over the passes, core cycles per op */
	size_t n, cap;
	double pass_med[ALIGN_MAX_PASSES];
};

static int pool_add(struct place_acc *pa, const double *v, size_t n, double tpc)
{
	if (pa->n + n > pa->cap) {
		size_t cap = (pa->n + n) * 2;
		double *s = realloc(pa->samples, cap * sizeof(double));

		if (!s)
			return -ENOMEM;
		pa->samples = s;
		pa->cap = cap;
	}
	for (size_t i = 0; i < n; i++)
		pa->samples[pa->n++] = v[i] / tpc;
	return 0;
}

/* Time one copy once: 0, -EINTR or -errno; *med: median core cycles per op. */
static int time_copy(const struct align_copy *c, void *mem, const struct run_opts *o,
		     const struct calibration *cal, struct place_acc *pa, double *med)
{
	struct probe_ctx ctx = { .mem = mem, .mem_size = ALIGN_MEM_BYTES, .mode = MODE_LATENCY };
	struct result r = { 0 };
	int ret;

	align_prepare(mem);
	ret = runner_measure_kernel(c->fn, &ctx, o, cal, &r);
	if (ret == 0 && r.nsamples == 0)
		ret = -EIO;
	if (ret == 0) {
		*med = r.s.median / cal->ticks_per_cycle;
		ret = pool_add(pa, r.samples, r.nsamples, cal->ticks_per_cycle);
	}
	result_release(&r);
	return ret;
}

size_t align_pass_index(size_t pass, size_t n)
{
	size_t start = pass * 7 % ALIGN_NPLACE;

	n %= ALIGN_NPLACE;
	return pass % 2 ? (start + ALIGN_NPLACE - n) % ALIGN_NPLACE : (start + n) % ALIGN_NPLACE;
}

/* Warm-up, untimed: the first copy of each of sel[0..nsel) at placement i,
 * in turn, for ns. Before the first timing, a third of a second of every
 * probe, so the placements timed first do not pay for a core that is still
 * waking (runner.c, prewarm); before each probe's placements in a pass, its
 * first copy alone for PROBE_WARM_NS: without it the first placement timed
 * after another probe read up to 7% high in some passes (lock-orb-loop
 * after orb-loop). */
#define PROBE_WARM_NS 20000000ull

static void warm(const struct align_probe *const *sel, size_t nsel, size_t i, void *mem,
		 uint64_t ns)
{
	struct probe_ctx ctx = { .mem = mem, .mem_size = ALIGN_MEM_BYTES };
	uint64_t end = now_ns() + ns;

	align_prepare(mem);
	while (now_ns() < end && !runner_stop)
		for (size_t pi = 0; pi < nsel; pi++)
			sel[pi]->copy[i].fn(&ctx, 64);
}

/* The verdict in a few words. */
static const char *assessment_words(const struct align_assessment *a)
{
	static const char *const words[] = {
		[VERDICT_SLOWER] = "the placement moves the cost",
		[VERDICT_SAME] = "no placement effect: the same within the margin",
		[VERDICT_FASTER] = "cannot tell",	/* a held-out "slowest" that is faster: noise */
		[VERDICT_NONE] = "no verdict",
		[VERDICT_UNRESOLVED] = "cannot tell",
	};

	return a->used ? words[a->j.v] : "no verdict: every pass was disturbed";
}

/* "spread ..; passes ..; judged ..: verdict" for a probe or a ratio. */
static void print_assessment(FILE *f, const char *what, const struct align_assessment *a,
			     size_t npass)
{
	fprintf(f, "  %sspread %.2f%% (slowest +%u / fastest +%u); one placement moves %.2f%% "
		"between passes (typical; largest %.2f%%); judged pass by pass on the slowest and "
		"fastest of the other passes (%zu of %zu undisturbed passes chose +%u / +%u): x%.3f",
		what, a->spread * 100, align_offsets[a->imax], align_offsets[a->imin], a->noise * 100,
		a->noise_max * 100, a->agree, a->used, align_offsets[a->imax], align_offsets[a->imin],
		a->j.ratio);
	if (a->j.n >= 2)
		fprintf(f, ", 95%% x%.3f-%.3f, margin %.1f%%", a->j.lo, a->j.hi, a->j.margin * 100);
	fprintf(f, ", %zu of %zu passes: %s\n", a->j.n, npass, assessment_words(a));
}

static json_t *assessment_json(const struct align_assessment *a)
{
	return json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:o,s:o,s:o,s:o,s:s,s:b,s:s}", "spread",
			 a->spread, "noise", a->noise, "noise_max", a->noise_max, "slowest",
			 align_offsets[a->imax], "fastest", align_offsets[a->imin], "passes_judged",
			 (int)a->j.n, "passes_choosing_them", (int)a->agree, "ratio", report_real(a->j.ratio),
			 "lo", report_real(a->j.lo), "hi", report_real(a->j.hi), "margin", report_real(a->j.margin),
			 "verdict", stats_verdict_name(a->j.v), "shows_effect", a->shows, "selection",
			 "leave one out: each pass judged on the slowest and fastest placements of the "
			 "other undisturbed passes");
}

/* A probe's table and assessment, and its figures into jprobes. */
static void print_probe(FILE *f, const struct align_probe *p, const bool *use,
			const struct place_acc *pa, size_t npass, const double *fig,
			const struct align_assessment *a, json_t *jprobes)
{
	json_t *rows = json_array(), *jp = json_pack("{s:s,s:s}", "insn", p->insn, "form", p->form);

	fprintf(f, "\n%s: %s, %s; core cycles per op, %zu passes\n", p->name, p->insn, p->form, npass);
	fprintf(f, "  %5s %5s %-6s %8s %8s %8s %8s %8s %s\n", "place", "mod64", "page", "median",
		"p10", "p90", "pass-lo", "pass-hi", "vs line twin");
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		struct summary s, ps;	/* of the samples, of the pass medians */
		char twin[48] = "";

		if (!use[i])
			continue;
		stats_summarize(pa[i].samples, pa[i].n, &s);
		stats_summarize(pa[i].pass_med, npass, &ps);
		if (align_is_page(i) && use[align_page_twin(i)]) {
			size_t j = align_page_twin(i);

			snprintf(twin, sizeof(twin), "%+.2f%% vs +%u", (fig[i] / fig[j] - 1) * 100,
				 align_offsets[j]);
		}
		fprintf(f, "  %5u %5u %-6s %8.3f %8.3f %8.3f %8.3f %8.3f %s%s%s\n", align_offsets[i],
			align_offsets[i] % 64, align_is_page(i) ? "cross" : "inside", fig[i], s.p10,
			s.p90, ps.min, ps.max, twin, i == a->imin ? " best" : "",
			i == a->imax ? " worst" : "");
		json_array_append_new(rows, json_pack("{s:i,s:i,s:b,s:f,s:f,s:f,s:f,s:f,s:i}",
			"offset", align_offsets[i], "mod64", align_offsets[i] % 64,
			"crosses_page", align_is_page(i), "median_cycles", fig[i], "p10", s.p10,
			"p90", s.p90, "pass_lo", ps.min, "pass_hi", ps.max, "samples",
			(int)pa[i].n));
	}
	print_assessment(f, "", a, npass);
	json_object_set_new(jprobes, p->name, jp);
	json_object_set_new(jp, "placements", rows);
	json_object_set_new(jp, "assessment", assessment_json(a));
}

/* Assess a probe's placements, or (pb not NULL) the ratio pa / pb
 * placement by placement, over the used ones: fig[i] is placement i's
 * figure, a->imin and a->imax placement indexes. 0 or align_assess's error. */
static int assess_used(const struct place_acc *pa, const struct place_acc *pb, const bool *use,
		       size_t npass, const double *share, double *fig, struct align_assessment *a)
{
	double pm[ALIGN_NPLACE * ALIGN_MAX_PASSES], fig_u[ALIGN_NPLACE];
	size_t idx[ALIGN_NPLACE], m = 0;
	int ret;

	/* a ratio pass by pass: both figures of a pass were timed minutes
	 * apart at most, in the same pass order */
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		if (!use[i])
			continue;
		for (size_t k = 0; k < npass; k++)
			pm[m * npass + k] = pa[i].pass_med[k] / (pb ? pb[i].pass_med[k] : 1);
		idx[m++] = i;
	}
	ret = align_assess(pm, m, npass, share, fig_u, a);
	if (ret < 0)
		return ret;
	/* back from the used placements to placement indexes */
	for (size_t j = 0; j < m; j++)
		fig[idx[j]] = fig_u[j];
	a->imin = idx[a->imin];
	a->imax = idx[a->imax];
	return 0;
}

/* Atomic and plain twins among the probes ("lock-X" and "X", test-align
 * holds the names to their lock prefixes): does the atomic premium (the
 * ratio of the two at the same placement) depend on the placement? */
static int twin_ratios(struct repro_ctx *rc, const struct align_probe *const *sel, size_t nsel,
		       const bool *use, size_t npass, const double *share,
		       struct place_acc (*acc)[ALIGN_NPLACE])
{
	json_t *jt = json_array();

	repro_doc_own(rc->doc, "twin_ratios", jt);
	for (size_t a = 0; a < nsel; a++) {
		const char *atomic = sel[a]->name, *plain = atomic + 5;
		double fig[ALIGN_NPLACE];
		struct align_assessment as;
		size_t b = 0;
		int ret;

		if (strncmp(atomic, "lock-", 5))
			continue;
		while (b < nsel && strcmp(sel[b]->name, plain))
			b++;
		if (b == nsel)
			continue;
		ret = assess_used(acc[a], acc[b], use, npass, share, fig, &as);
		if (ret < 0)
			return ret;
		fprintf(rc->out, "%s / %s at the same placement: x%.2f (+%u) .. x%.2f (+%u)\n", atomic,
			plain, fig[as.imin], align_offsets[as.imin], fig[as.imax], align_offsets[as.imax]);
		print_assessment(rc->out, "ratio ", &as, npass);
		json_array_append_new(jt, json_pack("{s:s,s:s,s:o}", "atomic", atomic, "plain", plain,
						    "assessment", assessment_json(&as)));
	}
	return 0;
}

/* ---- the non-atomic unlock question ---- */

/* Each case runs this long in each pass. */
#define UNLOCK_SECONDS 0.1
/* Cycles of work each thread does after each release, in both harnesses
 * (the engine's --outside-work units, ~1 cycle each; here 64-add chains).
 * Without it the releasing thread takes the lock straight back while its
 * line is still in its cache: on the Zen 5 guest 0.01-8% of acquisitions
 * were hand-overs, run to run, and the throughput verdict flipped. With
 * more work than a hand-over takes (200-400 cycles), the lock passes
 * between the threads, as a slab's lock does among the kernel's other work. */
#define UNLOCK_OUTSIDE_WORK 512

void unlock_thread_init(struct unlock_thread *th, unsigned id)
{
	memset(th, 0, offsetof(struct unlock_thread, samples));
	th->id = id;
	th->stride = 1;
}

void unlock_acquired(struct unlock_line *l, struct unlock_thread *th, uint64_t t)
{
	th->acquired++;
	if (l->owner && l->owner != th->id) {
		if (t < l->released) {
			th->backwards++;
		} else if (th->handovers % th->stride == 0) {
			/* keep every stride-th: a bounded record of the whole case */
			if (th->nsamples == UNLOCK_SAMPLE_CAP) {
				for (size_t i = 0; i < UNLOCK_SAMPLE_CAP / 2; i++)
					th->samples[i] = th->samples[2 * i];
				th->nsamples = UNLOCK_SAMPLE_CAP / 2;
				th->stride *= 2;
			}
			th->samples[th->nsamples++] = (double)(t - l->released);
		}
		th->handovers++;
	}
	l->owner = th->id;
}

int unlock_summarize(const struct unlock_thread *const *th, unsigned n, struct unlock_summary *s)
{
	uint64_t acq[8];
	size_t m = 0, tot = 0;
	double *v;

	memset(s, 0, sizeof(*s));
	s->handover_ticks = NAN;
	if (!n || n > ARRAY_SIZE(acq))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		tot += th[i]->nsamples;
	v = malloc((tot ? tot : 1) * sizeof(double));
	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		memcpy(v + m, th[i]->samples, th[i]->nsamples * sizeof(double));
		m += th[i]->nsamples;
		acq[i] = th[i]->acquired;
		s->acquired += th[i]->acquired;
		s->handovers += th[i]->handovers;
		s->backwards += th[i]->backwards;
	}
	if (m)
		s->handover_ticks = stats_median(v, m);
	free(v);
	s->handover_share = s->acquired ? (double)s->handovers / (double)s->acquired : 0;
	s->fairness = contention_fairness(acq, n);
	return 0;
}

struct ho_shared {
	struct topo *t;
	struct unlock_line *line;
	void (*lock)(volatile void *l);
	void (*unlock)(volatile void *l);
	uint64_t duration, deadline;
	unsigned arrived;
	int go;
};

struct ho_worker {
	struct ho_shared *sh;
	pthread_t tid;
	int cpu_os, err;
	double share;
	struct unlock_thread th;
};

/* One thread: pin, meet the other at a spinning barrier (the last to
 * arrive sets the deadline), then lock, stamp, unlock until the deadline. */
static void *ho_main(void *arg)
{
	struct ho_worker *w = arg;
	struct ho_shared *sh = w->sh;
	struct unlock_line *l = sh->line;
	struct quiet_mark pass;
	bool done;

	w->err = topo_bind_thread(sh->t, w->cpu_os);
	if (__atomic_add_fetch(&sh->arrived, 1, __ATOMIC_ACQ_REL) == 2) {
		sh->deadline = arch_timer_start() + sh->duration;
		__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	if (w->err)
		return NULL;
	quiet_start(&pass);
	do {
		uint64_t t;

		/* the calls through pointers are compiler barriers: the
		 * stamps stay inside the critical section */
		sh->lock(&l->lock);
		t = arch_timer_stop();
		unlock_acquired(l, &w->th, t);
		done = t >= sh->deadline || runner_stop;
		l->released = arch_timer_start();
		sh->unlock(&l->lock);
		arch_add_chain(UNLOCK_OUTSIDE_WORK / 64);
	} while (!done);
	w->share = quiet_share(&pass);
	return NULL;
}

/* The hand-over harness for one release (locks.c name), two threads on
 * os[0], os[1]. *share: the smaller of the threads' CPU shares. */
static int handover_case(struct repro_ctx *rc, const int *os, const char *name, double seconds,
			 struct unlock_summary *s, double *share)
{
	struct ho_shared sh = { .t = rc->t };
	struct ho_worker *w = calloc(2, sizeof(*w));
	unsigned started = 0;
	int ret = locks_ops(name, &sh.lock, &sh.unlock);

	if (ret)
		pr_err("code-alignment-2008: no lock named %s in probes/locks.c", name);
	sh.line = aligned_alloc(4096, 4096);
	if (!ret && (!w || !sh.line))
		ret = -ENOMEM;
	if (ret)
		goto out;
	memset(sh.line, 0, 4096);
	sh.duration = (uint64_t)(seconds * rc->cal->timer_hz);
	for (unsigned i = 0; i < 2; i++) {
		w[i].sh = &sh;
		w[i].cpu_os = os[i];
		unlock_thread_init(&w[i].th, i + 1);
	}
	for (; started < 2; started++)
		if (pthread_create(&w[started].tid, NULL, ho_main, &w[started]))
			break;
	if (started < 2) {	/* the one waiting stops after one acquisition */
		sh.deadline = 0;
		__atomic_store_n(&sh.go, 1, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	if (started < 2) {
		pr_err("code-alignment-2008: %s hand-over: cannot start thread %u of 2", name,
		       started + 1);
		ret = -EAGAIN;
		goto out;
	}
	ret = w[0].err ? w[0].err : w[1].err;	/* topo_bind_thread said why */
	if (!ret)
		ret = unlock_summarize((const struct unlock_thread *[]){ &w[0].th, &w[1].th }, 2,
				       s);
	*share = fmin(w[0].share, w[1].share);
out:
	free(sh.line);
	free(w);
	return ret;
}

/* Throughput and fairness of both releases from the contention engine (the
 * probes' own kernels, both threads on the lock word), in list order.
 * cyc: cycles per acquisition of both threads together (the union of the
 * runs / all acquisitions); share: the smallest CPU share or overlap. */
static int tput_case(struct repro_ctx *rc, const struct probe *const *list, double seconds,
		     double *cyc, double *fair, double *share)
{
	struct report rep;
	struct run_opts o;
	int ret;

	report_init(&rep);
	runner_default_opts(&o);
	o.threads = 2;
	o.sharing = "true";
	o.max_seconds = seconds;
	o.out_work = UNLOCK_OUTSIDE_WORK;
	ret = contention_run(rc->t, &o, list, 2, &rep);
	/* contention_run pinned this thread to its first PU */
	topo_bind_thread(rc->t, rc->cpu_os);
	*share = 1;
	for (size_t i = 0; !ret && i < 2; i++) {
		const struct result *r = report_find(&rep, list[i]->name, MODE_LATENCY,
						     contention_sharing_pattern(SHARING_TRUE),
						     RESULT_USER);
		const struct contention_part *c = r ? result_contention(r) : NULL;

		if (!c) {
			pr_err("code-alignment-2008: the contention run gave no %s result",
			       list[i]->name);
			ret = -EIO;
			break;
		}
		cyc[i] = c->aggregate_ticks_per_op / rep.cal.ticks_per_cycle;
		fair[i] = c->fairness_cv;
		*share = fmin(*share, fmin(c->cpu_wall_min, c->overlap));
	}
	report_free(&rep);
	return ret;
}

#define UNLOCK_PUB_WORDS "0006-Use-non-atomic-unlock.patch: Surprisingly this one caused a 1% " \
	"regression in some of my tests. Maybe the cacheline is held longer if no atomic op is " \
	"used during unlock?"
#define UNLOCK_PUB_MACHINE "tbench, 2.6.24-rc8 + the SLUB performance series; the machine of " \
	"this test is not stated"

/* The releases, as the probes bit_spin_lock and __bit_spin_unlock have them. */
static const char *const unlock_release[2] = { "bit_spin_unlock", "__bit_spin_unlock" };

struct unlock_passes {
	double ho[2][ALIGN_MAX_PASSES];		/* hand-over, cycles: [0] atomic, [1] plain */
	double hshare[2][ALIGN_MAX_PASSES];	/* hand-overs / acquisitions */
	double gap[2][ALIGN_MAX_PASSES];	/* cycles between hand-overs */
	double cyc[2][ALIGN_MAX_PASSES];	/* cycles per acquisition, both threads */
	double fair[2][ALIGN_MAX_PASSES];	/* fairness cv (contention engine) */
	double share[ALIGN_MAX_PASSES];
	uint64_t backwards;
};

/* After a case of unlock pass k: true to take it again (under 90% of the
 * CPU for a thread, or, for the contention engine's case, threads that did
 * not overlap: repro_figure_again_of, as the placements' timings), its
 * figures (figs, taken) kept in retimed_figures; false keeps them nowhere
 * (the pass records its own). */
static bool unlock_again(struct repro_ctx *rc, struct repro_figure *f, double share, size_t k,
			 const char *what, json_t *figs)
{
	if (runner_stop || !repro_figure_again_of(f, share, false)) {
		json_decref(figs);
		return false;
	}
	repro_figure_kept(rc, f, share, false, what, k, figs);
	return true;
}

/* Pass k: the throughput of both, then the hand-over of each, the atomic
 * release first in even passes, the plain one first in odd passes. Each
 * case (0.1 s, two threads) is the unit taken again while disturbed; the
 * pass's share is the least of its cases' last tries. */
static int unlock_pass(struct repro_ctx *rc, const struct probe *const *pr, const int *os,
		       size_t k, struct unlock_passes *u)
{
	const struct probe *list[2] = { pr[k % 2], pr[!(k % 2)] };
	struct repro_figure f = { .pt = rc->patience };
	double cyc[2], fair[2], sh;
	int ret;

	do {
		repro_figure_start(&f);
		ret = tput_case(rc, list, UNLOCK_SECONDS, cyc, fair, &sh);
	} while (!ret && unlock_again(rc, &f, sh, k, "unlock throughput",
				      json_pack("{s:[o,o],s:[o,o]}", list[0]->name, report_real(cyc[0]),
						report_real(fair[0]), list[1]->name, report_real(cyc[1]),
						report_real(fair[1]))));
	u->share[k] = sh;
	for (unsigned i = 0; i < 2 && !ret; i++) {
		unsigned v = i ^ (unsigned)(k % 2);	/* the variant run i-th */
		struct unlock_summary s;
		char what[64];

		u->cyc[v][k] = cyc[i];
		u->fair[v][k] = fair[i];
		snprintf(what, sizeof(what), "unlock hand-over, %s", list[i]->name);
		f = (struct repro_figure){ .pt = rc->patience };
		do {
			repro_figure_start(&f);
			ret = handover_case(rc, os, list[i]->name, UNLOCK_SECONDS, &s, &sh);
		} while (!ret && unlock_again(rc, &f, sh, k, what,
					      json_pack("{s:o,s:I,s:I}", "handover_cycles",
							report_real(s.handover_ticks /
								    rc->cal->ticks_per_cycle),
							"handovers", (json_int_t)s.handovers,
							"acquired", (json_int_t)s.acquired)));
		if (ret)
			break;
		u->ho[v][k] = s.handover_ticks / rc->cal->ticks_per_cycle;
		u->hshare[v][k] = s.handover_share;
		/* how long one thread keeps the lock from the other; no
		 * hand-over at all: at least the whole case */
		u->gap[v][k] = UNLOCK_SECONDS * rc->cal->timer_hz /
			       (double)(s.handovers ? s.handovers : 1) / rc->cal->ticks_per_cycle;
		u->backwards += s.backwards;
		u->share[k] = fmin(u->share[k], sh);
	}
	return ret;
}

static void unlock_report(struct repro_ctx *rc, size_t npass, const struct unlock_passes *u)
{
	double ghz = rc->cal->timer_hz / rc->cal->ticks_per_cycle / 1e9;
	json_t *ju = json_object();
	struct repro_claim c = {
		.a = unlock_release[1], .b = unlock_release[0], .unit = "cycles", .n = npass,
		.share = u->share, .pub_unit = "%", .pub_a = NAN, .pub_b = NAN,
		.pub_machine = UNLOCK_PUB_MACHINE,
	};

	fprintf(rc->out, "  hand-over harness: hand-over time, share of acquisitions that were "
		"hand-overs, cycles between hand-overs; contention engine (the probes' kernels): "
		"cycles per acquisition of both threads together, acquisitions per second, fairness "
		"(cv of the threads' counts); medians of %zu passes\n", npass);
	fprintf(rc->out, "  %-18s %10s %10s %10s %10s %12s %8s\n", "release", "hand-over",
		"hand-over", "between", "per acq.", "acq./s", "fairness");
	fprintf(rc->out, "  %-18s %10s %10s %10s %10s %12s %8s\n", "", "cycles", "share",
		"cycles", "cycles", "both thr.", "cv");
	for (unsigned v = 0; v < 2; v++) {
		double ho = stats_median(u->ho[v], npass), hs = stats_median(u->hshare[v], npass);
		double gap = stats_median(u->gap[v], npass), cy = stats_median(u->cyc[v], npass);
		double fair = stats_median(u->fair[v], npass);

		fprintf(rc->out, "  %-18s %10.1f %9.2f%% %10.0f %10.1f %11.2fM %8.3f\n", unlock_release[v],
			ho, hs * 100, gap, cy, ghz * 1e3 / cy, fair);
		json_object_set_new(ju, unlock_release[v], json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"handover_cycles", report_real(ho), "handover_share", report_real(hs),
			"cycles_between_handovers", report_real(gap), "cycles_per_acquisition", report_real(cy),
			"fairness_cv", report_real(fair), "handover_cycles_per_pass",
			repro_doubles_json(u->ho[v], npass), "cycles_per_acquisition_per_pass",
			repro_doubles_json(u->cyc[v], npass)));
	}
	if (u->backwards)
		fprintf(rc->out, "  %" PRIu64 " hand-overs stamped before their release (the PUs' "
			"timers disagree) were left out\n", u->backwards);
	repro_doc_own(rc->doc, "unlock", ju);
	for (int k = 0; k < 3; k++) {
		static const char *const what[3] = {
			"hand-over (release stamp to the other thread's acquire)",
			"cycles one thread keeps the lock from the other (between hand-overs)",
			"per acquisition, two threads on one lock (throughput)",
		};
		const double (*fig)[ALIGN_MAX_PASSES] = k == 0 ? u->ho : k == 1 ? u->gap : u->cyc;

		c.what = what[k];
		c.ea = fig[1];
		c.eb = fig[0];
		c.pub_words = k ? NULL : UNLOCK_PUB_WORDS;
		repro_conclude(rc, &c);
	}
	fprintf(rc->out, "  deviations: two threads on one lock word in a loop, %d cycles of "
		"other work between a release and the next acquire, where the post ran tbench (8 "
		"processes, the whole kernel) and saw 1%%; today's bit_spin_lock bodies (lock btsq "
		"to take, lock andb or a plain btrq to release, a thread-local preempt count), not "
		"2.6.24's; the hand-over harness calls them out of line and reads the fenced timer "
		"inside the critical section (both releases alike); the two PUs are vCPUs of a "
		"guest\n", UNLOCK_OUTSIDE_WORK);
}

/* "what: 0.97 0.95 .." and the same as JSON under key. */
static void print_shares(struct repro_ctx *rc, const char *what, const char *key,
			 const double *share, size_t npass)
{
	fprintf(rc->out, "%s (under %.2f: disturbed, left out of the verdicts):", what,
		REPRO_SHARE_MIN);
	for (size_t k = 0; k < npass; k++)
		fprintf(rc->out, " %.2f", share[k]);
	fputc('\n', rc->out);
	repro_doc_own(rc->doc, key, repro_doubles_json(share, npass));
}

/* The seed's non-atomic unlock question, npass passes of both releases. */
static int unlock_experiment(struct repro_ctx *rc, size_t npass)
{
	const struct probe *pr[2] = { probe_find("bit_spin_lock"), probe_find("__bit_spin_unlock") };
	struct unlock_passes *u;
	int os[2], ret;

	fprintf(rc->out, "\nthe non-atomic unlock question: bit_spin_lock released by "
		"bit_spin_unlock (atomic) or __bit_spin_unlock (plain), 2 threads on one lock "
		"word, %d cycles of other work after each release, %zu passes of %.1f s per case\n",
		UNLOCK_OUTSIDE_WORK, npass, UNLOCK_SECONDS);
	if (!pr[0] || !pr[1] || pr[0]->unsupported || pr[1]->unsupported) {
		fprintf(rc->out, "  not measured: %s\n", pr[0] && pr[0]->unsupported ?
			pr[0]->unsupported : "no bit_spin_lock probes here");
		return 0;
	}
	ret = contention_plan(rc->t, "spread", 2, os);
	if (ret < 0) {
		fprintf(rc->out, "  not measured: it needs two PUs this process may use\n");
		return 0;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	fprintf(rc->out, "  threads on PUs %d and %d\n", os[0], os[1]);
	for (size_t k = 0; k < npass && !ret; k++) {
		struct quiet_mark ps;

		do {
			quiet_start(&ps);
			ret = runner_stop ? -EINTR : unlock_pass(rc, pr, os, k, u);
		} while (!ret && repro_pass_again(rc, &ps, u->share[k], "unlock", k,
						  json_pack("{s:[o,o],s:[o,o],s:[o,o]}", "handover",
							    report_real(u->ho[0][k]),
							    report_real(u->ho[1][k]), "gap",
							    report_real(u->gap[0][k]),
							    report_real(u->gap[1][k]),
							    "per_acquisition",
							    report_real(u->cyc[0][k]),
							    report_real(u->cyc[1][k]))));
	}
	if (!ret) {
		print_shares(rc, "  CPU share of each pass, the least of its 4 cases' threads",
			     "unlock_pass_share", u->share, npass);
		unlock_report(rc, npass, u);
	}
	free(u);
	return ret;
}

/* ---- the run ---- */

/* Pass k's median of each used placement (null where unused), cycles per op. */
static json_t *pass_medians(const struct place_acc *acc, const bool *use, size_t k)
{
	double m[ALIGN_NPLACE];

	for (size_t i = 0; i < ALIGN_NPLACE; i++)
		m[i] = use[i] ? acc[i].pass_med[k] : NAN;
	return repro_doubles_json(m, ALIGN_NPLACE);
}

/* Every pass times every selected probe at every used placement. Each
 * placement's timing is taken again while the thread had under 90% of its
 * CPU over it (repro_figure_again_of), within the tries and the patience:
 * a timing lasts some tens of milliseconds, and a load that passes leaves
 * out that timing, not the whole pass. An involuntary context switch alone
 * does not take it again, as it did not disturb a pass before: its figure
 * is the median of thousands of samples, which one switch moves by one
 * sample (beside other work here, 410 of the 595 timings that rule took
 * again had 90% of the CPU or more). A disturbed try's samples still pool (every
 * timing's do) and its median is kept in retimed_figures; the pass's
 * median is its last try's. share[k]: the least share of pass k's last
 * tries (a pass run again, as repro_pass_again says, when one stayed
 * disturbed). 0, -EINTR or -errno. */
static int measure_passes(struct repro_ctx *rc, const struct align_probe *const *sel,
			  size_t nsel, const bool *use, size_t npass, const struct run_opts *o,
			  void *mem, struct place_acc (*acc)[ALIGN_NPLACE], double *share)
{
	warm(sel, nsel, 0, mem, 300000000ull);
	for (size_t k = 0; k < npass; k++) {
		struct quiet_mark pass;
		json_t *figs;

		do {
			quiet_start(&pass);
			share[k] = 1;
			figs = json_object();
			for (size_t pi = 0; pi < nsel; pi++) {
				warm(sel + pi, 1, align_pass_index(k, 0), mem, PROBE_WARM_NS);
				for (size_t n = 0; n < ALIGN_NPLACE; n++) {
					size_t i = align_pass_index(k, n);
					struct repro_figure f = { .pt = rc->patience };
					double sh;
					bool pre;

					if (!use[i])
						continue;
					for (;;) {
						int ret = runner_stop ? -EINTR : 0;

						repro_figure_start(&f);
						/* the samples pool over every try and
						 * pass, a rerun's too */
						if (!ret)
							ret = time_copy(&sel[pi]->copy[i], mem, o, rc->cal,
									&acc[pi][i], &acc[pi][i].pass_med[k]);
						if (ret < 0) {
							json_decref(figs);
							return ret;
						}
						sh = quiet_share(&f.m);
						pre = repro_preemptions() != f.cs;
						if (!repro_figure_again_of(&f, sh, false))
							break;
						repro_figure_kept(rc, &f, sh, pre, sel[pi]->name, k,
								  json_pack("{s:i,s:o}", "offset",
									    align_offsets[i], "median_cycles",
									    report_real(acc[pi][i].pass_med[k])));
					}
					share[k] = fmin(share[k], sh);
				}
				json_object_set_new(figs, sel[pi]->name, pass_medians(&acc[pi][0], use, k));
			}
		} while (repro_pass_again(rc, &pass, share[k], "placements", k, figs));
	}
	return 0;
}

/* The placement timings taken again since before, and those left
 * disturbed without (REPRO_FIGURE_VAIN), into the text and the JSON. */
static void say_retimed(struct repro_ctx *rc, const struct repro_patience *before)
{
	unsigned again = 0, given_up = 0;

	if (rc->patience) {
		again = rc->patience->retimed - before->retimed;
		given_up = rc->patience->given_up - before->given_up;
	}
	fprintf(rc->out, "placement timings under %.2f of the CPU taken again: %u (their medians in "
		"retimed_figures); left disturbed, not taken again once %d timings in a row ran every "
		"try disturbed: %u\n", REPRO_SHARE_MIN, again, REPRO_FIGURE_VAIN, given_up);
	repro_doc_own(rc->doc, "placements_retimed", json_integer(again));
	repro_doc_own(rc->doc, "placements_given_up", json_integer(given_up));
}

/* The probe's conclusion: its pass pairs, per 64-op loop (ALIGN_JUDGE_OPS). */
static void conclude_probe(struct repro_ctx *rc, const char *name, const struct align_assessment *a,
			   size_t npass, const double *share, bool first)
{
	char wa[32], wb[32], what[160];
	struct repro_claim c = {
		.what = what, .a = wa, .b = wb, .unit = "cycles per 64 ops",
		.ea = a->ea, .eb = a->eb, .n = npass, .share = share,
		.pub_unit = "MB/sec", .pub_a = NAN, .pub_b = NAN,
		/* the post's words once, on the first line */
		.pub_words = first ? PUB_WORDS : NULL, .pub_machine = PUB_MACHINE,
	};

	snprintf(what, sizeof(what), "%s, slowest vs fastest placement (each pass on the pair the "
		 "other passes chose, %zu of %zu chose these)", name, a->agree, a->used);
	snprintf(wa, sizeof(wa), "+%u", align_offsets[a->imax]);
	snprintf(wb, sizeof(wb), "+%u", align_offsets[a->imin]);
	repro_conclude(rc, &c);
}

/* The probes and placements the config selects, after checking the
 * copies. 0, -ENOTSUP, -EINVAL or -EIO after a message. */
static int align_select(const struct experiment *e, const struct align_probe **sel, size_t *nsel,
			bool *use, size_t *nuse, size_t npass)
{
	const char *sec = "code-alignment-2008";

	if (!align_nprobes) {
		pr_err("code-alignment-2008: unsupported here: the placed loops are written in "
		       "assembly for x86-64 only (ARCH_HAS_ALIGN_LOOPS is 0 on %s)", ARCH_NAME);
		return -ENOTSUP;
	}
	*nsel = *nuse = 0;
	for (size_t i = 0; i < ALIGN_NPLACE; i++) {
		use[i] = config_list_has(e, sec, "placements", align_is_page(i) ? "page" : "line");
		*nuse += use[i];
	}
	for (size_t i = 0; i < align_nprobes; i++)
		if (config_list_has(e, sec, "probes", align_probes[i].name))
			sel[(*nsel)++] = &align_probes[i];
	if (*nuse < 2 || !*nsel || npass < 2 || npass > ALIGN_MAX_PASSES) {
		pr_err("code-alignment-2008: %zu probes, %zu placements, %zu passes: need a probe, "
		       "2 placements and 2..%d passes", *nsel, *nuse, npass, ALIGN_MAX_PASSES);
		return -EINVAL;
	}
	for (size_t i = 0; i < *nsel; i++) {
		int ret = align_check_probe(sel[i]);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Assess every probe, print the spread beside the post's and the
 * conclusions. 0 or -errno. */
static int align_report(struct repro_ctx *rc, const struct align_probe *const *sel, size_t nsel,
			const bool *use, size_t nuse, size_t npass, const double *share,
			struct place_acc (*acc)[ALIGN_NPLACE])
{
	struct repro_row rows[ARRAY_SIZE(align_probes)];
	char notes[ARRAY_SIZE(align_probes)][96], munit[160];
	struct align_assessment *assess = calloc(nsel, sizeof(*assess));
	struct repro_table meas = {
		.title = "", .machine = rc->machine ? rc->machine : "this machine", .unit = munit,
		.ncols = 3, .cols = { "best", "worst", "spread %" }, .rows = rows, .nrows = nsel,
	};
	json_t *jprobes = json_object();
	size_t nshow = 0;
	int ret = assess ? 0 : -ENOMEM;

	snprintf(munit, sizeof(munit), "core cycles per op, the fastest and slowest of %zu code "
		 "placements (median of %zu passes)", nuse, npass);
	repro_doc_own(rc->doc, "probes", jprobes);
	for (size_t pi = 0; pi < nsel && !ret; pi++) {
		struct align_assessment *a = &assess[pi];
		double fig[ALIGN_NPLACE];

		ret = assess_used(acc[pi], NULL, use, npass, share, fig, a);
		if (ret < 0) {
			pr_err("code-alignment-2008: %s: a placement has no positive median "
			       "(is the clock calibrated?)", sel[pi]->name);
			break;
		}
		print_probe(rc->out, sel[pi], use, acc[pi], npass, fig, a, jprobes);
		rows[pi] = (struct repro_row){ sel[pi]->name,
			{ fig[a->imin], fig[a->imax], a->spread * 100 }, notes[pi] };
		snprintf(notes[pi], sizeof(notes[pi]), "x%.3f over %zu passes: %s", a->j.ratio,
			 a->j.n, assessment_words(a));
		nshow += a->shows;
	}
	if (!ret) {
		fprintf(rc->out, "\npublished (%s):\n", PUB_MACHINE);
		for (size_t i = 0; i < ARRAY_SIZE(tbench_2008); i++)
			fprintf(rc->out, "  Throughput %.2f MB/sec 8 procs\n", tbench_2008[i]);
		ret = repro_print_beside(rc->out, &tbench_table, &meas);
	}
	for (size_t pi = 0; pi < nsel && !ret; pi++)
		conclude_probe(rc, sel[pi]->name, &assess[pi], npass, share, pi == 0);
	if (!ret)
		ret = twin_ratios(rc, sel, nsel, use, npass, share, acc);
	if (!ret)
		fprintf(rc->out, "this machine shows the effect for %zu of %zu probes (a probe shows "
			"it when its slowest placement is judged slower than its fastest over the "
			"passes, by more than a %.0f%% margin, each pass on the pair the other passes "
			"chose)\n", nshow, nsel, JUDGE_MARGIN_REL * 100);
	repro_doc_own(rc->doc, "probes_showing_effect", json_integer((json_int_t)nshow));
	free(assess);
	return ret;
}

/* What this machine changes: its CPUs against the post's 8, its line
 * against the placements. */
static void print_changes(struct repro_ctx *rc)
{
	char cpus[300], line[240];
	const char *items[] = { cpus, line };
	unsigned l = rc->t ? topo_line_size(rc->t) : 0;

	snprintf(cpus, sizeof(cpus), "%d allowed CPUs here, 8 in the post (\"x86_64 8p SMP 8G\"), "
		 "where tbench ran 8 processes; the unlock's hand-over below runs 2 threads, so its "
		 "lock line moves between 2 CPUs, not among 8", rc->t ? topo_allowed_count(rc->t) : 0);
	if (l)
		snprintf(line, sizeof(line), "%u-byte cache lines here: the placements +0..+60 %s "
			 "(the post does not give its line size)", l,
			 l >= 64 ? "stay inside one line" : "cross lines");
	else
		snprintf(line, sizeof(line), "line size unknown here: whether the placements +0..+60 "
			 "stay inside one line is not known");
	repro_print_changes(rc, items, ARRAY_SIZE(items));
}

static int repro_align_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "code-alignment-2008";
	size_t npass = config_u64(e, sec, "passes"), nsel, nuse;
	const struct align_probe *sel[ARRAY_SIZE(align_probes)];
	struct place_acc (*acc)[ALIGN_NPLACE] = NULL;
	double share[ALIGN_MAX_PASSES];
	bool use[ALIGN_NPLACE];
	struct repro_patience before = { 0 };
	struct run_opts o;
	void *mem = NULL;
	int ret = align_select(e, sel, &nsel, use, &nuse, npass);

	if (ret < 0)
		return ret;
	runner_default_opts(&o);
	o.cpu_os = rc->cpu_os;
	o.max_seconds = config_double(e, sec, "max_seconds");
	mem = aligned_alloc(4096, ALIGN_MEM_BYTES);
	acc = calloc(nsel, sizeof(*acc));
	if (!mem || !acc) {
		pr_err("code-alignment-2008: cannot allocate %zu placements' samples", nsel * nuse);
		ret = -ENOMEM;
		goto out;
	}
	fprintf(rc->out, "%zu probes, each one loop of 64 ops copied to %zu code placements (offset of "
		"the loop from a 4 KiB page: +0..+60 inside one line, +4072..+4092 across the page "
		"end), the same bytes at each; %zu passes, each in another order\n", nsel, nuse, npass);
	print_changes(rc);
	if (rc->patience)
		before = *rc->patience;
	ret = measure_passes(rc, sel, nsel, use, npass, &o, mem, acc, share);
	if (ret < 0)
		goto out;
	print_shares(rc, "CPU share of each pass, the least of its placements' timings (each timed "
		     "again until clean)", "pass_share", share, npass);
	say_retimed(rc, &before);
	repro_doc_own(rc->doc, "passes", json_integer((json_int_t)npass));
	repro_doc_own(rc->doc, "published_mb_s",
			    repro_doubles_json(tbench_2008, ARRAY_SIZE(tbench_2008)));
	ret = align_report(rc, sel, nsel, use, nuse, npass, share, acc);
	if (!ret)
		ret = unlock_experiment(rc, npass);
out:
	if (acc)
		for (size_t pi = 0; pi < nsel; pi++)
			for (size_t i = 0; i < ALIGN_NPLACE; i++)
				free(acc[pi][i].samples);
	free(acc);
	free(mem);
	return ret;
}

const struct repro repro_code_alignment_2008 = {
	.kind = "code-alignment-2008", .seed = "slub-partial-pages-variance-2008", .run = repro_align_run,
	.source = "Christoph Lameter, linux-mm, Jan 2008, \"Re: SLUB: Increasing partial pages\" "
		  "(~3% variance between kernel builds, blamed on code alignment)",
	REPRO_KEYS(
	{ "code-alignment-2008", "probes", CFG_ENUM_LIST,
	  "add,add-tput,add-loop,orb-loop,lock-orb-loop,chase,orb,lock-orb,btsq,cmpxchgq-tput,"
	  "lock-cmpxchgq-tput",
	  "add|add-tput|add-loop|orb-loop|lock-orb-loop|chase|orb|lock-orb|btsq|cmpxchgq-tput|"
	  "lock-cmpxchgq-tput", 0, 0, NULL,
	  "loops to place: add chain, 4 add chains, the same in a 4-add inner loop, orb / lock orb "
	  "over 64 lines in a 4-op inner loop, L1 pointer chase, orb / lock orb / btsq on one word "
	  "(latency), cmpxchgq / lock cmpxchgq over 8 lines (throughput)" },
	{ "code-alignment-2008", "placements", CFG_ENUM_LIST, "line,page", "line|page", 0, 0, NULL,
	  "line: the loop at +0, +4, .. +60 from a page start; page: at +4072, +4080, +4088, +4092, "
	  "crossing into the next page" },
	{ "code-alignment-2008", "passes", CFG_U64, "5", NULL, 2, 20, NULL,
	  "passes over every placement, and of the unlock experiment; each pass is judged on "
	  "the slowest and fastest placements of the other passes" },
	{ "code-alignment-2008", "max_seconds", CFG_DOUBLE, "0.05", NULL, 0.005, 10, NULL,
	  "time cap per placement and pass, seconds" }),
};
