/* SPDX-License-Identifier: MIT */
/* report/c2c.c - the c2c round trips: the section filled from the rows
 * ("atomcost-c2c/1": pairs, absent classes, matrix; report/json.c codes
 * it) and the text table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sections.h"

static void summary_of(const struct summary *s, double scale, struct c2c_summary_out *o)
{
	*o = (struct c2c_summary_out){ .has = HAS_ALL(C2S__COUNT), .min = s->min * scale, .p10 = s->p10 * scale,
				       .median = s->median * scale, .p90 = s->p90 * scale, .max = s->max * scale };
}

/* Row r as its entry, and into its method's matrix; none without samples
 * (the table says why). */
static void pair_of(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *r,
		    struct c2c_out *o)
{
	struct c2c_pair_out *p = &o->pairs[o->npairs];
	double ns = 1e9 / cal->timer_hz, *v = o->matrix.v[r->m];
	int ia = -1, ib = -1, n = w->ncpus;

	if (!r->n)
		return;
	*p = (struct c2c_pair_out){ .has = HAS_ALL(C2P__COUNT), .cpu_a = r->a, .cpu_b = r->b, .samples = (long long)r->n,
				    .timed_out = r->timed_out, .one_way_ns = r->s.median * ns / 2 };
	o->npairs++;
	snprintf(p->cls, sizeof(p->cls), "%s", topo_pair_class_name(r->cls));
	snprintf(p->method, sizeof(p->method), "%s", c2c_method_name(r->m));
	snprintf(p->transfers, sizeof(p->transfers), "%s",
		 c2c_loadstore_seen(r->store_after_read, r->store_local, r->s.median) ?:
		 c2c_method_transfers(r->m));
	summary_of(&r->s, 1, &p->ticks);
	summary_of(&r->s, ns, &p->ns);
	summary_of(&r->s, 1.0 / cal->ticks_per_cycle, &p->cycles);
	for (int i = 0; i < n; i++) {	/* the pair's places in the matrix */
		ia = w->cpus[i] == r->a ? i : ia;
		ib = w->cpus[i] == r->b ? i : ib;
	}
	if (v && ia >= 0 && ib >= 0)
		v[ia * n + ib] = v[ib * n + ia] = r->s.median * ns;
}

int c2c_out_fill(struct c2c_out *o, const struct calibration *cal, const struct c2c_where *w,
		 const struct c2c_row *rows, size_t nrows, const bool *absent, unsigned mmask, bool all)
{
	size_t n = (size_t)w->ncpus;
	struct c2c_matrix_out *mx = &o->matrix;

	*o = (struct c2c_out){ .has = HAS_KEYS(C2O_SCHEMA, C2O_MATRIX), .rounds_per_sample = C2C_ROUNDS };
	snprintf(o->schema, sizeof(o->schema), "atomcost-c2c/1");
	snprintf(o->mode, sizeof(o->mode), "%s", all ? "all-pairs" : "one pair per class");
	snprintf(o->topology, sizeof(o->topology), "%s", w->summary);
	o->pairs = calloc(nrows ? nrows : 1, sizeof(*o->pairs));
	mx->cpus = calloc(n ? n : 1, sizeof(*mx->cpus));
	if (!o->pairs || !mx->cpus || calibration_out_of(cal, &o->cal))
		goto nomem;
	mx->has = 1u << C2M_CPUS | 1u << C2M_UNIT;
	mx->ncpus = n;
	for (size_t i = 0; i < n; i++)
		mx->cpus[i] = (size_t)w->cpus[i];
	snprintf(mx->unit, sizeof(mx->unit), "ns per round trip (median)");
	for (int m = 0; m < C2C__COUNT; m++) {
		if (!(mmask & (1u << m)))
			continue;
		if (!(mx->v[m] = malloc((n ? n * n : 1) * sizeof(double))))
			goto nomem;
		for (size_t i = 0; i < n * n; i++)
			mx->v[m][i] = NAN;
		mx->nv[m] = n;
		mx->has |= 1u << (C2M_MATRIX + m);
		o->methods.has |= 1u << m;
		snprintf(o->methods.transfers[m], sizeof(o->methods.transfers[m]), "%s",
			 c2c_method_transfers((enum c2c_method)m));
	}
	for (size_t k = 0; k < nrows; k++)
		pair_of(cal, w, &rows[k], o);
	for (int c = 0; c < PAIR__COUNT; c++)
		if (absent[c])
			snprintf(o->absent[o->nabsent++], sizeof(o->absent[0]), "%s",
				 topo_pair_class_name((enum pair_class)c));
	return 0;
nomem:
	c2c_out_free(o);
	return -ENOMEM;
}

void c2c_write_text(const struct calibration *cal, const struct c2c_where *w, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f)
{
	fprintf(f, "# atomcost c2c: core %.3f GHz (timer %.4f GHz), %s\n", cal->core_hz / 1e9,
		cal->timer_hz / 1e9, w->summary);
	fprintf(f, "# round trip = the line goes to the other PU and back; one-way = median / 2 (the card's);"
		" rt ns min is the statistic c2clat prints\n");
	for (int m = 0; m < C2C__COUNT; m++)
		fprintf(f, "# %-10s per round trip: %s\n", c2c_method_name((enum c2c_method)m), c2c_method_transfers((enum c2c_method)m));
	fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7s\n", "class", "cpus", "method",
		"rt ns min", "median", "p90", "rt cyc", "one-way ns", "samples");
	for (size_t k = 0; k < nrows; k++) {
		const struct c2c_row *r = &rows[k];
		double ns = clock_ticks_to_ns(cal, r->s.median);
		const double v[5] = { clock_ticks_to_ns(cal, r->s.min), ns,
				      clock_ticks_to_ns(cal, r->s.p90),
				      clock_ticks_to_cycles(cal, r->s.median), ns / 2 };
		char cpus[24], c[5][32];

		snprintf(cpus, sizeof(cpus), "%d,%d", r->a, r->b);
		for (int i = 0; i < 5; i++)	/* "-" without samples */
			snprintf(c[i], sizeof(c[i]), r->n ? "%.1f" : "-", v[i]);
		fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7zu%s\n",
			topo_pair_class_name(r->cls), cpus, c2c_method_name(r->m), c[0], c[1], c[2],
			c[3], c[4], r->n, !r->timed_out ? "" : r->n ?
			"  (stopped early: the other PU stopped running)" :
			"  TIMED OUT (the other PU did not run)");
	}
	for (size_t k = 0; k < nrows; k++)	/* what load-store moved here */
		if (rows[k].store_local > 0) {
			const char *seen = c2c_loadstore_seen(rows[k].store_after_read, rows[k].store_local,
							      rows[k].s.median);

			fprintf(f, "# load-store %d,%d: store + fence after the read miss %.1f ns, on a line of its own "
				"%.1f ns: %s\n", rows[k].a, rows[k].b,
				clock_ticks_to_ns(cal, rows[k].store_after_read),
				clock_ticks_to_ns(cal, rows[k].store_local),
				seen ? seen : "between the two: cannot tell a read-for-ownership from an upgrade");
		}
	for (int c = 0; c < PAIR__COUNT; c++)
		if (absent[c])
			fprintf(f, "%-8s %-9s absent: no PU pair of this class here\n",
				topo_pair_class_name((enum pair_class)c), "-");
}

