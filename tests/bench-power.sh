#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-power.sh ATOMCOST SRCDIR - can compare see a change? The A/A
# benchmark (tests/bench-aa.sh: pairs of default runs, false alarms) counts
# only what compare flags wrongly; a compare that never flags passes it.
# This one injects known changes into real reports and checks they are
# found:
#  1. A/A: bench-aa.sh's pairs (at most one row flagged over all pairs);
#  2. three reports per side (a1,a2,a3 against b1,b2,b3): in copies of the
#     B reports the samples of 3 hot rows are scaled by 1.10 and of 2
#     pattern rows by 1.3 (every epoch): compare must flag exactly those,
#     and at most one other row;
#  3. one report per side (a1 against b1): one hot row scaled by 1.2 must
#     be flagged, and at most one other row.
# The rows: BENCH_POWER_HOT, BENCH_POWER_PATTERN and BENCH_POWER_ONE, each
# "probe:pattern:mode ..."; by default the card's set_bit lines and two
# locked ops (docs/reports.md says how each reads on the development guest).
# BENCH_PAIRS (at least 3), BENCH_AA_ARGS, BENCH_AA_KEEP and
# BENCH_AA_REPORTS as for bench-aa.sh. jq rewrites the samples.
# A benchmark (`meson test --benchmark power`). Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-power.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: bench-power.sh PATH/TO/atomcost SRCDIR}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed (./bootstrap installs it)"; exit 77; }
# shellcheck source=tests/bench-aa.sh
. "$SRC/tests/bench-aa.sh"
HOT=${BENCH_POWER_HOT:-set_bit:hit:latency cmpxchg:hit:latency atomic_inc:hit:throughput}
PATTERN=${BENCH_POWER_PATTERN:-set_bit:l2:latency set_bit:miss:latency}
ONE=${BENCH_POWER_ONE:-__set_bit:hit:latency}
[ "${BENCH_PAIRS:-5}" -ge 3 ] || { echo "FAIL: BENCH_PAIRS must be at least 3 (three reports a side)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

# inject IN OUT FACTOR ROW...: a copy of IN with the samples (and the
# summaries) of each ROW (probe:pattern:mode), in every epoch, times FACTOR.
inject() {
	local in=$1 out=$2 f=$3 rows
	shift 3
	rows=$(printf '%s\n' "$@" | jq -R 'split(":")' | jq -s -c .)
	jq -c --argjson f "$f" --argjson rows "$rows" '
		def scale: if type == "object" then with_entries(if (.value | type) == "number" then .value *= $f else . end) else . end;
		.results |= map(if ([.probe, .pattern, .mode] as $k | any($rows[]; . == $k))
				then .samples_ticks |= map(. * $f) | .ticks |= scale | .cycles |= scale | .ns |= scale
				else . end)' "$in" >"$out"
}

# row_line CMP.txt ROW: the table line of ROW (probe:pattern:mode).
row_line() {
	awk -v k="${2//:/ }" '/^summary:/ { exit } ($1 " " $2 " " $3) == k' "$1" | head -1
}

# found CMP.txt ROW...: every ROW flagged, and at most one other row.
found() {
	local cmp=$1 want missed=0 others
	shift
	for want in "$@"; do
		if bench_flagged "$cmp" | grep -qxF "${want//:/ }"; then
			echo "    found  $(row_line "$cmp" "$want")"
		else
			missed=$((missed + 1))
			echo "    MISSED $(row_line "$cmp" "$want")"
		fi
	done
	bench_flagged "$cmp" | grep -vxF -f <(printf '%s\n' "$@" | tr : ' ') >"$cmp.others"
	others=$(wc -l <"$cmp.others")
	while read -r row; do echo "    other  $(row_line "$cmp" "${row// /:}")"; done <"$cmp.others"
	echo "    $(($# - missed)) of $# injected rows flagged, $others other"
	[ "$missed" -eq 0 ] && [ "$others" -le 1 ]
}

echo "== 1. A/A: $(basename "$SRC")/tests/bench-aa.sh"
BENCH_AA_KEEP="$T/runs" bash "$SRC/tests/bench-aa.sh" "$A" "$SRC" || fail=1
[ -s "$T/runs/a3.json" ] && [ -s "$T/runs/b3.json" ] || { echo "FAIL: the A/A runs left no reports"; exit 1; }
R=$T/runs

echo "== 2. three reports a side; B: x1.10 on $HOT, x1.3 on $PATTERN"
for i in 1 2 3; do
	# shellcheck disable=SC2086
	inject "$R/b$i.json" "$T/h$i.json" 1.10 $HOT && inject "$T/h$i.json" "$T/i$i.json" 1.3 $PATTERN ||
		{ echo "FAIL: jq could not rewrite b$i.json"; exit 1; }
done
"$A" compare "$R/a1.json,$R/a2.json,$R/a3.json" "$T/i1.json,$T/i2.json,$T/i3.json" >"$T/cmp3.txt" ||
	{ echo "FAIL: compare failed"; exit 1; }
grep '^summary:' "$T/cmp3.txt" | sed 's/^/    /'
# shellcheck disable=SC2086
found "$T/cmp3.txt" $HOT $PATTERN || fail=1

echo "== 3. one report a side; B: x1.2 on $ONE"
# shellcheck disable=SC2086
inject "$R/b1.json" "$T/o1.json" 1.2 $ONE || { echo "FAIL: jq could not rewrite b1.json"; exit 1; }
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
