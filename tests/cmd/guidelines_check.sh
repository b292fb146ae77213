#!/usr/bin/env bash
# mpibex guidelines on the fake back end (no MPI) and, for `planted_real`,
# in a real job. One case per invocation:
#
#   guidelines_check.sh MPIBEX OUTDIR CASE [-- MPIEXEC -n 2 [FLAGS]]
#
#   planted       a null rule (coll.bcast <= coll.bcast, the right side in
#                 a twin section) with the left side's section made 1.5x
#                 slower from 4 KiB (MBX_TEST_STEP=4096:1.5:gl-1): violated
#                 at every size from 4 KiB, holds at every size below
#   null20        the same rule unplanted, 20 runs of different seeds: never
#                 violated
#   judge         --judge of a finished run writes the same verdicts as the
#                 run did; --print-plan is the plan the run measured; the
#                 report names every rule of the catalogue
#   planted_real  as planted, in a 2-rank job (2x from 4 KiB); below 4 KiB
#                 none violated
set -u
mpibex=$1 dir=$2 case=$3
shift 3
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/../lib.sh"
test_case=guidelines_$case
work=$dir/guidelines_$case
rm -rf "$work"
mkdir -p "$work"
cat >"$work/null.ini" <<'INI'
[null.bcast]
what = MPI_Bcast is no slower than itself
holds = coll.bcast <= coll.bcast
INI

# The verdicts of file $1 as "bytes verdict" lines.
verdicts() { python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r["bytes"], r["verdict"])' "$1"; }

# Every size from 4 KiB violated; below, every size held ($2 strict) or
# none violated ($2 loose: a real machine's passes, run beside other
# tests, can leave a CI's top past 1.05: not distinguishable, never
# violated). $1: the verdicts.
planted_ok() {
    local v bad=0 viol=0 held=0 below=0
    while read -r b v; do
        if [ "$b" -ge 4096 ]; then
            [ "$v" = violated ] && viol=$((viol + 1)) || { bad=1; echo "  $b B: $v"; }
        else
            below=$((below + 1))
            if [ "$v" = holds ]; then
                held=$((held + 1))
            elif [ "$2" = strict ] || [ "$v" = violated ]; then
                bad=1
                echo "  $b B: $v"
            fi
        fi
    done < <(verdicts "$1")
    [ "$2" = loose ] || [ "$held" -ge 2 ] || bad=1
    [ "$bad" = 0 ] && [ "$viol" -ge 3 ] &&
        pass "violated at the $viol sizes from 4 KiB, held at $held of the $below below" ||
        fail "planted step not found as planted (see above)"
}

case $case in
planted)
    MBX_TEST_STEP=4096:1.5:gl-1 "$mpibex" guidelines "$work/null.ini" --fake 2 --sizes 256:32K \
        -o "$work/p.csv" -q >"$work/out" 2>"$work/err" || die "exit $?: $(cat "$work/err")"
    planted_ok "$work/p.guidelines.csv" strict
    grep -Eq '^null\.bcast +2 +4 +4 +0 +0  4KiB-32KiB \(1\.[45][0-9]* \[' "$work/out" &&
        pass "the report's line: $(grep '^null\.bcast' "$work/out")" ||
        fail "report line: $(grep '^null\.bcast' "$work/out")"
    ;;
null20)
    viol=0
    for seed in $(seq 1 20); do
        "$mpibex" guidelines "$work/null.ini" --fake 2 --sizes 64:64K --seed "$seed" \
            -o "$work/n$seed.csv" -q >/dev/null 2>"$work/err" || die "seed $seed: exit $?: $(cat "$work/err")"
        n=$(verdicts "$work/n$seed.guidelines.csv" | grep -c ' violated$')
        viol=$((viol + n))
    done
    [ "$viol" = 0 ] && pass "20 runs of 11 sizes: never violated" || fail "$viol violated points"
    ;;
judge)
    "$mpibex" guidelines --fake 2 --rules 'allreduce.*,monotony.bcast,blocking.barrier' \
        --sizes 4:1K -o "$work/j.csv" -q >"$work/out" 2>"$work/err" || die "exit $?: $(cat "$work/err")"
    cp "$work/j.guidelines.csv" "$work/first.csv"
    "$mpibex" guidelines --rules 'allreduce.*,monotony.bcast,blocking.barrier' --sizes 4:1K \
        --judge "$work/j.csv" >"$work/out2" 2>"$work/err" || die "--judge: exit $?: $(cat "$work/err")"
    cmp -s "$work/first.csv" "$work/j.guidelines.csv" && pass "--judge writes the run's verdicts again" ||
        fail "--judge's verdicts differ"
    "$mpibex" guidelines --rules 'allreduce.*,monotony.bcast,blocking.barrier' --sizes 4:1K \
        --print-plan >"$work/plan" || die "--print-plan failed"
    cmp -s "$work/plan" "$work/j.plan.ini" && pass "--print-plan is the plan measured" ||
        fail "--print-plan differs from j.plan.ini"
    for r in allreduce.reduce_bcast allreduce.rsb_allgather monotony.bcast blocking.barrier; do
        grep -q "^$r " "$work/out" || fail "no report line for $r"
    done
    head -1 "$work/first.csv" | grep -qx 'rule,lhs,rhs,procs,bytes,lhs_bytes,rhs_bytes,n_lhs,n_rhs,median_lhs_us,median_rhs_us,ratio,ratio_lo,ratio_hi,p_two_sided,q_bh,verdict,tolerance_pct,scope' &&
        pass "the verdict file's columns" || fail "columns: $(head -1 "$work/first.csv")"
    bad=$(verdicts "$work/first.csv" | grep -vcE ' (holds|violated|not_distinguishable|none)$')
    [ "$bad" = 0 ] && pass "every verdict one of the four words" || fail "$bad odd verdicts"
    # the unsized rule is judged at 0 B only
    [ "$(grep -c '^blocking\.barrier,' "$work/first.csv")" = 1 ] && pass "an unsized rule: one point" ||
        fail "blocking.barrier rows: $(grep -c '^blocking\.barrier,' "$work/first.csv")"
    ;;
planted_real)
    MBX_TEST_STEP=4096:2:gl-1 "$@" "$mpibex" guidelines "$work/null.ini" --sizes 256:32K \
        -o "$work/p.csv" -q >"$work/out" 2>"$work/err" || die "exit $?: $(cat "$work/err")"
    planted_ok "$work/p.guidelines.csv" loose
    ;;
*) die "unknown case $case" ;;
esac
mbx_finish
