#!/usr/bin/env bash
# b_eff across two "hosts" (network namespaces, cluster.sh): one rank on
# mbxh1, one on mbxh2, UCX over TCP on the link between them.
#
#   beff_two_hosts.sh MPIBEX
#
# 1. Unshaped link: `mpibex beff` with L_max = 1 MiB (--mem-per-proc
#    128MiB), one random pattern and one repetition (the rules of the
#    random average and the maximum over repetitions are mpi.beff.n2's).
#    The run must end with exit 0 and write the detail table, the summary
#    and an env file that says hosts=2.
# 2. The link shaped by tc tbf to RATE (400mbit; cluster.sh up 2 RATE):
#    the same (every message of 1 MiB takes 22 ms at this rate; at 100
#    Mbit/s and 3 repetitions the run took minutes). Prints the ping-pong bandwidth at
#    L_max next to the shaping rate's payload limit and checks it lies
#    between half that limit and the limit plus what one full token bucket
#    per message can add.
#
# The payload limit: tbf counts each frame's bytes from the Ethernet header
# on (14 bytes, no preamble, FCS or gap: those are not in the skb; a GSO
# packet is counted as its segments with their headers). A full frame is
# MTU + 14 bytes and carries MTU - 20 (IPv4) - 20 (TCP) - 12 (TCP
# timestamp option, when net.ipv4.tcp_timestamps is on) bytes of payload,
# so payload limit = RATE/8 * (MTU - 52) / (MTU + 14): 47.82 MB/s at 400
# Mbit/s with MTU 1500. UCX's own per-fragment headers (tens of bytes per
# several KiB) are left out: they lower the real ceiling by well under 1 %.
# The bucket: cluster.sh gives tbf a burst of 4 ms at the rate (at least
# 16 KiB). In a ping-pong the link idles while the answer travels the
# other way, the bucket refills, and every message starts with one bucket
# of payload at line speed; so a message of L bytes can take as little as
# (L - bucket * payload/frame) / limit, which bounds the measured figure
# from above (58.4 MB/s for 1 MiB at 400 Mbit/s, a bucket of 200000 B).
#
# Only the namespaces' own link carries traffic (cluster.sh adds nothing
# to the machine's namespace). Exit 77 with "SKIP: reason" where network
# namespaces cannot be made; every wait is bounded; the namespaces are
# removed on every way out.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib_netns.sh"
mbx_need_hydra

if [ $# -lt 1 ]; then
    echo "usage: $0 MPIBEX" >&2
    exit 2
fi
mpibex=$(readlink -f "$1")
RATE=400mbit
RATE_BPS=50000000 # bytes per second of RATE
JOB_SECONDS=240

mbx_netns_begin beff 300 "$mpibex" "$mpiexec" python3

mbx_netns_job_traps

# summary_field FILE COLUMN
summary_field() {
    python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}

# run_beff NAME RANDOM REPS [RATE]: a fresh two-host cluster, b_eff with one rank
# on each host, files $work/NAME.*. Returns 0 when the job ended in time
# with exit 0.
run_beff() {
    local name=$1 nrandom=$2 reps=$3 rate=${4:-} t0
    "$cluster" down
    if ! "$cluster" up 2 $rate >"$work/$name.up" 2>&1; then
        fail "$name: cluster.sh up 2 $rate: $(tail -1 "$work/$name.up")"
        return 1
    fi
    t0=$(date +%s)
    mbx_netns_mpirun "$name" beff --mem-per-proc 128MiB --random "$nrandom" --reps "$reps" \
        --seed 5 -q -o "$work/$name.csv" || return 1
    pass "$name: b_eff ran across mbxh1 and mbxh2${rate:+ (links shaped to $rate)} in $(($(date +%s) - t0)) s"
    return 0
}

# check_files NAME: summary row, env file with two hosts.
check_files() {
    local name=$1 s="$work/$1.summary.csv" envf="$work/$1.env.csv" b
    if [ -s "$s" ] && b=$(summary_field "$s" b_eff_MBps) &&
        awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then
        pass "$name: summary written, b_eff $b MB/s"
    else
        fail "$name: no summary with a positive b_eff in $s"
    fi
    if [ -f "$envf" ] && [ "$(mbx_env_value "$envf" hosts)" = 2 ]; then
        pass "$name: env file says hosts=2"
    else
        fail "$name: env file does not say hosts=2"
    fi
    sed -n '/^# summary/,$p' "$work/$name.log" | sed 's/^/    | /' | grep -v "| rules:"
}

# 1. unshaped
if run_beff unshaped 1 1; then
    check_files unshaped
    echo "FIGURE: unshaped: b_eff $(summary_field "$work/unshaped.summary.csv" b_eff_MBps) MB/s," \
        "ping-pong at L_max $(summary_field "$work/unshaped.summary.csv" pingpong_Lmax_MBps) MB/s"
fi

# 2. shaped
if run_beff shaped 1 1 $RATE; then
    check_files shaped
    mtu=$(ip -n mbxh1 -o link show eth0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
    ts=$(ip netns exec mbxh1 sysctl -n net.ipv4.tcp_timestamps 2>/dev/null || echo 1)
    bucket=$((RATE_BPS / 250))
    [ "$bucket" -ge 16384 ] || bucket=16384
    pp=$(summary_field "$work/shaped.summary.csv" pingpong_Lmax_MBps)
    lmax=$(summary_field "$work/shaped.summary.csv" Lmax_bytes)
    read -r limit bound opt <<<"$(python3 - "$RATE_BPS" "${mtu:-1500}" "$ts" "$bucket" "$lmax" <<'EOF'
import sys
rate, mtu, ts, bucket, lmax = (int(x) for x in sys.argv[1:])
opt = 12 if ts != 0 else 0
payload, frame = mtu - 40 - opt, mtu + 14
limit = rate * payload / frame                       # bytes/s of payload
bound = lmax / ((lmax - bucket * payload / frame) / limit)
print("%.3f %.3f %d" % (limit / 1e6, bound / 1e6, opt))
EOF
)"
    echo "FIGURE: shaped $RATE: ping-pong at L_max ($lmax B) $pp MB/s; payload limit $limit MB/s" \
        "= $RATE_BPS B/s * ($mtu - 40 - $opt) / ($mtu + 14); with a full bucket ($bucket B) per" \
        "message at most $bound MB/s"
    if awk -v p="$pp" -v l="$limit" -v b="$bound" 'BEGIN { exit !(p >= 0.5 * l && p <= 1.05 * b) }'; then
        pass "shaped: ping-pong at L_max $pp MB/s is within [0.5 * $limit, 1.05 * $bound] MB/s"
    else
        fail "shaped: ping-pong at L_max $pp MB/s, expected within [0.5 * $limit, 1.05 * $bound] MB/s"
    fi
fi

mbx_finish
