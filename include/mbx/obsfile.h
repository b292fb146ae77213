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

/* Rows of nobs observations of the point r that all belong to one pass:
 * indices from idx0, the pass column `pass`. MBX_OK or the writer's error. */
MBX_NODISCARD int mbx_obs_write_rows(mbx_csv_writer *w, const mbx_result *r, const double *obs,
                                     size_t nobs, size_t idx0, size_t pass);

/* The spool of `run --raw` (docs/hardening.md, "Scale"): each pass's
 * observations go to disk as the pass lands, so rank 0 holds a pass, not
 * a point's every observation; the point's rows are written from it when
 * the point is final. One file for every point, beside OUT.obs.csv, made
 * by mbx_file_temp and unlinked at once (a crash leaves nothing behind);
 * memory: two words per pass of each unfinished point. */
typedef struct mbx_obs_spool mbx_obs_spool;

/* A new spool beside path (OUT.obs.csv: the same file system). MBX_OK,
 * or MBX_E_IO / MBX_E_NOMEM with errno. */
MBX_NODISCARD int mbx_obs_spool_open(const char *path, mbx_obs_spool **out);
void mbx_obs_spool_free(mbx_obs_spool *sp); /* NULL is fine */

/* A pass's n observations (seconds) of point `point` (any index, e.g.
 * the scheduler's); reset 1: they replace the point's earlier ones. n may
 * be 0. MBX_OK, or MBX_E_IO (errno: the write's) / MBX_E_NOMEM. */
MBX_NODISCARD int mbx_obs_spool_add(mbx_obs_spool *sp, size_t point, int reset, const double *obs,
                                    size_t n);

/* Point `point`'s observations as rows of w (mbx_obs_write_point's rows:
 * indices from 0, one pass after another), one record per pass, held in
 * memory one pass at a time; then the point is forgotten and its disk
 * space given back where the file system can. On an error the rows
 * already written stay: the caller rewinds w (mbx_csv_writer_rewind).
 * MBX_OK, the writer's error, or MBX_E_IO reading the spool. */
MBX_NODISCARD int mbx_obs_spool_write(mbx_obs_spool *sp, size_t point, mbx_csv_writer *w,
                                      const mbx_result *r);

#endif
