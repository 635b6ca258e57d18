/* SPDX-License-Identifier: MIT */
/* repro/slab-concurrent.c - the 2016 concurrent slab scoring
 * (docs/reproductions.md, section 4): N pinned threads each do N*alloc then
 * N*free; the figure is the average cycles per alloc / per free, each
 * thread's own phases only (struct conc_stamps), over passes whose threads
 * ran together and were not preempted.
 *
 * The model is the SLAB allocator the patch changed: a per-CPU array cache
 * (limit and batchcount by object size, as the kernel's enable_cpucache),
 * a node with a shared array and slab lists under one list_lock, and page-
 * sized slabs aligned so that the slab of an object is an address mask. On
 * an empty array cache, cache_alloc_refill either takes the lock first and
 * finds out under it that nothing is free (2016 "before": locked), or first
 * checks free_objects and the shared array without the lock and grows a new
 * slab straight into the array cache (commit 801faf0db894, "after": lockless).
 */
#include "repro.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "arch/arch.h"
#include "common.h"
#include "runner.h"
#include "stats.h"

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
	void *entry[];
};

struct aslab_cache {
	size_t size, slab_bytes;
	unsigned objs;
	enum aslab_variant variant;
	char *map, *arena;
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

static void node_lock(struct aslab_cache *c)
{
	while (arch_cmpxchg(&c->lock, 0, 1) != 0)
		while (arch_load(&c->lock))
			arch_cpu_relax();
}

static void node_unlock(struct aslab_cache *c)
{
	arch_store(&c->lock, 0);
}

static struct array_cache *ac_new(unsigned limit, unsigned batch)
{
	struct array_cache *a = aligned_alloc(64, (sizeof(*a) + limit * sizeof(void *) + 63) & ~63ul);

	if (a) {
		a->avail = 0;
		a->limit = limit;
		a->batch = batch;
	}
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
	memset(c, 0, sizeof(*c));
	c->size = size;
	c->slab_bytes = PAGE;
	c->objs = (unsigned)(PAGE / size);
	c->variant = v;
	c->nthreads = nthreads;
	/* enable_cpucache(): limit by size, batchcount half of it, shared 8x */
	limit = size > 1024 ? 24 : size > 256 ? 54 : 120;
	/* room for every object held anywhere: threads' arrays, shared, slack */
	max_objects += (size_t)nthreads * limit + 8 * limit;
	c->max_slabs = (max_objects + c->objs - 1) / c->objs + (size_t)nthreads + 8;
	c->map_size = c->max_slabs * c->slab_bytes + c->slab_bytes;
	c->map = mmap(NULL, c->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		free(c);
		return -ENOMEM;
	}
	/* fault the arena in up front: page faults are not what is measured */
	memset(c->map, 0, c->map_size);
	c->arena = (char *)(((uintptr_t)c->map + c->slab_bytes - 1) & ~(uintptr_t)(c->slab_bytes - 1));
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

static inline size_t slab_of(const struct aslab_cache *c, const void *obj)
{
	return (size_t)((const char *)obj - c->arena) / c->slab_bytes;
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
	base = c->arena + i * c->slab_bytes;
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

static __attribute__((noinline)) void *refill(struct aslab_cache *c, struct array_cache *ac)
{
	for (;;) {
		unsigned want = ac->batch;
		int32_t i;

		if (c->variant == ASLAB_LOCKLESS &&
		    !__atomic_load_n(&c->free_objects, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&c->shared->avail, __ATOMIC_RELAXED))
			goto direct_grow;
		node_lock(c);
		if (c->shared->avail) {
			unsigned n = c->shared->avail < want ? c->shared->avail : want;

			c->shared->avail -= n;
			memcpy(ac->entry + ac->avail, c->shared->entry + c->shared->avail, n * sizeof(void *));
			ac->avail += n;
			node_unlock(c);
			return ac->entry[--ac->avail];
		}
		while (want) {
			unsigned n;

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
		if (c->variant == ASLAB_LOCKLESS) {
			/* the new slab's objects go straight to the array cache */
			unsigned n = take_from_slab(c, i, ac, ac->batch);

			node_lock(c);
			c->free_objects += c->objs - n;
			slab_relist(c, i);
			node_unlock(c);
			return ac->entry[--ac->avail];
		}
		node_lock(c);
		c->free_objects += c->objs;
		slab_relist(c, i);
		node_unlock(c);
	}
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

	node_lock(c);
	if (c->shared->avail < c->shared->limit) {
		unsigned room = c->shared->limit - c->shared->avail;

		if (n > room)
			n = room;
		memcpy(c->shared->entry + c->shared->avail, ac->entry, n * sizeof(void *));
		c->shared->avail += n;
	} else {
		for (unsigned k = 0; k < n; k++) {
			void *o = ac->entry[k];
			int32_t i = (int32_t)slab_of(c, o);
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
};

static long nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* One-shot barrier: spinning threads see every arrival without a syscall;
 * the starter can also count threads that never started. */
static void spin_barrier(unsigned *arrived, unsigned total)
{
	__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < total)
		arch_cpu_relax();
}

/* Each phase is stamped right after the barrier releases this thread and
 * right after its own last op: the wait for the slowest thread at the next
 * barrier belongs to no phase. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	long cs0, cs1, cs2, cs3;

	w->ret = topo_bind_thread(w->t, w->cpu_os);
	spin_barrier(&w->arrived[0], w->total);
	cs0 = nivcsw();
	w->st.alloc_start = arch_timer_start();
	for (size_t i = 0; i < w->n; i++)
		w->obj[i] = aslab_alloc(w->c, w->tid);
	w->st.alloc_end = arch_timer_stop();
	cs1 = nivcsw();
	spin_barrier(&w->arrived[1], w->total);
	cs2 = nivcsw();
	w->st.free_start = arch_timer_start();
	for (size_t i = 0; i < w->n; i++)
		aslab_free(w->c, w->tid, w->obj[i]);
	w->st.free_end = arch_timer_stop();
	cs3 = nivcsw();
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

/* One pass: every thread allocates n then frees n. Average ticks per op
 * over threads. */
static int one_pass(struct topo *t, const int *cpus, unsigned nth, size_t size, size_t n,
		    enum aslab_variant v, double *a, double *f, double *ov, bool *preempted)
{
	struct worker w[MAX_THREADS];
	struct conc_stamps st[MAX_THREADS];
	unsigned arrived[2] = { 0, 0 };
	struct aslab_cache *c;
	unsigned started = 0;
	int ret;

	ret = aslab_create(&c, size, nth, n * nth, v);
	if (ret < 0)
		return ret;
	memset(w, 0, sizeof(w[0]) * nth);
	for (unsigned i = 0; i < nth; i++) {
		w[i] = (struct worker){ .c = c, .t = t, .arrived = arrived, .total = nth, .n = n, .tid = i, .cpu_os = cpus[i] };
		w[i].obj = malloc(n * sizeof(void *));
		if (!w[i].obj) {
			ret = -ENOMEM;
			break;
		}
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
	*a = *f = 0;
	*preempted = false;
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].ret < 0 && !ret)
			ret = w[i].ret;
		st[i] = w[i].st;
		*preempted = *preempted || w[i].preempted;
	}
	if (!ret) {
		ov[0] = conc_overlap(st, nth, false);
		ov[1] = conc_overlap(st, nth, true);
		ret = conc_average(st, nth, n, a, f);
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

/* Between-pass spread of a figure: its interquartile range over the
 * median (robust to the one pass a preempted thread ruins). */
static double pass_spread(const double *v, size_t n)
{
	struct summary sm;

	if (stats_summarize(v, n, &sm) < 0 || !(sm.median > 0))
		return 0;
	return (sm.p75 - sm.p25) / sm.median;
}

#define MAX_SIZES 32
/* A concurrent figure needs the threads to have run together this much of
 * the phase (median over the passes). */
#define MIN_OVERLAP 0.5
#define MAX_PASS_FACTOR 3
#define SWAP(x, y) do { double t_ = (x); (x) = (y); (y) = t_; } while (0)

int repro_concurrent_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slab-concurrent";
	static const char *const vnames[] = { "locked", "lockless" };
	static const char *const vtitle[] = { "Before (shared pool checked under its lock)",
					      "After (lockless check of the shared pool first)" };
	uint64_t sizes[MAX_SIZES];
	size_t nsizes = config_u64_list(e, sec, "sizes", sizes, MAX_SIZES);
	size_t n = config_u64(e, sec, "objects"), reps = config_u64(e, sec, "repeats");
	unsigned nth = (unsigned)config_u64(e, sec, "threads");
	size_t cap = MAX_PASS_FACTOR * reps;
	double *va = malloc(cap * sizeof(double)), *vf = malloc(cap * sizeof(double));
	double *voa = malloc(cap * sizeof(double)), *vof = malloc(cap * sizeof(double));
	double tpc = rc->cal->ticks_per_cycle;
	double med[2][MAX_SIZES][2], spread[2][MAX_SIZES][2], overlap[2][MAX_SIZES][2];
	char notes[2][MAX_SIZES][96];
	size_t discarded[2][MAX_SIZES];
	bool ran[2] = { false, false };
	struct repro_row rows[2][MAX_SIZES];
	char labels[MAX_SIZES][24];
	json_t *jv = json_object(), *jcpus = json_array();
	int cpus[MAX_THREADS], ret = 0;

	json_object_set_new(rc->json, "variants", jv);
	if (!va || !vf || !voa || !vof) {
		ret = -ENOMEM;
		goto out;
	}
	if (!nth)
		nth = (unsigned)topo_allowed_count(rc->t);
	if (nth > MAX_THREADS) {
		pr_err("%s: threads: %u is more than %d", sec, nth, MAX_THREADS);
		ret = -EINVAL;
		goto out;
	}
	ret = topo_plan(rc->t, config_str(e, sec, "placement"), (int)nth, cpus);
	if (ret < 0)
		goto out;
	for (unsigned i = 0; i < nth; i++)
		json_array_append_new(jcpus, json_integer(cpus[i]));
	json_object_set_new(rc->json, "cpus", jcpus);
	jcpus = NULL;
	json_object_set_new(rc->json, "threads", json_integer(nth));
	fprintf(rc->out, "Concurrent slab (atomcost user-space SLAB model): %u threads on CPUs", nth);
	for (unsigned i = 0; i < nth; i++)
		fprintf(rc->out, "%s%d", i ? "," : " ", cpus[i]);
	fprintf(rc->out, ", %zu objects each, core cycles per alloc/free (each thread's own phase, "
			 "barrier waits excluded), median of %zu passes whose threads ran together at "
			 "least %.0f%% of each phase\nand were not preempted (up to %d times as many "
			 "passes are run to get them); the tables say how much\nthe threads overlapped "
			 "and how many passes ran apart or were preempted\n",
		n, reps, 100 * MIN_OVERLAP, MAX_PASS_FACTOR);
	for (size_t si = 0; si < nsizes; si++) {
		if (sizes[si] % 8 || sizes[si] > PAGE) {
			pr_err("%s: sizes: %llu is not a multiple of 8 up to %d", sec,
			       (unsigned long long)sizes[si], PAGE);
			ret = -EINVAL;
			goto out;
		}
		snprintf(labels[si], sizeof(labels[si]), "%llu", (unsigned long long)sizes[si]);
	}
	for (int v = 0; v < 2; v++) {
		json_t *jvar;

		if (!config_list_has(e, sec, "variants", vnames[v]))
			continue;
		ran[v] = true;
		jvar = json_object();
		json_object_set_new(jv, vnames[v], jvar);
		fprintf(rc->out, "* %s\n", vtitle[v]);
		for (size_t si = 0; si < nsizes; si++) {
			double a, f;

			/* a pass whose threads did not run together measured no
			 * contention, and one whose thread was preempted measured
			 * the preemption: run another, up to MAX_PASS_FACTOR times reps;
			 * if too few overlap, the figures come from all passes and
			 * the conclusion says so */
			size_t got = 0, tries = 0, kept;

			while (got < reps && tries < MAX_PASS_FACTOR * reps) {
				double ov[2], pa, pf;
				bool pre;

				ret = one_pass(rc->t, cpus, nth, sizes[si], n, (enum aslab_variant)v,
					       &pa, &pf, ov, &pre);
				if (ret < 0)
					goto out;
				va[tries] = pa;
				vf[tries] = pf;
				voa[tries] = ov[0];
				vof[tries] = ov[1];
				tries++;
				if (fmin(ov[0], ov[1]) >= MIN_OVERLAP && !pre) {
					/* keep the overlapping passes first */
					size_t last = tries - 1;

					SWAP(va[got], va[last]);
					SWAP(vf[got], vf[last]);
					SWAP(voa[got], voa[last]);
					SWAP(vof[got], vof[last]);
					got++;
				}
			}
			kept = got ? got : tries;
			discarded[v][si] = tries - got;
			a = med[v][si][0] = stats_median(va, kept) / tpc;
			f = med[v][si][1] = stats_median(vf, kept) / tpc;
			spread[v][si][0] = pass_spread(va, kept);
			spread[v][si][1] = pass_spread(vf, kept);
			overlap[v][si][0] = stats_median(voa, kept);
			overlap[v][si][1] = stats_median(vof, kept);
			snprintf(notes[v][si], sizeof(notes[v][si]), "threads overlapped %.0f%% / %.0f%%, "
				 "%zu of %zu passes apart or preempted", 100 * overlap[v][si][0],
				 100 * overlap[v][si][1], discarded[v][si], tries);
			rows[v][si] = (struct repro_row){ labels[si], { a, f }, notes[v][si] };
			fprintf(rc->out, "Kmalloc N*alloc N*free(%llu): Average=%.0f/%.0f\n",
				(unsigned long long)sizes[si], a, f);
			fflush(rc->out);
			json_object_set_new(jvar, labels[si], json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}",
				"alloc_cycles", a, "free_cycles", f, "alloc_spread", spread[v][si][0],
				"free_spread", spread[v][si][1], "alloc_overlap", overlap[v][si][0],
				"free_overlap", overlap[v][si][1]));
		}
	}
	fputc('\n', rc->out);
	for (int v = 0; v < 2; v++) {
		struct repro_table m = {
			.title = posted_2016[v].title, .machine = rc->machine ? rc->machine : "this machine",
			.unit = "core cycles per op", .ncols = 2, .cols = { "alloc", "free" },
			.nrows = nsizes, .rows = rows[v],
		};

		if (!ran[v])
			continue;
		ret = repro_print_beside(rc->out, &posted_2016[v], &m);
		if (ret < 0)
			goto out;
	}
	if (ran[0] && ran[1]) {
		for (size_t si = 0; si < nsizes; si++) {
			const struct repro_row *pb = repro_table_row(&posted_2016[0], labels[si]);
			const struct repro_row *pa = repro_table_row(&posted_2016[1], labels[si]);

			for (int k = 0; k < 2; k++) {
				struct repro_claim c = {
					.a = "lockless check (after)", .b = "locked check (before)",
					.unit = "cycles", .pub_unit = "cycles",
					.ea = &med[1][si][k], .eb = &med[0][si][k], .n = 1,
					.pub_a = pa ? pa->v[k] : NAN, .pub_b = pb ? pb->v[k] : NAN,
					.pub_machine = "Joonsoo Kim, 2016",
				};
				char what[64];

				snprintf(what, sizeof(what), "%s(%.23s)", k ? "free" : "alloc", labels[si]);
				c.what = what;
				if (fmin(overlap[0][si][k], overlap[1][si][k]) < MIN_OVERLAP) {
					fprintf(rc->out, "conclusion %s: no verdict: the threads ran together "
							 "only %.0f%% (before) / %.0f%% (after) of the phase, "
							 "so there was little contention to compare (wanted %.0f%%)\n",
						what, 100 * overlap[0][si][k], 100 * overlap[1][si][k],
						100 * MIN_OVERLAP);
					continue;
				}
				repro_conclude(rc, &c);
			}
		}
	}
	/* the workers ran on every planned CPU: put this thread back */
	topo_bind_thread(rc->t, rc->cpu_os);
out:
	json_decref(jcpus);
	free(va);
	free(vf);
	free(voa);
	free(vof);
	return ret;
}
