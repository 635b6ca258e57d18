/* SPDX-License-Identifier: MIT */
/* test-quiet.c - the repeat policy of a run under load (quiet.h): which
 * disturbed stretches are run again within the patience, on synthetic
 * CPU shares; and the wait and the probe on this (pinned or not) thread. */
#include <math.h>

#include "harness.h"
#include "quiet.h"

static void policy(void)
{
	struct quiet_budget b = { .patience_s = 20 };

	CHECK(!quiet_should_repeat(&b, 1.0, 5), "a quiet stretch is kept");
	CHECK(!quiet_should_repeat(&b, QUIET_SHARE, 5), "a share at the threshold is quiet");
	CHECK(b.kept_disturbed == 0, "nothing disturbed yet (%u)", b.kept_disturbed);
	CHECK(quiet_should_repeat(&b, 0.5, 5), "a stretch at 50%% is repeated while patience lasts");
	/* 12 s spent: a window (1 s) and another 5 s stretch still fit in 20 */
	b.waited_s = 4, b.repeat_s = 8;
	CHECK(quiet_should_repeat(&b, 0.9, 5), "12 + 1 + 5 <= 20: repeated");
	b.repeat_s = 14.5;
	CHECK(!quiet_should_repeat(&b, 0.9, 5), "18.5 + 1 + 5 > 20: kept as it is");
	CHECK(b.kept_disturbed == 1, "and counted kept disturbed (%u)", b.kept_disturbed);
	CHECK(!quiet_should_repeat(&b, 0.99, 5), "a quiet one is never counted");
	CHECK(b.kept_disturbed == 1, "still one (%u)", b.kept_disturbed);
	/* no patience: nothing is ever repeated */
	b = (struct quiet_budget){ .patience_s = 0 };
	CHECK(!quiet_should_repeat(&b, 0.1, 0.5) && b.kept_disturbed == 1, "--patience 0 repeats nothing");
	/* waits in vain: the machine is busy without a break, stop waiting */
	b = (struct quiet_budget){ .patience_s = 100, .vain = QUIET_VAIN_WAITS - 1 };
	CHECK(quiet_should_repeat(&b, 0.5, 1), "one vain wait: still worth another");
	b.vain = QUIET_VAIN_WAITS;
	CHECK(!quiet_should_repeat(&b, 0.5, 1) && b.kept_disturbed == 1,
	      "%d vain waits in a row: kept without waiting", QUIET_VAIN_WAITS);
	b.kept_disturbed = 1;
	/* a NaN share (nothing measured) is not called disturbed */
	CHECK(!quiet_should_repeat(&b, NAN, 1) && b.kept_disturbed == 1, "NaN share: kept, not disturbed");
}

static void wait_budget(void)
{
	struct quiet_budget b = { .patience_s = 5, .repeat_s = 5 };

	/* no patience left: no wait, and the stretch stays disturbed */
	CHECK(!quiet_budget_wait(&b) && b.waited_s == 0 && b.kept_disturbed == 1 && b.vain == 1,
	      "spent patience: no wait (%g s), kept (%u), a wait in vain (%u)", b.waited_s, b.kept_disturbed,
	      b.vain);
	CHECK(quiet_probe(0.01) > 0, "a probe of 10 ms had some CPU");
}

/* The share from a stretch's clocks: one that lost less than the floor
 * lost nothing (the 36 us pass of the 2015 model that lost 7 us to the
 * clocks' reads); one that lost more, its share. */
static void share_floor(void)
{
	CHECK(quiet_share_of(36000, 29000) == 1.0, "36 us, 7 lost: share %g, expected 1",
	      quiet_share_of(36000, 29000));
	CHECK(quiet_share_of(QUIET_LOST_FLOOR_NS + 1, 0) < 1e-6, "all of a stretch past the floor lost: %g",
	      quiet_share_of(QUIET_LOST_FLOOR_NS + 1, 0));
	CHECK(fabs(quiet_share_of(1000000, 500000) - 0.5) < 1e-12, "1 ms, half lost: %g",
	      quiet_share_of(1000000, 500000));
	CHECK(quiet_share_of(0, 0) == 1.0, "an empty stretch: %g", quiet_share_of(0, 0));
}

int main(void)
{
	policy();
	share_floor();
	wait_budget();
	return test_done("quiet");
}
