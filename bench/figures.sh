#!/usr/bin/env bash
# Figures of how mpibex compares (a benchmark, not a pass/fail test):
#  1. 1-byte ping-pong: mpibex's median against a minimal hand-written MPI
#     loop (bench/raw_pingpong.c), launched alternately A B A B ... because
#     this machine's latency jumps between levels every few seconds; each
#     adjacent pair gives a ratio, and the median ratio is reported.
#  2. Wall time of the full samples/pingpong.ini curve (1 B - 4 MiB, 3 %).
#  3. CPU use of a waiting rank while rank 0 sleeps (mpibex idle).
# usage: bench/figures.sh [BUILD_DIR] [PAIRS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
pairs=${2:-15}
mpibex=$build/mpibex
raw=$build/mbx_raw_pingpong
[ -x "$mpibex" ] && [ -x "$raw" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== 1-byte ping-pong, mpibex vs raw loop, $pairs ABAB pairs (one-way us)"
ratios=()
for i in $(seq 1 "$pairs"); do
  mpiexec -n 2 "$mpibex" run --bench pingpong.send_recv --sizes 1 --stop stderr:1% \
    --nmin 200 --nmax 10000 -q -o "$tmp/a.csv" >/dev/null
  a=$(awk -F, 'NR==2 {print $7}' "$tmp/a.csv")
  b=$(mpiexec -n 2 "$raw" 50 200)
  r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f", a / b}')
  ratios+=("$r")
  printf '  pair %2d: mpibex %8.4f  raw %8.4f  ratio %s\n' "$i" "$a" "$b" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {
  m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
  printf "  median ratio mpibex/raw = %.4f over %d pairs (min %.4f, max %.4f; target <= 1.02)\n", m, NR, v[1], v[NR] }'

echo "== full samples/pingpong.ini curve on 2 ranks"
start=$(date +%s.%N)
mpiexec -n 2 "$mpibex" run "$root/samples/pingpong.ini" -q -o "$tmp/pp.csv" >/dev/null
end=$(date +%s.%N)
awk -F, -v s="$start" -v e="$end" 'NR>1 {n+=$4; pts++; if ($17=="SETTLED") ok++} END {
  printf "  %d points (%d SETTLED), %d observations, wall %.2f s\n", pts, ok, n, e - s }' "$tmp/pp.csv"

echo "== CPU use of a waiting rank while rank 0 sleeps 5 s"
mpiexec -n 2 "$mpibex" idle 5 | sed 's/^/  /'
