"""Statistics of bench/honesty_analyze.py, on plain lists (no files, no numpy).

Scales: a launch's value is its median m with reported error e (stderr_us);
launch effects are multiplicative, so launches are compared on the log scale,
y = ln m with relative error r = e / m. Rules and their reasons:
bench/README.md, "honesty.sh".
"""
import math
import random
import statistics

Z95 = 1.959963984540054
Z90 = 1.6448536269514722
EQUIV_DELTA = math.log(1.05)  # equivalence margin: log ratio within +-5 %


def median(xs):
    return statistics.median(xs) if xs else None


def quantile(xs, q):
    """Type-7 quantile of a non-empty list."""
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def wilson(k, n, z=Z95):
    """Wilson score interval of k successes in n independent trials."""
    if n == 0:
        return None, None
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def bootstrap_counts(n, stat, reps=1000, seed=1):
    """Percentile 95 % interval of stat(counts) over `reps` resamples of n
    units with replacement; counts[i] is how often unit i was drawn.
    Replicates where stat is None (too few distinct units) are skipped."""
    return bootstrap_strata([n], lambda cs: stat(cs[0]), reps, seed)


def bootstrap_strata(sizes, stat, reps=1000, seed=1):
    """bootstrap_counts with strata resampled apart (two settings' launches):
    stat gets one counts list per stratum."""
    rng = random.Random(seed)
    vals = []
    for _ in range(reps):
        cs = []
        for n in sizes:
            c = [0] * n
            for _ in range(n):
                c[rng.randrange(n)] += 1
            cs.append(c)
        v = stat(cs)
        if v is not None:
            vals.append(v)
    if len(vals) < reps // 2:
        return None, None
    return quantile(vals, 0.025), quantile(vals, 0.975)


def wvar(ys, c):
    """Weighted sample variance (weights: bootstrap counts, n-1 on units)."""
    n = sum(c)
    if sum(1 for w in c if w) < 2:
        return None
    mean = sum(w * y for w, y in zip(c, ys)) / n
    return sum(w * (y - mean) ** 2 for w, y in zip(c, ys)) / (n - 1)


def sigma_launch(meds, errs, c=None):
    """Launch-variance component on the log scale (relative): random effects
    by moments, sqrt(max(0, var(ln m) - mean((e/m)^2))). meds, errs: one
    launch each (errs may hold None: then that launch's err counts 0)."""
    c = c or [1] * len(meds)
    ys = [math.log(m) for m in meds]
    v = wvar(ys, c)
    if v is None:
        return None
    w2 = sum(w * ((e or 0.0) / m) ** 2 for w, e, m in zip(c, errs, meds)) / sum(c)
    return math.sqrt(max(0.0, v - w2))


def errs_exceed(meds, errs):
    """The launches' mean (err/median)^2 is above var(ln median): errs
    overstated (or launches luckily close); sigma_L is then floored at 0."""
    v = wvar([math.log(m) for m in meds], [1] * len(meds))
    return v is not None and v < sum(((e or 0.0) / m) ** 2 for e, m in zip(errs, meds)) / len(meds)


def chi2_cdf(x, df):
    """Regularized lower incomplete gamma P(df / 2, x / 2), by its series."""
    if x <= 0:
        return 0.0
    a, x = df / 2.0, x / 2.0
    term = total = 1.0 / a
    k = 1
    while term > total * 1e-14 and k < 5000:
        term *= x / (a + k)
        total += term
        k += 1
    return min(1.0, total * math.exp(-x + a * math.log(x) - math.lgamma(a)))


def invert(cdf, p, hi):
    """x in [0, hi] with cdf(x) = p, by bisection (cdf increasing)."""
    lo = 0.0
    for _ in range(70):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_quantile(p, df):
    return invert(lambda x: chi2_cdf(x, df), p, 10.0 * df + 100.0)


def sigma_launch_ci(meds, errs):
    """sigma_launch and its 95 % interval: the chi-square interval of the
    variance of ln m over K launches (K - 1 degrees of freedom, exact for
    normal launch effects), less the mean err^2, floored at 0. A percentile
    bootstrap over 10 launches covers only ~75 % (honesty_selftest.py)."""
    s = sigma_launch(meds, errs)
    k = len(meds)
    if s is None:
        return None, None, None
    v = wvar([math.log(m) for m in meds], [1] * k)
    w2 = sum(((e or 0.0) / m) ** 2 for e, m in zip(errs, meds)) / k
    lo = (k - 1) * v / chi2_quantile(0.975, k - 1) - w2
    hi = (k - 1) * v / chi2_quantile(0.025, k - 1) - w2
    return s, math.sqrt(max(0.0, lo)), math.sqrt(max(0.0, hi))


def sigma_launch_boot(meds, errs, reps=1000, seed=2):
    """The percentile bootstrap interval of sigma_launch over launches."""
    return bootstrap_counts(len(meds), lambda c: sigma_launch(meds, errs, c), reps, seed)


def repro_half(r, sigma):
    """Half-width (log scale) of a launch's reproducibility interval: its own
    relative err widened by the launch component. Covers the median of the
    launch distribution (ci_scope=profile)."""
    return Z95 * math.sqrt(r * r + sigma * sigma)


def predict_half(r, sigma):
    """Half-width (log scale) of the 95 % prediction interval for ANOTHER
    launch's median: the difference of two launches has twice the variance
    (both carry a launch effect and an error)."""
    return Z95 * math.sqrt(2.0 * (r * r + sigma * sigma))


def interval(m, half):
    """m x/ exp(half); a half-width beyond 50 (an err many times the median)
    is the whole positive line, without overflowing."""
    half = min(half, 50.0)
    return m * math.exp(-half), m * math.exp(half)


def pair_share(hits, pairs, c):
    """Share of ordered pairs (i, j), i != j, with launch weights c:
    hits[i][j] / pairs[i][j] counts (summed over points) of launch i's
    interval containing launch j's median."""
    num = den = 0
    n = len(c)
    for i in range(n):
        if not c[i]:
            continue
        hi, pi = hits[i], pairs[i]
        for j in range(n):
            if j != i and c[j]:
                w = c[i] * c[j]
                num += w * hi[j]
                den += w * pi[j]
    return num / den if den else None


def pair_matrix(los, his, meds):
    """hits, pairs (launch x launch) of one point: launch i's interval
    [los[i], his[i]] against launch j's median; None entries are missing."""
    n = len(meds)
    hits = [[0] * n for _ in range(n)]
    pairs = [[0] * n for _ in range(n)]
    for i in range(n):
        if los[i] is None or his[i] is None:
            continue
        for j in range(n):
            if j != i and meds[j] is not None:
                pairs[i][j] = 1
                hits[i][j] = 1 if los[i] <= meds[j] <= his[i] else 0
    return hits, pairs


def add_matrix(acc, m):
    for ra, rm in zip(acc, m):
        for j, v in enumerate(rm):
            ra[j] += v


def wmedian(vals, c):
    """Median of vals with integer weights c (type 7 on the expanded list)."""
    xs = []
    for v, w in zip(vals, c):
        xs.extend([v] * w)
    return median(xs)


def loo_share(los, his, meds, c, leave_out=True):
    """Launch i's interval against the median of the OTHER launches (every
    copy of i left out); leave_out=False is the old reference, which
    includes the judged launch. Returns (hits, trials) with weights c."""
    hit = tot = 0
    for i, w in enumerate(c):
        if not w or los[i] is None:
            continue
        cc = list(c)
        if leave_out:
            cc[i] = 0
        if sum(cc) == 0:
            continue
        ref = wmedian(meds, cc)
        tot += w
        hit += w * (los[i] <= ref <= his[i])
    return hit, tot


def split_half_z(pass_meds, err):
    """A launch's own err judged on held-out passes: the median of its first
    half of passes against the median of the second half. With honest errors
    scaling as 1/sqrt(passes), z = (m1 - m2) / sqrt(e1^2 + e2^2) is about
    standard normal, e_h = err * sqrt(R / R_h). None below 4 passes."""
    r = len(pass_meds)
    if r < 4 or not err or err <= 0:
        return None
    h = r // 2
    a, b = pass_meds[:h], pass_meds[h:]
    e2 = err * err * (r / len(a) + r / len(b))
    return (median(a) - median(b)) / math.sqrt(e2)


def t_cdf(t, df):
    """Student's t CDF by Simpson's rule on the density (df > 0)."""
    if t < 0:
        return 1.0 - t_cdf(-t, df)
    lc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    n = 400
    h = t / n
    s = 0.0
    for k in range(n + 1):
        x = k * h
        f = math.exp(lc - (df + 1) / 2 * math.log1p(x * x / df))
        s += f * (1 if k in (0, n) else (4 if k % 2 else 2))
    return 0.5 + s * h / 3


T_CACHE = {}


def t_quantile(p, df):
    """Quantile of Student's t (p > 0.5): the Cornish-Fisher expansion in
    1 / df from 3 degrees of freedom (within 0.001 there), else the CDF
    inverted, cached by df to 0.05 (Welch's df is not whole; the bootstrap
    asks thousands of times)."""
    z = invert(lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2))), p, 40.0)
    if df >= 3:
        return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + \
            (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3) + \
            (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / \
            (92160 * df ** 4)
    key = (p, round(df * 20))
    if key not in T_CACHE:
        T_CACHE[key] = invert(lambda x: t_cdf(x, key[1] / 20.0 or 0.05), p, 1000.0)
    return T_CACHE[key]


def tost(ya, yb, delta=EQUIV_DELTA):
    """Equivalence of two samples of log launch medians (two one-sided
    Welch t tests at 5 % each, i.e. the 90 % CI of the difference of means
    inside +-delta). Returns (diff, lo, hi, equivalent) or None."""
    na, nb = len(ya), len(yb)
    if na < 2 or nb < 2:
        return None
    va, vb = statistics.variance(ya) / na, statistics.variance(yb) / nb
    d = statistics.mean(ya) - statistics.mean(yb)
    se = math.sqrt(va + vb)
    if se == 0:
        return d, d, d, abs(d) < delta
    df = (va + vb) ** 2 / ((va * va) / (na - 1) + (vb * vb) / (nb - 1)) if va * vb > 0 else \
        max(na, nb) - 1
    t = t_quantile(0.95, df)
    lo, hi = d - t * se, d + t * se
    return d, lo, hi, (-delta < lo and hi < delta)
