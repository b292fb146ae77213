/* Unit tests for the CSV writer and reader (libcsv underneath). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/csvio.h"
#include "mbx/file.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

#define NCOLS 4

static const char *const header[NCOLS] = {"name", "value", "note", "bytes"};

/* Each row exercises something the quoting must survive. */
static const char *const rows[][NCOLS] = {
    {"plain", "1.5", "x", "64"},
    {"a,b", "say \"hi\"", "line1\nline2", "4096"},
    {"", NULL, "crlf\r\nend", ""},
    {" lead", "trail ", "\ttab", "\t"},
    {"h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x9a\x80", "x"},
    {"\"", ",", "\"\"", "\"quoted\""},
    {"#hash", ";semi", "=1+1", "trailing empties"},
    {"x", "", NULL, NULL},
    {NULL, NULL, NULL, NULL},
    {"\n", "\r", ",\n\"", " "},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/test_csvio_%ld_%s", MBX_TMP_DIR, (long)getpid(), name);
}

static void assert_cell(const mbx_csv_table *t, size_t r, size_t c, const char *want)
{
    assert_true(r < t->nrows);
    assert_true(c < t->ncols[r]);
    assert_string_equal(t->cell[r][c], want ? want : "");
}

static void test_roundtrip(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "roundtrip.csv");
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
    assert_non_null(w);
    for (size_t r = 0; r < NROWS; r++) {
        assert_int_equal(mbx_csv_writer_row(w, rows[r]), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);

    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, NROWS + 1);
    for (size_t c = 0; c < NCOLS; c++) {
        assert_cell(&t, 0, c, header[c]);
    }
    for (size_t r = 0; r < NROWS; r++) {
        assert_int_equal(t.ncols[r + 1], NCOLS);
        for (size_t c = 0; c < NCOLS; c++) {
            assert_cell(&t, r + 1, c, rows[r][c]);
        }
    }
    assert_int_equal(mbx_csv_table_col(&t, "note"), 2);
    mbx_csv_table_free(&t);
    assert_int_equal(t.nrows, 0);
    mbx_csv_table_free(&t); /* freeing twice is harmless */
    unlink(path);
}

static void test_rows_flushed(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "flush.csv");
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
    const char *const row[NCOLS] = {"a", "b", "c", "d"};
    assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
    /* Read while the writer is still open: every row must be on disk. */
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, 2);
    assert_cell(&t, 1, 3, "d");
    mbx_csv_table_free(&t);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    unlink(path);
}

static void test_single_column(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "single.csv");
    const char *const cols[] = {"only"};
    const char *const empty[] = {""}, *const null[] = {NULL}, *const a[] = {"a"};
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, cols, 1, &w), MBX_OK);
    assert_int_equal(mbx_csv_writer_row(w, empty), MBX_OK);
    assert_int_equal(mbx_csv_writer_row(w, null), MBX_OK);
    assert_int_equal(mbx_csv_writer_row(w, a), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    /* A lone empty field must not become a blank line, which reads as no row. */
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, 4);
    assert_cell(&t, 1, 0, "");
    assert_cell(&t, 2, 0, "");
    assert_cell(&t, 3, 0, "a");
    mbx_csv_table_free(&t);
    unlink(path);
}

static void test_fputrow_text(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    const char *const fields[] = {"a", "b,c", "d\"e", NULL, "x\ny", " s", "", "1.5e-06"};
    assert_int_equal(mbx_csv_fputrow(f, fields, 8), MBX_OK);
    const char *const lone[] = {NULL};
    assert_int_equal(mbx_csv_fputrow(f, lone, 1), MBX_OK);
    rewind(f);
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    assert_string_equal(buf, "a,\"b,c\",\"d\"\"e\",,\"x\ny\",\" s\",,1.5e-06\n\"\"\n");
    assert_int_equal(mbx_csv_fputrow(f, fields, 0), MBX_E_INVAL);
    assert_int_equal(mbx_csv_fputrow(NULL, fields, 1), MBX_E_INVAL);
    assert_int_equal(mbx_csv_fputrow(f, NULL, 1), MBX_E_INVAL);
    fclose(f);
}

static void test_read_buffer(void **state)
{
    (void)state;
    const char *text = "a,b\r\n\r\n1,\"2\r\n2\"\n\n3"; /* blank lines, CRLF, no final EOL */
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, strlen(text), &t), MBX_OK);
    assert_int_equal(t.nrows, 3);
    assert_int_equal(t.ncols[0], 2);
    assert_int_equal(t.ncols[1], 2);
    assert_int_equal(t.ncols[2], 1); /* ragged rows are kept as they are */
    assert_cell(&t, 0, 1, "b");
    assert_cell(&t, 1, 1, "2\r\n2");
    assert_cell(&t, 2, 0, "3");
    mbx_csv_table_free(&t);

    assert_int_equal(mbx_csv_read_buffer("", 0, &t), MBX_OK);
    assert_int_equal(t.nrows, 0);
    assert_int_equal(mbx_csv_table_col(&t, "a"), -1);
    mbx_csv_table_free(&t);
    assert_int_equal(mbx_csv_read_buffer(NULL, 0, &t), MBX_OK);
    mbx_csv_table_free(&t);
    assert_int_equal(mbx_csv_read_buffer(NULL, 3, &t), MBX_E_INVAL);
    assert_int_equal(mbx_csv_read_buffer("a", 1, NULL), MBX_E_INVAL);

    /* Only len bytes count, not a later NUL. */
    assert_int_equal(mbx_csv_read_buffer("x,y,z", 3, &t), MBX_OK);
    assert_int_equal(t.ncols[0], 2);
    assert_cell(&t, 0, 1, "y");
    mbx_csv_table_free(&t);
}

static void read_bad(const char *text)
{
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, strlen(text), &t), MBX_E_PROTO);
    assert_int_equal(t.nrows, 0);
    assert_null(t.cell);
    assert_null(t.ncols);
    mbx_csv_table_free(&t);
}

static void test_malformed(void **state)
{
    (void)state;
    read_bad("a,\"unterminated\n");
    read_bad("h1,h2\nok,row\na,\"never closed");
    read_bad("a,b\"c\n");
    read_bad("\"a\"x,b\n");

    char path[512];
    tmp_path(path, sizeof path, "bad.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("h1,h2\n1,\"2\n", f);
    assert_int_equal(fclose(f), 0);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_E_PROTO);
    assert_int_equal(t.nrows, 0);
    mbx_csv_table_free(&t);
    unlink(path);
}

static void test_io_errors(void **state)
{
    (void)state;
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file("/nonexistent/mbx/x.csv", &t), MBX_E_IO);
    assert_int_equal(t.nrows, 0);
    mbx_csv_table_free(&t);
    assert_int_equal(mbx_csv_read_file(MBX_TMP_DIR, &t), MBX_E_IO);
    assert_int_equal(mbx_csv_read_file(NULL, &t), MBX_E_INVAL);

    mbx_csv_writer *w = (mbx_csv_writer *)&t; /* must be reset to NULL */
    assert_int_equal(mbx_csv_writer_open("/nonexistent/mbx/x.csv", header, NCOLS, &w), MBX_E_IO);
    assert_null(w);
    const char *const bad_cols[] = {"a", NULL};
    char path[512];
    tmp_path(path, sizeof path, "never.csv");
    assert_int_equal(mbx_csv_writer_open(path, bad_cols, 2, &w), MBX_E_INVAL);
    assert_int_equal(mbx_csv_writer_open(path, header, 0, &w), MBX_E_INVAL);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(mbx_csv_writer_close(NULL), MBX_OK);
    assert_int_equal(mbx_csv_writer_row(NULL, header), MBX_E_INVAL);

    /* A full disk is reported at open (the header is flushed at once). */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(mbx_csv_writer_open("/dev/full", header, NCOLS, &w), MBX_E_IO);
        assert_null(w);
    }
}

static void test_table_col(void **state)
{
    (void)state;
    const char *text = "time,bytes,bench\n1,2,3\n";
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, strlen(text), &t), MBX_OK);
    assert_int_equal(mbx_csv_table_col(&t, "time"), 0);
    assert_int_equal(mbx_csv_table_col(&t, "bytes"), 1);
    assert_int_equal(mbx_csv_table_col(&t, "bench"), 2);
    assert_int_equal(mbx_csv_table_col(&t, "Bytes"), -1);
    assert_int_equal(mbx_csv_table_col(&t, "1"), -1); /* only the header row counts */
    assert_int_equal(mbx_csv_table_col(&t, NULL), -1);
    assert_int_equal(mbx_csv_table_col(NULL, "time"), -1);
    mbx_csv_table_free(&t);
}

static void test_large_file(void **state)
{
    (void)state;
    /* Many rows with multi-line fields, so reads split quoted fields. */
    enum { N = 5000 };
    char path[512];
    tmp_path(path, sizeof path, "large.csv");
    const char *const cols[] = {"i", "text"};
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, cols, 2, &w), MBX_OK);
    for (int i = 0; i < N; i++) {
        char num[16], text[64];
        snprintf(num, sizeof num, "%d", i);
        snprintf(text, sizeof text, "row %d, \"quoted\"\nsecond line", i);
        const char *const row[] = {num, text};
        assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, N + 1);
    for (int i = 0; i < N; i++) {
        char num[16], text[64];
        snprintf(num, sizeof num, "%d", i);
        snprintf(text, sizeof text, "row %d, \"quoted\"\nsecond line", i);
        assert_int_equal(t.ncols[i + 1], 2);
        assert_cell(&t, (size_t)i + 1, 0, num);
        assert_cell(&t, (size_t)i + 1, 1, text);
    }
    mbx_csv_table_free(&t);
    unlink(path);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* A symbolic link at the path is never followed: not to write, append or
 * cut a file, and a dangling one does not create its target. */
static void test_symlink_refused(void **state)
{
    (void)state;
    char path[512], victim[512], buf[64];
    tmp_path(path, sizeof path, "link.csv");
    tmp_path(victim, sizeof victim, "victim");
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("victim, no newline", f);
    fclose(f);
    unlink(path);
    assert_int_equal(symlink(victim, path), 0);
    mbx_csv_writer *w = NULL;
    errno = 0;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_E_IO);
    assert_int_equal(errno, ELOOP);
    assert_null(w);
    assert_int_equal(mbx_csv_writer_append(path, header, NCOLS, &w), MBX_E_IO);
    assert_int_equal(errno, ELOOP);
    size_t cut = 7;
    assert_int_equal(mbx_csv_trim_torn(path, &cut), MBX_E_IO);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(cut, 0);
    slurp(victim, buf, sizeof buf);
    assert_string_equal(buf, "victim, no newline");
    unlink(victim); /* now dangling */
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_E_IO);
    assert_int_equal(access(victim, F_OK), -1);
    unlink(path);
}

/* A FIFO at the path (another user's, made in a shared directory) is
 * neither written into nor waited on: refused at once, ENXIO, for a new
 * file, an appended one and a cut; it stays a FIFO. */
static void test_fifo_refused(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "fifo.csv");
    unlink(path);
    assert_int_equal(mkfifo(path, 0666), 0);
    mbx_csv_writer *w = NULL;
    errno = 0;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_E_IO);
    assert_int_equal(errno, ENXIO);
    assert_int_equal(mbx_csv_writer_append(path, header, NCOLS, &w), MBX_E_IO);
    assert_int_equal(errno, ENXIO);
    assert_int_equal(mbx_csv_trim_torn(path, NULL), MBX_E_IO);
    assert_int_equal(errno, ENXIO);
    assert_null(w);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(path);
}

/* A new file is never the file that was at the name: one made beforehand
 * (here a hard link to another, as a planted file would be) keeps its
 * bytes, and the temporary names are new, hidden and beside the target. */
static void test_new_file_not_old(void **state)
{
    (void)state;
    char path[512], other[512], buf[64];
    tmp_path(path, sizeof path, "planted.csv");
    tmp_path(other, sizeof other, "planted-other");
    unlink(path);
    unlink(other);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("theirs\n", f);
    fclose(f);
    assert_int_equal(link(other, path), 0);
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    slurp(other, buf, sizeof buf);
    assert_string_equal(buf, "theirs\n");
    struct stat a, b;
    assert_int_equal(lstat(path, &a), 0);
    assert_int_equal(lstat(other, &b), 0);
    assert_true(a.st_ino != b.st_ino && a.st_nlink == 1 && a.st_uid == geteuid());
    char *t1 = NULL, *t2 = NULL;
    int f1, f2;
    assert_int_equal(mbx_file_temp(path, 0666, &f1, &t1), MBX_OK);
    assert_int_equal(mbx_file_temp(path, 0666, &f2, &t2), MBX_OK);
    assert_string_not_equal(t1, t2);
    const char *slash = strrchr(path, '/');
    size_t dir = (size_t)(slash - path) + 1;
    assert_memory_equal(t1, path, dir);
    char want[600];
    snprintf(want, sizeof want, ".%s.tmp-", slash + 1);
    assert_int_equal(strncmp(t1 + dir, want, strlen(want)), 0);
    close(f1);
    close(f2);
    unlink(t1);
    unlink(t2);
    free(t1);
    free(t2);
    unlink(path);
    unlink(other);
}

/* New files get 0666 less the umask, like any tool's output. */
static void test_umask(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "umask.csv");
    static const mode_t masks[] = {077, 022, 027};
    for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
        unlink(path);
        mode_t old = umask(masks[i]);
        mbx_csv_writer *w = NULL;
        assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
        umask(old);
        assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0666 & ~masks[i]);
    }
    unlink(path);
}

/* A write that does not fit (here the file-size limit, as a full disk
 * would) leaves the file at its last complete row; the writer goes on
 * from there once there is room. */
static void test_full_cut_back(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "full.csv");
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
    lim = old;
    lim.rlim_cur = 1000; /* rows of 27 bytes: the 37th crosses it */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    const char *const row[NCOLS] = {"row", "1.2345", "some text", "65536"};
    int rc = MBX_OK, rows = 0;
    off_t before = 0;
    while (rc == MBX_OK && rows < 1000) {
        before = file_size(path);
        if ((rc = mbx_csv_writer_row(w, row)) == MBX_OK)
            rows++;
    }
    int err = errno;
    assert_int_equal(rc, MBX_E_IO);
    assert_int_equal(err, EFBIG);
    assert_true(rows > 10);
    assert_int_equal(file_size(path), before); /* no half row */
    assert_int_equal(mbx_csv_writer_mark(w), (long long)before);
    /* A held record of many rows: all or nothing. */
    assert_int_equal(mbx_csv_writer_hold(w), MBX_OK);
    for (int i = 0; i < 10; i++)
        assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
    assert_int_equal(file_size(path), before);
    assert_int_equal(mbx_csv_writer_commit(w), MBX_E_IO);
    assert_int_equal(file_size(path), before);
    /* Room again: rows continue right after the last complete one. */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_sig);
    assert_int_equal(mbx_csv_writer_hold(w), MBX_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
    assert_int_equal(mbx_csv_writer_commit(w), MBX_OK);
    long long mark = mbx_csv_writer_mark(w);
    assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
    assert_int_equal(mbx_csv_writer_rewind(w, mark), MBX_OK); /* taken back */
    assert_int_equal(file_size(path), (off_t)mark);
    assert_int_equal(mbx_csv_writer_close(w), MBX_E_IO); /* the failure is reported again */
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, (size_t)rows + 3 + 1);
    for (size_t r = 1; r < t.nrows; r++)
        assert_int_equal(t.ncols[r], NCOLS);
    mbx_csv_table_free(&t);
    unlink(path);
}

/* A file removed or renamed under the writer is noticed at the next row,
 * and what it holds can still be saved elsewhere. */
static void test_gone_and_copy(void **state)
{
    (void)state;
    char path[512], moved[512], copy[512];
    tmp_path(path, sizeof path, "gone.csv");
    tmp_path(moved, sizeof moved, "moved.csv");
    tmp_path(copy, sizeof copy, "copy.csv");
    unlink(copy);
    const char *const row[NCOLS] = {"a", "b", "c", "d"};
    for (int how = 0; how < 2; how++) {
        mbx_csv_writer *w = NULL;
        assert_int_equal(mbx_csv_writer_open(path, header, NCOLS, &w), MBX_OK);
        assert_int_equal(mbx_csv_writer_row(w, row), MBX_OK);
        if (how == 0)
            assert_int_equal(unlink(path), 0);
        else
            assert_int_equal(rename(path, moved), 0);
        errno = 0;
        assert_int_equal(mbx_csv_writer_row(w, row), MBX_E_GONE);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(mbx_csv_writer_copy(w, copy), MBX_OK);
        assert_int_equal(mbx_csv_writer_copy(w, copy), MBX_E_IO); /* never over a file */
        assert_int_equal(errno, EEXIST);
        assert_int_equal(mbx_csv_writer_close(w), MBX_E_IO);
        mbx_csv_table t;
        assert_int_equal(mbx_csv_read_file(copy, &t), MBX_OK);
        assert_int_equal(t.nrows, 3);
        mbx_csv_table_free(&t);
        unlink(copy);
        unlink(moved);
    }
}

/* Formula cells: OWASP's leading characters get a quote, numbers and
 * ordinary text do not; a NUL byte and an endless row are refused with
 * the line. */
static void test_formula_and_hostile_rows(void **state)
{
    (void)state;
    static const char *const formula[] = {"=1+1", "+1+1", "-1+1", "@SUM(1)",
                                          "\tx",  "\rx",  "-",    "+"};
    for (size_t i = 0; i < sizeof formula / sizeof *formula; i++) {
        assert_int_equal(mbx_csv_is_formula(formula[i]), 1);
        char *d = mbx_csv_text_dup(formula[i]);
        assert_non_null(d);
        assert_int_equal(d[0], '\'');
        assert_string_equal(d + 1, formula[i]);
        free(d);
    }
    static const char *const plain[] = {"", "abc", "-1.5", "+3e2", "-1", "1-1", "a=b", "-.5"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        assert_int_equal(mbx_csv_is_formula(plain[i]), 0);
        char *d = mbx_csv_text_dup(plain[i]);
        assert_non_null(d);
        assert_string_equal(d, plain[i]);
        free(d);
    }
    mbx_csv_table t;
    static const char nul[] = "a,b\nx,y\0z\n";
    assert_int_equal(mbx_csv_read_buffer(nul, sizeof nul - 1, &t), MBX_E_PROTO);
    size_t n = MBX_CSV_ROW_MAX + 2;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    assert_int_equal(mbx_csv_read_buffer(big, n, &t), MBX_E_PROTO);
    big[n / 2] = '\n'; /* two rows of half the limit each are fine */
    assert_int_equal(mbx_csv_read_buffer(big, n, &t), MBX_OK);
    mbx_csv_table_free(&t);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_rows_flushed),
        cmocka_unit_test(test_single_column),
        cmocka_unit_test(test_fputrow_text),
        cmocka_unit_test(test_read_buffer),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_io_errors),
        cmocka_unit_test(test_table_col),
        cmocka_unit_test(test_large_file),
        cmocka_unit_test(test_symlink_refused),
        cmocka_unit_test(test_umask),
        cmocka_unit_test(test_full_cut_back),
        cmocka_unit_test(test_gone_and_copy),
        cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_new_file_not_old),
        cmocka_unit_test(test_formula_and_hostile_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
