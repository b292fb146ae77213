#!/usr/bin/env bash
# The explorer's refinement honours min_ratio: run the explorer
# headless on the fake back end with keys/refine_ratio.keys, which
# exports its results, then check the sizes of the refined curve: refinement
# happened, ended before its budget, and no two neighbouring sizes are
# closer than sqrt(1.05) allows (a split segment was at least 5 % wide, so
# each half is at least about 2.4 % wide).
# usage: refine_ratio.sh MPIBEX KEYS OUT_DIR
set -u
mpibex=$1 keys=$2 out=$3
rm -rf "$out"
mkdir -p "$out/dumps"
cd "$out" || exit 1
LC_ALL=C.UTF-8 NO_COLOR= "$mpibex" explore --fake 2 --headless 120x40 --term xterm-mono \
  --keys "$keys" --dump-dir "$out/dumps" --autosave none || { echo "explorer failed"; exit 1; }
[ -s mpibex-results.csv ] || { echo "no export: mpibex-results.csv missing"; exit 1; }
# bytes is the third column; the ranks column ("0,1") comes later and is quoted.
sizes=$(awk -F, 'NR > 1 && $1 == "pingpong.send_recv" { print $3 }' mpibex-results.csv | sort -n)
echo "sizes:" $sizes
echo "$sizes" | awk 'NR > 1 && $1 < prev * 1.02 {
    printf "FAIL: %d and %d are %.4f apart: a segment narrower than 5 %% was split\n", prev, $1, $1 / prev
    bad = 1 }
  { prev = $1 } END { exit bad }' || exit 1
n=$(echo "$sizes" | wc -l)
# 3 grid points, at least 5 refined, fewer than the budget of 40 refined.
if [ "$n" -lt 8 ] || [ "$n" -ge 43 ]; then
  echo "FAIL: $n points (want 8..42: refinement ran and stopped before its budget)"
  exit 1
fi
echo "ok: $n points, no segment narrower than 5 % split"
