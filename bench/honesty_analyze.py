#!/usr/bin/env python3
"""Figures of bench/honesty.sh from the files it leaves in its output directory.

usage: honesty_analyze.py DIR [--profile PDIR] [--fresh FDIR] [--mpibex PATH]
                          [--reps B]
       honesty_analyze.py --selftest

DIR holds (every part optional; a missing part is reported as n/a):
  profile/launch-NN.csv (+ .obs.csv)  the launches that build the profile
               (mpibex repeat's layout); --profile names another directory
  fresh/launch-NN.csv (+ .obs.csv)    the fresh launches judged against it;
               --fresh names another directory
  timeK.csv, timeK.wall, osuK.txt, osuK.wall, imbK.txt, imbK.wall:
               the interleaved time comparison (wall = seconds of one launch)
  refine.csv   one job: sections refined, sqrt2 and dense
Columns are found by header name, so results of every format_version are
read alike; ci_scope and pi95_lo_us/pi95_hi_us are used when present.
Every share carries a 95 % interval: a bootstrap over launches (B resamples,
default 1000) where the trials share launches. Rules: bench/README.md.
Exit status: 0 with the figures (a target missed is a figure, not an error),
1 when the directory holds nothing to analyse, 2 on bad arguments.
"""
import math
import os
import sys
import tempfile

import honesty_stats as hs
from honesty_compare import analyse_compare
from honesty_io import (fmt_size, launch_files, num, obs_key, pass_medians, pct, points,
                        read_rows, value)
from honesty_timing import analyse_time, analyse_refine

TABLE = []  # (figure, value, target, met)
SETTLED = ("SETTLED", "FIXED")  # the rows whose err makes a precision claim


def load(d):
    """The launches of a directory: file, points (key -> row), pass medians."""
    out = []
    for f in launch_files(d):
        out.append({"file": f, "name": os.path.basename(f)[:-4], "pts": points(read_rows(f)),
                    "passes": pass_medians(f)})
    return out


def sort_keys(keys):
    return sorted(keys, key=lambda k: (k[0], k[1], int(k[2] or 0), int(k[3] or 0), k[4:]))


def ci_text(s, lo, hi):
    return "%s [%s, %s]" % (pct(s), pct(lo), pct(hi))


def met(s, target):
    return "n/a" if s is None else ("yes" if s >= target else "no")


def analyse_profile(profile, fresh):
    """key -> sigma_L from the profile launches, each with its CI."""
    print("== Launch-variance component sigma_L (log scale, relative): var(ln median) over"
          " the profile's launches less their mean (err/median)^2, floored at 0; 95 % CI:"
          " chi-square over the launches (a percentile bootstrap beside it)")
    sigma = {}
    if len(profile) < 2:
        print("profile: n/a (%d profile launches; needs at least 2)" % len(profile))
        TABLE.append(("sigma_L (profile)", "n/a", "a figure", "-"))
        return sigma
    worst = None
    for key in sort_keys(set().union(*[set(x["pts"]) for x in profile])):
        res = profile_point(key, profile, fresh)
        if res is None:
            continue
        sigma[key] = res[0]
        if worst is None or res[0] > worst[0]:
            worst = res + (key,)
    if worst:
        TABLE.append(("sigma_L (profile), largest", "%s at %s %s" % (
            ci_text(*worst[:3]), worst[3][0], fmt_size(worst[3][3] or 0)), "a figure", "-"))
    return sigma


def launch_values(launches, key):
    """(median, err) of every launch whose row of key has a median, as
    mpibex calibrate takes them: an UNSETTLED or SHIFTED row's median is
    what the next launch may repeat, but its err is no error of that
    median, so such a row takes the mean (err/median)^2 of the SETTLED and
    FIXED rows (0 without any); and the count of SETTLED and FIXED rows."""
    rows = [x["pts"].get(key) for x in launches]
    rows = [r for r in rows if value(r)]
    settled = [value(r) for r in rows if r.get("status") in SETTLED and value(r)[1] is not None]
    w2 = sum((e / m) ** 2 for m, e in settled) / len(settled) if settled else 0.0
    vals = []
    for r in rows:
        m, e = value(r)
        ok = r.get("status") in SETTLED and e is not None
        vals.append((m, e if ok else m * math.sqrt(w2)))
    return vals, len(settled)


def profile_point(key, profile, fresh):
    """Print sigma_L of one point (profile, and the fresh launches beside
    it); return (sigma, lo, hi) or None."""
    vals, nset = launch_values(profile, key)
    name = "sigma_L %s %s %s" % (key[0], key[1], fmt_size(key[3] or 0))
    if len(vals) < 2:
        print("%s: n/a (%d launches with a median)" % (name, len(vals)))
        return None
    meds, errs = [v[0] for v in vals], [v[1] for v in vals]
    s, lo, hi = hs.sigma_launch_ci(meds, errs)
    blo, bhi = hs.sigma_launch_boot(meds, errs)
    fv, _ = launch_values(fresh, key)
    fresh_s = hs.sigma_launch_ci([v[0] for v in fv], [v[1] for v in fv]) if len(fv) >= 2 \
        else (None, None, None)
    print("%s: %s (bootstrap %s .. %s) over %d launches (%d SETTLED give the err); fresh "
          "launches: %s%s"
          % (name, ci_text(s, lo, hi), pct(blo), pct(bhi), len(meds), nset, ci_text(*fresh_s),
             "; the launches agree better than their errs say" if hs.errs_exceed(meds, errs)
             else ""))
    return s, lo, hi


def fresh_intervals(fresh, key, s):
    """Per interval kind, per fresh launch: (lo, hi) or None, and the medians."""
    kinds = {"prediction (analysis)": [], "reproducibility CI (analysis)": [],
             "mpibex pi95": [], "mpibex ci95, scope profile": [], "mpibex ci95, scope launch": []}
    meds, outside = [], []
    for x in fresh:
        row = x["pts"].get(key)
        v = value(row)
        meds.append(v[0] if v else None)
        # left launch-scoped by a profile that has a center for it: the row
        # says the machine is not as the profile saw it
        outside.append(bool(row) and (row.get("ci_scope") or "launch") == "launch"
                       and num(row.get("profile_ratio")) is not None)
        if not v:
            for lst in kinds.values():
                lst.append(None)
            continue
        m, e = v
        r = (e or 0.0) / m
        # the analysis's own intervals need its sigma_L (2 profile launches
        # with a median at least); mpibex's are judged whether or not it has one
        kinds["prediction (analysis)"].append(
            hs.interval(m, hs.predict_half(r, s)) if s is not None else None)
        kinds["reproducibility CI (analysis)"].append(
            hs.interval(m, hs.repro_half(r, s)) if s is not None else None)
        p = (num(row.get("pi95_lo_us")), num(row.get("pi95_hi_us")))
        kinds["mpibex pi95"].append(p if None not in p else None)
        c = (num(row.get("ci95_lo_us")), num(row.get("ci95_hi_us")))
        scope = row.get("ci_scope") or "launch"
        for name, want in (("mpibex ci95, scope profile", "profile"),
                           ("mpibex ci95, scope launch", "launch")):
            kinds[name].append(c if None not in c and scope == want else None)
    return kinds, meds, outside


def flagged_matrix(ivs, meds, outside):
    """hits, pairs of mpibex's pi95 where a launch outside the profile
    counts as flagged: a pair (i, j) with i or j outside is a hit (the
    profile's claim does not reach a machine it did not see), every other
    pair as pair_matrix counts it."""
    n = len(meds)
    hits = [[0] * n for _ in range(n)]
    pairs = [[0] * n for _ in range(n)]
    for i in range(n):
        if ivs[i] is None and not outside[i]:
            continue
        for j in range(n):
            if j == i or meds[j] is None:
                continue
            pairs[i][j] = 1
            if outside[i] or outside[j]:
                hits[i][j] = 1
            else:
                hits[i][j] = 1 if ivs[i][0] <= meds[j] <= ivs[i][1] else 0
    return hits, pairs


FLAGGED = "mpibex pi95, or outside the profile"
EXPECT = {"prediction (analysis)": ">= 90 %", "mpibex pi95": ">= 90 %", FLAGGED: ">= 90 %",
          "reproducibility CI (analysis)": "~83 % if honest",
          "mpibex ci95, scope profile": "~83 % if honest",
          "mpibex ci95, scope launch": "a figure"}


def analyse_pairs(fresh, sigma, reps):
    """Ordered pairs (i, j), i != j, of fresh launches: does launch i's
    interval contain launch j's median? Per size, with a bootstrap CI over
    the fresh launches."""
    print("== Reproducibility over ordered pairs of fresh launches: launch i's interval"
          " against launch j's median (j != i); prediction: median x/ exp(1.96 sqrt(2 (r^2 +"
          " sigma_L^2))), r = err/median; the CI of the launches' median (1.96 sqrt(r^2 +"
          " sigma_L^2)) covers ~83 % of pairs when honest")
    n = len(fresh)
    if n < 2:
        print("pairs: n/a (%d fresh launches, %d profiled points)" % (n, len(sigma)))
        TABLE.append(("reproducibility pairs", "n/a", ">= 90 % at every size", "n/a"))
        return
    acc = {}  # (size, kind) -> [hits, pairs]
    loo = {}  # (size, LOO_MPIBEX or LOO_ANALYSIS) -> [(los, his, meds) per key]
    outs = {}  # size -> [launch rows outside the profile, launch rows]
    # every point of the fresh launches: a point the analysis has no sigma_L
    # for (fewer than 2 profile launches with a median) is still judged on
    # mpibex's own intervals
    for key in sort_keys(set().union(*[set(x["pts"]) for x in fresh])):
        kinds, meds, outside = fresh_intervals(fresh, key, sigma.get(key))
        size = int(key[3] or 0)
        for kind, ivs in kinds.items():
            if not any(ivs):
                continue
            h, p = hs.pair_matrix([v and v[0] for v in ivs], [v and v[1] for v in ivs], meds)
            a = acc.setdefault((size, kind), [[[0] * n for _ in range(n)] for _ in (0, 1)])
            hs.add_matrix(a[0], h)
            hs.add_matrix(a[1], p)
        if any(kinds["mpibex pi95"]) or any(outside):
            h, p = flagged_matrix(kinds["mpibex pi95"], meds, outside)
            a = acc.setdefault((size, FLAGGED), [[[0] * n for _ in range(n)] for _ in (0, 1)])
            hs.add_matrix(a[0], h)
            hs.add_matrix(a[1], p)
            o = outs.setdefault(size, [0, 0])
            o[0] += sum(outside)
            o[1] += sum(1 for m in meds if m is not None)
        ivs = kinds["reproducibility CI (analysis)"]
        if any(ivs):
            loo.setdefault((size, LOO_ANALYSIS), []).append(
                ([v and v[0] for v in ivs], [v and v[1] for v in ivs], meds))
        ivs = kinds["mpibex ci95, scope profile"]
        if any(ivs) or any(outside):
            # a row outside the profile says the profile's claim does not
            # reach it: an interval that holds anything, as in the pairs
            los = [0.0 if outside[i] else ivs[i] and ivs[i][0] for i in range(n)]
            his = [math.inf if outside[i] else ivs[i] and ivs[i][1] for i in range(n)]
            loo.setdefault((size, LOO_MPIBEX), []).append((los, his, meds))
    main = FLAGGED if any(k == FLAGGED for _, k in acc) else "prediction (analysis)"
    for size in sorted(outs):
        print("outside the profile at %s: %d of %d launch rows (profile_ratio, ci_scope launch)"
              % (fmt_size(size), outs[size][0], outs[size][1]))
    for (size, kind) in sorted(acc):
        hits, pairs = acc[(size, kind)]
        c = [1] * n
        s = hs.pair_share(hits, pairs, c)
        lo, hi = hs.bootstrap_counts(n, lambda c: hs.pair_share(hits, pairs, c), reps, seed=3)
        tot = sum(map(sum, pairs))
        print("pairs at %s, %s: %s of %d ordered pairs (%s)"
              % (fmt_size(size), kind, ci_text(s, lo, hi), tot, EXPECT[kind]))
        if kind == main:
            TABLE.append(("pairs at %s (%s)" % (fmt_size(size), kind), ci_text(s, lo, hi),
                          ">= 90 %", met(s, 0.90)))
    analyse_loo(loo, n, reps)


LOO_MPIBEX = "mpibex ci95 (scope profile), or outside the profile"
LOO_ANALYSIS = "the analysis's CI (its own sigma_L)"
LOO_SHORT = {LOO_MPIBEX: "mpibex ci95, or outside", LOO_ANALYSIS: "analysis CI"}


def analyse_loo(loo, n, reps):
    """Each fresh launch's CI of the launches' median against the median of
    the OTHER fresh launches; the old reference (all launches, the judged
    one included) beside it. Judged: mpibex's own ci95 where its row is
    profile-scoped, a row outside the profile counting as flagged (as in the
    pairs); the analysis's CI, from the sigma_L this script computes over
    every profile launch with a median, is a figure beside it."""
    print("== Leave-one-out: each fresh launch's CI of the launches' median (profile scope)"
          " against the median of the other fresh launches (honest: ~94 % at 20 launches,"
          " the reference being a median of 19 noisy launches)")
    judged = LOO_MPIBEX if any(k == LOO_MPIBEX for _, k in loo) else LOO_ANALYSIS
    for (size, kind) in sorted(loo):
        def share(c, leave_out=True):
            h = t = 0
            for los, his, meds in loo[(size, kind)]:
                ok = [i for i in range(n) if meds[i] is not None]
                cc = [c[i] if i in ok else 0 for i in range(n)]
                a, b = hs.loo_share(los, his, [m if m is not None else 0 for m in meds], cc,
                                    leave_out)
                h += a
                t += b
            return h / t if t else None

        s = share([1] * n)
        lo, hi = hs.bootstrap_counts(n, share, reps, seed=4)
        print("leave-one-out at %s, %s: %s; judged launch included (the old reference): %s"
              % (fmt_size(size), kind, ci_text(s, lo, hi), pct(share([1] * n, False))))
        if kind == judged:
            TABLE.append(("leave-one-out at %s (%s)" % (fmt_size(size), LOO_SHORT[kind]),
                          ci_text(s, lo, hi), ">= 90 %", met(s, 0.90)))


def analyse_within(launches, reps):
    """Each launch's reported err judged on its own held-out passes: the
    median of its first half of passes against that of its second half."""
    print("== Within-launch: a launch's err against its held-out passes: z = (median of the"
          " first half of its passes - median of the second half) / (err sqrt(R/R1 + R/R2));"
          " |z| <= 1.96 in ~95 % of points and rms z ~1 when err is honest")
    zs, zall = [], []  # per launch: [(size, z)] of its settled points, of all points
    short = nobs = 0
    for x in launches:
        if x["passes"] is None:
            nobs += 1
            continue
        lz, la = [], []
        for key, row in x["pts"].items():
            v = value(row)
            pm = x["passes"].get(obs_key(key))
            z = hs.split_half_z(pm, v[1]) if v and pm else None
            if z is None:
                short += 1
                continue
            la.append((int(key[3] or 0), z))
            if row.get("status") in SETTLED:
                lz.append(la[-1])
        zs.append(lz)
        zall.append(la)
    print("within-launch: %d launches with observations (%d without), %d points with fewer"
          " than 4 passes or no err left out; %d of %d points settled (SETTLED, FIXED)"
          % (len(zs), nobs, short, sum(map(len, zs)), sum(map(len, zall))))
    if not any(zall):
        TABLE.append(("within-launch: |z| <= 1.96", "n/a", "~95 % (>= 93 %)", "n/a"))
        return
    sizes = sorted(set(s for lz in zs for s, _ in lz))
    for size in sizes + [None]:
        res = within_line("settled, " + ("all sizes" if size is None else "at " + fmt_size(size)),
                          zs, size, reps)
    every = within_line("every row (SHIFTED, UNSETTLED too)", zall, None, reps)
    (cv, cmet), (r, rmet) = res if any(zs) else every
    tag = "" if any(zs) else " (every row)"
    TABLE.append(("within-launch: |z| <= 1.96" + tag, cv, "~95 % (>= 93 %)", cmet))
    # An err honest for the launch's long-run median reads below 0.8 here
    # when passes remember (the two halves share machine states that the
    # long run does not): only an err stated too small shows, above 1.25.
    TABLE.append(("within-launch: true / reported err" + tag, r, "<= 1.25 (< 0.8: memory)", rmet))


def within_line(what, zs, size, reps):
    """Print one split-half line (what None: print nothing); return the
    table's (value, met) of the share and of rms z."""
    n = len(zs)

    def mean_of(f, c):
        """Mean of f(z) over the points of this size, launches weighted c."""
        q = t = 0
        for w, lz in zip(c, zs):
            for s, z in lz:
                if size is None or s == size:
                    t += w
                    q += w * f(z)
        return q / t if t else None

    def cover(c):
        return mean_of(lambda z: abs(z) <= hs.Z95, c)

    def rms(c):
        v = mean_of(lambda z: z * z, c)
        return None if v is None else math.sqrt(v)

    ones = [1] * n
    cv, (clo, chi) = cover(ones), hs.bootstrap_counts(n, cover, reps, seed=6)
    r, (rlo, rhi) = rms(ones), hs.bootstrap_counts(n, rms, reps, seed=7)
    rt = "n/a" if r is None else "%.2f [%s, %s]" % (
        r, "n/a" if rlo is None else "%.2f" % rlo, "n/a" if rhi is None else "%.2f" % rhi)
    if what:
        pts = sum(1 for lz in zs for s, _ in lz if size is None or s == size)
        print("within-launch %s: |z| <= 1.96 at %s of %d points; rms z (true / reported err) %s"
              % (what, ci_text(cv, clo, chi), pts, rt))
    return ((ci_text(cv, clo, chi), met(cv, 0.93)),
            (rt, "n/a" if r is None else ("yes" if r <= 1.25 else "no")))


def parse_args(argv):
    opts = {"dir": None, "profile": None, "fresh": None, "mpibex": None, "reps": 1000}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--profile", "--fresh", "--mpibex", "--reps") and i + 1 < len(argv):
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a.startswith("-") or opts["dir"] is not None:
            raise ValueError("unexpected argument '%s' (usage: honesty_analyze.py DIR [--profile"
                             " PDIR] [--fresh FDIR] [--mpibex PATH] [--reps B])" % a)
        opts["dir"] = a
        i += 1
    reps = opts["reps"]
    if not (str(reps).isdigit() and 100 <= int(reps) <= 100000):
        raise ValueError("--reps: expected a whole number in 100..100000 (got '%s')" % reps)
    opts["reps"] = int(reps)
    d = opts["dir"]
    if d is None or not os.path.isdir(d):
        raise ValueError("DIR: expected a directory of bench/honesty.sh results (got '%s')" % d)
    for k in ("profile", "fresh"):
        if opts[k] is None:
            opts[k] = os.path.join(d, k)
        elif not os.path.isdir(opts[k]):
            raise ValueError("--%s: expected a directory of launches (got '%s')" % (k, opts[k]))
    return opts


def main(argv):
    if argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if argv == ["--selftest"]:
        import honesty_selftest
        return honesty_selftest.main()
    try:
        o = parse_args(argv)
    except ValueError as e:
        print("honesty_analyze: %s" % e, file=sys.stderr)
        return 2
    profile = load(o["profile"]) if os.path.isdir(o["profile"]) else []
    fresh = load(o["fresh"]) if os.path.isdir(o["fresh"]) else []
    print("== %d profile launches (%s), %d fresh launches (%s)"
          % (len(profile), o["profile"], len(fresh), o["fresh"]))
    sigma = analyse_profile(profile, fresh)
    analyse_pairs(fresh, sigma, o["reps"])
    analyse_within(profile + fresh, o["reps"])
    with tempfile.TemporaryDirectory(prefix="honesty-cmp-") as tmp:
        analyse_compare(fresh, o["mpibex"], tmp, TABLE, o["reps"])
    analyse_time(o["dir"], TABLE)
    analyse_refine(o["dir"], TABLE, o["mpibex"])
    print("== Summary (value [95 % interval])")
    w = [max(len(t[i]) for t in TABLE) for i in range(3)]
    for row in [("figure", "value", "target", "met?")] + TABLE:
        print("%-*s  %-*s  %-*s  %s" % (w[0], row[0], w[1], row[1], w[2], row[2], row[3]))
    have = profile or fresh or os.path.exists(os.path.join(o["dir"], "time1.wall")) or \
        os.path.exists(os.path.join(o["dir"], "refine.csv"))
    return 0 if have else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv[1:]))
