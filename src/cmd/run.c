/* SPDX-License-Identifier: MIT */
/* cmd/run.c - `atomcost run`: select probes, measure, print, write. */
#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common.h"
#include "config.h"
#include "contention.h"
#include "kmod.h"
#include "session.h"
#include "pattern.h"
#include "pmu.h"
#include "probes.h"
#include "report.h"
#include "runner.h"
#include "topo.h"

/* fn(arg, item) on each item of a comma list, blanks trimmed. */
static int each_item(const char *list, int (*fn)(void *arg, const char *item), void *arg)
{
	char *buf = strdup(list), *save = NULL, *tok;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (tok = strtok_r(buf, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		for (char *end = tok + strlen(tok); end > tok && (end[-1] == ' ' || end[-1] == '\t');)
			*--end = 0;
		err = fn(arg, tok);
	}
	free(buf);
	return err;
}

struct selection {
	const struct probe *list[256];
	size_t n;
};

static void select_add(struct selection *s, const struct probe *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->list[i] == p)
			return;
	if (s->n < ARRAY_SIZE(s->list))
		s->list[s->n++] = p;
}

static const char *probe_name_at(size_t i, void *arg)
{
	return i < probe_count ? probe_table[i]->name : NULL;
}

/* "baseline, bitops, ..." from the probe table, in table order. */
static void family_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < probe_count; i++) {
		const char *f = probe_table[i]->family;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(probe_table[j]->family, f);
		if (!seen && used < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f);
	}
}

/* The probes named arg (a name or a glob) or, with family, of family arg.
 * One that cannot run here is refused when named exactly, said when of a
 * family and its reason is a run-time one, else skipped. */
static int select_match(struct selection *s, const char *arg, bool family)
{
	bool glob = !family && strpbrk(arg, "*?[") != NULL, any = false;
	char buf[256];

	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];
		const char *why;

		if (family ? strcmp(p->family, arg) :
		    glob ? fnmatch(arg, p->name, 0) : strcmp(arg, p->name))
			continue;
		any = true;
		why = probe_unsupported(p);
		if (why && !family && !glob) {
			pr_err("run: probe '%s' cannot run here: %s", p->name, why);
			return -ENOTSUP;
		}
		if (why && family && !p->unsupported)
			pr_warn("run: probe '%s' skipped: %s", p->name, why);
		if (!why)
			select_add(s, p);
	}
	if (any)
		return 0;
	if (family) {
		family_list(buf, sizeof(buf));
		pr_err("run: unknown family '%s' (families: %s)", arg, buf);
	} else {
		pr_err("run: unknown probe '%s'%s ('atomcost list' shows them all)", arg,
		       did_you_mean(suggest_name(arg, probe_name_at, probe_count, NULL), buf,
				    sizeof(buf)));
	}
	return -EINVAL;
}

static int select_arg(void *sel, const char *arg)
{
	return select_match(sel, arg, false);
}

static int select_family(void *sel, const char *fam)
{
	return select_match(sel, fam, true);
}

/* A [run] mode was checked against the schema's choices: a bad one comes
 * from the command line. */
static int add_mode(void *mask, const char *name)
{
	enum probe_mode m;

	if (probe_mode_parse(name, &m) < 0) {
		pr_err("--mode: unknown mode '%s' (expected latency, throughput, or both: latency,throughput)",
		       name);
		return -EINVAL;
	}
	*(unsigned *)mask |= 1u << m;
	return 0;
}

static int parse_modes(const char *what, const char *s, void *mask)
{
	*(unsigned *)mask = 0;
	if (each_item(s, add_mode, mask) < 0)
		return -EINVAL;
	if (!*(unsigned *)mask) {
		pr_err("%s: empty list (expected latency, throughput, or both)", what);
		return -EINVAL;
	}
	return 0;
}

/* --threads, --cs-work, --outside-work: one value or a list to sweep
 * (contention.c); the scalar gets the largest thread count (the run is a
 * contention run from 2 on) and the first work value. */
#define RUN_OPTS_OF(f, m) ((struct run_opts *)((char *)(f) - offsetof(struct run_opts, m)))
static int parse_threads(const char *what, const char *s, void *field)
{
	struct run_sweep *w = field;
	int err = contention_parse_sweep(what, s, 1024, false, w);

	if (!err)
		RUN_OPTS_OF(w, threads_sweep)->threads = (unsigned)w->v[w->n - 1];
	return err;
}

static int parse_cs_work(const char *what, const char *s, void *field)
{
	struct run_sweep *w = field;
	int err = contention_parse_sweep(what, s, 1000000, true, w);

	if (!err)
		RUN_OPTS_OF(w, cs_sweep)->cs_work = w->v[0];
	return err;
}

static int parse_out_work(const char *what, const char *s, void *field)
{
	struct run_sweep *w = field;
	int err = contention_parse_sweep(what, s, 1000000, true, w);

	if (!err)
		RUN_OPTS_OF(w, out_sweep)->out_work = w->v[0];
	return err;
}

/* -c FILE (or an operand FILE.conf): one experiment file per run. */
static int parse_config(const char *what, const char *s, void *field)
{
	const char **file = field;

	if (*file && strcmp(*file, s)) {
		pr_err("run: two experiment files ('%s' and '%s'): give one", *file, s);
		return -EINVAL;
	}
	*file = s;
	return 0;
}

/* --context: user (false) or kernel (true: atomcost.ko, kmod.c). */
static int parse_context(const char *what, const char *s, void *kernel)
{
	if (strcmp(s, "user") && strcmp(s, "kernel")) {
		pr_err("%s: unknown context '%s' (expected user or kernel)", what, s);
		return -EINVAL;
	}
	*(bool *)kernel = !strcmp(s, "kernel");
	return 0;
}

/* What the options set, from an experiment file's [run] keys and the
 * command line alike. */
struct run_cmd {
	struct run_opts o;
	const char *out, *cpu_arg;
	const char *config;	/* the experiment file: -c, or an operand ending in .conf */
	struct opt_list sets;	/* --set SECTION.KEY=VALUE */
	struct opt_list families;
	const struct report_writer *stdout_w;
	bool force, strict, no_twins, kernel;
	struct selection sel;
	char **knames;		/* --context kernel: the kernel probes' globs */
	size_t nknames;
};

/* The one table of `atomcost run` options; those with a key are an
 * experiment file's [run] keys too, in this order (cmd_run_keys). */
#define A(f) offsetof(struct run_cmd, f)
static const struct cmd_opt run_opt[] = {
	{ .name = "config", .letter = 'c', .type = OPT_FN, .arg = "FILE", .off = A(config), .parse = parse_config,
	  .help = "run an experiment file (configs/*.conf; FILE.conf among the probes too): its [run] "
		  "keys are these options, and the command line overrides them ('atomcost config --schema')" },
	{ .name = "set", .type = OPT_LIST, .arg = "SEC.KEY=VAL", .off = A(sets),
	  .help = "override any experiment key (--set buddy-bitmap-2004.trials=10)" },
	{ .name = "family", .type = OPT_LIST, .arg = "NAME", .off = A(families), .key = "family",
	  .help = "every probe of these families (baseline, bitops, cmpxchg, lock, percpu, ...: 'atomcost "
		  "list' shows them)" },
	{ .name = "no-twins", .type = OPT_FLAG, .off = A(no_twins), .key = "twins",
	  .help = "do not add each probe's twin (by default it is measured too, for the ratio)",
	  .key_help = "measure each probe's twin too, for the ratio" },
	{ .name = "mode", .type = OPT_FN, .arg = "LIST", .off = A(o.mode_mask), .parse = parse_modes,
	  .key = "mode", .key_type = CFG_ENUM_LIST, .choices = "latency|throughput", .def = "latency,throughput",
	  .help = "dependent (latency) and/or independent (throughput) forms" },
	{ .name = "cpu", .type = OPT_STR, .arg = "N", .off = A(cpu_arg), .key = "cpu", .key_type = CFG_U64,
	  .max = 4095, .help = "PU to run on (OS index, in the allowed cpuset; unset: the first allowed)" },
	{ .name = "output", .letter = 'o', .type = OPT_STR, .arg = "FILE", .off = A(out),
	  .help = "write the report; format from the extension (.json, .txt, .html, ...)" },
	{ .name = "force", .type = OPT_FLAG, .off = A(force), .help = "overwrite an existing output file" },
	{ .name = "format", .type = OPT_FN, .arg = "FMT", .off = A(stdout_w), .parse = opts_writer,
	  .def = "text", .help = "what goes to stdout" },
	{ .name = "max-seconds", .type = OPT_DOUBLE, .arg = "S", .off = A(o.max_seconds), .key = "max_seconds",
	  .min = 0.001, .max = 3600, .def = "0.4", .help = "time cap per probe and form, seconds" },
	{ .name = "target-ci", .type = OPT_DOUBLE, .arg = "R", .off = A(o.target_ci), .key = "target_ci",
	  .min = 0.0001, .max = 0.5, .def = "0.002",
	  .help = "stop a probe once the median's 95% CI half-width is below this fraction" },
	{ .name = "time-limit", .type = OPT_DOUBLE, .arg = "S", .off = A(o.time_limit_s), .key = "time_limit",
	  .min = 0.1, .max = 1e6,
	  .help = "cap of the whole probe run, seconds (what was measured is kept, marked partial)" },
	{ .name = "strict", .type = OPT_FLAG, .off = A(strict), .key = "strict",
	  .help = "exit 5 when the results are untrustworthy (calibration, migrations)" },
	{ .name = "pattern", .type = OPT_STR, .arg = "LIST", .off = A(o.patterns), .key = "pattern",
	  .help = "access patterns: hit (unset), dep, l2, llc, miss, miss-overlap, mix=K/M ('atomcost list "
		  "--patterns' says what each measures)" },
	{ .name = "footprint", .type = OPT_SIZE, .arg = "BYTES", .off = A(o.footprint),
	  .help = "buffer of the dep/l2/llc/miss patterns (64M, 2G); default from hwloc" },
	{ .name = "mem-node", .type = OPT_INT, .arg = "N", .off = A(o.mem_node), .key = "mem_node", .max = 4095,
	  .help = "NUMA node (logical index) of the pattern buffers" },
	{ .name = "events", .letter = 'e', .type = OPT_STR, .arg = "LIST", .off = A(o.events), .key = "events",
	  .help = "events counted around each sample: cycles, instructions, cache-misses, "
		  "L1-dcache-load-misses, LLC-load-misses, ... or libpfm4 names (PMU::EVENT:UMASK); "
		  "'atomcost events' shows what counts here, one that cannot prints as n/a (reason); "
		  "context-switches, cpu-migrations and task-clock are always counted" },
	{ .name = "require-events", .type = OPT_FLAG, .off = A(o.require_events), .key = "require_events",
	  .help = "exit 4 before measuring when an event cannot be counted here" },
	{ .name = "threads", .type = OPT_FN, .arg = "LIST", .off = A(o.threads_sweep), .parse = parse_threads,
	  .key = "threads", .key_type = CFG_U64, .min = 1, .max = 4096,
	  .help = "pinned threads on one cache line (contention): N, or a sweep 1,2,4 or 1-4 "
		  "(a table and chart per probe); each case runs max_seconds; ns/op per thread "
		  "and aggregate, fairness, hand-overs, overlap",
	  .key_help = "pinned threads on one cache line (contention); each case runs max_seconds; ns/op per "
		      "thread and aggregate, fairness, overlap" },
	{ .name = "placement", .type = OPT_STR, .arg = "P", .off = A(o.placement), .key = "placement",
	  .help = "where the threads go: smt|l2|l3|numa|package|cross (pairwise of that class with thread "
		  "0; absent here: exit 4), spread (unset), list:0,3,5" },
	{ .name = "sharing", .type = OPT_STR, .arg = "LIST", .off = A(o.sharing), .key = "sharing",
	  .help = "what the threads share: true (one word), false (own words, one line), none (private "
		  "lines); unset: true,false,none" },
	{ .name = "cs-work", .type = OPT_FN, .arg = "LIST", .off = A(o.cs_sweep), .parse = parse_cs_work,
	  .help = "lock probes: N work units (~1 cycle each) inside the critical section, or a "
		  "list to sweep (0,50,200)" },
	{ .name = "outside-work", .type = OPT_FN, .arg = "LIST", .off = A(o.out_sweep),
	  .parse = parse_out_work,
	  .help = "lock probes: N work units between one unlock and the next lock, or a list" },
	{ .name = "epochs", .type = OPT_INT, .arg = "K", .off = A(o.epochs), .key = "epochs", .min = 1, .max = 1000,
	  .help = "epochs, each with fresh buffers, pinning and calibration; verdicts come from the "
		  "spread between them (unset: 3; the characterization: 5, more for rows unresolved)" },
	{ .name = "patience", .type = OPT_DOUBLE, .arg = "S", .off = A(o.patience_s), .key = "patience", .max = 3600,
	  .help = "seconds the characterization may spend under load beyond its quiet time, waiting for "
		  "a quiet CPU and running disturbed epochs again (unset: its planned time, about a minute)" },
	{ .name = "quick", .type = OPT_FLAG, .off = A(o.quick), .key = "quick",
	  .help = "the characterization's short card, in about 20 s: hot lines, the L1 walk, the fast-path "
		  "menu and the topology; no staircase, L2/LLC/DRAM walks or split lock (the card says so)" },
	{ .name = "no-split-lock", .type = OPT_FLAG, .off = A(o.no_split_lock), .key = "split_lock",
	  .help = "the characterization skips its split-lock step: its locked ops across two cache "
		  "lines take bus locks that stall every tenant of the host",
	  .key_help = "the characterization's split-lock step (no: skip its bus locks, which stall every "
		      "tenant)" },
	{ .name = "context", .type = OPT_FN, .arg = "C", .off = A(kernel), .parse = parse_context, .def = "user",
	  .help = "user: this binary's probes; kernel: atomcost.ko's, PROBE|GLOB its names (root; docs/kernel.md)" },
};
#undef A

static const struct cmd_opts run_cmd_opts = {
	.usage = "usage: atomcost run [PROBE|GLOB ...] [FILE.conf] [options]\n"
		 "  (no PROBE, family or file: characterize this machine, under a minute: measured\n"
		 "  hierarchy, every twin under hit/dep/l2/llc/miss, locks, split lock, topology;\n"
		 "  the machine card first)\n"
		 "  PROBE|GLOB         probe names or shell globs ('*set_bit*')\n",
	.opt = run_opt, .n = ARRAY_SIZE(run_opt), .section = "run", .max_operands = -1,
};

/* The [run] keys: the operands, then the options that are keys. */
int cmd_run_keys(void)
{
	static const struct cfg_key probes = { "run", "probes", CFG_STR_LIST, NULL, NULL, 0, 0, "",
					       "probe names or shell globs (unset: the default set)" };

	return opts_schema_add(&run_cmd_opts, &probes);
}

/* An experiment file's [run] keys, through the same table (the command
 * line's options come after them and win): the probes, then each option's
 * key (a default sets what it already holds); a true boolean sets its
 * flag, a false one its --no-* flag. */
static int apply_experiment(struct run_cmd *c, const struct experiment *e)
{
	const char *probes = config_str(e, "run", "probes");
	int err = probes ? each_item(probes, select_arg, &c->sel) : 0;

	for (const struct cmd_opt *o = run_opt; !err && o < run_opt + ARRAY_SIZE(run_opt); o++) {
		const char *v = o->key ? config_str(e, "run", o->key) : NULL;
		char what[96];

		if (!v)
			continue;
		snprintf(what, sizeof(what), "%s: [run] %s", e->file ? e->file : "--set", o->key);
		if (o->type != OPT_FLAG)
			err = opts_set(&run_cmd_opts, o, what, v, c);
		else if (config_bool(e, "run", o->key) == !!strncmp(o->name, "no-", 3))
			err = opts_set(&run_cmd_opts, o, what, NULL, c);
	}
	return err;
}

static bool conf_operand(const char *s)
{
	size_t n = strlen(s);

	return s[0] != '-' && n > 5 && !strcmp(s + n - 5, ".conf");
}

/* The command line through the option table; with an experiment (-c, an
 * operand FILE.conf, --set) loaded, its [run] keys through the same table
 * and then the command line again over them (a list option's items add
 * to the file's, as --family does). The operands left are the probes:
 * *argc shrinks by the .conf taken out. 0, 1 (--help) or -errno. */
static int parse_command(struct run_cmd *rc, int *argc, char **argv, struct experiment **exp)
{
	int ret = 0, k;

	for (int pass = 0; pass < 2 && !ret; pass++) {
		*rc = (struct run_cmd){ 0 };
		runner_default_opts(&rc->o);
		optind = 0;	/* glibc: start getopt afresh */
		ret = opts_defaults(&run_cmd_opts, rc);
		if (!ret && *exp)
			ret = apply_experiment(rc, *exp);
		if (!ret)
			ret = opts_argv(&run_cmd_opts, *argc, argv, rc);
		for (k = optind; !ret && k < *argc; k++)
			if (conf_operand(argv[k]))
				ret = parse_config("run", argv[k], &rc->config);
		if (ret || *exp || (!rc->config && !rc->sets.n))
			break;
		ret = config_load(rc->config, rc->sets.v, rc->sets.n, exp);
	}
	for (int i = k = optind; !ret && i < *argc; i++)
		if (!conf_operand(argv[i]))
			argv[k++] = argv[i];
	if (!ret)
		*argc = k;
	return ret;
}

/* Before measuring: resolve the events, check the output path, open the
 * topology, place the run on its CPU and check the patterns, so that no
 * bad option costs run time. EXIT_OK or the exit code (message printed). */
static int prepare_run(struct run_cmd *rc, struct pmu_set *evset, struct topo **tp,
		       const struct report_writer **file_w)
{
	int ret;

	/* events (pmu.c): every name is checked and every event tried */
	ret = pmu_set_resolve(evset, rc->o.events, rc->o.require_events);
	if (ret < 0)
		return exit_code_for(ret);	/* 2: unknown name, 4: --require-events unmet */
	rc->o.pmu = evset;
	if (rc->out) {
		*file_w = report_writer_for_path(rc->out);
		if (!*file_w) {
			pr_err("-o: cannot tell the format of '%s' from its extension (use one of %s)", rc->out,
			       report_writer_names(true));
			return EXIT_USAGE;
		}
		ret = report_check_path(rc->out, rc->force);
		if (ret < 0)
			return ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret);
	}
	ret = topo_open(tp, NULL, NULL);
	if (ret < 0)
		return exit_code_for(ret);
	if (topo_parse_one_cpu(*tp, rc->cpu_arg, &rc->o.cpu_os) < 0)
		return EXIT_USAGE;
	rc->o.cpu_named = rc->cpu_arg != NULL;
	rc->o.progress = isatty(STDERR_FILENO);
	ret = pattern_check(*tp, &rc->o);	/* names, sizes, memory: before measuring */
	return ret < 0 ? exit_code_for(ret) : EXIT_OK;
}

/* --context kernel: the operands are atomcost.ko's probe names (kmod.c
 * checks them once it is loaded); what only user space runs is refused. */
static int kernel_probes(struct run_cmd *rc, int argc, char **argv, const struct experiment *exp)
{
	if (exp || rc->families.n || rc->o.patterns || rc->o.threads >= 2 || rc->o.placement ||
	    rc->o.sharing || rc->o.epochs > 1) {
		pr_err("run: --context kernel times atomcost.ko's probes on one CPU: experiment files, --family, "
		       "--pattern, --threads, --placement, --sharing and --epochs are user space's");
		return EXIT_USAGE;
	}
	rc->knames = argv + optind;
	rc->nknames = (size_t)(argc - optind);
	return EXIT_OK;
}

/* The probes: named (on the command line or in [run] probes), of the
 * families, else the default set (the characterization adds the locks,
 * per-CPU ops, the ordering line's barriers and every menu option: probe.h);
 * then each probe's twin, for the ratio. *characterize: no probe names,
 * families, experiment file or engine options, so the default
 * characterization of this machine (session.c). An exit code. */
static int select_probes(struct run_cmd *rc, int argc, char **argv, const struct experiment *exp,
			 bool *characterize)
{
	bool named = optind < argc || rc->sel.n > 0;
	size_t n;
	int ret;

	for (int i = optind; i < argc; i++)
		if ((ret = select_arg(&rc->sel, argv[i])) < 0)
			return exit_code_for(ret);
	for (size_t i = 0; i < rc->families.n; i++)
		if ((ret = each_item(rc->families.v[i], select_family, &rc->sel)) < 0)
			return exit_code_for(ret);
	*characterize = !named && !rc->families.n && (!exp || config_kind_has(exp, "characterization")) &&
			!rc->o.patterns && !rc->o.placement && !rc->o.sharing && rc->o.threads < 2;
	if (!named && !rc->families.n)
		for (size_t i = 0; i < probe_count; i++)
			if ((probe_table[i]->in_default ||
			     (*characterize && (!strcmp(probe_table[i]->family, "lock") ||
						!strcmp(probe_table[i]->family, "percpu") ||
						probe_table[i]->card_order || probe_table[i]->menu_need[0]))) &&
			    !probe_unsupported(probe_table[i]))
				select_add(&rc->sel, probe_table[i]);
	n = rc->no_twins ? 0 : rc->sel.n;
	for (size_t i = 0; i < n; i++) {
		const struct probe *tw = rc->sel.list[i]->twin ? probe_find(rc->sel.list[i]->twin) : NULL;

		if (tw && !probe_unsupported(tw))
			select_add(&rc->sel, tw);
	}
	return EXIT_OK;
}

/* The report's command line and experiment (recorded with the
 * fingerprint): what was asked for, and the file, the overrides, every key
 * and where it came from. */
static void describe_run(struct report *rep, const struct run_cmd *rc, const struct experiment *exp,
			 int argc, char **argv)
{
	const char *probes[ARRAY_SIZE(rc->sel.list)];
	const struct run_opts *o = &rc->o;

	for (size_t i = 0; i < rc->sel.n; i++)
		probes[i] = rc->sel.list[i]->name;
	rep->meta = run_request_json(&(struct run_request){ argc, o->cpu_os, (int)o->epochs, argv, probes,
		rc->sel.n, o->mode_mask, o->patterns, o->max_seconds, o->target_ci, o->time_limit_s, exp });
}

/* Measure, print, write the file. An exit code. */
static int measure_and_write(struct run_cmd *rc, struct topo *t, const struct experiment *exp,
			     bool characterize, const struct report_writer *file_w, int argc, char **argv)
{
	const struct report_writer *text = report_writer_find("text");
	struct report rep;
	int ret, code = EXIT_OK;

	report_init(&rep);
	describe_run(&rep, rc, exp, argc, argv);
	session_identity(&rep, t, rc->o.cpu_os);
	if (rc->kernel)
		ret = kmod_run(t, &rc->o, rc->knames, rc->nknames, &rep);
	else
		ret = session_run(t, &rc->o, rc->sel.list, rc->sel.n, exp, characterize,
				  rc->stdout_w == text ? stdout : stderr, &rep);
	if (ret < 0 && ret != -EINTR) {
		report_free(&rep);
		return exit_code_for(ret);
	}
	if (ret == -EINTR)
		code = cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
	if (!exp || characterize || config_kind_has(exp, "probes") || rc->stdout_w != text)
		rc->stdout_w->write(&rep, stdout);
	fflush(stdout);
	if (rc->out) {
		ret = report_write_file(&rep, file_w, rc->out, rc->force);
		if (ret >= 0)
			pr_info("report written to %s%s", rc->out, rep.partial ? " (partial)" : "");
		else if (code == EXIT_OK)
			code = exit_code_for(ret);
	}
	if (code == EXIT_OK && rc->strict && session_untrustworthy(&rep))
		code = EXIT_UNTRUSTED;
	report_free(&rep);
	return code;
}

int cmd_run(int argc, char **argv)
{
	static struct pmu_set evset;	/* large: not on the stack */
	struct run_cmd rc = { 0 };
	const struct report_writer *file_w = NULL;
	struct experiment *exp = NULL;	/* its [run] keys go through the table first */
	struct topo *t = NULL;
	char **args = malloc(((size_t)argc + 1) * sizeof(*args));	/* getopt permutes it */
	int nargs = argc, ret, code;
	bool characterize = false;

	if (!args)
		return exit_code_for(-ENOMEM);
	memcpy(args, argv, ((size_t)argc + 1) * sizeof(*args));
	ret = parse_command(&rc, &nargs, args, &exp);
	if (ret)
		code = ret > 0 ? EXIT_OK : exit_code_for(ret);
	else
		code = rc.kernel ? kernel_probes(&rc, nargs, args, exp) :
		       select_probes(&rc, nargs, args, exp, &characterize);
	if (!ret && code == EXIT_OK && rc.o.quick && !characterize) {
		pr_err("run: --quick is the characterization's short card (no probe, family, --pattern, "
		       "--threads, --placement or --sharing): drop it or the others");
		code = EXIT_USAGE;
	}
	if (!ret && code == EXIT_OK)
		code = prepare_run(&rc, &evset, &t, &file_w);
	if (!ret && code == EXIT_OK)
		code = measure_and_write(&rc, t, exp, characterize, file_w, argc, argv);
	topo_close(t);
	config_free(exp);
	free(args);
	return code;
}
