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

#define CTRL_KEY(c) ((c)&0x1f)

static int named_key(const char *t)
{
    static const struct {
        const char *name;
        int key;
    } names[] = {
        {"enter", '\n'},       {"esc", 27},         {"tab", '\t'},       {"space", ' '},
        {"bs", KEY_BACKSPACE}, {"up", KEY_UP},      {"down", KEY_DOWN},  {"left", KEY_LEFT},
        {"right", KEY_RIGHT},  {"pgup", KEY_PPAGE}, {"pgdn", KEY_NPAGE}, {"home", KEY_HOME},
        {"end", KEY_END},      {"f1", KEY_F(1)},    {"f5", KEY_F(5)},    {"del", KEY_DC}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(t, names[i].name) == 0)
            return names[i].key;
    if (strncmp(t, "ctrl-", 5) == 0 && t[5] >= 'a' && t[5] <= 'z' && !t[6])
        return CTRL_KEY(t[5]);
    if (t[0] && !t[1] && mbx_ascii_isprint((unsigned char)t[0]))
        return (unsigned char)t[0];
    return ERR;
}

/* mouse:COL,ROW[,BUTTON]: BUTTON left (the default), middle, right,
 * wheelup or wheeldown, with shift+ before it for Shift held. 1 when t
 * is one (into *m). */
static int mouse_token(const char *t, mbx_ex_mouse *m)
{
    static const char *const buttons[] = {"", "left", "middle", "right", "wheelup", "wheeldown"};
    int col = -1, row = -1, used = 0;
    if (sscanf(t, "mouse:%d,%d%n", &col, &row, &used) != 2 || col < 0 || row < 0)
        return 0;
    const char *b = t + used;
    *m = (mbx_ex_mouse){.y = row, .x = col, .button = EX_MB_LEFT};
    if (!*b)
        return 1;
    if (*b++ != ',')
        return 0;
    if (strncmp(b, "shift+", 6) == 0)
        m->shift = 1, b += 6;
    for (int i = EX_MB_LEFT; i <= EX_MB_WHEEL_DOWN; i++)
        if (strcmp(b, buttons[i]) == 0) {
            m->button = i;
            return 1;
        }
    return 0;
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
            if (x->running || x->bf.running || x->pr.running || x->xp.on)
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
        } else if (strncmp(t, "mouse:", 6) == 0) {
            /* A click hits what is on the screen: a terminal has drawn the
             * frame before the user clicks, so the script draws it too. */
            if (mouse_token(t, &x->mouse)) {
                mbx_ex_draw(x);
                return KEY_MOUSE;
            }
            mbx_tprintf(stderr, "mpibex: headless: bad mouse token '%s' (mouse:COL,ROW[,BUTTON])\n",
                        t);
            k->failed++;
        } else {
            int key = named_key(t);
            if (key != ERR)
                return key;
            mbx_tprintf(stderr, "mpibex: headless: unknown key token '%s'\n", t);
            k->failed++;
        }
    }
}

/* curses' event as the explorer's: presses of buttons 1 to 3 and the
 * wheel (4 and 5); 0 for the rest (releases: nothing acts on them). */
static int from_curses(const MEVENT *ev, mbx_ex_mouse *m)
{
    static const struct {
        mmask_t bit;
        int button;
    } map[] = {{BUTTON1_PRESSED | BUTTON1_CLICKED, EX_MB_LEFT},
               {BUTTON2_PRESSED | BUTTON2_CLICKED, EX_MB_MIDDLE},
               {BUTTON3_PRESSED | BUTTON3_CLICKED, EX_MB_RIGHT},
               {BUTTON4_PRESSED, EX_MB_WHEEL_UP},
               {BUTTON5_PRESSED, EX_MB_WHEEL_DOWN}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (ev->bstate & map[i].bit) {
            *m = (mbx_ex_mouse){.y = ev->y,
                                .x = ev->x,
                                .button = map[i].button,
                                .shift = (ev->bstate & BUTTON_SHIFT) != 0};
            return 1;
        }
    return 0;
}

int mbx_ex_keysrc_next(mbx_ex_keysrc *k, explorer *x, int wait_ms)
{
    if (k->script)
        return script_next(k, x);
    timeout(wait_ms);
    for (;;) {
        int key = getch();
        MEVENT ev;
        if (key != KEY_MOUSE)
            return key;
        if (getmouse(&ev) == OK && from_curses(&ev, &x->mouse))
            return KEY_MOUSE;
        timeout(0); /* a release: the next key if one is there */
    }
}

void mbx_ex_mouse_enable(int on)
{
    if (!on)
        return;
    /* Presses only, reported at once: no click detection (mouseinterval
     * 0), so a click acts without waiting for the release. */
    mousemask(BUTTON1_PRESSED | BUTTON2_PRESSED | BUTTON3_PRESSED | BUTTON4_PRESSED |
                  BUTTON5_PRESSED | BUTTON_SHIFT,
              NULL);
    mouseinterval(0);
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
