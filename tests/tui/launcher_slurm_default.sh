#!/usr/bin/env bash
# Which command the launcher starts when none is given: inside a Slurm
# allocation (SLURM_JOB_ID set) srun with the PMI plugin of this build's
# MPI, else the build's mpiexec, as before; --launcher and $MBX_LAUNCHER
# still win. A stand-in srun on PATH records its command line; `script`
# gives the launcher the terminal it insists on; MBX_EXPLORE_CMD=/bin/true
# is the job's program. The launcher's log names the command it started.
# usage: launcher_slurm_default.sh LAUNCHER_DRIVER WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
test_case=launcher_slurm_default
driver=$1 work=$2
command -v script >/dev/null || { echo "SKIP: script (util-linux) not found"; exit 77; }
rm -rf "$work"
mkdir -p "$work/bin" "$work/tmp"
cat >"$work/bin/srun" <<EOS
#!/bin/sh
[ "\$1" = --version ] && { echo "slurm 22.05.8"; exit 0; }
printf '%s\n' "\$@" >"$work/srun.args"
EOS
chmod +x "$work/bin/srun"
case "${MBX_TEST_MPI:-mpich}" in
    mpich) plugin="--mpi=pmi2 --quit-on-interrupt " ;;
    openmpi) plugin="--mpi=pmix --quit-on-interrupt " ;;
    *) plugin="--quit-on-interrupt " ;;
esac

# launch NAME [VAR=VALUE...]: the launcher with -n 2 under env VARS.
launch() {
    local name=$1
    shift
    rm -f "$work/srun.args"
    env "$@" PATH="$work/bin:$PATH" TERM=xterm TMPDIR="$work/tmp" MBX_EXPLORE_CMD=/bin/true \
        script -qec "$driver -n 2 --bridge-addr 127.0.0.1 --log $work/$name.log" /dev/null \
        >/dev/null 2>&1 </dev/null
}
started() { sed -n 's/^mpibex: starting: //p' "$work/$1.log" 2>/dev/null | head -1; }

launch alloc SLURM_JOB_ID=42
args=$(tr '\n' ' ' <"$work/srun.args" 2>/dev/null)
if [ "$args" = "${plugin}-n 2 /bin/true " ]; then
    pass "in an allocation: srun ${plugin}-n 2 (log: $(started alloc))"
else
    fail "in an allocation: expected srun '${plugin}-n 2 /bin/true', got '$args' (log: $(started alloc))"
fi

for how in none empty; do
    if [ $how = none ]; then launch $how -u SLURM_JOB_ID; else launch $how SLURM_JOB_ID=; fi
    if [ ! -e "$work/srun.args" ] && [[ "$(started $how)" == "${MBX_TEST_MPIEXEC:-mpiexec} -n 2 /bin/true"* ]]; then
        pass "SLURM_JOB_ID $how: $(started $how)"
    else
        fail "SLURM_JOB_ID $how: srun ran or the log says '$(started $how)'"
    fi
done

launch given SLURM_JOB_ID=42 MBX_LAUNCHER="$work/bin/srun --overlap"
args=$(tr '\n' ' ' <"$work/srun.args" 2>/dev/null)
[ "$args" = "--overlap -n 2 /bin/true " ] && pass "MBX_LAUNCHER wins in an allocation: $args" ||
    fail "MBX_LAUNCHER in an allocation: got '$args'"
mbx_finish
