#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fleet/run.sh SRCDIR ATOMCOST [NODES] - the `fleet` suite: every
# command block of docs/fleet.md, read from the page by its
# `<!-- fleet-test: NAME -->` mark, run for real on this machine:
#  - Slurm: munge, slurmctld and slurmd started here with a generated
#    slurm.conf (this host, its CPUs from `slurmd -C`, the loopback address,
#    task/affinity binding, all state in a temporary directory), then the
#    page's salloc/srun blocks over NODES nodes (1: the one this test has);
#  - Ansible: an inventory of two names that reach this machine through the
#    local connection, each with its own atomcost_dir and host name, then
#    the page's ad-hoc run and fetch;
#  - the page's collect, compare (side by side) and fleet compare blocks
#    over the summaries both brought.
# The blocks are adapted only through what they leave open: HOME, --nodes=16,
# ANSIBLE_INVENTORY, ATOMCOST_ARGS/atomcost_args (configs/quick.conf: a few
# seconds instead of the default characterization's minute) and PATH.
# Everything started is stopped on exit, failure or interruption.
# Exit 0 pass, 1 fail, 77 skip (names the Debian package that is missing).
set -u
SRC=$(realpath "${1:?usage: run.sh SRCDIR ATOMCOST [NODES]}")
A=$(realpath "${2:?usage: run.sh SRCDIR ATOMCOST [NODES]}")
NODES=${3:-1}
[ -x "$A" ] || { echo "FAIL: no atomcost executable at $A"; exit 1; }
DOC=$SRC/docs/fleet.md

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
		scancel --full --quiet --partition=fleet 2>/dev/null
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
MARKS="slurm-mask slurm-run ansible-run ansible-fetch collect compare types fleet"
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
an unknown mark|s/fleet-test: collect -->/fleet-test: gather -->/
a mark apart from its block|/^<!-- fleet-test: compare -->$/s/$/\ntext/
two blocks under one mark|/^<!-- fleet-test: slurm-run -->$/{n;s/$/\n```\n```sh/}
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
ln -s "$A" "$T/bin/atomcost" && ln -s "$SRC/reports" "$W/reports" || exit 1
export PATH=$T/bin:$PATH
export ATOMCOST_ARGS=$SRC/configs/quick.conf

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
run_block slurm-run
for f in "$HOME/atomcost-fleet/$HOSTNAME_S".{json,txt,summary.json}; do
	[ -s "$f" ] || fail "slurm-run wrote no $f"
done
# atomcost had the node's every CPU (a narrowed mask: ", 1 allowed (0)")
grep '^# topology:' "$HOME/atomcost-fleet/$HOSTNAME_S.txt" | grep -q ' allowed (' &&
	fail "slurm-run: atomcost ran on part of the node: $(grep '^# topology:' "$HOME/atomcost-fleet/$HOSTNAME_S.txt")"

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
[fleet]
a atomcost_dir=$T/host-a ansible_shell_executable=$T/bin/sh-a
b atomcost_dir=$T/host-b ansible_shell_executable=$T/bin/sh-b
[fleet:vars]
ansible_connection=local
atomcost_args=$ATOMCOST_ARGS
EOF
run_block ansible-run
run_block ansible-fetch
for h in a b; do
	[ -s "$T/host-$h/atomcost.txt" ] || fail "ansible-run: host $h wrote no $T/host-$h/atomcost.txt"
	cmp -s "$T/host-$h/atomcost.summary.json" "$W/fleet/$h.summary.json" ||
		fail "ansible-fetch: $W/fleet/$h.summary.json is not host $h's summary"
done

run_block collect
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
grep -q '^group,.*,g1,3,' "$W/fleet.csv" && grep -q '^row,' "$W/fleet.csv" ||
	fail "fleet: fleet.csv lacks its group of 3 machines or its rows: $(head -c 300 "$W/fleet.csv")"
echo "PASS: Slurm ($NODES node) and Ansible (2 hosts) ran docs/fleet.md's commands; compare read their 3 summaries, side by side and as a fleet"
