/* What every view of a results row shows of its interval and its flag
 * (the batch table, the explorer's results and inspector, the report):
 * one rule, so a point tells one story wherever it is read
 * (docs/user-guide.md, "One point, one story"). Pure C, no printing. */
#ifndef MBX_ROWVIEW_H
#define MBX_ROWVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/result.h"

/* The text to show instead of a row's interval and err, or NULL when they
 * are shown as the row has them. A SHIFTED row with 2 or more levels
 * mixes machine levels it tells apart: an interval of the mixture over a
 * few level visits is no interval of anything ("n/a, 2 levels"; its
 * per-level medians are beside it). buf holds the text. */
const char *mbx_row_ci_na(mbx_point_status st, size_t levels, char *buf, size_t len);

/* The bandwidth interval (MB/s) of a time interval lo_s..hi_s (seconds)
 * for `bytes` moved: the low time bound gives the high bandwidth and the
 * high time the low one. A bound that is not a positive finite time gives
 * NAN (no bandwidth is read off a time of 0). */
void mbx_row_bw_interval(uint64_t bytes, double lo_s, double hi_s, double *bw_lo, double *bw_hi);

/* One line of what to do about a flagged row (SHIFTED or UNSETTLED; its
 * status_reason, may be NULL, picks the advice), NULL for any other. */
const char *mbx_row_advice(mbx_point_status st, const char *reason);

#endif
