/* SPDX-License-Identifier: MIT */
/* repro/slub-bulk-free.c - the 2015 SLUB bulk alloc/free scoring
 * (docs/reproductions.md, section 3, describes the model): SLUB as in v4.1/4.2
 * for one thread, on the slab layer of repro/slub-cmpxchg-local.c (what it
 * leaves out: deviations[]). The bulk algorithms (enum bulk_algo, its .h) are
 * each described at its function. Slow paths count themselves (as
 * CONFIG_SLUB_STATS does), so the tests can check how often each algorithm
 * takes them.
 */
#include "repro/slub-bulk-free.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "common.h"
#include "repro/repro.h"
#include "stats.h"

/* the fast paths take the commit as a constant: one copy per commit form,
 * no run-time test of it inside the timed paths */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define MAX_BULK_SIZES 64
#define MAX_BULK 4096

const char *const bulk_algo_names[BULK__COUNT] = {
	[BULK_FALLBACK] = "fallback", [BULK_PREVIOUS] = "previous", [BULK_POSTED] = "posted",
	[BULK_DETACHED] = "detached", [BULK_TWIN] = "fallback_twin",
};

/* kmem_cache_cpu, per thread (one thread per CPU: pinned). */
static __thread struct kmem_cpu bulk_cpu __attribute__((tls_model("initial-exec")));
static __thread volatile uint8_t bulk_irqs_off __attribute__((tls_model("initial-exec")));

/* local_irq_disable (count: irq_pairs) and local_irq_save (irq_saves)
 * analog: user space cannot run cli/sti, so a store to a thread-local "IRQs
 * off" byte and a compiler barrier, their semantics for the model's one
 * thread; irq_enable ends both. The count is part of the analog, so its
 * measured cost is what the what-if replaces. */
static inline void irq_off(uint64_t *count)
{
	(*count)++;
	bulk_irqs_off = 1;
	barrier();
}
#define irq_disable(c) irq_off(&(c)->st.irq_pairs)
#define irq_save(c) irq_off(&(c)->st.irq_saves)

static inline void irq_enable(void)
{
	barrier();
	bulk_irqs_off = 0;
}

static inline struct kmem_cpu *cpu_of(struct bulk_cache *c)
{
	return slab_cpu_own(&c->s, &bulk_cpu);
}

int bulk_cache_create(struct bulk_cache **out, size_t size, size_t max_objects)
{
	struct bulk_cache *c;
	int ret;

	*out = NULL;
	if (size < 8 || size % 8 || size > (1u << 15)) {
		pr_err("slub-bulk-free: size: %zu is not a multiple of 8 up to 32768 (expected 8, 16, ...)",
		       size);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = slab_cache_init(&c->s, size, max_objects);
	if (ret < 0) {
		free(c);
		return ret;
	}
	/* fault the arena in: page faults are not what is measured */
	memset(c->s.map, 0, c->s.map_size);
	*out = c;
	return 0;
}

void bulk_cache_destroy(struct bulk_cache *c)
{
	if (!c)
		return;
	slab_cache_destroy(&c->s);
	free(c);
}

/* ---- slow paths: the slab layer's, counted (as CONFIG_SLUB_STATS) ---- */

static inline void free_slow(struct bulk_cache *c, size_t idx, void *head, void *tail,
			     unsigned cnt)
{
	c->st.free_slow++;
	slab_free_slow(&c->s, idx, head, tail, cnt);
}

/* ___slab_alloc with IRQs already off: refill the CPU freelist. */
static inline void *alloc_refill(struct bulk_cache *c, struct kmem_cpu *k)
{
	c->st.alloc_slow++;
	return slab_alloc_slow(&c->s, k);
}

/* __slab_alloc: local_irq_save / restore around the refill. */
static __attribute__((noinline)) void *alloc_slow(struct bulk_cache *c, struct kmem_cpu *k)
{
	void *o;

	irq_save(c);
	o = alloc_refill(c, k);
	irq_enable();
	return o;
}

/* ---- fast paths: this_cpu_cmpxchg_double on {freelist, tid} ---- */

/* How the fast paths commit {freelist, tid}: COMMIT_PERCPU as the kernel
 * (this_cpu_cmpxchg_double); COMMIT_PLAIN, the fallback's twin: load both
 * words, compare, store both, with plain moves and the same control flow.
 * The twin is correct because only this thread touches its kmem_cpu (as the
 * IRQ-off analog); fallback minus twin is the commit's cost in context. */
enum commit { COMMIT_PERCPU, COMMIT_PLAIN };

static ALWAYS_INLINE bool cpu_commit(struct bulk_cache *c, struct kmem_cpu *k, uint64_t *old,
				      uint64_t nlo, uint64_t nhi, enum commit how)
{
	uint64_t lo, hi;

	if (how == COMMIT_PERCPU) {
		c->st.cpu_cmpxchg++;
		return arch_percpu_cmpxchg128(arch_percpu_offset(k), old, nlo, nhi);
	}
	c->st.plain_commits++;
	lo = arch_load(&k->freelist);
	hi = arch_load(&k->tid);
	if (lo != old[0] || hi != old[1]) {
		old[0] = lo;
		old[1] = hi;
		return false;
	}
	arch_store(&k->freelist, nlo);
	arch_store(&k->tid, nhi);
	return true;
}

#define COMMIT_KERNEL(c, k, old, nlo, nhi) cpu_commit(c, k, old, nlo, nhi, COMMIT_PERCPU)
#define COMMIT_TWIN(c, k, old, nlo, nhi) cpu_commit(c, k, old, nlo, nhi, COMMIT_PLAIN)
SLUB_TID_FASTPATHS(kernel, struct bulk_cache, cpu_of, alloc_slow, free_slow, COMMIT_KERNEL)
SLUB_TID_FASTPATHS(twin, struct bulk_cache, cpu_of, alloc_slow, free_slow, COMMIT_TWIN)

/* slab_alloc */
static ALWAYS_INLINE void *cache_alloc(struct bulk_cache *c, enum commit how)
{
	return how == COMMIT_PERCPU ? alloc_kernel(c) : alloc_twin(c);
}

/* slab_free: head..tail (cnt objects) of slab idx */
static ALWAYS_INLINE void cache_free(struct bulk_cache *c, size_t idx, void *head, void *tail,
				       unsigned cnt, enum commit how)
{
	if (how == COMMIT_PERCPU)
		free_kernel(c, idx, head, tail, cnt);
	else
		free_twin(c, idx, head, tail, cnt);
}

/* ---- the bulk algorithms ---- */

static ALWAYS_INLINE void free_one_by_one(struct bulk_cache *c, size_t n, void **p,
					    enum commit how)
{
	for (size_t i = 0; i < n; i++)
		cache_free(c, slab_index(&c->s, p[i]), p[i], p[i], 1, how);
}

static ALWAYS_INLINE int alloc_one_by_one(struct bulk_cache *c, size_t n, void **p,
					   enum commit how)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = cache_alloc(c, how);
		if (unlikely(!p[i])) {
			free_one_by_one(c, i, p, how);
			return -ENOMEM;
		}
	}
	return 0;
}

/* kmem_cache_alloc_bulk through 6/7 ("slub: improve bulk alloc strategy"):
 * IRQs off around the loop, objects taken from the CPU freelist with plain
 * loads and stores; when it is empty, IRQs on around __slab_alloc (which
 * saves and restores them itself), whose side effect refills the CPU
 * freelist, then off again and on taking. v43: the v4.3 one, IRQs off
 * throughout, the refill included. */
static ALWAYS_INLINE int alloc_bulk(struct bulk_cache *c, size_t n, void **p, bool v43)
{
	struct kmem_cpu *k;

	irq_disable(c);
	k = cpu_of(c);
	for (size_t i = 0; i < n; i++) {
		void *o = k->freelist;

		if (unlikely(!o)) {
			if (!v43) {
				k->tid += SLUB_TID_STEP;
				irq_enable();
			}
			p[i] = v43 ? alloc_refill(c, k) : alloc_slow(c, k);
			if (unlikely(!p[i])) {
				if (v43)
					irq_enable();
				free_one_by_one(c, i, p, COMMIT_PERCPU);
				return -ENOMEM;
			}
			if (!v43)
				irq_disable(c);
			continue;
		}
		k->freelist = slab_next(o);
		p[i] = o;
	}
	k->tid += SLUB_TID_STEP;
	irq_enable();
	return 0;
}

/* The posted kmem_cache_free_bulk ("slub: initial bulk free implementation"):
 * IRQs off around the loop; an object of another slab than the CPU's goes
 * to __slab_free (a locked cmpxchg16b on the slab's pair) with IRQs on. */
static void free_bulk_posted(struct bulk_cache *c, size_t n, void **p)
{
	struct kmem_cpu *k;

	irq_disable(c);
	k = cpu_of(c);
	for (size_t i = 0; i < n; i++) {
		void *o = p[i];
		size_t idx = slab_index(&c->s, o);

		if ((int64_t)idx == k->slab) {
			slab_set_next(o, k->freelist);
			k->freelist = o;
		} else {
			k->tid += SLUB_TID_STEP;
			irq_enable();
			free_slow(c, idx, o, o, 1);
			irq_disable(c);
		}
	}
	k->tid += SLUB_TID_STEP;
	irq_enable();
}

/* build_detached_freelist (v4.3): walk p[] backwards; the first object
 * fixes the slab; later ones of that slab are linked in front with plain
 * stores, others skipped; give up after 3 misses. Returns how many entries
 * of p[] are left to look at. */
static size_t build_detached(const struct bulk_cache *c, size_t n, void **p, size_t *idx,
			     void **head, void **tail, unsigned *cnt)
{
	size_t first_skipped = 0;
	int lookahead = 3;

	*head = *tail = NULL;
	*cnt = 0;
	*idx = 0;
	while (n--) {
		void *o = p[n];

		if (!o)
			continue;
		if (!*head) {
			*idx = slab_index(&c->s, o);
			slab_set_next(o, NULL);
			*head = *tail = o;
			*cnt = 1;
			p[n] = NULL;
			continue;
		}
		if (slab_index(&c->s, o) == *idx) {
			slab_set_next(o, *head);
			*head = o;
			(*cnt)++;
			p[n] = NULL;
			continue;
		}
		if (!--lookahead)
			break;
		if (!first_skipped)
			first_skipped = n + 1;
	}
	return first_skipped;
}

static void free_bulk_detached(struct bulk_cache *c, size_t n, void **p)
{
	while (n) {
		size_t idx;
		void *head, *tail;
		unsigned cnt;

		n = build_detached(c, n, p, &idx, &head, &tail, &cnt);
		if (!head)
			break;
		cache_free(c, idx, head, tail, cnt, COMMIT_PERCPU);
	}
}

int bulk_alloc(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p)
{
	switch (a) {
	case BULK_PREVIOUS:
	case BULK_POSTED:
		return alloc_bulk(c, n, p, false);
	case BULK_DETACHED:
		return alloc_bulk(c, n, p, true);
	case BULK_TWIN:
		return alloc_one_by_one(c, n, p, COMMIT_PLAIN);
	default:
		return alloc_one_by_one(c, n, p, COMMIT_PERCPU);
	}
}

void bulk_free(struct bulk_cache *c, enum bulk_algo a, size_t n, void **p)
{
	switch (a) {
	case BULK_POSTED:
		free_bulk_posted(c, n, p);
		break;
	case BULK_DETACHED:
		free_bulk_detached(c, n, p);
		break;
	case BULK_TWIN:
		free_one_by_one(c, n, p, COMMIT_PLAIN);
		break;
	default:
		free_one_by_one(c, n, p, COMMIT_PERCPU);
		break;
	}
}

size_t bulk_cache_free_objects(struct bulk_cache *c)
{
	size_t n = slab_free_in_slabs(&c->s);

	for (void *o = cpu_of(c)->freelist; o; o = slab_next(o))
		n++;
	return n;
}

int64_t bulk_cpu_slab(struct bulk_cache *c)
{
	return cpu_of(c)->slab;
}

/* ---- the what-if arithmetic ---- */

/* Commit messages of the series (i7-4790K, 4.00 GHz TSC): 7/7 "local_irq_
 * {disable,enable}: 7 cycles(tsc)", "local_irq_{save,restore}: 37
 * cycles(tsc)", "the fallback invokes this_cpu_cmpxchg() which is slightly
 * slower (9-cycles)"; 6/7 "expensive (37 cycles) local_irq_{save,restore}". */
const struct bulk_ops bulk_kernel_cost = { .irq_pair = 7, .irq_save = 37, .cpu_cmpxchg = 9 };
#define KERNEL_COST_SRC "commit messages of [PATCH 6/7] and [PATCH 7/7], i7-4790K, cycles(tsc) " \
			"of its 4.00 GHz TSC taken as core cycles"

void bulk_ops_per_object(const struct bulk_stats *s0, const struct bulk_stats *s1, double objs,
			 struct bulk_ops *o)
{
	o->irq_pair = (double)(s1->irq_pairs - s0->irq_pairs) / objs;
	o->irq_save = (double)(s1->irq_saves - s0->irq_saves) / objs;
	o->cpu_cmpxchg = (double)(s1->cpu_cmpxchg - s0->cpu_cmpxchg) / objs;
}

double bulk_whatif(double ticks, const struct bulk_ops *n, const struct bulk_ops *model,
		   const struct bulk_ops *kernel, double ticks_per_cycle)
{
	return ticks + ticks_per_cycle * (n->irq_pair * (kernel->irq_pair - model->irq_pair) +
					  n->irq_save * (kernel->irq_save - model->irq_save) +
					  n->cpu_cmpxchg * (kernel->cpu_cmpxchg - model->cpu_cmpxchg));
}

double bulk_commit_in_context(double fallback_ticks, double twin_ticks, double commits,
			      double ticks_per_cycle)
{
	return (fallback_ticks - twin_ticks) / commits / ticks_per_cycle;
}

/* ---- the scoring ---- */

/* Ticks for `rounds` rounds of alloc + free of `bulk` objects, less the
 * fixed timer-pair cost. */
static __attribute__((noinline)) int time_rounds(struct bulk_cache *c, enum bulk_algo a, void **p,
						 size_t bulk, size_t rounds, double overhead,
						 double *ticks)
{
	uint64_t t0, t1;
	int ret = 0;

	t0 = arch_timer_start();
	for (size_t r = 0; r < rounds && !ret; r++) {
		ret = bulk_alloc(c, a, bulk, p);
		if (!ret)
			bulk_free(c, a, bulk, p);
	}
	t1 = arch_timer_stop();
	*ticks = (double)(t1 - t0) - overhead;
	if (ret < 0)
		pr_err("slub-bulk-free: the model ran out of slabs at bulk %zu (%s)", bulk,
		       bulk_algo_names[a]);
	return ret;
}

/* Per bulk size: ticks per object of each algorithm in each pass (a pass
 * runs every algorithm once, in alternating order), the pass's CPU share
 * (the least of its loops'), the medians, and the priced ops per object. */
struct bulk_run {
	size_t bulk;
	double pass[BULK__COUNT][JUDGE_MAX_EPOCHS];
	double share[JUDGE_MAX_EPOCHS];
	double med[BULK__COUNT];
	struct bulk_ops ops[BULK__COUNT];
};

/* One scoring: the experiment's keys, the model's priced ops (core cycles
 * per op), ticks per core cycle, the main table per bulk size, and what
 * the timed loops run: rounds of alloc + free of the `bulk` objects p[]
 * (pool NULL), or the many-slab case (free only). */
struct bulk_score {
	struct repro_ctx *rc;
	uint64_t bulks[MAX_BULK_SIZES];
	size_t nb, size, objects, reps, spread;
	struct bulk_ops model;
	double tpc;
	struct bulk_run *res;
	struct bulk_cache *c;
	size_t bulk, rounds, redone;	/* redone: loops taken again (disturbed) */
	double overhead;	/* the fixed timer-pair cost, ticks */
	void **pool;		/* the many-slab case: spread * objs objects */
	uint64_t cursor;
	void *p[MAX_BULK];
	size_t slot[MAX_BULK], slot_slab[MAX_BULK];	/* where p[] came from in the pool */
	bool used[MAX_BULK];
};

/* The many-slab case: put freed objects back in their pool slots
 * (untimed, and its counts left out of c->st): allocate as many again (they
 * come back from the partial slabs) and give each the slot of a freed
 * object of the same slab. */
static int refill_pool(struct bulk_score *x)
{
	struct bulk_cache *c = x->c;
	struct bulk_stats counts = c->st;

	for (size_t j = 0; j < x->bulk; j++)
		x->used[j] = false;
	for (size_t j = 0; j < x->bulk; j++) {
		void *o = cache_alloc(c, COMMIT_PERCPU);
		size_t idx, k;

		if (!o)
			return -ENOMEM;
		idx = slab_index(&c->s, o);
		for (k = 0; k < x->bulk; k++)
			if (!x->used[k] && x->slot_slab[k] == idx)
				break;
		if (k == x->bulk) {
			pr_err("slub-bulk-free: object %p came back from slab %zu, which lost none", o, idx);
			return -EIO;
		}
		x->used[k] = true;
		x->pool[x->slot[k]] = o;
	}
	c->st = counts;
	return 0;
}

/* Free only, `bulk` objects each from a different slab (of spread) per
 * round, one timer pair per round (its fixed cost subtracted); the refill
 * is untimed. */
static int time_spread(struct bulk_score *x, enum bulk_algo a, double *ticks)
{
	struct bulk_cache *c = x->c;
	double sum = 0;
	int ret;

	for (size_t r = 0; r < x->rounds; r++) {
		uint64_t t0, t1;

		for (size_t j = 0; j < x->bulk; j++, x->cursor++) {
			size_t g = x->cursor;

			x->slot[j] = (g % x->spread) * c->s.objs + (g / x->spread) % c->s.objs;
			x->p[j] = x->pool[x->slot[j]];
			x->slot_slab[j] = slab_index(&c->s, x->p[j]);
		}
		t0 = arch_timer_start();
		bulk_free(c, a, x->bulk, x->p);
		t1 = arch_timer_stop();
		sum += (double)(t1 - t0) - x->overhead;
		ret = refill_pool(x);
		if (ret < 0)
			return ret;
	}
	*ticks = sum;
	return 0;
}

/* One loop of algorithm a, taken again until clean (repro_figure_again);
 * ticks per object, the loop's CPU share and its ops per object. */
static int time_loop(struct bulk_score *x, enum bulk_algo a, double *per_obj, double *share,
		     struct bulk_ops *ops)
{
	struct repro_figure f = { .pt = x->rc->patience };
	struct bulk_stats s0;
	double ticks, objs = (double)(x->rounds * x->bulk);
	int ret;

	do {
		s0 = x->c->st;
		repro_figure_start(&f);
		ret = x->pool ? time_spread(x, a, &ticks)
			      : time_rounds(x->c, a, x->p, x->bulk, x->rounds, x->overhead, &ticks);
		if (ret < 0)
			return ret;
	} while (repro_figure_again(&f, share));
	x->redone += f.tries - 1;
	*per_obj = ticks / objs;
	bulk_ops_per_object(&s0, &x->c->st, objs, ops);
	return 0;
}

/* x->reps passes of the algorithms algos[0..na) into r. */
static int run_passes(struct bulk_score *x, const enum bulk_algo *algos, size_t na, struct bulk_run *r)
{
	char what[64];

	snprintf(what, sizeof(what), "bulk %zu%s", x->bulk, x->pool ? ", many slabs" : "");
	r->bulk = x->bulk;
	for (size_t k = 0; k < x->reps; k++) {
		struct quiet_mark ps;
		json_t *figs;
		double least;

		do {
			/* the pass's share is its least clean loop's (the
			 * tries taken again are not the pass's figures) */
			least = 1;
			quiet_start(&ps);
			for (size_t i = 0; i < na; i++) {
				enum bulk_algo a = algos[k & 1 ? na - 1 - i : i];
				double share;
				int ret = time_loop(x, a, &r->pass[a][k], &share, &r->ops[a]);

				if (ret < 0)
					return ret;
				least = fmin(least, share);
			}
			figs = json_object();
			for (size_t i = 0; i < na; i++)
				json_object_set_new(figs, bulk_algo_names[algos[i]],
						    report_real(r->pass[algos[i]][k]));
			r->share[k] = least;
		} while (repro_pass_again(x->rc, &ps, r->share[k], what, k, figs));
	}
	for (size_t i = 0; i < na; i++)
		r->med[algos[i]] = stats_median(r->pass[algos[i]], x->reps);
	return 0;
}

/* The priced ops of the model, core cycles per op: the IRQ analogs and the
 * commit chain, each timed 64 to a loop iteration on a scratch cache. */
static __attribute__((noinline)) uint64_t time_irq_pairs(uint64_t *count, size_t n)
{
	uint64_t t0 = arch_timer_start();

#define PAIR(k) irq_off(count); irq_enable();
	for (size_t i = 0; i < n; i += 64) {
		OPS64(PAIR)
	}
#undef PAIR
	return arch_timer_stop() - t0;
}

/* A chain of this_cpu_cmpxchg_double commits {freelist, tid} -> {freelist,
 * tid + step}, each reading what the previous one wrote, as the fast paths do. */
static __attribute__((noinline)) uint64_t time_commits(struct bulk_cache *c, size_t n)
{
	struct kmem_cpu *k = cpu_of(c);
	uint64_t t0 = arch_timer_start();

#define COMMIT(j) {								\
		uint64_t o_[2] = { (uint64_t)(uintptr_t)k->freelist, k->tid };	\
		cpu_commit(c, k, o_, o_[0], o_[1] + SLUB_TID_STEP, COMMIT_PERCPU); \
	}
	for (size_t i = 0; i < n; i += 64) {
		OPS64(COMMIT)
	}
#undef COMMIT
	return arch_timer_stop() - t0;
}

static int measure_model_cost(const struct calibration *cal, struct bulk_ops *m)
{
	const size_t n = 1u << 16;
	struct bulk_cache *c;
	double t[3][5];
	int ret = bulk_cache_create(&c, 256, 64);

	if (ret < 0)
		return ret;
	for (int k = 0; k < 5; k++)
		for (int i = 0; i < 3; i++)	/* pairs, saves, commits */
			t[i][k] = repro_cycles_per_op((double)(i < 2 ? time_irq_pairs(i ? &c->st.irq_saves :
										       &c->st.irq_pairs, n)
								     : time_commits(c, n)),
						      cal->overhead_min, (double)n, cal->ticks_per_cycle);
	m->irq_pair = stats_median(t[0], 5);
	m->irq_save = stats_median(t[1], 5);
	m->cpu_cmpxchg = stats_median(t[2], 5);
	bulk_cache_destroy(c);
	return 0;
}

/* Published, Jesper Dangaard Brouer, 16 Jun 2015: the cover letter's table
 * (fallback vs the patchset) and the compare against the previous patch. */
static const struct repro_row posted_rows[] = {
	{ "1", { 47, 45 }, NULL },	{ "2", { 46, 28 }, NULL },	{ "3", { 46, 22 }, NULL },
	{ "4", { 45, 19 }, NULL },	{ "8", { 45, 17 }, NULL },	{ "16", { 44, 17 }, NULL },
	{ "30", { 75, 57 }, NULL },	{ "32", { 73, 56 }, NULL },	{ "34", { 75, 58 }, NULL },
	{ "48", { 80, 64 }, NULL },	{ "64", { 87, 74 }, NULL },	{ "128", { 98, 89 }, NULL },
	{ "158", { 101, 93 }, NULL },	{ "250", { 104, 100 }, NULL },
};
static const struct repro_row previous_rows[] = {
	{ "1", { 49, 43 }, NULL }, { "2", { 37, 26 }, NULL }, { "3", { 33, 21 }, NULL },
	{ "4", { 31, 18 }, NULL }, { "8", { 30, 17 }, NULL }, { "16", { 32, 17 }, NULL },
};
#define SRC_2015 "Jesper Dangaard Brouer, netdev/linux-mm, 16 Jun 2015, \"[PATCH 7/7] slub: initial " \
		 "bulk free implementation\""
#define MACHINE_2015 "not named in the post (TSC 3.94 GHz from its cycles/ns; the series' commit " \
		     "messages name an i7-4790K), kernel of June 2015 + the series"
static const struct repro_table posted_2015 = {
	.title = "bulk alloc + free, per object: fallback bulking vs fastpath-bulking (series 1-7/7)",
	.source = SRC_2015, .machine = MACHINE_2015, .unit = "cycles(tsc) per object",
	.ncols = 2, .cols = { "fallback", "bulking" },
	.nrows = ARRAY_SIZE(posted_rows), .rows = posted_rows,
};
static const struct repro_table previous_2015 = {
	.title = "previous patch (through 6/7: bulk alloc, free one by one) vs this patch (7/7: bulk "
		 "free too)",
	.source = SRC_2015, .machine = MACHINE_2015, .unit = "cycles(tsc) per object",
	.ncols = 2, .cols = { "previous", "this" },
	.nrows = ARRAY_SIZE(previous_rows), .rows = previous_rows,
};
#define REVIEWER_WORDS "If most of objects comes from many different slabs, bulk free API does " \
		       "enabling/disabling interrupt very much so I guess it work worse than just " \
		       "calling __kmem_cache_free_bulk()"

/* How the model differs from the kernel the post ran (printed first). */
static const char *const deviations[] = {
	"user space, one pinned thread, no interrupts: local_irq_disable/enable and save/restore "
	"are a store to a thread-local byte and a compiler barrier (the kernel's cli/sti and "
	"pushf/cli/popf cost more: the what-if below prices them)",
	"this_cpu_cmpxchg_double is an unlocked cmpxchg16b %fs: on thread-local data (the commit "
	"message's 9 cycles are for this_cpu_cmpxchg, one word)",
	"slabs come from a pre-faulted arena and are never given back; no per-CPU partial lists, "
	"NUMA nodes, debugging or memcg; the partial list's lock is a spinlock without irqsave",
	"the priced ops count themselves (as CONFIG_SLUB_STATS), in every path; the counts are "
	"part of the measured analog and commit costs",
	"the post's object size is not in the seed: 256 bytes here (the size of the series' "
	"later benchmarks)",
};

int bulk_geometry_text(char *buf, size_t len, size_t size, unsigned cpus_here)
{
	unsigned sh_here, sh_post;
	unsigned here = slab_geometry(size, cpus_here, &sh_here);
	unsigned post = slab_geometry(size, BULK_POST_CPUS, &sh_post);

	return snprintf(buf, len, "objects per %zu-byte slab: %u here (%u CPU%s: at least %u "
			"objects, order %u), %u on the series' %s (named in its commit messages; "
			"%u threads: at least %u, order %u)%s",
			size, here, cpus_here, cpus_here == 1 ? "" : "s", slab_min_objects(cpus_here),
			sh_here - 12, post, BULK_POST_MACHINE, (unsigned)BULK_POST_CPUS,
			slab_min_objects(BULK_POST_CPUS), sh_post - 12,
			here == post ? "" : ": a bulk spans a second slab at a different size here "
					    "than there, and the table's steps move with it");
}

/* What this machine changes: the slab geometry, the many-slab case's
 * footprint against the L2. */
static void print_changes(struct bulk_score *x)
{
	char geo[400], spread[300], a[32], b[32], c[32];
	const char *items[] = { geo, spread };
	unsigned sh;

	slab_geometry(x->size, slab_model_cpus(), &sh);
	bulk_geometry_text(geo, sizeof(geo), x->size, slab_model_cpus());
	snprintf(spread, sizeof(spread), "the many-slab case frees into %zu slabs of %s, %s in all, "
		 "against this machine's L2 of %s (declared)", x->spread,
		 repro_bytes(a, sizeof(a), (size_t)1 << sh), repro_bytes(b, sizeof(b), x->spread << sh),
		 repro_bytes(c, sizeof(c), repro_cache(x->rc, 2)));
	repro_print_changes(x->rc, items, ARRAY_SIZE(items));
}

static void print_line(FILE *f, const struct calibration *cal, size_t bulk, double a, double b)
{
	fprintf(f, "%4zu - %3.0f cycles(tsc) %6.3f ns - %3.0f cycles(tsc) %6.3f ns improved %4.1f%%",
		bulk, a, clock_ticks_to_ns(cal, a), b, clock_ticks_to_ns(cal, b), (a - b) / a * 100.0);
}

/* The costs pass k of r is priced at, core cycles per op: the model's,
 * with the commit at its cost in context, from the pass's fallback and
 * plain-commit twin, where r has the twin (the main table; a twin pass is
 * never 0 ticks). */
static struct bulk_ops pass_costs(const struct bulk_score *x, const struct bulk_run *r, size_t k)
{
	struct bulk_ops m = x->model;
	double n = r->ops[BULK_FALLBACK].cpu_cmpxchg;

	if (r->pass[BULK_TWIN][k] != 0 && n > 0)
		m.cpu_cmpxchg = bulk_commit_in_context(r->pass[BULK_FALLBACK][k], r->pass[BULK_TWIN][k],
						       n, x->tpc);
	return m;
}

/* Median over the passes of the commit's cost in context, core cycles. */
static double commit_median(const struct bulk_score *x, const struct bulk_run *r)
{
	double v[JUDGE_MAX_EPOCHS];

	for (size_t k = 0; k < x->reps; k++)
		v[k] = pass_costs(x, r, k).cpu_cmpxchg;
	return stats_median(v, x->reps);
}

/* Median over the passes of algorithm a's what-if ticks per object (ratio
 * to b's when b is given: the median pass's ratio). */
static double whatif_median(const struct bulk_score *x, const struct bulk_run *r, enum bulk_algo a,
			    int b)
{
	double v[JUDGE_MAX_EPOCHS];

	for (size_t k = 0; k < x->reps; k++) {
		struct bulk_ops m = pass_costs(x, r, k);

		v[k] = bulk_whatif(r->pass[a][k], &r->ops[a], &m, &bulk_kernel_cost, x->tpc);
		if (b >= 0)
			v[k] /= bulk_whatif(r->pass[b][k], &r->ops[b], &m, &bulk_kernel_cost, x->tpc);
	}
	return stats_median(v, x->reps);
}

static double ratio_median(const double *a, const double *b, size_t n)
{
	double v[JUDGE_MAX_EPOCHS];

	for (size_t k = 0; k < n; k++)
		v[k] = a[k] / b[k];
	return stats_median(v, n);
}

static void print_costs(FILE *out, const struct bulk_ops *m)
{
	const struct bulk_ops *k = &bulk_kernel_cost;

	fprintf(out, "Priced ops, core cycles per op (here: median of 5 timed loops of 65536; "
		     "kernel: %s)\n"
		     "  op                              model's form                here  kernel\n"
		     "  local_irq_disable + enable      byte stores (analog)      %6.2f  %6.0f\n"
		     "  local_irq_save + restore        byte stores (analog)      %6.2f  %6.0f\n"
		     "  this_cpu_cmpxchg_double         cmpxchg16b %%fs:, chained  %6.2f  %6.0f  "
		     "(isolated latency; the what-if prices the commit in context)\n\n",
		KERNEL_COST_SRC, m->irq_pair, k->irq_pair, m->irq_save, k->irq_save, m->cpu_cmpxchg,
		k->cpu_cmpxchg);
}

static json_t *ops_json(const struct bulk_ops *o)
{
	return json_pack("{s:f,s:f,s:f}", "irq_pairs", o->irq_pair, "irq_saves", o->irq_save,
			 "cpu_cmpxchg", o->cpu_cmpxchg);
}

static void json_main_row(const struct bulk_score *x, json_t *arr, const struct bulk_run *r)
{
	static const char *const what[] = { "ticks", "passes", "ops_per_object", "whatif_ticks" };
	json_t *j = json_pack("{s:I}", "bulk", (json_int_t)r->bulk);

	for (int a = 0; a < BULK__COUNT; a++) {
		json_t *v[] = { json_real(r->med[a]), repro_doubles_json(r->pass[a], x->reps),
				ops_json(&r->ops[a]), json_real(whatif_median(x, r, a, -1)) };

		for (size_t i = 0; i < ARRAY_SIZE(what); i++) {
			char key[40];

			snprintf(key, sizeof(key), "%s_%s", bulk_algo_names[a], what[i]);
			json_object_set_new(j, key, v[i]);
		}
	}
	json_object_set_new(j, "commit_in_context_cycles", json_real(commit_median(x, r)));
	json_object_set_new(j, "pass_cpu_share", repro_doubles_json(r->share, x->reps));
	json_array_append_new(arr, j);
}

static int run_main(struct bulk_score *x)
{
	static const enum bulk_algo algos[] = { BULK_FALLBACK, BULK_PREVIOUS, BULK_POSTED,
						BULK_DETACHED, BULK_TWIN };
	json_t *jmain = json_array();
	int ret;

	repro_doc_own(x->rc->doc, "main", jmain);
	ret = bulk_cache_create(&x->c, x->size, 2 * MAX_BULK + 64);
	if (ret < 0)
		return ret;
	fprintf(x->rc->out, "SLUB bulk alloc + free (atomcost user-space model of v4.1 SLUB + the "
			    "series, object %zu bytes, %u per slab, %zu objects per timed loop, median "
			    "of %zu passes),\ntimer ticks (\"cycles(tsc)\", as the post) per object\n",
		x->size, x->c->s.objs, x->objects, x->reps);
	fprintf(x->rc->out, "Bulk - Fallback bulking           - fastpath-bulking (1-7/7)           "
			    "| previous (1-6/7) | later: detached | fallback, plain commit (twin)\n");
	for (size_t i = 0; i < x->nb && !ret; i++) {
		struct bulk_run *r = &x->res[i];
		double tk;

		x->bulk = x->bulks[i];
		x->rounds = (x->objects + x->bulk - 1) / x->bulk;
		/* warm: slabs in use, the CPU slab set */
		for (int a = 0; a < BULK__COUNT && !ret; a++)
			ret = time_rounds(x->c, (enum bulk_algo)a, x->p, x->bulk, x->rounds / 8 + 1, 0, &tk);
		if (!ret)
			ret = run_passes(x, algos, BULK__COUNT, r);
		if (ret < 0)
			break;
		print_line(x->rc->out, x->rc->cal, x->bulk, r->med[BULK_FALLBACK], r->med[BULK_POSTED]);
		fprintf(x->rc->out, " | %3.0f cycles(tsc)   | %3.0f cycles(tsc)  | %3.0f cycles(tsc)\n",
			r->med[BULK_PREVIOUS], r->med[BULK_DETACHED], r->med[BULK_TWIN]);
		fflush(x->rc->out);
		json_main_row(x, jmain, r);
	}
	if (!ret)
		fprintf(x->rc->out, "(%zu timed loops taken again: the thread was preempted or lost its CPU during "
				    "them)\n", x->redone);
	bulk_cache_destroy(x->c);
	x->c = NULL;
	return ret;
}

/* pub beside the medians of a and b (pub's two columns) at every bulk
 * size, or (only_pub) at those pub has. */
static int print_beside(const struct bulk_score *x, const struct repro_table *pub,
			enum bulk_algo a, enum bulk_algo b, bool only_pub)
{
	const struct bulk_run *res = x->res;
	struct repro_row rows[MAX_BULK_SIZES];
	char labels[MAX_BULK_SIZES][16], unit[96];
	struct repro_table m = {
		.title = pub->title, .machine = x->rc->machine ? x->rc->machine : "this machine",
		.unit = unit, .ncols = 2, .cols = { pub->cols[0], pub->cols[1] }, .rows = rows,
	};

	for (size_t i = 0; i < x->nb; i++) {
		snprintf(labels[i], sizeof(labels[i]), "%zu", res[i].bulk);
		if (!only_pub || repro_table_row(pub, labels[i]))
			rows[m.nrows++] = (struct repro_row){ labels[i],
				{ res[i].med[a], res[i].med[b] }, NULL };
	}
	snprintf(unit, sizeof(unit), "timer ticks per object (TSC %.2f GHz)",
		 x->rc->cal->timer_hz / 1e9);
	return repro_print_beside(x->rc->out, pub, &m);
}

/* The bulk-1 comparison, and the check of the what-if: the commit's cost in
 * context (the fallback against its plain-commit twin) and its share of the
 * fallback, beside the isolated chained latency the what-if does not use
 * (in context the commits overlap other work: over 100% it would leave the
 * what-if's fallback too low). */
static void whatif_bulk1(const struct bulk_score *x, const struct bulk_run *r, double mx,
			 double wx, double px, bool closer)
{
	double n = r->ops[BULK_FALLBACK].cpu_cmpxchg, fb = r->med[BULK_FALLBACK];
	double ctx = commit_median(x, r), tpc = x->tpc;
	const struct bulk_ops *model = &x->model;

	fprintf(x->rc->out, "       bulk 1: the measured model gives x%.2f, the what-if x%.2f, the post "
		     "x%.2f: the what-if is %s the post;\n       check: the commit in context costs "
		     "%.1f core cycles (fallback minus its plain-commit twin, %.2f commits per object: "
		     "%.1f of the fallback's %.1f timer ticks per object, %.0f%%); isolated, chained: "
		     "%.1f core cycles (%.0f%%); at the kernel's %.0f the what-if %s %.1f ticks per "
		     "object\n", mx, wx, px,
		closer ? "closer to" : "farther from", ctx, n,
		n * ctx * tpc, fb, 100 * n * ctx * tpc / fb, model->cpu_cmpxchg,
		100 * n * model->cpu_cmpxchg * tpc / fb, bulk_kernel_cost.cpu_cmpxchg,
		bulk_kernel_cost.cpu_cmpxchg >= ctx ? "adds" : "takes off",
		fabs(n * (bulk_kernel_cost.cpu_cmpxchg - ctx) * tpc));
}

/* The median over the bulk sizes of the commit's cost in context. */
static double commit_summary(const struct bulk_score *x)
{
	double v[MAX_BULK_SIZES];

	for (size_t i = 0; i < x->nb; i++)
		v[i] = commit_median(x, &x->res[i]);
	return stats_median(v, x->nb);
}

/* The what-if table: fallback and 1-7/7 as measured, with the priced ops
 * at the kernel's costs, and as published; all in timer ticks. */
static void print_whatif(const struct bulk_score *x)
{
	struct repro_ctx *rc = x->rc;
	size_t npub = 0, closer = 0;
	json_t *jw = json_array();

	repro_doc_own(rc->doc, "whatif", jw);
	fprintf(rc->out, "\nWHAT-IF (computed, not measured): the measured figures with each priced op "
			 "at the kernel's cost instead of the model's:\n  ticks + ops per object x "
			 "(kernel - here) core cycles x %.3f ticks per core cycle\n  unit: timer ticks per "
			 "object (TSC %.2f GHz here; the post's: its TSC, 3.94 GHz); x: bulking/fallback, "
			 "no unit\n", x->tpc, rc->cal->timer_hz / 1e9);
	fprintf(rc->out, "  here: this_cpu_cmpxchg_double at its cost in context, (fallback - its "
			 "plain-commit twin) / commits per object, per pass and bulk size (median %.1f "
			 "core cycles; not its isolated chained latency, %.1f); the IRQ analogs at their "
			 "isolated cost (no twin)\n", commit_summary(x), x->model.cpu_cmpxchg);
	fprintf(rc->out, "  Bulk | measured: fallback bulking      x | what-if: fallback bulking      x "
			 "| published: fallback bulking     x\n");
	for (size_t i = 0; i < x->nb; i++) {
		const struct bulk_run *r = &x->res[i];
		char label[16];
		const struct repro_row *pr;
		double mx = ratio_median(r->pass[BULK_POSTED], r->pass[BULK_FALLBACK], x->reps);
		double wf = whatif_median(x, r, BULK_FALLBACK, -1);
		double wp = whatif_median(x, r, BULK_POSTED, -1);
		double wx = whatif_median(x, r, BULK_POSTED, BULK_FALLBACK), px;
		bool c;

		snprintf(label, sizeof(label), "%zu", r->bulk);
		pr = repro_table_row(&posted_2015, label);
		px = pr ? pr->v[1] / pr->v[0] : 0.0;
		c = pr && fabs(log(wx / px)) < fabs(log(mx / px));
		fprintf(rc->out, "  %4zu |        %8.1f %7.1f  x%.2f |       %8.1f %7.1f  x%.2f", r->bulk,
			r->med[BULK_FALLBACK], r->med[BULK_POSTED], mx, wf, wp, wx);
		if (pr)
			fprintf(rc->out, " |         %8.0f %7.0f  x%.2f  what-if %s", pr->v[0], pr->v[1],
				px, c ? "closer" : "farther");
		fputc('\n', rc->out);
		npub += pr != NULL;
		closer += c;
		if (pr && r->bulk == 1)
			whatif_bulk1(x, r, mx, wx, px, c);
		json_array_append_new(jw, json_pack("{s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "bulk",
			(json_int_t)r->bulk, "fallback_ticks", wf, "posted_ticks", wp, "ratio", wx,
			"measured_ratio", mx, "published_ratio", px,
			"commit_in_context_cycles", commit_median(x, r)));
	}
	fprintf(rc->out, "  the what-if is closer to the post's bulking/fallback ratio at %zu of %zu "
			 "published bulk sizes\n", closer, npub);
}

/* The post's claims at a few bulk sizes, judged over the passes: a against
 * b, published as pub's row of the bulk size (v[1] a's, v[0] b's). */
static const struct {
	const char *a, *b;
	enum bulk_algo ea, eb;
	const struct repro_table *pub;	/* NULL: none */
	bool need_row, bulk1;		/* only where pub has the row; only at bulk 1 */
} bulk_claims[] = {
	/* the commit's cost in context, judged */
	{ "fallback bulking", "fallback, plain commit (twin)", BULK_FALLBACK, BULK_TWIN, NULL, 0, 1 },
	{ "bulk alloc + free (1-7/7)", "fallback bulking", BULK_POSTED, BULK_FALLBACK, &posted_2015,
	  0, 0 },
	{ "this patch (1-7/7)", "previous patch (1-6/7)", BULK_POSTED, BULK_PREVIOUS, &previous_2015,
	  1, 0 },
	{ "later detached freelists", "bulk alloc + free (1-7/7)", BULK_DETACHED, BULK_POSTED, NULL,
	  0, 0 },
};

static void conclude_main(const struct bulk_score *x)
{
	for (size_t i = 0; i < x->nb; i++) {
		const struct bulk_run *r = &x->res[i];
		char what[64], label[16];

		if (r->bulk != 1 && r->bulk != 8 && r->bulk != 16 && r->bulk != 64)
			continue;
		snprintf(label, sizeof(label), "%zu", r->bulk);
		snprintf(what, sizeof(what), "bulk %zu, per object", r->bulk);
		for (size_t k = 0; k < ARRAY_SIZE(bulk_claims); k++) {
			const struct repro_row *pr =
				bulk_claims[k].pub ? repro_table_row(bulk_claims[k].pub, label) : NULL;
			struct repro_claim cl = {
				.what = what, .a = bulk_claims[k].a, .b = bulk_claims[k].b,
				.unit = "cycles(tsc)", .pub_unit = "cycles(tsc)", .n = x->reps,
				.ea = r->pass[bulk_claims[k].ea], .eb = r->pass[bulk_claims[k].eb],
				.share = r->share, .pub_machine = "Brouer, 2015",
				.pub_a = pr ? pr->v[1] : NAN, .pub_b = pr ? pr->v[0] : NAN,
			};

			if ((bulk_claims[k].need_row && !pr) || (bulk_claims[k].bulk1 && r->bulk != 1))
				continue;
			repro_conclude(x->rc, &cl);
		}
	}
}

/* The reviewer's case at one bulk size: the claim over the passes, then
 * the what-if at the kernel's costs, in ticks. */
static void conclude_spread(const struct bulk_score *x, const struct bulk_run *r)
{
	char what[96];
	struct repro_claim cl = {
		.what = what, .a = "posted bulk free", .b = "one-by-one free", .unit = "cycles(tsc)",
		.ea = r->pass[BULK_POSTED], .eb = r->pass[BULK_FALLBACK], .n = x->reps, .share = r->share,
		.pub_a = NAN, .pub_b = NAN, .pub_words = REVIEWER_WORDS,
		.pub_machine = "Joonsoo Kim, 16 Jun 2015",
	};
	const struct bulk_ops *n = &r->ops[BULK_POSTED];

	snprintf(what, sizeof(what), "many slabs, bulk %zu, per object", r->bulk);
	repro_conclude(x->rc, &cl);
	fprintf(x->rc->out, "  WHAT-IF (computed): at the kernel's costs the posted free's %.2f IRQ "
			    "disable/enable pairs per object would add %.1f timer ticks per object: "
			    "%.1f against %.1f ticks for one-by-one free (x%.2f)\n", n->irq_pair,
		n->irq_pair * (bulk_kernel_cost.irq_pair - x->model.irq_pair) * x->tpc,
		whatif_median(x, r, BULK_POSTED, -1), whatif_median(x, r, BULK_FALLBACK, -1),
		whatif_median(x, r, BULK_POSTED, BULK_FALLBACK));
}

static int run_spread(struct bulk_score *x)
{
	static const enum bulk_algo algos[] = { BULK_FALLBACK, BULK_POSTED, BULK_DETACHED };
	struct repro_ctx *rc = x->rc;
	size_t nslabs = x->spread;
	struct bulk_run run = { 0 }, *r = &run;
	json_t *jspread = json_array();
	int ret;

	repro_doc_own(rc->doc, "spread", jspread);
	x->redone = 0;
	ret = bulk_cache_create(&x->c, x->size, (nslabs + 2) * (1u << 15) / x->size + MAX_BULK);
	if (!ret && !(x->pool = malloc(nslabs * x->c->s.objs * sizeof(void *))))
		ret = -ENOMEM;
	if (!ret)
		ret = bulk_alloc(x->c, BULK_FALLBACK, nslabs * x->c->s.objs, x->pool);
	if (ret < 0)
		goto out;
	fprintf(rc->out, "\nThe reviewer's case (Joonsoo Kim): every object of a bulk from a different "
			 "slab (%zu slabs), free only (one timer pair per bulk, its %.0f ticks "
			 "subtracted),\ntimer ticks (\"cycles(tsc)\") per object, median of %zu passes\n"
			 "Bulk - one by one (fallback)   - posted bulk free (1-7/7)          "
			 "| IRQ pairs per object | later: detached\n", nslabs, x->overhead, x->reps);
	for (size_t i = 0; i < x->nb && !ret; i++) {
		x->bulk = x->bulks[i];
		x->rounds = (x->objects / 4 + x->bulk - 1) / x->bulk;
		if (x->bulk > nslabs) {
			fprintf(rc->out, "%4zu - skipped: more than the %zu slabs\n", x->bulk, nslabs);
			continue;
		}
		ret = run_passes(x, algos, ARRAY_SIZE(algos), r);
		if (ret < 0)
			break;
		print_line(rc->out, rc->cal, x->bulk, r->med[BULK_FALLBACK], r->med[BULK_POSTED]);
		fprintf(rc->out, " | %.2f | %3.0f cycles(tsc)\n", r->ops[BULK_POSTED].irq_pair,
			r->med[BULK_DETACHED]);
		json_array_append_new(jspread, json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "bulk",
			(json_int_t)x->bulk, "slabs", (json_int_t)nslabs, "one_by_one_ticks",
			r->med[BULK_FALLBACK], "posted_ticks", r->med[BULK_POSTED], "detached_ticks",
			r->med[BULK_DETACHED], "irq_pairs_per_object", r->ops[BULK_POSTED].irq_pair,
			"posted_whatif_ticks", whatif_median(x, r, BULK_POSTED, -1),
			"one_by_one_whatif_ticks", whatif_median(x, r, BULK_FALLBACK, -1)));
		if (x->bulk == 16 || x->bulk == 64 || x->bulk == 250 || i + 1 == x->nb)
			conclude_spread(x, r);
		fflush(rc->out);
	}
	if (!ret)
		fprintf(rc->out, "(%zu timed loops taken again: the thread was preempted or lost its CPU during "
				 "them)\n", x->redone);
out:
	free(x->pool);
	bulk_cache_destroy(x->c);
	return ret;
}

/* The post's test in atomcost.ko (kernel/prims.c): kmem_cache_alloc/free
 * one by one and kmem_cache_alloc_bulk/free_bulk at the listed bulk sizes
 * (object size 256), each bulk size judged against one by one. */
static int run_kernel(struct bulk_score *x, const char *sec)
{
	char name[MAX_BULK_SIZES][40], *probes[MAX_BULK_SIZES + 1] = { "kmem_cache_alloc" };
	struct repro_kclaim claims[MAX_BULK_SIZES];
	struct repro_kernel k = { .sec = sec, .probes = probes, .claims = claims, .nclaims = x->nb,
		.nprobes = x->nb + 1, .title = "In the kernel: kmem_cache_alloc/free one by one and in bulk",
		.pub = "the post's table is above (timer ticks, alloc and free each)" };

	for (size_t i = 0; i < x->nb; i++) {
		snprintf(name[i], sizeof(name[i]), "kmem_cache_alloc_bulk:%llu", (unsigned long long)x->bulks[i]);
		probes[i + 1] = name[i];
		claims[i] = (struct repro_kclaim){ "per object allocated and freed", name[i], probes[0] };
	}
	return repro_kernel_run(x->rc, &k);
}

static int repro_bulk_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slub-bulk-free";
	struct bulk_score *x = calloc(1, sizeof(*x));
	int ret = 0;

	if (!x)
		return -ENOMEM;
	x->rc = rc;
	x->tpc = rc->cal->ticks_per_cycle;
	x->overhead = rc->cal->overhead_min;

	x->nb = config_u64_list(e, sec, "bulk", x->bulks, MAX_BULK_SIZES);
	x->size = config_u64(e, sec, "size");
	x->objects = config_u64(e, sec, "objects");
	x->reps = config_u64(e, sec, "passes");
	x->spread = config_u64(e, sec, "spread_slabs");
	repro_doc_own(rc->doc, "unit", json_string("timer ticks per object (cycles(tsc))"));
	for (size_t i = 0; i < x->nb && !ret; i++)
		if (x->bulks[i] > MAX_BULK) {
			pr_err("%s: bulk: %llu is more than %d", sec, (unsigned long long)x->bulks[i],
			       MAX_BULK);
			ret = -EINVAL;
		}
	x->res = calloc(x->nb ? x->nb : 1, sizeof(*x->res));
	if (!ret)
		ret = x->res ? measure_model_cost(rc->cal, &x->model) : -ENOMEM;
	if (ret < 0)
		goto out;
	repro_print_list(rc->out, "The model's deviations from the kernel the post ran:", deviations,
			 ARRAY_SIZE(deviations));
	print_changes(x);
	print_costs(rc->out, &x->model);
	repro_doc_own(rc->doc, "priced_ops", json_pack("{s:o,s:o,s:s,s:s}", "model_cycles",
		ops_json(&x->model), "kernel_cycles", ops_json(&bulk_kernel_cost), "kernel_source",
		KERNEL_COST_SRC, "model_form", "thread-local byte store + compiler barrier per "
		"cli/sti; cmpxchg16b %fs: chained on {freelist, tid}"));
	ret = run_main(x);
	if (ret < 0)
		goto out;
	fputc('\n', rc->out);
	ret = print_beside(x, &posted_2015, BULK_FALLBACK, BULK_POSTED, false);
	if (!ret)
		ret = print_beside(x, &previous_2015, BULK_PREVIOUS, BULK_POSTED, true);
	if (ret < 0)
		goto out;
	print_whatif(x);
	conclude_main(x);
	if (x->spread) {
		/* no twin there: the commit at the main table's cost in context */
		x->model.cpu_cmpxchg = commit_summary(x);
		ret = run_spread(x);
	}
	if (ret == 0)
		ret = run_kernel(x, sec);
out:
	free(x->res);
	free(x);
	return ret;
}

const struct repro repro_slub_bulk_free = {
	.kind = "slub-bulk-free", .seed = "slub-bulk-free-2015", .run = repro_bulk_run,
	.source = "Jesper Dangaard Brouer / Joonsoo Kim, linux-mm, 16 Jun 2015, "
		  "\"Re: [PATCH 7/7] slub: initial bulk free implementation\"",
	REPRO_KEYS(
	{ "slub-bulk-free", "bulk", CFG_U64_LIST, "1,2,3,4,8,16,30,32,34,48,64,128,158,250", NULL, 1, 4096, NULL,
	  "bulk sizes (2015: 1..250)" },
	{ "slub-bulk-free", "size", CFG_U64, "256", NULL, 8, 1 << 16, NULL,
	  "object size, bytes" },
	{ "slub-bulk-free", "objects", CFG_U64, "100000", NULL, 1000, 100000000, NULL,
	  "objects freed per timed loop (rounds = objects / bulk)" },
	{ "slub-bulk-free", "passes", CFG_U64, "5", NULL, 2, 64, NULL,
	  "passes, each running every algorithm (order alternating); conclusions judge the "
	  "passes' paired figures" },
	{ "slub-bulk-free", "spread_slabs", CFG_U64, "256", NULL, 0, 65536, NULL,
	  "the reviewer's case: objects taken from this many different slabs (0: skip)" },
	REPRO_CONTEXT_KEY("slub-bulk-free")),
};
