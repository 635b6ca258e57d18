/* SPDX-License-Identifier: MIT */
/* fingerprint.c - what machine, kernel and build a report was measured on.
 * Every fact is read, never set: a report describes the machine as the user
 * left it (boost on, governor "powersave", mitigations on). */
#include "fingerprint.h"

#include <dirent.h>
#include <errno.h>
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
