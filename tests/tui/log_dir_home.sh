#!/usr/bin/env bash
# With HOME unset (and no XDG_STATE_HOME) the launcher's log never goes to
# the shared /tmp/.local/state/mpibex, which anybody could have made first:
# it goes to the account's own home, and when that cannot be used (the
# user nobody, home /nonexistent) to a new private directory in $TMPDIR,
# said on stderr. A stand-in MPI launcher records nothing and exits; the
# job is /bin/true; `script` gives the launcher its terminal.
# usage: log_dir_home.sh LAUNCHER_DRIVER WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
driver=$1 work=$2
command -v script >/dev/null || { echo "SKIP: script (util-linux) not found"; exit 77; }
rm -rf "$work"
mkdir -p "$work/tmp"
chmod 0755 "$work"
chmod 1777 "$work/tmp"
cat >"$work/mpirun" <<'EOS'
#!/bin/sh
[ "$1" = --version ] && echo "HYDRA build details:"
exit 0
EOS
chmod 0755 "$work/mpirun"

launch() { # launch [PREFIX...]: the launcher with HOME and XDG_STATE_HOME unset
    env -u HOME -u XDG_STATE_HOME TERM=xterm TMPDIR="$work/tmp" MBX_EXPLORE_CMD=/bin/true \
        "$@" script -qec "$driver --launcher $work/mpirun" /dev/null </dev/null 2>&1 | tr -d '\r'
}

out=$(launch)
log=$(printf '%s\n' "$out" | sed -n 's/^mpibex: log: //p')
home=$(getent passwd "$(id -u)" | cut -d: -f6)
case $log in
/tmp/.local/*) fail "HOME unset: the log went to the shared $log" ;;
"$home"/.local/state/mpibex/explore-*.log)
    if [ -f "$log" ]; then
        pass "HOME unset: the log is in the account's home: $log"
        rm -f "$log"
    else
        fail "HOME unset: $log was not written"
    fi
    ;;
*) fail "HOME unset: log '$log'; output: $out" ;;
esac

# An account whose home cannot be used: a private directory in $TMPDIR.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    nh=$(getent passwd nobody | cut -d: -f6)
    if ! setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups test -x "$driver"; then
        echo "note: the user nobody cannot run $driver here; the fallback case is not tried"
    elif [ -e "$nh" ]; then
        echo "note: nobody's home $nh exists; the fallback case is not tried"
    else
        out=$(launch setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups)
        log=$(printf '%s\n' "$out" | sed -n 's/^mpibex: log: //p')
        case $log in
        "$work"/tmp/mpibex-log-??????/explore-*.log)
            d=${log%/*}
            [ "$(stat -c '%a %U' "$d")" = "700 nobody" ] && pass "no usable home: a private log directory $d" ||
                fail "the log directory $d is $(stat -c '%a %U' "$d")"
            printf '%s\n' "$out" | grep -q "^mpibex: cannot use the state directory '\?$nh/.local/state/mpibex'\?: .*; the log goes to the private directory $d$" &&
                pass "it says where the log goes and why" || fail "no line says where: $out"
            ;;
        *) fail "no usable home: log '$log'; output: $out" ;;
        esac
    fi
fi
mbx_finish
