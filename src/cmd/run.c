/* SPDX-License-Identifier: MIT */
/* cmd/run.c - `atomcost run`: select probes, measure, print, write. */
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "config.h"
#include "session.h"
#include "pattern.h"
#include "pmu.h"
#include "probes.h"
#include "report.h"
#include "runner.h"
#include "topo.h"

/* The one table of `atomcost run` options: getopt's long options, --help
 * and the experiment files' [run] keys (config.c's schema names the option
 * each key maps to; cmd_run checks every such option is here) all come from
 * it, and one function applies an option whatever its source. */
enum run_opt_id {
	O_OUTPUT = 'o', O_EVENTS = 'e', O_HELP = 'h',
	O_FORCE = 256, O_FORMAT, O_MAXS, O_CI, O_TLIMIT, O_STRICT, O_FAMILY, O_NOTWINS, O_MODE,
	O_CPU, O_PATTERN, O_MEMNODE, O_REQEV, O_THREADS, O_PLACEMENT, O_SHARING, O_EPOCHS,
	O_CSWORK, O_OUTWORK, O_FOOTPRINT, O_NOSPLIT,
};

enum run_opt_default { DEF_NONE, DEF_MAX_SECONDS, DEF_TARGET_CI };

static const struct run_option {
	const char *name;	/* long option, "--" + name */
	int has_arg;
	int id;
	const char *arg;	/* argument in the help, NULL: a flag */
	enum run_opt_default def;	/* a default printed from runner_default_opts */
	const char *help;	/* '\n' continues on an indented line */
} run_options[] = {
	{ "family", required_argument, O_FAMILY, "NAME", DEF_NONE,
	  "every probe of a family (baseline, bitops, cmpxchg, lock, percpu, ...)" },
	{ "no-twins", no_argument, O_NOTWINS, NULL, DEF_NONE,
	  "do not add each probe's twin (by default it is measured too, for the ratio)" },
	{ "cpu", required_argument, O_CPU, "N", DEF_NONE,
	  "PU to run on (OS index, in the allowed cpuset); default: first allowed" },
	{ "mode", required_argument, O_MODE, "LIST", DEF_NONE, "latency,throughput (default both)" },
	{ "output", required_argument, O_OUTPUT, "FILE",  DEF_NONE,
	  "-o: write the report; format from the extension (.json, .txt, .html, ...)" },
	{ "force", no_argument, O_FORCE, NULL, DEF_NONE, "overwrite an existing output file" },
	{ "format", required_argument, O_FORMAT, "FMT", DEF_NONE,
	  "what goes to stdout: text (default), json, csv, mail, html, summary" },
	{ "max-seconds", required_argument, O_MAXS, "S", DEF_MAX_SECONDS,
	  "time cap per probe and form (default %g)" },
	{ "target-ci", required_argument, O_CI, "R", DEF_TARGET_CI,
	  "stop a probe once the median's 95%% CI half-width is below R (default %g)" },
	{ "time-limit", required_argument, O_TLIMIT, "S", DEF_NONE,
	  "cap the whole run; what was measured is written, marked partial" },
	{ "strict", no_argument, O_STRICT, NULL, DEF_NONE,
	  "exit 5 when the results are untrustworthy (calibration, migrations)" },
	{ "pattern", required_argument, O_PATTERN, "LIST", DEF_NONE,
	  "access patterns: hit (default), dep, l2, llc, miss, miss-overlap,\n"
	  "mix=K/M; 'atomcost list --patterns' says what each measures" },
	{ "footprint", required_argument, O_FOOTPRINT, "BYTES", DEF_NONE,
	  "buffer of the dep/l2/llc/miss patterns (64M, 2G); default from hwloc" },
	{ "mem-node", required_argument, O_MEMNODE, "N", DEF_NONE, "bind the pattern buffers to NUMA node N" },
	{ "threads", required_argument, O_THREADS, "N", DEF_NONE,
	  "N pinned threads on one cache line (contention); each case runs\n"
	  "--max-seconds; ns/op per thread and aggregate, fairness, overlap" },
	{ "placement", required_argument, O_PLACEMENT, "P", DEF_NONE,
	  "smt|l2|l3|numa|package|cross (threads pairwise of that class with\n"
	  "thread 0; absent here: exit 4), spread (default), list:0,3,5" },
	{ "sharing", required_argument, O_SHARING, "LIST", DEF_NONE,
	  "true (same word), false (own words, same line), none (private\n"
	  "lines); default true,false,none" },
	{ "cs-work", required_argument, O_CSWORK, "N", DEF_NONE,
	  "lock probes: N work units (~1 cycle each) inside the critical section" },
	{ "outside-work", required_argument, O_OUTWORK, "N", DEF_NONE,
	  "lock probes: N work units between one unlock and the next lock" },
	{ "epochs", required_argument, O_EPOCHS, "K", DEF_NONE,
	  "K epochs, each with fresh buffers, pinning and calibration; verdicts\n"
	  "come from the spread between them (default 3; the characterization: 5,\n"
	  "more for rows still unresolved)" },
	{ "events", required_argument, O_EVENTS, "LIST", DEF_NONE,
	  "-e: count events around each sample: cycles, instructions,\n"
	  "cache-misses, L1-dcache-load-misses, LLC-load-misses, ... or libpfm4\n"
	  "names (PMU::EVENT:UMASK); 'atomcost events' shows what counts here.\n"
	  "One that cannot be counted prints as n/a (reason). context-switches,\n"
	  "cpu-migrations and task-clock are always counted" },
	{ "no-split-lock", no_argument, O_NOSPLIT, NULL, DEF_NONE,
	  "the characterization skips its split-lock step: its locked ops across\n"
	  "two cache lines take bus locks that stall every tenant of the host" },
	{ "require-events", no_argument, O_REQEV, NULL, DEF_NONE,
	  "exit 4 before measuring when an event of -e cannot be counted here" },
	{ "help", no_argument, O_HELP, NULL, DEF_NONE, "-h: this help" },
};

static const struct run_option *run_option_named(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(run_options); i++)
		if (!strcmp(run_options[i].name, name))
			return &run_options[i];
	return NULL;
}

static void run_usage(FILE *f)
{
	struct run_opts d;	/* the defaults the help prints are the code's */

	runner_default_opts(&d);
	fprintf(f,
		"usage: atomcost run [PROBE|GLOB ...] [FILE.conf] [options]\n"
		"  (no PROBE, family or file: characterize this machine, under a minute: measured\n"
		"  hierarchy, every twin under hit/dep/l2/llc/miss, locks, split lock, topology;\n"
		"  the machine card first)\n"
		"  PROBE|GLOB          probe names or shell globs ('*set_bit*')\n");
	for (size_t i = 0; i < ARRAY_SIZE(run_options); i++) {
		const struct run_option *r = &run_options[i];
		char head[40], help[512];
		const char *line;

		snprintf(head, sizeof(head), "--%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
		snprintf(help, sizeof(help), r->help,
			 r->def == DEF_MAX_SECONDS ? d.max_seconds : r->def == DEF_TARGET_CI ? d.target_ci : 0.0);
		line = strtok(help, "\n");
		fprintf(f, "  %-19s %s\n", head, line);
		while ((line = strtok(NULL, "\n")))
			fprintf(f, "  %-19s %s\n", "", line);
	}
	fprintf(f,
		"  FILE.conf, -c FILE  run an experiment file (configs/*.conf; 'atomcost config --schema');\n"
		"                      its [run] keys are these options; the command line overrides them\n"
		"  --set SEC.KEY=VAL   override any experiment key (--set buddy-bitmap-2004.trials=10)\n");
}

struct selection {
	const struct probe *list[256];
	size_t n;
};

static bool selected(const struct selection *s, const struct probe *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->list[i] == p)
			return true;
	return false;
}

static void select_add(struct selection *s, const struct probe *p)
{
	if (!selected(s, p) && s->n < ARRAY_SIZE(s->list))
		s->list[s->n++] = p;
}

static const char *probe_name_at(size_t i, void *arg)
{
	return i < probe_count ? probe_table[i]->name : NULL;
}

static int select_arg(struct selection *s, const char *arg)
{
	bool glob = strpbrk(arg, "*?[") != NULL, any = false;

	for (size_t i = 0; i < probe_count; i++) {
		const struct probe *p = probe_table[i];

		if (glob ? fnmatch(arg, p->name, 0) : strcmp(arg, p->name))
			continue;
		any = true;
		if (probe_unsupported(p)) {
			if (!glob) {
				pr_err("run: probe '%s' cannot run here: %s", p->name, probe_unsupported(p));
				return -ENOTSUP;
			}
			continue;
		}
		select_add(s, p);
	}
	if (!any) {
		const char *sug = suggest_name(arg, probe_name_at, probe_count, NULL);

		pr_err("run: unknown probe '%s'%s%s%s ('atomcost list' shows them all)", arg,
		       sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
		return -EINVAL;
	}
	return 0;
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

static int select_family(struct selection *s, const char *fam)
{
	bool any = false;
	char fams[256];

	for (size_t i = 0; i < probe_count; i++) {
		const char *why = probe_unsupported(probe_table[i]);

		if (strcmp(probe_table[i]->family, fam))
			continue;
		any = true;
		if (!why)
			select_add(s, probe_table[i]);
		else if (!probe_table[i]->unsupported)	/* a run-time reason: say it */
			pr_warn("run: probe '%s' skipped: %s", probe_table[i]->name, why);
	}
	if (!any) {
		family_list(fams, sizeof(fams));
		pr_err("run: unknown family '%s' (families: %s)", fam, fams);
		return -EINVAL;
	}
	return 0;
}

static int parse_modes(const char *s, unsigned *mask)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum probe_mode m;

		if (probe_mode_parse(tok, &m) < 0) {
			pr_err("--mode: unknown mode '%s' (expected latency, throughput, or both: latency,throughput)", tok);
			return -EINVAL;
		}
		*mask |= 1u << m;
	}
	if (!*mask) {
		pr_err("--mode: empty list (expected latency, throughput, or both)");
		return -EINVAL;
	}
	return 0;
}

static json_t *make_meta(int argc, char **argv)
{
	json_t *cmd = json_array();

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	return json_pack("{s:o}", "command_line", cmd);
}

/* What was asked for, recorded with the fingerprint. */
static json_t *experiment_json(const struct run_opts *o, const struct selection *sel)
{
	json_t *probes = json_array(), *modes = json_array();

	for (size_t i = 0; i < sel->n; i++)
		json_array_append_new(probes, json_string(sel->list[i]->name));
	for (int m = 0; m < MODE__COUNT; m++)
		if (o->mode_mask & (1u << m))
			json_array_append_new(modes, json_string(probe_mode_name((enum probe_mode)m)));
	return json_pack("{s:o, s:o, s:s, s:i, s:f, s:f, s:f, s:i}", "probes", probes, "modes", modes,
			 "patterns", o->patterns ? o->patterns : "default", "cpu", o->cpu_os,
			 "max_seconds", o->max_seconds, "target_ci", o->target_ci,
			 "time_limit_s", o->time_limit_s, "epochs", o->epochs);
}

/* What the options set, from an experiment file's [run] keys and the
 * command line alike. */
struct run_cmd {
	struct run_opts o;
	const char *out, *cpu_arg, *families[8];
	size_t nfam;
	const struct report_writer *stdout_w;
	bool force, strict, twins;
	struct selection sel;
};

/* Apply one option (id from run_options[]) with its value; `what` names it
 * in messages ("--max-seconds"). 0, or -EINVAL after a message. */
static int apply_option(struct run_cmd *c, int id, const char *what, const char *val)
{
	uint64_t v;

	switch (id) {
	case O_CPU:
		c->cpu_arg = val;
		return 0;
	case O_MODE:
		return parse_modes(val, &c->o.mode_mask);
	case O_OUTPUT:
		c->out = val;
		return 0;
	case O_FORCE:
		c->force = true;
		return 0;
	case O_FORMAT:
		c->stdout_w = report_writer_find(val);
		if (!c->stdout_w) {
			pr_err("%s: unknown format '%s' (expected one of: %s)", what, val, report_writer_names(false));
			return -EINVAL;
		}
		return 0;
	case O_MAXS:
		return parse_double(what, val, 0.001, 3600, &c->o.max_seconds);
	case O_CI:
		return parse_double(what, val, 0.0001, 0.5, &c->o.target_ci);
	case O_TLIMIT:
		return parse_double(what, val, 0.1, 1e6, &c->o.time_limit_s);
	case O_STRICT:
		c->strict = true;
		return 0;
	case O_FAMILY:
		if (c->nfam == ARRAY_SIZE(c->families)) {
			pr_err("%s: at most %zu families", what, ARRAY_SIZE(c->families));
			return -EINVAL;
		}
		c->families[c->nfam++] = val;
		return 0;
	case O_NOTWINS:
		c->twins = false;
		return 0;
	case O_PATTERN:
		c->o.patterns = val;
		return 0;
	case O_FOOTPRINT:
		return pattern_parse_size(what, val, &c->o.footprint);
	case O_MEMNODE:
		if (parse_u64(what, val, 0, 4095, &v) < 0)
			return -EINVAL;
		c->o.mem_node = (int)v;
		return 0;
	case O_EVENTS:
		c->o.events = val;
		return 0;
	case O_REQEV:
		c->o.require_events = true;
		return 0;
	case O_NOSPLIT:
		c->o.no_split_lock = true;
		return 0;
	case O_THREADS:
		if (parse_u64(what, val, 1, 4096, &v) < 0)
			return -EINVAL;
		c->o.threads = (unsigned)v;
		return 0;
	case O_PLACEMENT:
		c->o.placement = val;
		return 0;
	case O_SHARING:
		c->o.sharing = val;
		return 0;
	case O_CSWORK:
		return parse_u64(what, val, 0, 1000000, &c->o.cs_work);
	case O_OUTWORK:
		return parse_u64(what, val, 0, 1000000, &c->o.out_work);
	case O_EPOCHS:
		if (parse_u64(what, val, 1, 1000, &v) < 0)
			return -EINVAL;
		c->o.epochs = (unsigned)v;
		return 0;
	}
	pr_err("run: option %s is not handled (internal error)", what);
	return -EINVAL;
}

/* An experiment file's [run] keys, through the same options (command-line
 * options applied after them win). The schema names the option of each
 * key; a key naming no option of run_options[] is a programming error,
 * caught on every run. List keys (probes, family) apply item by item;
 * `twins = false` is --no-twins, `split_lock = no` --no-split-lock, a true
 * boolean its flag. */
static int apply_experiment(struct run_cmd *c, const struct experiment *e, char **strbuf)
{
	size_t need = 1, used = 0;

	for (size_t i = 0; i < cfg_schema_count; i++)
		if (e->value[i])
			need += strlen(e->value[i]) + 1;
	*strbuf = malloc(need);
	if (!*strbuf)
		return -ENOMEM;
	for (size_t i = 0; i < cfg_schema_count; i++) {
		const struct cfg_key *k = &cfg_schema[i];
		const struct run_option *r = k->option && *k->option ? run_option_named(k->option + 2) : NULL;
		char what[96], *buf, *save = NULL, *tok;
		int err = 0;

		if (!k->option)
			continue;
		if (*k->option && !r) {
			pr_err("run: [run] %s maps to %s, which 'atomcost run' does not have (internal error)",
			       k->key, k->option);
			return -EINVAL;
		}
		if (!e->value[i])
			continue;
		snprintf(what, sizeof(what), "%s: [run] %s", e->file ? e->file : "--set", k->key);
		buf = strcpy(*strbuf + used, e->value[i]);
		used += strlen(buf) + 1;
		if (k->type == CFG_BOOL) {
			bool b = config_bool(e, k->section, k->key);

			if (r->id == O_NOTWINS || r->id == O_NOSPLIT ? !b : b)
				err = apply_option(c, r->id, what, NULL);
		} else if (!r || k->type == CFG_STR_LIST) {
			for (tok = strtok_r(buf, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
				while (*tok == ' ' || *tok == '\t')
					tok++;
				for (char *end = tok + strlen(tok); end > tok && (end[-1] == ' ' || end[-1] == '\t');)
					*--end = 0;
				err = r ? apply_option(c, r->id, what, tok) : select_arg(&c->sel, tok);
			}
		} else {
			err = apply_option(c, r->id, what, buf);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Without probe names or families: the default set (the characterization
 * adds the locks and per-CPU ops); then each probe's twin, for the ratio. */
static void select_defaults(struct run_cmd *rc, bool named, bool characterize)
{
	size_t n;

	if (!named && !rc->nfam)
		for (size_t i = 0; i < probe_count; i++)
			if ((probe_table[i]->in_default ||
			     (characterize && (!strcmp(probe_table[i]->family, "lock") ||
					       !strcmp(probe_table[i]->family, "percpu")))) &&
			    !probe_unsupported(probe_table[i]))
				select_add(&rc->sel, probe_table[i]);
	if (!rc->twins)
		return;
	n = rc->sel.n;
	for (size_t i = 0; i < n; i++) {
		const struct probe *tw = rc->sel.list[i]->twin ? probe_find(rc->sel.list[i]->twin) : NULL;

		if (tw && !probe_unsupported(tw))
			select_add(&rc->sel, tw);
	}
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
	rc->o.progress = isatty(STDERR_FILENO);
	ret = pattern_check(*tp, &rc->o);	/* names, sizes, memory: before measuring */
	return ret < 0 ? exit_code_for(ret) : EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	static struct pmu_set evset;	/* large: not on the stack */
	struct option opts[ARRAY_SIZE(run_options) + 1];
	struct run_cmd rc = { .twins = true };
	const struct report_writer *file_w = NULL;
	bool characterize = false, named;
	struct report rep;
	struct topo *t = NULL;
	int c, ret, code = EXIT_OK;
	/* experiment file (config.c): its [run] keys are applied through the
	 * option table first, so the command line wins */
	struct experiment *exp = NULL;
	char **orig_argv = argv, *strbuf = NULL;
	int orig_argc = argc;

	for (size_t i = 0; i < ARRAY_SIZE(run_options); i++)
		opts[i] = (struct option){ run_options[i].name, run_options[i].has_arg, NULL, run_options[i].id };
	memset(&opts[ARRAY_SIZE(run_options)], 0, sizeof(opts[0]));
	runner_default_opts(&rc.o);
	rc.stdout_w = report_writer_find("text");
	ret = config_prepare_run(orig_argc, orig_argv, &argc, &argv, &exp);
	if (ret < 0)
		return exit_code_for(ret);
	if (exp && (ret = apply_experiment(&rc, exp, &strbuf)) < 0) {
		code = exit_code_for(ret);
		goto out_cfg;
	}
	while ((c = getopt_long(argc, argv, "o:e:h", opts, NULL)) != -1) {
		char what[40];

		if (c == O_HELP) {
			run_usage(stdout);
			code = EXIT_OK;
			goto out_cfg;
		}
		if (c == '?' || c == ':') {
			run_usage(stderr);
			code = EXIT_USAGE;
			goto out_cfg;
		}
		for (size_t i = 0; i < ARRAY_SIZE(run_options); i++)
			if (run_options[i].id == c)
				snprintf(what, sizeof(what), "--%s", run_options[i].name);
		if (apply_option(&rc, c, what, optarg) < 0) {
			code = EXIT_USAGE;
			goto out_cfg;
		}
	}

	named = optind < argc || rc.sel.n > 0;	/* on the command line or in [run] probes */
	for (int i = optind; i < argc; i++) {
		ret = select_arg(&rc.sel, argv[i]);
		if (ret < 0) {
			code = exit_code_for(ret);
			goto out_cfg;
		}
	}
	for (size_t i = 0; i < rc.nfam; i++)
		if (select_family(&rc.sel, rc.families[i]) < 0) {
			code = EXIT_USAGE;
			goto out_cfg;
		}
	/* no probe names, families, experiment file or engine options: the
	 * default characterization of this machine (session.c) */
	characterize = !named && !rc.nfam && (!exp || config_kind_has(exp, "characterization")) && !rc.o.patterns && !rc.o.placement && !rc.o.sharing &&
		       rc.o.threads < 2;
	select_defaults(&rc, named, characterize);

	code = prepare_run(&rc, &evset, &t, &file_w);
	if (code != EXIT_OK)
		goto out_cfg;

	report_init(&rep);
	rep.meta = make_meta(orig_argc, orig_argv);
	session_identity(&rep, t, rc.o.cpu_os);
	json_object_set_new(rep.meta, "experiment", experiment_json(&rc.o, &rc.sel));
	if (exp) {	/* the file, the overrides, every key and where it came from */
		json_t *cj = config_to_json(exp);

		json_object_update(json_object_get(rep.meta, "experiment"), cj);
		json_decref(cj);
	}

	ret = session_run(t, &rc.o, rc.sel.list, rc.sel.n, exp, characterize,
			  rc.stdout_w == report_writer_find("text") ? stdout : stderr, &rep);
	if (ret < 0 && ret != -EINTR) {
		code = exit_code_for(ret);
		goto out;
	}
	if (ret == -EINTR)
		code = cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;

	if (!exp || characterize || config_kind_has(exp, "probes") || rc.stdout_w != report_writer_find("text"))
		rc.stdout_w->write(&rep, stdout);
	fflush(stdout);
	if (rc.out) {
		ret = report_write_file(&rep, file_w, rc.out, rc.force);
		if (ret < 0) {
			if (code == EXIT_OK)
				code = exit_code_for(ret);
		} else {
			pr_info("report written to %s%s", rc.out, rep.partial ? " (partial)" : "");
		}
	}
	if (code == EXIT_OK && rc.strict && session_untrustworthy(&rep))
		code = EXIT_UNTRUSTED;
out:
	report_free(&rep);
out_cfg:
	topo_close(t);
	free(strbuf);
	config_free(exp);
	config_free_argv(argv, orig_argv);
	return code;
}
