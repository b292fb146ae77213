/* The spool of `run --raw` (mbx/obsfile.h): each pass's observations on
 * disk as it lands, a point's rows written from there once it is final.
 * The file holds raw doubles; a point knows where its passes are. */
#define _GNU_SOURCE /* fallocate: give a written point's space back */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "mbx/file.h"
#include "mbx/grow.h"
#include "mbx/obsfile.h"

typedef struct spool_point {
    off_t *off;  /* where each pass's observations start */
    size_t *cnt; /* and how many it has */
    size_t n, capoff, capcnt;
} spool_point;

struct mbx_obs_spool {
    int fd;
    off_t size; /* the end of what was written */
    spool_point *pt;
    size_t npt;
    double *buf; /* one pass, while a point is written */
    size_t capbuf;
};

int mbx_obs_spool_open(const char *path, mbx_obs_spool **out)
{
    *out = NULL;
    mbx_obs_spool *sp = calloc(1, sizeof *sp);
    if (!sp)
        return MBX_E_NOMEM;
    char *tmp = NULL;
    int rc = mbx_file_temp(path, 0600, &sp->fd, &tmp);
    if (rc != MBX_OK) {
        free(sp);
        return rc;
    }
    /* Unlinked at once: the descriptor is the file's only name, so a
     * crash or a kill leaves nothing beside the results. */
    if (unlink(tmp) != 0) {
        int err = errno;
        close(sp->fd);
        free(tmp);
        free(sp);
        errno = err;
        return MBX_E_IO;
    }
    free(tmp);
    *out = sp;
    return MBX_OK;
}

static void forget(mbx_obs_spool *sp, spool_point *p)
{
#ifdef FALLOC_FL_PUNCH_HOLE
    /* The space of passes already written is given back (not where the
     * file system cannot: the file then grows with the run, on disk). */
    for (size_t k = 0; k < p->n; k++)
        if (p->cnt[k])
            (void)fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, p->off[k],
                            (off_t)(p->cnt[k] * sizeof(double)));
#else
    (void)sp;
#endif
    p->n = 0;
}

void mbx_obs_spool_free(mbx_obs_spool *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->npt; i++) {
        free(sp->pt[i].off);
        free(sp->pt[i].cnt);
    }
    free(sp->pt);
    free(sp->buf);
    close(sp->fd);
    free(sp);
}

int mbx_obs_spool_add(mbx_obs_spool *sp, size_t point, int reset, const double *obs, size_t n)
{
    if (!sp || (n && !obs))
        return MBX_E_INVAL;
    if (point >= sp->npt) {
        size_t cap = sp->npt;
        if (mbx_grow((void **)&sp->pt, &cap, point + 1, sizeof *sp->pt) != MBX_OK)
            return MBX_E_NOMEM;
        for (size_t i = sp->npt; i < cap; i++)
            sp->pt[i] = (spool_point){0};
        sp->npt = cap;
    }
    spool_point *p = &sp->pt[point];
    if (reset)
        forget(sp, p);
    if (n == 0)
        return MBX_OK;
    if (mbx_grow((void **)&p->off, &p->capoff, p->n + 1, sizeof *p->off) != MBX_OK ||
        mbx_grow((void **)&p->cnt, &p->capcnt, p->n + 1, sizeof *p->cnt) != MBX_OK)
        return MBX_E_NOMEM;
    off_t at = sp->size;
    int rc = mbx_file_append(sp->fd, &sp->size, obs, n * sizeof *obs);
    if (rc != MBX_OK)
        return rc;
    p->off[p->n] = at;
    p->cnt[p->n++] = n;
    return MBX_OK;
}

/* Pass k of p into sp->buf. */
static int read_pass(mbx_obs_spool *sp, const spool_point *p, size_t k)
{
    size_t len = p->cnt[k] * sizeof *sp->buf, got = 0;
    if (mbx_grow((void **)&sp->buf, &sp->capbuf, p->cnt[k], sizeof *sp->buf) != MBX_OK)
        return MBX_E_NOMEM;
    while (got < len) {
        ssize_t r = pread(sp->fd, (char *)sp->buf + got, len - got, p->off[k] + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO; /* shorter than written: not ours any more */
            return MBX_E_IO;
        }
        got += (size_t)r;
    }
    return MBX_OK;
}

int mbx_obs_spool_write(mbx_obs_spool *sp, size_t point, mbx_csv_writer *w, const mbx_result *r)
{
    if (!sp || !w || !r)
        return MBX_E_INVAL;
    if (point >= sp->npt)
        return MBX_OK; /* no observation (a HUNG pass, a point without passes) */
    spool_point *p = &sp->pt[point];
    int rc = MBX_OK;
    size_t idx = 0;
    for (size_t k = 0; rc >= 0 && k < p->n; k++) {
        rc = read_pass(sp, p, k);
        if (rc >= 0)
            rc = mbx_csv_writer_hold(w);
        if (rc >= 0) {
            int wr = mbx_obs_write_rows(w, r, sp->buf, p->cnt[k], idx, k);
            rc = mbx_csv_writer_commit(w);
            if (wr < 0 && rc >= 0)
                rc = wr;
        }
        idx += p->cnt[k];
    }
    if (rc >= 0)
        forget(sp, p);
    return rc;
}
