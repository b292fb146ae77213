#!/usr/bin/env bash
# The explorer inside a Slurm allocation, as a user runs it: on the login
# node (mbxh3, see lib_slurm.sh), in a private tmux server,
#
#   salloc -N 2 -n 2
#   mpibex -n 2 --plan plan.ini --autosave none --log launcher.log
#
# The launcher sees the allocation (SLURM_JOB_ID) and starts the job with
# srun; rank 0 lands on the compute node mbxh1 and reaches the terminal on
# mbxh3 through the socket bridge. Checked: the explorer's title ("2 ranks
# on 2 hosts"), where rank 0 runs, the step in squeue; r runs the plan to
# "done:", e exports (the .env.csv names the job), q quits; the prompt
# comes back with exit 0 and a sane terminal; a second explorer ends on
# one Ctrl-C (the launcher's SIGINT to srun); after the shell of salloc
# ends, squeue is empty and no process is left on a compute node but its
# slurmd.
#
#   salloc_explore.sh MPIBEX
#
# PASS/FAIL lines; exit 77 ("SKIP: reason") where namespaces or the Slurm
# daemons cannot run here. Every wait is bounded; the daemons, the hosts
# and the tmux server go on every way out.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/lib_slurm.sh"
test_case=slurm.salloc_explore
[ $# -eq 1 ] || { echo "usage: $0 MPIBEX" >&2; exit 2; }
mpibex=$(readlink -f "$1")
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
mbx_slurm_begin salloc

log="$work/launcher.log"
cleanup() { mbx_slurm_down; }
mbx_netns_traps

mbx_slurm_up
echo "INFO: sinfo: $(mbx_slurm_login sinfo -h -N -o '%N %t %c' | tr '\n' ';')"

mbx_slurm_shell
echo "INFO: squeue before salloc:"
mbx_slurm_login squeue | sed 's/^/    | /'

T send-keys -t main "salloc -N 2 -n 2" Enter
if wait_for "Granted job allocation [0-9]+" 20; then
    jobid=$(screen | grep -oE "Granted job allocation [0-9]+" | grep -oE "[0-9]+$")
    pass "salloc: job $jobid granted"
else
    fail "salloc did not get an allocation within 20 s"
    show_screen
    exit 1
fi
T send-keys -t main "echo IN-JOB=\$SLURM_JOB_ID" Enter
wait_for "^IN-JOB=$jobid" 10 || { fail "the shell of salloc has no SLURM_JOB_ID=$jobid"; show_screen; }

plan=$work/plan.ini
printf '[slurm]\nbench = pingpong.send_recv, coll.bcast\nsizes = 1:4KiB:4\nstop = stderr:5%%\nnmax = 2000\n' >"$plan"
T send-keys -t main "clear; $mpibex -n 2 --plan $plan --autosave none --log $log; echo EXIT=\$?" Enter
mbx_netns_explorer_up ""
if wait_for "2 ranks on 2 hosts" 5; then
    pass "title: $(screen | grep -m1 -o "mpibex.*2 ranks on 2 hosts[^│|]*" | sed 's/ *$//')"
else
    fail "title does not show 2 ranks on 2 hosts: $(screen | head -1)"
fi
ranks=$(mbx_slurm_ranks)
echo "INFO: ranks (pid node SLURM_PROCID): $(echo "$ranks" | tr '\n' ';')"
if [ "$(echo "$ranks" | awk '$3 == "0" { print $2 }')" = mbxh1 ]; then
    pass "rank 0 runs on the compute node mbxh1, the terminal is on $MBX_SLURM_LOGIN"
else
    fail "rank 0 is not on mbxh1"
fi
step=$(mbx_slurm_login squeue -h -s -o '%i %N')
echo "INFO: squeue -s during the run: $step"
case "$step" in
    "$jobid".0" mbxh[1-2]"*) pass "the job runs as step $jobid.0 of the allocation on mbxh[1-2] (srun)" ;;
    *) fail "no step $jobid.0 on mbxh[1-2] in squeue -s: '$step'" ;;
esac
# (the launcher listens on IPv6 and IPv4: the peer may be IPv4-mapped)
if grep -qE "bridge: rank 0 connected from (\[::ffff:)?198\.18\.0\.1\]?:" "$log"; then
    pass "launcher log: $(grep -m1 "bridge: rank 0 connected" "$log")"
else
    fail "launcher log has no 'bridge: rank 0 connected from 198.18.0.1'"
    sed 's/^/    log| /' "$log" | head -20
fi

# Run the plan, export, quit.
T send-keys -t main r
if wait_for "done: [0-9]+ points" 120; then
    pass "run finished: $(screen | grep -oE "done: [0-9]+ points[^|│]*" | head -1 | sed 's/ *$//')"
else
    fail "the run did not finish within 120 s"
    show_screen
fi
T send-keys -t main 4
sleep 0.5
T send-keys -t main e
if wait_for "Export CSV to:" 5; then
    for _ in $(seq 1 60); do T send-keys -t main BSpace; done
    T send-keys -t main "$work/out.csv" Enter
    # The status line's message may be gone by the first look; the
    # results screen's header keeps "exported".
    wait_for "exported [0-9]+ points to|Results: [0-9]+ points, exported" 10 &&
        pass "export: $(screen | grep -oE "exported [0-9]+ points to|Results: [0-9]+ points, exported" | head -1)" ||
        { fail "no export message"; show_screen; }
else
    fail "no export prompt"
    show_screen
fi
if [ "$(mbx_env_value "$work/out.env.csv" env.SLURM_JOB_ID)" = "$jobid" ]; then
    pass "out.env.csv: env.SLURM_JOB_ID=$jobid"
else
    fail "out.env.csv has no env.SLURM_JOB_ID=$jobid"
fi
grep "^env.SLURM_" "$work/out.env.csv" 2>/dev/null | sed 's/^/    env| /'
T send-keys -t main q
wait_for "Quit anyway\? \(y/n\)" 3 && T send-keys -t main y
if wait_for "^EXIT=0" 30; then
    pass "quit: the launcher exited 0"
else
    fail "quit: no EXIT=0 within 30 s: $(screen | grep -E "^EXIT=" | tail -1)"
    sed 's/^/    log| /' "$log" | tail -10
fi
mbx_slurm_sane

# Ctrl-C on the terminal: under the socket bridge the launcher reads the
# keys, and turns Ctrl-C into one SIGINT for the job, i.e. srun, which must
# end the step at once (--quit-on-interrupt; srun alone only prints the
# step's state and waits for a second one within a second).
T send-keys -t main "clear; $mpibex -n 2 --autosave none --log $work/int.log; echo EXIT=\$?" Enter
if wait_for "1 Pick" 45; then
    T send-keys -t main C-c
    if wait_for "^EXIT=[0-9]+" 20; then
        pass "Ctrl-C: the step ended, $(screen | grep -oE "^EXIT=[0-9]+" | tail -1)"
    else
        fail "Ctrl-C: no prompt within 20 s"
        sed 's/^/    log| /' "$work/int.log" | tail -5
    fi
    if [ -z "$(mbx_slurm_login squeue -h -s -j "$jobid" -o '%i' | grep -F "$jobid.")" ]; then
        pass "no step of job $jobid left after Ctrl-C"
    else
        fail "a step of job $jobid is left after Ctrl-C"
    fi
    mbx_slurm_sane
else
    fail "the second explorer did not come up"
fi

# Leave the allocation: squeue empty, nothing left on the nodes.
mbx_slurm_leave "$jobid"

mbx_finish
