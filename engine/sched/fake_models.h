/* The fake back end's models of a point's time (fake_models.c), private to
 * backend_fake.c: modelled, not measured, and the same on every machine. */
#ifndef MBX_FAKE_MODELS_H
#define MBX_FAKE_MODELS_H

#include "mbx/engine.h"

/* One-way latency from rank 0 to rank r: odd ranks across the "socket". */
double mbx_fake_rank_lat(int r);

/* An accurate benchmark's companion (the plain one) at the same point: its
 * spec in *out and 1, or 0 when there is none. */
int mbx_fake_companion(const mbx_point_spec *sp, mbx_point_spec *out);

/* The plain median next to an accurate point: the companion cs's model
 * time with +-2 % of noise from a hash of the size. */
double mbx_fake_plain(const mbx_point_spec *cs);

/* The modelled time of one call of sp's benchmark at sp's point. */
double mbx_fake_time(const mbx_point_spec *sp);

#endif
