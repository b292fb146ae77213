/* The verdict on the MPI library for rma.* (engine/core/rmacheck.c): MPI and
 * UCX version texts and UCX_RCACHE_ENABLE in, BROKEN or OK out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "mbx/rmacheck.h"

/* MPI_Get_library_version's text on Debian 12 (MPICH 4.0.2, ch4:ucx),
 * shortened. */
#define MPICH402                                                                                   \
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"                   \
    "MPICH ABI:\t14:2:2\nMPICH Device:\tch4:ucx\nMPICH configure:\t--with-device=ch4:ucx\n"

static mbx_rma_verdict judge(const char *mpi, const char *ucx, const char *rcache, char *why,
                             size_t len)
{
    mbx_rma_facts f = {mpi, ucx, rcache};
    return mbx_rma_judge(&f, why, len);
}

static void debian12_pair_is_broken_and_says_the_fix(void **state)
{
    (void)state;
    char why[512] = "";
    assert_int_equal(judge(MPICH402, "1.13.1", NULL, why, sizeof why), MBX_RMA_BROKEN);
    assert_null(strchr(why, '\n'));
    assert_non_null(strstr(why, "MPICH 4.0.2 over UCX 1.13.1"));
    assert_non_null(strstr(why, "UCX_RCACHE_ENABLE unset"));
    /* The fix first: a narrow message line still shows it. */
    assert_ptr_equal(strstr(why, "rma.* needs UCX_RCACHE_ENABLE=n in the job's environment"), why);
    assert_non_null(strstr(why, "INVALID"));
    assert_true(strlen(why) < 256); /* whole on the explorer's message line (its buffer) */
    /* A later UCX, and a cache asked for by hand, are the same. */
    assert_int_equal(judge(MPICH402, "1.16.0", NULL, NULL, 0), MBX_RMA_BROKEN);
    assert_int_equal(judge(MPICH402, "2.0.0", NULL, NULL, 0), MBX_RMA_BROKEN);
    assert_int_equal(judge(MPICH402, "1.13.1", "y", why, sizeof why), MBX_RMA_BROKEN);
    assert_non_null(strstr(why, "(UCX_RCACHE_ENABLE=y;"));
    assert_int_equal(judge(MPICH402, "1.13.1", "try", NULL, 0), MBX_RMA_BROKEN);
    assert_int_equal(judge(MPICH402, "1.13.1", "", NULL, 0), MBX_RMA_BROKEN);
}

static void cache_off_is_ok(void **state)
{
    (void)state;
    const char *off[] = {"n", "N", "no", "NO", "off", "0", "false"};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        char why[64] = "untouched";
        assert_int_equal(judge(MPICH402, "1.13.1", off[i], why, sizeof why), MBX_RMA_OK);
        assert_string_equal(why, "untouched");
    }
}

static void other_versions_are_ok(void **state)
{
    (void)state;
    assert_int_equal(judge(MPICH402, "1.12.1", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(judge(MPICH402, "0.99", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(
        judge("MPICH Version:\t4.1.2\nMPICH Device:\tch4:ucx\n", "1.13.1", NULL, NULL, 0),
        MBX_RMA_OK);
    assert_int_equal(
        judge("MPICH Version:\t3.4.3\nMPICH Device:\tch4:ucx\n", "1.13.1", NULL, NULL, 0),
        MBX_RMA_OK);
    /* MPICH over libfabric: no UCX in its RMA, even with UCX loaded. */
    assert_int_equal(
        judge("MPICH Version:\t4.0.2\nMPICH Device:\tch4:ofi\n", "1.13.1", NULL, NULL, 0),
        MBX_RMA_OK);
    /* Open MPI over UCX is not the pairing. */
    assert_int_equal(judge("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: "
                           "v4.1.4, May 26, 2022",
                           "1.13.1", NULL, NULL, 0),
                     MBX_RMA_OK);
}

static void unreadable_facts_are_ok(void **state)
{
    (void)state;
    assert_int_equal(judge(MPICH402, NULL, NULL, NULL, 0), MBX_RMA_OK); /* no UCX loaded */
    assert_int_equal(judge(NULL, "1.13.1", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(judge(MPICH402, "v1.13", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(judge(MPICH402, "1", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(judge("MPICH Version:\tfour\n", "1.13.1", NULL, NULL, 0), MBX_RMA_OK);
    assert_int_equal(mbx_rma_judge(NULL, NULL, 0), MBX_RMA_OK);
    /* The device line is optional: a 4.0.x without one is judged by UCX. */
    assert_int_equal(judge("MPICH Version:  4.0.3\n", "1.14.0", NULL, NULL, 0), MBX_RMA_BROKEN);
}

static void the_line_is_cut_to_its_buffer(void **state)
{
    (void)state;
    char why[24];
    memset(why, 'x', sizeof why);
    assert_int_equal(judge(MPICH402, "1.13.1", NULL, why, 16), MBX_RMA_BROKEN);
    assert_int_equal(strlen(why), 15);
    assert_int_equal(why[16], 'x');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(debian12_pair_is_broken_and_says_the_fix),
        cmocka_unit_test(cache_off_is_ok),
        cmocka_unit_test(other_versions_are_ok),
        cmocka_unit_test(unreadable_facts_are_ok),
        cmocka_unit_test(the_line_is_cut_to_its_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
