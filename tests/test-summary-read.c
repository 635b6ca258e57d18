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

#include "common.h"
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

#define W(s) ((s) ? (s) : "")	/* a card's string, "" for none */

/* Every field of d, one line each. */
static void dump(const struct compare_n_doc *d, FILE *f)
{
	fprintf(f, "summary %d partial %d vm %d trustworthy %d\n", d->summary, d->partial, d->vm, d->trustworthy);
	fprintf(f, "started '%s' topology '%s' version '%s' host '%s'\n", d->started, d->topology, d->version,
		d->host);
	fprintf(f, "cpu '%s' '%s' '%s' '%s' '%s'\n", d->model_name, d->family, d->model, d->stepping, d->microcode);
	fprintf(f, "kernel '%s' cc '%s' flags '%s' bios '%s'\n", d->kernel, d->cc, d->flags, d->bios);
	const struct card *c = d->card ? d->card : &(const struct card){ 0 };

	fprintf(f, "core_hz %.17g card '%s' '%s' '%s'\n", d->core_hz, W(c->pair_atomic), W(c->pair_plain),
		W(c->share_probe));
	for (size_t i = 0; i < d->nlabel; i++)
		fprintf(f, "label '%s' '%s'\n", d->label[i].key, d->label[i].value);
	for (size_t i = 0; i < c->ncmp; i++)
		fprintf(f, "pair '%s' '%s' '%s' %.17g %.17g\n", W(c->cmp[i].what), probe_mode_name(c->cmp[i].mode),
			W(c->cmp[i].pattern), c->cmp[i].pair.a_cyc, c->cmp[i].pair.b_cyc);
	for (size_t i = 0; i < c->nshare; i++)
		fprintf(f, "share '%s' %.17g %.17g %.17g\n", W(c->share[i].placement), c->share[i].true_share,
			c->share[i].false_share, c->share[i].no_share);
	for (size_t n = 0; n < c->nneed; n++)
		for (size_t i = 0; i < c->need[n].nopt; i++)
			fprintf(f, "menu '%s' '%s' %.17g\n", W(c->need[n].need), W(c->need[n].opt[i].probe),
				c->need[n].opt[i].chain);
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

/* len bytes of text as a file read as a summary: its return, what it said
 * on stderr into msg. */
static int read_text(const char *text, size_t len, struct compare_n_doc *d, char *msg, size_t size)
{
	char path[] = "/tmp/atomcost-summary-read-XXXXXX", errpath[] = "/tmp/atomcost-summary-err-XXXXXX";
	int fd = mkstemp(path), efd = mkstemp(errpath), saved = dup(2), ret;
	ssize_t got;

	if (fd < 0 || efd < 0 || saved < 0 || write(fd, text, len) != (ssize_t)len)
		return -EIO;
	close(fd);
	fflush(stderr);
	dup2(efd, 2);
	ret = report_read_summary(path, d);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	got = pread(efd, msg, size - 1, 0);
	msg[got > 0 ? got : 0] = '\0';
	close(efd);
	unlink(path);
	unlink(errpath);
	return ret;
}

/* text must be refused as not valid JSON, saying why (want) */
static void refused(const char *what, const char *text, size_t len, const char *want)
{
	struct compare_n_doc d;
	char msg[4096];
	int ret = read_text(text, len, &d, msg, sizeof(msg));

	CHECK(ret == -EINVAL && strstr(msg, "not valid JSON") && strstr(msg, want),
	      "%s: refused saying '%s' (%d, said '%s')", what, want, ret, msg);
	CHECK(!d.res && !d.hier && !d.label && !d.card, "%s: nothing kept", what);
}

#define SUM "{\"schema\": \"atomcost-summary/1\", "

static void malformed(void)
{
	static const struct {
		const char *what, *text, *want;
	} bad[] = {
		{ "empty", "", "'[' or '{' expected" },
		{ "a number", "12", "'[' or '{' expected" },
		{ "no colon", SUM "\"host\" 1}", "':' expected" },
		{ "no comma", SUM "\"partial\": true \"started\": \"x\"}", "',' or '}'" },
		{ "a trailing comma", SUM "\"results\": [1, 2,]}", "a value expected" },
		{ "a bad escape", SUM "\"started\": \"a\\x\"}", "invalid escape" },
		{ "a short \\u", SUM "\"started\": \"\\u12\"}", "invalid escape" },
		{ "a lone surrogate", SUM "\"started\": \"\\udc00\"}", "surrogate" },
		{ "\\u0000", SUM "\"started\": \"a\\u0000b\"}", "\\u0000" },
		{ "a control character", SUM "\"started\": \"a\tb\"}", "control character" },
		{ "an overlong UTF-8", SUM "\"started\": \"\xc0\x80\"}", "UTF-8" },
		{ "a UTF-8 surrogate", SUM "\"started\": \"\xed\xa0\x80\"}", "UTF-8" },
		{ "a cut UTF-8", SUM "\"started\": \"\xe2\x98\"}", "UTF-8" },
		{ "a real overflow", SUM "\"calibration\": {\"core_hz\": 1e999}}", "overflow" },
		{ "a skipped real overflow", SUM "\"x\": [1.5e400]}", "overflow" },
		{ "an integer overflow", SUM "\"x\": 99999999999999999999}", "too big integer" },
		{ "a leading zero", SUM "\"partial\": 01}", "leading zero" },
		{ "no digit after '.'", SUM "\"x\": 1.}", "no digit" },
		{ "a bad literal", SUM "\"partial\": tru}", "invalid token" },
		{ "text after", SUM "\"partial\": true} x", "end of file expected" },
		{ "a duplicate key", SUM "\"fingerprint\": {\"host\": \"a\", \"host\": \"b\"}}", "duplicate" },
		{ "a duplicate section", SUM "\"splitlock\": {}, \"splitlock\": {}}", "duplicate" },
		{ "a bracket mismatch", SUM "\"x\": [1, 2}}", "',' or ']'" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		refused(bad[i].what, bad[i].text, strlen(bad[i].text), bad[i].want);
}

/* Deeper than jansson's 2048 is refused; a huge string is cut to its field. */
static void deep_and_huge(void)
{
	size_t depth = 3000, big = 8 << 20, len = strlen(SUM "\"x\": ") + 2 * depth + 2;
	char *t = malloc(len + big + 64), msg[4096];
	struct compare_n_doc d;
	int ret;

	if (!t)
		return;
	len = (size_t)sprintf(t, SUM "\"x\": ");
	memset(t + len, '[', depth);
	memset(t + len + depth, ']', depth);
	strcpy(t + len + 2 * depth, "}");
	refused("3000 deep", t, strlen(t), "maximum parsing depth");
	len = (size_t)sprintf(t, SUM "\"fingerprint\": {\"host\": \"");
	memset(t + len, 'h', big);
	strcpy(t + len + big, "\"}}");
	ret = read_text(t, strlen(t), &d, msg, sizeof(msg));
	CHECK(ret == 0 && strlen(d.host) == sizeof(d.host) - 1, "an 8 MiB host reads, cut to %zu (%d, %zu)",
	      sizeof(d.host) - 1, ret, strlen(d.host));
	report_free_summary(&d);
	free(t);
}

/* A summary cut anywhere is refused, never read in part. */
static void truncated(const char *src)
{
	char path[1024], *t, msg[4096];
	struct compare_n_doc d;
	size_t len, bad = 0, n = 0;

	snprintf(path, sizeof(path), "%s/tests/data/summary-escapes.summary.json", src);
	t = slurp(path);
	len = t ? strlen(t) : 0;
	while (len && (t[len - 1] == '\n' || t[len - 1] == '}'))
		len--;	/* the last cut that can be valid JSON is the whole */
	for (size_t cut = 0; cut < len; cut += cut < 64 || len - cut < 64 ? 1 : 97, n++)
		bad += read_text(t, cut, &d, msg, sizeof(msg)) != -EINVAL || !strstr(msg, "not valid JSON");
	CHECK(t && n > 400 && !bad, "%zu of %zu cuts of a summary read, or refused without saying why", bad, n);
	free(t);
}

/* Values of other kinds read as the tree read them: 0, "", empty. */
static void wrong_types(void)
{
	static const char text[] = SUM "\"results\": 5, \"card\": [1], \"fingerprint\": \"x\", "
		"\"hierarchy\": [], \"splitlock\": 3, \"c2c\": {\"matrix\": 7, \"pairs\": {\"a\": 1}}, "
		"\"partial\": \"yes\", \"calibration\": {\"core_hz\": \"fast\", \"trustworthy\": 1}, "
		"\"tool\": {\"version\": 3}, \"x\": [1.5e300, -0.0, \"\\ud83d\\ude00\"]}";
	struct compare_n_doc d;
	char msg[4096];
	int ret = read_text(text, sizeof(text) - 1, &d, msg, sizeof(msg));

	CHECK(ret == 0 && !d.nres && !d.card && !*d.host && !d.hier && d.split && d.c2c && !d.c2c->npairs &&
	      !d.partial && d.core_hz == 0 && d.trustworthy == 0 && !*d.version,
	      "other kinds read as nothing (%d, said '%s')", ret, msg);
	report_free_summary(&d);
}

/* Numbers convert as strtod converts them, on either path. */
static void numbers(void)
{
	static const char *const x[] = {
		"4.0841e9", "0.1", "1e-5", "123456789012345678.5", "-0.0", "2.2250738585072014e-308",
		"1.7976931348623157e308", "0.30000000000000004", "9007199254740993.0", "1e22", "1e23",
		"123.456e-7", "0.000001", "5e-324", "3.14159265358979323846264338327950288",
	};
	char text[256], msg[4096];
	struct compare_n_doc d;

	for (size_t i = 0; i < ARRAY_SIZE(x); i++) {
		int ret;

		snprintf(text, sizeof(text), SUM "\"calibration\": {\"core_hz\": %s}}", x[i]);
		ret = read_text(text, strlen(text), &d, msg, sizeof(msg));
		CHECK(ret == 0 && !memcmp(&d.core_hz, &(double){ strtod(x[i], NULL) }, sizeof(double)),
		      "%s reads as strtod reads it (%d: %.17g)", x[i], ret, d.core_hz);
		report_free_summary(&d);
	}
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
	if (regolden)
		return test_done("summary-read");
	malformed();
	deep_and_huge();
	truncated(src);
	wrong_types();
	numbers();
	return test_done("summary-read");
}
