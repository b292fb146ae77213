/* Internal to the core library: the rank-sum test without the shift. */
#ifndef MBX_CORE_WILCOXON_INTERNAL_H
#define MBX_CORE_WILCOXON_INTERNAL_H

#include <stddef.h>

#include "mbx/wilcoxon.h"

/* mbx_wilcoxon_test; with want_shift == 0 the Hodges-Lehmann shift (most of
 * the cost for large samples) is skipped and out->shift is NAN. Level
 * detection (levels.c) tests many intervals and needs only p. */
MBX_NODISCARD int mbx_wilcoxon_test_ex(const double *a, size_t n1, const double *b, size_t n2,
                                       int want_shift, mbx_wilcoxon *out);

#endif
