/* repro-slub-bulk.c - the 2015 SLUB bulk free scoring (seed
 * slub-bulk-free-2015) on the SLUB model of repro-slub.c.
 *
 * Main table, as Jesper Brouer's slab_bulk_test01: per round allocate `bulk`
 * objects one by one, then free them one by one ("fallback bulking") or with
 * kmem_cache_free_bulk (detached freelists, one cmpxchg per group); the
 * figure is timer ticks ("cycles(tsc)") and ns per object for the whole
 * alloc + free. The reviewer's case (Joonsoo Kim): the objects freed come
 * from many different slabs, so each group holds one object and bulk free
 * pays its look-ahead on top of a remote (locked) free per object; there only
 * the free is timed (the objects must be put back apart, untimed).
 */
#include "repro.h"

#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "common.h"
#include "stats.h"

#define MAX_BULK_SIZES 64

static __attribute__((noinline)) double time_main(struct slab_cache *s, void **p, size_t bulk,
						  size_t rounds, bool use_bulk)
{
	uint64_t t0 = arch_timer_start();

	for (size_t r = 0; r < rounds; r++) {
		for (size_t i = 0; i < bulk; i++)
			p[i] = slab_alloc(s, SLUB_LOCAL);
		if (use_bulk) {
			slab_free_bulk(s, bulk, p);
		} else {
			for (size_t i = 0; i < bulk; i++)
				slab_free(s, SLUB_LOCAL, p[i]);
		}
	}
	return (double)(arch_timer_stop() - t0);
}

/* Put the freed objects back into their pool slots (untimed): allocate as
 * many again (they come back from the partial slabs) and give each the slot
 * of a freed object of the same slab. */
static int refill(struct slab_cache *s, void **pool, const size_t *slot, size_t bulk,
		  size_t *slot_slab, bool *used)
{
	for (size_t j = 0; j < bulk; j++)
		used[j] = false;
	for (size_t j = 0; j < bulk; j++) {
		void *o = slab_alloc(s, SLUB_LOCAL);
		size_t idx, k;

		if (!o)
			return -ENOMEM;
		idx = slab_index(s, o);
		for (k = 0; k < bulk; k++)
			if (!used[k] && slot_slab[k] == idx)
				break;
		if (k == bulk) {
			pr_err("slub-bulk-free: object %p came back from slab %zu, which lost none", o, idx);
			return -EIO;
		}
		used[k] = true;
		pool[slot[k]] = o;
	}
	return 0;
}

static int time_spread(struct slab_cache *s, void **pool, size_t nslabs, size_t bulk, size_t rounds,
		       bool use_bulk, uint64_t *cursor, double *ticks)
{
	size_t slot[4096], slot_slab[4096];
	bool used[4096];
	void *p[4096];
	double sum = 0;
	int ret;

	for (size_t r = 0; r < rounds; r++) {
		uint64_t t0, t1;

		for (size_t j = 0; j < bulk; j++, (*cursor)++) {
			size_t g = *cursor;

			slot[j] = (g % nslabs) * s->objs + (g / nslabs) % s->objs;
			p[j] = pool[slot[j]];
			slot_slab[j] = slab_index(s, p[j]);
		}
		t0 = arch_timer_start();
		if (use_bulk) {
			slab_free_bulk(s, bulk, p);
		} else {
			for (size_t j = 0; j < bulk; j++)
				slab_free(s, SLUB_LOCAL, p[j]);
		}
		t1 = arch_timer_stop();
		sum += (double)(t1 - t0);
		ret = refill(s, pool, slot, bulk, slot_slab, used);
		if (ret < 0)
			return ret;
	}
	*ticks = sum;
	return 0;
}

static void print_line(FILE *f, const struct calibration *cal, size_t bulk, double a, double b)
{
	fprintf(f, "%4zu - %3.0f cycles(tsc) %6.3f ns - %3.0f cycles(tsc) %6.3f ns improved %4.1f%%\n",
		bulk, a, clock_ticks_to_ns(cal, a), b, clock_ticks_to_ns(cal, b), (a - b) / a * 100.0);
}

int repro_bulk_run(struct repro_ctx *rc)
{
	const struct experiment *e = rc->exp;
	const char *sec = "slub-bulk-free";
	uint64_t bulks[MAX_BULK_SIZES];
	size_t nb = config_u64_list(e, sec, "bulk", bulks, MAX_BULK_SIZES);
	size_t size = config_u64(e, sec, "size"), objects = config_u64(e, sec, "objects");
	size_t reps = config_u64(e, sec, "repeats"), spread = config_u64(e, sec, "spread_slabs");
	double *fa = malloc(reps * sizeof(double)), *fb = malloc(reps * sizeof(double));
	json_t *jmain = json_array(), *jspread = json_array();
	struct slab_cache s = { 0 };
	void **p = NULL, **pool = NULL;
	int ret = 0;

	json_object_set_new(rc->json, "main", jmain);
	json_object_set_new(rc->json, "spread", jspread);
	json_object_set_new(rc->json, "unit", json_string("timer ticks per object (cycles(tsc))"));
	if (!fa || !fb) {
		ret = -ENOMEM;
		goto out;
	}
	if (size % 8) {
		pr_err("%s: size: %zu is not a multiple of 8 (expected 8, 16, ...)", sec, size);
		ret = -EINVAL;
		goto out;
	}
	p = malloc(4096 * sizeof(void *));
	ret = slab_cache_init(&s, size, 4096 + (spread + 1) * 64);
	if (ret < 0 || !p) {
		ret = ret < 0 ? ret : -ENOMEM;
		goto out;
	}
	fprintf(rc->out, "SLUB bulk free (atomcost user-space model, object %zu bytes, %u per slab, "
			 "alloc+free per object, median of %zu)\n", size, s.objs, reps);
	fprintf(rc->out, "Bulk - Fallback bulking           - fastpath-bulking\n");
	for (size_t i = 0; i < nb; i++) {
		size_t bulk = bulks[i], rounds = (objects + bulk - 1) / bulk;
		double a, b;

		/* warm (faults the slabs in) */
		time_main(&s, p, bulk, rounds / 8 + 1, false);
		time_main(&s, p, bulk, rounds / 8 + 1, true);
		for (size_t r = 0; r < reps; r++) {
			fa[r] = time_main(&s, p, bulk, rounds, false) / (double)(rounds * bulk);
			fb[r] = time_main(&s, p, bulk, rounds, true) / (double)(rounds * bulk);
		}
		a = stats_median(fa, reps);
		b = stats_median(fb, reps);
		print_line(rc->out, rc->cal, bulk, a, b);
		fflush(rc->out);
		json_array_append_new(jmain, json_pack("{s:I,s:f,s:f,s:f}", "bulk", (json_int_t)bulk,
						       "fallback_ticks", a, "bulk_ticks", b,
						       "improved_pct", (a - b) / a * 100));
	}
	slab_cpu_flush(&s, SLUB_LOCAL);
	slab_cache_destroy(&s);

	if (spread) {
		size_t npool;
		uint64_t cursor = 0;

		ret = slab_cache_init(&s, size, (spread + 2) * 64 + 4096);
		if (ret < 0)
			goto out;
		npool = spread * s.objs;
		pool = malloc(npool * sizeof(void *));
		if (!pool) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t k = 0; k < npool; k++)
			pool[k] = slab_alloc(&s, SLUB_LOCAL);
		fprintf(rc->out, "\nReviewer's case: objects from %zu different slabs (free only, median of %zu)\n",
			spread, reps);
		fprintf(rc->out, "Bulk - one-by-one free            - bulk free\n");
		for (size_t i = 0; i < nb; i++) {
			size_t bulk = bulks[i], rounds = (objects / 4 + bulk - 1) / bulk;
			double a, b;

			for (size_t r = 0; r < reps && !ret; r++) {
				ret = time_spread(&s, pool, spread, bulk, rounds, false, &cursor, &fa[r]);
				if (!ret)
					ret = time_spread(&s, pool, spread, bulk, rounds, true, &cursor, &fb[r]);
				fa[r] /= (double)(rounds * bulk);
				fb[r] /= (double)(rounds * bulk);
			}
			if (ret < 0)
				goto out;
			a = stats_median(fa, reps);
			b = stats_median(fb, reps);
			print_line(rc->out, rc->cal, bulk, a, b);
			fflush(rc->out);
			json_array_append_new(jspread, json_pack("{s:I,s:I,s:f,s:f,s:f}", "bulk",
								 (json_int_t)bulk, "slabs", (json_int_t)spread,
								 "one_by_one_ticks", a, "bulk_ticks", b,
								 "improved_pct", (a - b) / a * 100));
		}
	}
out:
	slab_cache_destroy(&s);
	free(pool);
	free(p);
	free(fa);
	free(fb);
	return ret;
}
