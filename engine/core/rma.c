/* The one-sided synchronisation modes' words (mbx/rma.h). */
#include "mbx/rma.h"

#include <string.h>

#include "mbx/status.h"

static const char *const rma_words[MBX_RMA_COUNT_] = {"lock_all", "fence", "lock", "lock_all",
                                                      "pscw"};

int mbx_rma_sync_resolve(int sync)
{
    return sync == MBX_RMA_DEFAULT ? MBX_RMA_LOCK_ALL : sync;
}

const char *mbx_rma_sync_name(int sync)
{
    return sync >= 0 && sync < MBX_RMA_COUNT_ ? rma_words[sync] : "?";
}

int mbx_rma_sync_parse(const char *word, int *out)
{
    for (int i = 1; word && i < MBX_RMA_COUNT_; i++)
        if (strcmp(word, rma_words[i]) == 0) {
            *out = i;
            return MBX_OK;
        }
    return MBX_E_INVAL;
}
