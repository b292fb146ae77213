/* The environment file (OUT.env.csv): the one writer of its key,value
 * rows, for every command and for the monitor's rows. Pure: csvio and kv. */
#include "mbx/envfile.h"

#include "mbx/csvio.h"

/* env's rows into a key,value file opened by open (write or append). */
static int kv_rows(const char *path, mbx_kvlist *env, int rc,
                   int (*open)(const char *, const char *const *, size_t, mbx_csv_writer **))
{
    static const char *const kvcols[] = {"key", "value"};
    mbx_csv_writer *w = NULL;
    if (rc >= 0)
        rc = open(path, kvcols, 2, &w);
    for (size_t i = 0; rc >= 0 && i < env->n; i++) {
        const char *f[2] = {env->v[i].key, env->v[i].value};
        rc = mbx_csv_writer_row(w, f);
    }
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    mbx_kv_free(env);
    return rc;
}

int mbx_env_file_write(const char *path, mbx_kvlist *env, int rc)
{
    return kv_rows(path, env, rc, mbx_csv_writer_open);
}

int mbx_env_file_append(const char *path, mbx_kvlist *env, int rc)
{
    if (rc >= 0 && env->n == 0) {
        mbx_kv_free(env);
        return rc;
    }
    return kv_rows(path, env, rc, mbx_csv_writer_append);
}
