#!/usr/bin/env bash
# bench-patterns.sh ATOMCOST - access-pattern latencies on this machine, each
# over 5 processes: the plain chase (load_chase) under hit, l2, llc and miss
# in core cycles and ns, with its spread (min..max of the 5 medians), then a
# loose check of the bands the issue names for our dev machines: hit about 4
# cycles per dependent load, llc clearly between l2 and miss, miss at DRAM
# latency (about 140-160 ns; accepted 90-260 ns, since other machines and a
# busy host move it). A benchmark, not a unit test: run with
# `meson test --benchmark`. Exit 0 pass, 1 out of band, 77 skip.
set -u
A=${1:?usage: bench-patterns.sh PATH/TO/atomcost}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
RUNS=${BENCH_RUNS:-5}

for r in $(seq 1 "$RUNS"); do
	"$A" run load_chase --pattern hit,l2,llc,miss --mode latency --max-seconds 0.5 \
		-o "$T/run$r.json" >/dev/null 2>"$T/err$r" || { echo "run $r failed: $(cat "$T/err$r")"; exit 1; }
done

# pattern -> "min med max" of the per-process medians, cycles and ns
summary() {
	local pat=$1 unit=$2
	for f in "$T"/run*.json; do
		jq -r --arg p "$pat" --arg u "$unit" \
			'.results[] | select(.probe == "load_chase" and .pattern == $p and .mode == "latency") | .[$u].median' "$f"
	done | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.2f %.2f %.2f", v[1], v[int((NR + 1) / 2)], v[NR]}'
}

command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
fail=0
printf '%-6s %28s %34s\n' pattern "cycles median [min..max]" "ns median [min..max]"
for p in hit l2 llc miss; do
	read -r cmin cmed cmax <<<"$(summary "$p" cycles)"
	read -r nmin nmed nmax <<<"$(summary "$p" ns)"
	printf '%-6s %10s [%7s..%7s] %14s [%7s..%7s]\n' "$p" "$cmed" "$cmin" "$cmax" "$nmed" "$nmin" "$nmax"
	eval "c_$p=$cmed n_$p=$nmed"
done
echo "($RUNS processes; load_chase latency; hit = the hot ring, l2/llc/miss = the random walk)"

check() { if awk "BEGIN {exit !($1)}"; then echo "ok:   $2"; else echo "FAIL: $2"; fail=1; fi; }
check "$c_hit >= 3 && $c_hit <= 6" "hit chase $c_hit cycles is L1 latency (about 4)"
check "$n_llc > 1.5 * $n_l2 && $n_llc < 0.7 * $n_miss" "llc $n_llc ns between l2 $n_l2 ns and miss $n_miss ns"
check "$n_miss >= 90 && $n_miss <= 260" "miss chase $n_miss ns at DRAM latency (about 140-160 ns here)"
exit $fail
