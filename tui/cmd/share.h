/* Where an installed mpibex keeps its data: the themes and the sample
 * plans under PREFIX/share/mpibex (cmake --install), found relative to the
 * executable so a binary installed under any --prefix finds its own. */
#ifndef MBX_SHARE_H
#define MBX_SHARE_H

#include <stddef.h>

/* "<this executable's directory>/../share/mpibex/WHAT" into buf[len] when
 * that directory exists; 0, or -1 (no such directory, or the executable's
 * path is unknown). */
int mbx_share_path(const char *what, char *buf, size_t len);

#endif
