/* b_eff_io driver on rank 0: directory and space checks, the 15 phases
 * (5 pattern types x write, rewrite, read), the rows and the summary, and
 * the removal of every file on every path. */
#include "mbx/beffio_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mbx/beffio.h"
#include "mbx/dir.h"

#define PREFIX "mpibex-beffio-"
#define DEFAULT_T_S 10.0
#define BUDGET_SHARE 0.8 /* of the free space at start, for one type's files */

typedef struct ctx {
    mbx_beffio_progress cb;
    void *ud;
    int stop;
    volatile sig_atomic_t *flag; /* the caller's stop flag, or NULL */
} ctx;

static int stop_hook(void *ud)
{
    const ctx *c = ud;
    return c->stop || (c->flag && *c->flag != 0);
}

/* The names a run creates in its directory: t0, t1, t3, t4 and t2.RANK. */
static int run_file(const char *name, void *ud)
{
    (void)ud;
    if (name[0] != 't' || name[1] < '0' || name[1] > '4')
        return 0;
    if (name[2] == '\0')
        return name[1] != '2';
    if (name[1] != '2' || name[2] != '.' || name[3] == '\0')
        return 0;
    return strspn(name + 3, "0123456789") == strlen(name + 3);
}

/* Remove a run directory (relative to at): only if it is a directory of
 * this user that nobody else can write in, and only the files a run
 * creates; a planted link is refused, never followed. */
static int remove_run_dir(int at, const char *path, const char **why)
{
    return mbx_dir_remove(at, path, MBX_DIR_PRIVATE | MBX_DIR_MISSING_OK, run_file, NULL, why);
}

static void host_name(char *h, size_t n)
{
    if (gethostname(h, n) != 0)
        snprintf(h, n, "localhost");
    h[n - 1] = '\0';
    for (char *p = h; *p; p++)
        if (*p == '/' || *p == '-')
            *p = '_';
}

int mbx_beffio_cleanup_stale(const char *dir, char *note, size_t notelen)
{
    char host[256], mine[300];
    host_name(host, sizeof host);
    snprintf(mine, sizeof mine, PREFIX "%s-", host);
    if (note && notelen)
        note[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0, refused = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t ml = strlen(mine);
        if (strncmp(de->d_name, mine, ml) != 0)
            continue;
        char *end = NULL;
        long pid = strtol(de->d_name + ml, &end, 10);
        /* HOST-PID-XXXXXX (mkdtemp), or HOST-PID of earlier versions. */
        if (pid <= 0 || !end || (*end != '\0' && (*end != '-' || strlen(end) != 7)))
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to judge */
        const char *why = NULL;
        if (remove_run_dir(dirfd(d), de->d_name, &why) == 0) {
            removed++;
        } else if (note && notelen && refused++ == 0) {
            snprintf(note, notelen, "left the stale run directory '%s/%s' in place: %s", dir,
                     de->d_name, why ? why : strerror(errno));
        }
    }
    closedir(d);
    if (note && notelen && refused > 1) {
        size_t n = strlen(note);
        snprintf(note + n, notelen - n, " (and %d more)", refused - 1);
    }
    return removed;
}

static double mbps(double bytes, double s)
{
    return s > 0 ? bytes / s / 1e6 : 0.0;
}

static void unlink_type(const char *run, int type, int nprocs)
{
    char f[4500];
    if (type == 2) {
        for (int r = 0; r < nprocs; r++) {
            snprintf(f, sizeof f, "%s/t2.%d", run, r);
            (void)unlink(f);
        }
    } else {
        snprintf(f, sizeof f, "%s/t%d", run, type);
        (void)unlink(f);
    }
}

/* Checks before anything is written: T, the directory, the memory, the
 * space. Fills dir (absolute) and the table. */
static int prepare(mbx_engine *e, const mbx_beffio_opts *o, char *dir, size_t dirlen,
                   uint64_t *mpart, double *budget, char *note, size_t notelen, char *msg,
                   size_t msglen)
{
    const char *d = o->dir;
    if (!d || !*d)
        d = getenv("TMPDIR");
    if (!d || !*d)
        d = "/tmp";
    struct stat st;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || access(d, W_OK | X_OK) != 0) {
        snprintf(msg, msglen, "--dir: '%s' is not a writable directory", d);
        return MBX_E_INVAL;
    }
    const char *why = NULL;
    if (mbx_dir_base_ok(d, &why) != MBX_OK) {
        snprintf(msg, msglen, "--dir: '%s' cannot hold the run directory: %s", d, why);
        return MBX_E_INVAL;
    }
    char *abs = realpath(d, NULL);
    if (!abs || strlen(abs) + 64 >= dirlen) {
        free(abs);
        snprintf(msg, msglen, "--dir: '%s' cannot be resolved or is too long", d);
        return MBX_E_INVAL;
    }
    snprintf(dir, dirlen, "%s", abs);
    free(abs);
    uint64_t mem = o->mem_per_proc;
    if (mem == 0) {
        const mbx_job_info *job = NULL;
        int rc = mbx_engine_describe(e, &job);
        if (rc < 0) {
            snprintf(msg, msglen, "describing the job failed: %s", mbx_strerror(rc));
            return rc;
        }
        mem = job->mem_per_rank;
    }
    *mpart = mbx_beffio_mpart(mem);
    mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(*mpart, table);
    (void)mbx_beffio_cleanup_stale(dir, note, notelen);
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) {
        snprintf(msg, msglen, "--dir: cannot read the free space of '%s': %s", dir,
                 strerror(errno));
        return MBX_E_IO;
    }
    double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
    double need = (double)mbx_beffio_min_bytes(table, mbx_engine_size(e));
    if (avail * BUDGET_SHARE < need) {
        snprintf(msg, msglen,
                 "--dir: '%s' has %.1f MB free; the schedule needs %.1f MB (one repetition of "
                 "every pattern of the largest type on %d processes, MPART %.1f MB) within "
                 "%.0f%% of the free space",
                 dir, avail / 1e6, need / 1e6, mbx_engine_size(e), (double)*mpart / 1e6,
                 BUDGET_SHARE * 100);
        return MBX_E_RANGE;
    }
    *budget = avail * BUDGET_SHARE;
    return MBX_OK;
}

static int run_all(mbx_engine *e, const char *run, uint64_t mpart, double T, double budget, ctx *c,
                   mbx_beffio_summary *out, char *msg, size_t msglen)
{
    int nprocs = mbx_engine_size(e);
    mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(mpart, table);
    size_t total = MBX_BEFFIO_NPATTERNS * MBX_BEFFIO_NACCESS, done = 0;
    uint64_t wreps[MBX_BEFFIO_NTYPES][MBX_BEFFIO_MAXPERTYPE] = {{0}};
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++) {
        const mbx_beffio_pattern *rows = table + mbx_beffio_type_first(t);
        mbx_beffio_phase_in in = {.type = t,
                                  .mpart = mpart,
                                  .T_s = T,
                                  .budget_bytes = budget,
                                  .dir = run,
                                  .stop = stop_hook,
                                  .ud = c};
        if (t >= 3) {
            mbx_beffio_derive_reps(table, t, wreps[t == 4 ? 1 : 2], in.reps);
            uint64_t fill;
            mbx_beffio_segment(rows, in.reps, &in.segment, &fill);
        }
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++) {
            if (stop_hook(c)) {
                snprintf(msg, msglen, "stopped before type %d %s", t, mbx_beffio_access_name(a));
                return MBX_E_ABORTED;
            }
            in.access = a;
            mbx_beffio_phase_out po;
            int rc = mbx_engine_beffio_phase(e, &in, &po);
            if (rc < 0) {
                snprintf(msg, msglen, "type %d %s in '%s' failed: %s", t, mbx_beffio_access_name(a),
                         run, mbx_strerror(rc));
                return rc;
            }
            if (po.stopped) {
                snprintf(msg, msglen, "stopped during type %d %s", t, mbx_beffio_access_name(a));
                return MBX_E_ABORTED;
            }
            if (a == MBX_BEFFIO_WRITE && t <= 2)
                memcpy(in.reps, po.reps, sizeof in.reps);
            if (a == MBX_BEFFIO_WRITE)
                memcpy(wreps[t], po.reps, sizeof wreps[t]);
            out->type_access_mbps[t][a] = mbps(po.type_bytes, po.type_time);
            for (int k = 0; k < po.npat; k++) {
                const mbx_beffio_pattern *p = &rows[k];
                mbx_beffio_row row = {.type = t,
                                      .pattern = p->no,
                                      .access = mbx_beffio_access_name(a),
                                      .chunk_bytes = p->l,
                                      .mem_bytes = p->L,
                                      .wellformed = p->wellformed,
                                      .unit = p->unit,
                                      .reps = po.reps[k],
                                      .bytes_total = po.bytes[k],
                                      .time_s = po.time[k]};
                if (p->fill) {
                    uint64_t seg, fill;
                    mbx_beffio_segment(rows, in.reps, &seg, &fill);
                    row.chunk_bytes = row.mem_bytes = fill;
                    row.wellformed = fill % 1024 == 0;
                }
                row.mbps = mbps(row.bytes_total, row.time_s);
                done++;
                if (c->cb && c->cb(c->ud, &row, done, total))
                    c->stop = 1;
            }
        }
        unlink_type(run, t, nprocs);
    }
    return MBX_OK;
}

int mbx_beffio_run(mbx_engine *e, const mbx_beffio_opts *o, mbx_beffio_progress cb, void *ud,
                   mbx_beffio_summary *out, char *msg, size_t msglen)
{
    if (!e || !o || !out || !msg || msglen == 0)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    msg[0] = '\0';
    double T = o->T_s > 0 ? o->T_s : DEFAULT_T_S;
    char dir[4096], run[4400], host[256];
    uint64_t mpart = 0;
    double budget = 0.0;
    int rc = prepare(e, o, dir, sizeof dir, &mpart, &budget, out->stale_note,
                     sizeof out->stale_note, msg, msglen);
    if (rc < 0)
        return rc;
    host_name(host, sizeof host);
    /* HOST-PID for the stale clean-up, then six random characters
     * (mkdtemp): a name nobody can make beforehand to stop the run. A
     * per-user directory of a fixed name would be one again. */
    char prefix[300];
    snprintf(prefix, sizeof prefix, PREFIX "%s-%ld-", host, (long)getpid());
    const char *why = NULL;
    rc = mbx_dir_temp(dir, prefix, run, sizeof run, NULL, &why);
    if (rc != MBX_OK) {
        snprintf(msg, msglen, "--dir: cannot create a run directory in '%s': %s", dir,
                 why ? why : strerror(errno));
        return MBX_E_IO;
    }
    ctx c = {.cb = cb, .ud = ud, .flag = o->stop_flag};
    double t0 = MPI_Wtime();
    rc = run_all(e, run, mpart, T, budget, &c, out, msg, msglen);
    if (remove_run_dir(AT_FDCWD, run, &why) != 0 && rc >= 0) {
        snprintf(msg, msglen, "cannot remove '%s': %s", run, why);
        rc = MBX_E_IO;
    }
    out->wall_s = MPI_Wtime() - t0;
    out->procs = mbx_engine_size(e);
    out->T_s = T;
    out->mpart_bytes = mpart;
    mbx_beffio_rules(out->rules, sizeof out->rules);
    if (rc < 0)
        return rc;
    mbx_beffio_summarize(out);
    return MBX_OK;
}

void mbx_beffio_summarize(mbx_beffio_summary *out)
{
    for (int a = 0; a < MBX_BEFFIO_NACCESS; a++) {
        double v[MBX_BEFFIO_NTYPES];
        for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
            v[t] = out->type_access_mbps[t][a];
        out->per_access_mbps[a] = mbx_beffio_access_value(v);
    }
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        out->per_type_mbps[t] = mbx_beffio_partition_value(out->type_access_mbps[t]);
    out->beffio_mbps = mbx_beffio_partition_value(out->per_access_mbps);
}
