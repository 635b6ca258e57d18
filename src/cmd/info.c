/* SPDX-License-Identifier: MIT */
/* cmd/info.c - the commands that describe rather than measure probes:
 * topo, calibrate, list. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "pattern.h"
#include "probes.h"
#include "topo.h"

/* topo and calibrate: one struct, and one table of which each takes a slice
 * (calibrate the first two options, topo the last three). */
struct info_args {
	const char *cpu, *syn, *xml;
	bool json;
};

#define A(f) offsetof(struct info_args, f)
static const struct cmd_opt info_opt[] = {
	{ .name = "cpu", .type = OPT_STR, .arg = "N", .off = A(cpu),
	  .help = "PU to calibrate on (OS index, in the allowed cpuset); default: first allowed" },
	{ .name = "json", .letter = 'j', .type = OPT_FLAG, .off = A(json), .help = "as JSON" },
	{ .name = "synthetic", .type = OPT_STR, .arg = "DESC", .off = A(syn),
	  .help = "describe an hwloc synthetic topology ('pack:2 numa:2 l3:2 core:4 pu:2')" },
	{ .name = "xml", .type = OPT_STR, .arg = "FILE", .off = A(xml),
	  .help = "describe an hwloc XML topology" },
};
#undef A

static const struct cmd_opts topo_cmd = {
	.usage = "usage: atomcost topo [--json] [--synthetic DESC | --xml FILE]\n",
	.opt = info_opt + 1, .n = 3,
	.tail = "A synthetic or XML topology is described and planned on, never bound to.\n",
};

static const struct cmd_opts calibrate_cmd = {
	.usage = "usage: atomcost calibrate [--cpu N] [--json]\n",
	.opt = info_opt, .n = 2,
};

int cmd_topo(int argc, char **argv)
{
	struct info_args a = { 0 };
	struct topo *t;
	int ret;

	if ((ret = opts_exit(opts_parse(&topo_cmd, argc, argv, &a))) >= 0)
		return ret;
	if (a.syn && a.xml) {
		pr_err("topo: --synthetic and --xml exclude each other: give one");
		return EXIT_USAGE;
	}
	ret = topo_open(&t, a.syn, a.xml);
	if (ret < 0)
		return exit_code_for(ret);
	ret = EXIT_OK;
	if (a.json)
		ret = opts_print_json(topo_to_json(t));
	else
		topo_print(t, stdout);
	topo_close(t);
	return ret;
}

int cmd_calibrate(int argc, char **argv)
{
	struct info_args a = { 0 };
	struct calibration cal;
	struct topo *t;
	int ret, cpu;

	if ((ret = opts_exit(opts_parse(&calibrate_cmd, argc, argv, &a))) >= 0)
		return ret;
	ret = topo_open(&t, NULL, NULL);
	if (ret < 0)
		return exit_code_for(ret);
	ret = topo_parse_one_cpu(t, a.cpu, &cpu) < 0 ? -EINVAL : topo_bind_thread(t, cpu);
	if (!ret)
		ret = clock_calibrate(&cal, cpu);
	topo_close(t);
	if (ret < 0)
		return exit_code_for(ret);
	if (a.json)
		return opts_print_json(clock_to_json(&cal));
	clock_print(&cal, stdout);
	return EXIT_OK;
}

/* The symbol table of this executable, to name each probe's timed loops
 * (the static kernel functions) in `list --json`, so the disassembly of
 * exactly the loop the table runs can be found and checked
 * (tests/test-disasm.sh). Empty when the binary is stripped. */
struct symtab {
	void *map;
	size_t len;
	const ElfW(Sym) *sym;
	size_t nsym;
	const char *str;
	size_t strsz;
	uintptr_t bias;	/* run-time address - link-time address */
};

/* t stays empty when there is no readable symbol table. */
static void symtab_open(struct symtab *t)
{
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	struct stat st;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	memset(t, 0, sizeof(*t));
	if (fd >= 0 && !fstat(fd, &st) && (size_t)st.st_size >= sizeof(*eh)) {
		t->len = (size_t)st.st_size;
		t->map = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	if (fd >= 0)
		close(fd);
	if (!t->map || t->map == MAP_FAILED) {
		t->map = NULL;
		return;
	}
	eh = t->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shoff > t->len || eh->e_shnum > (t->len - eh->e_shoff) / sizeof(*sh))
		return;
	sh = (const ElfW(Shdr) *)((const char *)t->map + eh->e_shoff);
	/* the load bias from the entry point, whose run-time address the
	 * kernel passes in the auxiliary vector */
	t->bias = (uintptr_t)getauxval(AT_ENTRY) - (uintptr_t)eh->e_entry;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *ss = &sh[sh[i].sh_link < eh->e_shnum ? sh[i].sh_link : 0];

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_offset > t->len ||
		    sh[i].sh_size > t->len - sh[i].sh_offset || ss->sh_offset > t->len ||
		    ss->sh_size > t->len - ss->sh_offset)
			continue;
		t->sym = (const ElfW(Sym) *)((const char *)t->map + sh[i].sh_offset);
		t->nsym = sh[i].sh_size / sizeof(ElfW(Sym));
		t->str = (const char *)t->map + ss->sh_offset;
		t->strsz = ss->sh_size;
		return;
	}
}

/* The name of the function at fn, as JSON: null when unknown. */
static json_t *symtab_name(const struct symtab *t, probe_kernel_fn fn)
{
	for (size_t i = 0; fn && i < t->nsym; i++)
		if (t->sym[i].st_name < t->strsz && ELF64_ST_TYPE(t->sym[i].st_info) == STT_FUNC &&
		    t->sym[i].st_value + t->bias == (uintptr_t)fn)
			return json_string(t->str + t->sym[i].st_name);
	return json_null();
}

static const char *const chain_names[] = {
	[CHAIN_NONE] = "none", [CHAIN_MEMORY] = "memory", [CHAIN_REGISTER] = "register",
};

/* {"latency": sym, "throughput": sym,
 *  "sweep": [{"words": w, "lines": n, "kernel": sym}]}: a footprint the op
 *  cannot form is left out */
static json_t *kernels_json(const struct symtab *t, const struct probe *p)
{
	json_t *k = json_object(), *sw;

	for (int m = 0; m < MODE__COUNT; m++)
		if (p->run[m])
			json_object_set_new(k, probe_mode_name((enum probe_mode)m),
					    symtab_name(t, p->run[m]));
	if (!p->tput_sweep)
		return k;
	sw = json_array();
	for (int i = 0; i < TPUT_NFOOT; i++)
		if (p->tput_sweep[i])
			json_array_append_new(sw, json_pack("{s:i, s:i, s:o}",
				"words", (int)tput_footprints[i].words, "lines", (int)tput_footprints[i].lines,
				"kernel", symtab_name(t, p->tput_sweep[i])));
	json_object_set_new(k, "sweep", sw);
	return k;
}

static int list_probes(bool json)
{
	json_t *arr = json ? json_array() : NULL;
	struct symtab st = { 0 };

	if (json)
		symtab_open(&st);	/* without one, the kernel names are null */
	else
		printf("%-20s %-20s %-9s %-10s %-12s %-8s %s\n", "probe", "twin", "family",
		       "atomicity", "forms", "chain", "instruction(s)");
	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		char forms[32];

		snprintf(forms, sizeof(forms), "%s%s%s", p->run[MODE_LATENCY] ? "lat" : "",
			 p->run[MODE_LATENCY] && p->run[MODE_THROUGHPUT] ? "," : "",
			 p->run[MODE_THROUGHPUT] ? (p->tput_sweep ? "tput-swept" : "tput") : "");
		if (p->unsupported)
			snprintf(forms, sizeof(forms), "n/a");
		if (json) {
			json_array_append_new(arr, json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:s?, s:s, s:b, s:s, s:b, s:b, s:b, s:s?, s:o}",
				"probe", p->name, "twin", p->twin, "family", p->family,
				"atomicity", probe_atomicity_name(p->atomicity), "insn", p->insn,
				"kernel", p->kernel, "kernel_src", p->kernel_src,
				"chain", chain_names[p->chain], "analog", p->analog,
				"description", p->desc,
				"latency", p->run[MODE_LATENCY] != NULL,
				"throughput", p->run[MODE_THROUGHPUT] != NULL, "default", p->in_default,
				"unsupported", p->unsupported, "kernels", kernels_json(&st, p)));
			continue;
		}
		printf("%-20s %-20s %-9s %-10s %-12s %-8s %s\n", p->name, p->twin ? p->twin : "-",
		       p->family, probe_atomicity_name(p->atomicity), forms,
		       p->run[MODE_LATENCY] ? chain_names[p->chain] : "-", p->insn);
		printf("%-20s %s%s%s%s%s\n", "", p->analog ? "ANALOG (not the real semantics): " : "",
		       p->kernel, p->kernel_src ? " [" : "", p->kernel_src ? p->kernel_src : "",
		       p->kernel_src ? "]" : "");
		if (p->unsupported)
			printf("%-20s not here: %s\n", "", p->unsupported);
	}
	if (st.map)
		munmap(st.map, st.len);
	if (json)
		return opts_print_json(json_pack("{s:s, s:s, s:o}", "arch", ARCH_NAME, "atomics", ARCH_ATOMICS_IMPL,
				     "probes", arr));
	else
		printf("\nchain: how each latency op depends on the previous one (memory: it reads the word\n"
		       "the previous op wrote; register: its input is the previous op's output). tput-swept:\n"
		       "throughput swept over 1..8 words x 1..32 lines. [kernel file and macro mirrored]\n"
		       "architecture %s, primitives as %s. 'atomcost run --help' to measure them.\n",
		       ARCH_NAME, ARCH_ATOMICS_IMPL);
	return EXIT_OK;
}

struct list_args {
	bool json, patterns;
};

static const struct cmd_opt list_opt[] = {
	{ .name = "json", .letter = 'j', .type = OPT_FLAG, .off = offsetof(struct list_args, json),
	  .help = "as JSON, with each probe's timed loops by symbol" },
	{ .name = "patterns", .type = OPT_FLAG, .off = offsetof(struct list_args, patterns),
	  .help = "the access patterns of 'run --pattern', with their footprints here" },
};

static const struct cmd_opts list_cmd = {
	.usage = "usage: atomcost list [--json] [--patterns]\n",
	.opt = list_opt, .n = ARRAY_SIZE(list_opt),
};

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct topo *t = NULL;
	int ret;

	if ((ret = opts_exit(opts_parse(&list_cmd, argc, argv, &a))) >= 0)
		return ret;
	if (!a.patterns)
		return list_probes(a.json);
	/* footprints come from this machine's caches; without hwloc, '-' */
	topo_open(&t, NULL, NULL);	/* t stays NULL when it fails */
	pattern_list(t, a.json);
	topo_close(t);
	return EXIT_OK;
}
