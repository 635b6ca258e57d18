/* SPDX-License-Identifier: MIT */
/* repro/slab-concurrent.c - the 2016 concurrent slab scoring and its model of
 * the SLAB allocator the patch changed (docs/reproductions.md, section 4):
 * N pinned threads each do N*alloc then N*free; the figure is the average
 * cycles per alloc / per free, each thread's own phases only (struct
 * conc_stamps). The variants differ in cache_alloc_refill alone (refill()).
 */
#include "repro/slab-concurrent.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "common.h"
#include "repro/repro.h"

#define MAX_THREADS 256
#define PAGE 4096

enum { L_FREE, L_PARTIAL, L_FULL, L__N };

struct aslab {
	void *freelist;		/* objects linked through their first word */
	uint32_t inuse;
	int32_t prev, next;	/* on list `list` */
	int32_t list;		/* L_*, -1: on none */
};

struct array_cache {
	unsigned avail, limit, batch;
	struct aslab_stats st;		/* the owning thread's counts (unused in shared) */
	void *entry[];
};

struct aslab_cache {
	size_t size;		/* slabs are PAGE bytes, PAGE aligned */
	unsigned objs;
	enum aslab_variant variant;
	char *map;		/* the arena: max_slabs slabs */
	size_t map_size, max_slabs;
	uint64_t nslabs;		/* grown so far (atomic) */
	struct aslab *slabs;
	/* the node: everything below is under lock */
	uint64_t lock __attribute__((aligned(64)));
	int32_t head[L__N];
	uint64_t free_objects;		/* read without the lock by the lockless check */
	struct array_cache *shared;
	unsigned nthreads;
	struct array_cache *ac[MAX_THREADS];
};

/* The counts are the caller's own, bumped while it holds the lock: no
 * atomic, no line another thread writes. Contended: the first try failed;
 * only then is the wait timed (two fenced timer reads, on a path that
 * spins anyway), so the uncontended acquisition costs what it did. */
static void node_lock(struct aslab_cache *c, struct aslab_stats *st)
{
	uint64_t t0;

	if (__builtin_expect(arch_cmpxchg(&c->lock, 0, 1) == 0, 1)) {
		st->locks++;
		return;
	}
	t0 = arch_timer_start();
	do {
		while (arch_load(&c->lock))
			arch_cpu_relax();
	} while (arch_cmpxchg(&c->lock, 0, 1) != 0);
	st->wait_ticks += arch_timer_stop() - t0;
	st->locks++;
	st->contended++;
}

static void node_unlock(struct aslab_cache *c)
{
	arch_smp_store_release(&c->lock, 0);
}

static struct array_cache *ac_new(unsigned limit, unsigned batch)
{
	struct array_cache *a = aligned_alloc(64, (sizeof(*a) + limit * sizeof(void *) + 63) & ~63ul);

	if (a)
		*a = (struct array_cache){ .limit = limit, .batch = batch };
	return a;
}

int aslab_create(struct aslab_cache **out, size_t size, unsigned nthreads, size_t max_objects,
		 enum aslab_variant v)
{
	struct aslab_cache *c;
	unsigned limit;

	*out = NULL;
	if (size < 8 || size % 8 || size > PAGE || !nthreads || nthreads > MAX_THREADS) {
		pr_err("slab-concurrent: size %zu / %u threads out of range (expected a multiple of 8 "
		       "up to %d, 1..%d threads)", size, nthreads, PAGE, MAX_THREADS);
		return -EINVAL;
	}
	c = aligned_alloc(64, (sizeof(*c) + 63) & ~63ul);
	if (!c)
		return -ENOMEM;
	*c = (struct aslab_cache){ .size = size, .objs = (unsigned)(PAGE / size), .variant = v,
				   .nthreads = nthreads };
	/* enable_cpucache(): limit by size, batchcount half of it, shared 8x */
	limit = size > 1024 ? 24 : size > 256 ? 54 : 120;
	/* room for every object held anywhere: threads' arrays, shared, slack */
	max_objects += (size_t)nthreads * limit + 8 * limit;
	c->max_slabs = (max_objects + c->objs - 1) / c->objs + (size_t)nthreads + 8;
	c->map_size = c->max_slabs * PAGE;	/* mmap: PAGE aligned */
	c->map = mmap(NULL, c->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		free(c);
		return -ENOMEM;
	}
	/* fault the arena in up front: page faults are not what is measured */
	memset(c->map, 0, c->map_size);
	c->slabs = calloc(c->max_slabs, sizeof(*c->slabs));
	c->shared = ac_new(8 * ((limit + 1) / 2), (limit + 1) / 2);
	for (int l = 0; l < L__N; l++)
		c->head[l] = -1;
	for (unsigned i = 0; i < nthreads; i++)
		c->ac[i] = ac_new(limit, (limit + 1) / 2);
	for (unsigned i = 0; i < nthreads; i++)
		if (!c->ac[i] || !c->slabs || !c->shared) {
			aslab_destroy(c);
			return -ENOMEM;
		}
	*out = c;
	return 0;
}

void aslab_destroy(struct aslab_cache *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nthreads; i++)
		free(c->ac[i]);
	free(c->shared);
	free(c->slabs);
	munmap(c->map, c->map_size);
	free(c);
}

/* ---- slab lists (under the lock) ---- */

static void list_del(struct aslab_cache *c, int32_t i)
{
	struct aslab *s = &c->slabs[i];

	if (s->prev >= 0)
		c->slabs[s->prev].next = s->next;
	else
		c->head[s->list] = s->next;
	if (s->next >= 0)
		c->slabs[s->next].prev = s->prev;
	s->list = -1;
}

static void list_add(struct aslab_cache *c, int32_t i, int l)
{
	struct aslab *s = &c->slabs[i];

	s->prev = -1;
	s->next = c->head[l];
	if (s->next >= 0)
		c->slabs[s->next].prev = i;
	c->head[l] = i;
	s->list = l;
}

static void slab_relist(struct aslab_cache *c, int32_t i)
{
	struct aslab *s = &c->slabs[i];
	int l = s->inuse == 0 ? L_FREE : s->inuse == c->objs ? L_FULL : L_PARTIAL;

	if (s->list != l) {
		if (s->list >= 0)
			list_del(c, i);
		list_add(c, i, l);
	}
}

/* A new slab (cache_grow): carved from the arena, objects linked with
 * plain stores. Not on any list yet. -1 when the arena is exhausted. */
static int32_t grow(struct aslab_cache *c)
{
	uint64_t i = __atomic_fetch_add(&c->nslabs, 1, __ATOMIC_RELAXED);
	char *base;
	struct aslab *s;

	if (i >= c->max_slabs)
		return -1;
	base = c->map + i * PAGE;
	s = &c->slabs[i];
	for (unsigned k = 0; k < c->objs; k++)
		*(void **)(base + k * c->size) = k + 1 < c->objs ? base + (k + 1) * c->size : NULL;
	s->freelist = base;
	s->inuse = 0;
	s->list = -1;
	return (int32_t)i;
}

static unsigned take_from_slab(struct aslab_cache *c, int32_t i, struct array_cache *ac, unsigned want)
{
	struct aslab *s = &c->slabs[i];
	unsigned n = 0;

	while (n < want && s->freelist) {
		void *o = s->freelist;

		s->freelist = *(void **)o;
		ac->entry[ac->avail++] = o;
		s->inuse++;
		n++;
	}
	return n;
}

/* cache_alloc_refill of v4.7-rc1, before and after the seed's patch
 * (docs/reproductions.md, section 4). Before: the node lock first; finding
 * nothing, a new slab fills the array cache without it (cache_grow_begin,
 * alloc_block) and is attached under it (cache_grow_end): two acquisitions
 * per grow. After: no free object and an empty shared array, read without
 * the lock, go straight to the grow: one. */
static __attribute__((noinline)) void *refill(struct aslab_cache *c, struct array_cache *ac)
{
	unsigned want = ac->batch, n;
	int32_t i;

	ac->st.refills++;
	if (c->variant == ASLAB_LOCKLESS && !__atomic_load_n(&c->free_objects, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&c->shared->avail, __ATOMIC_RELAXED))
		goto direct_grow;
	node_lock(c, &ac->st);
	if (c->shared->avail) {
		n = c->shared->avail < want ? c->shared->avail : want;
		c->shared->avail -= n;
		memcpy(ac->entry + ac->avail, c->shared->entry + c->shared->avail, n * sizeof(void *));
		ac->avail += n;
		node_unlock(c);
		return ac->entry[--ac->avail];
	}
	while (want) {
		i = c->head[L_PARTIAL] >= 0 ? c->head[L_PARTIAL] : c->head[L_FREE];
		if (i < 0)
			break;
		n = take_from_slab(c, i, ac, want);
		want -= n;
		c->free_objects -= n;
		slab_relist(c, i);
	}
	node_unlock(c);
	if (ac->avail)
		return ac->entry[--ac->avail];
direct_grow:
	i = grow(c);
	if (i < 0)
		return NULL;
	ac->st.grows++;
	n = take_from_slab(c, i, ac, ac->batch);
	node_lock(c, &ac->st);
	c->free_objects += c->objs - n;
	slab_relist(c, i);
	node_unlock(c);
	return ac->entry[--ac->avail];
}

void *aslab_alloc(struct aslab_cache *c, unsigned tid)
{
	struct array_cache *ac = c->ac[tid];

	if (__builtin_expect(ac->avail != 0, 1))
		return ac->entry[--ac->avail];
	return refill(c, ac);
}

/* cache_flusharray: batchcount objects to the shared array, or back to
 * their slabs when it is full. */
static __attribute__((noinline)) void flusharray(struct aslab_cache *c, struct array_cache *ac)
{
	unsigned n = ac->batch;

	ac->st.flushes++;
	node_lock(c, &ac->st);
	if (c->shared->avail < c->shared->limit) {
		unsigned room = c->shared->limit - c->shared->avail;

		if (n > room)
			n = room;
		memcpy(c->shared->entry + c->shared->avail, ac->entry, n * sizeof(void *));
		c->shared->avail += n;
	} else {
		for (unsigned k = 0; k < n; k++) {
			void *o = ac->entry[k];
			int32_t i = (int32_t)(((char *)o - c->map) / PAGE);	/* its slab */
			struct aslab *s = &c->slabs[i];

			*(void **)o = s->freelist;
			s->freelist = o;
			s->inuse--;
			c->free_objects++;
			slab_relist(c, i);
		}
	}
	node_unlock(c);
	ac->avail -= n;
	memmove(ac->entry, ac->entry + n, ac->avail * sizeof(void *));
}

void aslab_free(struct aslab_cache *c, unsigned tid, void *obj)
{
	struct array_cache *ac = c->ac[tid];

	if (__builtin_expect(ac->avail >= ac->limit, 0))
		flusharray(c, ac);
	ac->entry[ac->avail++] = obj;
}

void aslab_stats(const struct aslab_cache *c, unsigned tid, struct aslab_stats *st)
{
	*st = c->ac[tid]->st;
}

void aslab_count(struct aslab_cache *c, size_t *free_objs, size_t *capacity)
{
	size_t n = 0, grown = c->nslabs < c->max_slabs ? c->nslabs : c->max_slabs;

	for (size_t i = 0; i < grown; i++)
		for (void *o = c->slabs[i].freelist; o; o = *(void **)o)
			n++;
	n += c->shared->avail;
	for (unsigned t = 0; t < c->nthreads; t++)
		n += c->ac[t]->avail;
	*free_objs = n;
	*capacity = grown * c->objs;
}

/* ---- the 2016 scoring ---- */

struct worker {
	pthread_t th;
	struct aslab_cache *c;
	struct topo *t;
	unsigned *arrived;	/* [2]: one-shot spin barriers */
	unsigned total;
	void **obj;
	size_t n;
	unsigned tid;
	int cpu_os;
	int ret;
	struct conc_stamps st;
	bool preempted;		/* involuntary context switch between the stamps */
	struct aslab_stats s[2];	/* its counts after the alloc and the free phase */
	double share;		/* its CPU share from the first barrier to its end */
};

/* One-shot barrier: spinning threads see every arrival without a syscall;
 * the starter can also count threads that never started. */
static void spin_barrier(unsigned *arrived, unsigned total)
{
	__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < total)
		arch_cpu_relax();
}

/* The phases stamped as struct conc_stamps says. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct quiet_mark p;
	long cs0, cs1, cs2, cs3;

	w->ret = topo_bind_thread(w->t, w->cpu_os);
	spin_barrier(&w->arrived[0], w->total);
	quiet_start(&p);
	cs0 = repro_preemptions();
	w->st.alloc_start = arch_timer_start();
	for (size_t i = 0; i < w->n; i++)
		w->obj[i] = aslab_alloc(w->c, w->tid);
	w->st.alloc_end = arch_timer_stop();
	cs1 = repro_preemptions();
	aslab_stats(w->c, w->tid, &w->s[0]);
	spin_barrier(&w->arrived[1], w->total);
	cs2 = repro_preemptions();
	w->st.free_start = arch_timer_start();
	for (size_t i = 0; i < w->n; i++)
		aslab_free(w->c, w->tid, w->obj[i]);
	w->st.free_end = arch_timer_stop();
	cs3 = repro_preemptions();
	aslab_stats(w->c, w->tid, &w->s[1]);
	w->share = quiet_share(&p);
	/* preempted inside a timed phase (the barrier waits do not count) */
	w->preempted = cs1 != cs0 || cs3 != cs2;
	for (size_t i = 0; i < w->n && !w->ret; i++)
		if (!w->obj[i])
			w->ret = -ENOMEM;
	return NULL;
}

static bool stamps_ordered(const struct conc_stamps *st)
{
	return st->alloc_start <= st->alloc_end && st->alloc_end <= st->free_start &&
	       st->free_start <= st->free_end;
}

int conc_average(const struct conc_stamps *st, unsigned nth, size_t n, double *alloc_avg,
		 double *free_avg)
{
	*alloc_avg = *free_avg = 0;
	if (!nth || !n)
		return -EINVAL;
	for (unsigned i = 0; i < nth; i++) {
		if (!stamps_ordered(&st[i]))
			return -ERANGE;
		*alloc_avg += (double)(st[i].alloc_end - st[i].alloc_start) / (double)n / nth;
		*free_avg += (double)(st[i].free_end - st[i].free_start) / (double)n / nth;
	}
	return 0;
}

double conc_overlap(const struct conc_stamps *st, unsigned nth, bool free_phase)
{
	uint64_t lo = 0, hi = UINT64_MAX, longest = 0;

	for (unsigned i = 0; i < nth; i++) {
		uint64_t a = free_phase ? st[i].free_start : st[i].alloc_start;
		uint64_t b = free_phase ? st[i].free_end : st[i].alloc_end;

		lo = a > lo ? a : lo;
		hi = b < hi ? b : hi;
		longest = b - a > longest ? b - a : longest;
	}
	if (!nth || !longest || hi <= lo)
		return 0;
	return (double)(hi - lo) / (double)longest;
}

/* A pass counts when its threads ran together at least this much of each
 * phase (conc_overlap) and none was preempted inside one: a pass whose
 * threads ran apart measured no contention. */
#define MIN_OVERLAP 0.5
/* Up to this many times the passes are tried to count them. */
#define MAX_PASS_FACTOR 3
#define MAX_SIZES 32

/* What one pass of one variant measured, per phase (alloc, free). */
enum pf_field {
	PF_TK,		/* timer ticks per op (conc_average) */
	PF_OV,		/* conc_overlap of the phase */
	PF_LOCKS,	/* node-lock acquisitions per op */
	PF_TAKEN,	/* the share of them that found the lock taken */
	PF_WAIT,	/* ticks per op spent waiting for it */
	PF_SHARE,	/* not per phase: the least CPU share of a worker (quiet_share) */
};
struct pass_fig {
	double f[PF_SHARE][2];	/* [field][phase] */
	double share;		/* PF_SHARE */
	bool preempted;
};

static bool pass_counts(const struct pass_fig *p)
{
	return fmin(p->f[PF_OV][0], p->f[PF_OV][1]) >= MIN_OVERLAP && !p->preempted;
}

/* The threads' counts of one phase, per op, into pf. */
static void pass_locks(struct pass_fig *pf, const struct worker *w, unsigned nth, size_t n)
{
	for (int ph = 0; ph < 2; ph++) {
		double locks = 0, cont = 0, wait = 0;

		for (unsigned i = 0; i < nth; i++) {
			locks += (double)(w[i].s[ph].locks - (ph ? w[i].s[0].locks : 0));
			cont += (double)(w[i].s[ph].contended - (ph ? w[i].s[0].contended : 0));
			wait += (double)(w[i].s[ph].wait_ticks - (ph ? w[i].s[0].wait_ticks : 0));
		}
		pf->f[PF_LOCKS][ph] = locks / ((double)n * nth);
		pf->f[PF_TAKEN][ph] = locks > 0 ? cont / locks : 0;
		pf->f[PF_WAIT][ph] = wait / ((double)n * nth);
	}
}

/* One pass of variant v: every thread allocates n then frees n, in a new
 * cache. */
static int one_pass(struct topo *t, const int *cpus, unsigned nth, size_t size, size_t n,
		    enum aslab_variant v, struct pass_fig *pf)
{
	struct worker w[MAX_THREADS];
	struct conc_stamps st[MAX_THREADS];
	unsigned arrived[2] = { 0, 0 };
	struct aslab_cache *c;
	unsigned started = 0;
	int ret;

	*pf = (struct pass_fig){ .share = 1 };
	ret = aslab_create(&c, size, nth, n * nth, v);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < nth; i++) {
		w[i] = (struct worker){ .c = c, .t = t, .arrived = arrived, .total = nth,
					.obj = malloc(n * sizeof(void *)), .n = n, .tid = i,
					.cpu_os = cpus[i] };
		if (!w[i].obj)
			ret = -ENOMEM;
	}
	for (unsigned i = 0; i < nth && !ret; i++) {
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i])) {
			pr_err("slab-concurrent: cannot start thread %u", i);
			ret = -EAGAIN;
			/* release the started ones: count the missing as arrived */
			__atomic_add_fetch(&arrived[0], nth - started, __ATOMIC_ACQ_REL);
			__atomic_add_fetch(&arrived[1], nth - started, __ATOMIC_ACQ_REL);
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].ret < 0 && !ret)
			ret = w[i].ret;
		st[i] = w[i].st;
		pf->preempted = pf->preempted || w[i].preempted;
		pf->share = fmin(pf->share, w[i].share);
	}
	if (!ret) {
		pass_locks(pf, w, nth, n);
		pf->f[PF_OV][0] = conc_overlap(st, nth, false);
		pf->f[PF_OV][1] = conc_overlap(st, nth, true);
		ret = conc_average(st, nth, n, &pf->f[PF_TK][0], &pf->f[PF_TK][1]);
		for (unsigned i = 0; ret == -ERANGE && i < nth; i++)
			if (!stamps_ordered(&st[i])) {
				pr_err("slab-concurrent: thread %u on CPU %d: its timer went backwards "
				       "(alloc %llu..%llu, free %llu..%llu); the TSC is not "
				       "synchronized across CPUs here", i, cpus[i],
				       (unsigned long long)st[i].alloc_start,
				       (unsigned long long)st[i].alloc_end,
				       (unsigned long long)st[i].free_start,
				       (unsigned long long)st[i].free_end);
				break;
			}
	}
	for (unsigned i = 0; i < nth; i++)
		free(w[i].obj);
	aslab_destroy(c);
	return ret;
}

/* Published, Joonsoo Kim, 12 Apr 2016: cycles per alloc / per free. */
static const struct repro_row before_rows[] = {
	{ "32", { 248, 966 }, NULL },	 { "64", { 261, 949 }, NULL },	  { "128", { 314, 1016 }, NULL },
	{ "256", { 741, 1061 }, NULL },	 { "512", { 1246, 1152 }, NULL }, { "1024", { 2437, 1259 }, NULL },
	{ "2048", { 4980, 1800 }, NULL }, { "4096", { 9000, 2078 }, NULL },
};
static const struct repro_row after_rows[] = {
	{ "32", { 344, 792 }, NULL },	 { "64", { 347, 882 }, NULL },	  { "128", { 390, 959 }, NULL },
	{ "256", { 393, 1067 }, NULL },	 { "512", { 683, 1229 }, NULL },  { "1024", { 1295, 1325 }, NULL },
	{ "2048", { 2513, 1664 }, NULL }, { "4096", { 4742, 2172 }, NULL },
};
#define SRC_2016 "Joonsoo Kim, linux-mm, 12 Apr 2016, \"mm/slab: lockless decision to grow cache\" " \
		 "(Christoph Lameter's concurrent slab benchmark)"
#define MACHINE_2016 "not named in the post, SLAB of April 2016 (the patch went into v4.7)"
static const struct repro_table posted_2016[2] = {
	{ .title = "Before: Kmalloc N*alloc N*free(size): Average=alloc/free", .source = SRC_2016,
	  .machine = MACHINE_2016, .unit = "cycles per op", .ncols = 2, .cols = { "alloc", "free" },
	  .nrows = ARRAY_SIZE(before_rows), .rows = before_rows },
	{ .title = "After: Kmalloc N*alloc N*free(size): Average=alloc/free", .source = SRC_2016,
	  .machine = MACHINE_2016, .unit = "cycles per op", .ncols = 2, .cols = { "alloc", "free" },
	  .nrows = ARRAY_SIZE(after_rows), .rows = after_rows },
};

/* The passes of one size: try k ran both variants, before first when k is
 * even, after first when odd, each in a new cache; idx lists the tries
 * whose two passes both counted; retimed: the tries disturbed by load that
 * were taken again at once. */
struct conc_size {
	char label[24];
	size_t tries, got, retimed, given_up;
	size_t idx[JUDGE_MAX_EPOCHS];	/* passes: at most JUDGE_MAX_EPOCHS (config) */
	struct pass_fig pf[2][MAX_PASS_FACTOR * JUDGE_MAX_EPOCHS];	/* [variant][try] */
};

struct conc_run {
	struct repro_ctx *rc;
	struct topo *t;
	const int *cpus;
	unsigned nth;
	size_t n, reps;
	bool ran[2];
	double tpc;
};

/* The tries of one size, until r->reps count or MAX_PASS_FACTOR * r->reps
 * ran. A try disturbed by load (a thread under 90% of its CPU, or preempted
 * inside a phase) is taken again at once (repro_figure_again_of: a try
 * lasts milliseconds to a tenth of a second, and a load that passes
 * leaves out that try), its figures kept in retimed_figures; one still
 * disturbed when its figure's tries or the patience run out waits for a
 * quiet window first (repro_pass_again). A try whose threads ran apart
 * unloaded is not the load's: the next one follows. */
static int run_size(const struct conc_run *r, size_t size, struct conc_size *z)
{
	struct repro_figure f = { .pt = r->rc->patience };
	unsigned given0 = f.pt ? f.pt->given_up : 0;
	char what[48];

	snprintf(what, sizeof(what), "size %zu", size);
	z->tries = z->got = z->retimed = z->given_up = 0;
	while (z->got < r->reps && z->tries < MAX_PASS_FACTOR * r->reps) {
		size_t k = z->tries++;
		json_t *figs = json_object();
		struct quiet_mark ps;
		double share = 1;
		bool ok = true, pre = false;

		quiet_start(&ps);
		repro_figure_start(&f);
		for (int j = 0; j < 2; j++) {
			int v = k % 2 ? 1 - j : j;
			int ret;

			if (!r->ran[v])
				continue;
			ret = one_pass(r->t, r->cpus, r->nth, size, r->n, (enum aslab_variant)v,
				       &z->pf[v][k]);
			if (ret < 0) {
				json_decref(figs);
				return ret;
			}
			ok = ok && pass_counts(&z->pf[v][k]);
			pre = pre || z->pf[v][k].preempted;
			share = fmin(share, z->pf[v][k].share);
			json_object_set_new(figs, v ? "lockless" : "locked",
					    json_pack("{s:o,s:o}", "alloc_cycles",
						      report_real(z->pf[v][k].f[PF_TK][0] / r->tpc),
						      "free_cycles",
						      report_real(z->pf[v][k].f[PF_TK][1] / r->tpc)));
		}
		if (ok && share >= REPRO_SHARE_MIN) {
			z->idx[z->got++] = k;
			json_decref(figs);
			f = (struct repro_figure){ .pt = r->rc->patience };
		} else if (repro_figure_again_of(&f, share, pre)) {
			z->retimed++;
			repro_figure_kept(r->rc, &f, share, pre, what, k, figs);
		} else {
			/* a disturbed try is judged out: the next one, after
			 * a quiet window when the patience pays for it,
			 * takes its place */
			repro_pass_again(r->rc, &ps, share, what, k, figs);
			f = (struct repro_figure){ .pt = r->rc->patience };
		}
	}
	z->given_up = f.pt ? f.pt->given_up - given0 : 0;
	return 0;
}

/* Field f (phase ph) of variant v's pass i of the counted ones (of every
 * try when none counted). */
static double fig(const struct conc_size *z, int v, size_t i, enum pf_field f, int ph)
{
	const struct pass_fig *p = &z->pf[v][z->got ? z->idx[i] : i];

	return f == PF_SHARE ? p->share : p->f[f][ph];
}

/* Its median over those passes. */
static double med(const struct conc_size *z, int v, enum pf_field f, int ph)
{
	size_t m = z->got ? z->got : z->tries;
	double x[ARRAY_SIZE(z->pf[0])];	/* at most every try */

	for (size_t i = 0; i < m; i++)
		x[i] = fig(z, v, i, f, ph);
	return stats_median(x, m);
}

static void print_contention(FILE *out, const struct conc_run *r, const struct conc_size *zs,
			     size_t nsizes)
{
	static const char *const vn[2] = { "before", "after" };

	fprintf(out, "\nContention: here %u threads, so a node-lock acquisition that finds the "
		     "lock taken queues behind at most %u other\nthread%s (the post does not say how "
		     "many threads it ran). Per size, medians of the counted passes, alloc / free:\n"
		     "node-lock acquisitions per op, the share of them that found the lock taken, and "
		     "the core cycles per op spent waiting\n", r->nth, r->nth - 1,
		r->nth == 2 ? "" : "s");
	for (size_t si = 0; si < nsizes; si++) {
		const struct conc_size *z = &zs[si];

		fprintf(out, "  %-5s", z->label);
		for (int v = 0; v < 2; v++) {
			if (!r->ran[v])
				continue;
			fprintf(out, " %s: %.3f / %.3f locks, taken %.0f%% / %.0f%%, waiting %.1f / "
				     "%.1f%s", vn[v], med(z, v, PF_LOCKS, 0),
				med(z, v, PF_LOCKS, 1), 100 * med(z, v, PF_TAKEN, 0),
				100 * med(z, v, PF_TAKEN, 1), med(z, v, PF_WAIT, 0) / r->tpc,
				med(z, v, PF_WAIT, 1) / r->tpc, v ? "" : ";");
		}
		fputc('\n', out);
	}
	fprintf(out, "The threads run the same sequence in step, so their refills and flushes "
		     "meet: with more threads each such meeting\nqueues more holders, and the "
		     "acquisition per grow that the lockless check removes weighs more.\n");
}

int conc_footprint_text(char *buf, size_t len, unsigned nth, size_t n, const uint64_t *sizes,
			size_t nsizes, size_t l2, size_t llc)
{
	char a[32], b[32], c[32], d[32], e[32];
	uint64_t lo = UINT64_MAX, hi = 0, fit = 0;
	int k;

	for (size_t i = 0; i < nsizes; i++) {
		lo = sizes[i] < lo ? sizes[i] : lo;
		hi = sizes[i] > hi ? sizes[i] : hi;
		if (l2 && n * sizes[i] <= l2 && sizes[i] > fit)
			fit = sizes[i];
	}
	if (!nsizes)
		lo = 0;
	k = snprintf(buf, len, "each thread allocates %zu objects: %s to %s per thread (%s for all %u "
		     "at %llu bytes), against this machine's L2 of %s and LLC of %s (declared): ", n,
		     repro_bytes(a, sizeof(a), n * lo), repro_bytes(b, sizeof(b), n * hi),
		     repro_bytes(c, sizeof(c), nth * n * hi), nth, (unsigned long long)hi,
		     repro_bytes(d, sizeof(d), l2), repro_bytes(e, sizeof(e), llc));
	if (k < 0 || (size_t)k >= len)
		return k;
	if (!l2)
		return k + snprintf(buf + k, len - k, "whether they fit is not known");
	if (!fit)
		return k + snprintf(buf + k, len - k, "no size keeps a thread's objects in L2");
	return k + snprintf(buf + k, len - k, "sizes up to %llu keep a thread's objects in L2%s",
			    (unsigned long long)fit, fit == hi ? ", every size" : ", larger ones spill");
}

static void print_deviations(FILE *out, const struct conc_run *r)
{
	char threads[128];
	const char *const dev[] = {
		threads,
		"user-space model of SLAB v4.7-rc1: a grow carves pre-faulted memory (no page "
		"allocator: the post's large sizes\n    pay for pages, 9000 cycles per alloc at 4096 "
		"bytes before); the node lock is a test-and-test-and-set spinlock,\n    not the "
		"kernel's queued spinlock with interrupts off",
		"left out: the touched/BATCHREFILL_LIMIT partial refill, the free_limit release of "
		"free slabs, the cache reaper,\n    alien caches and NUMA nodes",
		"core cycles from the TSC (no PMU here); the post's cycles are its own counter's",
	};

	snprintf(threads, sizeof(threads), "%u threads on this machine's CPUs, %zu objects each: "
		 "the post names neither its machine, nor its threads, nor its N", r->nth, r->n);
	repro_print_list(out, "\nDeviations from the post:", dev, ARRAY_SIZE(dev));
}

/* What this machine changes: its CPUs, its caches against the objects. */
static void print_changes(struct repro_ctx *rc, const struct conc_run *r, const uint64_t *sizes,
			  size_t nsizes)
{
	char fp[512], cpus[160];
	const char *items[] = { cpus, fp };

	snprintf(cpus, sizeof(cpus), "%u threads on %u allowed CPUs here; the post's count is unsaid, "
		 "so how many met at its node lock is unknown", r->nth,
		 rc->t ? (unsigned)topo_allowed_count(rc->t) : 0);
	conc_footprint_text(fp, sizeof(fp), r->nth, r->n, sizes, nsizes, repro_cache(rc, 2),
			    repro_cache(rc, 0));
	repro_print_changes(rc, items, ARRAY_SIZE(items));
}

/* One claim of the 2016 model: a size's alloc or free phase, after against
 * before, over the size's counted passes. */
struct conc_claim {
	double ea[JUDGE_MAX_EPOCHS], eb[JUDGE_MAX_EPOCHS], sh[JUDGE_MAX_EPOCHS];
	char what[64];
	struct repro_claim c;
};

static void claim_of(const struct conc_run *r, const struct conc_size *z, int ph, struct conc_claim *k)
{
	const struct repro_row *pb = repro_table_row(&posted_2016[0], z->label);
	const struct repro_row *pa = repro_table_row(&posted_2016[1], z->label);
	size_t m = z->got;	/* at most the passes, JUDGE_MAX_EPOCHS */

	snprintf(k->what, sizeof(k->what), "%s(%.23s)", ph ? "free" : "alloc", z->label);
	k->c = (struct repro_claim){
		.what = k->what, .a = "lockless check (after)", .b = "locked check (before)",
		.unit = "cycles", .ea = k->ea, .eb = k->eb, .n = m, .share = k->sh, .pub_unit = "cycles",
		.pub_a = pa ? pa->v[ph] : NAN, .pub_b = pb ? pb->v[ph] : NAN,
		.pub_machine = "Joonsoo Kim, 2016",
	};
	for (size_t i = 0; i < m; i++) {
		k->ea[i] = fig(z, 1, i, PF_TK, ph) / r->tpc;
		k->eb[i] = fig(z, 0, i, PF_TK, ph) / r->tpc;
		k->sh[i] = fmin(fig(z, 0, i, PF_SHARE, 0), fig(z, 1, i, PF_SHARE, 0));
	}
}

/* Every size's alloc and free claims, each phase's sizes judged as one
 * batch (repro_claims_prior: a size with few counted passes borrows the
 * spread of the others); a size without one is unjudged, and says why. */
static int conclude_all(struct repro_ctx *rc, const struct conc_run *r, const struct conc_size *zs,
			size_t nsizes)
{
	struct conc_claim *k = calloc(2 * nsizes + 1, sizeof(*k));
	struct repro_claim *batch = calloc(nsizes + 1, sizeof(*batch));
	struct stats_prior prior[2];

	if (!k || !batch) {
		free(k);
		free(batch);
		return -ENOMEM;
	}
	for (int ph = 0; ph < 2; ph++) {
		for (size_t si = 0; si < nsizes; si++) {
			claim_of(r, &zs[si], ph, &k[2 * si + ph]);
			batch[si] = k[2 * si + ph].c;
		}
		repro_claims_prior(batch, nsizes, &prior[ph]);
	}
	for (size_t i = 0; i < 2 * nsizes; i++) {
		const struct conc_size *z = &zs[i / 2];

		if (!z->got) {
			char why[200];

			snprintf(why, sizeof(why), "in none of %zu tries did the threads of both "
				 "variants run together %.0f%% of each phase unpreempted with %.0f%% "
				 "of their CPUs, so there was no contention to compare", z->tries,
				 100 * MIN_OVERLAP, 100 * REPRO_SHARE_MIN);
			repro_unjudged(rc, k[i].what, k[i].c.a, k[i].c.b, why);
			continue;
		}
		k[i].c.prior = &prior[i % 2];
		repro_conclude(rc, &k[i].c);
	}
	free(k);
	free(batch);
	return 0;
}

/* The post's own output, then each table beside the published one. */
static int print_tables(struct repro_ctx *rc, const struct conc_run *r, struct conc_size *zs,
			size_t nsizes, json_t *jv)
{
	static const char *const vnames[] = { "locked", "lockless" };
	static const char *const vtitle[] = {
		"Before (the previous patch: the node lock first, a new slab fills the array cache "
		"without it)",
		"After (lockless check of free objects and the shared array first)" };
	struct repro_row rows[MAX_SIZES];
	char notes[MAX_SIZES][128];

	for (int v = 0; v < 2; v++) {
		json_t *jvar;
		struct repro_table m = {
			.title = posted_2016[v].title, .machine = rc->machine ? rc->machine : "this machine",
			.unit = "core cycles per op", .ncols = 2, .cols = { "alloc", "free" },
			.nrows = nsizes, .rows = rows,
		};
		int ret;

		if (!r->ran[v])
			continue;
		jvar = json_object();
		json_object_set_new(jv, vnames[v], jvar);
		fprintf(rc->out, "* %s\n", vtitle[v]);
		for (size_t si = 0; si < nsizes; si++) {
			const struct conc_size *z = &zs[si];
			double a = med(z, v, PF_TK, 0) / r->tpc, f = med(z, v, PF_TK, 1) / r->tpc;
			double oa = med(z, v, PF_OV, 0), of = med(z, v, PF_OV, 1);

			fprintf(rc->out, "Kmalloc N*alloc N*free(%s): Average=%.0f/%.0f\n", z->label, a, f);
			snprintf(notes[si], sizeof(notes[si]), "together %.0f%% / %.0f%%, %zu of %zu "
				 "paired tries counted (%zu taken again)", 100 * oa, 100 * of, z->got,
				 z->tries, z->retimed);
			rows[si] = (struct repro_row){ z->label, { a, f }, notes[si] };
			json_object_set_new(jvar, z->label, json_pack(
				"{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:I,s:I}",
				"alloc_cycles", a, "free_cycles", f, "alloc_overlap", oa, "free_overlap", of,
				"alloc_locks_per_op", med(z, v, PF_LOCKS, 0),
				"free_locks_per_op", med(z, v, PF_LOCKS, 1),
				"alloc_lock_taken", med(z, v, PF_TAKEN, 0),
				"free_lock_taken", med(z, v, PF_TAKEN, 1),
				"alloc_lock_wait_cycles", med(z, v, PF_WAIT, 0) / r->tpc,
				"free_lock_wait_cycles", med(z, v, PF_WAIT, 1) / r->tpc,
				"passes_counted", (json_int_t)z->got, "tries", (json_int_t)z->tries,
				"tries_retimed", (json_int_t)z->retimed,
				"tries_given_up", (json_int_t)z->given_up));
		}
		fputc('\n', rc->out);
		ret = repro_print_beside(rc->out, &posted_2016[v], &m);
		if (ret < 0)
			return ret;
		fputc('\n', rc->out);
	}
	return 0;
}

/* What runs where, into the text and the JSON. */
static void print_intro(struct repro_ctx *rc, const struct conc_run *r)
{
	json_t *jcpus = json_array();

	for (unsigned i = 0; i < r->nth; i++)
		json_array_append_new(jcpus, json_integer(r->cpus[i]));
	repro_doc_own(rc->doc, "cpus", jcpus);
	repro_doc_own(rc->doc, "threads", json_integer(r->nth));
	fprintf(rc->out, "Concurrent slab (atomcost user-space SLAB model): %u threads on CPUs", r->nth);
	for (unsigned i = 0; i < r->nth; i++)
		fprintf(rc->out, "%s%d", i ? "," : " ", r->cpus[i]);
	fprintf(rc->out, ", %zu objects each, core cycles per alloc/free (each thread's own phase, "
			 "barrier waits excluded).\nEach try runs before and after in new caches, "
			 "the order alternating; it counts when both passes' threads ran together at\n"
			 "least %.0f%% of each phase unpreempted, each with %.0f%% of its CPU or more\n"
			 "(up to %d times %zu tries to count %zu; a try disturbed by load is taken "
			 "again at once, up to %d times,\nthen waits for a quiet window). Figures: medians of the counted passes;\nconclusions: the "
			 "paired passes judged (stats_judge), each phase's sizes with their spread\n"
			 "moderated together\n", r->n, 100 * MIN_OVERLAP,
		100 * REPRO_SHARE_MIN, MAX_PASS_FACTOR, r->reps, r->reps, REPRO_FIGURE_TRIES);
}

/* The post's test in atomcost.ko (kernel/kthread.c): N x kmalloc then N x
 * kfree on every online CPU at once, at the listed sizes; the running
 * kernel's allocator has neither the before nor the after of the patch,
 * so nothing is judged: the figures stand beside the post's. */
static int run_kernel(struct repro_ctx *rc, const char *sec, const uint64_t *sizes, size_t nsizes)
{
	char name[MAX_SIZES][40], *probes[MAX_SIZES];
	struct repro_kernel k = { .sec = sec, .probes = probes, .nprobes = nsizes,
		.title = "In the kernel: N*alloc N*free on every online CPU (NAME: alloc, NAME:free: free)",
		.pub = "the post's tables are above (cycles per alloc / per free)" };

	for (size_t i = 0; i < nsizes; i++) {
		snprintf(name[i], sizeof(name[i]), "kmalloc_concurrent:%llu", (unsigned long long)sizes[i]);
		probes[i] = name[i];
	}
	return repro_kernel_run(rc, &k);
}

static int repro_concurrent_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slab-concurrent";
	uint64_t sizes[MAX_SIZES];
	size_t nsizes = config_u64_list(e, sec, "sizes", sizes, MAX_SIZES);
	struct conc_run r = {
		.rc = rc, .t = rc->t, .n = config_u64(e, sec, "objects"), .reps = config_u64(e, sec, "passes"),
		.nth = (unsigned)config_u64(e, sec, "threads"), .tpc = rc->cal->ticks_per_cycle,
		.ran = { config_list_has(e, sec, "variants", "locked"),
			 config_list_has(e, sec, "variants", "lockless") },
	};
	struct conc_size *zs = calloc(MAX_SIZES, sizeof(*zs));
	json_t *jv = json_object();
	int cpus[MAX_THREADS], ret = 0;

	repro_doc_own(rc->doc, "variants", jv);
	if (!zs) {
		ret = -ENOMEM;
		goto out;
	}
	if (!r.nth)
		r.nth = (unsigned)topo_allowed_count(rc->t);
	if (r.nth > MAX_THREADS) {
		pr_err("%s: threads: %u is more than %d", sec, r.nth, MAX_THREADS);
		ret = -EINVAL;
		goto out;
	}
	ret = topo_plan(rc->t, config_str(e, sec, "placement"), (int)r.nth, cpus);
	if (ret < 0)
		goto out;
	r.cpus = cpus;
	print_intro(rc, &r);
	for (size_t si = 0; si < nsizes; si++) {
		if (sizes[si] % 8 || sizes[si] > PAGE) {
			pr_err("%s: sizes: %llu is not a multiple of 8 up to %d", sec,
			       (unsigned long long)sizes[si], PAGE);
			ret = -EINVAL;
			goto out;
		}
		snprintf(zs[si].label, sizeof(zs[si].label), "%llu", (unsigned long long)sizes[si]);
	}
	for (size_t si = 0; si < nsizes; si++) {
		ret = run_size(&r, sizes[si], &zs[si]);
		if (ret < 0)
			goto out;
		fprintf(rc->out, "  size %s: %zu of %zu paired tries counted, %zu disturbed taken again "
			"at once", zs[si].label, zs[si].got, zs[si].tries, zs[si].retimed);
		if (zs[si].given_up)
			fprintf(rc->out, ", %zu not (%d figures in a row ran every try disturbed)",
				zs[si].given_up, REPRO_FIGURE_VAIN);
		fputc('\n', rc->out);
		fflush(rc->out);
	}
	fputc('\n', rc->out);
	ret = print_tables(rc, &r, zs, nsizes, jv);
	if (ret < 0)
		goto out;
	print_contention(rc->out, &r, zs, nsizes);
	fputc('\n', rc->out);
	if (r.ran[0] && r.ran[1])
		ret = conclude_all(rc, &r, zs, nsizes);
	if (ret < 0)
		goto out;
	print_deviations(rc->out, &r);
	print_changes(rc, &r, sizes, nsizes);
	/* the workers ran on every planned CPU: put this thread back */
	topo_bind_thread(rc->t, rc->cpu_os);
	ret = run_kernel(rc, sec, sizes, nsizes);
out:
	free(zs);
	return ret;
}

const struct repro repro_slab_concurrent = {
	.kind = "slab-concurrent", .seed = "slab-lockless-shared-check-2016", .run = repro_concurrent_run,
	.source = "Joonsoo Kim, linux-mm, 12 Apr 2016, patch making slab's free-object check lockless "
		  "(Christoph Lameter's concurrent alloc/free benchmark)",
	REPRO_KEYS(
	{ "slab-concurrent", "threads", CFG_U64, "0", NULL, 0, 4096, NULL,
	  "pinned threads (0: one per allowed PU)" },
	{ "slab-concurrent", "placement", CFG_STR, "spread", NULL, 0, 0, NULL,
	  "placement plan of the threads (as --placement)" },
	{ "slab-concurrent", "sizes", CFG_U64_LIST, "32,64,128,256,512,1024,2048,4096", NULL, 8, 1 << 20, NULL,
	  "object sizes, bytes" },
	{ "slab-concurrent", "objects", CFG_U64, "10000", NULL, 1, 10000000, NULL,
	  "allocations per thread per timed phase (N of N*alloc N*free)" },
	{ "slab-concurrent", "variants", CFG_ENUM_LIST, "locked,lockless", "locked|lockless", 0, 0, NULL,
	  "locked: the previous patch applied, refill checks the shared pool under the node "
	  "lock (the post's before); lockless: checks it first without the lock (after)" },
	{ "slab-concurrent", "passes", CFG_U64, "9", NULL, 1, JUDGE_MAX_EPOCHS, NULL,
	  "counted passes, each running before and after (order alternating); conclusions "
	  "judge the passes' paired figures" },
	REPRO_CONTEXT_KEY("slab-concurrent")),
};
