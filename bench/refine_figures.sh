#!/usr/bin/env bash
# Adaptive refinement against a fixed sqrt(2) grid, 1 B - 4 MiB Send/Recv on
# 2 ranks: points, wall time, the worst segment prediction error each run
# reports, and the worst (and 95th percentile) interpolation error against a
# dense reference curve (factor 1.1) measured in the same session, by
# refinement's own log-log criterion (mbx_interp_errors).
# usage: bench/refine_figures.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-2}
mpibex=$build/mpibex
interp=$build/mbx_interp_errors
[ -x "$interp" ] || { echo "refine_figures: $interp missing (build it)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
common=(run --bench pingpong.send_recv -q)

run() { # name args...
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    mpiexec -n 2 "$mpibex" "${common[@]}" "$@" -o "$dir/$name.csv" >"$dir/$name.log"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc >"$dir/$name.wall"
}

for r in $(seq 1 "$rounds"); do
    run "ref$r" --sizes 1:4MiB:1.1 --stop stderr:2%
    run "refine$r" --sizes 1:4MiB:4 --refine 5% --budget 64
    run "sqrt2$r" --sizes 1:4MiB:sqrt2
done

python3 - "$dir" "$rounds" "$interp" <<'EOF'
import csv, re, subprocess, sys
d, rounds, interp = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def curve(path):
    rows = list(csv.DictReader(open(path)))
    pts = sorted((int(r["bytes"]), float(r["median_us"])) for r in rows)
    return pts, sum(float(r["wall_s"]) for r in rows)

def interp_errors(pts, ref):
    # refinement's criterion, the C function itself (bench/interp_errors.c)
    paths = []
    for name, c in (("curve", pts), ("ref", ref)):
        paths.append(f"{d}/{name}.txt")
        with open(paths[-1], "w") as f:
            f.writelines(f"{x} {y!r}\n" for x, y in c)
    out = subprocess.run([interp] + paths, check=True, capture_output=True, text=True).stdout
    errs = [float(v) for v in out.split()]
    return errs[-1], errs[int(0.95 * (len(errs) - 1))]

import statistics
agg = {"refine": [], "sqrt2": []}
print("round  set      points  wall_s(points)  wall_s(launch)  worst_seg_err  worst_interp  p95_interp")
for r in range(1, rounds + 1):
    ref, _ = curve(f"{d}/ref{r}.csv")
    for name in ("refine", "sqrt2"):
        pts, wall = curve(f"{d}/{name}{r}.csv")
        launch = float(open(f"{d}/{name}{r}.wall").read())
        seg = re.search(r"worst segment prediction error ([0-9.]+)%", open(f"{d}/{name}{r}.log").read())
        worst, p95 = interp_errors(pts, ref)
        agg[name].append((len(pts), wall, launch, float(seg.group(1)), 100 * worst, 100 * p95))
        print(f"{r:5d}  {name:7s}  {len(pts):6d}  {wall:14.3f}  {launch:14.2f}  {seg.group(1) + '%':>13s}"
              f"  {100 * worst:11.1f}%  {100 * p95:9.1f}%")
    print(f"       (reference: {len(ref)} points, factor 1.1, stderr:2%)")
print("median over rounds:")
for name, v in agg.items():
    m = [statistics.median(c) for c in zip(*v)]
    print(f"       {name:7s}  {m[0]:6.0f}  {m[1]:14.3f}  {m[2]:14.2f}  {m[3]:12.2f}%  {m[4]:11.1f}%  {m[5]:9.1f}%")
EOF
