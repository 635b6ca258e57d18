#!/bin/sh
# SPDX-License-Identifier: MIT
# atomcost-gather.sh RUN NODES DEST - bring the summaries that
# atomcost-array.sbatch's run RUN (its array's job id, or the ATOMCOST_RUN
# it was given) left in each node's spool to DEST on this
# host, through Slurm itself (no shared file system): one step per node
# (srun -w NODE cat), its output the file DEST/NODE.summary.json; a node
# without a summary is named and left out. NODES: a Slurm host list
# (n[001-016]), e.g. `sinfo -h -N -p batch -o %N | paste -sd,`.
# ATOMCOST_SPOOL as for the array; ATOMCOST_GATHER_PARALLEL steps at once
# (8). Exit 0 when every node gave its summary, 1 otherwise.
set -u
job=${1:?usage: atomcost-gather.sh RUN NODES DEST}
nodes=${2:?usage: atomcost-gather.sh RUN NODES DEST}
dest=${3:?usage: atomcost-gather.sh RUN NODES DEST}
spool=${ATOMCOST_SPOOL:-/var/tmp/atomcost-fleet}/$job
mkdir -p "$dest" || exit 1
scontrol show hostnames "$nodes" | xargs -P "${ATOMCOST_GATHER_PARALLEL:-8}" -I{} sh -c '
	f="$2/$1.summary.json"
	if srun --quiet -w "$1" -N 1 -n 1 cat "$3/$1.summary.json" >"$f.part" 2>"$f.err" && [ -s "$f.part" ]; then
		mv "$f.part" "$f" && rm -f "$f.err"
	else
		echo "atomcost-gather: $1: no summary in $3: $(head -c 300 "$f.err")" >&2
		rm -f "$f.part" "$f.err"
		exit 1
	fi' sh {} "$dest" "$spool"
