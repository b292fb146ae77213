/* The raw-observation file (OUT.obs.csv): one row per observation of a
 * point, as `mpibex run --raw` and the explorer's export write it
 * (docs/csv-format.md). Its columns are mbx_obs_columns (result.h). */
#ifndef MBX_OBSFILE_H
#define MBX_OBSFILE_H

#include <stddef.h>

#include "mbx/csvio.h"
#include "mbx/result.h"

/* The nobs observations (seconds) of the point r as rows of w, opened
 * with mbx_obs_columns: the point's key, each observation's index, its
 * time in microseconds (mbx_obs_format_us) and the pass it belongs to
 * (seg: the observations of each of nseg passes, in order; nseg 0: all in
 * pass 0). Returns MBX_OK or the writer's error. */
MBX_NODISCARD int mbx_obs_write_point(mbx_csv_writer *w, const mbx_result *r, const double *obs,
                                      size_t nobs, const size_t *seg, size_t nseg);

#endif
