#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-cli.sh ATOMCOST - every command and option refuses bad input the same
# way: one message on stderr naming the bad value, the documented exit code,
# nothing on stdout (nothing measured). Also the environments a user brings:
# a CPU outside the allowed cpuset (taskset), a 1-PU cpuset, a read-only or
# missing output directory, a full disk (a small tmpfs, when we may mount
# one), stdout on a full device, and a user who is not root (setpriv/runuser to nobody).
# Exit 0 pass, 1 fail, 77 skip (binary missing).
set -u
A=${1:?usage: test-cli.sh PATH/TO/atomcost}
[ -x "$A" ] || { echo "SKIP: $A not built"; exit 77; }
A=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
T=$(mktemp -d)
MNT=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0 passes=0 skips=0
# A fast run: the probes and forms we use are short, calibration dominates.
FAST=(--max-seconds 0.01 --mode latency)

. "$(dirname "$0")/lib.sh"
REFUSE_ONE_MESSAGE=1
skip() { skips=$((skips + 1)); echo "skip: $*"; }

# accept ARGS...: exit 0.
accept() {
	local rc
	"$A" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ "$rc" = 0 ] && ok || bad "atomcost $*: exit $rc, expected 0: $(head -c 300 "$T/err")"
}

has_opt() { "$A" "$1" --help 2>/dev/null | grep -q -- "$2"; }
commands=$("$A" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')

# ---- the command itself -------------------------------------------------
refuse 2 'usage' 
refuse 2 "unknown command 'rn'.*did you mean 'run'" rn
refuse 2 "unknown command 'frobnicate'" frobnicate
accept --help
accept --version

# ---- every command: unknown option, --help ------------------------------
for c in $commands; do
	accept "$c" --help
	grep -q -- '-h, --help' "$T/out" && ok || bad "atomcost $c --help: no '-h, --help' line (option table)"
	refuse 2 "unrecognized option|unknown option|invalid option" "$c" --no-such-option
done

# ---- option tables: one range check and message for every command ----------
refuse 2 "--max-seconds: 0 is out of range \(expected 0.001..600\)" c2c --max-seconds 0
refuse 2 "--format: unknown value 'xml' \(expected text\|json\)" c2c --format xml
# A typo past the 63rd character is still found (the list was once cut there unsaid).
refuse 2 "unknown method 'load-stor'" c2c --method \
	cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,cmpxchg,load-stor
refuse 2 "--steps: 99 is out of range \(expected 1..16\)" hierarchy --steps 99
refuse 2 "--only: unknown value 'both2'" hierarchy --only both2
refuse 2 "--min-change: 1 is out of range \(expected 3..100\)" compare --min-change 1 a.json b.json
refuse 2 "--format: unknown format 'xml'" report --format xml x.json
refuse 2 "unexpected argument 'extra'" events extra
# run's [run] keys are made from its options: --help says what the schema says
for k in max_seconds:max-seconds target_ci:target-ci; do
	def=$("$A" config --schema | awk -v k="${k%%:*}" '$1 == k && $2 == "=" {print $3; exit}')
	"$A" run --help | grep -A1 -- "--${k#*:} " | tr -s ' \n' ' ' | grep -q "(default $def)" && ok ||
		bad "run --help: --${k#*:} does not print the [run] ${k%%:*} default $def"
done
refuse 2 "--set run.max_seconds=0: .*out of range \(expected 0.001..3600\)" run --set run.max_seconds=0
# every [run] key is an option of run's (its row made from the option's)
if command -v jq >/dev/null; then
	for o in $("$A" config --schema --json | jq -r '.[] | select(.section == "run" and .option != "PROBE...") | .option'); do
		"$A" run --help | grep -q -- "^  \(-., \)\?$o\b" && ok || bad "[run] maps to $o, which run --help lacks"
	done
fi
# [run] cpu goes through the one CPU-list parser, as --cpu does
refuse 2 "--set run.cpu=x: cpu in .run.: 'x' is not an unsigned integer" run --set run.cpu=x
printf '[run]\ncpu = 0,0\n' > "$T/cpu.conf"
refuse 2 "$T/cpu.conf:2: cpu in .run.: '0,0' is not an unsigned integer" config --check "$T/cpu.conf"
refuse 2 "--cpu: malformed CPU list 'x'" run --cpu x

# ---- run: names -----------------------------------------------------------
refuse 2 "unknown probe 'set_bti'.*did you mean 'set_bit'" run set_bti
refuse 2 "unknown probe 'zz\*'" run 'zz*'
refuse 2 "unknown probe ''" run ''
refuse 2 "unknown family 'bitopz'" run --family bitopz
refuse 2 "unknown mode 'fast'" run --mode fast
refuse 2 "--mode: empty list" run --mode ''
refuse 2 "--mode: empty list" run --mode ,
refuse 2 "unknown format 'xml'" run --format xml
refuse 2 "cannot tell the format of '$T/x.xyz'" run -o "$T/x.xyz"
refuse 2 "cannot tell the format of '$T/noext'" run -o "$T/noext"

# ---- run: numbers ----------------------------------------------------------
for v in abc '' -1 0 1e9 nan inf 0x 1.5.2 ' 1'; do
	refuse 2 "--max-seconds: " run --max-seconds "$v"
done
for v in 0 1 x; do
	refuse 2 "--target-ci: " run --target-ci "$v"
done
for v in x 0 -5 1e99; do
	refuse 2 "--time-limit: " run --time-limit "$v"
done
if has_opt run --threads; then
	for v in 0 -1 abc 99999999999999999999 1.5; do
		refuse 2 "--threads: " run --threads "$v"
	done
fi
if has_opt run --epochs; then
	for v in 0 abc 1001; do
		refuse 2 "--epochs: " run --epochs "$v"
	done
fi
# the characterization under load: its patience is seconds, 0 to an hour;
# --quick is the characterization's own and refused beside probes or engines
for v in x -1 3601 nan ''; do
	refuse 2 "--patience: " run --patience "$v"
done
refuse 2 "--quick is the characterization's" run --quick set_bit
refuse 2 "--quick is the characterization's" run --quick --pattern dep
refuse 2 "--quick is the characterization's" run --quick --threads 2
refuse 2 "'--quick' doesn't allow an argument" run --quick=yes
printf '[run]\npatience = -3\n' >"$T/pat.conf"
refuse 2 "pat.conf:2" run -c "$T/pat.conf"
# -c, an operand FILE.conf and --set are rows of run's option table: one
# file a run; the file's [run] keys, then --set over them, then the
# command line over both
refuse 2 "two experiment files .*pat.conf.*other.conf" run -c "$T/pat.conf" "$T/other.conf"
refuse 2 "two experiment files" run "$T/pat.conf" --config "$T/other.conf"
refuse 2 "requires an argument" run -c
printf '[run]\nprobes = set_bit\ntwins = no\nmode = latency\nmax_seconds = 0.01\nepochs = 1\n' >"$T/one.conf"
# epochs ... : the set_bit latency rows of a run with these arguments
epochs() {
	"$A" run "$@" --format json 2>/dev/null | jq '[.results[] | select(.probe == "set_bit")] | length'
}
if command -v jq >/dev/null; then
	for c in "1:$T/one.conf" "3:-c $T/one.conf --set run.epochs=3" "2:$T/one.conf --set run.epochs=3 --epochs 2" \
		 "2:--epochs 2 --set run.epochs=3 -c $T/one.conf"; do
		# shellcheck disable=SC2086
		n=$(epochs ${c#*:})
		[ "$n" = "${c%%:*}" ] && ok || bad "run ${c#*:}: $n epochs of set_bit, expected ${c%%:*}"
	done
else
	skip "jq missing: the experiment's precedence"
fi
if has_opt run --mem-node; then
	refuse 2 "--mem-node: " run --mem-node x
	refuse 2 "--mem-node: " run --mem-node -1
fi

# ---- run: options of the pattern, contention and event features -----------
if has_opt run --pattern; then
	refuse 2 "--pattern: unknown pattern 'nosuch'" run --pattern nosuch
	refuse 2 "--footprint: 'abc' is not a size" run --footprint abc
fi
if has_opt run --placement; then
	refuse 2 "unknown placement 'nosuch'" run --threads 2 --placement nosuch
	refuse 2 "CPU 0 appears twice" run --threads 2 --placement list:0,0
	refuse 2 "CPU 99999 is not" run --threads 2 --placement list:0,99999
	refuse 2 "empty CPU list" run --threads 2 --placement list:
	refuse 2 "--sharing: unknown case 'nosuch'" run --threads 2 --sharing nosuch
	refuse 2 "--sharing: empty list" run --threads 2 --sharing ,
fi

# ---- experiment files: missing, binary garbage, huge lines, truncated,
# unknown sections, duplicate keys, bad overrides ----------------------------
if echo "$commands" | grep -qx config; then
	head -c 3000 /dev/urandom >"$T/garbage.conf"
	printf '[run]\nthreads = 2\nthreads = 3\n' >"$T/dup.conf"
	printf '[run]\nprobes = %s\n' "$(head -c 100000 /dev/zero | tr '\0' x)" >"$T/huge.conf"
	printf '[run\n' >"$T/trunc.conf"
	printf '[nosuch]\nkey = 1\n' >"$T/section.conf"
	refuse 3 "cannot open '$T/none.conf'" config --check "$T/none.conf"
	refuse 3 "cannot open '$T/none.conf'" run -c "$T/none.conf"
	refuse 2 "garbage.conf:[0-9]+: " config --check "$T/garbage.conf"
	refuse 2 "dup.conf:3: duplicate key 'threads'" config --check "$T/dup.conf"
	refuse 2 "huge.conf:2: line too long" config --check "$T/huge.conf"
	refuse 2 "trunc.conf:1: " config --check "$T/trunc.conf"
	refuse 2 "section.conf:1: .*nosuch" config --check "$T/section.conf"
	refuse 2 "--set nosuch.key=1: unknown section" run --set nosuch.key=1
	refuse 2 "--set run.threads=0: .*out of range" run --set run.threads=0
	refuse 2 "--set: 'garbage' is not section.key=value" run --set garbage
	# every shipped experiment loads against the whole schema ([run]'s from run's options)
	for f in "$(dirname "$0")"/../configs/*.conf; do
		accept config --check "$f"
	done
fi

# ---- run and calibrate: CPUs ----------------------------------------------
for c in run calibrate; do
	refuse 2 "--cpu: CPU 99999 is not|--cpu: CPU number too large" $c --cpu 99999
	refuse 2 "--cpu: CPU number too large" $c --cpu 99999999999999999999
	refuse 2 "--cpu: empty CPU list" $c --cpu ''
	refuse 2 "--cpu: malformed CPU list 'x'" $c --cpu x
	refuse 2 "--cpu: malformed CPU list '-1'" $c --cpu -1
	refuse 2 "--cpu: malformed CPU list '0,'|--cpu: empty" $c --cpu 0,
	refuse 2 "--cpu: CPU 0 appears twice" $c --cpu 0,0
	refuse 2 "--cpu: reversed range" $c --cpu 1-0
done
# flag-ack (two lines, c2clat's default) is chosen by name: on 2 PUs it
# runs and its round trip is positive
if [ "$(nproc)" -ge 2 ]; then
	if "$A" c2c --method flag-ack --max-seconds 0.05 >"$T/fa" 2>"$T/err" </dev/null; then
		awk '$3 == "flag-ack" && $5 + 0 > 0 {f = 1} END {exit !f}' "$T/fa" && ok ||
			bad "c2c --method flag-ack: no flag-ack row with a positive round trip: $(head -c 400 "$T/fa")"
	else
		bad "c2c --method flag-ack: $(head -c 300 "$T/err")"
	fi
fi
ncpu=$(nproc --all)
if [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null; then
	# CPU 1 exists but is outside a cpuset of CPU 0
	for c in "run empty" calibrate; do
		taskset -c 0 "$A" $c --cpu 1 >"$T/out" 2>"$T/err" </dev/null
		rc=$?
		if [ "$rc" = 2 ] && grep -q "CPU 1 is not in the allowed cpuset" "$T/err" && [ ! -s "$T/out" ]; then
			ok
		else
			bad "taskset -c 0 atomcost $c --cpu 1: exit $rc: $(head -c 300 "$T/err")"
		fi
	done
	# a 1-PU cpuset runs single-thread probes on that PU
	if taskset -c 1 "$A" run empty "${FAST[@]}" --format json >"$T/one.json" 2>"$T/err"; then
		grep -q '"os": 1' "$T/one.json" && ok || bad "1-PU cpuset: result not on CPU 1"
	else
		bad "taskset -c 1 atomcost run empty: $(head -c 300 "$T/err")"
	fi
	if has_opt run --threads; then
		taskset -c 0 "$A" run --threads 2 >"$T/out" 2>"$T/err" </dev/null
		rc=$?
		if [ "$rc" = 2 ] || [ "$rc" = 4 ]; then ok; else
			bad "taskset -c 0 atomcost run --threads 2: exit $rc (expected 2 or 4): $(head -c 300 "$T/err")"
		fi
	fi
else
	skip "cpuset tests need 2 CPUs and taskset"
fi

# ---- run: output files -----------------------------------------------------
refuse 3 "directory '$T/missing' does not exist" run empty -o "$T/missing/x.json"
: >"$T/exists.json"
refuse 2 "'$T/exists.json' exists" run empty -o "$T/exists.json"
mkdir "$T/ro"
chmod 555 "$T/ro"
if [ "$(id -u)" = 0 ]; then
	# root writes through mode bits: a read-only bind mount, if we may
	mkdir -p "$T/robind"
	if mount --bind "$T/ro" "$T/robind" 2>/dev/null && mount -o remount,bind,ro "$T/robind" 2>/dev/null; then
		refuse 3 "directory '$T/robind' is not writable" run empty -o "$T/robind/x.json"
		umount "$T/robind"
	else
		umount "$T/robind" 2>/dev/null
		skip "read-only directory: root and no bind mount allowed"
	fi
else
	refuse 3 "directory '$T/ro' is not writable" run empty -o "$T/ro/x.json"
fi

# Full disk: a 64 KiB tmpfs, filled; the report cannot be written -> exit 1
# (runtime failure), a message that says so, no half-written file.
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null; then
	MNT="$T/full"
	dd if=/dev/zero of="$T/full/fill" bs=4k count=64 2>/dev/null
	"$A" run empty "${FAST[@]}" -o "$T/full/r.json" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "No space left on device" "$T/err" && [ ! -e "$T/full/r.json" ] &&
	   [ -z "$(ls -A "$T/full" | grep -v '^fill$')" ]; then
		ok
	else
		bad "ENOSPC: exit $rc, files: $(ls -A "$T/full" | tr '\n' ' '), stderr: $(head -c 300 "$T/err")"
	fi
	umount "$T/full" && MNT=""
else
	skip "ENOSPC: cannot mount a tmpfs here (not root, or no permission)"
fi

# stdout on a full device: what did not reach it is a failure, exit 1
# with the reason, for text and for JSON.
if [ -w /dev/full ]; then
	for cmd in "config --schema" "topo --json" "list --json" "list"; do
		# shellcheck disable=SC2086
		"$A" $cmd >/dev/full 2>"$T/err"
		rc=$?
		[ "$rc" = 1 ] && grep -q "writing standard output: No space left" "$T/err" && ok ||
			bad "atomcost $cmd >/dev/full: exit $rc, stderr: $(head -c 300 "$T/err")"
	done
else
	skip "stdout to /dev/full: no /dev/full here"
fi

# Not root: everything single-threaded works as nobody.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	mkdir "$T/nobody" && chown nobody "$T/nobody"
	if setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$A" run empty "${FAST[@]}" -o "$T/nobody/r.json" >/dev/null 2>"$T/err" &&
	   [ -s "$T/nobody/r.json" ]; then
		ok
	else
		bad "as nobody: run failed: $(head -c 300 "$T/err")"
	fi
	# nobody cannot write where root can: the up-front check says so
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$A" run empty -o "$T/ro/x.json" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] && grep -q "is not writable" "$T/err" && ok ||
		bad "as nobody, read-only dir: exit $rc: $(head -c 300 "$T/err")"
else
	skip "not-root test: not root or no setpriv"
fi

# ---- topo, calibrate, list -------------------------------------------------
refuse 2 "bad synthetic description 'nonsense:3'" topo --synthetic nonsense:3
refuse 2 "exclude each other" topo --synthetic 'pack:1 pu:2' --xml "$T/x.xml"
refuse 3 "cannot read XML file '$T/none.xml'" topo --xml "$T/none.xml"
echo 'not xml' >"$T/bad.xml"
refuse 2 "is not an hwloc XML topology" topo --xml "$T/bad.xml"
refuse 2 "unexpected argument 'extra'" topo extra
refuse 2 "unexpected argument 'extra'" calibrate extra
refuse 2 "unexpected argument 'extra'" list extra

# ---- commands that read reports (when present) --------------------------------
printf '{"schema": "atomcost-report/1", "calibration": ' >"$T/trunc.json"
echo '{"schema": "other/1"}' >"$T/other.json"
head -c 4096 /dev/urandom >"$T/garbage.json"
: >"$T/empty.json"
for c in "compare 2" "report 1"; do
	set -- $c
	c=$1 n=$2
	echo "$commands" | grep -qx "$c" || continue
	files() { local i; for i in $(seq "$n"); do echo "$1"; done; }
	refuse 3 "$T/none.json" $c $(files "$T/none.json")
	refuse 2 "trunc.json.*not valid JSON" $c $(files "$T/trunc.json")
	refuse 2 "garbage.json.*not valid JSON" $c $(files "$T/garbage.json")
	refuse 2 "empty.json.*not valid JSON" $c $(files "$T/empty.json")
	refuse 2 "not an atomcost report" $c $(files "$T/other.json")
	refuse 2 "$c: " $c
	# report takes one file; compare takes two, or three and more side by side
	if [ "$c" = report ]; then
		refuse 2 "$c: " $c $(files "$T/none.json") extra.json
	else
		refuse 3 "$T/none.json" $c $(files "$T/none.json") extra.json
	fi
	refuse 2 "$T: is a directory" $c $(files "$T")
done

echo "cli: $passes passed, $fails failed, $skips skipped"
[ "$fails" = 0 ]
