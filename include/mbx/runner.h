/* mpibex: the runner, the one path from a request of the scheduler to a
 * row, shared by `mpibex run` and the explorer (docs/architecture.md).
 *
 * The scheduler (mbx/sched.h) decides what is measured next and when a
 * pass runs; the runner carries each request out with a back end
 * (mbx/backend.h, the MPI engine or the fake): one mbx_runner_step asks for
 * the next request and does it end to end: the pair scan, settling, a
 * monitor probe, a pass (its spec from the request, the measurement, the
 * report back, the thread-binding check after a point's first pass), or a
 * wait; then it hands on the points that became final. It also owns the
 * translation of a measurement's stop rule and pass bounds into the
 * scheduler's settings (mbx_runner_curve_of).
 *
 * The front ends supply hooks: the point's spec, a pass landed (the
 * journal), a row is ready, idle (keys and drawing, or a sleep) and a note
 * for the user (the runner never prints, draws or exits). */
#ifndef MBX_RUNNER_H
#define MBX_RUNNER_H

#include <stddef.h>

#include "mbx/backend.h"
#include "mbx/bench.h"
#include "mbx/monitor.h"
#include "mbx/plan.h"
#include "mbx/profile.h"
#include "mbx/sched.h"
#include "mbx/thrinfo.h"

/* A hook asked the run to end (its reason is the front end's). */
#define MBX_RUNNER_HOOK_STOP (-1000)

typedef enum mbx_runner_note_kind {
    MBX_RUNNER_PAIR,    /* the scan's pair: rank 0 and far; lat[] the latencies */
    MBX_RUNNER_SETTLED, /* settling took `seconds` */
    MBX_RUNNER_UNBOUND, /* threads of spec's point could not be bound: ranks, what */
    MBX_RUNNER_FAILED   /* a request failed (step: where, spec for a pass, rc) */
} mbx_runner_note_kind;

/* The step a failure happened in (MBX_RUNNER_FAILED). */
typedef enum mbx_runner_where {
    MBX_RUNNER_AT_NEXT,   /* the scheduler's next request */
    MBX_RUNNER_AT_PAIR,   /* the pair scan */
    MBX_RUNNER_AT_SETTLE, /* the barrier traffic of settling */
    MBX_RUNNER_AT_PROBE,  /* the monitor's probe */
    MBX_RUNNER_AT_BIND,   /* gathering the thread binding (the run goes on) */
    MBX_RUNNER_AT_PASS,   /* the measurement of a pass */
    MBX_RUNNER_AT_REPORT  /* the scheduler refused a pass */
} mbx_runner_where;

typedef struct mbx_runner_note {
    mbx_runner_note_kind kind;
    mbx_runner_where where;
    int rc;
    const mbx_point_spec *spec; /* UNBOUND, and FAILED at BIND, PASS, REPORT */
    const double *lat;          /* PAIR: one-way latency from rank 0, nranks entries */
    int far;                    /* PAIR */
    double seconds;             /* SETTLED */
    const char *ranks, *what;   /* UNBOUND (mbx_thrinfo_binding_news) */
} mbx_runner_note;

typedef struct mbx_runner_hooks {
    void *ud;
    double (*clock)(void *ud); /* run seconds now (the scheduler's clock) */
    /* PASS: the point's spec (benchmark, size, procs, parameter, root,
     * checks) and its row's label (NULL: the measurement's); the runner adds the pass's settings.
     * < 0: no such point (the pass is reported failed). */
    int (*spec)(void *ud, const mbx_sched_req *rq, mbx_point_spec *spec, const char **label);
    mbx_progress_fn progress; /* during a pass's measurement (ud the hooks') */
    /* Around the measurement (the watchdog; may be NULL): disarm returns 1
     * when the pass came back after its bound, r then its HUNG row. */
    void (*arm)(void *ud, const mbx_sched_req *rq, const mbx_point_spec *spec);
    int (*disarm)(void *ud, mbx_result *r);
    /* A pass whose data check failed (its row is INVALID): 0 goes on with
     * that row, else the step ends with MBX_RUNNER_HOOK_STOP. */
    int (*check_failed)(void *ud, const mbx_point_spec *spec);
    /* A pass the scheduler took (may be NULL): 0, else the step ends. */
    int (*pass)(void *ud, const mbx_sched_req *rq, const mbx_point_spec *spec, const mbx_result *r,
                double t_start, double t_end);
    /* Point `point` is final (mbx_sched_result gives its row): 0, else
     * the step ends. */
    int (*row)(void *ud, size_t point);
    void (*idle)(void *ud, double seconds); /* nothing is due for this long */
    /* A note for the user: 0, else (a PAIR, SETTLED or UNBOUND note whose
     * record failed) the step ends with MBX_RUNNER_HOOK_STOP. */
    int (*note)(void *ud, const mbx_runner_note *n);
    int (*stop_asked)(void *ud); /* ends settling early; may be NULL */
    /* The probe's value as read (a test's override; may be NULL). */
    void (*probe_read)(void *ud, double t, double *lat);
} mbx_runner_hooks;

typedef struct mbx_runner {
    mbx_backend *be;
    mbx_sched *sched;
    mbx_monitor *mon; /* probes go into it (its peer is probed) */
    int probe_rounds;
    mbx_runner_hooks h;
    int thr_seen; /* failed thread binds seen so far (mbx_thrinfo_binding_news) */
    /* The last thread-binding gather (thrinfo.h; NULL: none or failed). */
    const mbx_thread_bind *thr;
    /* The machine profile that widens rows (mbx/profile.h), set by the
     * front end after mbx_runner_init once it has checked it; NULL: none
     * (rows are launch-scoped). Not owned. */
    const mbx_profile *profile;
} mbx_runner;

/* A runner over sched and be; mon may be NULL (no monitor). */
void mbx_runner_init(mbx_runner *rn, mbx_backend *be, mbx_sched *sched, mbx_monitor *mon,
                     int probe_rounds, const mbx_runner_hooks *h);

/* One request end to end. Returns the request's kind (mbx_sched_kind,
 * MBX_SCHED_DONE when nothing is left), MBX_E_ABORTED when a pass was
 * stopped (progress asked), MBX_RUNNER_HOOK_STOP when a hook ended it, or
 * another negative mbx_status after an MBX_RUNNER_FAILED note. */
int mbx_runner_step(mbx_runner *rn);

/* Point i's row (mbx_sched_result), its interval widened by rn->profile
 * where that has the point's benchmark, ranks and size class
 * (mbx_profile_widen, ci_scope profile): the one row both front ends show
 * and write, final or not. An mbx_status as mbx_sched_result's. */
int mbx_runner_result(const mbx_runner *rn, size_t i, mbx_result *out);

/* Hand on the points that became final (hooks.row): 0 or the hook's stop. */
int mbx_runner_take_finals(mbx_runner *rn);

/* The scheduler's settings of a curve of benchmark b measured by m, the
 * one translation of a measurement for both front ends: its pass bounds,
 * point time and stop rule (a fixed:N rule is N observations over exactly
 * min_passes passes, at least one each; a precision rule's eps when it is
 * inside (0, 1), else the scheduler's), and its refinement when budget
 * points are left to it and m refines (sizes: aligned to b's unit and
 * split geometrically). Grid, pair and ud of cv are kept. */
void mbx_runner_curve_of(const mbx_measurement *m, size_t min_passes, const mbx_bench *b, int sizes,
                         size_t budget, mbx_sched_curve *cv);

#endif
