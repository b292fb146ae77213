#!/usr/bin/env bash
# `mpibex run --fake N`: the whole batch flow on the fake back
# end, one process, no MPI. usage: run_fake.sh MPIBEX CSVCHECK WORKDIR CASE
#  csv:     a small plan on 4 simulated ranks writes a CSV csvcheck accepts,
#           with the passes columns filled: every row >= 1 pass, every
#           SETTLED row >= 5 passes over >= 1 s (with --monitor off every
#           point settles); the environment file is the fake's, the probe
#           file is written; the table says nothing was measured;
#  determinism: the same run twice with --seed: byte-identical CSVs (rows
#           and observations);
#  resume:  a run stopped by a signal after its 12th request
#           (MBX_TEST_FAKE_STOP_PASSES: the fake is too quick to catch with
#           kill) exits 143 and keeps its journal; --resume keeps its rows
#           byte for byte (sorted among the new ones at the end) and
#           measures only the rest: one row per point.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 csvcheck=$2 work=$3 case=$4
test_case=$case
rm -rf "$work/$case"
mkdir -p "$work/$case"
cd "$work/$case" || exit 1
cat >plan.ini <<'PLAN'
[latency]
bench = pingpong.send_recv
sizes = 1:64KiB:4
stop  = stderr:3%
[collectives]
bench = coll.allreduce
sizes = 8:64KiB:8
stop  = stderr:3%
PLAN
points=15 # 9 ping-pong sizes; 6 allreduce sizes (8 to 32 KiB by 8, and 64 KiB)
run() { "$mpibex" run --fake 4 plan.ini --seed 11 --raw "$@"; }
# column NAME of CSV FILE, one value a line
column() {
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print("\n".join(r[sys.argv[2]] for r in rows))' "$1" "$2"
}

case $case in
csv)
    # passes FILE MIN_SETTLED: every row >= 1 pass, every SETTLED row >= 5
    # passes over >= 1 s, and at least MIN_SETTLED SETTLED rows
    passes() {
        python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
for r in rows:
    p, span = int(r["passes"] or 0), float(r["pass_span_s"] or 0)
    if p < 1 or (r["status"] == "SETTLED" and (p < 5 or span < 1.0)):
        bad.append((r["benchmark"], r["bytes"], r["status"], p, span))
settled = sum(r["status"] == "SETTLED" for r in rows)
print(f"{sys.argv[1]}: {len(rows)} rows, {settled} SETTLED, bad: {bad}")
sys.exit(1 if bad or settled < int(sys.argv[2]) else 0)
PY
    }
    # With the monitor: the fake's probe changes level every 16 probes, so
    # points may straddle two levels (SHIFTED); the probe file is written.
    run -o a.csv >out 2>err || fail "the run failed: $(cat err)"
    "$csvcheck" a.csv --rows $points --obs a.obs.csv --procs 4 \
        --bench pingpong.send_recv --bench coll.allreduce >check 2>&1 ||
        fail "csvcheck: $(cat check)"
    passes a.csv 0 || fail "passes columns (monitor on)"
    [ -s a.probe.csv ] || fail "no probe file"
    grep -qx 'tool,mpibex (fake back end)' a.env.csv && grep -qx 'ranks,4' a.env.csv ||
        fail "the environment file is not the fake's: $(head -4 a.env.csv)"
    grep -q '^# fake back end (--fake 4): .*nothing is measured' out ||
        fail "the table does not say the back end is the fake"
    grep -q '^# passes: ' out || fail "no passes summary line"
    grep -q '^# monitor (1-byte ping-pong, rank 0 and rank 3): ' out || fail "no monitor summary"
    [ ! -e a.journal ] || fail "a finished run left its journal"
    # Without the monitor: one level, so the points settle.
    run -o b.csv --monitor off >outb 2>errb || fail "the run without monitor failed: $(cat errb)"
    "$csvcheck" b.csv --rows $points --obs b.obs.csv --procs 4 >checkb 2>&1 ||
        fail "csvcheck: $(cat checkb)"
    passes b.csv $points || fail "passes columns (monitor off: every point SETTLED)"
    [ $fails -eq 0 ] && pass "$points rows twice, csvcheck OK, passes filled"
    ;;
determinism)
    run -o a.csv >/dev/null 2>err || fail "run 1 failed: $(cat err)"
    run -o b.csv >/dev/null 2>err || fail "run 2 failed: $(cat err)"
    cmp a.csv b.csv || fail "two runs with --seed 11 wrote different CSVs"
    cmp a.obs.csv b.obs.csv || fail "two runs with --seed 11 wrote different observations"
    [ "$(column a.csv passes | sort -u | wc -l)" -ge 1 ] || fail "no rows"
    [ $fails -eq 0 ] && pass "byte-identical CSVs ($(wc -l <a.csv) lines)"
    ;;
resume)
    MBX_TEST_FAKE_STOP_PASSES=40 run -o c.csv >out1 2>err1
    code=$?
    [ $code -eq 143 ] || fail "the stopped run exited $code, expected 143: $(cat err1)"
    grep -q 'stopped by signal 15: .* continue with --resume' err1 ||
        fail "no stop line: $(cat err1)"
    [ -e c.journal ] || fail "the stopped run removed its journal"
    # Rows are written as points become final; the unfinished points'
    # passes are in the journal, and --resume carries them over.
    kept=$(($(wc -l <c.csv) - 1))
    [ $kept -ge 0 ] && [ $kept -lt $points ] ||
        fail "the stopped run wrote $kept rows (expected fewer than all $points)"
    grep -Eq "; [1-9][0-9]* passes of $((points - kept)) unfinished points are in its journal; continue with --resume" err1 ||
        fail "the stop line does not count the journal's passes: $(grep stopped err1)"
    cp c.csv before.csv
    run -o c.csv --resume >out2 2>err2 || fail "the resumed run failed: $(cat err2)"
    grep -Eq "^# resumed: $kept finished points kept; [1-9][0-9]* passes of $((points - kept)) unfinished points carried over" out2 ||
        fail "no '# resumed: $kept finished points kept; N passes of $((points - kept)) unfinished points carried over' line: $(grep resumed out2)"
    grep -q "^done: $((points - kept)) points measured" err2 ||
        fail "the resumed run did not measure only the rest: $(grep '^done' err2)"
    # The finished run is sorted: every kept row is still there,
    # unchanged, wherever the sort put it.
    missing=$(grep -vxFf c.csv before.csv | wc -l)
    [ "$missing" -eq 0 ] || fail "$missing kept rows changed or went missing"
    "$csvcheck" c.csv --sorted yes >checks 2>&1 || fail "not sorted with seq 1..n: $(cat checks)"
    "$csvcheck" c.csv --rows $points --obs c.obs.csv >check 2>&1 || fail "csvcheck: $(cat check)"
    dups=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
keys = [(r["benchmark"], r["bytes"]) for r in rows]
print(len(keys) - len(set(keys)))' c.csv)
    [ "$dups" = 0 ] || fail "$dups points measured twice"
    [ ! -e c.journal ] || fail "the finished resumed run left its journal"
    [ $fails -eq 0 ] && pass "stopped after $kept of $points points; --resume measured $((points - kept))"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
