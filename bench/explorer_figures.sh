#!/usr/bin/env bash
# Figures for the explorer (a benchmark, not a test), through the real
# launcher in tmux:
#  1. CPU use of each rank while the explorer shows a menu (5 s);
#  2. the 1-byte ping-pong median measured in the explorer and in batch
#     mode, launched alternately (ABAB), as a ratio;
#  3. draw time per frame, from the explorer's own count in the log.
# usage: bench/explorer_figures.sh [BUILD_DIR] [PAIRS]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
pairs=${2:-5}
mpibex=$build/mpibex
work=$(mktemp -d)
sess=mbxfig$$
trap 'tmux kill-session -t $sess 2>/dev/null; rm -rf "$work"' EXIT
cap() { tmux capture-pane -p -t "$sess"; }
wait_for() {
  local end=$((SECONDS + $2))
  while [ $SECONDS -lt $end ]; do cap | grep -Eq -- "$1" && return 0; sleep 0.1; done
  return 1
}
tmux new-session -d -s "$sess" -x 120 -y 36 "env -i HOME=$work PATH=$PATH TERM=xterm-256color LC_ALL=C.UTF-8 bash --norc --noprofile"
tmux send-keys -t "$sess" "cd $work && PS1='PROMPT> '" Enter
wait_for "PROMPT>" 10

cat >"$work/pp1.ini" <<'INI'
[pp1]
bench = pingpong.send_recv
sizes = 1
stop = stderr:1%
nmin = 200
nmax = 100000
INI

echo "== CPU of each rank while the explorer shows a menu (5 s)"
tmux send-keys -t "$sess" "$mpibex -n 2 --autosave none; echo EXIT=\$?" Enter
wait_for "1 Picker" 30 || { echo "explorer did not start"; exit 1; }
sleep 1
# The ranks are the processes with PMI_RANK (mpiexec's own command line
# also names "mpibex explore").
pids=$(for p in $(pgrep -f "$mpibex explore"); do
  tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -q '^PMI_RANK=' && echo "$p"
done)
ticks=$(getconf CLK_TCK)
declare -A before
for p in $pids; do before[$p]=$(awk '{print $14 + $15}' /proc/$p/stat); done
sleep 5
for p in $pids; do
  after=$(awk '{print $14 + $15}' /proc/$p/stat)
  role=$(tr '\0' '\n' </proc/$p/environ | grep -q '^PMI_RANK=0$' && echo "rank 0 (explorer)" || echo "waiting rank")
  awk -v b="${before[$p]}" -v a="$after" -v t="$ticks" -v r="$role" \
    'BEGIN {printf "  %-18s %.2f %% of a core\n", r, 100 * (a - b) / t / 5}'
done
tmux send-keys -t "$sess" q
wait_for "EXIT=" 20

echo "== 1-byte ping-pong median (us): explorer vs batch, $pairs ABAB pairs"
for i in $(seq 1 "$pairs"); do
  rm -rf "$work/auto"
  tmux send-keys -t "$sess" clear Enter
  tmux send-keys -t "$sess" "$mpibex -n 2 --autosave $work/auto --plan $work/pp1.ini --start; echo EXIT=\$?" Enter
  wait_for "done: 1 points" 60 || { echo "explorer run did not finish"; cap; exit 1; }
  tmux send-keys -t "$sess" q
  wait_for "Quit anyway" 5 && tmux send-keys -t "$sess" y
  wait_for "EXIT=" 20
  a=$(awk -F, 'NR==2 {print $7}' "$work"/auto/*.csv)
  mpiexec -n 2 "$mpibex" run "$work/pp1.ini" -q --force -o "$work/b.csv" >/dev/null
  b=$(awk -F, 'NR==2 {print $7}' "$work/b.csv")
  awk -v a="$a" -v b="$b" -v i="$i" 'BEGIN {printf "  pair %d: explorer %.4f  batch %.4f  ratio %.4f\n", i, a, b, a / b}'
done | tee "$work/pairs.txt"
awk '{print $NF}' "$work/pairs.txt" | sort -n | awk '{v[NR]=$1} END {printf "  median ratio explorer/batch = %.4f (min %.4f, max %.4f)\n", (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2, v[1], v[NR]}'

echo "== draw time per frame"
log=$(ls -t "$work"/.local/state/mpibex/*.log 2>/dev/null | head -1)
[ -n "$log" ] && grep -h "explorer: .* frames" "$work"/.local/state/mpibex/*.log | tail -3 | sed 's/^/  /'
