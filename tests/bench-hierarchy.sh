#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-hierarchy.sh ATOMCOST - the measured hierarchy holds between
# processes: 5 runs of `atomcost hierarchy --only staircase` (the split lock
# is left out: its bus locks stall every tenant and it is not what is checked
# here) must find the same number of levels (caches + memory), and each
# run's private L2 must lie within 15% of what hwloc declares. Prints per
# run the pages, epochs, each level's size used and its range over the
# epochs, and the TLB line. A benchmark, not a unit test (timing; meant for
# a quiet machine): `meson test --benchmark`. Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-hierarchy.sh PATH/TO/atomcost}
RUNS=${BENCH_HIERARCHY_RUNS:-5}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
counts=""
for r in $(seq 1 "$RUNS"); do
	if ! "$A" hierarchy --only staircase --format json >"$T/h$r.json" 2>"$T/err$r"; then
		echo "run $r failed: $(cat "$T/err$r")"
		exit 1
	fi
	jq -r --arg r "$r" '.hierarchy as $h
		| "run \($r): \($h.pages.page_bytes / 1024) KiB pages (\($h.pages.source)), "
		  + "\($h.epochs) epochs, \($h.elapsed_s * 10 | round / 10) s: "
		  + ([$h.levels[] | if .memory then "memory \(.ns | round) ns (\(.epochs_seen)/\($h.epochs))"
		      else "\(.level) \(.size_bytes / 1024 | round) KiB (\(.size_min / 1024 | round)-"
			   + "\(.size_max / 1024 | round), \(.epochs_seen)/\($h.epochs))" end] | join(", "))
		  + (if $h.tlb == null then "; TLB not compared"
		     elif $h.tlb.reach_bytes == null then "; TLB: 4K = 2M pages to \($h.tlb.compared_to_bytes / 1024) KiB"
		     else "; TLB reach \($h.tlb.reach_bytes / 1024) KiB" end)
		  + (if ($h.unstable | length) > 0 then "; dropped: \([$h.unstable[] | "\(.cycles | round) cyc in \(.epochs_seen)/\($h.epochs)"] | join(", "))" else "" end)' \
		"$T/h$r.json"
	n=$(jq '.hierarchy.levels | length' "$T/h$r.json")
	counts="$counts $n"
	l2=$(jq '.hierarchy.levels | map(select(.level == "L2")) | .[0].size_bytes // 0' "$T/h$r.json")
	hw=$(jq '.hierarchy.hwloc_caches[1] // 0' "$T/h$r.json")
	if [ "$hw" = 0 ]; then
		echo "SKIP: hwloc declares no L2 here"
		exit 77
	fi
	if ! awk -v m="$l2" -v d="$hw" 'BEGIN { r = m / d; exit !(r >= 0.85 && r <= 1.15) }'; then
		echo "FAIL: run $r: L2 measured $((l2 / 1024)) KiB, hwloc declares $((hw / 1024)) KiB: not within 15%"
		fail=1
	fi
done
if [ "$(echo $counts | tr ' ' '\n' | sort -u | wc -l)" != 1 ]; then
	echo "FAIL: level counts differ between runs:$counts"
	fail=1
else
	echo "level count the same in all $RUNS runs:$counts"
fi
[ $fail = 0 ] && echo "PASS" || echo "FAIL"
exit $fail
