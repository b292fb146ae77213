#!/usr/bin/env bash
# A small "cluster" of hosts made of Linux network namespaces on this one
# machine, for multi-host tests of mpibex (MPI traffic over a real TCP link
# instead of shared memory, rank 0 on a host other than the launcher's).
#
#   cluster.sh probe             exit 0 when namespaces can be made here,
#                                else print the reason and exit 1
#   cluster.sh up N [RATE [BURST_MS]]  hosts mbxh1..mbxhN (2 <= N <= 8)
#   cluster.sh down              remove everything (idempotent)
#   cluster.sh exec HOST CMD...  run CMD on HOST (mbxhI or 198.18.0.I)
#   cluster.sh status            what exists now
#
# Layout: namespace mbxsw holds a bridge br0; host i is namespace mbxhI
# with interface eth0 = 198.18.0.I/24, plugged into br0 through a veth pair
# (port vhI in mbxsw). Nothing is added to the machine's own namespace: the
# hosts reach only each other (there is no default route), so no packet can
# leave for any other address. IPv6 is disabled in every namespace so the
# links carry no router solicitations or other link-local chatter. With
# RATE (a tc rate: 100mbit, 1gbit, ...) every eth0 gets a tbf qdisc that
# shapes its egress, with a bucket of BURST_MS (default 4) milliseconds at
# the rate: tokens that arrive while the bucket is full are lost, so a
# qdisc whose dequeue waits longer than that on a busy machine (ranks
# busy-polling both cores) passes less than RATE; a larger bucket keeps
# the long-run rate at RATE.
#
# Names: each host gets /etc/netns/mbxhI/hosts, which `ip netns exec`
# bind-mounts over /etc/hosts inside that host only (localhost and
# mbxh1..N -> 198.18.0.1..N); the machine's /etc/hosts is not touched.
#
# Why a UTS namespace in exec: `ip netns exec` changes the network only, so
# every namespace would still report the machine's host name. MPICH and
# mpibex tell hosts apart by name (mpibex's "hosts" in the env file, the
# launcher's MBX_LAUNCH_HOST test); with one name everywhere they would
# take all ranks for one host. exec therefore also unshares the UTS
# namespace and sets the host name to the host's own.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh" # die
test_case=cluster.sh

PREFIX=mbxh        # host namespaces mbxh1..mbxhN
SWITCH=mbxsw       # the namespace holding the bridge
NET=198.18.0       # inside 198.18.0.0/15 (RFC 2544 benchmarking range)
MAXHOSTS=8
NETNS_ETC=/etc/netns


# The host namespaces that exist now, in order.
host_namespaces() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}[0-9]+\$" | sort -V
}

ns_exists() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$1"
}

probe() {
    local p="mbxprobe$$"
    [ "$(id -u)" -eq 0 ] || { echo "not root (ip netns needs CAP_SYS_ADMIN and CAP_NET_ADMIN)"; return 1; }
    for tool in ip tc unshare hostname; do
        command -v "$tool" >/dev/null || { echo "$tool not found"; return 1; }
    done
    ip netns add "$p" 2>/dev/null || { echo "ip netns add is not permitted here"; return 1; }
    local ok=1 why=""
    if ! ip -n "$p" link add mbxpa type veth peer name mbxpb 2>/dev/null; then
        ok=0 why="no veth support in this kernel"
    elif ! ip -n "$p" link add mbxpbr type bridge 2>/dev/null; then
        ok=0 why="no bridge support in this kernel"
    elif ! ip netns exec "$p" unshare --uts true 2>/dev/null; then
        ok=0 why="unshare --uts is not permitted here"
    fi
    ip netns del "$p" 2>/dev/null
    [ $ok -eq 1 ] || { echo "$why"; return 1; }
    return 0
}

# rate_bytes RATE: tc rate words (bit, kbit, mbit, gbit, bps, kbps, ...)
# to bytes per second, to size the tbf bucket.
rate_bytes() {
    local mult
    [[ $1 =~ ^([0-9]+)([a-zA-Z]*)$ ]] || return 1
    case "${BASH_REMATCH[2],,}" in
        bit | "") mult=1 ;;
        kbit) mult=1000 ;;
        mbit) mult=1000000 ;;
        gbit) mult=1000000000 ;;
        bps) mult=8 ;;
        kbps) mult=8000 ;;
        mbps) mult=8000000 ;;
        gbps) mult=8000000000 ;;
        *) return 1 ;;
    esac
    echo $((BASH_REMATCH[1] * mult / 8))
}

down() {
    local ns pid
    for ns in $(host_namespaces) $(ns_exists "$SWITCH" && echo "$SWITCH"); do
        # Processes left in a namespace (a killed test) keep it alive after
        # its name is gone: end them first, by pid.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        local left=0
        for ns in $(host_namespaces) $(ns_exists "$SWITCH" && echo "$SWITCH"); do
            [ -n "$(ip netns pids "$ns" 2>/dev/null)" ] && left=1
        done
        [ $left -eq 0 ] && break
        sleep 0.2
    done
    for ns in $(host_namespaces) $(ns_exists "$SWITCH" && echo "$SWITCH"); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        # Deleting the namespace deletes the veth ends and the bridge in it.
        ip netns del "$ns" 2>/dev/null || echo "cluster.sh: cannot delete namespace $ns" >&2
    done
    rm -rf "$NETNS_ETC"/${PREFIX}[0-9]* 2>/dev/null
    rmdir "$NETNS_ETC" 2>/dev/null # only when empty: it may hold others' files
    return 0
}

# ns_quiet NS: no IPv6 (no link-local traffic at all), loopback up.
ns_quiet() {
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1 || true
    ip -n "$1" link set lo up
}

up() {
    local n=$1 rate=${2:-} ms=${3:-4} i bucket=""
    case "$n" in '' | *[!0-9]*) die "up: N must be a number 2..$MAXHOSTS" ;; esac
    [ "$n" -ge 2 ] && [ "$n" -le $MAXHOSTS ] || die "up: N must be 2..$MAXHOSTS"
    if [ -n "$rate" ]; then
        bucket=$(rate_bytes "$rate") || die "up: RATE '$rate' is not a tc rate such as 100mbit or 1gbit"
        case "$ms" in '' | *[!0-9]*) die "up: BURST_MS must be a whole number 1..1000" ;; esac
        [ "$ms" -ge 1 ] && [ "$ms" -le 1000 ] || die "up: BURST_MS must be a whole number 1..1000"
        # Bucket: BURST_MS at the rate, at least a few full-size frames.
        bucket=$((bucket * ms / 1000))
        [ "$bucket" -ge 16384 ] || bucket=16384
    fi
    if [ -n "$(host_namespaces)" ] || ns_exists "$SWITCH"; then
        die "up: a cluster exists already (run: $0 down)"
    fi
    # From here on a failure removes what was made.
    trap 'down; exit 1' ERR
    set -E
    ip netns add "$SWITCH"
    ns_quiet "$SWITCH"
    ip -n "$SWITCH" link add br0 type bridge
    ip -n "$SWITCH" link set br0 up
    for ((i = 1; i <= n; i++)); do
        local h="$PREFIX$i"
        ip netns add "$h"
        ns_quiet "$h"
        # Both ends are created directly in their namespaces.
        ip link add eth0 netns "$h" type veth peer name "vh$i" netns "$SWITCH"
        ip -n "$SWITCH" link set "vh$i" master br0
        ip -n "$SWITCH" link set "vh$i" up
        ip -n "$h" addr add "$NET.$i/24" dev eth0
        ip -n "$h" link set eth0 up
        if [ -n "$rate" ]; then
            ip netns exec "$h" tc qdisc add dev eth0 root tbf rate "$rate" burst "$bucket" latency 100ms
        fi
        mkdir -p "$NETNS_ETC/$h"
        {
            echo "# mbx-netns: /etc/hosts of host $h (cluster.sh)"
            echo "127.0.0.1 localhost"
            for ((k = 1; k <= n; k++)); do echo "$NET.$k $PREFIX$k"; done
        } >"$NETNS_ETC/$h/hosts"
    done
    trap - ERR
    set +E
    # Wait (bounded) until every link is up and every bridge port forwards
    # (no STP, so that is at once in practice, but not guaranteed).
    local t ready
    for ((t = 0; t < 50; t++)); do
        ready=1
        for ((i = 1; i <= n; i++)); do
            bridge -n "$SWITCH" link show dev "vh$i" 2>/dev/null | grep -q "state forwarding" || ready=0
            ip -n "$PREFIX$i" link show dev eth0 | grep -q "LOWER_UP" || ready=0
        done
        [ $ready -eq 1 ] && break
        sleep 0.1
    done
    [ $ready -eq 1 ] || { down; die "up: the links did not come up within 5 s"; }
    echo "cluster.sh: $n hosts up (${PREFIX}1..$PREFIX$n = $NET.1..$NET.$n)${rate:+, eth0 egress shaped to $rate}"
}

# host_ns HOST: the namespace of a host name or address, or nothing.
host_ns() {
    local h=$1 i=""
    case "$h" in
        "$PREFIX"[0-9]*) i=${h#"$PREFIX"} ;;
        "$NET".[0-9]*) i=${h#"$NET".} ;;
    esac
    case "$i" in '' | *[!0-9]*) return 1 ;; esac
    ns_exists "$PREFIX$i" || return 1
    echo "$PREFIX$i"
}

do_exec() {
    local ns
    [ $# -ge 2 ] || die "usage: $0 exec HOST CMD..."
    ns=$(host_ns "$1") || die "exec: no host '$1' (up?)"
    shift
    # exec all the way down: the command keeps this process's pid, so
    # whoever started us (hydra, a test) can signal and wait for it.
    exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "$@"
}

status() {
    local ns
    for ns in $(host_namespaces) $(ns_exists "$SWITCH" && echo "$SWITCH"); do
        echo "== $ns"
        ip -n "$ns" -br addr
        ip netns exec "$ns" tc qdisc show 2>/dev/null | grep -v noqueue
    done
    ls -d "$NETNS_ETC"/${PREFIX}[0-9]* 2>/dev/null
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    probe) probe ;;
    up)
        [ $# -ge 1 ] && [ $# -le 3 ] || die "usage: $0 up N [RATE [BURST_MS]]"
        [ "$(id -u)" -eq 0 ] || die "up: needs root"
        up "$@"
        ;;
    down) down ;;
    exec) do_exec "$@" ;;
    status) status ;;
    *)
        echo "usage: $0 probe | up N [RATE [BURST_MS]] | down | exec HOST CMD... | status" >&2
        exit 2
        ;;
esac
