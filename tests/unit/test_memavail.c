/* The memory one rank may take (mbx/memavail.h) over made-up /proc and
 * /sys/fs/cgroup trees: MemAvailable alone, a cgroup v2 limit on a parent
 * of the process's cgroup, an unlimited v2 cgroup, a v1 memory cgroup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbx/memavail.h"

static char root[512];

static void put(const char *rel, const char *text)
{
    char p[1024], cmd[1100];
    snprintf(p, sizeof p, "%s%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void fresh(const char *name)
{
    snprintf(root, sizeof root, "%s/test_memavail_%ld_%s", MBX_TMP_DIR, (long)getpid(), name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", root, root);
    assert_int_equal(system(cmd), 0);
    put("/proc/meminfo", "MemTotal:       32000000 kB\nMemAvailable:    4194304 kB\n");
}

static void gone(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%.512s'", root);
    assert_int_equal(system(cmd), 0);
}

static void budgets(void **state)
{
    (void)state;
    uint64_t b;
    char why[128];
    const uint64_t gib = 1024ull * 1024 * 1024;

    fresh("plain"); /* no cgroup file: MemAvailable (4 GiB) over 4 ranks */
    assert_int_equal(mbx_mem_rank_budget(root, 4, &b, why, sizeof why), MBX_OK);
    assert_true(b == gib);
    assert_string_equal(why, "MemAvailable");
    gone();

    /* v2: the job's cgroup is unlimited, its parent holds 1.5 GiB with
     * 0.5 GiB in use: 1 GiB left, over 2 ranks. */
    fresh("v2");
    put("/proc/self/cgroup", "0::/user.slice/job\n");
    put("/sys/fs/cgroup/user.slice/job/memory.max", "max\n");
    put("/sys/fs/cgroup/user.slice/job/memory.current", "1000\n");
    put("/sys/fs/cgroup/user.slice/memory.max", "1610612736\n");
    put("/sys/fs/cgroup/user.slice/memory.current", "536870912\n");
    assert_int_equal(mbx_mem_rank_budget(root, 2, &b, why, sizeof why), MBX_OK);
    assert_true(b == gib / 2);
    assert_string_equal(why, "/sys/fs/cgroup/user.slice/memory.max");
    gone();

    /* v1: a memory cgroup of 2 GiB, 1 GiB used; the other controllers
     * are not read. */
    fresh("v1");
    put("/proc/self/cgroup", "9:name=systemd:/\n4:memory:/job\n1:cpu:/\n0::/\n");
    put("/sys/fs/cgroup/memory/job/memory.limit_in_bytes", "2147483648\n");
    put("/sys/fs/cgroup/memory/job/memory.usage_in_bytes", "1073741824\n");
    put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    assert_int_equal(mbx_mem_rank_budget(root, 1, &b, why, sizeof why), MBX_OK);
    assert_true(b == gib);
    assert_string_equal(why, "/sys/fs/cgroup/memory/job/memory.limit_in_bytes");
    gone();

    fresh("bad");
    assert_int_equal(mbx_mem_rank_budget(root, 0, &b, why, sizeof why), MBX_E_INVAL);
    assert_int_equal(mbx_mem_rank_budget(NULL, 1, &b, why, sizeof why), MBX_E_INVAL);
    put("/proc/meminfo", "MemTotal: 1 kB\n");
    assert_int_equal(mbx_mem_rank_budget(root, 1, &b, why, sizeof why), MBX_E_IO);
    gone();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(budgets)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
