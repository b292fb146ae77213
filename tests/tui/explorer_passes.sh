#!/usr/bin/env bash
# The explorer on the scheduler, headless on the fake back end:
#  a) after the first round every curve of the quick plan is on screen and
#     every grid point has a pass (none waits for an earlier curve);
#  b) points get several passes: every autosaved row of a finished run has
#     at least R = 5 passes over at least S = 1 s, and the closing message
#     counts passes and rounds; a run stopped after the first round saves
#     every point once, as it stands (UNSETTLED, few passes);
#  c) Send vs Send: pingpong.send_recv picked twice (d in the picker: two
#     curves, the second named "#2") compared with v are "not
#     distinguishable" on pass medians at >= 80 % of their common sizes (a
#     5 % test over a dozen sizes may flag one or two), and the view says
#     the two were interleaved; the export's rows of the second curve carry
#     the label explorer#2.
# usage: explorer_passes.sh MPIBEX WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2
rm -rf "$work"
mkdir -p "$work"

explore() { # explore NAME KEYS RANKS: dumps in $work/NAME, autosave in $work/NAME/as
    mkdir -p "$work/$1"
    printf '%s\n' "$2" >"$work/$1/run.keys"
    LC_ALL=C.UTF-8 "$mpibex" explore --fake "$3" --headless 160x70 --term xterm-mono \
        --keys "$work/$1/run.keys" --dump-dir "$work/$1" --autosave "$work/$1/as" \
        >"$work/$1/out" 2>"$work/$1/err" || fail "$1: the explorer failed: $(cat "$work/$1/err")"
}
# column NAME of CSV FILE, one value a line (fields may be quoted: ranks "0,3")
column() {
    python3 -c 'import csv, sys
for row in csv.DictReader(open(sys.argv[2])): print(row[sys.argv[1]])' "$1" "$2"
}

# a) and b): the quick plan on 4 fake ranks, dumped after the first round
# (36 grid points: a pilot and a pass each, and the first probe) and done.
explore quick 'r tick:90 dump:round1 tick:5000 dump:done' 4
d=$work/quick/round1.txt
status=$(grep -m1 -E '^ final [0-9]+/[0-9]+' "$d")
nfinal=$(sed -n 's/^ final \([0-9]*\)\/\([0-9]*\).*/\1/p' <<<"$status")
npts=$(sed -n 's/^ final \([0-9]*\)\/\([0-9]*\).*/\2/p' <<<"$status")
# a convergence row: its bar (filled or not), then "0.45% 2/5" or "1/5"
open=$(grep -cE '(█|·|#|\.) +([0-9.]+% )?[1-9][0-9]*/5 *$' "$d")
pending=$(grep -cE '(█|·|#|\.) +(pending|wait) *$' "$d")
if [ -n "$npts" ] && [ "$npts" -ge 30 ] && [ "$pending" -eq 0 ] && [ $((open + nfinal)) -eq "$npts" ]; then
    pass "a) after the first round all $npts points have passes ($open open, $nfinal final, 0 pending)"
else
    fail "a) after the first round: status '$status', $open open, $pending pending"
fi
# every sized series of the legend has a value (its right end so far);
# barrier has no size: the legend names it and where it is instead
nser=$(grep -cE '[o+x*#] (send_recv|isend_recv|bcast|allreduce) +[0-9.]+(µ|n|m)?s *$' "$d")
nox=$(grep -cE 'no size.*barrier' "$d")
[ "$nser" -eq 4 ] && [ "$nox" -eq 1 ] &&
    pass "a) all 4 sized curves are drawn after the first round, barrier named off the axis" ||
    fail "a) $nser of 4 curves have a value after the first round ($nox no-size line): $(grep -E 'send_recv|barrier|bcast|allreduce' "$d" | head -6)"

csv=$(ls "$work"/quick/as/explorer-*.csv 2>/dev/null | head -1)
rows=$([ -n "$csv" ] && column passes "$csv" | wc -l)
few=$([ -n "$csv" ] && column passes "$csv" | awk '$1 < 5' | wc -l)
short=$([ -n "$csv" ] && column pass_span_s "$csv" | awk '$1 < 1.0' | wc -l)
if [ "${rows:-0}" -ge "$npts" ] && [ "$few" -eq 0 ] && [ "$short" -eq 0 ]; then
    pass "b) $rows rows autosaved, each with >= 5 passes over >= 1 s (passes: $(column passes "$csv" | sort -n | uniq -c | tr -s ' \n' ' '))"
else
    fail "b) autosave $csv: $rows rows, $few with fewer than 5 passes, $short spanning under 1 s"
fi
grep -qE '^ done: [0-9]+ points.*; [0-9]+ passes in [0-9]+ rounds' "$work/quick/done.txt" &&
    pass "b) $(grep -oE 'done: .*rounds' "$work/quick/done.txt")" ||
    fail "b) no closing message with passes: $(grep -E '^ (done|final)' "$work/quick/done.txt")"

# b) stopped right after the first round (the script ends): every point
# is saved once, as it stands.
explore stopped 'r tick:90' 4
csv=$(ls "$work"/stopped/as/explorer-*.csv 2>/dev/null | head -1)
rows=$([ -n "$csv" ] && column passes "$csv" | wc -l)
unset_rows=$([ -n "$csv" ] && column status "$csv" | grep -c UNSETTLED)
many=$([ -n "$csv" ] && column passes "$csv" | awk '$1 >= 5' | wc -l)
if [ "${rows:-0}" -eq "$npts" ] && [ "$unset_rows" -eq "$rows" ] && [ "$many" -eq 0 ]; then
    pass "b) stopped after the first round: $rows points saved once each, UNSETTLED, under 5 passes"
else
    fail "b) stopped: $rows rows (want $npts), $unset_rows UNSETTLED, $many with 5 passes or more"
fi

# c) Send vs Send: pingpong.send_recv picked twice, compared.
explore same '1 n / text:pingpong.send_recv enter down d dump:pick / esc
r tick:5000 v enter down enter dump:compare = dump:ratios' 2
grep -q 'Benchmarks: 1 selected of [0-9]* (1 twice)' "$work/same/pick.txt" &&
    grep -qE '\[2\] pingpong\.send_recv ' "$work/same/pick.txt" &&
    pass "c) the picker shows pingpong.send_recv picked twice" ||
    fail "c) the picker: $(grep -E 'Benchmarks:|pingpong.send_recv ' "$work/same/pick.txt")"
grep -qE 'A send_recv +[0-9]' "$work/same/compare.txt" &&
    grep -qE 'B send_recv #2 +[0-9]' "$work/same/compare.txt" &&
    pass "c) the legend names the second curve send_recv #2" ||
    fail "c) the legend: $(grep -E ' [AB] ' "$work/same/compare.txt" | head -2)"
csv=$(ls "$work"/same/as/explorer-*.csv 2>/dev/null | head -1)
n1=$([ -n "$csv" ] && column label "$csv" | grep -cx explorer)
n2=$([ -n "$csv" ] && column label "$csv" | grep -cx 'explorer#2')
[ "${n1:-0}" -ge 8 ] && [ "${n1:-0}" = "${n2:-0}" ] &&
    pass "c) the autosave holds $n1 rows of each curve (labels explorer, explorer#2)" ||
    fail "c) autosave $csv: $n1 rows labelled explorer, $n2 explorer#2"

line=$(grep -m1 -E 'Wilcoxon' "$work/same/compare.txt")
faster=$(sed -n 's/.*A faster at \([0-9]*\) x.*/\1/p' <<<"$line")
slower=$(sed -n 's/.*slower at \([0-9]*\),.*/\1/p' <<<"$line")
same=$(sed -n 's/.*not distinguishable at \([0-9]*\).*/\1/p' <<<"$line")
if grep -q 'interleaved;' <<<"$line" && grep -q ', pass medians' <<<"$line" &&
    [ "${same:-0}" -ge 8 ] && [ $((5 * same)) -ge $((4 * (faster + slower + same))) ]; then
    pass "c) Send vs Send: $line"
else
    fail "c) Send vs Send: '$line'"
fi
grep -q 'interleaved' "$work/same/ratios.txt" && pass "c) the ratio list says interleaved" ||
    fail "c) the ratio list: $(grep -m1 'B/A' "$work/same/ratios.txt")"
mbx_finish
