#!/usr/bin/env bash
# The explorer cannot start: through the real launcher and mpiexec -n 2, in
# tmux, the terminal shows rank 0's own reason (not "a rank crashed") and
# the launcher exits 2; one case per invocation:
#
#   startup_e2e.sh MPIBEX WORKDIR CASE
#
#   plan_bad      --plan of a file that does not exist
#   term_unknown  TERM=unknown-xyz (no terminfo entry)
#   term_dumb     TERM=dumb (cannot move the cursor: refused, not drawn)
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2/$3 case=$3
test_case=$case
sess=mbxstart$$
rm -rf "$work"
mkdir -p "$work"
screen() { tmux capture-pane -p -J -t "$sess" 2>/dev/null; }
cleanup() { tmux kill-session -t "$sess" 2>/dev/null; }
trap cleanup EXIT

term=xterm-256color args=(-n 2)
case $case in
plan_bad)
    args+=(--plan "$work/no-such-plan.ini")
    re="^mpibex: cannot read plan $work/no-such-plan\.ini: No such file or directory$"
    ;;
term_unknown)
    term=unknown-xyz
    re="^mpibex: TERM: unknown terminal type 'unknown-xyz' \(no terminfo entry\); set TERM to your terminal's type, e\.g\. xterm-256color$"
    ;;
term_dumb)
    term=dumb
    re="^mpibex: TERM: terminal type 'dumb' cannot move the cursor \(no 'cup' capability\); the explorer needs one that can, e\.g\. xterm-256color \(batch runs: mpibex run\)$"
    ;;
*)
    fail "unknown case $case"
    mbx_finish
    exit 1
    ;;
esac

# The shell runs with TERM=xterm-256color; only the explorer gets $term.
tmux new-session -d -s "$sess" -x 200 -y 30 "env -i $(mbx_mpi_env)HOME=$work PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
tmux send-keys -t "$sess" "cd $work && PS1='PROMPT> '" Enter
wait_for "PROMPT>" 10 || fail "shell prompt"
tmux send-keys -t "$sess" "TERM=$term $mpibex ${args[*]}; echo EXIT=\$?" Enter
if wait_for "^EXIT=[0-9]+" 60; then
    screen | grep -E '^(mpibex:|EXIT=)' | sed 's/^/  screen: /'
    screen | grep -Eq "^EXIT=2$" && pass "exit 2" || fail "exit $(screen | grep -Eo '^EXIT=[0-9]+')"
    screen | grep -Eq -- "$re" && pass "the terminal shows the reason" || fail "no line matching $re"
    screen | grep -q "crashed" && fail "the launcher says a rank crashed" || pass "no word of a crash"
else
    fail "the launcher did not come back"
    screen
fi
mbx_finish
