/* SPDX-License-Identifier: MIT */
/* topo.h - hwloc topology: description, PU pair classes, placement planning
 * (pure, works on synthetic/XML topologies) and a separate bind step (only on
 * the real system).
 */
#ifndef ATOMCOST_TOPO_H
#define ATOMCOST_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <hwloc.h>
#include <jansson.h>

#include "vocab.h"	/* enum pair_class, its names */

struct topo;

/* Load the topology: this system when both are NULL, else a synthetic
 * description ("pack:2 numa:2 l3:2 core:4 pu:2") or an XML file. Returns 0 or
 * -errno after printing a message. A loaded topology is never bound to. */
int topo_open(struct topo **out, const char *synthetic, const char *xml);
void topo_close(struct topo *t);

bool topo_is_thissystem(const struct topo *t);

/* Allowed PUs (process cpuset for this system, all PUs otherwise), as OS
 * indexes in logical order. */
int topo_allowed_count(const struct topo *t);
int topo_allowed_os(const struct topo *t, int i);
bool topo_os_allowed(const struct topo *t, int os_index);
/* Logical index of the PU with this OS index, or -1. */
int topo_logical_of_os(const struct topo *t, int os_index);

/* Data (or unified) cache of the given level (1..5) above the first allowed
 * PU: size in bytes, line size in bytes; 0 when hwloc does not know. */
size_t topo_cache_size(const struct topo *t, int level);
unsigned topo_line_size(const struct topo *t);
/* Size of the last-level data cache above the first allowed PU. */
size_t topo_llc_size(const struct topo *t);
int topo_numa_count(const struct topo *t);

/* Class of the pair of PUs given by OS index. */
enum pair_class topo_classify(const struct topo *t, int os_a, int os_b);
/* First pair (allowed PUs, logical order) of the given class: 0, or -ENOENT
 * when the topology has no such pair. */
int topo_find_pair(const struct topo *t, enum pair_class c, int *os_a, int *os_b);

/* Placement plan for nthreads threads. spec is one of smt|l2|l3|numa|package|
 * cross (thread 0 and 1 form a pair of exactly that class, the first one in
 * logical order for 2 threads; every further thread is of that class
 * relative to thread 0, else -ENOENT), spread (round robin
 * over packages, then NUMA nodes, L3 and L2 caches, then cores, the second SMT
 * sibling of a core last), or list:0,3,5 (OS indexes, at least nthreads of
 * them, the first nthreads used). Fills os_out[0..n).
 * Returns 0, -ENOENT when the class is absent here (message says so), or
 * -EINVAL for a bad spec or a CPU outside the allowed set. Pure: never binds. */
int topo_plan(const struct topo *t, const char *spec, int nthreads, int *os_out);

/* Parse a CPU list "0,2-4" of OS indexes, each in the allowed set, no
 * duplicates. Returns the count or -EINVAL after a message. */
int topo_parse_cpulist(const struct topo *t, const char *what, const char *s,
		       int *out, int max);

/* The PU a command runs on: the one CPU of arg (a --cpu value, in the
 * allowed set), or the first allowed PU when arg is NULL. 0, or -EINVAL
 * after a message naming the bad value. */
int topo_parse_one_cpu(const struct topo *t, const char *arg, int *os_out);
/* Bind the calling thread to one PU (HWLOC_CPUBIND_THREAD|STRICT) and verify
 * with sched_getcpu(). -ENOTSUP on a synthetic/XML topology, -EINVAL when the
 * PU is not allowed, -EIO when the check fails. */
int topo_bind_thread(struct topo *t, int os_index);

/* Bind a memory range to a NUMA node (by logical index). -ENOTSUP where not
 * possible, -EINVAL for a bad node. */
int topo_bind_memory(struct topo *t, void *addr, size_t len, int node);

/* Human description (the `topo` command) and its JSON form. */
void topo_print(const struct topo *t, FILE *f);
json_t *topo_to_json(const struct topo *t);
/* One-line summary, e.g. "1 package, 1 NUMA node, 2 cores, 2 PUs, no SMT". */
void topo_summary(const struct topo *t, char *buf, size_t len);

#endif
