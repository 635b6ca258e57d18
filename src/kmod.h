/* SPDX-License-Identifier: MIT */
/* kmod.h - `atomcost run --context kernel`: the probes of atomcost.ko
 * (kernel/, docs/kernel.md), timed in the kernel, as report rows.
 */
#ifndef ATOMCOST_KMOD_H
#define ATOMCOST_KMOD_H

#include <stddef.h>

#include "result.h"
#include "runner.h"
#include "topo.h"

/* Build atomcost.ko if needed (ATOMCOST_KMOD names a built one), load it,
 * pin to o->cpu_os and calibrate, run the probes named by the globs of
 * names (n 0: every one it lists; o->mode_mask picks latency and :tput
 * forms) on that CPU through debugfs, each as one row with context
 * "kernel", and unload it, whatever happens (a guard process unloads it
 * if this one dies). 0, -EINTR (rep->partial), or -errno after a message:
 * -ENOTSUP for a refusal (architecture, not root, lockdown), -ENOENT for
 * what is missing (kernel build directory, the module's sources). */
int kmod_run(struct topo *t, const struct run_opts *o, char *const *names, size_t n,
	     struct report *rep);

#endif
