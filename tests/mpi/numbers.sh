#!/usr/bin/env bash
# Numbers that must not be reported, one case per invocation:
#
#   numbers.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR CASE
#
#   tiny     1-rank collectives (barrier, bcast, allreduce, reduce): their
#            overhead-corrected times sit around 0, where the old code wrote
#            min_us -0.0100 and 1.4e8 MB/s. Asserts over every row and every
#            observation: no negative time in any *_us column or time_us, no
#            bandwidth above 10^6 MB/s, a median below the timer's
#            resolution is UNRELIABLE and has no bandwidth (csvcheck too).
#   sigstop  2 ranks, two ping-pong points (512 KiB, 1 MiB) of fixed:4000
#            observations in passes; rank 1 is stopped (SIGSTOP) twice for
#            1.5 s while the passes run. The observation that holds a stop
#            (>= 0.5 s, in OUT.obs.csv) is an event: its row has events >=
#            1 and its value stays below 0.5 s (in one go: its statistics
#            leave it out, max_us below 0.5 s, and the row is not SETTLED). A stop that
#            fell between two passes times nothing: the run is tried again
#            (at most 3 runs).
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 case=$6
. "$(dirname "$0")/../lib.sh"
test_case=$case
tag="numbers-$case-$$-$RANDOM$RANDOM"
work=$dir/numbers_$case
# Processes carrying this test's tag (the launcher's helpers and the ranks).
tagged() { mbx_tagged "MBX_FAULT_TAG=$tag"; }
rank_pid() { mbx_tagged_rank "MBX_FAULT_TAG=$tag" "$1"; } # RANK
cleanup() {
    local p
    for p in $(tagged); do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
rm -rf "$work"
mkdir -p "$work"
out=$work/r.csv

case $case in
tiny)
    # 0 B where the operation takes it; a reduction's smallest is one
    # element (0 B for it is refused, not measured as 4).
    printf '[tiny]\nbench = coll.barrier, coll.bcast\nsizes = 0,1,8,64\n[tiny_red]\nbench = coll.allreduce, coll.reduce\nsizes = 4,8,64\n' >"$work/tiny.ini"
    MBX_FAULT_TAG=$tag "$mpiexec" "$npflag" 1 "$mpibex" run "$work/tiny.ini" \
        --settle 0 --raw -q -o "$out" >"$work/run.out" 2>"$work/run.err"
    code=$?
    [ "$code" -eq 0 ] && pass "exit 0" || fail "exit $code: $(cat "$work/run.err")"
    sed -n '2,$p' "$out" | sed 's/^/  row: /'
    "$csvcheck" "$out" --env "${out%.csv}.env.csv" --obs "${out%.csv}.obs.csv" --procs 1 &&
        pass "csvcheck: no negative time, UNRELIABLE rows without bandwidth" || fail "csvcheck"
    python3 - "$out" "${out%.csv}.env.csv" "${out%.csv}.obs.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
env = dict(r for r in csv.reader(open(sys.argv[2], newline="")) if len(r) == 2)
obs = list(csv.DictReader(open(sys.argv[3], newline="")))
tick_us = float(env["timer_resolution_s"]) * 1e6
bad = []
for i, r in enumerate(rows, 1):
    for k, v in r.items():
        if k.endswith("_us") and v != "" and (v.startswith("-") or float(v) < 0):
            bad.append("row %d: %s = %s" % (i, k, v))
    if r["bandwidth_MBps"] != "" and float(r["bandwidth_MBps"]) > 1e6:
        bad.append("row %d: bandwidth %s MB/s" % (i, r["bandwidth_MBps"]))
    med = r["median_us"]
    if med != "" and float(med) < tick_us and r["status"] != "UNRELIABLE":
        bad.append("row %d: median %s us below the %.4f us tick but %s" % (i, med, tick_us, r["status"]))
    if r["status"] == "UNRELIABLE" and r["bandwidth_MBps"] != "":
        bad.append("row %d: UNRELIABLE with bandwidth %s" % (i, r["bandwidth_MBps"]))
for j, o in enumerate(obs, 1):
    if o["time_us"].startswith("-"):
        bad.append("observation %d: time_us %s" % (j, o["time_us"]))
        break
for b in bad[:20]:
    print("  " + b)
n_unrel = sum(r["status"] == "UNRELIABLE" for r in rows)
print("  %d rows, %d UNRELIABLE (tick %.4f us)" % (len(rows), n_unrel, tick_us))
sys.exit(1 if bad or not rows else 0)
EOF
    [ $? -eq 0 ] && pass "no negative time, no absurd bandwidth, sub-tick medians UNRELIABLE" ||
        fail "numbers that must not be written"
    ;;
sigstop)
    found=0
    for try in 1 2 3; do
        rm -f "$work"/r.*
        MBX_FAULT_TAG=$tag "$mpiexec" "$npflag" 2 "$mpibex" run --bench pingpong.send_recv \
            --sizes 512KiB,1MiB --stop fixed:4000 --pair 0,1 --monitor off --settle 0 \
            --raw -q -o "$out" >"$work/run.out" 2>"$work/run.err" &
        launcher=$!
        r1=""
        for ((i = 0; i < 300 && ${#r1} == 0; i++)); do
            r1=$(rank_pid 1)
            [ -n "$r1" ] || sleep 0.1
        done
        [ -n "$r1" ] || { fail "rank 1 not found"; break; }
        # The points are measured in passes, interleaved, from the journal's
        # creation on; a little later some pass is under way (or the run
        # waits between passes: then no observation holds the stop and the
        # run is tried again).
        for ((i = 0; i < 3000; i++)); do
            [ -e "${out%.csv}.journal" ] && sleep 0.2 && break
            kill -0 "$launcher" 2>/dev/null || break
            sleep 0.01
        done
        # Twice: one stop may land in the untimed set-up of a point on a
        # loaded machine; either stop held in an observation is enough.
        kill -STOP "$r1"
        sleep 1.5
        kill -CONT "$r1"
        sleep 0.2
        kill -STOP "$r1"
        sleep 1.5
        kill -CONT "$r1"
        wait "$launcher"
        code=$?
        [ "$code" -eq 0 ] || { fail "try $try: exit $code: $(cat "$work/run.err")"; break; }
        python3 - "$out" "${out%.csv}.obs.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
obs = list(csv.DictReader(open(sys.argv[2], newline="")))
stopped = {o["bytes"] for o in obs if float(o["time_us"]) >= 5e5}
if not stopped:
    print("  no observation held the stop (it fell between points)")
    sys.exit(3)
bad = 0
for r in rows:
    if r["bytes"] not in stopped:
        continue
    ev = r.get("events", "")
    print("  stopped point: %s B, n %s, events %s, status %s, median %s us, max %s us"
          % (r["bytes"], r["n"], ev or "(no column)", r["status"], r["median_us"], r["max_us"]))
    if ev == "" or int(ev) < 1:
        print("  FAIL: the stop is not counted as an event"); bad = 1
    # Measured in one go, an event keeps the point from SETTLED; in passes
    # it moves one pass's median little and the between-pass error carries
    # it (docs/algorithms.md, "The scheduler").
    if r["status"] == "SETTLED" and not r.get("passes"):
        print("  FAIL: a point with an event is SETTLED"); bad = 1
    if not r.get("passes") and (r["max_us"] == "" or float(r["max_us"]) >= 5e5):
        print("  FAIL: the event is in the statistics (max_us %s)" % r["max_us"]); bad = 1
    # In passes the pooled statistics keep it; the value, a median of pass
    # medians, must not move.
    if r.get("passes") and (r["median_us"] == "" or float(r["median_us"]) >= 5e5):
        print("  FAIL: the stop moved the value (median_us %s)" % r["median_us"]); bad = 1
sys.exit(bad)
EOF
        rc=$?
        [ "$rc" -eq 3 ] && continue
        found=1
        [ "$rc" -eq 0 ] && pass "the stopped observation is an event: counted, left out, not SETTLED" ||
            fail "the stopped point"
        "$csvcheck" "$out" --obs "${out%.csv}.obs.csv" --procs 2 && pass "csvcheck (events in the observation count)" ||
            fail "csvcheck"
        break
    done
    [ "$found" -eq 1 ] || [ "$fails" -gt 0 ] || fail "no try timed the stop"
    ;;
*) fail "unknown case $case" ;;
esac
mbx_finish
