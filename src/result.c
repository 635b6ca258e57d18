/* result.c - the report data model: adding results and pairing twins. */
#include "result.h"

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

int result_pass(const struct result *r)
{
	json_t *p = json_object_get(r->extra, "pass");

	return json_is_integer(p) ? (int)json_integer_value(p) : 0;
}

/* Ratio of medians with a conservative interval from the two medians' CIs:
 * [lo_a / hi_b, hi_a / lo_b]. It excludes 1 only when the intervals do not
 * overlap, so a "significant" verdict survives the noise of both. */
void report_pair_twins(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct result *r = &rep->r[i];
		const struct result *t;

		r->has_ratio = false;
		if (!r->twin[0] || !r->nsamples)
			continue;
		t = NULL;
		for (size_t j = 0; j < rep->n && !t; j++) {
			const struct result *c = &rep->r[j];

			if (c->mode == r->mode && !strcmp(c->name, r->twin) &&
			    !strcmp(c->pattern, r->pattern) && result_pass(c) == result_pass(r))
				t = c;
		}
		if (!t || !t->nsamples || t->s.median <= 0 || t->s.ci_lo <= 0)
			continue;
		r->has_ratio = true;
		r->ratio = r->s.median / t->s.median;
		r->ratio_lo = r->s.ci_lo / t->s.ci_hi;
		r->ratio_hi = r->s.ci_hi / t->s.ci_lo;
	}
}
