#!/usr/bin/env bash
# mpibex pairs across five "hosts" (network namespaces, cluster.sh), one
# rank on each: the verdicts name a slow host and a slow link, and nothing
# where every link is alike. Five, not four: on four nodes a slow link and
# the link that shares no node with it fit the matrix equally well (with
# other node effects), so a slow host beside a slow link is named by the
# fit's tie-break, not by the data (docs/algorithms.md, "Every pair of
# nodes"); from five nodes on the data decide.
#
#   pairs_hosts.sh MPIBEX CSVCHECK
#
# Planted runs (MBX_TEST_PAIRS_PLANTED, default 2): a fresh cluster of 5
# hosts; one host drawn at random slow both ways, one pair of hosts drawn
# at random (it may include the slow host) a slow link, shaped with tc,
# and `mpibex pairs --metric bw` must name that host, and no other, as
# slow, and name the link, and no other link but one of the slow host's
# (tests/netns/lib_pairs.sh has the rates, the shaping and the rules).
# Clean runs (MBX_TEST_PAIRS_CLEAN, default 2): the base rate alone; no
# slow node and no slow link. The figures are the verdicts' own (ratios
# and p values), never a time asserted. MBX_TEST_PAIRS_MODE picks the
# schedule (default one: five busy-polling ranks on two cores would share
# them in shift mode).
#
# Each check prints PASS or FAIL; the exit status is non-zero on any FAIL,
# 77 (with "SKIP: reason") when network namespaces cannot be made here.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/lib_pairs.sh"
JOB_SECONDS=90
PLANTED=${MBX_TEST_PAIRS_PLANTED:-2}
CLEAN=${MBX_TEST_PAIRS_CLEAN:-2}
mbx_netns_mpi_begin pairs 300 "$@"
command -v tc >/dev/null || { echo "FAIL: tc not found"; exit 1; }

# run_pairs NAME [SLOW_HOST LINK_A LINK_B]: a fresh cluster of 5 hosts,
# shaped when given; the verdicts in $work/NAME.verdicts.csv.
run_pairs() {
    local name=$1 slow=${2:-} a=${3:-} b=${4:-} why
    "$cluster" down
    if ! "$cluster" up 5 >"$work/$name.up" 2>&1; then
        fail "$name: cluster.sh up 5: $(tail -1 "$work/$name.up")"
        return 1
    fi
    why=$(mbx_pairs_plant "$slow" "$a" "$b" mbxh1 mbxh2 mbxh3 mbxh4 mbxh5) ||
        { fail "$name: $why"; return 1; }
    # shellcheck disable=SC2086 # MBX_PAIRS_ARGS: options without blanks in a word
    "$cluster" exec mbxh1 \
        "$mpiexec" -launcher ssh -launcher-exec "$here/hydra-exec.sh" \
        -hosts mbxh1,mbxh2,mbxh3,mbxh4,mbxh5 -ppn 1 -n 5 -iface eth0 \
        -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 \
        "$mpibex" pairs $MBX_PAIRS_ARGS --seed "$RANDOM" -q \
        -o "$work/$name.csv" </dev/null >"$work/$name.log" 2>&1 9>&- &
    job=$!
    mbx_netns_wait "$name" || return 1
    [ -s "$work/$name.verdicts.csv" ] || { fail "$name: no $name.verdicts.csv"; return 1; }
    "$csvcheck" "$work/$name.csv" --bench pairs.bw --rows 20 \
        >"$work/$name.check" 2>&1 || {
        fail "$name: csvcheck: $(tail -1 "$work/$name.check")"
        return 1
    }
    return 0
}

slow_of() { mbx_pairs_slow_csv "$work/$1.verdicts.csv" "$2"; }

for ((r = 1; r <= PLANTED; r++)); do
    mbx_pairs_draw mbxh1 mbxh2 mbxh3 mbxh4 mbxh5
    name=planted$r
    run_pairs "$name" "$pairs_slow" "$pairs_a" "$pairs_b" || continue
    mbx_pairs_judge "$name" "$pairs_slow" "$pairs_a" "$pairs_b" \
        "$(slow_of "$name" node)" "$(slow_of "$name" link)" || mbx_pairs_show "$work/$name.log"
done

for ((r = 1; r <= CLEAN; r++)); do
    name=clean$r
    run_pairs "$name" || continue
    mbx_pairs_judge "$name" "" "" "" "$(slow_of "$name" node)" "$(slow_of "$name" link)" ||
        mbx_pairs_show "$work/$name.log"
done
mbx_finish
