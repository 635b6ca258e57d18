#!/usr/bin/env bash
# test-disasm.sh OBJDUMP LIBATOMCOST.a
# Every timed x86-64 loop really contains its 64 ops (none merged or hoisted),
# no stack traffic inside the loop, and each atomic kernel is its twin's loop
# with only the lock prefix added (METHOD 1). Exit 77 on other architectures.
set -u
objdump=$1 lib=$2
fail=0 pass=0
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
"$objdump" -d --no-show-raw-insn -M att "$lib" > "$dis" 2>/dev/null || { echo "objdump failed"; exit 1; }
grep -q 'file format elf64-x86-64' "$dis" || { echo "SKIP: not an x86-64 build"; exit 77; }

body() {  # instructions of one function, addresses stripped
	awk -v f="<$1>:" '$2 == f {on=1; next} on && NF == 0 {exit} on' "$dis" | cut -f2- -d: | sed 's/^\s*//'
}

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# kernel  regex-of-the-op  expected-count-per-loop
while read -r fn re n; do
	b=$(body "$fn")
	[ -n "$b" ] || { bad "$fn: symbol not found"; continue; }
	c=$(printf '%s\n' "$b" | grep -cE "$re")
	[ "$c" -eq "$n" ] && ok || bad "$fn: $c instructions match '$re', expected $n"
	# the timed loop must not touch the stack (spilled addresses, parked flags)
	s=$(printf '%s\n' "$b" | grep -E "$re" -A3 | grep -cE '\(%rsp\)')
	[ "$s" -eq 0 ] && ok || bad "$fn: $s stack references next to the ops"
done <<'TABLE'
k_set_bit_lat ^lock\s+orb\s+\$0x2, 64
k_set_bit_tput ^lock\s+orb\s+\$0x2, 64
k___set_bit_lat ^orb\s+\$0x2, 64
k___set_bit_tput ^orb\s+\$0x2, 64
k_set_bit_ds_lat ^ds\s+orb 64
k_set_bit_var_lat ^lock\s+bts\s+%r 64
k___set_bit_var_tput ^bts\s+%r 64
k_or_word_tput ^lock\s+or\s+%r 64
k___or_word_lat ^or\s+%r 64
k_clear_bit_lat ^lock\s+andb\s+\$0xfd, 64
k___clear_bit_tput ^andb\s+\$0xfd, 64
k_clear_bit_var_tput ^lock\s+btr\s+%r 64
k___clear_bit_var_lat ^btr\s+%r 64
k_test_and_set_bit_lat ^lock\s+bts\s+%r 64
k___test_and_set_bit_tput ^bts\s+%r 64
k_cmpxchg_lat ^lock\s+cmpxchg\s+%r 64
k_cmpxchg_local_tput ^cmpxchg\s+%r 64
k_try_cmpxchg_tput ^lock\s+cmpxchg\s+%r 64
k_try_cmpxchg_local_lat ^cmpxchg\s+%r 64
k_this_cpu_cmpxchg_lat ^cmpxchg\s+%r.*%fs: 64
k_this_cpu_cmpxchg_tput ^cmpxchg\s+%r.*%fs: 64
k_xchg_lat ^xchg\s+%r 64
k___xchg_tput ^mov\s+%r[a-z0-9]+,(0x[0-9a-f]+)?\(%r 64
k_atomic_add_return_lat ^lock\s+xadd 64
k_xadd_local_tput ^xadd 64
k_atomic_inc_tput ^lock\s+incq 64
k_local_inc_lat ^incq 64
k_cmpxchg128_lat ^lock\s+cmpxchg16b 64
k_cmpxchg128_local_tput ^cmpxchg16b 64
k_load_lat ^mov\s+\((%r[a-z0-9]+)\),\1$ 64
k_store_tput ^mov\s+%r[a-z0-9]+,(0x[0-9a-f]+)?\(%r 64
TABLE

# Twins: the same instruction sequence once the lock prefix is removed.
mnemonics() { body "$1" | sed -E 's/^(lock|ds)\s+//' | awk '{print $1}'; }
for pair in set_bit:__set_bit set_bit_var:__set_bit_var or_word:__or_word clear_bit:__clear_bit \
	    clear_bit_var:__clear_bit_var test_and_set_bit:__test_and_set_bit \
	    cmpxchg:cmpxchg_local try_cmpxchg:try_cmpxchg_local atomic_add_return:xadd_local \
	    atomic_inc:local_inc cmpxchg128:cmpxchg128_local set_bit_ds:__set_bit; do
	a=${pair%%:*} b=${pair##*:}
	for form in lat tput; do
		if diff <(mnemonics "k_${a}_$form") <(mnemonics "k_${b}_$form") >/dev/null; then ok
		else bad "k_${a}_$form and k_${b}_$form differ beyond the lock prefix"; fi
	done
done
echo "disasm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
