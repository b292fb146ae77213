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

#define STAGE_MS 1000 /* for the challenge, then again for the hello */
#define MAX_PENDING (MBX_LRELAY_NFDS - 3)
#define PER_PEER 4 /* pending connections one address may hold */
#define KEY_CHUNK 4096
#define OUT_CAP 65536
#define CTRL_C 0x03
/* Refusal lines: a burst of LOG_BURST, then one a second, LOG_CAP a job. */
#define LOG_BURST 10
#define LOG_CAP 100

struct pending {
    int fd, stage; /* 0: waits for the challenge; 1: proof sent, waits for the hello */
    long long since, deadline;
    mbx_bridge_decoder *dec;
    unsigned char nr[MBX_BRIDGE_NONCE], nl[MBX_BRIDGE_NONCE];
    char host[NI_MAXHOST];
    char peer[NI_MAXHOST + 8];
};

struct mbx_lrelay {
    int listener, conn, logfd;
    int spent, raw, stdin_done, winch;
    struct termios saved;
    char token[MBX_BRIDGE_TOKEN_CHARS + 1];
    struct pending pend[MAX_PENDING];
    mbx_bridge_decoder *dec; /* of the accepted connection */
    long long log_ms;        /* when the last refusal was logged */
    int log_credit, logged;  /* refusal lines allowed now, and written so far */
    long unlogged, crowded;  /* refusals not logged; dropped to make room */
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

/* Logs a refusal, unless strangers have had their share: they decide how
 * often they are refused, so they must not decide how much the log grows
 * (docs/hardening.md). The next line that is written counts the ones that
 * were not. */
static void log_refusal(mbx_lrelay *r, const char *peer, const char *reason)
{
    long long now = mbx_bridge_now_ms();
    long long earned = (now - r->log_ms) / 1000;
    if (earned > 0) {
        r->log_credit =
            r->log_credit + earned > LOG_BURST ? LOG_BURST : r->log_credit + (int)earned;
        r->log_ms += earned * 1000;
    }
    if (r->logged >= LOG_CAP || r->log_credit == 0) {
        r->unlogged++;
        return;
    }
    char more[64] = "";
    if (r->unlogged > 0)
        snprintf(more, sizeof more, "; %ld more refused, not logged", r->unlogged);
    r->unlogged = 0;
    r->log_credit--;
    r->logged++;
    log_line(r, "bridge: refused connection from %s (%s)%s%s\n", peer, reason, more,
             r->logged == LOG_CAP ? "; no more refusals will be logged" : "");
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
    log_refusal(r, pc->peer, reason);
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

/* Answers a challenge with the launcher's nonce and proof. The socket is
 * fresh, so its send buffer takes the 69 bytes at once. */
static void answer_challenge(mbx_lrelay *r, struct pending *pc, const mbx_bridge_frame *f)
{
    unsigned char proof[MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC], frame[MBX_BRIDGE_HEADER + sizeof proof];
    size_t n = 0;
    memcpy(pc->nr, f->payload, MBX_BRIDGE_NONCE);
    if (mbx_bridge_nonce_new(pc->nl) != MBX_OK) {
        drop_pending(r, pc, "no randomness for a nonce");
        return;
    }
    memcpy(proof, pc->nl, MBX_BRIDGE_NONCE);
    mbx_bridge_mac(r->token, MBX_BRIDGE_MAC_LAUNCHER, pc->nr, pc->nl, proof + MBX_BRIDGE_NONCE);
    if (mbx_bridge_encode(frame, sizeof frame, MBX_BRIDGE_PROOF, proof, sizeof proof, &n) < 0 ||
        send(pc->fd, frame, n, MSG_NOSIGNAL) != (ssize_t)n) {
        drop_pending(r, pc, "cannot send the proof");
        return;
    }
    pc->stage = 1;
    pc->deadline = mbx_bridge_now_ms() + STAGE_MS;
}

static void check_hello(mbx_lrelay *r, struct pending *pc, const mbx_bridge_frame *f)
{
    unsigned char want[MBX_BRIDGE_MAC];
    mbx_bridge_mac(r->token, MBX_BRIDGE_MAC_RANK0, pc->nr, pc->nl, want);
    /* Compare before looking at "spent", so a replay costs the same time. */
    int match = mbx_bridge_token_equal(f->payload, f->len, want, sizeof want);
    if (!match)
        drop_pending(r, pc, "wrong token");
    else if (r->spent)
        drop_pending(r, pc, "token already used");
    else
        accept_conn(r, pc);
}

static void hear_pending(mbx_lrelay *r, struct pending *pc)
{
    unsigned char buf[128];
    mbx_bridge_frame f;
    ssize_t n = recv(pc->fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        drop_pending(r, pc,
                     pc->stage == 0 ? "closed before the challenge" : "closed before the hello");
        return;
    }
    for (size_t off = 0; pc->fd >= 0;) {
        int rc = mbx_bridge_pop(pc->dec, &f);
        if (rc < 0) {
            char why[96];
            snprintf(why, sizeof why, "malformed %s: %s", pc->stage == 0 ? "challenge" : "hello",
                     mbx_bridge_decoder_error(pc->dec));
            drop_pending(r, pc, why);
        } else if (rc == 0 && off == (size_t)n) {
            return;
        } else if (rc == 0) {
            off += mbx_bridge_feed(pc->dec, buf + off, (size_t)n - off);
        } else if (pc->stage == 0 && f.type == MBX_BRIDGE_CHALLENGE) {
            answer_challenge(r, pc, &f);
        } else if (pc->stage == 1 && f.type == MBX_BRIDGE_HELLO) {
            check_hello(r, pc, &f);
        } else {
            drop_pending(
                r, pc, pc->stage == 0 ? "first frame not a challenge" : "second frame not a hello");
        }
    }
}

/* The slot for a new connection from host. A stranger must not be able to
 * keep rank 0 out by holding connections open, so there is always one:
 * when host already holds PER_PEER, or every slot is taken, the oldest
 * connection of host (or of anyone) that has not sent its challenge goes,
 * else the oldest of all. */
static struct pending *free_slot(mbx_lrelay *r, const char *host)
{
    struct pending *victim = NULL;
    int mine = 0;
    for (int i = 0; i < MAX_PENDING; i++)
        mine += r->pend[i].fd >= 0 && strcmp(r->pend[i].host, host) == 0;
    for (int i = 0; i < MAX_PENDING; i++) {
        struct pending *pc = &r->pend[i];
        if (pc->fd < 0) {
            if (mine < PER_PEER)
                return pc;
            continue;
        }
        if (mine >= PER_PEER && strcmp(pc->host, host) != 0)
            continue;
        if (!victim || pc->stage < victim->stage ||
            (pc->stage == victim->stage && pc->since < victim->since))
            victim = pc;
    }
    r->crowded++;
    drop_pending(r, victim,
                 mine >= PER_PEER ? "too many connections waiting from its address"
                                  : "too many connections waiting");
    return victim;
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
        struct pending *pc = free_slot(r, host);
        pc->fd = fd;
        pc->stage = 0;
        pc->since = mbx_bridge_now_ms();
        pc->deadline = pc->since + STAGE_MS;
        snprintf(pc->host, sizeof pc->host, "%s", host);
        snprintf(pc->peer, sizeof pc->peer, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
        if (!(pc->dec = mbx_bridge_decoder_new()))
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

/* What rank 0 is told: with an address, the numeric address the listener
 * is bound to (a name may resolve to others, where someone else may
 * listen: docs/hardening.md); without one, this host's name, as the
 * wildcard socket takes every address it resolves to. */
static int advertise(int listener, const char *addr, char *advert, size_t advlen)
{
    char host[NI_MAXHOST] = "", port[NI_MAXSERV];
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(listener, (struct sockaddr *)&ss, &sl) < 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, addr ? host : NULL, addr ? sizeof host : 0, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return -1;
    if (!addr)
        gethostname(host, sizeof host - 1);
    snprintf(advert, advlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    return 0;
}

int mbx_lrelay_open(mbx_lrelay **out, const char *addr, const char *token, int logfd, char *advert,
                    size_t advlen, char *why, size_t len)
{
    mbx_lrelay *r = calloc(1, sizeof *r);
    *out = NULL;
    if (!r) {
        snprintf(why, len, "out of memory");
        return MBX_E_IO;
    }
    r->conn = -1;
    r->logfd = logfd;
    r->log_credit = LOG_BURST;
    r->log_ms = mbx_bridge_now_ms();
    for (int i = 0; i < MAX_PENDING; i++)
        r->pend[i].fd = -1;
    snprintf(r->token, sizeof r->token, "%s", token);
    if ((r->listener = listen_on(addr, why, len)) < 0 ||
        advertise(r->listener, addr, advert, advlen) < 0) {
        if (r->listener >= 0)
            snprintf(why, len, "%s", strerror(errno));
        mbx_lrelay_close(r);
        return MBX_E_IO;
    }
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
            drop_pending(r, pc, pc->stage == 0 ? "no challenge within 1 s" : "no hello within 1 s");
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

long mbx_lrelay_crowded(const mbx_lrelay *r)
{
    return r->crowded;
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
    if (r->unlogged > 0)
        log_line(r, "bridge: %ld more refused connections, not logged\n", r->unlogged);
    memset(r->token, 0, sizeof r->token);
    free(r);
}
