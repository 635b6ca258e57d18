#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-agreement.sh ATOMCOST MINPROBE - does atomcost agree with an
# independent probe? One default `atomcost run` of every probe whose
# instruction minprobe also times, one minprobe run (tests/minprobe.c: its own
# loop, clock and calibration), both on the same CPU, then a table per op and
# form: minprobe, atomcost (core cycles, median; throughput with its line
# count), their deviation, and PASS when every atomcost figure is within 5%
# of minprobe's, FAIL (exit 1) otherwise.
# Where /proc/cpuinfo names a CPU with published reference figures (Zen 5:
# family 26; Zen 3: family 25 model 1) they are a column of their own with
# their own within-5% mark: informative, they do not decide the exit code.
# Rows are matched by the instruction atomcost reports (its `insn`), not by
# probe name, so a renamed probe or a twin changed to another instruction is
# compared with the right minprobe op (or not at all).
# Environment: ATOMCOST_ARGS (extra `atomcost run` options), MINPROBE_REPS
# (default 21), AGREEMENT_TOL (default 5, percent), KEEP_DIR (keep the raw
# JSON of both tools there), AGREEMENT_CPUINFO (read the CPU's family and
# model from this file instead of /proc/cpuinfo: shows another column),
# AGREEMENT_INFORMATIVE (minprobe ops, space separated, whose rows are shown
# and marked but do not decide PASS/FAIL; default none).
# A benchmark, not a unit test: `meson test --benchmark`. Exit 0 pass,
# 1 disagreement or a failed run, 77 skip (not x86-64, jq missing).
set -u
A=${1:?usage: bench-agreement.sh PATH/TO/atomcost PATH/TO/minprobe}
M=${2:?usage: bench-agreement.sh PATH/TO/atomcost PATH/TO/minprobe}
TOL=${AGREEMENT_TOL:-5}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
[ -x "$M" ] || { echo "SKIP: $M not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: minprobe times x86-64 instructions only"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# atomcost instruction (ERE on its whole `insn`, an optional " (note)"
# allowed after it) -> minprobe op for the latency form and for the
# throughput form ("-": not compared). Adjust here when probes change.
MAP=$(cat <<'EOF'
add %reg,%reg	add	-
imul %reg,%reg	imul	-
movq mem,%reg	load_chase	load
movq %reg,mem	-	mov_store
lock orb \$[a-z0-9]+,mem	lock_orb_imm	lock_orb_imm
orb \$[a-z0-9]+,mem	orb_imm	orb_imm
ds orb \$[a-z0-9]+,mem	ds_orb_imm	ds_orb_imm
lock andb \$~?[a-z0-9]+,mem	lock_andb_imm	lock_andb_imm
andb \$~?[a-z0-9]+,mem	andb_imm	andb_imm
lock orq %reg,mem	lock_orq_reg	lock_orq_reg
orq %reg,mem	orq_reg	orq_reg
lock btsq \$[a-z0-9]+,mem	lock_btsq_imm	lock_btsq_imm
btsq \$[a-z0-9]+,mem	btsq_imm	btsq_imm
lock btsq %reg,mem	lock_btsq_reg	lock_btsq_reg
btsq %reg,mem	btsq_reg	btsq_reg
btrq \$[a-z0-9]+,mem	btrq_imm	btrq_imm
lock xorb \$[a-z0-9]+,mem	lock_xorb_imm	lock_xorb_imm
btcq \$[a-z0-9]+,mem	btcq_imm	btcq_imm
lock btrq %reg,mem	lock_btrq_reg	lock_btrq_reg
btrq %reg,mem	btrq_reg	btrq_reg
lock cmpxchgq %reg,mem	lock_cmpxchgq	lock_cmpxchgq
cmpxchgq %reg,mem	cmpxchgq	cmpxchgq
lock cmpxchg16b mem	lock_cmpxchg16b	lock_cmpxchg16b
cmpxchg16b mem	cmpxchg16b	cmpxchg16b
xchgq %reg,mem	xchgq	xchgq
lock xaddq %reg,mem	lock_xaddq	lock_xaddq
xaddq %reg,mem	xaddq	xaddq
lock incq mem	lock_incq	lock_incq
incq mem	incq	incq
EOF
)

# Published reference figures, core cycles (KVM guests, independent probe,
# InstLatX64 and uops.info where they exist): op form zen5 zen3 ("-": none).
PUB=$(cat <<'EOF'
load_chase lat 4.0 4.0
load tput 0.27 0.36
mov_store tput 0.50 -
orb_imm lat 1.00 7.56
orb_imm tput 0.50 1.13
lock_orb_imm lat 19.5 7.42
lock_orb_imm tput 19.7 7.48
cmpxchgq lat 9.06 8.98
cmpxchgq tput 3.02 2.99
lock_cmpxchgq lat 20.1 8.98
lock_cmpxchgq tput 20.0 7.85
btsq_reg lat 8.97 7.98
btsq_reg tput 2.99 2.99
btsq_imm lat 8.96 7.98
lock_btsq_reg lat 20.0 7.98
lock_btsq_reg tput 19.9 7.95
xchgq lat 19.4 7.50
xchgq tput 19.0 7.48
xaddq lat 7.6 -
xaddq tput 1.9 -
lock_xaddq lat 19.2 -
lock_xaddq tput 19.5 -
imul lat 3.00 3.00
EOF
)

CPUINFO=${AGREEMENT_CPUINFO:-/proc/cpuinfo}
family=$(awk -F: '/^cpu family/ {gsub(/[ \t]/, "", $2); print $2; exit}' "$CPUINFO")
model=$(awk -F: '/^model[ \t]*:/ {gsub(/[ \t]/, "", $2); print $2; exit}' "$CPUINFO")
mname=$(awk -F: '/^model name/ {sub(/^ /, "", $2); print $2; exit}' "$CPUINFO")
pubcol=0 pubname="none for this CPU"
if [ "$family" = 26 ]; then pubcol=3 pubname="Zen 5 (family 26)"
elif [ "$family" = 25 ] && [ "$model" = 1 ]; then pubcol=4 pubname="Zen 3 (family 25 model 1)"
fi

# both tools on the first CPU this process may use
cpu=$(awk '/^Cpus_allowed_list/ {split($2, a, /[-,]/); print a[1]}' /proc/self/status)

# atomcost probes whose instruction is in the map, with the minprobe ops
"$A" list --json >"$T/list.json" 2>"$T/err" || { echo "atomcost list failed: $(cat "$T/err")"; exit 1; }
: >"$T/probes"
while IFS=$'\t' read -r probe insn; do
	while IFS=$'\t' read -r re lat tput; do
		if [[ $insn =~ ^$re(\ \(.*\))?$ ]]; then
			printf '%s\t%s\t%s\t%s\n' "$probe" "$lat" "$tput" "$insn" >>"$T/probes"
			break
		fi
	done <<<"$MAP"
done < <(jq -r '.probes[] | select(.unsupported == null) | [.probe, .insn] | @tsv' "$T/list.json")
[ -s "$T/probes" ] || { echo "FAIL: no atomcost probe runs an instruction minprobe times"; exit 1; }

# shellcheck disable=SC2046,SC2086 # probe names and ATOMCOST_ARGS are word lists
"$A" run $(cut -f1 "$T/probes") --no-twins --cpu "$cpu" ${ATOMCOST_ARGS:-} \
	-o "$T/atomcost.json" >/dev/null 2>"$T/err" ||
	{ echo "FAIL: atomcost run: $(head -c 400 "$T/err")"; exit 1; }
"$M" -c "$cpu" -r "${MINPROBE_REPS:-21}" -j >"$T/minprobe.json" 2>"$T/err"
rc=$?
[ $rc = 77 ] && { echo "SKIP: $(cat "$T/minprobe.json")"; exit 77; }
[ $rc = 0 ] || { echo "FAIL: minprobe exit $rc: $(head -c 400 "$T/err")"; exit 1; }
[ -n "${KEEP_DIR:-}" ] && mkdir -p "$KEEP_DIR" && cp "$T/atomcost.json" "$T/minprobe.json" "$KEEP_DIR/"

jq -r '.results[] | [.op, .form, .cycles, .lines] | @tsv' "$T/minprobe.json" >"$T/mp.tsv"
jq -r '.results[] | select(.pattern == "hit") |
	[.probe, (if .mode == "latency" then "lat" else "tput" end), .cycles.median,
	 (.footprint_lines // .extra.footprint_lines // (if .mode == "latency" then 1 else "?" end))] |
	@tsv' "$T/atomcost.json" >"$T/ac.tsv"
echo "$PUB" >"$T/pub"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $mname (family $family model $model), CPU $cpu;" \
     "$(jq -r '"atomcost core \(1 / .calibration.ticks_per_cycle * .calibration.timer_hz / 1e9 |
	.*1000|round/1000) GHz"' "$T/atomcost.json" 2>/dev/null)," \
     "minprobe core $(jq -r '.core_ghz*1000|round/1000' "$T/minprobe.json") GHz;" \
     "published: $pubname"
awk -F'\t' -v tol="$TOL" -v pubcol="$pubcol" -v probes="$T/probes" -v mp="$T/mp.tsv" \
    -v pub="$T/pub" -v info="${AGREEMENT_INFORMATIVE:-}" '
function abs(x) { return x < 0 ? -x : x }
BEGIN {
	while ((getline l < probes) > 0) { split(l, f, "\t"); op[f[1], "lat"] = f[2]; op[f[1], "tput"] = f[3] }
	while ((getline l < mp) > 0) { split(l, f, "\t"); mc[f[1], f[2]] = f[3]; ml[f[1], f[2]] = f[4] }
	while ((getline l < pub) > 0) {
		split(l, f, " ")
		if (pubcol && f[pubcol] != "-") pv[f[1], f[2]] = f[pubcol]
	}
	printf "%-20s %-4s %-14s %9s %9s %7s %-5s %9s %7s %s\n", "probe", "form", "minprobe op",
	       "minprobe", "atomcost", "dev", "", "published", "dev", ""
	bad = 0; n = 0
}
{
	o = op[$1, $2]
	if (o == "" || o == "-") next
	if (!((o, $2) in mc)) { printf "%-20s %-4s %-14s %9s (minprobe has no such row)\n", $1, $2, o, "-"; missing++; next }
	d = ($3 - mc[o, $2]) / mc[o, $2] * 100
	ok = abs(d) <= tol ? "ok" : "OFF"
	seen[o, $2] = 1
	if (index(" " info " ", " " o " ")) {
		ok = ok == "ok" ? "(ok)" : "(off)"
		ninfo++
	} else {
		n++
		if (ok != "ok") bad++
	}
	ps = "-"; pd = ""; pm = ""
	if ((o, $2) in pv) {
		ps = pv[o, $2]; x = ($3 - ps) / ps * 100
		pd = sprintf("%+6.1f%%", x); pm = abs(x) <= tol ? "ok" : "off"
	}
	printf "%-20s %-4s %-14s %6.2f/%-2s %6.2f/%-2s %+6.1f%% %-5s %9s %7s %s\n", $1, $2, o,
	       mc[o, $2], ml[o, $2], $3, $4, d, ok, ps, pd, pm
}
END {
	print "(core cycles per op, medians; /N: lines the figure was measured over (throughput: the best of the sweep);"
	print " dev: atomcost against minprobe; published dev: atomcost against the published figure, informative)"
	for (k in mc) if (!(k in seen)) { split(k, f, SUBSEP); rest = rest " " f[1] "/" f[2] }
	if (rest != "") print "minprobe only (no atomcost probe runs it):" rest
	if (n == 0) { print "FAIL: nothing compared"; exit 1 }
	if (ninfo) printf "(ok)/(off): informative rows (AGREEMENT_INFORMATIVE), %d, not counted\n", ninfo
	if (missing) { printf "FAIL: %d atomcost rows map to no minprobe row (fix the map)\n", missing; exit 1 }
	if (bad) { printf "FAIL: %d of %d atomcost figures differ from minprobe by more than %s%%\n", bad, n, tol; exit 1 }
	printf "PASS: all %d atomcost figures within %s%% of minprobe\n", n, tol
}' "$T/ac.tsv"
