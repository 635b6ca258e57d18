/* SPDX-License-Identifier: MIT */
/* topo.c - the machine as hwloc describes it: allowed PUs, caches, classes of
 * PU pairs, placement plans, and a separate bind step for the real system.
 *
 * Everything a placement needs is computed once in topo_open(): for each PU
 * (by hwloc logical index) the logical index of its core, L2, L3, NUMA node
 * and package. Classifying a pair is then a handful of int compares, so that
 * finding (or proving absent) a pair class on a 1024-PU machine is an O(n^2)
 * loop over int arrays, a few milliseconds (docs/method.md).
 */
#include "topo.h"
#include "common.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum topo_source {
	SRC_SYSTEM,
	SRC_SYNTHETIC,
	SRC_XML,
};

struct topo {
	hwloc_topology_t h;
	enum topo_source source;
	bool thissystem;
	char *desc;		/* synthetic string or XML path */

	int npu;		/* all PUs of the topology */
	int *pu_os;		/* [logical] -> OS index */
	/* [class][logical] -> logical index of the object a pair of that class
	 * shares (core, L2, L3, NUMA node, package), -1 if none (see classify) */
	int *id[PAIR_CROSS];

	int max_os;
	int *os_to_log;		/* [0..max_os] -> logical index or -1 */

	hwloc_bitmap_t allowed;	/* OS indexes */
	int nallowed;
	int *allowed_log;	/* allowed PUs, logical order */

	size_t cache_size[6];	/* [level], data or unified, above the first allowed PU */
	unsigned line;
	int smt_ways;		/* most PUs in one core; above 1: SMT */
	int ncores;
	int npkg;
	int nnuma;
};


static const hwloc_obj_type_t cache_types[6] = {
	[1] = HWLOC_OBJ_L1CACHE,
	[2] = HWLOC_OBJ_L2CACHE,
	[3] = HWLOC_OBJ_L3CACHE,
	[4] = HWLOC_OBJ_L4CACHE,
	[5] = HWLOC_OBJ_L5CACHE,
};

static bool is_data_cache(hwloc_obj_t o)
{
	return hwloc_obj_type_is_dcache(o->type) &&
	       o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION;
}

static const char *const source_names[] = {
	[SRC_SYSTEM] = "system", [SRC_SYNTHETIC] = "synthetic", [SRC_XML] = "xml",
};

static int load_hwloc(struct topo *t, const char *synthetic, const char *xml)
{
	int err = 0;

	if (hwloc_topology_init(&t->h)) {
		err = -errno;
		pr_err("topology: hwloc_topology_init failed: %s", strerror(errno));
		t->h = NULL;
		return err;
	}
	t->source = synthetic ? SRC_SYNTHETIC : xml ? SRC_XML : SRC_SYSTEM;
	if (synthetic) {
		if (hwloc_topology_set_synthetic(t->h, synthetic)) {
			pr_err("topology: bad synthetic description '%s' (example: 'pack:2 numa:2 l3:2 core:4 pu:2')",
			       synthetic);
			return -EINVAL;
		}
	} else if (xml) {
		if (access(xml, R_OK)) {
			err = -errno;
			pr_err("topology: cannot read XML file '%s': %s (export one with 'lstopo FILE.xml')",
			       xml, strerror(errno));
			return err;
		}
	} else {
		/* Keep the PUs that cgroups forbid in the description; the
		 * allowed set is computed apart (see topo_open). */
		hwloc_topology_set_flags(t->h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	}
	/* hwloc's own XML parser refuses a bad file in the load, the libxml2
	 * one (libhwloc-plugins) already in set_xml: one message for both. */
	errno = 0;
	if (xml && hwloc_topology_set_xml(t->h, xml))
		err = -EINVAL;
	else if (hwloc_topology_load(t->h))
		err = errno ? -errno : -EINVAL;
	if (err) {
		if (t->source == SRC_SYSTEM)
			pr_err("topology: hwloc cannot load this system's topology: %s", strerror(-err));
		else if (xml)
			pr_err("topology: '%s' is not an hwloc XML topology (export one with 'lstopo FILE.xml')",
			       xml);
		else
			pr_err("topology: hwloc cannot load synthetic topology '%s' (check it with 'lstopo-no-graphics -i')",
			       synthetic);
		return err == -ENOENT ? -EINVAL : err;
	}
	/* HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment can replace
	 * this system: hwloc says so, and then we must not bind. */
	t->thissystem = t->source == SRC_SYSTEM && hwloc_topology_is_thissystem(t->h);
	return 0;
}

/* The PUs this process may run on: cgroups (hwloc's allowed set) and the
 * process binding (taskset, sched_setaffinity by a parent). */
static int compute_allowed(struct topo *t)
{
	hwloc_const_cpuset_t hw_allowed = hwloc_topology_get_allowed_cpuset(t->h);
	hwloc_bitmap_t bind;

	t->allowed = hwloc_bitmap_dup(hw_allowed);
	if (!t->allowed)
		return -ENOMEM;
	if (!t->thissystem)
		return 0;
	bind = hwloc_bitmap_alloc();
	if (!bind)
		return -ENOMEM;
	if (!hwloc_get_cpubind(t->h, bind, HWLOC_CPUBIND_PROCESS)) {
		hwloc_bitmap_and(bind, bind, hw_allowed);
		if (!hwloc_bitmap_iszero(bind))
			hwloc_bitmap_copy(t->allowed, bind);
	}
	hwloc_bitmap_free(bind);
	return 0;
}

/* The object a pair of each class shares. */
static const hwloc_obj_type_t shared_type[PAIR_CROSS] = {
	[PAIR_SMT] = HWLOC_OBJ_CORE, [PAIR_L2] = HWLOC_OBJ_L2CACHE, [PAIR_L3] = HWLOC_OBJ_L3CACHE,
	[PAIR_NUMA] = HWLOC_OBJ_NUMANODE, [PAIR_PACKAGE] = HWLOC_OBJ_PACKAGE,
};

/* Each PU's OS index and the logical index of its core, L2, L3, NUMA node
 * and package (-1: none). */
static void pu_ancestors(struct topo *t)
{
	t->max_os = 0;
	for (int i = 0; i < t->npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_PU, i);

		t->pu_os[i] = (int)pu->os_index;
		if ((int)pu->os_index > t->max_os)
			t->max_os = (int)pu->os_index;
		for (int c = 0; c < PAIR_CROSS; c++)
			t->id[c][i] = -1;
		/* A machine without Package objects is one package. */
		if (!t->npkg)
			t->id[PAIR_PACKAGE][i] = 0;
		for (hwloc_obj_t o = pu->parent; o; o = o->parent)
			for (int c = 0; c < PAIR_CROSS; c++)
				if (o->type == shared_type[c] && t->id[c][i] < 0 &&
				    (!hwloc_obj_type_is_cache(o->type) || is_data_cache(o)))
					t->id[c][i] = (int)o->logical_index;
		/* hwloc 2 hangs NUMA nodes as memory children, never parents: the
		 * local node is the first node (logical order) whose cpuset holds
		 * the PU. */
		for (hwloc_obj_t o = NULL; t->id[PAIR_NUMA][i] < 0 &&
		     (o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, o));)
			if (hwloc_bitmap_isset(o->cpuset, pu->os_index))
				t->id[PAIR_NUMA][i] = (int)o->logical_index;
	}
}

static int compute_ids(struct topo *t)
{
	hwloc_obj_t o = NULL;
	int i;

	t->npu = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU);
	if (t->npu <= 0) {
		pr_err("topology: hwloc found no PU in the topology");
		return -EINVAL;
	}
	/* one block for the per-PU arrays; topo_close frees pu_os */
	t->pu_os = calloc((PAIR_CROSS + 2) * (size_t)t->npu, sizeof(int));
	if (!t->pu_os)
		return -ENOMEM;
	for (i = 0; i < PAIR_CROSS; i++)
		t->id[i] = t->pu_os + (i + 1) * t->npu;
	t->allowed_log = t->pu_os + (PAIR_CROSS + 1) * t->npu;
	t->npkg = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE);
	t->ncores = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_CORE);
	t->nnuma = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
	pu_ancestors(t);
	t->smt_ways = 1;
	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_CORE, o)))
		if (hwloc_bitmap_weight(o->cpuset) > t->smt_ways)
			t->smt_ways = hwloc_bitmap_weight(o->cpuset);

	t->os_to_log = malloc(((size_t)t->max_os + 1) * sizeof(int));
	if (!t->os_to_log)
		return -ENOMEM;
	memset(t->os_to_log, 0xff, ((size_t)t->max_os + 1) * sizeof(int));	/* -1: no PU */
	for (i = 0; i < t->npu; i++)
		t->os_to_log[t->pu_os[i]] = i;

	t->nallowed = 0;
	for (i = 0; i < t->npu; i++)
		if (hwloc_bitmap_isset(t->allowed, t->pu_os[i]))
			t->allowed_log[t->nallowed++] = i;
	if (!t->nallowed) {
		pr_err("topology: no PU of the topology is allowed to this process");
		return -EINVAL;
	}
	return 0;
}

static void compute_caches(struct topo *t)
{
	hwloc_obj_t pu = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_PU, t->allowed_log[0]);

	for (hwloc_obj_t o = pu->parent; o; o = o->parent) {
		if (!is_data_cache(o))
			continue;
		unsigned level = o->attr->cache.depth;

		if (level >= 1 && level <= 5 && !t->cache_size[level]) {
			t->cache_size[level] = (size_t)o->attr->cache.size;
			if (level == 1)
				t->line = o->attr->cache.linesize;
		}
	}
	/* hwloc may not know the line size (synthetic, some VMs). */
	if (!t->line)
		t->line = 64;
}

int topo_open(struct topo **out, const char *synthetic, const char *xml)
{
	struct topo *t;
	int err;

	*out = NULL;
	if (synthetic && xml) {
		pr_err("topology: give a synthetic description or an XML file, not both");
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if ((synthetic || xml) && !(t->desc = strdup(synthetic ? synthetic : xml))) {
		err = -ENOMEM;
		goto out_err;
	}
	err = load_hwloc(t, synthetic, xml);
	if (err)
		goto out_err;
	err = compute_allowed(t);
	if (!err)
		err = compute_ids(t);
	if (err)
		goto out_nomem;
	compute_caches(t);
	*out = t;
	return 0;

out_nomem:
	if (err == -ENOMEM)
		pr_err("topology: out of memory");
out_err:
	topo_close(t);
	return err;
}

void topo_close(struct topo *t)
{
	if (!t)
		return;
	if (t->h)
		hwloc_topology_destroy(t->h);
	hwloc_bitmap_free(t->allowed);
	free(t->desc);
	free(t->pu_os);
	free(t->os_to_log);
	free(t);
}

bool topo_is_thissystem(const struct topo *t)
{
	return t->thissystem;
}

int topo_allowed_count(const struct topo *t)
{
	return t->nallowed;
}

int topo_allowed_os(const struct topo *t, int i)
{
	return i >= 0 && i < t->nallowed ? t->pu_os[t->allowed_log[i]] : -1;
}

int topo_logical_of_os(const struct topo *t, int os_index)
{
	return os_index >= 0 && os_index <= t->max_os ? t->os_to_log[os_index] : -1;
}

bool topo_os_allowed(const struct topo *t, int os_index)
{
	return topo_logical_of_os(t, os_index) >= 0 && hwloc_bitmap_isset(t->allowed, os_index);
}

size_t topo_cache_size(const struct topo *t, int level)
{
	return level >= 1 && level <= 5 ? t->cache_size[level] : 0;
}

unsigned topo_line_size(const struct topo *t)
{
	return t->line;
}

size_t topo_llc_size(const struct topo *t)
{
	for (int level = 5; level >= 1; level--)
		if (t->cache_size[level])
			return t->cache_size[level];
	return 0;
}

int topo_numa_count(const struct topo *t)
{
	return t->nnuma;
}

/* -1 means "no such object above this PU": it shares nothing. */
static bool same(const int *id, int a, int b)
{
	return id[a] >= 0 && id[a] == id[b];
}

/* The closest class whose object the two PUs share. */
static enum pair_class classify_log(const struct topo *t, int a, int b)
{
	int c = PAIR_SMT;

	if (a == b)
		return PAIR_SMT;
	while (c < PAIR_CROSS && !same(t->id[c], a, b))
		c++;
	return (enum pair_class)c;
}

/* A PU with itself is as close as it gets (smt); an OS index that is not a
 * PU of the topology shares nothing (cross). */
enum pair_class topo_classify(const struct topo *t, int os_a, int os_b)
{
	int a = topo_logical_of_os(t, os_a), b = topo_logical_of_os(t, os_b);

	return a < 0 || b < 0 ? PAIR_CROSS : classify_log(t, a, b);
}

int topo_find_pair(const struct topo *t, enum pair_class c, int *os_a, int *os_b)
{
	for (int i = 0; i < t->nallowed; i++)
		for (int j = i + 1; j < t->nallowed; j++)
			if (classify_log(t, t->allowed_log[i], t->allowed_log[j]) == c) {
				*os_a = t->pu_os[t->allowed_log[i]];
				*os_b = t->pu_os[t->allowed_log[j]];
				return 0;
			}
	return -ENOENT;
}

static void classes_present(const struct topo *t, char *buf, size_t len)
{
	size_t n = 0;
	int a, b;

	buf[0] = 0;
	for (int c = 0; c < PAIR__COUNT; c++) {
		if (topo_find_pair(t, c, &a, &b))
			continue;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
			      topo_pair_class_name((enum pair_class)(c)));
	}
	if (!n)
		snprintf(buf, len, "none, a single PU is allowed");
}

/* Thread 0 and 1 form the first pair of class c; threads 2.. are further PUs
 * of the same class relative to thread 0, so that every thread talks to
 * thread 0 over the same distance. Thread 0 is the first PU (allowed order)
 * that has enough partners. */
static int plan_class(const struct topo *t, enum pair_class c, int n, int *os_out)
{
	char present[128];
	int i, j, best = 0;

	if (topo_find_pair(t, c, &i, &j)) {
		classes_present(t, present, sizeof(present));
		pr_err("placement: no PU pair of class '%s' on this machine (classes present: %s)",
		       topo_pair_class_name((enum pair_class)(c)), present);
		return -ENOENT;
	}
	for (i = 0; i < t->nallowed; i++) {
		int a = t->allowed_log[i], k = 1;

		os_out[0] = t->pu_os[a];
		for (j = 0; j < t->nallowed && k < n; j++)
			if (j != i && classify_log(t, a, t->allowed_log[j]) == c)
				os_out[k++] = t->pu_os[t->allowed_log[j]];
		if (k >= n)
			return 0;
		if (k > best)
			best = k;
	}
	pr_err("placement: not enough PUs of class '%s' for %d threads (at most %d threads here; use fewer threads or another placement)",
	       topo_pair_class_name((enum pair_class)(c)), n, best);
	return -ENOENT;
}

/* Order the PUs in[0..n) (logical indexes, logical order) so that
 * consecutive ones are as far apart as possible: split by the object of
 * this class they share (package first, then NUMA node, L3, L2, core; a
 * missing object, -1, is one group), order each group one class down, then
 * take one PU of each group in turn. Below the core, the PUs of a core stay
 * in logical order, so the first PU of every core comes before any second
 * SMT sibling. */
static int spread_order(const struct topo *t, const int *in, int n, int c, int *out)
{
	int *keys, *start, *ordered, ng = 0, i, g, k = 0, r, err = 0;

	if (c < PAIR_SMT || n <= 1) {
		memcpy(out, in, n * sizeof(int));
		return 0;
	}
	keys = calloc(3 * (size_t)n + 1, sizeof(int));
	if (!keys)
		return -ENOMEM;
	start = keys + n;	/* [ng + 1]: group g is out[start[g]..start[g + 1]) */
	ordered = start + n + 1;
	for (i = 0; i < n; i++) {
		for (g = 0; g < ng && keys[g] != t->id[c][in[i]]; g++)
			;
		if (g == ng)
			keys[ng++] = t->id[c][in[i]];
	}
	/* out holds the groups one after the other while each is ordered */
	for (g = 0; g < ng && !err; g++) {
		start[g] = k;
		for (i = 0; i < n; i++)
			if (t->id[c][in[i]] == keys[g])
				out[k++] = in[i];
		err = spread_order(t, out + start[g], k - start[g], c - 1, ordered + start[g]);
	}
	start[ng] = n;
	for (k = 0, r = 0; k < n && !err; r++)
		for (g = 0; g < ng; g++)
			if (r < start[g + 1] - start[g])
				out[k++] = ordered[start[g] + r];
	free(keys);
	return err;
}

static int plan_spread(const struct topo *t, int n, int *os_out)
{
	int *order = calloc(t->nallowed, sizeof(int));
	int err;

	if (!order)
		return -ENOMEM;
	err = spread_order(t, t->allowed_log, t->nallowed, PAIR_PACKAGE, order);
	if (!err)
		for (int i = 0; i < n; i++)
			os_out[i] = t->pu_os[order[i]];
	free(order);
	if (err)
		pr_err("placement: out of memory");
	return err;
}

static int plan_list(const struct topo *t, const char *list, int n, int *os_out)
{
	int *cpus = calloc(t->nallowed, sizeof(int));
	int count;

	if (!cpus)
		return -ENOMEM;
	count = topo_parse_cpulist(t, "placement", list, cpus, t->nallowed);
	if (count >= 0 && count < n) {
		pr_err("placement: list '%s' names %d CPU%s for %d threads (give at least %d)",
		       list, count, count == 1 ? "" : "s", n, n);
		count = -EINVAL;
	}
	if (count >= 0)
		memcpy(os_out, cpus, n * sizeof(int));
	free(cpus);
	return count < 0 ? count : 0;
}

int topo_plan(const struct topo *t, const char *spec, int nthreads, int *os_out)
{
	enum pair_class c;
	char allowed[256];

	if (!spec) {
		pr_err("placement: none given (expected smt|l2|l3|numa|package|cross|spread|list:CPUS)");
		return -EINVAL;
	}
	if (nthreads < 1) {
		pr_err("placement: %d threads (expected at least 1)", nthreads);
		return -EINVAL;
	}
	if (nthreads > t->nallowed) {
		hwloc_bitmap_list_snprintf(allowed, sizeof(allowed), t->allowed);
		pr_err("placement: %d threads but only %d PU%s allowed (%s); use at most %d threads",
		       nthreads, t->nallowed, t->nallowed == 1 ? " is" : "s are", allowed,
		       t->nallowed);
		return -EINVAL;
	}
	if (!topo_pair_class_parse(spec, &c))
		return plan_class(t, c, nthreads, os_out);
	if (!strcmp(spec, "spread"))
		return plan_spread(t, nthreads, os_out);
	if (!strncmp(spec, "list:", 5))
		return plan_list(t, spec + 5, nthreads, os_out);
	pr_err("placement: unknown placement '%s' (expected smt|l2|l3|numa|package|cross|spread|list:CPUS)",
	       spec);
	return -EINVAL;
}

/* A message for a CPU outside the allowed set; -EINVAL. */
static int not_allowed(const struct topo *t, const char *what, int cpu)
{
	char allowed[256];

	hwloc_bitmap_list_snprintf(allowed, sizeof(allowed), t->allowed);
	if (t->thissystem)
		pr_err("%s: CPU %d is not in the allowed cpuset %s (see taskset/cgroups)", what, cpu,
		       allowed);
	else
		pr_err("%s: CPU %d is not a PU of this %s topology (PUs: %s)", what, cpu,
		       source_names[t->source], allowed);
	return -EINVAL;
}

/* A decimal CPU number at *p, without sign or spaces; advances *p.
 * -ERANGE when it does not fit an int. */
static int parse_cpu(const char **p, int *out)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > INT_MAX)
			return -ERANGE;
		(*p)++;
	}
	*out = (int)v;
	return 0;
}

int topo_parse_cpulist(const struct topo *t, const char *what, const char *s,
		       int *out, int max)
{
	const char *p = s;
	int count = 0;

	if (!s || !*s) {
		pr_err("%s: empty CPU list (expected OS indexes like '0,2-4')", what);
		return -EINVAL;
	}
	for (;;) {
		const char *tok = p;
		int lo, hi, e;

		e = parse_cpu(&p, &lo);
		hi = lo;
		if (!e && *p == '-') {
			p++;
			e = parse_cpu(&p, &hi);
		}
		if (e == -ERANGE) {
			pr_err("%s: CPU number too large in CPU list '%s' (expected OS indexes like '0,2-4')",
			       what, s);
			return -EINVAL;
		}
		if (e)
			goto bad_syntax;
		if (hi < lo) {
			pr_err("%s: reversed range '%.*s' in CPU list '%s' (write %d-%d)",
			       what, (int)(p - tok), tok, s, hi, lo);
			return -EINVAL;
		}
		if (*p != ',' && *p)
			goto bad_syntax;
		for (int cpu = lo; cpu <= hi; cpu++) {
			if (!topo_os_allowed(t, cpu))
				return not_allowed(t, what, cpu);
			for (int k = 0; k < count; k++)
				if (out[k] == cpu) {
					pr_err("%s: CPU %d appears twice in CPU list '%s' (name each CPU once)",
					       what, cpu, s);
					return -EINVAL;
				}
			if (count >= max) {
				pr_err("%s: CPU list '%s' names more than %d CPU%s (give at most %d)",
				       what, s, max, max == 1 ? "" : "s", max);
				return -EINVAL;
			}
			out[count++] = cpu;
		}
		if (!*p)
			return count;
		p++;
	}

bad_syntax:
	pr_err("%s: malformed CPU list '%s' at '%s' (expected OS indexes like '0,2-4')",
	       what, s, *p ? p : "end");
	return -EINVAL;
}

int topo_bind_thread(struct topo *t, int os_index)
{
	hwloc_bitmap_t set;
	int cpu = -1, err = 0;

	if (!t->thissystem) {
		if (t->source == SRC_SYSTEM)
			pr_err("bind: cannot bind to PU %d: HWLOC_XMLFILE or HWLOC_SYNTHETIC replaced this system's topology (unset them)",
			       os_index);
		else
			pr_err("bind: cannot bind to PU %d: the topology comes from %s '%s', not this system",
			       os_index, source_names[t->source], t->desc);
		return -ENOTSUP;
	}
	if (!topo_os_allowed(t, os_index))
		return not_allowed(t, "bind", os_index);
	set = hwloc_bitmap_alloc();
	if (!set)
		return -ENOMEM;
	hwloc_bitmap_only(set, os_index);
	if (hwloc_set_cpubind(t->h, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT)) {
		err = errno ? -errno : -EIO;
		pr_err("bind: cannot bind this thread to CPU %d: %s", os_index, strerror(-err));
		goto out;
	}
	/* The kernel migrates a thread that changes its own affinity before
	 * returning; yield a few times in case it has not yet. */
	for (int i = 0; i < 100; i++) {
		cpu = sched_getcpu();
		if (cpu == os_index)
			goto out;
		sched_yield();
	}
	pr_err("bind: thread bound to CPU %d still runs on CPU %d (sched_getcpu); results would be misattributed",
	       os_index, cpu);
	err = -EIO;
out:
	hwloc_bitmap_free(set);
	return err;
}

int topo_bind_memory(struct topo *t, void *addr, size_t len, int node)
{
	hwloc_obj_t o;
	int err;

	if (!t->thissystem) {
		pr_err("bind: cannot bind memory to NUMA node %d: the topology is %s, not this system",
		       node, source_names[t->source]);
		return -ENOTSUP;
	}
	o = node >= 0 ? hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, node) : NULL;
	if (!o) {
		pr_err("bind: NUMA node %d does not exist (expected 0..%d)", node, t->nnuma - 1);
		return -EINVAL;
	}
	if (hwloc_set_area_membind(t->h, addr, len, o->nodeset, HWLOC_MEMBIND_BIND,
				   HWLOC_MEMBIND_STRICT | HWLOC_MEMBIND_BYNODESET)) {
		err = errno ? -errno : -EIO;
		if (err == -ENOSYS || err == -EXDEV)
			err = -ENOTSUP;
		pr_err("bind: cannot bind %zu bytes to NUMA node %d: %s", len, node,
		       strerror(-err));
		return err;
	}
	return 0;
}

/* "48 KiB", "1 MiB", "1.25 MiB". */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	double d = (double)v;

	while (d >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		d /= 1024;
		u++;
	}
	if (d == (double)(uint64_t)d)
		snprintf(buf, len, "%.0f %s", d, units[u]);
	else
		snprintf(buf, len, "%.3g %s", d, units[u]);
}

/* Instances of one cache level that look the same; a hybrid CPU has more
 * than one group per level. */
struct cache_group {
	int level;
	bool unified;
	uint64_t size;
	unsigned line;
	int pus;		/* PUs per instance */
	int count;		/* instances */
};

#define MAX_CACHE_GROUPS 32

static bool same_cache_group(const struct cache_group *g, hwloc_obj_t o)
{
	return o->attr->cache.size == g->size && o->attr->cache.linesize == g->line &&
	       (o->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED) == g->unified &&
	       hwloc_bitmap_weight(o->cpuset) == g->pus;
}

static int cache_groups(const struct topo *t, struct cache_group *g, int max)
{
	int ng = 0;

	for (int level = 1; level <= 5; level++) {
		hwloc_obj_t o = NULL;

		while ((o = hwloc_get_next_obj_by_type(t->h, cache_types[level], o))) {
			struct cache_group k = {
				.level = level, .unified = o->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED,
				.size = o->attr->cache.size, .line = o->attr->cache.linesize,
				.pus = hwloc_bitmap_weight(o->cpuset), .count = 1,
			};
			int i;

			if (!is_data_cache(o))
				continue;
			for (i = 0; i < ng; i++)
				if (g[i].level == level && same_cache_group(&g[i], o))
					break;
			if (i < ng)
				g[i].count++;
			else if (ng < max)
				g[ng++] = k;
		}
	}
	return ng;
}

#define MAX_LISTED 16

/* "0-1 | 2-3 | ... (30 more)": the cpusets of the objects of one type, a line. */
static void print_sets(FILE *f, const struct topo *t, hwloc_obj_type_t type,
		       const struct cache_group *g)
{
	hwloc_obj_t o = NULL;
	char buf[256];
	int n = 0;

	while ((o = hwloc_get_next_obj_by_type(t->h, type, o))) {
		if (g && !same_cache_group(g, o))
			continue;
		if (n < MAX_LISTED) {
			hwloc_bitmap_list_snprintf(buf, sizeof(buf), o->cpuset);
			fprintf(f, "%s%s", n ? " | " : "", buf);
		}
		n++;
	}
	if (n > MAX_LISTED)
		fprintf(f, " | ... (%d more)", n - MAX_LISTED);
	fputc('\n', f);
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

void topo_print(const struct topo *t, FILE *f)
{
	struct cache_group groups[MAX_CACHE_GROUPS];
	char buf[256], size[32];
	hwloc_obj_t o = NULL;
	int ng, i;

	if (t->source == SRC_SYSTEM)
		fprintf(f, "topology: this system%s (hwloc %s)\n",
			t->thissystem ? "" : " as replaced by HWLOC_XMLFILE/HWLOC_SYNTHETIC (no binding)",
			HWLOC_VERSION);
	else
		fprintf(f, "topology: %s '%s' (not this system: placement only, no binding)\n",
			source_names[t->source], t->desc);

	fprintf(f, "packages: %d\n", t->npkg);
	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, o))) {
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), o->cpuset);
		fprintf(f, "  package L#%u: PUs %s\n", o->logical_index, buf);
	}
	fprintf(f, "NUMA nodes: %d\n", t->nnuma);
	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, o))) {
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), o->cpuset);
		fmt_size(size, sizeof(size), o->attr->numanode.local_memory);
		fprintf(f, "  node L#%u P#%u (%s): PUs %s\n", o->logical_index, o->os_index,
			size, buf);
	}
	fprintf(f, "cores: %d\n", t->ncores);

	for (i = 0; i < t->npu && t->pu_os[i] == i; i++)
		;
	if (i == t->npu) {
		fprintf(f, "PUs: %d (logical index = OS index)\n", t->npu);
	} else {
		fprintf(f, "PUs: %d (L#logical:P#os)", t->npu);
		for (i = 0; i < t->npu; i++)
			fprintf(f, "%s%d:%d", i % 16 ? " " : "\n  ", i, t->pu_os[i]);
		fputc('\n', f);
	}

	ng = cache_groups(t, groups, MAX_CACHE_GROUPS);
	fprintf(f, "caches (data and unified):%s\n", ng ? "" : " none known");
	for (i = 0; i < ng; i++) {
		const struct cache_group *g = &groups[i];

		fmt_size(size, sizeof(size), g->size);
		fprintf(f, "  L%d%s %s line %u B x%d: PUs ", g->level, g->unified ? "" : "d",
			size, g->line, g->count);
		print_sets(f, t, cache_types[g->level], g);
	}

	fputs(t->smt_ways > 1 ? "SMT siblings: " : "SMT: no SMT\n", f);
	if (t->smt_ways > 1)
		print_sets(f, t, HWLOC_OBJ_CORE, NULL);

	hwloc_bitmap_list_snprintf(buf, sizeof(buf), t->allowed);
	fprintf(f, "allowed: %s (%d of %d PUs)\n", buf, t->nallowed, t->npu);

	fprintf(f, "pair classes (OS indexes, among allowed PUs):\n");
	for (int c = 0; c < PAIR__COUNT; c++) {
		int a, b;

		if (topo_find_pair(t, c, &a, &b))
			fprintf(f, "  %-8s absent\n", topo_pair_class_name((enum pair_class)(c)));
		else
			fprintf(f, "  %-8s %d,%d\n", topo_pair_class_name((enum pair_class)(c)), a, b);
	}
}

/* The description above as JSON: each PU with its indexes and whether this
 * process may run on it, the cache groups, and per pair class whether it is
 * present and then an example pair (OS indexes). */
json_t *topo_to_json(const struct topo *t)
{
	struct cache_group g[MAX_CACHE_GROUPS];
	int ng = cache_groups(t, g, MAX_CACHE_GROUPS), a, b, err = 0;
	json_t *pus = json_array(), *caches = json_array(), *classes = json_object(), *root;
	char buf[256];

	for (int i = 0; i < t->npu; i++)
		err |= json_array_append_new(pus, json_pack("{s:i, s:i, s:i, s:i, s:i, s:b}",
				"logical", i, "os", t->pu_os[i], "core", t->id[PAIR_SMT][i],
				"package", t->id[PAIR_PACKAGE][i], "numa", t->id[PAIR_NUMA][i],
				"allowed", hwloc_bitmap_isset(t->allowed, t->pu_os[i])));
	for (int i = 0; i < ng; i++)
		err |= json_array_append_new(caches, json_pack("{s:i, s:s, s:I, s:i, s:i, s:i}",
				"level", g[i].level, "type", g[i].unified ? "unified" : "data",
				"size", (json_int_t)g[i].size, "line", (int)g[i].line, "count", g[i].count,
				"pus_per_instance", g[i].pus));
	for (int c = 0; c < PAIR__COUNT; c++)
		err |= json_object_set_new(classes, topo_pair_class_name(c),
				topo_find_pair(t, c, &a, &b) ? json_pack("{s:b}", "present", 0) :
				json_pack("{s:b, s:[ii]}", "present", 1, "example", a, b));
	hwloc_bitmap_list_snprintf(buf, sizeof(buf), t->allowed);
	/* s*: no "description" for this system */
	root = json_pack("{s:s, s:s*, s:b, s:i, s:i, s:i, s:o, s:o, s:i, s:b, s:s, s:o}",
			 "source", source_names[t->source], "description", t->desc,
			 "thissystem", t->thissystem, "packages", t->npkg, "numa_nodes", t->nnuma,
			 "cores", t->ncores, "pus", pus, "caches", caches,
			 "line_size", (int)t->line, "smt", t->smt_ways > 1, "allowed", buf,
			 "pair_classes", classes);
	if (err || !root) {
		pr_err("topology: out of memory building the JSON description");
		json_decref(root);
		root = NULL;
	}
	return root;
}

void topo_summary(const struct topo *t, char *buf, size_t len)
{
	char allowed[128];
	size_t n;

	n = snprintf(buf, len, "%d package%s, %d NUMA node%s, %d core%s, %d PU%s, ",
		     t->npkg, plural(t->npkg), t->nnuma, plural(t->nnuma), t->ncores,
		     plural(t->ncores), t->npu, plural(t->npu));
	if (n >= len)
		return;
	n += snprintf(buf + n, len - n, t->smt_ways > 1 ? "%d-way SMT" : "no SMT", t->smt_ways);
	if (n < len && t->nallowed != t->npu) {
		hwloc_bitmap_list_snprintf(allowed, sizeof(allowed), t->allowed);
		snprintf(buf + n, len - n, ", %d allowed (%s)", t->nallowed, allowed);
	}
}

/* With max 1, a list of more CPUs is refused with its own message. */
int topo_parse_one_cpu(const struct topo *t, const char *arg, int *os_out)
{
	*os_out = topo_allowed_os(t, 0);
	if (!arg)
		return 0;
	return topo_parse_cpulist(t, "--cpu", arg, os_out, 1) == 1 ? 0 : -EINVAL;
}
