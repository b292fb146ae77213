#!/usr/bin/env bash
# Tests of `mpibex report`. usage: report_check.sh MODE MPIBEX DIR [ARGS...]
#   synthetic   fixtures (report_fixtures.py): results with and without raw
#               observations, two directories of launches, a merged CSV; every
#               plot, page and table checked, plots.gp runs again by itself
#   single      one input: latency and bandwidth plots only
#   force       a non-empty DIR is refused; --force replaces the old report
#   fakegp fail|warn|silent   a gnuplot that fails, complains or draws
#               nothing: exit 1 with one line, no index page
#   nognuplot   PATH without gnuplot: exit 2 with the install hint
#   sized       a sized benchmark measured at 0 B only is a curve over bytes
#               (pingpong.send_recv-p2), an unsized one over processes
#               (coll.barrier); rma.put under fence and lock_all are two
#               series, on one plot (rma-p2) by default, on two with
#               --overlay bench
#   overlay     Send and Ssend of one run and of a second run on one plot,
#               with CI error bars and the unsettled, shifted and refined
#               marks (report_fixtures.py check_overlay); --overlay bench
#               splits them again
#   real -- MPIEXEC -n 2 [PREFLAGS]   two real runs (--raw) compared
#   pairs_slow_node   report_pairs/four_hosts.csv and its verdicts file: the
#               Node pairs section names the slow host mbxh3 (and no other),
#               its heatmap boxes mbxh3's row and column; beside a run's
#               results (report_fixtures.py) both are drawn
#   pairs_no_verdicts   the same CSV without its verdicts file: the page says
#               they were not found, the heatmap is drawn all the same
#   pairs_per_rank    report_pairs/per_rank.csv (two ranks of one host, latency
#               and bandwidth; a verdicts file without rows): host:rank
#               labels, a heatmap per metric, no verdicts below 4 nodes
# The samples in report_pairs/ come from real runs, trimmed to the columns
# the report reads: four_hosts from `mpibex pairs --metric bw --bw-bytes 64K
# --mode one --time-limit 20` on tests/netns/cluster.sh's four hosts (one
# rank each) with every host's egress shaped as in tests/netns/pairs_hosts.sh
# and mbxh3's traffic both ways to a quarter of the others' rate;
# per_rank from `mpiexec -n 2 mpibex pairs --per rank` on one machine.
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpibex=$2 dir=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
fixtures_py=$here/report_fixtures.py

fixtures() {
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 "$fixtures_py" make "$dir/in" || fail "fixtures"
}

# report OUT ARGS...: run the report, keep its exit code and stderr.
report() {
    local out=$1
    shift
    "$mpibex" report "$@" -o "$out" 2>"$dir/err.txt"
    code=$?
    echo "report $* -> exit $code"
    sed 's/^/  stderr: /' "$dir/err.txt"
}

# expect_files OUT STEM...: STEM.png and STEM.svg exist and are not empty.
expect_files() {
    local out=$1 s e
    shift
    for s in "$@"; do
        for e in png svg; do
            [ -s "$out/$s.$e" ] || fail "missing or empty: $out/$s.$e"
        done
    done
}

no_files() {
    local out=$1 s
    shift
    for s in "$@"; do
        [ ! -e "$out/$s.png" ] || fail "unexpected plot $out/$s.png"
    done
}

common_checks() { # OUT INPUTS...
    local out=$1
    shift
    [ "$code" -eq 0 ] || fail "exit $code"
    for f in index.html index.md plots.gp; do
        [ -s "$out/$f" ] || fail "missing or empty: $out/$f"
    done
    [ ! -e "$out/gnuplot.log" ] || fail "gnuplot.log left behind (gnuplot wrote to stderr)"
    ls "$out"/data/*.dat >/dev/null 2>&1 || fail "no data files in $out/data"
    python3 "$fixtures_py" check "$out" "$@" || fails=$((fails + 1))
}

pp=pingpong.send_recv-p2
samples=$here/report_pairs

# pairs_ok OUT: the report ran, gnuplot said nothing, the pages exist.
pairs_ok() {
    [ "$code" -eq 0 ] || fail "exit $code"
    for f in index.html index.md plots.gp; do
        [ -s "$1/$f" ] || fail "missing or empty: $1/$f"
    done
    [ ! -e "$1/gnuplot.log" ] || fail "gnuplot.log left behind (gnuplot wrote to stderr)"
    grep -q '<h2>Node pairs</h2>' "$1/index.html" || fail "no Node pairs section"
}

# slow_rows HTML KIND: the first cells of the table after "Slow KIND".
slow_rows() {
    awk -v k="<p>Slow $2" 'index($0, k) == 1 { on = 1 } on && /<\/table>/ { exit }
        on && /^<tr><td>/ { sub(/^<tr><td>/, ""); sub(/<\/td>.*/, ""); print }' "$1"
}
ar=coll.allreduce-p2-MPI_SUM_MPI_FLOAT
mw=mw.send_recv-p2-root0-pieces4

case $mode in
synthetic)
    fixtures
    in=$dir/in
    "$mpibex" merge "$in"/rep1/launch-0[0-9].csv -o "$in/m.csv" 2>/dev/null || fail "merge"
    inputs=("$in/a.csv" "$in/b.csv" "$in/c.csv" "$in/rep1" "$in/m.csv")
    report "$dir/out" "${inputs[@]}" --title '<b>T&"x</b>'
    common_checks "$dir/out" "${inputs[@]}"
    expect_files "$dir/out" $pp-latency $pp-bandwidth $pp-compare $pp-spread $ar-latency \
        $ar-compare $ar-spread coll.barrier-latency coll.barrier-compare coll.barrier-spread \
        $mw-latency $mw-compare
    no_files "$dir/out" coll.barrier-bandwidth
    html=$dir/out/index.html
    grep -q '&lt;b&gt;T&amp;&quot;x&lt;/b&gt;' "$html" || fail "the title is not escaped"
    # B against A: two separate runs (B 1.5 times slower everywhere) give no
    # machine-level verdict, only the ratio of medians, and no marks.
    grep -q 'No machine-level verdict: ' "$html" || fail "B against A: a verdict from two runs"
    grep -q 'A faster at 20' "$html" && fail "B against A: verdicts counted from two runs"
    grep -q 'Not comparable, no significance marks: .*c\.csv has no raw observations' "$html" ||
        fail "C is not reported as not comparable"
    grep -q 'Not comparable, no significance marks: .*m\.csv is a merged CSV' "$html" ||
        fail "the merged CSV is not reported as not comparable"
    grep -q 'samples are of different kinds' "$html" || fail "no warning on mixed sample kinds"
    grep -q 'keys whose values differ between launches: date_utc' "$html" ||
        fail "the launches' differing keys are not listed"
    # Two directories of launches: 4 against 4, rep2 1.3 times slower.
    report "$dir/out2" "$in/rep1" "$in/rep2"
    common_checks "$dir/out2" "$in/rep1" "$in/rep2"
    expect_files "$dir/out2" $pp-compare $pp-spread
    grep -q 'samples: launches (A), launches (B)' "$dir/out2/index.html" || fail "rep: kinds"
    grep -q '<td>\*</td>' "$dir/out2/index.html" || fail "rep: no * marks (4 against 4 launches)"
    # The script runs again by itself and draws the same files.
    rm -f "$dir/out/$pp-latency.png"
    (cd "$dir/out" && gnuplot plots.gp) 2>"$dir/gp.txt" || fail "gnuplot plots.gp failed again"
    [ ! -s "$dir/gp.txt" ] || fail "gnuplot plots.gp wrote to stderr: $(head -1 "$dir/gp.txt")"
    [ -s "$dir/out/$pp-latency.png" ] || fail "gnuplot plots.gp did not redraw the latency plot"
    ;;
single)
    fixtures
    report "$dir/out" "$dir/in/a.csv"
    common_checks "$dir/out" "$dir/in/a.csv"
    expect_files "$dir/out" $pp-latency $pp-bandwidth coll.barrier-latency $mw-latency
    no_files "$dir/out" $pp-compare $pp-spread
    grep -q '^report: wrote .*/out/index.html and index.md: 1 input, 4 series, 7 plots$' \
        "$dir/err.txt" || fail "wrong last progress line"
    ;;
force)
    fixtures
    report "$dir/out" "$dir/in/a.csv" "$dir/in/b.csv"
    [ "$code" -eq 0 ] || fail "first report: exit $code"
    echo keep >"$dir/out/notes.txt"
    report "$dir/out" "$dir/in/a.csv"
    [ "$code" -eq 2 ] || fail "a non-empty DIR without --force: exit $code, want 2"
    [ "$(wc -l <"$dir/err.txt")" -eq 1 ] || fail "expected one line on stderr"
    grep -q "already holds results (.*); --force replaces them" "$dir/err.txt" || fail "message"
    [ -s "$dir/out/$pp-compare.png" ] || fail "the refused report changed the old one"
    report "$dir/out" "$dir/in/a.csv" --force -q
    common_checks "$dir/out" "$dir/in/a.csv"
    [ ! -s "$dir/err.txt" ] || fail "-q printed something"
    no_files "$dir/out" $pp-compare
    [ ! -e "$dir/out/data/$pp-compare-B.dat" ] || fail "an old data file stayed"
    [ -s "$dir/out/notes.txt" ] || fail "--force removed a file that is not the report's"
    ;;
fakegp)
    kind=$1
    fixtures
    mkdir -p "$dir/bin"
    case $kind in
    fail) printf '#!/bin/sh\necho "plots.gp line 3: boom" >&2\nexit 1\n' ;;
    warn) printf '#!/bin/sh\necho "warning: something odd" >&2\nexit 0\n' ;;
    silent) printf '#!/bin/sh\nexit 0\n' ;;
    esac >"$dir/bin/gnuplot"
    chmod +x "$dir/bin/gnuplot"
    PATH="$dir/bin:$PATH" report "$dir/out" "$dir/in/a.csv"
    [ "$code" -eq 1 ] || fail "expected exit code 1"
    [ "$(grep -vc '^report: ' "$dir/err.txt")" -eq 1 ] || fail "expected one error line"
    case $kind in
    fail) want="gnuplot plots.gp failed: plots.gp line 3: boom \(all of it in .*/gnuplot.log\)" ;;
    warn) want="gnuplot plots.gp complained: warning: something odd" ;;
    silent) want="gnuplot did not write '.*\.png'" ;;
    esac
    grep -Eq "^mpibex report: $want" "$dir/err.txt" || fail "stderr does not match: $want"
    [ ! -e "$dir/out/index.html" ] || fail "an index page was written after gnuplot failed"
    ;;
sized)
    rm -rf "$dir"
    mkdir -p "$dir"
    {
        echo benchmark,procs,bytes,n,median_us,status,label,rma_sync
        echo pingpong.send_recv,2,0,20,1.5,SETTLED,cli,
        echo coll.barrier,2,0,20,2.5,SETTLED,cli,
        for b in 8 64; do
            echo "rma.put,2,$b,20,3.5,SETTLED,cli,fence"
            echo "rma.put,2,$b,20,1.5,SETTLED,cli,lock_all"
        done
    } >"$dir/z.csv"
    report "$dir/out" "$dir/z.csv"
    [ "$code" -eq 0 ] || fail "exit $code"
    expect_files "$dir/out" pingpong.send_recv-p2-latency coll.barrier-latency rma-p2-latency
    no_files "$dir/out" pingpong.send_recv-latency rma.put-p2-fence-latency
    grep -q '^report: wrote .*: 1 input, 4 series, 3 plots$' "$dir/err.txt" || fail "not 4 series"
    grep -q "2 series: rma.put, fence; rma.put, lock_all\." "$dir/out/index.html" ||
        fail "the rma plot does not list its two series"
    grep -Eq "'data/rma.put-p2-lock_all-latency-A.dat' using [^ ]+:2 with lines" "$dir/out/plots.gp" ||
        fail "no lock_all curve on the rma plot"
    report "$dir/out2" "$dir/z.csv" --overlay bench
    expect_files "$dir/out2" rma.put-p2-fence-latency rma.put-p2-lock_all-latency
    no_files "$dir/out2" rma-p2-latency
    grep -q '^report: wrote .*: 1 input, 4 series, 4 plots$' "$dir/err.txt" || fail "bench: plots"
    grep -q "rma.put, 2 processes, lock_all" "$dir/out2/index.html" || fail "no lock_all series title"
    ;;
overlay)
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 "$fixtures_py" overlay "$dir/in" || fail "fixtures"
    report "$dir/out" "$dir/in/ov1.csv" "$dir/in/ov2.csv"
    common_checks "$dir/out" "$dir/in/ov1.csv" "$dir/in/ov2.csv"
    expect_files "$dir/out" pingpong-p2-latency pingpong-p2-bandwidth pingpong-p2-compare
    python3 "$fixtures_py" check_overlay "$dir/out" || fails=$((fails + 1))
    grep -q '^report: wrote .*: 2 inputs, 2 series, 3 plots$' "$dir/err.txt" || fail "progress"
    # The script draws the plot again by itself, without a word on stderr.
    rm -f "$dir/out/pingpong-p2-latency.png"
    (cd "$dir/out" && gnuplot plots.gp) 2>"$dir/gp.txt" || fail "gnuplot plots.gp failed again"
    [ ! -s "$dir/gp.txt" ] || fail "gnuplot plots.gp wrote to stderr: $(head -1 "$dir/gp.txt")"
    [ -s "$dir/out/pingpong-p2-latency.png" ] || fail "plots.gp did not redraw the overlay"
    report "$dir/one" "$dir/in/ov1.csv" --overlay bench
    common_checks "$dir/one" "$dir/in/ov1.csv"
    expect_files "$dir/one" pingpong.send_recv-p2-latency pingpong.ssend_recv-p2-latency
    no_files "$dir/one" pingpong-p2-latency
    grep -q '^report: wrote .*: 1 input, 2 series, 4 plots$' "$dir/err.txt" || fail "bench: plots"
    ;;
nognuplot)
    fixtures
    PATH=/nonexistent "$mpibex" report "$dir/in/a.csv" -o "$dir/out" 2>"$dir/err.txt"
    code=$?
    echo "exit $code; stderr: $(cat "$dir/err.txt")"
    [ "$code" -eq 2 ] || fail "expected exit code 2"
    grep -qx 'mpibex report: gnuplot not found in PATH (Debian: apt-get install gnuplot-nox)' \
        "$dir/err.txt" || fail "wrong message"
    [ ! -e "$dir/out" ] || fail "the report directory was created"
    ;;
real)
    [ "${1:-}" = "--" ] && shift
    rm -rf "$dir"
    mkdir -p "$dir"
    for r in r1 r2; do
        "$@" "$mpibex" run --bench pingpong.send_recv,coll.barrier --sizes 1:4K:16 --nmax 60 -q \
            --raw -o "$dir/$r.csv" || fail "run $r exited $?"
    done
    report "$dir/out" "$dir/r1.csv" "$dir/r2.csv"
    common_checks "$dir/out" "$dir/r1.csv" "$dir/r2.csv"
    expect_files "$dir/out" $pp-latency $pp-bandwidth $pp-compare
    grep -q 'No machine-level verdict: ' "$dir/out/index.html" ||
        fail "two runs were given a machine-level verdict"
    ;;
pairs_slow_node)
    rm -rf "$dir"
    mkdir -p "$dir"
    report "$dir/out" "$samples/four_hosts.csv"
    pairs_ok "$dir/out"
    expect_files "$dir/out" nodepairs-A-bandwidth
    no_files "$dir/out" nodepairs-A-latency
    html=$dir/out/index.html
    [ "$(slow_rows "$html" node)" = mbxh3 ] || fail "slow nodes: '$(slow_rows "$html" node)', want mbxh3"
    [ -z "$(slow_rows "$html" link)" ] || fail "a slow link where none was found"
    grep -q 'scope: this launch&#39;s passes' "$html" || fail "no scope of the verdicts"
    grep -q 'tolerance 20 %, alpha 0.05' "$html" || fail "no tolerance and alpha"
    gp=$dir/out/plots.gp
    grep -q "^set ytics (.*'mbxh3 SLOW' 2" "$gp" || fail "mbxh3's row is not labelled SLOW"
    [ "$(grep -c '^set object rect' "$gp")" -eq 2 ] || fail "want two boxes: mbxh3's row and column"
    dat=$dir/out/data/nodepairs-A-bandwidth.dat
    [ "$(grep -c '^[0-9]' "$dat")" -eq 16 ] || fail "$dat: not a 4 x 4 grid"
    [ "$(grep -c '^\([0-9]\) \1 NaN' "$dat")" -eq 4 ] || fail "$dat: the diagonal is not blank"
    grep -q '^report: wrote .*: 1 input, 0 series, 1 plot$' "$dir/err.txt" || fail "progress"
    # Beside a run's results: its plots, and the matrix as B.
    fixtures
    report "$dir/mix" "$dir/in/a.csv" "$samples/four_hosts.csv"
    pairs_ok "$dir/mix"
    expect_files "$dir/mix" $pp-latency $pp-bandwidth nodepairs-B-bandwidth
    [ "$(slow_rows "$dir/mix/index.html" node)" = mbxh3 ] || fail "mix: mbxh3 not named slow"
    ;;
pairs_no_verdicts)
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$samples/four_hosts.csv" "$dir/alone.csv"
    report "$dir/out" "$dir/alone.csv"
    pairs_ok "$dir/out"
    expect_files "$dir/out" nodepairs-A-bandwidth
    grep -q "<p>Verdicts not found: no verdicts file beside the input (.*/alone\.verdicts\.csv)" \
        "$dir/out/index.html" || fail "the page does not say the verdicts were not found"
    grep -q 'SLOW\|^set object' "$dir/out/plots.gp" && fail "slow marks without verdicts"
    ;;
pairs_per_rank)
    rm -rf "$dir"
    mkdir -p "$dir"
    report "$dir/out" "$samples/per_rank.csv"
    pairs_ok "$dir/out"
    expect_files "$dir/out" nodepairs-A-latency nodepairs-A-bandwidth
    grep -q "^set xtics ('vm:0' 0, 'vm:1' 1)" "$dir/out/plots.gp" || fail "labels are not host:rank"
    grep -q '<p>Verdicts: none for the latency in .*per_rank\.verdicts\.csv (mpibex pairs gives them for 4 nodes' \
        "$dir/out/index.html" || fail "no word on the missing verdicts of 2 nodes"
    ;;
*)
    echo "usage: report_check.sh synthetic|single|force|fakegp|nognuplot|sized|overlay|real|pairs_slow_node|pairs_no_verdicts|pairs_per_rank MPIBEX DIR ..." >&2
    exit 2
    ;;
esac
mbx_finish
