/* mpibex: pacing from the machine's own memory (docs/algorithms.md, "The
 * scheduler", Pacing).
 *
 * The monitor probes the machine every 0.05 s of run time. From that
 * series the scheduler estimates, during the run, how long the machine
 * remembers its state:
 *  - tau, the correlation time of the probe series within its levels (log
 *    values less their segment's level, so level switches do not count
 *    twice): passes closer than about tau share a machine state;
 *  - the dwell time of the levels (mbx_levels_detect's segments): how long
 *    the machine stays on one level before it switches.
 * The rule turns them into each point's pass gap and minimum span, with a
 * seeded jitter so no pass lands at a fixed period, and says when the
 * machine's states last longer than the run may span (the point cannot
 * cover its launch's long-run median, and its row says so).
 *
 * Pure functions of their arguments: no state, no MPI, never prints. */
#ifndef MBX_PACING_H
#define MBX_PACING_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/levels.h"
#include "mbx/status.h"

/* Probes below which tau is not estimated (NAN): the window needs lags. */
#define MBX_PACING_MIN_PROBES 16
/* Sokal's window constant: sum lags up to c * tau. */
#define MBX_PACING_SOKAL_C 5.0
/* Levels whose share of the run a dwell estimate reports. */
#define MBX_PACING_MAX_LEVELS 8

/* The correlation time of a probe series, seconds. t[0..n) ascending run
 * seconds, v[0..n) positive values; lv (may be NULL) the levels of v
 * (mbx_levels_detect over the same n values): each value's log is taken
 * less its segment's log median, so the estimate is the memory within a
 * level. The autocorrelation rho_k of those residuals is summed over lags
 * 1..W with Sokal's automatic window (the least W >= c tau(W)), and tau =
 * dt * (sum / rho_1 - 1/2): dividing by rho_1 removes the probe's own
 * white noise (its nugget), which would shorten tau though it says
 * nothing about the machine; for an exponential decay exp(-lag/tau) this
 * gives tau. dt is the median probe spacing; tau is at least dt (the
 * series cannot see shorter memory), and dt when rho_1 is not
 * significantly above 0 (below 2 / sqrt(n)). *tau NAN when n <
 * MBX_PACING_MIN_PROBES or the residuals do not vary. Errors:
 * MBX_E_INVAL (NULL, a value not positive and finite, times not
 * ascending). */
MBX_NODISCARD int mbx_pacing_tau(const double *t, const double *v, size_t n, const mbx_levels *lv,
                                 double *tau);

/* The longest memory a probe series of `seen` seconds that read tau
 * (mbx_pacing_tau) cannot rule out: the tau whose series of that length
 * read tau or more in at least a quarter of cases (a one-sided 75 %
 * bound). A short series reads a long memory short (centring takes out
 * the slow part: any memory reads below seen / 7), so the bound grows
 * faster than tau as tau / seen grows, and is INFINITY from tau / seen
 * >= 0.1015 on: such a series cannot bound the memory at all. The
 * quantiles are those of mbx_pacing_tau itself over simulated series
 * (probes 0.05 s apart, 100-400 of them; docs/algorithms.md, Pacing). NAN
 * when tau or seen is not positive and finite. */
double mbx_pacing_tau_bound(double tau, double seen);

/* The same at one-sided 95 %: the tau whose series read tau or more in at
 * least 5 % of cases. INFINITY from tau / seen >= 0.0531 on. What a
 * decision that must not be taken on a short read uses (the scheduler's
 * wait before a point may settle); mbx_pacing_tau_bound is what the
 * interval's widening uses. */
double mbx_pacing_tau_bound95(double tau, double seen);

/* How long the machine stays on a level, from the probe times t[0..n)
 * and the levels of their values. */
typedef struct mbx_pacing_dwell {
    size_t changes;  /* level changes seen (adjacent segments on different levels) */
    double exposure; /* seconds the series covers: t[n-1] - t[0] */
    double mean;     /* exposure / changes: the exponential MLE, which counts
                        the censored first and last stays; with no change,
                        exposure (a lower bound only) */
    int censored;    /* 1: no change seen, mean is a lower bound */
    double median;   /* median of the complete stays (between two changes);
                        NAN with none */
    size_t nlevel;   /* levels (lv->nlevel, at most MBX_PACING_MAX_LEVELS counted) */
    double level[MBX_PACING_MAX_LEVELS]; /* their values, ascending */
    double share[MBX_PACING_MAX_LEVELS]; /* share of exposure at each level */
} mbx_pacing_dwell;

/* The dwell times of lv over times t[0..n) (lv from the n values taken at
 * t). A probe stands for the time until the next one. Errors: MBX_E_INVAL
 * (NULL, times not ascending, a segment outside [0, n)). */
MBX_NODISCARD int mbx_pacing_dwell_get(const double *t, size_t n, const mbx_levels *lv,
                                       mbx_pacing_dwell *out);

/* What the rule is given. */
typedef struct mbx_pacing_in {
    double span;     /* S: the plan's least span, seconds (>= 0) */
    size_t passes;   /* R: the plan's least passes */
    double tau;      /* mbx_pacing_tau; NAN: unknown */
    double dwell;    /* mean dwell (mbx_pacing_dwell.mean); NAN or censored: no switch seen */
    int switching;   /* 1: the levels were seen to switch (changes >= 1) */
    double span_cap; /* the most a point's passes may span, seconds; 0: no cap */
} mbx_pacing_in;

/* What it gives: the gap between a point's passes and the span they must
 * reach. */
typedef struct mbx_pacing {
    double gap;       /* max(S / (R - 1), 2 tau), at most span_cap / (R - 1) */
    double first_gap; /* the gap while the span is not reached: max(gap, span / (R - 1)) */
    double need;      /* the span the machine asks: max(S, (R - 1) tau, 3 dwell when switching) */
    double span;      /* a point's least span: max(S, need), S when it cannot cover */
    int cannot_cover; /* 1: need > max(S, span_cap): the states outlast what a point may span */
    double states;    /* how long a state lasts: max(2 tau, dwell when switching), s */
} mbx_pacing;

/* The rule (docs/algorithms.md, "The scheduler", Pacing). Never fails:
 * R < 2 or S and tau unknown give gap 0 (no pacing). */
void mbx_pacing_rule(const mbx_pacing_in *in, mbx_pacing *out);

/* The jitter of pass k of point i under a run's seed: a factor drawn
 * uniformly from [0.5, 1.5), the same for the same arguments, so a
 * pass's due time is a function of the run's seed and no pass of any
 * point lands at a fixed period. */
double mbx_pacing_jitter(uint64_t seed, uint64_t point, uint64_t pass);

#endif
