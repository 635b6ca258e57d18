# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# tests/fleet/slurm.sh - sourced by run.sh: slurm_start starts munged,
# slurmctld and slurmd for this host alone, everything under $T (key,
# socket, state, spool, logs, pids), on two free loopback ports, bound to
# 127.0.0.1 alone (CommunicationParameters=NoInAddrAny,NoCtldInAddrAny: the
# daemons and srun bind the address of their host, not 0.0.0.0), a
# partition "batch" with the node's feature "atomcost-test", as the
# user who runs the test (no root: slurmd launches that user's tasks only;
# run as root and as nobody). Their pids go to PIDS (run.sh's cleanup stops
# them); SLURM_CONF is exported for salloc, srun, squeue and scancel.
# Shows the daemons' logs on failure.

# Two TCP ports free on the loopback address now (held together while
# chosen, so they differ).
free_ports() {
	python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))'
}

slurm_conf() {
	local node ports
	node=$(slurmd -C | head -n 1 | sed 's/ UpTime=[^ ]*//') || return 1
	read -r -a ports <<<"$(free_ports)" && [ ${#ports[@]} = 2 ] || return 1
	cat <<CONF
ClusterName=atomcost-fleet
SlurmctldHost=$HOSTNAME_S(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
$node NodeAddr=127.0.0.1 Features=atomcost-test State=UNKNOWN
PartitionName=batch Nodes=$HOSTNAME_S Default=YES MaxTime=INFINITE State=UP
CONF
}

slurm_logs() {
	tail -n 20 "$T"/log/*
}

slurm_start() {
	HOSTNAME_S=$(hostname -s)
	head -c 1024 /dev/urandom >"$T/key/munge.key" && chmod 700 "$T/key" && chmod 400 "$T/key/munge.key" || return 1
	munged -F --socket="$T/munge/munge.socket" --key-file="$T/key/munge.key" \
		--pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" \
		--log-file="$T/log/munged.log" >"$T/log/munged.out" 2>&1 &
	PIDS+=($!)
	slurm_conf >"$T/slurm.conf" || return 1
	export SLURM_CONF=$T/slurm.conf
	for _ in $(seq 30); do
		munge -S "$T/munge/munge.socket" -n 2>/dev/null | unmunge -S "$T/munge/munge.socket" >/dev/null 2>&1 && break
		sleep 1
	done
	slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
	PIDS+=($!)
	slurmd -D -f "$SLURM_CONF" -N "$HOSTNAME_S" >"$T/log/slurmd.out" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 60); do
		for p in "${PIDS[@]}"; do
			kill -0 "$p" 2>/dev/null || { slurm_logs; return 1; }	# a daemon exited
		done
		if [ "$(sinfo -h -n "$HOSTNAME_S" -o %t 2>/dev/null)" = idle ]; then
			echo "Slurm up: $(grep -m1 -o 'slurmctld version [^ ]*' "$T/log/slurmctld.out"), node $(sinfo -h -o '%N %c CPUs %t')"
			return 0
		fi
		sleep 1
	done
	slurm_logs
	return 1
}
