# What the MPI launcher under test does that the shell tests depend on
# (sourced). MBX_TEST_MPI comes from CTest (tests/CMakeLists.txt): mpich,
# openmpi or other (treated as mpich).
#
# Ctrl-C, i.e. SIGINT to mpiexec: MPICH's hydra forwards SIGINT to every
# rank and exits with their code, 130 (MPICH 4.0.2's sometimes 0, after it
# has forwarded it: seen in about 4 of 10 trials). Open MPI's mpirun does
# not forward SIGINT: it ends the job with SIGTERM to every rank (and
# SIGKILL after odls_base_sigkill_timeout, 1 s by default) and exits 1.
# The ranks stop the same way on either signal.
case "${MBX_TEST_MPI:-mpich}" in
openmpi)
    mbx_int_signal=15
    mbx_int_codes="1"
    ;;
*)
    mbx_int_signal=2
    mbx_int_codes="130 0"
    ;;
esac

# mbx_int_code_ok CODE: whether CODE is what mpiexec exits with after Ctrl-C.
mbx_int_code_ok() {
    local c
    for c in $mbx_int_codes; do
        [ "$1" -eq "$c" ] && return 0
    done
    return 1
}

# mbx_rank_pids RANK PATTERN: the pids, among the processes whose command
# line matches PATTERN (pgrep -f), of MPI rank RANK (hydra sets PMI_RANK,
# Open MPI OMPI_COMM_WORLD_RANK).
mbx_rank_pids() {
    local p
    for p in $(pgrep -f -- "$2"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -Eqx "(PMI_RANK|OMPI_COMM_WORLD_RANK)=$1"; then
            echo "$p"
        fi
    done
}
