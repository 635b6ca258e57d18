/* SPDX-License-Identifier: MIT */
/* pmu.c - events through perf_event_open, names through libpfm4 where the
 * build has it (pmu.h has the model, docs/events.md the use). */
#include "pmu.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "build-config.h"
#include "result.h"
#include "stats.h"

#if HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

#define CAP_PERFMON_BIT 38
#define CAP_SYS_ADMIN_BIT 21

/* perf's own names, encoded here directly so that they work in a build
 * without libpfm4 too. */
static const struct alias {
	const char *name;
	uint32_t type;
	uint64_t config;
} aliases[] = {
/* reads of cache id, by result */
#define CACHE(id, res) (PERF_COUNT_HW_CACHE_##id | PERF_COUNT_HW_CACHE_OP_READ << 8 | \
			PERF_COUNT_HW_CACHE_RESULT_##res << 16)
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, CACHE(L1D, ACCESS) },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, MISS) },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, CACHE(LL, ACCESS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, CACHE(LL, MISS) },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, MISS) },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
#undef CACHE
};

/* Counted by every run, to flag disturbed samples and show the time the
 * task really ran. */
static const char *const always_on[] = { "context-switches", "cpu-migrations", "task-clock" };

static const struct alias *find_alias(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].name, name))
			return &aliases[i];
	return NULL;
}

static long perf_open(struct perf_event_attr *a, int group_fd)
{
	return syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any cpu */, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

/* ---- privileges and reasons ------------------------------------------ */

/* perf_event_paranoid (2 when unreadable), euid 0 or CAP_PERFMON or
 * CAP_SYS_ADMIN, and the hypervisor flag of /proc/cpuinfo. */
static struct pmu_perm perm_here(void)
{
	struct pmu_perm p = { .paranoid = 2, .privileged = geteuid() == 0 };
	unsigned long long eff = 0;
	char line[4096];
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &p.paranoid) != 1)
			p.paranoid = 2;
		fclose(f);
	}
	if (!p.privileged && (f = fopen("/proc/self/status", "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(f);
		p.privileged = (eff >> CAP_PERFMON_BIT & 1) || (eff >> CAP_SYS_ADMIN_BIT & 1);
	}
	if ((f = fopen("/proc/cpuinfo", "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5)) {
				p.vm = strstr(line, " hypervisor") != NULL;
				break;
			}
		fclose(f);
	}
	return p;
}

bool pmu_kernel_allowed(int paranoid, bool privileged)
{
	return privileged || paranoid <= 1;
}

/* The errors with one reason whoever asks (pmu_explain). */
static const struct {
	int err;
	const char *why, *reason;
} plain_errors[] = {
	{ ENODEV, "no PMU", "the PMU of this event is not on this machine (ENODEV)" },
	{ EOPNOTSUPP, "unsupported", "the PMU cannot count this event in this mode (EOPNOTSUPP)" },
	{ EINVAL, "refused", "the kernel refused the encoding, or the group does not fit the PMU's "
	  "counters (EINVAL)" },
	{ ENOSPC, "no counter", "no free hardware counter (ENOSPC)" },
	{ EMFILE, "EMFILE", "too many open files (EMFILE): raise ulimit -n" },
	{ ENOSYS, "no perf", "this kernel has no perf_event_open (ENOSYS)" },
};

void pmu_explain(int err, bool hw, const struct pmu_perm *p, char *why, size_t whylen,
		 char *reason, size_t len)
{
	const char *name = err == EACCES ? "EACCES" : "EPERM";

	for (size_t i = 0; i < ARRAY_SIZE(plain_errors); i++)
		if (plain_errors[i].err == err) {
			snprintf(why, whylen, "%s", plain_errors[i].why);
			snprintf(reason, len, "%s", plain_errors[i].reason);
			return;
		}
	if (err == ENOENT) {
		snprintf(why, whylen, "no PMU");
		snprintf(reason, len, "%s (ENOENT)", !hw ? "this kernel does not offer the event" :
			 p->vm ? "no hardware PMU exposed to this VM" :
			 "the kernel has no PMU driver for this CPU");
	} else if (err != EACCES && err != EPERM) {
		snprintf(why, whylen, "errno %d", err);
		snprintf(reason, len, "perf_event_open failed: %s (errno %d)", strerror(err), err);
	} else if (!p->privileged && p->paranoid >= 2) {
		snprintf(why, whylen, "paranoid");
		snprintf(reason, len, "perf_event_paranoid=%d forbids %s for non-root (run as root, grant "
			 "CAP_PERFMON, or sysctl kernel.perf_event_paranoid=%d) (%s)", p->paranoid,
			 p->paranoid >= 3 ? "perf events" : "counting the kernel", p->paranoid >= 3 ? 2 : 1,
			 name);
	} else if (!p->privileged) {
		snprintf(why, whylen, "not root");
		snprintf(reason, len, "not root: permission denied (%s)", name);
	} else {
		snprintf(why, whylen, "denied");
		snprintf(reason, len, "denied although privileged: a seccomp or LSM policy blocks "
			 "perf_event_open (%s)", name);
	}
}

__attribute__((format(printf, 4, 5)))
static void mark_unavailable(struct pmu_event *e, int err, const char *why, const char *fmt, ...)
{
	va_list ap;

	e->available = false;
	e->err = err;
	snprintf(e->why, sizeof(e->why), "%s", why);
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
}

/* ---- encoding ---------------------------------------------------------- */

/* Set while `events --all` walks every event: encoding failures become
 * lines of the listing instead of errors. */
static bool encode_quiet;

/* "pmu::event" names, for "did you mean" and `events --all`. */
struct names {
	char **v;
	size_t n, cap;
};

static const char *names_at(size_t i, void *arg)
{
	const struct names *l = arg;

	return i < l->n ? l->v[i] : NULL;
}

/* Candidates for "did you mean": the aliases, then (libpfm4) "pmu::event"
 * of every PMU detected here, built once. */
static struct names cand;

static const char *cand_name_at(size_t i, void *arg)
{
	return i < ARRAY_SIZE(aliases) ? aliases[i].name : names_at(i - ARRAY_SIZE(aliases), &cand);
}

#if HAVE_LIBPFM
/* Once initialized, pfm_initialize returns at once. */
static int pfm_init_once(void)
{
	int r = pfm_initialize();

	if (r != PFM_SUCCESS)
		pr_err("events: libpfm4 does not initialize: %s", pfm_strerror(r));
	return r == PFM_SUCCESS ? 0 : -EIO;
}

/* PMU p's info: true when libpfm4 has it and, with present, detects it here. */
static bool pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi, bool present)
{
	*pi = (pfm_pmu_info_t){ .size = sizeof(*pi) };
	return pfm_get_pmu_info(p, pi) == PFM_SUCCESS && (!present || pi->is_present);
}

/* Append "pmu::event" for every event of the PMU, as the OS layer os names it. */
static void add_names(struct names *l, const pfm_pmu_info_t *pi, pfm_os_t os)
{
	for (int i = pi->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei = { .size = sizeof(ei) };
		size_t cap = l->cap ? 2 * l->cap : 256;
		char buf[256], **nv;

		if (pfm_get_event_info(i, os, &ei) != PFM_SUCCESS)
			continue;
		if (l->n == l->cap) {
			if (!(nv = realloc(l->v, cap * sizeof(*nv))))
				return;
			l->v = nv;
			l->cap = cap;
		}
		snprintf(buf, sizeof(buf), "%s::%s", pi->name, ei.name);
		if ((l->v[l->n] = strdup(buf)))
			l->n++;
	}
}

static void free_names(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void build_candidates(void)
{
	pfm_pmu_info_t pi;
	pfm_pmu_t p;

	if (cand.v)
		return;
	pfm_for_all_pmus(p)
		if (pmu_info(p, &pi, true))
			add_names(&cand, &pi, PFM_OS_PERF_EVENT_EXT);
}

/* A "pmu::" prefix (into pmu) that names a PMU libpfm4 knows (into pi) but
 * does not detect here: the event is real, this CPU just does not have it. */
static bool pmu_known_not_present(const char *name, char *pmu, size_t len, pfm_pmu_info_t *pi)
{
	const char *sep = strstr(name, "::");
	pfm_pmu_t p;

	if (!sep || (size_t)(sep - name) >= len)
		return false;
	snprintf(pmu, len, "%.*s", (int)(sep - name), name);
	pfm_for_all_pmus(p)
		if (pmu_info(p, pi, false) && pi->name && !strcmp(pi->name, pmu))
			return !pi->is_present;
	return false;
}

/* Whether PMU pi (known to libpfm4, maybe not detected) has the event named
 * in "pmu::EVENT[:UMASK...]"; else the closest "pmu::EVENT" into sug. */
static bool event_in_pmu(const char *name, const pfm_pmu_info_t *pi, char *sug, size_t len)
{
	size_t plen = strlen(pi->name) + 2, evlen = strcspn(name + plen, ":");
	struct names l = { 0 };
	bool found = false;
	const char *s;

	add_names(&l, pi, PFM_OS_NONE);
	for (size_t i = 0; i < l.n && !found; i++)
		found = strlen(l.v[i]) == plen + evlen && !strncasecmp(l.v[i] + plen, name + plen, evlen);
	s = found ? NULL : suggest_name(name, names_at, l.n, &l);
	snprintf(sug, len, "%s", s ? s : "");
	free_names(&l);
	return found;
}

static void detected_pmus(char *buf, size_t len)
{
	pfm_pmu_info_t pi;
	pfm_pmu_t p;
	size_t off = 0;

	buf[0] = 0;
	pfm_for_all_pmus(p)
		if (pmu_info(p, &pi, true) && off < len)
			off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", pi.name);
}

/* Encode a libpfm4 event string. 0, -EINVAL after a message (unknown or
 * malformed), or 1 when the event names a PMU this CPU does not have (e is
 * then marked unavailable). */
static int encode_pfm(const char *name, struct pmu_event *e)
{
	pfm_perf_encode_arg_t arg = { .attr = &e->attr, .size = sizeof(arg) };
	char pmu[64], det[256], mean[300];
	pfm_pmu_info_t pi;
	int r;

	if (pfm_init_once() < 0)
		return -EIO;
	/* PFM_PLM3: count user mode only unless the string says otherwise
	 * (":k=1"): the probes run in user mode, and paranoid=2 allows that
	 * to any user. */
	r = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_SUCCESS)
		return 0;
	if (r == PFM_ERR_NOTFOUND && pmu_known_not_present(name, pmu, sizeof(pmu), &pi)) {
		char sug[256];

		/* libpfm4 keeps the tables of PMUs it does not detect: a typo in
		 * another CPU's event name is still a usage error */
		if (!event_in_pmu(name, &pi, sug, sizeof(sug))) {
			pr_err("-e: unknown event '%s': the %s PMU has no such event%s", name, pmu,
			       did_you_mean(sug, mean, sizeof(mean)));
			return -EINVAL;
		}

		detected_pmus(det, sizeof(det));
		mark_unavailable(e, ENODEV, "other CPU", "this CPU has no %s PMU (libpfm4 detects: %s)",
				 pmu, det[0] ? det : "none");
		return 1;
	}
	if (r == PFM_ERR_NOTFOUND) {
		const char *s;

		build_candidates();
		s = suggest_name(name, cand_name_at, ARRAY_SIZE(aliases) + cand.n, NULL);
		pr_err("-e: unknown event '%s': libpfm4 does not know this event%s "
		       "('atomcost events --all' lists what it knows here)", name,
		       did_you_mean(s, mean, sizeof(mean)));
		return -EINVAL;
	}
	if (encode_quiet) {
		mark_unavailable(e, EINVAL, "encoding", "libpfm4 cannot encode it alone: %s",
				 pfm_strerror(r));
		return 1;
	}
	pr_err("-e: event '%s': %s (libpfm4 syntax: PMU::EVENT:UMASK:modifier=value)", name,
	       pfm_strerror(r));
	return -EINVAL;
}
#else
static int encode_pfm(const char *name, struct pmu_event *e)
{
	const char *s = suggest_name(name, cand_name_at, ARRAY_SIZE(aliases), NULL);
	char mean[96];

	if (strstr(name, "::")) {
		mark_unavailable(e, ENOTSUP, "no libpfm4", "%s",
				 "built without libpfm4 (install libpfm4-dev and rebuild)");
		return 1;
	}
	pr_err("-e: unknown event '%s'%s: this build knows only perf-style names (cycles, "
	       "instructions, cache-misses, ...); libpfm4 event names need a build with libpfm4 "
	       "(install libpfm4-dev and rebuild)", name, did_you_mean(s, mean, sizeof(mean)));
	return -EINVAL;
}
#endif

/* Fill e for name: alias or libpfm4 string. 0, 1 (known but unavailable
 * without trying), or -EINVAL. */
static int encode(const char *name, struct pmu_event *e, const struct pmu_perm *p)
{
	const struct alias *al = find_alias(name);
	int ret;

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (al) {
		e->attr.type = al->type;
		e->attr.config = al->config;
		e->attr.exclude_kernel = 1;	/* user mode, as PFM_PLM3 */
		e->attr.exclude_hv = 1;
	} else {
		ret = encode_pfm(name, e);
		if (ret == 1)
			e->hw = true;	/* a CPU PMU's event */
		if (ret)
			return ret;
	}
	e->hw = e->attr.type != PERF_TYPE_SOFTWARE && e->attr.type != PERF_TYPE_TRACEPOINT;
	e->attr.size = sizeof(struct perf_event_attr);	/* libpfm4 leaves it to us */
	e->attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING;
	e->attr.disabled = 0;
	e->attr.inherit = 0;
	/* The kernel raises context switches and migrations from its own
	 * context: with exclude_kernel they silently read 0. */
	if (e->attr.type == PERF_TYPE_SOFTWARE &&
	    (e->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
	     e->attr.config == PERF_COUNT_SW_CPU_MIGRATIONS)) {
		if (!pmu_kernel_allowed(p->paranoid, p->privileged)) {
			mark_unavailable(e, EACCES, "paranoid", "perf_event_paranoid=%d forbids counting "
					 "kernel-raised events for non-root, and with the kernel excluded "
					 "they read 0 (run as root, grant CAP_PERFMON, or sysctl "
					 "kernel.perf_event_paranoid=1)", p->paranoid);
			return 1;
		}
		e->attr.exclude_kernel = 0;
	}
	return 0;
}

static int add_event(struct pmu_set *s, const char *name, bool requested)
{
	struct pmu_event *e;
	int ret;
	long fd;

	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->ev[i].name, name)) {
			s->ev[i].requested |= requested;
			return 0;
		}
	if (s->n == PMU_MAX_EVENTS) {
		pr_err("-e: at most %d events, with the %zu always counted (got '%s' too many)",
		       PMU_MAX_EVENTS, ARRAY_SIZE(always_on), name);
		return -EINVAL;
	}
	e = &s->ev[s->n];
	ret = encode(name, e, &s->perm);
	if (ret < 0)
		return ret;
	e->requested = requested;
	s->n++;
	if (ret == 1)
		return 0;
	/* Only the kernel tells whether it can be had. */
	fd = perf_open(&e->attr, -1);
	if (fd < 0) {
		e->err = errno;
		pmu_explain(e->err, e->hw, &s->perm, e->why, sizeof(e->why), e->reason,
			    sizeof(e->reason));
		return 0;
	}
	close((int)fd);
	e->available = true;
	return 0;
}

/* The first available event of this type and config, or -1. */
static int first_of(const struct pmu_set *s, uint32_t type, uint64_t config)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->ev[i].available && s->ev[i].attr.type == type && s->ev[i].attr.config == config)
			return (int)i;
	return -1;
}

int pmu_set_resolve(struct pmu_set *s, const char *list, bool require)
{
	char *buf = NULL, *save = NULL, *tok;
	struct pmu_group g;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->perm = perm_here();
	if (list && *list) {
		buf = strdup(list);
		if (!buf)
			return -ENOMEM;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*tok))
				tok++;
			if (!*tok)
				continue;
			ret = add_event(s, tok, true);
			if (ret < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(always_on); i++) {
		ret = add_event(s, always_on[i], false);
		if (ret < 0)
			goto out;
	}
	/* Each event opens alone; check that they open together, as groups. */
	pmu_group_open(&g, s);
	for (unsigned i = 0; i < s->n; i++)
		if (s->ev[i].available && !g.ok[i])
			mark_unavailable(&s->ev[i], s->ev[i].err, "group", "%s", g.reason[i]);
	pmu_group_close(&g);
	s->idx_cs = first_of(s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	s->idx_mig = first_of(s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	s->idx_task = first_of(s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	/* user-mode core cycles, nothing filtered (no cmask, no edge) */
	s->idx_cycles = first_of(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	for (unsigned i = 0; require && i < s->n; i++)
		if (s->ev[i].requested && !s->ev[i].available) {
			pr_err("--require-events: event '%s' cannot be counted here: %s", s->ev[i].name,
			       s->ev[i].reason);
			ret = -ENOTSUP;
		}
out:
	free(buf);
	return ret;
}

/* ---- groups ------------------------------------------------------------ */

void pmu_group_open(struct pmu_group *g, const struct pmu_set *s)
{
	memset(g, 0, sizeof(*g));
	g->set = s;
	g->leader[0] = g->leader[1] = -1;
	for (unsigned i = 0; i < s->n; i++) {
		const struct pmu_event *e = &s->ev[i];
		struct perf_event_attr a = e->attr;
		int *leader = &g->leader[e->hw ? 0 : 1];
		long fd;

		if (!e->available) {
			snprintf(g->reason[i], sizeof(g->reason[i]), "%s", e->reason);
			continue;
		}
		/* the leader starts disabled; members follow it */
		a.disabled = *leader < 0;
		fd = perf_open(&a, *leader);
		if (fd < 0) {
			char why[24];
			int err = errno;

			pmu_explain(err, e->hw, &s->perm, why, sizeof(why), g->reason[i],
				    sizeof(g->reason[i]));
			if (*leader >= 0 && err == EINVAL)
				snprintf(g->reason[i], sizeof(g->reason[i]),
					 "opens alone but not in one group with the other %s events: "
					 "the PMU has too few counters (EINVAL); ask for fewer",
					 e->hw ? "hardware" : "software");
			continue;
		}
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &g->id[i]) < 0) {
			snprintf(g->reason[i], sizeof(g->reason[i]), "PERF_EVENT_IOC_ID failed: %s",
				 strerror(errno));
			close((int)fd);
			continue;
		}
		g->fd[i] = (int)fd;
		g->ok[i] = true;
		if (*leader < 0)
			*leader = (int)fd;
	}
	for (int k = 0; k < 2; k++)
		if (g->leader[k] >= 0) {
			ioctl(g->leader[k], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
			ioctl(g->leader[k], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		}
}

void pmu_group_close(struct pmu_group *g)
{
	for (int k = 0; k < 2; k++)
		if (g->leader[k] >= 0)
			ioctl(g->leader[k], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	/* members before leaders: closing a leader first would orphan them */
	for (unsigned i = 0; i < PMU_MAX_EVENTS; i++)
		if (g->ok[i] && g->fd[i] != g->leader[0] && g->fd[i] != g->leader[1])
			close(g->fd[i]);
	for (int k = 0; k < 2; k++)
		if (g->leader[k] >= 0)
			close(g->leader[k]);
}

int pmu_group_read(const struct pmu_group *g, struct pmu_reading *r)
{
	/* PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING:
	 * nr, time_enabled, time_running, then {value, id} per event */
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];

	for (int k = 0; k < 2; k++) {
		ssize_t n;

		r->enabled[k] = r->running[k] = 0;
		if (g->leader[k] < 0)
			continue;
		n = read(g->leader[k], buf, sizeof(buf));
		if (n < (ssize_t)(3 * sizeof(uint64_t)))
			return n < 0 ? -errno : -EIO;
		r->enabled[k] = buf[1];
		r->running[k] = buf[2];
		for (uint64_t j = 0; j < buf[0] && 3 + 2 * j + 1 < ARRAY_SIZE(buf); j++)
			for (unsigned i = 0; i < g->set->n; i++)
				if (g->ok[i] && g->id[i] == buf[3 + 2 * j + 1])
					r->val[i] = buf[3 + 2 * j];
	}
	return 0;
}

bool pmu_delta(const struct pmu_group *g, const struct pmu_reading *a,
	       const struct pmu_reading *b, unsigned i, double *out)
{
	int k;

	if (i >= g->set->n || !g->ok[i])
		return false;
	k = g->set->ev[i].hw ? 0 : 1;
	/* multiplexed for part of the interval: the count is an estimate */
	if (b->running[k] - a->running[k] != b->enabled[k] - a->enabled[k])
		return false;
	*out = (double)(b->val[i] - a->val[i]);
	return true;
}

/* ---- arithmetic -------------------------------------------------------- */

double pmu_ticks_per_cycle(const double *dticks, const double *dcycles, size_t n)
{
	double *r = malloc((n ? n : 1) * sizeof(double)), m;
	size_t k = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (dcycles[i] > 0 && dticks[i] > 0)
			r[k++] = dticks[i] / dcycles[i];
	m = k ? stats_median(r, k) : 0;
	free(r);
	return m;
}

void pmu_stat_of(const double *v, size_t n, struct result_event *st)
{
	st->n = n;
	st->min = st->median = st->mean = st->max = st->total = 0;
	if (!n)
		return;
	st->min = st->max = v[0];
	for (size_t i = 0; i < n; i++) {
		st->total += v[i];
		st->min = fmin(st->min, v[i]);
		st->max = fmax(st->max, v[i]);
	}
	st->mean = st->total / (double)n;
	st->median = stats_median(v, n);
}

/* ---- `atomcost events` ------------------------------------------------- */

#if HAVE_LIBPFM
/* "AuthenticAMD family 26 model 17" from /proc/cpuinfo. */
static void cpu_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], vendor[64] = "?";
	int fam = -1, model = -1;

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "vendor_id : %63s", vendor);
		sscanf(line, "cpu family : %d", &fam);
		if (sscanf(line, "model : %d", &model) == 1)
			break;
	}
	if (f)
		fclose(f);
	snprintf(buf, len, "%s family %d model %d", vendor, fam, model);
}
#endif

/* One line of the table: the event, its type, whether it opens, and its
 * mode or the reason it does not. */
static void try_and_print(FILE *f, const char *name, const struct pmu_perm *p)
{
	struct pmu_set s = { .perm = *p };
	const struct pmu_event *e = &s.ev[0];
	int ret;

	encode_quiet = true;	/* an event libpfm4 cannot encode alone is a line, not an error */
	ret = add_event(&s, name, true);
	encode_quiet = false;
	if (ret >= 0 && s.n)
		fprintf(f, "  %-28s %-9s %-4s %s\n", e->name, e->hw ? "hardware" : "software",
			e->available ? "yes" : "no", !e->available ? e->reason :
			e->attr.exclude_kernel ? "user mode" : "kernel included");
}

int pmu_print_events(FILE *f, bool all)
{
	struct pmu_perm perm = perm_here();

#if HAVE_LIBPFM
	pfm_pmu_info_t pi;
	pfm_pmu_t p;
	bool core = false;

	if (pfm_init_once() < 0)
		return -EIO;
	fprintf(f, "libpfm4: PMUs detected on this CPU (from CPUID; only perf_event_open "
		   "says whether they count):\n");
	pfm_for_all_pmus(p) {
		if (!pmu_info(p, &pi, true))
			continue;
		core |= pi.type == PFM_PMU_TYPE_CORE;
		fprintf(f, "  %-24s %-40s %4d events%s\n", pi.name, pi.desc, pi.nevents,
			pi.type == PFM_PMU_TYPE_CORE ? ", core PMU" :
			pi.type == PFM_PMU_TYPE_OS_GENERIC ? ", generic (perf_events names)" : "");
	}
	if (!core) {
		char cpu[128];

		cpu_id(cpu, sizeof(cpu));
		fprintf(f, "  no core PMU: this libpfm4 has no event table for this CPU (%s); the generic\n"
			   "  perf:: names still encode, CPU-specific names (amd64_fam19h_zen3::...) are n/a\n",
			cpu);
	}
#else
	fprintf(f, "libpfm4: built without libpfm4 (install libpfm4-dev and rebuild): only the "
		   "perf-style names below can be asked for\n");
#endif
	fprintf(f, "kernel PMU: %s\n",
		access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ? "cpu (hardware events possible)" :
		perm.vm ? "none exposed to this VM (no /sys/bus/event_source/devices/cpu)" :
		     "none (no /sys/bus/event_source/devices/cpu)");
	fprintf(f, "perf_event_paranoid=%d, %s: kernel-raised software events (context-switches, "
		   "cpu-migrations) %s\n", perm.paranoid,
		perm.privileged ? "privileged (root or CAP_PERFMON)" : "not root",
		pmu_kernel_allowed(perm.paranoid, perm.privileged) ? "are counted with the kernel included" :
		"cannot be counted (they read 0 without the kernel)");
	fprintf(f, "\nwhat opens here (perf_event_open on this thread):\n");
	fprintf(f, "  %-28s %-9s %-4s %s\n", "event", "type", "ok", "mode or reason");
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		try_and_print(f, aliases[i].name, &perm);
#if HAVE_LIBPFM
	if (all) {
		pfm_for_all_pmus(p) {
			struct names l = { 0 };

			if (!pmu_info(p, &pi, true))
				continue;
			fprintf(f, "\nlibpfm4 PMU %s:\n", pi.name);
			add_names(&l, &pi, PFM_OS_PERF_EVENT_EXT);
			for (size_t i = 0; i < l.n; i++)
				try_and_print(f, l.v[i], &perm);
			free_names(&l);
		}
	} else {
		fprintf(f, "\n'atomcost events --all' tries every event of every PMU libpfm4 detects.\n");
	}
#else
	(void)all;
#endif
	return 0;
}

/* ---- per-sample bookkeeping (runner.c) --------------------------------- */

static void sampler_free(struct pmu_sampler *s)
{
	free(s->v);
	free(s->own);
	memset(s, 0, sizeof(*s));
}

int pmu_sampler_start(struct pmu_sampler *s, const struct pmu_set *set, size_t cap,
		      uint64_t ops_n)
{
	memset(s, 0, sizeof(*s));
	if (!set) {
		s->own = malloc(sizeof(*s->own));
		if (!s->own)
			return -ENOMEM;
		(void)pmu_set_resolve(s->own, NULL, false);	/* always-on aliases: never fails */
		set = s->own;
	}
	s->cap = cap;
	s->ops_n = (double)ops_n;
	/* one block: v, then dticks, dcycles and disturbed */
	s->v = malloc((set->n + 2) * cap * sizeof(double) + cap);
	if (!s->v) {
		sampler_free(s);
		return -ENOMEM;
	}
	s->dticks = s->v + set->n * cap;
	s->dcycles = s->dticks + cap;
	s->disturbed = (signed char *)(s->dcycles + cap);
	pmu_group_open(&s->g, set);
	s->active = s->g.leader[0] >= 0 || s->g.leader[1] >= 0;	/* a read is worth its cost */
	s->stale = true;
	return 0;
}

static void sampler_read(struct pmu_sampler *s, struct pmu_reading *r)
{
	if (s->active && pmu_group_read(&s->g, r) < 0)
		s->active = false;	/* the samples from here on are "not counted" */
}

void pmu_sampler_before(struct pmu_sampler *s)
{
	if (s->stale)
		sampler_read(s, &s->a);
	s->stale = false;
}

void pmu_sampler_mid(struct pmu_sampler *s)
{
	sampler_read(s, &s->b);
}

void pmu_sampler_after(struct pmu_sampler *s, size_t i, double t_n, double t_2n)
{
	const struct pmu_set *set = s->g.set;
	double sw = 0;
	bool known = false;

	if (i >= s->cap)
		return;
	sampler_read(s, &s->c);
	s->dticks[i] = t_2n - t_n;
	s->dcycles[i] = NAN;
	for (unsigned k = 0; k < set->n; k++) {
		double *v = &s->v[(size_t)k * s->cap + i], dn, d2n;

		*v = NAN;
		if (!s->active)
			continue;
		if (set->ev[k].hw) {
			if (pmu_delta(&s->g, &s->a, &s->b, k, &dn) &&
			    pmu_delta(&s->g, &s->b, &s->c, k, &d2n)) {
				*v = (d2n - dn) / s->ops_n;
				if ((int)k == set->idx_cycles)
					s->dcycles[i] = d2n - dn;
			}
		} else if (pmu_delta(&s->g, &s->a, &s->c, k, &dn)) {
			*v = dn;
			if ((int)k == set->idx_cs || (int)k == set->idx_mig) {
				sw += dn;
				known = true;
			}
		}
	}
	s->disturbed[i] = known ? sw > 0 : -1;
	s->a = s->c;
}

/* Event k's figures over the n samples into re; tmp holds n values. */
static void event_figures(const struct pmu_sampler *s, unsigned k, size_t n, double *tmp,
			  struct result_event *re)
{
	const struct pmu_event *e = &s->g.set->ev[k];
	size_t cnt = 0;

	memset(re, 0, sizeof(*re));
	snprintf(re->name, sizeof(re->name), "%s", e->name);
	re->per_op = e->hw;
	for (size_t i = 0; i < n; i++)
		if (!isnan(s->v[(size_t)k * s->cap + i]))
			tmp[cnt++] = s->v[(size_t)k * s->cap + i];
	if (!s->g.ok[k]) {
		snprintf(re->why, sizeof(re->why), "%s", e->available ? "group" : e->why);
		snprintf(re->reason, sizeof(re->reason), "%s", s->g.reason[k]);
		return;
	}
	if (!cnt) {
		snprintf(re->why, sizeof(re->why), "multiplexed");
		snprintf(re->reason, sizeof(re->reason),
			 "never counted over a whole sample: the PMU multiplexed the group with "
			 "other perf users (time_running < time_enabled)");
		return;
	}
	pmu_stat_of(tmp, cnt, re);
	re->available = true;
}

/* The disturbed samples (a context switch or a migration counted), by index. */
static void disturbed_samples(const struct pmu_sampler *s, size_t n, struct result *res)
{
	size_t nd = 0, nknown = 0, *idx = malloc((n ? n : 1) * sizeof(*idx));

	for (size_t i = 0; i < n; i++) {
		nknown += s->disturbed[i] >= 0;
		if (s->disturbed[i] > 0 && idx)
			idx[nd] = i;
		nd += s->disturbed[i] > 0;
	}
	res->disturbed = nknown ? (long)nd : -1;
	free(res->extra.disturbed_at);
	res->extra.disturbed_at = nknown ? idx : NULL;
	res->extra.ndisturbed_at = idx ? nd : 0;
	if (nknown && idx)
		res->extra.has |= 1u << RX_DISTURBED;
	else
		free(idx);
}

void pmu_sampler_finish(struct pmu_sampler *s, size_t n, struct result *res)
{
	const struct pmu_set *set = s->g.set;
	double *tmp = malloc((n ? n : 1) * sizeof(double));

	if (n > s->cap)
		n = s->cap;
	res->nevents = 0;
	for (unsigned k = 0; k < set->n && k < RESULT_MAX_EVENTS && tmp; k++)
		event_figures(s, k, n, tmp, &res->events[res->nevents++]);
	free(tmp);
	disturbed_samples(s, n, res);
	for (size_t i = 0; i < n; i++)	/* ticks per PMU cycle over the undisturbed samples */
		if (s->disturbed[i] > 0)
			s->dcycles[i] = NAN;
	res->pmu_ticks_per_cycle = set->idx_cycles >= 0 ?
				   pmu_ticks_per_cycle(s->dticks, s->dcycles, n) : 0;
	pmu_group_close(&s->g);
	sampler_free(s);
}

/* One correction per result: a result whose cycles the PMU counted has raw
 * samples (runner_to_per_op) and is rescaled here by report tpc / its own
 * tpc, so its cycles are raw ticks / its own PMU ticks per cycle; one the
 * drift chain rescaled (onto the chain's calibration) is moved onto the
 * report's tpc by report tpc / chain tpc. Results no clock rescaled
 * (threads, reproductions) keep their ticks. */
void pmu_report_cycles(struct report *rep)
{
	double *v = malloc((rep->n ? rep->n : 1) * sizeof(double)), chain = rep->cal.ticks_per_cycle;
	size_t k = 0;

	if (!v)
		return;
	for (size_t i = 0; i < rep->n; i++)
		if (rep->r[i].pmu_ticks_per_cycle > 0)
			v[k++] = rep->r[i].pmu_ticks_per_cycle;
	if (k && chain > 0) {
		double tpc = stats_median(v, k);

		rep->pmu_ticks_per_cycle = tpc;
		rep->chain_ticks_per_cycle = chain;
		rep->cycle_agreement = fabs(tpc - chain) / chain;
		rep->cal.ticks_per_cycle = tpc;
		rep->cal.core_hz = rep->cal.timer_hz / tpc;
		snprintf(rep->cal.cycle_source, sizeof(rep->cal.cycle_source),
			 "PMU cycles event (user mode, median over probes); add chain kept for agreement");
		for (size_t i = 0; i < rep->n; i++) {
			struct result *r = &rep->r[i];
			double f;

			if (r->clock_source == RESULT_CLOCK_PMU && r->pmu_ticks_per_cycle > 0)
				f = tpc / r->pmu_ticks_per_cycle;
			else if (r->clock_source == RESULT_CLOCK_CHAIN)
				f = tpc / chain;
			else
				continue;
			result_rescale(r, f);	/* overheads stay raw ticks */
		}
	}
	free(v);
}
