#!/usr/bin/env bash
# The explorer's compare view on real ranks (issue 16, "Fairness"): K
# separate explorer jobs of 2 ranks, each headless (a key script on a
# virtual screen, `mpibex explore --headless` under mpiexec), each measuring
# pingpong.send_recv and pingpong.ssend_recv at 1 B .. 64 B interleaved by
# the scheduler, then `v` (A = Send, B = Ssend) and `=` (the list of A/B,
# p and the verdict at every size, the Wilcoxon test on pass medians).
# A benchmark, not a test: it prints what each run found and a count; the
# exit status is 0 unless the harness itself fails.
#
#   bench/explorer_fairness.sh [--runs K] [--mpiexec PATH] [--out DIR] MPIBEX
#
# Send vs Send cannot be run here: a run of the explorer holds each
# benchmark once. bench/honesty.sh measures it with `run` (sections A and B
# of one plan, the same scheduler and the same test on the same units).
set -euo pipefail

runs=10 mpiexec=mpiexec out=""
die() {
    echo "explorer_fairness: $2" >&2
    exit "$1"
}
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --mpiexec) mpiexec=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

cat >"$out/fair.ini" <<'PLAN'
# bench/explorer_fairness.sh: Send against Ssend, interleaved
[fair]
bench = pingpong.send_recv, pingpong.ssend_recv
sizes = 1:64:4
PLAN
# r runs the plan, wait polls until it is done, v opens the chooser (A: the
# first curve, B: the one below it), = lists the verdicts; q y quits.
echo 'r wait dump:done v enter down enter = dump:ratios q y' >"$out/fair.keys"

found=0 same=0 other=0
printf '%-4s %-8s %-8s %-7s %-9s %s\n' run A_1B B_1B A/B p verdict
for k in $(seq 1 "$runs"); do
    d=$out/run$k
    mkdir -p "$d"
    "$mpiexec" -n 2 "$mpibex" explore --plan "$out/fair.ini" --headless 120x40 \
        --keys "$out/fair.keys" --dump-dir "$d" --autosave none >"$d/stdout" 2>"$d/stderr" ||
        die 1 "run $k failed: $(tail -n 2 "$d/stderr" | tr '\n' ' ')"
    # The side column: "x A B A/B p stars v"; the row of x = 1.
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
echo "Send vs Ssend at 1 B, explorer compare view: a difference found in $found of $runs runs" \
    "($same not distinguishable, $other without a verdict); files in $out"
