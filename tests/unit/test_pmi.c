/* mbx_pmi_finalize (tui/cmd/pmi.c) against a fake process manager on the
 * other end of a socket pair: the request's bytes, the answer taken, a
 * wrong answer, no answer within the time, a closed socket, no PMI_FD. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmi.h"

static int pm; /* the process manager's end */

/* A socket pair; PMI_FD names the rank's end. The manager's answer is
 * written before the call: the request and answer fit a socket buffer. */
static void setup_pair(const char *answer)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[0]);
    setenv("PMI_FD", fd, 1);
    pm = sv[1];
    if (answer)
        assert_int_equal(write(pm, answer, strlen(answer)), (ssize_t)strlen(answer));
}

static void teardown_pair(void)
{
    close(atoi(getenv("PMI_FD")));
    close(pm);
    unsetenv("PMI_FD");
}

/* What the rank wrote, as a string. */
static const char *request(void)
{
    static char buf[64];
    ssize_t n = recv(pm, buf, sizeof buf - 1, MSG_DONTWAIT);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void acknowledged(void **state)
{
    (void)state;
    setup_pair("cmd=finalize_ack\n");
    assert_int_equal(mbx_pmi_finalize(2000), 1);
    assert_string_equal(request(), "cmd=finalize\n");
    teardown_pair();
}

static void slurm_answer_with_rc(void **state)
{
    (void)state;
    setup_pair("cmd=finalize_ack rc=0\n");
    assert_int_equal(mbx_pmi_finalize(2000), 1);
    teardown_pair();
}

static void wrong_answer(void **state)
{
    (void)state;
    setup_pair("cmd=barrier_out\n");
    assert_int_equal(mbx_pmi_finalize(2000), MBX_E_PROTO);
    teardown_pair();
    setup_pair("cmd=finalize_acknowledged\n");
    assert_int_equal(mbx_pmi_finalize(2000), MBX_E_PROTO);
    teardown_pair();
}

static void no_answer_in_time(void **state)
{
    (void)state;
    setup_pair(NULL);
    assert_int_equal(mbx_pmi_finalize(100), MBX_E_IO); /* returns: a rank never hangs here */
    assert_string_equal(request(), "cmd=finalize\n");
    teardown_pair();
}

static void closed_by_manager(void **state)
{
    (void)state;
    setup_pair("cmd=final");
    shutdown(pm, SHUT_WR); /* half a line, then the end */
    assert_int_equal(mbx_pmi_finalize(2000), MBX_E_IO);
    teardown_pair();
}

static void no_pmi(void **state)
{
    (void)state;
    unsetenv("PMI_FD");
    assert_int_equal(mbx_pmi_finalize(100), 0);
    setenv("PMI_FD", "", 1);
    assert_int_equal(mbx_pmi_finalize(100), 0);
    setenv("PMI_FD", "7x", 1);
    assert_int_equal(mbx_pmi_finalize(100), 0);
    setenv("PMI_FD", "-3", 1);
    assert_int_equal(mbx_pmi_finalize(100), 0);
    setenv("PMI_FD", "99999999999999999999", 1);
    assert_int_equal(mbx_pmi_finalize(100), 0);
    unsetenv("PMI_FD");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(acknowledged),      cmocka_unit_test(slurm_answer_with_rc),
        cmocka_unit_test(wrong_answer),      cmocka_unit_test(no_answer_in_time),
        cmocka_unit_test(closed_by_manager), cmocka_unit_test(no_pmi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
