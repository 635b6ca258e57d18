#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-report-cli.sh ATOMCOST SRCDIR - `atomcost report` and `atomcost
# compare` on the command line, from the golden JSON report (no
# measurement): formats, exit codes for bad input, compare verdicts.
set -u
atomcost=$1
g=$2/tests/golden/report.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # rc-wanted description cmd...
	local want=$1 what=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then echo "ok   $what (exit $rc)"; else
		echo "FAIL $what: exit $rc, want $want"; cat "$tmp/err"; fail=1; fi
}
has() { # file pattern description
	if grep -q -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3: no '$2' in:"; head -20 "$1"; fail=1; fi
}

for fmt in text mail csv json html; do
	expect 0 "report --format $fmt" "$atomcost" report "$g" --format "$fmt"
done
expect 0 "report -o x.csv" "$atomcost" report "$g" -o "$tmp/x.csv"
has "$tmp/x.csv" '^probe,twin,' "CSV header from the extension"
expect 2 "report -o x.csv again (no overwrite)" "$atomcost" report "$g" -o "$tmp/x.csv"
has "$tmp/err" "never overwritten" "says why"
expect 0 "report -o x.csv --force" "$atomcost" report "$g" -o "$tmp/x.csv" --force
# the summary (reference cards): no per-sample arrays, the card's figures
expect 0 "report -o x.summary.json" "$atomcost" report "$g" -o "$tmp/x.summary.json"
has "$tmp/x.summary.json" '"schema": "atomcost-summary/1"' "summary schema from the extension"
if grep -q samples_ticks "$tmp/x.summary.json"; then echo "FAIL summary keeps samples"; fail=1; else
	echo "ok   summary without samples"; fi
has "$tmp/x.summary.json" '"menu"' "summary carries the card"
# a rewrite keeps the identity of the tool that measured, not this build's
sed 's/"version": *"[^"]*"/"version": "0.0.1-measuring-build"/' "$g" >"$tmp/old.json"
expect 0 "report old.json -o again.json" "$atomcost" report "$tmp/old.json" -o "$tmp/again.json"
has "$tmp/again.json" '"version": "0.0.1-measuring-build"' "rewrite keeps the measuring tool's version"
expect 2 "report unknown format" "$atomcost" report "$g" --format pdf
has "$tmp/err" "unknown format 'pdf'" "names the bad format"
expect 2 "report unknown extension" "$atomcost" report "$g" -o "$tmp/x.pdf"
expect 3 "report missing file" "$atomcost" report "$tmp/nope.json"
echo '{"schema": "something-else/1"}' >"$tmp/other.json"
expect 2 "report not an atomcost report" "$atomcost" report "$tmp/other.json"
has "$tmp/err" "not an atomcost report" "says it is not a report"
echo '{"schema": ' >"$tmp/broken.json"
expect 2 "report broken JSON" "$atomcost" report "$tmp/broken.json"
expect 2 "report two files" "$atomcost" report "$g" "$g"

expect 0 "compare a report with itself" "$atomcost" compare "$g" "$g"
has "$tmp/out" "0 regressed, 0 improved, 0 same, 9 cannot tell" "itself, no epochs: nothing flagged, nothing called same"
has "$tmp/out" "2 of them not tested" "one process, no epochs: the l2 rows untested"
has "$tmp/out" "^# 9 rows on blocks of one run's samples" "states the blocks fallback"
has "$tmp/out" "FDR 5% in two families: 7 hot-line rows" "states the correction"
# several processes per side: epochs nested in processes
expect 0 "compare a,a b,b (processes)" "$atomcost" compare "$g,$g" "$g,$g,$g"
has "$tmp/out" "epoch medians (2 and 3" "processes measured"
has "$tmp/out" "^# A: report.json and 1 more (.*2 processes" "side named with its count"
sed 's/"release": *"6.1.0-golden"/"release": "6.2.0-other"/' "$g" >"$tmp/otherkernel.json"
expect 2 "compare a side of two machines" "$atomcost" compare "$g,$tmp/otherkernel.json" "$g"
has "$tmp/err" "a side is several runs of one build" "says a side is one build"
expect 2 "compare --noise-floor under the 3% minimum" "$atomcost" compare --noise-floor 1 "$g" "$g"
expect 0 "compare --format mail" "$atomcost" compare --format mail "$g" "$g"
if awk 'length > 72 { exit 1 }' "$tmp/out"; then echo "ok   mail within 72 columns"; else
	echo "FAIL compare mail wider than 72 columns"; fail=1; fi
expect 1 "compare --as __set_bit=set_bit --fail-on-regression" \
	"$atomcost" compare --as __set_bit=set_bit --fail-on-regression "$g" "$g"
has "$tmp/out" "^set_bit .*regressed" "orb vs lock orb: regressed"
expect 2 "compare --as without =" "$atomcost" compare --as set_bit "$g" "$g"
expect 2 "compare --as unknown probe" "$atomcost" compare --as nope=set_bit "$g" "$g"
expect 2 "compare one file" "$atomcost" compare "$g"
expect 2 "compare --noise-floor out of range" "$atomcost" compare --noise-floor 200 "$g" "$g"
expect 3 "compare missing file" "$atomcost" compare "$g" "$tmp/nope.json"
exit $fail
