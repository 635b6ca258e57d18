/* SPDX-License-Identifier: MIT */
/* test-has.c - every has bit is named, and names its key: a part written
 * by report_to_json with one bit of its has set holds that key and no
 * other, for every bit below the part's count. Keys are named by the
 * enums of result.h and sections.h, so a key inserted in an enum (and its
 * table row) moves none of these, and a table reordered or a hole left
 * in it fails here. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "harness.h"
#include "report.h"
#include "sections.h"

enum part { P_HS, P_HL, P_HP, P_HE, P_HPG, P_HT, P_SL, P_SLK, P_SLR, P_C2O, P_C2P, P_C2S, P_C2M, P_C2MET,
	    P_CZ, P_CZS, P_EP, P_CP, P_CT, P__COUNT };

static const struct {
	const char *name;
	unsigned count;
} parts[P__COUNT] = {
	[P_HS] = { "hierarchy", HS__COUNT }, [P_HL] = { "hierarchy level", HL__COUNT },
	[P_HP] = { "hierarchy point", HP__COUNT }, [P_HE] = { "hierarchy epoch", HE__COUNT },
	[P_HPG] = { "hierarchy pages", HPG__COUNT }, [P_HT] = { "hierarchy tlb", HT__COUNT },
	[P_SL] = { "splitlock", SL__COUNT }, [P_SLK] = { "splitlock kernel", SLK__COUNT },
	[P_SLR] = { "splitlock denominator", SLR__COUNT }, [P_C2O] = { "c2c", C2O__COUNT },
	[P_C2P] = { "c2c pair", C2P__COUNT }, [P_C2S] = { "c2c summary", C2S__COUNT },
	[P_C2M] = { "c2c matrix", C2M__COUNT }, [P_C2MET] = { "c2c methods", C2C__COUNT },
	[P_CZ] = { "characterization", CZ__COUNT }, [P_CZS] = { "characterization step", CZS__COUNT },
	[P_EP] = { "epoch", EP__COUNT }, [P_CP] = { "contention", CP__COUNT },
	[P_CT] = { "contention thread", CT__COUNT },
};

static const struct key_case {
	enum part part;
	unsigned bit;
	const char *key;
} cases[] = {
	{ P_HS, HS_METHOD, "method" }, { P_HS, HS_CPU, "cpu" }, { P_HS, HS_SEED, "seed" },
	{ P_HS, HS_TPC, "ticks_per_cycle" }, { P_HS, HS_TIMER_HZ, "timer_hz" }, { P_HS, HS_PAGES, "pages" },
	{ P_HS, HS_MAX, "max_footprint" }, { P_HS, HS_MAX_REASON, "max_reason" }, { P_HS, HS_PASSES, "passes" },
	{ P_HS, HS_EPOCHS, "epochs" }, { P_HS, HS_PLANNED, "epochs_planned" },
	{ P_HS, HS_INTERRUPTED, "interrupted" }, { P_HS, HS_MEMORY, "reached_memory" },
	{ P_HS, HS_TRUNCATED, "truncated" }, { P_HS, HS_DISAGREES, "disagrees_with_hwloc" },
	{ P_HS, HS_ELAPSED, "elapsed_s" }, { P_HS, HS_POINTS, "points" }, { P_HS, HS_LEVELS, "levels" },
	{ P_HS, HS_SHELVES, "shelves" }, { P_HS, HS_UNSTABLE, "unstable" }, { P_HS, HS_HWLOC, "hwloc_caches" },
	{ P_HS, HS_PER_EPOCH, "per_epoch" }, { P_HS, HS_TLB, "tlb" },
	{ P_HL, HL_LEVEL, "level" }, { P_HL, HL_MEMORY, "memory" }, { P_HL, HL_CYCLES, "cycles" },
	{ P_HL, HL_NS, "ns" }, { P_HL, HL_FIRST, "first_bytes" }, { P_HL, HL_LAST, "last_bytes" },
	{ P_HL, HL_SEEN, "epochs_seen" }, { P_HL, HL_INNER_CYCLES, "inner_step_cycles" },
	{ P_HL, HL_INNER_NS, "inner_step_ns" }, { P_HL, HL_INNER_FROM, "inner_step_from_bytes" },
	{ P_HL, HL_INNER_TO, "inner_step_to_bytes" }, { P_HL, HL_WALK, "walk_bytes" },
	{ P_HL, HL_SIZE, "size_bytes" }, { P_HL, HL_SIZE_LO, "size_lo" }, { P_HL, HL_SIZE_HI, "size_hi" },
	{ P_HL, HL_SIZE_MIN, "size_min" }, { P_HL, HL_SIZE_MAX, "size_max" }, { P_HL, HL_HWLOC_SIZE, "hwloc_size" },
	{ P_HL, HL_AGREES, "agrees" }, { P_HL, HL_EFFECTIVE_SHARE, "effective_share" },
	{ P_HP, HP_BYTES, "bytes" }, { P_HP, HP_CYCLES, "cycles" }, { P_HP, HP_CYCLES_MIN, "cycles_min" },
	{ P_HP, HP_NS, "ns" }, { P_HP, HP_SPREAD, "epoch_spread" }, { P_HP, HP_PASS_SPREAD, "pass_spread" },
	{ P_HP, HP_SAMPLES, "samples" }, { P_HP, HP_LOADS, "loads_per_sample" },
	{ P_HE, HE_CACHES, "caches" }, { P_HE, HE_MEMORY, "memory" }, { P_HE, HE_CACHE_SIZES, "cache_sizes" },
	{ P_HE, HE_HUGE_BYTES, "huge_bytes" }, { P_HE, HE_CYCLES, "cycles" },
	{ P_HPG, HPG_SOURCE, "source" }, { P_HPG, HPG_THP_MODE, "thp_mode" },
	{ P_HPG, HPG_HUGE_REQUESTED, "huge_requested" }, { P_HPG, HPG_HUGE_BYTES, "huge_bytes" },
	{ P_HPG, HPG_PAGE_BYTES, "page_bytes" },
	{ P_HT, HT_METHOD, "method" }, { P_HT, HT_COMPARED_TO, "compared_to_bytes" },
	{ P_HT, HT_REACH, "reach_bytes" }, { P_HT, HT_CYCLES_4K, "cycles_4k" },
	{ P_SL, SL_SKIPPED, "skipped" }, { P_SL, SL_SUPPORTED, "supported" },
	{ P_SL, SL_UNSUPPORTED, "unsupported" }, { P_SL, SL_INSN, "insn" }, { P_SL, SL_OFFSET, "split_offset" },
	{ P_SL, SL_KERNEL, "kernel" }, { P_SL, SL_SIGBUS, "sigbus" }, { P_SL, SL_THROTTLED, "throttled" },
	{ P_SL, SL_SPLIT_OPS, "split_ops" }, { P_SL, SL_ALIGNED_OPS, "aligned_ops" },
	{ P_SL, SL_SPLIT_NS, "split_ns" }, { P_SL, SL_SPLIT_CYCLES, "split_cycles" },
	{ P_SL, SL_SPLIT_MIN, "split_min_cycles" }, { P_SL, SL_ALIGNED_NS, "aligned_ns" },
	{ P_SL, SL_ALIGNED_CYCLES, "aligned_cycles" }, { P_SL, SL_ALIGNED_MIN, "aligned_min_cycles" },
	{ P_SL, SL_RATIO, "ratio" }, { P_SL, SL_DENOMINATOR, "ratio_denominator" },
	{ P_SL, SL_MISALIGNED_OFFSET, "misaligned_offset" }, { P_SL, SL_MISALIGNED_CYCLES, "misaligned_cycles" },
	{ P_SL, SL_MISALIGNED_NS, "misaligned_ns" }, { P_SL, SL_SWITCHES, "voluntary_switches" },
	{ P_SL, SL_ELAPSED, "elapsed_s" },
	{ P_SLK, SLK_MODE, "mode" }, { P_SLK, SLK_WHY, "why" },
	{ P_SLK, SLK_FLAG_SPLIT_LOCK, "flag_split_lock_detect" },
	{ P_SLK, SLK_FLAG_BUS_LOCK, "flag_bus_lock_detect" }, { P_SLK, SLK_CMDLINE, "cmdline" },
	{ P_SLK, SLK_MITIGATE, "split_lock_mitigate" },
	{ P_SLR, SLR_WHAT, "what" }, { P_SLR, SLR_CYCLES, "cycles" }, { P_SLR, SLR_NS, "ns" },
	{ P_C2O, C2O_FLAT_UNIT, "unit" }, { P_C2O, C2O_FLAT_CPUS, "cpus" }, { P_C2O, C2O_SCHEMA, "schema" },
	{ P_C2O, C2O_MODE, "mode" }, { P_C2O, C2O_CAL, "calibration" }, { P_C2O, C2O_TOPOLOGY, "topology" },
	{ P_C2O, C2O_ROUNDS, "rounds_per_sample" }, { P_C2O, C2O_METHODS, "methods" },
	{ P_C2O, C2O_PAIRS, "pairs" }, { P_C2O, C2O_ABSENT, "absent_classes" }, { P_C2O, C2O_MATRIX, "matrix" },
	{ P_C2O, C2O_FLAT_MATRIX, "matrix" },
	{ P_C2P, C2P_CLASS, "class" }, { P_C2P, C2P_CPU_A, "cpu_a" }, { P_C2P, C2P_CPU_B, "cpu_b" },
	{ P_C2P, C2P_METHOD, "method" }, { P_C2P, C2P_TRANSFERS, "transfers_per_round_trip" },
	{ P_C2P, C2P_SAMPLES, "samples" }, { P_C2P, C2P_TIMED_OUT, "timed_out" },
	{ P_C2P, C2P_TICKS, "round_trip_ticks" }, { P_C2P, C2P_NS, "round_trip_ns" },
	{ P_C2P, C2P_CYCLES, "round_trip_cycles" }, { P_C2P, C2P_ONE_WAY_NS, "one_way_ns" },
	{ P_C2S, C2S_MIN, "min" }, { P_C2S, C2S_P10, "p10" }, { P_C2S, C2S_MEDIAN, "median" },
	{ P_C2S, C2S_P90, "p90" }, { P_C2S, C2S_MAX, "max" },
	{ P_C2M, C2M_CPUS, "cpus" }, { P_C2M, C2M_UNIT, "unit" },
	{ P_C2M, C2M_MATRIX + C2C_CMPXCHG, "cmpxchg" }, { P_C2M, C2M_MATRIX + C2C_LOADSTORE, "load_store" },
	{ P_C2MET, C2C_CMPXCHG, "cmpxchg" }, { P_C2MET, C2C_LOADSTORE, "load-store" },
	{ P_CZ, CZ_STEPS, "steps" }, { P_CZ, CZ_PATTERN_SIZES, "pattern_sizes" }, { P_CZ, CZ_COMPLETE, "complete" },
	{ P_CZ, CZ_CPU, "cpu" }, { P_CZ, CZ_CPU_WHY, "cpu_why" }, { P_CZ, CZ_PATIENCE, "patience_s" },
	{ P_CZ, CZ_WAITED, "waited_s" }, { P_CZ, CZ_REPEATED, "repeated" },
	{ P_CZ, CZ_KEPT_DISTURBED, "kept_disturbed" }, { P_CZ, CZ_KEPT_WHY, "kept_why" },
	{ P_CZ, CZ_LEFT_OUT, "left_out" },
	{ P_CZS, CZS_STEP, "step" }, { P_CZS, CZS_SECONDS, "seconds" }, { P_CZS, CZS_STATUS, "status" },
	{ P_EP, EP_EPOCH, "epoch" }, { P_EP, EP_STEP, "step" }, { P_EP, EP_TICKS_PER_CYCLE, "ticks_per_cycle" },
	{ P_EP, EP_TIMER_HZ, "timer_hz" }, { P_EP, EP_WALL, "wall_s" }, { P_EP, EP_CPU_SHARE, "cpu_share" },
	{ P_EP, EP_PARTIAL, "partial" }, { P_EP, EP_RERUN, "rerun" },
	{ P_CP, CP_THREADS, "threads" }, { P_CP, CP_PLACEMENT, "placement" }, { P_CP, CP_SHARING, "sharing" },
	{ P_CP, CP_DURATION, "duration_s" }, { P_CP, CP_SLOT_STRIDE, "slot_stride_bytes" },
	{ P_CP, CP_CS_WORK, "cs_work" }, { P_CP, CP_OUTSIDE_WORK, "outside_work" },
	{ P_CP, CP_TOTAL_OPS, "total_ops" }, { P_CP, CP_THREAD_TICKS, "thread_ticks_per_op" },
	{ P_CP, CP_THREAD_NS, "thread_ns_per_op" }, { P_CP, CP_AGGREGATE_TICKS, "aggregate_ticks_per_op" },
	{ P_CP, CP_AGGREGATE_NS, "aggregate_ns_per_op" }, { P_CP, CP_FAIRNESS_CV, "fairness_cv" },
	{ P_CP, CP_OVERLAP, "overlap" }, { P_CP, CP_CPU_WALL_MIN, "cpu_wall_min" },
	{ P_CP, CP_OVERLAPPED, "overlapped" }, { P_CP, CP_STOPPING, "stopping" },
	{ P_CP, CP_PER_THREAD, "per_thread" },
	{ P_CT, CT_CPU_OS, "cpu_os" }, { P_CT, CT_CPU_LOGICAL, "cpu_logical" }, { P_CT, CT_OPS, "ops" },
	{ P_CT, CT_TICKS_PER_OP, "ticks_per_op" }, { P_CT, CT_NS_PER_OP, "ns_per_op" }, { P_CT, CT_CPU_S, "cpu_s" },
	{ P_CT, CT_CPU_WALL, "cpu_wall" }, { P_CT, CT_START_TICK, "start_tick" }, { P_CT, CT_END_TICK, "end_tick" },
	{ P_CT, CT_MIGRATED, "migrated" },
};

/* Everything a part hangs from, zeroed; the part's has set to has and its
 * parents' to the one key that leads to it. */
struct doc {
	struct report rep;
	struct result row;
	struct hierarchy_section hier;
	struct splitlock_section split;
	struct c2c_out c2c;
	struct c2c_pair_out pair;
	struct characterization_meta charz;
	struct epoch_out epoch;
	struct contention_thread thread;
};

static void hier_fill(struct doc *d, enum part p, unsigned has)
{
	struct hierarchy_section *h = &d->hier;
	static const unsigned via[] = { [P_HL] = 1u << HS_LEVELS, [P_HP] = 1u << HS_POINTS,
		[P_HE] = 1u << HS_PER_EPOCH, [P_HPG] = 1u << HS_PAGES, [P_HT] = 1u << HS_TLB };

	d->rep.hier = h;
	h->has = p == P_HS ? has : via[p];
	h->nlevels = h->npoints = h->nper_epoch = 1;
	h->levels[0].has = p == P_HL ? has : 0;
	h->points[0].has = p == P_HP ? has : 0;
	h->per_epoch[0].has = p == P_HE ? has : 0;
	h->pages.has = p == P_HPG ? has : 0;
	h->tlb.has = p == P_HT ? has : 0;
}

static void fill(struct doc *d, enum part p, unsigned has)
{
	memset(d, 0, sizeof(*d));
	d->rep.cal.ticks_per_cycle = 1;
	d->rep.cal.timer_hz = 1e9;
	snprintf(d->rep.cal.cycle_source, sizeof(d->rep.cal.cycle_source), "test");
	snprintf(d->rep.cal.timer, sizeof(d->rep.cal.timer), "test");
	if (p <= P_HT)
		hier_fill(d, p, has);
	d->rep.split = p >= P_SL && p <= P_SLR ? &d->split : NULL;
	d->split.has = p == P_SL ? has : p == P_SLK ? 1u << SL_KERNEL : 1u << SL_DENOMINATOR;
	d->split.kernel.has = p == P_SLK ? has : 0;
	d->split.ratio_denominator.has = p == P_SLR ? has : 0;
	d->rep.c2c = p >= P_C2O && p <= P_C2MET ? &d->c2c : NULL;
	d->c2c.has = p == P_C2O ? has : p == P_C2M ? 1u << C2O_MATRIX : p == P_C2MET ? 1u << C2O_METHODS :
		     1u << C2O_PAIRS;
	d->c2c.pairs = &d->pair;
	d->c2c.npairs = 1;
	d->pair.has = p == P_C2P ? has : 1u << C2P_TICKS;
	d->pair.ticks.has = p == P_C2S ? has : 0;
	d->c2c.matrix.has = p == P_C2M ? has : 0;
	d->c2c.methods.has = p == P_C2MET ? has : 0;
	d->rep.charz = p == P_CZ || p == P_CZS ? &d->charz : NULL;
	d->charz.has = p == P_CZ ? has : 1u << CZ_STEPS;
	d->charz.nsteps = 1;
	d->charz.steps[0].has = p == P_CZS ? has : 0;
	d->rep.epochs = p == P_EP ? &d->epoch : NULL;
	d->rep.nepochs = p == P_EP;
	d->epoch.has = has;
	d->rep.r = &d->row;
	d->rep.n = p == P_CP || p == P_CT;
	d->row.extra.has = 1u << RX_CONTENTION;
	d->row.extra.contention.has = p == P_CP ? has : 1u << CP_PER_THREAD;
	d->row.extra.contention.per = &d->thread;
	d->row.extra.contention.nper = 1;
	d->thread.has = has;
}

/* The part's object in the written report. */
static json_t *part_of(json_t *root, enum part p)
{
	json_t *h = json_object_get(root, "hierarchy"), *s = json_object_get(root, "splitlock");
	json_t *c = json_object_get(root, "c2c"), *m = json_object_get(root, "meta");
	json_t *pair = json_array_get(json_object_get(c, "pairs"), 0);
	json_t *cz = json_object_get(m, "characterization");
	json_t *x = json_object_get(json_object_get(json_array_get(json_object_get(root, "results"), 0),
						    "extra"), "contention");
	json_t *at[P__COUNT] = {
		[P_HS] = h, [P_HL] = json_array_get(json_object_get(h, "levels"), 0),
		[P_HP] = json_array_get(json_object_get(h, "points"), 0),
		[P_HE] = json_array_get(json_object_get(h, "per_epoch"), 0),
		[P_HPG] = json_object_get(h, "pages"), [P_HT] = json_object_get(h, "tlb"),
		[P_SL] = s, [P_SLK] = json_object_get(s, "kernel"),
		[P_SLR] = json_object_get(s, "ratio_denominator"), [P_C2O] = c, [P_C2P] = pair,
		[P_C2S] = json_object_get(pair, "round_trip_ticks"), [P_C2M] = json_object_get(c, "matrix"),
		[P_C2MET] = json_object_get(c, "methods"), [P_CZ] = cz,
		[P_CZS] = json_array_get(json_object_get(cz, "steps"), 0),
		[P_EP] = json_array_get(json_object_get(m, "epochs"), 0), [P_CP] = x,
		[P_CT] = json_array_get(json_object_get(x, "per_thread"), 0),
	};

	return at[p];
}

/* The one key part p has when written with has; "" when it has none,
 * "(n keys)" when several, "(no part)" when it was not written. */
static const char *key_of(enum part p, unsigned has)
{
	static struct doc d;
	static char buf[64];
	json_t *root, *o;
	const char *k = "(no part)";

	fill(&d, p, has);
	root = report_to_json(&d.rep);
	o = part_of(root, p);
	if (json_is_object(o) && json_object_size(o) == 1)
		snprintf(buf, sizeof(buf), "%s", json_object_iter_key(json_object_iter(o)));
	else if (json_is_object(o) && json_object_size(o))
		snprintf(buf, sizeof(buf), "(%zu keys)", json_object_size(o));
	else	/* an empty object, or null (JK_OBJN) */
		snprintf(buf, sizeof(buf), "%s", json_is_object(o) || json_is_null(o) ? "" : k);
	json_decref(root);
	return buf;
}

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct key_case *c = &cases[i];
		const char *k = key_of(c->part, 1u << c->bit);

		CHECK(!strcmp(k, c->key), "%s bit %u writes '%s', not '%s'", parts[c->part].name, c->bit, k,
		      c->key);
	}
	for (int p = 0; p < P__COUNT; p++) {
		for (unsigned b = 0; b < parts[p].count; b++)
			CHECK(key_of(p, 1u << b)[0] && key_of(p, 1u << b)[0] != '(',
			      "%s bit %u writes no key of its own: '%s'", parts[p].name, b, key_of(p, 1u << b));
		CHECK(!strcmp(key_of(p, 0), ""), "%s with has 0 writes '%s'", parts[p].name, key_of(p, 0));
	}
	return test_done("has");
}
