# A Slurm cluster on the namespace hosts of tests/netns/cluster.sh, for
# the tests of mpibex inside a real allocation (sourced after tests/lib.sh
# and tests/netns/lib_netns.sh, whose mbx_netns_begin it calls).
#
# Layout (N compute nodes, default 2, and a login node: cluster.sh up N+1):
#   mbxh1..mbxhN  compute nodes: one slurmd each (slurmd -N mbxhI, its own
#                 spool directory, pid and log file; the same port 6818 in
#                 each host's own network namespace)
#   mbxhN+1       the login node (mbxh3 with two compute nodes, mbxh6 with
#                 five): slurmctld, and the user's shell (salloc, srun,
#                 sbatch, mpibex). The machine's own namespace has no
#                 route to 198.18.0.0/24 and its host name is unknown to
#                 the compute nodes, so the "login shell" is a namespace
#                 host as well: every address used is one cluster.sh made.
# One munged in the machine's namespace, with its own key and socket under
# $work (a Unix socket by path reaches every network namespace), named in
# slurm.conf by AuthInfo=socket=.... Clients find the cluster by
# SLURM_CONF=$work/slurm.conf, so the machine's /etc/slurm is not used.
#
# Everything runs as root (SlurmUser=root); no cgroups are used
# (proctrack/linuxproc, task/affinity), so nothing of the machine's
# cgroup tree is touched. MpiDefault=pmi2: srun serves the PMI-1 wire
# protocol that MPICH's libmpi speaks (Slurm's mpi/pmi2 plugin answers
# both PMI-1 and PMI-2 clients on PMI_FD).
#
# mbx_slurm_begin NAME [NODES]: NODES compute nodes (2, the default, to 7:
# cluster.sh makes at most 8 hosts) in $MBX_SLURM_NODES, the login node
# in $MBX_SLURM_LOGIN; mbx_netns_begin (exit 77 with the reason where
# namespaces cannot be made), then exit 77 where the Slurm or munge
# daemons are not installed; sets $slurm_conf.
# mbx_slurm_up: hosts, munged, slurmctld, a slurmd on each compute node;
# waits until sinfo shows them all idle (fails with the daemons' logs
# otherwise).
# mbx_slurm_down: every job cancelled, the daemons and the hosts gone.
# mbx_slurm_login CMD...: CMD on the login node, with the cluster's
# client environment.

MBX_SLURM_NODES="mbxh1 mbxh2"
MBX_SLURM_LOGIN=mbxh3

mbx_slurm_begin() {
    local name=$1 nodes=${2:-2} tool i
    case "$nodes" in '' | *[!0-9]*) nodes=0 ;; esac
    if [ "$nodes" -lt 2 ] || [ "$nodes" -gt 7 ]; then
        echo "FAIL: mbx_slurm_begin: NODES must be 2..7 (cluster.sh makes at most 8 hosts), not '${2:-}'"
        exit 1
    fi
    MBX_SLURM_NODES=mbxh1
    for ((i = 2; i <= nodes; i++)); do MBX_SLURM_NODES="$MBX_SLURM_NODES mbxh$i"; done
    MBX_SLURM_LOGIN=mbxh$((nodes + 1))
    if [ "${MBX_TEST_MPI:-mpich}" != mpich ]; then
        echo "SKIP: these tests start MPICH ranks with srun --mpi=pmi2; this build's MPI is $MBX_TEST_MPI"
        exit 77
    fi
    for tool in slurmctld slurmd slurmstepd munged srun salloc sbatch squeue scancel sinfo; do
        if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
            echo "SKIP: $tool is not installed (scripts/deps.sh installs slurm-wlm and munge)"
            exit 77
        fi
    done
    mbx_netns_begin "$name" 120
    slurm_conf=$work/slurm.conf
}

# The user's environment on the login node: a clean one, the cluster's
# config, and UCX on the link as the other netns tests set it.
mbx_slurm_env() {
    echo "HOME=$work PATH=/usr/sbin:$PATH LANG=C.UTF-8 LC_ALL=C.UTF-8 SLURM_CONF=$slurm_conf" \
        "UCX_TLS=tcp,self UCX_NET_DEVICES=eth0"
}

mbx_slurm_login() {
    # shellcheck disable=SC2046 # the words of mbx_slurm_env are NAME=VALUE without blanks
    "$cluster" exec "$MBX_SLURM_LOGIN" env -i $(mbx_slurm_env) "$@" 9>&-
}

mbx_slurm_config() {
    local n
    mkdir -p "$work/ctld" "$work/spool"
    {
        echo "# mbx-slurm: written by tests/slurm/lib_slurm.sh for one test"
        echo "ClusterName=mbx"
        echo "SlurmctldHost=$MBX_SLURM_LOGIN(198.18.0.${MBX_SLURM_LOGIN#mbxh})"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$work/munge/munge.socket"
        echo "MpiDefault=pmi2"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/affinity"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU"
        echo "SchedulerType=sched/builtin"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/none"
        echo "SwitchType=switch/none"
        echo "StateSaveLocation=$work/ctld"
        echo "SlurmdSpoolDir=$work/spool/%n"
        echo "SlurmctldPidFile=$work/slurmctld.pid"
        echo "SlurmdPidFile=$work/slurmd-%n.pid"
        echo "SlurmctldLogFile=$work/slurmctld.log"
        echo "SlurmdLogFile=$work/slurmd-%n.log"
        echo "SlurmctldPort=6817"
        echo "SlurmdPort=6818"
        echo "ReturnToService=2"
        # Quick ends: a cancelled or timed-out step gets SIGTERM, then
        # SIGKILL 5 s later; a finished job leaves squeue at once.
        echo "KillWait=5"
        echo "OverTimeLimit=0"
        echo "MinJobAge=2"
        echo "InactiveLimit=0"
        echo "SlurmdTimeout=60"
        echo "MessageTimeout=10"
        echo "PropagateResourceLimits=NONE"
        # Every node is this machine's two cores. A job of one task a
        # node would have each task bound to core 0 of its node, the same
        # core, where two busy-polling ranks take turns by time slices
        # (milliseconds a message). With two nodes, mbxh2 keeps core 0 for
        # its system (CpuSpecList), so its one CPU for jobs is core 1:
        # mbxh1 offers 2 CPUs (cores 0, 1), mbxh2 1 (core 1), and such a
        # job has its ranks on different cores. With more nodes than cores
        # no placement keeps every pair apart: each node offers both cores,
        # and a job asks for them (salloc -c 2: each task bound to both,
        # the kernel moves the busy ones apart). --cpu-bind=none does not
        # do it: a step's tasks stay within its CPUs on the node, one a
        # task by default.
        local hw="Sockets=1 CoresPerSocket=2 ThreadsPerCore=1" spec count
        count=$(echo "$MBX_SLURM_NODES" | wc -w)
        for n in $MBX_SLURM_NODES; do
            spec=""
            [ "$count" -eq 2 ] && [ "$n" = mbxh2 ] && spec=" CpuSpecList=0"
            echo "NodeName=$n NodeAddr=198.18.0.${n#mbxh} CPUs=2 $hw$spec State=UNKNOWN"
        done
        echo "PartitionName=mbx Nodes=${MBX_SLURM_NODES// /,} Default=YES MaxTime=INFINITE State=UP"
    } >"$slurm_conf"
    for n in $MBX_SLURM_NODES; do mkdir -p "$work/spool/$n"; done
    # A namespace host has a fresh /sys without cgroup mounts (ip netns
    # exec), where slurmd's cgroup autodetection fails and stops it; no
    # plugin in use here needs cgroups, so name the version instead.
    echo "CgroupPlugin=cgroup/v1" >"$work/cgroup.conf"
}

# mbx_slurm_logs: the end of every daemon's log, for a failure.
mbx_slurm_logs() {
    local f
    for f in "$work"/munged.log "$work"/slurmctld.log "$work"/slurmd-*.log; do
        [ -f "$f" ] || continue
        echo "    --- ${f##*/}"
        tail -6 "$f" | sed 's/^/    | /'
    done
}

mbx_slurm_up() {
    local n i hosts=$((${MBX_SLURM_LOGIN#mbxh})) count
    count=$(echo "$MBX_SLURM_NODES" | wc -w)
    "$cluster" down
    if ! "$cluster" up "$hosts" >"$work/up.log" 2>&1; then
        echo "FAIL: cluster.sh up $hosts: $(tail -1 "$work/up.log")"
        exit 1
    fi
    mbx_slurm_config
    mkdir -p "$work/munge"
    chmod 755 "$work" "$work/munge" # munged wants its socket reachable by all
    dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$work/munge/munge.key"
    munged --socket="$work/munge/munge.socket" --key-file="$work/munge/munge.key" \
        --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
        --log-file="$work/munged.log" --force 9>&- ||
        { echo "SKIP: munged cannot start here: $(tail -1 "$work/munged.log" 2>/dev/null)"; exit 77; }
    "$cluster" exec "$MBX_SLURM_LOGIN" slurmctld -f "$slurm_conf" -i 9>&- ||
        { echo "FAIL: slurmctld did not start"; mbx_slurm_logs; exit 1; }
    for n in $MBX_SLURM_NODES; do
        "$cluster" exec "$n" slurmd -f "$slurm_conf" -N "$n" 9>&- ||
            { echo "FAIL: slurmd -N $n did not start"; mbx_slurm_logs; exit 1; }
    done
    for ((i = 0; i < 150; i++)); do
        [ "$(mbx_slurm_login sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')" -eq "$count" ] && return 0
        sleep 0.2
    done
    echo "FAIL: sinfo does not show $count idle nodes within 30 s: $(mbx_slurm_login sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ';')"
    mbx_slurm_logs
    exit 1
}

mbx_slurm_down() {
    local pid
    [ -S "$work/tmux.sock" ] && T kill-server 2>/dev/null
    if [ -n "${slurm_conf:-}" ] && [ -f "$slurm_conf" ]; then
        mbx_slurm_login scancel --full --quiet --user=root >/dev/null 2>&1
    fi
    "$cluster" down # ends slurmctld, the slurmd and every job step in the hosts
    if pid=$(cat "$work/munge/munged.pid" 2>/dev/null) && [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null
    fi
    rm -rf "$work"
}

# mbx_slurm_ranks: the mpibex processes on the compute nodes that are
# tasks of a step, "PID NODE SLURM_PROCID" lines.
mbx_slurm_ranks() {
    local n p r
    for n in $MBX_SLURM_NODES; do
        for p in $(ip netns pids "$n" 2>/dev/null); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = mpibex ] || continue
            r=$({ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | sed -n 's/^SLURM_PROCID=//p')
            [ -n "$r" ] && echo "$p $n $r"
        done
    done
}

# mbx_slurm_leftovers: processes on the compute nodes other than slurmd,
# "NODE PID COMM" lines.
mbx_slurm_leftovers() {
    local n p c
    for n in $MBX_SLURM_NODES; do
        for p in $(ip netns pids "$n" 2>/dev/null); do
            c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
            [ "$c" = slurmd ] || echo "$n $p $c"
        done
    done
}

# mbx_slurm_settled: waits up to 20 s until squeue lists no job.
mbx_slurm_settled() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ -z "$(mbx_slurm_login squeue -h 2>/dev/null)" ] && return 0
        sleep 0.2
    done
    return 1
}

# mbx_slurm_no_leftovers: PASS when no process but slurmd is left on a
# compute node within 10 s, else FAIL naming them.
mbx_slurm_no_leftovers() {
    local i left=""
    for ((i = 0; i < 50; i++)); do
        left=$(mbx_slurm_leftovers)
        [ -z "$left" ] && break
        sleep 0.2
    done
    if [ -z "$left" ]; then
        pass "no process left on $MBX_SLURM_NODES but slurmd"
    else
        fail "left on the compute nodes: $(echo "$left" | tr '\n' ';')"
    fi
}

# The user's terminal: a private tmux server ($work/tmux.sock, session
# main) whose shell runs on the login node in a clean environment with the
# prompt "PROMPT> ". T runs tmux on it (the lock stays with the script);
# screen prints the pane (what wait_for reads). mbx_slurm_down ends it.
T() { tmux -S "$work/tmux.sock" "$@" 9>&-; }
screen() { T capture-pane -p -t main 2>/dev/null; }
mbx_slurm_shell() {
    # shellcheck disable=SC2046
    T new-session -d -s main -x 100 -y 30 \
        "$cluster exec $MBX_SLURM_LOGIN env -i $(mbx_slurm_env) TERM=xterm-256color SHELL=/bin/bash PS1='PROMPT> ' bash --norc --noprofile"
    T send-keys -t main "cd $work && export PS1" Enter
    wait_for "^PROMPT>" 10 || { fail "no shell prompt in the tmux pane"; show_screen; exit 1; }
}

# mbx_slurm_sane: PASS when the terminal is back in cooked mode with echo.
mbx_slurm_sane() {
    T send-keys -t main "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
    if wait_for "^icanon echo" 5; then
        pass "terminal sane (icanon echo)"
    else
        fail "terminal modes: $(screen | grep -E "icanon" | tail -1)"
    fi
}

# mbx_slurm_job_gone JOBID SECONDS: waits until squeue no longer lists the
# job; returns 1 after SECONDS.
mbx_slurm_job_gone() {
    local i
    for ((i = 0; i < $2 * 2; i++)); do
        [ -z "$(mbx_slurm_login squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    return 1
}

# mbx_slurm_leave JOBID: `exit` in the shell of salloc (the tmux pane
# main), then salloc's "Relinquishing job allocation JOBID", squeue empty
# (its header only) and no process left on a compute node but slurmd.
mbx_slurm_leave() {
    local jobid=$1 after
    T send-keys -t main "exit" Enter
    wait_for "Relinquishing job allocation $jobid" 15 && pass "salloc: allocation $jobid relinquished" ||
        { fail "salloc did not relinquish $jobid"; show_screen; }
    mbx_slurm_settled
    after=$(mbx_slurm_login squeue)
    echo "INFO: squeue after:"
    echo "$after" | sed 's/^/    | /'
    [ "$(echo "$after" | grep -c .)" -eq 1 ] && pass "squeue after the allocation: header only" ||
        fail "squeue still lists jobs"
    mbx_slurm_no_leftovers
}
