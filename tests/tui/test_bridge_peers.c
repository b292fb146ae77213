/* The socket bridge against other local users, on loopback: the launcher's
 * relay (launcher_relay.h) in a thread, rank 0's end (term_bridge.h) in
 * the test, and strangers made of plain sockets (docs/hardening.md,
 * "The terminal bridge").
 *
 * - rank 0 that reaches a listener which is not the launcher sends it
 *   nothing derived from the token, and says so;
 * - --bridge-addr NAME is advertised as the numeric address bound;
 * - a crowd of idle connections holding every slot does not keep rank 0 out;
 * - a flood of refused connections writes a log bounded by the time it
 *   takes (10 lines, then one a second), not by the number of connections;
 * - the reset the launcher writes after a crash turns off every mode. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bridgeproto.h"
#include "launcher_relay.h"
#include "term.h"
#include "term_bridge.h"

#define CROWD 16 /* every slot the launcher has */

static const char token[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

typedef struct relay_run {
    mbx_lrelay *r;
    pthread_t th;
    atomic_int stop;
    int logfd;
    char log[64];
    char advert[320];
} relay_run;

static void *relay_loop(void *arg)
{
    relay_run *rr = arg;
    while (!atomic_load(&rr->stop)) {
        struct pollfd p[MBX_LRELAY_NFDS];
        int timeout = 20;
        mbx_lrelay_pollfds(rr->r, p, &timeout);
        poll(p, MBX_LRELAY_NFDS, timeout < 0 || timeout > 20 ? 20 : timeout);
        mbx_lrelay_handle(rr->r, p);
    }
    return NULL;
}

static void relay_start(relay_run *rr, const char *addr)
{
    char why[256] = "";
    snprintf(rr->log, sizeof rr->log, "/tmp/mbx-bridge-peers-XXXXXX");
    rr->logfd = mkstemp(rr->log);
    assert_true(rr->logfd >= 0);
    atomic_init(&rr->stop, 0);
    assert_int_equal(mbx_lrelay_open(&rr->r, addr, token, rr->logfd, rr->advert, sizeof rr->advert,
                                     why, sizeof why),
                     MBX_OK);
    assert_int_equal(pthread_create(&rr->th, NULL, relay_loop, rr), 0);
}

/* Stops the relay and returns its log (malloc'd); *len its size. */
static char *relay_stop(relay_run *rr, size_t *len)
{
    atomic_store(&rr->stop, 1);
    pthread_join(rr->th, NULL);
    mbx_lrelay_close(rr->r);
    struct stat st;
    assert_int_equal(fstat(rr->logfd, &st), 0);
    char *text = calloc(1, (size_t)st.st_size + 1);
    assert_non_null(text);
    assert_int_equal(pread(rr->logfd, text, (size_t)st.st_size, 0), st.st_size);
    close(rr->logfd);
    unlink(rr->log);
    *len = (size_t)st.st_size;
    return text;
}

static int port_of(const char *advert)
{
    const char *colon = strrchr(advert, ':');
    return colon ? atoi(colon + 1) : -1;
}

/* Non-blocking: a connect to a full backlog must not stall the stranger. */
static int connect_v4(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* A listener that is not the launcher: it records what rank 0 sends, and
 * answers a challenge with a proof it cannot have made (random bytes). */
typedef struct fake {
    int listener, port;
    unsigned char got[4096];
    size_t len;
} fake;

static void read_for(int fd, fake *f, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (f->len < sizeof f->got && poll(&p, 1, ms) == 1) {
        ssize_t n = recv(fd, f->got + f->len, sizeof f->got - f->len, 0);
        if (n <= 0)
            return;
        f->len += (size_t)n;
    }
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    struct pollfd p = {.fd = f->listener, .events = POLLIN};
    if (poll(&p, 1, 5000) != 1)
        return NULL;
    int fd = accept(f->listener, NULL, NULL);
    if (fd < 0)
        return NULL;
    read_for(fd, f, 500);
    unsigned char bogus[MBX_BRIDGE_HEADER + MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC] = {'P', 0, 0, 0, 64};
    for (size_t i = MBX_BRIDGE_HEADER; i < sizeof bogus; i++)
        bogus[i] = (unsigned char)(i * 37);
    ssize_t w = send(fd, bogus, sizeof bogus, MSG_NOSIGNAL);
    (void)w;
    read_for(fd, f, 500);
    close(fd);
    return NULL;
}

static void rank0_tells_a_false_listener_nothing(void **state)
{
    (void)state;
    fake f = {.len = 0};
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof sa;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f.listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_int_equal(bind(f.listener, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(f.listener, 4), 0);
    assert_int_equal(getsockname(f.listener, (struct sockaddr *)&sa, &sl), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fake_main, &f), 0);

    char addr[64], why[512] = "";
    int slave = -1;
    mbx_term_bridge *b = NULL;
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(sa.sin_port));
    int rc = mbx_term_bridge_open(&b, addr, token, &slave, why, sizeof why);
    pthread_join(th, NULL);
    close(f.listener);
    if (rc == MBX_OK) {
        close(slave);
        mbx_term_bridge_close(b);
    }
    print_message("rank 0 sent the false listener %zu bytes; it said: %s\n", f.len, why);
    assert_int_not_equal(rc, MBX_OK);
    assert_null(memmem(f.got, f.len, token, strlen(token)));
    /* One challenge (a nonce of its own), and nothing after the bad proof. */
    assert_int_equal(f.len, MBX_BRIDGE_HEADER + MBX_BRIDGE_NONCE);
    assert_int_equal(f.got[0], MBX_BRIDGE_CHALLENGE);
    assert_non_null(strstr(why, "did not prove that it holds MBX_BRIDGE_TOKEN"));
}

/* "localhost" is both 127.0.0.1 and ::1 in Debian's /etc/hosts: rank 0
 * must be sent to the one the launcher bound, not to the name. */
static void advertises_the_numeric_address_bound(void **state)
{
    (void)state;
    relay_run rr;
    relay_start(&rr, "localhost");
    char host[320];
    snprintf(host, sizeof host, "%s", rr.advert);
    *strrchr(host, ':') = '\0';
    unsigned char buf[16];
    int v6 = host[0] == '[' && host[strlen(host) - 1] == ']';
    if (v6) {
        host[strlen(host) - 1] = '\0';
        memmove(host, host + 1, strlen(host));
    }
    print_message("--bridge-addr localhost is advertised as %s\n", rr.advert);
    assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, host, buf), 1);

    char why[512] = "";
    int slave = -1;
    mbx_term_bridge *b = NULL;
    assert_int_equal(mbx_term_bridge_open(&b, rr.advert, token, &slave, why, sizeof why), MBX_OK);
    close(slave);
    mbx_term_bridge_close(b);
    size_t len;
    char *log = relay_stop(&rr, &len);
    assert_non_null(strstr(log, "bridge: rank 0 connected from"));
    free(log);
}

/* Holds CROWD idle connections to the port, opening a new one for each
 * the launcher closes, until told to stop. */
typedef struct crowd {
    int port;
    atomic_int stop;
    long opened;
} crowd;

static void *crowd_main(void *arg)
{
    crowd *c = arg;
    struct pollfd p[CROWD];
    for (int i = 0; i < CROWD; i++) {
        p[i] = (struct pollfd){.fd = connect_v4(c->port), .events = POLLIN};
        c->opened++;
    }
    while (!atomic_load(&c->stop)) {
        if (poll(p, CROWD, 20) <= 0)
            continue;
        for (int i = 0; i < CROWD; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            close(p[i].fd);
            p[i].fd = connect_v4(c->port);
            c->opened++;
        }
    }
    for (int i = 0; i < CROWD; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    return NULL;
}

static void crowd_cannot_keep_rank0_out(void **state)
{
    (void)state;
    relay_run rr;
    relay_start(&rr, "127.0.0.1");
    crowd c = {.port = port_of(rr.advert)};
    atomic_init(&c.stop, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, crowd_main, &c), 0);
    poll(NULL, 0, 300); /* every slot taken */

    char why[512] = "";
    int slave = -1;
    mbx_term_bridge *b = NULL;
    int rc = mbx_term_bridge_open(&b, rr.advert, token, &slave, why, sizeof why);
    atomic_store(&c.stop, 1);
    pthread_join(th, NULL);
    if (rc == MBX_OK) {
        close(slave);
        mbx_term_bridge_close(b);
    }
    size_t len;
    char *log = relay_stop(&rr, &len);
    print_message("crowd opened %ld connections; rank 0: %s; log %zu bytes\n", c.opened,
                  rc == MBX_OK ? "connected" : why, len);
    assert_int_equal(rc, MBX_OK);
    assert_non_null(strstr(log, "bridge: rank 0 connected from"));
    free(log);
}

/* Connections that say garbage and go, as fast as they can be made: the
 * log grows by a few lines, however many there are. */
static void refusals_are_logged_within_a_cap(void **state)
{
    (void)state;
    relay_run rr;
    relay_start(&rr, "127.0.0.1");
    int port = port_of(rr.advert), made = 0;
    long long t0 = mbx_bridge_now_ms();
    for (int i = 0; i < 2000; i++) {
        int fd = connect_v4(port);
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (fd < 0)
            continue;
        if (poll(&p, 1, 20) == 1 && send(fd, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL) == 18)
            made++;
        close(fd);
    }
    poll(NULL, 0, 500); /* the relay catches up */
    size_t len;
    char *log = relay_stop(&rr, &len);
    long long secs = (mbx_bridge_now_ms() - t0) / 1000 + 1;
    size_t lines = 0;
    for (char *p = log; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    print_message("%d refused connections in %lld s: %zu log lines, %zu bytes\n", made, secs, lines,
                  len);
    /* A burst of 10, then one a second, then the count at the close. */
    assert_true(made > 500);
    assert_true(lines <= 10 + (size_t)secs + 1);
    assert_true(len <= 150 * lines);
    assert_non_null(strstr(log, "more refused connections, not logged"));
    free(log);
}

/* What the launcher writes after rank 0 died: every mode the explorer can
 * turn on (ncurses' keypad(TRUE) sends smkx, \E[?1h\E=; its mouse mask
 * turns on 1000 or 1002 or 1003 reports, in 1006 or 1005 or 1015 form;
 * bracketed paste is 2004) turned off, then the alternate screen left. */
static void reset_turns_off_every_mode(void **state)
{
    (void)state;
    static const char *const off[] = {"\033[0m",     "\033[?25h",   "\033[?1000l", "\033[?1002l",
                                      "\033[?1003l", "\033[?1005l", "\033[?1006l", "\033[?1015l",
                                      "\033[?2004l", "\033[?1l",    "\033>"};
    const char *seq = mbx_term_reset_seq();
    const char *last = strstr(seq, "\033[?1049l");
    assert_non_null(last);
    assert_string_equal(last, "\033[?1049l");
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        const char *at = strstr(seq, off[i]);
        assert_non_null(at);
        assert_true(at < last);
    }
}

int main(void)
{
    /* The relay makes fd 0 raw when rank 0 connects: never the tester's. */
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rank0_tells_a_false_listener_nothing),
        cmocka_unit_test(advertises_the_numeric_address_bound),
        cmocka_unit_test(crowd_cannot_keep_rank0_out),
        cmocka_unit_test(refusals_are_logged_within_a_cap),
        cmocka_unit_test(reset_turns_off_every_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
