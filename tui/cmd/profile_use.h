/* The machine profile a run or the explorer uses (--profile PATH|auto|none;
 * docs/user-guide.md, "Machine profile"), and the identity it must match:
 * this host and this MPI library. Front end (rank 0). */
#ifndef MBX_PROFILE_USE_H
#define MBX_PROFILE_USE_H

#include <stddef.h>

#include "mbx/profile.h"

typedef struct mbx_profile_use {
    mbx_profile p;
    int loaded;      /* 1: p widens the rows */
    int found;       /* 1: a file was there (loaded, or refused) */
    char path[4200]; /* the profile's file (also when none was there) */
    char note[1400]; /* one line: which profile and how old, or why none */
} mbx_profile_use;

/* This process's host and MPI library as a profile names them: the host
 * name, and the first line of the MPI library's version string ("fake
 * back end" for the fake). */
void mbx_profile_identity(int fake, char *host, size_t hlen, char *mpi, size_t mlen);

/* The profile of this state directory for host and mpi (mbx_profile_path
 * in mbx_dir_state_path's directory): 0, or -1 when there is no state
 * directory or the path does not fit. */
int mbx_profile_default_path(const char *host, const char *mpi, char *out, size_t len);

/* Resolve opt (NULL or "auto": the default path when a file is there;
 * "none"; else a path) for this identity at time now: 0 with u->loaded and
 * u->note set (a loaded profile, or why the rows stay launch-scoped: none
 * found, or auto's refusal of a foreign, stale or bad one), or 2 when a
 * named PATH is refused (u->note is the line to print). */
int mbx_profile_use_open(mbx_profile_use *u, const char *opt, int fake, long long now);

void mbx_profile_use_free(mbx_profile_use *u);

/* How to get a profile, one line's tail (for the launch-scoped note). */
#define MBX_PROFILE_HOWTO                                                                          \
    "for an interval over launches: mpibex repeat -k 10 -- ... -o DIR, then mpibex calibrate DIR"

#endif
