#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fleet/bad-input.sh SRCDIR ATOMCOST - `atomcost compare` over a fleet
# of summaries given bad input, as collecting a fleet produces it: a
# missing, empty, truncated, not-JSON or foreign-schema summary, a
# directory, the same file twice, another file of a host already read.
#  - side by side (a few machines, docs/fleet.md): a bad file stops the
#    compare, named on stderr with its exit code (3 missing, 2 bad input),
#    nothing on stdout; the same file twice gives two columns told apart;
#  - a fleet (--fleet, where this build has it): every bad file named and
#    skipped, their count said, the good ones compared (exit 0); exit 2
#    when fewer than two remain.
# Never a crash: no exit by a signal, no sanitizer report. Good summaries
# are reports/zen5-kvm-2vcpu.summary.json under other host names.
# Exit 0 pass, 1 fail.
set -u
SRC=${1:?usage: bad-input.sh SRCDIR ATOMCOST}
A=${2:?usage: bad-input.sh SRCDIR ATOMCOST}
[ -x "$A" ] || { echo "FAIL: no atomcost executable at $A"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
. "$SRC/tests/lib.sh"
REF=$SRC/reports/zen5-kvm-2vcpu.summary.json

for h in h01 h02 h03; do
	sed 's/^  "host": "vm",$/  "host": "'$h'",/' "$REF" >"$T/$h.summary.json"
	grep -q "\"host\": \"$h\"" "$T/$h.summary.json" || { echo "FAIL: $REF: no host line to rename"; exit 1; }
done
head -c 4000 "$REF" >"$T/truncated.summary.json"
: >"$T/empty.summary.json"
printf '\177ELF\0\0binary' >"$T/binary.summary.json"
printf '{"schema": "prometheus-metrics/2", "host": "h09"}\n' >"$T/foreign.summary.json"
printf '[]\n' >"$T/array.summary.json"
mkdir "$T/dir.summary.json"
cp "$T/h01.summary.json" "$T/h01-again.summary.json"	# a host read already
BAD="missing empty truncated binary foreign array dir"

# crashed RC: exit by a signal, or a sanitizer's report in $T/err.
crashed() {
	[ "$1" -ge 128 ] || grep -Eq 'Sanitizer|runtime error|Segmentation|core dumped' "$T/err"
}

# Side by side: each bad file among good ones refuses the compare.
for b in $BAD; do
	f=$T/$b.summary.json
	"$A" compare "$T/h01.summary.json" "$f" "$T/h02.summary.json" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	want=2
	[ "$b" = missing ] && want=3
	if crashed $rc; then
		bad "side by side, $b: crashed (exit $rc): $(head -c 300 "$T/err")"
	elif [ $rc != $want ]; then
		bad "side by side, $b: exit $rc, expected $want: $(head -c 300 "$T/err")"
	elif ! grep -qF "$b.summary.json" "$T/err"; then
		bad "side by side, $b: stderr does not name the file: $(head -c 300 "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "side by side, $b: refused but wrote to stdout"
	else
		ok
	fi
done
"$A" compare "$T/h01.summary.json" "$T/h01.summary.json" "$T/h02.summary.json" >"$T/out" 2>"$T/err"
rc=$?
names=$(sed -n 's/^# \[[0-9]*\] \(.\{24\}\) .*/\1/p' "$T/out" | sed 's/ *$//' | sort | uniq -d)
if crashed $rc || [ $rc != 0 ]; then
	bad "side by side, the same file twice: exit $rc: $(head -c 300 "$T/err")"
elif [ -n "$names" ]; then
	bad "side by side, the same file twice: two columns named '$names'"
else
	ok
fi

# A fleet: the bad files and the repeated host skipped and counted.
if "$A" compare --help | grep -q -- '--fleet'; then
	files=("$T/h01.summary.json" "$T/h02.summary.json")
	for b in $BAD h01-again; do files+=("$T/$b.summary.json"); done
	files+=("$T/h03.summary.json")
	nskip=$(($(wc -w <<<"$BAD") + 1))
	"$A" compare --fleet "${files[@]}" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if crashed $rc || [ $rc != 0 ]; then
		bad "fleet: exit $rc with 3 good files among ${#files[@]}: $(head -c 400 "$T/err")"
	elif ! grep -q "$nskip of ${#files[@]} files skipped" "$T/err" "$T/out"; then
		bad "fleet: no '$nskip of ${#files[@]} files skipped': $(head -c 400 "$T/err")"
	else
		ok
	fi
	for b in $BAD h01-again; do
		grep -qF "$b.summary.json" "$T/err" || bad "fleet: stderr does not name $b.summary.json"
	done
	grep -qF 'h03.summary.json' "$T/err" && bad "fleet: stderr names a good file, h03.summary.json"
	"$A" compare --fleet "$T/h01.summary.json" "$T/missing.summary.json" "$T/truncated.summary.json" \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if crashed $rc || [ $rc != 2 ]; then
		bad "fleet: one good file of three: exit $rc, expected 2: $(head -c 300 "$T/err")"
	fi
else
	echo "note: this build's compare has no --fleet: the fleet part is not run"
fi

echo "bad-input: $passes passed, $fails failed"
[ $fails = 0 ]
