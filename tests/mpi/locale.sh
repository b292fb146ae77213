#!/usr/bin/env bash
# Files, plans and command lines are locale-independent.
# usage: locale.sh MPIBEX CSVCHECK DIR -- MPIEXEC -n 2 [PREFLAGS]
#
# Under de_DE.UTF-8 (decimal comma) and tr_TR.UTF-8 (dotless i: "KIB" is not
# "kib" by its case rules), and under C as the reference:
#  * the explorer on the fake back end (deterministic) loads a plan with
#    sizes 1:64KIB:64 and stop stderr:3%, runs it, autosaves and exports:
#    every file it writes is byte for byte the one written under C;
#  * `mpibex run` on 2 ranks reads the same plan, and a command line with
#    --sizes 1:64KIB:64 --stop stderr:0.03: 4 rows each, numbers with '.',
#    the stop rule written stderr:0.03;
#  * `mpibex merge` and `mpibex report` read all of them back and write '.'
#    too.
# Exit 77 (skipped) when a locale is not installed (CI installs locales-all).
set -u
. "$(dirname "$0")/../lib.sh"
mpibex=$1 csvcheck=$2 dir=$3
shift 3
[ "${1:-}" = "--" ] && shift
launch=("$@")

locales=(de_DE.UTF-8 tr_TR.UTF-8)
for l in "${locales[@]}"; do
    if ! locale -a 2>/dev/null | grep -qix "${l/UTF-8/utf8}"; then
        echo "locale $l is not installed (apt-get install locales-all); skipped"
        exit 77
    fi
done

rm -rf "$dir"
mkdir -p "$dir"
plan=$dir/plan.ini
cat >"$plan" <<'EOF'
# Upper-case binary suffixes: under tr_TR, toupper/tolower map i and I to
# the dotted and dotless forms, so only ASCII folding reads them.
[locale]
bench = pingpong.send_recv
sizes = 1:64KIB:64
stop  = stderr:3%
nmin  = 8
nmax  = 48
refine = off
EOF
printf 'r tick:300\ne enter\n' >"$dir/keys"

# A decimal comma in a number: a CSV field holding one is quoted, as in
# "1,7501", "1,000e-09" or "stderr:0,03". (The rank list of 2 ranks, "0,1",
# has one digit after its comma.)
comma_numbers() {
    grep -En '"-?[0-9]+,([0-9]{2,}|[0-9]+e[-+]?[0-9]+)"|stderr:[0-9]*,' "$@"
}

explorer() { # LOCALE
    local l=$1 d=$dir/explore-$1
    mkdir -p "$d"
    (cd "$d" && LC_ALL=$l timeout 60 "$mpibex" explore --fake 2 --headless 100x30 \
        --keys "$dir/keys" --dump-dir . --autosave as --plan "$plan" >out.txt 2>err.txt)
    local rc=$?
    [ $rc -eq 0 ] || fail "explorer under $l exited $rc: $(head -c 300 "$d/err.txt")"
    # The autosave file's name holds the time and PID: give it a fixed one.
    local as=("$d"/as/explorer-*.csv)
    [ -f "${as[0]}" ] && mv "${as[0]}" "$d/autosave.csv"
}

explorer C
ref=$dir/explore-C
[ -s "$ref/mpibex-results.csv" ] || fail "explorer under C exported nothing"
# The explorer refines (its form's default) whatever the plan says: 4 grid
# points and what refinement adds, the same under every locale below.
"$csvcheck" "$ref/mpibex-results.csv" --col stop_rule=stderr:0.03 >/dev/null ||
    fail "explorer under C: csvcheck failed"
nex=$(($(wc -l <"$ref/mpibex-results.csv") - 1))
[ "$nex" -ge 4 ] || fail "explorer under C: $nex rows, want the 4 grid points at least"
for l in "${locales[@]}"; do
    explorer "$l"
    d=$dir/explore-$l
    for f in mpibex-results.csv mpibex-results.env.csv mpibex-results.obs.csv \
        mpibex-results.probe.csv autosave.csv; do
        if [ ! -f "$d/$f" ]; then
            fail "explorer under $l wrote no $f"
        elif ! cmp -s "$ref/$f" "$d/$f"; then
            fail "explorer under $l: $f differs from the one under C:"
            diff "$ref/$f" "$d/$f" | head -4
        fi
    done
    comma_numbers "$d"/*.csv && fail "explorer under $l wrote decimal commas"
done

batch() { # LOCALE NAME ARGS...
    local l=$1 name=$2
    shift 2
    local out=$dir/$name-$l.csv
    if ! LC_ALL=$l timeout 90 "${launch[@]}" "$mpibex" run "$@" -q -o "$out" \
        >"$dir/$name-$l.out" 2>"$dir/$name-$l.err"; then
        fail "run $name under $l failed: $(head -c 300 "$dir/$name-$l.err")"
        return
    fi
    "$csvcheck" "$out" --rows 4 --env "${out%.csv}.env.csv" --col stop_rule=stderr:0.03 ||
        fail "run $name under $l: csvcheck failed"
    local sizes
    sizes=$(tail -n +2 "$out" | cut -d, -f3 | sort -n | tr '\n' ' ')
    [ "$sizes" = "1 64 4096 65536 " ] || fail "run $name under $l: sizes $sizes(want 1 64 4096 65536)"
    comma_numbers "$out" "${out%.csv}.env.csv" && fail "run $name under $l wrote decimal commas"
}

for l in "${locales[@]}"; do
    batch "$l" plan "$plan"
    batch "$l" cli --bench pingpong.send_recv --sizes 1:64KIB:64 --stop stderr:0.03 --nmin 8 \
        --nmax 48
    # Everything read back, in the locale, by merge.
    m=$dir/merged-$l.csv
    if LC_ALL=$l "$mpibex" merge "$dir/plan-$l.csv" "$dir/cli-$l.csv" \
        "$dir/explore-$l/mpibex-results.csv" "$dir/explore-$l/autosave.csv" -o "$m" \
        2>"$dir/merge-$l.err"; then
        # One row per label and size: 4 (plan), 4 (command line), the
        # explorer's (as under C).
        [ "$(tail -n +2 "$m" | wc -l)" -eq $((8 + nex)) ] ||
            fail "merge under $l: $(tail -n +2 "$m" | wc -l) rows, want $((8 + nex))"
        comma_numbers "$m" && fail "merge under $l wrote decimal commas"
    else
        fail "merge under $l refused the files: $(head -1 "$dir/merge-$l.err")"
    fi
    # And by report, whose gnuplot runs in the same locale: its pages and
    # plot labels keep '.' too (gnuplot reads and prints C numbers unless
    # told `set decimalsign locale`, which plots.gp never says).
    if command -v gnuplot >/dev/null; then
        r=$dir/report-$l
        if LC_ALL=$l "$mpibex" report "$dir/explore-$l/mpibex-results.csv" "$dir/plan-$l.csv" \
            -o "$r" >/dev/null 2>"$dir/report-$l.err"; then
            grep -EHn '[0-9],[0-9]{2,}|[0-9],[0-9]+e' "$r/index.md" && fail "report under $l: decimal commas in index.md"
            grep -EHo '>[-0-9]+,[0-9]+<' "$r"/*.svg | head -3 | grep . && fail "report under $l: decimal commas in plot labels"
        else
            fail "report under $l refused the files: $(head -1 "$dir/report-$l.err")"
        fi
    fi
done

[ $fails -eq 0 ] && echo "locale: explorer, run, merge and report agree under C, ${locales[*]}"
[ $fails -eq 0 ]
