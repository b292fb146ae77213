#!/usr/bin/env bash
# Two runs, one output: every -o is claimed (mbx/output.h).
# usage: output_claim.sh CASE DIR MPIBEX CSVCHECK -- LAUNCHER...
#   LAUNCHER: the words before MPIBEX (mpiexec -n 1 ...), maybe none.
# Cases:
#   concurrent  a second run with the same -o exits 2 naming the first's PID;
#               the first's file is intact (rows = points, no NUL byte)
#   exists      -o over an existing CSV: exit 2, file unchanged; --force writes
#   plan        -o naming the plan file: exit 2, even with --force; plan intact
#   journal     a journal beside -o without --resume: exit 2, nothing touched
#   stdout      -o -: the CSV rows on stdout, the table on stderr, no file "-"
#   devnull     -o /dev/null: exit 0, nothing written, no /dev/null.env.csv
#   fifo        -o FIFO: exit 2 with one line naming the FIFO, no hang
#   merge       merge -o over an existing file: exit 2 unchanged; --force
#               writes; -o /dev/null discards
#   beff        beff and beffio -o over an existing file, and -o -: exit 2
#               (LAUNCHER for 2 ranks)
set -u
. "$(dirname "$0")/../lib.sh"
case_=$1 dir=$2 mpibex=$3 csvcheck=$4
shift 4
[ "${1:-}" = "--" ] && shift
launch=("$@")
test_case=$case_
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
rm -rf "${dir:?}/$case_" && mkdir "$dir/$case_" && cd "$dir/$case_" || die "no work dir"
run=("${launch[@]}" "$mpibex" run)
quick=(--bench coll.allreduce --sizes 64K:1MiB:2 --stop fixed:20 --settle 0 -q)
points=5 # 64K:1MiB:2 (1-rank allreduce: a copy, so times are positive)

# mbx_one_line FILE REGEX: FILE holds exactly one line, matching REGEX.
no_nul() { [ "$(tr -d '\000' <"$1" | wc -c)" -eq "$(wc -c <"$1")" ] || die "NUL bytes in $1"; }

case $case_ in
concurrent)
  # The first run holds the lock; it is stopped while the second tries, so
  # the overlap does not depend on the machine's speed.
  "${run[@]}" --bench coll.allreduce --sizes 64K:1MiB:2 --stop fixed:200 --settle 1 -q -o c.csv \
    >first.out 2>first.err &
  first=$!
  pid=
  for _ in $(seq 300); do
    pid=$(awk '{print $1; exit}' c.lock 2>/dev/null)
    [ -n "$pid" ] && break
    kill -0 "$first" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$pid" ] || { wait "$first"; cat first.err; die "the first run never locked c.lock"; }
  kill -STOP "$pid"
  "${run[@]}" "${quick[@]}" -o c.csv >second.out 2>second.err
  code=$?
  kill -CONT "$pid"
  [ "$code" -eq 2 ] || { cat second.err; kill "$first"; die "second run: exit $code, expected 2"; }
  mbx_one_line second.err "-o: 'c\.csv' is in use by another run \(PID $pid\)"
  wait "$first"
  code=$?
  [ "$code" -eq 0 ] || { cat first.err; die "first run: exit $code"; }
  "$csvcheck" c.csv --rows "$points" --env c.env.csv || die "the first run's CSV is not intact"
  no_nul c.csv
  no_nul c.env.csv
  [ ! -e c.lock ] || die "c.lock left behind after a complete run"
  ;;
exists)
  printf 'precious,data\n1,2\n' >e.csv
  cp e.csv before.csv
  "${run[@]}" "${quick[@]}" -o e.csv >/dev/null 2>err.txt
  code=$?
  [ "$code" -eq 2 ] || die "exit $code over an existing CSV, expected 2"
  mbx_one_line err.txt "-o: 'e\.csv' exists and holds results; --force writes over it"
  cmp -s e.csv before.csv || die "the existing CSV changed"
  [ ! -e e.env.csv ] && [ ! -e e.lock ] || die "a refused run left files"
  "${run[@]}" "${quick[@]}" -o e.csv --force >/dev/null 2>err.txt ||
    { cat err.txt; die "--force: the run failed"; }
  "$csvcheck" e.csv --rows "$points" || die "--force: not the new results"
  ;;
plan)
  printf '[p]\nbench = coll.bcast\nsizes = 1,8\nstop = fixed:5\n' >p.ini
  cp p.ini before.ini
  for force in "" --force; do
    "${run[@]}" p.ini -o p.ini $force >/dev/null 2>err.txt
    code=$?
    [ "$code" -eq 2 ] || die "-o = the plan file $force: exit $code, expected 2"
    mbx_one_line err.txt "-o: the output 'p\.ini' is the plan file .*not even with --force"
    cmp -s p.ini before.ini || die "the plan file changed ($force)"
  done
  # The same file by another name (a hard link) is the plan file too.
  ln p.ini hard.csv
  "${run[@]}" p.ini -o hard.csv --force >/dev/null 2>err.txt
  code=$?
  [ "$code" -eq 2 ] || die "-o = a hard link of the plan: exit $code, expected 2"
  cmp -s p.ini before.ini || die "the plan file changed through its hard link"
  ;;
journal)
  printf 'journal of an interrupted run\n' >j.journal
  cp j.journal before.journal
  "${run[@]}" "${quick[@]}" -o j.csv >/dev/null 2>err.txt
  code=$?
  [ "$code" -eq 2 ] || die "journal present: exit $code, expected 2"
  mbx_one_line err.txt "-o: 'j\.csv' is an interrupted run .*--resume.*--force"
  cmp -s j.journal before.journal || die "the journal changed"
  [ ! -e j.csv ] && [ ! -e j.env.csv ] || die "a refused run left files"
  ;;
stdout)
  "${run[@]}" "${quick[@]}" -o - >rows.csv 2>err.txt || { cat err.txt; die "-o -: the run failed"; }
  "$csvcheck" rows.csv --rows "$points" || { head -3 rows.csv; die "-o -: stdout is not the CSV"; }
  grep -q '^# mpibex' err.txt || die "-o -: the table's title is not on stderr"
  [ ! -e ./- ] && [ ! -e ./-.env.csv ] || die "-o -: wrote a file named '-'"
  # Standard output cannot be resumed or take sidecars: one clear line.
  "${run[@]}" "${quick[@]}" -o - --raw >/dev/null 2>err.txt
  [ $? -eq 2 ] || die "-o - --raw: expected exit 2"
  mbx_one_line err.txt "-o -: standard output takes the result rows only; --raw"
  ;;
devnull)
  before=$(ls -d /dev/null.* 2>/dev/null)
  "${run[@]}" "${quick[@]}" -o /dev/null >out.txt 2>err.txt || { cat err.txt; die "-o /dev/null: the run failed"; }
  grep -q '^coll\.allreduce' out.txt || die "-o /dev/null: no table on stdout"
  [ "$(ls -d /dev/null.* 2>/dev/null)" = "$before" ] || die "a sidecar of /dev/null appeared: $(ls -d /dev/null.*)"
  [ -c /dev/null ] || die "/dev/null is no longer a device"
  ;;
fifo)
  mkfifo f.csv || die "mkfifo"
  timeout 30 "${run[@]}" "${quick[@]}" -o f.csv >/dev/null 2>err.txt
  code=$?
  [ "$code" -eq 2 ] || die "-o FIFO: exit $code, expected 2"
  mbx_one_line err.txt "-o: 'f\.csv' is a FIFO \(named pipe\); allowed: a regular file"
  [ -p f.csv ] && [ ! -e f.env.csv ] && [ ! -e f.lock ] || die "-o FIFO: files touched"
  ;;
merge)
  "${run[@]}" "${quick[@]}" -o a.csv >/dev/null 2>&1 || die "the input run failed"
  printf 'precious\n' >m.csv
  "$mpibex" merge a.csv -o m.csv 2>err.txt
  [ $? -eq 2 ] || die "merge over an existing file: expected exit 2"
  mbx_one_line err.txt "^mpibex merge: -o: 'm\.csv' exists and holds results; --force"
  [ "$(cat m.csv)" = precious ] || die "merge changed the existing file"
  "$mpibex" merge a.csv -o m.csv --force 2>err.txt || { cat err.txt; die "merge --force failed"; }
  grep -q '^benchmark,' m.csv || die "merge --force: not the merged CSV"
  "$mpibex" merge a.csv -o /dev/null 2>err.txt || { cat err.txt; die "merge -o /dev/null failed"; }
  [ -c /dev/null ] || die "/dev/null is no longer a device"
  ;;
beff)
  # beff and beffio (2 ranks): the same claim, refused before measuring.
  printf 'precious\n' >b.csv
  for cmd in beff beffio; do
    "${launch[@]}" "$mpibex" $cmd -q -o b.csv >/dev/null 2>err.txt
    code=$?
    [ "$code" -eq 2 ] || { cat err.txt; die "$cmd over an existing file: exit $code, expected 2"; }
    mbx_one_line err.txt "^mpibex: -o: 'b\.csv' exists and holds results; --force"
    [ "$(cat b.csv)" = precious ] && [ ! -e b.env.csv ] && [ ! -e b.summary.csv ] ||
      die "$cmd changed or wrote files"
    "${launch[@]}" "$mpibex" $cmd -q -o - >/dev/null 2>err.txt
    [ $? -eq 2 ] || die "$cmd -o -: expected exit 2"
    mbx_one_line err.txt "^mpibex: -o -: this command does not write its results to standard output"
  done
  ;;
*)
  die "unknown case"
  ;;
esac
echo "PASS ($case_)"
