/* SPDX-License-Identifier: MIT */
/* test-fleet.c - a fleet compare (fleet.h) on generated fleets: 60
 * machines x 24 rows, each row 1% apart between machines (lognormal) and
 * 0.3% between a machine's 5 epochs. An A/A fleet names nothing; changes
 * planted on a few machines (+10%, +50%, -20%) are named, and only they;
 * a +10% over epochs 20% apart is not (its own noise), nor +2% in a fleet
 * 0.2% apart (the margin). Machines group by model and microcode. Bad
 * files (missing, truncated, another schema, a repeated host) are named,
 * skipped and counted, and the writers still write. Deterministic: a
 * fixed generator. Exit 0 pass, 1 fail.
 */
#include "fleet.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "report.h"

#define MACHINES 60
#define ROWS 24
#define EPOCHS 5

static unsigned long long seed = 42;

static double uniform(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	double r = sqrt(-2 * log(uniform()));

	return r * cos(2 * M_PI * uniform());
}

struct plant {
	size_t machine, row;
	double factor, epoch_sd;	/* epochs at 1 -+ epoch_sd, 1 -+ 0.4 epoch_sd, 1
					 * (0: the fleet's, 0.3% sd) */
};

/* A generated fleet: row r costs 2 + r cycles times the machine's noise
 * (sd between machines), each planted row times its factor. */
static void fleet_gen(struct fleet_in *in, double sd, const struct plant *pl, size_t npl)
{
	seed = 42;
	memset(in, 0, sizeof(*in));
	in->n = in->files = MACHINES;
	in->docs = calloc(MACHINES, sizeof(*in->docs));
	for (size_t m = 0; m < MACHINES; m++) {
		struct compare_n_doc *d = &in->docs[m];

		snprintf(d->host, sizeof(d->host), "host-%02zu", m);
		snprintf(d->model_name, sizeof(d->model_name), "AMD EPYC");
		snprintf(d->family, sizeof(d->family), "26");
		snprintf(d->model, sizeof(d->model), "2");
		snprintf(d->microcode, sizeof(d->microcode), m % 3 ? "0x1000065" : "0x1000070");
		d->res = calloc(ROWS, sizeof(*d->res));
		d->nres = ROWS;
		for (size_t r = 0; r < ROWS; r++) {
			struct cn_result *x = &d->res[r];
			static const double spread[EPOCHS] = { -1, 1, -0.4, 0.4, 0 };
			double v = (2 + (double)r) * exp(sd * gauss()), esd = 0;

			for (size_t k = 0; k < npl; k++)
				if (pl[k].machine == m && pl[k].row == r) {
					v *= pl[k].factor;
					esd = pl[k].epoch_sd;
				}
			snprintf(x->probe, sizeof(x->probe), "probe%02zu", r);
			snprintf(x->pattern, sizeof(x->pattern), "hit");
			snprintf(x->mode, sizeof(x->mode), "latency");
			x->ep = calloc(EPOCHS, sizeof(*x->ep));
			x->nep = EPOCHS;
			for (size_t e = 0; e < EPOCHS; e++)
				x->ep[e] = v * (esd > 0 ? 1 + esd * spread[e] : exp(0.003 * gauss()));
			x->median = stats_median(x->ep, EPOCHS);
		}
	}
}

static void fleet_gen_free(struct fleet_in *in)
{
	for (size_t m = 0; m < in->n; m++)
		report_free_summary(&in->docs[m]);
	free(in->docs);
}

/* Whether f named exactly the planted cells that should be (expect[k]). */
static void check_named(const struct fleet *f, const struct plant *pl, size_t npl, const bool *expect,
			const char *what)
{
	size_t want = 0;

	for (size_t k = 0; k < npl; k++) {
		bool found = false;

		want += expect[k];
		for (size_t i = 0; i < f->nnamed; i++) {
			const struct compare_n_row *r = &f->cn.rows[f->named[i].row];
			char label[64];

			snprintf(label, sizeof(label), "probe%02zu hit latency", pl[k].row);
			found |= f->named[i].col == pl[k].machine && !strcmp(r->label, label);
		}
		CHECK(found == expect[k], "%s: machine %zu row %zu x%.2f (epochs %.0f%% apart): named %d, want %d",
		      what, pl[k].machine, pl[k].row, pl[k].factor, pl[k].epoch_sd * 100, found, expect[k]);
	}
	CHECK(f->nnamed == want, "%s: %zu cells named, want %zu", what, f->nnamed, want);
	for (size_t i = 0; f->nnamed != want && i < f->nnamed; i++)
		printf("  named: %s %s %+.1f%% z %.1f p %.2g\n", f->cn.cols[f->named[i].col].name,
		       f->cn.rows[f->named[i].row].label, f->named[i].change * 100, f->named[i].z, f->named[i].p);
}

static void test_generated(void)
{
	const struct plant pl[] = {
		{ 7, 3, 1.10, 0 }, { 20, 10, 1.5, 0 }, { 20, 11, 1.10, 0 }, { 33, 0, 0.8, 0 },
		{ 45, 5, 1.10, 0.25 },	/* its own epochs 20% apart: not beyond its noise */
	};
	const bool expect[] = { true, true, true, true, false };
	const struct plant small[] = { { 9, 4, 1.02, 0 } };	/* beyond 10 spreads, inside 3% */
	const bool no[] = { false };
	struct compare_n_opts o = { .noise_floor = 0.25, .min_change = 0.03, .all_rows = true };
	struct fleet_in in;
	struct fleet f;

	fleet_gen(&in, 0.01, NULL, 0);
	CHECK(fleet_build(&in, &o, &f) == 0, "build A/A");
	CHECK(f.nnamed == 0 && f.tests == MACHINES * ROWS, "A/A: %zu named of %zu tested", f.nnamed, f.tests);
	CHECK(f.ngroup == 2 && f.group[0].n == 20 && f.group[1].n == 40, "groups: %zu (%zu, %zu)", f.ngroup,
	      f.group[0].n, f.ngroup > 1 ? f.group[1].n : 0);
	for (size_t i = 0; i < f.cn.nrows; i++)
		if (!strcmp(f.cn.rows[i].label, "probe00 hit latency"))
			CHECK(fabs(f.row[i].spread - 0.01) < 0.004 && f.row[i].n == MACHINES,
			      "probe00: spread %.4f over %zu machines, want about 0.01 over %d", f.row[i].spread,
			      f.row[i].n, MACHINES);
	fleet_free(&f);
	fleet_gen_free(&in);

	fleet_gen(&in, 0.01, pl, ARRAY_SIZE(pl));
	CHECK(fleet_build(&in, &o, &f) == 0, "build planted");
	check_named(&f, pl, ARRAY_SIZE(pl), expect, "planted");
	CHECK(f.machines_named == 3, "%zu machines named, want 3", f.machines_named);
	fleet_free(&f);
	fleet_gen_free(&in);

	fleet_gen(&in, 0.002, small, 1);
	CHECK(fleet_build(&in, &o, &f) == 0, "build small");
	check_named(&f, small, 1, no, "margin");
	fleet_free(&f);
	fleet_gen_free(&in);
}

/* A file holding s (or its first n bytes). */
static void put(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(s, 1, n, f);
		fclose(f);
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;

	*len = 0;
	if (f && !fseek(f, 0, SEEK_END)) {
		long n = ftell(f);

		buf = n > 0 ? calloc((size_t)n + 1, 1) : NULL;
		rewind(f);
		*len = buf ? fread(buf, 1, (size_t)n, f) : 0;
	}
	if (f)
		fclose(f);
	return buf;
}

static void test_bad_input(void)
{
	const char *src = getenv("ATOMCOST_SRCDIR") ?: ".";
	char dir[] = "/tmp/test-fleet-XXXXXX", zen4[512], zen5[512], p[4][600], *s, *h;
	char *files[] = { zen4, zen5, p[0], p[1], p[2], p[3] };
	struct compare_n_opts o = { .noise_floor = 0.25, .min_change = 0.03 };
	struct fleet_in in;
	struct fleet fl;
	size_t len;

	snprintf(zen4, sizeof(zen4), "%s/reports/zen4-kvm-2vcpu.summary.json", src);
	snprintf(zen5, sizeof(zen5), "%s/reports/zen5-kvm-2vcpu.summary.json", src);
	s = slurp(zen5, &len);
	h = s ? strstr(s, "\"host\": \"vm\"") : NULL;
	CHECK(mkdtemp(dir) && h, "temporary directory and %s", zen5);
	if (!h) {
		free(s);
		return;
	}
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s.summary.json", dir,
			 (const char *[]){ "other", "missing", "truncated", "foreign" }[i]);
	memcpy(h, "\"host\": \"v2\"", 12);	/* the same length, another host */
	put(p[0], s, len);
	put(p[2], s, len / 2);
	put(p[3], "{\"schema\": \"atomcost-other/9\"}\n", 31);
	CHECK(fleet_read(files, 6, &in) == 0, "read");
	CHECK(in.n == 2 && in.nskip == 4 && in.files == 6, "read %zu, skipped %zu of %zu; want 2, 4, 6", in.n,
	      in.nskip, in.files);
	for (size_t i = 0; i < in.nskip; i++)
		printf("skipped %s: %s\n", in.skip[i].path, in.skip[i].why);
	CHECK(in.nskip == 4 && !strcmp(in.skip[0].why, "duplicate host") && !strcmp(in.skip[1].why, "cannot read") &&
	      strstr(in.skip[2].why, "not a summary") && strstr(in.skip[3].why, "not a summary"), "reasons");
	CHECK(in.unread == 1 && in.dup == 1, "counted by the model: %zu unreadable, %zu repeated hosts; want 1, 1",
	      in.unread, in.dup);
	CHECK(fleet_build(&in, &o, &fl) == 0, "build 2 machines");
	if (in.n == 2 && fl.cn.ncols == 2) {
		char *t = TEST_TEXT(fleet_write_text(&fl, f)), *c = TEST_TEXT(fleet_write_csv(&fl, f));
		char *w = TEST_TEXT(fleet_write_html(&fl, f));

		CHECK(t && strstr(t, "4 of 6 files skipped: 1 cannot be read, 2 not a summary, 1 duplicate host"),
		      "text says what was skipped");
		CHECK(c && strstr(c, "skipped,,duplicate host,,"), "csv names the skipped");
		CHECK(w && strstr(w, "</html>"), "html written");
		CHECK(fl.nnamed == 0 && fl.tests == 0, "two machines: nothing judged (%zu tested)", fl.tests);
		free(t);
		free(c);
		free(w);
		fleet_free(&fl);
	}
	fleet_in_free(&in);
	for (int i = 0; i < 4; i++)
		unlink(p[i]);
	rmdir(dir);
	free(s);
}

int main(void)
{
	test_generated();
	test_bad_input();
	return test_done("fleet");
}
