"""Reading the files bench/honesty.sh leaves: results CSVs found by column
name (format_version 2, 3 and later alike), their observation files, the
probe series. Shared by honesty_analyze.py and honesty_timing.py."""
import csv
import glob
import os
import re
import statistics
import sys

KEY = ("benchmark", "label", "procs", "bytes", "root", "op", "param")
BAD = ("INVALID", "HUNG", "UNRELIABLE")  # rows without a usable value
OBS_KEY = ("benchmark", "label", "procs", "bytes", "root", "param")  # the key obs rows carry



def log(msg):
    print("honesty: " + msg, file=sys.stderr, flush=True)


def num(s):
    try:
        return float(s) if s not in (None, "") else None
    except ValueError:
        return None


def fmt_size(b):
    b = int(b)
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0:
            return "%d %s" % (b // f, unit)
    return "%d B" % b


def pct(x):
    return "n/a" if x is None else "%.1f %%" % (100.0 * x)


def read_rows(path):
    """Rows in file order; each gets _idx (its position) and _key."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    for i, r in enumerate(rows):
        r["_idx"] = i
        r["_key"] = tuple(r.get(k, "") for k in KEY)
    return rows


def points(rows):
    """key -> row; a remeasured point has two rows, the later one counts."""
    out = {}
    for r in rows:
        out[r["_key"]] = r
    return out


def launch_files(d):
    """A directory's launches in order: `launch-NN.csv` (mpibex repeat,
    bench/honesty.sh) or `launchN.csv` (earlier honesty.sh runs)."""
    files = [f for f in glob.glob(os.path.join(d, "launch*.csv"))
             if re.fullmatch(r"launch-?\d+\.csv", os.path.basename(f))]
    return sorted(files, key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))


def value(row):
    """(median, err) of a usable row, else None. err is the launch-scoped
    error: stderr_launch_us, else stderr_us of a launch-scoped row, else
    the CI's half-width / 1.96, else None (one pass: no error). A profile
    row of a file without stderr_launch_us has no launch-scoped err (its
    stderr_us holds the profile's launch component too): None."""
    if row is None or row.get("status") in BAD:
        return None
    m = num(row.get("median_us"))
    if m is None or m <= 0:
        return None
    e = num(row.get("stderr_launch_us"))
    if e is None and "stderr_launch_us" not in row and row.get("ci_scope") == "profile":
        return m, None
    if e is None:
        e = num(row.get("stderr_us"))
    if e is None:
        lo, hi = num(row.get("ci95_lo_us")), num(row.get("ci95_hi_us"))
        if lo is not None and hi is not None and hi > lo:
            e = (hi - lo) / (2 * 1.959963984540054)
    return m, e


def pass_medians(csv_path):
    """OUT.obs.csv beside a results file: result key -> the medians of its
    passes in measured order (a file without a pass column: {}); None when
    there is no observation file."""
    obs = csv_path[:-4] + ".obs.csv"
    if not os.path.exists(obs):
        return None
    by = {}
    with open(obs, newline="", encoding="utf-8-sig") as f:
        rd = csv.reader(f)
        head = next(rd, [])
        if "pass" not in head or "time_us" not in head:
            return {}
        ki = [head.index(k) if k in head else None for k in OBS_KEY]
        pi, ti = head.index("pass"), head.index("time_us")
        for r in rd:
            key = tuple(r[i] if i is not None else "" for i in ki)
            t = num(r[ti])
            if t is not None:
                by.setdefault(key, {}).setdefault(int(r[pi]), []).append(t)
    return {k: [statistics.median(v[p]) for p in sorted(v)] for k, v in by.items()}


def obs_key(key):
    """The part of a result key (KEY) that an observation row carries."""
    return tuple(key[KEY.index(k)] for k in OBS_KEY)


def launch_level_value(csv_path, rows):
    """A launch's machine level: the median probe of its monitor.

    OUT.probe.csv (every probe of the run) when it exists, else the rows'
    probe_us column (the probe before each point); None without a monitor."""
    probe = csv_path[:-4] + ".probe.csv"
    vals = []
    if os.path.exists(probe):
        with open(probe, newline="") as f:
            vals = [num(r.get("probe_us")) for r in csv.DictReader(f)]
    vals = [v for v in vals if v is not None]
    if not vals:
        vals = [num(r.get("probe_us")) for r in rows]
        vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


