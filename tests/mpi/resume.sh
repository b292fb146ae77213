#!/usr/bin/env bash
# A run killed with SIGKILL mid-point, then --resume (SKaMPI's crash resume).
# usage: resume.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR [grid|refine|old]
# old: the killed run's CSV is cut to the 43 columns of format 2 (up to
# faults, before the pass columns), as if an earlier mpibex had written it;
# the resumed rows must keep 43 columns. (Narrower files, 40 to 42 columns,
# go through the same code: unit.test_csv_widths loads them.)
# Asserts: the killed run leaves no process; the resumed run keeps every
# finished row byte for byte, measures the rest, measures the point that was
# in flight last, and the final CSV parses with one row per point; a second
# --resume has nothing to do (exit 2).
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 mode=${6:-grid}
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/launcher_facts.sh"
die() {
    fail "$@"
    mbx_finish
    exit 1
}
out=$dir/resume_$mode.csv
journal=${out%.csv}.journal
rm -f "$out" "${out%.csv}".*
args=(run --bench pingpong.send_recv,coll.bcast --sizes 1:1MiB:sqrt2 --stop fixed:300 -o "$out")
[ "$mode" = refine ] && args+=(--refine 5% --budget 8)

"$mpiexec" "$npflag" 2 "$mpibex" "${args[@]}" >"$dir/resume_$mode.1.log" 2>&1 &
launcher=$!
# Kill rank 0 while a point is in flight: after at least 8 rows, at a moment
# when the journal's last line is a "begin".
rank0=""
for _ in $(seq 1 600); do
  rows=0
  [ -f "$out" ] && rows=$(($(wc -l <"$out") - 1))
  if [ "$rows" -ge 8 ] && tail -n 1 "$journal" 2>/dev/null | grep -q '^begin '; then
    rank0=$(mbx_rank_pids 0 "$mpibex run --bench pingpong.send_recv,coll.bcast" | tail -n 1)
    [ -n "$rank0" ] && kill -KILL "$rank0" && break
  fi
  sleep 0.02
done
[ -n "$rank0" ] || die "never found rank 0 mid-point to kill"
wait "$launcher"
code=$?
echo "killed rank 0 (pid $rank0); launcher exit $code"
sleep 0.5
if pgrep -f "$out" >/dev/null; then
  pgrep -af "$out"
  die "processes left after the kill"
fi
inflight=$(awk '/^begin /{k=$3} /^done /{if ($2==k) k=""} END{print k}' "$journal")
echo "in flight when killed: ${inflight:-none}"
[ -n "$inflight" ] || die "the journal shows no point in flight"
if [ "$mode" = old ]; then
  python3 - "$out" <<'EOF' || die "cutting the CSV to 43 columns failed"
import csv, sys
path = sys.argv[1]
data = open(path, newline="").read()
complete = data[: data.rfind("\n") + 1]  # a torn last row is dropped here
rows = list(csv.reader(complete.splitlines(keepends=True)))
# today's header: faults is column 43, the pass columns follow
assert rows[0][42] == "faults" and len(rows[0]) > 43, rows[0]
with open(path, "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    for r in rows:
        w.writerow(r[:43])
EOF
fi
before=$(mktemp)
cp "$out" "$before"
# The bytes of complete rows (a torn last row may follow).
keep=$(python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
print(d.rfind(b"\n") + 1)' "$before")

"$mpiexec" "$npflag" 2 "$mpibex" "${args[@]}" --resume >"$dir/resume_$mode.2.log" 2>&1 ||
  { cat "$dir/resume_$mode.2.log"; die "the resumed run failed"; }
grep -q "^# resumed: " "$dir/resume_$mode.2.log" || die "no resume line on stdout"
if [ "$mode" = old ]; then
  grep -q "^# resumed: .* has the 43 columns of an earlier mpibex; new rows get those only (passes and later are left out)" "$dir/resume_$mode.2.log" ||
    die "no line about the earlier version's columns"
fi
cmp -n "$keep" "$before" "$out" || die "finished rows changed on resume"
rm -f "$before"
[ ! -e "$journal" ] || die "a complete run left its journal"

python3 - "$out" "$inflight" "$mode" <<'EOF' || die "CSV check failed"
import csv, sys
path, inflight, mode = sys.argv[1:4]
rows = list(csv.DictReader(open(path, newline="")))
keys = [(r["label"], r["benchmark"], r["procs"], r["bytes"]) for r in rows]
assert len(keys) == len(set(keys)), "duplicated rows"
label, bench, procs, nbytes = inflight.split("|")[:4]
last = rows[-1]
assert (last["label"], last["benchmark"], last["procs"], last["bytes"]) == (label, bench, procs, nbytes), \
    "the point in flight was not measured last: %s" % (keys[-1],)
pp = [r for r in rows if r["benchmark"] == "pingpong.send_recv" and r["refined"] == "0"]
bc = [r for r in rows if r["benchmark"] == "coll.bcast" and r["refined"] == "0"]
# 1 B to 1 MiB by sqrt(2): 41 sizes, 40 after rounding (1.41 B rounds to 1 B)
assert len(pp) == 40 and len(bc) == 40, (len(pp), len(bc))
lines = list(csv.reader(open(path, newline="")))
ncols = 43 if mode == "old" else len(lines[0])
passcols = ["passes", "pass_span_s", "stderr_iid_us", "ci95_iid_lo_us", "ci95_iid_hi_us",
            "levels", "level_lo_us", "level_hi_us"]
assert lines[0][41:43] == ["events", "faults"], lines[0][40:44]
assert (lines[0][43:] == []) if mode == "old" else (lines[0][43:] == passcols), lines[0][43:]
for line in lines:
    assert len(line) == ncols, (len(line), line[:3])
if mode == "refine":
    nref = sum(r["refined"] == "1" for r in rows)
    assert 0 < nref <= 16, nref
else:
    assert all(r["refined"] == "0" for r in rows)
print("rows", len(rows), "unique; in-flight point last:", inflight)
EOF
# csvcheck takes the 43 columns of format 2 as well as today's 51.
"$csvcheck" "$out" >/dev/null || die "csvcheck rejected the resumed CSV"

"$mpiexec" "$npflag" 2 "$mpibex" "${args[@]}" --resume >/dev/null 2>"$dir/resume_$mode.3.log"
code=$?
[ "$code" -eq 2 ] && grep -q "nothing to resume" "$dir/resume_$mode.3.log" ||
  die "a second --resume: expected exit 2 and 'nothing to resume' (exit $code)"
pass "killed mid-point and resumed ($mode)"
mbx_finish
