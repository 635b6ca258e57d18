/* SPDX-License-Identifier: MIT */
/* report/json.c - the versioned JSON report (schema in README "JSON
 * report") and its reader. jansson does the escaping. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "card.h"
#include "common.h"
#include "build-config.h"
#include "compare-n.h"
#include "fingerprint.h"
#include "jscan.h"
#include "jtable.h"
#include "report.h"

/* A number of o (0 when absent or not a number, as jansson reads it). */
static double num_of(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* A string of o, dflt when absent or not a string. */
static const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

/* ---- the rows' extra (result.h): typed members, one table per object
 * (jtable.h) */
static const struct jfield sizes_f[] = {
	JM(struct result_cache_sizes, l1d, JK_INT), JM(struct result_cache_sizes, l2, JK_INT),
	JM(struct result_cache_sizes, llc, JK_INT),
};

#define PI(m, kind) JM(struct pattern_info, m, kind)
static const struct jfield pattern_f[] = {
	[PX_NAME] = PI(name, JK_STR), [PX_VARIANT] = PI(variant, JK_STR),
	[PX_FOOTPRINT] = PI(footprint_bytes, JK_INT), [PX_LINE] = PI(line_bytes, JK_INT),
	[PX_MEASURED] = JSUB(struct pattern_info, sizes, JK_OBJ, "measured", sizes_f),
	[PX_HWLOC] = JSUB(struct pattern_info, sizes, JK_OBJ, "hwloc", sizes_f),
	[PX_LINES] = PI(lines, JK_INT), [PX_PAGE] = PI(page_bytes, JK_INT), [PX_THP_MODE] = PI(thp_mode, JK_STR),
	[PX_THP_REQUESTED] = PI(thp_requested, JK_BOOL), [PX_THP_BYTES] = PI(thp_bytes, JK_INT),
	[PX_SEED] = PI(seed, JK_INT), [PX_NODE] = PI(node, JK_INTN), [PX_SETUP] = PI(setup_s, JK_REAL),
	[PX_MIX_K] = PI(mix_k, JK_INT), [PX_MIX_M] = PI(mix_m, JK_INT),
};

#define CT(m, kind) JM(struct contention_thread, m, kind)
static const struct jfield thread_f[] = {
	[CT_CPU_OS] = CT(cpu_os, JK_INT), [CT_CPU_LOGICAL] = CT(cpu_logical, JK_INT), [CT_OPS] = CT(ops, JK_INT),
	[CT_TICKS_PER_OP] = CT(ticks_per_op, JK_REAL), [CT_NS_PER_OP] = CT(ns_per_op, JK_REAL),
	[CT_CPU_S] = CT(cpu_s, JK_REAL), [CT_CPU_WALL] = CT(cpu_wall, JK_REAL),
	[CT_START_TICK] = CT(start_tick, JK_INT), [CT_END_TICK] = CT(end_tick, JK_INT),
	[CT_MIGRATED] = CT(migrated, JK_BOOL),
};
_Static_assert(ARRAY_SIZE(thread_f) == CT__COUNT, "one field per CT_* bit");

#define CP(m, kind) JM(struct contention_part, m, kind)
static const struct jfield contention_f[] = {
	[CP_THREADS] = CP(threads, JK_INT), [CP_PLACEMENT] = CP(placement, JK_STR),
	[CP_SHARING] = CP(sharing, JK_STR), [CP_DURATION] = CP(duration_s, JK_REAL),
	[CP_SLOT_STRIDE] = CP(slot_stride_bytes, JK_INT), [CP_CS_WORK] = CP(cs_work, JK_INT),
	[CP_OUTSIDE_WORK] = CP(outside_work, JK_INT), [CP_TOTAL_OPS] = CP(total_ops, JK_INT),
	[CP_THREAD_TICKS] = CP(thread_ticks_per_op, JK_REAL), [CP_THREAD_NS] = CP(thread_ns_per_op, JK_REAL),
	[CP_AGGREGATE_TICKS] = CP(aggregate_ticks_per_op, JK_REAL),
	[CP_AGGREGATE_NS] = CP(aggregate_ns_per_op, JK_REAL), [CP_FAIRNESS_CV] = CP(fairness_cv, JK_REAL),
	[CP_OVERLAP] = CP(overlap, JK_REAL), [CP_CPU_WALL_MIN] = CP(cpu_wall_min, JK_REAL),
	[CP_OVERLAPPED] = CP(overlapped, JK_BOOL), [CP_STOPPING] = CP(stopping, JK_STR),
	[CP_PER_THREAD] = JARR(struct contention_part, per, "per_thread", thread_f),
	[CP_HANDOVER_ACQ] = CP(handover_acquisitions, JK_INT), [CP_HANDOVER_SHARE] = CP(handover_share, JK_REAL),
	[CP_QUEUE_DEPTH] = CP(queue_depth, JK_REAL),
};
_Static_assert(ARRAY_SIZE(contention_f) == CP__COUNT, "one field per CP_* bit");

static const struct jfield self_check_f[] = {
	JM(struct result_self_check, expected_cycles, JK_REAL), JM(struct result_self_check, cycles, JK_REAL),
	JM(struct result_self_check, deviation, JK_REAL),
};

static const struct jfield mix_state_f[] = {
	JF(struct mix_state, value, JK_REAL, "ticks"), JM(struct mix_state, share, JK_REAL),
};

#define RX(m, kind) JM(struct result_extra, m, kind)
static const struct jfield extra_f[] = {
	[RX_MENU_NEED] = JAIN(struct result_extra, menu_need, nneed, JK_STRS, "menu_need", NULL),
	[RX_SAFE_WHEN] = RX(safe_when, JK_STR),
	[RX_DISTURBED] = JA(struct result_extra, disturbed_at, ndisturbed_at, JK_INTS,
			    "disturbed_samples", NULL),
	[RX_PATTERN] = JSUB(struct result_extra, pattern, JK_OBJ, "pattern", pattern_f),
	[RX_CHASE_STEP] = RX(chase_step, JK_STR),
	[RX_CHASE] = JF(struct result_extra, chase.bare, JK_REAL, "chase_cycles"),
	[RX_OVER_CHASE] = JF(struct result_extra, chase.over, JK_REAL, "over_chase_cycles"),
	[RX_LOAD] = JF(struct result_extra, load.bare, JK_REAL, "load_cycles"),
	[RX_OVER_LOAD] = JF(struct result_extra, load.over, JK_REAL, "over_load_cycles"),
	[RX_STORES] = JF(struct result_extra, stores.bare, JK_REAL, "stores_cycles"),
	[RX_OVER_STORES] = JF(struct result_extra, stores.over, JK_REAL, "over_stores_cycles"),
	[RX_CONTENTION] = JSUB(struct result_extra, contention, JK_OBJ, "contention", contention_f),
	[RX_NOTE] = RX(note, JK_STR),
	[RX_SELF_CHECK] = JSUB(struct result_extra, self_check, JK_OBJ, "self_check", self_check_f),
	[RX_STEP] = RX(step, JK_STR), [RX_EPOCH] = RX(epoch, JK_INT),
	[RX_PASS] = JF(struct result_extra, epoch, JK_INT, "pass"),	/* reports before epochs */
	[RX_PROCESS] = RX(process, JK_INT),
	[RX_MIXTURE] = JAIN(struct result_extra, mix.state, mix.nstates, JK_OBJS, "states",
			    JT(mix_state_f, sizeof(struct mix_state), false)),
};
static const struct jtable extra_t = JTABLE(extra_f, struct result_extra);

/* ---- a result's own keys, written in this order around its mode */
#define RS(m, kind, key) JF(struct result, m, kind, key)
static const struct jfield ident_f[] = {
	RS(name, JK_STR, "probe"), RS(twin, JK_STR, "twin"), RS(family, JK_STR, "family"),
	RS(atomicity, JK_STR, "atomicity"), RS(insn, JK_STR, "insn"), RS(pattern, JK_STR, "pattern"),
};
static const struct jtable ident_t = JPLAIN(ident_f, struct result);
static const struct jfield where_f[] = {
	RS(cpu_os, JK_INT, "os"), RS(cpu_logical, JK_INT, "logical"),
};
static const struct jfield run_f[] = {
	JFLAT("cpu", where_f), RS(iters, JK_INT, "iters"),
	RS(ops_per_sample, JK_INT, "ops_per_sample"), RS(overhead_ticks, JK_REAL, "overhead_ticks"),
	RS(clock_scale, JK_REAL, "clock_scale"), RS(warmup, JK_INT, "warmup_dropped"),
	RS(ci_reached, JK_BOOL, "ci_reached"), RS(migrated, JK_BOOL, "migrated"),
};
static const struct jtable run_t = JPLAIN(run_f, struct result);
static const struct jfield overhead_f[] = {
	RS(overhead_ticks, JK_REAL, "fixed_ticks"),
	RS(overhead_extrap_ticks, JK_REAL, "extrapolated_ticks"),
	RS(sample_min_ticks, JK_REAL, "sample_min_ticks"), RS(overhead_flag, JK_BOOL, "implausible"),
};
static const struct jtable overhead_t = JPLAIN(overhead_f, struct result);
#define EV(m, key) JF(struct result_event, m, JK_REAL, key)
static const struct jfield event_f[] = {
	EV(median, "median"), EV(mean, "mean"), EV(min, "min"), EV(max, "max"), EV(total, "total"),
	JF(struct result_event, n, JK_INT, "samples"),
};
static const struct jtable event_t = JPLAIN(event_f, struct result_event);
#define SW(m) JF(struct result_sweep, m, JK_REAL, #m)
static const struct jfield sweep_f[] = { SW(min), SW(p10), SW(median), SW(p90) };
static const struct jtable sweep_t = JPLAIN(sweep_f, struct result_sweep);

/* ---- the hierarchy section (sections.h): passes and pass_spread, of
 * reports before epochs, read into the epochs' members */
#define HPT(m, kind) JM(struct hier_point_out, m, kind)
static const struct jfield hs_point_f[] = {
	[HP_BYTES] = HPT(bytes, JK_INT), [HP_CYCLES] = HPT(cycles, JK_REAL), [HP_CYCLES_MIN] = HPT(cycles_min, JK_REAL),
	[HP_NS] = HPT(ns, JK_REAL), [HP_SPREAD] = JF(struct hier_point_out, spread, JK_REAL, "epoch_spread"),
	[HP_PASS_SPREAD] = JF(struct hier_point_out, spread, JK_REAL, "pass_spread"),
	[HP_SAMPLES] = HPT(samples, JK_INT), [HP_LOADS] = HPT(loads_per_sample, JK_INT),
};
_Static_assert(ARRAY_SIZE(hs_point_f) == HP__COUNT, "one field per HP_* bit");

#define HLV(m, kind) JM(struct hier_level_out, m, kind)
static const struct jfield hs_level_f[] = {
	[HL_LEVEL] = HLV(level, JK_STR), [HL_MEMORY] = HLV(memory, JK_BOOL), [HL_CYCLES] = HLV(cycles, JK_REAL),
	[HL_NS] = HLV(ns, JK_REAL), [HL_FIRST] = HLV(first_bytes, JK_INT), [HL_LAST] = HLV(last_bytes, JK_INT),
	[HL_SEEN] = HLV(epochs_seen, JK_INT),
	[HL_INNER_CYCLES] = JF(struct hier_level_out, inner_cycles, JK_REAL, "inner_step_cycles"),
	[HL_INNER_NS] = JF(struct hier_level_out, inner_ns, JK_REAL, "inner_step_ns"),
	[HL_INNER_FROM] = JF(struct hier_level_out, inner_from, JK_INT, "inner_step_from_bytes"),
	[HL_INNER_TO] = JF(struct hier_level_out, inner_to, JK_INT, "inner_step_to_bytes"),
	[HL_WALK] = HLV(walk_bytes, JK_INT), [HL_SIZE] = HLV(size_bytes, JK_INT), [HL_SIZE_LO] = HLV(size_lo, JK_INT),
	[HL_SIZE_HI] = HLV(size_hi, JK_INTN), [HL_SIZE_MIN] = HLV(size_min, JK_INTN),
	[HL_SIZE_MAX] = HLV(size_max, JK_INTN), [HL_HWLOC_SIZE] = HLV(hwloc_size, JK_INTN),
	[HL_AGREES] = HLV(agrees, JK_BOOL), [HL_EFFECTIVE_SHARE] = HLV(effective_share, JK_BOOL),
};
_Static_assert(ARRAY_SIZE(hs_level_f) == HL__COUNT, "one field per HL_* bit");

static const struct jfield hs_epoch_f[] = {
	[HE_CACHES] = JM(struct hier_epoch_out, caches, JK_INT), [HE_MEMORY] = JM(struct hier_epoch_out, memory, JK_BOOL),
	[HE_CACHE_SIZES] = JIN(struct hier_epoch_out, cache_sizes, JK_INTS, NULL),
	[HE_HUGE_BYTES] = JM(struct hier_epoch_out, huge_bytes, JK_INT),
	[HE_CYCLES] = JIN(struct hier_epoch_out, cycles, JK_REALS, NULL),
};
_Static_assert(ARRAY_SIZE(hs_epoch_f) == HE__COUNT, "one field per HE_* bit");

#define HPG(m, kind) JM(struct hier_pages_out, m, kind)
static const struct jfield hs_pages_f[] = {
	[HPG_SOURCE] = HPG(source, JK_STR), [HPG_THP_MODE] = HPG(thp_mode, JK_STR),
	[HPG_HUGE_REQUESTED] = HPG(huge_requested, JK_BOOL), [HPG_HUGE_BYTES] = HPG(huge_bytes, JK_INT),
	[HPG_PAGE_BYTES] = HPG(page_bytes, JK_INT),
};
_Static_assert(ARRAY_SIZE(hs_pages_f) == HPG__COUNT, "one field per HPG_* bit");
static const struct jfield hs_tlb_f[] = {
	[HT_METHOD] = JM(struct hier_tlb_out, method, JK_STR),
	[HT_COMPARED_TO] = JM(struct hier_tlb_out, compared_to_bytes, JK_INT),
	[HT_REACH] = JM(struct hier_tlb_out, reach_bytes, JK_INTN),
	[HT_CYCLES_4K] = JIN(struct hier_tlb_out, cycles_4k, JK_REALS, NULL),
};
_Static_assert(ARRAY_SIZE(hs_tlb_f) == HT__COUNT, "one field per HT_* bit");

#define HS(m, kind) JM(struct hierarchy_section, m, kind)
#define HSA(m, f) JINS(struct hierarchy_section, m, f)
static const struct jfield hs_f[] = {
	[HS_METHOD] = HS(method, JK_STR), [HS_CPU] = HS(cpu, JK_INT), [HS_SEED] = HS(seed, JK_INT),
	[HS_TPC] = HS(ticks_per_cycle, JK_REAL), [HS_TIMER_HZ] = HS(timer_hz, JK_REAL),
	[HS_PAGES] = JSUB(struct hierarchy_section, pages, JK_OBJ, "pages", hs_pages_f),
	[HS_MAX] = HS(max_footprint, JK_INT), [HS_MAX_REASON] = HS(max_reason, JK_STR),
	[HS_PASSES] = JF(struct hierarchy_section, epochs, JK_INT, "passes"), [HS_EPOCHS] = HS(epochs, JK_INT),
	[HS_PLANNED] = HS(epochs_planned, JK_INT), [HS_INTERRUPTED] = HS(interrupted, JK_BOOL),
	[HS_MEMORY] = HS(reached_memory, JK_BOOL), [HS_TRUNCATED] = HS(truncated, JK_BOOL),
	[HS_DISAGREES] = JF(struct hierarchy_section, disagrees, JK_BOOL, "disagrees_with_hwloc"),
	[HS_ELAPSED] = HS(elapsed_s, JK_REAL), [HS_POINTS] = HSA(points, hs_point_f),
	[HS_LEVELS] = HSA(levels, hs_level_f), [HS_SHELVES] = HSA(shelves, hs_level_f),
	[HS_UNSTABLE] = HSA(unstable, hs_level_f),
	[HS_HWLOC] = JIN(struct hierarchy_section, hwloc_caches, JK_INTS, NULL),
	[HS_PER_EPOCH] = HSA(per_epoch, hs_epoch_f),
	[HS_TLB] = JSUB(struct hierarchy_section, tlb, JK_OBJN, "tlb", hs_tlb_f),
};
_Static_assert(ARRAY_SIZE(hs_f) == HS__COUNT, "one field per HS_* bit");
static const struct jtable hs_t = JTABLE(hs_f, struct hierarchy_section);

/* ---- the split-lock section (sections.h) */
#define SLK(m, kind) JM(struct splitlock_kernel_out, m, kind)
static const struct jfield sl_kernel_f[] = {
	[SLK_MODE] = SLK(mode, JK_STR), [SLK_WHY] = SLK(why, JK_STR),
	[SLK_FLAG_SPLIT_LOCK] = SLK(flag_split_lock_detect, JK_BOOL),
	[SLK_FLAG_BUS_LOCK] = SLK(flag_bus_lock_detect, JK_BOOL), [SLK_CMDLINE] = SLK(cmdline, JK_STRN),
	[SLK_MITIGATE] = SLK(split_lock_mitigate, JK_INT),
};
_Static_assert(ARRAY_SIZE(sl_kernel_f) == SLK__COUNT, "one field per SLK_* bit");
static const struct jfield sl_ref_f[] = {
	[SLR_WHAT] = JM(struct splitlock_ref_out, what, JK_STR),
	[SLR_CYCLES] = JM(struct splitlock_ref_out, cycles, JK_REAL), [SLR_NS] = JM(struct splitlock_ref_out, ns, JK_REAL),
};
_Static_assert(ARRAY_SIZE(sl_ref_f) == SLR__COUNT, "one field per SLR_* bit");

#define SL(m, kind) JM(struct splitlock_section, m, kind)
static const struct jfield sl_f[] = {
	[SL_SKIPPED] = SL(skipped, JK_STR), [SL_SUPPORTED] = SL(supported, JK_BOOL),
	[SL_UNSUPPORTED] = SL(unsupported, JK_STR), [SL_INSN] = SL(insn, JK_STR),
	[SL_OFFSET] = SL(split_offset, JK_INT),
	[SL_KERNEL] = JSUB(struct splitlock_section, kernel, JK_OBJ, "kernel", sl_kernel_f),
	[SL_SIGBUS] = SL(sigbus, JK_BOOL), [SL_THROTTLED] = SL(throttled, JK_BOOL), [SL_SPLIT_OPS] = SL(split_ops, JK_INT),
	[SL_ALIGNED_OPS] = SL(aligned_ops, JK_INT), [SL_SPLIT_NS] = SL(split_ns, JK_REAL),
	[SL_SPLIT_CYCLES] = SL(split_cycles, JK_REAL), [SL_SPLIT_MIN] = SL(split_min_cycles, JK_REAL),
	[SL_ALIGNED_NS] = SL(aligned_ns, JK_REAL), [SL_ALIGNED_CYCLES] = SL(aligned_cycles, JK_REAL),
	[SL_ALIGNED_MIN] = SL(aligned_min_cycles, JK_REAL), [SL_RATIO] = SL(ratio, JK_REAL),
	[SL_DENOMINATOR] = JSUB(struct splitlock_section, ratio_denominator, JK_OBJ, "ratio_denominator", sl_ref_f),
	[SL_MISALIGNED_OFFSET] = SL(misaligned_offset, JK_INT), [SL_MISALIGNED_CYCLES] = SL(misaligned_cycles, JK_REAL),
	[SL_MISALIGNED_NS] = SL(misaligned_ns, JK_REAL), [SL_SWITCHES] = SL(voluntary_switches, JK_INT),
	[SL_ELAPSED] = SL(elapsed_s, JK_REAL),
};
_Static_assert(ARRAY_SIZE(sl_f) == SL__COUNT, "one field per SL_* bit");
static const struct jtable sl_t = JTABLE(sl_f, struct splitlock_section);

/* ---- the c2c section (sections.h), with its run's calibration as written */
#define CCK(m) JM(struct calibration_check_out, m, JK_REAL)
static const struct jfield cal_check_f[] = { CCK(expected_cycles), CCK(cycles), CCK(deviation) };
static const struct jfield cal_checks_f[] = {
	JM(struct calibration_checks_out, add_chain, JK_STR),
	JSUB(struct calibration_checks_out, imul_chain, JK_OBJ, "imul_chain", cal_check_f),
	JSUB(struct calibration_checks_out, l1_load_chase, JK_OBJ, "l1_load_chase", cal_check_f),
};

#define CAL(m, kind) JM(struct calibration_out, m, kind)
static const struct jfield calw_f[] = {
	CAL(timer_hz, JK_REAL), CAL(timer_hz_spread, JK_REAL), CAL(overhead_min_ticks, JK_REAL),
	CAL(overhead_median_ticks, JK_REAL), CAL(ticks_per_cycle, JK_REAL), CAL(ticks_per_cycle_mul, JK_REAL),
	CAL(chain_agreement, JK_REAL), CAL(core_hz, JK_REAL), CAL(cycle_source, JK_STR), CAL(timer, JK_STR),
	CAL(timer_invariant, JK_BOOL), CAL(trustworthy, JK_BOOL), CAL(cpu_os, JK_INT), CAL(mul_latency, JK_INTN),
	CAL(emulated, JK_BOOL), CAL(emulation, JK_STR),
	JSUB(struct calibration_out, self_checks, JK_OBJ, "self_checks", cal_checks_f),
};
static const struct jtable calw_t = JTABLE(calw_f, struct calibration_out);

#define C2S(m) JM(struct c2c_summary_out, m, JK_REAL)
static const struct jfield c2c_summary_f[] = {
	[C2S_MIN] = C2S(min), [C2S_P10] = C2S(p10), [C2S_MEDIAN] = C2S(median), [C2S_P90] = C2S(p90),
	[C2S_MAX] = C2S(max),
};
_Static_assert(ARRAY_SIZE(c2c_summary_f) == C2S__COUNT, "one field per C2S_* bit");

#define C2P(m, kind, key) JF(struct c2c_pair_out, m, kind, key)
static const struct jfield c2c_pair_f[] = {
	[C2P_CLASS] = C2P(cls, JK_STR, "class"), [C2P_CPU_A] = C2P(cpu_a, JK_INT, "cpu_a"),
	[C2P_CPU_B] = C2P(cpu_b, JK_INT, "cpu_b"), [C2P_METHOD] = C2P(method, JK_STR, "method"),
	[C2P_TRANSFERS] = C2P(transfers, JK_STR, "transfers_per_round_trip"),
	[C2P_SAMPLES] = C2P(samples, JK_INT, "samples"), [C2P_TIMED_OUT] = C2P(timed_out, JK_BOOL, "timed_out"),
	[C2P_TICKS] = JSUB(struct c2c_pair_out, ticks, JK_OBJN, "round_trip_ticks", c2c_summary_f),
	[C2P_NS] = JSUB(struct c2c_pair_out, ns, JK_OBJN, "round_trip_ns", c2c_summary_f),
	[C2P_CYCLES] = JSUB(struct c2c_pair_out, cycles, JK_OBJN, "round_trip_cycles", c2c_summary_f),
	[C2P_ONE_WAY_NS] = C2P(one_way_ns, JK_REAL, "one_way_ns"),
};
_Static_assert(ARRAY_SIZE(c2c_pair_f) == C2P__COUNT, "one field per C2P_* bit");

/* the methods and matrices are keyed by method (vocab.c's names, keys) */
static const struct jfield c2c_methods_f[] = {
	[C2C_CMPXCHG] = JF(struct c2c_methods_out, transfers[C2C_CMPXCHG], JK_STR, "cmpxchg"),
	[C2C_LOADSTORE] = JF(struct c2c_methods_out, transfers[C2C_LOADSTORE], JK_STR, "load-store"),
	[C2C_FLAGACK] = JF(struct c2c_methods_out, transfers[C2C_FLAGACK], JK_STR, "flag-ack"),
};
_Static_assert(ARRAY_SIZE(c2c_methods_f) == C2C__COUNT, "one field per method");
#define C2M(m, key) [C2M_MATRIX + m] = JA(struct c2c_matrix_out, v[m], nv[m], JK_MATRIX, key, NULL)
static const struct jfield c2c_matrix_f[] = {
	[C2M_CPUS] = JA(struct c2c_matrix_out, cpus, ncpus, JK_INTS, "cpus", NULL),
	[C2M_UNIT] = JM(struct c2c_matrix_out, unit, JK_STR), C2M(C2C_CMPXCHG, "cmpxchg"),
	C2M(C2C_LOADSTORE, "load_store"), C2M(C2C_FLAGACK, "flag_ack"),
};
_Static_assert(ARRAY_SIZE(c2c_matrix_f) == C2M__COUNT, "one field per C2M_* bit");

/* hand-made sections may have one matrix, its unit and CPUs beside it
 * (C2O_FLAT_*: unit, cpus and an array under "matrix") */
#define C2O(m, kind) JM(struct c2c_out, m, kind)
static const struct jfield c2c_f[] = {
	[C2O_FLAT_UNIT] = JF(struct c2c_out, matrix.unit, JK_STR, "unit"),
	[C2O_FLAT_CPUS] = JA(struct c2c_out, matrix.cpus, matrix.ncpus, JK_INTS, "cpus", NULL),
	[C2O_SCHEMA] = C2O(schema, JK_STR), [C2O_MODE] = C2O(mode, JK_STR),
	[C2O_CAL] = JSUB(struct c2c_out, cal, JK_OBJ, "calibration", calw_f),
	[C2O_TOPOLOGY] = C2O(topology, JK_STR), [C2O_ROUNDS] = C2O(rounds_per_sample, JK_INT),
	[C2O_METHODS] = JSUB(struct c2c_out, methods, JK_OBJ, "methods", c2c_methods_f),
	[C2O_PAIRS] = JARR(struct c2c_out, pairs, "pairs", c2c_pair_f),
	[C2O_ABSENT] = JAIN(struct c2c_out, absent, nabsent, JK_STRS, "absent_classes", NULL),
	[C2O_MATRIX] = JSUB(struct c2c_out, matrix, JK_OBJ, "matrix", c2c_matrix_f),
	[C2O_FLAT_MATRIX] = JA(struct c2c_out, matrix.v[0], matrix.nv[0], JK_MATRIX, "matrix", NULL),
};
_Static_assert(ARRAY_SIZE(c2c_f) == C2O__COUNT, "one field per C2O_* bit");
static const struct jtable c2c_t = JTABLE(c2c_f, struct c2c_out);

/* meta.characterization and meta.epochs (sections.h), the latter an array
 * of the report itself */
static const struct jfield charz_step_f[] = {
	[CZS_STEP] = JM(struct charz_step, step, JK_STR), [CZS_SECONDS] = JM(struct charz_step, seconds, JK_REAL),
	[CZS_STATUS] = JM(struct charz_step, status, JK_STR),
};
_Static_assert(ARRAY_SIZE(charz_step_f) == CZS__COUNT, "one field per CZS_* bit");
#define CZM(m, kind) JM(struct characterization_meta, m, kind)
static const struct jfield charz_f[] = {
	[CZ_STEPS] = JINS(struct characterization_meta, steps, charz_step_f),
	[CZ_PATTERN_SIZES] = CZM(pattern_sizes, JK_STR), [CZ_COMPLETE] = CZM(complete, JK_BOOL),
	[CZ_CPU] = CZM(cpu, JK_INT), [CZ_CPU_WHY] = CZM(cpu_why, JK_STR), [CZ_PATIENCE] = CZM(patience_s, JK_REAL),
	[CZ_WAITED] = CZM(waited_s, JK_REAL), [CZ_REPEATED] = CZM(repeated, JK_INT),
	[CZ_KEPT_DISTURBED] = CZM(kept_disturbed, JK_INT), [CZ_KEPT_WHY] = CZM(kept_why, JK_STRN),
	[CZ_LEFT_OUT] = CZM(left_out, JK_STRN),
};
_Static_assert(ARRAY_SIZE(charz_f) == CZ__COUNT, "one field per CZ_* bit");
static const struct jtable charz_t = JTABLE(charz_f, struct characterization_meta);

#define EPM(m, kind) JM(struct epoch_out, m, kind)
static const struct jfield epoch_f[] = {
	[EP_EPOCH] = EPM(epoch, JK_INT), [EP_STEP] = EPM(step, JK_STRN),
	[EP_TICKS_PER_CYCLE] = EPM(ticks_per_cycle, JK_REAL), [EP_TIMER_HZ] = EPM(timer_hz, JK_REAL),
	[EP_WALL] = EPM(wall_s, JK_REAL), [EP_CPU_SHARE] = EPM(cpu_share, JK_REAL),
	[EP_PARTIAL] = EPM(partial, JK_BOOL), [EP_RERUN] = EPM(rerun, JK_BOOL),
};
_Static_assert(ARRAY_SIZE(epoch_f) == EP__COUNT, "one field per EP_* bit");
static const struct jfield epochs_f = JARR(struct report, epochs, "epochs", epoch_f);
static const struct jtable epochs_t = { &epochs_f, 1, sizeof(struct report), false };

/* The typed sections, in the order a report has them; the others stay
 * JSON in rep->sections. */
static const struct typed_section {
	const char *key;
	const struct jtable *t;
	size_t off, doc_off;	/* of the pointer in struct report, in struct compare_n_doc */
} typed[] = {
	{ "hierarchy", &hs_t, offsetof(struct report, hier), offsetof(struct compare_n_doc, hier) },
	{ "splitlock", &sl_t, offsetof(struct report, split),
	  offsetof(struct compare_n_doc, split) },
	{ "c2c", &c2c_t, offsetof(struct report, c2c), offsetof(struct compare_n_doc, c2c) },
};

static json_t *obj_json(const struct jtable *t, const void *p, const void *root);

/* The count of f's array (a size_t, or an unsigned) beside its member m. */
static size_t count_of(const struct jfield *f, const char *m)
{
	const char *c = m - f->off + f->cnt;

	return f->csize == sizeof(unsigned) ? *(const unsigned *)(const void *)c : *(const size_t *)(const void *)c;
}

static json_t *item_json(const struct jfield *f, const char *m, size_t k, const void *root)
{
	const char *d = f->max ? m : *(char *const *)m;

	if (f->kind == JK_STRS)
		return json_string(m + k * f->size);
	if (f->kind == JK_INTS)
		return json_integer((json_int_t)((const size_t *)(const void *)d)[k]);
	if (f->kind == JK_REALS)
		return json_real(((const double *)(const void *)d)[k]);
	return obj_json(f->sub, d + k * f->sub->size, root);
}

static json_t *field_json(const struct jfield *f, const char *m, const void *root)
{
	size_t n = f->kind >= JK_STRS ? count_of(f, m) : 0;
	const double r = f->kind == JK_POS || f->kind == JK_REALN ? *(const double *)(const void *)m : 0;
	long long v = 0;
	json_t *a;

	if (f->kind == JK_INT || f->kind == JK_INTN)
		v = f->size == sizeof(int) ? *(const int *)m : *(const long long *)m;
	switch (f->kind) {
	case JK_INT:
		return json_integer(v);
	case JK_INTN:
		return v < 0 ? json_null() : json_integer(v);
	case JK_REAL:
		return json_real(*(const double *)(const void *)m);
	case JK_BOOL:
		return json_boolean(f->size == sizeof(bool) ? *(const bool *)m : *(const int *)m > 0);
	case JK_STR:
		return json_string(m);
	case JK_STRN:
		return *m ? json_string(m) : json_null();
	case JK_OBJ:
		return obj_json(f->sub, m, root);
	case JK_OBJN:
		if (f->sub->has ? !*(const unsigned *)(const void *)m : !*(void *const *)(const void *)m)
			return json_null();
		return obj_json(f->sub, m, root);
	case JK_PSTR:
		return *(const char *const *)(const void *)m ? json_string(*(const char *const *)(const void *)m) :
		       json_null();
	case JK_POS:
		return isfinite(r) && r > 0 ? json_real(r) : json_null();
	case JK_REALN:
		return report_real(r);
	case JK_HOOK:
		return f->hook->put(m, root);
	case JK_MATRIX:
		a = json_array();
		for (size_t i = 0; i < n; i++) {
			const double *x = *(double *const *)(const void *)m + i * n;
			json_t *row = json_array();

			for (size_t j = 0; j < n; j++)
				json_array_append_new(row, isnan(x[j]) ? json_null() : json_real(x[j]));
			json_array_append_new(a, row);
		}
		return a;
	default:
		if (f->opt && !n)
			return NULL;
		a = json_array();
		for (size_t k = 0; k < n; k++)
			json_array_append_new(a, item_json(f, m, k, root));
		return a;
	}
}

/* a NULL value leaves its key out */
static json_t *obj_json(const struct jtable *t, const void *p, const void *root)
{
	unsigned has = t->has ? *(const unsigned *)p : ~0u;
	json_t *o = json_object();

	for (size_t i = 0; i < t->n; i++)
		if (has & 1u << i)
			json_object_set_new(o, t->f[i].key, field_json(&t->f[i], (const char *)p + t->f[i].off, root));
	return o;
}

json_t *jtable_json(const struct jtable *t, const void *p)
{
	return obj_json(t, p, p);
}

/* ---- the tables over the bytes (jscan.h): the summary reader (summary.c)
 * builds no tree; a report's tree is read through them too (obj_read). */

/* A number as jansson's json_number_value (0 when not one), and the whole
 * number of it an integer field takes (-1 for null; a whole real as one). */
static int num_scan(struct jscan *s, double *x, long long *i, bool *integer)
{
	enum jscan_kind k = jscan_peek(s);
	struct jscan_num n = { 0 };	/* as it is when a cut number is refused */
	int ret;

	*x = 0;
	*i = k == JS_NULL ? -1 : 0;
	*integer = false;
	if (k != JS_NUMBER)
		return jscan_skip(s);
	ret = jscan_number(s, &n);
	*x = n.x;
	*i = n.integer ? n.i : fabs(n.x) < 9e18 ? (long long)n.x : 0;
	*integer = n.integer;
	return ret;
}

int jtable_str(struct jscan *s, char *m, size_t size)
{
	if (jscan_peek(s) == JS_STRING)
		return jscan_str(s, m, size);
	*m = '\0';
	return jscan_skip(s);
}

/* One item of f's array at d. */
static int item_scan(const struct jfield *f, struct jscan *s, char *d)
{
	double x;
	long long i;
	bool integer;
	int ret;

	switch (f->kind) {
	case JK_STRS:
		return jtable_str(s, d, f->size);
	case JK_INTS:
		ret = num_scan(s, &x, &i, &integer);
		*(size_t *)(void *)d = integer ? (size_t)i : 0;	/* json_integer_value */
		return ret;
	case JK_REALS:
		ret = num_scan(s, &x, &i, &integer);
		*(double *)(void *)d = x;
		return ret;
	default:
		return jtable_scan(f->sub, s, d, NULL, NULL);
	}
}

/* An array of f's items into m (owned, or in place up to f->max). */
static int items_scan(const struct jfield *f, struct jscan *s, char *m, size_t *n)
{
	size_t each = f->kind == JK_INTS ? sizeof(size_t) : f->kind == JK_REALS ? sizeof(double) :
		      f->kind == JK_OBJS ? f->sub->size : f->size;
	size_t cap = f->max ? f->max : 1, k = 0;
	char *d = f->max ? m : calloc(1, each);
	int ret;

	*n = 0;
	if (!d)
		return -ENOMEM;
	if (!f->max)
		*(char **)m = d;
	if (jscan_peek(s) != JS_ARRAY)
		return jscan_skip(s);
	if (jscan_enter(s, '[') < 0)
		return -EINVAL;
	while ((ret = jscan_item(s, &k)) == 1) {
		if (*n == cap && !f->max) {
			char *g = realloc(d, 2 * cap * each);

			if (!g)
				return -ENOMEM;
			memset(g + cap * each, 0, cap * each);
			*(char **)m = d = g;
			cap *= 2;
		}
		ret = *n < cap ? item_scan(f, s, d + *n * each) : jscan_skip(s);
		*n += *n < cap;	/* an item read in part too: what it holds is freed with it */
		if (ret < 0)
			return ret;
	}
	return ret;
}

/* The items of the array that follows, counted (the scan stays put). */
static int count_items(struct jscan *s, size_t *n)
{
	struct jscan c = *s;
	size_t k = 0;
	int ret;

	*n = 0;
	if (jscan_enter(&c, '[') < 0)
		return jscan_skip(s);	/* says what is wrong */
	while ((ret = jscan_item(&c, &k)) == 1 && jscan_skip(&c) == 0)
		++*n;
	return ret < 0 || c.why ? jscan_skip(s) : 0;
}

/* One row of a matrix: up to n numbers (the rest NAN, as they are). */
static int row_scan(struct jscan *s, double *row, size_t n)
{
	size_t j = 0, k = 0;
	int ret;

	if (jscan_enter(s, '[') < 0)
		return -EINVAL;
	while ((ret = jscan_item(s, &k)) == 1) {
		struct jscan_num x;

		if (j < n && jscan_peek(s) == JS_NUMBER) {
			ret = jscan_number(s, &x);
			row[j] = x.x;
		} else {
			ret = jscan_skip(s);
		}
		if (ret < 0)
			return ret;
		j++;
	}
	return ret;
}

/* n rows of n numbers or nulls (NAN) into *d (allocated) */
static int matrix_scan(struct jscan *s, double **d, size_t *np)
{
	size_t n, i = 0, k = 0;
	int ret = count_items(s, &n);

	*np = 0;
	*d = NULL;
	if (ret < 0)
		return ret;
	if (n > 4096)
		return jscan_fail(s, "a matrix of more than 4096 rows");
	*d = malloc((n ? n * n : 1) * sizeof(double));
	if (!*d)
		return -ENOMEM;
	for (size_t j = 0; j < n * n; j++)
		(*d)[j] = NAN;
	if (jscan_enter(s, '[') < 0)
		return -EINVAL;
	while ((ret = jscan_item(s, &k)) == 1) {
		ret = jscan_peek(s) == JS_ARRAY ? row_scan(s, *d + i * n, n) : jscan_skip(s);
		if (ret < 0)
			return ret;
		i++;
	}
	*np = n;
	return ret;
}

/* A string, owned (jtable_free), at *m; NULL when the value is none. */
static int pstr_scan(struct jscan *s, char **m)
{
	bool str = jscan_peek(s) == JS_STRING;
	char buf[256];
	int ret = str ? jscan_str(s, buf, sizeof(buf)) : jscan_skip(s);

	return !ret && str && !(*m = strdup(buf)) ? -ENOMEM : ret;
}

static int field_scan(const struct jfield *f, struct jscan *s, char *m)
{
	size_t count = 0;
	double x;
	long long i;
	bool integer;
	int ret;

	switch (f->kind) {
	case JK_INT:
	case JK_INTN:
		ret = num_scan(s, &x, &i, &integer);
		if (f->size == sizeof(int))
			*(int *)m = (int)i;
		else
			*(long long *)m = i;
		return ret;
	case JK_REAL:
	case JK_POS:
	case JK_REALN:
		ret = num_scan(s, &x, &i, &integer);
		*(double *)(void *)m = x;
		return ret;
	case JK_PSTR:
		return pstr_scan(s, (char **)(void *)m);
	case JK_HOOK:
		return f->hook->get ? f->hook->get(s, m) : jscan_skip(s);
	case JK_BOOL:
		if (f->size == sizeof(bool))
			*(bool *)m = jscan_peek(s) == JS_TRUE;
		else
			*(int *)m = jscan_peek(s) == JS_TRUE;
		return jscan_skip(s);
	case JK_STR:
	case JK_STRN:
		return jtable_str(s, m, f->size);
	case JK_OBJ:
	case JK_OBJN:
		return jtable_scan(f->sub, s, m, NULL, NULL);
	case JK_MATRIX:
		return matrix_scan(s, (double **)(void *)m, (size_t *)(m - f->off + f->cnt));
	default:
		ret = items_scan(f, s, m, &count);
		if (f->csize == sizeof(unsigned))
			*(unsigned *)(void *)(m - f->off + f->cnt) = (unsigned)count;
		else
			*(size_t *)(void *)(m - f->off + f->cnt) = count;
		return ret;
	}
}

/* key's value into t's field of that key and kind (an object or rows,
 * whichever it is), skipped when t has none. A key twice is
 * refused, as jansson's JSON_REJECT_DUPLICATES does. */
static int member_scan(const struct jtable *t, struct jscan *s, void *p, const char *key, uint64_t *seen)
{
	enum jscan_kind k = jscan_peek(s);
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->f[i].key[0] == key[0] && !strcmp(t->f[i].key, key) && !(t->f[i].kind == JK_OBJ && k == JS_ARRAY) &&
		    !(t->f[i].kind == JK_MATRIX && k != JS_ARRAY))
			break;
	if (i == t->n)
		return jscan_skip(s);
	if (i < 64 && *seen & 1ull << i)
		return jscan_fail(s, "duplicate object key");
	*seen |= i < 64 ? 1ull << i : 0;
	if (t->has)
		*(unsigned *)p |= 1u << i;
	return field_scan(&t->f[i], s, (char *)p + t->f[i].off);
}

int jtable_scan(const struct jtable *t, struct jscan *s, void *p, jtable_other other, void *ctx)
{
	uint64_t seen = 0;
	char key[64];
	size_t k = 0;
	int ret;

	if (jscan_peek(s) != JS_OBJECT)
		return jscan_skip(s);
	if (jscan_enter(s, '{') < 0)
		return -EINVAL;
	while ((ret = jscan_member(s, &k, key, sizeof(key))) == 1) {
		ret = other ? other(s, key, ctx) : 0;
		if (!ret)
			ret = member_scan(t, s, p, key, &seen);
		if (ret < 0)
			return ret;
	}
	return ret;
}

void jtable_free(const struct jtable *t, void *p)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct jfield *f = &t->f[i];
		char *m = (char *)p + f->off, *d = f->kind >= JK_STRS && !f->max ? *(char **)(void *)m : m;

		if (f->kind == JK_PSTR)
			free(*(char **)(void *)m);
		else if (f->kind == JK_OBJ || f->kind == JK_OBJN)
			jtable_free(f->sub, m);
		for (size_t k = 0, n = f->kind == JK_OBJS ? count_of(f, m) : 0; k < n; k++)
			jtable_free(f->sub, d + k * f->sub->size);
		if (f->kind >= JK_INTS && !f->max)
			free(d);
	}
}

/* Object o of a jansson tree (a report) into p by t: written out and read
 * as the summary's bytes are, one reader for both. 0 or -ENOMEM; not an
 * object: nothing read. */
static int obj_read(const struct jtable *t, const json_t *o, void *p)
{
	char *buf = json_is_object(o) ? json_dumps(o, JSON_COMPACT) : NULL;
	struct jscan s;
	int ret;

	if (!buf)
		return json_is_object(o) ? -ENOMEM : 0;
	jscan_init(&s, buf, strlen(buf));
	ret = jtable_scan(t, &s, p, NULL, NULL);
	free(buf);
	return ret == -ENOMEM ? ret : 0;
}

int jtable_grow(void *a, size_t n, size_t *cap, size_t each)
{
	void *g;

	if (n < *cap)
		return 0;
	g = realloc(*(void **)a, (*cap ? 2 * *cap : 8) * each);
	if (!g)
		return -ENOMEM;
	*(void **)a = g;
	*cap = *cap ? 2 * *cap : 8;
	return 0;
}

/* a split lock of any JSON kind shows, an empty one when not an object */
int jtable_section(struct jscan *s, const char *key, struct compare_n_doc *d)
{
	for (const struct typed_section *t = typed; t < typed + ARRAY_SIZE(typed); t++) {
		void **p = (void **)(void *)((char *)d + t->doc_off);
		int ret;

		if (strcmp(key, t->key))
			continue;
		if (jscan_peek(s) != JS_OBJECT && t->t != &sl_t)
			return jscan_skip(s) < 0 ? -EINVAL : 1;
		if (*p)
			return jscan_fail(s, "duplicate object key");
		*p = calloc(1, t->t->size);
		ret = *p ? jtable_scan(t->t, s, *p, NULL, NULL) : -ENOMEM;
		return ret < 0 ? ret : 1;
	}
	return 0;
}

void report_typed_sections(const struct report *rep, json_t *root)
{
	for (const struct typed_section *t = typed; t < typed + ARRAY_SIZE(typed); t++) {
		const void *p = *(void *const *)(const void *)((const char *)rep + t->off);

		if (p)
			json_object_set_new(root, t->key, obj_json(t->t, p, NULL));
	}
}

json_t *calibration_sections_json(const struct report *rep)
{
	json_t *j = json_pack("{s:o}", "calibration", clock_to_json(&rep->cal));

	if (j)
		report_typed_sections(rep, j);
	return j;
}

/* t's section v into its typed struct, allocated at off in base; 0 or
 * -ENOMEM */
static int typed_read(const struct typed_section *t, json_t *v, void *base, size_t off)
{
	void **p = (void **)(void *)((char *)base + off);

	*p = calloc(1, t->t->size);
	return *p ? obj_read(t->t, v, *p) : -ENOMEM;
}

/* Key's section into its typed struct; false when key has none or memory
 * ran out (it stays JSON then). */
static bool read_typed(struct report *rep, const char *key, json_t *v)
{
	for (const struct typed_section *t = typed; t < typed + ARRAY_SIZE(typed); t++)
		if (!strcmp(key, t->key))
			return typed_read(t, v, rep, t->off) == 0;
	return false;
}

char *report_extra_text(const struct result *r)
{
	json_t *o = r->extra.has ? obj_json(&extra_t, &r->extra, NULL) : NULL;
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(o);
	return s;
}

static json_t *summary_json(const struct summary *s, double scale)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
			 "min", s->min * scale, "p10", s->p10 * scale, "median", s->median * scale,
			 "p90", s->p90 * scale, "max", s->max * scale, "mean", s->mean * scale,
			 "stddev", s->stddev * scale, "ci_lo", s->ci_lo * scale,
			 "ci_hi", s->ci_hi * scale);
}

/* Events of a result (pmu.c): value is the median per op (hardware) or
 * the mean per sample (software); an event that could not be counted has
 * value null and its reason, never 0. */
static json_t *events_json(const struct result *r)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < r->nevents; k++) {
		const struct result_event *e = &r->events[k];
		json_t *o = json_pack("{s:s, s:s}", "name", e->name,
				      "unit", e->per_op ? "per_op" : "per_sample");

		if (e->available) {
			json_object_update_new(o, obj_json(&event_t, e, NULL));
			json_object_set_new(o, "value", json_real(e->per_op ? e->median : e->mean));
			json_object_set_new(o, "reason", json_null());
		} else {
			json_object_set_new(o, "value", json_null());
			json_object_set_new(o, "reason", json_string(e->reason));
			json_object_set_new(o, "why", json_string(e->why));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *quartet_json(const struct result_sweep *w, double scale)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "min", w->min * scale, "p10", w->p10 * scale,
			 "median", w->median * scale, "p90", w->p90 * scale);
}

json_t *report_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A judgment over epochs, the numbers behind the verdict (stats_judge). */
static json_t *judgment_json(const struct judgment *j)
{
	json_t *o = json_pack("{s:i, s:f}", "epochs", (json_int_t)j->n, "margin", j->margin);
	const char *k[] = { "ratio", "ratio_lo", "ratio_hi", "diff_cycles", "diff_lo", "diff_hi", "spread" };
	const double v[] = { j->ratio, j->lo, j->hi, j->diff, j->diff_lo, j->diff_hi, j->spread };

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		json_object_set_new(o, k[i], report_real(v[i]));
	return o;
}

/* The engine's own checks on a row (runner.c): the overhead subtracted and
 * how plausible it is, the throughput sweep, the bound on the minimum. */
static void engine_json(json_t *o, const struct report *rep, const struct result *r)
{
	double cyc = 1.0 / rep->cal.ticks_per_cycle;

	json_object_set_new(o, "clock_source", json_string(result_clock_name(r->clock_source)));
	json_object_set_new(o, "overhead", obj_json(&overhead_t, r, NULL));
	json_object_set_new(o, "footprint_words", r->footprint_lines ?
			    json_integer(r->footprint_words) : json_null());
	json_object_set_new(o, "footprint_lines", r->footprint_lines ?
			    json_integer(r->footprint_lines) : json_null());
	if (r->nsweep) {
		json_t *a = json_array();

		for (unsigned k = 0; k < r->nsweep; k++)
			json_array_append_new(a, json_pack("{s:i, s:i, s:I, s:o, s:o}", "words",
							   (int)r->sweep[k].words, "lines",
							   (int)r->sweep[k].lines, "n",
							   (json_int_t)r->sweep[k].n,
							   "ticks", quartet_json(&r->sweep[k], 1.0),
							   "cycles", quartet_json(&r->sweep[k], cyc)));
		json_object_set_new(o, "sweep", a);
	}
	json_object_set_new(o, "min_below_bound", r->min_flag ?
			    json_pack("{s:f, s:f}", "bound_ticks", r->min_bound_ticks,
				      "bound_cycles", r->min_bound_ticks * cyc) : json_null());
}

static void read_engine(json_t *o, struct result *r)
{
	json_t *ov = json_object_get(o, "overhead"), *sw = json_object_get(o, "sweep"), *e;
	json_t *mb = json_object_get(o, "min_below_bound"), *fw;
	size_t i;

	if (result_clock_parse(jstr(o, "clock_source", NULL), &r->clock_source) < 0)
		r->clock_source = RESULT_CLOCK_NONE;
	obj_read(&overhead_t, ov, r);
	r->footprint_lines = (unsigned)json_integer_value(json_object_get(o, "footprint_lines"));
	/* reports from before the words sweep put one word on each line */
	fw = json_object_get(o, "footprint_words");
	r->footprint_words = !r->footprint_lines ? 0 :
			     json_is_integer(fw) ? (unsigned)json_integer_value(fw) : 1;
	r->nsweep = 0;
	json_array_foreach(sw, i, e) {
		json_t *t = json_object_get(e, "ticks");
		struct result_sweep *w;

		if (r->nsweep == RESULT_MAX_SWEEP || !json_is_object(t))
			continue;
		w = &r->sweep[r->nsweep++];
		fw = json_object_get(e, "words");
		w->words = json_is_integer(fw) ? (unsigned)json_integer_value(fw) : 1;
		w->lines = (unsigned)json_integer_value(json_object_get(e, "lines"));
		w->n = (size_t)json_integer_value(json_object_get(e, "n"));
		obj_read(&sweep_t, t, w);
	}
	r->min_flag = json_is_object(mb);
	r->min_bound_ticks = num_of(mb, "bound_ticks");
}

static json_t *result_json(const struct report *rep, const struct result *r)
{
	double cyc = 1.0 / rep->cal.ticks_per_cycle, ns = 1e9 / rep->cal.timer_hz;
	json_t *samples = json_array(), *o, *st;

	for (size_t i = 0; i < r->nsamples; i++)
		json_array_append_new(samples, json_real(r->samples[i]));
	/* a figure jansson cannot write (inf) drops the row, as it always has */
	st = json_pack("{s:o, s:o, s:o, s:I, s:I, s:o}", "ticks", summary_json(&r->s, 1.0),
		       "cycles", summary_json(&r->s, cyc), "ns", summary_json(&r->s, ns),
		       "samples", (json_int_t)r->nsamples, "outliers", (json_int_t)r->s.outliers,
		       "samples_ticks", samples);
	o = st ? obj_json(&ident_t, r, NULL) : NULL;
	json_object_set_new(o, "mode", json_string(probe_mode_name(r->mode)));
	json_object_update_new(o, obj_json(&run_t, r, NULL));
	json_object_update_new(o, st);
	if (r->analog)
		json_object_set_new(o, "analog", json_true());
	if (r->context == RESULT_KERNEL)	/* absent: user space */
		json_object_set_new(o, "context", json_string("kernel"));
	if (r->context == RESULT_KERNEL && r->user_analog[0])
		json_object_set_new(o, "user_analog", json_string(r->user_analog));
	if (r->card_pair)
		json_object_set_new(o, "card_pair", json_integer(r->card_pair));
	if (r->card_share)
		json_object_set_new(o, "card_share", json_integer(r->card_share));
	if (r->card_order)
		json_object_set_new(o, "card_order", json_integer(r->card_order));
	if (r->no_insn)
		json_object_set_new(o, "no_insn", json_true());
	/* this epoch's ratio, and the judgment over every epoch
	 * (report_pair_twins): verdict null for an analog */
	json_object_set_new(o, "ratio_to_twin", !r->has_ratio ? json_null() :
		json_pack("{s:f, s:f, s:f, s:o, s:o}", "ratio", r->ratio, "lo", r->ratio_lo,
			  "hi", r->ratio_hi, "verdict", r->judge.v == VERDICT_NONE ? json_null() :
			  json_string(stats_verdict_name(r->judge.v)),
			  "judgment", judgment_json(&r->judge)));
	if (isfinite(r->epoch_spread))
		json_object_set_new(o, "epoch_spread", json_real(r->epoch_spread));
	engine_json(o, rep, r);
	if (r->extra.has)
		json_object_set_new(o, "extra", obj_json(&extra_t, &r->extra, NULL));
	if (r->nevents) {
		json_object_set_new(o, "events", events_json(r));
		json_object_set_new(o, "disturbed_samples", r->disturbed < 0 ? json_null() :
				    json_integer(r->disturbed));
		json_object_set_new(o, "pmu_ticks_per_cycle", r->pmu_ticks_per_cycle > 0 ?
				    json_real(r->pmu_ticks_per_cycle) : json_null());
	}
	return o;
}

/* meta as read or made, its typed parts after every key but the
 * reproductions (the session writes them last but repro_run_all) */
static json_t *meta_json(const struct report *rep)
{
	json_t *m = json_object(), *v;
	const char *k;

	json_object_foreach(rep->meta, k, v)
		if (strcmp(k, "reproductions"))
			json_object_set(m, k, v);
	if (rep->charz)
		json_object_set_new(m, "characterization", obj_json(&charz_t, rep->charz, NULL));
	if (rep->epochs)
		json_object_set_new(m, "epochs", field_json(&epochs_f, (const char *)rep + epochs_f.off, NULL));
	if ((v = json_object_get(rep->meta, "reproductions")))
		json_object_set(m, "reproductions", v);
	return m;
}

json_t *report_to_json(const struct report *rep)
{
	json_t *root, *results = json_array();

	for (size_t i = 0; i < rep->n; i++)
		json_array_append_new(results, result_json(rep, &rep->r[i]));
	root = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:f, s:b, s:s, s:o, s:s}",
			 "schema", REPORT_SCHEMA,
			 "tool", "name", ATOMCOST_NAME, "version", ATOMCOST_VERSION,
			 "arch", fingerprint_arch.name, "atomics", fingerprint_arch.atomics,
			 "compiler", ATOMCOST_CC,
			 "started", rep->started, "wall_s", rep->wall_s, "partial", rep->partial,
			 "partial_reason", rep->partial_reason,
			 "calibration", clock_to_json(&rep->cal),
			 "topology_summary", rep->topo_summary);
	if (rep->tool)
		json_object_set(root, "tool", rep->tool);
	if (rep->meta || rep->charz || rep->epochs)
		json_object_set_new(root, "meta", meta_json(rep));
	if (rep->topo)
		json_object_set(root, "topology", rep->topo);
	json_object_set_new(root, "results", results);
	/* which cycles the report uses (pmu.c): the PMU's when it counted */
	json_object_set_new(root, "cycles", rep->pmu_ticks_per_cycle > 0 ?
			    json_pack("{s:s, s:f, s:f, s:f}", "source", "pmu_cycles_event",
				      "pmu_ticks_per_cycle", rep->pmu_ticks_per_cycle,
				      "chain_ticks_per_cycle", rep->chain_ticks_per_cycle,
				      "agreement", rep->cycle_agreement) :
			    json_pack("{s:s, s:n, s:f, s:n}", "source", "add_chain",
				      "pmu_ticks_per_cycle", "chain_ticks_per_cycle",
				      rep->cal.ticks_per_cycle, "agreement"));
	/* what the three units of every result are */
	json_object_set_new(root, "units", json_pack(
		"{s:s, s:s, s:s}",
		"ticks", "timer ticks per op, rescaled onto the calibration's core clock "
			 "(clock_source of each result)",
		"cycles", "core cycles per op: ticks / ticks_per_cycle",
		"ns", "wall time per op at the calibrated core clock (cycles / core_hz), not at "
		      "the clock of the moment"));
	report_typed_sections(rep, root);
	/* extension sections ("c2c", ...) never replace a core key */
	if (json_is_object(rep->sections))
		json_object_update_missing(root, rep->sections);
	return root;
}

int report_write_json(const struct report *rep, FILE *f)
{
	json_t *root = report_to_json(rep);
	int ret;

	if (!root)
		return -ENOMEM;
	ret = json_dumpf(root, f, REPORT_JSON_FLAGS) < 0 ? -EIO : 0;
	fputc('\n', f);
	json_decref(root);
	return ret;
}

static void copy_str(char *dst, size_t len, json_t *o, const char *key)
{
	snprintf(dst, len, "%s", jstr(o, key, ""));
}

static void read_events(json_t *o, struct result *r)
{
	json_t *a = json_object_get(o, "events"), *e, *d = json_object_get(o, "disturbed_samples");
	size_t i;

	r->disturbed = json_is_integer(d) ? (long)json_integer_value(d) : -1;
	r->pmu_ticks_per_cycle = num_of(o, "pmu_ticks_per_cycle");
	json_array_foreach(a, i, e) {
		struct result_event *re;
		const char *name = jstr(e, "name", NULL);
		json_t *v = json_object_get(e, "value");

		if (!name || r->nevents == RESULT_MAX_EVENTS)
			continue;
		re = &r->events[r->nevents++];
		memset(re, 0, sizeof(*re));
		snprintf(re->name, sizeof(re->name), "%s", name);
		re->per_op = !strcmp(jstr(e, "unit", ""), "per_op");
		re->available = json_is_number(v);
		copy_str(re->why, sizeof(re->why), e, "why");
		copy_str(re->reason, sizeof(re->reason), e, "reason");
		obj_read(&event_t, e, re);
	}
}

static int read_result(json_t *o, struct result *r, size_t idx, const char *path)
{
	json_t *samples = json_object_get(o, "samples_ticks"), *v;
	const char *mode = jstr(o, "mode", NULL);
	size_t i;

	if (!json_is_object(o) || !json_is_array(samples) || !mode ||
	    !json_is_string(json_object_get(o, "probe"))) {
		pr_err("%s: results[%zu]: missing probe, mode or samples_ticks", path, idx);
		return -EINVAL;
	}
	obj_read(&ident_t, o, r);
	if (probe_mode_parse(mode, &r->mode) < 0) {
		pr_err("%s: results[%zu]: unknown mode '%s'", path, idx, mode);
		return -EINVAL;
	}
	obj_read(&run_t, o, r);
	r->analog = json_is_true(json_object_get(o, "analog"));
	r->context = !strcmp(jstr(o, "context", ""), "kernel") ? RESULT_KERNEL : RESULT_USER;
	copy_str(r->user_analog, sizeof(r->user_analog), o, "user_analog");
	r->card_pair = (unsigned char)json_integer_value(json_object_get(o, "card_pair"));
	r->card_share = (unsigned char)json_integer_value(json_object_get(o, "card_share"));
	r->card_order = (unsigned char)json_integer_value(json_object_get(o, "card_order"));
	r->no_insn = json_is_true(json_object_get(o, "no_insn"));
	r->nsamples = json_array_size(samples);
	if (r->nsamples == 0) {
		pr_err("%s: results[%zu] (%s): no samples", path, idx, r->name);
		return -EINVAL;
	}
	r->samples = malloc(r->nsamples * sizeof(double));
	if (!r->samples)
		return -ENOMEM;
	json_array_foreach(samples, i, v) {
		if (!json_is_number(v)) {
			pr_err("%s: results[%zu] (%s): sample %zu is not a number", path, idx, r->name, i);
			return -EINVAL;
		}
		r->samples[i] = json_number_value(v);
	}
	/* a contention case that does not say whether its threads overlapped */
	r->extra.contention.overlapped = -1;
	if (obj_read(&extra_t, json_object_get(o, "extra"), &r->extra) < 0)
		return -ENOMEM;
	read_events(o, r);
	read_engine(o, r);
	return stats_summarize(r->samples, r->nsamples, &r->s);
}

/* Open path as JSON: 0, or -errno said with the path. */
static int load(const char *path, json_t **root)
{
	json_error_t e;
	struct stat st;

	/* jansson reads a directory as an empty document */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pr_err("%s: is a directory (give a JSON report file)", path);
		return -EINVAL;
	}
	*root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	if (*root)
		return 0;
	if (e.line < 0 || strstr(e.text, "unable to open")) {
		pr_err("%s: cannot read: %s", path, e.text);
		return -ENOENT;
	}
	pr_err("%s:%d:%d: not valid JSON: %s", path, e.line, e.column, e.text);
	return -EINVAL;
}

/* meta's typed parts out of it, the rest kept as read */
static void read_meta(json_t *meta, struct report *rep)
{
	json_t *v;

	rep->meta = json_copy(meta);
	fingerprint_from_json(&rep->fp, json_object_get(meta, "fingerprint"));
	if ((v = json_object_get(meta, "characterization")) && (rep->charz = calloc(1, sizeof(*rep->charz)))) {
		obj_read(&charz_t, v, rep->charz);
		json_object_del(rep->meta, "characterization");
	}
	if ((v = json_object_get(meta, "epochs"))) {
		obj_read(&epochs_t, meta, rep);
		json_object_del(rep->meta, "epochs");
	}
}

/* The document's facts beside calibration and results; keys besides the
 * core ones are extension sections ("c2c", ...), kept as read. */
static void read_top(json_t *root, struct report *rep)
{
	static const char *const core[] = { "schema", "tool", "started", "wall_s", "partial",
					    "partial_reason", "calibration", "topology_summary", "cycles",
					    "meta", "topology", "results", "units" };
	const char *k;
	json_t *v, *cy = json_object_get(root, "cycles");

	rep->partial = json_is_true(json_object_get(root, "partial"));
	copy_str(rep->partial_reason, sizeof(rep->partial_reason), root, "partial_reason");
	copy_str(rep->started, sizeof(rep->started), root, "started");
	copy_str(rep->topo_summary, sizeof(rep->topo_summary), root, "topology_summary");
	rep->wall_s = num_of(root, "wall_s");
	rep->pmu_ticks_per_cycle = num_of(cy, "pmu_ticks_per_cycle");
	rep->chain_ticks_per_cycle = num_of(cy, "chain_ticks_per_cycle");
	rep->cycle_agreement = num_of(cy, "agreement");
	if (json_is_object(json_object_get(root, "tool")))
		rep->tool = json_incref(json_object_get(root, "tool"));
	read_meta(json_object_get(root, "meta"), rep);
	rep->topo = json_incref(json_object_get(root, "topology"));
	json_object_foreach(root, k, v) {
		size_t c = 0;

		while (c < ARRAY_SIZE(core) && strcmp(core[c], k))
			c++;
		if (c < ARRAY_SIZE(core))
			continue;
		if (read_typed(rep, k, v))
			continue;
		if (!rep->sections)
			rep->sections = json_object();
		json_object_set(rep->sections, k, v);
	}
}

/* What clock_to_json wrote: the figures a report's rows are converted
 * with, and the self-checks that widen compare's margin. */
static int read_calibration(json_t *j, struct calibration *c)
{
	json_t *sc = json_object_get(j, "self_checks");
	json_t *m = json_object_get(sc, "imul_chain"), *l = json_object_get(sc, "l1_load_chase");
	json_error_t e;
	int inv = 0, tr = 0;

	memset(c, 0, sizeof(*c));
	if (json_unpack_ex(j, &e, 0, "{s:F, s:F, s:F, s?F, s?b, s?b}",
			   "timer_hz", &c->timer_hz, "ticks_per_cycle", &c->ticks_per_cycle,
			   "core_hz", &c->core_hz, "chain_agreement", &c->chain_agreement,
			   "timer_invariant", &inv, "trustworthy", &tr)) {
		pr_err("calibration in report: %s", e.text);
		return -EINVAL;
	}
	c->timer_invariant = inv;
	c->trustworthy = tr;
	c->emulated = json_is_true(json_object_get(j, "emulated"));
	c->mul_expected = num_of(m, "expected_cycles");
	c->mul_cycles = num_of(m, "cycles");
	c->load_expected = num_of(l, "expected_cycles");
	c->load_cycles = num_of(l, "cycles");
	snprintf(c->core.name, sizeof(c->core.name), "%s",
		 json_string_value(json_object_get(json_object_get(j, "core"), "name")) ?: "");
	snprintf(c->core.how, sizeof(c->core.how), "%s",
		 json_string_value(json_object_get(json_object_get(j, "core"), "how")) ?: "");
	/* what the run said, and "from report" where an older one said nothing */
	snprintf(c->emulation, sizeof(c->emulation), "%s", jstr(j, "emulation", c->emulated ? "from report" : ""));
	c->cpu_os = -1;
	snprintf(c->cycle_source, sizeof(c->cycle_source), "%s", jstr(j, "cycle_source", "from report"));
	snprintf(c->timer, sizeof(c->timer), "%s", jstr(j, "timer", "from report"));
	return 0;
}

int report_read(const char *path, struct report *rep)
{
	json_t *root, *results, *o;
	const char *schema;
	size_t i;
	int ret;

	report_init(rep);
	ret = load(path, &root);
	if (ret < 0)
		return ret;
	schema = jstr(root, "schema", "(none)");
	if (strcmp(schema, REPORT_SCHEMA)) {
		pr_err("%s: not an atomcost report (schema '%s', expected '%s')", path, schema,
		       REPORT_SCHEMA);
		ret = -EINVAL;
		goto out;
	}
	ret = read_calibration(json_object_get(root, "calibration"), &rep->cal);
	if (ret < 0)
		goto out;
	if (!(rep->cal.ticks_per_cycle > 0) || !(rep->cal.timer_hz > 0)) {
		pr_err("%s: calibration has a non-positive ticks_per_cycle or timer_hz", path);
		ret = -EINVAL;
		goto out;
	}
	read_top(root, rep);
	results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		pr_err("%s: no results array", path);
		ret = -EINVAL;
		goto out;
	}
	json_array_foreach(results, i, o) {
		struct result *r = report_add(rep);

		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		ret = read_result(o, r, i, path);
		if (ret < 0)
			goto out;
	}
	report_pair_twins(rep);
out:
	json_decref(root);
	if (ret < 0)
		report_free(rep);
	return ret;
}

int report_attach_c2c(struct report *rep, const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	int err;

	if (!j) {
		if (e.line < 0 || strstr(e.text, "unable to open")) {
			pr_err("report: --c2c: cannot read '%s': %s", path, e.text);
			return -ENOENT;
		}
		pr_err("report: --c2c: %s:%d:%d: not valid JSON: %s", path, e.line, e.column, e.text);
		return -EINVAL;
	}
	if (!json_is_object(j) || !json_object_get(j, "matrix")) {
		pr_err("report: --c2c: '%s' has no \"matrix\" (expected the JSON of 'atomcost c2c --all-pairs --format json')",
		       path);
		json_decref(j);
		return -EINVAL;
	}
	c2c_out_free(rep->c2c);
	free(rep->c2c);
	rep->c2c = calloc(1, sizeof(*rep->c2c));
	err = rep->c2c ? obj_read(&c2c_t, j, rep->c2c) : -ENOMEM;
	json_decref(j);
	return err;
}

/* ---- the parts writers read, typed (sections.h, card.h), so that no
 * writer reads JSON. Strings point into the report. */

json_t *report_meta(const struct report *rep, const char *key)
{
	return json_object_get(rep->meta, key);
}

json_t *c2c_out_json(const struct c2c_out *o)
{
	return obj_json(&c2c_t, o, NULL);
}

int calibration_out_of(const struct calibration *c, struct calibration_out *o)
{
	json_t *j = clock_to_json(c);
	int err = j ? obj_read(&calw_t, j, o) : -ENOMEM;

	json_decref(j);
	return err;
}

/* ---- the fingerprint (fingerprint.h): typed once, for the model */

static int flatten(struct fingerprint *fp, size_t *cap, const char *key, const json_t *v, unsigned depth)
{
	static const enum fingerprint_kind kind[] = {
		[JSON_OBJECT] = FP_OBJECT, [JSON_ARRAY] = FP_ARRAY, [JSON_STRING] = FP_STRING,
		[JSON_INTEGER] = FP_INTEGER, [JSON_REAL] = FP_REAL, [JSON_TRUE] = FP_TRUE,
		[JSON_FALSE] = FP_FALSE, [JSON_NULL] = FP_NULL,
	};
	struct fingerprint_fact *f;
	const char *k;
	json_t *m;
	char digits[24];

	if (jtable_grow(&fp->facts, fp->n, cap, sizeof(*fp->facts)))
		return -ENOMEM;
	f = &fp->facts[fp->n++];
	*f = (struct fingerprint_fact){ .key = strdup(key), .num = json_number_value(v),
					.depth = depth, .kind = kind[json_typeof(v)] };
	snprintf(digits, sizeof(digits), "%lld", (long long)json_integer_value(v));
	if (json_is_string(v) || json_is_integer(v))
		f->text = strdup(json_is_string(v) ? json_string_value(v) : digits);
	else if (json_is_array(v))	/* compared whole, as jansson compares */
		f->text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!f->key || (!f->text && (json_is_string(v) || json_is_integer(v) || json_is_array(v))))
		return -ENOMEM;
	json_object_foreach((json_t *)v, k, m) {
		char sub[256];

		snprintf(sub, sizeof(sub), "%s%s%s", key, key[0] ? "." : "", k);
		if (flatten(fp, cap, sub, m, depth + 1))
			return -ENOMEM;
	}
	return 0;
}

int fingerprint_from_json(struct fingerprint *fp, const json_t *j)
{
	size_t cap = 0;

	fingerprint_free(fp);
	if (json_is_object(j) && flatten(fp, &cap, "", j, 0)) {
		fingerprint_free(fp);
		return -ENOMEM;
	}
	return 0;
}

/* The facts as the JSON object they stand for: each member named by its
 * key after its object's. */
static json_t *fingerprint_json(const struct fingerprint *fp)
{
	json_t *obj[16] = { NULL };
	size_t len[16] = { 0 };

	for (size_t i = 0; i < fp->n; i++) {
		const struct fingerprint_fact *f = &fp->facts[i];
		unsigned d = f->depth;
		json_t *v = f->kind == FP_OBJECT ? json_object() : f->kind == FP_STRING ? json_string(f->text) :
			    f->kind == FP_TRUE || f->kind == FP_FALSE ? json_boolean(f->kind == FP_TRUE) : json_null();

		if (f->kind == FP_OBJECT && d < ARRAY_SIZE(obj)) {
			obj[d] = v;
			len[d] = strlen(f->key);
		}
		if (d > ARRAY_SIZE(obj))
			json_decref(v);	/* deeper than any gathered */
		else if (d)
			json_object_set_new(obj[d - 1], f->key + (d > 1 ? len[d - 1] + 1 : 0), v);
	}
	return obj[0];
}

json_t *fingerprint_collect(const char *root, int cpu_os, const char *topo_summary)
{
	struct fingerprint fp = { 0 };
	json_t *j = fingerprint_gather(&fp, root, cpu_os, topo_summary) ? NULL : fingerprint_json(&fp);

	fingerprint_free(&fp);
	return j;
}

void fingerprint_set_clock(json_t *fp, const struct calibration *cal)
{
	if (!fp)
		return;
	json_object_set_new(fp, "core_hz", json_real(cal->core_hz));
	json_object_set_new(fp, "tsc_hz", json_real(cal->timer_hz));
	if (cal->core.how[0])	/* which core, on what evidence (core.h) */
		json_object_set_new(fp, "core", core_to_json(&cal->core));
}

int report_fingerprint(struct report *rep, const struct calibration *clock)
{
	json_t *fp = json_object_get(rep->meta, "fingerprint");

	if (clock && json_is_object(fp))
		fingerprint_set_clock(fp, clock);
	return fingerprint_from_json(&rep->fp, fp);
}
