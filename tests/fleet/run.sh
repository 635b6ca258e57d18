#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fleet/run.sh SRCDIR ATOMCOST [NODES] - the `fleet` suite: every
# command block of docs/fleet.md, read from the page by its
# `<!-- fleet-test: NAME -->` mark, run for real on this machine, in a
# network namespace of its own with only the loopback interface (as root:
# `unshare -n`; elsewhere in the host's, said so):
#  - Slurm: munge, slurmctld and slurmd started here with a generated
#    slurm.conf (this host, its CPUs from `slurmd -C`, bound to 127.0.0.1,
#    task/affinity binding, a partition "batch", all state in a temporary
#    directory), then the page's salloc/srun check and its job array
#    (configs/fleet/atomcost-array.sbatch, 3 tasks on the one node) and
#    gather (configs/fleet/atomcost-gather.sh);
#  - Ansible: the page's ansible-playbook (configs/fleet/atomcost.yml) over
#    an inventory of two names in two groups that reach this machine
#    through the local connection, each with its own atomcost_dir and host
#    name;
#  - the page's compare (side by side) and fleet compare blocks over the
#    summaries both brought, and a fleet of 40 generated from the gathered
#    one (tests/fleet/gen-fleet.py) in which the fleet compare judges its
#    rows and names a planted outlier and a planted group.
# The blocks are adapted only through what they leave open: HOME,
# --nodes=16 and --array=1-16 (the node count; 3 tasks), ANSIBLE_INVENTORY,
# ATOMCOST_ARGS/atomcost_args (configs/quick.conf: a few seconds instead of
# the default characterization's minute), ATOMCOST_SPOOL and PATH.
# Everything started is stopped on exit, failure or interruption.
# Exit 0 pass, 1 fail, 77 skip (names the Debian package that is missing).
set -u
SRC=$(realpath "${1:?usage: run.sh SRCDIR ATOMCOST [NODES]}")
A=$(realpath "${2:?usage: run.sh SRCDIR ATOMCOST [NODES]}")
NODES=${3:-1}
[ -x "$A" ] || { echo "FAIL: no atomcost executable at $A"; exit 1; }
DOC=$SRC/docs/fleet.md

# Loopback only: the suite again in a network namespace of its own. There
# glibc's getaddrinfo (AI_ADDRCONFIG, as Slurm asks) finds no IPv4 address
# but the loopback's and resolves nothing; a /32 of TEST-NET-1 (192.0.2.1,
# never routed) on lo makes it resolve, and the daemons still bind to
# 127.0.0.1. The namespace has no other interface: nothing leaves it.
if [ -z "${ATOMCOST_FLEET_NETNS:-}" ]; then
	if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null && command -v ip >/dev/null; then
		ATOMCOST_FLEET_NETNS=1 exec unshare -n -- "$BASH" "$0" "$@"
	fi
	echo "note: not root or no unshare -n here: the suite runs in this host's network (daemons on 127.0.0.1)"
elif [ "$ATOMCOST_FLEET_NETNS" = 1 ]; then
	ip link set lo up && ip addr add 192.0.2.1/32 dev lo || { echo "FAIL: loopback in the namespace"; exit 1; }
	[ "$(ip -o link | grep -vc ': lo: ')" = 0 ] || { echo "FAIL: the namespace has more than lo"; exit 1; }
	echo "network: a namespace of its own, only lo ($(ip -o -4 addr show dev lo | awk '{ print $4 }' | xargs))"
fi

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
for p in slurmctld:slurmctld slurmd:slurmd salloc:slurm-client srun:slurm-client \
	 munged:munge munge:munge ansible:ansible-core; do
	PATH=$PATH:/usr/sbin:/sbin command -v "${p%%:*}" >/dev/null ||
		skip "no ${p%%:*}: apt-get install ${p#*:} (bootstrap installs slurm-wlm munge ansible-core)"
done
PATH=$PATH:/usr/sbin:/sbin

T=$(mktemp -d /tmp/atomcost-fleet.XXXXXX) || exit 1
chmod 755 "$T"		# munged wants its socket's directory open to all
PIDS=() BLOCK=
cleanup() {
	trap - EXIT INT TERM
	# the block running now: timeout passes the signal to its process group
	[ -n "$BLOCK" ] && kill "$BLOCK" 2>/dev/null && wait "$BLOCK" 2>/dev/null
	if [ -n "${SLURM_CONF:-}" ]; then
		scancel --full --quiet --partition=batch 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 1
		done
	fi
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do	# slurmd, slurmctld, then munged
		kill "${PIDS[i]}" 2>/dev/null && wait "${PIDS[i]}" 2>/dev/null
	done
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT
trap 'echo "terminated"; exit 143' TERM

# doc_block NAME FILE: the ```sh block right after the mark `fleet-test: NAME`.
doc_block() {
	awk -v mark="<!-- fleet-test: $1 -->" '
		$0 == mark { at = 1; next }
		at == 1 { if ($0 != "```sh") exit 1; at = 2; next }
		at == 2 && $0 == "```" { exit 0 }
		at == 2 { print }
		at == 1 && $0 != "" { exit 1 }' "$2"
}

# run_block NAME: the block, --nodes=16 replaced by NODES, run by sh -e in
# the work directory (in the background, so that a signal reaches the
# traps at once), its output shown and kept in $T/NAME.out.
run_block() {
	local text rc t0=$SECONDS
	text=$(doc_block "$1" "$DOC") && [ -n "$text" ] || fail "docs/fleet.md: no \`\`\`sh block after <!-- fleet-test: $1 -->"
	text=${text//--nodes=16/--nodes=$NODES}
	text=${text//--array=1-16/--array=1-3}
	printf '== %s (docs/fleet.md)\n%s\n--\n' "$1" "$text"
	(cd "$W" && exec timeout 300 sh -ec "$text") >"$T/$1.out" 2>&1 &
	BLOCK=$!
	wait $BLOCK
	rc=$?
	BLOCK=
	cat "$T/$1.out"
	echo "-- $1: exit $rc after $((SECONDS - t0)) s"
	[ $rc = 0 ] || fail "block $1 exited $rc"
}

# doc_check FILE: every block of commands (```sh; ```bash, ```shell,
# ```console or a bare ``` are refused: write commands as ```sh) is marked,
# right above it, and the marks are those run below, in this order; blocks
# of output (```text, ```json, ...) are not run. Says what is wrong.
MARKS="slurm-mask slurm-array ansible-playbook compare types fleet"
NMARKS=$(wc -w <<<"$MARKS")
doc_check() {
	local info sh marks m
	info=$(awk '/^```/ { if (!open) print substr($0, 4) "."; open = !open }' "$1")
	sh=$(grep -cx 'sh\.' <<<"$info")
	marks=$(sed -n 's/^<!-- fleet-test: \([a-z-]*\) -->$/\1/p' "$1" | xargs)
	if grep -Eqx '(bash|shell|console)?\.' <<<"$info"; then
		echo "$1: a block of commands that is not \`\`\`sh (the suite runs every \`\`\`sh block)"
	elif [ "$marks" != "$MARKS" ]; then
		echo "$1: marks '$marks', the suite runs '$MARKS'"
	elif [ "$sh" != "$NMARKS" ]; then
		echo "$1: $sh sh blocks, $NMARKS marks: mark each (<!-- fleet-test: NAME -->)"
	else
		for m in $MARKS; do
			doc_block "$m" "$1" >/dev/null || { echo "$1: no \`\`\`sh block right after the mark $m"; return 1; }
		done
		return 0
	fi
	return 1
}

doc_check "$DOC" || fail "docs/fleet.md's blocks and marks (above)"
# The check finds a fault planted in a copy of the page.
while IFS='|' read -r what expr; do
	sed "$expr" "$DOC" >"$T/planted.md"
	doc_check "$T/planted.md" >/dev/null && fail "doc_check missed a planted fault: $what ($expr)"
done <<'PLANTS'
an unmarked block|/^<!-- fleet-test: types -->$/d
a block of commands in bash|0,/^```sh$/s//```bash/
a bare block|0,/^```sh$/s//```/
an unmarked block at the end|$s/$/\n```sh\nexit 0\n```/
an unknown mark|s/fleet-test: compare -->/fleet-test: gather -->/
a mark apart from its block|/^<!-- fleet-test: compare -->$/s/$/\ntext/
two blocks under one mark|/^<!-- fleet-test: slurm-array -->$/{n;s/$/\n```\n```sh/}
PLANTS
sed '$s/$/\n```text\noutput, not run\n```/' "$DOC" >"$T/planted.md"
doc_check "$T/planted.md" || fail "doc_check refused a block of output (\`\`\`text)"

# The environment the blocks see: none of the caller's Slurm or Ansible
# settings (a CI job inside a Slurm allocation, /etc/ansible/ansible.cfg).
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN|ANSIBLE)_'); do
	unset "$v"
done
W=$T/work
export HOME=$T/home
mkdir -p "$W" "$HOME" "$T/bin" "$T/munge" "$T/key" "$T/state" "$T/spool" "$T/log" || exit 1
ln -s "$A" "$T/bin/atomcost" && ln -s "$SRC/reports" "$W/reports" && ln -s "$SRC/configs" "$W/configs" || exit 1
export PATH=$T/bin:$PATH
export ATOMCOST_ARGS=$SRC/configs/quick.conf ATOMCOST_SPOOL=$T/node-spool

. "$SRC/tests/fleet/slurm.sh"
slurm_start || fail "Slurm did not start (logs above)"

run_block slurm-mask
cpus=$(slurmd -C | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
[ "$(grep -xc "$cpus" "$T/slurm-mask.out")" = "$NODES" ] ||
	fail "slurm-mask: expected $NODES lines '$cpus' (every CPU of the node), got: $(xargs <"$T/slurm-mask.out")"
# The check can fail: the step that the page warns of gets one CPU here.
if [ "$cpus" -gt 1 ]; then
	one=$(srun --nodes="$NODES" --ntasks-per-node=1 --exclusive --cpu-bind=none nproc 2>/dev/null | sort -u)
	[ "$one" = 1 ] || fail "srun --exclusive --cpu-bind=none gave $one CPUs, not 1: this Slurm does not bind as docs/fleet.md says"
fi
# The page's batch form: #SBATCH --exclusive in salloc's place, the same srun.
timeout 120 sbatch --wait --quiet --output="$T/sbatch.out" --nodes="$NODES" --exclusive \
	--wrap 'srun --whole --ntasks-per-node=1 --cpu-bind=none nproc' ||
	fail "sbatch --wait --exclusive with srun --whole failed: $(cat "$T/sbatch.out" 2>/dev/null)"
[ "$(grep -xc "$cpus" "$T/sbatch.out")" = "$NODES" ] ||
	fail "sbatch --exclusive, srun --whole: expected $NODES lines '$cpus', got: $(xargs <"$T/sbatch.out")"
run_block slurm-array
for i in 1 2 3; do
	[ -s "$W/$HOSTNAME_S-$i.out" ] || fail "slurm-array: no output $HOSTNAME_S-$i.out (%N-%a) for task $i"
done
[ "$(cat "$W/$HOSTNAME_S"-[123].out | grep -c "^atomcost-array: $HOSTNAME_S: ")" = 1 ] &&
	[ "$(cat "$W/$HOSTNAME_S"-[123].out | grep -c "^atomcost-array: $HOSTNAME_S was measured by an earlier task")" = 2 ] ||
	fail "slurm-array: want one task measuring $HOSTNAME_S and two saying it was measured: $(cat "$W/$HOSTNAME_S"-[123].out)"
sum=$W/fleet/$HOSTNAME_S.summary.json
[ -s "$sum" ] || fail "slurm-array: the gather brought no $sum"
cmp -s "$sum" "$ATOMCOST_SPOOL"/*/"$HOSTNAME_S.summary.json" || fail "slurm-array: the gathered summary is not the node's"
# atomcost had the node's every CPU (a narrowed mask: ", 1 allowed (0)")
grep '^# topology:' "$ATOMCOST_SPOOL"/*/"$HOSTNAME_S.txt" | grep -q ' allowed (' &&
	fail "slurm-array: atomcost ran on part of the node: $(grep '^# topology:' "$ATOMCOST_SPOOL"/*/"$HOSTNAME_S.txt")"
# The page's --nodelist form: one job for the node, in a run of its own
# name; and a gather of a run the node does not have fails, naming it.
ATOMCOST_RUN=by-name timeout 120 sbatch --wait --quiet --nodelist="$HOSTNAME_S" --output="$T/by-name.out" \
	"$SRC/configs/fleet/atomcost-array.sbatch" || fail "sbatch --nodelist with ATOMCOST_RUN: $(cat "$T/by-name.out")"
"$SRC/configs/fleet/atomcost-gather.sh" by-name "$HOSTNAME_S" "$T/by-name" &&
	[ -s "$T/by-name/$HOSTNAME_S.summary.json" ] || fail "gather of the run by-name brought nothing"
"$SRC/configs/fleet/atomcost-gather.sh" no-such-run "$HOSTNAME_S" "$T/none" 2>"$T/none.err" &&
	fail "gather of a run the node lacks exited 0"
grep -q "atomcost-gather: $HOSTNAME_S: no summary" "$T/none.err" || fail "gather: no node named: $(cat "$T/none.err")"
[ -z "$(ls "$T/none")" ] || fail "gather of a run the node lacks left files: $(ls "$T/none")"
# the node's partition and features, as scontrol had them at run time
python3 - "$sum" <<'PY' || fail "slurm-array: the summary lacks the node's partition and features"
import json, sys
l = json.load(open(sys.argv[1]))["fingerprint"]["labels"]
sys.exit(not (l.get("partition") == "batch" and l.get("features") == "atomcost-test"))
PY

# Ansible: two inventory names, one machine.
: >"$T/ansible.cfg"
export ANSIBLE_CONFIG=$T/ansible.cfg ANSIBLE_INVENTORY=$T/hosts.ini
export ANSIBLE_LOCAL_TEMP=$T/ansible-tmp ANSIBLE_REMOTE_TEMP=$T/ansible-tmp
ANSIBLE_PYTHON_INTERPRETER=$(command -v python3)
export ANSIBLE_NOCOLOR=1 ANSIBLE_PYTHON_INTERPRETER
# Each name is a host of its own name (gethostname, the fingerprint's
# host): its shell runs in a UTS namespace of its own (a user namespace
# too where the test is not root), through the inventory's
# ansible_shell_executable, so the two do not read as one host twice.
userns=
[ "$(id -u)" = 0 ] || userns=--map-root-user
for h in a b; do
	mkdir -p "$T/host-$h" || exit 1
	printf '#!/bin/sh\nexec unshare --uts %s /bin/sh -c '\''hostname %s && exec /bin/sh "$@"'\'' sh "$@"\n' \
		"$userns" "fleet-$h" >"$T/bin/sh-$h" && chmod +x "$T/bin/sh-$h" || exit 1
	"$T/bin/sh-$h" -c 'test "$(hostname)" = fleet-'$h ||
		fail "unshare --uts $userns: no host name of its own for $h (the kernel's namespaces?)"
done
cat >"$ANSIBLE_INVENTORY" <<EOF
[web]
a atomcost_dir=$T/host-a ansible_shell_executable=$T/bin/sh-a
[db]
b atomcost_dir=$T/host-b ansible_shell_executable=$T/bin/sh-b
[fleet:children]
web
db
[fleet:vars]
ansible_connection=local
atomcost_args=$ATOMCOST_ARGS
EOF
run_block ansible-playbook
for h in a b; do
	[ -s "$T/host-$h/atomcost.txt" ] || fail "ansible-playbook: host $h wrote no $T/host-$h/atomcost.txt"
	cmp -s "$T/host-$h/atomcost.summary.json" "$W/fleet/$h.summary.json" ||
		fail "ansible-playbook: $W/fleet/$h.summary.json is not host $h's summary"
done
python3 - "$W/fleet" <<'PY' || fail "ansible-playbook: the summaries do not carry their inventory group (web, db)"
import json, sys
g = [json.load(open("%s/%s.summary.json" % (sys.argv[1], h)))["fingerprint"]["labels"].get("group") for h in "ab"]
sys.exit(g != ["web", "db"])
PY

run_block compare
summary=$(grep '^summary: ' "$T/compare.out" | xargs)
echo "$summary" | grep -q '^summary: [0-9]* rows, 4 machines: .*summary: [0-9]* rows, 2 machines: ' ||
	fail "compare: expected 4 machines (the reference, $HOSTNAME_S, a, b), then 2 (a, b): $summary"
for c in "$HOSTNAME_S" a b; do
	grep -Eq "^# \[[0-9]\] $c +fleet/$c.summary.json" "$T/compare.out" ||
		fail "compare: no column $c read from fleet/$c.summary.json"
done
grep -q '</html>' "$W/fleet.html" || fail "compare: fleet.html is no whole HTML page"
run_block types
[ "$(awk '{ n += $1 } END { print n }' "$T/types.out")" = 3 ] || fail "types: the counts do not add up to 3 summaries"
run_block fleet
grep -q '^# atomcost compare: a fleet of 3 machines, .*(0 of 3 files skipped' "$T/fleet.out" ||
	fail "fleet: expected a fleet of 3 machines, none skipped: $(head -n 1 "$T/fleet.out")"
grep -q '^group,,,,,group web,1,' "$W/fleet.csv" && grep -q '^group,,,,,partition batch,1,' "$W/fleet.csv" &&
	grep -q '^row,' "$W/fleet.csv" ||
	fail "fleet: fleet.csv lacks the inventory group, the partition or its rows: $(head -c 400 "$W/fleet.csv")"

# A fleet that is judged: 40 machines made from the summary the array
# gathered (quick.conf: a few rows), 2 cells planted and a group moved.
mkdir -p "$T/many" || exit 1
python3 "$SRC/tests/fleet/gen-fleet.py" --group-every 4 --cells 2 "$sum" "$T/many" 40 "$T/planted.tsv" ||
	fail "gen-fleet.py from $sum"
rm -f "$T"/many/zz-*
atomcost compare --fleet --fail-on any "$T"/many/*.json >"$T/many.out" 2>&1
rc=$?
sed -n '/^## groups that moved/,/^## rows/p' "$T/many.out"
[ $rc = 1 ] || fail "fleet of 40: --fail-on any exited $rc with a planted outlier and group, want 1"
while IFS=$'\t' read -r kind what row; do
	if [ "$kind" = cell ]; then
		grep -q "^  $what: $row: " "$T/many.out" || fail "fleet of 40: planted $what $row not named"
	else
		grep -q "^  $what: 10 machines, $row [+]" "$T/many.out" || fail "fleet of 40: planted group $what $row not one line"
	fi
done <"$T/planted.tsv"
[ "$(grep -c '^  host-[0-9]*: ' "$T/many.out")" = 2 ] && [ "$(grep -c '^  .*: [0-9]* machines, ' "$T/many.out")" = 1 ] ||
	fail "fleet of 40: more named than planted (2 cells, 1 group)"
echo "PASS: Slurm ($NODES node: salloc, a 3-task array, the gather) and Ansible (a playbook, 2 hosts in 2 groups) ran docs/fleet.md's commands; compare read their 3 summaries, side by side and as a fleet; a fleet of 40 made from them named its planted outlier and group"
