#!/usr/bin/env bash
# Cases found after the first fixes (one mechanism each: the
# output claim, mbx/output.h; mbx/dir.h; the locale rules).
# usage: output_paths.sh CASE DIR MPIBEX -- LAUNCHER...
#   LAUNCHER: the words before MPIBEX (mpiexec -n 1 ...), maybe none.
# Cases:
#   sidecar_name  -o a.env.csv (or a.lock, a.journal...) is the file that
#                 `-o a.csv` writes beside its results, under another lock:
#                 refused (exit 2, one line), and a later `-o a.csv` run
#                 therefore never replaces another run's results
#   export_input  the explorer (headless, fake back end) exports, and the
#                 user types the --plan file's name (another spelling:
#                 ./p.ini) and answers y: refused on the status line, the
#                 plan intact; the --keys file likewise (no launcher)
#   base_dir      beffio --dir D, and TMPDIR=D, where D is writable by all
#                 and has no sticky bit (anybody could swap the run
#                 directory for a link): exit 2, one line, nothing in D
#                 (LAUNCHER for 2 ranks)
#   report_dir    report -o D where D exists, empty, and anybody can write
#                 in it (0777, no sticky bit), or (as root) it belongs to
#                 user nobody: anybody (its owner) could put a link where
#                 the report writes (pages by fopen, plots by gnuplot):
#                 exit 2, one line, D still empty; the same D made 0755 is
#                 used
#   dev_stdout    -o /dev/stdout, /dev/stderr, /proc/self/fd/1 (links to
#                 standard output, a pipe here): exit 2, one line that
#                 says what the link leads to and to give '-', never
#                 "remove it"
#   foreign_file  (root; else skipped, 77) in a sticky directory open to
#                 all, as /tmp: r.csv, r.env.csv or r.lock made beforehand
#                 by user nobody (0666, empty or a stale lock): exit 2, one
#                 line naming the file and its owner; nothing written into
#                 them (before: the run's results went into nobody's files)
set -u
. "$(dirname "$0")/../lib.sh"
case_=$1 dir=$2 mpibex=$3
shift 3
[ "${1:-}" = "--" ] && shift
launch=("$@")
test_case=$case_
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
rm -rf "${dir:?}/$case_" && mkdir "$dir/$case_" && cd "$dir/$case_" || die "no work dir"
run=("${launch[@]}" "$mpibex" run)
quick=(--bench coll.allreduce --sizes 64K:128K:2 --stop fixed:10 --settle 0 -q)

case $case_ in
sidecar_name)
  "${run[@]}" "${quick[@]}" -o a.env.csv >b.out 2>b.err
  code=$?
  [ "$code" -eq 2 ] || { cat b.err; die "run -o a.env.csv: exit $code, expected 2"; }
  mbx_one_line b.err "-o: 'a\.env\.csv' ends in '\.env\.csv'.*beside 'a\.csv'"
  [ ! -e a.env.csv ] && [ ! -e a.env.lock ] || die "run -o a.env.csv wrote files"
  # Every command's file output, every suffix of any command.
  printf 'x\n' >keep.csv
  for suf in .lock .journal .obs.csv .summary.csv .probe.csv; do
    "$mpibex" merge -o "m$suf" keep.csv >m.out 2>m.err
    code=$?
    [ "$code" -eq 2 ] || { cat m.err; die "merge -o m$suf: exit $code, expected 2"; }
    mbx_one_line m.err "-o: 'm\\$suf' ends in '\\$suf'"
    [ ! -e "m$suf" ] || die "merge -o m$suf wrote it"
  done
  # A name that merely contains a suffix is fine.
  "${run[@]}" "${quick[@]}" -o a.env.csv.d.csv >c.out 2>c.err ||
    { cat c.err; die "run -o a.env.csv.d.csv refused"; }
  ;;
export_input)
  cat >p.ini <<'PLAN'
[x]
bench = pingpong.send_recv
sizes = 1:64:8
stop  = fixed:8
refine = off
PLAN
  cp p.ini p.orig
  # e, clear the proposed name (18 characters), type NAME, Enter, y.
  keys() {
    printf 'r tick:300\ne\n'
    for _ in $(seq 18); do echo bs; done
    printf 'text:%s\nenter\ny\ntick:50\ndump:%s\n' "$1" "$2"
  }
  keys p.ini plan >k1
  keys k2 keys >k2
  for k in k1 k2; do
    cp "$k" "$k.orig"
    timeout 60 "$mpibex" explore --fake 2 --headless 100x30 --keys "$k" --dump-dir . \
      --autosave none --plan ./p.ini >"$k.out" 2>"$k.err"
    code=$?
    [ "$code" -eq 0 ] || { cat "$k.err"; die "explorer ($k): exit $code"; }
    cmp -s p.ini p.orig || die "the export replaced the plan file (keys $k)"
    cmp -s "$k" "$k.orig" || die "the export replaced the key script $k"
    ls ./*.env.csv >/dev/null 2>&1 && die "the export wrote sidecars (keys $k)"
  done
  grep -q "export: the output 'p.ini' is a file the explorer reads" plan.txt ||
    { cat plan.txt; die "no refusal on the status line (plan)"; }
  grep -q "export: the output 'k2' is a file the explorer reads" keys.txt ||
    { cat keys.txt; die "no refusal on the status line (keys)"; }
  ;;
base_dir)
  mkdir d && chmod 0777 d || die "cannot make d"
  "${launch[@]}" "$mpibex" beffio --time 0.2 --dir d -o b.csv >b.out 2>b.err
  code=$?
  [ "$code" -eq 2 ] || { cat b.err; die "beffio --dir d: exit $code, expected 2"; }
  mbx_one_line b.err "--dir: 'd' cannot hold the run directory: anybody can write in it and it has no sticky bit"
  TMPDIR=$PWD/d "${launch[@]}" "$mpibex" beffio --time 0.2 -o t.csv >t.out 2>t.err
  code=$?
  [ "$code" -eq 2 ] || { cat t.err; die "TMPDIR=d beffio: exit $code, expected 2"; }
  mbx_one_line t.err "--dir: '$PWD/d' cannot hold the run directory"
  [ -z "$(ls -A d)" ] || { ls -la d; die "files made in d"; }
  ;;
report_dir)
  "${run[@]}" "${quick[@]}" -o in.csv >q.out 2>q.err || { cat q.err; die "quick run failed"; }
  mkdir d && chmod 0777 d || die "cannot make d"
  "$mpibex" report in.csv -o d >r.out 2>r.err
  code=$?
  [ "$code" -eq 2 ] || { cat r.err; die "report -o d (0777): exit $code, expected 2"; }
  mbx_one_line r.err "^mpibex report: -o: anybody can write in 'd' \(mode 0777\)"
  [ -z "$(ls -A d)" ] || { ls -la d; die "files written in d"; }
  if [ "$(id -u)" -eq 0 ] && chown nobody d 2>/dev/null; then
    chmod 0755 d
    "$mpibex" report in.csv -o d >r.out 2>r.err
    code=$?
    [ "$code" -eq 2 ] || { cat r.err; die "report -o d (nobody's): exit $code, expected 2"; }
    mbx_one_line r.err "^mpibex report: -o: 'd' belongs to another user \(uid [0-9]+\)"
    [ -z "$(ls -A d)" ] || { ls -la d; die "files written in nobody's d"; }
    chown "$(id -u)" d
  fi
  chmod 0755 d
  "$mpibex" report in.csv -o d >r.out 2>r.err || { cat r.err; die "report -o d (0755) failed"; }
  [ -s d/index.html ] || die "no d/index.html"
  ;;
dev_stdout)
  printf 'x\n' >keep.csv
  for p in /dev/stdout /dev/stderr /proc/self/fd/1; do
    [ -L "$p" ] || continue
    "${run[@]}" "${quick[@]}" -o "$p" 2>r.err | cat >r.out
    code=${PIPESTATUS[0]}
    [ "$code" -eq 2 ] || { cat r.err; die "run -o $p: exit $code, expected 2"; }
    mbx_one_line r.err "^mpibex: -o: '$p' is a symbolic link to .*; mpibex never writes through one \(for standard output, give '-'\)$"
    "$mpibex" merge -o "$p" keep.csv 2>m.err | cat >m.out
    code=${PIPESTATUS[0]}
    [ "$code" -eq 2 ] || { cat m.err; die "merge -o $p: exit $code, expected 2"; }
    mbx_one_line m.err "for standard output, give '-'"
    "$mpibex" report keep.csv -o "$p" 2>p.err | cat >p.out
    grep -q "remove it" p.err && { cat p.err; die "report -o $p: advises removing it"; }
  done
  ;;
foreign_file)
  [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (chown)"; exit 77; }
  mkdir sh && chmod 1777 sh && cd sh || die "cannot make sh"
  for f in r.csv r.env.csv r.lock; do
    rm -f r.*
    if [ "$f" = r.lock ]; then printf '1 elsewhere\n' >"$f"; else : >"$f"; fi
    chmod 0666 "$f" && chown nobody "$f" || { echo "SKIP: chown nobody failed"; exit 77; }
    cp "$f" "$f.orig"
    "${run[@]}" "${quick[@]}" -o r.csv >r.out 2>r.err
    code=$?
    [ "$code" -eq 2 ] || { cat r.err; die "-o r.csv with $f of nobody: exit $code, expected 2"; }
    mbx_one_line r.err "^mpibex: -o: (the lock file )?'$f' .*belongs to another user \(uid [0-9]+\)"
    cmp -s "$f" "$f.orig" || die "$f of nobody was written"
  done
  ;;
*) die "unknown case" ;;
esac
echo "PASS ($case_)"
