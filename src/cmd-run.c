/* cmd-run.c - `atomcost run`: select probes, measure, print, write. */
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "config.h"
#include "repro.h"
#include "session.h"
#include "card.h"
#include "pattern.h"
#include "contention.h"
#include "fingerprint.h"
#include "pmu.h"
#include "probes.h"
#include "report.h"
#include "runner.h"
#include "topo.h"

static void run_usage(FILE *f)
{
	struct run_opts d;	/* the defaults the help prints are the code's */

	runner_default_opts(&d);
	fprintf(f,
		"usage: atomcost run [PROBE|GLOB ...] [options]\n"
		"  (no PROBE, family or file: characterize this machine, about a minute: measured\n"
		"  hierarchy, every twin under hit/dep/l2/llc/miss, locks, split lock, topology;\n"
		"  the machine card first)\n"
		"  PROBE|GLOB          probe names or shell globs ('*set_bit*').\n"
		"                      Each probe's twin is measured too, for the ratio (--no-twins: not)\n"
		"  --family NAME       every probe of a family (baseline, bitops, cmpxchg, lock, percpu, ...)\n"
		"  --cpu N             PU to run on (OS index, in the allowed cpuset); default: first allowed\n"
		"  --mode LIST         latency,throughput (default both)\n"
		"  -o, --output FILE   write the report; format from the extension (.json, .txt, .html, ...)\n"
		"  --force             overwrite an existing output file\n"
		"  --format FMT        what goes to stdout: text (default), json, csv, mail, html, summary\n"
		"  --max-seconds S     time cap per probe and form (default %g)\n"
		"  --target-ci R       stop a probe once the median's 95%% CI half-width is below R (default %g)\n"
		"  --time-limit S      cap the whole run; what was measured is written, marked partial\n"
		"  --strict            exit 5 when the results are untrustworthy (calibration, migrations)\n"
		"  --pattern LIST      access patterns: hit (default), dep, l2, llc, miss, miss-overlap,\n"
		"                      mix=K/M; 'atomcost list --patterns' says what each measures\n"
		"  --footprint BYTES   buffer of the dep/l2/llc/miss patterns (64M, 2G); default from hwloc\n"
		"  --mem-node N        bind the pattern buffers to NUMA node N\n"
		"  --threads N         N pinned threads on one cache line (contention); each case runs\n"
		"                      --max-seconds; ns/op per thread and aggregate, fairness, overlap\n"
		"  --placement P       smt|l2|l3|numa|package|cross (threads pairwise of that class with\n"
		"                      thread 0; absent here: exit 4), spread (default), list:0,3,5\n"
		"  --sharing LIST      true (same word), false (own words, same line), none (private\n"
		"                      lines); default true,false,none\n"
		"  --cs-work N         lock probes: N work units (~1 cycle each) inside the critical section\n"
		"  --outside-work N    lock probes: N work units between one unlock and the next lock\n"
		"  -e, --events LIST   count events around each sample: cycles, instructions, cache-misses,\n"
		"                      L1-dcache-load-misses, LLC-load-misses, ... or libpfm4 names\n"
		"                      (PMU::EVENT:UMASK); 'atomcost events' shows what counts here. One that\n"
		"                      cannot be counted prints as n/a (reason). context-switches,\n"
		"                      cpu-migrations and task-clock are always counted\n"
		"  --require-events    exit 4 before measuring when an event of -e cannot be counted here\n"
		"  FILE.conf, -c FILE  run an experiment file (configs/*.conf; 'atomcost config --schema');\n"
		"                      options given on the command line override the file's [run] keys\n"
		"  --set SEC.KEY=VAL   override any experiment key (--set buddy-bitmap-2004.trials=10)\n",
		d.max_seconds, d.target_ci);
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
			 "time_limit_s", o->time_limit_s, "repeat", o->repeat ? o->repeat : 1);
}

int cmd_run(int argc, char **argv)
{
	static struct pmu_set evset;	/* large: not on the stack */
	enum { O_FORCE = 256, O_FORMAT, O_MAXS, O_CI, O_TLIMIT, O_STRICT, O_FAMILY, O_NOTWINS, O_MODE, O_CPU,
	       O_PATTERN, O_MEMNODE, O_REQEV, O_THREADS, O_PLACEMENT, O_SHARING, O_REPEAT,
	       O_CSWORK, O_OUTWORK, O_FOOTPRINT };
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, O_CPU },
		{ "mode", required_argument, NULL, O_MODE },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "max-seconds", required_argument, NULL, O_MAXS },
		{ "target-ci", required_argument, NULL, O_CI },
		{ "time-limit", required_argument, NULL, O_TLIMIT },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "family", required_argument, NULL, O_FAMILY },
		{ "no-twins", no_argument, NULL, O_NOTWINS },
		{ "pattern", required_argument, NULL, O_PATTERN },
		{ "mem-node", required_argument, NULL, O_MEMNODE },
		{ "footprint", required_argument, NULL, O_FOOTPRINT },
		{ "events", required_argument, NULL, 'e' },
		{ "require-events", no_argument, NULL, O_REQEV },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "placement", required_argument, NULL, O_PLACEMENT },
		{ "sharing", required_argument, NULL, O_SHARING },
		{ "cs-work", required_argument, NULL, O_CSWORK },
		{ "outside-work", required_argument, NULL, O_OUTWORK },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *cpu_arg = NULL, *families[8];
	const struct report_writer *stdout_w = report_writer_find("text"), *file_w = NULL;
	struct selection sel = { .n = 0 };
	bool force = false, strict = false, twins = true, characterize = false;
	size_t nfam = 0;
	struct run_opts o;
	struct report rep;
	struct topo *t = NULL;
	int c, ret, code = EXIT_OK;
	/* experiment file (config.c): its [run] keys become options placed
	 * before the command line's, so the command line wins */
	struct experiment *exp = NULL;
	char **orig_argv = argv;
	int orig_argc = argc;

	ret = config_prepare_run(orig_argc, orig_argv, &argc, &argv, &exp);
	if (ret < 0)
		return exit_code_for(ret);
	runner_default_opts(&o);
	while ((c = getopt_long(argc, argv, "o:e:h", opts, NULL)) != -1) {
		switch (c) {
		case O_CPU:
			cpu_arg = optarg;
			break;
		case O_MODE:
			if (parse_modes(optarg, &o.mode_mask) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case O_FORCE:
			force = true;
			break;
		case O_FORMAT:
			stdout_w = report_writer_find(optarg);
			if (!stdout_w) {
				pr_err("--format: unknown format '%s' (expected one of: %s)", optarg, report_writer_names(false));
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_MAXS:
			if (parse_double("--max-seconds", optarg, 0.001, 3600, &o.max_seconds) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_CI:
			if (parse_double("--target-ci", optarg, 0.0001, 0.5, &o.target_ci) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_TLIMIT:
			if (parse_double("--time-limit", optarg, 0.1, 1e6, &o.time_limit_s) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_STRICT:
			strict = true;
			break;
		case O_FAMILY:
			if (nfam == ARRAY_SIZE(families)) {
				pr_err("--family: at most %zu families", ARRAY_SIZE(families));
				code = EXIT_USAGE;
				goto out_cfg;
			}
			families[nfam++] = optarg;
			break;
		case O_NOTWINS:
			twins = false;
			break;
		case O_PATTERN:
			o.patterns = optarg;
			break;
		case O_FOOTPRINT:
			if (pattern_parse_size("--footprint", optarg, &o.footprint) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_MEMNODE: {
			uint64_t v;

			if (parse_u64("--mem-node", optarg, 0, 4095, &v) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			o.mem_node = (int)v;
			break;
		}
		case 'e':
			o.events = optarg;
			break;
		case O_REQEV:
			o.require_events = true;
			break;
		case O_THREADS: {
			uint64_t v;

			if (parse_u64("--threads", optarg, 1, 4096, &v) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			o.threads = (unsigned)v;
			break;
		}
		case O_PLACEMENT:
			o.placement = optarg;
			break;
		case O_SHARING:
			o.sharing = optarg;
			break;
		case O_CSWORK:
			if (parse_u64("--cs-work", optarg, 0, 1000000, &o.cs_work) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_OUTWORK:
			if (parse_u64("--outside-work", optarg, 0, 1000000, &o.out_work) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			break;
		case O_REPEAT: {
			uint64_t v;

			if (parse_u64("--repeat", optarg, 1, 1000, &v) < 0) {
				code = EXIT_USAGE;
				goto out_cfg;
			}
			o.repeat = (unsigned)v;
			break;
		}
		case 'h':
			run_usage(stdout);
			code = EXIT_OK;
			goto out_cfg;
		default:
			run_usage(stderr);
			code = EXIT_USAGE;
			goto out_cfg;
		}
	}

	for (int i = optind; i < argc; i++) {
		ret = select_arg(&sel, argv[i]);
		if (ret < 0) {
			code = exit_code_for(ret);
			goto out_cfg;
		}
	}
	for (size_t i = 0; i < nfam; i++)
		if (select_family(&sel, families[i]) < 0) {
			code = EXIT_USAGE;
			goto out_cfg;
		}
	/* no probe names, families, experiment file or engine options: the
	 * default characterization of this machine (session.c) */
	characterize = optind == argc && !nfam && !exp && !o.patterns && !o.placement && !o.sharing &&
		       o.threads < 2 && o.repeat <= 1;
	if (optind == argc && !nfam)
		for (size_t i = 0; i < probe_count; i++)
			if ((probe_table[i]->in_default ||
			     /* the characterization times the locks and per-CPU ops too */
			     (characterize && (!strcmp(probe_table[i]->family, "lock") ||
					       !strcmp(probe_table[i]->family, "percpu")))) &&
			    !probe_unsupported(probe_table[i]))
				select_add(&sel, probe_table[i]);
	if (twins) {
		size_t n = sel.n;

		for (size_t i = 0; i < n; i++) {
			const struct probe *tw = sel.list[i]->twin ? probe_find(sel.list[i]->twin) : NULL;

			if (tw && !probe_unsupported(tw))
				select_add(&sel, tw);
		}
	}

	/* events (pmu.c): every name is checked and every event tried before
	 * anything is measured, so a typo or a missing PMU costs no run time */
	ret = pmu_set_resolve(&evset, o.events, o.require_events);
	if (ret < 0)
		return exit_code_for(ret);	/* 2: unknown name, 4: --require-events unmet */
	o.pmu = &evset;

	if (out) {
		file_w = report_writer_for_path(out);
		if (!file_w) {
			pr_err("-o: cannot tell the format of '%s' from its extension (use one of %s)", out,
			       report_writer_names(true));
			code = EXIT_USAGE;
			goto out_cfg;
		}
		ret = report_check_path(out, force);
		if (ret < 0) {
			code = ret == -EEXIST ? EXIT_USAGE : exit_code_for(ret);
			goto out_cfg;
		}
	}

	ret = topo_open(&t, NULL, NULL);
	if (ret < 0) {
		code = exit_code_for(ret);
		goto out_cfg;
	}
	o.cpu_os = topo_allowed_os(t, 0);
	if (cpu_arg) {
		ret = topo_parse_cpulist(t, "--cpu", cpu_arg, &o.cpu_os, 1);
		if (ret != 1) {
			if (ret >= 0)
				pr_err("--cpu: give one CPU, not '%s'", cpu_arg);
			code = EXIT_USAGE;
			goto out_cfg;
		}
	}
	o.progress = isatty(STDERR_FILENO);
	ret = pattern_check(t, &o);	/* names, sizes, memory: before measuring */
	if (ret < 0) {
		code = exit_code_for(ret);
		goto out_cfg;
	}

	report_init(&rep);
	{
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(rep.started, sizeof(rep.started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	rep.meta = make_meta(orig_argc, orig_argv);
	rep.topo = topo_to_json(t);
	topo_summary(t, rep.topo_summary, sizeof(rep.topo_summary));
	json_object_set_new(rep.meta, "experiment", experiment_json(&o, &sel));
	if (exp) {	/* the file, the overrides, every key and where it came from */
		json_t *cj = config_to_json(exp);

		json_object_update(json_object_get(rep.meta, "experiment"), cj);
		json_decref(cj);
	}
	json_object_set_new(rep.meta, "fingerprint",
			    fingerprint_collect(NULL, o.cpu_os, rep.topo_summary));

	/* --threads N (N >= 2), --placement or --sharing: N pinned threads on
	 * one line (contention.c) instead of the single-thread runner */
	if (exp && !config_kind_has(exp, "probes"))
		ret = 0;	/* reproductions only */
	else if (o.threads >= 2 || o.placement || o.sharing)
		ret = contention_run(t, &o, sel.list, sel.n, &rep);
	else if (characterize)
		ret = session_characterize(t, &o, sel.list, sel.n, &rep);
	else
		ret = session_passes(t, &o, sel.list, sel.n, &rep);
	/* reproductions of published scorings (repro-*.c) print their
	 * seed-shaped tables as they go (to stderr when stdout is JSON) */
	if (exp && ret >= 0)
		ret = repro_run_all(exp, t, &o, &rep,
				    stdout_w == report_writer_find("text") ? stdout : stderr);
	fingerprint_set_clock(fingerprint_of_meta(rep.meta), &rep.cal);
	if (ret < 0 && ret != -EINTR) {
		code = exit_code_for(ret);
		goto out;
	}
	if (ret == -EINTR)
		code = cmd_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;

	if (!exp || config_kind_has(exp, "probes") || stdout_w != report_writer_find("text"))
		stdout_w->write(&rep, stdout);
	fflush(stdout);
	if (out) {
		ret = report_write_file(&rep, file_w, out, force);
		if (ret < 0) {
			if (code == EXIT_OK)
				code = exit_code_for(ret);
		} else {
			pr_info("report written to %s%s", out, rep.partial ? " (partial)" : "");
		}
	}
	if (code == EXIT_OK && strict) {
		bool bad = !rep.cal.trustworthy;

		for (size_t i = 0; i < rep.n; i++) {
			const struct result *r = &rep.r[i];
			json_t *ct = r->extra ? json_object_get(r->extra, "contention") : NULL;

			bad |= r->migrated;
			/* more than 5% of the samples saw a context switch or a migration */
			if (r->disturbed > 0 && r->nsamples && r->disturbed * 20 > (long)r->nsamples) {
				pr_warn("run: %s %s: %ld of %zu samples disturbed (context switch or migration)",
					r->name, probe_mode_name(r->mode), r->disturbed, r->nsamples);
				bad = true;
			}
			/* a contention case whose threads did not run at the same time */
			if (ct && json_is_false(json_object_get(ct, "overlapped"))) {
				pr_warn("run: %s: the threads did not overlap: not a contention measurement",
					r->name);
				bad = true;
			}
		}
		if (bad && rep.cal.emulated) {
			pr_err("run: --strict: results untrustworthy: running under emulation (%s)",
			       rep.cal.emulation);
			code = EXIT_UNTRUSTED;
		} else if (bad) {
			pr_err("run: --strict: results untrustworthy (calibration disagrees with itself, a thread migrated, samples disturbed or threads not overlapping: see above and the report)");
			code = EXIT_UNTRUSTED;
		}
	}
out:
	report_free(&rep);
out_cfg:
	topo_close(t);
	config_free(exp);
	config_free_argv(argv, orig_argv);
	return code;
}
