#!/usr/bin/env bash
# mpibex pairs inside a Slurm allocation of five compute nodes, as a user
# looks for the bad node or link of a new allocation: on the login node
# (mbxh6; compute nodes mbxh1..mbxh5, see lib_slurm.sh), in a private tmux
# server,
#
#   salloc -N 5 -n 5 -c 2
#   srun --mpi=pmi2 mpibex pairs --metric bw --bw-bytes 64K --window 4 \
#        --mode one --time-limit 30 --seed S -q -o p.csv | tee p.log
#
# (the options of tests/netns/pairs_hosts.sh, MBX_PAIRS_ARGS of
# tests/netns/lib_pairs.sh). Before each run the compute nodes are shaped
# with tc as pairs_hosts.sh shapes its five hosts (lib_pairs.sh): every
# node's egress at a base rate, one node drawn at random slow both ways and
# one pair drawn at random a slow link. Planted runs
# (MBX_TEST_PAIRS_PLANTED, default 1) must name that node by its host name
# (mbxhN), and no other, as slow, and the link, and no other link but one
# of the slow node's, in the printed `#` verdict lines and in
# p.verdicts.csv alike; clean runs (MBX_TEST_PAIRS_CLEAN, default 0: the
# base rate alone) must name none. Every run is a step of the one
# allocation, re-shaped in between; each exits 0, its CSV parses
# (csvcheck, 20 cells) and its src_host/dst_host columns hold the five
# Slurm node names. Then explorer_pairs (below): the explorer's pairs
# screen in the same allocation finds the last plant too. Then the
# allocation ended, squeue empty and no
# process but slurmd left on a compute node. The figures are the
# verdicts' own (ratios and p values), never a time asserted.
#
# -c 2: with one CPU a task Slurm binds every task to core 0 of its node
# (--cpu-bind=none included: a step's tasks stay within the CPUs it has on
# the node), so the measured pair of two busy-polling ranks would take
# turns on one core, and every link slower by that than the network. With
# both cores a task, as under pairs_hosts.sh's hydra (no binding), the
# kernel spreads the two busy ranks of a pair (the others wait asleep in
# --mode one) over the machine's two cores. (With the CPUs of the two-node
# layout, mbxh2 offering core 1 only, the even nodes' ranks all shared
# core 1, and a link between two of them was named slow.)
#
#   salloc_pairs.sh MPIBEX CSVCHECK
#
# PASS/FAIL lines; exit 77 ("SKIP: reason") where namespaces or the Slurm
# daemons cannot run here. Every wait is bounded; the daemons, the hosts
# and the tmux server go on every way out.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_pairs.sh"
. "$(dirname "$(readlink -f "$0")")/lib_slurm.sh"
test_case=slurm.salloc_pairs
[ $# -eq 2 ] || { echo "usage: $0 MPIBEX CSVCHECK" >&2; exit 2; }
mpibex=$(readlink -f "$1")
csvcheck=$(readlink -f "$2")
PLANTED=${MBX_TEST_PAIRS_PLANTED:-1}
CLEAN=${MBX_TEST_PAIRS_CLEAN:-0}
# A run is at most --time-limit 30 s of rounds; the rest is the start of
# five ranks through srun and the verdicts (pairs_hosts.sh waits 90 s).
STEP_SECONDS=120
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
command -v tc >/dev/null || { echo "SKIP: tc is not installed"; exit 77; }
mbx_slurm_begin pairs 5

cleanup() { mbx_slurm_down; }
mbx_netns_traps

mbx_slurm_up
# shellcheck disable=SC2206 # host names, no blanks
compute=($MBX_SLURM_NODES)
echo "INFO: sinfo: $(mbx_slurm_login sinfo -h -N -o '%N %t %c' | tr '\n' ';')"

mbx_slurm_shell
T send-keys -t main "salloc -N 5 -n 5 -c 2" Enter
if wait_for "Granted job allocation [0-9]+" 20; then
    jobid=$(screen | grep -oE "Granted job allocation [0-9]+" | grep -oE "[0-9]+$")
    pass "salloc -N 5 -n 5 -c 2: job $jobid granted"
else
    fail "salloc did not get an allocation within 20 s"
    show_screen
    exit 1
fi
T send-keys -t main "echo IN-JOB=\$SLURM_JOB_ID NODES=\$SLURM_JOB_NODELIST" Enter
wait_for "^IN-JOB=$jobid" 10 || { fail "the shell of salloc has no SLURM_JOB_ID=$jobid"; show_screen; }
echo "INFO: $(screen | grep -m1 "^IN-JOB=")"

# run_step NAME: the batch command as a step of the allocation, typed in
# the shell of salloc; its output on the terminal and in $work/NAME.log.
# 0 when it exited 0 within STEP_SECONDS, else FAIL (the step cancelled).
run_step() {
    local name=$1 rc s cmd
    # One string: tmux takes a word that ends in ';' for its own command
    # separator.
    cmd="srun --mpi=pmi2 $mpibex pairs $MBX_PAIRS_ARGS --seed $RANDOM -q"
    cmd="$cmd -o $work/$name.csv 2>&1 | tee $work/$name.log"
    T send-keys -t main "clear; $cmd; echo $name-EXIT=\${PIPESTATUS[0]}" Enter
    if ! wait_for "^$name-EXIT=[0-9]+" $STEP_SECONDS; then
        fail "$name: the step did not end within $STEP_SECONDS s"
        tail -8 "$work/$name.log" 2>/dev/null | sed 's/^/    | /'
        # The step only, not the allocation: the next run and the end
        # of the script still need it.
        for s in $(mbx_slurm_login squeue -h -s -j "$jobid" -o %i | grep -E "^$jobid\.[0-9]+$"); do
            mbx_slurm_login scancel --quiet "$s"
        done
        wait_for "^$name-EXIT=[0-9]+" 20
        return 1
    fi
    rc=$(screen | grep -oE "^$name-EXIT=[0-9]+" | tail -1)
    rc=${rc#*=}
    if [ "$rc" != 0 ]; then
        fail "$name: srun mpibex pairs exited with $rc"
        tail -20 "$work/$name.log" | sed 's/^/    | /'
        return 1
    fi
    return 0
}

# check_csv NAME: the results CSV parses with the 20 directed cells of five
# nodes, and its host columns name exactly the Slurm nodes, every one as a
# sender and as a receiver.
check_csv() {
    local name=$1 want got_src got_dst
    if "$csvcheck" "$work/$name.csv" --bench pairs.bw --rows 20 >"$work/$name.check" 2>&1; then
        pass "$name: csvcheck: $name.csv has the 20 cells"
    else
        fail "$name: csvcheck: $(tail -1 "$work/$name.check")"
        return 1
    fi
    want=$(printf '%s\n' "${compute[@]}" | sort | tr '\n' ' ')
    got_src=$(mbx_col "$work/$name.csv" src_host | sort -u | tr '\n' ' ')
    got_dst=$(mbx_col "$work/$name.csv" dst_host | sort -u | tr '\n' ' ')
    if [ "$got_src" = "$want" ] && [ "$got_dst" = "$want" ]; then
        pass "$name: src_host and dst_host are the Slurm nodes $want"
    else
        fail "$name: src_host '$got_src', dst_host '$got_dst'; the nodes are '$want'"
    fi
}

# check_binding NAME: every rank may run on both cores (the env file's
# rank.I.binding), the reason for -c 2 above.
check_binding() {
    local name=$1 i b bad=""
    for ((i = 0; i < ${#compute[@]}; i++)); do
        b=$(mbx_env_value "$work/$name.env.csv" "rank.$i.binding")
        [[ $b == *"(unbound)"* ]] || bad="$bad rank $i: '$b';"
    done
    if [ -z "$bad" ]; then
        pass "$name: every rank unbound ($(mbx_env_value "$work/$name.env.csv" rank.0.binding) on rank 0)"
    else
        fail "$name: ranks bound to part of their node:$bad"
    fi
}

# check_verdicts NAME SLOW A B: the printed verdict lines judged by the
# rules of lib_pairs.sh (SLOW empty: a clean run), and the verdicts CSV
# naming the same.
check_verdicts() {
    local name=$1 slow=$2 a=$3 b=$4 nodes links
    nodes=$(mbx_pairs_slow_lines "$work/$name.log" node)
    links=$(mbx_pairs_slow_lines "$work/$name.log" link)
    if ! grep -q "^# verdicts (bandwidth)" "$work/$name.log"; then
        fail "$name: no '# verdicts (bandwidth)' line in the output"
        tail -20 "$work/$name.log" | sed 's/^/    | /'
        return 1
    fi
    if ! mbx_pairs_judge "$name" "$slow" "$a" "$b" "$nodes" "$links"; then
        mbx_pairs_show "$work/$name.log"
        sed -n '/^src.dst/,/^$/p' "$work/$name.log" | sed 's/^/    | /'
    fi
    if [ "$(mbx_pairs_slow_csv "$work/$name.verdicts.csv" node)" = "$nodes" ] &&
        [ "$(mbx_pairs_slow_csv "$work/$name.verdicts.csv" link)" = "$links" ]; then
        pass "$name: $name.verdicts.csv names the same nodes and links as the printed verdicts"
    else
        fail "$name: $name.verdicts.csv: nodes '$(mbx_pairs_slow_csv "$work/$name.verdicts.csv" node)'," \
            "links '$(mbx_pairs_slow_csv "$work/$name.verdicts.csv" link)'; printed: '$nodes', '$links'"
    fi
}

# One run: the compute nodes re-shaped (SLOW A B, or empty for the base
# rate alone), the step, its checks. $plant_* keep what is shaped now.
run_pairs() {
    local name=$1 why
    plant_slow=$2 plant_a=$3 plant_b=$4
    mbx_pairs_unshape "${compute[@]}"
    why=$(mbx_pairs_plant "$plant_slow" "$plant_a" "$plant_b" "${compute[@]}") ||
        { fail "$name: $why"; return 1; }
    if [ -n "$plant_slow" ]; then
        echo "INFO: $name: planted slow host $plant_slow, slow link $plant_a-$plant_b"
    else
        echo "INFO: $name: every node at the base rate"
    fi
    local t0=$SECONDS
    run_step "$name" || return 1
    echo "INFO: $name: the step took about $((SECONDS - t0)) s"
    check_csv "$name"
    check_binding "$name"
    check_verdicts "$name" "$plant_slow" "$plant_a" "$plant_b"
}

for ((r = 1; r <= PLANTED; r++)); do
    mbx_pairs_draw "${compute[@]}"
    run_pairs "planted$r" "$pairs_slow" "$pairs_a" "$pairs_b"
done
for ((r = 1; r <= CLEAN; r++)); do
    run_pairs "clean$r" "" "" ""
done

# explorer_pairs: the explorer's pairs screen in the same allocation, as a
# user runs it: `mpibex -n 5` typed in the shell of salloc (the launcher
# starts the ranks with srun; rank 0 reaches the terminal through the
# socket bridge), 6 opens the pairs screen, the form set to the batch
# run's settings (bandwidth, one pair at a time, 64K x 4, 30 s), r runs
# it. Once the message line says done, the verdicts beside the matrix
# ("slow node mbxhN ..." and "slow link mbxhA -> mbxhB ...") are judged
# by mbx_pairs_judge against the plant still in place ($plant_slow,
# $plant_a, $plant_b: empty after a clean run); then q, and the prompt
# comes back with exit 0.
explorer_pairs() {
    local log=$work/explorer.log dump=$work/explorer_pairs.txt nodes links k
    T resize-window -t main -x 120 -y 40 2>/dev/null
    T send-keys -t main "clear; $mpibex -n 5 --autosave none --log $log; echo EXPLORER-EXIT=\$?" Enter
    mbx_netns_explorer_up " (mpibex -n 5 in the allocation)"
    if grep -qE "bridge: rank 0 connected from" "$log"; then
        pass "explorer: $(grep -m1 "bridge: rank 0 connected" "$log")"
    else
        fail "explorer: the launcher's log has no bridge connection"
    fi
    T send-keys -t main 6
    wait_for "pairs: every pair of nodes" 10 || { fail "explorer: 6 did not open the pairs screen"; show_screen; }
    # metric: both -> latency -> bandwidth; mode: shift -> one; per: node;
    # latency size kept; bandwidth size, window and time limit typed.
    T send-keys -t main Right Right Down Right Down Down Down Enter
    T send-keys -t main -l 64K
    T send-keys -t main Enter Down Enter
    T send-keys -t main -l 4
    T send-keys -t main Enter Down Down Enter
    T send-keys -t main -l 30
    T send-keys -t main Enter
    sleep 0.5
    screen >"$work/explorer_form.txt"
    for k in "< bandwidth >" "< one >" "64K" "time limit     30"; do
        grep -qF -- "$k" "$work/explorer_form.txt" || fail "explorer: the form does not show '$k'"
    done
    T send-keys -t main r
    if ! wait_for "^ done: [0-9]+ of 20 cells SETTLED" $STEP_SECONDS; then
        fail "explorer: the pairs run did not end within $STEP_SECONDS s"
        show_screen
        T send-keys -t main c q
        return 1
    fi
    screen >"$dump"
    sed 's/^/    | /' "$dump"
    pass "explorer: $(grep -oE "done: [0-9]+ of 20 cells SETTLED[^(]*\([^)]*\)" "$dump")"
    nodes=$(sed -nE 's/^.* slow node ([^ ]+) [0-9.]+x .*$/\1/p' "$dump" | sort | tr '\n' ' ')
    links=$(sed -nE 's/^.* slow link ([^ ]+) -> ([^ ]+) [0-9.]+x.*$/\1>\2/p' "$dump" | sort | tr '\n' ' ')
    if grep -qE "no outlier found| slow (node|link) " "$dump"; then
        mbx_pairs_judge "explorer" "$plant_slow" "$plant_a" "$plant_b" "$nodes" "$links"
    else
        fail "explorer: no verdicts on the screen"
    fi
    T send-keys -t main q
    if wait_for "^EXPLORER-EXIT=0" 30; then
        pass "explorer: q quits, exit 0"
    else
        fail "explorer: no exit 0 after q"
        show_screen
    fi
}
explorer_pairs

# Leave the allocation: squeue empty, nothing left on the nodes.
mbx_slurm_leave "$jobid"

mbx_finish
