/* The raw-observation file's rows (mbx/obsfile.h): the one writer of
 * OUT.obs.csv, for `run --raw` and the explorer's export. Pure C. */
#include "mbx/obsfile.h"

#include <stdio.h>

int mbx_obs_write_rows(mbx_csv_writer *w, const mbx_result *r, const double *obs, size_t nobs,
                       size_t idx0, size_t pass)
{
    char procs[16], bytes[24], idx[24], t[32], root[16] = "", param[24] = "", ps[24];
    snprintf(procs, sizeof procs, "%d", r->procs);
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)r->bytes);
    if (r->root >= 0)
        snprintf(root, sizeof root, "%d", r->root);
    if (r->param_name)
        snprintf(param, sizeof param, "%lld", (long long)r->param);
    snprintf(ps, sizeof ps, "%zu", pass);
    int rc = MBX_OK;
    for (size_t i = 0; rc >= 0 && i < nobs; i++) {
        snprintf(idx, sizeof idx, "%zu", idx0 + i);
        mbx_obs_format_us(obs[i], t, sizeof t);
        const char *f[MBX_OBS_NCOLS] = {
            r->benchmark, procs, bytes, idx, t, r->label ? r->label : "", root, param, ps};
        rc = mbx_csv_writer_row(w, f);
    }
    return rc;
}

int mbx_obs_write_point(mbx_csv_writer *w, const mbx_result *r, const double *obs, size_t nobs,
                        const size_t *seg, size_t nseg)
{
    /* pass: the measured pass each observation belongs to (seg counts
     * them, in order); a compare takes the pass medians as samples. */
    if (nseg == 0)
        return mbx_obs_write_rows(w, r, obs, nobs, 0, 0);
    int rc = MBX_OK;
    size_t at = 0;
    for (size_t k = 0; rc >= 0 && k < nseg && at < nobs; k++) {
        size_t n = seg[k] < nobs - at ? seg[k] : nobs - at;
        rc = mbx_obs_write_rows(w, r, obs + at, n, at, k);
        at += n;
    }
    /* Counts that fall short of nobs: the rest in the last pass. */
    if (rc >= 0 && at < nobs)
        rc = mbx_obs_write_rows(w, r, obs + at, nobs - at, at, nseg - 1);
    return rc;
}
