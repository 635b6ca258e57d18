/* SPDX-License-Identifier: MIT */
/* contention.c - N pinned threads on one cache line (see contention.h).
 *
 * Method:
 * - Threads are placed by topo_plan() (pair classes from hwloc, spread, or
 *   an explicit list); a class the machine lacks is an error, never a
 *   silent substitute.
 * - Each thread binds, warms its kernel, then waits at a spinning barrier;
 *   the last to arrive sets a common deadline on the (invariant, shared)
 *   timer and releases everyone, so no unpinned main thread has to be
 *   scheduled to start or stop the run.
 * - A thread runs the latency kernel in chunks of CHUNK_ITERS iterations
 *   (CHUNK_ITERS * 64 ops), timing each chunk; the chunk's ticks/op are its
 *   samples (the timer pair, ~50 ticks, is under 0.1 tick per op at 1024
 *   ops, and is not subtracted). It stops at the first chunk end past the
 *   deadline.
 * - Per thread: op count, first/last timer reading, CLOCK_THREAD_CPUTIME_ID
 *   and wall time. Fairness is stddev/mean of the op counts; overlap is
 *   |intersection| / |union| of the run intervals; cpu/wall below 1 means
 *   the thread was not running all the time (another task, or the
 *   hypervisor did not run its vCPU): a run is flagged when the threads did
 *   not really run at the same time.
 */
#include "contention.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/arch.h"
#include "common.h"
#include "locks.h"
#include "stats.h"

#define CHUNK_ITERS 16
#define SAMPLE_CAP 8192		/* per thread; decimated by 2 when full */
#define WARM_CALLS 64
#define MAX_THREADS 1024
/* the hand-over pass after a lock's true-sharing case: this share of the
 * case's duration, however many acquisitions (a cap on them would let a
 * thread that runs alone for a time slice end the pass before the other
 * ran at all) */
#define HANDOVER_ITERS (1ull << 40)
#define HANDOVER_SHARE_OF_RUN 0.25

double contention_fairness(const uint64_t *ops, unsigned n)
{
	double mean = 0, var = 0;

	if (n < 2)
		return 0;
	for (unsigned i = 0; i < n; i++)
		mean += (double)ops[i];
	mean /= n;
	if (mean <= 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		var += ((double)ops[i] - mean) * ((double)ops[i] - mean);
	return sqrt(var / n) / mean;
}

double contention_overlap(const uint64_t *start, const uint64_t *end, unsigned n)
{
	uint64_t lo = UINT64_MAX, hi = 0, ilo = 0, ihi = UINT64_MAX;

	if (n == 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		lo = start[i] < lo ? start[i] : lo;
		hi = end[i] > hi ? end[i] : hi;
		ilo = start[i] > ilo ? start[i] : ilo;
		ihi = end[i] < ihi ? end[i] : ihi;
	}
	if (hi <= lo)
		return n == 1 ? 1 : 0;
	if (ihi <= ilo)
		return 0;
	return (double)(ihi - ilo) / (double)(hi - lo);
}

int contention_parse_sweep(const char *what, const char *s, uint64_t max, bool zero_ok,
			   struct run_sweep *out)
{
	const char *p = s;

	out->n = 0;
	while (*p) {
		char *end;
		unsigned long long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoull(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoull(end + 1, &end, 10);
		}
		if (*end && *end != ',')
			goto bad;
		if (b < a || (!a && !zero_ok) || b > max) {
			pr_err("%s: '%s': %llu%s%.0llu is out of range (each value %d..%llu, ranges "
			       "ascending)", what, s, a, a == b ? "" : "-", a == b ? 0 : b,
			       zero_ok ? 0 : 1, (unsigned long long)max);
			return -EINVAL;
		}
		for (unsigned long long v = a; v <= b; v++) {
			if (out->n && v <= out->v[out->n - 1]) {
				pr_err("%s: '%s': %llu is not above %llu (list the values ascending, "
				       "once each)", what, s, v, (unsigned long long)out->v[out->n - 1]);
				return -EINVAL;
			}
			if (out->n == ARRAY_SIZE(out->v)) {
				pr_err("%s: '%s': more than %zu values (sweep fewer points)", what, s,
				       ARRAY_SIZE(out->v));
				return -EINVAL;
			}
			out->v[out->n++] = v;
		}
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			goto bad;
	}
	if (out->n)
		return 0;
bad:
	pr_err("%s: '%s' is not a list of numbers (expected N, A,B,C or A-B, e.g. 1,2,4 or 1-4)",
	       what, s);
	return -EINVAL;
}

static size_t pow2_at_least(size_t v)
{
	size_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

long contention_slot_offset(enum sharing s, unsigned i, unsigned nthreads, size_t word,
			    size_t line, size_t region)
{
	size_t w = pow2_at_least(word ? word : 8);

	switch (s) {
	case SHARING_TRUE:
		return 0;
	case SHARING_FALSE:
		if (w * nthreads > line)
			return -EINVAL;
		return (long)(i * w);
	case SHARING_NONE:
		return (long)(i * region);
	default:
		return -EINVAL;
	}
}

int contention_plan(const struct topo *t, const char *placement, unsigned nthreads,
		    int *os_out)
{
	int err = topo_plan(t, placement ? placement : "spread", (int)nthreads, os_out);

	/* topo_plan said which class is absent; here that is "unsupported
	 * here" (exit 4), not a missing file. */
	return err == -ENOENT ? -ENOTSUP : err;
}

/* ---- the run ------------------------------------------------------------ */

struct cshared {
	struct topo *topo;
	unsigned nthreads;
	unsigned arrived;	/* barrier, atomic */
	int go;			/* atomic */
	uint64_t deadline;	/* timer ticks */
	uint64_t duration_ticks;
};

struct cthread {
	struct cshared *sh;
	pthread_t tid;
	int cpu_os, cpu_logical;
	probe_kernel_fn fn;
	struct probe_ctx ctx;
	/* results */
	int err;
	bool migrated;
	uint64_t ops, t_start, t_end;
	double cpu_s, wall_s;
	double *samples;
	size_t nsamples;
};

static void barrier_wait(struct cshared *sh)
{
	if (__atomic_add_fetch(&sh->arrived, 1, __ATOMIC_ACQ_REL) == sh->nthreads) {
		sh->deadline = arch_timer_start() + sh->duration_ticks;
		__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

static void *cworker(void *arg)
{
	struct cthread *th = arg;
	struct cshared *sh = th->sh;
	size_t stride = 1, chunk = 0;
	uint64_t a, b = 0;
	double c0, w0;

	th->err = topo_bind_thread(sh->topo, th->cpu_os);
	th->samples = malloc(SAMPLE_CAP * sizeof(double));
	if (!th->samples && !th->err)
		th->err = -ENOMEM;
	if (!th->err)
		for (int i = 0; i < WARM_CALLS; i++)
			th->fn(&th->ctx, 1);
	barrier_wait(sh);	/* always arrive: the others wait for everyone */
	if (th->err)
		return NULL;

	c0 = thread_cpu_ns() / 1e9;
	w0 = now_ns() / 1e9;
	th->t_start = arch_timer_start();
	do {
		a = arch_timer_start();
		th->fn(&th->ctx, CHUNK_ITERS);
		b = arch_timer_stop();
		th->ops += CHUNK_ITERS * UNROLL;
		if (chunk++ % stride == 0) {
			if (th->nsamples == SAMPLE_CAP) {
				for (size_t i = 0; i < SAMPLE_CAP / 2; i++)
					th->samples[i] = th->samples[2 * i];
				th->nsamples = SAMPLE_CAP / 2;
				stride *= 2;
			}
			th->samples[th->nsamples++] = (double)(b - a) / (CHUNK_ITERS * UNROLL);
		}
	} while (b < sh->deadline && !runner_stop);
	th->t_end = b;
	th->wall_s = now_ns() / 1e9 - w0;
	th->cpu_s = thread_cpu_ns() / 1e9 - c0;
	th->migrated = sched_getcpu() != th->cpu_os;
	return NULL;
}

/* The case's figures (c->per allocated here; -ENOMEM). */
static int case_figures(const struct report *rep, const struct cthread *th, unsigned n,
			   const struct run_opts *o, enum sharing s, size_t word_offset_step,
			   struct contention_part *c)
{
	uint64_t ops[MAX_THREADS], st[MAX_THREADS], en[MAX_THREADS], total = 0, lo = UINT64_MAX, hi = 0;
	double cpu_wall_min = INFINITY, per_thread_mean = 0, agg;
	struct contention_thread *per = calloc(n, sizeof(*per));

	if (!per)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		double tpo = th[i].ops ? (double)(th[i].t_end - th[i].t_start) / th[i].ops : 0;
		double cw = th[i].wall_s > 0 ? th[i].cpu_s / th[i].wall_s : 0;

		ops[i] = th[i].ops;
		st[i] = th[i].t_start;
		en[i] = th[i].t_end;
		total += th[i].ops;
		lo = st[i] < lo ? st[i] : lo;
		hi = en[i] > hi ? en[i] : hi;
		per_thread_mean += tpo / n;
		cpu_wall_min = fmin(cpu_wall_min, cw);
		per[i] = (struct contention_thread){
			.has = ~0u, .cpu_os = th[i].cpu_os, .cpu_logical = th[i].cpu_logical,
			.ops = (long long)th[i].ops, .ticks_per_op = tpo, .ns_per_op = result_ns(rep, tpo),
			.cpu_s = th[i].cpu_s, .cpu_wall = cw, .start_tick = (long long)th[i].t_start,
			.end_tick = (long long)th[i].t_end, .migrated = th[i].migrated,
		};
	}
	agg = total ? (double)(hi - lo) / total : 0;
	*c = (struct contention_part){
		.has = ~0u, .threads = (int)n, .duration_s = o->max_seconds, .stopping = "fixed duration, start barrier",
		.slot_stride_bytes = (long long)word_offset_step, .cs_work = (long long)o->cs_work,
		.outside_work = (long long)o->out_work, .total_ops = (long long)total,
		.thread_ticks_per_op = per_thread_mean, .thread_ns_per_op = result_ns(rep, per_thread_mean),
		.aggregate_ticks_per_op = agg, .aggregate_ns_per_op = result_ns(rep, agg),
		.fairness_cv = contention_fairness(ops, n), .overlap = contention_overlap(st, en, n),
		.cpu_wall_min = cpu_wall_min, .per = per, .nper = n,
	};
	c->has &= ~CP_HANDOVER_BITS;	/* a lock's hand-over pass sets them */
	c->overlapped = c->overlap >= CONTENTION_OVERLAP_MIN && cpu_wall_min >= CONTENTION_CPU_WALL_MIN;
	snprintf(c->placement, sizeof(c->placement), "%s", o->placement ? o->placement : "spread");
	snprintf(c->sharing, sizeof(c->sharing), "%s", contention_sharing_name(s));
	return 0;
}

/* Why p has no contention form, or NULL. */
static const char *no_contention_form(const struct probe *p)
{
	if (!p->run[MODE_LATENCY])
		return "it has no latency kernel";
	if (p->setup && !p->word_size)
		return "its setup prepares more than one word, which threads cannot share";
	return NULL;
}

/* Start the n workers, let them run, join them: 0, -EAGAIN (a thread did
 * not start) or a worker's error. */
static int run_threads(struct cshared *sh, struct cthread *th, unsigned n, const struct probe *p)
{
	unsigned started = 0;

	for (; started < n; started++)
		if (pthread_create(&th[started].tid, NULL, cworker, &th[started]))
			break;
	if (started < n) {
		/* release the threads already waiting at the barrier */
		sh->nthreads = started;
		__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	if (started < n) {
		pr_err("run %s: cannot start thread %u of %u", p->name, started + 1, n);
		return -EAGAIN;
	}
	for (unsigned i = 0; i < n; i++)
		if (th[i].err)
			return th[i].err;	/* topo_bind_thread printed why */
	return 0;
}

/* The case's row: every thread's samples, and its contention details
 * (slot: the byte step between two threads' words). */
static int add_row(struct topo *t, const struct run_opts *o, const struct probe *p, enum sharing s,
		   const int *os, const struct cthread *th, unsigned n, size_t slot, struct report *rep)
{
	struct result *r = report_add(rep);
	size_t nsamples = 0;

	if (!r)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		nsamples += th[i].nsamples;
	runner_fill_identity(r, p, MODE_LATENCY);
	snprintf(r->pattern, sizeof(r->pattern), "%s", contention_sharing_pattern(s));
	r->cpu_os = os[0];
	r->cpu_logical = topo_logical_of_os(t, os[0]);
	r->iters = CHUNK_ITERS;
	r->ops_per_sample = CHUNK_ITERS * UNROLL;
	r->samples = malloc((nsamples ? nsamples : 1) * sizeof(double));
	if (!r->samples || case_figures(rep, th, n, o, s, slot, &r->extra.contention) < 0) {
		result_release(r);
		rep->n--;
		return -ENOMEM;
	}
	r->extra.has |= 1u << RX_CONTENTION;
	for (unsigned i = 0; i < n; i++) {
		memcpy(r->samples + r->nsamples, th[i].samples, th[i].nsamples * sizeof(double));
		r->nsamples += th[i].nsamples;
		r->migrated |= th[i].migrated;
	}
	if (r->nsamples)
		stats_summarize(r->samples, r->nsamples, &r->s);
	return 0;
}

/* A lock shared by all threads: who held it before each acquisition and
 * who waited, measured in an instrumented pass on the same CPUs right
 * after the timed one (its kernels stay as timed), into row c. */
static int handover_pass(const struct run_opts *o, const struct probe *p, const int *os, unsigned n,
			 struct contention_part *c)
{
	struct locks_handover h;
	int err;

	if (!locks_excludes(p->name))
		return 0;
	err = locks_handover_run(p->name, n, os, HANDOVER_ITERS,
				 fmax(o->max_seconds * HANDOVER_SHARE_OF_RUN, 0.01), &h);
	if (err == -ENOTSUP)
		return 0;
	if (err)
		return err;
	c->handover_acquisitions = (long long)h.acquisitions;
	c->handover_share = h.share;
	c->has |= 1u << CP_HANDOVER_ACQ | 1u << CP_HANDOVER_SHARE;
	if (h.queued) {
		c->queue_depth = h.depth;
		c->has |= 1u << CP_QUEUE_DEPTH;
	}
	return 0;
}

/* One probe in one sharing case: n threads, one result. */
static int run_case(struct topo *t, const struct run_opts *o, const struct probe *p,
		    enum sharing s, const int *os, unsigned n, struct report *rep)
{
	size_t line = topo_line_size(t) ? topo_line_size(t) : CACHELINE;
	size_t mem = p->mem_size ? p->mem_size : 4096, region, total;
	size_t word = p->word_size ? p->word_size : 8;
	struct cshared sh = { .topo = t, .nthreads = n };
	struct cthread *th = NULL;
	char *area = NULL;
	int err = 0;

	if (contention_slot_offset(s, n - 1, n, word, line, 4096) < 0) {
		pr_warn("run %s: false sharing skipped: %u threads x %zu-byte words do not fit "
			"one %zu-byte line (use fewer threads)", p->name, n, pow2_at_least(word), line);
		return 0;
	}
	/* A private region per thread is page aligned, one page apart beyond
	 * its size, so that the adjacent-line prefetcher cannot couple them. */
	region = ((mem + 4095) & ~(size_t)4095) + 4096;
	total = (s == SHARING_NONE ? n : 1) * region + 4096;
	area = aligned_alloc(4096, total);
	th = calloc(n, sizeof(*th));
	if (!area || !th) {
		pr_err("run %s: cannot allocate %zu bytes for %u threads", p->name, total, n);
		err = -ENOMEM;
		goto out;
	}
	memset(area, 0, total);
	sh.duration_ticks = (uint64_t)(o->max_seconds * rep->cal.timer_hz);

	for (unsigned i = 0; i < n; i++)
		th[i] = (struct cthread){
			.sh = &sh, .cpu_os = os[i], .cpu_logical = topo_logical_of_os(t, os[i]),
			.fn = p->run[MODE_LATENCY],
			.ctx = { .mem = area + contention_slot_offset(s, i, n, word, line, region),
				 .mem_size = mem, .mode = MODE_LATENCY, .cs_work = o->cs_work,
				 .out_work = o->out_work },
		};
	/* setup once per distinct slot (all threads share one in true sharing) */
	for (unsigned i = 0; i < (s == SHARING_TRUE ? 1 : n) && p->setup; i++) {
		err = p->setup(&th[i].ctx);
		if (err < 0) {
			pr_err("run %s: setup failed (%d)", p->name, err);
			goto out;
		}
	}
	err = run_threads(&sh, th, n, p);
	if (!err)
		err = add_row(t, o, p, s, os, th, n,
			      (size_t)contention_slot_offset(s, n > 1, n, word, line, region), rep);
	if (!err && s == SHARING_TRUE && !runner_stop)
		err = handover_pass(o, p, os, n, &rep->r[rep->n - 1].extra.contention);
out:
	if (th)
		for (unsigned i = 0; i < n; i++)
			free(th[i].samples);
	free(th);
	free(area);
	return err;
}

/* The values of a sweep, or the one value when none was given. */
static unsigned sweep_values(const struct run_sweep *w, uint64_t one, uint64_t *v)
{
	if (!w->n) {
		v[0] = one;
		return 1;
	}
	memcpy(v, w->v, w->n * sizeof(*v));
	return w->n;
}

/* One point of a sweep, all probes and sharing cases: 0 or -errno. */
static int run_point(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		     size_t n, const char *suffix, unsigned mask, uint64_t t0, struct report *rep)
{
	unsigned nthreads = o->threads;
	int *os = calloc(nthreads, sizeof(int));
	int err;

	if (!os)
		return -ENOMEM;
	err = contention_plan(t, o->placement, nthreads, os);
	for (size_t i = 0; i < n && !err && !runner_stop; i++) {
		const char *why = no_contention_form(list[i]);

		if (why) {
			if (!*suffix || o->threads == o->threads_sweep.v[0])	/* once */
				pr_warn("run %s: no contention form: %s; skipped", list[i]->name, why);
			continue;
		}
		for (int s = 0; s < SHARING__COUNT && !err && !runner_stop; s++) {
			size_t first = rep->n;

			if (!(mask & (1u << s)))
				continue;
			if (runner_out_of_time(o, rep, t0))
				break;
			if (o->progress)
				fprintf(stderr, "\r\033[K%s, %u threads, sharing %s", list[i]->name,
					nthreads, contention_sharing_name((enum sharing)s));
			err = run_case(t, o, list[i], (enum sharing)s, os, nthreads, rep);
			/* a sweep's points pair their twins point by point */
			for (size_t k = first; k < rep->n && *suffix; k++) {
				size_t l = strlen(rep->r[k].pattern);

				snprintf(rep->r[k].pattern + l, sizeof(rep->r[k].pattern) - l, "%s", suffix);
			}
		}
	}
	free(os);
	return err;
}

int contention_run(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		   size_t n, struct report *rep)
{
	uint64_t tv[16], cv[16], ov[16];
	unsigned nt = sweep_values(&o->threads_sweep, o->threads ? o->threads : 2, tv);
	unsigned nc = sweep_values(&o->cs_sweep, o->cs_work, cv);
	unsigned no = sweep_values(&o->out_sweep, o->out_work, ov);
	uint64_t t0 = now_ns();
	unsigned mask;
	int first_os, err;

	if (tv[nt - 1] > MAX_THREADS) {
		pr_err("--threads: %llu threads (at most %d)", (unsigned long long)tv[nt - 1], MAX_THREADS);
		return -EINVAL;
	}
	err = contention_parse_sharing(o->sharing, &mask);
	if (err)
		return err;
	/* calibrate once, on the first PU of the largest plan */
	{
		int *os = calloc(tv[nt - 1], sizeof(int));

		if (!os)
			return -ENOMEM;
		err = contention_plan(t, o->placement, (unsigned)tv[nt - 1], os);
		first_os = os[0];
		free(os);
	}
	if (!err)
		err = topo_bind_thread(t, first_os);
	if (!err)
		err = clock_calibrate(&rep->cal, first_os);
	if (err)
		return err;

	for (unsigned ci = 0; ci < nc && !err && !runner_stop; ci++)
		for (unsigned oi = 0; oi < no && !err && !runner_stop; oi++)
			for (unsigned ti = 0; ti < nt && !err && !runner_stop; ti++) {
				struct run_opts po = *o;
				char suffix[48] = "";
				size_t l;

				po.threads = (unsigned)tv[ti];
				po.cs_work = cv[ci];
				po.out_work = ov[oi];
				if (nt > 1)
					snprintf(suffix, sizeof(suffix), "@%ut", po.threads);
				l = strlen(suffix);
				if (nc > 1)
					l += (size_t)snprintf(suffix + l, sizeof(suffix) - l, "%scs%llu",
							      l ? "," : "@", (unsigned long long)po.cs_work);
				if (no > 1)
					snprintf(suffix + l, sizeof(suffix) - l, "%sout%llu", l ? "," : "@",
						 (unsigned long long)po.out_work);
				if (runner_out_of_time(o, rep, t0))
					goto done;
				err = run_point(t, &po, list, n, suffix, mask, t0, rep);
			}
	if (err == -EINTR || runner_stop) {
		err = -EINTR;
		rep->partial = true;
		snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
	}
done:
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	rep->wall_s = (now_ns() - t0) / 1e9;
	report_pair_twins(rep);
	return err;
}
