#!/usr/bin/env python3
"""Figures of bench/honesty.sh from the files it leaves in its output directory.

usage: honesty_analyze.py DIR [--mpibex PATH] [--shift R]

DIR holds (every part optional; a missing part is reported as n/a):
  launchK.csv  (+ .probe.csv, .obs.csv)  K = 1, 2, ...: the calibration plan,
               sections A and B of the same benchmarks (one fresh job each)
  timeK.csv, timeK.wall, osuK.txt, osuK.wall, imbK.txt, imbK.wall:
               the interleaved time comparison (wall = seconds of one launch)
  refine.csv   one job: sections refined, sqrt2 and dense
Columns are found by header name, so results of format_version 2 (43
columns) and 3 (passes, levels, ... appended) are read alike; the optional
columns are used when present. Rules: see bench/README.md.
Exit status: 0 with the figures (a target missed is a figure, not an error),
1 when the directory holds nothing to analyse, 2 on bad arguments.
"""
import csv
import glob
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

KEY = ("benchmark", "label", "procs", "bytes", "root", "op", "param")
TABLE = []  # (figure, value, target, met)


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
    files = glob.glob(os.path.join(d, "launch*.csv"))
    files = [f for f in files if re.fullmatch(r"launch\d+\.csv", os.path.basename(f))]
    return sorted(files, key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))


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


def group_levels(values, shift):
    """Launch index -> level number (1 = lowest). Sorted launch values are
    chained into one level while each is within `shift` (relative) of the
    level's lowest value; a launch without a value gets level 0."""
    known = sorted((v, i) for i, v in enumerate(values) if v is not None)
    level = [0] * len(values)
    cur, base = 0, None
    for v, i in known:
        if base is None or v > base * (1.0 + shift):
            cur += 1
            base = v
        level[i] = cur
    return level


def analyse_launches(d, shift, mpibex):
    files = launch_files(d)
    if not files:
        log("no launch*.csv in %s: calibration, spread, transient, fairness n/a" % d)
        for fig, tgt in (("calibration", ">= 90 %"), ("launch spread (worst size)", "<= 5 %"),
                         ("transient", "<= 5 %"), ("fairness", ">= 95 %")):
            TABLE.append((fig, "n/a", tgt, "n/a"))
        return False
    launches = [read_rows(f) for f in files]
    pts = [points(rows) for rows in launches]
    header = set(launches[0][0].keys()) if launches[0] else set()
    k = len(files)
    print("== %d launches: %s" % (k, ", ".join(os.path.basename(f) for f in files)))
    if "passes" in header:
        print("   format with passes: the CI is the between-pass one; iid CI in ci95_iid_*")

    # --- calibration
    keys = sorted(set().union(*[set(p) for p in pts]),
                  key=lambda t: (t[0], t[1], int(t[3] or 0), t[2], t[4], t[5], t[6]))
    center = {}
    for key in keys:
        meds = [num(p[key]["median_us"]) for p in pts if key in p]
        meds = [m for m in meds if m is not None]
        if len(meds) >= 2:
            center[key] = statistics.median(meds)

    def coverage(lo_col, hi_col):
        tot = hit = 0
        by_size = {}
        for p in pts:
            for key, m in center.items():
                if key not in p:
                    continue
                lo, hi = num(p[key].get(lo_col)), num(p[key].get(hi_col))
                if lo is None or hi is None:
                    continue
                ok = lo <= m <= hi
                tot += 1
                hit += ok
                s = by_size.setdefault(int(key[3]), [0, 0])
                s[0] += 1
                s[1] += ok
        return tot, hit, by_size

    tot, hit, by_size = coverage("ci95_lo_us", "ci95_hi_us")
    share = hit / tot if tot else None
    print("== Calibration: share of (launch, point) pairs whose [ci95_lo_us, ci95_hi_us]"
          " contains the median over all launches of median_us")
    print("calibration: %s of %d pairs (%d covered), %d points, %d launches (target >= 90 %%)"
          % (pct(share), tot, hit, len(center), k))
    for size in sorted(by_size):
        n, h = by_size[size]
        print("calibration at %s: %s of %d pairs" % (fmt_size(size), pct(h / n), n))
    if "ci95_iid_lo_us" in header:
        t2, h2, _ = coverage("ci95_iid_lo_us", "ci95_iid_hi_us")
        print("calibration of the within-burst iid CI (ci95_iid_*): %s of %d pairs"
              % (pct(h2 / t2 if t2 else None), t2))
    TABLE.append(("calibration (one launch's CI)", pct(share), ">= 90 %",
                  "n/a" if share is None else ("yes" if share >= 0.90 else "no")))
    repeat_calibration(files, mpibex)

    # --- launch spread within one level
    vals = [launch_level_value(f, rows) for f, rows in zip(files, launches)]
    lev = group_levels(vals, shift)
    print("== Launch spread: (max-min)/min of each point's median_us over the launches"
          " of one machine level")
    print("   level of a launch: median probe_us of its monitor (OUT.probe.csv, else the"
          " probe_us column); launches within %.0f %% of a level's lowest share it" % (100 * shift))
    for i, f in enumerate(files):
        extra = ""
        if "levels" in header:
            straddle = sum(1 for r in pts[i].values() if (num(r.get("levels")) or 0) > 1)
            extra = ", %d points straddle levels" % straddle
        v = vals[i]
        settled = sum(1 for r in pts[i].values() if r.get("status") == "SETTLED")
        print("launch %s: level %s (probe median %s us), %d of %d points SETTLED%s"
              % (os.path.basename(f)[6:-4], lev[i] if lev[i] else "unknown",
                 "n/a" if v is None else "%.3f" % v, settled, len(pts[i]), extra))
    counts = {}
    for lv in lev:
        counts[lv] = counts.get(lv, 0) + 1
    main = sorted(counts, key=lambda lv: (-counts[lv], lv))[0]
    members = [i for i in range(k) if lev[i] == main]
    print("main level: %s, %d of %d launches"
          % (main if main else "unknown", len(members), k))

    def in_level(r, lv):
        """The row's own probes (before and after it) lie within shift of lv."""
        probes = [num(r.get(c)) for c in ("probe_us", "probe_after_us")]
        probes = [x for x in probes if x is not None]
        return bool(probes) and all(abs(x - lv) <= shift * lv for x in probes)

    def one_level(r):
        """The point's passes ran at one level (no levels column: unknown, kept)."""
        return (num(r.get("levels")) or 1) <= 1

    def spreads(idx, lv=None, strict=False):
        by = {}
        for key in center:
            meds = [num(pts[i][key]["median_us"]) for i in idx
                    if key in pts[i] and (lv is None or in_level(pts[i][key], lv))
                    and (not strict or one_level(pts[i][key]))]
            meds = [m for m in meds if m is not None]
            if len(meds) < 2 or min(meds) <= 0:
                continue
            by.setdefault(int(key[3]), []).append((max(meds) - min(meds)) / min(meds))
        return by

    worst = None
    if len(members) >= 2:
        by = spreads(members)
        allby = spreads(range(k))
        for size in sorted(by):
            print("spread at %s: %s within level %s (all launches: %s), median over the size's"
                  " %d points %s" % (fmt_size(size), pct(max(by[size])), main,
                                     pct(max(allby[size])), len(by[size]),
                                     pct(statistics.median(by[size]))))
        worst = max(max(v) for v in by.values()) if by else None
        mvals = [vals[i] for i in members if vals[i] is not None]
        if mvals:
            lv = statistics.median(mvals)
            def show(by, what):
                """Per size the worst and median spread, then the worst size."""
                for size in sorted(by):
                    print("spread at %s, %s: %s (median over %d points %s)"
                          % (fmt_size(size), what, pct(max(by[size])), len(by[size]),
                             pct(statistics.median(by[size]))))
                worst = max(max(v) for v in by.values()) if by else None
                print("launch spread, %s, worst size: %s" % (what, pct(worst)))
                return worst

            print("   points whose own probes (probe_us, probe_after_us) lie within %.0f %% of"
                  " level %s's %.3f us, launches of level %s only:" % (100 * shift, main, lv, main))
            pw = show(spreads(members, lv), "point-level filtered")
            print("   of those, the points whose passes all ran at one level (levels <= 1):")
            sw = show(spreads(members, lv, strict=True), "one level throughout")
            TABLE.append(("launch spread, one level throughout", pct(sw), "<= 5 %",
                          "n/a" if sw is None else ("yes" if sw <= 0.05 else "no")))
            TABLE.append(("launch spread, point-level filtered", pct(pw), "<= 5 %",
                          "n/a" if pw is None else ("yes" if pw <= 0.05 else "no")))
        print("launch spread, worst size: %s within level %s (target <= 5 %% at every size)"
              % (pct(worst), main))
    else:
        print("launch spread: n/a (fewer than 2 launches in one level)")
    TABLE.append(("launch spread (worst size)", pct(worst), "<= 5 %",
                  "n/a" if worst is None else ("yes" if worst <= 0.05 else "no")))

    # --- transient
    print("== Transient: first point above 4 KiB of each fresh job against its twin"
          " (same point, other plan section) measured later in the job")
    if "passes" in header:
        print("   rows with passes are written when a point is complete: row order is not"
              " measurement order; the worst pair over all sizes > 4 KiB is the bound to read")
    firsts, pairs_all = [], []
    for f, rows, p in zip(files, launches, pts):
        name = os.path.basename(f)[6:-4]
        first = None
        for r in rows:
            if int(r["bytes"] or 0) > 4096 and num(r["median_us"]) is not None:
                first = r
                break
        for key, r in p.items():
            if int(key[3] or 0) <= 4096:
                continue
            for key2, r2 in p.items():
                if key2 != key and key2[:1] + key2[2:] == key[:1] + key[2:] and r2["_idx"] > r["_idx"]:
                    a, b = num(r["median_us"]), num(r2["median_us"])
                    if a is not None and b:
                        pairs_all.append((a - b) / b)
        if first is None:
            print("launch %s: no point above 4 KiB" % name)
            continue
        twin = None
        for key2, r2 in p.items():
            if key2 != first["_key"] and key2[:1] + key2[2:] == first["_key"][:1] + first["_key"][2:] \
                    and r2["_idx"] > first["_idx"]:
                twin = r2
        if twin is None or not num(twin["median_us"]):
            print("launch %s: first point above 4 KiB has no later twin" % name)
            continue
        a, b = num(first["median_us"]), num(twin["median_us"])
        rel = (a - b) / b
        firsts.append(rel)
        print("launch %s: first %s %s [%s] %.3f us, later [%s] %.3f us: %+.1f %%"
              % (name, first["benchmark"], fmt_size(first["bytes"]), first["label"], a,
                 twin["label"], b, 100 * rel))
    tworst = max(abs(x) for x in firsts) if firsts else None
    if firsts:
        print("transient: median %+.1f %%, worst %s (absolute) over %d jobs (target <= 5 %%)"
              % (100 * statistics.median(firsts), pct(tworst), len(firsts)))
    if pairs_all:
        print("twin pairs above 4 KiB (noise floor): median |diff| %s, worst %s over %d pairs"
              % (pct(statistics.median(abs(x) for x in pairs_all)),
                 pct(max(abs(x) for x in pairs_all)), len(pairs_all)))
    TABLE.append(("transient (worst job)", pct(tworst), "<= 5 %",
                  "n/a" if tworst is None else ("yes" if tworst <= 0.05 else "no")))

    # --- fairness
    fairness(files, launches, mpibex)
    return True


def merged_ci(mpibex, files, out):
    """`mpibex merge` of the launch files: key -> (ci95_lo_us, ci95_hi_us)."""
    res = subprocess.run([mpibex, "merge"] + list(files) + ["-o", out, "--force"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        log("merge failed (%d): %s" % (res.returncode, res.stderr.strip()))
        return None
    ci = {}
    for r in read_rows(out):
        lo, hi = num(r.get("ci95_lo_us")), num(r.get("ci95_hi_us"))
        if lo is not None and hi is not None:
            ci[r["_key"]] = (lo, hi)
    return ci


def repeat_calibration(files, mpibex, k=5):
    """The CI over K launches (what `mpibex repeat -k K` writes: merge's
    ci95_lo_us, ci95_hi_us over the launches' medians) against the median of
    the OTHER launches: every K-subset of the launches (all of them up to
    252, else 252 drawn with a fixed seed) is one repeat."""
    print("== Calibration over launches: the CI of `mpibex merge` over %d launches (as"
          " `mpibex repeat -k %d` writes it) against the median of the other launches" % (k, k))
    if not mpibex:
        print("calibration over launches: n/a (no --mpibex to run merge)")
        TABLE.append(("calibration (repeat -k %d CI)" % k, "n/a", ">= 90 %", "n/a"))
        return
    if len(files) < k + 2:
        print("calibration over launches: n/a (%d launches; needs at least %d)"
              % (len(files), k + 2))
        TABLE.append(("calibration (repeat -k %d CI)" % k, "n/a", ">= 90 %", "n/a"))
        return
    import itertools
    import random
    subsets = list(itertools.combinations(range(len(files)), k))
    if len(subsets) > 252:
        subsets = random.Random(16).sample(subsets, 252)
    pts = [points(read_rows(f)) for f in files]
    tmp = tempfile.mkdtemp(prefix="honesty-repeat-")
    tot = hit = 0
    by_size = {}
    for j, sub in enumerate(subsets):
        ci = merged_ci(mpibex, [files[i] for i in sub], os.path.join(tmp, "m%d.csv" % j))
        if ci is None:
            continue
        others = [i for i in range(len(files)) if i not in sub]
        for key, (lo, hi) in ci.items():
            meds = [num(pts[i][key]["median_us"]) for i in others if key in pts[i]]
            meds = [m for m in meds if m is not None]
            if not meds:
                continue
            ok = lo <= statistics.median(meds) <= hi
            tot += 1
            hit += ok
            s = by_size.setdefault(int(key[3] or 0), [0, 0])
            s[0] += 1
            s[1] += ok
    share = hit / tot if tot else None
    print("calibration over launches: %s of %d (repeat, point) pairs, %d repeats of %d launches"
          " (target >= 90 %%)" % (pct(share), tot, len(subsets), k))
    for size in sorted(by_size):
        n, h = by_size[size]
        print("calibration over launches at %s: %s of %d" % (fmt_size(size), pct(h / n), n))
    TABLE.append(("calibration (repeat -k %d CI)" % k, pct(share), ">= 90 %",
                  "n/a" if share is None else ("yes" if share >= 0.90 else "no")))


def write_split(src_rows, header, keep, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in src_rows:
            if keep(r):
                w.writerow([r.get(h, "") for h in header])


def split_launch(csv_path, tmp, tag, parts):
    """Parts of one launch as results files with their observations:
    parts maps a name to a row filter."""
    with open(csv_path, newline="", encoding="utf-8-sig") as f:
        rd = csv.DictReader(f)
        header, rows = rd.fieldnames, list(rd)
    obs = csv_path[:-4] + ".obs.csv"
    orows = oh = None
    if os.path.exists(obs):
        with open(obs, newline="", encoding="utf-8-sig") as f:
            rd = csv.DictReader(f)
            oh, orows = rd.fieldnames, list(rd)
    out = {}
    for name, keep in parts.items():
        p = os.path.join(tmp, "%s-%s.csv" % (tag, name))
        write_split(rows, header, keep, p)
        if orows is not None:
            write_split(orows, oh, keep, p[:-4] + ".obs.csv")
        out[name] = p
    return out


def compare_verdicts(mpibex, a, b, ignore="label"):
    out = a + ".cmp.csv"
    res = subprocess.run([mpibex, "compare", a, b, "--ignore", ignore, "-q", "--force",
                          "-o", out], capture_output=True, text=True)
    if res.returncode != 0:
        log("compare %s %s failed (%d): %s" % (a, b, res.returncode, res.stderr.strip()))
        return None, ""
    kind = re.search(r"A: .*\((.*?)\), B:", res.stdout + res.stderr)
    with open(out, newline="") as f:
        return [r["verdict"] for r in csv.DictReader(f)], kind.group(1) if kind else "?"


def fairness(files, launches, mpibex):
    print("== Fairness: sections A and B of the same benchmarks, interleaved in one run;"
          " mpibex compare A B (Wilcoxon, alpha 0.05) on pass medians, the test of the"
          " explorer's compare view; Send vs Ssend at 1 B (section S) must be found")
    if not mpibex:
        print("fairness: n/a (no --mpibex to run compare)")
        TABLE.append(("fairness", "n/a", ">= 95 %", "n/a"))
        return
    labels = set(r.get("label") for rows in launches for r in rows)
    if not {"A", "B"} <= labels:
        print("fairness: n/a (launches lack sections A and B)")
        TABLE.append(("fairness", "n/a", ">= 95 %", "n/a"))
        return
    tmp = tempfile.mkdtemp(prefix="honesty-fair-")
    tot = same = 0
    found = tried = 0
    if all(os.path.exists(f[:-4] + ".obs.csv") for f in files):
        for f in files:
            name = os.path.basename(f)[6:-4]
            s = split_launch(f, tmp, os.path.basename(f)[:-4], {
                "A": lambda r: r.get("label") == "A",
                "B": lambda r: r.get("label") == "B",
                "send1": lambda r: r.get("label") == "A" and r.get("bytes") == "1" and
                r.get("benchmark") == "pingpong.send_recv",
                "ssend1": lambda r: r.get("label") == "S" and r.get("bytes") == "1"})
            v, kind = compare_verdicts(mpibex, s["A"], s["B"])
            if v is None:
                continue
            n = sum(1 for x in v if x == "=")
            tot += len(v)
            same += n
            line = "launch %s (%s): Send vs Send not distinguishable at %d of %d points" % (
                name, kind, n, len(v))
            if "S" in labels:
                w, _ = compare_verdicts(mpibex, s["send1"], s["ssend1"], "benchmark,label")
                if w:
                    tried += 1
                    found += w[0] == "<"
                    line += "; Send vs Ssend at 1 B: %s" % {
                        "<": "A faster", ">": "A slower", "=": "same"}.get(w[0], w[0])
            print(line)
    share = same / tot if tot else None
    print("fairness within a launch: %s of %d points not distinguishable (target >= 95 %%)"
          % (pct(share), tot))
    TABLE.append(("fairness Send vs Send (pass medians)", pct(share), ">= 95 %",
                  "n/a" if share is None else ("yes" if share >= 0.95 else "no")))
    if tried:
        print("Send vs Ssend at 1 B: Send found faster in %d of %d launches" % (found, tried))
        TABLE.append(("Send vs Ssend at 1 B found", "%d of %d" % (found, tried), "every launch",
                      "yes" if found == tried else "no"))


def read_wall(path):
    try:
        with open(path) as f:
            return float(f.read().strip())
    except (OSError, ValueError):
        return None


def parse_osu(path):
    """osu_latency's table: 'size latency' lines after '# Size'."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"^\s*(\d+)\s+([0-9.]+)\s*$", line)
                if m:
                    out[int(m.group(1))] = float(m.group(2))
    except OSError:
        pass
    return out


def parse_imb(path):
    """IMB-MPI1 PingPong: '#bytes #repetitions t[usec] Mbytes/sec' lines."""
    out = {}
    on = False
    try:
        with open(path) as f:
            for line in f:
                if "Benchmarking" in line:
                    on = "PingPong" in line
                m = re.match(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s*$", line)
                if on and m:
                    out[int(m.group(1))] = float(m.group(3))
    except OSError:
        pass
    return out


def analyse_time(d):
    walls = sorted(glob.glob(os.path.join(d, "time*.wall")),
                   key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))
    print("== Time: default 1 B - 4 MiB pingpong.send_recv curve (stderr:3%) against"
          " osu_latency's default run, launches interleaved")
    if not walls:
        print("time: n/a")
        TABLE.append(("time mpibex/osu", "n/a", "<= 1.00", "n/a"))
        return
    mw, ow, iw, ratios = [], [], [], []
    mcurves, ocurves, icurves = [], [], []
    settled = total = 0
    for f in walls:
        i = re.findall(r"\d+", os.path.basename(f))[0]
        m = read_wall(f)
        o = read_wall(os.path.join(d, "osu%s.wall" % i))
        im = read_wall(os.path.join(d, "imb%s.wall" % i))
        line = "launch %s: mpibex %s s" % (i, "n/a" if m is None else "%.2f" % m)
        if m is not None:
            mw.append(m)
        if o is not None:
            ow.append(o)
            line += ", osu_latency %.2f s" % o
            if m is not None:
                ratios.append(m / o)
                line += ", ratio %.2f" % (m / o)
        if im is not None:
            iw.append(im)
            line += ", IMB-MPI1 PingPong %.2f s" % im
        c = os.path.join(d, "time%s.csv" % i)
        if os.path.exists(c):
            raw = read_rows(c)
            v = launch_level_value(c, raw)
            if v is not None:
                line += ", mpibex probe median %.3f us" % v
        print(line)
        if os.path.exists(c):
            rows = points(raw)
            mcurves.append({int(k[3]): num(r["median_us"]) for k, r in rows.items()})
            total += len(rows)
            settled += sum(1 for r in rows.values() if r.get("status") == "SETTLED")
        ocurves.append(parse_osu(os.path.join(d, "osu%s.txt" % i)))
        icurves.append(parse_imb(os.path.join(d, "imb%s.txt" % i)))
    ratio = statistics.median(mw) / statistics.median(ow) if mw and ow else None
    print("time: mpibex median %s s, osu_latency median %s s, ratio mpibex/osu %s"
          " (per-launch ratios: median %s) (target <= 1.00)"
          % ("%.2f" % statistics.median(mw) if mw else "n/a",
             "%.2f" % statistics.median(ow) if ow else "n/a",
             "n/a" if ratio is None else "%.2f" % ratio,
             "%.2f" % statistics.median(ratios) if ratios else "n/a"))
    if iw:
        print("time: IMB-MPI1 PingPong median %.2f s" % statistics.median(iw))
    if total:
        print("time curve: %d of %d points SETTLED (%s)" % (settled, total, pct(settled / total)))

    def med_curve(curves):
        sizes = set().union(*[set(c) for c in curves]) if curves else set()
        out = {}
        for s in sizes:
            v = [c[s] for c in curves if c.get(s) is not None]
            if v:
                out[s] = statistics.median(v)
        return out

    mc, oc, ic = med_curve(mcurves), med_curve(ocurves), med_curve(icurves)
    common = sorted(set(mc) & set(oc))
    if common:
        print("   size      mpibex us   osu us   mpibex/osu%s" % ("   IMB us" if ic else ""))
        for s in common:
            r = mc[s] / oc[s] if oc[s] else float("nan")
            extra = ("   %8.3f" % ic[s]) if s in ic else ""
            print("   %-8s %10.3f %8.3f   %6.2f%s" % (fmt_size(s), mc[s], oc[s], r, extra))
    TABLE.append(("time mpibex/osu (wall)", "n/a" if ratio is None else "%.2f" % ratio,
                  "<= 1.00", "n/a" if ratio is None else ("yes" if ratio <= 1.0 else "no")))


def interp_errors(curve, ref, tool):
    """Relative errors of `curve` (sorted (bytes, us)) at the reference
    points inside its range, ascending, by refinement's own log-log
    criterion: the C function itself, through `tool` (mbx_interp_errors,
    bench/interp_errors.c)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, c in (("curve", curve), ("ref", ref)):
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w") as f:
                f.writelines("%d %r\n" % (x, y) for x, y in c)
        out = subprocess.run([tool] + paths, check=True, capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def analyse_refine(d, mpibex):
    path = os.path.join(d, "refine.csv")
    tool = os.path.join(os.path.dirname(mpibex), "mbx_interp_errors") if mpibex else None
    print("== Refinement: refined 1 B - 4 MiB pingpong curve at 5 % against a fixed sqrt(2)"
          " grid, worst log-log interpolation error against a dense curve of the same job")
    if not os.path.exists(path) or not tool or not os.access(tool, os.X_OK):
        print("refinement: n/a (%s)" % ("no refine.csv" if not os.path.exists(path) else
                                        "needs --mpibex with mbx_interp_errors beside it"))
        TABLE.append(("refinement", "n/a", "fewer points, worst err <= 1.1x", "n/a"))
        return
    curves = {}
    for r in points(read_rows(path)).values():
        m = num(r["median_us"])
        if m is not None:
            curves.setdefault(r["label"], []).append((int(r["bytes"]), m))
    for c in curves.values():
        c.sort()
    ref = curves.get("dense", [])
    res = {}
    for lab in ("refined", "sqrt2"):
        c = curves.get(lab, [])
        if len(c) < 2 or not ref:
            print("%s: n/a" % lab)
            continue
        e = interp_errors(c, ref, tool)
        res[lab] = (len(c), e[-1], e[int(0.95 * (len(e) - 1))])
        print("%s: %d points, worst interpolation error %s, 95th percentile %s (%d dense points)"
              % (lab, len(c), pct(e[-1]), pct(res[lab][2]), len(e)))
    if len(res) == 2:
        (nr, wr, _), (ns, ws, _) = res["refined"], res["sqrt2"]
        ok = nr < ns and wr <= 1.1 * ws
        val = "%d vs %d points, worst %s vs %s" % (nr, ns, pct(wr), pct(ws))
        TABLE.append(("refinement (refined vs sqrt2)", val, "fewer points, worst err <= 1.1x",
                      "yes" if ok else "no"))
    else:
        TABLE.append(("refinement", "n/a", "fewer points, worst err <= 1.1x", "n/a"))


def main(argv):
    d, mpibex, shift = None, None, 0.2
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a in ("--mpibex", "--shift") and i + 1 < len(argv):
            if a == "--mpibex":
                mpibex = argv[i + 1]
            else:
                shift = num(argv[i + 1])
                if shift is None or not 0.01 <= shift <= 10:
                    print("honesty_analyze: --shift: expected 0.01..10 (got '%s')" % argv[i + 1],
                          file=sys.stderr)
                    return 2
            i += 2
            continue
        if a.startswith("-") or d is not None:
            print("honesty_analyze: unexpected argument '%s' (usage: honesty_analyze.py DIR"
                  " [--mpibex PATH] [--shift R])" % a, file=sys.stderr)
            return 2
        d = a
        i += 1
    if d is None or not os.path.isdir(d):
        print("honesty_analyze: DIR: expected a directory of bench/honesty.sh results (got '%s')"
              % d, file=sys.stderr)
        return 2
    any_launch = analyse_launches(d, shift, mpibex)
    analyse_time(d)
    analyse_refine(d, mpibex)
    print("== Summary")
    w = max(len(t[0]) for t in TABLE)
    wv = max(len(t[1]) for t in TABLE)
    print("%-*s  %-*s  %-32s  %s" % (w, "figure", wv, "value", "target", "met?"))
    for fig, val, tgt, met in TABLE:
        print("%-*s  %-*s  %-32s  %s" % (w, fig, wv, val, tgt, met))
    have = any_launch or glob.glob(os.path.join(d, "time*.wall")) or \
        os.path.exists(os.path.join(d, "refine.csv"))
    return 0 if have else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
