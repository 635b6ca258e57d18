/* SPDX-License-Identifier: MIT */
/* session.c - one run of an experiment over the engines (session.h). */
#include "session.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "c2c.h"
#include "common.h"
#include "contention.h"
#include "fingerprint.h"
#include "hierarchy.h"
#include "pattern.h"
#include "quiet.h"
#include "report.h"
#include "repro/repro.h"
#include "splitlock.h"

/* Append the results of seg to rep (taking what they own), their ticks
 * rescaled from seg's calibration clock onto rep's, so one report converts
 * every row with one calibration. The first segment (rep->n == 0 and no
 * calibration yet) gives rep its calibration. step: recorded on each
 * result (extra.step; NULL: none). 0 or -ENOMEM. */
static int merge(struct report *rep, struct report *seg, const char *step)
{
	bool first = rep->n == 0 && !(rep->cal.ticks_per_cycle > 0);
	double k = 1.0;

	if (first)
		rep->cal = seg->cal;
	else if (seg->cal.ticks_per_cycle > 0 && rep->cal.ticks_per_cycle > 0)
		k = rep->cal.ticks_per_cycle / seg->cal.ticks_per_cycle;
	for (size_t i = 0; i < seg->n; i++) {
		struct result *d = report_add(rep);

		if (!d)
			return -ENOMEM;
		result_move(d, &seg->r[i]);
		/* kept ticks are on the calibration clock of their segment
		 * (runner.c, clock drift); the report converts with its own */
		if (k != 1.0)
			result_rescale(d, k);	/* samples, sweep, bound; overheads stay raw */
		if (step) {
			d->extra.has |= 1u << RX_STEP;
			snprintf(d->extra.step, sizeof(d->extra.step), "%s", step);
		}
	}
	if (seg->partial && !rep->partial) {
		rep->partial = true;
		snprintf(rep->partial_reason, sizeof(rep->partial_reason), "%s", seg->partial_reason);
	}
	return 0;
}

/* Fresh state for an epoch: a ballast of heap and mapped memory, touched
 * and held while the epoch runs, so its buffers land on other addresses and
 * physical pages than the epoch before (freed pages are handed out again
 * last-in first-out). The walks are reseeded from o->epoch (pattern.c);
 * each epoch pins and calibrates afresh (runner_prepare). Code placement
 * does not move: the timed kernels are fixed in the executable. */
struct ballast {
	void *heap, *map;
	size_t map_len;
};

static void ballast_take(struct ballast *b, unsigned epoch)
{
	size_t heap = (size_t)(epoch % 7) * 20480 + 4096, len = (size_t)(epoch % 5 + 1) << 21;

	b->heap = malloc(heap);
	if (b->heap)
		memset(b->heap, 1, heap);
	b->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->map_len = b->map == MAP_FAILED ? 0 : len;
	if (b->map_len)
		memset(b->map, 1, len);
}

static void ballast_drop(struct ballast *b)
{
	free(b->heap);
	if (b->map_len)
		munmap(b->map, b->map_len);
}

/* rep's meta.epochs, there even when empty; 0 or -ENOMEM. */
static int epochs_start(struct report *rep)
{
	if (!rep->epochs)
		rep->epochs = calloc(1, sizeof(*rep->epochs));
	return rep->epochs ? 0 : -ENOMEM;
}

/* One epoch of the probes of list into rep: fresh state, pinned and
 * calibrated afresh, every result tagged extra.epoch and extra.step (tag,
 * NULL: none); the epoch's calibration and time go to rep's meta.epochs. */
static int run_epoch(struct topo *t, struct run_opts *o, const struct probe *const *list, size_t n,
		     unsigned epoch, const char *tag, struct report *rep)
{
	struct epoch_out *ep = realloc(rep->epochs, (rep->nepochs + 1) * sizeof(*ep));
	struct report seg;
	struct ballast b;
	struct quiet_mark qm;
	size_t first = rep->n;
	int ret, err;

	if (!ep)
		return -ENOMEM;
	rep->epochs = ep;

	ballast_take(&b, epoch);
	report_init(&seg);
	o->epoch = epoch;
	quiet_start(&qm);
	/* on hot lines (runner.c), or under every access pattern (pattern.c) */
	ret = o->patterns ? pattern_run(t, o, list, n, &seg) : runner_run(t, o, list, n, &seg);
	/* cpu_share: the share of the epoch's wall time this thread had its
	 * CPU; another task on the PU takes it away without a migration */
	ep = &rep->epochs[rep->nepochs++];
	*ep = (struct epoch_out){ .has = HAS_KEYS(EP_EPOCH, EP_PARTIAL), .epoch = (int)epoch,
				  .ticks_per_cycle = seg.cal.ticks_per_cycle,
				  .timer_hz = seg.cal.timer_hz, .wall_s = seg.wall_s, .partial = seg.partial,
				  .cpu_share = quiet_share(&qm) };
	snprintf(ep->step, sizeof(ep->step), "%s", tag ? tag : "");
	err = merge(rep, &seg, tag);
	for (size_t i = first; i < rep->n && !err; i++)
		result_set_epoch(&rep->r[i], (int)epoch);
	report_free(&seg);
	ballast_drop(&b);
	return ret ? ret : err;
}

/* Epochs when --epochs is not given: enough for a t interval (df 2). */
#define SESSION_EPOCHS 3

/* --epochs K: the whole set K times, one epoch after the other, so a slow
 * drift or a noisy neighbour lands in the spread between epochs that the
 * verdicts and compare use. The report keeps epoch 1's calibration (later
 * epochs' samples are rescaled onto its clock); every epoch's goes to
 * meta.epochs. */
static int epochs_run(struct topo *t, struct run_opts *o, const struct probe *const *list,
		      size_t n, struct report *rep)
{
	unsigned k = o->epochs ? o->epochs : SESSION_EPOCHS;
	uint64_t t0 = now_ns();
	double limit = o->time_limit_s;
	int ret = epochs_start(rep);

	for (unsigned e = 1; e <= k && ret == 0; e++) {
		if (limit > 0) {
			o->time_limit_s = limit - (now_ns() - t0) / 1e9;
			if (o->time_limit_s <= 0) {
				rep->partial = true;
				snprintf(rep->partial_reason, sizeof(rep->partial_reason), "time limit");
				break;
			}
		}
		ret = run_epoch(t, o, list, n, e, NULL, rep);
		if (rep->partial && !strstr(rep->partial_reason, "epoch")) {
			size_t l = strlen(rep->partial_reason);

			snprintf(rep->partial_reason + l, sizeof(rep->partial_reason) - l, " (epoch %u of %u)", e, k);
		}
	}
	o->time_limit_s = limit;
	rep->wall_s = (now_ns() - t0) / 1e9;
	report_pair_twins(rep);
	return ret;
}

/* ---- the default characterization ---------------------------------- */

/* Seconds each step is planned to take here (the progress line's "left"),
 * and the per-row time of the sampled steps. */
#define HIER_BUDGET_S 8.0
#define PATTERN_ROW_S 0.03
#define LOCK_ROW_S 0.05
/* Epochs of the twins and locks: CHAR_EPOCHS (or --epochs) for every row,
 * then more for the rows still unresolved (their probes, patterns and
 * forms only), up to CHAR_EPOCHS_MAX, while another such epoch fits under
 * CHAR_EPOCHS_BUDGET_S since the start (--quick: QUICK_BUDGET_S). Three
 * epochs of 128 samples a row resolved as many card lines as five of 256,
 * with no verdict flipped, over the four default runs of the Intel guest
 * (docs/card.md, "Time"); the epochs after them go only where a row is
 * open. */
#define CHAR_EPOCHS 3
#define CHAR_EPOCHS_MAX 10
#define CHAR_EPOCHS_BUDGET_S 48.0
#define CHAR_MIN_SAMPLES 128
#define QUICK_BUDGET_S 16.0
/* The default patience: what the load may cost a run (waits, stretches run
 * again, and what other tasks took from the stretches), about a quiet
 * run's own time (46-48 s on the Zen 4 guest, docs/card.md), so a loaded
 * run takes at most about twice a quiet one. */
#define CHAR_PATIENCE_S 40.0
#define SPLIT_OPS 4096
#define C2C_SECONDS 0.1
#define SHARE_SECONDS 0.1
#define CHAR_PATTERNS "hit,dep,l2,llc,miss"
#define QUICK_PATTERNS "hit,dep"

struct cz {
	struct topo *t;
	struct run_opts *o;
	const struct probe *const *list;
	size_t n;
	struct report *rep;
	int cpu;
	struct pattern_sizes sizes;	/* from the measured hierarchy */
	bool have_sizes;
	bool named;			/* --cpu named the PU: the run stays there */
	struct quiet_budget qb;		/* --patience: what the run may spend under load */
	unsigned ep[3];			/* epochs run of each segment (enum segment) */
	uint64_t t0;
};

/* ---- under load: move away, wait for quiet, run again ---------------- */

/* The PU to measure on when --cpu named none: the first allowed one while
 * its thread gets its CPU, else the allowed PU whose probe got the largest
 * share (another task busy on the first one: move away). The thread ends
 * bound to it; why, in meta.characterization (and on stderr when it
 * moved). */
static int pick_cpu(struct cz *c)
{
	struct characterization_meta *cm = c->rep->charz;
	int first = topo_allowed_os(c->t, 0), ret;

	cm->has |= 1u << CZ_CPU | 1u << CZ_CPU_WHY;
	if (c->named) {
		cm->cpu = c->cpu;
		snprintf(cm->cpu_why, sizeof(cm->cpu_why), "named (--cpu)");
		return topo_bind_thread(c->t, c->cpu);
	}
	ret = quiet_pick_cpu(c->t, cm->cpu_why, sizeof(cm->cpu_why));
	if (ret < 0)
		return ret;
	cm->cpu = c->cpu = ret;
	if (ret != first)
		pr_info("run: measuring on CPU %d: %s", ret, cm->cpu_why);
	return 0;
}

/* A stretch is run again at most this often: a load that comes back every
 * few seconds disturbs a long stretch each time, and the patience is better
 * spent on the others. */
#define QUIET_TRIES 2

/* After try (0: the first) of a stretch of took_s at share (the epoch's,
 * the staircase's; 0 for sharing cases whose threads did not overlap):
 * true when it is to run again, after moving to the quietest PU and a
 * quiet window there; false when it was quiet, or (kept disturbed) when it
 * ran QUIET_TRIES times or the patience cannot pay for it. what: for
 * stderr. */
static bool again(struct cz *c, double share, double took_s, const char *what, unsigned try)
{
	uint64_t p0;
	int ret;

	/* the load's cost is the patience's too: what it took from this stretch */
	c->qb.lost_s += took_s * (1 - fmin(fmax(share, 0), 1));
	if (try >= QUIET_TRIES && share < QUIET_SHARE) {
		c->qb.kept_disturbed++;
		return false;
	}
	if (!quiet_should_repeat(&c->qb, share, took_s))
		return false;
	if (c->o->progress)
		fputc('\n', stderr);
	pr_info("run: %s disturbed (the thread had its CPU %.0f%% of the time): waiting for a quiet "
		"second to run it again", what, share * 100);
	p0 = now_ns();
	ret = pick_cpu(c);
	c->qb.waited_s += (now_ns() - p0) / 1e9;	/* the probes of the PUs are waiting too */
	if (ret < 0 || !quiet_budget_wait(&c->qb))
		return false;
	if (!c->named)
		c->o->cpu_os = c->cpu;
	c->qb.repeated++;
	return true;
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

static int step_hierarchy(struct cz *c)
{
	struct hierarchy_opts ho;
	struct hierarchy_section *s;
	size_t nc;
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
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* a staircase measured while another task had the CPU invents levels
	 * (a busy loop beside it once gave an "L4 28.8 MiB"): a disturbed one
	 * is measured again, from scratch, after a quiet window */
	for (unsigned try = 0;; try++) {
		struct quiet_mark qm;
		uint64_t s0 = now_ns();

		quiet_start(&qm);
		ret = hierarchy_measure(&ho, &c->rep->cal, c->t, c->cpu, s);
		if (try)
			c->qb.repeat_s += (now_ns() - s0) / 1e9;
		if (ret || !again(c, quiet_share(&qm), (now_ns() - s0) / 1e9, "the staircase", try))
			break;
		ret = clock_calibrate(&c->rep->cal, c->cpu);
		if (ret)
			break;
	}
	if (ret && ret != -EINTR) {
		free(s);
		return ret;
	}
	c->rep->hier = s;
	/* the patterns' footprints from the measured levels, when the three
	 * caches were found (hwloc's sizes can be fiction in a guest) */
	nc = hierarchy_ncaches(s);
	c->sizes.l1d = hierarchy_cache_size(s, 1);
	c->sizes.l2 = hierarchy_cache_size(s, 2);
	c->sizes.llc = nc >= 3 ? hierarchy_cache_size(s, (int)nc) : 0;
	c->sizes.line = topo_line_size(c->t) ? topo_line_size(c->t) : 64;
	c->have_sizes = c->sizes.l1d && c->sizes.l2 > c->sizes.l1d && c->sizes.llc > c->sizes.l2;
	hierarchy_walks(s, c->sizes.walk);	/* walks inside each level, where found */
	return ret;
}

/* A probe of the default set some of whose twin rows are still
 * unresolved (or the twin of one), with the base names of the patterns
 * those rows ran under ("dep" for "dep+ptr") added to pats and their
 * forms to *modes. */
static bool unresolved(const struct report *rep, const struct probe *p, char *pats, size_t len,
		       unsigned *modes)
{
	bool any = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		char base[32];

		if (r->judge.v != VERDICT_UNRESOLVED || (strcmp(r->name, p->name) && strcmp(r->twin, p->name)))
			continue;
		any = true;
		*modes |= 1u << r->mode;
		snprintf(base, sizeof(base), "%.*s", (int)strcspn(r->pattern, "+"), r->pattern);
		if (!strstr(pats, base) && strlen(pats) + strlen(base) + 2 < len)
			snprintf(pats + strlen(pats), len - strlen(pats), "%s%s", *pats ? "," : "", base);
	}
	return any;
}

/* An epoch's segments: the twins under every pattern; the probes whose
 * pattern kernels only put them in context (locks, per-CPU ops: the menu
 * reads their hot rows, the L1 walk and the pending stores); the others on
 * hot lines. */
enum segment { SEG_TWINS, SEG_CONTEXT, SEG_HOT, SEG__COUNT };
static const struct {
	const char *tag, *patterns;
	double row_s;
} segments[SEG__COUNT] = {
	[SEG_TWINS] = { "patterns", CHAR_PATTERNS, PATTERN_ROW_S },
	[SEG_CONTEXT] = { "context", "hit,dep", PATTERN_ROW_S },
	[SEG_HOT] = { "locks", NULL, LOCK_ROW_S },
};

_Static_assert(SEG__COUNT == ARRAY_SIZE(((struct cz *)0)->ep), "an epoch count per segment");

static enum segment segment_of(const struct probe *p)
{
	return !p->patterns ? SEG_HOT : p->patterns->context_only ? SEG_CONTEXT : SEG_TWINS;
}

/* The probes of one segment of an epoch: all of them in the first epochs,
 * then those with rows unresolved, under the patterns and in the forms
 * where they were (*modes). */
static size_t epoch_probes(const struct cz *c, enum segment sg, bool all, const struct probe **out,
			   char *pats, size_t len, unsigned *modes)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		if (segment_of(c->list[i]) == sg && (all || unresolved(c->rep, c->list[i], pats, len, modes)))
			out[k++] = c->list[i];
	return k;
}

/* How many probes an epoch runs (all, or those with rows open). */
static size_t open_probes(const struct cz *c, bool all, const struct probe **sub)
{
	size_t k = 0;

	for (int sg = 0; sg < SEG__COUNT; sg++)
		k += epoch_probes(c, (enum segment)sg, all, sub, (char[64]){ 0 }, 64, &(unsigned){ 0 });
	return k;
}

/* The patterns of a segment: --quick keeps the twins on hot lines and in
 * the L1 walk. */
static const char *segment_patterns(const struct cz *c, enum segment sg)
{
	return sg == SEG_TWINS && c->o->quick ? QUICK_PATTERNS : segments[sg].patterns;
}

static int epoch_segment(struct cz *c, enum segment sg, bool all, const struct probe **sub)
{
	struct run_opts o = *c->o;
	char pats[64] = "";
	unsigned modes = 0;
	size_t k = epoch_probes(c, sg, all, sub, pats, sizeof(pats), &modes);
	int ret = 0;

	if (!k)
		return 0;
	o.patterns = segments[sg].patterns && !all ? pats : segment_patterns(c, sg);
	if (!all)
		o.mode_mask &= modes;
	o.max_seconds = segments[sg].row_s;
	o.min_samples = CHAR_MIN_SAMPLES;
	o.time_limit_s = time_left(c);
	if (o.patterns && c->have_sizes)
		o.sizes = &c->sizes;
	if (o.patterns)
		ret = pattern_check(c->t, &o);
	/* a disturbed epoch is kept (every sample, its meta.epochs share under
	 * QUIET_SHARE) and run again as a new epoch after a quiet window */
	for (unsigned try = 0; !ret; try++) {
		uint64_t s0 = now_ns();
		char what[64];

		o.cpu_os = c->o->cpu_os;
		ret = run_epoch(c->t, &o, sub, k, ++c->ep[sg], segments[sg].tag, c->rep);
		if (try)
			c->qb.repeat_s += (now_ns() - s0) / 1e9;
		snprintf(what, sizeof(what), "epoch %u of the %s", c->ep[sg], segments[sg].tag);
		if (ret || !again(c, c->rep->epochs[c->rep->nepochs - 1].cpu_share, (now_ns() - s0) / 1e9, what,
				  try))
			break;
		c->rep->epochs[c->rep->nepochs - 1].rerun = true;
		c->rep->epochs[c->rep->nepochs - 1].has |= 1u << EP_RERUN;
	}
	return ret;
}

/* The twins under every pattern and the locks and per-CPU ops on hot
 * lines, over epochs (epochs_run), judged after each: the first ones
 * run everything, later ones only what is still unresolved. */
static int step_epochs(struct cz *c)
{
	const struct probe **sub = calloc(c->n + 1, sizeof(*sub));
	unsigned min = c->o->epochs ? c->o->epochs : CHAR_EPOCHS;
	double budget = c->o->quick ? QUICK_BUDGET_S : CHAR_EPOCHS_BUDGET_S, next = 0;
	int ret = 0;

	if (!sub)
		return -ENOMEM;
	for (unsigned e = 1; e <= (min > CHAR_EPOCHS_MAX ? min : CHAR_EPOCHS_MAX) && !ret; e++) {
		bool all = e <= min;
		/* the time spent under load is the patience's, not the epochs' */
		double e0 = (now_ns() - c->t0) / 1e9 - c->qb.waited_s - c->qb.repeat_s;

		size_t ran = open_probes(c, all, sub);

		/* another epoch of the open rows only when it fits, at the
		 * pace of the last one */
		if (!all && e0 + next > budget)
			break;
		if (c->o->progress)
			fprintf(stderr, "\r\033[Katomcost: epoch %u%s (%.0f s so far)", e,
				all ? "" : ", the unresolved rows", (now_ns() - c->t0) / 1e9);
		for (int sg = 0; sg < SEG__COUNT && !ret; sg++)
			ret = epoch_segment(c, (enum segment)sg, all, sub);
		report_pair_twins(c->rep);
		if (e >= min) {
			size_t left = open_probes(c, false, sub);

			if (!left)
				break;
			next = ((now_ns() - c->t0) / 1e9 - c->qb.waited_s - c->qb.repeat_s - e0) * (double)left /
			       (double)(ran ? ran : 1);
		}
	}
	if (c->o->progress)
		fputc('\n', stderr);
	free(sub);
	return ret;
}

/* The split lock, unless --no-split-lock: said on stderr first, since its
 * bus locks stall every tenant of the host. The ratio's denominator is this
 * report's aligned atomic_inc hot-line latency row. */
static int step_splitlock(struct cz *c)
{
	struct splitlock_section sr;
	int ret;

	if (c->o->no_split_lock || c->o->quick) {
		if (!(c->rep->split = calloc(1, sizeof(*c->rep->split))))
			return -ENOMEM;
		c->rep->split->has = 1u << SL_SKIPPED;
		snprintf(c->rep->split->skipped, sizeof(c->rep->split->skipped), "%s",
			 c->o->quick ? "--quick" : "--no-split-lock");
		return 0;
	}
	ret = topo_bind_thread(c->t, c->cpu);
	if (!ret)
		ret = splitlock_measure(SPLIT_OPS, &c->rep->cal, &sr);
	if (!ret && !splitlock_reference_from(&sr, c->rep))
		ret = splitlock_reference(&c->rep->cal, &sr);
	if (!ret && !(c->rep->split = malloc(sizeof(*c->rep->split))))
		ret = -ENOMEM;
	if (!ret)
		*c->rep->split = sr;
	return ret;
}

static int step_topology(struct cz *c)
{
	struct c2c_pair *pairs = NULL;
	struct c2c_row *rows = NULL;
	const struct probe *sp[4];	/* those the card's sharing line can show (probe.card_share) */
	size_t npairs = 0, nrows = 0, nsp = 0;
	bool absent[PAIR__COUNT];
	int ret;

	if (topo_allowed_count(c->t) < 2)
		return -ENOTSUP;
	ret = c2c_plan(c->t, false, &pairs, &npairs, absent);
	if (!ret && !(rows = calloc(npairs * C2C__COUNT + 1, sizeof(*rows))))
		ret = -ENOMEM;
	if (!ret)
		ret = c2c_run(c->t, pairs, npairs, 1u << C2C_CMPXCHG, C2C_SECONDS, false, rows,
			      &nrows);
	if ((!ret || ret == -EINTR) && (c->rep->c2c = malloc(sizeof(*c->rep->c2c))) &&
	    c2c_section_of(c->t, &c->rep->cal, rows, nrows, absent, 1u << C2C_CMPXCHG, false,
			   c->rep->c2c)) {
		free(c->rep->c2c);
		c->rep->c2c = NULL;
	}
	for (size_t i = 0; i < probe_count && nsp < ARRAY_SIZE(sp); i++) {
		const struct probe *p = probe_table[i];

		if (p->card_share && !probe_unsupported(p) && p->run[MODE_LATENCY])
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
		/* a case whose threads did not run together measured no
		 * contention (another task had one of the PUs): the pair runs
		 * again after a quiet window, and the rerun replaces it */
		for (unsigned try = 0;; try++) {
			uint64_t s0 = now_ns();
			bool apart = false;

			o.time_limit_s = time_left(c);
			report_init(&seg);
			ret = contention_run(c->t, &o, sp, nsp, &seg);
			for (size_t i = 0; i < seg.n; i++)
				apart |= result_contention(&seg.r[i]) && result_contention(&seg.r[i])->overlapped == 0;
			if (try)
				c->qb.repeat_s += (now_ns() - s0) / 1e9;
			if (ret || !apart || !again(c, 0, (now_ns() - s0) / 1e9, "a sharing case", try))
				break;
			report_free(&seg);
		}
		err = merge(c->rep, &seg, "topology");
		report_free(&seg);
		if (!ret)
			ret = err;
	}
	free(rows);
	free(pairs);
	return ret;
}

/* full: a step --quick leaves out (the split lock's is in its section) */
static const struct {
	const char *name;
	double planned_s;
	int (*fn)(struct cz *c);
	bool full;
} steps[] = {
	{ "memory hierarchy", HIER_BUDGET_S + 2, step_hierarchy, true },
	{ "twins under hit, dep, l2, llc, miss, locks and per-CPU ops, over epochs", CHAR_EPOCHS_BUDGET_S,
	  step_epochs, false },
	{ "split lock", 1, step_splitlock, false },
	{ "topology: c2c and sharing per pair class", 3, step_topology, false },
};
#define QUICK_LEFT_OUT "the staircase (caches line), the L2, LLC and DRAM walks, the split lock"
_Static_assert(ARRAY_SIZE(steps) <= CHARZ_MAX_STEPS, "meta.characterization holds every step");

/* The seconds the steps from i on are planned to take here, quiet. */
static double planned_s(size_t i)
{
	double left = 0;

	for (size_t k = i; k < ARRAY_SIZE(steps); k++)
		left += steps[k].planned_s;
	return left;
}

static void progress(const struct cz *c, size_t i)
{
	double el = (now_ns() - c->t0) / 1e9, left = planned_s(i);

	if (!c->o->progress)
		return;
	fprintf(stderr, "\r\033[Katomcost: step %zu/%zu %s (%.0f s so far, about %.0f s left)\n", i + 1,
		ARRAY_SIZE(steps), steps[i].name, el, left);
}

/* The default characterization, in under a minute: the steps above in this
 * order, each in its own time budget; a step that cannot run here is
 * recorded as skipped with its reason in meta.characterization. list: the
 * default probe set (twins included). */
static int characterization(struct topo *t, struct run_opts *o, const struct probe *const *list,
			    size_t n, struct report *rep)
{
	struct cz c = { .t = t, .o = o, .list = list, .n = n, .rep = rep, .t0 = now_ns() };
	struct characterization_meta *cm;
	struct charz_step *st;
	int ret = 0, cpu0;

	c.named = o->cpu_named;
	c.cpu = o->cpu_os >= 0 ? o->cpu_os : topo_allowed_os(t, 0);
	c.qb.patience_s = o->patience_s >= 0 ? o->patience_s : o->quick ? QUICK_BUDGET_S : CHAR_PATIENCE_S;
	if (!o->no_split_lock && !o->quick)	/* before it starts: its bus locks reach every tenant */
		splitlock_announce("--no-split-lock (or [run] split_lock = no)");
	if (epochs_start(rep) || !(cm = rep->charz = calloc(1, sizeof(*cm))))
		return -ENOMEM;
	ret = pick_cpu(&c);	/* the quietest allowed PU, when none was named */
	if (ret < 0)
		return ret;
	cpu0 = o->cpu_os;
	o->cpu_os = c.cpu;
	for (size_t i = 0; i < ARRAY_SIZE(steps) && ret != -EINTR; i++) {
		uint64_t s0 = now_ns();
		const char *status = "done";

		if (runner_out_of_time(o, rep, c.t0))
			break;
		progress(&c, i);
		ret = o->quick && steps[i].full ? 0 : steps[i].fn(&c);
		if (o->quick && steps[i].full) {
			status = "left out: --quick";
		} else if (ret == -EINTR) {
			status = "interrupted";
			rep->partial = true;
			snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
		} else if (ret == -ENOTSUP || ret == -ENOENT) {
			status = "skipped: not possible here";	/* the step said why */
			ret = 0;
		} else if (ret) {
			break;
		}
		st = &cm->steps[cm->nsteps++];
		*st = (struct charz_step){ .has = HAS_ALL(CZS__COUNT), .seconds = (now_ns() - s0) / 1e9 };
		snprintf(st->step, sizeof(st->step), "%s", steps[i].name);
		snprintf(st->status, sizeof(st->status), "%s", status);
	}
	o->cpu_os = cpu0;
	cm->has |= 1u << CZ_STEPS | 1u << CZ_PATTERN_SIZES | 1u << CZ_COMPLETE | 1u << CZ_PATIENCE |
		   1u << CZ_WAITED | 1u << CZ_REPEATED | 1u << CZ_KEPT_DISTURBED;
	cm->patience_s = c.qb.patience_s;
	cm->waited_s = c.qb.waited_s;
	cm->repeated = (int)c.qb.repeated;
	cm->kept_disturbed = (int)c.qb.kept_disturbed;
	if (c.qb.kept_disturbed) {	/* the first reason that holds */
		cm->has |= 1u << CZ_KEPT_WHY;
		if (c.qb.vain >= QUIET_VAIN_WAITS)
			snprintf(cm->kept_why, sizeof(cm->kept_why), "no quiet second in %u waits of %.0f s: "
				 "the machine was busy without a break", c.qb.vain, QUIET_WAIT_S);
		else if (c.qb.waited_s + c.qb.repeat_s + c.qb.lost_s + QUIET_WINDOW_S > c.qb.patience_s)
			snprintf(cm->kept_why, sizeof(cm->kept_why), "the patience ran out");
		else
			snprintf(cm->kept_why, sizeof(cm->kept_why), "each run %d times already", QUIET_TRIES + 1);
	}
	if (o->quick) {
		cm->has |= 1u << CZ_LEFT_OUT;
		snprintf(cm->left_out, sizeof(cm->left_out), "%s", QUICK_LEFT_OUT);
	}
	snprintf(cm->pattern_sizes, sizeof(cm->pattern_sizes), "%s",
		 c.have_sizes ? "measured hierarchy" : "hwloc (measured levels incomplete)");
	cm->complete = !rep->partial && !ret;
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
	report_fingerprint(rep, NULL);
}

int session_run(struct topo *t, struct run_opts *o, const struct probe *const *list, size_t n,
		const struct experiment *exp, bool characterize, FILE *repro_out, struct report *rep)
{
	int ret;

	if (characterize)
		ret = characterization(t, o, list, n, rep);
	else if (exp && !config_kind_has(exp, "probes"))
		ret = 0;	/* reproductions only */
	else if (o->threads >= 2 || o->placement || o->sharing)
		ret = contention_run(t, o, list, n, rep);	/* N pinned threads on one line */
	else
		ret = epochs_run(t, o, list, n, rep);
	/* reproductions of published scorings (src/repro/) print their
	 * seed-shaped tables as they go */
	if (exp && ret >= 0)
		ret = repro_run_all(exp, t, o, rep, repro_out);
	report_fingerprint(rep, &rep->cal);
	return ret;
}

bool session_untrustworthy(const struct report *rep)
{
	bool bad = !rep->cal.trustworthy;

	for (size_t i = 0; i < rep->n; i++) {
		const struct result *r = &rep->r[i];
		const struct contention_part *ct = result_contention(r);

		bad |= r->migrated;
		/* more than 5% of the samples saw a context switch or a migration */
		if (r->disturbed > 0 && r->nsamples && r->disturbed * 20 > (long)r->nsamples) {
			pr_warn("run: %s %s: %ld of %zu samples disturbed (context switch or migration)",
				r->name, probe_mode_name(r->mode), r->disturbed, r->nsamples);
			bad = true;
		}
		/* a contention case whose threads did not run at the same time */
		if (ct && ct->overlapped == 0) {
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
