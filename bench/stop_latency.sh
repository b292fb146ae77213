#!/usr/bin/env bash
# SIGTERM to exit of `mpibex run`, per output, on a loaded machine
# (docs/hardening.md, "Scale"): a fake run of one point that never settles
# (10 000 passes), stopped after SECS seconds, TRIALS times per output;
# LOAD busy loops (`nice yes`) run meanwhile. Prints each figure, then the
# median and the largest per output, and rank 0's resident memory.
# usage: bench/stop_latency.sh MPIBEX [SECS] [TRIALS] [LOAD]
set -u
mpibex=$1 secs=${2:-5} trials=${3:-3} load=${4:-4}
dir=$(mktemp -d)
hogs=()
for ((i = 0; i < load; i++)); do
    nice yes >/dev/null &
    hogs+=($!)
done
cleanup() {
    local p
    for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT
for out in "$dir/o.csv" - /dev/null; do
    figs=()
    for ((t = 0; t < trials; t++)); do
        rm -f "$dir"/o.*
        "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1 --passes 10000 \
            --max-passes 10000 --stop stderr:0.00001 -o "$out" >"$dir/stdout" 2>"$dir/stderr" &
        pid=$!
        sleep "$secs"
        rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
        t0=$(date +%s%N)
        kill -TERM "$pid"
        wait "$pid"
        rc=$?
        t1=$(date +%s%N)
        ms=$(((t1 - t0) / 1000000))
        figs+=("$ms")
        echo "-o ${out##*/}: exit $rc, $ms ms, rank 0 ${rss} KiB resident at the signal"
    done
    sorted=$(printf '%s\n' "${figs[@]}" | sort -n)
    echo "-o ${out##*/}: median $(sed -n "$(((trials + 1) / 2))p" <<<"$sorted") ms, largest $(tail -1 <<<"$sorted") ms over $trials"
done
