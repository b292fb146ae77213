/* The machine profile (docs/algorithms.md, "Launch variance and the
 * machine profile"; docs/csv-format.md, "Profile file"): the launch-to-launch
 * variance component of a host and MPI library, per benchmark, rank count
 * and size class, estimated from K launches (`mpibex calibrate`), stored
 * in the user's state directory and used by a later run to widen each
 * row's interval to what another launch would see (ci_scope `profile`).
 * Pure C, no MPI; nothing here prints. */
#ifndef MBX_PROFILE_H
#define MBX_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/result.h"

#define MBX_PROFILE_VERSION 2       /* the file's first row: mpibex_profile,2 (1 is read) */
#define MBX_PROFILE_MAX_AGE_DAYS 30 /* older: refused (docs/user-guide.md) */
#define MBX_PROFILE_MIN_K 3         /* launches a profile needs at least */
#define MBX_PROFILE_Z 1.959963985   /* the 97.5 % normal quantile */

/* One benchmark, rank count and size class. The component is relative:
 * a standard deviation of log(launch median). */
typedef struct mbx_profile_entry {
    char bench[64];
    int procs;
    uint64_t class_lo;         /* size class [class_lo, 4 class_lo); 0: 0 bytes only */
    size_t points;             /* sizes pooled */
    size_t df;                 /* degrees of freedom of the CI: launches - 1 */
    double sigma;              /* sigma_L, relative; >= 0 */
    double sigma_lo, sigma_hi; /* its 95 % CI */
    double within;             /* root mean within-launch relative error^2 */
} mbx_profile_entry;

/* Where one point's launches were: the center a later launch is held
 * against (version 2; docs/algorithms.md, "A launch outside its profile"). */
typedef struct mbx_profile_center {
    char bench[64];
    int procs;
    uint64_t bytes;
    double median; /* exp(mean log launch median), seconds; > 0 */
    size_t n;      /* launches with a median, >= 2 */
} mbx_profile_center;

typedef struct mbx_profile {
    char host[256];    /* the host of rank 0 */
    char mpi[128];     /* the MPI library (first line of its version string) */
    long long created; /* seconds since the epoch, UTC */
    size_t k;          /* launches */
    long long span_s;  /* the first launch's start to the last's, s; -1: unknown */
    mbx_profile_entry *e;
    size_t n, cap;
    mbx_profile_center *c; /* none in a version-1 file */
    size_t nc, ccap;
} mbx_profile;

/* The size class of bytes: 0 for 0, else the largest power of 4 <= bytes. */
uint64_t mbx_profile_class(uint64_t bytes);

/* The random-effects estimate of one entry (its bench, procs, class_lo
 * are left as they are) from npts sizes measured in k launches: y[j*k+i]
 * the log median of size j in launch i, w[j*k+i] its within-launch
 * relative variance (stderr / median)^2; a NAN y is a size launch i lacks.
 * sigma^2 = max(0, pooled var(y) - mean(w)); the CI from chi-square with
 * launches - 1 degrees of freedom (launches are the units; sizes share a
 * launch's effect). MBX_E_RANGE when no size has 2 launches. */
int mbx_profile_estimate(const double *y, const double *w, size_t npts, size_t k,
                         mbx_profile_entry *e);

/* Append a copy of e, or of c (MBX_E_NOMEM). */
int mbx_profile_add(mbx_profile *p, const mbx_profile_entry *e);
int mbx_profile_add_center(mbx_profile *p, const mbx_profile_center *c);
void mbx_profile_free(mbx_profile *p); /* its entries and centers; p itself is the caller's */

/* The entry for (bench, procs, class of bytes), or NULL. */
const mbx_profile_entry *mbx_profile_find(const mbx_profile *p, const char *bench, int procs,
                                          uint64_t bytes);

/* The center of (bench, procs, bytes), or NULL. */
const mbx_profile_center *mbx_profile_find_center(const mbx_profile *p, const char *bench,
                                                  int procs, uint64_t bytes);

/* Write p at path (through path.tmp, then renamed). MBX_E_IO, errno set. */
int mbx_profile_write(const mbx_profile *p, const char *path);

/* Read path into p (zeroed first). MBX_E_IO when it cannot be read
 * (errno), MBX_E_PROTO for a bad file: msg names the line, the field and
 * what it allows. */
int mbx_profile_read(const char *path, mbx_profile *p, char *msg, size_t len);

/* Whether p may widen a run on host with mpi at time now (seconds):
 * MBX_OK, or MBX_E_UNSUPPORTED for another host or MPI library, or
 * MBX_E_RANGE when older than max_age_days (or dated in the future by
 * more than a day), with one line in msg. */
int mbx_profile_check(const mbx_profile *p, const char *host, const char *mpi, long long now,
                      double max_age_days, char *msg, size_t len);

/* The file name of the profile of host and mpi in state directory dir:
 * DIR/profile-HOST-XXXXXXXX.csv (the host's name made safe, a hash of
 * mpi). MBX_E_RANGE when it does not fit. */
int mbx_profile_path(const char *dir, const char *host, const char *mpi, char *out, size_t len);

/* Widen r's interval by its entry's component: on the log scale, each
 * side's half width sqrt(d^2 + (t sigma)^2), d that side of the launch's
 * own interval and t Student's 97.5 % quantile with the entry's df
 * (launches - 1), so never narrower
 * than the launch's own; with e = stderr / median, stderr becomes
 * median sqrt(e^2 + sigma^2), and the
 * prediction interval for another launch's median half width
 * sqrt(2) times each side's; ci_scope becomes profile. Returns 1 when r
 * was widened; 0 (r as it was) when it has no interval or p no entry.
 * When p has a center for r's point, r->profile_ratio becomes median /
 * center first, and a median the profile's launches make unlikely (its
 * log distance from the center over t sqrt((sigma^2 + e^2) + (sigma^2 +
 * within^2) / n) beyond 1) is not widened: the machine is not as it was
 * calibrated, so the profile says nothing about it. That returns
 * MBX_PROFILE_OUTSIDE, r's interval as it was (ci_scope launch). */
#define MBX_PROFILE_OUTSIDE 2
int mbx_profile_widen(const mbx_profile *p, mbx_result *r);

/* Quantiles used above (exposed for the tests): Student's t at p with df
 * degrees of freedom, chi-square at p (Wilson-Hilferty). */
double mbx_profile_t_quantile(double p, double df);
double mbx_profile_chi2_quantile(double p, double df);

#endif
