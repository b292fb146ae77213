#!/usr/bin/env bash
# mpibex across two "hosts" (network namespaces, cluster.sh): a ping-pong
# whose messages really cross a TCP link, instead of the shared memory MPI
# uses between ranks of one machine.
#
#   pingpong_two_hosts.sh MPIBEX CSVCHECK
#
# 1. Unshaped link: mpiexec inside host mbxh1 starts one rank on mbxh1 and
#    one on mbxh2 (hydra's ssh launcher with hydra-exec.sh standing in for
#    ssh). The results must pass csvcheck; the env file must say hosts=2
#    with two different hosts in ranks_per_host. Prints the 1 B latency and
#    the 1 MiB bandwidth, which must be above 50 MB/s.
# 2. The same over a link shaped to 100 Mbit/s (tc tbf on each eth0): the
#    1 MiB bandwidth must drop below 20 MB/s (12.5 MB/s is the line rate).
#
# UCX_TLS=tcp,self and UCX_NET_DEVICES=eth0 make UCX use the link (hydra
# passes -genv variables to every rank). Each check prints PASS or FAIL;
# the exit status is non-zero on any FAIL, 77 (with "SKIP: reason") when
# network namespaces cannot be made here. Every wait is bounded, and the
# namespaces are removed on every way out.
#
# Known problem this test can show: MPICH 4.0.2 (ch4:ucx) with UCX 1.13 on
# the tcp transport deadlocks in MPI_Finalize when one rank enters it while
# another is still busy or asleep: the early rank's UCX disconnect
# completes, it then waits in a PMI barrier without progressing UCX, and
# the late rank's disconnect waits for it forever. Here rank 1 is late when
# it sleeps between tests of its command broadcast while rank 0 writes the
# results (about one run in ten). A barrier on MPI_COMM_WORLD just before
# MPI_Finalize avoids it. A job that wrote its results but did not exit is
# reported as such a hang (confirmed with gdb when it is installed).
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib_netns.sh"
JOB_SECONDS=60 # a run takes about 5 s
mbx_netns_mpi_begin pingpong 120 "$@"

# stuck_in_finalize: " ; in MPI_Finalize (gdb): rank R on HOST ..." for
# the ranks gdb (when there is one) finds in MPI_Finalize. The ranks run in
# another mount namespace, hence the explicit executable.
# late_reason NAME (mbx_netns_wait's hook): a job that wrote its results
# but did not exit is named as such, with the ranks stuck in MPI_Finalize.
late_reason() {
    if grep -q "^done:" "$work/$1.log"; then
        echo "the job wrote its results but did not exit within $JOB_SECONDS s$(stuck_in_finalize) (see the header)"
    else
        echo "the job did not finish within $JOB_SECONDS s"
    fi
}

stuck_in_finalize() {
    local h p r found=""
    command -v gdb >/dev/null || return 0
    for h in mbxh1 mbxh2; do
        for p in $(ip netns pids "$h" 2>/dev/null); do
            r=$({ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | sed -n 's/^PMI_RANK=//p')
            [ -n "$r" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = mpibex ] || continue
            if timeout 20 gdb "/proc/$p/exe" "$p" -batch -ex "thread apply all bt" 2>/dev/null |
                grep -q PMPI_Finalize; then
                found="$found rank $r on $h (pid $p)"
            fi
        done
    done
    [ -n "$found" ] && printf '; in MPI_Finalize (gdb):%s' "$found"
    return 0
}

# run_pingpong NAME [RATE]: a fresh two-host cluster, one rank on each,
# results in $work/NAME.csv. Returns 0 when the job ended in time with 0.
run_pingpong() {
    local name=$1 rate=${2:-}
    "$cluster" down
    if ! "$cluster" up 2 $rate >"$work/$name.up" 2>&1; then
        fail "$name: cluster.sh up 2 $rate: $(tail -1 "$work/$name.up")"
        return 1
    fi
    mbx_netns_mpirun "$name" run --bench pingpong.send_recv --sizes 1,64K,1M \
        -o "$work/$name.csv" || return 1
    pass "$name: mpibex ran across mbxh1 and mbxh2${rate:+ (links shaped to $rate)}"
    return 0
}

# check_results NAME: csvcheck, the hosts in the env file.
check_results() {
    local name=$1 csv="$work/$1.csv" envf="$work/$1.env.csv" rph
    if "$csvcheck" "$csv" --env "$envf" --procs 2 >"$work/$name.check" 2>&1; then
        pass "$name: csvcheck ($(tail -1 "$work/$name.check"))"
    else
        fail "$name: csvcheck: $(tail -1 "$work/$name.check")"
    fi
    [ -f "$envf" ] || return
    rph=$(mbx_env_value "$envf" ranks_per_host)
    if [ "$(mbx_env_value "$envf" hosts)" = 2 ]; then
        pass "$name: env file says hosts=2"
    else
        fail "$name: env file says hosts=$(mbx_env_value "$envf" hosts), expected 2"
    fi
    # "mbxh1:1 mbxh2:1": two entries, two different names.
    if [ "$(printf '%s\n' $rph | cut -d: -f1 | sort -u | wc -l)" -eq 2 ]; then
        pass "$name: ranks_per_host lists two hosts ($rph)"
    else
        fail "$name: ranks_per_host is '$rph', expected two different hosts"
    fi
}

# figures NAME: prints the 1 B latency and the 1 MiB bandwidth; sets bw
# to the latter (MB/s, 0 when missing).
figures() {
    local csv="$work/$1.csv" lat
    lat=$(mbx_csv_field "$csv" pingpong.send_recv 1 median_us)
    bw=$(mbx_csv_field "$csv" pingpong.send_recv 1048576 bandwidth_MBps)
    echo "FIGURE: $1: 1 B latency ${lat:-?} us (median half round trip), 1 MiB bandwidth ${bw:-?} MB/s"
    bw=${bw:-0}
}

# 1. unshaped
if run_pingpong unshaped; then
    check_results unshaped
    figures unshaped
    if awk -v b="$bw" 'BEGIN { exit !(b > 50) }'; then
        pass "unshaped: 1 MiB bandwidth $bw MB/s > 50 MB/s"
    else
        fail "unshaped: 1 MiB bandwidth $bw MB/s, expected > 50 MB/s"
    fi
fi

# 2. shaped to 100 Mbit/s = 12.5 MB/s
if run_pingpong shaped100mbit 100mbit; then
    check_results shaped100mbit
    figures shaped100mbit
    if awk -v b="$bw" 'BEGIN { exit !(b > 0 && b < 20) }'; then
        pass "shaped: 1 MiB bandwidth $bw MB/s < 20 MB/s (line rate 12.5 MB/s)"
    else
        fail "shaped: 1 MiB bandwidth $bw MB/s, expected < 20 MB/s"
    fi
fi

mbx_finish
