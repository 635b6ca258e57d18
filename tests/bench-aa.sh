#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-aa.sh ATOMCOST SRCDIR - the A/A benchmark: pairs of default runs
# (`atomcost run -o X.json`, the characterization `./bootstrap run` makes,
# with its epochs; BENCH_AA_ARGS replaces the run's arguments) of the same
# build, each pair compared with `atomcost compare`, one report per side.
# Nothing changed between A and B, so every flagged row (regressed,
# improved, calibration moved) is a false alarm. One line per pair: rows
# flagged, same, cannot tell, and the largest move of a row; then PASS
# when at most BENCH_AA_MAX (default 1) rows are flagged over all pairs
# and each pair judged (same, regressed, improved) BENCH_AA_JUDGED% (80) of
# its rows or more.
# A benchmark, not a unit test: `meson test --benchmark`. Run it on a quiet
# machine: another load moves rows further than a change of the code would.
# BENCH_PAIRS=N changes the number of pairs (5). BENCH_AA_KEEP=DIR keeps the
# reports and comparisons there; BENCH_AA_REPORTS=DIR takes a1.json,
# b1.json, ... from DIR where they exist instead of running them.
# Sourced (tests/bench-power.sh), it only defines its functions.
# Exit 0 pass, 1 fail, 77 skip.

# bench_run ATOMCOST OUT.json: one default run (BENCH_AA_ARGS), or the
# report already in BENCH_AA_REPORTS.
bench_run() {
	local name
	name=$(basename "$2")
	if [ -n "${BENCH_AA_REPORTS:-}" ] && [ -s "$BENCH_AA_REPORTS/$name" ]; then
		cp "$BENCH_AA_REPORTS/$name" "$2"
		return
	fi
	local -a args
	read -r -a args <<<"${BENCH_AA_ARGS:-}"
	"$1" run "${args[@]}" -o "$2" >/dev/null 2>"$2.err" ||
		{ echo "run $name failed: $(cat "$2.err")"; return 1; }
}

# bench_counts CMP.txt: "rows regressed improved same cannot calibration"
# from compare's summary line.
bench_counts() {
	sed -nE 's/^summary: ([0-9]+) rows: ([0-9]+) regressed, ([0-9]+) improved, ([0-9]+) same, ([0-9]+) cannot tell, ([0-9]+) calibration problems?, .*/\1 \2 \3 \4 \5 \6/p' "$1"
}

# bench_flagged CMP.txt: "probe pattern mode" of each row flagged
# (regressed, improved, calibration moved), one a line.
bench_flagged() {
	awk '/^summary:/ { exit } / (regressed|improved) [0-9.]+%$| calibration moved / { print $1, $2, $3 }' "$1"
}

# bench_move CMP.txt: the row that moved most, with its change.
bench_move() {
	awk '/^summary:/ { exit } $6 ~ /^[+-][0-9.]+%$/ { v = $6; sub(/%/, "", v); v += 0; a = v < 0 ? -v : v;
		if (a >= best) { best = a; row = $1 " " $2 " " $3 " " $6 } }
	     END { printf "%s", row != "" ? row : "-" }' "$1"
}

# bench_detect CMP.txt: compare's "detectable at this run count" line, unwrapped.
bench_detect() {
	sed -n '/^# detectable/,/under a pattern/p' "$1" | sed 's/^# //' | tr '\n' ' ' | sed 's/ *$//'
}

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

[ "${BASH_SOURCE[0]}" != "$0" ] && return 0

set -u
A=${1:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
cd "$SRC" || { echo "SKIP: no source directory $SRC"; exit 77; }
T=$(mktemp -d)
KEEP=${BENCH_AA_KEEP:-}
trap '[ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$T"/*.json "$T"/cmp*.txt "$KEEP"/ 2>/dev/null; rm -rf "$T"' EXIT
PAIRS=${BENCH_PAIRS:-5}
MAX=${BENCH_AA_MAX:-1}
JUDGED=${BENCH_AA_JUDGED:-80}

total=0
low=0
for p in $(seq 1 "$PAIRS"); do
	for side in a b; do
		bench_run "$A" "$T/$side$p.json" || exit 1
	done
	"$A" compare "$T/a$p.json" "$T/b$p.json" >"$T/cmp$p.txt" 2>"$T/err" ||
		{ echo "pair $p: compare failed: $(cat "$T/err")"; exit 1; }
	read -r rows reg imp same cannot cal <<<"$(bench_counts "$T/cmp$p.txt")"
	case "$rows$reg$imp$same$cannot$cal" in
	*[!0-9]*|'') echo "pair $p: cannot read the summary: $(grep '^summary:' "$T/cmp$p.txt")"; exit 1 ;;
	esac
	flagged=$((reg + imp + cal))
	total=$((total + flagged))
	judged=$(((reg + imp + same) * 100 / rows))
	[ "$judged" -ge "$JUDGED" ] || low=$((low + 1))
	printf 'pair %d: %s rows, %d flagged (%d regressed, %d improved, %d calibration), %d same, %d cannot tell (%d%% judged); largest move %s\n' \
		"$p" "$rows" "$flagged" "$reg" "$imp" "$cal" "$same" "$cannot" "$judged" "$(bench_move "$T/cmp$p.txt")"
	echo "    $(bench_detect "$T/cmp$p.txt")"
	grep -E ' (improved|regressed) [0-9.]+%$|calibration moved' "$T/cmp$p.txt" | sed 's/^/    /'
done
if [ "$total" -le "$MAX" ] && [ "$low" -eq 0 ]; then
	echo "PASS: $total rows flagged over $PAIRS A/A pairs (at most $MAX), each judged $JUDGED% of its rows or more"
	exit 0
fi
echo "FAIL: $total rows flagged over $PAIRS A/A pairs (at most $MAX); $low pairs judged under $JUDGED% of their rows"
exit 1
