/* The fake back end's models of a point's time (fake_models.c), private to
 * backend_fake.c: modelled, not measured, and the same on every machine. */
#ifndef MBX_FAKE_MODELS_H
#define MBX_FAKE_MODELS_H

#include "mbx/engine.h"
#include "mbx/pairs_run.h"

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

/* The fake's node pairs (fake_pairs.c; the model: mbx_backend_fake). The
 * hosts of MBX_TEST_FAKE_HOSTS (1 when unset or out of 1..nranks). */
int mbx_fake_hosts(int nranks);
int mbx_fake_pairs_nodes(int nranks, int per, int *rank, char (*host)[MBX_HOST_MAX]);
/* The plan over the model, the fake's clock *clock advanced by what the
 * steps and the gaps between rounds take. */
int mbx_fake_pairs(double *clock, const mbx_pairs_plan *p, mbx_pairs_progress_fn cb, void *ud,
                   mbx_pairs_run *out, char *msg, size_t msglen);

#endif
