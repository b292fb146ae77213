/* End-to-end helper for bridge_e2e.sh: an MPI program whose rank 0 reaches
 * the user's terminal through mbx_term_open (as the explorer does), says
 * hello, and echoes each key as "key:<hex>" until 'q'. Window-size changes
 * show up as "size=RxC" lines, found by polling like the explorer does.
 * Exit codes: 0 after 'q', 1 no terminal, 3 terminal lost, 4 idle timeout. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* cfmakeraw */
#endif
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mbx/status.h"
#include "term.h"

#define TICK_MS 100
#define IDLE_TICKS 1200 /* two minutes without a key: the test has gone */

static int echo_keys(mbx_term *t)
{
    FILE *out = mbx_term_out(t);
    int fd = fileno(mbx_term_in(t)), rows = 0, cols = 0;
    mbx_term_size(t, &rows, &cols);
    fprintf(out, "mbx-term-echo kind=%s size=%dx%d\r\n", mbx_term_kind(t), rows, cols);
    fflush(out);
    for (int idle = 0; idle < IDLE_TICKS; idle++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        unsigned char buf[256];
        if (poll(&p, 1, TICK_MS) == 1) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0)
                return 3;
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == 'q')
                    return 0;
                fprintf(out, "key:%02x\r\n", buf[i]);
            }
            idle = 0;
        }
        int r = 0, c = 0;
        if (mbx_term_size(t, &r, &c) == 0 && (r != rows || c != cols)) {
            rows = r, cols = c;
            fprintf(out, "size=%dx%d\r\n", rows, cols);
        }
        fflush(out);
        if (mbx_term_lost(t))
            return 3;
    }
    return 4;
}

static int rank0(void)
{
    mbx_term *t = NULL;
    char msg[256];
    int rc = mbx_term_open(&t, msg, sizeof msg);
    if (rc < 0) {
        fprintf(stderr, "term_echo: %s (%s)\n", msg, mbx_strerror(rc));
        mbx_term_write_status(1);
        return 1;
    }
    /* Raw like the explorer's ncurses, but keeping ISIG as cbreak() does, so
     * Ctrl-C on a same-host terminal still becomes SIGINT for mpiexec. */
    int fd = fileno(mbx_term_in(t));
    struct termios saved, raw;
    int have_modes = tcgetattr(fd, &saved) == 0;
    if (have_modes) {
        raw = saved;
        cfmakeraw(&raw);
        raw.c_lflag |= ISIG;
        tcsetattr(fd, TCSANOW, &raw);
    }
    int code = echo_keys(t);
    if (have_modes)
        tcsetattr(fd, TCSANOW, &saved);
    mbx_term_close(t);
    mbx_term_write_status(code);
    return code;
}

int main(int argc, char **argv)
{
    int rank = 0, code = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        code = rank0();
    /* The other ranks wait for rank 0 without spinning (a blocking barrier
     * busy-polls a core for the whole test in MPICH and Open MPI alike). */
    MPI_Request done;
    int flag = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    while (MPI_Test(&done, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MPI_Finalize();
    return code;
}
