#!/usr/bin/env bash
# Adaptive refinement against a fixed sqrt(2) grid, 1 B - 4 MiB Send/Recv on
# 2 ranks: points, wall time, the worst segment prediction error each run
# reports, and the worst (and 95th percentile) interpolation error against a
# dense reference curve (factor 1.1) measured in the same session.
# usage: bench/refine_figures.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-2}
mpibex=$build/mpibex
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

python3 - "$dir" "$rounds" <<'EOF'
import bisect, csv, re, sys
d, rounds = sys.argv[1], int(sys.argv[2])

def curve(path):
    rows = list(csv.DictReader(open(path)))
    pts = sorted((int(r["bytes"]), float(r["median_us"])) for r in rows)
    return pts, sum(float(r["wall_s"]) for r in rows)

def interp_errors(pts, ref):
    xs = [p[0] for p in pts]
    errs = []
    for x, y in ref:
        i = bisect.bisect_left(xs, x)
        if i < len(xs) and xs[i] == x:
            yi = pts[i][1]
        elif 0 < i < len(xs):
            (x0, y0), (x1, y1) = pts[i - 1], pts[i]
            yi = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        else:
            continue
        errs.append(abs(yi - y) / y)
    errs.sort()
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
