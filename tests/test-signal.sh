#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-signal.sh ATOMCOST - interrupt real runs: SIGINT and SIGTERM mid-run
# must end the run promptly with exit 130/143, the report written atomically
# (valid JSON, "partial": true, the reason given, no temporary file left),
# worker threads stopped and joined (the process exits: a hang fails the
# test). A second SIGINT kills a run that does not stop. --time-limit caps
# a whole run the same way. Needs jq. Exit 0 pass, 1 fail, 77 skip.
set -u
A=${1:?usage: test-signal.sh PATH/TO/atomcost}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed (apt-get install jq)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0

ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# The default probe set takes many seconds; each probe is capped short so a
# sample loop sees the stop flag within milliseconds.
RUN=(run --max-seconds 0.2)

# check_partial FILE REASON: valid report, partial, reason, results parse.
check_partial() {
	local f=$1 reason=$2
	if ! jq -e . "$f" >/dev/null 2>&1; then
		bad "$f is not valid JSON"
		return
	fi
	jq -e '.partial == true' "$f" >/dev/null && ok || bad "$f: partial is not true"
	jq -e --arg r "$reason" '.partial_reason | contains($r)' "$f" >/dev/null && ok ||
		bad "$f: partial_reason $(jq .partial_reason "$f"), expected '$reason'"
	jq -e '.results | type == "array"' "$f" >/dev/null && ok || bad "$f: no results array"
	jq -e '[.results[] | .samples > 0] | all' "$f" >/dev/null && ok ||
		bad "$f: a kept result has no samples"
	[ -z "$(ls -A "$(dirname "$f")" | grep '^\.atomcost-')" ] && ok ||
		bad "temporary file left in $(dirname "$f")"
}

# interrupt SIG CODE EXTRA...: start a run, wait until it has measured
# something (its report would not be partial otherwise), signal it, expect CODE.
interrupt() {
	local sig=$1 code=$2 out pid rc waited=0
	shift 2
	out="$T/$sig-$RANDOM.json"
	# the text table goes to a file: when it has a first row, results exist
	"$A" "${RUN[@]}" "$@" -o "$out" >"$T/stdout" 2>"$T/stderr" &
	pid=$!
	# calibration plus a first probe: 1 s is ample here, 10 s is a hang
	sleep 1
	kill -s "$sig" "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null && [ $waited -lt 100 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		bad "$sig: run did not stop within 10 s"
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		return
	fi
	wait "$pid"
	rc=$?
	[ "$rc" = "$code" ] && ok || bad "$sig $*: exit $rc, expected $code; stderr: $(head -c 300 "$T/stderr")"
	if [ -f "$out" ]; then
		check_partial "$out" interrupted
	else
		bad "$sig $*: no report written; stderr: $(head -c 300 "$T/stderr")"
	fi
}

interrupt INT 130
interrupt TERM 143
# contention runs: worker threads must be stopped and joined
if "$A" run --help | grep -q -- '--threads' && [ "$(nproc)" -ge 2 ]; then
	interrupt INT 130 --threads 2
	interrupt TERM 143 --threads 2
fi

# --time-limit: a whole-run cap, the report is partial ("time limit"), exit 0
"$A" "${RUN[@]}" --time-limit 0.5 -o "$T/tl.json" >/dev/null 2>"$T/stderr"
rc=$?
[ "$rc" = 0 ] && ok || bad "--time-limit: exit $rc: $(head -c 300 "$T/stderr")"
[ -f "$T/tl.json" ] && check_partial "$T/tl.json" "time limit" || bad "--time-limit: no report"

# A second SIGINT ends a run at once (the default action): exit by signal.
"$A" "${RUN[@]}" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -INT "$pid"
kill -INT "$pid"
waited=0
while kill -0 "$pid" 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 "$pid" 2>/dev/null; then
	bad "two SIGINTs: still running after 10 s"
	kill -9 "$pid"
fi
wait "$pid"
rc=$?
[ "$rc" = 130 ] && ok || bad "two SIGINTs: exit $rc, expected 130"

echo "signal: $passes passed, $fails failed"
[ "$fails" = 0 ]
