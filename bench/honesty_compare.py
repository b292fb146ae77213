"""The comparison figures of bench/honesty.sh, from its fresh launches:

* identical settings: the fresh launches split into two interleaved halves
  (odd, even), two `repeat`-style directories of the same plan; `mpibex
  compare` on them (the share of points it calls different), and this
  analysis's own equivalence test (TOST on the log ratio within +-5 %);
* Send vs Ssend at 1 B: the plan's section of pingpong.ssend_recv at 1 B
  against pingpong.send_recv at 1 B of the same launches, as two launch
  directories: `mpibex compare` must find them different;
* two single runs (two launch files with their observations): what compare
  says; the issue's rule is that it gives no machine-level verdict.

compare's output is read from its CSV (`-o`) by column name, so columns it
adds (q-values, equivalence) are shown when present; its printed summary is
shown as it is. Rules: bench/README.md."""
import csv
import math
import os
import shutil
import subprocess

import honesty_stats as hs
from honesty_io import fmt_size, log, pct, value

DIFFERENT_WORDS = ("faster", "slower", "differ")


def called_different(verdict):
    v = (verdict or "").strip().lower()
    return v in ("<", ">") or any(w in v for w in DIFFERENT_WORDS)


def run_compare(mpibex, a, b, out, extra=()):
    """mpibex compare A B -o OUT -q [extra]: (rows of OUT or None, exit code,
    the lines it printed)."""
    res = subprocess.run([mpibex, "compare", a, b, "-q", "-o", out] + list(extra),
                         capture_output=True, text=True)
    lines = [x for x in (res.stdout + res.stderr).splitlines() if x.strip()]
    if res.returncode != 0 or not os.path.exists(out):
        return None, res.returncode, lines
    with open(out, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f)), 0, lines


def extra_columns(rows):
    """What compare added beyond the verdict: equivalence, q-value columns,
    shown as value counts (equivalence) or the smallest value (q)."""
    out = []
    if not rows:
        return out
    for col in rows[0]:
        lc = col.lower()
        vals = [r[col] for r in rows if r.get(col, "") != ""]
        if ("equiv" in lc or "tost" in lc) and vals:
            counts = {}
            for v in vals:
                counts[v] = counts.get(v, 0) + 1
            out.append("%s: %s" % (col, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
        elif (lc.startswith("q_") or lc in ("q", "qvalue", "q_value")) and vals:
            try:
                out.append("%s: smallest %.3g" % (col, min(float(v) for v in vals)))
            except ValueError:
                pass
    return out


def write_launch_dir(path, files, keep=None):
    """A directory of launches (launch-NN.csv) from launch files; with keep,
    only the rows keep(row) accepts."""
    os.makedirs(path)
    for n, f in enumerate(files, 1):
        dst = os.path.join(path, "launch-%02d.csv" % n)
        if keep is None:
            shutil.copyfile(f, dst)
            continue
        with open(f, newline="", encoding="utf-8-sig") as fi, open(dst, "w", newline="") as fo:
            rd = csv.DictReader(fi)
            w = csv.DictWriter(fo, rd.fieldnames, lineterminator="\n")
            w.writeheader()
            for r in rd:
                if keep(r):
                    w.writerow(r)


def tost_figures(fresh, reps):
    """Per point, TOST of the odd against the even fresh launches' log
    medians; the share found equivalent with its bootstrap CI over launches
    (each half resampled apart)."""
    a, b = fresh[0::2], fresh[1::2]
    keys = sorted(set().union(*[set(x["pts"]) for x in fresh]),
                  key=lambda k: (k[0], int(k[3] or 0)))
    logs = {}
    for key in keys:
        ya = [value(x["pts"].get(key)) for x in a]
        yb = [value(x["pts"].get(key)) for x in b]
        logs[key] = ([math.log(v[0]) if v else None for v in ya],
                     [math.log(v[0]) if v else None for v in yb])

    def share(ca, cb):
        n = eq = 0
        for la, lb in logs.values():
            xa = [y for y, w in zip(la, ca) if y is not None for _ in range(w)]
            xb = [y for y, w in zip(lb, cb) if y is not None for _ in range(w)]
            t = hs.tost(xa, xb)
            if t is not None:
                n += 1
                eq += t[3]
        return (eq / n, n) if n else (None, 0)

    for key, (la, lb) in logs.items():
        t = hs.tost([y for y in la if y is not None], [y for y in lb if y is not None])
        if t:
            print("equivalence %s %s: ratio %.4f, 90 %% CI [%.4f, %.4f]: %s"
                  % (key[0], fmt_size(key[3] or 0), math.exp(t[0]), math.exp(t[1]),
                     math.exp(t[2]), "equivalent within 5 %" if t[3] else "not shown equivalent"))
    s, n = share([1] * len(a), [1] * len(b))
    lo, hi = hs.bootstrap_strata([len(a), len(b)], lambda cs: share(*cs)[0], reps, seed=5)
    return s, n, lo, hi


def analyse_compare(fresh, mpibex, tmp, table, reps):
    print("== Compare: the fresh launches as two interleaved directories of identical"
          " settings (odd, even launches), Send vs Ssend at 1 B, two single runs")
    if len(fresh) < 4:
        print("compare: n/a (%d fresh launches; needs at least 4)" % len(fresh))
        table.append(("identical settings: equivalent (TOST 5 %)", "n/a", ">= 95 %", "n/a"))
        return
    s, n, lo, hi = tost_figures(fresh, reps)
    print("identical settings, %d vs %d launches: %s of %d points shown equivalent within"
          " +-5 %% [bootstrap over launches %s, %s]"
          % (len(fresh[0::2]), len(fresh[1::2]), pct(s), n, pct(lo), pct(hi)))
    table.append(("identical settings: equivalent (TOST 5 %)",
                  "%s [%s, %s]" % (pct(s), pct(lo), pct(hi)), ">= 95 %",
                  "n/a" if s is None else ("yes" if s >= 0.95 else "no")))
    if not mpibex:
        print("compare: mpibex's own verdicts n/a (no --mpibex)")
        return
    files = [x["file"] for x in fresh]
    write_launch_dir(os.path.join(tmp, "same-a"), files[0::2])
    write_launch_dir(os.path.join(tmp, "same-b"), files[1::2])
    rows, rc, lines = run_compare(mpibex, os.path.join(tmp, "same-a"),
                                  os.path.join(tmp, "same-b"), os.path.join(tmp, "same.csv"))
    for x in lines:
        print("   compare: " + x)
    if rows is None:
        log("compare of the identical halves failed (exit %d)" % rc)
        table.append(("identical settings: called different", "n/a", "<= 5 %", "n/a"))
    else:
        k = sum(called_different(r.get("verdict")) for r in rows)
        wl, wh = hs.wilson(k, len(rows))
        print("identical settings: mpibex compare calls %d of %d points different (%s,"
              " Wilson %s .. %s: points share launches, so read it as optimistic)"
              % (k, len(rows), pct(k / len(rows)), pct(wl), pct(wh)))
        for x in extra_columns(rows):
            print("   compare's " + x)
        table.append(("identical settings: called different", "%d of %d" % (k, len(rows)),
                      "<= 5 %", "yes" if k <= 0.05 * len(rows) else "no"))
    send_ssend(files, mpibex, tmp, table)
    single_runs(fresh, mpibex, tmp, table)


def send_ssend(files, mpibex, tmp, table):
    def is1(bench):
        return lambda r: r.get("benchmark") == bench and r.get("bytes") == "1"

    write_launch_dir(os.path.join(tmp, "send1"), files, is1("pingpong.send_recv"))
    write_launch_dir(os.path.join(tmp, "ssend1"), files, is1("pingpong.ssend_recv"))
    rows, rc, lines = run_compare(mpibex, os.path.join(tmp, "send1"),
                                  os.path.join(tmp, "ssend1"), os.path.join(tmp, "ss.csv"),
                                  ["--ignore", "benchmark,label"])
    if not rows:
        print("Send vs Ssend at 1 B: n/a (compare exit %d: %s)" % (rc, " ".join(lines[-1:])))
        table.append(("Send vs Ssend at 1 B found", "n/a", "different", "n/a"))
        return
    r = rows[0]
    print("Send vs Ssend at 1 B over %d launches: medians %s / %s us, verdict '%s'"
          % (len(files), r.get("median_a_us"), r.get("median_b_us"), r.get("verdict")))
    ok = called_different(r.get("verdict"))
    table.append(("Send vs Ssend at 1 B found", r.get("verdict", "?"), "different",
                  "yes" if ok else "no"))


def single_runs(fresh, mpibex, tmp, table):
    a, b = fresh[0]["file"], fresh[1]["file"]
    rows, rc, lines = run_compare(mpibex, a, b, os.path.join(tmp, "single.csv"))
    print("two single runs (%s, %s): compare exit %d" % (os.path.basename(a),
                                                        os.path.basename(b), rc))
    for x in lines:
        print("   compare: " + x)
    k = sum(called_different(r.get("verdict")) for r in rows) if rows else 0
    n = len(rows) if rows else 0
    table.append(("two single runs: machine-level verdicts", "%d of %d" % (k, n), "none",
                  "yes" if k == 0 else "no"))
