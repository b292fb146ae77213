/* libFuzzer target: plan files (mbx_plan_parse), the INI text `mpibex run
 * PLAN` and the explorer read. A plan that parses must hold what plan.h
 * promises; one that does not must say why. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 64 measurements of 4096 sizes each: too big for the stack. */
static mbx_plan plan;

static void check_measurement(const mbx_measurement *m)
{
    char msg[512];
    MBX_FUZZ_CHECK(mbx_measurement_check(m, msg, sizeof msg) == MBX_OK);
    MBX_FUZZ_CHECK(m->label[0] != '\0' && memchr(m->label, '\0', sizeof m->label) != NULL);
    MBX_FUZZ_CHECK(m->nbench >= 1 && m->nbench <= MBX_PLAN_MAX_BENCH);
    for (size_t i = 0; i < m->nbench; i++)
        MBX_FUZZ_CHECK(m->bench[i][0] != '\0' && memchr(m->bench[i], '\0', MBX_NAME_MAX) != NULL);
    MBX_FUZZ_CHECK(m->sizes.n >= 1 && m->sizes.n <= MBX_SIZES_MAX_POINTS);
    for (size_t i = 0; i < m->sizes.n; i++) {
        MBX_FUZZ_CHECK(m->sizes.v[i] <= MBX_SIZE_MAX_BYTES);
        MBX_FUZZ_CHECK(i == 0 || m->sizes.v[i] > m->sizes.v[i - 1]);
    }
    MBX_FUZZ_CHECK(m->nmin >= 1 && m->nmin <= m->nmax && m->nmax <= MBX_NMAX_LIMIT);
    MBX_FUZZ_CHECK(m->procs_all ? m->nprocs == 0 : m->nprocs >= 1);
    MBX_FUZZ_CHECK(m->nprocs <= MBX_PLAN_MAX_PROCS);
    for (size_t i = 0; i < m->nprocs; i++) {
        MBX_FUZZ_CHECK(m->procs[i] >= 1 && m->procs[i] <= MBX_PROCS_LIMIT);
        MBX_FUZZ_CHECK(i == 0 || m->procs[i] > m->procs[i - 1]);
    }
    MBX_FUZZ_CHECK(m->nparam <= MBX_PLAN_MAX_PARAM);
    for (size_t i = 0; i < m->nparam; i++)
        MBX_FUZZ_CHECK(m->param[i] >= 1 && m->param[i] <= MBX_PARAM_LIMIT);
    MBX_FUZZ_CHECK(m->root >= 0 && m->root < MBX_PROCS_LIMIT);
    MBX_FUZZ_CHECK(m->pair_auto || (m->pair_a != m->pair_b && m->pair_a >= 0 && m->pair_b >= 0));
    MBX_FUZZ_CHECK(m->refine >= 0.0 && m->refine < 1.0);
    MBX_FUZZ_CHECK(m->budget <= MBX_BUDGET_LIMIT);

    /* The rule's canonical text (what the CSV's stop_rule column holds)
     * must read back as the same kind of rule. */
    char text[64];
    mbx_stop_rule back;
    mbx_stop_format(&m->stop, text, sizeof text);
    MBX_FUZZ_CHECK(mbx_stop_parse(text, &back, NULL, 0) == MBX_OK);
    MBX_FUZZ_CHECK(back.kind == m->stop.kind && back.fixed == m->stop.fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mbx_fuzz_cstr(data, size);
    char msg[1024] = "";
    int rc = mbx_plan_parse(text, "fuzz.ini", &plan, msg, sizeof msg);
    if (rc == MBX_OK) {
        MBX_FUZZ_CHECK(plan.nmeas >= 1 && plan.nmeas <= MBX_PLAN_MAX_MEAS);
        for (size_t i = 0; i < plan.nmeas; i++) {
            check_measurement(&plan.meas[i]);
            for (size_t j = 0; j < i; j++)
                MBX_FUZZ_CHECK(strcmp(plan.meas[i].label, plan.meas[j].label) != 0);
        }
    } else {
        MBX_FUZZ_CHECK(rc < 0 && msg[0] != '\0');
    }
    free(text);
    return 0;
}
