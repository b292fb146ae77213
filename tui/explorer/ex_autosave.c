/* The explorer's autosave: every finished point, as the batch CSV, as it
 * lands; its directory, made private (or one in $TMPDIR) when it is the
 * default state directory. */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "explorer.h"
#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/file.h"

/* A failed autosave: on the status line now, and kept for the closing
 * line (explore.c), which is what the user reads after the screen is gone. */
static void autosave_failed(explorer *x, const char *where, const char *why)
{
    snprintf(x->autosave_err, sizeof x->autosave_err, "autosave to %.600s failed: %s", where, why);
    mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", x->autosave_err);
}

/* The directory of the autosave, made with every parent: the default
 * state directory must be private, else (or with no home at all) a new
 * private directory in $TMPDIR takes its place; a directory given with
 * --autosave is the user's choice. */
static int autosave_dir(explorer *x)
{
    const char *why = NULL;
    if (x->autosave_dir[0] &&
        mbx_dir_make(x->autosave_dir, x->autosave_private ? MBX_DIR_PRIVATE : 0, NULL, &why) ==
            MBX_OK)
        return 0;
    if (!x->autosave_private && !x->autosave_tmp) {
        autosave_failed(x, x->autosave_dir, why);
        return -1;
    }
    char tmp[sizeof x->autosave_dir];
    const char *why_tmp = NULL;
    if (mbx_dir_temp(mbx_dir_tmp(), "mpibex-autosave-", tmp, sizeof tmp, NULL, &why_tmp) !=
        MBX_OK) {
        autosave_failed(x, x->autosave_dir[0] ? x->autosave_dir : mbx_dir_tmp(),
                        x->autosave_dir[0] ? why : why_tmp);
        return -1;
    }
    snprintf(x->autosave_dir, sizeof x->autosave_dir, "%s", tmp);
    x->autosave_private = x->autosave_tmp = 0; /* the next runs go there too */
    return 0;
}

void mbx_ex_autosave_open(explorer *x)
{
    mbx_csv_writer_close(x->autosave);
    x->autosave = NULL;
    x->autosave_path[0] = '\0';
    if ((!x->autosave_dir[0] && !x->autosave_tmp) || autosave_dir(x) != 0)
        return;
    time_t t = time(NULL);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
    snprintf(x->autosave_path, sizeof x->autosave_path, "%s/explorer-%s-%ld.csv", x->autosave_dir,
             stamp, (long)getpid());
    if (mbx_csv_writer_open(x->autosave_path, mbx_result_columns, MBX_RESULT_NCOLS, &x->autosave) <
        0) {
        autosave_failed(x, x->autosave_path, mbx_file_why(errno));
        x->autosave_path[0] = '\0';
        x->autosave = NULL;
    }
}

/* Is an autosave asked for (none with --autosave none, nor headless by default)? */
static int autosave_wanted(const explorer *x)
{
    return x->autosave_dir[0] || x->autosave_tmp;
}

void mbx_ex_autosave_row(explorer *x, const mbx_result *r)
{
    if (x->autosave) {
        mbx_result_fields f;
        mbx_result_format(r, &f);
        int wrc = mbx_csv_writer_row(x->autosave, f.field);
        if (wrc < 0) {
            autosave_failed(x, x->autosave_path,
                            wrc == MBX_E_GONE ? "the file was removed or renamed"
                                              : mbx_file_why(errno));
            x->autosave_lost++;
        }
    } else if (autosave_wanted(x)) {
        x->autosave_lost++;
    }
}
