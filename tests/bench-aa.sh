#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-aa.sh ATOMCOST SRCDIR - the A/A benchmark: pairs of default runs
# (`atomcost run -o X.json`, the characterization `./bootstrap run` makes;
# BENCH_AA_ARGS replaces the run's arguments, e.g. configs/quick.conf) of
# the same build, each pair compared with `atomcost compare`. Nothing
# changed between A and B, so every flagged row is a false alarm. One line
# per pair: rows flagged, rows without a verdict, and the largest move
# of a row between the two processes (what compare's between-process floor
# has to cover); then PASS when at least 4 of 5 pairs (80%) flag no row.
# A benchmark, not a unit test: `meson test --benchmark`. Run it on a quiet
# machine: another load moves rows further than a change of the code would.
# BENCH_PAIRS=N changes the number of pairs. Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
cd "$SRC" || { echo "SKIP: no source directory $SRC"; exit 77; }
read -r -a ARGS <<<"${BENCH_AA_ARGS:-}"
T=$(mktemp -d)
# BENCH_AA_KEEP=DIR keeps the reports and comparisons there
KEEP=${BENCH_AA_KEEP:-}
trap '[ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$T"/*.json "$T"/cmp*.txt "$KEEP"/ 2>/dev/null; rm -rf "$T"' EXIT
PAIRS=${BENCH_PAIRS:-5}
NEED=$(( (PAIRS * 4 + 4) / 5 ))	# 4 of 5: at least 80%, rounded up

clean=0
for p in $(seq 1 "$PAIRS"); do
	for side in a b; do
		"$A" run "${ARGS[@]}" -o "$T/$side$p.json" >/dev/null 2>"$T/err" ||
			{ echo "pair $p: run $side failed: $(cat "$T/err")"; exit 1; }
	done
	"$A" compare "$T/a$p.json" "$T/b$p.json" >"$T/cmp$p.txt" 2>"$T/err" ||
		{ echo "pair $p: compare failed: $(cat "$T/err")"; exit 1; }
	sum=$(grep '^summary:' "$T/cmp$p.txt")
	# summary: N rows compared: I improved, R regressed, S no significant
	# change (..), C calibration problem(s), U without a verdict (one
	# process); ...
	read -r rows imp reg cal uns <<<"$(sed -E 's/^summary: ([0-9]+) rows compared: ([0-9]+) improved, ([0-9]+) regressed, [0-9]+ no significant change \([0-9]+% unchanged\), ([0-9]+) calibration problems?, ([0-9]+) without a verdict.*/\1 \2 \3 \4 \5/' <<<"$sum")"
	case "$rows$imp$reg$cal$uns" in
	*[!0-9]*|'') echo "pair $p: cannot read the summary: $sum"; exit 1 ;;
	esac
	# largest |change| of a row with a verdict, and of one without:
	# probe pattern mode A B change [CI] basis floor verdict
	move=$(awk '$6 ~ /^[+-][0-9.]+%$/ { v = $6; sub(/%/, "", v); v += 0; a = v < 0 ? -v : v;
			u = $0 ~ /no verdict \(one process\)/;
			if (!u && a >= best) { best = a; row = $1 " " $2 " " $3 " " $6; fl = $9 }
			if (u && a >= ubest) { ubest = a; urow = $1 " " $2 " " $3 " " $6 } }
		    END { printf "%s (floor %s)", row != "" ? row : "-", fl;
			  if (urow != "") printf "; of a row without one %s", urow }' "$T/cmp$p.txt")
	flagged=$((imp + reg + cal))
	[ "$flagged" -eq 0 ] && clean=$((clean + 1))
	printf 'pair %d: %s rows, %d flagged (%d improved, %d regressed, %d calibration), %d without a verdict; largest move %s\n' \
		"$p" "$rows" "$flagged" "$imp" "$reg" "$cal" "$uns" "$move"
	grep -E ' (improved|regressed) [0-9.]+%$|calibration moved' "$T/cmp$p.txt" | sed 's/^/    /'
done
if [ "$clean" -ge "$NEED" ]; then
	echo "PASS: $clean of $PAIRS A/A pairs flagged no row (needed $NEED)"
	exit 0
fi
echo "FAIL: $clean of $PAIRS A/A pairs flagged no row (needed $NEED)"
exit 1
