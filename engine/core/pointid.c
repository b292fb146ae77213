/* A point's identity across results files (mbx/pointid.h). */
#include "mbx/pointid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"

const char *const mbx_pid_columns[MBX_PID_NTEXT] = {"benchmark", "label", "root",
                                                    "op",        "param", "rma_sync"};

void mbx_pid_find_columns(const char *const *hdr, size_t n, int col[MBX_PID_NTEXT])
{
    for (int t = 0; t < MBX_PID_NTEXT; t++)
        col[t] = mbx_csv_col(hdr, n, mbx_pid_columns[t]);
}

void mbx_pid_texts(char *const *cell, const int col[MBX_PID_NTEXT], const char *text[MBX_PID_NTEXT])
{
    for (int t = 0; t < MBX_PID_NTEXT; t++)
        text[t] = col[t] >= 0 ? cell[col[t]] : "";
}

int mbx_pid_match(const char *const text[MBX_PID_NTEXT], unsigned long long procs,
                  unsigned long long bytes, const char *const want[MBX_PID_NTEXT],
                  unsigned long long procs_w, unsigned long long bytes_w)
{
    if (procs != procs_w || bytes != bytes_w)
        return 0;
    for (int t = 0; t < MBX_PID_NTEXT; t++)
        if (want[t] != NULL && strcmp(text[t] ? text[t] : "", want[t]) != 0)
            return 0;
    return 1;
}

char *mbx_pid_key(const char *const text[MBX_PID_NTEXT], unsigned long long procs,
                  unsigned long long bytes)
{
    char num[2][24];
    snprintf(num[0], sizeof num[0], "%llu", procs);
    snprintf(num[1], sizeof num[1], "%llu", bytes);
    /* The documented order: the two numbers after benchmark and label. */
    const char *part[MBX_PID_NTEXT + 2] = {text[MBX_PID_BENCH],
                                           text[MBX_PID_LABEL],
                                           num[0],
                                           num[1],
                                           text[MBX_PID_ROOT],
                                           text[MBX_PID_OP],
                                           text[MBX_PID_PARAM],
                                           text[MBX_PID_RMA_SYNC]};
    size_t len = 1;
    for (size_t i = 0; i < sizeof part / sizeof *part; i++)
        len += (part[i] ? strlen(part[i]) : 0) + 1;
    char *id = malloc(len), *p = id;
    if (id == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof part / sizeof *part; i++) {
        size_t l = part[i] ? strlen(part[i]) : 0;
        memcpy(p, part[i] ? part[i] : "", l);
        p += l;
        *p++ = '\x1f';
    }
    *p = '\0';
    return id;
}
