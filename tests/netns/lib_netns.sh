# The set-up every netns test shares (sourced after tests/lib.sh): hosts
# are made by cluster.sh (namespaces mbxh1.., addresses 198.18.0.I).
#
# mbx_netns_begin NAME LOCK_SECONDS TOOL...: exits 77 ("SKIP: reason")
# where namespaces cannot be made; waits up to LOCK_SECONDS for the
# machine's netns lock (fd 9: the namespace names are fixed, and another
# engineer's test run may be using them); fails when a TOOL (a command or
# an executable's path) is missing;
# sets $here (tests/netns), $cluster and $work (a fresh
# /tmp/mbx-netns-NAME.XXXXXX).
mbx_netns_begin() {
    local name=$1 wait=$2 tool reason
    shift 2
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    cluster="$here/cluster.sh"
    if ! reason=$("$cluster" probe); then
        echo "SKIP: $reason"
        exit 77
    fi
    exec 9>>/tmp/mbx-netns.lock
    flock -w "$wait" 9 || {
        echo "FAIL: another netns test held /tmp/mbx-netns.lock for $wait s"
        exit 1
    }
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "FAIL: $tool not found"; exit 1; }
    done
    work=$(mktemp -d "/tmp/mbx-netns-$name.XXXXXX")
}

# mbx_netns_traps: on every way out the script's cleanup() runs (which
# ends with mbx_netns_down); a signal exits with 128 + its number.
mbx_netns_traps() {
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}

# mbx_netns_down: the hosts and whatever runs in them gone, $work removed.
mbx_netns_down() {
    "$cluster" down
    rm -rf "$work"
}

# mbx_netns_wait NAME: waits up to $JOB_SECONDS for the background job
# $job (mpiexec, its output in $work/NAME.log) and clears $job. On a
# timeout it fails with what late_reason NAME prints (when the script
# defines it; else "the job did not finish within $JOB_SECONDS s"), shows
# the log's end and takes the hosts down (mpiexec passes SIGTERM on to the
# ranks, but a rank stuck in MPI_Finalize does not die of it: down ends
# every process in the namespaces, TERM then KILL). Fails on a non-zero
# exit too. Returns 0 when the job ended well.
mbx_netns_wait() {
    local name=$1 i rc why
    for ((i = 0; i < JOB_SECONDS * 5; i++)); do
        kill -0 "$job" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$job" 2>/dev/null; then
        why="the job did not finish within $JOB_SECONDS s"
        declare -F late_reason >/dev/null && why=$(late_reason "$name")
        fail "$name: $why"
        sed 's/^/    | /' "$work/$name.log" | tail -8
        "$cluster" down
        wait "$job" 2>/dev/null
        job=""
        return 1
    fi
    wait "$job"
    rc=$?
    job=""
    if [ $rc -ne 0 ]; then
        fail "$name: mpiexec exited with $rc"
        sed 's/^/    | /' "$work/$name.log" | tail -40
        return 1
    fi
    return 0
}

# mbx_netns_mpi_begin NAME LOCK_SECONDS MPIBEX CSVCHECK: the set-up of a
# test whose MPI jobs cross the hosts one at a time: hydra (mbx_need_hydra;
# exits 77 without it), the script's two arguments (else its usage line
# and exit 2) as absolute paths in $mpibex and $csvcheck, mbx_netns_begin
# with them and mpiexec, and mbx_netns_job_traps.
mbx_netns_mpi_begin() {
    local name=$1 wait=$2
    shift 2
    mbx_need_hydra
    if [ $# -ne 2 ]; then
        echo "usage: $0 MPIBEX CSVCHECK" >&2
        exit 2
    fi
    mpibex=$(readlink -f "$1")
    csvcheck=$(readlink -f "$2")
    mbx_netns_begin "$name" "$wait" "$mpibex" "$csvcheck" "$mpiexec"
    mbx_netns_job_traps
}

# mbx_netns_job_traps: for a script whose MPI job runs in the background
# as $job (mbx_netns_mpirun): defines cleanup (the job sent SIGTERM, then
# mbx_netns_down) and runs it on every way out (mbx_netns_traps).
mbx_netns_job_traps() {
    job=""
    cleanup() {
        [ -n "$job" ] && kill -TERM "$job" 2>/dev/null
        mbx_netns_down
    }
    mbx_netns_traps
}

# mbx_netns_mpirun NAME ARG...: `$mpibex ARG...` on two ranks, one on
# mbxh1 and one on mbxh2, or with MBX_NETNS_PPN=K on 2K ranks, ranks 0..K-1
# on mbxh1 and K..2K-1 on mbxh2 (mpiexec runs inside mbxh1, so rank 0 is there;
# hydra's ssh launcher with hydra-exec.sh standing in for ssh), with UCX on
# the link (UCX_TLS=tcp,self, UCX_NET_DEVICES=eth0; hydra passes -genv
# variables to every rank). It runs in the background as $job, its output
# in $work/NAME.log; then mbx_netns_wait NAME, whose status it returns.
mbx_netns_mpirun() {
    local name=$1
    shift
    "$cluster" exec mbxh1 \
        "$mpiexec" -launcher ssh -launcher-exec "$here/hydra-exec.sh" \
        -hosts mbxh1,mbxh2 -ppn "${MBX_NETNS_PPN:-1}" -n $((2 * ${MBX_NETNS_PPN:-1})) -iface eth0 \
        -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 \
        "$mpibex" "$@" </dev/null >"$work/$name.log" 2>&1 9>&- &
    job=$!
    mbx_netns_wait "$name"
}

# mbx_csv_field FILE BENCH BYTES COLUMN: one value of a results CSV (the
# row of BENCH at BYTES), found by the column's name in the header.
mbx_csv_field() {
    awk -F, -v b="$2" -v n="$3" -v col="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        c && $1 == b && $3 == n { print $c; exit }' "$1"
}

# mbx_env_value FILE KEY: a key's value in an environment file.
mbx_env_value() {
    awk -F, -v k="$2" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$1"
}

# For a test that drives the explorer in tmux (its screen function reads
# the pane, $log is the launcher's log): show_screen prints the screen
# indented; mbx_netns_explorer_up WHAT waits up to 45 s for the picker
# ("1 Pick") and passes "explorer upWHAT", else fails with the screen and
# the log's end and exits 1.
show_screen() { screen | sed 's/^/    | /'; }
mbx_netns_explorer_up() {
    if wait_for "1 Pick" 45; then
        pass "explorer up$1"
        return 0
    fi
    fail "the explorer did not come up within 45 s"
    show_screen
    sed 's/^/    log| /' "$log" 2>/dev/null | tail -20
    exit 1
}
