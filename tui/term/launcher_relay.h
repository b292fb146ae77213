/* The launcher's end of the socket bridge (launcher.h, bridgeproto.h): a
 * private part of the launcher, driven from its poll loop.
 *
 * It listens on a TCP port; a connection must send its challenge within
 * 1 s, gets the launcher's proof (bridgeproto.h), and must then prove the
 * token in its hello within 1 s, or it is closed without a byte of screen
 * data and a "bridge: refused connection from ADDR:PORT (reason)" line goes
 * to the log (at most 10 such lines at once, then one a second, 100 a job;
 * the rest are counted). At most 16 connections wait at once, at most 4 from
 * one address; a new one takes the place of the oldest that has not sent
 * its challenge (else the oldest), so nobody can keep rank 0 out by
 * holding connections. The first good hello spends the token. From then on the launcher's terminal
 * is raw and relayed: keys go out as D frames (except Ctrl-C, which is counted for the launcher to
 * turn into SIGINT), D frames come back to stdout, window sizes go out as W frames. */
#ifndef MBX_LAUNCHER_RELAY_H
#define MBX_LAUNCHER_RELAY_H

#include <poll.h>
#include <stddef.h>

#include "mbx/status.h"

typedef struct mbx_lrelay mbx_lrelay;

/* Slots mbx_lrelay_pollfds fills, whatever the state. */
#define MBX_LRELAY_NFDS 19

/* Listens on addr (NULL: every interface) on an ephemeral port and writes
 * "HOST:PORT" for MBX_BRIDGE to advert, HOST being the numeric address
 * bound (addr may be a name) or, without addr, this machine's host name. token is copied; logfd
 * stays the caller's. MBX_E_IO with a one-line reason in why when it cannot listen. */
MBX_NODISCARD int mbx_lrelay_open(mbx_lrelay **out, const char *addr, const char *token, int logfd,
                                  char *advert, size_t advlen, char *why, size_t len);

/* Fills p[0..MBX_LRELAY_NFDS) (unused slots get fd -1) and lowers
 * *timeout_ms to the nearest hello deadline. */
void mbx_lrelay_pollfds(mbx_lrelay *r, struct pollfd *p, int *timeout_ms);

/* Acts on what poll reported in those slots. Returns how many Ctrl-C keys
 * the user typed, for the caller to pass on as SIGINT. */
int mbx_lrelay_handle(mbx_lrelay *r, const struct pollfd *p);

/* The launcher's terminal changed size (SIGWINCH). */
void mbx_lrelay_winch(mbx_lrelay *r);

/* Whether rank 0 has connected at some point. */
int mbx_lrelay_used(const mbx_lrelay *r);

/* How many waiting connections were dropped to make room for newer ones. */
long mbx_lrelay_crowded(const mbx_lrelay *r);

/* After the job ended: copy the screen bytes still in flight (endwin's
 * restore) to stdout until rank 0's goodbye or close, for at most ms. */
void mbx_lrelay_drain(mbx_lrelay *r, int ms);

/* Restores the terminal modes it changed and closes everything. NULL is ok. */
void mbx_lrelay_close(mbx_lrelay *r);

#endif
