/* SPDX-License-Identifier: MIT */
/* test-compare-n.c - machines side by side (compare-n.h): three synthetic
 * machines, one written as a full report and two as summaries, set side by
 * side. A number changed beyond its row's floor is marked, one within it
 * or unchanged is not, a row a machine lacks says "missing", a full report
 * and its own summary give the same column, sizes are marked by their
 * brackets, and a document that is neither is refused. With epochs in
 * both files, hot-line cells are judged as two-way compare judges them: a
 * +10% move over tight epochs is marked (the 25% floor would not), rows
 * unchanged are "=", a row +1% over epochs 8% apart cannot tell.
 * Exit 0 pass, 1 fail.
 */
#include "compare-n.h"
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card.h"
#include "report.h"

static struct result *add(struct report *rep, const char *name, enum probe_mode m, const char *pattern,
			  double cycles)
{
	struct result *r = report_add(rep);

	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	r->mode = m;
	if (!strcmp(name, "set_bit")) {	/* the card's pair, as its descriptor says */
		snprintf(r->twin, sizeof(r->twin), "__set_bit");
		r->card_pair = 1;
	}
	r->samples = malloc(2 * sizeof(double));
	r->samples[0] = r->samples[1] = cycles * rep->cal.ticks_per_cycle;
	r->nsamples = 2;
	stats_summarize(r->samples, 2, &r->s);
	return r;
}

/* Epochs 2..5 of every hit row of rep (the rows so far are epoch 1):
 * its cycles times f[e], and times nf[e] for the throughput of the probe
 * named noisy. */
static void add_epochs(struct report *rep, const char *noisy)
{
	static const double f[] = { 1.000, 1.002, 0.998, 1.003, 0.997 };
	static const double nf[] = { 1.00, 1.09, 0.92, 1.06, 0.94 };
	size_t n = rep->n;

	for (size_t i = 0; i < n; i++)
		result_set_epoch(&rep->r[i], 1);
	for (int e = 1; e < 5; e++)
		for (size_t i = 0; i < n; i++) {
			char name[64], pattern[32];
			enum probe_mode m = rep->r[i].mode;
			double c = rep->r[i].s.median / rep->cal.ticks_per_cycle;

			if (strcmp(rep->r[i].pattern, "hit"))
				continue;
			snprintf(name, sizeof(name), "%s", rep->r[i].name);
			snprintf(pattern, sizeof(pattern), "%s", rep->r[i].pattern);
			c *= f[e] * (noisy && !strcmp(name, noisy) && m == MODE_THROUGHPUT ? nf[e] : 1);
			result_set_epoch(add(rep, name, m, pattern, c), e + 1);
		}
}

/* The figures a machine differs in. */
struct machine {
	const char *model;
	double hot_plain;	/* __set_bit hit throughput */
	double hot_atomic;	/* set_bit hit latency */
	double l2_atomic;	/* set_bit l2 latency */
	double l2_lo, l2_hi;	/* measured L2 bracket, bytes */
	double dram_ns;
	bool with_lock;		/* spin_lock measured */
	bool epochs;		/* hit rows over 5 epochs (0.3% apart) */
	const char *noisy;	/* a probe whose throughput epochs are 8% apart */
};

/* a cache level's keys: its name to ns, size_bytes to size_hi, hwloc_size, agrees */
#define CACHE_KEYS (HAS_KEYS(HL_LEVEL, HL_NS) | HAS_KEYS(HL_SIZE, HL_SIZE_HI) | 1u << HL_HWLOC_SIZE | \
		    1u << HL_AGREES)

static void make(struct report *rep, const struct machine *m)
{
	report_init(rep);
	rep->cal.ticks_per_cycle = 0.5;
	rep->cal.timer_hz = 1.5e9;
	rep->cal.core_hz = 3e9;
	rep->cal.trustworthy = true;
	snprintf(rep->cal.cycle_source, sizeof(rep->cal.cycle_source), "%s", "test");
	snprintf(rep->cal.timer, sizeof(rep->cal.timer), "%s", "test");
	snprintf(rep->cal.emulation, sizeof(rep->cal.emulation), "%s", "");
	snprintf(rep->started, sizeof(rep->started), "2026-11-30T12:00:00Z");
	snprintf(rep->topo_summary, sizeof(rep->topo_summary), "1 package, 2 cores");
	rep->meta = json_pack("{s:{s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s}}}", "fingerprint", "host", "h",
			      "cpu", "model_name", m->model, "family", "25", "model", "17", "microcode", "0x1",
			      "kernel", "release", "6.1");
	report_fingerprint(rep, NULL);
	rep->charz = calloc(1, sizeof(*rep->charz));	/* a characterization: {} */
	rep->hier = calloc(1, sizeof(*rep->hier));
	if (!rep->hier || !rep->charz)
		abort();
	rep->hier->has = 1u << HS_LEVELS;
	rep->hier->nlevels = 3;
	rep->hier->levels[0] = (struct hier_level_out){
		.has = CACHE_KEYS, .level = "L1", .cycles = 4.0, .ns = 1.3, .size_bytes = 32768, .size_lo = 32768,
		.size_hi = 36864, .hwloc_size = 32768, .agrees = true,
	};
	rep->hier->levels[1] = (struct hier_level_out){
		.has = CACHE_KEYS, .level = "L2", .cycles = 14.0, .ns = 4.7, .size_bytes = (long long)((m->l2_lo + m->l2_hi) / 2),
		.size_lo = (long long)m->l2_lo, .size_hi = (long long)m->l2_hi, .hwloc_size = 1048576, .agrees = true,
	};
	rep->hier->levels[2] = (struct hier_level_out){
		.has = HAS_KEYS(HL_LEVEL, HL_NS), .level = "memory", .memory = true, .cycles = m->dram_ns * 3, .ns = m->dram_ns,
	};
	add(rep, "set_bit", MODE_THROUGHPUT, "hit", 7.5);
	add(rep, "__set_bit", MODE_THROUGHPUT, "hit", m->hot_plain);
	add(rep, "set_bit", MODE_LATENCY, "hit", m->hot_atomic);
	add(rep, "__set_bit", MODE_LATENCY, "hit", 8.0);
	add(rep, "set_bit", MODE_LATENCY, "l2", m->l2_atomic);
	add(rep, "__set_bit", MODE_LATENCY, "l2", 16.0);
	if (m->with_lock)
		add(rep, "spin_lock", MODE_LATENCY, "hit", 20.0);
	if (m->epochs)
		add_epochs(rep, m->noisy);
	/* spin_lock is on the card's menu by the facts its results carry */
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].name, "spin_lock")) {
			struct result_extra *x = &rep->r[i].extra;

			x->has |= 1u << RX_MENU_NEED | 1u << RX_SAFE_WHEN;
			x->nneed = 1;
			snprintf(x->menu_need[0], sizeof(x->menu_need[0]), "short critical section");
			snprintf(x->safe_when, sizeof(x->safe_when), "always");
		}
}

static int write_doc(const char *path, const struct machine *m, bool summary)
{
	struct report rep;
	int ret;

	make(&rep, m);
	report_pair_twins(&rep);
	ret = report_write_file(&rep, report_writer_find(summary ? "summary" : "json"), path, true);
	report_free(&rep);
	return ret;
}

static const struct compare_n_row *row(const struct compare_n *c, const char *label)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].label, label))
			return &c->rows[i];
	printf("no row '%s'\n", label);
	return NULL;
}

static char *text_of(const struct compare_n *c, bool html)
{
	return TEST_TEXT(CHECK((html ? compare_n_write_html(c, f) : compare_n_write_text(c, f)) == 0, "writer"));
}

int main(void)
{
	static const struct machine base = { "Test CPU", 2.0, 7.3, 40.0, 448 * 1024, 1024 * 1024, 100, true,
						false, NULL };
	struct machine same = base, other = base;
	char dir[] = "/tmp/atomcost-cmpn-XXXXXX", p[3][256], bad[300];
	struct compare_n_doc docs[3] = { 0 };
	struct compare_n c;
	struct compare_n_opts o = { .noise_floor = COMPARE_NOISE_FLOOR };
	const struct compare_n_row *r;
	char *t;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* machine 2: the same figures, but the hot-line chain 10% dearer
	 * (within the 25% floor) */
	same.hot_atomic = 7.3 * 1.10;
	/* machine 3: __set_bit throughput +50% (hot line, beyond 25%), the L2
	 * chase twice as dear (beyond 55%), DRAM +20% (within 55%), its L2
	 * bracket apart from machine 1's, and no spin_lock */
	other.model = "Other CPU";
	other.hot_plain = 3.0;
	other.l2_atomic = 80.0;
	other.dram_ns = 120;
	other.l2_lo = 1536 * 1024;
	other.l2_hi = 2048 * 1024;
	other.with_lock = false;
	snprintf(p[0], sizeof(p[0]), "%s/a.json", dir);
	snprintf(p[1], sizeof(p[1]), "%s/b.summary.json", dir);
	snprintf(p[2], sizeof(p[2]), "%s/c.summary.json", dir);
	CHECK(write_doc(p[0], &base, false) == 0, "write full report");
	CHECK(write_doc(p[1], &same, true) == 0, "write summary 2");
	CHECK(write_doc(p[2], &other, true) == 0, "write summary 3");
	for (int i = 0; i < 3; i++)
		CHECK(report_read_summary(p[i], &docs[i]) == 0, "read %s", p[i]);
	CHECK(!docs[0].summary && docs[1].summary && docs[2].summary, "the reader tells a report from a summary");
	if (t_failed)
		return test_done("compare-n");

	CHECK(compare_n_build(docs, 3, &o, &c) == 0, "build");
	CHECK(c.ncols == 3, "three columns");
	/* names: machines 1 and 2 share a model, so they get their file names */
	CHECK(!strcmp(c.cols[0].name, "a") && !strcmp(c.cols[1].name, "b"), "equal machines: file names ('%s', '%s')",
	      c.cols[0].name, c.cols[1].name);
	CHECK(!strcmp(c.cols[2].name, "Other CPU 25/17"), "model and family/model ('%s')", c.cols[2].name);

	r = row(&c, "family/model");
	CHECK(r && !strcmp(r->cells[0].text, "25/17 stepping ?") && !strcmp(r->cells[2].text, r->cells[0].text),
	      "the fingerprint read into the typed document, from a report and a summary");
	r = row(&c, "kernel");
	CHECK(r && !strcmp(r->cells[1].text, "6.1"), "the kernel release");
	r = row(&c, "hot line, independent ops: __set_bit");
	CHECK(r && r->cells[0].present && fabs(r->cells[0].v - 2.0) < 1e-9, "cycles read back (ticks converted)");
	CHECK(r && !r->cells[1].marked, "unchanged hot-line figure: not marked");
	CHECK(r && r->cells[2].marked && fabs(r->cells[2].change - 0.5) < 1e-9, "+50%% on a hot line: marked");
	CHECK(r && r->kind == CN_HOT && fabs(r->floor - COMPARE_NOISE_FLOOR) < 1e-9, "hot-line floor");
	r = row(&c, "hot line, dependency chain: set_bit");
	CHECK(r && !r->cells[1].marked && fabs(r->cells[1].change - 0.10) < 1e-6, "+10%% within the floor: not marked");
	r = row(&c, "L2 walk, op on another word: set_bit");
	CHECK(r && r->kind == CN_WIDE && r->cells[2].marked, "L2 chase twice as dear: marked beyond the wide floor");
	r = row(&c, "L2 walk, op on another word: __set_bit");
	CHECK(r && !r->cells[1].marked && !r->cells[2].marked, "unchanged L2 twin: not marked");
	r = row(&c, "DRAM latency");
	CHECK(r && r->cells[2].present && !r->cells[2].marked, "DRAM +20%% within the wide floor: not marked");
	r = row(&c, "L2 size");
	CHECK(r && r->kind == CN_SIZE && !r->cells[1].marked && r->cells[2].marked,
	      "L2 size: same bracket unmarked, a bracket apart marked");
	r = row(&c, "short critical section: spin_lock");
	CHECK(r && r->cells[0].present && r->cells[1].present && !r->cells[2].present, "missing row");
	CHECK(c.marked == 5, "five cells marked (__set_bit hot, its ratio, L2 chase, its ratio, L2 size) (got %zu)", c.marked);

	/* the full report and a summary of the same machine: one column */
	{
		struct compare_n c2;
		struct compare_n_doc d2[2];
		char p3[300];
		bool same_cells = true;

		snprintf(p3, sizeof(p3), "%s/a.summary.json", dir);
		CHECK(write_doc(p3, &base, true) == 0, "write a's summary");
		CHECK(report_read_summary(p[0], &d2[0]) == 0 && report_read_summary(p3, &d2[1]) == 0, "read both");
		CHECK(compare_n_build(d2, 2, &o, &c2) == 0, "build 2");
		for (size_t i = 0; i < c2.nrows; i++)
			if (c2.rows[i].kind != CN_TEXT &&
			    (!c2.rows[i].cells[1].present || c2.rows[i].cells[1].v != c2.rows[i].cells[0].v)) {
				printf("row '%s' differs\n", c2.rows[i].label);
				same_cells = false;
			}
		CHECK(same_cells && c2.marked == 0 && c2.missing == 0, "a report and its summary read the same");
		compare_n_free(&c2);
		report_free_summary(&d2[0]);
		report_free_summary(&d2[1]);
		unlink(p3);
	}

	/* one file three times: machine, file and host all shared, so numbers */
	{
		struct compare_n c3 = { 0 };
		struct compare_n_doc d3[3] = { 0 };
		bool read = true;

		for (int i = 0; i < 3; i++)
			read &= report_read_summary(p[1], &d3[i]) == 0;
		CHECK(read && compare_n_build(d3, 3, &o, &c3) == 0, "build the same file 3 times");
		CHECK(!strcmp(c3.cols[0].name, "machine 1") && !strcmp(c3.cols[1].name, "machine 2") &&
			      !strcmp(c3.cols[2].name, "machine 3"),
		      "one file three times: numbered columns ('%s', '%s', '%s')", c3.cols[0].name,
		      c3.cols[1].name, c3.cols[2].name);
		compare_n_free(&c3);
		for (int i = 0; i < 3; i++)
			report_free_summary(&d3[i]);
	}

	t = text_of(&c, false);
	CHECK(strstr(t, "3.00 *+50%") != NULL, "text: the marked cell shows its change");
	CHECK(strstr(t, "missing") != NULL, "text: the missing row says so");
	CHECK(strstr(t, "25% on hot-line rows") && strstr(t, "55% on rows under"), "text: the floors are said");
	free(t);
	t = text_of(&c, true);
	CHECK(strstr(t, "class=\"v up\"") && strstr(t, "class=\"v missing\""), "html: marked and missing cells");
	free(t);
	compare_n_free(&c);

	/* epochs in both files: hot-line cells judged as two-way compare
	 * judges, one process a side: +10% on a row 0.3% apart between epochs
	 * is marked (the 25% floor would not), unchanged rows are "=", and a
	 * row +1% but 8% apart between epochs cannot tell */
	{
		struct machine ea = base, eb = base;

		ea.epochs = eb.epochs = true;
		ea.noisy = eb.noisy = "__set_bit";
		eb.hot_atomic = 7.3 * 1.10;
		eb.hot_plain = 2.0 * 1.01;
		CHECK(write_doc(p[0], &ea, false) == 0 && write_doc(p[1], &eb, true) == 0, "write epochs");
		for (int i = 0; i < 2; i++) {
			report_free_summary(&docs[i]);
			CHECK(report_read_summary(p[i], &docs[i]) == 0, "read %s", p[i]);
		}
		CHECK(compare_n_build(docs, 2, &o, &c) == 0, "build with epochs");
		r = row(&c, "hot line, dependency chain: set_bit");
		CHECK(r && r->cells[1].judged && r->cells[1].marked && fabs(r->cells[1].change - 0.10) < 0.005,
		      "+10%% over tight epochs: marked (change %.3f, p %.2g)", r ? r->cells[1].change : 0,
		      r ? r->cells[1].p : 0);
		r = row(&c, "hot line, dependency chain: __set_bit");
		CHECK(r && r->cells[1].judged && r->cells[1].same && !r->cells[1].marked, "unchanged: the same");
		r = row(&c, "hot line, independent ops: __set_bit");
		CHECK(r && r->cells[1].judged && !r->cells[1].same && !r->cells[1].marked && r->cells[1].detect > 0.1,
		      "+1%% over epochs 8%% apart: cannot tell (detectable %.2f)", r ? r->cells[1].detect : 0);
		r = row(&c, "L2 walk, op on another word: set_bit");
		CHECK(r && !r->cells[1].judged && !r->cells[1].same, "pattern rows: the floor, never the same");
		t = text_of(&c, false);
		CHECK(strstr(t, "8.03 *+10%") && strstr(t, "8.00 =") && strstr(t, "3% ep") &&
			      strstr(t, "the others cannot tell"),
		      "text: marked, '=', the margin and the summary");
		if (t_failed)
			fputs(t, stdout);
		free(t);
		compare_n_free(&c);
	}

	/* a document that is neither a report nor a summary */
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	{
		FILE *f = fopen(bad, "w");

		fputs("{\"schema\": \"something/1\"}\n", f);
		fclose(f);
	}
	{
		struct compare_n_doc d;

		CHECK(report_read_summary(bad, &d) == -EINVAL && !d.nres, "another schema is refused");
	}
	for (int i = 0; i < 3; i++) {
		report_free_summary(&docs[i]);
		unlink(p[i]);
	}
	unlink(bad);
	rmdir(dir);
	return test_done("compare-n");
}
