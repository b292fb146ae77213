"""The time and refinement figures of bench/honesty.sh (--time, --refine):
mpibex's default curve against osu_latency (and IMB) launched interleaved,
and a refined curve against a fixed sqrt(2) grid. Each appends its summary
rows (figure, value, target, met) to `table`. Rules: bench/README.md."""
import glob
import math
import os
import re
import statistics
import subprocess
import tempfile

from honesty_io import fmt_size, launch_level_value, num, pct, points, read_rows


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


def analyse_time(d, table):
    walls = sorted(glob.glob(os.path.join(d, "time*.wall")),
                   key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))
    print("== Time: default 1 B - 4 MiB pingpong.send_recv curve (stderr:3%) against"
          " osu_latency's default run, launches interleaved")
    if not walls:
        print("time: n/a")
        table.append(("time mpibex/osu", "n/a", "<= 1.00", "n/a"))
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
    table.append(("time mpibex/osu (wall)", "n/a" if ratio is None else "%.2f" % ratio,
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


def analyse_refine(d, table, mpibex):
    path = os.path.join(d, "refine.csv")
    tool = os.path.join(os.path.dirname(mpibex), "mbx_interp_errors") if mpibex else None
    print("== Refinement: refined 1 B - 4 MiB pingpong curve at 5 % against a fixed sqrt(2)"
          " grid, worst log-log interpolation error against a dense curve of the same job")
    if not os.path.exists(path) or not tool or not os.access(tool, os.X_OK):
        print("refinement: n/a (%s)" % ("no refine.csv" if not os.path.exists(path) else
                                        "needs --mpibex with mbx_interp_errors beside it"))
        table.append(("refinement", "n/a", "fewer points, worst err <= 1.1x", "n/a"))
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
        table.append(("refinement (refined vs sqrt2)", val, "fewer points, worst err <= 1.1x",
                      "yes" if ok else "no"))
    else:
        table.append(("refinement", "n/a", "fewer points, worst err <= 1.1x", "n/a"))

