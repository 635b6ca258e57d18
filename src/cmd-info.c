/* cmd-info.c - the commands that describe rather than measure probes:
 * topo, calibrate, list. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd.h"
#include "common.h"
#include "pattern.h"
#include "probes.h"
#include "topo.h"

static int print_json(json_t *j)
{
	if (!j)
		return EXIT_RUNTIME;
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
	return EXIT_OK;
}

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "synthetic", required_argument, NULL, 's' },
		{ "xml", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *syn = NULL, *xml = NULL;
	bool json = false;
	struct topo *t;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			syn = optarg;
			break;
		case 'x':
			xml = optarg;
			break;
		case 'h':
			printf("usage: atomcost topo [--json] [--synthetic 'pack:2 numa:2 l3:2 core:4 pu:2' | --xml FILE]\n"
			       "A synthetic or XML topology is described and planned on, never bound to.\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("topo: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (syn && xml) {
		pr_err("topo: --synthetic and --xml exclude each other: give one");
		return EXIT_USAGE;
	}
	ret = topo_open(&t, syn, xml);
	if (ret < 0)
		return exit_code_for(ret);
	if (json)
		ret = print_json(topo_to_json(t));
	else
		topo_print(t, stdout);
	topo_close(t);
	return ret < 0 ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *cpu_arg = NULL;
	struct calibration cal;
	bool json = false;
	struct topo *t;
	int c, ret, cpu;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			cpu_arg = optarg;
			break;
		case 'h':
			printf("usage: atomcost calibrate [--cpu N] [--json]\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("calibrate: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	ret = topo_open(&t, NULL, NULL);
	if (ret < 0)
		return exit_code_for(ret);
	cpu = topo_allowed_os(t, 0);
	if (cpu_arg) {
		ret = topo_parse_cpulist(t, "--cpu", cpu_arg, &cpu, 1);
		if (ret != 1) {
			if (ret >= 0)
				pr_err("--cpu: give one CPU, not '%s'", cpu_arg);
			topo_close(t);
			return EXIT_USAGE;
		}
	}
	ret = topo_bind_thread(t, cpu);
	if (!ret)
		ret = clock_calibrate(&cal, cpu);
	topo_close(t);
	if (ret < 0)
		return exit_code_for(ret);
	if (json)
		return print_json(clock_to_json(&cal));
	clock_print(&cal, stdout);
	return EXIT_OK;
}

static void list_probes(bool json)
{
	json_t *arr = json ? json_array() : NULL;

	if (!json)
		printf("%-20s %-20s %-9s %-10s %-9s %-44s %s\n", "probe", "twin", "family",
		       "atomicity", "forms", "instruction(s)", "kernel primitive");
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		char forms[32];

		snprintf(forms, sizeof(forms), "%s%s%s", p->run[MODE_LATENCY] ? "lat" : "",
			 p->run[MODE_LATENCY] && p->run[MODE_THROUGHPUT] ? "," : "",
			 p->run[MODE_THROUGHPUT] ? "tput" : "");
		if (p->unsupported)
			snprintf(forms, sizeof(forms), "n/a");
		if (json) {
			json_array_append_new(arr, json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:s?}",
				"probe", p->name, "twin", p->twin, "family", p->family,
				"atomicity", probe_atomicity_name(p->atomicity), "insn", p->insn,
				"kernel", p->kernel, "description", p->desc,
				"latency", p->run[MODE_LATENCY] != NULL,
				"throughput", p->run[MODE_THROUGHPUT] != NULL, "default", p->in_default,
				"unsupported", p->unsupported));
			continue;
		}
		printf("%-20s %-20s %-9s %-10s %-9s %-44s %s%s%s\n", p->name, p->twin ? p->twin : "-",
		       p->family, probe_atomicity_name(p->atomicity), forms, p->insn, p->kernel,
		       p->unsupported ? "  [not here: " : "", p->unsupported ? p->unsupported : "");
	}
	if (json)
		print_json(json_pack("{s:s, s:s, s:o}", "arch", ARCH_NAME, "atomics", ARCH_ATOMICS_IMPL,
				     "probes", arr));
	else
		printf("\narchitecture %s, primitives as %s. 'atomcost run --help' to measure them.\n",
		       ARCH_NAME, ARCH_ATOMICS_IMPL);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "patterns", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false, patterns = false;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			patterns = true;
			break;
		case 'h':
			printf("usage: atomcost list [--json] [--patterns]\n"
			       "  --patterns   the access patterns of 'run --pattern', with their footprints here\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pr_err("list: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (patterns) {
		struct topo *t = NULL;

		/* footprints come from this machine's caches; without hwloc, '-' */
		if (topo_open(&t, NULL, NULL) < 0)
			t = NULL;
		pattern_list(t, json);
		if (t)
			topo_close(t);
		return EXIT_OK;
	}
	list_probes(json);
	return EXIT_OK;
}
