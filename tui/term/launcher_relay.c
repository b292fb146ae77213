#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* cfmakeraw, TIOCGWINSZ, NI_MAXHOST */
#endif
#include "launcher_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "bridgeproto.h"

#define HELLO_MS 2000
#define MAX_PENDING (MBX_LRELAY_NFDS - 3)
#define KEY_CHUNK 4096
#define OUT_CAP 65536
#define CTRL_C 0x03

struct pending {
    int fd;
    long long deadline;
    mbx_bridge_decoder *dec;
    char peer[NI_MAXHOST + 8];
};

struct mbx_lrelay {
    int listener, conn, logfd;
    int spent, raw, stdin_done, winch;
    struct termios saved;
    char token[MBX_BRIDGE_TOKEN_CHARS + 1];
    struct pending pend[MAX_PENDING];
    mbx_bridge_decoder *dec; /* of the accepted connection */
    size_t out_off, out_len; /* frames waiting to go to rank 0 */
    unsigned char out[OUT_CAP];
};

__attribute__((format(printf, 2, 3))) static void log_line(mbx_lrelay *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (r->logfd >= 0 && n > 0) {
        ssize_t w = write(r->logfd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

static void write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the terminal is gone; nothing better to do with the bytes */
        p += n, len -= (size_t)n;
    }
}

static int queue(mbx_lrelay *r, int type, const void *payload, size_t len)
{
    size_t n = 0;
    if (r->out_off > 0) {
        memmove(r->out, r->out + r->out_off, r->out_len - r->out_off);
        r->out_len -= r->out_off;
        r->out_off = 0;
    }
    if (mbx_bridge_encode(r->out + r->out_len, sizeof r->out - r->out_len, type, payload, len, &n) <
        0)
        return -1;
    r->out_len += n;
    return 0;
}

static void queue_winsize(mbx_lrelay *r)
{
    struct winsize ws = {0};
    unsigned char p[4];
    ioctl(0, TIOCGWINSZ, &ws);
    p[0] = (unsigned char)(ws.ws_row >> 8), p[1] = (unsigned char)ws.ws_row;
    p[2] = (unsigned char)(ws.ws_col >> 8), p[3] = (unsigned char)ws.ws_col;
    r->winch = queue(r, MBX_BRIDGE_WINSIZE, p, sizeof p) < 0; /* full: retry later */
}

static void end_conn(mbx_lrelay *r)
{
    if (r->raw)
        tcsetattr(0, TCSANOW, &r->saved);
    r->raw = 0;
    if (r->conn >= 0)
        close(r->conn);
    r->conn = -1;
    mbx_bridge_decoder_free(r->dec);
    r->dec = NULL;
    r->out_off = r->out_len = 0;
}

static void drop_pending(mbx_lrelay *r, struct pending *pc, const char *reason)
{
    close(pc->fd);
    mbx_bridge_decoder_free(pc->dec);
    log_line(r, "bridge: refused connection from %s (%s)\n", pc->peer, reason);
    memset(pc, 0, sizeof *pc);
    pc->fd = -1;
}

static void accept_conn(mbx_lrelay *r, struct pending *pc)
{
    struct termios raw;
    int one = 1;
    r->spent = 1;
    r->conn = pc->fd;
    r->dec = pc->dec;
    log_line(r, "bridge: rank 0 connected from %s\n", pc->peer);
    memset(pc, 0, sizeof *pc);
    pc->fd = -1;
    setsockopt(r->conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    queue(r, MBX_BRIDGE_ACCEPTED, NULL, 0);
    queue_winsize(r);
    if (tcgetattr(0, &r->saved) == 0) {
        raw = r->saved;
        cfmakeraw(&raw);
        r->raw = tcsetattr(0, TCSANOW, &raw) == 0;
    }
}

static void hear_pending(mbx_lrelay *r, struct pending *pc)
{
    unsigned char buf[128];
    mbx_bridge_frame f;
    ssize_t n = recv(pc->fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        drop_pending(r, pc, "closed before the hello");
        return;
    }
    for (size_t off = 0;;) {
        int rc = mbx_bridge_pop(pc->dec, &f);
        if (rc < 0) {
            char why[96];
            snprintf(why, sizeof why, "malformed hello: %s", mbx_bridge_decoder_error(pc->dec));
            drop_pending(r, pc, why);
            return;
        }
        if (rc == 1)
            break;
        if (off == (size_t)n)
            return;
        off += mbx_bridge_feed(pc->dec, buf + off, (size_t)n - off);
    }
    /* Compare before looking at "spent", so a replay costs the same time. */
    int match = f.type == MBX_BRIDGE_HELLO &&
                mbx_bridge_token_equal(f.payload, f.len, r->token, MBX_BRIDGE_TOKEN_CHARS);
    if (f.type != MBX_BRIDGE_HELLO)
        drop_pending(r, pc, "first frame not a hello");
    else if (!match)
        drop_pending(r, pc, "wrong token");
    else if (r->spent)
        drop_pending(r, pc, "token already used");
    else
        accept_conn(r, pc);
}

static void accept_new(mbx_lrelay *r)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept(r->listener, (struct sockaddr *)&ss, &sl);
        if (fd < 0)
            return;
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV);
        struct pending *pc = NULL;
        for (int i = 0; i < MAX_PENDING && !pc; i++)
            if (r->pend[i].fd < 0)
                pc = &r->pend[i];
        struct pending tmp = {.fd = fd};
        struct pending *slot = pc ? pc : &tmp;
        slot->fd = fd;
        slot->deadline = mbx_bridge_now_ms() + HELLO_MS;
        snprintf(slot->peer, sizeof slot->peer, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host,
                 serv);
        if (!pc)
            drop_pending(r, slot, "too many connections waiting");
        else if (!(pc->dec = mbx_bridge_decoder_new()))
            drop_pending(r, pc, "out of memory");
    }
}

static int read_keys(mbx_lrelay *r)
{
    unsigned char keys[KEY_CHUNK];
    int ctrl_c = 0;
    size_t kept = 0;
    ssize_t n = read(0, keys, sizeof keys);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        r->stdin_done = 1;
        return 0;
    }
    /* Ctrl-C is not a key for rank 0: as a terminal would, the launcher
     * turns it into SIGINT for the job. */
    for (ssize_t i = 0; i < n; i++) {
        if (keys[i] == CTRL_C)
            ctrl_c++;
        else
            keys[kept++] = keys[i];
    }
    if (kept > 0)
        queue(r, MBX_BRIDGE_DATA, keys, kept);
    return ctrl_c;
}

static void hear_rank0(mbx_lrelay *r)
{
    unsigned char buf[16384];
    mbx_bridge_frame f;
    ssize_t n = recv(r->conn, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        end_conn(r);
        return;
    }
    for (size_t off = 0;;) {
        int rc = mbx_bridge_pop(r->dec, &f);
        if (rc == 1 && f.type == MBX_BRIDGE_DATA) {
            write_all(1, f.payload, f.len);
            continue;
        }
        if (rc < 0 || (rc == 1 && f.type != MBX_BRIDGE_GOODBYE))
            log_line(r, "bridge: rank 0 broke the protocol (%s)\n",
                     rc < 0 ? mbx_bridge_decoder_error(r->dec) : "unexpected frame");
        if (rc != 0 || off == (size_t)n) {
            if (rc != 0)
                end_conn(r);
            return;
        }
        off += mbx_bridge_feed(r->dec, buf + off, (size_t)n - off);
    }
}

static void flush_out(mbx_lrelay *r)
{
    ssize_t n = send(r->conn, r->out + r->out_off, r->out_len - r->out_off, MSG_NOSIGNAL);
    if (n > 0 && (r->out_off += (size_t)n) == r->out_len)
        r->out_off = r->out_len = 0;
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
        end_conn(r);
}

static int listen_on(const char *addr, char *why, size_t len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                    *res;
    int rc = getaddrinfo(addr, "0", &hints, &res), fd = -1, err = 0;
    if (rc != 0) {
        snprintf(why, len, "%s", gai_strerror(rc));
        return -1;
    }
    /* Without an address, prefer one dual-stack IPv6 socket: it also takes
     * IPv4 connections. */
    for (int pass = 0; pass < 2 && fd < 0; pass++) {
        for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
            if ((ai->ai_family == AF_INET6) != (pass == 0))
                continue;
            int zero = 0;
            fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                        ai->ai_protocol);
            if (fd >= 0 && ai->ai_family == AF_INET6 && !addr)
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (fd >= 0 && (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0)) {
                err = errno;
                close(fd);
                fd = -1;
            } else if (fd < 0) {
                err = errno;
            }
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(why, len, "%s", strerror(err));
    return fd;
}

int mbx_lrelay_open(mbx_lrelay **out, const char *addr, const char *token, int logfd, char *advert,
                    size_t advlen, char *why, size_t len)
{
    char host[256] = "";
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char port[NI_MAXSERV];
    mbx_lrelay *r = calloc(1, sizeof *r);
    *out = NULL;
    if (!r) {
        snprintf(why, len, "out of memory");
        return MBX_E_IO;
    }
    r->conn = -1;
    r->logfd = logfd;
    for (int i = 0; i < MAX_PENDING; i++)
        r->pend[i].fd = -1;
    snprintf(r->token, sizeof r->token, "%s", token);
    if ((r->listener = listen_on(addr, why, len)) < 0 ||
        getsockname(r->listener, (struct sockaddr *)&ss, &sl) < 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, NULL, 0, port, sizeof port, NI_NUMERICSERV) != 0) {
        mbx_lrelay_close(r);
        return MBX_E_IO;
    }
    if (addr)
        snprintf(host, sizeof host, "%s", addr);
    else
        gethostname(host, sizeof host - 1);
    snprintf(advert, advlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    *out = r;
    return MBX_OK;
}

void mbx_lrelay_pollfds(mbx_lrelay *r, struct pollfd *p, int *timeout_ms)
{
    int live = r->conn >= 0;
    if (r->winch && live)
        queue_winsize(r);
    for (int i = 0; i < MBX_LRELAY_NFDS; i++)
        p[i] = (struct pollfd){.fd = -1, .events = POLLIN};
    p[0].fd = r->listener;
    p[1].fd = r->conn;
    if (r->out_len > r->out_off)
        p[1].events |= POLLOUT;
    if (live && r->raw && !r->stdin_done && sizeof r->out - r->out_len >= KEY_CHUNK + 16)
        p[2].fd = 0;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (r->pend[i].fd < 0)
            continue;
        long long left = r->pend[i].deadline - mbx_bridge_now_ms();
        p[3 + i].fd = r->pend[i].fd;
        if (*timeout_ms < 0 || left < *timeout_ms)
            *timeout_ms = left < 0 ? 0 : (int)left;
    }
}

int mbx_lrelay_handle(mbx_lrelay *r, const struct pollfd *p)
{
    int ctrl_c = 0;
    const short any = POLLIN | POLLHUP | POLLERR;
    if (p[1].fd >= 0 && p[1].fd == r->conn && (p[1].revents & POLLOUT))
        flush_out(r);
    if (p[1].fd >= 0 && p[1].fd == r->conn && (p[1].revents & any))
        hear_rank0(r);
    if (p[2].fd == 0 && r->conn >= 0 && (p[2].revents & any))
        ctrl_c = read_keys(r);
    for (int i = 0; i < MAX_PENDING; i++) {
        struct pending *pc = &r->pend[i];
        if (pc->fd >= 0 && p[3 + i].fd == pc->fd && (p[3 + i].revents & any))
            hear_pending(r, pc);
        if (pc->fd >= 0 && mbx_bridge_now_ms() >= pc->deadline)
            drop_pending(r, pc, "no hello within 2 s");
    }
    if (p[0].revents & POLLIN)
        accept_new(r);
    return ctrl_c;
}

void mbx_lrelay_winch(mbx_lrelay *r)
{
    r->winch = 1;
}

int mbx_lrelay_used(const mbx_lrelay *r)
{
    return r->spent;
}

void mbx_lrelay_drain(mbx_lrelay *r, int ms)
{
    long long deadline = mbx_bridge_now_ms() + ms;
    while (r->conn >= 0) {
        long long left = deadline - mbx_bridge_now_ms();
        struct pollfd p = {.fd = r->conn, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return;
        hear_rank0(r);
    }
}

void mbx_lrelay_close(mbx_lrelay *r)
{
    if (!r)
        return;
    end_conn(r);
    for (int i = 0; i < MAX_PENDING; i++) {
        if (r->pend[i].fd >= 0)
            close(r->pend[i].fd);
        mbx_bridge_decoder_free(r->pend[i].dec);
    }
    if (r->listener >= 0)
        close(r->listener);
    memset(r->token, 0, sizeof r->token);
    free(r);
}
