#!/usr/bin/env bash
# bench-aa.sh ATOMCOST SRCDIR - the A/A benchmark: pairs of default runs
# (configs/quick.conf, as `./bootstrap run` does) of the same build, each pair
# compared with `atomcost compare`. Nothing changed between A and B, so every
# flagged row is a false alarm. One line per pair: rows flagged, and the
# largest move of any row between the two processes (what the between-process
# floor of compare has to cover); then PASS when at least 4 of 5 pairs
# (80%) flag no row.
# A benchmark, not a unit test: `meson test --benchmark`. Run it on a quiet
# machine: another load moves rows further than a change of the code would.
# Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
SRC=${2:?usage: bench-aa.sh PATH/TO/atomcost SRCDIR}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
CONF="$SRC/configs/quick.conf"
[ -f "$CONF" ] || { echo "SKIP: $CONF missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PAIRS=${BENCH_PAIRS:-5}
NEED=$(( (PAIRS * 4 + 4) / 5 ))	# 4 of 5: at least 80%, rounded up

clean=0
for p in $(seq 1 "$PAIRS"); do
	for side in a b; do
		"$A" run "$CONF" -o "$T/$side$p.json" >/dev/null 2>"$T/err" ||
			{ echo "pair $p: run $side failed: $(cat "$T/err")"; exit 1; }
	done
	"$A" compare "$T/a$p.json" "$T/b$p.json" >"$T/cmp$p.txt" 2>"$T/err" ||
		{ echo "pair $p: compare failed: $(cat "$T/err")"; exit 1; }
	sum=$(grep '^summary:' "$T/cmp$p.txt")
	# summary: N rows compared: I improved, R regressed, S no significant
	# change (..), C calibration problem(s); U in one report only
	read -r rows imp reg cal <<<"$(sed -E 's/^summary: ([0-9]+) rows compared: ([0-9]+) improved, ([0-9]+) regressed, [0-9]+ no significant change \([0-9]+% unchanged\), ([0-9]+) calibration.*/\1 \2 \3 \4/' <<<"$sum")"
	case "$rows$imp$reg$cal" in
	*[!0-9]*|'') echo "pair $p: cannot read the summary: $sum"; exit 1 ;;
	esac
	# largest |change| of a compared row: probe pattern mode A B change ...
	move=$(awk '$6 ~ /^[+-][0-9.]+%$/ { v = $6; sub(/%/, "", v); a = v < 0 ? -v : v;
			if (a >= best) { best = a; row = $1 " " $3 " " $6; fl = $9 } }
		    END { if (row != "") printf "%s (floor %s)", row, fl; else printf "-" }' "$T/cmp$p.txt")
	flagged=$((imp + reg + cal))
	[ "$flagged" -eq 0 ] && clean=$((clean + 1))
	printf 'pair %d: %s rows, %d flagged (%d improved, %d regressed, %d calibration); largest move %s\n' \
		"$p" "$rows" "$flagged" "$imp" "$reg" "$cal" "$move"
	grep -E ' (improved|regressed) [0-9.]+%$|calibration moved' "$T/cmp$p.txt" | sed 's/^/    /'
done
if [ "$clean" -ge "$NEED" ]; then
	echo "PASS: $clean of $PAIRS A/A pairs flagged no row (needed $NEED)"
	exit 0
fi
echo "FAIL: $clean of $PAIRS A/A pairs flagged no row (needed $NEED)"
exit 1
