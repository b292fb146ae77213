/* Rank 0's end of the socket bridge (term.h, bridgeproto.h): a private
 * part of term.c, split out to keep both files short. */
#ifndef MBX_TERM_BRIDGE_H
#define MBX_TERM_BRIDGE_H

#include <stddef.h>

#include "mbx/status.h"

typedef struct mbx_term_bridge mbx_term_bridge;

/* Connects to addr ("HOST:PORT" or "[V6]:PORT"), says hello with token,
 * waits at most 5 s for the launcher's A and W, opens a pty of that size
 * and starts the relay thread (with every signal blocked, so rank 0's
 * handlers run on its own thread). On success *slave is the pty slave fd
 * (close-on-exec, the caller owns it) and the bridge is running. Otherwise
 * MBX_E_IO with a one-line reason in why. */
MBX_NODISCARD int mbx_term_bridge_open(mbx_term_bridge **out, const char *addr, const char *token,
                                       int *slave, char *why, size_t len);

/* Whether the launcher has gone (closed, said goodbye, or broke the protocol). */
int mbx_term_bridge_lost(mbx_term_bridge *b);

/* Call after closing every slave fd: the relay forwards the last screen
 * bytes (at most 2 s), says goodbye, and everything is freed. NULL is ok. */
void mbx_term_bridge_close(mbx_term_bridge *b);

#endif
