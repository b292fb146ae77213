/* mpibex check --junit FILE: the verdicts as JUnit XML, for CI systems
 * that show test reports (docs/user-guide.md, "Checking against a
 * baseline: check"). Written by hand: the format is small, and every
 * text from the input files goes through xml_text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_cmd.h"

/* s as XML character data or an attribute value: the five special
 * characters as entities, and the control characters XML 1.0 does not
 * allow (all below 0x20 but tab, newline, carriage return) as '?'. */
static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                fputc('?', f);
            else if (c == '\t' || c == '\n' || c == '\r')
                fprintf(f, "&#%d;", c); /* kept through attribute normalisation */
            else
                fputc(c, f);
        }
    }
}

/* "pingpong.send_recv 2 4096" and what else tells the point apart. */
static void case_name(const mbx_cmp_point *p, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", p->benchmark);
    if (p->label && *p->label && strcmp(p->label, "cli") != 0 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " [%s]", p->label);
    if (p->root >= 0 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " root=%d", p->root);
    if (p->op && *p->op && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " %s", p->op);
    if (p->param != 0 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " param=%lld", p->param);
    if (p->rma_sync && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " %s", p->rma_sync);
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " %d %llu", p->procs, (unsigned long long)p->bytes);
}

/* The figures of a row, as the message of its failure or skip. */
static void figures(const mbx_check_row *r, char *buf, size_t len)
{
    char tol[32];
    mbx_check_tol_text(&r->tol, tol, sizeof tol);
    snprintf(buf, len,
             "%s beyond %s: baseline %.4g us, current %.4g us, ratio %.4g (95%% CI %.4g..%.4g), "
             "p %.3g",
             mbx_check_verdict_word(r->v), tol, r->p->median_a * 1e6, r->p->median_b * 1e6,
             r->p->hl_ratio, r->p->hl_lo, r->p->hl_hi, r->p->w.p_two_sided);
}

int mbx_check_junit(FILE *f, const char *suite, const mbx_check_row *rows, size_t n,
                    const char *none_why)
{
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        failures += !none_why && rows[i].fails;
        skipped += none_why || rows[i].v == MBX_CHECK_UNDECIDED;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"", f);
    xml_text(f, suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", n, failures,
            skipped);
    for (size_t i = 0; i < n; i++) {
        char name[512], msg[512];
        case_name(rows[i].p, name, sizeof name);
        fputs("  <testcase classname=\"mpibex.check\" name=\"", f);
        xml_text(f, name);
        fputs("\" time=\"0\"", f);
        if (!none_why && !rows[i].fails && rows[i].v != MBX_CHECK_UNDECIDED) {
            fputs("/>\n", f);
            continue;
        }
        fputs(">\n", f);
        figures(&rows[i], msg, sizeof msg);
        if (none_why) {
            fputs("    <skipped message=\"", f);
            xml_text(f, none_why);
        } else if (rows[i].fails) {
            fputs("    <failure type=\"regression\" message=\"", f);
            xml_text(f, msg);
        } else {
            fputs("    <skipped message=\"", f);
            xml_text(f, msg);
        }
        fputs("\"/>\n  </testcase>\n", f);
    }
    fputs("</testsuite>\n", f);
    return ferror(f) ? -1 : 0;
}
