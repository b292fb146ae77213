/* How the run view tells its curves apart, without colour as well as with:
 * each curve's marker glyph and line style, and benchmark names short
 * enough for the side column yet unique across patterns
 * (threads.barrier and omp.barrier are not both "barrier"). Pure: no
 * drawing, so tests/tui/test_exstyle.c checks it. */
#include <stdio.h>
#include <string.h>

#include "explorer.h"
#include "mbx/bench.h"

/* ASCII markers (every glyph set and terminal has them), all distinct. */
static const char markers[] = "o+x*#@%&";

/* Dot patterns, bit k set: dot k of every 16 is drawn. Each repeats every
 * 8 dots, so a legend sample of 4 braille cells shows its rhythm: solid,
 * dashed, dotted, dash-dot, sparse, long dash, 2 on 2 off, short dash. */
static const unsigned patterns[] = {0xFFFFu, 0x0F0Fu, 0x5555u, 0x3737u,
                                    0x1111u, 0x7F7Fu, 0x3333u, 0x0303u};

void mbx_ex_series_style(int s, int mono, mbx_ex_style *out)
{
    int k = (s < 0 ? 0 : s) % MBX_NSERIES;
    out->marker = markers[k];
    /* With colour the hue tells curves apart and solid lines read best. */
    out->pattern = mono ? patterns[k] : 0xFFFFu;
}

static int is_vowel(char c)
{
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

/* Drop the character at i of s. */
static void drop_at(char *s, size_t i)
{
    memmove(s + i, s + i + 1, strlen(s + i + 1) + 1);
}

void mbx_ex_fit_name(const char *name, int w, char *out, size_t len)
{
    char s[64];
    snprintf(s, sizeof s, "%s", name);
    if (w < 1)
        w = 1;
    /* 1: a pattern's name shrinks to its first letter: "t.barrier". */
    const char *dot = strchr(s, '.');
    if ((int)strlen(s) > w && dot && dot > s + 1)
        memmove(s + 1, dot, strlen(dot) + 1);
    /* 2: underscores go: "sendrecv". */
    for (size_t i = 0; (int)strlen(s) > w && s[i];)
        if (s[i] == '_' && i > 0)
            drop_at(s, i);
        else
            i++;
    /* 3: vowels go from the right, but never a word's first letter or the
     * last letter: "allrdce", "sendrcv". */
    for (size_t i = strlen(s); (int)strlen(s) > w && i-- > 1;)
        if (is_vowel(s[i]) && s[i + 1] && s[i - 1] != '.' && s[i - 1] != '_')
            drop_at(s, i);
    /* 4: what still does not fit is cut. */
    if ((int)strlen(s) > w)
        s[w] = '\0';
    snprintf(out, len, "%s", s);
}

void mbx_ex_short_names(const int *ids, int n, char (*out)[32])
{
    for (int i = 0; i < n; i++) {
        const char *a = mbx_bench_get(ids[i])->name, *da = strchr(a, '.');
        int clash = 0;
        for (int j = 0; j < n && !clash; j++) {
            const char *b = mbx_bench_get(ids[j])->name, *db = strchr(b, '.');
            clash = ids[j] != ids[i] && strcmp(da ? da + 1 : a, db ? db + 1 : b) == 0;
        }
        /* The part after the pattern, unless another pattern of the run
         * has one of that name: then the whole name. */
        snprintf(out[i], 32, "%s", clash || !da ? a : da + 1);
    }
}

void mbx_ex_fit_unique(char (*names)[32], int n, int w)
{
    for (int i = 0; i < n; i++) {
        char f[32];
        mbx_ex_fit_name(names[i], w, f, sizeof f);
        snprintf(names[i], 32, "%s", f);
    }
    /* Names that fitting made equal end in a digit: 2, 3, ... */
    for (int i = 0; i < n; i++) {
        int k = 1;
        for (int j = i + 1; j < n; j++) {
            if (strcmp(names[i], names[j]) != 0)
                continue;
            size_t l = strlen(names[j]);
            if ((int)l >= w && l > 0)
                l--;
            names[j][l] = (char)('0' + (++k % 10));
            names[j][l + 1] = '\0';
        }
    }
}
