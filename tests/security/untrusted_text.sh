#!/usr/bin/env bash
# Untrusted text: hostile benchmark names, labels, fields, file
# and directory names (backquotes, $(...), quotes, newlines, ESC/CSI/OSC,
# C1, invalid UTF-8; tests/security/untrusted_fixtures.py) reach no shell,
# change no terminal state, and come out literally in plots.gp, the pages,
# the tables and the error messages.
# usage: untrusted_text.sh CASE MPIBEX DIR
#   report      report of a.csv, a hostile file and a hostile launch
#               directory into a hostile output directory: exit 0, no
#               marker file, nothing outside the output, plots.gp has no
#               command text, the pages and SVGs show the names literally
#   report_bad  a hostile value in each checked column: exit 2, one line
#   compare     compare's table and summary, and its errors
#   merge       merge's summary, and its errors
#   repeat      repeat with a stand-in launcher that copies hostile
#               results to each launch's -o (its summary names the worst
#               point), then one whose launch fails printing ESC sequences
#   plan        run with a hostile plan (section, bench, sizes): exit 2,
#               one line, the value shown escaped (MPI: MBX_TEST_MPIEXEC -n 1)
#   tty         compare and merge with `-o -` (the CSV on stdout): on a
#               terminal (a pty) no control byte arrives; into a pipe the
#               CSV keeps the fields' bytes as they were (it is data)
# Every captured stdout and stderr holds no control byte but newline.
set -u
case_=$1 mpibex=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/untrusted_fixtures.py
test_case=$case_
. "$here/../lib.sh"

rm -rf "$dir"
mkdir -p "$dir/in" "$dir/mark" "$dir/cap"
dir=$(cd "$dir" && pwd)
mark=$dir/mark
# A shell that ran a file's ${MARK} would create a file here.
export MARK=$mark/env-expanded
python3 "$fx" make "$dir/in" "$mark" || { fail "fixtures"; mbx_finish; exit 1; }
names=()
while IFS= read -r -d '' n; do names+=("$n"); done < <(python3 "$fx" names "$dir/in")
hfile=${names[0]} hdir=${names[1]} hout=${names[2]}
ncap=0

# run EXPECTED CMD...: run it, capture stdout and stderr, check the code and
# that neither holds a raw control byte.
run() {
    local want=$1
    shift
    ncap=$((ncap + 1))
    out=$dir/cap/$ncap.out err=$dir/cap/$ncap.err
    (cd "$dir/in" && "$@") >"$out" 2>"$err"
    code=$?
    if [ "$code" = "$want" ]; then pass "exit $code: ${*:2:1} ..."; else
        fail "exit $code, expected $want: $(printf '%q ' "${@:1:3}")"
        sed 's/^/  stderr: /' "$err" | cat -v | head -5
    fi
    python3 "$fx" check-tty "$out" "$err" && pass "no control byte on stdout/stderr" ||
        fail "a raw control byte on the terminal"
}

no_marks() {
    local m
    m=$(ls -A "$mark")
    [ -z "$m" ] && pass "no marker file: no shell ran" || fail "a shell ran: $m"
}

case $case_ in
report)
    before=$(cd "$dir/in" && find . | LC_ALL=C sort)
    run 0 "$mpibex" report a.csv "$hfile" "$hdir" -o "$hout"
    no_marks
    after=$(cd "$dir/in" && find . | LC_ALL=C sort)
    extra=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") |
        grep -v -F "./$(basename "$hout")" || true)
    [ -z "$extra" ] && pass "no file outside the output directory" ||
        fail "files outside the output directory: $(printf '%q' "$extra")"
    [ -f "$hout/plots.gp" ] && python3 "$fx" check-report "$hout" "$mark" &&
        pass "plots.gp, index.html, index.md and the SVGs show the names literally" ||
        fail "the report's files"
    # plots.gp again by hand, as its header invites.
    (cd "$hout" && gnuplot plots.gp) >/dev/null 2>&1 && pass "gnuplot plots.gp runs again" ||
        fail "gnuplot plots.gp in the report directory"
    no_marks
    ;;
report_bad)
    # (report shows any status as text: that column is checked by merge)
    for f in "$dir"/in/bad-{procs,bytes,median_us,n}-*.csv; do
        run 2 "$mpibex" report -q "$f" -o "$dir/out-bad"
        [ "$(wc -l <"$err")" = 1 ] && pass "one line: $(cat "$err")" || fail "not one line"
        grep -qF '\x1b]0;' "$err" && pass "the value is shown escaped" ||
            fail "the value is not shown escaped"
    done
    no_marks
    ;;
compare)
    run 0 "$mpibex" compare a.csv "$hfile"
    grep -qF 'esc\x1b[2J\x1b[31mred\x1b]0;OWNED-TITLE\x07\xc2\x9b1m\x9bx\u202e' "$out" &&
        pass "the table shows the hostile name literally" ||
        fail "the hostile name is not in the table as \\x escapes"
    grep -qF 'in`touch ${MARK}`$(id)\x1b]0;T\x07' "$out" &&
        pass "the summary shows the hostile file name literally" ||
        fail "the hostile file name is not in the summary"
    run 0 "$mpibex" compare a.csv "$hdir"
    for f in "$dir"/in/bad-*.csv; do
        run 2 "$mpibex" compare "$f" a.csv
    done
    run 2 "$mpibex" compare a.csv "$(printf 'nope\e]0;T\a.csv')"
    no_marks
    ;;
merge)
    run 0 "$mpibex" merge a.csv "$hfile" -o "$dir/m.csv"
    for f in "$dir"/in/bad-*.csv; do
        run 2 "$mpibex" merge a.csv "$f" -o "$dir/m2.csv"
    done
    run 2 "$mpibex" merge a.csv "$(printf 'nope\e]0;T\a.csv')" -o "$dir/m3.csv"
    no_marks
    ;;
repeat)
    # A stand-in for mpiexec: the hostile results at the run's -o path,
    # a.csv and the hostile file in turn (so the spread names a point).
    cat >"$dir/fake-mpiexec" <<'FAKE'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
n=0
for f in "$(dirname "$out")"/launch-??.csv; do [ -e "$f" ] && n=$((n + 1)); done
src=$SRC_A
[ $((n % 2)) = 1 ] && src=$SRC_B
for x in .csv .obs.csv .env.csv; do cp "${src%.csv}$x" "${out%.csv}$x"; done
if [ -n "${FAILMSG:-}" ]; then printf '%s\n' "$FAILMSG" >&2; exit 3; fi
FAKE
    chmod +x "$dir/fake-mpiexec"
    export SRC_A=$dir/in/a.csv SRC_B=$hfile
    run 0 "$mpibex" repeat -k 3 --launcher "$dir/fake-mpiexec" -- --bench pingpong.send_recv \
        -o "$hout"
    grep -qF 'worst spread' "$out" && grep -qF '\x1b' "$out" &&
        pass "the summary names the worst point escaped" ||
        fail "no escaped worst point in: $(cat -v "$out" | tail -1)"
    FAILMSG=$(printf 'boom\e]0;OWNED\a\e[2J') run 3 "$mpibex" repeat -k 2 --force \
        --launcher "$dir/fake-mpiexec" -- --bench pingpong.send_recv -o "$hout"
    grep -qF 'boom\x1b]0;OWNED\x07' "$err" && pass "the failed launch's message shown escaped" ||
        fail "the failed launch's message: $(cat -v "$err")"
    no_marks
    ;;
plan)
    # A plan someone sends you: its section, benchmark and size values echo
    # in run's one-line error (exit 2 before anything is measured).
    mpiexec=${MBX_TEST_MPIEXEC:-mpiexec}
    printf '[x\033]0;OWNED\a]\nbench = pingpong.send_recv\n' >"$dir/p1.ini"
    printf '[x]\nbench = pingpong.send_recv\033]0;OWNED\a`touch %s/plan`\n' "$mark" >"$dir/p2.ini"
    printf '[x]\nbench = pingpong.send_recv\nsizes = 1:8\033[2J$(touch %s/plan2)\n' "$mark" \
        >"$dir/p3.ini"
    for p in p1 p2 p3; do
        run 2 "$mpiexec" -n 1 "$mpibex" run "$dir/$p.ini" -o "$dir/$p.csv"
        grep -qF 'mpibex: ' "$err" && grep -qF '\x1b' "$err" &&
            pass "$p: the value is shown escaped" || fail "$p: $(cat -v "$err" | head -3)"
    done
    no_marks
    ;;
tty)
    for cmd in compare merge; do
        (cd "$dir/in" && python3 "$fx" pty "$mpibex" "$cmd" a.csv "$hfile" -o -) &&
            pass "$cmd -o - on a terminal: nothing raw" || fail "$cmd -o - on a terminal"
        (cd "$dir/in" && "$mpibex" "$cmd" a.csv "$hfile" -o - 2>/dev/null) >"$dir/cap/$cmd.csv"
        grep -qF "$(printf 'esc\e[2J')" "$dir/cap/$cmd.csv" &&
            pass "$cmd -o - into a pipe: the CSV keeps the field's bytes" ||
            fail "$cmd -o - into a pipe changed the data"
    done
    no_marks
    ;;
*)
    echo "unknown case $case_" >&2
    exit 2
    ;;
esac
mbx_finish
