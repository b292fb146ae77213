#include "ex_keysrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "tprint.h"

struct mbx_ex_keysrc {
    int script;
    char **tok;
    size_t ntok, next;
    int pending_ticks;
    int waiting;      /* a wait token: polls with no key while a run goes on */
    const char *text; /* rest of a text: token */
    char dir[512];
    int rows, cols;
    int dumps, failed;
};

mbx_ex_keysrc *mbx_ex_keysrc_terminal(void)
{
    return calloc(1, sizeof(mbx_ex_keysrc));
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int c;
    while (buf && (c = fgetc(f)) != EOF) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
        }
        buf[n++] = (char)c;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

mbx_ex_keysrc *mbx_ex_keysrc_script(const char *path, const char *dir, int rows, int cols,
                                    char *msg, size_t msglen)
{
    char *text = slurp(path);
    if (!text) {
        snprintf(msg, msglen, "--keys: cannot read '%s'", path);
        return NULL;
    }
    mbx_ex_keysrc *k = calloc(1, sizeof *k);
    if (!k) {
        free(text);
        return NULL;
    }
    k->script = 1;
    k->rows = rows;
    k->cols = cols;
    snprintf(k->dir, sizeof k->dir, "%s", dir ? dir : ".");
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *hash = strchr(line, '#');
        /* "#" alone is a key when written as the token "#"? No: comments win;
         * the hash key is not needed by any test. */
        if (hash)
            *hash = '\0';
        for (char *p = line; *p;) {
            while (*p && mbx_ascii_isspace((unsigned char)*p))
                p++;
            char *s = p;
            while (*p && !mbx_ascii_isspace((unsigned char)*p))
                p++;
            if (p == s)
                break;
            char **t = realloc(k->tok, (k->ntok + 1) * sizeof *t);
            if (!t)
                break;
            k->tok = t;
            k->tok[k->ntok++] = strndup(s, (size_t)(p - s));
        }
    }
    free(text);
    return k;
}

void mbx_ex_keysrc_free(mbx_ex_keysrc *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->ntok; i++)
        free(k->tok[i]);
    free(k->tok);
    free(k);
}

static int named_key(const char *t)
{
    static const struct {
        const char *name;
        int key;
    } names[] = {{"enter", '\n'},     {"esc", 27},           {"tab", '\t'},
                 {"space", ' '},      {"bs", KEY_BACKSPACE}, {"up", KEY_UP},
                 {"down", KEY_DOWN},  {"left", KEY_LEFT},    {"right", KEY_RIGHT},
                 {"pgup", KEY_PPAGE}, {"pgdn", KEY_NPAGE},   {"home", KEY_HOME},
                 {"end", KEY_END},    {"f1", KEY_F(1)},      {"f5", KEY_F(5)}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(t, names[i].name) == 0)
            return names[i].key;
    if (t[0] && !t[1] && mbx_ascii_isprint((unsigned char)t[0]))
        return (unsigned char)t[0];
    return ERR;
}

static int script_next(mbx_ex_keysrc *k, explorer *x)
{
    for (;;) {
        if (k->text && *k->text)
            return (unsigned char)*k->text++;
        k->text = NULL;
        if (k->pending_ticks > 0) {
            k->pending_ticks--;
            return ERR;
        }
        if (k->waiting) {
            if (x->running || x->bf.running)
                return ERR;
            k->waiting = 0;
        }
        if (k->next >= k->ntok)
            return EX_KEY_EOF;
        const char *t = k->tok[k->next++];
        if (strncmp(t, "text:", 5) == 0) {
            k->text = t + 5;
        } else if (strncmp(t, "tick:", 5) == 0) {
            k->pending_ticks = atoi(t + 5);
        } else if (strcmp(t, "wait") == 0) {
            k->waiting = 1;
        } else if (strncmp(t, "dump:", 5) == 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.txt", k->dir, t + 5);
            mbx_ex_draw(x);
            k->dumps++;
            if (mbx_ex_dump(x, path) < 0) {
                mbx_tprintf(stderr, "mpibex: headless: cannot write %s\n", path);
                k->failed++;
            }
        } else if (strncmp(t, "resize:", 7) == 0) {
            int c = 0, r = 0;
            if (sscanf(t + 7, "%dx%d", &c, &r) == 2 && c > 0 && r > 0)
                k->cols = c, k->rows = r;
            return ERR; /* let the loop notice the size */
        } else {
            int key = named_key(t);
            if (key != ERR)
                return key;
            mbx_tprintf(stderr, "mpibex: headless: unknown key token '%s'\n", t);
            k->failed++;
        }
    }
}

int mbx_ex_keysrc_next(mbx_ex_keysrc *k, explorer *x, int wait_ms)
{
    if (k->script)
        return script_next(k, x);
    timeout(wait_ms);
    return getch();
}

void mbx_ex_keysrc_size(mbx_ex_keysrc *k, int *rows, int *cols)
{
    if (k->script) {
        *rows = k->rows;
        *cols = k->cols;
    }
}

int mbx_ex_keysrc_dumps(const mbx_ex_keysrc *k, int *failed)
{
    if (failed)
        *failed = k->failed;
    return k->dumps;
}
