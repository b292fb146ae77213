#!/usr/bin/env python3
"""Readers of results files: values that cannot be times are
refused with the line and column, and a UTF-8 byte-order mark is read.

usage:
  readers_check.py bad MPIBEX DIR TOOL FILE COLUMN VALUE
      writes two results files with observations (A, B) into DIR, puts
      VALUE into COLUMN of FILE ('results' or 'obs' of A) at line 3, runs
      TOOL (merge, compare or report); passes when it exits 2 with one line
      on stderr naming A's file, line 3 and COLUMN, and writes no output.
  readers_check.py bom MPIBEX DIR
      the same files, each starting with a UTF-8 byte-order mark: merge,
      compare and report read them as without it.
  readers_check.py plan MPIBEX DIR LAUNCHER...
      `run PLAN.ini` with a plan that starts with a byte-order mark."""
import os
import shutil
import subprocess
import sys

RESULTS = ("benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,"
           "stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,"
           "timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,"
           "refined,validated").split(",")
OBS = ["benchmark", "procs", "bytes", "obs", "time_us", "label", "root", "param"]
BOM = "\ufeff"
fails = []


def fail(msg):
    print("FAIL:", msg)
    fails.append(msg)


def results_rows(scale):
    rows = []
    for b in (8, 64, 512):
        med = scale * (1 + b / 512)
        r = dict.fromkeys(RESULTS, "")
        r.update(benchmark="pingpong.send_recv", procs="2", bytes=str(b), n="12",
                 mean_us=f"{med:.4f}", tmean_us=f"{med:.4f}", median_us=f"{med:.4f}",
                 min_us="0.5", max_us="9", ci95_lo_us=f"{med * 0.9:.4f}",
                 ci95_hi_us=f"{med * 1.1:.4f}", status="SETTLED", stop_rule="stderr:0.03",
                 bandwidth_MBps=f"{b / med:.3f}", timing="half_round_trip", label="cli",
                 ranks="0-1", refined="0", validated="no")
        rows.append(r)
    return rows


def obs_rows(scale):
    rows = []
    for b in (8, 64, 512):
        for i in range(12):
            t = scale * (1 + b / 512) * (1 + 0.01 * i)
            rows.append(dict(benchmark="pingpong.send_recv", procs="2", bytes=str(b), obs=str(i),
                             time_us=f"{t:.4f}", label="cli", root="", param=""))
    return rows


def write(path, cols, rows, prefix=""):
    with open(path, "w", newline="") as f:
        f.write(prefix + ",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(r[c] for c in cols) + "\n")


def fixtures(d, bom=False, edit=None):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    pre = BOM if bom else ""
    for name, scale in (("A", 1.0), ("B", 2.0)):
        res, obs = results_rows(scale), obs_rows(scale)
        if edit is not None and name == "A":
            which, col, value = edit
            (res if which == "results" else obs)[1][col] = value
        write(os.path.join(d, name + ".csv"), RESULTS, res, pre)
        write(os.path.join(d, name + ".obs.csv"), OBS, obs, pre)


def command(mpibex, d, tool):
    a, b = os.path.join(d, "A.csv"), os.path.join(d, "B.csv")
    if tool == "merge":
        return [mpibex, "merge", a, b, "-o", os.path.join(d, "merge.csv")]
    if tool == "compare":
        return [mpibex, "compare", a, b, "-o", os.path.join(d, "compare.csv")]
    return [mpibex, "report", a, "-o", os.path.join(d, "out")]


def bad(mpibex, d, tool, which, col, value):
    fixtures(d, edit=(which, col, value))
    p = subprocess.run(command(mpibex, d, tool), capture_output=True, text=True)
    err = p.stderr
    print(f"exit {p.returncode}; stderr: {err!r}")
    if p.returncode != 2:
        fail(f"exit {p.returncode}, want 2")
    if err.count("\n") != 1 or not err.endswith("\n"):
        fail("want exactly one line on stderr")
    name = "A.obs.csv" if which == "obs" else "A.csv"
    if f"/{name}:3: {col}: expected " not in err:
        fail(f"stderr does not name {name}, line 3 and column {col}")
    if " <= " not in err:
        fail("stderr does not give the allowed range")
    for out in ("merge.csv", "compare.csv", "out"):
        if os.path.exists(os.path.join(d, out)):
            fail(f"a refused input left {out} behind")


def bom(mpibex, d):
    plain = d + "_plain"
    outs = {}
    for where, with_bom in ((plain, False), (d, True)):
        fixtures(where, bom=with_bom)
        for tool in ("merge", "compare"):
            p = subprocess.run(command(mpibex, where, tool), capture_output=True, text=True)
            print(f"{tool} ({'BOM' if with_bom else 'plain'}): exit {p.returncode}; "
                  f"stderr: {p.stderr.strip()!r}")
            if p.returncode != 0:
                fail(f"{tool} of files with{'' if with_bom else 'out'} a byte-order mark "
                     f"exited {p.returncode}")
            else:
                with open(os.path.join(where, tool + ".csv")) as f:
                    outs[(tool, with_bom)] = f.read()
        p = subprocess.run(command(mpibex, where, "report"), capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"report exited {p.returncode}: {p.stderr.strip()}")
    for tool in ("merge", "compare"):
        a, b = outs.get((tool, False)), outs.get((tool, True))
        if a is None or b is None or a != b:
            fail(f"{tool}: the output differs with a byte-order mark")
        elif a.count("\n") != 4:
            fail(f"{tool}: {a.count(chr(10)) - 1} rows, want 3")
    shutil.rmtree(plain, ignore_errors=True)


def plan(mpibex, d, launcher):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ini, out = os.path.join(d, "bom.ini"), os.path.join(d, "out.csv")
    with open(ini, "w") as f:
        f.write(BOM + "[pp]\nbench = pingpong.send_recv\nsizes = 8,64\nnmax = 50\n")
    p = subprocess.run(launcher + [mpibex, "run", ini, "-q", "-o", out],
                       capture_output=True, text=True, timeout=100)
    print(f"exit {p.returncode}; stderr: {p.stderr.strip()!r}")
    if p.returncode != 0:
        fail(f"run --plan with a byte-order mark exited {p.returncode}")
    elif not os.path.exists(out):
        fail("no results file")
    else:
        with open(out) as f:
            rows = [r for r in f.read().splitlines()[1:] if r.startswith("pingpong.send_recv,")]
        if len(rows) != 2 or not all(",pp," in r for r in rows):
            fail(f"{len(rows)} rows labelled pp, want 2")


def main():
    mode, mpibex, d = sys.argv[1:4]
    if mode == "bad":
        tool, which, col, value = sys.argv[4:8]
        bad(mpibex, d, tool, which, col, value)
    elif mode == "bom":
        bom(mpibex, d)
    else:
        plan(mpibex, d, sys.argv[4:])
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
