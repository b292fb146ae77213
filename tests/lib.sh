# Shared helpers of the shell tests (sourced): results and bounded polling.
# A script defines screen() (what wait_for reads, e.g. a tmux pane) and may
# set test_case to prefix its results; it ends with mbx_finish.
fails=0
pass() { echo "PASS: ${test_case:+$test_case: }$*"; }
fail() {
    echo "FAIL: ${test_case:+$test_case: }$*"
    fails=$((fails + 1))
}

# wait_for REGEX SECONDS: poll screen() every 0.1 s until a line matches
# (SECONDS is a whole number).
wait_for() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        screen | grep -qE -- "$1" && return 0
        sleep 0.1
    done
    return 1
}

# The MPI launcher's settings of the test environment (OMPI_*, see
# tests/CMakeLists.txt) as NAME=VALUE words, for a shell started with env -i.
mbx_mpi_env() {
    env | grep -E '^OMPI_[A-Za-z0-9_]+=[^ ]*$' | tr '\n' ' '
}

# For a test that drives MPICH's hydra (its ssh launcher, -launcher-exec):
# sets $mpiexec to the build's launcher (MBX_TEST_MPIEXEC, from CTest) and,
# under another MPI, exits 77 (skipped) with the reason.
mbx_need_hydra() {
    mpiexec=${MBX_TEST_MPIEXEC:-mpiexec}
    if [ "${MBX_TEST_MPI:-mpich}" != mpich ]; then
        echo "SKIP: this test drives MPICH's hydra (ssh launcher through hydra-exec.sh);" \
            "this build's MPI is ${MBX_TEST_MPI} ($mpiexec)"
        exit 77
    fi
}

# The closing line and exit status of a test script.
mbx_finish() {
    echo "$fails failure(s)"
    [ "$fails" -eq 0 ]
}
