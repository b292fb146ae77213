/* The environment file (OUT.env.csv) of every command: a key,value CSV of
 * the environment capture (docs/csv-format.md). Rank 0. The writers are
 * pure (engine/core/envfile.c, mbx_core); mbx_env_write, over the engine,
 * is the back end's (engine/sched/backend.c, mbx_backend). */
#ifndef MBX_ENVFILE_H
#define MBX_ENVFILE_H

#include "mbx/kv.h"

struct mbx_engine;

/* env as a key,value CSV at path when rc (how the capture went) is not an
 * error; env is freed either way. Returns rc when it is an error, else
 * MBX_OK or the writer's error (MBX_E_IO, MBX_E_NOMEM). */
MBX_NODISCARD int mbx_env_file_write(const char *path, mbx_kvlist *env, int rc);

/* The same rows added at the end of the environment file at path (rows a
 * command learns after it wrote the file); nothing is opened when env is
 * empty. env is freed either way; returns as mbx_env_file_write. */
MBX_NODISCARD int mbx_env_file_append(const char *path, mbx_kvlist *env, int rc);

/* The engine's environment capture (mbx_engine_environment) and the MPI
 * thread levels the job asked for and was granted (mbx_thrinfo_level_env)
 * as the environment file at path. An mbx_status. */
MBX_NODISCARD int mbx_env_write(struct mbx_engine *e, int thread_asked, int thread_granted,
                                const char *path);

#endif
