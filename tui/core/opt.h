/* The command-line parser of every subcommand and of the launcher: a table
 * of options per command (mbx_opt), one loop that walks argv against it
 * (mbx_opt_parse), one helper for the one-line message of bad input
 * (mbx_opt_bad, which returns the exit code 2), and "did you mean" for an
 * unknown option (mbx_opt_suggest). Pure: the lines go to a buffer or to
 * the caller's print function.
 *
 * The forms a command accepts are the ones it always has: "--name" and
 * "-n" exactly; "--name=VALUE" where the entry (or the parser) says
 * MBX_OPT_EQ; "-nVALUE" where it says MBX_OPT_GLUED; otherwise the value
 * is the next word, whatever it looks like. */
#ifndef MBX_OPT_H
#define MBX_OPT_H

#include <stdarg.h>
#include <stddef.h>

/* Where the message of bad input goes: into msg[len] (no prefix) when msg
 * is set, and to print(prefix, line) when print is set. */
typedef struct mbx_opt_out {
    const char *prefix; /* "mpibex merge: " */
    char *msg;
    size_t len;
    void (*print)(const char *prefix, const char *line);
} mbx_opt_out;

/* The line from fmt into out; returns 2 (bad input). */
int mbx_opt_bad(const mbx_opt_out *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mbx_opt_vbad(const mbx_opt_out *out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Entry flags (an entry gets its own and the parser's). */
enum {
    MBX_OPT_EQ = 1,       /* "--name=VALUE" */
    MBX_OPT_GLUED = 2,    /* "-nVALUE" (the alias with the value attached) */
    MBX_OPT_OPTIONAL = 4, /* a flag that may carry "=VALUE"; never takes the next word */
    MBX_OPT_NONEMPTY = 8  /* an empty value is refused (the parser's `empty` line) */
};

/* Parser flags. */
enum {
    MBX_OPT_DASHDASH = 16,     /* after "--", every word is an operand */
    MBX_OPT_STOP_DASHDASH = 32 /* "--" ends the walk; the rest is the caller's */
};

typedef struct mbx_opt_parser mbx_opt_parser;
typedef struct mbx_opt mbx_opt;

/* An option's handler: name is the option as given ("-o" or "--output",
 * without "=VALUE"), val its value (NULL for a flag, or when it is missing
 * and the parser has no `missing` line). Returns 0 or an exit code. */
typedef int (*mbx_opt_fn)(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val);

struct mbx_opt {
    const char *name;  /* "--output", or NULL */
    const char *alias; /* "-o", or NULL */
    const char *arg;   /* the value's placeholder ("FILE"); NULL: a flag */
    int flags;
    mbx_opt_fn fn; /* NULL: store into the parser's dst at off */
    size_t off;    /* a flag: int set to 1; a value: const char * set to it */
};

#define MBX_OPT_COUNT(table) (sizeof(table) / sizeof(table)[0])

struct mbx_opt_parser {
    const mbx_opt *opts;
    size_t nopts;
    int flags;
    void *dst;           /* the handlers' options (and the targets' struct) */
    mbx_opt_out out;     /* where a bad-input line goes */
    const char *unknown; /* line for an unknown option, one %s: the word */
    const char *missing; /* line for a missing value, one %s: the name; NULL: handler's */
    const char *empty;   /* line for an empty MBX_OPT_NONEMPTY value; NULL: missing */
    /* A word that is no option (and, with pass_unknown, an unknown option
     * too); NULL: every such word is unknown. */
    int (*operand)(mbx_opt_parser *p, const char *word);
    int pass_unknown;
    /* Set during the walk: */
    int stop;     /* a handler sets it to end the walk (mbx_opt_help) */
    int help;     /* set by mbx_opt_help */
    int attached; /* the current value came as "=VALUE" or glued */
    /* The word after the one being walked (NULL: none), so that a handler
     * can quote the value of a flag it answers ("-m 8:65536"). */
    const char *following;
    int next; /* after the walk: the index of the first word not walked */
};

/* The handler of -h/--help in most commands: sets p->help, ends the walk. */
int mbx_opt_help(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val);

/* The handler of -o FILE in merge and compare: the name, a const char * at
 * o->off, refused when missing or empty ("NAME: missing file name") or
 * given twice ("-o: only one output is allowed (got 'A' and 'B')"). */
int mbx_opt_output(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val);

/* A whole number in lo..hi written in decimal, all of s: 0 with *out set,
 * or -1 (out untouched). For handlers that name the range themselves. */
int mbx_opt_whole(const char *s, long lo, long hi, long *out);

/* Walk argv[first..argc) against p's table. Returns 0, or the first
 * nonzero code of a handler, an operand or an error line. */
int mbx_opt_parse(mbx_opt_parser *p, int argc, char **argv, int first);

/* The long name of the table nearest to word (its part before '='), by
 * edit distance, when it is near enough to be a typo (at most 2 edits and
 * fewer than half of its letters); NULL otherwise. */
const char *mbx_opt_suggest(const mbx_opt *opts, size_t n, const char *word);

/* The flags OSU and IMB users type (-m, -i, -x, -f, -msglog, -iter,
 * -npmin, -time, ...), each with its line naming mpibex's equivalent: an
 * unknown word that is one of them gets "FLAG: TEXT" instead of "unknown
 * option" (opt_habits.c holds the table). */
typedef struct mbx_opt_habit_row {
    const char *flag;      /* "-m", "-msglog" */
    const char *long_flag; /* OSU's long form ("--message-size"), or NULL */
    const char *text;      /* "OSU's message-size range; mpibex takes --sizes ..." */
    /* A flag whose value has an mpibex spelling: the example's value
     * ("1:4096") and the spelling of a value (0 with "--sizes 1:4KiB" in
     * out, or -1 when val is not one the flag takes); else both NULL. */
    const char *example;
    int (*spell)(const char *val, char *out, size_t len);
} mbx_opt_habit_row;

/* The row of word (its part before '='; a one-letter flag also with a
 * glued number, "-m1:4096"), or NULL. */
const mbx_opt_habit_row *mbx_opt_habit(const char *word);

/* The line for word (h = mbx_opt_habit(word)), without the prefix:
 * "FLAG: TEXT", and for a row with a spelling "(OSU's -m 8:65536 is
 * --sizes 8:64KiB)" of the user's value -- glued to word ("-m8:65536",
 * "--message-size=64") or else next, the word after it (NULL: none) --
 * or of the row's example when the value is none the flag takes. */
void mbx_opt_habit_line(const mbx_opt_habit_row *h, const char *word, const char *next, char *out,
                        size_t len);

/* The whole table (for tests and docs), its length in *n. */
const mbx_opt_habit_row *mbx_opt_habits(size_t *n);

#endif
