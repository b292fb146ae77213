/* mpibex report: the writing primitives of index.md and index.html,
 * which are written side by side from the same calls (report_page.c).
 * Every text inserted is escaped for its format (mbx/esc.h). */
#include "report_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/esc.h"

/* Every text goes through its format's function of mbx/esc.h. */
static void put_esc(FILE *f, const char *s, mbx_status (*esc)(const char *, char *, size_t))
{
    size_t len = MBX_ESC_MAX(strlen(s));
    char small[1024], *buf = len <= sizeof small ? small : malloc(len);
    if (buf == NULL) /* out of memory: leave the text out rather than raw */
        return;
    mbx_status st = esc(s, buf, len); /* len always suffices */
    (void)st;
    fputs(buf, f);
    if (buf != small)
        free(buf);
}

void mbx_rpt_md_esc(FILE *f, const char *s)
{
    put_esc(f, s, mbx_esc_md);
}

void mbx_rpt_html_esc(FILE *f, const char *s)
{
    put_esc(f, s, mbx_esc_html);
}

void mbx_rpt_heading(mbx_rpt_doc *d, int level, const char *text)
{
    for (int i = 0; i < level; i++)
        fputc('#', d->md);
    fputc(' ', d->md);
    mbx_rpt_md_esc(d->md, text);
    fputs("\n\n", d->md);
    fprintf(d->html, "<h%d>", level);
    mbx_rpt_html_esc(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

void mbx_rpt_para(mbx_rpt_doc *d, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mbx_rpt_md_esc(d->md, buf);
    fputs("\n\n", d->md);
    fputs("<p>", d->html);
    mbx_rpt_html_esc(d->html, buf);
    fputs("</p>\n", d->html);
}

void mbx_rpt_table_begin(mbx_rpt_doc *d, const char *const *hdr, const char *align)
{
    size_t n = strlen(align);
    d->align = align;
    fputs("<table>\n<tr>", d->html);
    for (size_t c = 0; c < n; c++) {
        fputs("|", d->md);
        mbx_rpt_md_esc(d->md, hdr[c]);
        fputs("<th>", d->html);
        mbx_rpt_html_esc(d->html, hdr[c]);
        fputs("</th>", d->html);
    }
    fputs("|\n", d->md);
    fputs("</tr>\n", d->html);
    for (size_t c = 0; c < n; c++)
        fputs(align[c] == 'r' ? "|---:" : "|---", d->md);
    fputs("|\n", d->md);
}

void mbx_rpt_row(mbx_rpt_doc *d, const char *const *cell)
{
    size_t n = strlen(d->align);
    fputs("<tr>", d->html);
    for (size_t c = 0; c < n; c++) {
        fputs("|", d->md);
        mbx_rpt_md_esc(d->md, cell[c] ? cell[c] : "");
        fputs(d->align[c] == 'r' ? "<td class=\"r\">" : "<td>", d->html);
        mbx_rpt_html_esc(d->html, cell[c] ? cell[c] : "");
        fputs("</td>", d->html);
    }
    fputs("|\n", d->md);
    fputs("</tr>\n", d->html);
}

void mbx_rpt_table_end(mbx_rpt_doc *d)
{
    fputs("\n", d->md);
    fputs("</table>\n", d->html);
}

void mbx_rpt_figure(mbx_rpt_doc *d, const char *stem, const char *alt)
{
    fputs("![", d->md);
    mbx_rpt_md_esc(d->md, alt);
    fprintf(d->md, "](%s.png)\n[SVG](%s.svg)\n\n", stem, stem);
    fprintf(d->html,
            "<figure><a href=\"%s.svg\"><img src=\"%s.png\" width=\"960\" height=\"600\" "
            "alt=\"",
            stem, stem);
    mbx_rpt_html_esc(d->html, alt);
    fputs("\"></a><figcaption>", d->html);
    mbx_rpt_html_esc(d->html, alt);
    fprintf(d->html, " (<a href=\"%s.svg\">SVG</a>)</figcaption></figure>\n", stem);
}

/* A collapsed part of both pages: <details> is raw HTML in Markdown too,
 * which GitHub and pandoc show folded as well. */
void mbx_rpt_details_begin(mbx_rpt_doc *d, const char *summary)
{
    fputs("<details><summary>", d->html);
    mbx_rpt_html_esc(d->html, summary);
    fputs("</summary>\n", d->html);
    fputs("<details><summary>", d->md);
    mbx_rpt_html_esc(d->md, summary);
    fputs("</summary>\n\n", d->md);
}

void mbx_rpt_details_end(mbx_rpt_doc *d)
{
    fputs("</details>\n", d->html);
    fputs("</details>\n\n", d->md);
}
