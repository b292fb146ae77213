#!/usr/bin/env bash
# Streaming bandwidth on the fake back end (no MPI): every bw.*
# row's bandwidth_MBps and msg_rate_per_s follow the benchmark's bytes and
# messages per observation over median_us (the formulas of
# docs/csv-format.md, restated here), from the command line (--param) and
# from a plan file (param key); the window reaches the row.
#
# usage: bw_fake_check.sh MPIBEX CSVCHECK DIR
set -u
mpibex=$1 csvcheck=$2 dir=$3
. "$(dirname "$0")/../lib.sh"
mkdir -p "$dir" || die "cannot make $dir"
rm -f "$dir"/bwf*

# W, the window: the default (64), --param, and a plan file's param key.
"$mpibex" run --fake 4 --bench bw.uni,bw.bi,bw.multi,bw.exchange --sizes 8,64K,1M \
  --stop fixed:10 --span 0 -q -o "$dir/bwf_default.csv" >/dev/null ||
  die "run --fake with the default window failed"
"$mpibex" run --fake 4 --bench bw.uni,bw.bi,bw.multi --param 1,16 --sizes 8,64K \
  --stop fixed:10 --span 0 -q -o "$dir/bwf_param.csv" >/dev/null ||
  die "run --fake --param 1,16 failed"
cat >"$dir/bwf.ini" <<'INI'
[window]
bench = bw.multi
param = 32
sizes = 1KiB
stop = fixed:10
INI
"$mpibex" run --fake 6 "$dir/bwf.ini" --span 0 -q -o "$dir/bwf_plan.csv" >/dev/null ||
  die "run --fake of a plan with param = 32 failed"

for f in default param plan; do
  "$csvcheck" "$dir/bwf_$f.csv" >/dev/null || { "$csvcheck" "$dir/bwf_$f.csv"; die "csvcheck: $f"; }
done

# merge keeps what a row moved: its bandwidth is the runs' bytes moved per
# observation over the merged median, not bytes over it.
"$mpibex" run --fake 4 --bench bw.uni,bw.bi,bw.multi,bw.exchange,mw.send --sizes 8,64K,1M \
  --stop fixed:10 --span 0 --seed 7 -q -o "$dir/bwf_seed.csv" >/dev/null ||
  die "run --fake --seed 7 failed"
"$mpibex" merge "$dir/bwf_default.csv" "$dir/bwf_seed.csv" -o "$dir/bwf_merged.csv" >/dev/null ||
  die "merge of two bw runs failed"

python3 - "$dir" <<'PY' || die "bandwidth or message rate does not follow the formula"
import csv, sys
d = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open(f"{d}/bwf_{name}.csv", newline="")))
def msgs(r):
    w = int(r["param"]) if r["param"] else None
    p = int(r["procs"])
    return {"bw.uni": w, "bw.bi": 2 * (w or 0), "bw.multi": (p // 2) * (w or 0),
            "bw.exchange": 4}[r["benchmark"]]
bad = 0
def check(name, want_w):
    global bad
    rs = rows(name)
    assert rs, name
    for r in rs:
        b = r["benchmark"]
        if b != "bw.exchange":
            assert r["param_name"] == "window", (name, r["param_name"])
            assert int(r["param"]) in want_w, (name, b, r["param"])
        else:
            assert r["param"] == "" and r["param_name"] == "", (name, r["param"])
        med = float(r["median_us"])
        m = msgs(r)
        bw = m * int(r["bytes"]) / med           # MB/s = bytes / us
        rate = m / med * 1e6
        if abs(float(r["bandwidth_MBps"]) - bw) > 0.01 + 1e-3 * bw:
            print("FAIL:", name, b, r["bytes"], "bandwidth", r["bandwidth_MBps"], "expected", bw)
            bad += 1
        if r["msg_rate_per_s"] == "" or abs(float(r["msg_rate_per_s"]) - rate) > 0.1 + 1e-3 * rate:
            print("FAIL:", name, b, r["bytes"], "msg_rate_per_s", r["msg_rate_per_s"], "expected", rate)
            bad += 1
    return rs
rs = check("default", {64})
assert len(rs) == 12, len(rs)
# The model is a stream, not a ping-pong: a window of 1 MiB messages moves
# far more than one message's bytes per observation.
uni = {int(r["bytes"]): r for r in rs if r["benchmark"] == "bw.uni"}
assert float(uni[1048576]["median_us"]) > 32 * float(uni[8]["median_us"]), uni
rs = check("param", {1, 16})
assert len(rs) == 12, len(rs)
rs = check("plan", {32})
assert len(rs) == 1 and rs[0]["procs"] == "6", rs
mrows = list(csv.DictReader(open(f"{d}/bwf_merged.csv", newline="")))
assert len(mrows) == 15, len(mrows)
for r in mrows:
    if r["benchmark"] == "mw.send":
        m = 2 * int(r["param"])
    else:
        m = msgs(r)
    want = m * int(r["bytes"]) / float(r["median_us"])
    if abs(float(r["bandwidth_MBps"]) - want) > 0.01 + 1e-3 * want:
        print("FAIL: merged", r["benchmark"], r["bytes"], "bandwidth", r["bandwidth_MBps"],
              "expected", want)
        bad += 1
sys.exit(1 if bad else 0)
PY
pass "bw.* on the fake: bandwidth_MBps and msg_rate_per_s = bytes and messages moved / median_us (default window, --param, plan key, merge)"
mbx_finish
