#!/bin/sh
# SPDX-License-Identifier: MIT
# test-events-cli.sh ATOMCOST - exit codes and output of events on the
# command line: unknown name -> 2 with a suggestion; an event this machine
# cannot count -> n/a (reason) and 0, or 4 with --require-events; `events`
# tells which events open. Exit 0 pass, 1 fail.
set -u
A=$1
fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

check() { # what expected actual
	if [ "$2" != "$3" ]; then echo "FAIL: $1: expected $2, got $3"; fail=1; else echo "ok: $1"; fi
}

ev=$(mktemp)
trap 'rm -f "$out" "$err" "$ev"' EXIT
"$A" events >"$ev" 2>"$err"; check "events exits 0" 0 $?
grep -Eq '^  context-switches +software' "$ev" || { echo "FAIL: events lists context-switches"; fail=1; }

"$A" run set_bit -e cyclse --max-seconds 0.01 >"$out" 2>"$err"; check "unknown event exit" 2 $?
grep -q "did you mean 'cycles'" "$err" || { echo "FAIL: no suggestion: $(cat "$err")"; fail=1; }

# Is cycles counted here? `events` says so (yes/no column).
if grep -Eq '^  cycles +hardware +yes' "$ev"; then
	echo "note: cycles counts here: the n/a path is not exercised"
	"$A" run set_bit --no-twins --mode latency -e cycles --require-events --max-seconds 0.01 >"$out" 2>"$err"
	check "cycles with a PMU, --require-events" 0 $?
else
	"$A" run set_bit --no-twins --mode latency -e cycles,context-switches --max-seconds 0.01 >"$out" 2>"$err"
	check "cycles n/a: exit" 0 $?
	grep -q "n/a (" "$out" || { echo "FAIL: no n/a cell: $(cat "$out")"; fail=1; }
	grep -q "^# cycles: n/a (" "$out" || { echo "FAIL: no reason line: $(cat "$out")"; fail=1; }
	"$A" run set_bit --no-twins --mode latency -e cycles --require-events --max-seconds 0.01 >"$out" 2>"$err"
	check "cycles n/a with --require-events: exit" 4 $?
	grep -q "cannot be counted here" "$err" || { echo "FAIL: no reason on stderr: $(cat "$err")"; fail=1; }
fi
exit $fail
