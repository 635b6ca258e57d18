#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fleet/verdicts.sh SRCDIR ATOMCOST - what an operator acts on in a
# fleet compare: 40 summaries generated from reports/zen5-kvm-2vcpu.summary.json
# (tests/fleet/gen-fleet.py: 1% noise, 6 result cells planted on 4
# machines, the microcode group of every 4th machine x1.2 in one row).
# The default view (no --all) names each planted cell in its result row and
# the group as one line, and nothing else; --members lists the group's 10
# machines; --fail-on outlier|group|any exits 1, none 0, and 0 on a quiet
# fleet; the CSV and the JSON have the same; --group-by kernel finds no group (the
# members are then named one by one) and an unknown key exits 2.
# Deterministic (a fixed seed). Exit 0 pass, 1 fail, 77 skip.
set -u
SRC=$1
A=$2
command -v python3 >/dev/null || { echo "SKIP: python3 generates the fleet"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=1; }
mkdir -p "$T/fleet" "$T/quiet"
gen() { python3 "$SRC/tests/fleet/gen-fleet.py" --group-every 4 "$@"; }
gen "$SRC/reports/zen5-kvm-2vcpu.summary.json" "$T/fleet" 40 "$T/planted.tsv" || exit 1
gen --quiet "$SRC/reports/zen5-kvm-2vcpu.summary.json" "$T/quiet" 40 "$T/none.tsv" || exit 1
rm -f "$T"/fleet/zz-* "$T"/quiet/zz-*

"$A" compare --fleet "$T"/fleet/*.json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || bad "default view: exit $rc: $(head -c 300 "$T/err")"
group_row=$(awk -F'\t' '$1 == "group" { print $3 }' "$T/planted.tsv")
grep -q "^  microcode 0xffff: 10 machines, $group_row +" "$T/out" ||
	bad "the group is not one line '  microcode 0xffff: 10 machines, $group_row +...': $(grep -A2 '^## groups' "$T/out")"
[ "$(grep -c '^  .*: [0-9]* machines, ' "$T/out")" = 1 ] || bad "more than the one planted group moved: $(grep -A5 '^## groups' "$T/out")"
grep -q 'members:' "$T/out" && bad "members listed without --members"
while IFS=$'\t' read -r kind host row; do
	[ "$kind" = cell ] || continue
	grep -q "^  $host: $row: " "$T/out" || bad "planted $host $row not named"
done <"$T/planted.tsv"
named=$(grep -c '^  host-[0-9]*: ' "$T/out")
[ "$named" = 6 ] || bad "$named cells named, want the 6 planted: $(grep '^  host-' "$T/out")"
grep -q '^## rows (the card.s; --all: every result line too)' "$T/out" || bad "the table is not the card's rows"
grep -q "^  $group_row " "$T/out" && bad "a result row in the default table"
grep -q "False alarms: at most 0.05 falsely named machines expected per compare" <(tr '\n' ' ' <"$T/out" | sed 's/ # / /g') ||
	bad "the header does not state the expected false alarms"

"$A" compare --fleet --members "$T"/fleet/*.json >"$T/members" 2>/dev/null
members=$(awk '/^    members:/ { on = 1 } on && !/^    / { on = 0 } on' "$T/members" | grep -o 'host-[0-9]*' | xargs)
[ "$members" = "$(seq -f 'host-%05g' 3 4 39 | xargs)" ] || bad "--members: '$members', want every 4th host"

for what in outlier group any; do
	"$A" compare --fleet --fail-on "$what" "$T"/fleet/*.json >/dev/null 2>&1
	rc=$?
	[ $rc = 1 ] || bad "--fail-on $what: exit $rc with a planted outlier and group, want 1"
	"$A" compare --fleet --fail-on "$what" "$T"/quiet/*.json >"$T/q" 2>&1
	rc=$?
	[ $rc = 0 ] || bad "--fail-on $what: exit $rc on a quiet fleet, want 0: $(grep -A3 '^## groups' "$T/q")"
done
"$A" compare --fleet --fail-on none "$T"/fleet/*.json >/dev/null 2>&1 || bad "--fail-on none: exit $?, want 0"

"$A" compare --fleet --format csv --members "$T"/fleet/*.json >"$T/csv" 2>/dev/null
grep -q "^moved,every result line (median),$group_row,cycles,,microcode 0xffff,10," "$T/csv" || bad "csv: no moved line"
[ "$(grep -c '^member,' "$T/csv")" = 10 ] || bad "csv: $(grep -c '^member,' "$T/csv") member lines, want 10"
[ "$(grep -c '^named,' "$T/csv")" = 6 ] || bad "csv: $(grep -c '^named,' "$T/csv") named lines, want 6"

"$A" compare --fleet --format json --members "$T"/fleet/*.json >"$T/json" 2>/dev/null
python3 - "$T/json" "$T/planted.tsv" <<'PY' || bad "json: the verdicts differ from the planted ones"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(["cell\t%s\t%s" % (n["machine"], n["row"]) for n in d["named"]] +
             ["group\t%s\t%s" % (g["group"], g["row"]) for g in d["moved"]])
want = sorted(open(sys.argv[2]).read().splitlines())
ok = got == want and d["machines"] == 40 and len(d["moved"][0]["members"]) == 10 and d["tests"]["cells"] > 0
print("json: %d named, %d moved%s" % (len(d["named"]), len(d["moved"]), "" if ok else ": %s" % got))
sys.exit(not ok)
PY
"$A" compare --format json "$T"/fleet/host-0000[012].summary.json >/dev/null 2>&1
rc=$?
[ $rc = 2 ] || bad "--format json side by side: exit $rc, want 2"

"$A" compare --fleet --group-by kernel "$T"/fleet/*.json >"$T/kernel" 2>/dev/null
grep -q '^## groups that moved: 0 ' "$T/kernel" || bad "--group-by kernel: a group moved: $(grep -A2 '^## groups' "$T/kernel")"
[ "$(grep -c "^  host-[0-9]*: $group_row: " "$T/kernel")" = 10 ] || bad "--group-by kernel: the group's 10 machines not named one by one"
"$A" compare --fleet --group-by rack "$T"/fleet/*.json >"$T/rack" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "group-by 'rack'" "$T/rack" || bad "--group-by rack: exit $rc, want 2 naming the key: $(head -c 200 "$T/rack")"
"$A" compare --members "$T"/fleet/host-00000.summary.json "$T"/fleet/host-00001.summary.json >/dev/null 2>&1
rc=$?
[ $rc = 2 ] || bad "--members without a fleet: exit $rc, want 2"

[ $fails = 0 ] && echo "PASS: the planted cells and group named (default view), --members, --fail-on, csv, json, --group-by"
exit $fails
