#!/usr/bin/env bash
# The explorer's compare view on real ranks ("Fairness"): K
# separate explorer jobs of 2 ranks, each headless (a key script on a
# virtual screen, `mpibex explore --headless` under mpiexec), each measuring
# two curves interleaved by the scheduler, then `v` (A = the
# first curve, B = the second) and `=` (the list of B/A, p and the verdict
# at every size, the Wilcoxon test on pass medians).
#   default: pingpong.send_recv against pingpong.ssend_recv at 1 B .. 64 B;
#            a difference at 1 B must be found;
#   --same:  pingpong.send_recv against itself at 1 B .. 64 KiB (the plan names it in two
#            sections, so the explorer measures it as two curves, the second
#            "#2"); "not distinguishable" is the right verdict, and the
#            share of such verdicts over all runs and sizes is counted.
# A benchmark, not a test: it prints what each run found and a count; the
# exit status is 0 unless the harness itself fails.
#
#   bench/explorer_fairness.sh [--runs K] [--same] [--mpiexec PATH] [--out DIR] MPIBEX
set -euo pipefail

runs=10 mpiexec=mpiexec out="" same_mode=0
die() {
    echo "explorer_fairness: $2" >&2
    exit "$1"
}
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --mpiexec) mpiexec=${2:?}; shift 2 ;;
    --same) same_mode=1; shift ;;
    --out) out=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die 2 "unknown option '$1' (see --help)" ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || die 2 "expected the mpibex binary (see --help)"
mpibex=$1
[ -x "$mpibex" ] || die 2 "MPIBEX: '$mpibex' is not an executable"
case $runs in '' | *[!0-9]*) die 2 "--runs: expected a count in 1..1000 (got '$runs')" ;; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 1000 ] || die 2 "--runs: expected a count in 1..1000 (got '$runs')"
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/mbx-explorer-fairness.XXXXXX")}
mkdir -p "$out"

if [ $same_mode -eq 1 ]; then
    cat >"$out/fair.ini" <<'PLAN'
# bench/explorer_fairness.sh --same: Send against Send, interleaved
[A]
bench = pingpong.send_recv
sizes = 1:64KiB:4
[B]
bench = pingpong.send_recv
PLAN
else
    cat >"$out/fair.ini" <<'PLAN'
# bench/explorer_fairness.sh: Send against Ssend, interleaved
[fair]
bench = pingpong.send_recv, pingpong.ssend_recv
sizes = 1:64:4
PLAN
fi
# r runs the plan, wait polls until it is done, v opens the chooser (A: the
# first curve, B: the one below it), = lists the verdicts; q y quits.
echo 'r wait dump:done v enter down enter = dump:ratios q y' >"$out/fair.keys"

found=0 same=0 other=0 tot_eq=0 tot_all=0
if [ $same_mode -eq 1 ]; then
    printf '%-4s %-8s %-8s %s\n' run rows same differ
else
    printf '%-4s %-8s %-8s %-7s %-9s %s\n' run A_1B B_1B B/A p verdict
fi
verdict_rows='[0-9.]+[KMG]?i? +[0-9.]+[nµm]?s +[0-9.]+[nµm]?s +[0-9.]+ +[<.0-9]+\**-* +[<>=-]'
for k in $(seq 1 "$runs"); do
    d=$out/run$k
    mkdir -p "$d"
    "$mpiexec" -n 2 "$mpibex" explore --plan "$out/fair.ini" --headless 120x40 \
        --keys "$out/fair.keys" --dump-dir "$d" --autosave none >"$d/stdout" 2>"$d/stderr" ||
        die 1 "run $k failed: $(tail -n 2 "$d/stderr" | tr '\n' ' ')"
    if [ $same_mode -eq 1 ]; then
        # Every row of the side column "x A B B/A p stars v".
        rows=$(grep -v '^@' "$d/ratios.txt" | grep -oE " $verdict_rows" | awk '{print $NF}' || true)
        [ -n "$rows" ] || die 1 "run $k: no verdict rows in $d/ratios.txt"
        n=$(wc -l <<<"$rows") eq=$(grep -cx '=' <<<"$rows" || true)
        printf '%-4s %-8s %-8s %s\n' "$k" "$n" "$eq" "$(grep -cE '^[<>]$' <<<"$rows" || true)"
        tot_eq=$((tot_eq + eq)) tot_all=$((tot_all + n))
        continue
    fi
    # The side column: "x A B B/A p stars v"; the row of x = 1.
    row=$(grep -v '^@' "$d/ratios.txt" | grep -oE ' 1 +[0-9.]+[nµm]?s +[0-9.]+[nµm]?s +[0-9.]+ +[<.0-9]+\**-* +[<>=-]' |
        head -1 || true)
    [ -n "$row" ] || die 1 "run $k: no row for 1 B in $d/ratios.txt"
    set -- $row
    printf '%-4s %-8s %-8s %-7s %-9s %s\n' "$k" "$2" "$3" "$4" "$5" "${!#}"
    case ${!#} in
    '<' | '>') found=$((found + 1)) ;;
    '=') same=$((same + 1)) ;;
    *) other=$((other + 1)) ;;
    esac
done
if [ $same_mode -eq 1 ]; then
    echo "Send vs Send, explorer compare view: not distinguishable at $tot_eq of $tot_all" \
        "points ($(awk -v a="$tot_eq" -v b="$tot_all" 'BEGIN { printf "%.1f", 100 * a / b }') %)" \
        "over $runs runs; files in $out"
else
    echo "Send vs Ssend at 1 B, explorer compare view: a difference found in $found of $runs runs" \
        "($same not distinguishable, $other without a verdict); files in $out"
fi
