/* SPDX-License-Identifier: MIT */
/* cmd/cmd.h - subcommands. Each takes its own argv (argv[0] is the command name)
 * and returns an exit code from common.h; only main() exits. */
#ifndef ATOMCOST_CMD_H
#define ATOMCOST_CMD_H

#include <signal.h>

int cmd_topo(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_hierarchy(int argc, char **argv);
/* run's options that are [run] keys into the schema, before any experiment
 * loads (and before the reproductions' sections); config_schema_add's return. */
int cmd_run_keys(void);

/* Signal that interrupted the run (0: none); set by main's handler. */
extern volatile sig_atomic_t cmd_signal;

#endif
