#!/usr/bin/env bash
# Reproducibility figures (prints them; asserts nothing):
#  1. the spread (max - min) / min of the median across K launches of
#     pingpong.send_recv at 1 B, 1 KiB, 64 KiB and 1 MiB on 2 ranks, with
#     barrier and with window sync;
#  2. mpibex compare of Send against Ssend at 1 B (a real difference: Ssend
#     waits for the receiver's handshake) and 64 KiB, and of two identical
#     settings, from K launches of each, interleaved (A B C A B C ...) so a
#     machine that drifts over minutes cannot favour one of them.
# usage: bench/repro_figures.sh [BUILD_DIR] [K] [OUT_DIR]
set -euo pipefail
build=${1:-build} k=${2:-10} out=${3:-/tmp/mbx-repro}
mpibex=$(cd "$build" && pwd)/mpibex
mkdir -p "$out"
rep() { # rep NAME RUN-ARGS...
  local name=$1
  shift
  "$mpibex" repeat -k "$k" -n 2 -q --force -- "$@" -o "$out/$name" >"$out/$name.txt"
}
spread() { # the merged table's spread per size
  python3 - "$1" <<'PY'
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1] + "/merged.csv")), key=lambda r: int(r["bytes"]))
for r in rows:
    print(f"  {int(r['bytes']):>8} B  median {float(r['median_us']):9.3f} us  "
          f"launch medians {float(r['median_min_us']):9.3f} .. {float(r['median_max_us']):9.3f}  "
          f"spread {100 * float(r['spread_rel']):6.1f} %  ({r['runs']} launches)")
PY
}
sizes=1,1K,64K,1M
for sync in barrier window; do
  rep "$sync" --bench pingpong.send_recv --sizes "$sizes" --sync "$sync"
  echo "pingpong.send_recv, 2 ranks, --sync $sync, $k launches:"
  spread "$out/$sync"
done
rm -rf "$out/send" "$out/ssend" "$out/send2"
mkdir -p "$out/send" "$out/ssend" "$out/send2"
for i in $(seq -w 1 "$k"); do
  for set in send:send_recv ssend:ssend_recv send2:send_recv; do
    mpiexec -n 2 "$mpibex" run --bench "pingpong.${set#*:}" --sizes 1,64K -q --raw \
      -o "$out/${set%%:*}/launch-$i.csv" >/dev/null
  done
done
echo "compare Send (A) vs Ssend (B), $k launches each, interleaved:"
"$mpibex" compare "$out/send" "$out/ssend" --ignore benchmark
echo "compare Send vs Send, two sets of $k launches, interleaved:"
"$mpibex" compare "$out/send" "$out/send2"
