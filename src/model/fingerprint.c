/* SPDX-License-Identifier: MIT */
/* fingerprint.c - what machine, kernel and build a report was measured on.
 * Every fact is read, never set: a report describes the machine as the user
 * left it (boost on, governor "powersave", mitigations on). */
#include "fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common.h"
#include "build-config.h"

struct fingerprint_arch fingerprint_arch = { "none", "none" };

/* First line of root/path without its newline into buf; "absent" or
 * "unreadable" when it cannot be had. Returns 0 when read. */
static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f) {
		snprintf(buf, len, "%s", errno == ENOENT || errno == ENOTDIR ? FINGERPRINT_ABSENT :
			 FINGERPRINT_UNREADABLE);
		return -1;
	}
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;	/* sysfs files like /sys/hypervisor/type can be empty */
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The facts being gathered, each object before its members (fingerprint.h);
 * err: -ENOMEM when one could not be kept. */
struct gather {
	struct fingerprint *fp;
	size_t cap;
	int err;
};

/* Add fact name under the object at index up (SIZE_MAX: the whole
 * itself). Returns its index. A key given twice is two facts: the later
 * wins, where the first stands, as in the JSON (fingerprint_collect). */
static size_t add(struct gather *g, size_t up, const char *name, enum fingerprint_kind kind, const char *text)
{
	struct fingerprint *fp = g->fp;
	const char *pk = up == SIZE_MAX ? "" : fp->facts[up].key;
	struct fingerprint_fact f = { .text = text ? strdup(text) : NULL, .kind = kind,
				      .depth = up == SIZE_MAX ? 0 : fp->facts[up].depth + 1 };
	void *more = fp->n < g->cap ? fp->facts : realloc(fp->facts, (g->cap + 64) * sizeof(f));

	if (more && fp->n == g->cap) {
		fp->facts = more;
		g->cap += 64;
	}
	if (!more || (text && !f.text) || asprintf(&f.key, "%s%s%s", pk, *pk ? "." : "", name) < 0) {
		free(f.text);
		g->err = -ENOMEM;
		return up;
	}
	fp->facts[fp->n] = f;
	return fp->n++;
}

static void line_fact(struct gather *g, size_t up, const char *name, const char *root, const char *path)
{
	char buf[256];

	read_line(root, path, buf, sizeof(buf));
	add(g, up, name, FP_STRING, buf);
}

/* "always [madvise] never" -> "madvise" */
static void bracketed_fact(struct gather *g, size_t up, const char *name, const char *root, const char *path)
{
	char buf[256], *a = NULL, *b = NULL;

	if (read_line(root, path, buf, sizeof(buf)) == 0 && (a = strchr(buf, '[')) && (b = strchr(a, ']')))
		*b = 0;
	add(g, up, name, FP_STRING, b ? a + 1 : buf);
}

/* The first processor's block of /proc/cpuinfo: vendor, model, stepping,
 * microcode, and whether the hypervisor flag is set. */
static void cpu_facts(struct gather *g, size_t up, const char *root, bool *hypervisor)
{
	char full[512], line[4096];
	/* always: the same keys every time, so reports line up */
	static const struct { const char *in, *out; bool always; } keys[] = {
		{ "vendor_id", "vendor", true }, { "CPU implementer", "implementer", false },
		{ "model name", "model_name", true }, { "cpu family", "family", true },
		{ "model", "model", true }, { "CPU part", "part", false },
		{ "stepping", "stepping", true }, { "CPU variant", "variant", false },
		{ "CPU revision", "revision", false }, { "microcode", "microcode", true },
	};
	bool seen[ARRAY_SIZE(keys)] = { false }, any = false;
	size_t o = add(g, up, "cpu", FP_OBJECT, NULL);
	FILE *f;

	*hypervisor = false;
	snprintf(full, sizeof(full), "%s/proc/cpuinfo", root);
	f = fopen(full, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':'), *v, *end;

			if (line[0] == '\n' && any)
				break;	/* end of the first processor */
			if (!colon)
				continue;
			*colon = 0;
			for (end = colon; end > line && (end[-1] == ' ' || end[-1] == '\t');)
				*--end = 0;
			v = colon + 1 + strspn(colon + 1, " \t");
			v[strcspn(v, "\n")] = 0;
			if (!strcmp(line, "flags") || !strcmp(line, "Features")) {
				char *save = NULL, *tok;

				for (tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
					*hypervisor |= !strcmp(tok, "hypervisor");
				continue;
			}
			for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
				if (!strcmp(line, keys[i].in) && !seen[i]) {
					seen[i] = any = true;
					add(g, o, keys[i].out, FP_STRING, v);
				}
		}
		fclose(f);
	}
	add(g, o, "source", FP_STRING, f ? "/proc/cpuinfo" : FINGERPRINT_ABSENT);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!seen[i] && keys[i].always)
			add(g, o, keys[i].out, FP_STRING, FINGERPRINT_ABSENT);
}

/* Every file of /sys/devices/system/cpu/vulnerabilities, sorted by name
 * (alphasort: strcoll, which is strcmp in the C locale this program keeps). */
static void mitigations_facts(struct gather *g, size_t up, const char *root)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char full[512];
	struct dirent **ents;
	size_t o;
	int n;

	snprintf(full, sizeof(full), "%s%s", root, dir);
	n = scandir(full, &ents, NULL, alphasort);
	o = add(g, up, "mitigations", n < 0 ? FP_STRING : FP_OBJECT,
		n >= 0 ? NULL : errno == ENOENT ? FINGERPRINT_ABSENT : FINGERPRINT_UNREADABLE);
	for (int i = 0; i < n; i++) {
		char path[512];

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			line_fact(g, o, ents[i]->d_name, root, path);
		}
		free(ents[i]);
	}
	free(n >= 0 ? ents : NULL);
}

static void cpufreq_facts(struct gather *g, size_t up, const char *root, int cpu)
{
	static const char *const knob[] = { "driver", "governor" };
	char path[256], buf[64];
	size_t o = add(g, up, "cpufreq", FP_OBJECT, NULL);
	const char *boost = buf;

	for (size_t i = 0; i < ARRAY_SIZE(knob); i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_%s", cpu, knob[i]);
		line_fact(g, o, knob[i], root, path);
	}
	/* boost: the generic knob, else intel_pstate's inverted one */
	if (read_line(root, "/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)) == 0)
		boost = !strcmp(buf, "1") ? "on" : "off";
	else if (read_line(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf)) == 0)
		boost = !strcmp(buf, "1") ? "off" : "on";
	add(g, o, "boost", FP_STRING, boost);
}

static void kernel_facts(struct gather *g, size_t up)
{
	struct utsname u;
	bool bad = uname(&u) < 0;
	size_t o = add(g, up, "kernel", bad ? FP_STRING : FP_OBJECT, bad ? FINGERPRINT_UNREADABLE : NULL);
	const char *const v[][2] = { { "sysname", u.sysname }, { "release", u.release },
				     { "version", u.version }, { "machine", u.machine } };

	for (size_t i = 0; !bad && i < ARRAY_SIZE(v); i++)
		add(g, o, v[i][0], FP_STRING, v[i][1]);
}

/* " Key=value" of an `scontrol show node -o` line as label as, unless unset. */
static void slurm_field(struct gather *g, size_t o, const char *line, const char *key, const char *as)
{
	char pat[64], v[256];
	const char *at;

	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(line, pat);
	if (!at)
		return;
	at += strlen(pat);
	snprintf(v, sizeof(v), "%.*s", (int)strcspn(at, " \n"), at);
	if (*v && strcmp(v, "(null)"))
		add(g, o, as, FP_STRING, v);
}

/* The node's partitions and features as Slurm has them now, when this
 * runs in a Slurm job: `scontrol show node -o $SLURMD_NODENAME`. */
static void slurm_labels(struct gather *g, size_t o)
{
	const char *node = getenv("SLURMD_NODENAME");
	char cmd[192], line[4096] = " ";
	FILE *p;

	if (!getenv("SLURM_JOB_ID") || !node || !*node || node[strspn(node, "abcdefghijklmnopqrstuvwxyz"
							 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")])
		return;
	snprintf(cmd, sizeof(cmd), "scontrol show node -o '%.64s' 2>/dev/null", node);
	p = popen(cmd, "re");
	if (!p)
		return;
	if (fgets(line + 1, sizeof(line) - 1, p)) {
		slurm_field(g, o, line, "Partitions", "partition");
		slurm_field(g, o, line, "ActiveFeatures", "features");
	}
	pclose(p);
}

/* The operator's labels: under Slurm the node's partition and features,
 * then ATOMCOST_LABELS="key=value,..." (an inventory group, a rack),
 * which wins over Slurm's. */
static void labels_facts(struct gather *g, size_t up)
{
	const char *env = getenv("ATOMCOST_LABELS");
	size_t o = add(g, up, "labels", FP_OBJECT, NULL);
	char buf[1024], *save = NULL, *tok;

	slurm_labels(g, o);
	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !eq[1]) {
			pr_err("ATOMCOST_LABELS: '%s' is not KEY=VALUE: not recorded (give e.g. ATOMCOST_LABELS=group=web,rack=r12)",
			       tok);
			continue;
		}
		*eq = 0;
		add(g, o, tok, FP_STRING, eq + 1);
	}
}

int fingerprint_gather(struct fingerprint *fp, const char *root, int cpu_os, const char *topo_summary)
{
	static const char *const hv_files[][2] = {
		{ "type", "/sys/hypervisor/type" }, { "dmi_sys_vendor", "/sys/class/dmi/id/sys_vendor" },
		{ "dmi_product", "/sys/class/dmi/id/product_name" },
	};
	static const char *const fw_files[][2] = {
		{ "bios_vendor", "/sys/class/dmi/id/bios_vendor" }, { "bios_version", "/sys/class/dmi/id/bios_version" },
		{ "bios_date", "/sys/class/dmi/id/bios_date" },
	};
	struct gather g = { .fp = fp };
	char host[256] = "";
	bool hv = false;
	size_t w, o;

	fingerprint_free(fp);
	if (!root)
		root = "";
	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), FINGERPRINT_UNREADABLE);
	w = add(&g, SIZE_MAX, "", FP_OBJECT, NULL);
	add(&g, w, "host", FP_STRING, host);
	cpu_facts(&g, w, root, &hv);
	add(&g, w, "core_hz", FP_NULL, NULL);
	add(&g, w, "tsc_hz", FP_NULL, NULL);
	o = add(&g, w, "hypervisor", FP_OBJECT, NULL);
	add(&g, o, "cpuid_flag", hv ? FP_TRUE : FP_FALSE, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(hv_files); i++)
		line_fact(&g, o, hv_files[i][0], root, hv_files[i][1]);
	kernel_facts(&g, w);
	mitigations_facts(&g, w, root);
	cpufreq_facts(&g, w, root, cpu_os >= 0 ? cpu_os : 0);
	line_fact(&g, w, "smt", root, "/sys/devices/system/cpu/smt/control");
	bracketed_fact(&g, w, "thp", root, "/sys/kernel/mm/transparent_hugepage/enabled");
	line_fact(&g, w, "perf_event_paranoid", root, "/proc/sys/kernel/perf_event_paranoid");
	add(&g, w, "topology", FP_STRING, topo_summary ? topo_summary : "");
	o = add(&g, w, "compiler", FP_OBJECT, NULL);
	add(&g, o, "cc", FP_STRING, ATOMCOST_CC);
	add(&g, o, "flags", FP_STRING, ATOMCOST_CFLAGS);
	add(&g, o, "buildtype", FP_STRING, ATOMCOST_BUILDTYPE);
	add(&g, w, "arch", FP_STRING, fingerprint_arch.name);
	add(&g, w, "atomics", FP_STRING, fingerprint_arch.atomics);
	add(&g, w, "tool_version", FP_STRING, ATOMCOST_VERSION);
	o = add(&g, w, "firmware", FP_OBJECT, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(fw_files); i++)
		line_fact(&g, o, fw_files[i][0], root, fw_files[i][1]);
	labels_facts(&g, w);
	if (g.err)
		fingerprint_free(fp);
	return g.err;
}

/* ---- the facts of a report's fingerprint (typed by report/json.c) */

void fingerprint_free(struct fingerprint *fp)
{
	for (size_t i = 0; i < fp->n; i++) {
		free(fp->facts[i].key);
		free(fp->facts[i].text);
	}
	free(fp->facts);
	*fp = (struct fingerprint){ 0 };
}

const struct fingerprint_fact *fingerprint_find(const struct fingerprint *fp, const char *key)
{
	for (size_t i = 0; fp && i < fp->n; i++)
		if (!strcmp(fp->facts[i].key, key))
			return &fp->facts[i];
	return NULL;
}

const char *fingerprint_str(const struct fingerprint *fp, const char *key, const char *dflt)
{
	const struct fingerprint_fact *f = fingerprint_find(fp, key);

	return f && f->kind == FP_STRING ? f->text : dflt;
}

/* A fact a line can show: not absent, unreadable, missing or empty. */
static bool fact(const char *s)
{
	return s[0] && strcmp(s, FINGERPRINT_ABSENT) && strcmp(s, FINGERPRINT_UNREADABLE) &&
	       strcmp(s, "?");
}

void fingerprint_oneline(const struct fingerprint *fp, char *buf, size_t len)
{
	const struct fingerprint_fact *flag = fingerprint_find(fp, "hypervisor.cpuid_flag");
	const char *hv = fingerprint_str(fp, "hypervisor.dmi_sys_vendor", "?");

	if (!fp || !fp->n) {
		snprintf(buf, len, "no fingerprint");
		return;
	}
	if (!fact(hv))
		hv = fingerprint_str(fp, "hypervisor.type", "?");
	if (!fact(hv))
		hv = "virtual machine";
	if (!flag || flag->kind != FP_TRUE)
		hv = "no hypervisor flag";
	snprintf(buf, len, "%s (family %s model %s stepping %s), %s, %s %s, %s %s",
		 fingerprint_str(fp, "cpu.model_name", "?"), fingerprint_str(fp, "cpu.family", "?"),
		 fingerprint_str(fp, "cpu.model", "?"), fingerprint_str(fp, "cpu.stepping", "?"), hv,
		 fingerprint_str(fp, "kernel.sysname", "?"), fingerprint_str(fp, "kernel.release", "?"),
		 fingerprint_str(fp, "compiler.cc", "?"), fingerprint_str(fp, "compiler.flags", "?"));
}

/* Facts that say nothing about the machine or the build's code. */
static bool not_compared(const char *key)
{
	static const char *const skip[] = { "host", "tool_version", "kernel.version" };

	for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
		if (!strcmp(key, skip[i]))
			return true;
	return false;
}

static bool freq_key(const char *key)
{
	const char *dot = strrchr(key, '.');

	dot = dot ? dot + 1 : key;
	return !strcmp(dot, "core_hz") || !strcmp(dot, "tsc_hz");
}

static bool number(const struct fingerprint_fact *f)
{
	return f && (f->kind == FP_INTEGER || f->kind == FP_REAL);
}

/* As JSON compares them: the same kind and value (objects never get here). */
static bool same(const struct fingerprint_fact *a, const struct fingerprint_fact *b)
{
	if (a->kind != b->kind)
		return false;
	return a->kind == FP_REAL ? a->num == b->num : !a->text || !strcmp(a->text, b->text);
}

static void fact_text(const struct fingerprint_fact *f, char *buf, size_t len)
{
	static const char *const word[] = { [FP_OBJECT] = "(object)", [FP_ARRAY] = "(array)", [FP_TRUE] = "true",
					    [FP_FALSE] = "false", [FP_NULL] = "null" };

	if (!f)
		snprintf(buf, len, "(missing)");
	else if (f->kind == FP_STRING || f->kind == FP_INTEGER)
		snprintf(buf, len, "%s", f->text);
	else if (f->kind == FP_REAL)
		snprintf(buf, len, "%.4g", f->num);
	else
		snprintf(buf, len, "%s", word[f->kind]);
}

/* The member of object o at key; end: the end of o's fingerprint. */
static const struct fingerprint_fact *member(const struct fingerprint_fact *o, const struct fingerprint_fact *end,
					     const char *key)
{
	for (const struct fingerprint_fact *m = o + 1; m < end && m->depth > o->depth; m++)
		if (m->depth == o->depth + 1 && !strcmp(m->key, key))
			return m;
	return NULL;
}

/* Two objects member by member, a's order and then b's own members; else
 * the two facts at key (either NULL: missing). */
static size_t diff_rec(const char *key, const struct fingerprint_fact *a, const struct fingerprint_fact *ea,
		       const struct fingerprint_fact *b, const struct fingerprint_fact *eb,
		       fingerprint_diff_fn fn, void *arg)
{
	const struct fingerprint_fact *m;
	char sa[256], sb[256];
	size_t n = 0;

	if (a && b && a->kind == FP_OBJECT && b->kind == FP_OBJECT) {
		for (m = a + 1; m < ea && m->depth > a->depth; m++)
			if (m->depth == a->depth + 1)
				n += diff_rec(m->key, m, ea, member(b, eb, m->key), eb, fn, arg);
		for (m = b + 1; m < eb && m->depth > b->depth; m++)
			if (m->depth == b->depth + 1 && !member(a, ea, m->key))
				n += diff_rec(m->key, NULL, ea, m, eb, fn, arg);
		return n;
	}
	if (not_compared(key))
		return 0;
	if (freq_key(key) && number(a) && number(b)) {
		/* the core clock is itself measured, and boost moves it: on the
		 * Zen 5 guest 3.88-4.53 GHz between runs of one machine (15%),
		 * so only a larger move says another machine or setting */
		if (fabs(a->num - b->num) <= 0.18 * fmax(fabs(a->num), fabs(b->num)))
			return 0;
	} else if (a && b && same(a, b)) {
		return 0;
	}
	fact_text(a, sa, sizeof(sa));
	fact_text(b, sb, sizeof(sb));
	if (fn)
		fn(key, sa, sb, arg);
	return 1;
}

size_t fingerprint_diff(const struct fingerprint *a, const struct fingerprint *b, fingerprint_diff_fn fn,
			void *arg)
{
	const struct fingerprint_fact *ra = a && a->n ? a->facts : NULL, *rb = b && b->n ? b->facts : NULL;

	return diff_rec("", ra, ra ? ra + a->n : NULL, rb, rb ? rb + b->n : NULL, fn, arg);
}
