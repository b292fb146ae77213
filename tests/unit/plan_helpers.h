/* What test_plan.c and test_plan_file.c share: plans on the heap. */
#ifndef MBX_TEST_PLAN_HELPERS_H
#define MBX_TEST_PLAN_HELPERS_H

#include <stdlib.h>

#include "mbx/plan.h"

static mbx_plan *new_plan(void)
{
    mbx_plan *p = calloc(1, sizeof *p);
    assert_non_null(p);
    return p;
}

static mbx_plan *load_ok(const char *path)
{
    mbx_plan *p = new_plan();
    char msg[512] = "";
    if (mbx_plan_load(path, p, msg, sizeof msg) != MBX_OK) {
        fail_msg("%s", msg);
    }
    return p;
}

#endif
