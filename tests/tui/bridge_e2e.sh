#!/usr/bin/env bash
# End-to-end tests of the terminal bridge: the real launcher (through
# tests/tui/launcher_driver.c), mpiexec, and tests/tui/term_echo.c standing
# in for the explorer, driven in tmux (send-keys, capture-pane,
# resize-window).
#
#   bridge_e2e.sh LAUNCHER_DRIVER TERM_ECHO [CASES]
#
# Cases: (a) tty bridge, (b) socket bridge on 127.0.0.1, (c) strangers on
# the socket port, (d) Ctrl-C, (e) SIGTERM to the launcher, (f) auto; and
# (g) bind, only when CASES names it: where the launcher listens (nowhere
# with --bridge tty, only on --bridge-addr, on every interface without
# it), its private status directory, and neither the token nor a secret
# from the environment in the log or on the screen. CASES is a list of
# tty socket stranger ctrl-c sigterm auto bind (default: all but bind).
# Each check prints PASS or FAIL; the exit status is non-zero on any FAIL.
# Rank 0 connects over 127.0.0.1, or this host's name in (g). Every wait
# is bounded.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 LAUNCHER_DRIVER TERM_ECHO [CASES]" >&2
    exit 2
fi
driver=$(readlink -f "$1")
echo_bin=$(readlink -f "$2")
cases=" ${3:-tty socket stranger ctrl-c sigterm auto} "
want() { [[ "$cases" == *" $1 "* ]]; }
for tool in tmux "${MBX_TEST_MPIEXEC:-mpiexec}" python3; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not found"; exit 1; }
done
[ -x "$driver" ] && [ -x "$echo_bin" ] || { echo "FAIL: $driver or $echo_bin not executable"; exit 1; }

work=$(mktemp -d /tmp/mbx-bridge-e2e.XXXXXX)
mkdir "$work/tmp" # the launcher's private status directories go here
mark="e2e-$$-$RANDOM$RANDOM"   # in the environment of everything the launcher starts
sock="mbx-bridge-e2e-$$"        # a private tmux server
sess=""

T() { tmux -L "$sock" "$@"; }

pids_with_mark() {
    local p
    for p in /proc/[0-9]*; do
        if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "MBX_E2E_MARK=$mark"; then
            echo "${p#/proc/}"
        fi
    done
}

cleanup() {
    local p
    for p in $(pids_with_mark); do kill -KILL "$p" 2>/dev/null; done
    T kill-server 2>/dev/null
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
    rm -rf "$work"
}
trap cleanup EXIT
# One session lives for the whole test: each case kills its own, and a
# server whose last session went exits with no handshake, so the next
# case's new-session could reach it while it goes ("server exited
# unexpectedly", seen once in CI).
T new-session -d -s keep "sleep 86400" || die "tmux would not start"

check() { # DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

screen() { T capture-pane -p -t "$sess" -S -200; }


wait_file() { # FILE SECONDS
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

# start_case NAME LAUNCHER-OPTIONS...: a fresh 100x30 pane, its terminal
# modes saved, then the launcher started in it, logging to $work/NAME.log
# (or, with default_log set, to its default place under $work/state).
default_log=""
start_case() {
    sess=$1
    test_case=$1
    shift
    local logging="--log $work/$sess.log"
    [ -n "$default_log" ] && logging=""
    T new-session -d -s "$sess" -x 100 -y 30 "env PS1='E2E> ' bash --norc --noprofile"
    wait_for '^E2E>' 10 || fail "no shell prompt"
    T send-keys -t "$sess" "stty -g >$work/$sess.stty-before" Enter
    wait_file "$work/$sess.stty-before" 5 || fail "could not save the terminal modes"
    T send-keys -t "$sess" "${extra_env:-}TMPDIR=$work/tmp XDG_STATE_HOME=$work/state MBX_E2E_MARK=$mark MBX_EXPLORE_CMD=$echo_bin $driver $* $logging; echo EXIT=\$?" Enter
}

launcher_pid() {
    local shell
    shell=$(T display-message -p -t "$sess" '#{pane_pid}')
    [ -n "$shell" ] && pgrep -P "$shell" | head -n 1
}

exit_code() { screen | sed -n 's/^EXIT=\([0-9]*\)$/\1/p' | tail -n 1; }

modes_sane() { # FILE of stty -a: icanon and echo set ("-icanon" would be off)
    local words
    words=$(tr ' ;\n' '\n\n\n' <"$1")
    grep -qx icanon <<<"$words" && grep -qx echo <<<"$words"
}

no_stranger_bytes() { ! screen | grep -qE 'GET /|key:(47|48)'; }

# The launcher is gone, the prompt is back, the terminal modes are as they
# were (and sane), and nothing the launcher started is still running.
check_end() {
    local want=$1 code left
    check "launcher exited" wait_for '^EXIT=[0-9]+$' 20
    code=$(exit_code)
    case $want in
        0) check "exit code 0 (got ${code:-none})" test "${code:-x}" = 0 ;;
        nonzero) check "exit code non-zero (got ${code:-none})" test "${code:-0}" != 0 ;;
    esac
    check "shell prompt back" wait_for '^E2E> ?$' 5
    if [ -n "$default_log" ]; then
        check "log path printed" wait_for "^mpibex: log: $work/state/mpibex/explore-[0-9-]+\.log$" 1
    else
        check "log path printed" wait_for "^mpibex: log: $work/$sess.log$" 1
    fi
    T send-keys -t "$sess" "stty -g >$work/$sess.stty-after; stty -a >$work/$sess.stty-a" Enter
    wait_file "$work/$sess.stty-a" 5
    check "terminal modes restored exactly" cmp -s "$work/$sess.stty-before" "$work/$sess.stty-after"
    check "icanon and echo on" modes_sane "$work/$sess.stty-a"
    check "status directory removed" test -z "$(ls -A "$work/tmp")"
    left=$(pids_with_mark | wc -l)
    check "no process left (found $left)" test "$left" -eq 0
    for p in $(pids_with_mark); do echo "  left: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done
    T kill-session -t "$sess"
}

# Keys, a mouse click, a resize, and 'q', on a job that greeted us with
# the given kind.
drive_echo() {
    local kind=$1
    check "hello line with kind=$kind" wait_for "^mbx-term-echo kind=$kind size=30x100" 20
    T send-keys -t "$sess" -l ab
    check "key a echoed" wait_for '^key:61' 5
    check "key b echoed" wait_for '^key:62' 5
    # A mouse click as the terminal reports it (SGR form, press and
    # release) reaches rank 0 byte for byte, in order.
    local click="1b 5b 3c 30 3b 31 32 3b 35 4d 1b 5b 3c 30 3b 31 32 3b 35 6d"
    T send-keys -t "$sess" -H $click
    check "mouse click relayed" wait_for '^key:6d' 5
    check "mouse bytes unchanged and in order" \
        test "$(screen | sed -n 's/^key:\([0-9a-f][0-9a-f]\)$/\1/p' | tail -20 | tr '\n' ' ')" = "$click "
    T resize-window -t "$sess" -x 120 -y 40
    check "resize seen" wait_for '^size=40x120' 5
}

# stranger MODE HOST PORT TOKEN: connects, says MODE's thing, prints the
# number of bytes that came back, then "closed" or "open", then "proof"
# when what came back is one launcher's proof (bridgeproto.h) and nothing
# else. wrong and replay go through the handshake, with a token one
# character off and with the real one; old-hello is the token itself, as
# rank 0 used to send it.
stranger() {
    python3 - "$@" <<'EOF'
import hashlib, hmac, os, socket, struct, sys
mode, host, port, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode()
def frame(kind, payload):
    return kind + struct.pack(">I", len(payload)) + payload
s = socket.create_connection((host, port), timeout=5)
s.settimeout(5)
got, state = b"", "open"
def read(until):
    global got, state
    try:
        while len(got) < until:
            chunk = s.recv(4096)
            if not chunk:
                state = "closed"
                return
            got += chunk
    except ConnectionResetError:
        state = "closed"
    except socket.timeout:
        pass
if mode in ("wrong", "replay"):
    key = token if mode == "replay" else (b"1" if token[:1] != b"1" else b"0") + token[1:]
    nr = os.urandom(32)
    s.sendall(frame(b"C", nr))
    read(69)
    nl = got[5:37]
    s.sendall(frame(b"H", hmac.new(key, b"mpibex bridge: rank 0's hello\0" + nr + nl,
                                   hashlib.sha256).digest()))
elif mode == "garbage":
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
elif mode == "old-hello":
    s.sendall(b"H\0\0\0\x40" + token)
read(1 << 20)
proof = len(got) == 69 and got[:5] == b"P\0\0\0\x40"
print(len(got), state + (" proof" if proof else ""))
EOF
}

# (a) tty bridge
if want tty; then
start_case tty --bridge tty
drive_echo tty
T send-keys -t "$sess" -l q
check_end 0
fi

# (b) socket bridge
if want socket; then
start_case socket --bridge socket --bridge-addr 127.0.0.1
drive_echo socket
T send-keys -t "$sess" -l q
check_end 0
check "log has the connection" grep -q '^bridge: rank 0 connected from 127.0.0.1:' "$work/socket.log"
fi

# (c) strangers while a socket job runs
if want stranger; then
start_case stranger --bridge socket --bridge-addr 127.0.0.1
check "hello line" wait_for '^mbx-term-echo kind=socket' 20
lp=$(launcher_pid)
job=""
[ -n "$lp" ] && job=$(pgrep -P "$lp" | head -n 1)
env_of_job=""
[ -n "$job" ] && env_of_job=$({ tr '\0' '\n' <"/proc/$job/environ"; } 2>/dev/null)
addr=$(sed -n 's/^MBX_BRIDGE=//p' <<<"$env_of_job")
token=$(sed -n 's/^MBX_BRIDGE_TOKEN=//p' <<<"$env_of_job")
port=${addr##*:}
check "bridge address and token in the job's environment ($addr)" \
    test "${addr%:*}" = 127.0.0.1 -a ${#token} -eq 64
for mode in garbage old-hello silent; do
    reply=$(stranger "$mode" 127.0.0.1 "${port:-1}" "${token:-x}" 2>&1)
    check "$mode connection: nothing sent back, closed (got: $reply)" test "$reply" = "0 closed"
done
# Through the handshake: the launcher's proof (69 bytes) and not a byte more.
for mode in wrong replay; do
    reply=$(stranger "$mode" 127.0.0.1 "${port:-1}" "${token:-x}" 2>&1)
    check "$mode hello: only the proof sent back, closed (got: $reply)" test "$reply" = "69 closed proof"
done
refused() { grep -qE "^bridge: refused connection from 127\.0\.0\.1:[0-9]+ \($1\)\$" "$work/stranger.log"; }
check "log: wrong token refused" refused 'wrong token'
check "log: garbage refused" refused 'malformed challenge: unknown frame type'
check "log: the old token hello refused" refused 'malformed challenge: hello of the wrong length'
check "log: replay refused" refused 'token already used'
check "log: silent refused" refused 'no challenge within 1 s'
check "no stranger bytes on screen" no_stranger_bytes
T send-keys -t "$sess" -l z
check "the real session still works" wait_for '^key:7a' 5
T send-keys -t "$sess" -l q
check_end 0
check "the token is not in the log" bash -c "! grep -qF '${token:-x}' '$work/stranger.log'"
fi

# (d) Ctrl-C, with either bridge
want ctrl-c && for mode in tty socket; do
    start_case "ctrl-c-$mode" --bridge "$mode" --bridge-addr 127.0.0.1
    check "hello line" wait_for "^mbx-term-echo kind=$mode" 20
    T send-keys -t "$sess" C-c
    check_end nonzero
done

# (e) SIGTERM to the launcher, with either bridge
want sigterm && for mode in tty socket; do
    start_case "sigterm-$mode" --bridge "$mode" --bridge-addr 127.0.0.1
    check "hello line" wait_for "^mbx-term-echo kind=$mode" 20
    lp=$(launcher_pid)
    check "launcher found" test -n "$lp"
    [ -n "$lp" ] && kill -TERM "$lp"
    check_end nonzero
done

# (f) auto on the same host: rank 0 opens the terminal by name; the log
# goes to its default place
if want auto; then
default_log=1
start_case auto --bridge-addr 127.0.0.1
check "hello line with kind=tty" wait_for '^mbx-term-echo kind=tty' 20
T send-keys -t "$sess" -l q
check_end 0
logs=("$work"/state/mpibex/explore-*.log)
check "one default log file, mode 600" test ${#logs[@]} -eq 1 -a "$(stat -c %a "${logs[0]}")" = 600
check "log directory mode 700" test "$(stat -c %a "$work/state/mpibex")" = 700
default_log=""
fi

# (g) where the launcher listens. listeners PID: the TCP sockets PID listens
# on, "ADDR:PORT" one a line (from /proc/PID/fd and /proc/net/tcp{,6}).
listeners() {
    python3 - "$1" <<'EOF'
import os, socket, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
for name, fam in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
    for line in open("/proc/net/" + name).readlines()[1:]:
        f = line.split()
        if f[3] != "0A" or f[9] not in inodes:  # 0A: LISTEN
            continue
        hexaddr, hexport = f[1].split(":")
        raw = bytes.fromhex(hexaddr)
        # the address is printed as 32-bit words in host (little-endian) order
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
        addr = socket.inet_ntop(fam, raw)
        print(("[%s]" if fam == socket.AF_INET6 else "%s") % addr + ":%d" % int(hexport, 16))
EOF
}
job_env() { # the environment of the job the launcher started
    local lp job
    lp=$(launcher_pid)
    job=""
    [ -n "$lp" ] && job=$(pgrep -P "$lp" | head -n 1)
    [ -n "$job" ] && { tr '\0' '\n' <"/proc/$job/environ"; } 2>/dev/null
}
if want bind; then
secret="hunter2-$$-$RANDOM"
extra_env="MBX_TEST_SECRET=$secret AWS_SECRET_ACCESS_KEY=$secret "
# --bridge tty: no socket at all
start_case bind-tty --bridge tty
check "hello line" wait_for '^mbx-term-echo kind=tty' 20
lp=$(launcher_pid)
got=$(listeners "${lp:-0}" 2>&1)
check "--bridge tty: the launcher listens nowhere (got: ${got:-nothing})" test -n "$lp" -a -z "$got"
sd=$(ls -d "$work"/tmp/mpibex-* 2>/dev/null | head -1)
check "status directory private: ${sd##*/} mode $(stat -c %a "$sd" 2>/dev/null)" \
    test -n "$sd" -a "$(stat -c %a "$sd" 2>/dev/null)" = 700
T send-keys -t "$sess" -l q
check_end 0
# --bridge-addr 127.0.0.1: that address only
start_case bind-addr --bridge socket --bridge-addr 127.0.0.1
check "hello line" wait_for '^mbx-term-echo kind=socket' 20
lp=$(launcher_pid)
envj=$(job_env)
port=$(sed -n 's/^MBX_BRIDGE=.*://p' <<<"$envj")
token=$(sed -n 's/^MBX_BRIDGE_TOKEN=//p' <<<"$envj")
got=$(listeners "${lp:-0}" 2>&1)
check "--bridge-addr 127.0.0.1: listens on 127.0.0.1:$port only (got: $got)" test "$got" = "127.0.0.1:${port:-x}"
T send-keys -t "$sess" -l q
check_end 0
check "token (${#token} chars) not in the log" bash -c "test -n '$token' && ! grep -qF '$token' '$work/bind-addr.log'"
check "secret from the environment not in the log" bash -c "! grep -qF '$secret' '$work/bind-addr.log'"
# no --bridge-addr: every interface (as documented), announced by host name
start_case bind-any --bridge socket
check "hello line" wait_for '^mbx-term-echo kind=socket' 20
lp=$(launcher_pid)
envj=$(job_env)
addr=$(sed -n 's/^MBX_BRIDGE=//p' <<<"$envj")
got=$(listeners "${lp:-0}" 2>&1)
check "no --bridge-addr: listens on every interface, [::]:${addr##*:} or 0.0.0.0 (got: $got)" \
    bash -c "[ '$got' = '[::]:${addr##*:}' ] || [ '$got' = '0.0.0.0:${addr##*:}' ]"
check "announced as this host's name ($addr)" test "${addr%:*}" = "$(hostname)"
T send-keys -t "$sess" -l q
check_end 0
check "no secret in the logs" bash -c "! grep -rqF '$secret' '$work'"
extra_env=""
fi

if [ "$fails" -ne 0 ]; then
    echo "bridge_e2e: $fails check(s) failed"
    exit 1
fi
echo "bridge_e2e: all checks passed"
