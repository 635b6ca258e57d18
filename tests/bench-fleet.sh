#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-fleet.sh ATOMCOST SRCDIR - the fleet compare at scale. Generates
# BENCH_FLEET_N (10,000) summaries from a real one (BENCH_FLEET_SOURCE, else
# reports/zen5-kvm-2vcpu.summary.json) with tests/fleet/gen-fleet.py: 1%
# lognormal noise between machines, keys to group by (microcode, kernel,
# partition, inventory group), 6 cells planted on 4 machines (x1.10-1.5) and
# the microcode group (one machine in ten) x1.2 in one more row, and 3 bad
# files. Then the default `atomcost compare --fleet --format csv` (every
# row judged) under /usr/bin/time -v.
#
# PASS when it takes under 10 s of CPU (user + system: one thread, so the
# wall time of a quiet machine; the wall time, printed too, of a shared one
# counts its neighbours) and 500 MiB resident, skips exactly the 3 bad
# files, names every planted cell and the planted group, and nothing else.
# The false-alarm rule (docs/fleet.md): a machine is named when its cell
# survives Benjamini-Hochberg at 5% over rows x machines and lies alone
# below 5% / (rows x machines) (Bonferroni), beyond 5 robust spreads and
# the 3% margin: about 0.05 falsely named machines expected per compare of
# 10,000 machines (4 million cells), however many real ones it names. A
# group is named when its median's 95% interval lies beyond 3% and it
# survives BH at 5% over rows x groups: at most 0.05 false groups expected
# when none moved. So one run in twenty may fail on a false name by
# chance; the generator's seed is fixed (BENCH_FLEET_SEED, 21).
# BENCH_FLEET_KEEP=DIR keeps the files and outputs (and reuses a fleet
# generated there). A benchmark, not a unit test: `meson test --benchmark
# fleet-compare`. Exit 0 pass, 1 fail, 77 skip.
set -u
A=$1
SRC=$2
N=${BENCH_FLEET_N:-10000}
SOURCE=${BENCH_FLEET_SOURCE:-$SRC/reports/zen5-kvm-2vcpu.summary.json}
command -v python3 >/dev/null || { echo "SKIP: python3 generates the fleet"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time (Debian: time) measures time and memory"; exit 77; }
T=${BENCH_FLEET_KEEP:-$(mktemp -d)}
mkdir -p "$T/fleet"
[ -n "${BENCH_FLEET_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

if [ ! -s "$T/planted.tsv" ] || [ "$(ls "$T/fleet" | wc -l)" != $((N + 3)) ]; then
	rm -f "$T"/fleet/*.json
	python3 "$SRC/tests/fleet/gen-fleet.py" --seed "${BENCH_FLEET_SEED:-21}" "$SOURCE" "$T/fleet" "$N" \
		"$T/planted.tsv" || exit 1
fi

# the shell's glob of 10,000 names is sorted; xargs would split the compare
/usr/bin/time -v "$A" compare --fleet --format csv "$T"/fleet/*.json >"$T/fleet.csv" 2>"$T/time.txt"
rc=$?
wall=$(sed -nE 's/.*Elapsed \(wall clock\) time.*: ([0-9:.]+)$/\1/p' "$T/time.txt" |
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$T/time.txt")
user=$(sed -nE 's/.*User time \(seconds\): ([0-9.]+)/\1/p' "$T/time.txt")
sys=$(sed -nE 's/.*System time \(seconds\): ([0-9.]+)/\1/p' "$T/time.txt")
skipped=$(grep -c '^skipped,' "$T/fleet.csv")
python3 -c '
import csv, sys
for r in csv.reader(open(sys.argv[1])):
    if r[0] == "named":
        print("cell\t%s\t%s" % (r[4], r[2]))
    elif r[0] == "moved":
        print("group\t%s\t%s" % (r[5], r[2]))' "$T/fleet.csv" | sort >"$T/named.tsv"
sort "$T/planted.tsv" -o "$T/planted.tsv"
echo "fleet: $N summaries + 3 bad files from $(basename "$SOURCE"): exit $rc, ${wall}s wall (user ${user}s, sys ${sys}s), max RSS $((rss / 1024)) MiB, $skipped skipped"
grep -E '^(group|row),' "$T/fleet.csv" | head -3
echo "planted:"
sed 's/^/  /' "$T/planted.tsv"
echo "named:"
sed 's/^/  /' "$T/named.tsv"
fails=0
[ "$rc" = 0 ] || { echo "FAIL: exit $rc: $(grep -v '^\s' "$T/time.txt" | tail -3)"; fails=1; }
awk -v u="$user" -v s="$sys" 'BEGIN { exit !(u + s < 10) }' ||
	{ echo "FAIL: ${user}s + ${sys}s of CPU, goal under 10 s"; fails=1; }
[ "${rss:-0}" -lt $((500 * 1024)) ] || { echo "FAIL: max RSS ${rss} KiB, goal under 500 MiB"; fails=1; }
[ "$skipped" = 3 ] || { echo "FAIL: $skipped files skipped, want the 3 bad ones"; fails=1; }
if ! diff -u "$T/planted.tsv" "$T/named.tsv" >"$T/diff.txt"; then
	echo "FAIL: named cells and groups differ from the planted ones (- planted only, + named only):"
	grep -E '^[-+][^-+]' "$T/diff.txt"
	fails=1
fi
[ "$fails" = 0 ] && echo "PASS: the planted cells and group and only they named, under 10 s and 500 MiB"
exit "$fails"
