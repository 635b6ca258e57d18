/* SPDX-License-Identifier: MIT */
/* kmod.c - `atomcost run --context kernel` (kmod.h): refuse clearly, build
 * and load atomcost.ko, run each probe through its debugfs protocol
 * (docs/kernel.md), turn the samples into rows as the runner does, unload. */
#include "kmod.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "report.h"
#include "stats.h"

#define KMOD_DEBUGFS "/sys/kernel/debug"
#define KMOD_DIR KMOD_DEBUGFS "/atomcost"
#define KMOD_MAX_PROBES 128
#define KMOD_MAX_ITERS 100000	/* kernel/run.h: AC_MAX_ITERS, AC_MAX_SAMPLES */
#define KMOD_MAX_SAMPLES 100000
#define KMOD_PILOT_ITERS 16
#define KMOD_ROUNDS 64	/* at most: a judgment pairs at most JUDGE_MAX_EPOCHS */
#define KMOD_WHO "run --context kernel"

/* Before anything is built or loaded: the architecture and root. */
static int kmod_refuse(void)
{
	struct utsname u;

	if (uname(&u) < 0 || strcmp(u.machine, "x86_64")) {
		pr_err(KMOD_WHO ": atomcost.ko supports x86-64 only (this machine is %s)", u.machine);
		return -ENOTSUP;
	}
	if (geteuid() != 0) {
		pr_err(KMOD_WHO ": loading atomcost.ko needs root (sudo atomcost run --context kernel ...)");
		return -ENOTSUP;
	}
	return 0;
}

/* make -C dir KDIR=... against this kernel's build directory (or $KDIR). */
static int kmod_build(const char *dir)
{
	char kdir[PATH_MAX], mk[PATH_MAX + 16], arg[PATH_MAX + 8];
	struct utsname u;
	int st = 0;
	pid_t pid;

	uname(&u);
	snprintf(kdir, sizeof(kdir), "%s", getenv("KDIR") ? getenv("KDIR") : "");
	if (!kdir[0])
		snprintf(kdir, sizeof(kdir), "/lib/modules/%s/build", u.release);
	snprintf(mk, sizeof(mk), "%s/Makefile", kdir);
	if (access(mk, R_OK) < 0) {
		pr_err(KMOD_WHO ": no kernel build directory at %s: install this kernel's headers (Debian: "
		       "apt-get install linux-headers-%s, or linux-headers-amd64 for the newest kernel), or "
		       "set KDIR=/path/to/its/build", kdir, u.release);
		return -ENOENT;
	}
	pr_info("building atomcost.ko: make -C %s KDIR=%s", dir, kdir);
	snprintf(arg, sizeof(arg), "KDIR=%s", kdir);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* stdout is the report's */
		execlp("make", "make", "-s", "-C", dir, arg, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		pr_err(KMOD_WHO ": make -C %s %s failed%s", dir, arg,
		       WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": no make (apt-get install make)" : " (above)");
		return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : -EIO;
	}
	return 0;
}

/* The module: $ATOMCOST_KMOD, else kernel/atomcost.ko beside the build
 * directory of this executable, built there if missing. */
static int kmod_find(char *ko, size_t len)
{
	const char *env = getenv("ATOMCOST_KMOD");
	char exe[PATH_MAX], dir[PATH_MAX + 16], kbuild[PATH_MAX + 32];
	ssize_t l;

	if (env) {
		snprintf(ko, len, "%s", env);
		if (access(ko, R_OK) == 0)
			return 0;
		pr_err(KMOD_WHO ": ATOMCOST_KMOD=%s: %s (name a built atomcost.ko)", env, strerror(errno));
		return -ENOENT;
	}
	l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[l > 0 ? l : 0] = 0;
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = 0;
	snprintf(dir, sizeof(dir), "%s/../kernel", exe);
	snprintf(ko, len, "%s/atomcost.ko", dir);
	if (access(ko, R_OK) == 0)
		return 0;
	snprintf(kbuild, sizeof(kbuild), "%s/Kbuild", dir);
	if (access(kbuild, R_OK) < 0) {
		pr_err(KMOD_WHO ": no %s to build atomcost.ko from: set ATOMCOST_KMOD=path/to/atomcost.ko", dir);
		return -ENOENT;
	}
	return kmod_build(dir);
}

/* Why the kernel would not load it, said with what to do. */
static int kmod_refused(const char *ko, int err)
{
	char lock[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	struct utsname u;

	if (f && fgets(lock, sizeof(lock), f))
		lock[strcspn(lock, "\n")] = 0;
	if (f)
		fclose(f);
	uname(&u);
	if (err == -EEXIST) {
		pr_err(KMOD_WHO ": atomcost.ko is already loaded (another run, or one killed before it could "
		       "unload it): sudo rmmod atomcost");
		return -EBUSY;
	}
	if (err == -ENOEXEC) {
		pr_err(KMOD_WHO ": %s was built for another kernel than %s: rebuild it (make -C kernel clean all)",
		       ko, u.release);
		return err;
	}
	if (err == -EPERM && (!lock[0] || strstr(lock, "[none]"))) {
		pr_err(KMOD_WHO ": the kernel refuses to load modules here (EPERM, no lockdown: "
		       "kernel.modules_disabled=1, or a container without CAP_SYS_MODULE)");
		return -ENOTSUP;
	}
	if (err == -EPERM || err == -EKEYREJECTED || err == -ENOKEY || err == -EBADMSG) {
		pr_err(KMOD_WHO ": the kernel refuses the unsigned %s (%s; lockdown: %s): sign it with a key it "
		       "trusts: /usr/src/linux-headers-%s/scripts/sign-file sha256 MOK.priv MOK.der %s, MOK.der "
		       "enrolled with 'mokutil --import MOK.der' and a reboot; or load it where Secure Boot is off",
		       ko, strerror(-err), lock[0] ? lock : "unknown", u.release, ko);
		return -ENOTSUP;
	}
	pr_err(KMOD_WHO ": loading %s: %s", ko, strerror(-err));
	return err;
}

static int kmod_load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err ? kmod_refused(ko, err) : 0;
}

/* Unloads it, waiting a while for the last reference (a killed writer's). */
static int kmod_unload(void)
{
	for (int i = 0; i < 100; i++) {
		if (syscall(SYS_delete_module, "atomcost", O_NONBLOCK) == 0 || errno == ENOENT)
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(100000);
	}
	return -errno;
}

/* The guard: a child that unloads the module once this process is done
 * with it, however it ends (a second Ctrl-C, SIGKILL): it waits for the end
 * of a pipe only this process holds. A byte on the pipe first: the module
 * is not ours to unload. Returns the write end, or -errno. */
static int kmod_guard(pid_t *pid)
{
	int fd[2];
	ssize_t r;
	char c;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	*pid = fork();
	if (*pid != 0) {
		close(fd[0]);
		if (*pid > 0)
			return fd[1];
		close(fd[1]);
		return -EAGAIN;
	}
	setsid();	/* out of the process group: Ctrl-C, a hangup or a group kill pass it by */
	close(fd[1]);
	while ((r = read(fd[0], &c, 1)) < 0 && errno == EINTR)
		;
	_exit(r == 1 || kmod_unload() == 0 ? 0 : 1);
}

/* Lets the guard go (unloading, unless keep) and checks it did. */
static int kmod_release(int wfd, pid_t pid, bool keep)
{
	int st;

	if (keep && write(wfd, "k", 1) != 1)
		pr_warn(KMOD_WHO ": telling the guard to keep the module: %s", strerror(errno));
	close(wfd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!keep && access("/sys/module/atomcost", F_OK) == 0) {
		pr_err(KMOD_WHO ": atomcost.ko is still loaded: sudo rmmod atomcost");
		return -EBUSY;
	}
	return 0;
}

/* The whole of a debugfs file, NUL-terminated (the caller frees); NULL
 * with errno set. */
static char *kmod_read(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;

	if (f && getdelim(&buf, &cap, '\0', f) < 0) {	/* the text holds no NUL: all of it */
		free(buf);
		buf = ferror(f) ? NULL : strdup("");	/* an empty file */
	}
	if (f)
		fclose(f);
	return buf;
}

/* One request: "PROBE CPU SAMPLES N" written to run, the run's text read
 * back; NULL after a message. */
static char *kmod_request(const char *probe, int cpu, size_t samples, uint64_t iters)
{
	char line[128], *text = NULL;
	int fd = open(KMOD_DIR "/run", O_WRONLY | O_CLOEXEC);
	int len = snprintf(line, sizeof(line), "%s %d %zu %llu\n", probe, cpu, samples,
			   (unsigned long long)iters);

	if (fd >= 0 && write(fd, line, (size_t)len) == len)
		text = kmod_read(KMOD_DIR "/run");
	if (!text)
		pr_err(KMOD_WHO ": %s: '%.*s' through %s/run: %s%s", probe, len - 1, line, KMOD_DIR, strerror(errno),
		       errno == E2BIG ? " (the request's memory passes the module's 256 MiB cap: fewer samples "
					"or a smaller N; docs/kernel.md)" :
		       errno == ENOMEM ? " (the request's memory passes 1/16 of MemAvailable: free memory, or "
					 "fewer samples or a smaller N; docs/kernel.md)" :
		       errno == ERANGE ? " (a number out of its range: docs/kernel.md)" :
		       errno == ENXIO ? " (the CPU is offline)" : "");
	if (fd >= 0)
		close(fd);
	return text;
}

/* A run's text (docs/kernel.md) parsed. */
struct kout {
	char twin[64], analog[64], what[140], form[8];
	unsigned long long iters, ops, overhead, cpus, iters_asked;
	long err;
	size_t n;
	double *a, *b;		/* per sample: t_N and t_2N, or the alloc and free phases */
	double min_b;
};

static int kmod_parse(char *text, struct kout *k)
{
	const struct { const char *key; unsigned long long *v; } num[] = {
		{ "iters", &k->iters }, { "ops", &k->ops }, { "overhead", &k->overhead }, { "cpus", &k->cpus },
		{ "iters_asked", &k->iters_asked },
	};
	size_t lines = 1;
	char *save = NULL, *v;

	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	*k = (struct kout){ .a = malloc(2 * lines * sizeof(double)), .min_b = INFINITY };
	if (!k->a)
		return -ENOMEM;
	k->b = k->a + lines;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long x, y;

		if (!(v = strchr(l, ' ')))
			continue;
		*v++ = 0;
		if (!strcmp(l, "sample") && sscanf(v, "%llu %llu", &x, &y) == 2) {
			k->a[k->n] = (double)x;
			k->b[k->n++] = (double)y;
			k->min_b = fmin(k->min_b, (double)y);
		} else if (!strcmp(l, "twin")) {
			snprintf(k->twin, sizeof(k->twin), "%s", strcmp(v, "-") ? v : "");
		} else if (!strcmp(l, "analog")) {
			snprintf(k->analog, sizeof(k->analog), "%s", strcmp(v, "-") ? v : "");
		} else if (!strcmp(l, "what")) {
			snprintf(k->what, sizeof(k->what), "%s", v);
		} else if (!strcmp(l, "form")) {
			snprintf(k->form, sizeof(k->form), "%s", v);
		} else if (!strcmp(l, "err")) {
			k->err = strtol(v, NULL, 10);
		}
		for (size_t i = 0; i < ARRAY_SIZE(num); i++)
			if (!strcmp(l, num[i].key))
				*num[i].v = strtoull(v, NULL, 10);
	}
	return 0;
}

/* A row's identity: a :tput form is the throughput mode of the name
 * before it, a concurrent probe's free phase NAME:free; under emulation
 * (clock.c) a note, and no card line ever. */
static void kmod_identity(struct result *r, const char *probe, const struct kout *k, bool free_phase,
			  const struct calibration *cal)
{
	const char *tput = strstr(probe, ":tput"), *ttput = strstr(k->twin, ":tput");
	int len = tput ? (int)(tput - probe) : (int)strlen(probe);

	snprintf(r->name, sizeof(r->name), "%.*s%s", len, probe, free_phase ? ":free" : "");
	snprintf(r->twin, sizeof(r->twin), "%.*s", ttput ? (int)(ttput - k->twin) : (int)strlen(k->twin),
		 k->twin);
	snprintf(r->user_analog, sizeof(r->user_analog), "%s", k->analog);
	snprintf(r->family, sizeof(r->family), "kernel");
	snprintf(r->insn, sizeof(r->insn), "%s%s", k->what,
		 !strcmp(k->form, "phases") ? free_phase ? " (free phase)" : " (alloc phase)" : "");
	snprintf(r->pattern, sizeof(r->pattern), "hit");
	r->mode = tput ? MODE_THROUGHPUT : MODE_LATENCY;
	r->context = RESULT_KERNEL;
	if (cal->emulated) {
		snprintf(r->extra.note, sizeof(r->extra.note), RESULT_EMULATED_NOTE);
		r->extra.has |= 1u << RX_NOTE;
	}
}

/* The probe's rows from its samples, as the runner makes them: per op
 * (t_2N - overhead) / 2N ops (runner_finish_row); a concurrent probe's
 * alloc and free phases each a row of ticks per object. */
static int kmod_rows(struct report *rep, const char *probe, const struct kout *k, int cpu, int logical)
{
	bool phases = !strcmp(k->form, "phases");

	for (int ph = 0; ph < (phases ? 2 : 1); ph++) {
		struct result *r = report_add(rep);

		if (!r || !(r->samples = malloc(k->n * sizeof(double))))
			return -ENOMEM;
		kmod_identity(r, probe, k, ph, &rep->cal);
		r->cpu_os = cpu;
		r->cpu_logical = logical;
		r->iters = k->iters;
		r->ops_per_sample = phases ? k->iters : 2 * k->iters * k->ops;
		if (!phases) {
			runner_finish_row(k->a, k->b, NULL, k->n, (double)k->overhead, k->min_b, &rep->cal, r);
			continue;
		}
		runner_to_per_op(ph ? k->b : k->a, NULL, k->n, 0, rep->cal.ticks_per_cycle, 0, r);
		stats_summarize(r->samples, r->nsamples, &r->s);
	}
	return 0;
}

/* A picked probe: its size, and its samples so far (k). */
struct kpick {
	const char *name;
	int arg;		/* the CPU; 0 for a concurrent probe (every online CPU) */
	uint64_t iters;
	size_t samples, cap;	/* cap: sample lines, samples x CPUs */
	struct kout k;
};

/* N and the sample count, from a pilot of two samples at a few iterations
 * (the first pays for the cold code, and under TCG its translation):
 * N iterations take about o->sample_us, and the samples (N, 2N and 0
 * iterations each; a pass of N allocs and N frees for the concurrent
 * probes) about o->max_seconds, at least 2. */
static int kmod_size(struct kpick *p, const struct run_opts *o, const struct calibration *cal)
{
	char *text = kmod_request(p->name, p->arg, 2, KMOD_PILOT_ITERS);
	struct kout k;
	double per_iter, cap;
	bool phases;

	if (!text)
		return -EIO;
	if (kmod_parse(text, &k) < 0 || k.n < 2) {
		pr_warn(KMOD_WHO ": %s skipped: its pilot returned %zu samples (err %ld)", p->name, k.n, k.err);
		free(text);
		free(k.a);
		return -EIO;
	}
	phases = !strcmp(k.form, "phases");
	/* k.iters: the module may lower N (docs/kernel.md) */
	per_iter = phases ? (k.a[k.n - 1] + k.b[k.n - 1]) / (double)k.iters :
			    (k.b[k.n - 1] - (double)k.overhead) / (2.0 * (double)k.iters);
	per_iter = fmax(per_iter, 1.0);
	p->iters = (uint64_t)fmin(fmax(o->sample_us * 1e-6 * cal->timer_hz / per_iter, 1), KMOD_MAX_ITERS);
	cap = fmin((double)o->max_samples, KMOD_MAX_SAMPLES / (double)(k.cpus ? k.cpus : 1));
	p->samples = (size_t)fmin(fmax(o->max_seconds * cal->timer_hz / ((phases ? 1 : 3) * p->iters * per_iter), 2),
				  cap);
	p->cap = p->samples * (k.cpus ? k.cpus : 1);
	p->k = (struct kout){ .a = malloc(2 * p->cap * sizeof(double)), .min_b = INFINITY };
	p->k.b = p->k.a ? p->k.a + p->cap : NULL;
	free(text);
	free(k.a);
	return p->k.a ? 0 : -ENOMEM;
}

/* Round r of rounds: the share of p's samples that falls in it (spread
 * evenly), appended to p->k. A failed request is said, and the probe keeps
 * what it has. */
static void kmod_round(struct kpick *p, size_t r, size_t rounds, struct report *rep)
{
	size_t take = p->samples * (r + 1) / rounds - p->samples * r / rounds;
	struct kout k = { 0 }, acc = p->k;
	char *text = take ? kmod_request(p->name, p->arg, take, p->iters) : NULL;

	if (!text || kmod_parse(text, &k) < 0 || acc.n + k.n > p->cap) {
		p->samples = take ? 0 : p->samples;
		goto out;
	}
	if (k.err == -ENODEV) {
		pr_warn(KMOD_WHO ": %s: CPU %d went offline during the run: stopped there (err %ld, %zu sample lines)",
			p->name, p->arg, k.err, k.n);
		rep->partial = true;
		snprintf(rep->partial_reason, sizeof(rep->partial_reason), "CPU %d went offline", p->arg);
		p->samples = 0;
	} else if (k.err) {
		pr_warn(KMOD_WHO ": %s: the run stopped early (err %ld, %zu sample lines)", p->name, k.err, k.n);
	}
	if (!r && k.iters < k.iters_asked)
		pr_warn(KMOD_WHO ": %s: N lowered from %llu to %llu: the module keeps irqs or preemption off "
			"under 1 ms per sample", p->name, k.iters_asked, k.iters);
	memcpy(acc.a + acc.n, k.a, k.n * sizeof(double));
	memcpy(acc.b + acc.n, k.b, k.n * sizeof(double));
	p->k = k;	/* the probe's identity and iterations: every round's alike */
	p->k.a = acc.a;
	p->k.b = acc.b;
	p->k.n = acc.n + k.n;
	p->k.overhead = acc.n && acc.overhead < k.overhead ? acc.overhead : k.overhead;
	p->k.min_b = fmin(acc.min_b, k.min_b);
out:
	free(k.a);
	free(text);
}

/* The picked probes sized, then their samples taken in up to KMOD_ROUNDS
 * rounds, each round a share of every probe's samples in turn, so that
 * two probes' samples interleave as a run's epochs do (a drift of the
 * machine falls on both); until the end, an interruption or the time
 * limit, the rows from the samples so far. */
static int kmod_rounds(char **names, size_t np, int cpu, struct topo *t, const struct run_opts *o,
		       struct report *rep, uint64_t t0)
{
	struct kpick *pk = calloc(np + 1, sizeof(*pk));
	size_t rounds = 0;
	int ret = pk ? 0 : -ENOMEM;

	for (size_t i = 0; i < np && !ret; i++) {
		pk[i] = (struct kpick){ .name = names[i], .arg = strstr(names[i], "_concurrent:") ? 0 : cpu };
		if (kmod_size(&pk[i], o, &rep->cal) == -ENOMEM)
			ret = -ENOMEM;
		rounds = pk[i].samples > rounds ? pk[i].samples : rounds;
	}
	rounds = rounds < KMOD_ROUNDS ? rounds : KMOD_ROUNDS;
	for (size_t r = 0; r < rounds && !ret && !runner_out_of_time(o, rep, t0); r++)
		for (size_t i = 0; i < np && !ret; i++) {
			if (runner_stop) {
				rep->partial = true;
				snprintf(rep->partial_reason, sizeof(rep->partial_reason), "interrupted");
				ret = -EINTR;
			} else if (pk[i].samples) {
				if (o->progress)
					fprintf(stderr, "\r\033[K[%zu/%zu] %s (kernel)", r + 1, rounds, pk[i].name);
				kmod_round(&pk[i], r, rounds, rep);
			}
		}
	for (size_t i = 0; pk && i < np; i++) {
		if (pk[i].k.n && (!ret || ret == -EINTR)) {
			int err = kmod_rows(rep, pk[i].name, &pk[i].k, cpu, topo_logical_of_os(t, cpu));

			ret = ret ? ret : err;
		}
		free(pk[i].k.a);
	}
	free(pk);
	return ret;
}

/* Does a glob of names (none: every probe) pick this probe, in a mode of
 * o->mode_mask? Each glob that picks one is marked in hit. */
static bool kmod_wanted(const char *probe, char *const *names, size_t n, unsigned mask, bool *hit)
{
	bool any = !n;

	for (size_t i = 0; i < n; i++)
		if (!fnmatch(names[i], probe, 0))
			any = hit[i] = true;
	return any && mask & (1u << (strstr(probe, ":tput") ? MODE_THROUGHPUT : MODE_LATENCY));
}

/* The probes the module lists that names picks, each run in turn until
 * the end, an interruption (between probes) or the time limit. */
static int kmod_probes(struct topo *t, const struct run_opts *o, char *const *names, size_t n, int cpu,
		       struct report *rep, uint64_t t0)
{
	char *list = kmod_read(KMOD_DIR "/probes"), *pick[KMOD_MAX_PROBES], *save = NULL;
	bool hit[n + 1];
	size_t np = 0;
	int ret = 0;

	memset(hit, 0, sizeof(hit));
	for (char *l = list ? strtok_r(list, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *why = strstr(l, "\tskipped\t");	/* the module's reason (docs/kernel.md) */

		l[strcspn(l, "\t")] = 0;
		if (!kmod_wanted(l, names, n, o->mode_mask, hit))
			continue;
		if (why)
			pr_warn(KMOD_WHO ": %s skipped: %s", l, why + strlen("\tskipped\t"));
		else if (np < KMOD_MAX_PROBES)
			pick[np++] = l;
	}
	for (size_t i = 0; i < n && list; i++)
		if (!hit[i]) {
			pr_err(KMOD_WHO ": no kernel probe '%s' (cut -f1 %s/probes lists them)", names[i], KMOD_DIR);
			ret = -EINVAL;
		}
	if (!list)
		pr_err(KMOD_WHO ": %s/probes: %s", KMOD_DIR, strerror(errno));
	if (!ret && list)
		ret = kmod_rounds(pick, np, cpu, t, o, rep, t0);
	free(list);
	return list ? ret : -EIO;
}

int kmod_run(struct topo *t, const struct run_opts *o, char *const *names, size_t n, struct report *rep)
{
	uint64_t t0 = now_ns();
	char ko[PATH_MAX + 32];
	pid_t guard = 0;
	int wfd, ret, cpu, err;

	ret = kmod_refuse();
	if (!ret)
		ret = kmod_find(ko, sizeof(ko));
	if (ret)
		return ret;
	wfd = kmod_guard(&guard);
	if (wfd < 0) {
		pr_err(KMOD_WHO ": no guard process to unload the module: %s", strerror(-wfd));
		return wfd;
	}
	err = kmod_load(ko);
	ret = err;
	if (!ret && access(KMOD_DIR, F_OK) < 0 && mount("debugfs", KMOD_DEBUGFS, "debugfs", 0, NULL) < 0) {
		pr_err(KMOD_WHO ": mounting debugfs: %s (mount -t debugfs none %s)", strerror(errno), KMOD_DEBUGFS);
		ret = -ENOENT;
	}
	if (!ret)
		ret = runner_prepare(t, o, rep, &cpu);
	if (!ret)
		ret = kmod_probes(t, o, names, n, cpu, rep, t0);
	err = kmod_release(wfd, guard, err < 0);
	runner_finish(o, rep, t0);
	report_fingerprint(rep, &rep->cal);
	return ret ? ret : err;
}
