#!/usr/bin/env python3
"""Cut a headless screen dump down to what its golden test is about, so
that a new benchmark or a new tab does not rewrite every golden screen
(docs/contributing.md, "Golden screens").

usage: golden_scope.py SCOPE DUMP...   (each DUMP is rewritten in place)

SCOPE is a golden directory's `scope` file (missing: empty), words:
  tabs      the title bar (screen row 0: the tabs) is under test
  registry  the registry's size is under test: the picker's "selected of
            N", its "rows A-B of N" and its scroll bar
Out of scope, the title bar becomes one fixed line without its colour
lines, and the registry's size becomes '#' (the scroll bar a space). What
the screen shows of the benchmarks themselves (the picker's rows) stays.
"""
import os
import re
import sys

SCROLL = set("█│▐┃|#")


def scope_words(path):
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return set(f.read().split())


def cut(text, words):
    lines = text.split("\n")
    m = re.match(r"# screen (\d+)x(\d+)", lines[0]) if lines else None
    if not m:
        return text  # not a screen dump: left as it is
    cols, rows = int(m.group(1)), int(m.group(2))
    body = lines[1:1 + rows]
    attrs = lines[1 + rows:]
    picker = any(re.match(r"^ Benchmarks: \d+ selected of \d+", row) for row in body)
    if "tabs" not in words and body:
        body[0] = "(title bar: out of this golden's scope)"
        attrs = [a for a in attrs if not a.startswith("@0 ")]
    if "registry" not in words and picker:
        body = [re.sub(r"(Benchmarks: \d+ selected of )\d+", r"\1#", row) for row in body]
        body = [re.sub(r"(rows \d+-\d+ of )\d+", r"\1#", row) for row in body]
        bar = set()
        for r, row in enumerate(body):
            if r > 0 and len(row) == cols and row[-1] in SCROLL:
                body[r] = row[:-1].rstrip()
                bar.add(r)
        last = "%d-%d " % (cols - 1, cols - 1)
        attrs = [a for a in attrs
                 if not (a.startswith("@") and a.split(" ")[0][1:].isdigit() and
                         int(a.split(" ")[0][1:]) in bar and a.split(" ")[1] + " " == last)]
    return "\n".join([lines[0]] + body + attrs)


def main():
    words = scope_words(sys.argv[1])
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = cut(text, words)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)


if __name__ == "__main__":
    main()
