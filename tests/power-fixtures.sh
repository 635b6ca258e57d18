#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# power-fixtures.sh ATOMCOST SRCDIR - tests/bench-power.sh on real reports
# kept in tests/data: four quiet default runs of an Intel Xeon KVM guest
# (family 6 model 167, 2 vCPUs; trimmed to each result's summary), runs 1
# and 3 as A, 2 and 4 as B. Nothing is measured, so it is deterministic: the
# A/A pairs, the injected changes and the share of rows judged are those
# docs/reports.md quotes. Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: power-fixtures.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: power-fixtures.sh PATH/TO/atomcost SRCDIR}
command -v xz >/dev/null || { echo "SKIP: xz not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for side in a1:1 b1:2 a2:3 b2:4; do
	xz -dc "$SRC/tests/data/intel-xeon-kvm-run${side#*:}.json.xz" >"$T/${side%:*}.json" ||
		{ echo "FAIL: cannot unpack run ${side#*:}"; exit 1; }
done
# one report a side judges 71% and 82% of these pairs' rows: the guest's
# LLC and DRAM rows move 2-10% between runs (docs/reports.md)
BENCH_AA_REPORTS=$T BENCH_PAIRS=2 BENCH_AA_JUDGED=${BENCH_AA_JUDGED:-70} exec bash "$SRC/tests/bench-power.sh" "$A" "$SRC"
