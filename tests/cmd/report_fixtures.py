#!/usr/bin/env python3
"""Fixtures and checks for the `mpibex report` tests (report_check.sh).

  report_fixtures.py make DIR
      synthetic inputs: a.csv and b.csv (with .env.csv and .obs.csv; B is
      1.5 times slower), c.csv (no .obs.csv), rep1/ and rep2/ (4 launches
      each, rep2 1.3 times slower), with ping-pong over sizes, an allreduce,
      a barrier over processes and a master-worker point.
  report_fixtures.py check OUT INPUT...
      the report in OUT: every plot file a PNG (signature) or well-formed
      SVG, index.html well-formed with no script or external asset, the
      plots first and the environment folded (<details>), one results table
      per input holding every row (benchmark, procs, bytes, median), every
      environment key, the escaped test value, the summary's "N input(s)".
  report_fixtures.py overlay DIR
      ov1.csv and ov2.csv: pingpong.send_recv and pingpong.ssend_recv of one
      run each, with an unsettled, a shifted (remeasured) and a refined point.
  report_fixtures.py check_overlay OUT
      the report of ov1.csv and ov2.csv: both benchmarks of both inputs on
      one latency plot (pingpong-p2) with CI error bars and a legend entry
      per mark; the data files' status, refined, remeasured and pt columns.
Exit status 0 when every check passes; each failure is one line "FAIL: ...".
"""
import csv
import glob
import os
import random
import re
import sys
import xml.dom.minidom
from html.parser import HTMLParser

COLS = ("benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,"
        "stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,"
        "timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,"
        "refined,validated").split(",")
OBS = ["benchmark", "procs", "bytes", "obs", "time_us", "label", "root", "param"]
EVIL = 'a<b>&"c"'


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def points():
    """(benchmark, procs, bytes, root, op, param, param_name, base time in us)"""
    for e in range(0, 21, 2):
        yield ("pingpong.send_recv", 2, 1 << e, "", "", "", "", 0.2 + (1 << e) / 5000.0)
    for e in range(2, 15, 3):
        yield ("coll.allreduce", 2, 1 << e, "", "MPI_SUM/MPI_FLOAT", "", "", 1.0 + (1 << e) / 2000.0)
    for p in (2, 3, 4):
        yield ("coll.barrier", p, 0, "", "", "", "", 0.5 * p)
    yield ("mw.send_recv", 2, 1024, "0", "", "4", "pieces", 3.0)


def write_run(path, scale, seed, env, raw=True, nobs=12):
    rng = random.Random(seed)
    rows, obs = [], []
    for bench, procs, b, root, op, param, pname, base in points():
        v = [base * scale * (1 + 0.04 * rng.random()) for _ in range(nobs)]
        m, s = median(v), sorted(v)
        r = dict.fromkeys(COLS, "")
        r.update(benchmark=bench, procs=procs, bytes=b, n=nobs, mean_us="%.4f" % (sum(v) / nobs),
                 tmean_us="%.4f" % m, median_us="%.4f" % m, min_us="%.4f" % s[0],
                 max_us="%.4f" % s[-1], ci95_lo_us="%.4f" % s[2], ci95_hi_us="%.4f" % s[-3],
                 outliers=0, status="SETTLED", stop_rule="stderr:0.03",
                 bandwidth_MBps="" if b == 0 else "%.3f" % (b / m), timing="half_round_trip",
                 label="cli", root=root, op=op, param=param, param_name=pname, ranks="0,1",
                 refined=0, validated="no")
        rows.append(r)
        obs += [dict(benchmark=bench, procs=procs, bytes=b, obs=i, time_us="%.4f" % t,
                     label="cli", root=root, param=param) for i, t in enumerate(v)]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, COLS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    base = path[:-4]
    if raw:
        with open(base + ".obs.csv", "w", newline="") as f:
            w = csv.DictWriter(f, OBS, lineterminator="\n")
            w.writeheader()
            w.writerows(obs)
    with open(base + ".env.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["key", "value"])
        w.writerows(env)


def env(date, extra=()):
    return [("format_version", "1"), ("tool", "mpibex"), ("mpi_library", "MPICH Version:\t4.0.2"),
            ("ranks", "2"), ("rank.0.binding", "0-1 (unbound)"), ("env.MPIR_CVAR_TEST", EVIL),
            ("date_utc", date)] + list(extra)


def make(d):
    os.makedirs(d, exist_ok=True)
    write_run(os.path.join(d, "a.csv"), 1.0, 1, env("2026-01-01T00:00:00Z"))
    write_run(os.path.join(d, "b.csv"), 1.5, 2,
              env("2026-01-02T00:00:00Z", [("env.MPIR_CVAR_ONLY_IN_B", "ofi")]))
    write_run(os.path.join(d, "c.csv"), 1.0, 3, env("2026-01-03T00:00:00Z"), raw=False)
    for rep, scale in (("rep1", 1.0), ("rep2", 1.3)):
        os.makedirs(os.path.join(d, rep), exist_ok=True)
        for k in range(1, 5):
            write_run(os.path.join(d, rep, "launch-%02d.csv" % k), scale * (1 + 0.02 * k),
                      100 * k + int(scale * 10), env("2026-02-0%dT00:00:00Z" % k), nobs=8)


class Page(HTMLParser):
    """Tags balanced; tables after each h2 collected as lists of rows."""
    VOID = {"meta", "img", "br", "hr", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.srcs = [], [], []
        self.section, self.tables, self.row, self.cell = None, {}, None, None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.errors.append("index.html has a <%s> tag" % tag)
        for k in ("src", "href"):
            if k in a and (":" in a[k] or a[k].startswith("/")):
                self.errors.append("index.html refers outside its directory: %s" % a[k])
        if tag == "img":
            self.srcs.append(a.get("src", ""))
        if tag == "h2":
            self.cell = ""
        if tag == "table":
            self.tables.setdefault(self.section, []).append([])
        if tag == "tr":
            self.row = []
        if tag in ("td", "th"):
            self.cell = ""
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("index.html: </%s> closes <%s>" % (tag, self.stack[-1:]))
            return
        self.stack.pop()
        if tag == "h2":
            self.section, self.cell = self.cell, None
        if tag in ("td", "th"):
            self.row.append(self.cell)
            self.cell = None
        if tag == "tr":
            self.tables[self.section][-1].append(self.row)

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell += data


def expected_rows(path):
    """(benchmark, procs, bytes, median text) of every point of an input."""
    if os.path.isdir(path):
        meds = {}
        for f in sorted(glob.glob(os.path.join(path, "launch-*.csv"))):
            if f.count(".") > 1:
                continue
            for r in csv.DictReader(open(f)):
                meds.setdefault((r["benchmark"], r["procs"], r["bytes"]), []).append(
                    float(r["median_us"]))
        return {k + ("%.4f" % median(v),) for k, v in meds.items()}
    return {(r["benchmark"], r["procs"], r["bytes"], "%.4f" % float(r["median_us"]))
            for r in csv.DictReader(open(path))}


def page_order(html, md, ninputs):
    """Plots first, the environment last but the notes and folded, "N input(s)"."""
    fails = []
    want = ["Plots", "Inputs", "Comparisons", "Results", "Machine and environment", "Notes"]
    if ninputs < 2:
        want.remove("Comparisons")
    for name, text, pat in (("index.html", html, r"<h2>([^<]*)</h2>"),
                            ("index.md", md, r"(?m)^## (.*)$")):
        got = [h.replace("\\", "") for h in re.findall(pat, text)]
        if got != want:
            fails.append("%s: sections %s, want %s" % (name, got, want))
    if not re.search(r"<h2>Machine and environment</h2>\n<details><summary>", html):
        fails.append("index.html: the environment is not in a <details> right after its heading")
    if "<details open" in html:
        fails.append("index.html: a <details> is open")
    if "<details><summary>" not in md:
        fails.append("index.md: the environment is not folded")
    said = "from %d %s (A: " % (ninputs, "input" if ninputs == 1 else "inputs")
    if said not in html:
        fails.append("index.html: the summary does not say '%s'" % said)
    return fails


def check(out, inputs):
    fails = []
    pngs = glob.glob(os.path.join(out, "*.png"))
    svgs = glob.glob(os.path.join(out, "*.svg"))
    if not pngs or len(pngs) != len(svgs):
        fails.append("%d PNG and %d SVG files" % (len(pngs), len(svgs)))
    for p in pngs:
        with open(p, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fails.append("%s is not a PNG" % p)
        if not os.path.exists(p[:-4] + ".svg"):
            fails.append("%s has no SVG beside it" % p)
    for s in svgs:
        try:
            xml.dom.minidom.parse(s)
        except Exception as e:  # any parse error fails the check
            fails.append("%s is not well-formed XML: %s" % (s, e))
    page = Page()
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    page.feed(html)
    page.close()
    fails += page.errors
    if page.stack:
        fails.append("index.html leaves %s open" % page.stack)
    for src in page.srcs:
        if not os.path.getsize(os.path.join(out, src)):
            fails.append("index.html shows %s, which is empty" % src)
    if sorted(page.srcs) != sorted(os.path.basename(p) for p in pngs):
        fails.append("index.html does not show every PNG exactly once")
    results = page.tables.get("Results", [])
    if len(results) != len(inputs):
        fails.append("%d results tables for %d inputs" % (len(results), len(inputs)))
    for path, table in zip(inputs, results):
        head = table[0]
        col = {name: i for i, name in enumerate(head)}
        got = {(r[col["benchmark"]], r[col["procs"]], r[col["bytes"]], r[col["median_us"]])
               for r in table[1:]}
        want = expected_rows(path)
        if got != want:
            fails.append("results of %s: missing %s, extra %s" % (path, sorted(want - got)[:3],
                                                                  sorted(got - want)[:3]))
    text = "".join(page.text)
    for path in inputs:
        envs = [path[:-4] + ".env.csv"] if not os.path.isdir(path) else \
            sorted(glob.glob(os.path.join(path, "launch-*.env.csv")))[:1]
        for e in envs:
            if not os.path.exists(e):
                continue
            for r in csv.DictReader(open(e)):
                if r["key"] not in text:
                    fails.append("index.html lacks the environment key %s of %s" % (r["key"], e))
    if EVIL in text and 'a&lt;b&gt;&amp;&quot;c&quot;' not in html:
        fails.append("the environment value %s is not escaped in index.html" % EVIL)
    if "<b>" in html:
        fails.append("index.html has an unescaped <b>")
    md = open(os.path.join(out, "index.md"), encoding="utf-8").read()
    fails += page_order(html, md, len(inputs))
    for p in pngs:
        if "(%s)" % os.path.basename(p) not in md:
            fails.append("index.md does not show %s" % os.path.basename(p))
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


# (benchmark, bytes, status, refined, remeasured) of the overlay fixtures' odd points
ODD = {("pingpong.send_recv", 64): ("UNSETTLED", 0, 0), ("pingpong.send_recv", 4096): ("SETTLED", 1, 0),
       ("pingpong.ssend_recv", 4096): ("SHIFTED", 0, 1)}
PT = {"SETTLED": 7, "UNSETTLED": 6, "SHIFTED": 8}


def make_overlay(d):
    os.makedirs(d, exist_ok=True)
    for name, scale in (("ov1", 1.0), ("ov2", 1.2)):
        rows = []
        for bench, slow in (("pingpong.send_recv", 1.0), ("pingpong.ssend_recv", 1.6)):
            for b in (1, 64, 4096):
                m = (0.5 + b / 3000.0) * slow * scale
                st, ref, rem = ODD.get((bench, b), ("SETTLED", 0, 0)) if name == "ov1" else \
                    ("SETTLED", 0, 0)
                r = dict.fromkeys(COLS + ["remeasured"], "")
                r.update(benchmark=bench, procs=2, bytes=b, n=40, median_us="%.4f" % m,
                         ci95_lo_us="%.4f" % (m * 0.9), ci95_hi_us="%.4f" % (m * 1.2), status=st,
                         bandwidth_MBps="%.3f" % (b / m), label="cli", refined=ref, remeasured=rem)
                rows.append(r)
        with open(os.path.join(d, name + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, COLS + ["remeasured"], lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        with open(os.path.join(d, name + ".env.csv"), "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([("key", "value"), ("ranks", "2")])


def data_rows(path):
    """The column names (first comment line naming them) and the rows of a data file."""
    names, rows = None, []
    for line in open(path):
        if line.startswith("# bytes ") and names is None:
            names = line[2:].split()
        elif not line.startswith("#") and line.strip():
            rows.append(dict(zip(names or [], line.split())))
    return names, rows


def check_overlay(out):
    fails = []
    gp = open(os.path.join(out, "plots.gp")).read()
    m = re.search(r"# ---- pingpong-p2-latency ----\n(.*?)\nset terminal @svg_term", gp, re.S)
    plot = m.group(1)[m.group(1).find("\nplot "):] if m else ""
    for bench in ("send_recv", "ssend_recv"):
        for inp in "AB":
            f = "'data/pingpong.%s-p2-latency-%s.dat' using" % (bench, inp)
            if plot.count(f) < 3:
                fails.append("the pingpong-p2 latency plot lacks %s (bars, line, marks)" % f)
    if plot.count("with yerrorbars") != 4:
        fails.append("the pingpong-p2 latency plot has %d error-bar curves, want 4"
                     % plot.count("with yerrorbars"))
    if plot.count(":2:8 with points") != 4 or "pt variable" not in plot:
        fails.append("the status marks are not drawn from the data's pt column")
    if not re.search(r":\(column\(6\) > 0 \? column\(2\) : NaN\) with points lt \d+ pt 12", plot):
        fails.append("no diamond around the refined point")
    for t in ("settled (filled circle)", "unsettled (hollow circle)", "shifted: ", "refined: "):
        if not re.search(r"keyentry with points pt \d+ .*title '%s" % re.escape(t), plot):
            fails.append("no legend entry for the mark '%s'" % t)
    if "unreliable" in plot:
        fails.append("a legend entry for a mark no point has")
    for bench in ("send_recv", "ssend_recv"):
        if os.path.exists(os.path.join(out, "pingpong.%s-p2-latency.png" % bench)):
            fails.append("pingpong.%s has a plot of its own" % bench)
    src = {(r["benchmark"], int(r["bytes"])): r for r in csv.DictReader(open(
        os.path.join(os.path.dirname(out), "in", "ov1.csv")))}
    for bench in ("pingpong.send_recv", "pingpong.ssend_recv"):
        path = os.path.join(out, "data", "%s-p2-latency-A.dat" % bench)
        names, rows = data_rows(path)
        want = "bytes median_us ci95_lo_us ci95_hi_us status refined remeasured pt".split()
        if names != want:
            fails.append("%s: columns %s, want %s" % (path, names, want))
            continue
        for r in rows:
            st, ref, rem = ODD.get((bench, int(r["bytes"])), ("SETTLED", 0, 0))
            c = src[(bench, int(r["bytes"]))]
            got = (r["status"], int(r["refined"]), int(r["remeasured"]), int(r["pt"]),
                   float(r["ci95_lo_us"]), float(r["ci95_hi_us"]))
            if got != (st, ref, rem, PT[st], float(c["ci95_lo_us"]), float(c["ci95_hi_us"])):
                fails.append("%s: row %s" % (path, r))
        if len(rows) != 3:
            fails.append("%s: %d rows, want 3" % (path, len(rows)))
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    # A flagged status carries its reason and one line of advice after it.
    if not re.search(r"<td>UNSETTLED[;:<]", html) or "<td>SETTLED, refined</td>" not in html or \
            not re.search(r"<td>SHIFTED, remeasured[;<]", html):
        fails.append("the results table does not show the status, refined and remeasured")
    if "6 points in both, 0 only in A, 0 only in B" not in html:
        fails.append("index.html: the comparison's count is wrong")
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "overlay":
        make_overlay(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "check_overlay":
        sys.exit(check_overlay(sys.argv[2]))
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3:]))
    sys.exit("usage: report_fixtures.py make DIR | check OUT INPUT...")
