/* The between-pass interval of one point (see mbx/passes.h for the
 * contract, docs/algorithms.md "Between-pass error" for the reasoning):
 * the order-statistic interval of the units' median at its achieved
 * level, its floor at the timer's resolution, and the errors derived
 * from it. passes.c groups passes into units and calls it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/passes.h"
#include "mbx/stats.h"
#include "passes_int.h"

#define SQRT2 1.4142135623730951
#define SQRT12 3.4641016151377544
#define MAD_TO_SD 1.482602218505602 /* 1 / Phi^-1(3/4): MAD of a normal = 0.6745 sd */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Small-sample consistency factors of the MAD (Croux & Rousseeuw 1992):
 * with a handful of units the raw MAD underestimates the spread by up to
 * a third. */
static double mad_factor(size_t r)
{
    static const double b[] = {0.0, 1.0, 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
    if (r < sizeof b / sizeof b[0])
        return b[r];
    return (double)r / ((double)r - 0.8);
}

/* The order-statistic interval of the median of s[0..r) (sorted, r >= 2)
 * at level want, or at its achieved level when the data cannot reach it
 * (docs/algorithms.md, "Between-pass error"). [s(d), s(r+1-d)] covers the
 * median with probability g(d) = 1 - 2 P(B <= d - 1), B ~ Binomial(r,
 * 1/2); with d the largest index with g(d) >= want, the interval is
 * interpolated between the pairs d and d + 1 (Hettmansperger and Sheather
 * 1986), geometrically, so it stays within [s(1), s(r)] and positive.
 * When even [s(1), s(r)] falls short of want (r < 6 at 95 %), it is that
 * range, at its level 1 - 2^(1-r). */
static void os_interval(const double *s, size_t r, double want, double *lo, double *hi,
                        double *level)
{
    double lp = -(double)r * log(2.0), cdf = 0.0, g = 0.0, gnext = 1.0 - 2.0 * exp(lp);
    size_t d = 0;
    /* g(j + 1) from g(j): add the pmf at j. */
    while (d + 1 <= r / 2 && gnext >= want) {
        d++;
        g = gnext;
        cdf += exp(lp);
        lp += log((double)(r - d + 1)) - log((double)d);
        gnext = 1.0 - 2.0 * (cdf + exp(lp));
    }
    if (d == 0) {
        *lo = s[0];
        *hi = s[r - 1];
        *level = gnext;
        return;
    }
    double lam = 0.0;
    if (d + 1 <= r / 2 && g > gnext) {
        double in = (g - want) / (g - gnext);
        lam = (double)(r - d) * in / ((double)d + (double)(r - 2 * d) * in);
        lam = lam < 0.0 ? 0.0 : lam > 1.0 ? 1.0 : lam;
    }
    /* 1-based x(d), x(d+1) and x(r-d), x(r-d+1). */
    *lo = exp((1.0 - lam) * log(s[d - 1]) + lam * log(s[d]));
    *hi = exp((1.0 - lam) * log(s[r - d]) + lam * log(s[r - d - 1]));
    *level = want;
}

/* The normal quantile of the two-sided level lv (0.5 <= lv < 1) by
 * bisection on erfc: only a few calls per result. */
static double z_of(double lv)
{
    double lo = 0.0, hi = 10.0;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        if (erfc(mid / SQRT2) > 1.0 - lv)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* err, relerr, the relative CI half-width and the units' cv of b, from
 * its interval, value and MAD over r >= 2 units, with the timer
 * resolution res (0: none). The half-width is taken on the log scale: the
 * interval is asymmetric around the median, and its log width is a
 * relative error whatever the skew. */
void mbx_passes_set_errors(mbx_between *b, size_t r, double res)
{
    /* From 5 units on the range is read as the 95 % interval it nearly
     * is (93.75 % at 5); fewer units never settle at the defaults, and
     * their levels (50-87.5 %) are far enough from 95 % to need their
     * own z. */
    double lv = r < 5 ? b->level : 0.95;
    b->sd = MAD_TO_SD * mad_factor(r) * b->mad;
    /* The spread's floor, as the interval's: units equal to the timer's
     * step (MAD 0) differ by up to a step the timer cannot show, the sd
     * of a rounding error, res / sqrt(12). Without it they read cv 0
     * and settle any cv: target. */
    if (res > 0.0 && b->sd < res / SQRT12)
        b->sd = res / SQRT12;
    b->cv = b->sd / b->value;
    b->relerr = log(b->ci_hi / b->ci_lo) / (2.0 * z_of(lv));
    b->se = b->relerr * b->value;
    b->cirel = (b->ci_hi - b->ci_lo) / (2.0 * b->value);
}

/* The timer floor: an interval narrower than one resolution step says
 * nothing the timer can tell apart, so it is widened to the step, evenly
 * on both sides (a lower bound that would reach 0 stays at half its old
 * value instead: a time is positive). */
static void floor_interval(double res, double *lo, double *hi)
{
    double w = *hi - *lo;
    if (!(res > 0.0) || w >= res)
        return;
    double grow = 0.5 * (res - w);
    *lo = *lo - grow > 0.0 ? *lo - grow : 0.5 * *lo;
    *hi += grow;
}

/* The between-pass statistics of sorted units s[0..r) with the timer
 * resolution res (0: none) into b (b->value and b->r already set). */
static void interval_of(const double *s, size_t r, double res, double want, mbx_between *b)
{
    if (r < 2) {
        b->mad = 0.0;
        b->sd = b->se = b->relerr = b->cirel = b->cv = NAN;
        b->ci_lo = b->ci_hi = b->value;
        b->level = 0.0;
        b->ci_exact = 0;
        return;
    }
    os_interval(s, r, want, &b->ci_lo, &b->ci_hi, &b->level);
    floor_interval(res, &b->ci_lo, &b->ci_hi);
    b->ci_exact = b->level >= 0.95;
    mbx_passes_set_errors(b, r, res);
}

/* MAD of sorted s[0..r) around its median v: the deviations are taken in
 * two sorted runs (below and above v) merged on the fly, so no second sort
 * and no second scratch array are needed. */
static double mad_sorted(const double *s, size_t r, double v)
{
    size_t below = 0;
    while (below < r && s[below] <= v)
        below++;
    size_t i = below, j = below, want = r / 2, k = 0;
    double dprev = 0.0, dcur = 0.0;
    while (k <= want) {
        double dl = i > 0 ? v - s[i - 1] : INFINITY;
        double dr = j < r ? s[j] - v : INFINITY;
        dprev = dcur;
        if (dl <= dr) {
            dcur = dl;
            i--;
        } else {
            dcur = dr;
            j++;
        }
        k++;
    }
    /* Type 7 at p = 1/2: the middle deviation, or the mean of the middle
     * two for even r (k-th smallest is dcur, the one before is dprev). */
    return (r % 2 == 1) ? dcur : 0.5 * (dprev + dcur);
}

int mbx_passes_between_res(const double *m, size_t r, double res, double want, double *scratch,
                           mbx_between *out)
{
    if (m == NULL || scratch == NULL || out == NULL || r == 0)
        return MBX_E_INVAL;
    for (size_t i = 0; i < r; i++)
        if (!isfinite(m[i]) || !(m[i] > 0.0))
            return MBX_E_INVAL;
    memmove(scratch, m, r * sizeof *scratch);
    qsort(scratch, r, sizeof *scratch, cmp_double);
    mbx_between b;
    b.r = r;
    b.value = mbx_stats_quantile_sorted(scratch, r, 0.5);
    b.mad = mad_sorted(scratch, r, b.value);
    interval_of(scratch, r, res, want, &b);
    *out = b;
    return MBX_OK;
}

int mbx_passes_between(const double *m, size_t r, double *scratch, mbx_between *out)
{
    return mbx_passes_between_res(m, r, 0.0, 0.95, scratch, out);
}

double mbx_passes_watched(int kind, const mbx_between *b)
{
    if (b == NULL)
        return NAN;
    switch (kind) {
    case MBX_STOP_CI: return b->ci_exact ? b->cirel : NAN;
    case MBX_STOP_CV: return b->cv;
    default: return b->relerr;
    }
}
