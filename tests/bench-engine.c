/* SPDX-License-Identifier: MIT */
/* bench-engine.c ATOMCOST - the engine's precision targets, run by
 * `meson test --benchmark`, never by the unit tests:
 *   the self-checks: imul chain 3.00 and the L1 load chase (load_chase hit
 *   latency) 4.00 core cycles within 1% (the add chain reads 1.00 by
 *   construction: it defines the cycle, so it is printed, not a check),
 *   empty probe residual <= 0.05 cycles/op,
 *   spread of each default probe's median over 5 separate processes <= 1%.
 * Also counts the rows the engine flagged (implausible overhead, minimum
 * below its bound), per process. Prints every figure; exits 1 when a
 * target is missed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

#define PROCS 5

int main(int argc, char **argv)
{
	struct report rep[PROCS];
	char dir[] = "/tmp/atomcost-bench-XXXXXX", path[PROCS][160], cmd[1024];
	int missed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-engine PATH/TO/atomcost\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	for (int i = 0; i < PROCS; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/run%d.json", dir, i);
		snprintf(cmd, sizeof(cmd), "%s run -o %s >/dev/null 2>&1", argv[1], path[i]);
		if (system(cmd) != 0 || report_read(path[i], &rep[i]) < 0) {
			fprintf(stderr, "bench-engine: '%s' failed\n", cmd);
			return 1;
		}
	}

	printf("%-22s %-10s %9s %9s %9s %8s  %s\n", "probe", "mode", "min med", "max med",
	       "mean", "spread", "target");
	for (size_t k = 0; k < rep[0].n; k++) {
		const struct result *r0 = &rep[0].r[k];
		double lo = INFINITY, hi = -INFINITY, sum = 0, spread;
		const char *target = "spread <= 1%";
		bool ok;

		for (int i = 0; i < PROCS; i++) {
			const struct result *r = report_find(&rep[i], r0->name, r0->mode, r0->pattern, r0->context);
			double c = r ? result_cycles(&rep[i], r->s.median) : NAN;

			lo = fmin(lo, c);
			hi = fmax(hi, c);
			sum += c;
		}
		spread = (hi - lo) / (sum / PROCS);
		ok = spread <= 0.01;
		if (!strcmp(r0->name, "empty")) {
			target = "<= 0.05 cyc";
			ok = hi <= 0.05;
		} else if (!strcmp(r0->name, "add_chain")) {
			target = "1.00 by construction (circular)";
			ok = true;
		} else if (!strcmp(r0->name, "load_chase") && r0->mode == MODE_LATENCY &&
			   !strcmp(r0->pattern, "hit")) {
			target = "4.00 +- 1% (L1 chase)";
			ok = fabs(lo - 4) <= 0.04 && fabs(hi - 4) <= 0.04;
		} else if (!strcmp(r0->name, "imul_chain")) {
			target = "3.00 +- 1%";
			ok = fabs(lo - 3) <= 0.03 && fabs(hi - 3) <= 0.03;
		}
		missed += !ok;
		printf("%-22s %-10s %9.3f %9.3f %9.3f %7.2f%%  %s%s\n", r0->name, probe_mode_name(r0->mode),
		       lo, hi, sum / PROCS, spread * 100, target, ok ? "" : "  MISSED");
	}
	for (int i = 0; i < PROCS; i++) {
		size_t novh = 0, nmin = 0;

		for (size_t k = 0; k < rep[i].n; k++) {
			novh += rep[i].r[k].overhead_flag;
			nmin += rep[i].r[k].min_flag;
		}
		printf("process %d: %zu of %zu rows with an implausible overhead, %zu with a minimum "
		       "below its bound\n", i + 1, novh, rep[i].n, nmin);
	}
	printf("bench-engine: %d target(s) missed over %zu rows, %d processes\n", missed, rep[0].n, PROCS);
	for (int i = 0; i < PROCS; i++) {
		report_free(&rep[i]);
		unlink(path[i]);
	}
	rmdir(dir);
	return missed ? 1 : 0;
}
