#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-card.sh ATOMCOST - do the card's judgments survive another process?
# Runs the default characterization BENCH_RUNS times (5), each its own
# process, and reads each card (the summary JSON of `atomcost report`):
#  - no atomicity line (the pair, the lock's part, the instruction's part)
#    nor the ordering line moves between two definite verdicts (slower,
#    faster, same) from one run to another, and no two menu options swap places (a tie is unresolved):
#    "unresolved" may come and go, a flip may not;
#  - at least 80% of the pair's atomicity lines resolved in every run;
#  - the measured hierarchy has the same number of levels in every run, and
#    its L2 is within 15% of what hwloc declares.
# BENCH_LOAD=1 then makes two more runs under load: (a) beside a busy loop
# pinned on CPU 0 for the whole run, (b) beside busy loops on every CPU,
# 5 s on and 5 s off. Each prints its wall time, the atomicity lines
# resolved, the definite verdicts opposite to the quiet runs' and what it
# did (the card's load line: moved, waited, ran again); each must resolve
# 80% of its lines, contradict no quiet verdict and take at most twice the
# quiet runs' longest wall time.
# A benchmark, not a unit test (`meson test --benchmark`); run it on a
# quiet machine. BENCH_CARD_KEEP=DIR keeps the reports; BENCH_CARD_FROM=DIR
# judges reports kept there (r1.json ...) again instead of measuring. Exit 0
# pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-card.sh PATH/TO/atomcost}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
RUNS=${BENCH_RUNS:-5}
T=$(mktemp -d)
KEEP=${BENCH_CARD_KEEP:-}
LOADER=
trap '[ -n "$LOADER" ] && kill "$LOADER" 2>/dev/null; [ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$T"/* "$KEEP"/ 2>/dev/null; rm -rf "$T"' EXIT
fails=0

# verdicts FILE: one "key<TAB>verdict" line per judgment of the card
verdicts() {
	jq -r '.card as $c |
	  ($c.atomicity[] | select(.pair != null) | . as $r |
	    ("pair", "lock", "insn") as $k | select($r[$k] != null) |
	    "\($r.what) [\($k)]\t\($r[$k].verdict)"),
	  ($c.ordering // empty | "ordering \(.a) vs \(.b)\t\(.verdict)"),
	  ($c.menu[]? | .need as $n | .options as $o | $o[] as $x | $o[] |
	    select(.probe > $x.probe) |
	    "menu \($n): \($x.probe) vs \(.probe)\t\(if $x.rank < .rank then "before"
	      elif $x.rank > .rank then "after" else "unresolved" end)")' "$1"
}

summarize() {	# run N [env...]: report, summary, card lines
	local n=$1
	"$A" report "$T/r$n.json" -o "$T/r$n.summary.json" 2>"$T/err" ||
		{ echo "run $n: summary failed: $(cat "$T/err")"; exit 1; }
	verdicts "$T/r$n.summary.json" | sort >"$T/v$n.tsv"
	jq -r '.hierarchy.levels // [] | length' "$T/r$n.json" >"$T/levels$n"
	jq -r '[.hierarchy.levels[]? | select(.level == "L2" and (.hwloc_size // 0) > 0) |
	        .size_bytes / .hwloc_size - 1 | if . < 0 then -. else . end] | .[0] // "none"' "$T/r$n.json" >"$T/l2off$n"
	"$A" report "$T/r$n.json" 2>/dev/null | sed -n '/^== atomcost machine card/,/^==$/p' >"$T/card$n.txt"
}

for n in $(seq 1 "$RUNS"); do
	if [ -n "${BENCH_CARD_FROM:-}" ]; then	# judge the runs kept there again
		cp "$BENCH_CARD_FROM/r$n.json" "$T/r$n.json" || exit 1
	else
		t0=$(date +%s.%N)
		"$A" run -o "$T/r$n.json" >/dev/null 2>"$T/err" || { echo "run $n failed: $(tail -3 "$T/err")"; exit 1; }
		awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f\n", b - a }' >"$T/wall$n"
	fi
	summarize "$n"
	total=$(grep -c '\[pair\]' "$T/v$n.tsv")
	resolved=$(grep '\[pair\]' "$T/v$n.tsv" | grep -cv 'unresolved')
	echo "run $n: $(cat "$T/wall$n" 2>/dev/null || echo '?') s; $resolved of $total atomicity lines resolved; $(cat "$T/levels$n") levels, L2 off hwloc's by $(cat "$T/l2off$n"); $(grep -m1 '^noise' "$T/card$n.txt")"
	if ! awk -v d="$(cat "$T/l2off$n")" 'BEGIN { exit !(d != "none" && d <= 0.15) }'; then
		echo "FAIL: run $n: the measured L2 is not within 15% of hwloc's"; fails=$((fails + 1))
	fi
	if [ "$total" = 0 ] || [ $((resolved * 5)) -lt $((total * 4)) ]; then
		echo "FAIL: run $n resolved $resolved of $total atomicity lines (at least 80% needed)"
		fails=$((fails + 1))
	fi
done

# flips FILE...: keys whose definite verdicts (or ranks) differ between files
flips() {
	cat "$@" | awk -F'\t' '$2 != "unresolved" && $2 != "not measured" && $2 != "-" { seen[$1] = seen[$1] " " $2 }
		END { for (k in seen) { n = split(seen[k], v, " "); for (i = 2; i <= n; i++) if (v[i] != v[1]) { print k ":" seen[k]; break } } }'
}
f=$(flips "$T"/v[0-9]*.tsv)
if [ -n "$f" ]; then
	echo "FAIL: judgments that flipped between runs:"; echo "$f"; fails=$((fails + 1))
else
	echo "no definite judgment flipped over $RUNS runs ($(sort -u "$T"/v[0-9]*.tsv | cut -f1 | sort -u | wc -l) card judgments)"
fi
if [ "$(sort -u "$T"/levels* | wc -l)" != 1 ]; then
	echo "FAIL: the hierarchy's level count moved: $(cat "$T"/levels* | tr '\n' ' ')"; fails=$((fails + 1))
fi

# loaded NAME: run the default beside the load started before it (LOADER),
# stop the load, and judge the run against the quiet ones
loaded() {
	local n=$1 t0 t1 wall total resolved f quiet
	t0=$(date +%s.%N)
	"$A" run -o "$T/r$n.json" >/dev/null 2>"$T/err" || { echo "loaded run $n failed: $(tail -3 "$T/err")"; exit 1; }
	t1=$(date +%s.%N)
	kill "$LOADER" 2>/dev/null
	wait "$LOADER" 2>/dev/null
	LOADER=
	summarize "$n"
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
	quiet=$(cat "$T"/wall[0-9]* | sort -n | tail -1)
	total=$(grep -c '\[pair\]' "$T/v$n.tsv")
	resolved=$(grep '\[pair\]' "$T/v$n.tsv" | grep -cv 'unresolved')
	f=$(flips "$T"/v[0-9]*.tsv "$T/v$n.tsv" | grep -Fv -f <(flips "$T"/v[0-9]*.tsv | cut -d: -f1; echo '^$') || true)
	echo "load $n: ${wall} s (quiet: at most ${quiet} s); $resolved of $total atomicity lines resolved;" \
	     "$(printf '%s' "$f" | grep -c .) verdicts opposite to a quiet run's"
	grep -E '^(noise|load) ' "$T/card$n.txt" | sed 's/^/  /'
	if [ -n "$f" ]; then
		echo "FAIL: load $n contradicts the quiet runs:"; echo "$f"; fails=$((fails + 1))
	fi
	if [ "$total" = 0 ] || [ $((resolved * 5)) -lt $((total * 4)) ]; then
		echo "FAIL: load $n resolved $resolved of $total atomicity lines (at least 80% needed)"; fails=$((fails + 1))
	fi
	if [ "$wall" -gt $((2 * quiet)) ]; then
		echo "FAIL: load $n took ${wall} s, over twice the quiet ${quiet} s"; fails=$((fails + 1))
	fi
	grep -q '^load ' "$T/card$n.txt" || { echo "FAIL: load $n's card does not say what the run did"; fails=$((fails + 1)); }
}

if [ "${BENCH_LOAD:-0}" = 1 ]; then
	[ -s "$T/wall1" ] || { echo "SKIP: the loads need the quiet runs' wall times (not BENCH_CARD_FROM)"; exit 77; }
	# (a) a busy loop pinned on CPU 0 for the whole run
	taskset -c 0 sh -c 'while :; do :; done' &
	LOADER=$!
	loaded A
	# (b) busy loops on every CPU, 5 s on and 5 s off
	( trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
	  while :; do
		for c in $(seq 0 $(($(nproc) - 1))); do taskset -c "$c" sh -c 'while :; do :; done' & done
		sleep 5; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; sleep 5
	  done ) &
	LOADER=$!
	loaded B
fi
[ "$fails" = 0 ] && echo "PASS" && exit 0
exit 1
