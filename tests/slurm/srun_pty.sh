#!/usr/bin/env bash
# The explorer as a step with a pseudo-terminal, on the login node
# (mbxh3, see lib_slurm.sh), in a private tmux server:
#
#   srun -N 1 -n 2 --pty mpibex explore --autosave none
#
# No launcher runs: srun gives task 0 (rank 0) a pty on the compute node
# and relays it to this terminal, so the explorer takes the tty path (its
# stdin and stdout are that pty). mbxh1 is the one node with 2 CPUs for
# jobs, so both ranks land there. Checked: the title ("2 ranks on 1
# host"), rank 0's node, the step in squeue, a key reaching rank 0 (the
# screen changes), q quits, srun exits 0 with a sane terminal, then
# squeue is empty and nothing is left on the nodes but slurmd.
#
#   srun_pty.sh MPIBEX
#
# PASS/FAIL lines; exit 77 ("SKIP: reason") where namespaces or the Slurm
# daemons cannot run here.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/lib_slurm.sh"
test_case=slurm.srun_pty
[ $# -eq 1 ] || { echo "usage: $0 MPIBEX" >&2; exit 2; }
mpibex=$(readlink -f "$1")
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
mbx_slurm_begin pty
cleanup() { mbx_slurm_down; }
mbx_netns_traps

mbx_slurm_up
mbx_slurm_shell
T send-keys -t main "clear; srun -N 1 -n 2 --pty $mpibex explore --autosave none; echo EXIT=\$?" Enter
if wait_for "1 Pick" 45; then
    pass "explorer up on srun's pty"
else
    fail "the explorer did not come up within 45 s"
    show_screen
    exit 1
fi
if wait_for "2 ranks on 1 host" 5; then
    pass "title: $(screen | grep -m1 -o "mpibex.*2 ranks on 1 host")"
else
    fail "title does not show 2 ranks on 1 host: $(screen | head -1)"
fi
ranks=$(mbx_slurm_ranks)
echo "INFO: ranks (pid node SLURM_PROCID): $(echo "$ranks" | tr '\n' ';')"
r0=$(echo "$ranks" | awk '$3 == "0" { print $1 }')
if [ -n "$r0" ] && [ "$(echo "$ranks" | awk '{ print $2 }' | sort -u)" = mbxh1 ]; then
    pass "both ranks on mbxh1"
else
    fail "the ranks are not both on mbxh1"
fi
# The tty path: rank 0's terminal is a pty of srun's step, not the user's.
if [ -n "$r0" ] && tty0=$(readlink "/proc/$r0/fd/0") && [[ $tty0 == /dev/pts/* ]]; then
    pass "rank 0 reads a pty ($tty0)"
else
    fail "rank 0's stdin is not a pty: '${tty0:-}'"
fi
echo "INFO: squeue -s: $(mbx_slurm_login squeue -h -s -o '%i %N' | tr '\n' ';')"
T send-keys -t main 4
if wait_for "\[4 Results\]" 5; then pass "a key reaches rank 0 (4: results screen)"; else fail "key 4 did not switch screens"; show_screen; fi
T send-keys -t main q
wait_for "Quit anyway\? \(y/n\)" 2 && T send-keys -t main y
if wait_for "^EXIT=0" 30; then
    pass "quit: srun exited 0"
else
    fail "quit: no EXIT=0 within 30 s: $(screen | grep -E "^EXIT=" | tail -1)"
    show_screen
fi
mbx_slurm_sane
if mbx_slurm_settled; then pass "squeue empty after the step"; else fail "squeue still lists: $(mbx_slurm_login squeue -h | tr '\n' ';')"; fi
mbx_slurm_no_leftovers
mbx_finish
