/* SPDX-License-Identifier: MIT */
/* report/c2c.c - writers of the c2c round trips: the JSON section
 * ("atomcost-c2c/1": pairs, absent classes, matrix) and the text table. */
#include <math.h>

#include "sections.h"

static json_t *summary_obj(const struct summary *s, double scale)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "min", s->min * scale, "p10", s->p10 * scale,
			 "median", s->median * scale, "p90", s->p90 * scale, "max", s->max * scale);
}

json_t *c2c_to_json(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		       size_t nrows, const bool *absent, unsigned mmask, bool all)
{
	int npu = w->ncpus;
	json_t *pairs = json_array(), *absent_j = json_array(), *cpus = json_array();
	json_t *matrix = json_object(), *methods = json_object(), *mats[C2C__COUNT] = { NULL };

	for (int i = 0; i < npu; i++)
		json_array_append_new(cpus, json_integer(w->cpus[i]));
	json_object_set_new(matrix, "cpus", cpus);
	json_object_set_new(matrix, "unit", json_string("ns per round trip (median)"));
	for (int m = 0; m < C2C__COUNT; m++) {
		if (!(mmask & (1u << m)))
			continue;
		mats[m] = json_array();
		for (int i = 0; i < npu; i++) {
			json_t *rowj = json_array();

			for (int j = 0; j < npu; j++)
				json_array_append_new(rowj, json_null());
			json_array_append_new(mats[m], rowj);
		}
		json_object_set_new(matrix, c2c_method_key((enum c2c_method)m), mats[m]);
		json_object_set_new(methods, c2c_method_name((enum c2c_method)m), json_string(c2c_method_transfers((enum c2c_method)m)));
	}
	for (size_t k = 0; k < nrows; k++) {
		const struct c2c_row *r = &rows[k];
		double ns = 1e9 / cal->timer_hz, cyc = 1.0 / cal->ticks_per_cycle;
		json_t *mat = mats[r->m];
		int ia = -1, ib = -1;

		for (int i = 0; i < npu; i++) {	/* the pair's places in the matrix */
			ia = w->cpus[i] == r->a ? i : ia;
			ib = w->cpus[i] == r->b ? i : ib;
		}
		json_array_append_new(pairs, json_pack("{s:s, s:i, s:i, s:s, s:s, s:I, s:b, s:o, s:o, s:o, s:f}",
			"class", topo_pair_class_name(r->cls), "cpu_a", r->a, "cpu_b", r->b,
			"method", c2c_method_name(r->m), "transfers_per_round_trip", c2c_method_transfers(r->m),
			"samples", (json_int_t)r->n, "timed_out", r->timed_out,
			"round_trip_ticks", r->n ? summary_obj(&r->s, 1) : json_null(),
			"round_trip_ns", r->n ? summary_obj(&r->s, ns) : json_null(),
			"round_trip_cycles", r->n ? summary_obj(&r->s, cyc) : json_null(),
			"one_way_ns", r->n ? r->s.median * ns / 2 : NAN));
		if (r->n && ia >= 0 && ib >= 0) {
			json_array_set_new(json_array_get(mat, ia), ib, json_real(r->s.median * ns));
			json_array_set_new(json_array_get(mat, ib), ia, json_real(r->s.median * ns));
		}
	}
	for (int c = 0; c < PAIR__COUNT; c++)
		if (absent[c])
			json_array_append_new(absent_j, json_string(topo_pair_class_name((enum pair_class)c)));
	return json_pack("{s:s, s:s, s:o, s:s, s:i, s:o, s:o, s:o, s:o}",
			 "schema", "atomcost-c2c/1", "mode", all ? "all-pairs" : "one pair per class",
			 "calibration", clock_to_json(cal), "topology", w->summary,
			 "rounds_per_sample", C2C_ROUNDS, "methods", methods, "pairs", pairs,
			 "absent_classes", absent_j, "matrix", matrix);
}

void c2c_write_text(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f)
{
	fprintf(f, "# atomcost c2c: core %.3f GHz (timer %.4f GHz), %s\n", cal->core_hz / 1e9,
		cal->timer_hz / 1e9, w->summary);
	fprintf(f, "# round trip = the line goes to the other PU and back; one-way = median / 2\n");
	for (int m = 0; m < C2C__COUNT; m++)
		fprintf(f, "# %-10s per round trip: %s\n", c2c_method_name((enum c2c_method)m), c2c_method_transfers((enum c2c_method)m));
	fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7s\n", "class", "cpus", "method",
		"rt ns min", "median", "p90", "rt cyc", "one-way ns", "samples");
	for (size_t k = 0; k < nrows; k++) {
		const struct c2c_row *r = &rows[k];
		char cpus[24];

		snprintf(cpus, sizeof(cpus), "%d,%d", r->a, r->b);
		if (!r->n) {
			fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7d%s\n",
				topo_pair_class_name(r->cls), cpus, c2c_method_name(r->m), "-", "-", "-",
				"-", "-", 0, r->timed_out ? "  TIMED OUT (the other PU did not run)" : "");
			continue;
		}
		fprintf(f, "%-8s %-9s %-10s %9.1f %9.1f %9.1f %9.1f %10.1f %7zu%s\n",
			topo_pair_class_name(r->cls), cpus, c2c_method_name(r->m),
			clock_ticks_to_ns(cal, r->s.min), clock_ticks_to_ns(cal, r->s.median),
			clock_ticks_to_ns(cal, r->s.p90), clock_ticks_to_cycles(cal, r->s.median),
			clock_ticks_to_ns(cal, r->s.median) / 2, r->n,
			r->timed_out ? "  (stopped early: the other PU stopped running)" : "");
	}
	for (int c = 0; c < PAIR__COUNT; c++)
		if (absent[c])
			fprintf(f, "%-8s %-9s absent: no PU pair of this class here\n",
				topo_pair_class_name((enum pair_class)c), "-");
}

