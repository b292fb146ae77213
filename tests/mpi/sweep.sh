#!/usr/bin/env bash
# Process-count sweeps, refinement over P, the ping-pong pair scan and
# --pair, on 4 ranks (kept tiny: 4 ranks on 2 cores wait out scheduler
# slices).
# usage: sweep.sh MPIEXEC NPFLAG MPIBEX OUTDIR
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4
. "$(dirname "$0")/../lib.sh"
out=$dir/sweep.csv
rm -f "$out" "${out%.csv}".*

# 1. Unsized collectives over a P range, refined over P; a sized one per P.
if "$mpiexec" "$npflag" 4 "$mpibex" run --bench coll.barrier,coll.comm_dup,coll.bcast --procs 1:4 \
    --sizes 4,1K --stop fixed:10 --refine 1% --budget 2 -o "$out" >"$dir/sweep.1.log" 2>&1; then
  pass "P sweep ran"
else
  cat "$dir/sweep.1.log"
  fail "P sweep failed"
fi
python3 - "$out" <<'EOF' && pass "P sweep rows" || fail "P sweep rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for name in ("coll.barrier", "coll.comm_dup"):
    r = [x for x in rows if x["benchmark"] == name]
    grid = sorted(int(x["procs"]) for x in r if x["refined"] == "0")
    assert grid == [1, 2, 4], (name, grid)
    refined = [int(x["procs"]) for x in r if x["refined"] == "1"]
    assert all(p == 3 for p in refined) and len(refined) <= 1, (name, refined)
    for x in r:
        p = int(x["procs"])
        want = "0" if p == 1 else "0-%d" % (p - 1)
        assert x["ranks"] == want, (x["ranks"], want)
        assert x["bytes"] == "0"
b = [x for x in rows if x["benchmark"] == "coll.bcast"]
assert sorted((int(x["procs"]), int(x["bytes"])) for x in b) == \
    [(1, 4), (1, 1024), (2, 4), (2, 1024), (4, 4), (4, 1024)], b
assert all(x["root"] == "0" for x in b), "bcast rows must name the root"
print("P sweep:", len(rows), "rows")
EOF
# comm_dup, not barrier: a 1-rank barrier can correct to <= 0 (UNRELIABLE),
# which leaves its curve two points and no summary.
grep -q "^# curve coll.comm_dup \[cli\] over P: " "$dir/sweep.1.log" && pass "curve summary over P" ||
  fail "no curve summary over P"

# 2. The pair scan picks rank 0 and some other rank, says so, and the rows
# carry the pair; --pair chooses it.
out2=$dir/sweep_pair.csv
rm -f "$out2" "${out2%.csv}".*
"$mpiexec" "$npflag" 4 "$mpibex" run --bench pingpong.send_recv --sizes 1,1K --stop fixed:20 \
  -o "$out2" >"$dir/sweep.2.log" 2>&1 || fail "pair scan run failed"
far=$(sed -n 's/^# ping-pong pair: ranks 0 and \([1-3]\), the largest latency.*/\1/p' "$dir/sweep.2.log")
[ -n "$far" ] && pass "pair scan chose rank $far" || fail "no pair scan line"
ranks() { python3 -c 'import csv,sys; print(" ".join(sorted({r["ranks"] for r in csv.DictReader(open(sys.argv[1]))})))' "$1"; }
[ -n "$far" ] && [ "$(ranks "$out2")" = "0,$far" ] &&
  pass "rows carry the scanned pair" || fail "rows do not carry the pair 0,$far"
"$mpiexec" "$npflag" 4 "$mpibex" run --bench pingpong.ssend_recv --pair 2,1 --sizes 8 \
  --stop fixed:20 -o "$out2" --force >"$dir/sweep.3.log" 2>&1 || fail "--pair run failed"
grep -q "ping-pong pair" "$dir/sweep.3.log" && fail "--pair must not scan" || pass "--pair does not scan"
[ "$(ranks "$out2")" = "2,1" ] && pass "--pair 2,1 in ranks" ||
  fail "--pair 2,1 not in the ranks column"
mbx_finish
