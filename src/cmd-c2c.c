/* cmd-c2c.c - `atomcost c2c`: cache-line round-trip latency between PUs.
 *
 * Two threads pinned to PUs a and b pass one cache line back and forth, a
 * counter in its first word telling whose turn it is (a writes odd values,
 * b even ones). Two methods:
 *   cmpxchg     each side spins on `lock cmpxchg` until it turns the value
 *               it waits for into its own: a round trip moves the line at
 *               least twice (once to each side); a failed cmpxchg also takes
 *               the line exclusive, so waiting can move it more often.
 *   load-store  each side spins reading the line, then stores: per round
 *               trip 2 transfers (each side's read miss fetches the line the
 *               other side modified) and 2 invalidations (each store upgrades
 *               a line the other side holds shared).
 * A sample times ROUNDS round trips on a's timer; samples are kept for
 * --max-seconds per pair and method. The table gives min, median and p90
 * per round trip and half the median as the one-way latency.
 *
 * By default one representative pair per topology class (topo_find_pair),
 * so a machine with hundreds of PUs costs a handful of pairs; absent classes
 * are listed as absent. --all-pairs measures every pair of allowed PUs and
 * fills the whole matrix (JSON: "matrix").
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "clock.h"
#include "cmd.h"
#include "common.h"
#include "report.h"
#include "runner.h"
#include "stats.h"
#include "topo.h"

#define ROUNDS 64		/* round trips per sample */
#define MAX_SAMPLES 4096
#define SPIN_CHECK 4096		/* spins between deadline checks */

enum c2c_method { C2C_CMPXCHG, C2C_LOADSTORE, C2C__COUNT };

static const char *const method_names[C2C__COUNT] = { "cmpxchg", "load-store" };
static const char *const method_keys[C2C__COUNT] = { "cmpxchg", "load_store" };
static const char *const method_transfers[C2C__COUNT] = {
	">= 2 line transfers (failed cmpxchgs also pull the line exclusive)",
	"2 line transfers (read misses) + 2 invalidations (store upgrades)",
};

struct pingpong {
	struct topo *topo;
	volatile uint64_t *w;
	enum c2c_method m;
	int cpu_b;
	uint64_t deadline_ns;	/* both sides give up past it */
	int go, stop;		/* atomics */
	int err_b;
};

/* Wait until the line holds `want`, then write `next` (one side's turn).
 * false when the deadline passed (the other side stopped running). */
static inline bool take_turn(struct pingpong *pp, uint64_t want, uint64_t next)
{
	unsigned spins = 0;

	if (pp->m == C2C_CMPXCHG) {
		while (arch_cmpxchg(pp->w, want, next) != want)
			if (++spins % SPIN_CHECK == 0 &&
			    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
				return false;
	} else {
		while (arch_load(pp->w) != want)
			if (++spins % SPIN_CHECK == 0 &&
			    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
				return false;
		arch_store(pp->w, next);
	}
	return true;
}

/* Wait for `want` without changing the value. */
static inline bool wait_for(struct pingpong *pp, uint64_t want)
{
	unsigned spins = 0;

	while ((pp->m == C2C_CMPXCHG ? arch_cmpxchg(pp->w, want, want) : arch_load(pp->w)) != want)
		if (++spins % SPIN_CHECK == 0 &&
		    (__atomic_load_n(&pp->stop, __ATOMIC_RELAXED) || now_ns() > pp->deadline_ns))
			return false;
	return true;
}

/* b: waits for odd values, answers with the next even one. */
static void *responder(void *arg)
{
	struct pingpong *pp = arg;
	uint64_t v = 1;

	pp->err_b = topo_bind_thread(pp->topo, pp->cpu_b);
	__atomic_store_n(&pp->go, pp->err_b ? -1 : 1, __ATOMIC_RELEASE);
	if (pp->err_b)
		return NULL;
	while (!__atomic_load_n(&pp->stop, __ATOMIC_ACQUIRE)) {
		if (!take_turn(pp, v, v + 1))
			break;
		v += 2;
	}
	return NULL;
}

struct c2c_row {
	enum pair_class cls;
	int a, b;
	enum c2c_method m;
	struct summary s;	/* ticks per round trip */
	size_t n;
	bool timed_out;
};

/* One pair, one method: the calling thread is a (already pinned). */
static int measure_pair(struct topo *t, int a, int b, enum c2c_method m, double seconds,
			struct c2c_row *row)
{
	struct pingpong pp = { .topo = t, .m = m, .cpu_b = b };
	double *samples = malloc(MAX_SAMPLES * sizeof(double));
	uint64_t *line = aligned_alloc(128, 128);
	pthread_t tid;
	uint64_t v = 0, end;
	size_t n = 0;
	int err = 0;

	if (!samples || !line) {
		free(samples);
		free(line);
		return -ENOMEM;
	}
	memset(line, 0, 128);
	pp.w = line;
	pp.deadline_ns = now_ns() + (uint64_t)(seconds * 1e9) + 2000000000ull;
	if (pthread_create(&tid, NULL, responder, &pp)) {
		pr_err("c2c: cannot start the thread for CPU %d", b);
		free(samples);
		free(line);
		return -EAGAIN;
	}
	while (!__atomic_load_n(&pp.go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	if (pp.go < 0) {
		pthread_join(tid, NULL);
		free(samples);
		free(line);
		return pp.err_b;
	}
	/* warm-up: a few hundred round trips */
	for (int i = 0; i < 256 && !row->timed_out; i++, v += 2)
		row->timed_out = !take_turn(&pp, v, v + 1);
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (!row->timed_out && n < MAX_SAMPLES && now_ns() < end && !runner_stop) {
		uint64_t t0 = arch_timer_start(), t1;

		for (int i = 0; i < ROUNDS; i++, v += 2)
			if (!take_turn(&pp, v, v + 1)) {
				row->timed_out = true;
				break;
			}
		/* the last round trip ends when b's answer arrives: wait for it
		 * without a store (cmpxchg v -> v, or a load), so the next
		 * sample starts with the line here */
		if (!row->timed_out && !wait_for(&pp, v))
			row->timed_out = true;
		t1 = arch_timer_stop();
		if (!row->timed_out)
			samples[n++] = (double)(t1 - t0) / ROUNDS;
	}
	__atomic_store_n(&pp.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	row->a = a;
	row->b = b;
	row->m = m;
	row->n = n;
	if (n)
		stats_summarize(samples, n, &row->s);
	if (runner_stop)
		err = -EINTR;
	free(samples);
	free(line);
	return err;
}

static void c2c_usage(FILE *f)
{
	fprintf(f,
		"usage: atomcost c2c [options]\n"
		"  Cache-line round trip between two PUs: cmpxchg ping-pong and load/store ping-pong.\n"
		"  Default: one representative pair per topology class (smt, l2, l3, numa, package,\n"
		"  cross); a class this machine lacks is listed as absent.\n"
		"  --all-pairs         every pair of allowed PUs (the full matrix)\n"
		"  --method LIST       cmpxchg,load-store (default both)\n"
		"  --max-seconds S     sampling time per pair and method (default 0.2)\n"
		"  --format FMT        stdout: text (default) or json\n"
		"  -o, --output FILE   write the JSON (table and matrix) to FILE\n"
		"  --force             overwrite FILE\n");
}

static json_t *summary_obj(const struct summary *s, double scale)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "min", s->min * scale, "p10", s->p10 * scale,
			 "median", s->median * scale, "p90", s->p90 * scale, "max", s->max * scale);
}

static json_t *to_json(const struct calibration *cal, struct topo *t, const struct c2c_row *rows,
		       size_t nrows, const bool *absent, unsigned mmask, bool all)
{
	int npu = topo_allowed_count(t);
	json_t *pairs = json_array(), *absent_j = json_array(), *cpus = json_array();
	json_t *matrix = json_object(), *root, *methods = json_object();
	char summ[256];

	for (int i = 0; i < npu; i++)
		json_array_append_new(cpus, json_integer(topo_allowed_os(t, i)));
	json_object_set_new(matrix, "cpus", cpus);
	json_object_set_new(matrix, "unit", json_string("ns per round trip (median)"));
	for (int m = 0; m < C2C__COUNT; m++) {
		json_t *mat = json_array();

		if (!(mmask & (1u << m)))
			continue;
		for (int i = 0; i < npu; i++) {
			json_t *rowj = json_array();

			for (int j = 0; j < npu; j++)
				json_array_append_new(rowj, json_null());
			json_array_append_new(mat, rowj);
		}
		json_object_set_new(matrix, method_keys[m], mat);
		json_object_set_new(methods, method_names[m], json_string(method_transfers[m]));
	}
	for (size_t k = 0; k < nrows; k++) {
		const struct c2c_row *r = &rows[k];
		double ns = 1e9 / cal->timer_hz, cyc = 1.0 / cal->ticks_per_cycle;
		json_t *mat = json_object_get(matrix, method_keys[r->m]);
		int ia = -1, ib = -1;

		for (int i = 0; i < npu; i++) {
			if (topo_allowed_os(t, i) == r->a)
				ia = i;
			if (topo_allowed_os(t, i) == r->b)
				ib = i;
		}
		json_array_append_new(pairs, json_pack("{s:s, s:i, s:i, s:s, s:s, s:I, s:b, s:o, s:o, s:o, s:f}",
			"class", topo_pair_class_name(r->cls), "cpu_a", r->a, "cpu_b", r->b,
			"method", method_names[r->m], "transfers_per_round_trip", method_transfers[r->m],
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
	topo_summary(t, summ, sizeof(summ));
	root = json_pack("{s:s, s:s, s:o, s:s, s:i, s:o, s:o, s:o, s:o}",
			 "schema", "atomcost-c2c/1", "mode", all ? "all-pairs" : "one pair per class",
			 "calibration", clock_to_json(cal), "topology", summ,
			 "rounds_per_sample", ROUNDS, "methods", methods, "pairs", pairs,
			 "absent_classes", absent_j, "matrix", matrix);
	return root;
}

static void to_text(const struct calibration *cal, struct topo *t, const struct c2c_row *rows,
		    size_t nrows, const bool *absent, FILE *f)
{
	char summ[256];

	topo_summary(t, summ, sizeof(summ));
	fprintf(f, "# atomcost c2c: core %.3f GHz (timer %.4f GHz), %s\n", cal->core_hz / 1e9,
		cal->timer_hz / 1e9, summ);
	fprintf(f, "# round trip = the line goes to the other PU and back; one-way = median / 2\n");
	for (int m = 0; m < C2C__COUNT; m++)
		fprintf(f, "# %-10s per round trip: %s\n", method_names[m], method_transfers[m]);
	fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7s\n", "class", "cpus", "method",
		"rt ns min", "median", "p90", "rt cyc", "one-way ns", "samples");
	for (size_t k = 0; k < nrows; k++) {
		const struct c2c_row *r = &rows[k];
		char cpus[24];

		snprintf(cpus, sizeof(cpus), "%d,%d", r->a, r->b);
		if (!r->n) {
			fprintf(f, "%-8s %-9s %-10s %9s %9s %9s %9s %10s %7d%s\n",
				topo_pair_class_name(r->cls), cpus, method_names[r->m], "-", "-", "-",
				"-", "-", 0, r->timed_out ? "  TIMED OUT (the other PU did not run)" : "");
			continue;
		}
		fprintf(f, "%-8s %-9s %-10s %9.1f %9.1f %9.1f %9.1f %10.1f %7zu%s\n",
			topo_pair_class_name(r->cls), cpus, method_names[r->m],
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

static int parse_methods(const char *s, unsigned *mask)
{
	char buf[64], *save = NULL, *tok;

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m;

		for (m = 0; m < C2C__COUNT; m++)
			if (!strcmp(tok, method_names[m]))
				break;
		if (m == C2C__COUNT) {
			pr_err("c2c: --method: unknown method '%s' (expected cmpxchg, load-store)", tok);
			return -EINVAL;
		}
		*mask |= 1u << m;
	}
	if (!*mask) {
		pr_err("c2c: --method: empty list (expected cmpxchg, load-store)");
		return -EINVAL;
	}
	return 0;
}

static int dump_json(void *arg, FILE *f)
{
	if (json_dumpf(arg, f, JSON_INDENT(1)) < 0)
		return -EIO;
	fputc('\n', f);
	return 0;
}

/* Through the reports' atomic writer: temporary file, fsync, rename; an
 * existing file only with --force. */
static int write_json_file(json_t *j, const char *path, bool force)
{
	return report_write_atomic(path, force, dump_json, j);
}

int cmd_c2c(int argc, char **argv)
{
	enum { O_ALL = 256, O_METHOD, O_MAXS, O_FORMAT, O_FORCE };
	static const struct option opts[] = {
		{ "all-pairs", no_argument, NULL, O_ALL },
		{ "method", required_argument, NULL, O_METHOD },
		{ "max-seconds", required_argument, NULL, O_MAXS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool all = false, json_out = false, force = false, absent[PAIR__COUNT] = { false };
	unsigned mmask = (1u << C2C__COUNT) - 1;
	double seconds = 0.2;
	const char *out = NULL;
	struct c2c_row *rows = NULL;
	size_t nrows = 0, cap;
	struct calibration cal;
	struct topo *t = NULL;
	int c, err = 0, npu;
	json_t *j;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_ALL:
			all = true;
			break;
		case O_METHOD:
			if (parse_methods(optarg, &mmask) < 0)
				return EXIT_USAGE;
			break;
		case O_MAXS:
			if (parse_double("c2c: --max-seconds", optarg, 0.001, 600, &seconds) < 0)
				return EXIT_USAGE;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "json"))
				json_out = true;
			else if (strcmp(optarg, "text")) {
				pr_err("c2c: --format: unknown format '%s' (expected text or json)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case O_FORCE:
			force = true;
			break;
		case 'h':
			c2c_usage(stdout);
			return EXIT_OK;
		default:
			c2c_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("c2c: unexpected argument '%s' (see 'atomcost c2c --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (out && !force && access(out, F_OK) == 0) {
		pr_err("c2c: '%s' exists (use --force to overwrite it)", out);
		return EXIT_USAGE;
	}
	err = topo_open(&t, NULL, NULL);
	if (err)
		return exit_code_for(err);
	npu = topo_allowed_count(t);
	if (npu < 2) {
		pr_err("c2c: only %d PU allowed (a round trip needs 2; check taskset/cgroups)", npu);
		topo_close(t);
		return EXIT_UNSUPPORTED;
	}
	cap = all ? (size_t)npu * (npu - 1) / 2 * C2C__COUNT : PAIR__COUNT * C2C__COUNT;
	rows = calloc(cap, sizeof(*rows));
	if (!rows) {
		topo_close(t);
		return EXIT_RUNTIME;
	}
	err = topo_bind_thread(t, topo_allowed_os(t, 0));
	if (!err)
		err = clock_calibrate(&cal, topo_allowed_os(t, 0));
	if (err)
		goto out;

	for (int i = 0; i < npu && !err; i++) {
		for (int k = i + 1; k < npu && !err; k++) {
			int a = topo_allowed_os(t, i), b = topo_allowed_os(t, k);
			enum pair_class cls = topo_classify(t, a, b);

			if (!all) {
				int fa, fb;

				/* the representative pair of each class: topo_find_pair's */
				if (topo_find_pair(t, cls, &fa, &fb) || fa != a || fb != b)
					continue;
			}
			if ((err = topo_bind_thread(t, a)))
				break;
			for (int m = 0; m < C2C__COUNT && !err; m++) {
				if (!(mmask & (1u << m)))
					continue;
				if (isatty(STDERR_FILENO))
					fprintf(stderr, "\r\033[Kc2c %d,%d %s", a, b, method_names[m]);
				rows[nrows].cls = cls;
				err = measure_pair(t, a, b, (enum c2c_method)m, seconds, &rows[nrows]);
				if (!err || err == -EINTR)
					nrows++;
			}
		}
	}
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	for (int cl = 0; cl < PAIR__COUNT; cl++) {
		int fa, fb;

		absent[cl] = topo_find_pair(t, (enum pair_class)cl, &fa, &fb) == -ENOENT;
	}
	if (err && err != -EINTR)
		goto out;
	j = to_json(&cal, t, rows, nrows, absent, mmask, all);
	if (json_out) {
		json_dumpf(j, stdout, JSON_INDENT(1));
		fputc('\n', stdout);
	} else {
		to_text(&cal, t, rows, nrows, absent, stdout);
	}
	if (out) {
		int werr = write_json_file(j, out, force);

		if (werr && !err)
			err = werr;
	}
	json_decref(j);
out:
	free(rows);
	topo_close(t);
	if (err == -EINTR)
		return cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
	return exit_code_for(err);
}
