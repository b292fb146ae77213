#!/usr/bin/env bash
# The benchmark parameter as an independent variable:
# a range of thread counts expands like --procs, an unsized benchmark
# measured at several values forms one curve over the parameter, a sized
# one a curve over size per value, and the rows carry the value.
# usage: param_axis.sh MPIEXEC NPFLAG MPIBEX OUTDIR
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4
. "$(dirname "$0")/../lib.sh"
out=$dir/param_axis.csv
rm -f "$out" "${out%.csv}".* "${out%.csv}"_mt*

# threads.barrier over 1, 2, 4 threads; pingpong.mt over size at 1 and 2
# threads per rank (2 threads: MPI_THREAD_MULTIPLE).
if "$mpiexec" "$npflag" 2 "$mpibex" run --bench threads.barrier --param 1:4 --stop fixed:10 \
    -o "$out" >"$dir/param_axis.log" 2>&1 &&
  "$mpiexec" "$npflag" 2 "$mpibex" run --bench pingpong.mt --param 1:2 --sizes 8,1K \
    --stop fixed:10 --thread-level multiple -o "${out%.csv}_mt.csv" >>"$dir/param_axis.log" 2>&1; then
  pass "parameter ranges ran"
else
  cat "$dir/param_axis.log"
  fail "parameter range run failed"
fi
grep -q "^# curve threads.barrier \[cli\] over threads P=1: 3 points" "$dir/param_axis.log" &&
  pass "one curve over threads" || fail "no curve summary over threads"
python3 - "$out" "${out%.csv}_mt.csv" <<'PY' && pass "rows per parameter value" || fail "rows per parameter value"
import csv, sys
rows = [r for f in sys.argv[1:] for r in csv.DictReader(open(f, newline=""))]
tb = sorted((int(r["param"]), int(r["bytes"])) for r in rows if r["benchmark"] == "threads.barrier")
assert tb == [(1, 0), (2, 0), (4, 0)], tb
mt = sorted((int(r["param"]), int(r["bytes"])) for r in rows if r["benchmark"] == "pingpong.mt")
assert mt == [(1, 8), (1, 1024), (2, 8), (2, 1024)], mt
assert all(r["param_name"] == "threads" for r in rows), "param_name must be threads"
print("parameter axis:", len(rows), "rows")
PY
# Sphinx's stop rule on the new benchmarks: cv:EPS is recorded, and a point
# that does not reach it by n_max is UNSETTLED (n = n_max), never SETTLED;
# in passes, n_max bounds each pass and the point ends unsettled.
cv=$dir/param_axis_cv.csv
rm -f "$cv" "${cv%.csv}".*
if "$mpiexec" "$npflag" 1 "$mpibex" run --bench threads.mutex,threads.barrier --param 2 \
    --stop cv:1e-9 --nmax 40 -q -o "$cv" >"$dir/param_axis_cv.log" 2>&1; then
  pass "cv run ran"
else
  cat "$dir/param_axis_cv.log"
  fail "cv run failed"
fi
python3 - "$cv" <<'PY' && pass "cv rule: UNSETTLED at n_max" || fail "cv rule: UNSETTLED at n_max"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2, rows
for r in rows:
    assert r["stop_rule"].startswith("cv:"), r["stop_rule"]
    if r.get("passes"):
        # In passes: every pass took at most n_max (40) observations, the
        # point reached its most passes unsettled.
        assert r["status"] == "UNSETTLED", (r["benchmark"], r["status"])
        assert int(r["nmin"]) <= 40 and int(r["n"]) == int(r["passes"]) * int(r["nmin"]), \
            (r["benchmark"], r["n"], r["passes"], r["nmin"])
    else:
        assert r["status"] == "UNSETTLED" and r["n"] == "40", (r["benchmark"], r["status"], r["n"])
PY
mbx_finish
