#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* openpty, TIOCSWINSZ */
#endif
#include "term_bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bridgeproto.h"

#define HANDSHAKE_MS 5000
#define RETRY_MS 50   /* between connections the launcher closed */
#define DRAIN_MS 2000 /* at close: how long the last screen bytes may take to leave */

struct mbx_term_bridge {
    int sock, master, wake[2];
    int started;
    pthread_t relay;
    atomic_int lost, stopping;
    mbx_bridge_decoder *dec;
    size_t so_off, so_len; /* a frame on its way to the launcher */
    size_t po_off, po_len; /* keys on their way into the pty */
    unsigned char tosock[MBX_BRIDGE_MAX_FRAME];
    unsigned char topty[MBX_BRIDGE_MAX_PAYLOAD];
};

static int ms_left(long long deadline)
{
    long long left = deadline - mbx_bridge_now_ms();
    return left < 0 ? 0 : (int)left;
}

static void nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* "host:port" or "[v6addr]:port". */
static int split_hostport(const char *s, char *host, size_t hlen, const char **port)
{
    const char *end, *colon;
    if (s[0] == '[') {
        end = strchr(s, ']');
        if (!end || end[1] != ':')
            return -1;
        s++;
        colon = end + 1;
    } else {
        colon = strrchr(s, ':');
        end = colon;
    }
    if (!colon || end == s || (size_t)(end - s) >= hlen || colon[1] == '\0')
        return -1;
    memcpy(host, s, (size_t)(end - s));
    host[end - s] = '\0';
    *port = colon + 1;
    return 0;
}

static int connect_by(const char *addr, long long deadline, char *why, size_t len)
{
    char host[256];
    const char *port;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    if (split_hostport(addr, host, sizeof host, &port) < 0) {
        snprintf(why, len, "MBX_BRIDGE '%s' is not HOST:PORT", addr);
        return -1;
    }
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, len, "bridge %s: %s", addr, gai_strerror(rc));
        return -1;
    }
    int fd = -1, err = 0;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
            err = errno;
        } else {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            socklen_t sl = sizeof err;
            err = ETIMEDOUT;
            if (poll(&p, 1, ms_left(deadline)) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
                err = errno;
        }
        if (err != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(why, len, "bridge %s: %s", addr, strerror(err));
        return -1;
    }
    int one = 1; /* keys and screen updates are small; Nagle would delay them */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int send_all(int fd, const void *buf, size_t len, long long deadline)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n, len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        if (poll(&pf, 1, ms_left(deadline)) <= 0)
            return -1;
    }
    return 0;
}

enum { HS_OK, HS_FAIL, HS_RETRY };

static int send_frame(int fd, int type, const void *payload, size_t plen, long long deadline)
{
    unsigned char frame[MBX_BRIDGE_HEADER + MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC];
    size_t n = 0;
    return mbx_bridge_encode(frame, sizeof frame, type, payload, plen, &n) < 0 ||
                   send_all(fd, frame, n, deadline) < 0
               ? -1
               : 0;
}

/* The next frame from the launcher into *f. HS_RETRY when it closed the
 * connection (it drops a connection to make room for a newer one). */
static int next_frame(mbx_term_bridge *b, mbx_bridge_frame *f, long long deadline, char *why,
                      size_t len)
{
    for (;;) {
        int rc = mbx_bridge_pop(b->dec, f);
        if (rc < 0) {
            snprintf(why, len, "bridge: bad reply (%s)", mbx_bridge_decoder_error(b->dec));
            return HS_FAIL;
        }
        if (rc == 1)
            return HS_OK;
        unsigned char buf[512];
        struct pollfd p = {.fd = b->sock, .events = POLLIN};
        if (poll(&p, 1, ms_left(deadline)) <= 0) {
            snprintf(why, len, "bridge: no answer from the launcher within %d s",
                     HANDSHAKE_MS / 1000);
            return HS_FAIL;
        }
        ssize_t got = recv(b->sock, buf, sizeof buf, 0);
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (got <= 0)
            return HS_RETRY;
        /* The decoder holds a whole frame and the launcher sends only P, or
         * A and W, before it hears from us again, so this always fits. */
        if (mbx_bridge_feed(b->dec, buf, (size_t)got) != (size_t)got) {
            snprintf(why, len, "bridge: the launcher sent too much during the handshake");
            return HS_FAIL;
        }
    }
}

/* Challenge, the launcher's proof (checked before anything derived from
 * the token leaves), hello, then its A and the W it always sends right
 * after (bridgeproto.h). */
static int handshake(mbx_term_bridge *b, const char *addr, const char *token, long long deadline,
                     struct winsize *ws, char *why, size_t len)
{
    unsigned char nr[MBX_BRIDGE_NONCE], mac[MBX_BRIDGE_MAC];
    mbx_bridge_frame f;
    unsigned rows = 0, cols = 0;
    int rc;
    if (mbx_bridge_nonce_new(nr) != MBX_OK) {
        snprintf(why, len, "bridge: no randomness for a nonce");
        return HS_FAIL;
    }
    if (send_frame(b->sock, MBX_BRIDGE_CHALLENGE, nr, sizeof nr, deadline) < 0)
        return HS_RETRY;
    if ((rc = next_frame(b, &f, deadline, why, len)) != HS_OK)
        return rc;
    if (f.type != MBX_BRIDGE_PROOF) {
        snprintf(why, len, "bridge: unexpected '%c' frame instead of the launcher's proof", f.type);
        return HS_FAIL;
    }
    const unsigned char *nl = f.payload;
    mbx_bridge_mac(token, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, mac);
    if (!mbx_bridge_token_equal(mac, sizeof mac, f.payload + MBX_BRIDGE_NONCE, MBX_BRIDGE_MAC)) {
        snprintf(why, len,
                 "bridge: the listener at %s did not prove that it holds MBX_BRIDGE_TOKEN (not "
                 "this job's launcher?); nothing derived from the token was sent to it",
                 addr);
        return HS_FAIL;
    }
    mbx_bridge_mac(token, MBX_BRIDGE_MAC_RANK0, nr, nl, mac);
    if (send_frame(b->sock, MBX_BRIDGE_HELLO, mac, sizeof mac, deadline) < 0)
        return HS_RETRY;
    if ((rc = next_frame(b, &f, deadline, why, len)) != HS_OK)
        return rc;
    int accepted = f.type == MBX_BRIDGE_ACCEPTED;
    if (accepted && (rc = next_frame(b, &f, deadline, why, len)) != HS_OK)
        return rc;
    if (!accepted || mbx_bridge_winsize(&f, &rows, &cols) != 0) {
        snprintf(why, len, "bridge: unexpected '%c' frame in the handshake", f.type);
        return HS_FAIL;
    }
    ws->ws_row = (unsigned short)rows;
    ws->ws_col = (unsigned short)cols;
    return HS_OK;
}

/* Connects and shakes hands until it works or the deadline: the launcher
 * closes a waiting connection to make room for a newer one, so a crowded
 * port costs a retry, not the session. */
static int connect_and_shake(mbx_term_bridge *b, const char *addr, const char *token,
                             struct winsize *ws, char *why, size_t len)
{
    long long deadline = mbx_bridge_now_ms() + HANDSHAKE_MS;
    int closed = 0;
    for (;;) {
        if ((b->sock = connect_by(addr, deadline, why, len)) < 0)
            return -1;
        int rc = handshake(b, addr, token, deadline, ws, why, len);
        if (rc == HS_OK)
            return 0;
        close(b->sock);
        b->sock = -1;
        mbx_bridge_decoder_free(b->dec);
        if (!(b->dec = mbx_bridge_decoder_new())) {
            snprintf(why, len, "bridge: out of memory");
            return -1;
        }
        if (rc == HS_FAIL)
            return -1;
        closed++;
        if (ms_left(deadline) <= RETRY_MS) {
            snprintf(why, len,
                     "bridge: the launcher at %s closed all %d connections before the handshake "
                     "ended: other connections crowd its port, or the token is wrong (the "
                     "launcher's log says which)",
                     addr, closed);
            return -1;
        }
        poll(NULL, 0, RETRY_MS);
    }
}

static void mark_lost(mbx_term_bridge *b)
{
    atomic_store(&b->lost, 1);
    b->so_len = b->so_off = 0;
}

/* Pops frames until one carries keys that must first go into the pty. */
static void take_frames(mbx_term_bridge *b, const unsigned char *raw, size_t *off, size_t len)
{
    while (b->po_len == 0 && !atomic_load(&b->lost)) {
        mbx_bridge_frame f;
        unsigned rows, cols;
        int rc = mbx_bridge_pop(b->dec, &f);
        if (rc < 0) {
            mark_lost(b);
        } else if (rc == 0) {
            if (*off == len)
                return;
            *off += mbx_bridge_feed(b->dec, raw + *off, len - *off);
        } else if (f.type == MBX_BRIDGE_DATA) {
            memcpy(b->topty, f.payload, f.len);
            b->po_off = 0;
            b->po_len = f.len;
        } else if (mbx_bridge_winsize(&f, &rows, &cols) == 0) {
            struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
            if (rows > 0 && cols > 0)
                ioctl(b->master, TIOCSWINSZ, &ws);
        } else if (f.type != MBX_BRIDGE_ACCEPTED) {
            mark_lost(b); /* goodbye, or a hello the launcher has no business sending */
        }
    }
}

/* pty master <-> socket until the launcher goes or close asks us to stop.
 * Both fds are non-blocking and each direction holds at most one frame, so
 * a slow side only slows itself. Once the launcher is gone the screen bytes
 * are still read and dropped, so rank 0 never blocks on a full pty. */
static void *relay_main(void *arg)
{
    mbx_term_bridge *b = arg;
    unsigned char raw[4096];
    size_t raw_off = 0, raw_len = 0;
    int master_open = 1;
    long long deadline = 0;
    for (;;) {
        int lost = atomic_load(&b->lost), draining = deadline != 0;
        if (!draining && atomic_load(&b->stopping))
            deadline = mbx_bridge_now_ms() + DRAIN_MS, draining = 1;
        if (draining && (ms_left(deadline) == 0 || lost || (!master_open && b->so_len == 0)))
            break;
        struct pollfd p[3] = {{.fd = b->wake[0], .events = draining ? 0 : POLLIN},
                              {.fd = master_open ? b->master : -1},
                              {.fd = lost ? -1 : b->sock}};
        if (b->so_len == 0)
            p[1].events |= POLLIN;
        if (b->po_len > 0 && !draining)
            p[1].events |= POLLOUT;
        if (b->so_len > 0)
            p[2].events |= POLLOUT;
        if (b->po_len == 0 && raw_off == raw_len && !draining)
            p[2].events |= POLLIN;
        if (poll(p, 3, draining ? ms_left(deadline) : -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents & POLLIN) {
            while (read(b->wake[0], raw, sizeof raw) > 0)
                ;
        }
        if ((p[1].events & POLLIN) && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(b->master, b->tosock + MBX_BRIDGE_HEADER, MBX_BRIDGE_MAX_PAYLOAD);
            size_t len = 0;
            if (n > 0 && !lost &&
                mbx_bridge_encode(b->tosock, sizeof b->tosock, MBX_BRIDGE_DATA,
                                  b->tosock + MBX_BRIDGE_HEADER, (size_t)n, &len) == 0)
                b->so_off = 0, b->so_len = len;
            else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                master_open = 0; /* EIO: every slave fd is closed */
        }
        if (p[1].revents & POLLOUT) {
            ssize_t n = write(b->master, b->topty + b->po_off, b->po_len - b->po_off);
            if (n > 0 && (b->po_off += (size_t)n) == b->po_len)
                b->po_off = b->po_len = 0;
        }
        if (p[2].revents & POLLOUT) {
            ssize_t n = send(b->sock, b->tosock + b->so_off, b->so_len - b->so_off, MSG_NOSIGNAL);
            if (n > 0 && (b->so_off += (size_t)n) == b->so_len)
                b->so_off = b->so_len = 0;
            else if (n < 0 && errno != EAGAIN && errno != EINTR)
                mark_lost(b);
        }
        if ((p[2].events & POLLIN) && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = recv(b->sock, raw, sizeof raw, 0);
            if (n > 0)
                raw_off = 0, raw_len = (size_t)n;
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                mark_lost(b);
        } else if (p[2].revents & (POLLHUP | POLLERR)) {
            mark_lost(b);
        }
        take_frames(b, raw, &raw_off, raw_len);
    }
    if (!atomic_load(&b->lost)) {
        unsigned char bye[MBX_BRIDGE_HEADER];
        size_t n = 0;
        if (mbx_bridge_encode(bye, sizeof bye, MBX_BRIDGE_GOODBYE, NULL, 0, &n) == 0)
            send_all(b->sock, bye, n, mbx_bridge_now_ms() + 200);
    }
    return NULL;
}

static int start_relay(mbx_term_bridge *b, char *why, size_t len)
{
    if (pipe(b->wake) < 0) {
        snprintf(why, len, "bridge: pipe: %s", strerror(errno));
        return -1;
    }
    nonblock_cloexec(b->wake[0]);
    nonblock_cloexec(b->wake[1]);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&b->relay, NULL, relay_main, b);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(why, len, "bridge: cannot start the relay thread: %s", strerror(rc));
        return -1;
    }
    b->started = 1;
    return 0;
}

int mbx_term_bridge_open(mbx_term_bridge **out, const char *addr, const char *token, int *slave,
                         char *why, size_t len)
{
    struct winsize ws = {0};
    mbx_term_bridge *b = calloc(1, sizeof *b);
    *out = NULL;
    *slave = -1;
    if (!b || !(b->dec = mbx_bridge_decoder_new())) {
        snprintf(why, len, "bridge: out of memory");
        free(b);
        return MBX_E_IO;
    }
    b->sock = b->master = b->wake[0] = b->wake[1] = -1;
    atomic_init(&b->lost, 0);
    atomic_init(&b->stopping, 0);
    if (!token || !mbx_bridge_token_valid(token, strlen(token))) {
        snprintf(why, len, "MBX_BRIDGE_TOKEN is missing or not 64 hex characters");
    } else if (connect_and_shake(b, addr, token, &ws, why, len) == 0) {
        if (openpty(&b->master, slave, NULL, NULL, &ws) < 0) {
            snprintf(why, len, "bridge: openpty: %s", strerror(errno));
        } else {
            nonblock_cloexec(b->master);
            fcntl(*slave, F_SETFD, FD_CLOEXEC);
            if (start_relay(b, why, len) == 0) {
                *out = b;
                return MBX_OK;
            }
            close(*slave);
            *slave = -1;
        }
    }
    mbx_term_bridge_close(b);
    return MBX_E_IO;
}

int mbx_term_bridge_lost(mbx_term_bridge *b)
{
    return atomic_load(&b->lost);
}

void mbx_term_bridge_close(mbx_term_bridge *b)
{
    if (!b)
        return;
    if (b->started) {
        atomic_store(&b->stopping, 1);
        ssize_t w = write(b->wake[1], "x", 1);
        (void)w;
        pthread_join(b->relay, NULL);
    }
    int fds[] = {b->sock, b->master, b->wake[0], b->wake[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    mbx_bridge_decoder_free(b->dec);
    free(b);
}
