/* SPDX-License-Identifier: MIT */
/* c2c.c - cache-line round trips between two PUs: the pair plan and the
 * ping-pong engine (c2c.h says what is measured). */
#include "c2c.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "common.h"
#include "runner.h"

#define MAX_SAMPLES 4096
#define SPIN_CHECK 4096		/* spins between deadline checks */
#define DRAIN_ROUNDS 512	/* stores timed after a read miss (load-store) */

struct pingpong {
	struct topo *topo;
	volatile uint64_t *w;	/* the line (flag-ack: a's flag) */
	volatile uint64_t *ack;	/* flag-ack: b's line */
	enum c2c_method m;
	int cpu_b;
	uint64_t deadline_ns;	/* both sides give up past it */
	int go, stop;		/* atomics */
	int err_b;
};

/* The line a side reads and the one it writes: the same one, but in
 * flag-ack (c2clat's default) a writes the flag and reads the ack, b the
 * other way round. */
static inline volatile uint64_t *line_rd(struct pingpong *pp, bool b)
{
	return pp->m == C2C_FLAGACK && !b ? pp->ack : pp->w;
}

static inline volatile uint64_t *line_wr(struct pingpong *pp, bool b)
{
	return pp->m == C2C_FLAGACK && b ? pp->ack : pp->w;
}

/* Wait until the line holds `want`, then write `next` (one side's turn;
 * b: the responder's). false when the deadline passed (the other side
 * stopped running). */
static inline bool take_turn(struct pingpong *pp, uint64_t want, uint64_t next, bool b)
{
	unsigned spins = 0;

	if (pp->m == C2C_CMPXCHG) {
		while (arch_cmpxchg(pp->w, want, next) != want)
			if (++spins % SPIN_CHECK == 0 &&
			    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
				return false;
	} else {
		while (arch_load(line_rd(pp, b)) != want)
			if (++spins % SPIN_CHECK == 0 &&
			    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
				return false;
		arch_store(line_wr(pp, b), next);
	}
	return true;
}

/* Wait for `want` without changing the value. */
static inline bool wait_for(struct pingpong *pp, uint64_t want)
{
	unsigned spins = 0;

	while ((pp->m == C2C_CMPXCHG ? arch_cmpxchg(pp->w, want, want) : arch_load(line_rd(pp, false))) !=
	       want)
		if (++spins % SPIN_CHECK == 0 &&
		    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
			return false;
	return true;
}

/* b: waits for odd values, answers with the next even one. */
static void *responder(void *arg)
{
	struct pingpong *pp = arg;
	uint64_t v = 1;

	pp->err_b = topo_bind_thread(pp->topo, pp->cpu_b);
	__atomic_store_n(&pp->go, pp->err_b ? -1 : 1, __ATOMIC_RELEASE);
	if (pp->err_b)
		return NULL;
	while (!__atomic_load_n(&pp->stop, __ATOMIC_ACQUIRE)) {
		if (!take_turn(pp, v, v + 1, true))
			break;
		v += 2;
	}
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median_of(double *d, size_t n)
{
	qsort(d, n, sizeof(*d), cmp_double);
	return n ? d[n / 2] : 0;
}

/* load-store, after the timed samples (the line holds v, a's turn): a's
 * store and a full fence timed right after each read miss, then the same
 * on a line of a's own. A read miss that took the line exclusive leaves a
 * store that costs what a local one does; a shared line makes the store
 * wait for the other PU's copy to be invalidated. */
static void store_after_read(struct pingpong *pp, uint64_t v, struct c2c_row *row)
{
	uint64_t own[8] __attribute__((aligned(64))) = { 0 };
	double d[DRAIN_ROUNDS];
	size_t n = 0;

	for (; n < DRAIN_ROUNDS; n++, v += 2) {
		uint64_t t0, t1;

		if (!wait_for(pp, v))
			return;
		t0 = arch_timer_start();
		arch_store(pp->w, v + 1);
		arch_mb();
		t1 = arch_timer_stop();
		d[n] = (double)(t1 - t0);
	}
	row->store_after_read = median_of(d, n);
	for (n = 0; n < DRAIN_ROUNDS; n++) {
		uint64_t t0 = arch_timer_start(), t1;

		arch_store(own, n);
		arch_mb();
		t1 = arch_timer_stop();
		d[n] = (double)(t1 - t0);
	}
	row->store_local = median_of(d, n);
}

/* One pair, one method; the calling thread must already be pinned to a.
 * 0, -EINTR when stopped (row holds what was measured), or -errno. */
static __attribute__((noinline)) int measure_pair(struct topo *t, int a, int b, enum c2c_method m,
						  double seconds, struct c2c_row *row)
{
	struct pingpong pp = { .topo = t, .m = m, .cpu_b = b };
	double *samples = malloc(MAX_SAMPLES * sizeof(double));
	uint64_t *line = aligned_alloc(128, 256);	/* flag-ack's 2nd line 128 bytes on */
	pthread_t tid;
	uint64_t v = 0, end;
	size_t n = 0;
	int err = -ENOMEM;

	if (!samples || !line)
		goto out;
	memset(line, 0, 256);
	pp.w = line;
	pp.ack = line + 16;
	pp.deadline_ns = now_ns() + (uint64_t)(seconds * 1e9) + 2000000000ull;
	if (pthread_create(&tid, NULL, responder, &pp)) {
		pr_err("c2c: cannot start the thread for CPU %d", b);
		err = -EAGAIN;
		goto out;
	}
	while (!__atomic_load_n(&pp.go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	if (pp.go < 0) {
		pthread_join(tid, NULL);
		err = pp.err_b;
		goto out;
	}
	/* warm-up: a few hundred round trips */
	for (int i = 0; i < 256 && !row->timed_out; i++, v += 2)
		row->timed_out = !take_turn(&pp, v, v + 1, false);
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (!row->timed_out && n < MAX_SAMPLES && now_ns() < end && !runner_stop) {
		uint64_t t0 = arch_timer_start(), t1;

		for (int i = 0; i < C2C_ROUNDS; i++, v += 2)
			if (!take_turn(&pp, v, v + 1, false)) {
				row->timed_out = true;
				break;
			}
		/* the last round trip ends when b's answer arrives: wait for it
		 * without a store (cmpxchg v -> v, or a load), so the next
		 * sample starts with the line here */
		if (!row->timed_out && !wait_for(&pp, v))
			row->timed_out = true;
		t1 = arch_timer_stop();
		if (!row->timed_out)
			samples[n++] = (double)(t1 - t0) / C2C_ROUNDS;
	}
	if (m == C2C_LOADSTORE && !row->timed_out && !runner_stop)
		store_after_read(&pp, v, row);
	__atomic_store_n(&pp.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	row->a = a;
	row->b = b;
	row->m = m;
	row->n = n;
	if (n)
		stats_summarize(samples, n, &row->s);
	err = runner_stop ? -EINTR : 0;
out:
	free(samples);
	free(line);
	return err;
}

int c2c_plan(const struct topo *t, bool all, struct c2c_pair **pairs, size_t *npairs,
	     bool absent[PAIR__COUNT])
{
	int npu = topo_allowed_count(t);
	size_t cap = all ? (size_t)npu * (size_t)(npu > 1 ? npu - 1 : 0) / 2 : PAIR__COUNT, n = 0;
	struct c2c_pair *p = calloc(cap ? cap : 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (int c = 0; c < PAIR__COUNT; c++) {
		int a, b;

		absent[c] = topo_find_pair(t, (enum pair_class)c, &a, &b) == -ENOENT;
		if (!all && !absent[c])
			p[n++] = (struct c2c_pair){ .cls = (enum pair_class)c, .a = a, .b = b };
	}
	for (int i = 0; all && i < npu; i++)
		for (int k = i + 1; k < npu; k++) {
			int a = topo_allowed_os(t, i), b = topo_allowed_os(t, k);

			p[n++] = (struct c2c_pair){ .cls = topo_classify(t, a, b), .a = a, .b = b };
		}
	*pairs = p;
	*npairs = n;
	return 0;
}

int c2c_run(struct topo *t, const struct c2c_pair *pairs, size_t npairs, unsigned mmask,
	    double seconds, bool progress, struct c2c_row *rows, size_t *nrows)
{
	int err = 0;

	*nrows = 0;
	for (size_t k = 0; k < npairs && !err; k++) {
		if ((err = topo_bind_thread(t, pairs[k].a)))
			break;
		for (int m = 0; m < C2C__COUNT && !err; m++) {
			struct c2c_row *r = &rows[*nrows];

			if (!(mmask & (1u << m)))
				continue;
			if (progress)
				fprintf(stderr, "\r\033[Kc2c %d,%d %s", pairs[k].a, pairs[k].b, c2c_method_name((enum c2c_method)m));
			*r = (struct c2c_row){ .cls = pairs[k].cls };
			err = measure_pair(t, pairs[k].a, pairs[k].b, (enum c2c_method)m,
					   seconds, r);
			if (!err || err == -EINTR)
				(*nrows)++;
		}
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	return err;
}

int c2c_section_of(const struct topo *t, const struct calibration *cal, const struct c2c_row *rows,
		   size_t nrows, const bool *absent, unsigned mmask, bool all, struct c2c_out *o)
{
	int n = topo_allowed_count(t);
	int *cpus = calloc((size_t)n, sizeof(int));
	char summary[256];
	struct c2c_where w = { .cpus = cpus, .ncpus = n, .summary = summary };
	int ret;

	if (!cpus)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		cpus[i] = topo_allowed_os(t, i);
	topo_summary(t, summary, sizeof(summary));
	ret = c2c_out_fill(o, cal, &w, rows, nrows, absent, mmask, all);
	free(cpus);
	return ret;
}
