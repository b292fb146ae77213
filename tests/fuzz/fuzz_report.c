/* libFuzzer target: `mpibex report` (mbx_report_write) on hostile inputs.
 * The oracle is "no file appears outside the output directory and no
 * command runs": every file left in the work area is an input or inside
 * the report directory, and the gnuplot script the report wrote holds no
 * command text (no backquote outside a single-quoted string, no line left
 * inside a string, no system/shell/load/call/eval, no macro but the
 * script's own, no '!' shell escape, outputs and data files only by plain
 * relative names), the pages hold no markup of their own making and no
 * control byte, and the error message shows no control byte on a terminal.
 *
 * Instead of gnuplot, a stub script (sh) creates each plot the script
 * names, so the pages get written too; set MBX_FUZZ_GNUPLOT=gnuplot to run
 * the real one (slow; then a script gnuplot refuses is a failure too), and
 * MBX_FUZZ_VERBOSE=1 to see each run's outcome.
 *
 * Input: byte 0 picks the shape (bit 0: a second input B, bit 1: B is a
 * directory of launches); the rest is cut at MBX_FUZZ_SEP into a name (used
 * in the input file name and the report directory's name), A.csv,
 * A.obs.csv, A.env.csv, and B's two files (results and observations, or
 * launch-01.csv and launch-02.csv). */
#define _GNU_SOURCE /* nftw's FTW_PHYS and FTW_DEPTH */
#include <dirent.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "report.h"
#include "tprint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPARTS 6

static char root[4200], stub[4300];

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        (void)rmdir(path);
    else
        (void)unlink(path);
    return 0;
}

static void rm_tree(const char *path)
{
    (void)nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Everything the run before left in root, but the stub. */
static void clean_root(void)
{
    DIR *d = opendir(root);
    MBX_FUZZ_CHECK(d != NULL);
    char path[4600];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "gnuplot-stub") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        rm_tree(path);
    }
    closedir(d);
}

/* Write len bytes to path (mode 0600), aborting when it cannot. */
static void put_file(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    MBX_FUZZ_CHECK(f != NULL);
    MBX_FUZZ_CHECK(len == 0 || fwrite(p, 1, len, f) == len);
    MBX_FUZZ_CHECK(fclose(f) == 0);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 + 1 > cap) {
            cap = 2 * cap + 8192;
            buf = realloc(buf, cap);
            MBX_FUZZ_CHECK(buf != NULL);
        }
        size_t n = fread(buf + *len, 1, 4096, f);
        *len += n;
        if (n < 4096)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* ---- where files went ---- */

static const char *out_dir; /* the report directory of this run */
static const char *in_dir;

static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int check_place(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    if (strcmp(path, root) == 0 || strcmp(path, stub) == 0 || under(path, in_dir) ||
        under(path, out_dir))
        return 0;
    fprintf(stderr, "fuzz_report: a file outside the report directory: %s\n", path);
    abort();
}

/* ---- plots.gp ---- */

static int is_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '-';
}

/* p points at a quote: a literal 'PREFIX[A-Za-z0-9._+-]+' follows. */
static int plain_literal(const char *p, const char *prefix)
{
    size_t n = strlen(prefix);
    if (*p++ != '\'' || strncmp(p, prefix, n) != 0)
        return 0;
    p += n;
    if (!is_name_char((unsigned char)*p))
        return 0;
    while (is_name_char((unsigned char)*p))
        p++;
    return *p == '\'';
}

static void check_word(const char *w, size_t n, const char *line)
{
    static const char *const banned[] = {"system", "shell", "load", "call",   "eval",
                                         "pipe",   "cd",    "save", "print",  "exit",
                                         "import", "table", "fit",  "update", NULL};
    if (n == 6 && strncmp(w, "output", 6) == 0) /* only as checked in check_gp_line */
        MBX_FUZZ_CHECK(strncmp(line, "set output ", 11) == 0 || strcmp(line, "unset output") == 0);
    for (size_t k = 0; banned[k] != NULL; k++) {
        if (strlen(banned[k]) == n && strncmp(w, banned[k], n) == 0) {
            fprintf(stderr, "fuzz_report: plots.gp runs '%s': %s\n", banned[k], line);
            abort();
        }
    }
}

static void check_gp_line(const char *line)
{
    /* Data files only from data/ (a name starting with '<' would be a
     * shell command), outputs only by a plain name. */
    const char *lead = line;
    if (strncmp(lead, "plot ", 5) == 0)
        lead += 5;
    else if (strncmp(lead, "     ", 5) == 0)
        lead += 5;
    else
        lead = NULL;
    if (lead != NULL && *lead == '\'')
        MBX_FUZZ_CHECK(plain_literal(lead, "data/"));
    if (strncmp(line, "set output ", 11) == 0)
        MBX_FUZZ_CHECK(plain_literal(line + 11, ""));
    int state = 0; /* 0 code, 1 in '...', 2 in "..." */
    const char *word = NULL;
    for (const char *p = line;; p++) {
        unsigned char c = (unsigned char)*p;
        int in_word = state == 0 && c != '\0' && ((c >= 'a' && c <= 'z') || c == '_');
        if (word != NULL && !in_word) {
            check_word(word, (size_t)(p - word), line);
            word = NULL;
        } else if (word == NULL && in_word) {
            word = p;
        }
        if (c == '\0')
            break;
        MBX_FUZZ_CHECK(c >= 0x20 && c != 0x7f);
        if (state == 1) {
            if (c == '\'' && p[1] == '\'')
                p++;
            else if (c == '\'')
                state = 0;
        } else if (state == 2) {
            MBX_FUZZ_CHECK(c != '`');
            if (c == '\\' && p[1] != '\0')
                p++;
            else if (c == '"')
                state = 0;
        } else if (c == '#') {
            break; /* a comment to the end of the line */
        } else {
            MBX_FUZZ_CHECK(c != '`' && c != '!' && c != '$');
            if (c == '@')
                MBX_FUZZ_CHECK(strncmp(p, "@png_term", 9) == 0 || strncmp(p, "@svg_term", 9) == 0);
            if (c == '\'')
                state = 1;
            else if (c == '"')
                state = 2;
        }
    }
    MBX_FUZZ_CHECK(state == 0); /* no string runs on into the next line */
}

static void check_gp(const char *path)
{
    size_t len;
    char *gp = slurp(path, &len);
    if (gp == NULL)
        return; /* the report stopped before writing it */
    MBX_FUZZ_CHECK(strlen(gp) == len);
    for (char *line = gp, *nl; *line != '\0'; line = nl + 1) {
        nl = strchr(line, '\n');
        MBX_FUZZ_CHECK(nl != NULL); /* every line ends */
        *nl = '\0';
        check_gp_line(line);
    }
    free(gp);
}

/* ---- the pages and the terminal ---- */

/* No control byte but newline (and tab where allowed), no C1 as UTF-8. */
static void check_text(const char *s, size_t len, int tab_ok)
{
    MBX_FUZZ_CHECK(strlen(s) == len);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        MBX_FUZZ_CHECK(*p >= 0x20 || *p == '\n' || (tab_ok && *p == '\t'));
        MBX_FUZZ_CHECK(*p != 0x7f && *p < 0xf8);
        MBX_FUZZ_CHECK(!(*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f));
    }
}

static void check_html(const char *path)
{
    static const char *const tags[] = {
        "html",   "head",       "meta", "title", "style",   "body",    "h1",
        "h2",     "h3",         "p",    "table", "tr",      "th",      "td",
        "figure", "figcaption", "a",    "img",   "details", "summary", NULL};
    size_t len;
    char *h = slurp(path, &len);
    if (h == NULL)
        return;
    check_text(h, len, 1);
    for (const char *p = h; (p = strchr(p, '<')) != NULL; p++) {
        const char *t = p + 1 + (p[1] == '/');
        if (*t == '!') /* <!DOCTYPE html> */
            continue;
        size_t n = strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789");
        int known = 0;
        for (size_t k = 0; tags[k] != NULL && !known; k++)
            known = strlen(tags[k]) == n && strncmp(t, tags[k], n) == 0;
        if (!known) {
            fprintf(stderr, "fuzz_report: index.html has <%.20s\n", t);
            abort();
        }
    }
    free(h);
}

/* Markdown: every row of a table has as many unescaped pipes as the first. */
static void check_md(const char *path)
{
    size_t len;
    char *md = slurp(path, &len);
    if (md == NULL)
        return;
    check_text(md, len, 0);
    long want = -1;
    for (char *line = md, *nl; *line != '\0'; line = nl + 1) {
        nl = strchr(line, '\n');
        MBX_FUZZ_CHECK(nl != NULL);
        *nl = '\0';
        if (line[0] != '|') {
            want = -1;
            continue;
        }
        long pipes = 0;
        for (char *p = line; *p; p++) {
            if (*p == '\\' && p[1] != '\0')
                p++;
            else if (*p == '|')
                pipes++;
        }
        if (want < 0)
            want = pipes;
        MBX_FUZZ_CHECK(pipes == want);
    }
    free(md);
}

static void check_terminal(const char *msg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    MBX_FUZZ_CHECK(f != NULL);
    MBX_FUZZ_CHECK(mbx_tprintf(f, "mpibex report: %s\n", msg) >= 0);
    MBX_FUZZ_CHECK(fclose(f) == 0);
    MBX_FUZZ_CHECK(len > 0 && buf[len - 1] == '\n');
    buf[len - 1] = '\0';
    check_text(buf, len - 1, 0);
    MBX_FUZZ_CHECK(strchr(buf, '\n') == NULL);
    free(buf);
}

/* ---- the run ---- */

static void setup(void)
{
    if (root[0] != '\0')
        return;
    snprintf(root, sizeof root, "%s", mbx_fuzz_dir());
    snprintf(stub, sizeof stub, "%s/gnuplot-stub", root);
    static const char script[] =
        "#!/bin/sh\n"
        "# gnuplot's stand-in: each plot that plots.gp names exists, nothing else.\n"
        "sed -n \"s/^set output '\\([A-Za-z0-9._+-]*\\)'\\$/\\1/p\" plots.gp |\n"
        "  while IFS= read -r f; do echo x >\"$f\"; done\n";
    put_file(stub, script, sizeof script - 1);
    MBX_FUZZ_CHECK(chmod(stub, 0700) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    setup();
    unsigned mode = data[0];
    const uint8_t *part[NPARTS] = {0};
    size_t plen[NPARTS] = {0};
    (void)mbx_fuzz_split(data + 1, size - 1, part, plen, NPARTS);
    for (int i = 0; i < NPARTS; i++)
        if (part[i] == NULL)
            part[i] = (const uint8_t *)"";

    /* A name of any bytes but '/' and NUL, at most 60 of them. */
    char name[64];
    size_t nl = plen[0] < 60 ? plen[0] : 60;
    for (size_t i = 0; i < nl; i++)
        name[i] = part[0][i] == '/' || part[0][i] == '\0' ? '_' : (char)part[0][i];
    name[nl] = '\0';

    char in[4400], out[4400], a[4500], b[4500], path[4600];
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(out, sizeof out, "%s/out%s", root, name);
    clean_root();
    MBX_FUZZ_CHECK(mkdir(in, 0700) == 0);
    snprintf(a, sizeof a, "%s/a%s.csv", in, name);
    put_file(a, part[1], plen[1]);
    snprintf(path, sizeof path, "%s/a%s.obs.csv", in, name);
    put_file(path, part[2], plen[2]);
    snprintf(path, sizeof path, "%s/a%s.env.csv", in, name);
    put_file(path, part[3], plen[3]);
    if (mode & 2) {
        snprintf(b, sizeof b, "%s/b%s", in, name);
        MBX_FUZZ_CHECK(mkdir(b, 0700) == 0);
        snprintf(path, sizeof path, "%s/launch-01.csv", b);
        put_file(path, part[4], plen[4]);
        snprintf(path, sizeof path, "%s/launch-02.csv", b);
        put_file(path, part[5], plen[5]);
    } else {
        snprintf(b, sizeof b, "%s/b.csv", in);
        put_file(b, part[4], plen[4]);
        snprintf(path, sizeof path, "%s/b.obs.csv", in);
        put_file(path, part[5], plen[5]);
    }

    const char *inputs[2] = {a, b};
    const char *gp = getenv("MBX_FUZZ_GNUPLOT");
    mbx_report_opts o = {.title = name, .gnuplot = gp && *gp ? gp : stub};
    char msg[1024] = "";
    in_dir = in;
    out_dir = out;
    int rc = mbx_report_write(inputs, (mode & 1) ? 2 : 1, out, &o, msg, sizeof msg);
    if (getenv("MBX_FUZZ_VERBOSE") != NULL) /* what a seed reaches */
        fprintf(stderr, "fuzz_report: exit %d: %s\n", rc, msg);
    MBX_FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2);
    /* With the real gnuplot, no text may break the script it reads. */
    MBX_FUZZ_CHECK(gp == NULL || *gp == '\0' || strncmp(msg, "gnuplot plots.gp", 16) != 0);
    MBX_FUZZ_CHECK(rc == 0 || msg[0] != '\0');

    MBX_FUZZ_CHECK(nftw(root, check_place, 16, FTW_PHYS) == 0);
    snprintf(path, sizeof path, "%s/plots.gp", out);
    check_gp(path);
    snprintf(path, sizeof path, "%s/index.html", out);
    check_html(path);
    snprintf(path, sizeof path, "%s/index.md", out);
    check_md(path);
    check_terminal(msg);
    return 0;
}
