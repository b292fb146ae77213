#!/usr/bin/env python3
"""A big results CSV through `mpibex merge`: memory must stay
bounded by the points, not grow with the file.

usage: readers_big.py MPIBEX DIR SIZE_MB MAX_RSS_MB

Writes DIR/big.csv of about SIZE_MB megabytes: 2000 points (a results
header and rows as `mpibex run` writes them) repeated, as a file of many
runs concatenated would hold them. Merges it and passes when merge exits 0,
reports every row, writes one row per point with runs = the repeat count,
and its peak resident memory (ru_maxrss) stays under MAX_RSS_MB."""
import os
import random
import resource
import subprocess
import sys
import time

HEADER = ("benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,"
          "stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,"
          "timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,"
          "refined,validated")
POINTS = 2000


def block(rng):
    rows = []
    for i in range(POINTS):
        med = 1.0 + rng.random() * 100
        rows.append(
            f"pingpong.send_recv,2,{8 * (i + 1)},1000,{med:.4f},{med:.4f},{med:.4f},0.9,250.5,"
            f"{med * 0.9:.4f},{med * 1.1:.4f},0.51,0.0123,{med * 0.99:.4f},{med * 1.01:.4f},3,"
            f"SETTLED,stderr:0.03,{8 * (i + 1) / med:.3f},half_round_trip,0.031,16,1000,4,0.25,"
            f"big,,,,,0-1,0,no")
    return "\n".join(rows) + "\n"


def main():
    mpibex, d, size_mb, max_rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(d, exist_ok=True)
    big, out = os.path.join(d, "big.csv"), os.path.join(d, "merged.csv")
    rng = random.Random(15)
    blocks = [block(rng) for _ in range(8)]
    reps = 0
    with open(big, "w") as f:
        f.write(HEADER + "\n")
        written = 0
        while written < size_mb * 1000000:
            b = blocks[reps % len(blocks)]
            f.write(b)
            written += len(b)
            reps += 1
    size = os.path.getsize(big)
    t0 = time.monotonic()
    p = subprocess.run([mpibex, "merge", big, "-o", out], capture_output=True, text=True)
    wall = time.monotonic() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"input {size / 1e6:.1f} MB, {reps * POINTS} rows; merge exit {p.returncode}, "
          f"{wall:.1f} s, peak RSS {rss_mb:.1f} MB (bound {max_rss} MB)")
    print("stderr:", p.stderr.strip())
    fails = []
    if p.returncode != 0:
        fails.append(f"merge exited {p.returncode}")
    else:
        if f"{reps * POINTS} points" not in p.stderr:
            fails.append("the summary does not count every row")
        with open(out) as f:
            lines = f.read().splitlines()
        cols = lines[0].split(",")
        runs = cols.index("runs")
        if len(lines) != POINTS + 1:
            fails.append(f"{len(lines) - 1} merged rows, want {POINTS}")
        elif any(int(r.split(",")[runs]) != reps for r in lines[1:]):
            fails.append(f"a merged row does not have runs = {reps}")
    if rss_mb > max_rss:
        fails.append(f"peak RSS {rss_mb:.1f} MB is over {max_rss} MB: merge holds the file")
    os.remove(big)
    if os.path.exists(out):
        os.remove(out)
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
