#!/usr/bin/env bash
# usage: rma_fake.sh MPIBEX CSVCHECK DIR
# The one-sided benchmarks on the fake back end: each --rma-sync mode's rows
# name it in rma_sync, and lock (a lock and an unlock per operation) is
# slower than lock_all (one flush) at the same point.
set -eu
mpibex=$1 check=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
for m in fence lock lock_all pscw; do
    "$mpibex" run --fake 2 --bench rma.put,rma.get,rma.acc,rma.put_bw --sizes 8,1K --span 0 \
        --rma-sync "$m" -q -o "$dir/$m.csv" >/dev/null
    "$check" "$dir/$m.csv" --rows 8 --procs 2 --col "rma_sync=$m" --col timing=origin
done
# rma.put at 8 bytes: the median (column median_us) under lock and lock_all.
med() { awk -F, -v b=rma.put 'NR > 1 && $1 == b && $3 == 8 { print $7 }' "$dir/$1.csv"; }
lock=$(med lock) all=$(med lock_all)
echo "rma.put 8 B: lock $lock us, lock_all $all us"
awk -v a="$lock" -v b="$all" 'BEGIN { exit !(a > b) }' || {
    echo "expected lock slower than lock_all"
    exit 1
}
