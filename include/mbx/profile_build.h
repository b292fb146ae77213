/* A machine profile (mbx/profile.h) from K launches' results files, the
 * work of `mpibex calibrate`. Pure C, no MPI; nothing here prints. */
#ifndef MBX_PROFILE_BUILD_H
#define MBX_PROFILE_BUILD_H

#include <stddef.h>

#include "mbx/profile.h"

typedef struct mbx_profile_builder mbx_profile_builder;

/* A builder of k launches (MBX_E_INVAL for 0, MBX_E_NOMEM). */
int mbx_profile_builder_new(size_t k, mbx_profile_builder **out);
void mbx_profile_builder_free(mbx_profile_builder *b);

/* The results CSV of launch `launch` (0 .. k-1), of any format version:
 * each row with a positive median and an error gives that point its
 * launch median. MBX_E_IO, MBX_E_PROTO (not a results file, a bad row,
 * a row a profile widened: ci_scope profile)
 * or MBX_E_NOMEM, with one line in msg. */
int mbx_profile_builder_add_file(mbx_profile_builder *b, size_t launch, const char *path, char *msg,
                                 size_t len);

/* One entry in p per benchmark, rank count and size class that two
 * launches or more measured (mbx_profile_estimate); p->k set. Host, MPI
 * and date are the caller's. MBX_E_NOMEM. */
int mbx_profile_builder_finish(mbx_profile_builder *b, mbx_profile *p);

#endif
