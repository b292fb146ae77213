/* Internal to the core library: writing one-line error reasons, and reading
 * the fields of CSV tables they are about. */
#ifndef MBX_CORE_MSG_H
#define MBX_CORE_MSG_H

#include <stddef.h>

/* printf into msg[0..msglen); a NULL msg or zero length writes nothing. */
void mbx_msgf(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A CSV field as a whole number (digits only, no sign); 0 when it is not. */
int mbx_field_count(const char *s, unsigned long long *v);

/* A CSV field as a finite number, or NAN for an empty field when empty_ok;
 * 0 when it is neither. */
int mbx_field_number(const char *s, double *v, int empty_ok);

#endif
