#!/usr/bin/env bash
# The launcher names rank 0's variables with -x for Open MPI's mpirun, which
# passes nothing else to ranks on other hosts, and for no other launcher.
# Stand-in launchers answer --version as Open MPI's and hydra's do and
# record the command line they were given; `script` gives the launcher the
# terminal it insists on. Checks: "-x NAME" for the variables set, before
# the program; never a value (the bridge token must not show in ps); none
# for hydra.
# usage: launcher_env_names.sh LAUNCHER_DRIVER WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
driver=$1 work=$2
command -v script >/dev/null || { echo "SKIP: script (util-linux) not found"; exit 77; }
rm -rf "$work"
mkdir -p "$work/tmp"
for kind in openmpi hydra; do
    cat >"$work/$kind-mpirun" <<EOS
#!/bin/sh
if [ "\$1" = --version ]; then
    case $kind in
    openmpi) echo "mpirun (Open MPI) 5.0.3" ;;
    hydra) echo "HYDRA build details:" ;;
    esac
    exit 0
fi
printf '%s\n' "\$@" >"$work/$kind.args"
EOS
    chmod +x "$work/$kind-mpirun"
    TERM=xterm TMPDIR=$work/tmp MBX_EXPLORE_CMD=/bin/true script -qec \
        "$driver --launcher $work/$kind-mpirun --bridge-addr 127.0.0.1 --log $work/$kind.log" \
        /dev/null >/dev/null 2>&1 </dev/null
    [ -s "$work/$kind.args" ] || { fail "$kind: the stand-in launcher never ran"; continue; }
    args=$(tr '\n' ' ' <"$work/$kind.args")
    case $kind in
    openmpi)
        for v in MBX_LAUNCHED MBX_LAUNCH_HOST MBX_STATUS_FILE MBX_TTY MBX_BRIDGE MBX_BRIDGE_TOKEN TERM; do
            case " $args" in
            *" -x $v "*) ;;
            *) fail "openmpi: no '-x $v' in: $args" ;;
            esac
        done
        grep -q '=' "$work/$kind.args" && fail "openmpi: a value in the command line: $args"
        [[ $args == "-n 2 -x "*" /bin/true " ]] || fail "openmpi: -x not between '-n 2' and the program: $args"
        ;;
    hydra)
        [ "$args" = "-n 2 /bin/true " ] || fail "hydra: expected '-n 2 /bin/true', got: $args"
        ;;
    esac
    [ "$fails" -eq 0 ] && pass "$kind: $args"
done
mbx_finish
