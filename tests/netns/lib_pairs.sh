# The planted slow host and slow link of the node-pair tests (sourced after
# tests/lib.sh), shared by tests/netns/pairs_hosts.sh (hydra across five
# namespace hosts) and tests/slurm/salloc_pairs.sh (srun in a Slurm
# allocation of five compute nodes): the tc shaping of the hosts of
# cluster.sh, the random draw of what is slow, and the checks of the
# verdicts `mpibex pairs` gives.
#
# Every host's egress is shaped to a base rate (htb on its eth0: this
# kernel has tbf, htb and the u32 filter, not prio or netem, so
# bandwidth and not latency). A planted run shapes one host's traffic both
# ways to HOST_RATE (its eth0, and a tbf on its port of the switch: its
# row and its column of the matrix are slow), and what each host of one
# pair sends to the other to LINK_RATE (an htb class the u32 filter steers
# the peer's address to); the pair may include the slow host. The verdicts
# must name that host, and no other, as slow, and name the link (one of
# its directions at least), and no other link but one of the slow host's
# (its cells sit at its rate whatever the partner: a partner fast
# elsewhere shows a residual against it, the model's limit at a rate cap,
# docs/algorithms.md, "Every pair of nodes"). A clean run (the base rate
# alone) must name no node and no link.
#
#   mbx_pairs_draw HOST...            sets $pairs_slow, $pairs_a, $pairs_b
#                                     (bash's $RANDOM, three draws)
#   mbx_pairs_plant SLOW A B HOST...  shapes every HOST (SLOW, A, B empty:
#                                     the base rate alone); 1 on a tc error
#   mbx_pairs_unshape HOST...         every qdisc of a plant removed
#   mbx_pairs_slow_csv FILE KIND      from OUT.verdicts.csv
#   mbx_pairs_slow_lines FILE KIND    from the `#` verdict lines of the
#                                     output (a log, a screen)
#        the slow nodes' hosts (KIND node) or links "src>dst" (KIND link),
#        sorted, each followed by a blank
#   mbx_pairs_judge NAME SLOW A B NODES LINKS   PASS or FAIL (return 1) for
#        a planted run; SLOW empty: a clean one
#   mbx_pairs_show FILE               the output's verdict lines, indented
#
# The hosts are cluster.sh's: namespaces mbxhI with eth0 = 198.18.0.I, the
# switch mbxsw with port vhI; no address but theirs is named.

# Each rate with a bucket of 4 ms of it (cluster.sh's reason: a smaller
# one passes less than the rate, and a varying less, on a busy machine).
# The base rate is low enough that no host runs out of CPU before it
# reaches it, with five ranks and other tests beside them on two cores:
# at 1600 Mbit/s the host of rank 0 moved less than the others and was
# called slow in 2 of 10 runs where every link was alike, and 16 KiB
# messages at 400 Mbit/s stayed near 12 MB/s whatever the rate. A window
# of 4 messages of 64 KiB (256 KiB an observation) keeps a pass short.
BASE_RATE=200mbit BASE_BURST=100kb # every host's egress: the links are the limit
HOST_RATE=50mbit HOST_BURST=25kb   # the slow host's traffic, both ways
LINK_RATE=12mbit LINK_BURST=8kb    # what the two hosts of the slow link send each other:
                                   # well below HOST_RATE, so a link of the slow host
                                   # stands out from its node

# The options of `mpibex pairs` both tests run (and --seed, -o, -q of
# their own): bandwidth only, the windows above, at most 30 s of rounds,
# and the schedule of MBX_TEST_PAIRS_MODE (default one: one pair at a time
# while the others wait asleep; five busy-polling ranks on two cores would
# share them in shift mode).
MBX_PAIRS_MODE=${MBX_TEST_PAIRS_MODE:-one}
MBX_PAIRS_ARGS="--metric bw --bw-bytes 64K --window 4 --mode $MBX_PAIRS_MODE --time-limit 30"

# mbx_pairs_draw HOST...: one host drawn at random as the slow host, and
# a pair of two different hosts as the slow link.
mbx_pairs_draw() {
    local hosts=("$@") n=$# i j
    pairs_slow=${hosts[RANDOM % n]}
    i=$((RANDOM % n))
    j=$(((i + 1 + RANDOM % (n - 1)) % n))
    pairs_a=${hosts[i]} pairs_b=${hosts[j]}
}

# mbx_pairs_shape HOST SLOW_HOST PEER: HOST's eth0 egress (an htb):
# everything at BASE_RATE, or HOST_RATE when HOST is the slow host (and
# what the switch sends it: a tbf on its port vhI), what goes to PEER
# (empty: none) at LINK_RATE. Unshaped, a 4-host matrix on 2 cores moves
# what the CPUs allow (300 to 1500 MB/s between runs of the same cell),
# and that spread hides a link; at a base rate every link is alike by
# construction.
mbx_pairs_shape() {
    local h=$1 slow=$2 peer=$3 all=$BASE_RATE burst=$BASE_BURST
    [ "$h" = "$slow" ] && all=$HOST_RATE burst=$HOST_BURST
    tcn() { ip netns exec "$h" tc "$@"; }
    tcn qdisc add dev eth0 root handle 1: htb default 20 || return 1
    tcn class add dev eth0 parent 1: classid 1:20 htb rate "$all" burst "$burst" quantum 60000 || return 1
    if [ "$h" = "$slow" ]; then
        ip netns exec mbxsw tc qdisc add dev "vh${h#mbxh}" root tbf rate "$all" burst "$burst" \
            latency 100ms || return 1
    fi
    if [ -n "$peer" ]; then
        tcn class add dev eth0 parent 1: classid 1:10 htb rate "$LINK_RATE" burst "$LINK_BURST" \
            quantum 60000 || return 1
        tcn filter add dev eth0 protocol ip parent 1:0 prio 1 u32 \
            match ip dst "198.18.0.${peer#mbxh}/32" flowid 1:10 || return 1
    fi
}

# mbx_pairs_plant SLOW A B HOST...: every HOST shaped (mbx_pairs_shape),
# A and B each other's peer. On a tc error: "tc on HOST failed" on stdout,
# return 1.
mbx_pairs_plant() {
    local slow=$1 a=$2 b=$3 h peer
    shift 3
    for h in "$@"; do
        peer=""
        [ "$h" = "$a" ] && peer=$b
        [ "$h" = "$b" ] && peer=$a
        mbx_pairs_shape "$h" "$slow" "$peer" || { echo "tc on $h failed"; return 1; }
    done
}

# mbx_pairs_unshape HOST...: the root qdisc of each HOST's eth0 and of its
# switch port removed (the kernel's default comes back), so that one
# cluster can carry another plant.
mbx_pairs_unshape() {
    local h
    for h in "$@"; do
        ip netns exec "$h" tc qdisc del dev eth0 root 2>/dev/null
        ip netns exec mbxsw tc qdisc del dev "vh${h#mbxh}" root 2>/dev/null
    done
    return 0
}

# mbx_pairs_slow_csv FILE KIND: the slow nodes or links of a verdicts CSV
# (columns kind 2, src_host 6, dst_host 7, slow 12).
mbx_pairs_slow_csv() {
    awk -F, -v k="$2" 'NR > 1 && $2 == k && $12 == "yes" {
        print (k == "node" ? $6 : $6 ">" $7) }' "$1" | sort | tr '\n' ' '
}

# mbx_pairs_slow_lines FILE KIND: the same from the printed verdicts,
#   #   SLOW node   2 mbxh3      1.874 [ 1.702,  2.063]  p 0.0001
#   #   SLOW mbxh1 -> mbxh4  5.012 [ 4.1,  6.1]  p 0.002
# (anything before the `#` is ignored, so a screen's border may stay).
mbx_pairs_slow_lines() {
    sed -nE 's/^.*#   SLOW node +[0-9]+ +([^ ]+) .*$/node \1/p
             s/^.*#   SLOW ([^ ]+) -> ([^ ]+) .*$/link \1>\2/p' "$1" |
        awk -v k="$2" '$1 == k { print $2 }' | sort | tr '\n' ' '
}

# mbx_pairs_judge NAME SLOW A B NODES LINKS: PASS when the slow nodes
# NODES and links LINKS (as mbx_pairs_slow_* print them) are what was
# planted (SLOW, link A-B), by the rules at the top; with SLOW empty, when
# both are empty. Else FAIL and return 1.
mbx_pairs_judge() {
    local name=$1 slow=$2 a=$3 b=$4 nodes=$5 links=$6 l found=0 capped="" bad_links=""
    if [ -z "$slow" ]; then
        if [ -z "$nodes" ] && [ -z "$links" ]; then
            pass "$name: every link alike, no outlier found"
            return 0
        fi
        fail "$name: nothing planted, yet slow nodes '${nodes}', links '${links}'"
        return 1
    fi
    # The planted link must be named; another link may be only one of the
    # slow host's: its cells sit at its rate whatever the partner, so a
    # partner faster than the rest elsewhere shows a residual against it
    # (the multiplicative model's limit at a rate cap, docs/algorithms.md).
    local want_links=" $a>$b $b>$a "
    for l in $links; do
        if [[ $want_links == *" $l "* ]]; then
            found=1
        elif [[ $l == "$slow>"* || $l == *">$slow" ]]; then
            capped="$capped $l"
        else
            bad_links="$bad_links $l"
        fi
    done
    if [ "$nodes" = "$slow " ] && [ $found -eq 1 ] && [ -z "$bad_links" ]; then
        pass "$name: slow host $slow and slow link $a-$b named (links flagged: $links)${capped:+; also links of the capped slow host:$capped}"
        return 0
    fi
    fail "$name: planted host $slow, link $a-$b; found nodes '${nodes}', links '${links}'"
    return 1
}

# mbx_pairs_show FILE: the verdict lines of an output, indented.
mbx_pairs_show() {
    grep -E "^# (  (SLOW|    )|bandwidth:|verdicts)" "$1" | sed 's/^/    | /'
}
