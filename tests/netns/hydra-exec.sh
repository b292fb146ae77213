#!/usr/bin/env bash
# A stand-in for ssh, for MPICH hydra's ssh launcher on the namespace
# cluster of cluster.sh:
#
#   mpiexec -launcher ssh -launcher-exec /path/hydra-exec.sh -hosts mbxh1,mbxh2 ...
#
# hydra runs it as it would run ssh: `hydra-exec.sh [ssh options] HOST
# COMMAND...`. It skips the options, maps HOST (mbxhI or 198.18.0.I) to the
# namespace mbxhI and runs COMMAND there through `cluster.sh exec` (network
# namespace plus a UTS namespace with the host's name; see cluster.sh).
# Like ssh, it joins the COMMAND words with blanks and gives the line to
# sh -c on the far side. It execs all the way, so the proxy keeps this
# process's pid and hydra's signals and waits reach it.
#
# Set MBX_HYDRA_EXEC_LOG=FILE to append every argument vector to FILE (one
# argument a line, in brackets), to see what hydra passes.
set -u

here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${MBX_HYDRA_EXEC_LOG:-}" ]; then
    {
        echo "--- $(date '+%H:%M:%S') pid $$ in host $(hostname): $# args"
        for a in "$@"; do printf '[%s]\n' "$a"; done
    } >>"$MBX_HYDRA_EXEC_LOG" 2>/dev/null
fi

# ssh options: those that take a value, then the flags (hydra 4.0.2 passes
# only -x; the others are accepted so a hand-typed line works too).
while [ $# -gt 0 ]; do
    case "$1" in
        -[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;
        -[bcDEeFIiJLlmOoPpQRSWw]?*) shift ;;
        --) shift; break ;;
        -*) shift ;;
        *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "hydra-exec.sh: usage: hydra-exec.sh [ssh options] HOST COMMAND..." >&2
    exit 255 # what ssh returns when it cannot connect
fi
host=$1
shift
exec "$here/cluster.sh" exec "$host" sh -c "exec $*"
