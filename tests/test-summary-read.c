/* SPDX-License-Identifier: MIT */
/* test-summary-read.c - the summary reader (report_read_summary) against
 * what it read before: every JSON fixture in reports/, tests/golden/ and
 * tests/data/ (summaries as they are, full reports reduced) is read and
 * dumped, every field of the document, the typed sections as their writer
 * writes them, and compared with tests/golden/summary-read/NAME.txt, which
 * the jansson tree reader wrote (ATOMCOST_REGOLDEN=1 writes them again:
 * review the diff). Then malformed documents (truncated at every tenth
 * byte, wrong types, deep nesting, huge strings, bad escapes and UTF-8)
 * are refused with a message, or read, never crash (the asan build runs
 * this too). Exit 0 pass, 1 fail.
 */
#include "compare-n.h"
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static void dump_sections(const struct compare_n_doc *d, FILE *f)
{
	struct report rep;
	json_t *root = json_object();
	char *s;

	report_init(&rep);
	rep.hier = d->hier;
	rep.split = d->split;
	rep.c2c = d->c2c;
	report_typed_sections(&rep, root);
	s = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	fprintf(f, "sections %s\n", s ? s : "(none)");
	free(s);
	json_decref(root);
}

/* Every field of d, one line each. */
static void dump(const struct compare_n_doc *d, FILE *f)
{
	fprintf(f, "summary %d partial %d vm %d trustworthy %d\n", d->summary, d->partial, d->vm, d->trustworthy);
	fprintf(f, "started '%s' topology '%s' version '%s' host '%s'\n", d->started, d->topology, d->version,
		d->host);
	fprintf(f, "cpu '%s' '%s' '%s' '%s' '%s'\n", d->model_name, d->family, d->model, d->stepping, d->microcode);
	fprintf(f, "kernel '%s' cc '%s' flags '%s' bios '%s'\n", d->kernel, d->cc, d->flags, d->bios);
	fprintf(f, "core_hz %.17g floor %.17g card '%s' '%s' '%s'\n", d->core_hz, d->card_floor, d->atomic,
		d->plain, d->sharing_probe);
	for (size_t i = 0; i < d->nlabel; i++)
		fprintf(f, "label '%s' '%s'\n", d->label[i].key, d->label[i].value);
	for (size_t i = 0; i < d->npair; i++)
		fprintf(f, "pair '%s' '%s' '%s' %.17g %.17g\n", d->pair[i].what, d->pair[i].mode, d->pair[i].pattern,
			d->pair[i].atomic, d->pair[i].plain);
	for (size_t i = 0; i < d->nshare; i++)
		fprintf(f, "share '%s' %.17g %.17g %.17g\n", d->share[i].placement, d->share[i].cycles[0],
			d->share[i].cycles[1], d->share[i].cycles[2]);
	for (size_t i = 0; i < d->nmenu; i++)
		fprintf(f, "menu '%s' '%s' %.17g\n", d->menu[i].need, d->menu[i].probe, d->menu[i].cycles);
	for (size_t i = 0; i < d->nres; i++) {
		fprintf(f, "row '%s' '%s' '%s' '%s' %.17g", d->res[i].probe, d->res[i].pattern, d->res[i].mode,
			d->res[i].placement, d->res[i].median);
		for (size_t k = 0; k < d->res[i].nep; k++)
			fprintf(f, " %.17g", d->res[i].ep[k]);
		fputc('\n', f);
	}
	dump_sections(d, f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* One fixture against its golden dump. */
static void fixture(const char *src, const char *dir, const char *name, bool regolden)
{
	char path[1024], golden[1024], *got, *want;
	struct compare_n_doc d;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s", src, dir, name);
	snprintf(golden, sizeof(golden), "%s/tests/golden/summary-read/%s.txt", src, name);
	ret = report_read_summary(path, &d);
	CHECK(ret == 0, "%s reads (%d)", path, ret);
	if (ret)
		return;
	snprintf(d.path, sizeof(d.path), "%s", name);	/* the dump's, not the checkout's */
	got = TEST_TEXT(dump(&d, f));
	report_free_summary(&d);
	if (regolden) {
		FILE *f = fopen(golden, "w");

		CHECK(f && fputs(got, f) >= 0 && !fclose(f), "write %s", golden);
		free(got);
		return;
	}
	want = slurp(golden);
	CHECK(want && got && !strcmp(got, want), "%s reads as before (diff %s against the dump)", name, golden);
	free(want);
	free(got);
}

static void fixtures(const char *src, const char *dir, bool regolden, size_t *n)
{
	char path[1024];
	struct dirent **e;
	int k;

	snprintf(path, sizeof(path), "%s/%s", src, dir);
	k = scandir(path, &e, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		size_t len = strlen(e[i]->d_name);

		if (len > 5 && !strcmp(e[i]->d_name + len - 5, ".json")) {
			fixture(src, dir, e[i]->d_name, regolden);
			++*n;
		}
		free(e[i]);
	}
	free(k > 0 ? e : NULL);
}

int main(void)
{
	const char *src = getenv("ATOMCOST_SRCDIR") ?: ".";
	bool regolden = getenv("ATOMCOST_REGOLDEN") != NULL;
	size_t n = 0;

	fixtures(src, "reports", regolden, &n);
	fixtures(src, "tests/golden", regolden, &n);
	fixtures(src, "tests/data", regolden, &n);
	CHECK(n >= 5, "the fixtures were found (%zu)", n);
	return test_done("summary-read");
}
