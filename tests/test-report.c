/* SPDX-License-Identifier: MIT */
/* test-report.c - report writers and files.
 *
 *  - golden files for the text, mail, CSV and JSON writers from one fixed
 *    synthetic report (fixed samples, calibration and fingerprint);
 *    ATOMCOST_UPDATE_GOLDEN=1 rewrites them (review the diff);
 *  - JSON round trip: write, read back, compare;
 *  - atomic writing: a writer failing midway, and a process killed midway,
 *    leave the previous file intact; no overwrite without asking;
 *  - HTML escaping; the fingerprint read from a fake /proc and /sys tree,
 *    and fingerprint_diff.
 * The golden JSON is also the input of the headless-browser test.
 */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "compare.h"
#include "fingerprint.h"
#include "harness.h"
#include "report.h"
#include "sections.h"

static const char *srcdir(void)
{
	const char *s = getenv("ATOMCOST_SRCDIR");

	return s && s[0] ? s : "..";
}

/* A fixed fingerprint: what fingerprint_collect() would return on a made-up
 * machine, with a string that needs HTML escaping. */
static json_t *fixed_meta(void)
{
	return json_pack(
		"{s:[s,s,s], s:{s:[s,s], s:[s,s], s:s, s:i, s:i}, s:{s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s},"
		" s:f, s:f, s:{s:b, s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s},"
		" s:{s:s, s:s, s:s}, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:s}}",
		"command_line", "run", "-o", "golden.json",
		"experiment", "probes", "set_bit", "__set_bit", "modes", "latency", "throughput",
		"patterns", "hit,l2", "cpu", 0, "epochs", 1,
		"fingerprint", "host", "golden-host",
		"cpu", "source", "/proc/cpuinfo", "vendor", "AuthenticAMD", "model_name",
		"Synthetic CPU <script>alert(1)</script> & co", "family", "26", "model", "2",
		"stepping", "1", "microcode", "absent",
		"core_hz", 4e9, "tsc_hz", 2e9,
		"hypervisor", "cpuid_flag", 1, "type", "absent", "dmi_sys_vendor", "QEMU", "dmi_product",
		"Standard PC",
		"kernel", "sysname", "Linux", "release", "6.1.0-golden", "version", "#1 SMP", "machine",
		"x86_64",
		"mitigations", "spectre_v1", "Mitigation: usercopy/swapgs barriers",
		"spectre_v2", "Mitigation: Retpolines",
		"cpufreq", "driver", "absent", "governor", "absent", "boost", "absent",
		"smt", "notsupported", "thp", "madvise", "perf_event_paranoid", "2",
		"topology", "1 package, 1 NUMA node, 2 cores, 2 PUs, no SMT",
		"compiler", "cc", "gcc 12.2.0", "flags", "-O2 -g -std=gnu11", "buildtype", "debugoptimized",
		"arch", "x86_64", "atomics", "asm", "tool_version", "0.0.0-golden");
}

static void set_result(struct report *rep, const char *name, const char *twin, const char *atom,
		       const char *insn, const char *pattern, enum probe_mode mode, double base,
		       double footprint, unsigned seed)
{
	struct result *r = report_add(rep);
	uint32_t x = seed * 2654435761u + 1;
	size_t n = 64;

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->twin, sizeof(r->twin), "%s", twin);
	snprintf(r->family, sizeof(r->family), "bitops");
	snprintf(r->atomicity, sizeof(r->atomicity), "%s", atom);
	snprintf(r->insn, sizeof(r->insn), "%s", insn);
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	r->mode = mode;
	r->card_pair = !strcmp(name, "set_bit");	/* as its descriptor says */
	r->cpu_os = 0;
	r->cpu_logical = 0;
	r->iters = 64;
	r->ops_per_sample = 2 * 64 * 64;
	r->overhead_ticks = 42;
	r->warmup = 16;
	r->ci_reached = true;
	r->samples = malloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		/* exact binary fractions: the same text on every libc */
		x = x * 1103515245u + 12345u;
		r->samples[i] = base + (double)((x >> 16) % 64) / 256.0;
	}
	r->nsamples = n;
	stats_summarize(r->samples, n, &r->s);
	if (footprint > 0) {
		r->extra.has = 1u << RX_PATTERN;
		r->extra.pattern.has = 1u << PX_FOOTPRINT;
		r->extra.pattern.footprint_bytes = (long long)footprint;
	}
}

/* A c2c section of one matrix, 0 and 1, its unit and CPUs beside it. */
static void fixed_c2c(struct report *rep)
{
	static const double v[] = { NAN, 81.5, 79.25, NAN };
	struct c2c_out *o = calloc(1, sizeof(*o));

	if (!o || !(o->matrix.cpus = calloc(2, sizeof(size_t))) || !(o->matrix.v[0] = malloc(sizeof(v))))
		abort();
	o->has = 1u << C2O_FLAT_UNIT | 1u << C2O_FLAT_CPUS | 1u << C2O_FLAT_MATRIX;
	o->matrix.cpus[1] = 1;
	o->matrix.ncpus = o->matrix.nv[0] = 2;
	snprintf(o->matrix.unit, sizeof(o->matrix.unit), "ns");
	memcpy(o->matrix.v[0], v, sizeof(v));
	rep->c2c = o;
}

static void fixed_report(struct report *rep)
{
	report_init(rep);
	rep->cal.timer_hz = 2e9;
	rep->cal.ticks_per_cycle = 0.5;
	rep->cal.ticks_per_cycle_mul = 0.5;
	rep->cal.core_hz = 4e9;
	rep->cal.overhead_min = 42;
	rep->cal.overhead_median = 42;
	snprintf(rep->cal.cycle_source, sizeof(rep->cal.cycle_source), "%s", "synthetic calibration");
	snprintf(rep->cal.timer, sizeof(rep->cal.timer), "%s", "synthetic timer");
	rep->cal.timer_invariant = true;
	rep->cal.trustworthy = true;
	rep->cal.cpu_os = 0;
	snprintf(rep->started, sizeof(rep->started), "2026-01-02T03:04:05Z");
	snprintf(rep->topo_summary, sizeof(rep->topo_summary),
		 "1 package, 1 NUMA node, 2 cores, 2 PUs, no SMT");
	rep->wall_s = 1.5;
	rep->meta = fixed_meta();
	report_fingerprint(rep, NULL);
	fixed_c2c(rep);
	set_result(rep, "set_bit", "__set_bit", "atomic", "lock orb $imm,mem", "hit", MODE_LATENCY, 10.0, 16384, 1);
	set_result(rep, "set_bit", "__set_bit", "atomic", "lock orb $imm,mem", "hit", MODE_THROUGHPUT, 11.0, 16384, 2);
	set_result(rep, "__set_bit", "set_bit", "non-atomic", "orb $imm,mem", "hit", MODE_LATENCY, 0.5, 16384, 3);
	set_result(rep, "__set_bit", "set_bit", "non-atomic", "orb $imm,mem", "hit", MODE_THROUGHPUT, 0.5, 16384, 4);
	set_result(rep, "set_bit", "__set_bit", "atomic", "lock orb $imm,mem", "l2", MODE_LATENCY, 14.0, 524288, 5);
	set_result(rep, "__set_bit", "set_bit", "non-atomic", "orb $imm,mem", "l2", MODE_LATENCY, 6.0, 524288, 6);
	set_result(rep, "empty", "", "baseline", "(loop only)", "hit", MODE_LATENCY, 0.0, 0, 7);
	/* an analog pair: a ratio, and no verdict */
	set_result(rep, "irq_save_analog", "preempt_disable", "local", "pushf; popf (no cli)", "hit", MODE_LATENCY, 3.0, 0, 8);
	rep->r[rep->n - 1].analog = true;
	set_result(rep, "preempt_disable", "irq_save_analog", "local", "incl %gs:mem", "hit", MODE_LATENCY, 1.0, 0, 9);
	report_pair_twins(rep);
}

/* The writer's output as a string (malloc'd). */
static char *render(const struct report *rep, int (*w)(const struct report *, FILE *), size_t *len)
{
	static char *buf;	/* static: gcc 12 sees a dangling pointer in the stream */
	FILE *f;

	buf = NULL;
	f = open_memstream(&buf, len);

	if (w(rep, f) < 0)
		printf("writer failed\n");
	fclose(f);
	return buf;
}

/* The JSON with the build's own facts (version, compiler) pinned. */
static int write_json_pinned(const struct report *rep, FILE *f)
{
	json_t *root = report_to_json(rep);

	json_object_set_new(root, "tool",
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", "atomcost", "version",
				      "0.0.0-golden", "arch", "x86_64", "atomics", "asm", "compiler",
				      "golden-cc"));
	json_dumpf(root, f, REPORT_JSON_FLAGS);
	fputc('\n', f);
	json_decref(root);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static void golden(const char *name, const char *got, size_t len)
{
	char path[1024];
	const char *upd = getenv("ATOMCOST_UPDATE_GOLDEN");
	size_t wlen = 0;
	char *want;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", srcdir(), name);
	if (upd && !strcmp(upd, "1")) {
		FILE *f = fopen(path, "we");

		CHECK(f != NULL, "cannot write %s", path);
		if (f) {
			fwrite(got, 1, len, f);
			fclose(f);
			printf("updated %s\n", path);
		}
		return;
	}
	want = slurp(path, &wlen);
	CHECK(want != NULL, "golden %s missing (ATOMCOST_UPDATE_GOLDEN=1 writes it)", path);
	if (!want)
		return;
	if (wlen != len || memcmp(want, got, len)) {
		size_t line = 1, i = 0;
		char actual[1100];
		FILE *f;

		while (i < len && i < wlen && want[i] == got[i])
			line += want[i++] == '\n';
		snprintf(actual, sizeof(actual), "%s.actual", name);
		f = fopen(actual, "we");
		if (f) {
			fwrite(got, 1, len, f);
			fclose(f);
		}
		CHECK(0, "%s differs from the golden file from line %zu (output in %s; "
			 "ATOMCOST_UPDATE_GOLDEN=1 accepts it)", name, line, actual);
	}
	free(want);
}

static void test_goldens(const struct report *rep)
{
	static const struct {
		const char *file;
		int (*w)(const struct report *, FILE *);
	} g[] = {
		{ "report.txt", report_write_text },
		{ "report.mail", report_write_mail },
		{ "report.csv", report_write_csv },
		{ "report.json", write_json_pinned },
	};

	for (size_t i = 0; i < ARRAY_SIZE(g); i++) {
		size_t len;
		char *s = render(rep, g[i].w, &len);

		golden(g[i].file, s, len);
		if (!strcmp(g[i].file, "report.mail")) {
			/* 72 columns, every line */
			size_t col = 0, worst = 0;

			for (size_t k = 0; k < len; k++) {
				col = s[k] == '\n' ? 0 : col + 1;
				if (col > worst)
					worst = col;
			}
			CHECK(worst <= 72, "mail line of %zu columns", worst);
			CHECK(strstr(s, "cycles(tsc)") != NULL, "mail has the cycles(tsc) shape");
		}
		free(s);
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || (isnan(a) && isnan(b));
}

static void test_round_trip(const struct report *rep, const char *dir)
{
	char path[1024];
	struct report back;
	json_t *ca, *cb;
	int ret;

	snprintf(path, sizeof(path), "%s/rt.json", dir);
	ret = report_write_file(rep, report_writer_find("json"), path, false);
	CHECK(ret == 0, "write %s: %d", path, ret);
	ret = report_read(path, &back);
	CHECK(ret == 0, "read back %s: %d", path, ret);
	if (ret)
		return;
	CHECK(back.n == rep->n, "result count %zu vs %zu", back.n, rep->n);
	for (size_t i = 0; i < rep->n && i < back.n; i++) {
		const struct result *a = &rep->r[i], *b = &back.r[i];
		bool same = a->nsamples == b->nsamples;
		char *ea, *eb;

		for (size_t k = 0; same && k < a->nsamples; k++)
			same = near(a->samples[k], b->samples[k]);
		CHECK(same, "result %zu samples", i);
		CHECK(!strcmp(a->name, b->name) && !strcmp(a->twin, b->twin) &&
			      !strcmp(a->family, b->family) && !strcmp(a->atomicity, b->atomicity) &&
			      !strcmp(a->insn, b->insn) && !strcmp(a->pattern, b->pattern) &&
			      a->mode == b->mode && a->card_pair == b->card_pair && a->card_share == b->card_share,
		      "result %zu identity", i);
		CHECK(a->cpu_os == b->cpu_os && a->iters == b->iters &&
			      a->ops_per_sample == b->ops_per_sample && near(a->overhead_ticks, b->overhead_ticks) &&
			      a->ci_reached == b->ci_reached && a->migrated == b->migrated,
		      "result %zu run facts", i);
		CHECK(near(a->s.median, b->s.median) && near(a->s.ci_lo, b->s.ci_lo) &&
			      near(a->s.p90, b->s.p90),
		      "result %zu summary", i);
		CHECK(a->has_ratio == b->has_ratio && (!a->has_ratio || (near(a->ratio, b->ratio) &&
									   near(a->ratio_lo, b->ratio_lo))),
		      "result %zu ratio", i);
		ea = report_extra_text(a);
		eb = report_extra_text(b);
		CHECK((!ea && !eb) || (ea && eb && !strcmp(ea, eb)), "result %zu extra", i);
		free(ea);
		free(eb);
	}
	CHECK(json_equal(rep->meta, back.meta), "meta (fingerprint) round trip");
	ca = c2c_out_json(rep->c2c);
	cb = back.c2c ? c2c_out_json(back.c2c) : NULL;
	CHECK(json_equal(ca, cb), "c2c section round trip");
	json_decref(ca);
	json_decref(cb);
	CHECK(near(rep->cal.timer_hz, back.cal.timer_hz) &&
		      near(rep->cal.ticks_per_cycle, back.cal.ticks_per_cycle) &&
		      near(rep->cal.core_hz, back.cal.core_hz) && back.cal.trustworthy == rep->cal.trustworthy,
	      "calibration round trip");
	CHECK(!strcmp(rep->started, back.started) && !strcmp(rep->topo_summary, back.topo_summary) &&
		      rep->partial == back.partial,
	      "report facts round trip");
	{
		/* and the whole document: what is written is what is read */
		json_t *ja = report_to_json(rep), *jb = report_to_json(&back);

		json_object_del(ja, "calibration");	/* holds strings the reader does not keep */
		json_object_del(jb, "calibration");
		CHECK(json_equal(ja, jb), "report_to_json(read(write(r))) == report_to_json(r) "
					  "(see roundtrip-{written,read}.json)");
		if (!json_equal(ja, jb)) {
			json_dump_file(ja, "roundtrip-written.json", JSON_INDENT(1));
			json_dump_file(jb, "roundtrip-read.json", JSON_INDENT(1));
		}
		json_decref(ja);
		json_decref(jb);
	}
	report_free(&back);
}

static int fail_midway(const struct report *rep, FILE *f)
{
	fputs("{\"schema\": \"half a report", f);
	fflush(f);
	(void)rep;
	return -EIO;
}

static int die_midway(const struct report *rep, FILE *f)
{
	fputs("{\"schema\": \"half a report", f);
	fflush(f);
	(void)rep;
	raise(SIGKILL);
	return 0;
}

static size_t temp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, ".atomcost-", 10);
	if (d)
		closedir(d);
	return n;
}

/* meta.characterization and meta.epochs (typed) read back and write again
 * byte for byte, a step of null among them, before the reproductions and
 * after the rest. */
static void test_epochs(const char *dir)
{
	char path[1024], *one, *two;
	struct report rep, back;
	json_t *j;

	report_init(&rep);
	report_init(&back);
	rep.cal = (struct calibration){ .ticks_per_cycle = 0.5, .timer_hz = 2e9, .cycle_source = "test",
					.timer = "test", .emulation = "" };
	rep.meta = json_pack("{s:[s], s:[]}", "command_line", "run", "reproductions");
	rep.epochs = calloc(2, sizeof(*rep.epochs));
	rep.charz = calloc(1, sizeof(*rep.charz));
	if (!rep.meta || !rep.epochs || !rep.charz)
		abort();
	*rep.charz = (struct characterization_meta){ .has = HAS_KEYS(CZ_STEPS, CZ_COMPLETE), .nsteps = 1,
						     .steps[0] = { HAS_ALL(CZS__COUNT), "split lock", 0.5, "done" },
						     .pattern_sizes = "measured hierarchy" };
	rep.nepochs = 2;
	rep.epochs[0] = (struct epoch_out){ .has = HAS_KEYS(EP_EPOCH, EP_PARTIAL), .epoch = 1, .ticks_per_cycle = 0.5,
					    .cpu_share = 0.99 };
	rep.epochs[1] = (struct epoch_out){ .has = HAS_KEYS(EP_EPOCH, EP_PARTIAL), .epoch = 2, .step = "patterns",
					    .partial = true };
	snprintf(path, sizeof(path), "%s/epochs.json", dir);
	CHECK(report_write_file(&rep, report_writer_find("json"), path, false) == 0 &&
	      report_read(path, &back) == 0 && back.nepochs == 2 && !strcmp(back.epochs[1].step, "patterns"),
	      "epochs read back");
	j = report_to_json(&rep);
	one = json_dumps(json_object_get(j, "meta"), JSON_COMPACT);
	json_decref(j);
	j = report_to_json(&back);
	two = json_dumps(json_object_get(j, "meta"), JSON_COMPACT);
	json_decref(j);
	CHECK(one && two && !strcmp(one, two) && strstr(one, "\"step\":null") &&
	      strstr(one, "\"command_line\":[\"run\"],\"characterization\":{\"steps\":[{\"step\":\"split lock\"") &&
	      strstr(one, "\"complete\":false},\"epochs\"") && strstr(one, "],\"reproductions\":[]}"),
	      "epochs written back byte for byte, in place:\n%s\n%s", one ? one : "", two ? two : "");
	free(one);
	free(two);
	report_free(&rep);
	report_free(&back);
}

static void test_atomic_write(const struct report *rep, const char *dir)
{
	static const struct report_writer failing = { "failing", "json", fail_midway };
	static const struct report_writer dying = { "dying", "json", die_midway };
	char path[1024], *before, *after;
	size_t lb, la;
	int ret, st;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/keep.json", dir);
	ret = report_write_file(rep, report_writer_find("json"), path, false);
	CHECK(ret == 0, "first write: %d", ret);
	before = slurp(path, &lb);

	log_quiet = 1;
	ret = report_write_file(rep, report_writer_find("text"), path, false);
	CHECK(ret == -EEXIST, "an existing report is not overwritten unless asked (%d)", ret);

	ret = report_write_file(rep, &failing, path, true);
	CHECK(ret == -EIO, "a failing writer's error comes back (%d)", ret);
	after = slurp(path, &la);
	CHECK(after && la == lb && !memcmp(before, after, lb), "failed write left the old file intact");
	CHECK(temp_files(dir) == 0, "failed write left no temporary file");
	free(after);

	pid = fork();
	if (pid == 0) {
		report_write_file(rep, &dying, path, true);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "writer killed midway");
	after = slurp(path, &la);
	CHECK(after && la == lb && !memcmp(before, after, lb), "killed write left the old file intact");
	free(after);

	ret = report_write_file(rep, report_writer_find("csv"), path, true);
	CHECK(ret == 0, "overwrite when asked: %d", ret);
	after = slurp(path, &la);
	CHECK(after && !strncmp(after, "probe,twin,", 11), "overwritten with the new report");
	free(after);
	free(before);
	log_quiet = 0;
}

static void test_html(const struct report *rep)
{
	size_t len;
	char *s = render(rep, report_write_html, &len);

	CHECK(strstr(s, "<!DOCTYPE html>") == s, "html starts with a doctype");
	CHECK(!strstr(s, "<script"), "no script element (escaped: %s)", strstr(s, "<script") ? "no" : "yes");
	CHECK(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co") != NULL, "fingerprint string escaped");
	CHECK(strstr(s, "class=\"chart bars\"") && strstr(s, "class=\"chart curves\"") &&
		      strstr(s, "class=\"chart heatmap\""),
	      "bars, footprint curves and c2c heat map present");
	CHECK(!strstr(s, "src=") && !strstr(s, "href=") && !strstr(s, "url("), "no external resources");
	free(s);
	/* a cell's title names its CPUs, not their places in the matrix */
	rep->c2c->matrix.cpus[0] = 4;
	rep->c2c->matrix.cpus[1] = 6;
	s = render(rep, report_write_html, &len);
	CHECK(strstr(s, "<title>4 -&gt; 6: 81.5 ns</title>") && strstr(s, "<title>6 -&gt; 4: 79.2 ns</title>"),
	      "heat map cells titled by their CPUs");
	rep->c2c->matrix.cpus[0] = 0;
	rep->c2c->matrix.cpus[1] = 1;
	free(s);
}

/* A lock's true-sharing row at 2 threads, as contention.c writes it; with
 * the hand-over pass's figures or without them (a report from before, or a
 * probe that is no lock). */
static void add_contention(struct report *rep, const char *name, bool handover)
{
	struct contention_part *c;

	set_result(rep, name, "", "atomic", "lock cmpxchgl", "true-share", MODE_LATENCY, 40.0, 0, 11);
	c = &rep->r[rep->n - 1].extra.contention;
	rep->r[rep->n - 1].extra.has |= 1u << RX_CONTENTION;
	*c = (struct contention_part){ .has = 1u << CP_THREADS | 1u << CP_PLACEMENT | 1u << CP_SHARING |
					      1u << CP_OVERLAPPED | 1u << CP_PER_THREAD | 1u << CP_FAIRNESS_CV,
				       .threads = 2, .placement = "l3", .sharing = "true", .overlapped = 1,
				       .fairness_cv = 0.125, .overlap = 1, .cpu_wall_min = 1, .nper = 2 };
	c->per = calloc(2, sizeof(*c->per));
	c->per[0] = (struct contention_thread){ .has = 1u << CT_CPU_OS | 1u << CT_OPS, .cpu_os = 0, .ops = 100 };
	c->per[1] = (struct contention_thread){ .has = 1u << CT_CPU_OS | 1u << CT_OPS, .cpu_os = 1, .ops = 150 };
	if (handover) {
		c->has |= 1u << CP_HANDOVER_ACQ | 1u << CP_HANDOVER_SHARE | 1u << CP_QUEUE_DEPTH;
		c->handover_acquisitions = 1000;
		c->handover_share = 0.5;
		c->queue_depth = 0.25;
	}
}

/* The HTML contention table has the text table's h-o and qdepth, "-" (never
 * 0) where a row lacks them, and the same notes. */
static void test_contention_html(void)
{
	struct report rep;
	size_t len;
	char *h, *t;

	fixed_report(&rep);
	h = render(&rep, report_write_html, &len);
	CHECK(h && !strstr(h, "id=\"contention\""), "no contention rows: no contention table in HTML");
	free(h);
	add_contention(&rep, "qspin", true);
	add_contention(&rep, "oldlock", false);
	h = render(&rep, report_write_html, &len);
	t = render(&rep, report_write_text, &len);
	CHECK(h && strstr(h, "<th>max/min</th><th>h-o</th><th>qdepth</th>"), "HTML contention table: h-o, qdepth");
	CHECK(h && strstr(h, "<td>qspin</td>") &&
	      strstr(h, "<td class=\"n\">0.125</td><td class=\"n\">1.50</td><td class=\"n\">0.500</td>"
			"<td class=\"n\">0.25</td>"), "HTML: a lock's hand-over share and queue depth");
	CHECK(h && strstr(h, "<td>oldlock</td>") &&
	      strstr(h, "<td class=\"n\">0.125</td><td class=\"n\">1.50</td><td class=\"n\">-</td>"
			"<td class=\"n\">-</td>"), "HTML: '-' where the row has no hand-over pass");
	CHECK(t && strstr(t, " 0.125    1.50  0.500   0.25 ") && strstr(t, " 0.125    1.50      -      - "),
	      "text: the same cells:\n%s", t ? t : "");
	CHECK(h && t && strstr(t, contention_notes[3]) && strstr(h, "h-o: share of a lock&#39;s acquisitions whose "
								      "previous holder was another thread; qdepth:"),
	      "the same h-o and qdepth note in text and HTML");
	free(h);
	free(t);
	report_free(&rep);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "we");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct diffs {
	char keys[512];
};

static void collect_diff(const char *key, const char *a, const char *b, void *arg)
{
	struct diffs *d = arg;
	size_t n = strlen(d->keys);

	snprintf(d->keys + n, sizeof(d->keys) - n, "%s;", key);
	(void)a;
	(void)b;
}

static void test_fingerprint(const char *dir)
{
	char root[1024], line[512];
	json_t *fp, *fp2;
	struct fingerprint tf = { 0 }, tf2 = { 0 };
	struct diffs d = { "" };
	struct calibration cal = { .core_hz = 3.5e9, .timer_hz = 2.1e9 };

	snprintf(root, sizeof(root), "%s/fake", dir);
	mkdir(root, 0755);
	put(root, "/proc/cpuinfo",
	    "processor\t: 0\nvendor_id\t: GenuineTest\ncpu family\t: 6\nmodel\t\t: 85\n"
	    "model name\t: Test CPU @ 2.0GHz\nstepping\t: 7\nmicrocode\t: 0x5003604\n"
	    "flags\t\t: fpu tsc hypervisor lm\n\nprocessor\t: 1\nvendor_id\t: Other\n");
	put(root, "/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Mitigation: IBRS\n");
	put(root, "/sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
	put(root, "/sys/devices/system/cpu/smt/control", "on\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put(root, "/proc/sys/kernel/perf_event_paranoid", "2\n");
	put(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	put(root, "/sys/hypervisor/type", "xen\n");

	fp = fingerprint_collect(root, 0, "synthetic topology");
	CHECK(fp != NULL, "fingerprint collected");
	if (!fp)
		return;
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "cpu"), "vendor")), "GenuineTest"),
	      "vendor from the first processor only");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "cpu"), "microcode")), "0x5003604"),
	      "microcode");
	CHECK(json_is_true(json_object_get(json_object_get(fp, "hypervisor"), "cpuid_flag")), "hypervisor flag");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "type")), "xen"),
	      "hypervisor type");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "dmi_sys_vendor")),
		      "absent"),
	      "missing DMI says absent");
	CHECK(!strcmp(json_string_value(json_object_get(fp, "thp")), "madvise"), "THP mode");
	CHECK(!strcmp(json_string_value(json_object_get(fp, "smt")), "on"), "SMT");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "cpufreq"), "governor")), "performance"),
	      "governor");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "cpufreq"), "boost")), "off"),
	      "intel_pstate no_turbo=1 is boost off");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "cpufreq"), "driver")), "absent"),
	      "missing cpufreq driver says absent");
	CHECK(json_object_size(json_object_get(fp, "mitigations")) == 2 &&
		      !strcmp(json_object_iter_key(json_object_iter(json_object_get(fp, "mitigations"))),
			      "meltdown"),
	      "mitigations, sorted");
	CHECK(json_is_null(json_object_get(fp, "core_hz")), "no frequency before calibration");
	fingerprint_set_clock(fp, &cal);
	CHECK(json_real_value(json_object_get(fp, "tsc_hz")) == 2.1e9, "TSC frequency from the calibration");
	fingerprint_from_json(&tf, fp);
	fingerprint_oneline(&tf, line, sizeof(line));
	CHECK(!strncmp(line, "Test CPU @ 2.0GHz (family 6 model 85 stepping 7), xen, ", 55),
	      "one line: the hypervisor's type where DMI is absent (%s)", line);
	json_object_set_new(json_object_get(fp, "hypervisor"), "cpuid_flag", json_false());
	fingerprint_from_json(&tf, fp);
	fingerprint_oneline(&tf, line, sizeof(line));
	CHECK(strstr(line, "), no hypervisor flag, "), "one line: no flag (%s)", line);
	json_object_set_new(json_object_get(fp, "hypervisor"), "cpuid_flag", json_true());
	fingerprint_from_json(&tf, fp);
	fingerprint_oneline(NULL, line, sizeof(line));
	CHECK(!strcmp(line, "no fingerprint"), "one line without a fingerprint");

	/* same machine: no difference, even with another host name and 1% clock */
	fp2 = json_deep_copy(fp);
	json_object_set_new(fp2, "host", json_string("elsewhere"));
	json_object_set_new(fp2, "core_hz", json_real(3.5e9 * 1.03));
	fingerprint_from_json(&tf2, fp2);
	CHECK(fingerprint_diff(&tf, &tf2, NULL, NULL) == 0, "host and 3%% core clock are not differences");
	json_object_set_new(json_object_get(fp2, "kernel"), "release", json_string("9.9.9"));
	json_object_set_new(json_object_get(fp2, "cpu"), "microcode", json_string("0x1"));
	json_object_set_new(fp2, "tsc_hz", json_real(3e9));
	json_object_del(fp2, "mitigations");
	fingerprint_from_json(&tf2, fp2);
	CHECK(fingerprint_diff(&tf, &tf2, collect_diff, &d) == 4, "four differences (%s)", d.keys);
	CHECK(!strcmp(d.keys, "cpu.microcode;tsc_hz;kernel.release;mitigations;"),
	      "differences named by key, in the document's order, a missing object whole (%s)", d.keys);
	fingerprint_free(&tf);
	fingerprint_free(&tf2);
	json_decref(fp);
	json_decref(fp2);

	/* no /proc/cpuinfo: the same cpu keys, absent, and no arm64 ones */
	snprintf(root, sizeof(root), "%s/none", dir);
	fp = fingerprint_collect(root, 0, NULL);
	CHECK(fp && !strcmp(json_string_value(json_object_get(json_object_get(fp, "cpu"), "model_name")),
			    "absent") &&
		      json_object_size(json_object_get(fp, "cpu")) == 7 &&
		      !json_object_get(json_object_get(fp, "cpu"), "part"),
	      "cpu keys without cpuinfo");
	json_decref(fp);

	/* the real machine: every key present, whatever the values */
	fp = fingerprint_collect(NULL, -1, NULL);
	CHECK(fp && json_object_get(fp, "kernel") && json_object_get(fp, "cpu") &&
		      json_object_get(fp, "mitigations") && json_object_get(fp, "thp"),
	      "fingerprint of this machine");
	json_decref(fp);
}

/* One result whose samples all read v ticks (exact median and CI). */
static void add_const(struct report *rep, const char *name, const char *twin, double v, int pass,
		      bool analog)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->twin, sizeof(r->twin), "%s", twin);
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	r->mode = MODE_LATENCY;
	r->analog = analog;
	r->ci_reached = true;
	r->nsamples = 16;
	r->samples = malloc(16 * sizeof(double));
	for (size_t i = 0; i < 16; i++)
		r->samples[i] = v;
	stats_summarize(r->samples, 16, &r->s);
	if (pass)
		result_set_epoch(r, pass);
}

static const struct result *find(const struct report *rep, const char *name, int pass)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].name, name) && result_epoch(&rep->r[i]) == pass)
			return &rep->r[i];
	return NULL;
}

/* Twin verdicts come from the epochs (stats_judge): one epoch is never
 * judged, whatever its sample intervals say; with five, a change beyond the
 * margin is found, an equal pair is called same only when tight enough to
 * show it, and an analog gets none. */
static void test_twin_verdicts(void)
{
	static const double z[] = { 1, -1, 0.5, -0.5, 0 };
	struct report rep;
	const struct result *r;

	report_init(&rep);
	rep.cal.timer_hz = 2e9;
	rep.cal.ticks_per_cycle = 0.5;
	snprintf(rep.cal.cycle_source, sizeof(rep.cal.cycle_source), "%s", "synthetic calibration");
	snprintf(rep.cal.timer, sizeof(rep.cal.timer), "%s", "synthetic timer");
	add_const(&rep, "a", "b", 12.0, 0, false);	/* 1.2, intervals disjoint: one epoch */
	add_const(&rep, "b", "a", 10.0, 0, false);
	report_pair_twins(&rep);
	r = find(&rep, "a", 0);
	CHECK(r && r->has_ratio && r->ratio_lo > 1 && r->judge.v == VERDICT_UNRESOLVED,
	      "one epoch: unresolved, whatever its sample intervals say");
	report_free(&rep);

	report_init(&rep);
	rep.cal.timer_hz = 2e9;
	rep.cal.ticks_per_cycle = 0.5;
	snprintf(rep.cal.cycle_source, sizeof(rep.cal.cycle_source), "%s", "synthetic calibration");
	snprintf(rep.cal.timer, sizeof(rep.cal.timer), "%s", "synthetic timer");
	for (int e = 1; e <= 5; e++) {
		double w = z[e - 1];

		add_const(&rep, "c", "d", 11.0 * (1 + 0.005 * w), e, false);	/* x1.10 */
		add_const(&rep, "d", "c", 10.0, e, false);
		add_const(&rep, "g", "h", 10.1 * (1 + 0.004 * w), e, false);	/* x1.01, tight */
		add_const(&rep, "h", "g", 10.0, e, false);
		add_const(&rep, "m", "n", 10.0 * (1 + 0.08 * w), e, false);	/* x1.00, 8% apart */
		add_const(&rep, "n", "m", 10.0, e, false);
		add_const(&rep, "x", "y", 30.0, e, true);			/* 3x, an analog */
		add_const(&rep, "y", "x", 10.0, e, false);
	}
	report_pair_twins(&rep);
	r = find(&rep, "c", 3);
	CHECK(r && r->judge.v == VERDICT_SLOWER && r->judge.n == 5 && fabs(r->judge.diff - 2.0) < 0.1,
	      "x1.10 over 5 epochs: slower by 2 cycles (%s %g)", r ? stats_verdict_name(r->judge.v) : "-",
	      r ? r->judge.diff : 0);
	CHECK(find(&rep, "d", 1)->judge.v == VERDICT_FASTER, "its twin: faster");
	CHECK(find(&rep, "c", 1)->judge.v == VERDICT_SLOWER && find(&rep, "c", 5)->judge.v == VERDICT_SLOWER,
	      "every epoch carries the row's verdict");
	r = find(&rep, "g", 1);
	CHECK(r && r->judge.v == VERDICT_SAME, "x1.01 tight: same, by equivalence");
	r = find(&rep, "m", 1);
	CHECK(r && r->judge.v == VERDICT_UNRESOLVED && r->epoch_spread > 0.03,
	      "x1.00 but 8%% apart: unresolved, not same (%s)", r ? stats_verdict_name(r->judge.v) : "-");
	r = find(&rep, "x", 1);
	CHECK(r && r->has_ratio && r->judge.v == VERDICT_NONE, "analog: a ratio, no verdict");
	CHECK(find(&rep, "y", 1)->judge.v == VERDICT_NONE, "against an analog: no verdict");
	{
		size_t len;
		char *txt = render(&rep, report_write_text, &len);
		json_t *j = report_to_json(&rep), *o = json_array_get(json_object_get(j, "results"), 6);

		CHECK(j != NULL, "report_to_json");
		CHECK(txt && strstr(txt, "analog") && strstr(txt, "same only") == NULL &&
			      strstr(txt, "equivalence") && strstr(txt, "slower +2.0 cyc"),
		      "text names the rule, the analog and the difference");
		CHECK(json_is_null(json_object_get(json_object_get(o, "ratio_to_twin"), "verdict")),
		      "JSON: verdict null for the analog");
		free(txt);
		json_decref(j);
	}
	report_free(&rep);
}

/* A row over its epochs (report_row): the medians of the epoch medians,
 * the whisker and the ratio's range over them, the samples and disturbed
 * ones summed; one epoch: its own interval. The side a pair is drawn from
 * (report_pair_lead): the more atomic of a mutual pair, whichever way the
 * report lists them, the first of two alike, a one-way twin with its own. */
static void test_rows(void)
{
	static const double a[] = { 12, 14, 13, 20 };
	struct report rep;
	struct report_row w;
	struct result *r;

	report_init(&rep);
	rep.cal.ticks_per_cycle = 0.5;
	for (int e = 1; e <= 4; e++) {
		add_const(&rep, "a", "b", a[e - 1], e, false);
		add_const(&rep, "b", "a", 10.0, e, false);
		rep.r[rep.n - 1].disturbed = e;
	}
	add_const(&rep, "one", "", 7.0, 0, false);
	report_pair_twins(&rep);
	report_row(&rep, 0, &w);
	CHECK(w.epochs == 4 && w.median == 13.5 && w.min == 12 && w.lo == 12 && w.hi == 20 && w.samples == 64 &&
		      w.disturbed == 0, "a row over 4 epochs: median %g, whisker %g-%g", w.median, w.lo, w.hi);
	CHECK(w.ratio_lo == 12.0 / 10.0 && w.ratio_hi == 2, "its ratio ranges over the epochs (%g-%g)", w.ratio_lo,
	      w.ratio_hi);
	report_row(&rep, 1, &w);
	CHECK(w.median == 10 && w.disturbed == 10, "the twin's row: disturbed samples summed (%ld)", w.disturbed);
	rep.r[3].disturbed = -1;
	report_row(&rep, 1, &w);
	CHECK(w.disturbed == -1, "one epoch that cannot say: unknown");
	report_row(&rep, 8, &w);
	CHECK(w.epochs == 1 && w.lo == rep.r[8].s.ci_lo && w.hi == rep.r[8].s.ci_hi && !(w.ratio_lo <= w.ratio_hi),
	      "one epoch: its CI, no ratio");

	snprintf(rep.r[0].atomicity, sizeof(rep.r[0].atomicity), "atomic");
	snprintf(rep.r[1].atomicity, sizeof(rep.r[1].atomicity), "non-atomic");
	CHECK(report_pair_lead(&rep.r[0], &rep.r[1]) && !report_pair_lead(&rep.r[1], &rep.r[0]),
	      "a mutual pair: drawn from its atomic side");
	snprintf(rep.r[0].atomicity, sizeof(rep.r[0].atomicity), "local-only");
	snprintf(rep.r[1].atomicity, sizeof(rep.r[1].atomicity), "atomic");
	CHECK(!report_pair_lead(&rep.r[0], &rep.r[1]) && report_pair_lead(&rep.r[1], &rep.r[0]),
	      "the other way round: from the other side");
	snprintf(rep.r[0].atomicity, sizeof(rep.r[0].atomicity), "atomic");
	CHECK(report_pair_lead(&rep.r[0], &rep.r[1]) && !report_pair_lead(&rep.r[1], &rep.r[0]),
	      "alike: from the first");
	r = &rep.r[8];
	snprintf(r->twin, sizeof(r->twin), "a");
	CHECK(report_pair_lead(r, &rep.r[0]) && report_pair_lead(&rep.r[0], &rep.r[1]) &&
		      report_pair_lead(&rep.r[8], NULL), "a one-way twin: drawn with its own pair, and apart");
	report_free(&rep);
}

/* Every key of a row's extra, as the engines fill them: written in their
 * order (the engines' own), read back to the same members; a key without
 * its bit is not written, and a changed member changes the text. */
static void test_extra(const char *dir)
{
	static const char want[] =	/* sorted, as the CSV has it */
		"{\"chase_cycles\":4.0,\"chase_step\":\"load\",\"contention\":{\"handover_share\":0.5,"
		"\"overlapped\":false,\"per_thread\":[{\"cpu_os\":1,\"ops\":100},{\"cpu_os\":3,\"ops\":200}],"
		"\"placement\":\"l3\",\"queue_depth\":0.25,\"threads\":2},\"disturbed_samples\":[3,9],\"epoch\":2,\"menu_need\":[\"per-CPU counter\","
		"\"short critical section\"],\"note\":\"n\",\"over_chase_cycles\":1.5,\"pattern\":"
		"{\"footprint_bytes\":65536,\"hwloc\":{\"l1d\":32768,\"l2\":1048576,\"llc\":33554432},"
		"\"line_bytes\":64,\"lines\":1024,\"name\":\"miss\",\"node\":null,\"page_bytes\":4096,\"seed\":7,"
		"\"setup_s\":0.5,\"thp_bytes\":0,\"thp_mode\":\"never\",\"thp_requested\":false,"
		"\"variant\":\"word1\"},\"process\":1,\"safe_when\":\"always\",\"self_check\":{\"cycles\":3.5,"
		"\"deviation\":0.25,\"expected_cycles\":3.0},\"states\":[{\"share\":0.75,\"ticks\":5.0},"
		"{\"share\":0.25,\"ticks\":6.0}],\"step\":\"patterns\"}";
	/* the engines' order in the file: identity, measurement, engine, session */
	static const char *const order[] = { "\"menu_need\"", "\"safe_when\"", "\"disturbed_samples\": [",
					     "\"pattern\": {", "\"chase_step\"", "\"chase_cycles\"",
					     "\"contention\"", "\"note\"", "\"self_check\"", "\"step\"",
					     "\"epoch\": 2", "\"process\"", "\"states\"" };
	struct report rep, back;
	struct result *r;
	struct result_extra *x;
	char path[1100], *text = NULL, *again = NULL;
	int ret;

	fixed_report(&rep);
	r = &rep.r[0];
	x = &r->extra;
	memset(x, 0, sizeof(*x));
	x->has = ~0u & ~(1u << RX_LOAD | 1u << RX_OVER_LOAD | 1u << RX_STORES | 1u << RX_OVER_STORES | 1u << RX_PASS);
	snprintf(x->menu_need[0], sizeof(x->menu_need[0]), "per-CPU counter");
	snprintf(x->menu_need[1], sizeof(x->menu_need[1]), "short critical section");
	x->nneed = 2;
	snprintf(x->safe_when, sizeof(x->safe_when), "always");
	x->disturbed_at = malloc(2 * sizeof(size_t));
	x->disturbed_at[0] = 3;
	x->disturbed_at[1] = 9;
	x->ndisturbed_at = 2;
	x->pattern = (struct pattern_info){
		.has = ~0u & ~(1u << PX_MEASURED | 1u << PX_MIX_K | 1u << PX_MIX_M), .name = "miss",
		.variant = "word1", .footprint_bytes = 65536, .line_bytes = 64,
		.sizes = { ~0u, 32768, 1048576, 33554432 }, .lines = 1024, .page_bytes = 4096,
		.thp_mode = "never", .seed = 7, .node = -1, .setup_s = 0.5,
	};
	snprintf(x->chase_step, sizeof(x->chase_step), "load");
	x->chase = (struct result_over){ 4.0, 1.5 };
	x->contention = (struct contention_part){ .has = 1u << CP_THREADS | 1u << CP_PLACEMENT |
							  1u << CP_OVERLAPPED | 1u << CP_PER_THREAD |
							  1u << CP_HANDOVER_SHARE | 1u << CP_QUEUE_DEPTH,
						  .threads = 2, .placement = "l3", .overlapped = 0, .nper = 2,
						  .handover_share = 0.5, .queue_depth = 0.25 };
	x->contention.per = calloc(2, sizeof(*x->contention.per));
	x->contention.per[0] = (struct contention_thread){ .has = 1u << CT_CPU_OS | 1u << CT_OPS, .cpu_os = 1, .ops = 100 };
	x->contention.per[1] = (struct contention_thread){ .has = 1u << CT_CPU_OS | 1u << CT_OPS, .cpu_os = 3, .ops = 200 };
	snprintf(x->note, sizeof(x->note), "n");
	x->self_check.has = ~0u;
	x->self_check.expected_cycles = 3;
	x->self_check.cycles = 3.5;
	x->self_check.deviation = 0.25;
	snprintf(x->step, sizeof(x->step), "patterns");
	x->epoch = 2;
	x->process = 1;
	x->mix = (struct mixture){ 2, { { 5.0, 0.75 }, { 6.0, 0.25 } } };
	text = report_extra_text(r);
	CHECK(text && !strcmp(text, want), "extra written in the engines' order:\n%s\nwant\n%s", text, want);
	snprintf(path, sizeof(path), "%s/extra.json", dir);
	ret = report_write_file(&rep, report_writer_find("json"), path, false);
	if (!ret)
		ret = report_read(path, &back);
	CHECK(ret == 0, "extra: write and read back (%d)", ret);
	{
		size_t len;
		char *doc = slurp(path, &len), *at = doc;

		for (size_t k = 0; at && k < ARRAY_SIZE(order); k++)
			at = strstr(at, order[k]);
		CHECK(doc && at, "extra keys in the engines' order in the file");
		free(doc);
	}
	if (!ret) {
		again = report_extra_text(&back.r[0]);
		CHECK(again && !strcmp(again, want) && back.r[0].extra.contention.per[1].ops == 200 &&
		      back.r[0].extra.contention.handover_share == 0.5 &&
		      back.r[0].extra.contention.has == x->contention.has &&
		      back.r[0].extra.pattern.node == -1 && result_epoch(&back.r[0]) == 2,
		      "extra read back to the same members:\n%s", again);
		CHECK(!(back.r[1].extra.has & 1u << RX_CONTENTION) && back.r[1].extra.contention.overlapped == -1,
		      "a row without contention has none, its overlap not said");
		report_free(&back);
	}
	free(again);
	x->contention.per[1].ops = 201;
	again = report_extra_text(r);
	CHECK(again && strcmp(again, want), "a changed member changes the extra");
	free(again);
	x->has &= ~(1u << RX_CONTENTION);
	again = report_extra_text(r);
	CHECK(again && !strstr(again, "contention"), "a key without its bit is not written");
	free(again);
	free(text);
	report_free(&rep);
}

/* A kernel row carries its context and the user-space analog it sits
 * beside through the JSON, and the text table says both and its note; a
 * user row says neither (its line as before). */
static void test_kernel_row(const char *dir)
{
	struct report rep, back;
	struct result *k;
	char path[1100], *doc, *text;
	size_t len, tlen;
	int ret;

	fixed_report(&rep);
	k = &rep.r[1];
	k->context = RESULT_KERNEL;
	snprintf(k->user_analog, sizeof(k->user_analog), "local_irq_save_analog");
	snprintf(k->extra.note, sizeof(k->extra.note), RESULT_EMULATED_NOTE);
	k->extra.has |= 1u << RX_NOTE;
	snprintf(rep.r[0].user_analog, sizeof(rep.r[0].user_analog), "ignored");	/* a user row: never written */
	snprintf(path, sizeof(path), "%s/kernel.json", dir);
	ret = report_write_file(&rep, report_writer_find("json"), path, false);
	doc = ret ? NULL : slurp(path, &len);
	CHECK(doc && strstr(doc, "\"user_analog\": \"local_irq_save_analog\"") && !strstr(doc, "ignored"),
	      "the analog written for the kernel row only");
	free(doc);
	ret = ret ? ret : report_read(path, &back);
	CHECK(ret == 0 && back.r[1].context == RESULT_KERNEL &&
	      !strcmp(back.r[1].user_analog, "local_irq_save_analog") && !back.r[0].user_analog[0],
	      "the kernel row's context and analog read back (%d)", ret);
	if (!ret)
		report_free(&back);
	text = render(&rep, report_write_text, &tlen);
	CHECK(text && strstr(text, " [kernel, beside local_irq_save_analog: emulated: not a measurement]\n") &&
	      !strstr(strstr(text, "[kernel") + 1, "[kernel"),
	      "the text table says the kernel row's context, analog and note, on that row only:\n%s", text);
	free(text);
	snprintf(k->name, sizeof(k->name), "%s", rep.r[0].name);	/* a kernel row of a user row's name */
	k->mode = rep.r[0].mode;
	snprintf(k->pattern, sizeof(k->pattern), "%s", rep.r[0].pattern);
	CHECK(!result_same_row(&rep.r[0], k) &&
	      report_find(&rep, k->name, k->mode, k->pattern, RESULT_KERNEL) == k &&
	      report_find(&rep, k->name, k->mode, k->pattern, RESULT_USER) == &rep.r[0],
	      "a kernel row is not the user row of its name, nor found as it");
	k->context = RESULT_USER;
	CHECK(result_same_row(&rep.r[0], k), "the same name, mode, pattern and context: one row");
	report_free(&rep);
}

int main(void)
{
	char dir[] = "/tmp/atomcost-test-report-XXXXXX";
	struct report rep;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	fixed_report(&rep);
	test_goldens(&rep);
	test_round_trip(&rep, dir);
	test_atomic_write(&rep, dir);
	test_html(&rep);
	test_contention_html();
	test_fingerprint(dir);
	test_twin_verdicts();
	test_rows();
	test_extra(dir);
	test_kernel_row(dir);
	test_epochs(dir);
	report_free(&rep);
	{
		char cmd[1100];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("could not remove %s\n", dir);
	}
	return test_done("report");
}
