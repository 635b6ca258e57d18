/* SPDX-License-Identifier: MIT */
/* main.c - parse the subcommand, dispatch, exit with its code. The only
 * file that exits. Exit codes are documented in README "Exit codes". */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "cmd/cmd.h"
#include "common.h"
#include "build-config.h"
#include "fingerprint.h"
#include "repro/repro.h"
#include "runner.h"

volatile sig_atomic_t cmd_signal;

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "no names: characterize this machine, card first; else measure the probes named" },
	{ "list", cmd_list, "every probe with its twin, atomicity, instruction and kernel primitive" },
	{ "topo", cmd_topo, "topology: caches, PUs, allowed cpuset, PU pair classes" },
	{ "calibrate", cmd_calibrate, "timer frequency, overhead and ticks per core cycle" },
	{ "c2c", cmd_c2c, "cache-line round trip between PUs: one pair per topology class or all pairs" },
	{ "config", cmd_config, "experiment files: --schema prints every key, --check FILE loads one" },
	{ "compare", cmd_compare, "what changed between two reports, beyond the noise; 3+ reports: machines side by side" },
	{ "report", cmd_report, "rewrite a JSON report as HTML (card, charts), text, mail, CSV, JSON or a summary" },
	{ "events", cmd_events, "which PMU and software events count here, and why the others do not" },
	{ "hierarchy", cmd_hierarchy, "memory hierarchy measured (latency staircase vs hwloc) and the split-lock cost" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: atomcost COMMAND [OPTIONS]\n\n"
		   "Measures what atomic primitives cost against their non-atomic twins.\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'atomcost COMMAND --help' for a command's options.\n"
		   "exit codes: 0 ok, 1 runtime failure, 2 usage/config error, 3 missing resource,\n"
		   "            4 unsupported here, 5 untrustworthy (--strict), 130/143 interrupted\n");
}

/* First signal: stop between samples, join threads, write what was measured.
 * A second one (the user insists, or the run is stuck) takes the default
 * action at once. */
static void on_signal(int sig)
{
	if (cmd_signal) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	cmd_signal = sig;
	runner_stop = 1;
}

/* A report that did not reach stdout (a full disk, a closed pipe) is a
 * failure, not exit 0. */
static int stdout_checked(int rc)
{
	int err = fflush(stdout) ? errno : ferror(stdout) ? EIO : 0;

	if (!err)
		return rc;
	pr_err("writing standard output: %s (check the disk or the pipe it goes to)", strerror(err));
	return rc == EXIT_OK ? EXIT_RUNTIME : rc;
}

static const char *command_name_at(size_t i, void *arg)
{
	return i < ARRAY_SIZE(commands) ? commands[i].name : NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const char *s;
	char mean[96];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("atomcost %s\n", ATOMCOST_VERSION);
		return EXIT_OK;
	}
	fingerprint_arch = (struct fingerprint_arch){ ARCH_NAME, ARCH_ATOMICS_IMPL };
	/* the config keys: [run]'s, then the reproductions', before any experiment loads */
	if (cmd_run_keys() < 0 || repro_register() < 0)
		return EXIT_RUNTIME;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			exit(stdout_checked(commands[i].fn(argc - 1, argv + 1)));

	s = suggest_name(argv[1], command_name_at, ARRAY_SIZE(commands), NULL);
	pr_err("unknown command '%s'%s (see 'atomcost --help')", argv[1],
	       did_you_mean(s, mean, sizeof(mean)));
	return EXIT_USAGE;
}
