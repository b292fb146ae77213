#!/usr/bin/env bash
# Formula cells (CSV injection): merge and compare copy text cells from
# their inputs into CSVs that people open in spreadsheets. A text cell that
# starts with = + - @ TAB or CR must come out with a leading single quote,
# numbers (-1.5) as they are, and compare's "not distinguishable" verdict
# must not be a bare "=". usage: csv_formula.sh MPIBEX DIR
set -u
. "$(dirname "$0")/../lib.sh"
mpibex=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || die "no directory $dir"

"$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1:4 --passes 2 --max-passes 2 --span 0 \
    --raw -o run.csv >/dev/null 2>&1 || die "the fake run failed"
# The labels of the three sizes become formulas, in the results and the
# observations alike (compare matches the two by key).
python3 - <<'PY' || die "rewriting the fixture failed"
import csv
evil = {"1": '=HYPERLINK("http://x","y")', "2": "@SUM(1+1)|cmd", "4": "+1+1"}
for fn in ("run.csv", "run.obs.csv"):
    rows = list(csv.reader(open(fn, newline="")))
    h = rows[0]
    for r in rows[1:]:
        r[h.index("label")] = evil[r[h.index("bytes")]]
    with open("h" + fn, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
PY
cp run.env.csv hrun.env.csv

"$mpibex" merge hrun.csv -o m.csv >/dev/null 2>&1 || fail "merge exited $?"
"$mpibex" compare hrun.csv hrun.csv -o c.csv >/dev/null 2>&1 || fail "compare exited $?"
# One python for every check (its start-up takes seconds on a loaded machine).
python3 - <<'PY' || fail "the outputs' checks"
import csv, sys
want = ["'+1+1", "'=HYPERLINK(\"http://x\",\"y\")", "'@SUM(1+1)|cmd"]
bad = 0
def col(fn, name):
    r = list(csv.reader(open(fn, newline="")))
    i = r[0].index(name)
    return [x[i] for x in r[1:]]
def check(ok, what):
    global bad
    print(("PASS: " if ok else "FAIL: ") + what)
    bad += not ok
check(sorted(col("m.csv", "label")) == want, "merge: formula labels quoted: %s" % col("m.csv", "label"))
check(set(col("m.csv", "procs")) == {"2"}, "merge: numbers stay numbers")
check(sorted(col("c.csv", "label")) == want, "compare: formula labels quoted")
check(set(col("c.csv", "verdict")) <= {"same", "not_distinguishable"},
      "compare: a file against itself is not different: %s"
      % set(col("c.csv", "verdict")))
def number(c):
    try:
        float(c)
        return True
    except ValueError:
        return False
cells = [(fn, c) for fn in ("m.csv", "c.csv") for r in csv.reader(open(fn, newline=""))
         for c in r if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not number(c)]
check(not cells, "no formula cell in m.csv or c.csv: %s" % cells)
sys.exit(bad)
PY
mbx_finish
