/* Internal to `mpibex report`: writing index.md and index.html side by
 * side (report_doc.c). Every text goes through its format's escaping. */
#ifndef MBX_REPORT_DOC_H
#define MBX_REPORT_DOC_H

#include <stdio.h>

typedef struct mbx_rpt_doc {
    FILE *md, *html;
    const char *align; /* of the open table: 'l' or 'r' per column */
} mbx_rpt_doc;

void mbx_rpt_md_esc(FILE *f, const char *s);
void mbx_rpt_html_esc(FILE *f, const char *s);
void mbx_rpt_heading(mbx_rpt_doc *d, int level, const char *text);
/* A paragraph of both pages, printf-style. */
void mbx_rpt_para(mbx_rpt_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A table: its header cells and an 'l' or 'r' per column. */
void mbx_rpt_table_begin(mbx_rpt_doc *d, const char *const *hdr, const char *align);
void mbx_rpt_row(mbx_rpt_doc *d, const char *const *cell);
void mbx_rpt_table_end(mbx_rpt_doc *d);
/* STEM.png linking to STEM.svg, with alt as its caption. */
void mbx_rpt_figure(mbx_rpt_doc *d, const char *stem, const char *alt);
/* A folded part of both pages, opened with its summary line. */
void mbx_rpt_details_begin(mbx_rpt_doc *d, const char *summary);
void mbx_rpt_details_end(mbx_rpt_doc *d);

#endif
