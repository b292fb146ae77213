/* The explorer's keys: the app-wide actions (screens, run control,
 * export, report, theme, glyphs), the prompts' line editing, and the
 * dispatch of every other key to the screen in view through its row of
 * the screen table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ex_keys.h"
#include "ex_keysrc.h"
#include "explorer.h"
#include "screens/screen.h"

static void set_pause(explorer *x, int on)
{
    if (on == x->paused || !x->running)
        return;
    double now = x->be->now(x->be);
    if (on)
        x->t_pause_begin = now;
    else
        x->t_pause_total += now - x->t_pause_begin;
    x->paused = on;
}

/* Why e or w cannot begin now, or NULL. */
static const char *busy(const explorer *x, const char *what)
{
    static char why[96];
    if (x->ndone == 0)
        snprintf(why, sizeof why, "nothing to %s yet", what);
    else if (x->xp.on)
        snprintf(why, sizeof why, "%s: an export is being written (3 c stops it)", what);
    else
        return NULL;
    return why;
}

static void begin_export(explorer *x)
{
    const char *why = busy(x, "export");
    if (why) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", why);
        return;
    }
    time_t t = time(NULL);
    if (x->headless) /* golden screens must not depend on the clock */
        snprintf(x->input, sizeof x->input, "mpibex-results.csv");
    else
        strftime(x->input, sizeof x->input, "mpibex-%Y%m%d-%H%M%S.csv", localtime(&t));
    x->prompt = EX_PROMPT_EXPORT;
    mbx_ex_edit_begin(x, x->input, 1); /* typing replaces the proposed name */
}

static void begin_report(explorer *x)
{
    const char *why = busy(x, "report");
    if (why) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", why);
        return;
    }
    if (x->running) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "report: wait until the run is done (or cancel it, c)");
        return;
    }
    time_t t = time(NULL);
    if (x->headless)
        snprintf(x->input, sizeof x->input, "mpibex-report");
    else
        strftime(x->input, sizeof x->input, "mpibex-report-%Y%m%d-%H%M%S", localtime(&t));
    x->prompt = EX_PROMPT_REPORT;
    mbx_ex_edit_begin(x, x->input, 1);
}

/* Typing into the prompt's line; 1 when Enter took a non-empty text. */
static int edit_input(explorer *x, int key)
{
    if (key == 27)
        x->prompt = EX_PROMPT_NONE;
    else if (key == '\n' || key == '\r' || key == KEY_ENTER)
        return x->input[0] != '\0';
    else
        (void)mbx_ex_line_edit(x, x->input, sizeof x->input, key);
    return 0;
}

/* The export set up in x->xp: at once, or after the question when the
 * observations are large (they take a while, and the disk). */
static void export_go(explorer *x)
{
    /* Test hook: MBX_TEST_OBS_ASK_BYTES=N asks above N bytes instead, so
     * that a test need not measure 16 MB of observations. */
    const char *hook = getenv("MBX_TEST_OBS_ASK_BYTES");
    uint64_t ask = hook && *hook ? strtoull(hook, NULL, 10) : EX_OBS_ASK_BYTES;
    x->xp.obs = 1;
    if (mbx_ex_obs_bytes(x, NULL) > ask)
        x->prompt = EX_PROMPT_OBS;
    else
        mbx_ex_export_begin(x);
}

/* w's directory: a report of the last export when it holds these very
 * results, else of an export into dir/results.csv (then the report). */
static void report_go(explorer *x, const char *dir)
{
    char path[sizeof x->xp.path];
    if (snprintf(path, sizeof path, "%s/results.csv", dir) >= (int)sizeof path) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "report: the directory name is too long");
        return;
    }
    if (mkdir(dir, 0777) != 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "report: cannot create %.200s: %s", dir, strerror(errno));
        return;
    }
    const char *done = mbx_ex_export_current(x);
    if (done) {
        char results[sizeof x->xp.done_path];
        snprintf(results, sizeof results, "%s", done);
        (void)mbx_ex_report_of(x, results, dir, 1);
        return;
    }
    snprintf(x->xp.path, sizeof x->xp.path, "%s", path);
    snprintf(x->xp.dir, sizeof x->xp.dir, "%s", dir);
    x->xp.report = 1;
    export_go(x);
}

/* The large observations' question: y writes them, n the rest only. */
static void obs_answer(explorer *x, int key)
{
    if (key == 'y' || key == 'Y' || key == 'n' || key == 'N') {
        x->xp.obs = key == 'y' || key == 'Y';
        mbx_ex_export_begin(x);
        return;
    }
    if (x->xp.report) /* the directory w made for it, still empty */
        (void)rmdir(x->xp.dir);
    mbx_ex_set_msg(x, MBX_ROLE_DIM, "%s", x->xp.report ? "no report" : "not exported");
    x->xp.report = 0;
}

static int prompt_key(explorer *x, int key)
{
    struct stat sb;
    switch (x->prompt) {
    case EX_PROMPT_EXPORT:
        if (edit_input(x, key)) {
            snprintf(x->xp.path, sizeof x->xp.path, "%s", x->input);
            snprintf(x->pending_path, sizeof x->pending_path, "%s", x->input);
            x->xp.report = 0;
            if (stat(x->pending_path, &sb) == 0) {
                x->prompt = EX_PROMPT_OVERWRITE;
            } else {
                x->prompt = EX_PROMPT_NONE;
                export_go(x);
            }
        }
        return 1;
    case EX_PROMPT_REPORT:
        if (edit_input(x, key)) {
            snprintf(x->pending_path, sizeof x->pending_path, "%s", x->input);
            x->prompt = EX_PROMPT_NONE;
            if (stat(x->pending_path, &sb) == 0)
                mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                               "report: %.200s exists; give a new directory (w again)",
                               x->pending_path);
            else
                report_go(x, x->pending_path);
        }
        return 1;
    case EX_PROMPT_OVERWRITE:
        x->prompt = EX_PROMPT_NONE;
        if (key == 'y' || key == 'Y')
            export_go(x);
        else
            mbx_ex_set_msg(x, MBX_ROLE_DIM, "not exported");
        return 1;
    case EX_PROMPT_OBS:
        x->prompt = EX_PROMPT_NONE;
        obs_answer(x, key);
        return 1;
    case EX_PROMPT_RERUN:
        x->prompt = EX_PROMPT_NONE;
        if (key == 'y' || key == 'Y')
            mbx_ex_start_run(x);
        else
            mbx_ex_set_msg(x, MBX_ROLE_DIM, "no new run: the results stay");
        x->gl.want = 0;
        return 1;
    case EX_PROMPT_QUIT:
        x->prompt = EX_PROMPT_NONE;
        if (key == 'y' || key == 'Y') {
            x->quit = 1;
            x->cancel = 1;
        }
        return 1;
    case EX_PROMPT_NONE: break;
    }
    return 0;
}

static void cycle_theme(explorer *x)
{
    char names[32][32];
    int n = mbx_theme_list(x->theme_dir, x->theme_dirs, names, 32), cur = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], x->theme_name) == 0)
            cur = i;
    if (n == 0)
        return;
    const char *next = names[(cur + 1) % n];
    char msg[256];
    mbx_theme t;
    if (mbx_theme_load(next, x->theme_dir, x->theme_dirs, &t, NULL, 0, msg, sizeof msg) < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s", msg);
        return;
    }
    x->theme = t;
    snprintf(x->theme_name, sizeof x->theme_name, "%s", next);
    mbx_ex_colors_init(x);
    mbx_ex_set_msg(x, MBX_ROLE_DIM, "theme %s", next);
}

/* r: a run, after a question when it would replace results that are
 * not exported (the same question as q's); a word when one is running. */
static void start_again(explorer *x)
{
    if (x->running && x->screen == EX_RUN)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "a run is in progress: c cancels it, then r");
    else if (x->xp.on)
        mbx_ex_start_run(x); /* which says why not */
    else if (!x->running && !x->bf.running && x->ndone > 0 && !x->exported)
        x->prompt = EX_PROMPT_RERUN;
    else
        mbx_ex_start_run(x);
}

/* An action of the app-wide part of the key table (every screen's keys,
 * run control, export and report); 0 when a is none of them, the screen
 * in view has it then. */
static int app_action(explorer *x, mbx_ex_action a)
{
    switch (a) {
    case EXA_QUIT:
        if (x->xp.on) { /* the loop ends once the export is written */
            x->quit = 1;
            mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                           "quitting once the export is written (3 c stops it)");
        } else if (x->ndone > 0 && !x->exported)
            x->prompt = EX_PROMPT_QUIT;
        else
            x->quit = x->cancel = 1;
        return 1;
    case EXA_HELP: mbx_ex_overlay_open(x, EX_OVERLAY_HELP); return 1;
    case EXA_MESSAGE: mbx_ex_overlay_open(x, EX_OVERLAY_MSG); return 1;
    case EXA_NEXT_SCREEN: x->screen = (mbx_ex_screen)((x->screen + 1) % EX_NSCREENS); return 1;
    case EXA_PICKER: x->screen = EX_PICKER; return 1;
    case EXA_PARAMS: x->screen = EX_PARAMS; return 1;
    case EXA_RUNVIEW: x->screen = EX_RUN; return 1;
    case EXA_RESULTS: x->screen = EX_RESULTS; return 1;
    case EXA_BEFF: x->screen = EX_BEFF; return 1;
    case EXA_PAIRS: x->screen = EX_PAIRS; return 1;
    case EXA_START: start_again(x); return 1;
    case EXA_PAUSE:
        if (!x->running) {
            mbx_ex_set_msg(x, MBX_ROLE_DIM, "no run to pause (r starts one)");
            return 1;
        }
        set_pause(x, !x->paused);
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", x->paused ? "paused: p resumes" : "");
        return 1;
    case EXA_CANCEL:
        if (x->xp.on) {
            mbx_ex_export_abandon(x, "export stopped");
        } else if (x->pr.running) {
            x->pr.cancel = 1;
            mbx_ex_set_msg(x, MBX_ROLE_WARNING, "cancelling the pairs run");
        } else if (x->bf.running) {
            x->bf.cancel = 1;
            mbx_ex_set_msg(x, MBX_ROLE_WARNING, "cancelling %s", x->bf.io ? "b_eff_io" : "b_eff");
        } else if (x->running) {
            x->cancel = 1; /* the loop stops the run: the points so far become final */
        } else {
            mbx_ex_set_msg(x, MBX_ROLE_DIM, "no run to cancel");
        }
        return 1;
    case EXA_EXPORT: begin_export(x); return 1;
    case EXA_REPORT: begin_report(x); return 1;
    case EXA_THEME: cycle_theme(x); return 1;
    case EXA_GLYPHS:
        x->glyphs = (mbx_glyphs)((x->glyphs + 1) % 3);
        if (!x->utf8 && x->glyphs != MBX_GLYPHS_ASCII)
            x->glyphs = MBX_GLYPHS_ASCII;
        return 1;
    default: return 0;
    }
}

int mbx_ex_handle_key(explorer *x, int key)
{
    if (key == EX_KEY_EOF) { /* the end of a headless script */
        x->quit = x->cancel = 1;
        return 1;
    }
    x->msg_fresh = 0; /* what the key says is fresh; an older message is not */
    if (key == KEY_MOUSE)
        return mbx_ex_handle_mouse(x, &x->mouse);
    if (x->help)
        return mbx_ex_overlay_key(x, key);
    if (x->prompt != EX_PROMPT_NONE)
        return prompt_key(x, key);
    const mbx_ex_screen_def *s = mbx_ex_screen_of(x->screen);
    /* Text entry owns the keyboard while it is open. */
    if (s->typing && s->typing(x))
        return s->key(x, key);
    if (app_action(x, mbx_ex_key_action(key, x->screen)))
        return 1;
    return s->key ? s->key(x, key) : 0;
}

/* Text entry ends as Enter would end it, without acting on the text: a
 * click elsewhere (a tab, the footer) leaves a field or the filter. */
static void end_typing(explorer *x)
{
    x->pick.filtering = x->gl.filtering = 0;
    if (x->par.form.editing) {
        x->par.form.editing = 0;
        mbx_ex_params_validate(x);
    }
    x->bf.form.editing = 0;
    x->pr.form.editing = 0;
}

int mbx_ex_handle_mouse(explorer *x, const mbx_ex_mouse *m)
{
    if (x->help)
        return mbx_ex_overlay_mouse(x, m);
    if (x->prompt != EX_PROMPT_NONE) /* the prompt's question wants a key */
        return 0;
    mbx_frame_layout f;
    mbx_layout_frame(x->rows, x->cols, &f);
    if (!f.ok)
        return 0;
    if (m->y == f.title.y) {
        int s = mbx_ex_tab_at(x, m->x);
        if (s < 0 || m->button != EX_MB_LEFT)
            return 0;
        end_typing(x);
        x->screen = (mbx_ex_screen)s;
        return 1;
    }
    if (m->y == f.footer.y) {
        int key = m->button == EX_MB_LEFT ? mbx_ex_footer_key_at(x, m->x) : 0;
        if (!key)
            return 0;
        end_typing(x);
        return mbx_ex_handle_key(x, key);
    }
    /* The series chooser over the run view (which has no mouse hook here). */
    if (mbx_ex_key_context(x) == S_CHOOSE)
        return mbx_ex_compare_mouse(x, m);
    const mbx_ex_screen_def *s = mbx_ex_screen_of(x->screen);
    return s->mouse && m->y >= f.body.y && m->y < f.body.y + f.body.h ? s->mouse(x, &f.body, m) : 0;
}
