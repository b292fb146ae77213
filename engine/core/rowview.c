/* What every view of a results row shows of its interval and its flag
 * (see mbx/rowview.h). */
#include "mbx/rowview.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *mbx_row_ci_na(mbx_point_status st, size_t levels, char *buf, size_t len)
{
    if (st != MBX_POINT_SHIFTED || levels < 2 || !buf || len == 0)
        return NULL;
    snprintf(buf, len, "n/a, %zu levels", levels);
    return buf;
}

void mbx_row_bw_interval(uint64_t bytes, double lo_s, double hi_s, double *bw_lo, double *bw_hi)
{
    double b = (double)bytes / 1e6;
    *bw_lo = bytes > 0 && hi_s > 0 && isfinite(hi_s) ? b / hi_s : NAN;
    *bw_hi = bytes > 0 && lo_s > 0 && isfinite(lo_s) ? b / lo_s : NAN;
}

/* Whether reason starts with word. */
static int says(const char *reason, const char *word)
{
    return reason && strncmp(reason, word, strlen(word)) == 0;
}

const char *mbx_row_advice(mbx_point_status st, const char *reason)
{
    if (st == MBX_POINT_SHIFTED)
        return "machine levels differ: bind ranks (mpiexec -bind-to core), run longer (--span), "
               "or mpibex repeat -k 10";
    if (st != MBX_POINT_UNSETTLED)
        return NULL;
    if (says(reason, "max-passes"))
        return "not settled: more passes (--max-passes) over a longer --span, "
               "or mpibex repeat -k 10";
    if (says(reason, "point-time") || says(reason, "time-limit"))
        return "not settled: give it more time (--point-time, --time-limit), "
               "or mpibex repeat -k 10";
    if (says(reason, "pass cut short"))
        return "passes cut short: a longer --sync-span, or --sync barrier";
    if (says(reason, "host state"))
        return "an unusual state of this host (its probe against earlier runs): run again "
               "later, or mpibex repeat -k 10";
    if (says(reason, "1 state for"))
        return "the probes saw one state for longer than this host's states last: its mix "
               "is not in the interval; run again, or mpibex repeat -k 10";
    if (says(reason, "states unknown"))
        return "the first runs on a host learn how long its states last: run again "
               "(from 5 runs on, the host's history says), or mpibex repeat -k 10";
    if (says(reason, "stopped"))
        return "stopped before it settled: run it again (--resume)";
    return "not settled: run longer (--span), bind ranks (mpiexec -bind-to core), "
           "or mpibex repeat -k 10";
}
