/* SPDX-License-Identifier: MIT */
/* fingerprint.c - what machine, kernel and build a report was measured on.
 *
 * Every fact is read, never set: a report describes the machine as the user
 * left it (boost on, governor "powersave", mitigations on) and a compare
 * shows where two machines differ. Paths go through root so tests can feed
 * a fake /proc and /sys tree. */
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

#define ABSENT "absent"
#define UNREADABLE "unreadable"

struct fingerprint_arch fingerprint_arch = { "none", "none" };

/* First line of root/path without its newline into buf; "absent" or
 * "unreadable" when it cannot be had. Returns 0 when read. */
static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[512];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f) {
		snprintf(buf, len, "%s", errno == ENOENT || errno == ENOTDIR ? ABSENT : UNREADABLE);
		return -1;
	}
	if (!fgets(buf, (int)len, f)) {
		/* sysfs files like /sys/hypervisor/type can be empty */
		buf[0] = 0;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = 0;
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
			char *colon = strchr(line, ':'), *k, *v, *end;

			if (line[0] == '\n' && json_object_size(o))
				break;	/* end of the first processor */
			if (!colon)
				continue;
			*colon = 0;
			k = line;
			end = colon;
			while (end > k && (end[-1] == ' ' || end[-1] == '\t'))
				*--end = 0;
			v = colon + 1 + strspn(colon + 1, " \t");
			v[strcspn(v, "\n")] = 0;
			if (!strcmp(k, "flags") || !strcmp(k, "Features")) {
				char *save = NULL, *tok;

				for (tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
					if (!strcmp(tok, "hypervisor"))
						*hypervisor = true;
				continue;
			}
			for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
				if (!strcmp(k, keys[i].in) && !seen[i]) {
					seen[i] = true;
					json_object_set_new(o, keys[i].out, json_string(v));
				}
		}
		fclose(f);
	}
	json_object_set_new(o, "source", json_string(f ? "/proc/cpuinfo" : ABSENT));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!seen[i] && keys[i].always)
			json_object_set_new(o, keys[i].out, json_string(ABSENT));
	return o;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every file of /sys/devices/system/cpu/vulnerabilities, sorted by name. */
static json_t *mitigations_json(const char *root)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char full[512];
	struct dirent **ents;
	json_t *o;
	int n;

	snprintf(full, sizeof(full), "%s%s", root, dir);
	n = scandir(full, &ents, NULL, name_cmp);
	if (n < 0)
		return json_string(errno == ENOENT ? ABSENT : UNREADABLE);
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
	char path[256], buf[64];
	json_t *o = json_object();

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
	json_object_set_new(o, "driver", line_json(root, path));
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	json_object_set_new(o, "governor", line_json(root, path));
	/* boost: the generic knob, else intel_pstate's inverted one */
	if (read_line(root, "/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)) == 0) {
		json_object_set_new(o, "boost", json_string(!strcmp(buf, "1") ? "on" : "off"));
	} else if (read_line(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", buf,
			     sizeof(buf)) == 0) {
		json_object_set_new(o, "boost", json_string(!strcmp(buf, "1") ? "off" : "on"));
	} else {
		json_object_set_new(o, "boost", json_string(buf));
	}
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
		return json_string(UNREADABLE);
	return json_pack("{s:s, s:s, s:s, s:s}", "sysname", u.sysname, "release", u.release,
			 "version", u.version, "machine", u.machine);
}

json_t *fingerprint_collect(const char *root, int cpu_os, const char *topo_summary)
{
	char host[256] = "";
	bool hv = false;
	json_t *cpu, *fp;

	if (!root)
		root = "";
	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), UNREADABLE);
	cpu = cpu_json(root, &hv);
	fp = json_pack("{s:s, s:o, s:n, s:n, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s,"
		       " s:{s:s, s:s, s:s}, s:s, s:s, s:s}",
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
		       "tool_version", ATOMCOST_VERSION);
	return fp;
}

void fingerprint_set_clock(json_t *fp, const struct calibration *cal)
{
	if (!fp)
		return;
	json_object_set_new(fp, "core_hz", json_real(cal->core_hz));
	json_object_set_new(fp, "tsc_hz", json_real(cal->timer_hz));
}

json_t *fingerprint_of_meta(const json_t *meta)
{
	json_t *fp = json_object_get(meta, "fingerprint");

	return json_is_object(fp) ? fp : NULL;
}

static const char *str_at(const json_t *fp, const char *a, const char *b)
{
	const json_t *o = json_object_get(fp, a);
	const char *s;

	if (b)
		o = json_object_get(o, b);
	s = json_string_value(o);
	return s ? s : "?";
}

void fingerprint_oneline(const json_t *fp, char *buf, size_t len)
{
	const json_t *hvo = json_object_get(fp, "hypervisor");
	const char *hv = str_at(fp, "hypervisor", "dmi_sys_vendor");

	if (!fp) {
		snprintf(buf, len, "no fingerprint");
		return;
	}
	if (!strcmp(hv, ABSENT) || !strcmp(hv, UNREADABLE) || !strcmp(hv, "?") || !hv[0])
		hv = str_at(fp, "hypervisor", "type");
	if (!strcmp(hv, ABSENT) || !strcmp(hv, UNREADABLE) || !strcmp(hv, "?") || !hv[0])
		hv = "virtual machine";
	if (!json_is_true(json_object_get(hvo, "cpuid_flag")))
		hv = "no hypervisor flag";
	snprintf(buf, len, "%s (family %s model %s stepping %s), %s, %s %s, %s %s",
		 str_at(fp, "cpu", "model_name"), str_at(fp, "cpu", "family"),
		 str_at(fp, "cpu", "model"), str_at(fp, "cpu", "stepping"), hv,
		 str_at(fp, "kernel", "sysname"), str_at(fp, "kernel", "release"),
		 str_at(fp, "compiler", "cc"), str_at(fp, "compiler", "flags"));
}

/* Facts that say nothing about the machine or the build's code. */
static bool skipped(const char *key)
{
	static const char *const skip[] = { "host", "tool_version", "kernel.version" };

	for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
		if (!strcmp(key, skip[i]))
			return true;
	return false;
}

static void scalar_text(const json_t *v, char *buf, size_t len)
{
	if (!v)
		snprintf(buf, len, "(missing)");
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.4g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else if (json_is_null(v))
		snprintf(buf, len, "null");
	else
		snprintf(buf, len, "(%s)", json_is_object(v) ? "object" : "array");
}

static bool freq_key(const char *key)
{
	const char *dot = strrchr(key, '.');

	dot = dot ? dot + 1 : key;
	return !strcmp(dot, "core_hz") || !strcmp(dot, "tsc_hz");
}

static size_t diff_rec(const char *prefix, const json_t *a, const json_t *b,
		       fingerprint_diff_fn fn, void *arg)
{
	const char *k;
	json_t *v;
	size_t n = 0;
	char key[256], sa[256], sb[256];

	if (json_is_object(a) && json_is_object(b)) {
		json_object_foreach((json_t *)a, k, v) {
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", k);
			n += diff_rec(key, v, json_object_get(b, k), fn, arg);
		}
		json_object_foreach((json_t *)b, k, v) {
			if (json_object_get(a, k))
				continue;
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", k);
			n += diff_rec(key, NULL, v, fn, arg);
		}
		return n;
	}
	if (skipped(prefix))
		return 0;
	if (freq_key(prefix) && json_is_number(a) && json_is_number(b)) {
		double x = json_number_value(a), y = json_number_value(b);

		/* the core clock is itself measured, and boost moves it: on the
		 * Zen 5 guest 3.88-4.53 GHz between runs of one machine (15%),
		 * so only a larger move says another machine or setting */
		if (fabs(x - y) <= 0.18 * fmax(fabs(x), fabs(y)))
			return 0;
	} else if (a && b && json_equal((json_t *)a, (json_t *)b)) {
		return 0;
	}
	scalar_text(a, sa, sizeof(sa));
	scalar_text(b, sb, sizeof(sb));
	if (fn)
		fn(prefix, sa, sb, arg);
	return 1;
}

size_t fingerprint_diff(const json_t *a, const json_t *b, fingerprint_diff_fn fn, void *arg)
{
	return diff_rec("", a, b, fn, arg);
}
