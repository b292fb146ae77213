#!/usr/bin/env bash
# b_eff_io end to end. usage:
#   beffio_check.sh run    MPIEXEC NPFLAG N MPIBEX DIR   full short run, check CSVs, no file left
#   beffio_check.sh sigint MPIEXEC NPFLAG N MPIBEX DIR   Ctrl-C mid-run: mpiexec's exit after
#       Ctrl-C (tests/lib.sh), no file left
#   beffio_check.sh sigkill MPIEXEC NPFLAG N MPIBEX DIR  SIGKILL of rank 0 mid-run: the run
#       directory stays (nothing can run in a killed process); the next start removes it
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpiexec=$2 npflag=$3 n=$4 mpibex=$5 dir=$6
data=$dir/data
rm -rf "$dir"
mkdir -p "$data"
out=$dir/beffio.csv
test_case="beffio_check $mode"

no_files_left() {
  left=$(find "$data" -mindepth 1 | head -5)
  [ -z "$left" ] || die "files left behind in $data: $left"
}

check_outputs() {
  [ -s "$out" ] || die "no $out"
  sum=${out%.csv}.summary.csv
  [ -s "$sum" ] || die "no $sum"
  [ -s "${out%.csv}.env.csv" ] || die "no env sidecar"
  # 43 patterns x 3 access methods, every bandwidth positive.
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { rows++; seen[$c["type"] "/" $c["access"]]++
      if (!($c["bandwidth_MBps"] > 0) || !($c["bytes"] > 0) || !($c["time_s"] > 0)) bad++ }
    END { for (t = 0; t < 5; t++) { split("write rewrite read", a, " ")
            for (k = 1; k <= 3; k++) if (!seen[t "/" a[k]]) { print "missing type " t " " a[k]; exit 1 } }
          if (rows != 129) { print "expected 129 rows, got " rows; exit 1 }
          if (bad) { print bad " rows without a positive bandwidth"; exit 1 } }' "$out" || die "table check"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
      split("b_eff_io_MBps write_MBps rewrite_MBps read_MBps type0_MBps type1_MBps type2_MBps type3_MBps type4_MBps procs T_s rules", need, " ")
      for (k in need) if (!(need[k] in c)) { print "summary lacks " need[k]; exit 1 }
      next }
    NR == 2 { if (!($c["b_eff_io_MBps"] > 0)) { print "b_eff_io not positive"; exit 1 }
              if ($c["procs"] != '"$n"') { print "procs " $c["procs"]; exit 1 } }
    END { if (NR != 2) { print "summary must have one row, has " NR - 1; exit 1 } }' "$sum" || die "summary check"
}

case $mode in
run)
  "$mpiexec" "$npflag" "$n" "$mpibex" beffio --time 2 --dir "$data" --mem-per-proc 64M -o "$out" \
    >"$dir/stdout" 2>"$dir/stderr" || { cat "$dir/stderr"; die "exit $?"; }
  tail -1 "$dir/stdout" | grep -Eq '^b_eff_io_MBps: [0-9.]+$' || die "last stdout line is not the b_eff_io value"
  grep -Eq '^wall_s: ' "$dir/stdout" || die "no wall time in the summary"
  check_outputs
  no_files_left
  echo "beffio run on $n ranks: $(tail -1 "$dir/stdout"), $(grep '^wall_s' "$dir/stdout")"
  ;;
sigint | sigkill)
  "$mpiexec" "$npflag" "$n" "$mpibex" beffio --time 15 --dir "$data" --mem-per-proc 64M -o "$out" \
    >"$dir/stdout" 2>"$dir/stderr" &
  pid=$!
  # --time 15: 129 rows, the third after about 3.5 s here (--time 60: 8.8 s),
  # so the signal still comes early in the run.
  for _ in $(seq 1 300); do # until a few rows are done (files exist by then)
    [ "$(grep -c 'pattern' "$dir/stderr" 2>/dev/null)" -ge 3 ] && break
    sleep 0.05
  done
  [ -n "$(find "$data" -mindepth 1 -name 'mpibex-beffio-*')" ] || die "no run directory while running"
  if [ "$mode" = sigint ]; then
    kill -INT "$pid"
  else
    r0=$(mbx_rank_pids 0 "beffio --time 15 --dir $data" | tail -n 1)
    [ -n "$r0" ] || { kill -INT "$pid"; wait "$pid"; die "rank 0 not found"; }
    kill -KILL "$r0"
  fi
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; die "the job did not end after the signal"; fi
  wait "$pid"
  code=$?
  cat "$dir/stderr" | tail -2
  if [ "$mode" = sigint ]; then
    mbx_int_code_ok "$code" || die "expected exit ${mbx_int_codes// / or }, got $code"
    if [ "${MBX_TEST_MPI:-}" = openmpi ] && ! grep -q "interrupted by signal" "$dir/stderr"; then
      # Rank 0 stops between batches of a pattern, which may run for longer
      # than the second Open MPI's mpirun waits before SIGKILL: then it is
      # as after a crash, and the next start removes the run directory.
      echo "note: rank 0 was killed before the pattern's batch ended (Open MPI's SIGKILL)"
      mode=sigkill
    else
      grep -q "interrupted by signal $mbx_int_signal" "$dir/stderr" || die "no interruption message"
      no_files_left
      echo "beffio sigint: exit $code, no file left"
    fi
  fi
  if [ "$mode" = sigkill ]; then
    # The run directory is named after rank 0's pid and counts as in use
    # while that process exists, also as a zombie not yet reaped: Open MPI's
    # mpirun exits without waiting for the ranks it killed.
    for d in "$data"/mpibex-beffio-*; do
      for _ in $(seq 1 200); do [ -e "/proc/${d##*-}" ] || break; sleep 0.05; done
    done
    [ -n "$(find "$data" -mindepth 1 -name 'mpibex-beffio-*')" ] ||
      echo "note: the killed run left no directory"
    "$mpiexec" "$npflag" "$n" "$mpibex" beffio --time 1 --dir "$data" --mem-per-proc 64M \
      >/dev/null 2>"$dir/stderr2" || { cat "$dir/stderr2"; die "the next run failed"; }
    no_files_left
    echo "beffio $1: killed run's directory removed by the next start"
  fi
  ;;
*) die "unknown mode" ;;
esac
exit 0
