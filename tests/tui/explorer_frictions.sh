#!/usr/bin/env bash
# The explorer as a new user meets it, headless on the fake back end:
#  form      typing into a form field replaces its value; Esc puts it back
#            (the parameter form and the b_eff form); r refused on the
#            picker says why there;
#  rerun     r on the run view runs again, after a question when results
#            would be lost; p and c are offered only while a run is on;
#  chooser   after A is chosen the cursor stays on it: Down, Enter takes
#            the curve below A;
#  results   what e and w did is said on the results screen too; a report
#            of exported results reads the export instead of writing it
#            again;
#  export    a large export asks first (with its size), writes its
#            observations between ticks with its progress on a live screen,
#            and c stops it (the half-written file removed);
#  selection the explorer opens with run's selection (--bench, --sizes,
#            --stop, ...); run's other options refused in one line, exit 2.
# usage: explorer_frictions.sh MPIBEX WORKDIR CASE
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2/$3 case=$3
test_case=$case
rm -rf "$work"
mkdir -p "$work"
cd "$work" || die "cannot enter $work"

# explore KEYS [OPTIONS...]: the explorer on 4 fake ranks, dumps in ./
explore() {
    printf '%s\n' "$1" >keys.txt
    shift
    LC_ALL=C.UTF-8 timeout 120 "$mpibex" explore --fake 4 --headless 100x30 --term xterm-mono \
        --keys keys.txt --dump-dir . --autosave none "$@" >out.txt 2>err.txt ||
        die "the explorer failed: $(cat err.txt)"
}
# row FILE LABEL: the form's row of field LABEL
row() { grep -E "^ +$2 " "$1.txt" | head -1; }
footer() { sed -n 31p "$1.txt"; } # the last of the 30 rows, after the dump's head line

case $case in
form)
    # size max (the quick plan's 64KiB), then b_eff's memory field (auto)
    explore '2 down enter text:1MiB enter dump:typed enter text:7 esc dump:esc
5 down down down enter text:8MiB enter dump:beff_typed enter text:1k esc dump:beff_esc
1 n r dump:nosel'
    r=$(row typed 'size max')
    grep -qE 'size max +1MiB ' <<<"$r" && pass "typing replaces the value: $r" ||
        fail "size max after typing 1MiB: '$r'"
    r=$(row esc 'size max')
    grep -qE 'size max +1MiB ' <<<"$r" && pass "Esc puts the value back: $r" ||
        fail "size max after typing 7 and Esc: '$r'"
    r=$(row beff_typed 'mem per proc')
    grep -qE 'mem per proc +8MiB ' <<<"$r" && pass "b_eff: typing replaces the value: $r" ||
        fail "b_eff memory after typing 8MiB: '$r'"
    r=$(row beff_esc 'mem per proc')
    grep -qE 'mem per proc +8MiB ' <<<"$r" && pass "b_eff: Esc puts the value back: $r" ||
        fail "b_eff memory after typing 1k and Esc: '$r'"
    # r with nothing selected: said on the picker, which has no status line
    grep -q 'select at least one benchmark first (1)' nosel.txt &&
        pass "r with nothing selected says why on the picker" ||
        fail "r with nothing selected: $(sed -n 2,4p nosel.txt)"
    ;;
rerun)
    explore 'r tick:10 dump:mid tick:3000 dump:done p dump:p r dump:ask n dump:kept
r y tick:1 dump:again c tick:1 e enter wait r tick:1 dump:exported'
    f=$(footer mid)
    grep -q 'p pause' <<<"$f" && grep -q 'c cancel' <<<"$f" && ! grep -q 'r run' <<<"$f" &&
        pass "while running the footer offers p and c: $f" || fail "footer while running: $f"
    f=$(footer done)
    grep -q 'r run' <<<"$f" && ! grep -q 'p pause' <<<"$f" && ! grep -q 'c cancel' <<<"$f" &&
        pass "once done the footer offers r, not p or c: $f" || fail "footer once done: $f"
    grep -q 'no run to pause (r starts one)' p.txt && pass "p with no run says so" ||
        fail "p with no run: $(grep -m1 -E 'done|pause' p.txt)"
    grep -q 'Results are not exported; a new run replaces them. Run anyway? (y/n)' ask.txt &&
        pass "r on the run view asks when results would be lost" ||
        fail "r on the run view: $(footer ask)"
    grep -qE '^ final ([0-9]+)/\1 .* done$' kept.txt && grep -q 'no new run: the results stay' kept.txt &&
        pass "n keeps the results" || fail "n: $(grep -m1 -E '^ (done|final)' kept.txt)"
    grep -q 'p pause' again.txt && grep -qE '^ final 0/[0-9]+ .* running$' again.txt &&
        pass "y runs again" || fail "y: $(grep -m1 -E '^ (done|round|final)' again.txt)"
    grep -q 'p pause' exported.txt && grep -qE '^ final 0/[0-9]+ .* running$' exported.txt &&
        pass "r after an export runs at once" || fail "r after an export: $(footer exported)"
    ;;
chooser)
    printf '[p]\nbench = pingpong.send_recv, pingpong.ssend_recv, pingpong.isend_recv\nsizes = 1:1KiB:4\n' >p.ini
    explore 'r tick:3000 v dump:list enter down enter dump:cmp' --plan p.ini
    # the chooser's curves, in its order: "  o send_recv" rows
    # (the chooser's rows begin the line; the legend's follow the plot)
    mapfile -t names < <(grep -oE '^ *[^a-z0-9 ]? *[o+x*#@] (send|ssend|isend)_recv' list.txt |
        grep -oE '(send|ssend|isend)_recv')
    [ "${#names[@]}" -eq 3 ] || die "the chooser lists ${#names[@]} curves: ${names[*]}"
    a=$(grep -oE ' A (send|ssend|isend)_recv ' cmp.txt | head -1 | awk '{print $2}')
    b=$(grep -oE ' B (send|ssend|isend)_recv ' cmp.txt | head -1 | awk '{print $2}')
    [ "$a" = "${names[0]}" ] && [ "$b" = "${names[1]}" ] &&
        pass "Enter, Down, Enter: A ${names[0]}, B ${names[1]} (the one below A)" ||
        fail "A '$a', B '$b'; the chooser lists ${names[*]}"
    ;;
results)
    explore 'r tick:3000 4 e enter wait dump:exported w enter dump:report'
    grep -qE '^ exported [0-9]+ points to mpibex-results.csv' exported.txt &&
        pass "e on the results screen says what it did" ||
        fail "e on the results screen: $(sed -n 2,3p exported.txt)"
    grep -q 'report in mpibex-report/report/index.html (results: mpibex-results.csv, exported before)' \
        report.txt && pass "w on the results screen says what it did, reading the export" ||
        fail "w on the results screen: $(sed -n 2,3p report.txt)"
    [ -s mpibex-report/report/index.html ] && [ ! -e mpibex-report/results.csv ] &&
        [ ! -e mpibex-report/results.obs.csv ] &&
        pass "the report did not write the results again" ||
        fail "report directory: $(ls -R mpibex-report | tr '\n' ' ')"
    ;;
export)
    # 1 MB instead of 16 MB: the quick plan's run has about 4 MB of them
    export MBX_TEST_OBS_ASK_BYTES=1000000
    explore 'r tick:3000 e enter dump:ask y tick:1 dump:writing 4 dump:live wait dump:done
e text:b.csv enter n dump:noobs e text:c.csv enter y tick:1 3 c dump:stopped
w text:r1 enter esc dump:noreport w enter y wait dump:report'
    line=$(grep -m1 'The observations are' ask.txt)
    rows=$(sed -n 's/.*are \([0-9]*\) rows, about \([0-9.]*\) MiB.*/\1/p' <<<"$line")
    mib=$(sed -n 's/.*are \([0-9]*\) rows, about \([0-9.]*\) MiB.*/\2/p' <<<"$line")
    [ -n "$rows" ] && grep -q 'Write them too? (y/n; Esc: nothing)' <<<"$line" &&
        pass "asks first: $line" || fail "no question: $(footer ask)"
    grep -qE '^ writing the observations beside mpibex-results.csv: [0-9]+% \([0-9]+ of '"$rows"' rows\)' \
        writing.txt && pass "progress: $(grep -m1 -o 'writing the obs.*rows)' writing.txt)" ||
        fail "progress: $(grep -m1 -E '^ (writing|exported|done)' writing.txt)"
    grep -q '\[4 Results\]' live.txt && grep -q 'writing the observations' live.txt &&
        pass "the screen is live while writing (the results screen, with the progress)" ||
        fail "while writing: $(sed -n 1,3p live.txt)"
    grep -qE '^ exported [0-9]+ points to mpibex-results.csv \(environment, observations' done.txt ||
        fail "done: $(grep -m1 -E '^ (writing|exported)' done.txt)"
    got=$(($(wc -l <mpibex-results.obs.csv) - 1))
    bytes=$(stat -c %s mpibex-results.obs.csv)
    [ "$got" -eq "$rows" ] && pass "the observations file holds the $rows rows asked about" ||
        fail "mpibex-results.obs.csv: $got rows, the question said $rows"
    # the size said is within a quarter of the file's
    awk -v m="$mib" -v b="$bytes" 'BEGIN { e = m * 1048576; exit !(e > 0.75 * b && e < 1.25 * b) }' &&
        pass "the size said ($mib MiB) is about the file's ($bytes bytes)" ||
        fail "said $mib MiB, the file has $bytes bytes"
    [ -s b.csv ] && [ ! -e b.obs.csv ] && grep -q 'exported [0-9]* points to b.csv (environment, probes' noobs.txt &&
        pass "n: the results without their observations" || fail "n: $(ls b.* | tr '\n' ' ')"
    [ -s c.csv ] && [ ! -e c.obs.csv ] && grep -q 'export stopped: c.csv has the results' stopped.txt &&
        pass "c stops the export and removes the half-written observations" ||
        fail "c: $(ls c.* | tr '\n' ' '); $(grep -m1 -E 'export|writing' stopped.txt)"
    # w after the stopped export: a new export into the report's directory,
    # asked about too; Esc leaves no directory, y writes it all
    [ ! -e r1 ] && grep -q 'no report' noreport.txt &&
        pass "w, then Esc at the question: no report, no directory" ||
        fail "w, Esc: $(ls -d r1 2>&1); $(grep -m1 -E 'report' noreport.txt)"
    [ -s mpibex-report/results.obs.csv ] && [ -s mpibex-report/report/index.html ] &&
        grep -q 'report in mpibex-report/report/index.html (results: mpibex-report/results.csv and' report.txt &&
        pass "w, then y: the results with their observations, and the report" ||
        fail "w, y: $(ls mpibex-report | tr '\n' ' '); $(grep -m1 -E 'report' report.txt)"
    ;;
selection)
    explore '1 dump:pick 2 dump:form' --bench pingpong.send_recv --sizes 8:64KiB --stop fixed:20 \
        --validate --sync window --nmax 500
    grep -q 'Benchmarks: 1 selected of' pick.txt && grep -qE '\[x\] pingpong\.send_recv ' pick.txt &&
        pass "--bench: the picker has pingpong.send_recv only" ||
        fail "picker: $(grep -m1 'Benchmarks:' pick.txt)"
    ok=1
    for want in 'size min +8 ' 'size max +64KiB ' 'stop rule +< fixed >' 'EPS / N +20 ' \
        'n_max +500 ' 'validate +< on >' 'sync +< window >'; do
        grep -qE "^ +$want" form.txt || { ok=0 && fail "form: no '$want'"; }
    done
    [ $ok = 1 ] && pass "the form holds --sizes, --stop, --nmax, --validate and --sync"
    bad() { # EXPECTED-LINE OPTIONS...: one line on stderr, exit 2
        local want=$1
        shift
        printf 'dump:x\n' >k
        timeout 30 "$mpibex" explore --fake 2 --headless 80x24 --keys k --autosave none "$@" \
            >bad.out 2>bad.err
        local rc=$?
        [ $rc -eq 2 ] || { cat bad.err; fail "$*: exit $rc, expected 2"; return; }
        mbx_one_line bad.err "$want"
        pass "$*: $(cat bad.err)"
    }
    bad "^mpibex: -o: an option of 'mpibex run' only; .*e exports them" -o x.csv
    bad "^mpibex: --passes: an option of 'mpibex run' only; " --bench pingpong.send_recv --passes 9
    bad "^mpibex: --sync: expected barrier or window in the explorer \(got 'fast'\)$" --sync fast
    bad "^mpibex: .*sizes" --sizes 64:8
    bad "^mpibex: .*nope" --bench nope.nope
    bad "^mpibex: explore: unknown option '--bnech'.*did you mean --bench\?" --bnech x
    [ ! -e x.csv ] || fail "-o x.csv wrote x.csv"
    ;;
*) die "unknown case $case" ;;
esac
mbx_finish
