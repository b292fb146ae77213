/* mpibex check: a regression verdict per point of a comparison of a
 * baseline with a current setting (docs/user-guide.md, "Checking against a
 * baseline: check"). This module holds what is pure: the tolerance
 * ("5%", "2us"), the check file of rules that sets it per benchmark and
 * size range, and the verdict from the 95 % CI of CURRENT/BASELINE that
 * mbx/compare.h computes (the statistics are compare's; nothing here
 * tests anything). Pure C, no MPI, never prints. */
#ifndef MBX_CHECK_H
#define MBX_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

/* The tolerance: a relative change (value 0.05 for 5 %) or an absolute
 * one in seconds (absolute 1). */
typedef struct mbx_check_tol {
    double value;
    int absolute;
} mbx_check_tol;

#define MBX_CHECK_TOL_DEFAULT 0.05 /* 5 % */
#define MBX_CHECK_TOL_MAX_REL 1.0  /* 100 % */
#define MBX_CHECK_TOL_MAX_US 1e6   /* 1 s */

/* Which changes fail: only a slowdown (the default), or either way. */
typedef enum mbx_check_dir {
    MBX_CHECK_DIR_SLOWER = 0,
    MBX_CHECK_DIR_BOTH = 1,
} mbx_check_dir;

/* The allowed forms, for messages: "a percentage 0%..100% ...". */
extern const char mbx_check_tol_allowed[];

/* Parse a tolerance: "5%" or "5 %" (0..100 %), "2us" or "2 us"
 * (0..1000000 us). Errors: MBX_E_INVAL, with msg "expected ..., got X"
 * (msg may be NULL). */
MBX_NODISCARD int mbx_check_tol_parse(const char *text, mbx_check_tol *out, char *msg,
                                      size_t msglen);

/* "slower" or "both" into *out. Errors: MBX_E_INVAL with msg. */
MBX_NODISCARD int mbx_check_dir_parse(const char *text, mbx_check_dir *out, char *msg,
                                      size_t msglen);

/* "5 %" or "2 us", into buf. */
void mbx_check_tol_text(const mbx_check_tol *t, char *buf, size_t len);

/* One rule of a check file: the points it matches (benchmark globs, a
 * size range) and what it sets for them. */
typedef struct mbx_check_rule {
    char *bench;                   /* comma list of globs; NULL: every benchmark */
    uint64_t min_bytes, max_bytes; /* inclusive; 0..UINT64_MAX: every size */
    int has_tol, has_dir;
    mbx_check_tol tol;
    mbx_check_dir dir;
    size_t line; /* where the rule starts (its section's line; 1 for the top) */
} mbx_check_rule;

typedef struct mbx_check_rules {
    mbx_check_rule *v;
    size_t n;
} mbx_check_rules;

/* Parse the text of a check file (an INI file: key = value lines, '#' or
 * ';' comments; the lines before the first [section] are one rule, each
 * [section] another; keys bench, sizes, tolerance, direction, each at
 * most once a rule). name is the file's name for messages. Errors:
 * MBX_E_INVAL with one line "NAME:LINE: FIELD: expected ..., got ..."
 * in msg; MBX_E_NOMEM. *out is the caller's to free (mbx_check_rules_free),
 * also after an error. */
MBX_NODISCARD int mbx_check_rules_parse(const char *text, const char *name, mbx_check_rules *out,
                                        char *msg, size_t msglen);

/* mbx_check_rules_parse of the file at path (at most 1 MiB). Errors: as
 * there, and MBX_E_IO (cannot read: msg names the file and why). */
MBX_NODISCARD int mbx_check_rules_load(const char *path, mbx_check_rules *out, char *msg,
                                       size_t msglen);

void mbx_check_rules_free(mbx_check_rules *r);

/* The tolerance and direction for a point of benchmark `bench` and size
 * `bytes`: *tol and *dir come in as the defaults (the command line's);
 * every rule that matches the point and sets a field replaces it, the
 * later rule winning. */
void mbx_check_rules_for(const mbx_check_rules *r, const char *bench, uint64_t bytes,
                         mbx_check_tol *tol, mbx_check_dir *dir);

typedef enum mbx_check_verdict {
    MBX_CHECK_EQUIVALENT = 0, /* the CI lies within the tolerance both ways */
    MBX_CHECK_SLOWER,         /* the CI lies above 1 + tol (or +tol us) */
    MBX_CHECK_FASTER,         /* the CI lies below 1 / (1 + tol) (or -tol us) */
    MBX_CHECK_UNDECIDED,      /* anything else, or no finite CI */
} mbx_check_verdict;

/* "equivalent", "slower", "faster" or "undecided". */
const char *mbx_check_verdict_word(mbx_check_verdict v);

/* The verdict of a point from the 95 % CI [lo, hi] of CURRENT/BASELINE
 * and the baseline's median base_s (seconds; an absolute tolerance reads
 * the CI as shifts (lo - 1) base_s .. (hi - 1) base_s). A CI that is not
 * finite and positive (too few values for 95 %) is undecided. */
mbx_check_verdict mbx_check_judge(double lo, double hi, double base_s, const mbx_check_tol *tol);

/* Whether verdict v fails the check under dir: slower always, faster
 * only under MBX_CHECK_DIR_BOTH. */
int mbx_check_fails(mbx_check_verdict v, mbx_check_dir dir);

/* Whether an undecided point leaves the check open: its CI still reaches
 * a failing value (above the tolerance; under MBX_CHECK_DIR_BOTH, below
 * it too). An undecided point whose CI only reaches past the tolerance
 * on the faster side cannot be a regression under MBX_CHECK_DIR_SLOWER. */
int mbx_check_open(mbx_check_verdict v, double lo, double hi, double base_s,
                   const mbx_check_tol *tol, mbx_check_dir dir);

#endif
