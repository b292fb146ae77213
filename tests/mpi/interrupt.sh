#!/usr/bin/env bash
# SIGINT to mpiexec mid-run (as Ctrl-C would send): every rank must stop
# cleanly, mpiexec exit as its kind does after Ctrl-C (tests/lib.sh),
# the message must say what was kept, the CSV must parse and hold the
# finished points, and no rank may be left running.
# usage: interrupt.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR
set -u
. "$(dirname "$0")/../lib.sh"
mpiexec=$1 npflag=$2 mpibex=$3 check=$4 dir=$5
csv=$dir/interrupt.csv
rm -f "$csv" "${csv%.csv}.journal" "${csv%.csv}.env.csv" "$dir/interrupt.err" # a run before this one left its journal
"$mpiexec" "$npflag" 2 "$mpibex" run --bench coll.bcast,coll.allreduce --sizes 4:4M:sqrt2 \
  --stop stderr:0.2% --nmax 200000 -q -o "$csv" >/dev/null 2>"$dir/interrupt.err" &
pid=$!
# Wait until the run is well under way: 10 passes in its journal (rows come
# only as points become final, all together near the end of a short run).
for _ in $(seq 1 200); do
  [ -f "${csv%.csv}.journal" ] && [ "$(grep -c '^pass ' "${csv%.csv}.journal")" -ge 10 ] && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid"
code=$?
cat "$dir/interrupt.err"
mbx_int_code_ok "$code" || { echo "expected exit ${mbx_int_codes// / or }, got $code"; exit 1; }
grep -Eq "stopped by signal $mbx_int_signal: [0-9]+ points finished and are in .*continue with --resume" "$dir/interrupt.err" ||
  { echo "message does not say what was kept"; exit 1; }
sleep 0.5
if pgrep -f "$mpibex run --bench coll.bcast,coll.allreduce" >/dev/null; then
  echo "a rank is still running"; exit 1
fi
"$check" "$csv" || exit 1
rows=$(($(wc -l <"$csv") - 1))
kept=$(grep -Eo "[0-9]+ points finished" "$dir/interrupt.err" | grep -Eo "^[0-9]+")
[ "$rows" -eq "$kept" ] || { echo "CSV has $rows rows, message says $kept"; exit 1; }
echo "interrupt: mpiexec exit $code, $rows finished points kept"
