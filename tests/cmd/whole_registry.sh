#!/usr/bin/env bash
# usage: whole_registry.sh MPIBEX OUTDIR
# `--bench '*'` selects the whole registry, and every benchmark of this
# build gets a row (fake back end): no limit of the plan or of the
# explorer's picker (EX_MAX_BENCH) may leave one out; and the explorer
# starts with all of them.
set -u
mpibex=$1 dir=$2
out=$dir/whole_registry.csv
rm -f "$out" "${out%.csv}".*
"$mpibex" run --fake 2 --bench '*' --thread-level multiple --sizes 4 --stop fixed:8 -q -o "$out" \
    >/dev/null || { echo "FAIL: run --bench '*' exited $?"; exit 1; }
rows=$(python3 -c 'import csv,sys; print(len({r["benchmark"] for r in csv.DictReader(open(sys.argv[1]))}))' "$out")
listed=$("$mpibex" list | grep -c '^[a-z]')
[ "$rows" = "$listed" ] || { echo "FAIL: $rows benchmarks measured, $listed listed"; exit 1; }
echo "PASS: all $listed benchmarks of the registry selected and measured"
