#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-pattern.sh ATOMCOST [OBJDUMP LIBATOMCOST.a] - access patterns from the
# command line: bad names and impossible sizes exit 2 with a message naming
# them, `list --patterns` lists every pattern, a tiny run reports every
# pattern in both forms, the row named by a pattern with the op off the
# pointer word and PATTERN+ptr with it on; and the pattern loops in the
# disassembly hold their 64 ops, twins differing only in the op, the
# lock-prefix-only controls only in the prefix (docs/patterns.md); --cs-work
# reaches the lock probes under --pattern.
# Exit 0 pass, 1 fail, 77 skip (binary missing).
set -u
A=${1:?usage: test-pattern.sh PATH/TO/atomcost [OBJDUMP LIB]}
OBJDUMP=${2:-} LIB=${3:-}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
. "$(dirname "$0")/lib.sh"

refuse 2 "unknown pattern 'bogus'" run set_bit --pattern bogus
refuse 2 "did you mean 'miss'" run set_bit --pattern mis
refuse 2 "'mix=3/5': M must divide 64" run set_bit --pattern mix=3/5
refuse 2 "'mix=5/4': K atomic ops cannot exceed" run set_bit --pattern mix=5/4
refuse 2 "'mix' is not a mixture" run set_bit --pattern mix
refuse 2 "'l2' given twice" run set_bit --pattern l2,l2
refuse 2 "empty list" run set_bit --pattern ,
refuse 2 "'12Q' is not a size" run set_bit --pattern miss --footprint 12Q
refuse 2 "below the smallest walk" run set_bit --pattern l2 --footprint 100
refuse 2 "needs .* but only .* is available" run set_bit --pattern miss --footprint 100000G
refuse 2 "give --pattern too" run set_bit --footprint 1M
refuse 2 "node 4095 does not exist" run set_bit --pattern l2 --mem-node 4095
refuse 2 "measured on one thread" run set_bit --pattern l2 --threads 2

# list --patterns: every pattern, with its footprint here
if "$A" list --patterns >"$T/list" 2>"$T/err"; then
	for p in hit dep l2 llc miss miss-overlap 'mix=K/M'; do
		grep -q "^$p " "$T/list" && ok || bad "list --patterns lacks $p"
	done
else
	bad "list --patterns: exit $?: $(cat "$T/err")"
fi
"$A" list --patterns --json >"$T/list.json" 2>/dev/null && grep -q '"footprint_bytes"' "$T/list.json" &&
	ok || bad "list --patterns --json"

# A tiny run of every pattern (a small --footprint stands in for the big ones).
if "$A" run set_bit __or_byte cmpxchg --pattern hit,dep,l2,miss,miss-overlap,mix=1/2 --footprint 512K \
	--max-seconds 0.005 -o "$T/run.json" >"$T/run.txt" 2>"$T/err"; then
	ok
	while read -r probe pat mode; do
		grep -Eq "^$probe +[^ ]+ +$pat +$mode " "$T/run.txt" && ok ||
			bad "no row: $probe $pat $mode"
	done <<'ROWS'
set_bit hit latency
__set_bit hit throughput
cmpxchg dep latency
cmpxchg dep\+ptr latency
cmpxchg_local dep throughput
set_bit l2 latency
__set_bit l2\+ptr latency
__or_byte l2 latency
__or_byte l2\+ptr latency
__or_byte miss throughput
set_bit miss throughput
load_chase miss latency
load_chase miss throughput
set_bit miss-overlap throughput
__set_bit miss-overlap throughput
load_chase miss-overlap throughput
set_bit mix=1/2 latency
__set_bit mix=1/2 throughput
cmpxchg_local mix=1/2 latency
ROWS
	for key in '"chase_cycles"' '"footprint_bytes": 524288' '"thp_mode"' '"seed"' '"page_bytes"' \
		   '"variant": "word1"' '"variant": "pointer-word"' '"mix_k": 1'; do
		grep -q "$key" "$T/run.json" && ok || bad "run.json lacks $key"
	done
	# the row named by the pattern is the op off the pointer word (a
	# plain load step); only PATTERN+ptr puts it on the word the walk follows
	if command -v python3 >/dev/null; then
		python3 - "$T/run.json" <<'PY' && ok || bad "pattern rows name the wrong variant"
import json, sys
want = {"": ("word1", "load"), "+ptr": ("pointer-word", "load, then and ~63")}
seen = set()
for r in json.load(open(sys.argv[1]))["results"]:
    name, _, suffix = r["pattern"].partition("+")
    if name not in ("dep", "l2", "miss") or r["mode"] != "latency" or r["probe"] == "load_chase":
        continue
    suffix = "+" + suffix if suffix else ""
    got = (r["extra"]["pattern"]["variant"], r["extra"]["chase_step"])
    if got != want.get(suffix):
        sys.exit(print(f"{r['probe']} {r['pattern']}: {got}") or 1)
    seen.add(suffix)
sys.exit(seen != set(want))
PY
	fi
else
	bad "tiny pattern run: exit $?: $(head -c 500 "$T/err")"
fi

# --cs-work reaches the lock probes under --pattern as it does without it:
# 2000 work units (about a cycle each) in the critical section against none
# is a gap no noise closes (a lock round trip is tens of cycles).
cs_median() {
	"$A" run spin_lock --no-twins --mode latency --pattern hit --cs-work "$1" \
		--max-seconds 0.02 --format csv 2>/dev/null | awk -F, 'NR == 2 { print $12 }'
}
c0=$(cs_median 0) c1=$(cs_median 2000)
awk -v a="$c0" -v b="$c1" 'BEGIN { exit !(a > 0 && b > 10 * a) }' && ok ||
	bad "--pattern hit ignores --cs-work: median $c0 cycles at 0, $c1 at 2000"

# The disassembly of the pattern loops (x86-64 builds only). The bare walk
# and the word-1 rows step with one `mov (%reg),%reg` (the same register:
# a plain pointer chase, no `and`); only the pointer-word rows mask.
if [ -n "$OBJDUMP" ] && [ -n "$LIB" ] &&
   "$OBJDUMP" -d --no-show-raw-insn -M att "$LIB" >"$T/dis" 2>/dev/null &&
   grep -q 'file format elf64-x86-64' "$T/dis"; then
	# one pass: the body of every pattern loop into $T/fn/NAME, addresses stripped
	mkdir -p "$T/fn"
	awk -v dir="$T/fn" '
		/^[0-9a-f]+ <k[pm]_[A-Za-z0-9_]+>:$/ { name = substr($2, 2, length($2) - 3); next }
		NF == 0 { name = ""; next }
		name != "" { sub(/^[^:]*:[ \t]*/, ""); print > (dir "/" name) }' "$T/dis"
	body() { [ -f "$T/fn/$1" ] && cat "$T/fn/$1"; }
	count() { body "$1" | grep -cE "$2"; }
	while read -r fn re n; do
		c=$(count "$fn" "$re")
		[ "$c" -eq "$n" ] && ok || bad "$fn: $c instructions match '$re', expected $n"
	done <<'TABLE'
kp_set_bit_chase ^lock\s+orb\s+\$0x2,\(%r 64
kp_set_bit_chase ^and\s+\$0xffffffffffffffc0, 64
kp___set_bit_chase ^(btsq?\s+\$0x1|orb\s+\$0x2),\(%r 64
kp_set_bit_chase_w1 ^lock\s+orb\s+\$0x2,0x8\(%r 64
kp___or_byte_chase ^orb\s+\$0x2,\(%r 64
kp___or_byte_chase_w1 ^orb\s+\$0x2,0x8\(%r 64
kp___or_byte_chase_w1 ^lock 0
kp___or_byte_indexed ^orb\s+\$0x2, 64
kp_set_bit_indexed ^lock\s+orb\s+\$0x2, 64
kp_set_bit_overlap ^lock\s+orb\s+\$0x2, 64
kp_cmpxchg_chase ^lock\s+cmpxchg\s+%r 64
kp_cmpxchg_local_indexed ^cmpxchg\s+%r 64
kp_atomic_inc_chase_w1 ^lock\s+incq\s+0x8\( 64
kp_xchg_indexed ^xchg\s+%r 64
kp_load_chase_chase ^mov\s+\(%(r[a-z0-9]+)\),%\1$ 64
kp_load_chase_chase ^and\s 0
kp_set_bit_chase_w1 ^mov\s+\(%(r[a-z0-9]+)\),%\1$ 64
kp_set_bit_chase_w1 ^and\s 0
kp_cmpxchg_chase_w1 ^and\s 0
km_set_bit_lat ^lock\s+orb 64
km_set_bit_lat ^(btsq?|orb)\s 64
km_cmpxchg_tput ^lock\s+cmpxchg 64
TABLE
	# the mix loops test their mask in a register, never from the stack
	for f in "$T"/fn/km_*; do
		s=$(grep -cE '\(%rsp\)' "$f")
		[ "$s" -eq 0 ] && ok || bad "$(basename "$f"): $s stack references in the loop"
	done
	# twins: the same loop but for the op, which the kernel-exact twin may
	# spell differently (lock orb / btsq): the atomic one's locked lines
	# are the ops, every other line must match
	mnem() { body "$1" | awk '{print $1}'; }
	same_but_op() {
		[ "$(mnem "$1" | wc -l)" -eq "$(mnem "$2" | wc -l)" ] &&
			paste -d' ' <(mnem "$1") <(mnem "$2") | awk '$1 != "lock" && $1 != $2 {d = 1} END {exit d}'
	}
	for pair in set_bit:__set_bit set_bit_var:__set_bit_var or_word:__or_word clear_bit:__clear_bit \
		    test_and_set_bit:__test_and_set_bit cmpxchg:cmpxchg_local \
		    try_cmpxchg:try_cmpxchg_local atomic_add_return:xadd_local atomic_inc:local_inc; do
		a=${pair%%:*} b=${pair##*:}
		for form in chase chase_w1 indexed overlap; do
			[ -n "$(body "kp_${a}_$form")" ] || continue
			same_but_op "kp_${a}_$form" "kp_${b}_$form" && ok ||
				bad "kp_${a}_$form and kp_${b}_$form differ beyond the op"
			s=$(body "kp_${a}_$form" | grep -cE '\(%rsp\)')
			[ "$s" -eq 0 ] && ok || bad "kp_${a}_$form: $s stack references in the loop"
		done
	done
	# lock-prefix-only controls: the same instruction, width and operand,
	# so the loops must match line for line once `lock` is dropped (jump
	# targets stripped: they name each function's own addresses)
	norm() { body "$1" | sed -E 's/^lock\s+//; s/[0-9a-f]+ <[^>]*>//; s/\s+/ /g'; }
	for pair in set_bit:__or_byte set_bit_var:__set_bit_var atomic_inc:local_inc cmpxchg:cmpxchg_local; do
		a=${pair%%:*} b=${pair##*:}
		for form in chase chase_w1 indexed overlap; do
			[ -n "$(body "kp_${a}_$form")" ] || continue
			[ "$(body "kp_${a}_$form" | grep -c '^lock')" -eq 64 ] &&
				[ "$(norm "kp_${a}_$form")" = "$(norm "kp_${b}_$form")" ] && ok ||
				bad "kp_${a}_$form and kp_${b}_$form differ beyond the lock prefix"
		done
	done
fi

echo "pattern-cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
