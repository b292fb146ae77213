#!/usr/bin/env python3
"""Hostile inputs and checks for tests/security/untrusted_text.sh:
text from a file must reach no interpreter and no terminal raw).

  untrusted_fixtures.py make DIR MARK
      DIR/a.csv and DIR/<hostile name>.csv (results with .obs.csv and
      .env.csv), DIR/<hostile dir>/launch-0{1,2}.csv: every text column and
      the environment sidecar hold hostile strings whose shell part would
      create a file in MARK; DIR/bad-<column>-<hostile>.csv each have one
      hostile value in a checked column. Prints nothing.
  untrusted_fixtures.py names DIR
      the hostile input paths, NUL-separated (for bash's read -d '').
  untrusted_fixtures.py check-gp FILE
      plots.gp: outside single-quoted strings and comments no backquote,
      no `system`, `!`, `shell`, `load`, `call`, `eval` or `@` command text
      beyond the script's own @png_term/@svg_term; no control byte.
  untrusted_fixtures.py check-report OUT
      plots.gp as above; index.html well-formed, no <script>, every hostile
      benchmark name shown literally (controls as \\xNN); index.md table
      rows keep their column count; the SVG plots show the names literally.
  untrusted_fixtures.py pty CMD...
      run CMD on a pseudo-terminal (its stdout and stderr a terminal):
      exit status CMD's; FAIL when a control byte but CR and LF, a C1
      character or invalid UTF-8 reached the terminal.
  untrusted_fixtures.py check-tty FILE...
      no control byte but newline in each file (captured stdout/stderr),
      no C1 (raw or as UTF-8), and every byte valid UTF-8.
Exit status 0 when every check passes; each failure is one line "FAIL: ...".
"""
import csv
import glob
import os
import re
import sys
from html.parser import HTMLParser

COLS = ("benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,"
        "stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,"
        "timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,"
        "refined,validated").split(",")
OBS = ["benchmark", "procs", "bytes", "obs", "time_us", "label", "root", "param"]
TEXT = ["benchmark", "label", "op", "param_name", "stop_rule", "timing", "ranks"]


def hostile(mark, tag):
    """Strings that would run `touch MARK/TAG-...` in a shell or in gnuplot,
    end a quoted string, or drive a terminal."""
    return [
        "bq`touch %s/%s-bq`x" % (mark, tag),
        "dollar$(touch %s/%s-dollar)x" % (mark, tag),
        "dq\"; system(\"touch %s/%s-dq\") #" % (mark, tag),
        "sq'; system('touch %s/%s-sq') #" % (mark, tag),
        "nl\nset output '%s/%s-nl'\nprint 'x" % (mark, tag),
        "esc\x1b[2J\x1b[31mred\x1b]0;OWNED-TITLE\x07\x9b1m\udc9bx\u202e",
        # a quote, then a macro: gnuplot expands @name where its macro
        # scanner, which toggles on every ', thinks it is outside quotes
        "<script>alert(1)</script>|`md`|&amp;'@png_term",
        # gnuplot 5.4 misreads '' at the start of a literal and two in a row
        "'<touch %s/%s-lt''''x'" % (mark, tag),
    ]


def shown(s):
    """What mbx_esc_term / the HTML text show of s (controls as \\xNN)."""
    out = []
    for ch in s:
        o = ord(ch)
        if o < 0x20 or o == 0x7f:
            out.append("\\x%02x" % o)
        elif 0xdc80 <= o <= 0xdcff:  # a raw byte that is not UTF-8
            out.append("\\x%02x" % (o - 0xdc00))
        elif 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069:
            out.append("\\u%04x" % o)
        elif 0x80 <= o <= 0x9f:
            out.append("".join("\\x%02x" % b for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out)


def write_run(path, scale, names, obs=True):
    rows, orows = [], []
    for i, name in enumerate(names):
        for e in (0, 4, 8):
            b, t = 1 << e, (0.5 + i) * scale * (1 + e / 8.0)
            r = dict.fromkeys(COLS, "")
            r.update(benchmark=name, procs=2, bytes=b, n=8, mean_us=t, tmean_us=t, median_us=t,
                     min_us=t * 0.9, max_us=t * 1.1, ci95_lo_us=t * 0.95, ci95_hi_us=t * 1.05,
                     outliers=0, status="SETTLED", stop_rule=name, bandwidth_MBps=b / t,
                     timing=name, label=name, root="", op=name, param="", param_name=name,
                     ranks=name, refined=0, validated="no")
            rows.append(r)
            orows += [dict(benchmark=name, procs=2, bytes=b, obs=k, time_us=t * (1 + k / 50.0),
                           label=name, root="", param="") for k in range(8)]
    with open(path, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
        w = csv.DictWriter(f, COLS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    base = path[:-4]
    if obs:
        with open(base + ".obs.csv", "w", newline="", encoding="utf-8",
                  errors="surrogateescape") as f:
            w = csv.DictWriter(f, OBS, lineterminator="\n")
            w.writeheader()
            w.writerows(orows)
    with open(base + ".env.csv", "w", newline="", encoding="utf-8",
              errors="surrogateescape") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["key", "value"])
        w.writerows([("tool", "mpibex")] + [("env.X%d%s" % (k, h), h)
                                           for k, h in enumerate(names)])


def paths(d):
    """The hostile input file, the hostile launch directory, the output."""
    return (os.path.join(d, "in`touch ${MARK}`$(id)\x1b]0;T\x07'\"\nx.csv"),
            os.path.join(d, "dir`id`$(id)\x1b[2J'\"\ny"),
            os.path.join(d, "out`id`$(id)\x1b]0;T\x07'\"\nz"))


def make(d, mark):
    os.makedirs(d, exist_ok=True)
    names = hostile(mark, "csv")
    write_run(os.path.join(d, "a.csv"), 1.0, names)
    f, dr, _ = paths(d)
    write_run(f, 1.5, names)
    os.makedirs(dr, exist_ok=True)
    for k in (1, 2):
        write_run(os.path.join(dr, "launch-%02d.csv" % k), 1.2 + k / 10.0, names, obs=False)
    # One hostile value in a checked column: each must be refused (exit 2)
    # with a message that echoes it escaped.
    bad = "1\x1b]0;OWNED\x07`touch %s/bad`\x9b" % mark
    for col in ("procs", "bytes", "median_us", "status", "n"):
        rows = [dict.fromkeys(COLS, "")]
        rows[0].update(benchmark="b\x1b[1m", procs=2, bytes=8, median_us=1, status="SETTLED",
                       n=4)
        rows[0][col] = bad
        with open(os.path.join(d, "bad-%s-\x1b]0;T\x07.csv" % col), "w", newline="",
                  encoding="utf-8", errors="surrogateescape") as fh:
            w = csv.DictWriter(fh, COLS, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)


def fail(msg):
    print("FAIL: " + msg)
    return 1


def gp_code(line):
    """The parts of a gnuplot line outside single-quoted strings and comments
    (the script itself writes double-quoted strings only of its own text)."""
    out, i, q = [], 0, None
    while i < len(line):
        c = line[i]
        if q == "'":
            if c == "'" and line[i + 1:i + 2] == "'":
                i += 2
                continue
            if c == "'":
                q = None
        elif q == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                q = None
            out.append(c)
        elif c == "#":
            break
        else:
            if c in "'\"":
                q = c
            out.append(c if c != "'" else "")
        i += 1
    return "".join(out), q


def gp_macros(line):
    """The @names gnuplot's macro scanner expands in a line, before parsing
    it: its quote flags differ from the parser's (a ' toggles one even
    inside double quotes, a \\ inside double quotes escapes the next "),
    so a text can look quoted to the parser and not to the scanner."""
    names, sq, dq, esc = [], False, False, False
    for i, c in enumerate(line):
        if c == "@" and not sq and not dq:
            names.append(re.match(r"\w*", line[i + 1:]).group(0))
        if c == '"' and not esc:
            dq = not dq
        elif c == "'":
            sq = not sq
        elif c == "#" and not sq and not dq:
            break
        esc = c == "\\" and dq and not esc
    return names


def check_gp(path):
    bad = 0
    shown_fails = [0]

    def fail(msg):  # the first few of a file are enough to see
        shown_fails[0] += 1
        if shown_fails[0] <= 5:
            print("FAIL: " + msg[:300])
        return 1
    data = open(path, "rb").read()
    for n, raw in enumerate(data.split(b"\n"), 1):
        if re.search(rb"[\x00-\x08\x0a-\x1f\x7f]", raw):
            bad |= fail("%s:%d: a control byte" % (path, n))
        line = raw.decode("utf-8", "replace")
        code, q = gp_code(line)
        if q == "'":
            bad |= fail("%s:%d: a single-quoted string is not closed on its line" % (path, n))
        if "`" in code:
            bad |= fail("%s:%d: a backquote outside a single-quoted string: %r" % (path, n, line))
        for word in ("system", "shell", "load", "call", "eval", "cd", "pipe"):
            if re.search(r"\b%s\b" % word, code):
                bad |= fail("%s:%d: '%s' in command text: %r" % (path, n, word, line))
        if re.search(r"^\s*!|[^=!<>]!\s*[a-z]", code):
            bad |= fail("%s:%d: a '!' shell escape: %r" % (path, n, line))
        for m in re.finditer(r"@(\w+)", code):
            if m.group(1) not in ("png_term", "svg_term"):
                bad |= fail("%s:%d: a macro @%s" % (path, n, m.group(1)))
        for name in gp_macros(line):
            if name not in ("png_term", "svg_term") or not re.match(r"set terminal @", line):
                bad |= fail("%s:%d: gnuplot would expand @%s: %r" % (path, n, name, line))
        if re.search(r"(^|;)\s*set\s+(output|print|table)\b", code) and not re.search(
                r"set output '[A-Za-z0-9._+-]+\.(png|svg)'$", line):
            bad |= fail("%s:%d: output to an unexpected place: %r" % (path, n, line))
    return bad


class Page(HTMLParser):
    VOID = {"meta", "img", "br", "hr", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed"):
            self.errors.append("index.html has a <%s> tag" % tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("index.html: </%s> closes %s" % (tag, self.stack[-1:]))
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_report(out, mark):
    bad = check_gp(os.path.join(out, "plots.gp"))
    for f in ("index.html", "index.md"):
        if not os.path.exists(os.path.join(out, f)):
            return fail("no %s in the report" % f)
    names = hostile(mark, "csv")
    p = Page()
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    p.feed(html)
    p.close()
    for e in p.errors:
        bad |= fail(e)
    text = "".join(p.text)
    for s in names:
        want = shown(s).replace("\n", "\\x0a")
        if want not in text:
            bad |= fail("index.html does not show %r literally (as %r)" % (s, want))
    md = open(os.path.join(out, "index.md"), encoding="utf-8").read()
    if re.search(r"[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]", md):
        bad |= fail("index.md holds a control character")
    for n, line in enumerate(md.split("\n"), 1):
        if line.startswith("|") and not line.startswith("|---"):
            cells = len(re.findall(r"(?<!\\)\|", line))
            # the separator row after each header fixes the column count
            if cells < 2:
                bad |= fail("index.md:%d: a broken table row" % n)
    block = []
    for l in md.split("\n") + [""]:
        if l.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", l)))
        elif block:
            if len(set(block)) != 1:
                bad |= fail("index.md: a table whose rows have %s cells" % sorted(set(block)))
            block = []
    svgs = glob.glob(os.path.join(out, "*-latency.svg"))
    if not svgs:
        bad |= fail("no latency SVG in %s" % out)
    alltext = ""
    for s in svgs:
        alltext += open(s, encoding="utf-8", errors="replace").read()
    alltext = alltext.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"') \
        .replace("&apos;", "'").replace("&#39;", "'").replace("&amp;", "&")
    for s in names:
        want = shown(s).replace("\n", "\\x0a")
        if want not in alltext:
            bad |= fail("no SVG title shows %r literally (as %r)" % (s, want))
    return bad


def check_tty(files):
    bad = 0
    for path in files:
        data = open(path, "rb").read()
        m = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", data)
        if m:
            bad |= fail("%s: control byte 0x%02x at %d: %r" % (path, m.group()[0], m.start(),
                                                            data[max(0, m.start() - 30):m.end() + 30]))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            bad |= fail("%s: invalid UTF-8 (%s)" % (path, e))
            continue
        if re.search("[\x80-\x9f]", text):
            bad |= fail("%s: a C1 control character" % path)
    return bad


def on_pty(cmd):
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    out = b""
    while True:
        try:
            d = os.read(fd, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
    _, st = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(st)
    bad = 0
    m = re.search(rb"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]", out)
    if m:
        bad = fail("%s: control byte 0x%02x on the terminal: %r" % (
            cmd[1], m.group()[0], out[max(0, m.start() - 30):m.end() + 30]))
    try:
        if re.search("[\x80-\x9f]", out.decode("utf-8")):
            bad = fail("%s: a C1 control character on the terminal" % cmd[1])
    except UnicodeDecodeError as e:
        bad = fail("%s: invalid UTF-8 on the terminal (%s)" % (cmd[1], e))
    print("%s on a terminal: exit %d, %d bytes, %d escapes shown as \\x1b" % (
        cmd[1], code, len(out), out.count(b"\\x1b")))
    return code if code else bad


def main(argv):
    if len(argv) >= 3 and argv[0] == "make":
        make(argv[1], argv[2])
        return 0
    if len(argv) == 2 and argv[0] == "names":
        sys.stdout.write("\0".join(paths(argv[1])) + "\0")
        return 0
    if len(argv) == 2 and argv[0] == "check-gp":
        return check_gp(argv[1])
    if len(argv) == 3 and argv[0] == "check-report":
        return check_report(argv[1], argv[2])
    if len(argv) >= 2 and argv[0] == "pty":
        return on_pty(argv[1:])
    if argv and argv[0] == "check-tty":
        return check_tty(argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
