#!/usr/bin/env bash
# The MPI thread level in the explorer, end to end through the launcher
# and mpiexec -n 2 in tmux: pingpong.mt with 2 threads per rank started
# without --thread-level fails its point and the status line says to start
# with --thread-level multiple; started with it (the launcher passes the
# option on), the point runs, and the exported environment records the
# levels and the threads' binding.
# usage: threadlevel_e2e.sh MPIBEX WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2
sess=mbxtl$$
rm -rf "$work"
mkdir -p "$work"
screen() { tmux capture-pane -p -t "$sess" 2>/dev/null; }
cleanup() { tmux kill-session -t "$sess" 2>/dev/null; }
trap cleanup EXIT

printf '[mt]\nbench = pingpong.mt\nsizes = 8\nparam = 2\nstop = fixed:5\n' >"$work/mt.ini"
tmux new-session -d -s "$sess" -x 120 -y 36 "env -i $(mbx_mpi_env)HOME=$work PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
tmux send-keys -t "$sess" "cd $work && PS1='PROMPT> '" Enter
wait_for "PROMPT>" 10 || fail "shell prompt"

# 1. without the option: the point fails, the status line says what to do
tmux send-keys -t "$sess" "$mpibex -n 2 --plan mt.ini --start --autosave none; echo EXIT=\$?" Enter
if wait_for "pingpong.mt: 2 threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level multiple" 30; then
  pass "status line: needs MPI_THREAD_MULTIPLE, start with --thread-level multiple"
else
  fail "no thread-level message"
  screen
fi
tmux send-keys -t "$sess" q
wait_for "EXIT=0" 20 && pass "quit, exit 0" || fail "quit after the failed point"
tmux send-keys -t "$sess" clear Enter

# 2. with --thread-level multiple: the point runs; export; the environment
tmux send-keys -t "$sess" "$mpibex -n 2 --plan mt.ini --start --autosave none --thread-level multiple; echo EXIT=\$?" Enter
if wait_for "done: 1 points" 60; then pass "pingpong.mt with 2 threads ran under --thread-level multiple"; else
  fail "the run did not finish"
  screen
fi
tmux send-keys -t "$sess" e
wait_for "Export CSV to:" 5 || fail "export prompt"
for _ in $(seq 1 40); do tmux send-keys -t "$sess" BSpace; done
tmux send-keys -t "$sess" "$work/mt.csv" Enter
wait_for "exported 1 points to" 10 && pass "exported" || { fail "export"; screen; }
for re in '^mpi_thread_level_asked,MPI_THREAD_MULTIPLE$' '^mpi_thread_level,MPI_THREAD_MULTIPLE$' \
  '^rank\.0\.threads_binding,"?2 threads: t0 PU' '^rank\.1\.threads_binding,"?2 threads: t0 PU' \
  '^threads_bind_failed,[0-9]+$'; do
  grep -Eq -- "$re" "$work/mt.env.csv" && pass "environment: /$re/" || fail "environment lacks /$re/"
done
tmux send-keys -t "$sess" q
wait_for "EXIT=0" 20 && pass "quit, exit 0" || { fail "quit"; screen | tail -5; }

mbx_finish
