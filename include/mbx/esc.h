/* Escaping text for the places it is shown: one function per sink.
 *
 * Every string that comes from outside the program (a CSV field, a plan
 * value, a file or directory name) goes through the function of the sink
 * it is written to, so that it reaches no interpreter and changes no
 * terminal state: it comes out as the literal text it was. Bytes that
 * cannot be shown (control characters, DEL, C1 controls, invalid UTF-8)
 * become the visible text `\xNN` in every sink; valid UTF-8 is kept.
 *
 * Each function writes s escaped into out[len], always NUL-terminated when
 * len > 0, and never cuts an escape or a UTF-8 sequence in half. It returns
 * MBX_OK, or MBX_E_RANGE when out was too small (out then holds the longest
 * whole prefix; a gnuplot string is still closed). MBX_ESC_MAX(n) bytes are
 * always enough for an input of n bytes. s NULL is the empty string. */
#ifndef MBX_ESC_H
#define MBX_ESC_H

#include <stddef.h>

#include "mbx/status.h"

/* Worst case of every sink: 10 bytes per input byte, quotes and the NUL. */
#define MBX_ESC_MAX(n) ((size_t)(n)*10 + 3)

/* A terminal (stdout, stderr): every control character (including ESC, so
 * no CSI or OSC sequence can start), DEL, the C1 range as UTF-8
 * (U+0080-U+009F), the bidirectional overrides (U+202A-U+202E,
 * U+2066-U+2069) and invalid UTF-8 become `\xNN` (`\u202e`); a backslash
 * stays a backslash. */
MBX_NODISCARD mbx_status mbx_esc_term(const char *s, char *out, size_t len);

/* HTML text or a double- or single-quoted attribute value: & < > " ' as
 * entities; what mbx_esc_term escapes becomes the text `\xNN` as well,
 * a line break too (HTML would show it as a space), except tab. */
MBX_NODISCARD mbx_status mbx_esc_html(const char *s, char *out, size_t len);

/* A Markdown paragraph, heading or table cell: its punctuation
 * (\ ` * _ [ ] < > | # ! { } &) backslash-escaped, so a cell can neither end
 * its table row nor open code, a link or HTML; line breaks and the other
 * controls become `\\xNN`, which Markdown shows as `\xNN`. */
MBX_NODISCARD mbx_status mbx_esc_md(const char *s, char *out, size_t len);

/* A complete gnuplot string expression: single-quoted literals, the only
 * quoting in which gnuplot expands neither backquotes (a shell command),
 * nor @macros, nor backslash escapes. A ' closes the literal and is joined
 * as "\047" ('it'."\047".'s': gnuplot 5.4 misreads doubled quotes at the
 * start of a literal or two pairs in a row, and a raw ' even inside double
 * quotes flips its macro scanner, which would then expand an @name later
 * on the line); line breaks and the other controls become the text
 * `\xNN`, so the expression stays on its line. Use it with `noenhanced`
 * so that ^ _ { } @ & ~ stay text. */
MBX_NODISCARD mbx_status mbx_esc_gnuplot(const char *s, char *out, size_t len);

#endif
