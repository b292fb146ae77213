/* Claiming an output path (-o) for one run: every command that writes
 * results (run, beff, beffio, merge, compare, repeat, report) goes through
 * mbx_output_claim before it writes a byte, so that
 *
 *  - two runs never write the same files: an exclusive flock(2) on a lock
 *    file beside the output (OUT.csv -> OUT.lock, a directory DIR ->
 *    DIR/.mpibex.lock) is held from the claim to the end of the process; it
 *    holds the holder's PID and host, so the loser can name it. One lock
 *    covers the output and every sidecar (.env.csv, .obs.csv, .journal,
 *    ...), which all derive from the same name. For that, a file output
 *    is never itself named like a sidecar (a.env.csv, a.lock, a.journal,
 *    ... of any command): that name belongs to the output a.csv;
 *  - nothing is destroyed by accident: an existing non-empty results file,
 *    a resumable run (its journal) or a directory holding earlier results
 *    is refused unless MBX_OUTPUT_FORCE (or MBX_OUTPUT_RESUME, which
 *    continues it), and an input of the command (the plan, a CSV being
 *    merged) is refused always;
 *  - special paths get one clear answer: "-" is standard output where the
 *    command allows it, the null device discards (no sidecar, no lock),
 *    and FIFOs, sockets, devices, symbolic links and (for file outputs)
 *    directories are refused; so is an existing output, sidecar, lock
 *    file or (for directory outputs) directory of another user, and a
 *    directory output anybody can write in without the sticky bit.
 *
 * The lock is released, and its file removed, by mbx_output_release; a
 * process that dies keeps nothing locked (the kernel drops the flock) and
 * the stale file is taken over by the next claim. Pure POSIX, no MPI, no
 * printing: refusals come back as a one-line message. Only the process
 * that writes (rank 0) claims. */
#ifndef MBX_OUTPUT_H
#define MBX_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

#include "mbx/status.h"

typedef enum mbx_output_kind {
    MBX_OUTPUT_NONE = 0, /* not claimed (or released) */
    MBX_OUTPUT_FILE,     /* a regular file, locked; sidecars beside it */
    MBX_OUTPUT_DIR,      /* a directory (MBX_OUTPUT_DIRECTORY), locked */
    MBX_OUTPUT_STDOUT,   /* "-": results on standard output, no sidecars */
    MBX_OUTPUT_DISCARD,  /* the null device: write nothing at all */
} mbx_output_kind;

enum {
    MBX_OUTPUT_FORCE = 1 << 0,         /* replace existing results (--force) */
    MBX_OUTPUT_RESUME = 1 << 1,        /* continue the results there (--resume) */
    MBX_OUTPUT_ALLOW_STDOUT = 1 << 2,  /* "-" means standard output */
    MBX_OUTPUT_ALLOW_DISCARD = 1 << 3, /* the null device discards */
    MBX_OUTPUT_DIRECTORY = 1 << 4,     /* the output is a directory */
};

typedef struct mbx_output_req {
    const char *path; /* -o as given */
    unsigned flags;   /* MBX_OUTPUT_* */
    /* Files: sidecar suffixes (mbx_csv_sidecar) the command may write;
     * none may be a symbolic link or a special file. The one named by
     * `journal` (e.g. ".journal") marks a resumable run. NULL-terminated,
     * may be NULL. */
    const char *const *sidecars;
    const char *journal;
    /* Files the command reads: never written, even with FORCE. */
    const char *const *inputs;
    size_t ninputs;
    const char *input_what; /* how to call them in a message: "the plan file" */
    /* Directories: which entries are earlier results (NULL: any entry). */
    int (*is_result)(const char *name);
    /* What the command calls its option, for messages ("-o"). */
    const char *opt;
    /* Files: the header line (without its newline) the command writes
     * first; a file holding that line only holds no results (a run that
     * failed before its first point left it). NULL: any byte is results. */
    const char *header;
} mbx_output_req;

typedef struct mbx_output {
    mbx_output_kind kind;
    int lock_fd;     /* -1: nothing locked */
    char *lock_path; /* owned */
    dev_t lock_dev;
    ino_t lock_ino;
    int created_dir; /* the claim created the directory */
    int existed;     /* the results were there (FORCE or RESUME let them be) */
    pid_t holder;    /* MBX_E_BUSY: the other run's PID, 0 when unknown */
} mbx_output;

/* Check req->path and, for a file or directory, take its lock. On
 * MBX_OK, *out says what the path is; its lock lives until
 * mbx_output_release or the process's end. Errors, each with a one-line
 * message in msg that starts with the option's name: MBX_E_BUSY (another
 * process holds the lock; out->holder is its PID), MBX_E_INVAL (a path
 * that cannot be written: refused kinds, existing results without FORCE,
 * an input, a name ending in a sidecar suffix), MBX_E_IO (the lock file
 * or directory could not be made), MBX_E_NOMEM. Never writes through a
 * symbolic link. A directory output is created (mode 0777 less the
 * umask) when absent. */
MBX_NODISCARD int mbx_output_claim(const mbx_output_req *req, mbx_output *out, char *msg,
                                   size_t msglen);

/* Drop the lock and remove its file (only while it is still ours); safe on
 * a zeroed, failed or released claim. */
void mbx_output_release(mbx_output *out);

/* Is path the null device (by device number, not by name)? 1 or 0. */
int mbx_output_is_null(const char *path);

#endif
