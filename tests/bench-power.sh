#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-power.sh ATOMCOST SRCDIR - can compare see a change? The A/A
# benchmark (tests/bench-aa.sh: pairs of default runs, false alarms and the
# share of rows judged) counts what compare says of nothing; this one
# injects known changes into real reports and checks they are found:
#  1. A/A: bench-aa.sh's pairs, one report a side (a1 b1, a2 b2, ...);
#  2. two reports a side (a1,a2 against b1,b2): in copies of the B reports
#     the samples of 3 hot rows are scaled by 1.10 and of 2 pattern rows by
#     1.3 (every epoch): compare must flag exactly those, and at most one
#     other row; then the 3 hot rows by 1.05 alone;
#  3. one report a side (a1 against b1): one hot row scaled by 1.10 must be
#     flagged, and at most one other row.
# The rows: BENCH_POWER_HOT, BENCH_POWER_PATTERN and BENCH_POWER_ONE, each
# "probe:pattern:mode ..." (issue 29's rows by default). BENCH_PAIRS (at
# least 2), BENCH_AA_ARGS, BENCH_AA_KEEP, BENCH_AA_JUDGED and
# BENCH_AA_REPORTS as for bench-aa.sh: with BENCH_AA_REPORTS holding a1, a2,
# b1 and b2 nothing is run (`meson test power-fixtures` gives it the Intel
# guest's reports in tests/data). jq rewrites the samples.
# A benchmark (`meson test --benchmark power`). Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-power.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: bench-power.sh PATH/TO/atomcost SRCDIR}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed (./bootstrap installs it)"; exit 77; }
# shellcheck source=tests/bench-aa.sh
. "$SRC/tests/bench-aa.sh"
HOT=${BENCH_POWER_HOT:-set_bit:hit:latency atomic_inc:hit:latency cmpxchg:hit:throughput}
PATTERN=${BENCH_POWER_PATTERN:-set_bit:l2:latency cmpxchg:llc:latency}
ONE=${BENCH_POWER_ONE:-set_bit:hit:latency}
[ "${BENCH_PAIRS:-2}" -ge 2 ] || { echo "FAIL: BENCH_PAIRS must be at least 2 (two reports a side)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

echo "== 1. A/A, one report a side: $(basename "$SRC")/tests/bench-aa.sh"
BENCH_PAIRS=${BENCH_PAIRS:-2} BENCH_AA_KEEP="$T/runs" bash "$SRC/tests/bench-aa.sh" "$A" "$SRC" || fail=1
[ -s "$T/runs/a2.json" ] && [ -s "$T/runs/b2.json" ] || { echo "FAIL: the A/A runs left no reports"; exit 1; }
R=$T/runs

# two FACTOR ROWS / FACTOR2 ROWS2: B's copies scaled, two reports a side
two() {
	local tag=$1 f1=$2 rows1=$3 f2=$4 rows2=$5 i
	for i in 1 2; do
		# shellcheck disable=SC2086
		inject "$R/b$i.json" "$T/$tag-h$i.json" "$f1" $rows1 &&
			if [ -n "$rows2" ]; then inject "$T/$tag-h$i.json" "$T/$tag-$i.json" "$f2" $rows2
			else mv "$T/$tag-h$i.json" "$T/$tag-$i.json"; fi ||
			{ echo "FAIL: jq could not rewrite b$i.json"; exit 1; }
	done
	"$A" compare "$R/a1.json,$R/a2.json" "$T/$tag-1.json,$T/$tag-2.json" >"$T/$tag.txt" ||
		{ echo "FAIL: compare failed"; exit 1; }
	grep '^summary:' "$T/$tag.txt" | sed 's/^/    /'
	echo "    $(bench_detect "$T/$tag.txt")"
	# shellcheck disable=SC2086
	found "$T/$tag.txt" $rows1 $rows2 || fail=1
}

echo "== 2. two reports a side; B: x1.10 on $HOT, x1.3 on $PATTERN"
two big 1.10 "$HOT" 1.3 "$PATTERN"
echo "== 2. two reports a side; B: x1.05 on $HOT"
two small 1.05 "$HOT" 1 ""

echo "== 3. one report a side; B: x1.10 on $ONE"
# shellcheck disable=SC2086
inject "$R/b1.json" "$T/o1.json" 1.10 $ONE || { echo "FAIL: jq could not rewrite b1.json"; exit 1; }
"$A" compare "$R/a1.json" "$T/o1.json" >"$T/cmp1.txt" || { echo "FAIL: compare failed"; exit 1; }
grep '^summary:' "$T/cmp1.txt" | sed 's/^/    /'
# shellcheck disable=SC2086
found "$T/cmp1.txt" $ONE || fail=1

if [ "$fail" -eq 0 ]; then
	echo "PASS: injected changes found, A/A quiet"
	exit 0
fi
echo "FAIL: see above"
exit 1
