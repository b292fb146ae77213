#!/usr/bin/env bash
# How mpibex creates the files it writes (mbx/file.h: a new file under a
# random name beside the target, O_EXCL | O_NOFOLLOW, then renamed), tried
# as another local user and a careless user would (docs/hardening.md,
# "Output and temporary files").
# usage: output_files.sh CASE DIR MPIBEX DRIVER -- LAUNCHER...
#   DRIVER: the launcher's test driver (log_planted only, else -);
#   LAUNCHER: the words before MPIBEX (mpiexec -n N ...).
# Cases ("root": skipped, 77, when not root; user nobody is the other user):
#   sorting_name     run -o a.sorting, then run -o a.csv beside it: the
#                    second run's sort never touches a.sorting (before: it
#                    wrote a.csv's rows into it and renamed it to a.csv)
#   planted_sorting  (root) in a sticky directory open to all, a regular
#                    file and then a FIFO r.sorting made by nobody: run -o
#                    r.csv gives exit 0, r.csv a regular file of root's,
#                    nobody's file untouched and nothing read from the FIFO
#                    (before: r.csv was nobody's file, mode 0666, and the
#                    FIFO's reader got every row); as nobody in the same
#                    directory, a file r.sorting of root's gets nothing
#   probe_fifo       (root, 2 ranks) the same directory; while the run
#                    measures, nobody tries to make r.probe.csv a FIFO: the
#                    name is already a file of the run's, and the run ends,
#                    exit 0, its series in it (before: the name was free
#                    until the end and the run hung writing into the FIFO)
#   log_planted      (root) --log FILE in that directory, FILE a regular file
#                    (0666) and then a FIFO made by nobody: exit 2, one line
#                    naming the file, nothing written into it, no hang
#                    (before: the log was appended to nobody's file, and the
#                    FIFO hung the launcher)
#   beffio_premade   (root, 2 ranks, a PID namespace of its own) every
#                    mpibex-beffio-HOST-PID of PIDs 1..400 made by nobody in
#                    --dir: beffio runs, exit 0 (before: exit 1, "in the
#                    way and not removed")
#   header_only      runs under ulimit -n 24, 25, ... fail for lack of file
#                    descriptors, one file after another, until one runs;
#                    none is refused for the CSV a failed one left with its
#                    header only (before: "exists and holds results"); a
#                    header-only -o is written, a one-line other file is not
set -u
. "$(dirname "$0")/../lib.sh"
case_=$1 dir=$2 mpibex=$3 driver=$4
shift 4
[ "${1:-}" = "--" ] && shift
launch=("$@")
test_case=$case_
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
rm -rf "${dir:?}/$case_" && mkdir "$dir/$case_" && cd "$dir/$case_" || die "no work dir"
run=("${launch[@]}" "$mpibex" run)
quick=(--bench coll.allreduce --sizes 64K:128K:2 --stop fixed:10 --settle 0 -q)

need_root() {
  [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (a second user)"; exit 77; }
  id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# A sticky directory open to all, as /tmp, that nobody can reach.
shared() {
  chmod 0755 . && mkdir sh && chmod 1777 sh && cd sh || die "cannot make sh"
}
owner() { stat -c %U "$1"; }

case $case_ in
sorting_name)
  "${run[@]}" "${quick[@]}" -o a.sorting >a.out 2>a.err || { cat a.err; die "run -o a.sorting failed"; }
  cp a.sorting keep.csv
  "${run[@]}" "${quick[@]}" -o a.csv >b.out 2>b.err || { cat b.err; die "run -o a.csv failed"; }
  [ -f a.sorting ] && cmp -s a.sorting keep.csv || die "run -o a.csv changed or removed a.sorting"
  [ "$(grep -c '^coll\.allreduce' a.csv)" -eq 2 ] || die "a.csv lacks its two rows"
  pass "a.sorting intact beside a.csv"
  ;;
planted_sorting)
  need_root
  shared
  : >r.sorting && chmod 0666 r.sorting && chown nobody r.sorting || die "cannot plant r.sorting"
  "${run[@]}" "${quick[@]}" -o r.csv >r.out 2>r.err
  code=$?
  [ "$code" -eq 0 ] || { cat r.err; die "run with a planted r.sorting: exit $code"; }
  [ -f r.csv ] && [ "$(owner r.csv)" = root ] || die "r.csv is $(stat -c '%F of %U, %a' r.csv)"
  [ -f r.sorting ] && [ "$(owner r.sorting)" = nobody ] && [ ! -s r.sorting ] ||
    die "nobody's r.sorting was written or moved"
  pass "a planted file: r.csv is root's, nobody's file untouched"
  rm -f r.* && as_nobody mkfifo r.sorting || die "cannot plant the FIFO"
  as_nobody timeout 60 cat r.sorting >got.txt 2>/dev/null &
  reader=$!
  timeout 60 "${run[@]}" "${quick[@]}" -o r.csv >r.out 2>r.err
  code=$?
  kill "$reader" 2>/dev/null
  wait "$reader" 2>/dev/null
  [ "$code" -eq 0 ] || { cat r.err; die "run with a planted FIFO: exit $code"; }
  [ ! -s got.txt ] || die "the FIFO's reader got $(wc -c <got.txt) bytes of results"
  [ -p r.sorting ] && [ -f r.csv ] && [ "$(owner r.csv)" = root ] || die "r.csv or the FIFO replaced"
  pass "a planted FIFO: nothing read from it"
  # The other way round: nobody runs, root's file is the planted one.
  rm -f r.* && printf 'x\n' >r.sorting && chmod 0666 r.sorting || die "cannot plant as root"
  as_nobody env HOME=/ "${run[@]}" "${quick[@]}" -o r.csv >r.out 2>r.err
  code=$?
  [ "$code" -eq 0 ] || { cat r.err; die "nobody's run beside root's r.sorting: exit $code"; }
  [ "$(cat r.sorting)" = x ] || die "nobody's run wrote its results into root's r.sorting"
  [ "$(owner r.csv)" = nobody ] || die "r.csv of nobody's run is $(owner r.csv)'s"
  grep -q warning r.err && grep -i sort r.err && die "a warning about sorting"
  pass "a non-root run: the planted file gets nothing"
  ;;
probe_fifo)
  need_root
  shared
  timeout 60 "${run[@]}" --bench coll.allreduce --sizes 64K:1MiB:2 --stop fixed:10 --settle 1 -q \
    -o r.csv >r.out 2>r.err &
  job=$!
  for _ in $(seq 300); do
    [ -e r.journal ] && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  [ -e r.journal ] || { wait "$job"; cat r.err; die "the run never opened its files"; }
  as_nobody mkfifo r.probe.csv 2>/dev/null && echo "nobody made r.probe.csv a FIFO"
  wait "$job"
  code=$?
  [ "$code" -eq 0 ] || { cat r.err; die "run: exit $code (124: hung on the FIFO)"; }
  [ -f r.probe.csv ] && [ "$(owner r.probe.csv)" = root ] || die "r.probe.csv is not root's file"
  [ "$(grep -c . r.probe.csv)" -gt 1 ] || die "r.probe.csv holds no probe"
  pass "r.probe.csv was the run's from the start: $(grep -c . r.probe.csv) lines"
  ;;
log_planted)
  need_root
  command -v script >/dev/null || { echo "SKIP: script (util-linux) not found"; exit 77; }
  printf '#!/bin/sh\n[ "$1" = --version ] && echo "HYDRA build details:"\nexit 0\n' >mpirun
  chmod 0755 mpirun
  mkdir tmp
  stand_in=$PWD/mpirun tmp=$PWD/tmp
  shared
  : >x.log && chmod 0666 x.log && chown nobody x.log || die "cannot plant x.log"
  for kind in file fifo; do
    if [ $kind = fifo ]; then rm -f x.log && as_nobody mkfifo -m 0622 x.log || die "mkfifo"; fi
    TERM=xterm TMPDIR=$tmp MBX_EXPLORE_CMD=/bin/true timeout 20 script -qec \
      "$driver --launcher $stand_in --bridge-addr 127.0.0.1 --log x.log 2>err.txt" /dev/null \
      >/dev/null 2>&1 </dev/null
    code=$?
    [ "$code" -ne 124 ] || die "$kind: the launcher hung on nobody's x.log"
    [ "$code" -eq 2 ] || { cat err.txt; die "$kind: exit $code, expected 2"; }
    mbx_one_line err.txt "^mpibex: --log: cannot open 'x\.log': it (belongs to another user|is not a regular file)"
    [ $kind = fifo ] || [ ! -s x.log ] || die "the launcher wrote into nobody's x.log"
    [ "$(owner x.log)" = nobody ] || die "x.log replaced"
    pass "$kind: refused"
  done
  ;;
beffio_premade)
  need_root
  command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
  shared
  mkdir d && chmod 1777 d || die "mkdir d"
  host=$(hostname | tr -- '-/' '__')
  (cd d && as_nobody bash -c "for p in \$(seq 1 400); do mkdir -m 0700 mpibex-beffio-$host-\$p; done") ||
    die "cannot make nobody's directories"
  timeout 90 unshare --pid --fork --mount-proc "${launch[@]}" "$mpibex" beffio --time 0.2 --dir d \
    --mem-per-proc 64M -o b.csv >b.out 2>b.err
  code=$?
  [ "$code" -eq 0 ] || { tail -3 b.err; die "beffio beside nobody's directories: exit $code"; }
  [ -z "$(find d -mindepth 1 -maxdepth 1 -user root)" ] || die "a run directory was left"
  pass "beffio ran beside 400 directories of nobody"
  ;;
header_only)
  # With fewer and fewer descriptors taken away, a run fails at one file
  # after another (the CSV with its header written, then the journal...);
  # none of them may make the next run refuse the CSV as results.
  for n in $(seq 24 48); do
    (ulimit -n "$n" && exec "${run[@]}" "${quick[@]}" -o h.csv >h.out 2>h.err)
    code=$?
    grep -q 'exists and holds results' h.err && { cat h.err; die "ulimit -n $n: refused"; }
    [ "$code" -eq 0 ] && break
    [ ! -e h.csv ] || [ "$(grep -c . h.csv)" -le 1 ] || die "ulimit -n $n: exit $code with rows"
  done
  [ "$code" -eq 0 ] || { cat h.err; die "no run succeeded up to ulimit -n 48"; }
  [ "$(grep -c '^coll\.allreduce' h.csv)" -eq 2 ] || die "h.csv lacks its rows"
  # The same file made directly: the header line alone.
  head -n 1 h.csv >e.csv && rm -f h.*
  "${run[@]}" "${quick[@]}" -o e.csv >e.out 2>e.err || { cat e.err; die "-o over a header-only CSV"; }
  # One line that is not the header stays results.
  printf 'precious\n' >p.csv
  "${run[@]}" "${quick[@]}" -o p.csv >p.out 2>p.err
  code=$?
  [ "$code" -eq 2 ] && [ "$(cat p.csv)" = precious ] || die "p.csv: exit $code, or it was written"
  pass "a header-only CSV is not results (ulimit -n $n ran)"
  ;;
*) die "unknown case" ;;
esac
mbx_finish
