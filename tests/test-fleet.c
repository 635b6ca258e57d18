/* SPDX-License-Identifier: MIT */
/* test-fleet.c - a fleet compare (fleet.h) on generated fleets: 60
 * machines x 24 rows, each row 1% apart between machines (lognormal) and
 * 0.3% between a machine's 5 epochs. An A/A fleet names nothing; changes
 * planted on a few machines (+10%, +50%, -20%) are named, and only they;
 * a +10% over epochs 20% apart is not (its own noise), nor +2% in a fleet
 * 0.2% apart (the margin). Machines group by model, microcode and the
 * operator's labels; a group moved together in a row (+20%) is one line,
 * its members not named one by one, and one of them beyond its group is;
 * --group-by keeps one key and refuses an unknown one. Bad files
 * (missing, truncated, another schema, a repeated host) are named,
 * skipped and counted, and the writers still write. Deterministic: a
 * fixed generator. Exit 0 pass, 1 fail.
 */
#include "fleet.h"
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fingerprint.h"
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

/* A generated fleet added to f: row r costs 2 + r cycles times the
 * machine's noise (sd between machines), each planted row times its
 * factor, and row shift_row of the machines of microcode 0x1000070 (every
 * third) times shift. Labels: partition "batch" (the first 30) or "gpu". */
static void fleet_gen(struct fleet *f, const char *group_by, double sd, const struct plant *pl, size_t npl,
		      size_t shift_row, double shift)
{
	struct compare_n_opts o = { .noise_floor = 0.25, .min_change = 0.03 };

	seed = 42;
	fleet_init(f, &o, group_by);
	for (size_t m = 0; m < MACHINES; m++) {
		struct compare_n_doc doc = { 0 }, *d = &doc;
		struct cn_label part = { "partition", "" };

		snprintf(d->host, sizeof(d->host), "host-%02zu", m);
		snprintf(d->model_name, sizeof(d->model_name), "AMD EPYC");
		snprintf(d->family, sizeof(d->family), "26");
		snprintf(d->model, sizeof(d->model), "2");
		snprintf(d->microcode, sizeof(d->microcode), m % 3 ? "0x1000065" : "0x1000070");
		snprintf(part.value, sizeof(part.value), m < 30 ? "batch" : "gpu");
		d->label = &part;
		d->nlabel = 1;
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
			if (r == shift_row && m % 3 == 0)
				v *= shift;
			snprintf(x->probe, sizeof(x->probe), "probe%02zu", r);
			snprintf(x->pattern, sizeof(x->pattern), "hit");
			snprintf(x->mode, sizeof(x->mode), "latency");
			x->ep = calloc(EPOCHS, sizeof(*x->ep));
			x->nep = EPOCHS;
			for (size_t e = 0; e < EPOCHS; e++)
				x->ep[e] = v * (esd > 0 ? 1 + esd * spread[e] : exp(0.003 * gauss()));
			x->median = stats_median(x->ep, EPOCHS);
		}
		CHECK(fleet_add(f, d) == 0, "add machine %zu", m);
		d->label = NULL;
		report_free_summary(d);
	}
}

static const char *row_label(const struct fleet *f, size_t row)
{
	return f->row[row].head.label;
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
			char label[64];

			snprintf(label, sizeof(label), "probe%02zu hit latency", pl[k].row);
			found |= f->named[i].machine == pl[k].machine && !strcmp(row_label(f, f->named[i].row), label);
		}
		CHECK(found == expect[k], "%s: machine %zu row %zu x%.2f (epochs %.0f%% apart): named %d, want %d",
		      what, pl[k].machine, pl[k].row, pl[k].factor, pl[k].epoch_sd * 100, found, expect[k]);
	}
	CHECK(f->nnamed == want, "%s: %zu cells named, want %zu", what, f->nnamed, want);
	for (size_t i = 0; f->nnamed != want && i < f->nnamed; i++)
		printf("  named: %s %s %+.1f%% z %.1f p %.2g\n", f->mach[f->named[i].machine].name,
		       row_label(f, f->named[i].row), f->named[i].change * 100, f->named[i].z, f->named[i].p);
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
	struct fleet f;

	fleet_gen(&f, NULL, 0.01, NULL, 0, 0, 1);
	CHECK(fleet_judge(&f) == 0, "judge A/A");
	CHECK(f.nnamed == 0 && f.nshift == 0 && f.tests == MACHINES * ROWS, "A/A: %zu named, %zu groups of %zu tested",
	      f.nnamed, f.nshift, f.tests);
	CHECK(f.ndim == 3 && !strcmp(f.dim[1].key, "microcode") && f.dim[1].nvalue == 2 && f.dim[1].count[0] == 20 &&
	      f.dim[1].count[1] == 40 && !strcmp(f.dim[2].key, "partition") && f.dim[2].count[0] == 30,
	      "keys: %zu (cpu, microcode 20 + 40, partition 30 + 30)", f.ndim);
	/* groups tested: microcode (2) and partition (2) in every row, not the cpu (one value) */
	CHECK(f.gtests == 4 * ROWS, "%zu group tests, want %d", f.gtests, 4 * ROWS);
	for (size_t i = 0; i < f.nrows; i++)
		if (!strcmp(row_label(&f, i), "probe00 hit latency"))
			CHECK(fabs(f.row[i].spread - 0.01) < 0.004 && f.row[i].n == MACHINES,
			      "probe00: spread %.4f over %zu machines, want about 0.01 over %d", f.row[i].spread,
			      f.row[i].n, MACHINES);
	fleet_free(&f);

	fleet_gen(&f, NULL, 0.01, pl, ARRAY_SIZE(pl), 0, 1);
	CHECK(fleet_judge(&f) == 0, "judge planted");
	check_named(&f, pl, ARRAY_SIZE(pl), expect, "planted");
	CHECK(f.machines_named == 3 && f.nshift == 0, "%zu machines named, %zu groups moved; want 3, 0",
	      f.machines_named, f.nshift);
	CHECK(f.nnamed && fabs(f.named[0].change - 0.5) < 0.05, "largest first: %+.2f", f.nnamed ? f.named[0].change : 0);
	fleet_free(&f);

	fleet_gen(&f, NULL, 0.002, small, 1, 0, 1);
	CHECK(fleet_judge(&f) == 0, "judge small");
	check_named(&f, small, 1, no, "margin");
	fleet_free(&f);
}

/* The machines of microcode 0x1000070 (every third) +20% in row 6: one
 * group line, no member named for it; machine 21 (one of them) x1.5 in
 * that row is named against its group (+50%), machine 7 (not one) x1.3 against
 * the fleet. A group inside the margin (+2%) does not move. */
static void test_groups(void)
{
	const struct plant pl[] = { { 21, 6, 1.5, 0 }, { 7, 6, 1.3, 0 } };
	const bool expect[] = { true, true };
	struct fleet fl;

	fleet_gen(&fl, NULL, 0.01, pl, ARRAY_SIZE(pl), 6, 1.2);
	CHECK(fleet_judge(&fl) == 0, "judge group");
	CHECK(fl.nshift == 1, "%zu groups moved, want 1", fl.nshift);
	if (fl.nshift) {
		const struct fleet_shift *g = &fl.shift[0];

		CHECK(!strcmp(fl.dim[g->dim].key, "microcode") && !strcmp(fl.dim[g->dim].value[g->value], "0x1000070") &&
		      g->n == 20 && !strcmp(row_label(&fl, g->row), "probe06 hit latency") && g->lo > 0.15 && g->hi < 0.25 &&
		      g->lo < g->change && g->change < g->hi,
		      "moved: %s %s, %zu machines, %s %+.1f%% [%+.1f,%+.1f]; want microcode 0x1000070, 20, probe06 +20%%",
		      fl.dim[g->dim].key, fl.dim[g->dim].value[g->value], g->n, row_label(&fl, g->row), g->change * 100,
		      g->lo * 100, g->hi * 100);
	}
	check_named(&fl, pl, ARRAY_SIZE(pl), expect, "group");
	for (size_t i = 0; i < fl.nnamed; i++)
		if (fl.named[i].machine == 21)
			CHECK(fabs(fl.named[i].change - 0.5) < 0.05, "machine 21 against its group: %+.1f%%, want +50%%",
			      fl.named[i].change * 100);
	{
		char *t = TEST_TEXT(fleet_write_text(&fl, false, f)), *m = TEST_TEXT(fleet_write_text(&fl, true, f));
		char *c = TEST_TEXT(fleet_write_csv(&fl, true, f));

		CHECK(t && strstr(t, "  microcode 0x1000070: 20 machines, probe06 hit latency +") && !strstr(t, "members:"),
		      "the group is one line");
		CHECK(m && strstr(m, "members: host-00 host-03 host-06"), "--members lists them");
		CHECK(c && strstr(c, "moved,every result line (median),probe06 hit latency,cycles,,microcode 0x1000070,20,") &&
		      strstr(c, "member,every result line (median),probe06 hit latency,cycles,host-03,microcode 0x1000070"),
		      "csv: the group and its members");
		free(t);
		free(m);
		free(c);
	}
	fleet_free(&fl);

	fleet_gen(&fl, NULL, 0.01, NULL, 0, 6, 1.02);
	CHECK(fleet_judge(&fl) == 0 && fl.nshift == 0, "a group +2%%: %zu moved, want 0 (the margin)", fl.nshift);
	fleet_free(&fl);

	fleet_gen(&fl, "partition", 0.01, NULL, 0, 6, 1.2);
	CHECK(fleet_judge(&fl) == 0 && fl.ndim == 1 && fl.nshift == 0, "--group-by partition: %zu keys, %zu moved", fl.ndim,
	      fl.nshift);
	/* grouped by partition alone, the microcode's members are named one by one */
	CHECK(fl.nnamed == 20, "%zu named, want the 20 members", fl.nnamed);
	fleet_free(&fl);

	fleet_gen(&fl, "rack", 0.01, NULL, 0, 0, 1);
	CHECK(fleet_judge(&fl) == -EINVAL, "--group-by rack: no machine has it");
	fleet_free(&fl);
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

/* The Bonferroni gate: 10,000 machines x 24 rows, 1% apart, 20 cells
 * planted x1.5 and one at 5.1 spreads. With 20 real names BH's cut
 * relaxes to about 4.6 spreads, and BH and the 5-spread gate alone would
 * name the 5.1 cell; alone below q / (rows x machines) (5.19 spreads) it
 * is not named, and the 20 are. */
static void test_bonferroni(void)
{
	const size_t n = 10000, rows = 24, planted = 20, odd = 4321, odd_row = 7;
	struct compare_n_opts o = { .noise_floor = 0.25, .min_change = 0.03 };
	struct compare_n_doc d = { 0 };
	size_t found = 0;
	struct fleet fl;

	seed = 7;
	fleet_init(&fl, &o, NULL);
	d.res = calloc(rows, sizeof(*d.res));
	d.nres = rows;
	snprintf(d.model_name, sizeof(d.model_name), "AMD EPYC");
	for (size_t m = 0; m < n; m++) {
		snprintf(d.host, sizeof(d.host), "h%05zu", m);
		for (size_t r = 0; r < rows; r++) {
			double v = (2 + (double)r) * exp(0.01 * gauss());

			if (m == odd && r == odd_row)
				v = (2 + (double)r) * exp(0.0495);
			if (m % (n / planted) == 0 && r == m % rows)
				v *= 1.5;
			snprintf(d.res[r].probe, sizeof(d.res[r].probe), "probe%02zu", r);
			snprintf(d.res[r].pattern, sizeof(d.res[r].pattern), "hit");
			snprintf(d.res[r].mode, sizeof(d.res[r].mode), "latency");
			d.res[r].median = v;
		}
		if (fleet_add(&fl, &d) < 0)
			break;
	}
	free(d.res);
	CHECK(fleet_judge(&fl) == 0 && fl.nmach == n, "judge %zu machines", fl.nmach);
	for (size_t i = 0; i < fl.nnamed; i++) {
		found += fabs(fl.named[i].change - 0.5) < 0.05;
		CHECK(fl.named[i].machine != odd, "the cell at %.2f spreads named (p %.2g, the gate %.2g)",
		      fl.named[i].z, fl.named[i].p, fl.threshold);
	}
	CHECK(found == planted && fl.nnamed == planted, "%zu named, %zu of the %zu planted", fl.nnamed, found,
	      planted);
	fleet_free(&fl);
}

/* The keys a fleet groups by, as a run records them: the firmware from
 * DMI, and the labels: Slurm's partition and features (a fake scontrol
 * on PATH, inside a job), ATOMCOST_LABELS over them; then read back from
 * a summary that carries them. */
static void test_keys(void)
{
	char dir[] = "/tmp/test-fleet-keys-XXXXXX", path[700], *s, *h, *doc;
	const char *src = getenv("ATOMCOST_SRCDIR") ?: ".", *oldpath = getenv("PATH");
	struct compare_n_doc d;
	json_t *fp, *labels, *fw;
	size_t len;

	CHECK(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(path, sizeof(path), "%s/sys/class/dmi/id", dir);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = 0;
		mkdir(path, 0755);
	}
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/dmi/id/bios_version", dir);
	put(path, "2.7.1\n", 6);
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	{
		const char *sc = "#!/bin/sh\n[ \"$*\" = 'show node -o n07' ] && echo 'NodeName=n07 Arch=x86_64 "
				 "ActiveFeatures=zen4,ib AvailableFeatures=zen4,ib,gpu OS=Linux 6.1.0 Partitions=batch "
				 "BootTime=None'\n";

		put(path, sc, strlen(sc));
	}
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s:%s", dir, oldpath ? oldpath : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("SLURM_JOB_ID", "12", 1);
	setenv("SLURMD_NODENAME", "n07", 1);
	setenv("ATOMCOST_LABELS", "group=web,bad,rack=r12", 1);
	fp = fingerprint_collect(dir, 0, NULL);
	labels = json_object_get(fp, "labels");
	fw = json_object_get(fp, "firmware");
	CHECK(!strcmp(json_string_value(json_object_get(fw, "bios_version")) ?: "", "2.7.1") &&
	      !strcmp(json_string_value(json_object_get(fw, "bios_date")) ?: "", "absent"), "firmware from DMI");
	CHECK(json_object_size(labels) == 4 && !strcmp(json_string_value(json_object_get(labels, "partition")) ?: "", "batch") &&
	      !strcmp(json_string_value(json_object_get(labels, "features")) ?: "", "zen4,ib") &&
	      !strcmp(json_string_value(json_object_get(labels, "group")) ?: "", "web") &&
	      !strcmp(json_string_value(json_object_get(labels, "rack")) ?: "", "r12"),
	      "labels: Slurm's partition and features, ATOMCOST_LABELS (%zu)", json_object_size(labels));
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURMD_NODENAME");
	unsetenv("ATOMCOST_LABELS");
	setenv("PATH", oldpath ? oldpath : "/usr/bin:/bin", 1);
	json_decref(fp);
	fp = fingerprint_collect(dir, 0, NULL);
	CHECK(json_object_size(json_object_get(fp, "labels")) == 0, "no labels outside Slurm without ATOMCOST_LABELS");
	json_decref(fp);

	snprintf(path, sizeof(path), "%s/reports/zen5-kvm-2vcpu.summary.json", src);
	s = slurp(path, &len);
	h = s ? strstr(s, "\"host\": \"vm\",") : NULL;
	CHECK(h != NULL, "%s holds its host", path);
	if (h) {
		const char *add = "\"host\": \"vm\", \"labels\": {\"group\": \"web\", \"partition\": \"batch\"}, "
				  "\"firmware\": {\"bios_vendor\": \"SeaBIOS\", \"bios_version\": \"1.16\", \"bios_date\": \"04/01/2014\"},";

		doc = calloc(len + strlen(add) + 1, 1);
		memcpy(doc, s, (size_t)(h - s));
		strcat(doc, add);
		strcat(doc, h + strlen("\"host\": \"vm\","));
		snprintf(path, sizeof(path), "%s/labelled.summary.json", dir);
		put(path, doc, strlen(doc));
		CHECK(report_read_summary(path, &d) == 0 && d.nlabel == 2 && !strcmp(d.label[0].key, "group") &&
		      !strcmp(d.label[0].value, "web") && !strcmp(d.label[1].value, "batch") &&
		      !strcmp(d.bios, "SeaBIOS 1.16 04/01/2014"), "labels and firmware read back (%zu labels, bios '%s')",
		      d.nlabel, d.bios);
		report_free_summary(&d);
		unlink(path);
		free(doc);
	}
	free(s);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0, "clean up");
}

static void test_bad_input(void)
{
	const char *src = getenv("ATOMCOST_SRCDIR") ?: ".";
	char dir[] = "/tmp/test-fleet-XXXXXX", zen4[512], zen5[512], p[4][600], *s, *h;
	char *files[] = { zen4, zen5, p[0], p[1], p[2], p[3] };
	struct compare_n_opts o = { .noise_floor = 0.25, .min_change = 0.03 };
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
	fleet_init(&fl, &o, NULL);
	for (int i = 0; i < 6; i++) {
		struct compare_n_doc d;
		int r = report_read_summary(files[i], &d);

		CHECK(fleet_add_read(&fl, files[i], r, &d) == 0, "read %s", files[i]);
		report_free_summary(&d);
	}
	CHECK(fl.nmach == 2 && fl.nskip == 4 && fl.files == 6, "read %zu, skipped %zu of %zu; want 2, 4, 6", fl.nmach,
	      fl.nskip, fl.files);
	for (size_t i = 0; i < fl.nskip; i++)
		printf("skipped %s: %s\n", fl.skip[i].path, fl.skip[i].why);
	CHECK(fl.nskip == 4 && !strcmp(fl.skip[0].why, "duplicate host") && !strcmp(fl.skip[1].why, "cannot read") &&
	      strstr(fl.skip[2].why, "not a summary") && strstr(fl.skip[3].why, "not a summary"), "reasons");
	CHECK(fl.unread == 1 && fl.dup == 1, "counted by the model: %zu unreadable, %zu repeated hosts; want 1, 1",
	      fl.unread, fl.dup);
	CHECK(fleet_judge(&fl) == 0, "judge 2 machines");
	if (fl.nmach == 2) {
		char *t = TEST_TEXT(fleet_write_text(&fl, false, f)), *c = TEST_TEXT(fleet_write_csv(&fl, false, f));
		char *w = TEST_TEXT(fleet_write_html(&fl, false, f));

		CHECK(t && strstr(t, "4 of 6 files skipped: 1 cannot be read, 2 not a summary, 1 duplicate host"),
		      "text says what was skipped");
		CHECK(c && strstr(c, "skipped,,duplicate host,,"), "csv names the skipped");
		CHECK(w && strstr(w, "</html>"), "html written");
		{
			char *j = TEST_TEXT(fleet_write_json(&fl, false, f));
			json_t *root = j ? json_loads(j, 0, NULL) : NULL;

			CHECK(root && json_integer_value(json_object_get(root, "machines")) == 2 &&
			      json_array_size(json_object_get(root, "skipped")) == 4 &&
			      json_array_size(json_object_get(root, "named")) == 0, "json: 2 machines, 4 skipped, none named");
			json_decref(root);
			free(j);
		}
		CHECK(fl.nnamed == 0 && fl.tests == 0, "two machines: nothing judged (%zu tested)", fl.tests);
		free(t);
		free(c);
		free(w);
	}
	fleet_free(&fl);
	for (int i = 0; i < 4; i++)
		unlink(p[i]);
	rmdir(dir);
	free(s);
}

int main(void)
{
	test_generated();
	test_groups();
	test_bonferroni();
	test_keys();
	test_bad_input();
	return test_done("fleet");
}
