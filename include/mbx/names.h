/* Names typed by users, matched against a list of known ones (pure): the
 * edit distance behind "did you mean", and the benchmark selection of
 * --bench, a plan's `bench =` key and `mpibex list GLOB`: exact names,
 * groups ("pingpong" is every "pingpong.*") and fnmatch-style globs
 * ("coll.i*", "rma.*", "pingpong.[is]*"), expanded against the registry's
 * names in the registry's order. The registry itself is the engine's
 * (mbx/bench.h); the callers hand its names in, so this stays generic. */
#ifndef MBX_NAMES_H
#define MBX_NAMES_H

#include <stddef.h>

/* The Levenshtein distance of a[0..na) and b[0..nb); (size_t)-1 when
 * either is longer than 63 characters. */
size_t mbx_edit_distance(const char *a, size_t na, const char *b, size_t nb);

/* Whether a distance d to a name of `letters` letters is a typo: at most
 * 2 edits and fewer than half of its letters (d 0 is no typo). */
int mbx_is_typo(size_t d, size_t letters);

/* The name of names[0..n) nearest to word[0..nword) when it is a typo of
 * it (mbx_is_typo, over the name's letters); NULL otherwise. Ties: the
 * first in the list. */
const char *mbx_name_suggest(const char *const *names, size_t n, const char *word, size_t nword);

/* Whether word holds a glob character (* ? [). */
int mbx_name_is_glob(const char *word);

/* fnmatch-style matching of the whole name: '*' any run of characters,
 * '?' one, "[abc]", "[a-z]" and "[!abc]" one of a set (or not). 1 or 0. */
int mbx_name_glob(const char *pattern, const char *name);

/* Why a selection failed: the one-line reason ("unknown benchmark 'x'",
 * "'nope.*' matches no benchmark", "too many benchmarks: ...") and, when
 * there is one, the nearest known name or glob ("coll.allreduce",
 * "coll.*"), for the caller's "; did you mean ...?". */
typedef struct mbx_select_why {
    char what[160];
    char suggest[80];
} mbx_select_why;

/* Expand items[0..nitems) against names[0..n) into ids (indexes into
 * names), at most cap of them; *nout is their count. An item is a name,
 * a group (a word with no glob character that is no name, standing for
 * every name that starts with "WORD."), or a glob. Items keep their order;
 * a glob's or a group's names come in the list's order; a name already
 * selected is dropped. Returns 0, or -1 with why filled (an item that
 * names nothing, or more than cap names). */
int mbx_name_select(const char *const *names, size_t n, const char *const *items, size_t nitems,
                    int *ids, size_t cap, size_t *nout, mbx_select_why *why);

#endif
