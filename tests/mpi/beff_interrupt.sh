#!/usr/bin/env bash
# SIGINT to mpiexec during `mpibex beff`: every rank stops between two
# measurements, mpiexec exits as its kind does after Ctrl-C
# (tests/lib.sh), stderr says so, the detail CSV holds whole
# rows only, there is no summary file, and no rank is left running.
# usage: beff_interrupt.sh MPIEXEC NPFLAG MPIBEX OUTDIR
set -u
. "$(dirname "$0")/../lib.sh"
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4
csv=$dir/beff_int.csv
rm -f "$csv" "${csv%.csv}.summary.csv" "$dir/beff_int.err"
"$mpiexec" "$npflag" 2 "$mpibex" beff --mem-per-proc 2MiB --random 30 --seed 3 -q -o "$csv" \
  >/dev/null 2>"$dir/beff_int.err" &
pid=$!
for _ in $(seq 1 400); do # until some rows are on disk (at most 20 s)
  [ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 20 ] && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid"
code=$?
cat "$dir/beff_int.err"
mbx_int_code_ok "$code" || { echo "expected exit ${mbx_int_codes// / or }, got $code"; exit 1; }
grep -Eq "beff stopped by signal $mbx_int_signal after .* s: the rows so far are in .*; no summary" \
  "$dir/beff_int.err" || { echo "message does not say what was kept"; exit 1; }
[ ! -e "${csv%.csv}.summary.csv" ] || { echo "a summary was written for a stopped run"; exit 1; }
sleep 0.5
if pgrep -f "$mpibex beff --mem-per-proc 2MiB --random 30 --seed 3" >/dev/null; then
  echo "a rank is still running"; exit 1
fi
python3 - "$csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][0] == "pattern", rows[0]
assert all(len(r) == len(rows[0]) for r in rows), "torn row"
print("beff_interrupt: %d whole rows kept" % (len(rows) - 1))
PY
