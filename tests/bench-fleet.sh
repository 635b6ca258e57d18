#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-fleet.sh ATOMCOST SRCDIR - the fleet compare at scale. Generates
# BENCH_FLEET_N (1000) summaries from a real one (BENCH_FLEET_SOURCE, else
# reports/zen5-kvm-2vcpu.summary.json): a host each, one in ten another
# microcode, every figure of its rows, card, hierarchy, split lock and c2c
# times its own lognormal factor (1% between machines; a row's epochs keep
# the source's spread), and 6 cells planted on 4 machines (a result row x1.10,
# x1.2 or x1.5, chosen among rows whose epochs are under 2% apart), plus 3
# bad files (truncated, another schema, a repeated host). Then
# `atomcost compare --fleet --all --format csv` under /usr/bin/time -v:
# PASS when it takes under 10 s of CPU (user + system: one thread, so the
# wall time of a quiet machine; the wall time, printed too, of a shared one
# counts its neighbours) and 1 GiB, skips exactly the 3 bad files, and names
# the planted cells and only they. BENCH_FLEET_KEEP=DIR keeps the
# files and outputs. A benchmark, not a unit test: `meson test --benchmark
# fleet-compare`. Exit 0 pass, 1 fail, 77 skip.
set -u
A=$1
SRC=$2
N=${BENCH_FLEET_N:-1000}
SOURCE=${BENCH_FLEET_SOURCE:-$SRC/reports/zen5-kvm-2vcpu.summary.json}
command -v python3 >/dev/null || { echo "SKIP: python3 generates the fleet"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time (Debian: time) measures time and memory"; exit 77; }
T=${BENCH_FLEET_KEEP:-$(mktemp -d)}
mkdir -p "$T/fleet"
[ -n "${BENCH_FLEET_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

# The fleet, and the planted cells as "host<TAB>row label" in planted.tsv.
python3 - "$SOURCE" "$T/fleet" "$N" "$T/planted.tsv" <<'EOF' || exit 1
import copy, json, math, random, sys

src, out, n, planted_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
base = json.load(open(src))
rnd = random.Random(21)

def jitter(node, f):
    """every float leaf times f() (integers are counts)"""
    if isinstance(node, dict):
        return {k: jitter(v, f) for k, v in node.items()}
    if isinstance(node, list):
        return [jitter(v, f) for v in node]
    return node * f() if isinstance(node, float) else node

def label(r):
    place = r.get("placement", "")
    return "%s %s %s%s" % (r["probe"], r["pattern"], r["mode"], " " + place if place else "")

def rel_sd(v):
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) / m

labels = [label(r) for r in base["results"]]
steady = [i for i, r in enumerate(base["results"])
          if labels.count(labels[i]) == 1 and r.get("cycles", {}).get("median", 0) > 0
          and len(r.get("epoch_medians", [])) >= 2 and rel_sd(r["epoch_medians"]) < 0.02]
machines = rnd.sample(range(n), 4)
plant = {}
for k, (m, f) in enumerate(zip(machines + machines[:2], [1.10, 1.2, 1.5, 1.10, 1.5, 1.2])):
    plant[(m, rnd.choice(steady))] = f
with open(planted_path, "w") as p:
    for (m, i), f in sorted(plant.items()):
        p.write("host-%04d\t%s\n" % (m, labels[i]))
for m in range(n):
    d = copy.deepcopy(base)
    d["fingerprint"]["host"] = "host-%04d" % m
    if m % 10 == 9:
        d["fingerprint"]["cpu"]["microcode"] = "0xffff"
    for key in ("card", "hierarchy", "splitlock", "c2c"):
        if key in d:
            d[key] = jitter(d[key], lambda: math.exp(rnd.gauss(0, 0.01)))
    for i, r in enumerate(d["results"]):
        f = math.exp(rnd.gauss(0, 0.01)) * plant.get((m, i), 1.0)
        r["cycles"] = jitter(r.get("cycles", {}), lambda: f)
        r["epoch_medians"] = [x * f for x in r.get("epoch_medians", [])]
    with open("%s/host-%04d.summary.json" % (out, m), "w") as o:
        json.dump(d, o)
text = open("%s/host-0000.summary.json" % out).read()
open("%s/zz-truncated.summary.json" % out, "w").write(text[:len(text) // 2])
open("%s/zz-foreign.summary.json" % out, "w").write('{"schema": "atomcost-other/9"}\n')
open("%s/zz-again.summary.json" % out, "w").write(text)
EOF

/usr/bin/time -v "$A" compare --fleet --all --format csv "$T"/fleet/*.json >"$T/fleet.csv" 2>"$T/time.txt"
rc=$?
wall=$(sed -nE 's/.*Elapsed \(wall clock\) time.*: ([0-9:.]+)$/\1/p' "$T/time.txt" |
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$T/time.txt")
user=$(sed -nE 's/.*User time \(seconds\): ([0-9.]+)/\1/p' "$T/time.txt")
sys=$(sed -nE 's/.*System time \(seconds\): ([0-9.]+)/\1/p' "$T/time.txt")
skipped=$(grep -c '^skipped,' "$T/fleet.csv")
awk -F, '$1 == "named"' "$T/fleet.csv" | python3 -c '
import csv, sys
for r in csv.reader(sys.stdin):
    print("%s\t%s" % (r[4], r[2]))' | sort >"$T/named.tsv"
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
[ "${rss:-0}" -lt $((1024 * 1024)) ] || { echo "FAIL: max RSS ${rss} KiB, goal under 1 GiB"; fails=1; }
[ "$skipped" = 3 ] || { echo "FAIL: $skipped files skipped, want the 3 bad ones"; fails=1; }
if ! diff -u "$T/planted.tsv" "$T/named.tsv" >"$T/diff.txt"; then
	echo "FAIL: named cells differ from the planted ones (- planted only, + named only):"
	grep -E '^[-+][^-+]' "$T/diff.txt"
	fails=1
fi
[ "$fails" = 0 ] && echo "PASS: the planted cells and only they named, under 10 s and 1 GiB"
exit "$fails"
