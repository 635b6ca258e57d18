/* SPDX-License-Identifier: MIT */
/* result.c - the report data model: adding results and pairing twins. */
#include "result.h"
#include "topo.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *rep)
{
	memset(rep, 0, sizeof(*rep));
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->r[i].samples);
		json_decref(rep->r[i].extra);
	}
	free(rep->r);
	json_decref(rep->topo);
	json_decref(rep->meta);
	json_decref(rep->tool);
	json_decref(rep->sections);
	memset(rep, 0, sizeof(*rep));
}

struct result *report_add(struct report *rep)
{
	if (rep->n == rep->cap) {
		size_t cap = rep->cap ? rep->cap * 2 : 64;
		struct result *r = realloc(rep->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		rep->r = r;
		rep->cap = cap;
	}
	memset(&rep->r[rep->n], 0, sizeof(rep->r[0]));
	return &rep->r[rep->n++];
}

const struct result *report_find(const struct report *rep, const char *name,
				 enum probe_mode mode, const char *pattern)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];

		if (r->mode == mode && !strcmp(r->name, name) && !strcmp(r->pattern, pattern))
			return r;
	}
	return NULL;
}

static const char *const clock_names[] = {
	[RESULT_CLOCK_NONE] = "none", [RESULT_CLOCK_CHAIN] = "drift_chain",
	[RESULT_CLOCK_PMU] = "pmu_cycles",
};

const char *result_clock_name(enum result_clock c)
{
	return c <= RESULT_CLOCK_PMU ? clock_names[c] : "?";
}

int result_clock_parse(const char *s, enum result_clock *out)
{
	for (int c = RESULT_CLOCK_NONE; c <= RESULT_CLOCK_PMU; c++)
		if (s && !strcmp(s, clock_names[c])) {
			*out = (enum result_clock)c;
			return 0;
		}
	return -EINVAL;
}

void result_rescale(struct result *r, double k)
{
	for (size_t j = 0; j < r->nsamples; j++)
		r->samples[j] *= k;
	for (unsigned j = 0; j < r->nsweep; j++) {
		r->sweep[j].min *= k;
		r->sweep[j].p10 *= k;
		r->sweep[j].median *= k;
		r->sweep[j].p90 *= k;
	}
	r->min_bound_ticks *= k;
	r->clock_scale *= k;
	if (r->nsamples)
		stats_summarize(r->samples, r->nsamples, &r->s);
}

int result_epoch(const struct result *r)
{
	json_t *p = json_object_get(r->extra, "epoch");

	if (!p)
		p = json_object_get(r->extra, "pass");	/* reports before epochs */
	return json_is_integer(p) ? (int)json_integer_value(p) : 0;
}

/* Ratio of medians, with an interval from the two medians' CIs:
 * [lo_a / hi_b, hi_a / lo_b], printed for reference only. The verdict does
 * not come from it: samples within one run are serially correlated and
 * their intervals understate the noise between runs (the unlocked op came
 * out "slower" than the locked one at 1.06). A ratio is slower or faster
 * only beyond the floor (stats_verdict): the spread of the row's ratio
 * between --epochs passes, never less than NOISE_FLOOR_MIN. Without
 * passes, NOISE_FLOOR_MIN for a hot-line pair whose two rows reached their
 * CI target, NOISE_FLOOR_PROCESS for the others, which move that much
 * between processes. Every pass of a row gets the verdict of the median of
 * its pass ratios; an analog on either side gets none. */
static bool same_row(const struct result *x, const struct result *y)
{
	return x->mode == y->mode && !strcmp(x->name, y->name) && !strcmp(x->pattern, y->pattern);
}

/* r's twin in the same mode, pattern and pass, or NULL. */
static const struct result *twin_of(const struct report *rep, const struct result *r)
{
	for (size_t j = 0; j < rep->n; j++) {
		const struct result *c = &rep->r[j];

		if (c->mode == r->mode && !strcmp(c->name, r->twin) && !strcmp(c->pattern, r->pattern) &&
		    result_epoch(c) == result_epoch(r))
			return c;
	}
	return NULL;
}

static void twin_verdict(struct report *rep, struct result *r)
{
	const struct result *t = twin_of(rep, r);
	bool settled = r->ci_reached && t && t->ci_reached;
	double v[1000], lo = INFINITY, hi = -INFINITY, m;
	size_t n = 0;

	for (size_t j = 0; j < rep->n && n < 1000; j++) {
		const struct result *c = &rep->r[j];

		if (c->has_ratio && same_row(c, r)) {
			v[n++] = c->ratio;
			lo = fmin(lo, c->ratio);
			hi = fmax(hi, c->ratio);
		}
	}
	if (!n)
		return;
	m = stats_median(v, n);
	if (n >= 2 && m > 0)
		r->verdict_floor = fmax(NOISE_FLOOR_MIN, (hi - lo) / m);
	else if (settled && !strcmp(r->pattern, "hit"))
		r->verdict_floor = NOISE_FLOOR_MIN;
	else
		r->verdict_floor = NOISE_FLOOR_PROCESS;
	r->verdict = stats_verdict(m, 1.0, r->verdict_floor);
}

void report_pair_twins(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct result *r = &rep->r[i];
		const struct result *t;

		r->has_ratio = false;
		r->verdict = VERDICT_NONE;
		r->verdict_floor = 0;
		if (!r->twin[0] || !r->nsamples)
			continue;
		t = twin_of(rep, r);
		if (!t || !t->nsamples || t->s.median <= 0 || t->s.ci_lo <= 0)
			continue;
		r->has_ratio = true;
		r->ratio = r->s.median / t->s.median;
		r->ratio_lo = r->s.ci_lo / t->s.ci_hi;
		r->ratio_hi = r->s.ci_hi / t->s.ci_lo;
		/* VERDICT_SAME marks "may get one" until every ratio is known */
		r->verdict = r->analog || t->analog ? VERDICT_NONE : VERDICT_SAME;
	}
	for (size_t i = 0; i < rep->n; i++)
		if (rep->r[i].has_ratio && rep->r[i].verdict != VERDICT_NONE)
			twin_verdict(rep, &rep->r[i]);
}

/* ---- names of modes and atomicity classes (probe.h declares them; the
 * model owns them so writers and readers link without the probe table) */

static const char *const mode_names[MODE__COUNT] = {
	[MODE_LATENCY] = "latency",
	[MODE_THROUGHPUT] = "throughput",
};

const char *probe_mode_name(enum probe_mode m)
{
	return m < MODE__COUNT ? mode_names[m] : "?";
}

int probe_mode_parse(const char *s, enum probe_mode *out)
{
	for (int m = 0; m < MODE__COUNT; m++) {
		if (!strcmp(s, mode_names[m]) || (!strcmp(s, m == MODE_LATENCY ? "lat" : "tput"))) {
			*out = (enum probe_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *probe_atomicity_name(enum atomicity a)
{
	switch (a) {
	case ATOMICITY_BASELINE:
		return "baseline";
	case ATOMICITY_ATOMIC:
		return "atomic";
	case ATOMICITY_LOCAL:
		return "local-only";
	case ATOMICITY_NONATOMIC:
		return "non-atomic";
	}
	return "?";
}

/* Pair classes (topo.h declares them: the placement planner parses them,
 * the writers print them). */
static const char *const class_names[PAIR__COUNT] = {
	[PAIR_SMT] = "smt",
	[PAIR_L2] = "l2",
	[PAIR_L3] = "l3",
	[PAIR_NUMA] = "numa",
	[PAIR_PACKAGE] = "package",
	[PAIR_CROSS] = "cross",
};

const char *topo_pair_class_name(enum pair_class c)
{
	if ((unsigned)c >= PAIR__COUNT)
		return "?";
	return class_names[c];
}

int topo_pair_class_parse(const char *s, enum pair_class *out)
{
	for (int c = 0; c < PAIR__COUNT; c++) {
		if (s && !strcmp(s, class_names[c])) {
			*out = c;
			return 0;
		}
	}
	return -EINVAL;
}
