/* SPDX-License-Identifier: MIT */
/* test-topo.c - topology, pair classes, placement plans and binding.
 *
 * Synthetic topologies stand in for machines we do not have (hwloc's own
 * tests do the same); binding is checked on the real system only.
 * Exit 0 pass, 1 fail, 77 skip.
 */
#include "common.h"
#include "topo.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int failures;
static int checks;

#define CHECK(cond, ...)                                         \
	do {                                                     \
		checks++;                                        \
		printf("%s: ", (cond) ? "ok  " : "FAIL");        \
		printf(__VA_ARGS__);                             \
		printf("\n");                                    \
		if (!(cond))                                     \
			failures++;                              \
	} while (0)

/* 2 packages x 2 NUMA x 2 L3 x 4 cores x 2 PUs: 64 PUs, no L2 objects. */
#define SYN_A "pack:2 numa:2 l3:2 core:4 pu:2"
/* The same with an L2 shared by two cores. */
#define SYN_L2 "pack:2 numa:2 l3:2 l2:2 core:2 pu:2"
#define SYN_NOSMT "pack:1 core:4 pu:1"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct topo *open_syn(const char *s)
{
	struct topo *t;
	int err = topo_open(&t, s, NULL);

	CHECK(!err, "topo_open synthetic '%s' -> %d", s, err);
	return err ? NULL : t;
}

static void check_pair(struct topo *t, const char *name, enum pair_class c, int ea, int eb)
{
	int a = -1, b = -1, err = topo_find_pair(t, c, &a, &b);

	if (ea < 0) {
		CHECK(err == -ENOENT, "%s: class %s absent (-> %d)", name, topo_pair_class_name(c),
		      err);
		return;
	}
	CHECK(!err && a == ea && b == eb, "%s: first %s pair is %d,%d (got %d: %d,%d)", name,
	      topo_pair_class_name(c), ea, eb, err, a, b);
}

static void check_class(struct topo *t, int a, int b, enum pair_class c)
{
	enum pair_class got = topo_classify(t, a, b);

	CHECK(got == c, "classify(%d,%d) = %s (got %s)", a, b, topo_pair_class_name(c),
	      topo_pair_class_name(got));
}

static void test_open_errors(void)
{
	char path[] = "/tmp/test-topo-XXXXXX.xml";
	struct topo *t = (struct topo *)1;
	int err, fd;

	err = topo_open(&t, "pack:2 bogus:3", NULL);
	CHECK(err == -EINVAL && !t, "bad synthetic description -> -EINVAL (got %d)", err);
	err = topo_open(&t, NULL, "/nonexistent/topo.xml");
	CHECK(err == -ENOENT, "missing XML file -> -ENOENT (got %d)", err);
	err = topo_open(&t, SYN_A, "/nonexistent/topo.xml");
	CHECK(err == -EINVAL, "both synthetic and XML -> -EINVAL (got %d)", err);
	fd = mkstemps(path, 4);
	if (fd >= 0) {
		CHECK(write(fd, "not xml\n", 8) == 8, "write a file that is not XML");
		close(fd);
		err = topo_open(&t, NULL, path);
		CHECK(err == -EINVAL && !t, "a file that is not hwloc XML -> -EINVAL (got %d)", err);
		unlink(path);
	}
}

static void test_class_names(void)
{
	enum pair_class c;
	int bad = 0;

	for (int i = 0; i < PAIR__COUNT; i++)
		if (topo_pair_class_parse(topo_pair_class_name(i), &c) || (int)c != i)
			bad++;
	CHECK(!bad, "class names round-trip through topo_pair_class_parse");
	CHECK(topo_pair_class_parse("L2", &c) == -EINVAL, "class 'L2' (case) is rejected");
}

static void test_syn_a(void)
{
	struct topo *t = open_syn(SYN_A);
	char buf[256];
	int os[64], err, bad;

	if (!t)
		return;
	CHECK(!topo_is_thissystem(t), "synthetic is not this system");
	CHECK(topo_allowed_count(t) == 64, "64 PUs allowed (got %d)", topo_allowed_count(t));
	CHECK(topo_numa_count(t) == 4, "4 NUMA nodes (got %d)", topo_numa_count(t));
	CHECK(topo_allowed_os(t, 5) == 5 && topo_logical_of_os(t, 63) == 63 &&
	      topo_logical_of_os(t, 64) == -1 && topo_allowed_os(t, 64) == -1,
	      "OS <-> logical mapping");
	CHECK(topo_os_allowed(t, 63) && !topo_os_allowed(t, 64) && !topo_os_allowed(t, -1),
	      "topo_os_allowed bounds");
	CHECK(topo_cache_size(t, 3) == 16u << 20 && topo_llc_size(t) == 16u << 20,
	      "L3 = LLC = 16 MiB (got %zu, %zu)", topo_cache_size(t, 3), topo_llc_size(t));
	CHECK(topo_cache_size(t, 1) == 0 && topo_cache_size(t, 2) == 0 && topo_cache_size(t, 9) == 0,
	      "unknown cache levels are 0");
	CHECK(topo_line_size(t) == 64, "line size falls back to 64 (got %u)", topo_line_size(t));

	check_pair(t, "A", PAIR_SMT, 0, 1);
	check_pair(t, "A", PAIR_L2, -1, -1);
	check_pair(t, "A", PAIR_L3, 0, 2);
	check_pair(t, "A", PAIR_NUMA, 0, 8);
	check_pair(t, "A", PAIR_PACKAGE, 0, 16);
	check_pair(t, "A", PAIR_CROSS, 0, 32);
	check_class(t, 0, 1, PAIR_SMT);
	check_class(t, 5, 5, PAIR_SMT);
	check_class(t, 14, 15, PAIR_SMT);
	check_class(t, 0, 7, PAIR_L3);
	check_class(t, 9, 14, PAIR_L3);
	check_class(t, 7, 8, PAIR_NUMA);
	check_class(t, 15, 16, PAIR_PACKAGE);
	check_class(t, 31, 16, PAIR_NUMA);
	check_class(t, 31, 32, PAIR_CROSS);
	check_class(t, 63, 0, PAIR_CROSS);
	check_class(t, 0, 999, PAIR_CROSS);

	/* Each class: thread 0 and 1 of that class, further threads too. */
	for (int c = 0; c < PAIR__COUNT; c++) {
		const char *name = topo_pair_class_name(c);

		err = topo_plan(t, name, 2, os);
		if (c == PAIR_L2) {
			CHECK(err == -ENOENT, "plan %s (absent) -> -ENOENT (got %d)", name, err);
			continue;
		}
		CHECK(!err && topo_classify(t, os[0], os[1]) == (enum pair_class)c,
		      "plan %s 2 threads -> %d,%d (err %d)", name, os[0], os[1], err);
	}
	err = topo_plan(t, "l3", 7, os);
	bad = 0;
	for (int i = 1; i < 7; i++)
		bad += topo_classify(t, os[0], os[i]) != PAIR_L3;
	CHECK(!err && !bad, "plan l3 7 threads: all l3 relative to thread 0 (err %d)", err);
	err = topo_plan(t, "l3", 8, os);
	CHECK(err == -ENOENT, "plan l3 8 threads: not enough -> -ENOENT (got %d)", err);
	err = topo_plan(t, "smt", 3, os);
	CHECK(err == -ENOENT, "plan smt 3 threads on 2-way SMT -> -ENOENT (got %d)", err);
	err = topo_plan(t, "cross", 33, os);
	bad = 0;
	for (int i = 1; i < 33; i++)
		bad += topo_classify(t, os[0], os[i]) != PAIR_CROSS;
	CHECK(!err && !bad, "plan cross 33 threads (err %d)", err);

	/* spread: packages, then NUMA nodes, then L3s, then cores, SMT last. */
	err = topo_plan(t, "spread", 8, os);
	CHECK(!err && os[0] == 0 && os[1] == 32 && os[2] == 16 && os[3] == 48 && os[4] == 8 &&
	      os[5] == 40 && os[6] == 24 && os[7] == 56,
	      "spread 8: %d %d %d %d %d %d %d %d (expected 0 32 16 48 8 40 24 56)", os[0], os[1],
	      os[2], os[3], os[4], os[5], os[6], os[7]);
	err = topo_plan(t, "spread", 64, os);
	bad = 0;
	for (int i = 0; i < 32; i++)
		bad += os[i] % 2 != 0;
	for (int i = 0; i < 64; i++)
		for (int j = i + 1; j < 64; j++)
			bad += os[i] == os[j];
	CHECK(!err && !bad, "spread 64: a permutation, first PU of every core before any sibling");

	err = topo_plan(t, "list:3,5,7", 2, os);
	CHECK(!err && os[0] == 3 && os[1] == 5, "plan list:3,5,7 2 threads -> 3,5 (err %d)", err);
	err = topo_plan(t, "list:0-3", 4, os);
	CHECK(!err && os[0] == 0 && os[3] == 3, "plan list:0-3 4 threads (err %d)", err);
	err = topo_plan(t, "list:3", 2, os);
	CHECK(err == -EINVAL, "plan list:3 for 2 threads -> -EINVAL (got %d)", err);
	err = topo_plan(t, "list:64", 1, os);
	CHECK(err == -EINVAL, "plan list:64 (no such PU) -> -EINVAL (got %d)", err);
	err = topo_plan(t, "bogus", 2, os);
	CHECK(err == -EINVAL, "unknown placement -> -EINVAL (got %d)", err);
	err = topo_plan(t, "spread", 65, os);
	CHECK(err == -EINVAL, "65 threads on 64 PUs -> -EINVAL (got %d)", err);
	err = topo_plan(t, "spread", 0, os);
	CHECK(err == -EINVAL, "0 threads -> -EINVAL (got %d)", err);

	err = topo_bind_thread(t, 0);
	CHECK(err == -ENOTSUP, "bind on a synthetic topology -> -ENOTSUP (got %d)", err);
	err = topo_bind_memory(t, os, sizeof(os), 0);
	CHECK(err == -ENOTSUP, "memory bind on a synthetic topology -> -ENOTSUP (got %d)", err);

	topo_summary(t, buf, sizeof(buf));
	CHECK(!strcmp(buf, "2 packages, 4 NUMA nodes, 32 cores, 64 PUs, 2-way SMT"),
	      "summary '%s'", buf);
	topo_close(t);
}

static void test_cpulist(void)
{
	static const char *const bad[] = {
		"", "a", "1,", ",1", "1,,2", "4-2", "1,1", "0-2,2", "64", "1-", "-1", " 1",
		"1 ", "0x1", "99999999999999999999", "3-70", "1-2-3",
	};
	struct topo *t = open_syn(SYN_A);
	int cpus[64], n;

	if (!t)
		return;
	n = topo_parse_cpulist(t, "test", "0,2-4", cpus, 64);
	CHECK(n == 4 && cpus[0] == 0 && cpus[1] == 2 && cpus[2] == 3 && cpus[3] == 4,
	      "cpulist '0,2-4' -> 0 2 3 4 (n %d)", n);
	n = topo_parse_cpulist(t, "test", "63,0", cpus, 64);
	CHECK(n == 2 && cpus[0] == 63 && cpus[1] == 0, "cpulist '63,0' keeps its order");
	n = topo_parse_cpulist(t, "test", "0-63", cpus, 64);
	CHECK(n == 64, "cpulist '0-63' -> 64 (n %d)", n);
	n = topo_parse_cpulist(t, "test", "0-3", cpus, 3);
	CHECK(n == -EINVAL, "cpulist longer than max -> -EINVAL (n %d)", n);
	n = topo_parse_one_cpu(t, NULL, &cpus[0]);
	CHECK(n == 0 && cpus[0] == 0, "--cpu absent: the first allowed PU (%d, got %d)", n, cpus[0]);
	n = topo_parse_one_cpu(t, "7", &cpus[0]);
	CHECK(n == 0 && cpus[0] == 7, "--cpu 7 -> 7 (%d, got %d)", n, cpus[0]);
	n = topo_parse_one_cpu(t, "0,1", &cpus[0]);
	CHECK(n == -EINVAL, "--cpu 0,1 -> -EINVAL (got %d)", n);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		n = topo_parse_cpulist(t, "test", bad[i], cpus, 64);
		CHECK(n == -EINVAL, "cpulist '%s' -> -EINVAL (got %d)", bad[i], n);
	}
	topo_close(t);
}

static void test_l2_and_nosmt(void)
{
	struct topo *t = open_syn(SYN_L2);
	int os[4], err;

	if (t) {
		CHECK(topo_allowed_count(t) == 64, "L2 topology: 64 PUs");
		check_pair(t, "L2", PAIR_SMT, 0, 1);
		check_pair(t, "L2", PAIR_L2, 0, 2);
		check_pair(t, "L2", PAIR_L3, 0, 4);
		check_class(t, 3, 1, PAIR_L2);
		check_class(t, 3, 4, PAIR_L3);
		CHECK(topo_llc_size(t) == 16u << 20 && topo_cache_size(t, 2) == 4u << 20,
		      "L2 topology: L2 4 MiB, LLC 16 MiB");
		err = topo_plan(t, "l2", 3, os);
		CHECK(!err && topo_classify(t, os[0], os[1]) == PAIR_L2 &&
		      topo_classify(t, os[0], os[2]) == PAIR_L2, "plan l2 3 threads (err %d)", err);
		topo_close(t);
	}

	t = open_syn(SYN_NOSMT);
	if (t) {
		check_pair(t, "no-SMT", PAIR_SMT, -1, -1);
		check_pair(t, "no-SMT", PAIR_NUMA, 0, 1);
		check_pair(t, "no-SMT", PAIR_PACKAGE, -1, -1);
		check_pair(t, "no-SMT", PAIR_CROSS, -1, -1);
		err = topo_plan(t, "smt", 2, os);
		CHECK(err == -ENOENT, "no-SMT: plan smt -> -ENOENT (got %d)", err);
		err = topo_plan(t, "spread", 4, os);
		CHECK(!err && os[0] == 0 && os[3] == 3, "no-SMT: spread 4 (err %d)", err);
		topo_close(t);
	}
}

static void test_xml(void)
{
	char path[] = "/tmp/test-topo-XXXXXX.xml";
	hwloc_topology_t h = NULL;
	struct topo *x;
	int fd, err, a, b;

	fd = mkstemps(path, 4);
	if (fd < 0 || hwloc_topology_init(&h) || hwloc_topology_set_synthetic(h, SYN_A) ||
	    hwloc_topology_load(h) || hwloc_topology_export_xml(h, path, 0)) {
		CHECK(0, "export a synthetic topology to XML");
		if (h)
			hwloc_topology_destroy(h);
		return;
	}
	hwloc_topology_destroy(h);
	close(fd);
	err = topo_open(&x, NULL, path);
	CHECK(!err, "topo_open XML '%s' -> %d", path, err);
	if (!err) {
		CHECK(!topo_is_thissystem(x) && topo_allowed_count(x) == 64, "XML: 64 PUs, not this system");
		err = topo_find_pair(x, PAIR_NUMA, &a, &b);
		CHECK(!err && a == 0 && b == 8, "XML: numa pair 0,8");
		err = topo_bind_thread(x, 0);
		CHECK(err == -ENOTSUP, "bind on an XML topology -> -ENOTSUP (got %d)", err);
		topo_close(x);
	}
	unlink(path);
}

static void test_json_and_print(void)
{
	static const char *const keys[] = {
		"source", "packages", "numa_nodes", "cores", "pus", "caches", "smt", "allowed",
		"pair_classes",
	};
	struct topo *t = open_syn(SYN_A);
	json_t *j, *pc, *pu, *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int missing = 0;

	if (!t)
		return;
	j = topo_to_json(t);
	CHECK(j && json_is_object(j), "topo_to_json returns an object");
	if (j) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (!json_object_get(j, keys[i])) {
				printf("  missing key '%s'\n", keys[i]);
				missing++;
			}
		CHECK(!missing, "JSON has every top-level key");
		CHECK(!strcmp(json_string_value(json_object_get(j, "source")), "synthetic") &&
		      json_integer_value(json_object_get(j, "packages")) == 2 &&
		      json_integer_value(json_object_get(j, "numa_nodes")) == 4 &&
		      json_integer_value(json_object_get(j, "cores")) == 32 &&
		      json_is_true(json_object_get(j, "smt")) &&
		      !strcmp(json_string_value(json_object_get(j, "allowed")), "0-63"),
		      "JSON values");
		pu = json_array_get(json_object_get(j, "pus"), 17);
		CHECK(json_array_size(json_object_get(j, "pus")) == 64 &&
		      json_integer_value(json_object_get(pu, "logical")) == 17 &&
		      json_integer_value(json_object_get(pu, "os")) == 17 &&
		      json_integer_value(json_object_get(pu, "core")) == 8 &&
		      json_integer_value(json_object_get(pu, "package")) == 0 &&
		      json_integer_value(json_object_get(pu, "numa")) == 1,
		      "JSON pus[17] = core 8, package 0, numa 1");
		c = json_array_get(json_object_get(j, "caches"), 0);
		CHECK(json_array_size(json_object_get(j, "caches")) == 1 &&
		      json_integer_value(json_object_get(c, "level")) == 3 &&
		      json_integer_value(json_object_get(c, "size")) == 16 << 20 &&
		      json_integer_value(json_object_get(c, "count")) == 8 &&
		      json_integer_value(json_object_get(c, "pus_per_instance")) == 8,
		      "JSON caches: 8 x L3 16 MiB, 8 PUs each");
		pc = json_object_get(j, "pair_classes");
		CHECK(json_object_size(pc) == PAIR__COUNT &&
		      json_is_false(json_object_get(json_object_get(pc, "l2"), "present")) &&
		      json_is_true(json_object_get(json_object_get(pc, "cross"), "present")) &&
		      json_integer_value(json_array_get(json_object_get(json_object_get(pc, "cross"),
									"example"), 1)) == 32,
		      "JSON pair_classes: l2 absent, cross example 0,32");
		json_decref(j);
	}

	f = open_memstream(&text, &len);
	if (f) {
		topo_print(t, f);
		fclose(f);
		CHECK(strstr(text, "L3 16 MiB line 64 B x8: PUs 0-7 | 8-15") &&
		      strstr(text, "cross    0,32") && strstr(text, "l2       absent") &&
		      strstr(text, "allowed: 0-63"),
		      "topo_print shows caches, classes and the allowed set");
		free(text);
	}
	topo_close(t);
}

static void test_large(const char *syn, int npu)
{
	struct topo *t;
	double t0, t1, t2;
	int *os = calloc(npu, sizeof(int));
	int a, b, err, present = 0;

	t0 = now_s();
	err = topo_open(&t, syn, NULL);
	t1 = now_s();
	CHECK(!err && topo_allowed_count(t) == npu, "open '%s': %d PUs in %.1f ms", syn, npu,
	      (t1 - t0) * 1e3);
	if (err || !os) {
		free(os);
		return;
	}
	for (int c = 0; c < PAIR__COUNT; c++)
		present += !topo_find_pair(t, c, &a, &b);
	err = topo_plan(t, "spread", npu, os);
	err |= topo_plan(t, "cross", 2, os);
	err |= topo_plan(t, "smt", 2, os);
	t2 = now_s();
	/* The time is printed, never judged: a unit test must not fail on a
	 * busy machine (speed targets belong to benchmarks). */
	CHECK(!err, "'%s': find_pair x %d (%d present) + 3 plans in %.2f ms", syn,
	      PAIR__COUNT, present, (t2 - t1) * 1e3);
	topo_close(t);
	free(os);
}

static void test_system(void)
{
	struct topo *t;
	cpu_set_t set;
	char buf[256];
	int err, n, bad = 0, not_allowed = -1;
	size_t len;
	void *mem;

	err = topo_open(&t, NULL, NULL);
	CHECK(!err, "topo_open this system -> %d", err);
	if (err)
		return;
	if (!topo_is_thissystem(t)) {
		printf("skip: hwloc does not describe this system (HWLOC_XMLFILE/HWLOC_SYNTHETIC?)\n");
		topo_close(t);
		return;
	}
	topo_summary(t, buf, sizeof(buf));
	printf("      this system: %s\n", buf);
	topo_print(t, stdout);

	CHECK(!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) == topo_allowed_count(t),
	      "allowed PUs = sched_getaffinity (%d)", topo_allowed_count(t));
	n = topo_allowed_count(t);
	for (int i = 0; i < n; i++) {
		int os = topo_allowed_os(t, i);

		bad += !CPU_ISSET(os, &set);
	}
	CHECK(!bad, "every allowed PU is in the affinity mask");
	for (int i = 0; i < n; i++) {
		int os = topo_allowed_os(t, i);

		err = topo_bind_thread(t, os);
		CHECK(!err && sched_getcpu() == os, "bind to CPU %d lands there (err %d, on %d)", os,
		      err, sched_getcpu());
	}
	/* An existing PU outside the cpuset (under taskset), else one past the last. */
	for (int os = 0; os < 4096 && not_allowed < 0; os++)
		if (topo_logical_of_os(t, os) >= 0 && !topo_os_allowed(t, os))
			not_allowed = os;
	if (not_allowed >= 0) {
		err = topo_bind_thread(t, not_allowed);
		CHECK(err == -EINVAL, "bind to disallowed CPU %d -> -EINVAL (got %d)", not_allowed, err);
	}
	err = topo_bind_thread(t, 100000);
	CHECK(err == -EINVAL, "bind to CPU 100000 -> -EINVAL (got %d)", err);
	err = topo_bind_thread(t, -1);
	CHECK(err == -EINVAL, "bind to CPU -1 -> -EINVAL (got %d)", err);

	len = 2 * (size_t)sysconf(_SC_PAGESIZE);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem != MAP_FAILED) {
		err = topo_bind_memory(t, mem, len, 0);
		if (err == -ENOTSUP)
			printf("skip: memory binding not supported here\n");
		else
			CHECK(!err, "bind memory to NUMA node 0 (got %d)", err);
		err = topo_bind_memory(t, mem, len, topo_numa_count(t));
		CHECK(err == -EINVAL, "bind memory to NUMA node %d -> -EINVAL (got %d)",
		      topo_numa_count(t), err);
		err = topo_bind_memory(t, mem, len, -1);
		CHECK(err == -EINVAL, "bind memory to NUMA node -1 -> -EINVAL (got %d)", err);
		munmap(mem, len);
	}
	topo_close(t);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_open_errors();
	test_class_names();
	test_syn_a();
	test_cpulist();
	test_l2_and_nosmt();
	test_xml();
	test_json_and_print();
	test_large("pack:2 numa:2 core:16 pu:2", 128);
	test_large("pack:4 numa:2 l3:4 core:16 pu:2", 1024);
	test_large("pack:4 numa:2 l3:4 l2:8 core:2 pu:2", 1024);
	test_system();
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
