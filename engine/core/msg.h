/* Internal to the core library: writing one-line error reasons. (The
 * fields of CSV tables are read by mbx/csvio.h's number readers.) */
#ifndef MBX_CORE_MSG_H
#define MBX_CORE_MSG_H

#include <stddef.h>

/* printf into msg[0..msglen); a NULL msg or zero length writes nothing. */
void mbx_msgf(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
