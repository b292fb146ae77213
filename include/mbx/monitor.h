/* The machine-state monitor of a front end (docs/user-guide.md, "The
 * machine-state monitor"): a cheap probe between points, the probe series, the rule
 * that measures a point again when it straddles a level shift and flags it
 * SHIFTED when the second try straddles one too, and the files that record
 * it. The batch front end and the explorer share it; how a probe is taken
 * (the engine, a fake) is the caller's. No MPI, no curses, never prints. */
#ifndef MBX_MONITOR_H
#define MBX_MONITOR_H

#include <stddef.h>

#include "mbx/levels.h"
#include "mbx/result.h"

/* One probe: *lat the one-way latency in seconds, *t when it was taken
 * (seconds since the caller's start). Returns MBX_OK or a negative status. */
typedef int (*mbx_monitor_probe_fn)(void *ud, double *lat, double *t);

/* One measurement of the point (the engine's mbx_engine_measure or a back
 * end's): fills out, and *obs / *nobs valid until the next call. */
typedef int (*mbx_monitor_measure_fn)(void *ud, mbx_result *out, const double **obs, size_t *nobs);

typedef struct mbx_monitor {
    int peer;         /* the rank probed with rank 0; 0: the monitor is off */
    double shift_rel; /* smallest relative change that is a shift (0: 0.2) */
    double *t, *v;    /* the series: when (seconds), one-way latency (seconds) */
    size_t n, cap;
    size_t remeasured; /* points measured a second time */
    size_t shifted;    /* points flagged SHIFTED */
    int probe_failed;  /* the last mbx_monitor_measure failed in a probe */
    mbx_levels lv;     /* levels of the series as of lv_n probes (mbx_monitor_levels) */
    size_t lv_n;
    int lv_ok;
    struct mbx_csv_writer *series; /* OUT.probe.csv from mbx_monitor_open_series */
} mbx_monitor;

/* An empty series; peer 0 switches the monitor off. */
void mbx_monitor_init(mbx_monitor *m, int peer, double shift_rel);
/* Forget the series and the counts (a new run); peer and threshold stay. */
void mbx_monitor_reset(mbx_monitor *m);
void mbx_monitor_free(mbx_monitor *m);

/* Append one probe. MBX_E_NOMEM. */
MBX_NODISCARD int mbx_monitor_add(mbx_monitor *m, double t, double v);
double mbx_monitor_last(const mbx_monitor *m); /* NAN when there is none */

/* Measure one point with the monitor around it: the last probe (or a new
 * one) before, one after; when the two lie on different levels
 * (mbx_levels_shifted), the point is measured once more between the probe
 * after and a new one, and if that straddles a shift too a SETTLED or
 * UNSETTLED status becomes SHIFTED. Fills out->probe, probe_after and
 * remeasured (NAN, NAN, 0 when the monitor is off). Returns the first
 * failure of measure or probe (m->probe_failed says which). */
MBX_NODISCARD int mbx_monitor_measure(mbx_monitor *m, mbx_monitor_probe_fn probe,
                                      mbx_monitor_measure_fn measure, void *ud, mbx_result *out,
                                      const double **obs, size_t *nobs);

/* The levels of the series (mbx_levels_detect with the threshold),
 * recomputed only when probes were added since the last call. NULL when
 * detection failed; the result stays owned by m. */
const mbx_levels *mbx_monitor_levels(mbx_monitor *m);

/* One line: "N probes over S s: L levels (a, b us), K shifts; R points
 * measured again, X SHIFTED". */
void mbx_monitor_summary(mbx_monitor *m, char *buf, size_t len);

/* The span of probes below which "1 level" is said with "too short to
 * tell": the machine's levels last seconds. */
#define MBX_MONITOR_SAY_SPAN_S 10.0

/* What mbx_monitor_write writes. */
#define MBX_MONITOR_SETTINGS 1u /* env: monitor on/off, monitor.shift_threshold */
#define MBX_MONITOR_FIGURES 2u  /* env: monitor.probes, .seconds, .levels, .shifts, ... */
#define MBX_MONITOR_SERIES 4u   /* OUT.probe.csv: t_s, probe_us, segment, level */

/* Create the series file beside results_path (OUT.probe.csv, the header
 * only) now, at the start of a run, for mbx_monitor_write to fill at its
 * end: from now on the name is a file of ours, where nobody can put a
 * FIFO or a file of theirs in the meantime (docs/hardening.md). Nothing
 * when the monitor is off; mbx_monitor_free closes it. MBX_E_IO (errno
 * set), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_monitor_open_series(mbx_monitor *m, const char *results_path);

/* Write the parts in `what`: env rows appended to env_path (may be NULL
 * when no env part is asked), the series next to results_path. With the
 * monitor off only the settings are written. The series goes into the
 * file of mbx_monitor_open_series when there is one. MBX_E_IO (errno set),
 * MBX_E_NOMEM. */
MBX_NODISCARD int mbx_monitor_write(mbx_monitor *m, const char *results_path, const char *env_path,
                                    unsigned what);

#endif
