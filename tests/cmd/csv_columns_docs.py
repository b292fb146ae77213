#!/usr/bin/env python3
"""The results columns the docs list are the column table's: the table
"OUT.csv columns" of docs/csv-format.md names every column of the table in
mbx/result.h (as `csvcheck --columns` prints it), in the same order, with
the same unit, and no other.

  csv_columns_docs.py CSVCHECK DOCS_DIR
Exit status 0 when they agree; each difference is one line "FAIL: ...".
"""
import re
import subprocess
import sys


def doc_columns(path):
    """(name, unit) of each column of the docs' table, in its order; a row
    of several names (`min_us`, `max_us`) gives each the row's unit."""
    text = open(path, encoding="utf-8").read()
    start = text.index("\n## OUT.csv columns")
    section = text[start + 1:text.index("\n## ", start + 1)]
    cols = []
    for line in section.splitlines():
        m = re.match(r"\| ((?:`[A-Za-z0-9_]+`(?:, )?)+) \|([^|]*)\|", line)
        if m:
            for name in re.findall(r"`([A-Za-z0-9_]+)`", m.group(1)):
                cols.append((name, m.group(2).strip()))
    return cols


def main():
    csvcheck, docs = sys.argv[1:3]
    out = subprocess.run([csvcheck, "--columns"], stdout=subprocess.PIPE, check=True,
                         text=True).stdout
    table = [tuple((line.split("\t") + [""])[:2]) for line in out.splitlines()]
    doc = doc_columns(docs + "/csv-format.md")
    fails = 0
    if len(table) < 50:
        print("FAIL: csvcheck --columns printed %d columns" % len(table))
        return 1
    for i in range(max(len(table), len(doc))):
        code = table[i] if i < len(table) else None
        said = doc[i] if i < len(doc) else None
        if code != said:
            print("FAIL: column %d: the code has %s, docs/csv-format.md %s" % (i + 1, code, said))
            fails += 1
    print("%d columns: %s" % (len(table), "%d difference(s)" % fails if fails else "OK"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
