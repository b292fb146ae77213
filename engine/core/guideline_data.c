/* Guidelines (mbx/guideline.h): the samples of a run or of a directory of
 * launches, read as `mpibex compare` reads one side (compare_read.c). */
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "mbx/guideline.h"
#include "msg.h"

struct mbx_gl_data {
    struct side s;
};

int mbx_gl_data_load(const char *path, mbx_gl_data **out, const char **scope, char *msg,
                     size_t msglen)
{
    if (!path || !out)
        return MBX_E_INVAL;
    *out = NULL;
    mbx_gl_data *d = calloc(1, sizeof *d);
    if (!d) {
        mbx_msgf(msg, msglen, "%s: out of memory", path);
        return MBX_E_NOMEM;
    }
    int rc = mbx_compare_load_side(&d->s, path, msg, msglen);
    if (rc == MBX_OK && !d->s.dir && strcmp(d->s.kind, "pass medians") != 0) {
        mbx_msgf(msg, msglen,
                 "%s: its points were not measured in passes (%s): a guideline is judged on "
                 "pass medians of one job or on launches; measure again with this mpibex",
                 path, d->s.kind);
        rc = MBX_E_INVAL;
    }
    if (rc < 0) {
        mbx_gl_data_free(d);
        return rc;
    }
    if (scope)
        *scope = d->s.dir ? "launches" : "passes-of-one-job";
    *out = d;
    return MBX_OK;
}

void mbx_gl_data_free(mbx_gl_data *d)
{
    if (!d)
        return;
    mbx_compare_side_free(&d->s);
    free(d);
}

const double *mbx_gl_data_sample(const mbx_gl_data *d, const char *bench, const char *label,
                                 int procs, uint64_t bytes, size_t *n)
{
    *n = 0;
    if (!d || !bench || procs < 1)
        return NULL;
    const char *text[NTEXT] = {NULL};
    text[T_BENCH] = bench;
    text[T_LABEL] = label;
    for (size_t i = 0; i < d->s.n; i++) {
        const struct ckey *k = &d->s.key[i];
        if (k->nv > 0 && k->usable &&
            mbx_compare_key_is(k, text, (unsigned long long)procs, (unsigned long long)bytes)) {
            *n = k->nv;
            return k->v;
        }
    }
    return NULL;
}

size_t mbx_gl_data_procs(const mbx_gl_data *d, const char *bench, const char *label, int *out,
                         size_t max)
{
    size_t n = 0;
    if (!d || !bench)
        return 0;
    const char *text[NTEXT] = {NULL};
    text[T_BENCH] = bench;
    text[T_LABEL] = label;
    for (size_t i = 0; i < d->s.n; i++) {
        const struct ckey *k = &d->s.key[i];
        if (!mbx_compare_key_is(k, text, k->procs, k->bytes))
            continue;
        int p = (int)k->procs;
        size_t at = 0;
        while (at < n && out[at] < p)
            at++;
        if ((at < n && out[at] == p) || n == max)
            continue;
        memmove(out + at + 1, out + at, (n - at) * sizeof *out);
        out[at] = p;
        n++;
    }
    return n;
}
