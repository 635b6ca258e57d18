/* SPDX-License-Identifier: MIT */
/* quiet.c - the thread's share of its CPU, and waiting for it (quiet.h). */
#include "quiet.h"

#include "common.h"
#include "runner.h"
#include "topo.h"

/* The wait measures in slices this long and keeps the last window's worth. */
#define SLICE_NS 50000000ull
#define MAX_SLICES 200

void quiet_start(struct quiet_mark *m)
{
	m->wall_ns = now_ns();
	m->cpu_ns = thread_cpu_ns();
}

double quiet_share_of(uint64_t wall_ns, uint64_t cpu_ns)
{
	return cpu_ns + QUIET_LOST_FLOOR_NS >= wall_ns ? 1.0 : (double)cpu_ns / (double)wall_ns;
}

double quiet_share(const struct quiet_mark *m)
{
	uint64_t cpu = thread_cpu_ns() - m->cpu_ns;

	return quiet_share_of(now_ns() - m->wall_ns, cpu);
}

bool quiet_wait(double share, double window_s, double budget_s, double *waited_s)
{
	uint64_t cpu[MAX_SLICES], wall[MAX_SLICES], t0 = now_ns(), sum_cpu = 0, sum_wall = 0;
	size_t need = (size_t)(window_s * 1e9 / SLICE_NS + 0.5), n = 0;
	bool quiet = false;

	if (need < 1)
		need = 1;
	if (need > MAX_SLICES)
		need = MAX_SLICES;
	while (!quiet && !runner_stop && (now_ns() - t0) / 1e9 < budget_s) {
		struct quiet_mark m;
		size_t k = n % need;

		quiet_start(&m);
		while (now_ns() - m.wall_ns < SLICE_NS)
			;	/* the CPU's time is what is measured: spin */
		if (n >= need) {
			sum_cpu -= cpu[k];
			sum_wall -= wall[k];
		}
		wall[k] = now_ns() - m.wall_ns;
		cpu[k] = thread_cpu_ns() - m.cpu_ns;
		sum_cpu += cpu[k];
		sum_wall += wall[k];
		n++;
		quiet = n >= need && (double)sum_cpu >= share * (double)sum_wall;
	}
	*waited_s = (now_ns() - t0) / 1e9;
	return quiet;
}

double quiet_probe(double seconds)
{
	struct quiet_mark m;

	quiet_start(&m);
	while (now_ns() - m.wall_ns < (uint64_t)(seconds * 1e9))
		;
	return quiet_share(&m);
}

static double spent(const struct quiet_budget *b)
{
	return b->waited_s + b->repeat_s + b->lost_s;
}

bool quiet_should_repeat(struct quiet_budget *b, double share, double took_s)
{
	if (!(share < QUIET_SHARE))
		return false;
	if (b->vain < QUIET_VAIN_WAITS && spent(b) + QUIET_WINDOW_S + took_s <= b->patience_s)
		return true;
	b->kept_disturbed++;
	return false;
}

bool quiet_budget_wait(struct quiet_budget *b)
{
	double w = 0, left = b->patience_s - spent(b);
	bool quiet = left > 0 && quiet_wait(QUIET_SHARE, QUIET_WINDOW_S, left < QUIET_WAIT_S ? left : QUIET_WAIT_S,
					    &w);

	b->waited_s += w;
	b->vain = quiet ? 0 : b->vain + 1;
	if (!quiet)
		b->kept_disturbed++;
	return quiet;
}

int quiet_pick_cpu(struct topo *t, char *why, size_t len)
{
	int n = topo_allowed_count(t), best = topo_allowed_os(t, 0), first = best, ret;
	double best_share = -1, first_share = 1;
	char shares[96] = "";

	for (int i = 0; i < n; i++) {
		int cpu = topo_allowed_os(t, i);
		double share;
		size_t l = strlen(shares);

		if ((ret = topo_bind_thread(t, cpu)) < 0)
			return ret;
		share = quiet_probe(QUIET_PROBE_S);
		if (l + 16 < sizeof(shares))
			snprintf(shares + l, sizeof(shares) - l, "%s%d: %.0f%%", l ? ", " : "", cpu, share * 100);
		if (i == 0)
			first_share = share;
		if (share > best_share + 0.02)
			best = cpu, best_share = share;
		if (i == 0 && share >= QUIET_SHARE)
			break;	/* the first allowed PU is quiet: stay */
	}
	if (best == first)
		snprintf(why, len, "the first allowed PU, %s; a thread's share of each PU: %s",
			 first_share >= QUIET_SHARE ? "quiet" : "no quieter one allowed", shares);
	else
		snprintf(why, len, "moved from CPU %d, the quietest allowed PU; a thread's share of each PU: %s",
			 first, shares);
	ret = topo_bind_thread(t, best);
	return ret < 0 ? ret : best;
}
