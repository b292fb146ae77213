/* The raw-observation file's rows (mbx/obsfile.h): the one writer of
 * OUT.obs.csv, for `run --raw` and the explorer's export. Pure C. */
#include "mbx/obsfile.h"

#include <stdio.h>

int mbx_obs_write_point(mbx_csv_writer *w, const mbx_result *r, const double *obs, size_t nobs,
                        const size_t *seg, size_t nseg)
{
    char procs[16], bytes[24], idx[24], t[32], root[16] = "", param[24] = "", pass[24];
    snprintf(procs, sizeof procs, "%d", r->procs);
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)r->bytes);
    if (r->root >= 0)
        snprintf(root, sizeof root, "%d", r->root);
    if (r->param_name)
        snprintf(param, sizeof param, "%lld", (long long)r->param);
    int rc = MBX_OK;
    /* pass: the measured pass each observation belongs to (seg counts
     * them, in order); a compare takes the pass medians as samples. */
    size_t k = 0, left = nseg ? seg[0] : nobs;
    for (size_t i = 0; rc >= 0 && i < nobs; i++) {
        while (left == 0 && k + 1 < nseg)
            left = seg[++k];
        left -= left > 0;
        snprintf(idx, sizeof idx, "%zu", i);
        snprintf(pass, sizeof pass, "%zu", k);
        mbx_obs_format_us(obs[i], t, sizeof t);
        const char *f[MBX_OBS_NCOLS] = {
            r->benchmark, procs, bytes, idx, t, r->label ? r->label : "", root, param, pass};
        rc = mbx_csv_writer_row(w, f);
    }
    return rc;
}
