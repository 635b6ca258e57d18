#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cold-walk.sh ATOMCOST - the 2004 buddy-bitmap reproduction's cold
# cases must miss: in modern mode the run measures the plain chase latency of
# the cold walk against the same walk over half the L2 and prints a computed
# verdict; this checks, over 3 processes, that each says the cold chase costs
# more than twice the L2 one, and prints both latencies. A benchmark, not a
# unit test (timing): `meson test --benchmark`. Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: bench-cold-walk.sh PATH/TO/atomcost}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for r in 1 2 3; do
	if ! "$A" run --set experiment.kind=buddy-bitmap-2004 --set buddy-bitmap-2004.mode=modern \
		--set buddy-bitmap-2004.trials=3 --set buddy-bitmap-2004.variants=kernel \
		-o "$T/run$r.json" >"$T/out$r" 2>"$T/err$r"; then
		echo "run $r failed: $(cat "$T/err$r")"
		exit 1
	fi
	grep "chase latency of that walk" "$T/out$r"
	if ! grep -q "^conclusion the cold walk misses: the cold walk's chase costs .* more than twice" "$T/out$r"; then
		echo "FAIL: run $r: the cold walk does not miss:"
		grep -A1 "^conclusion the cold walk" "$T/out$r"
		fail=1
	fi
done
exit $fail
