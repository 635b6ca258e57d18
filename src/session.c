/* SPDX-License-Identifier: MIT */
/* session.c - one run of an experiment over the engines (session.h). */
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "c2c.h"
#include "common.h"
#include "contention.h"
#include "fingerprint.h"
#include "hierarchy.h"
#include "pattern.h"
#include "repro.h"
#include "splitlock.h"

int session_merge(struct report *rep, struct report *seg, const char *tag_key, json_t *tag_value)
{
	bool first = rep->n == 0 && !(rep->cal.ticks_per_cycle > 0);
	double k = 1.0;

	if (first)
		rep->cal = seg->cal;
	else if (seg->cal.ticks_per_cycle > 0 && rep->cal.ticks_per_cycle > 0)
		k = rep->cal.ticks_per_cycle / seg->cal.ticks_per_cycle;
	for (size_t i = 0; i < seg->n; i++) {
		struct result *d = report_add(rep);

		if (!d) {
			json_decref(tag_value);
			return -ENOMEM;
		}
		*d = seg->r[i];
		/* kept ticks are on the calibration clock of their segment
		 * (runner.c, clock drift); the report converts with its own */
		if (k != 1.0)
			result_rescale(d, k);	/* samples, sweep, bound; overheads stay raw */
		if (tag_key) {
			if (!d->extra)
				d->extra = json_object();
			json_object_set(d->extra, tag_key, tag_value);
		}
		seg->r[i].samples = NULL;
		seg->r[i].extra = NULL;
	}
	json_decref(tag_value);
	if (seg->partial && !rep->partial) {
		rep->partial = true;
		snprintf(rep->partial_reason, sizeof(rep->partial_reason), "%s", seg->partial_reason);
	}
	return 0;
}

/* The probes of list on hot lines (runner.c), or under every access
 * pattern of o->patterns (pattern.c); either way pinned, calibrated and
 * finished the same way. */
static int run_probes(struct topo *t, const struct run_opts *o, const struct probe *const *list,
		      size_t n, struct report *rep)
{
	uint64_t t0 = now_ns();
	int cpu, ret;

	if (!o->patterns)
		return runner_run(t, o, list, n, rep);
	ret = runner_prepare(t, o, rep, &cpu);
	if (ret < 0)
		return ret;
	ret = pattern_run(t, o, list, n, rep, cpu);
	runner_finish(o, rep, t0);
	return ret;
}

/* --epochs K: the whole set K times, one pass after the other, so the
 * passes interleave in time and a slow drift or a noisy neighbour lands in
 * the between-pass spread that `compare` and the verdicts use. Each pass
 * calibrates afresh; each result carries extra.pass (1..K) and the report
 * keeps pass 1's calibration (later passes' samples are rescaled onto its
 * clock), the others go to meta.experiment.passes. */
int session_epochs(struct topo *t, struct run_opts *o, const struct probe *const *list,
		   size_t n, struct report *rep)
{
	json_t *passes;
	uint64_t t0 = now_ns();
	double limit = o->time_limit_s;
	int ret = 0;

	if (o->epochs <= 1)
		return run_probes(t, o, list, n, rep);
	passes = json_array();
	for (unsigned p = 1; p <= o->epochs && ret == 0; p++) {
		struct report tmp;

		if (limit > 0) {
			o->time_limit_s = limit - (now_ns() - t0) / 1e9;
			if (o->time_limit_s <= 0) {
				rep->partial = true;
				snprintf(rep->partial_reason, sizeof(rep->partial_reason), "time limit");
				break;
			}
		}
		report_init(&tmp);
		ret = run_probes(t, o, list, n, &tmp);
		json_array_append_new(passes, json_pack("{s:i, s:f, s:f, s:f, s:b}", "epoch", p,
							"ticks_per_cycle", tmp.cal.ticks_per_cycle,
							"timer_hz", tmp.cal.timer_hz, "wall_s", tmp.wall_s,
							"partial", tmp.partial));
		if (tmp.partial) {
			char why[sizeof(tmp.partial_reason)];

			snprintf(why, sizeof(why), "%.40s (pass %u of %u)", tmp.partial_reason, p, o->epochs);
			memcpy(tmp.partial_reason, why, sizeof(why));
		}
		{
			int err = session_merge(rep, &tmp, "epoch", json_integer(p));

			if (err && !ret)
				ret = err;
		}
		report_free(&tmp);
	}
	o->time_limit_s = limit;
	rep->wall_s = (now_ns() - t0) / 1e9;
	report_pair_twins(rep);
	json_object_set_new(json_object_get(rep->meta, "experiment"), "passes", passes);
	return ret;
}

/* ---- the default characterization ---------------------------------- */

/* Seconds each step is planned to take here (the progress line's "left"),
 * and the per-row time of the sampled steps. */
#define HIER_BUDGET_S 8.0
#define PATTERN_ROW_S 0.05
#define LOCK_ROW_S 0.1
#define SPLIT_OPS 4096
#define C2C_SECONDS 0.1
#define SHARE_SECONDS 0.1
#define CHAR_PATTERNS "hit,dep,l2,llc,miss"

/* The locked RMW and the lock whose contention the topology step measures
 * per pair class. */
static const char *const share_probes[] = { "atomic_inc", "spin_lock" };

struct cz {
	struct topo *t;
	struct run_opts *o;
	const struct probe *const *list;
	size_t n;
	struct report *rep;
	int cpu;
	struct hierarchy *h;
	struct pattern_sizes sizes;	/* from the measured hierarchy */
	bool have_sizes;
	json_t *steps;			/* meta.characterization.steps */
	uint64_t t0;
};

static void set_section(struct report *rep, const char *key, json_t *v)
{
	if (!rep->sections)
		rep->sections = json_object();
	json_object_set_new(rep->sections, key, v);
}

/* Seconds left under --time-limit (0: no limit; tiny when spent). */
static double time_left(const struct cz *c)
{
	double left;

	if (!(c->o->time_limit_s > 0))
		return 0;
	left = c->o->time_limit_s - (now_ns() - c->t0) / 1e9;
	return left > 0.01 ? left : 0.01;
}

/* Run a runner segment into its own report and merge it (one clock). */
static int run_segment(struct cz *c, struct run_opts *o, const struct probe *const *list, size_t n,
		       const char *tag)
{
	struct report seg;
	int ret, err;

	report_init(&seg);
	o->time_limit_s = time_left(c);
	ret = n ? run_probes(c->t, o, list, n, &seg) : 0;
	err = session_merge(c->rep, &seg, "step", json_string(tag));
	report_free(&seg);
	return ret ? ret : err;
}

static int step_hierarchy(struct cz *c)
{
	struct hierarchy_opts ho;
	int ret;

	ret = topo_bind_thread(c->t, c->cpu);
	if (!ret)
		ret = clock_calibrate(&c->rep->cal, c->cpu);
	if (ret)
		return ret;
	hierarchy_default_opts(&ho);
	ho.time_budget_s = HIER_BUDGET_S;
	if (time_left(c) > 0 && time_left(c) < ho.time_budget_s)
		ho.time_budget_s = time_left(c);
	c->h = calloc(1, sizeof(*c->h));
	if (!c->h)
		return -ENOMEM;
	ret = hierarchy_measure(&ho, &c->rep->cal, c->t, c->cpu, c->h);
	if (ret && ret != -EINTR)
		return ret;
	set_section(c->rep, "hierarchy", hierarchy_to_json(c->h));
	/* the patterns' footprints from the measured levels, when the three
	 * caches were found (hwloc's sizes can be fiction in a guest) */
	c->sizes.l1d = hierarchy_cache_size(c->h, 1);
	c->sizes.l2 = hierarchy_cache_size(c->h, 2);
	c->sizes.llc = c->h->ncaches >= 3 ? hierarchy_cache_size(c->h, (int)c->h->ncaches) : 0;
	c->sizes.line = topo_line_size(c->t) ? topo_line_size(c->t) : 64;
	c->have_sizes = c->sizes.l1d && c->sizes.l2 > c->sizes.l1d && c->sizes.llc > c->sizes.l2;
	hierarchy_walks(c->h, c->sizes.walk);	/* walks inside each level, where found */
	return ret;
}

static size_t select_patterns(const struct cz *c, const struct probe **out, bool with)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		if (!!c->list[i]->patterns == with)
			out[k++] = c->list[i];
	return k;
}

/* The default probes that have pattern kernels, under every pattern of the
 * characterization (sized from the measured hierarchy when it was found),
 * or the others (locks, per-CPU ops) on hot lines. */
static int step_probes(struct cz *c, bool patterns)
{
	const struct probe **sub = calloc(c->n + 1, sizeof(*sub));
	struct run_opts o = *c->o;
	size_t k;
	int ret = 0;

	if (!sub)
		return -ENOMEM;
	k = select_patterns(c, sub, patterns);
	o.patterns = patterns ? CHAR_PATTERNS : NULL;
	o.max_seconds = patterns ? PATTERN_ROW_S : LOCK_ROW_S;
	if (patterns && c->have_sizes)
		o.sizes = &c->sizes;
	if (patterns)
		ret = pattern_check(c->t, &o);
	if (!ret)
		ret = run_segment(c, &o, sub, k, patterns ? "patterns" : "locks");
	free(sub);
	return ret;
}

static int step_patterns(struct cz *c)
{
	return step_probes(c, true);
}

static int step_locks(struct cz *c)
{
	return step_probes(c, false);
}

static int step_splitlock(struct cz *c)
{
	struct splitlock_result sr;
	int ret = topo_bind_thread(c->t, c->cpu);

	if (!ret)
		ret = splitlock_measure(SPLIT_OPS, &c->rep->cal, &sr);
	if (!ret)
		set_section(c->rep, "splitlock", splitlock_to_json(&sr));
	return ret;
}

static int step_topology(struct cz *c)
{
	struct c2c_pair *pairs = NULL;
	struct c2c_row *rows = NULL;
	const struct probe *sp[2];
	size_t npairs = 0, nrows = 0, nsp = 0;
	bool absent[PAIR__COUNT];
	int ret;

	if (topo_allowed_count(c->t) < 2)
		return -ENOTSUP;
	ret = c2c_plan(c->t, false, &pairs, &npairs, absent);
	if (ret)
		return ret;
	rows = calloc(npairs * C2C__COUNT + 1, sizeof(*rows));
	if (!rows) {
		free(pairs);
		return -ENOMEM;
	}
	ret = c2c_run(c->t, pairs, npairs, 1u << C2C_CMPXCHG, C2C_SECONDS, false, rows, &nrows);
	if (!ret || ret == -EINTR) {
		int *cpus = calloc((size_t)topo_allowed_count(c->t), sizeof(int));
		char summ[256];
		struct c2c_where w;

		if (cpus) {
			c2c_where_of(c->t, cpus, summ, sizeof(summ), &w);
			set_section(c->rep, "c2c", c2c_to_json(&c->rep->cal, &w, rows, nrows, absent,
							       1u << C2C_CMPXCHG, false));
			free(cpus);
		}
	}
	for (size_t i = 0; i < sizeof(share_probes) / sizeof(share_probes[0]); i++) {
		const struct probe *p = probe_find(share_probes[i]);

		if (p && !probe_unsupported(p) && p->run[MODE_LATENCY])
			sp[nsp++] = p;
	}
	for (size_t k = 0; k < npairs && !ret && nsp; k++) {
		struct run_opts o = *c->o;
		struct report seg;
		int err;

		o.threads = 2;
		o.placement = topo_pair_class_name(pairs[k].cls);
		o.sharing = NULL;
		o.max_seconds = SHARE_SECONDS;
		o.patterns = NULL;
		o.time_limit_s = time_left(c);
		report_init(&seg);
		ret = contention_run(c->t, &o, sp, nsp, &seg);
		err = session_merge(c->rep, &seg, "step", json_string("topology"));
		report_free(&seg);
		if (!ret)
			ret = err;
	}
	free(rows);
	free(pairs);
	return ret;
}

static const struct {
	const char *name;
	double planned_s;
	int (*fn)(struct cz *c);
} steps[] = {
	{ "memory hierarchy", HIER_BUDGET_S + 2, step_hierarchy },
	{ "twins under hit, dep, l2, llc, miss", 30, step_patterns },
	{ "locks and per-CPU ops", 8, step_locks },
	{ "split lock", 1, step_splitlock },
	{ "topology: c2c and sharing per pair class", 5, step_topology },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static void progress(const struct cz *c, size_t i)
{
	double el = (now_ns() - c->t0) / 1e9, left = 0;

	if (!c->o->progress)
		return;
	for (size_t k = i; k < NSTEPS; k++)
		left += steps[k].planned_s;
	fprintf(stderr, "\r\033[Katomcost: step %zu/%zu %s (%.0f s so far, about %.0f s left)\n", i + 1,
		NSTEPS, steps[i].name, el, left);
}

int session_characterize(struct topo *t, struct run_opts *o, const struct probe *const *list,
			 size_t n, struct report *rep)
{
	struct cz c = { .t = t, .o = o, .list = list, .n = n, .rep = rep, .t0 = now_ns() };
	int ret = 0;

	c.cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
	c.steps = json_array();
	for (size_t i = 0; i < NSTEPS && ret != -EINTR; i++) {
		uint64_t s0 = now_ns();
		const char *status = "done";

		if (o->time_limit_s > 0 && (now_ns() - c.t0) / 1e9 > o->time_limit_s) {
			rep->partial = true;
			snprintf(rep->partial_reason, sizeof(rep->partial_reason), "time limit");
			break;
		}
		progress(&c, i);
		ret = steps[i].fn(&c);
		if (ret == -EINTR) {
			status = "interrupted";
			rep->partial = true;
			snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
		} else if (ret == -ENOTSUP || ret == -ENOENT) {
			status = "skipped: not possible here";	/* the step said why */
			ret = 0;
		} else if (ret) {
			break;
		}
		json_array_append_new(c.steps, json_pack("{s:s, s:f, s:s}", "step", steps[i].name,
							 "seconds", (now_ns() - s0) / 1e9, "status", status));
	}
	json_object_set_new(rep->meta, "characterization",
			    json_pack("{s:o, s:s, s:b}", "steps", c.steps, "pattern_sizes",
				      c.have_sizes ? "measured hierarchy" : "hwloc (measured levels incomplete)",
				      "complete", !rep->partial && !ret));
	free(c.h);
	rep->wall_s = (now_ns() - c.t0) / 1e9;
	report_pair_twins(rep);
	return ret;
}

void session_identity(struct report *rep, struct topo *t, int cpu_os)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(rep->started, sizeof(rep->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rep->topo = topo_to_json(t);
	topo_summary(t, rep->topo_summary, sizeof(rep->topo_summary));
	if (!rep->meta)
		rep->meta = json_object();
	json_object_set_new(rep->meta, "fingerprint", fingerprint_collect(NULL, cpu_os, rep->topo_summary));
}

int session_run(struct topo *t, struct run_opts *o, const struct probe *const *list, size_t n,
		const struct experiment *exp, bool characterize, FILE *repro_out, struct report *rep)
{
	int ret;

	if (exp && !config_kind_has(exp, "probes"))
		ret = 0;	/* reproductions only */
	else if (o->threads >= 2 || o->placement || o->sharing)
		ret = contention_run(t, o, list, n, rep);	/* N pinned threads on one line */
	else if (characterize)
		ret = session_characterize(t, o, list, n, rep);
	else
		ret = session_epochs(t, o, list, n, rep);
	/* reproductions of published scorings (src/repro/) print their
	 * seed-shaped tables as they go */
	if (exp && ret >= 0)
		ret = repro_run_all(exp, t, o, rep, repro_out);
	fingerprint_set_clock(fingerprint_of_meta(rep->meta), &rep->cal);
	return ret;
}

bool session_untrustworthy(const struct report *rep)
{
	bool bad = !rep->cal.trustworthy;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		json_t *ct = r->extra ? json_object_get(r->extra, "contention") : NULL;

		bad |= r->migrated;
		/* more than 5% of the samples saw a context switch or a migration */
		if (r->disturbed > 0 && r->nsamples && r->disturbed * 20 > (long)r->nsamples) {
			pr_warn("run: %s %s: %ld of %zu samples disturbed (context switch or migration)",
				r->name, probe_mode_name(r->mode), r->disturbed, r->nsamples);
			bad = true;
		}
		/* a contention case whose threads did not run at the same time */
		if (ct && json_is_false(json_object_get(ct, "overlapped"))) {
			pr_warn("run: %s: the threads did not overlap: not a contention measurement", r->name);
			bad = true;
		}
	}
	if (bad && rep->cal.emulated)
		pr_err("run: --strict: results untrustworthy: running under emulation (%s)", rep->cal.emulation);
	else if (bad)
		pr_err("run: --strict: results untrustworthy (calibration disagrees with itself, a thread migrated, samples disturbed or threads not overlapping: see above and the report)");
	return bad;
}
