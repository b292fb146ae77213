#!/usr/bin/env python3
"""CSV format 3: files of 43 columns (format 2) and 51 (format 3,
the pass columns) through csvcheck, `mpibex merge` and `mpibex report`.
No MPI.

  csv_widths_check.py csvcheck CSVCHECK DIR
      csvcheck accepts a 43-column file and a 51-column file (a row measured
      in one go, a row measured in passes whose median lies outside the
      pooled quartiles), and refuses each broken
      pass field with its own line
  csv_widths_check.py merge MPIBEX DIR
      `mpibex merge` of a 43- and a 51-column file: one merged row per key,
      the merged columns whatever the inputs' widths
  csv_widths_check.py report MPIBEX DIR
      `mpibex report` of the same two files: both plotted, the 51-column
      input's curve and results table say the interval is between passes,
      the 43-column input's do not
Exit status 0 when every check passes; each failure is one line "FAIL: ...".
"""
import csv
import os
import re
import shutil
import subprocess
import sys

COLS = ("benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,"
        "stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,"
        "timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,"
        "refined,validated,sync,clock_sync,cache,invalid,probe_us,probe_after_us,remeasured,"
        "plain_us,events,faults,passes,pass_span_s,stderr_iid_us,ci95_iid_lo_us,"
        "ci95_iid_hi_us,levels,level_lo_us,level_hi_us").split(",")
FORMAT2 = 43
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def one_go(nbytes, med):
    """A SETTLED point measured in one go (format 2 meaning)."""
    r = dict.fromkeys(COLS, "")
    r.update(benchmark="pingpong.send_recv", procs="2", bytes=str(nbytes), n="40",
             mean_us="%.4f" % med, tmean_us="%.4f" % med, median_us="%.4f" % med,
             min_us="%.4f" % (0.9 * med), max_us="%.4f" % (1.2 * med),
             q1_us="%.4f" % (0.98 * med), q3_us="%.4f" % (1.02 * med),
             stddev_us="%.4f" % (0.02 * med), stderr_us="%.4f" % (0.005 * med),
             ci95_lo_us="%.4f" % (0.99 * med), ci95_hi_us="%.4f" % (1.01 * med), outliers="0",
             status="SETTLED", stop_rule="stderr:0.03",
             bandwidth_MBps="%.3f" % (nbytes / med), timing="half_round_trip",
             overhead_us="0.0200", nmin="16", nmax="1000", batches="3", wall_s="0.001000",
             label="cli", ranks="0,1", refined="0", validated="no", sync="barrier",
             cache="warm", invalid="0", probe_us="0.2000", probe_after_us="0.2100",
             remeasured="0", events="0", faults="0")
    return r


def in_passes(nbytes, med):
    """A SETTLED point measured in 6 passes of 200 observations (nmin: one
    pass; nmax: 40 passes): the median of the pass medians above the pooled
    q3, two levels."""
    r = one_go(nbytes, med)
    r.update(n="1200", nmin="200", nmax="8000", q1_us="%.4f" % (0.8 * med), q3_us="%.4f" % (0.9 * med),
             min_us="%.4f" % (0.7 * med), max_us="%.4f" % (1.5 * med),
             stderr_us="%.4f" % (0.02 * med), ci95_lo_us="%.4f" % (0.96 * med),
             ci95_hi_us="%.4f" % (1.04 * med), passes="6", pass_span_s="1.250000",
             stderr_iid_us="%.4f" % (0.001 * med), ci95_iid_lo_us="%.4f" % (0.84 * med),
             ci95_iid_hi_us="%.4f" % (0.86 * med), levels="2",
             level_lo_us="%.4f" % (1.01 * med), level_hi_us="%.4f" % (0.99 * med))
    return r


def write(path, rows, ncols=len(COLS), header=None):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow((header or COLS)[:ncols])
        for r in rows:
            w.writerow([r[c] for c in COLS][:ncols])


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout + p.stderr


def check_csvcheck(csvcheck, d):
    good43 = os.path.join(d, "good43.csv")
    write(good43, [one_go(8, 0.5), one_go(1024, 1.0)], FORMAT2)
    good51 = os.path.join(d, "good51.csv")
    write(good51, [one_go(8, 0.5), in_passes(1024, 1.0)])
    for path in (good43, good51):
        code, out = run([csvcheck, path])
        if code != 0:
            fail("csvcheck refused %s: %s" % (os.path.basename(path), out.strip()))
    # (name, fields of the pass row to change, expected message)
    bad = [
        ("passes_zero", {"passes": "0"}, r"passes '0', expected an integer >= 1"),
        ("passes_fraction", {"passes": "2.5"}, r"passes '2.5', expected an integer >= 1"),
        ("span_negative", {"pass_span_s": "-0.5"}, r"pass_span_s '-0.5'"),
        ("iid_stderr_negative", {"stderr_iid_us": "-0.0010"}, r"stderr_iid_us"),
        ("iid_ci_reversed", {"ci95_iid_lo_us": "0.9000", "ci95_iid_hi_us": "0.8000"},
         r"ci95_iid_lo_us 0.9000 > ci95_iid_hi_us 0.8000"),
        ("ci_misses_median", {"ci95_lo_us": "1.0100"}, r"median outside its CI"),
        ("levels_zero", {"levels": "0"}, r"levels '0', expected an integer >= 1"),
        ("levels_without_values", {"level_hi_us": ""}, r"levels 2 without level_lo_us/level_hi_us"),
        ("one_level_two_values", {"levels": "1"}, r"one level but level_lo_us 1.01 != level_hi_us 0.99"),
        ("level_values_without_levels", {"levels": ""}, r"level_lo_us/level_hi_us without levels"),
        ("pass_fields_without_passes", {"passes": ""}, r"pass_span_s '1.250000' without passes"),
        ("settled_noisy", {"stderr_us": "0.2000"}, r"SETTLED but stderr/median = 0.2"),
        ("settled_one_pass", {"passes": "1", "n": "200", "stderr_us": ""},
         r"SETTLED with 1 passes"),
    ]
    for name, change, want in bad:
        row = in_passes(1024, 1.0)
        row.update(change)
        path = os.path.join(d, "bad_%s.csv" % name)
        write(path, [one_go(8, 0.5), row])
        code, out = run([csvcheck, path])
        if code != 1 or not re.search(want, out):
            fail("csvcheck %s: exit %d, expected 1 and /%s/; got: %s" % (name, code, want,
                                                                        out.strip()))
    # The pass columns come all together: a header with only some of them.
    path = os.path.join(d, "bad_partial_header.csv")
    write(path, [one_go(8, 0.5)], FORMAT2 + 3)
    code, out = run([csvcheck, path])
    if code != 1 or "column levels missing with passes" not in out:
        fail("csvcheck partial pass header: exit %d: %s" % (code, out.strip()))


def inputs(d):
    a = os.path.join(d, "w43.csv")
    write(a, [one_go(8, 0.5), one_go(1024, 1.0)], FORMAT2)
    b = os.path.join(d, "w51.csv")
    write(b, [in_passes(8, 0.7), in_passes(1024, 2.0)])
    return a, b


def check_merge(mpibex, d):
    a, b = inputs(d)
    out = os.path.join(d, "m.csv")
    code, text = run([mpibex, "merge", a, b, "-o", out])
    if code != 0:
        fail("merge exit %d: %s" % (code, text.strip()))
        return
    rows = list(csv.reader(open(out, newline="")))
    if len(rows) != 3 or any(len(r) != len(rows[0]) for r in rows):
        fail("merged file: %r" % rows)
        return
    h = rows[0]
    if "runs" not in h or "passes" in h:
        fail("merged header: %r" % h)
        return
    got = [(r[h.index("bytes")], r[h.index("runs")], r[h.index("median_us")]) for r in rows[1:]]
    if got != [("8", "2", "0.6000"), ("1024", "2", "1.5000")]:
        fail("merged rows (bytes, runs, median_us): %r" % got)


def check_report(mpibex, d):
    if shutil.which("gnuplot") is None:
        print("SKIP: no gnuplot")
        return
    a, b = inputs(d)
    out = os.path.join(d, "rep")
    code, text = run([mpibex, "report", a, b, "-o", out, "-q"])
    if code != 0:
        fail("report exit %d: %s" % (code, text.strip()))
        return
    gp = open(os.path.join(out, "plots.gp")).read()
    if not re.search(r"A: w43\.csv \(median, 95 % CI\)", gp):
        fail("plots.gp: no one-go title for A (w43.csv)")
    if not re.search(r"B: w51\.csv \(median of pass medians, 95 % CI between passes\)", gp):
        fail("plots.gp: no between-pass title for B (w51.csv)")
    md = open(os.path.join(out, "index.md")).read()
    html = open(os.path.join(out, "index.html")).read()
    note = "Points measured in passes: median_us is the median of the pass medians"
    if html.count(note) != 1 or md.replace("\\_", "_").count(note) != 1:
        fail("index.html, index.md: the between-pass note should appear once (for B only)")
    for bytes_, med in (("1024", "1.0000"), ("1024", "2.0000")):
        if not re.search(r"\| *%s *\|[^\n]*\| *%s *\|" % (bytes_, med), md):
            fail("index.md: no row with bytes %s and median %s" % (bytes_, med))


def main():
    mode, tool, d = sys.argv[1:4]
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    {"csvcheck": check_csvcheck, "merge": check_merge, "report": check_report}[mode](tool, d)
    print("%s: %s" % (mode, "%d failure(s)" % len(fails) if fails else "OK"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
