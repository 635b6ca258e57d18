/* SPDX-License-Identifier: MIT */
/* fingerprint.c - what machine, kernel and build a report was measured on.
 * Every fact is read, never set: a report describes the machine as the user
 * left it (boost on, governor "powersave", mitigations on). */
#include "fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
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

static json_t *line_json(const char *root, const char *path)
{
	char buf[256];

	read_line(root, path, buf, sizeof(buf));
	return json_string(buf);
}

/* "always [madvise] never" -> "madvise" */
static json_t *bracketed_json(const char *root, const char *path)
{
	char buf[256], *a, *b;

	if (read_line(root, path, buf, sizeof(buf)) == 0 && (a = strchr(buf, '[')) &&
	    (b = strchr(a, ']'))) {
		*b = 0;
		return json_string(a + 1);
	}
	return json_string(buf);
}

/* The first processor's block of /proc/cpuinfo: vendor, model, stepping,
 * microcode, and whether the hypervisor flag is set. */
static json_t *cpu_json(const char *root, bool *hypervisor)
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
	bool seen[ARRAY_SIZE(keys)] = { false };
	json_t *o = json_object();
	FILE *f;

	*hypervisor = false;
	snprintf(full, sizeof(full), "%s/proc/cpuinfo", root);
	f = fopen(full, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':'), *v, *end;

			if (line[0] == '\n' && json_object_size(o))
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
					seen[i] = true;
					json_object_set_new(o, keys[i].out, json_string(v));
				}
		}
		fclose(f);
	}
	json_object_set_new(o, "source", json_string(f ? "/proc/cpuinfo" : FINGERPRINT_ABSENT));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!seen[i] && keys[i].always)
			json_object_set_new(o, keys[i].out, json_string(FINGERPRINT_ABSENT));
	return o;
}

/* Every file of /sys/devices/system/cpu/vulnerabilities, sorted by name
 * (alphasort: strcoll, which is strcmp in the C locale this program keeps). */
static json_t *mitigations_json(const char *root)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char full[512];
	struct dirent **ents;
	json_t *o;
	int n;

	snprintf(full, sizeof(full), "%s%s", root, dir);
	n = scandir(full, &ents, NULL, alphasort);
	if (n < 0)
		return json_string(errno == ENOENT ? FINGERPRINT_ABSENT : FINGERPRINT_UNREADABLE);
	o = json_object();
	for (int i = 0; i < n; i++) {
		char path[512];

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			json_object_set_new(o, ents[i]->d_name, line_json(root, path));
		}
		free(ents[i]);
	}
	free(ents);
	return o;
}

static json_t *cpufreq_json(const char *root, int cpu)
{
	static const char *const knob[] = { "driver", "governor" };
	char path[256], buf[64];
	json_t *o = json_object();
	const char *boost = buf;

	for (size_t i = 0; i < ARRAY_SIZE(knob); i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_%s", cpu, knob[i]);
		json_object_set_new(o, knob[i], line_json(root, path));
	}
	/* boost: the generic knob, else intel_pstate's inverted one */
	if (read_line(root, "/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)) == 0)
		boost = !strcmp(buf, "1") ? "on" : "off";
	else if (read_line(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf)) == 0)
		boost = !strcmp(buf, "1") ? "off" : "on";
	json_object_set_new(o, "boost", json_string(boost));
	return o;
}

static json_t *hypervisor_json(const char *root, bool flag)
{
	return json_pack("{s:b, s:o, s:o, s:o}", "cpuid_flag", flag,
			 "type", line_json(root, "/sys/hypervisor/type"),
			 "dmi_sys_vendor", line_json(root, "/sys/class/dmi/id/sys_vendor"),
			 "dmi_product", line_json(root, "/sys/class/dmi/id/product_name"));
}

static json_t *kernel_json(void)
{
	struct utsname u;

	if (uname(&u) < 0)
		return json_string(FINGERPRINT_UNREADABLE);
	return json_pack("{s:s, s:s, s:s, s:s}", "sysname", u.sysname, "release", u.release,
			 "version", u.version, "machine", u.machine);
}

static json_t *firmware_json(const char *root)
{
	return json_pack("{s:o, s:o, s:o}", "bios_vendor", line_json(root, "/sys/class/dmi/id/bios_vendor"),
			 "bios_version", line_json(root, "/sys/class/dmi/id/bios_version"),
			 "bios_date", line_json(root, "/sys/class/dmi/id/bios_date"));
}

/* " Key=value" of an `scontrol show node -o` line into o[as], unless unset. */
static void slurm_field(json_t *o, const char *line, const char *key, const char *as)
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
		json_object_set_new(o, as, json_string(v));
}

/* The node's partitions and features as Slurm has them now, when this
 * runs in a Slurm job: `scontrol show node -o $SLURMD_NODENAME`. */
static void slurm_labels(json_t *o)
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
		slurm_field(o, line, "Partitions", "partition");
		slurm_field(o, line, "ActiveFeatures", "features");
	}
	pclose(p);
}

/* The operator's labels: under Slurm the node's partition and features,
 * then ATOMCOST_LABELS="key=value,..." (an inventory group, a rack),
 * which wins over Slurm's. */
static json_t *labels_json(void)
{
	const char *env = getenv("ATOMCOST_LABELS");
	json_t *o = json_object();
	char buf[1024], *save = NULL, *tok;

	slurm_labels(o);
	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !eq[1]) {
			pr_err("ATOMCOST_LABELS: '%s' is not KEY=VALUE: not recorded (give e.g. ATOMCOST_LABELS=group=web,rack=r12)",
			       tok);
			continue;
		}
		*eq = 0;
		json_object_set_new(o, tok, json_string(eq + 1));
	}
	return o;
}

json_t *fingerprint_collect(const char *root, int cpu_os, const char *topo_summary)
{
	char host[256] = "";
	bool hv = false;
	json_t *cpu, *fp;

	if (!root)
		root = "";
	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), FINGERPRINT_UNREADABLE);
	cpu = cpu_json(root, &hv);
	fp = json_pack("{s:s, s:o, s:n, s:n, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s,"
		       " s:{s:s, s:s, s:s}, s:s, s:s, s:s, s:o, s:o}",
		       "host", host,
		       "cpu", cpu,
		       "core_hz", "tsc_hz",
		       "hypervisor", hypervisor_json(root, hv),
		       "kernel", kernel_json(),
		       "mitigations", mitigations_json(root),
		       "cpufreq", cpufreq_json(root, cpu_os >= 0 ? cpu_os : 0),
		       "smt", line_json(root, "/sys/devices/system/cpu/smt/control"),
		       "thp", bracketed_json(root, "/sys/kernel/mm/transparent_hugepage/enabled"),
		       "perf_event_paranoid", line_json(root, "/proc/sys/kernel/perf_event_paranoid"),
		       "topology", topo_summary ? topo_summary : "",
		       "compiler", "cc", ATOMCOST_CC, "flags", ATOMCOST_CFLAGS,
		       "buildtype", ATOMCOST_BUILDTYPE,
		       "arch", fingerprint_arch.name, "atomics", fingerprint_arch.atomics,
		       "tool_version", ATOMCOST_VERSION,
		       "firmware", firmware_json(root), "labels", labels_json());
	return fp;
}

void fingerprint_set_clock(json_t *fp, const struct calibration *cal)
{
	if (!fp)
		return;
	json_object_set_new(fp, "core_hz", json_real(cal->core_hz));
	json_object_set_new(fp, "tsc_hz", json_real(cal->timer_hz));
	if (cal->core.how[0])	/* which core, on what evidence (core.h) */
		json_object_set_new(fp, "core", core_to_json(&cal->core));
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
