# The one library of the shell tests (sourced): results, bounded polling,
# the MPI launcher's facts and the processes of a job. A script defines
# screen() (what wait_for reads, e.g. a tmux pane) and may set test_case to
# prefix its results; it ends with mbx_finish (or die).
fails=0
pass() { echo "PASS: ${test_case:+$test_case: }$*"; }
fail() {
    echo "FAIL: ${test_case:+$test_case: }$*"
    fails=$((fails + 1))
}

# die MESSAGE: a failure that ends the script (exit 1).
die() {
    fail "$@"
    mbx_finish
    exit 1
}

# mbx_one_line FILE REGEX: FILE holds exactly one non-empty line, and it
# matches REGEX (extended); else die, FILE shown.
mbx_one_line() {
    [ "$(grep -c . "$1")" -eq 1 ] || { cat "$1"; die "expected one line on stderr"; }
    grep -Eq -- "$2" "$1" || { cat "$1"; die "stderr does not match: $2"; }
}

# mbx_col FILE NAME: the CSV column NAME of every data row, one a line
# (Python's csv reader: quoted fields as a spreadsheet reads them).
mbx_col() {
    python3 -c 'import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
print("\n".join(x[sys.argv[2]] for x in r))' "$1" "$2"
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

# mbx_until SECONDS COMMAND...: 0 once COMMAND succeeds (tried every 0.1 s),
# 1 if it has not by the time bash's clock has moved on SECONDS whole seconds.
mbx_until() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ $SECONDS -lt "$end" ] || return 1
        sleep 0.1
    done
}

# The MPI launcher's settings of the test environment (OMPI_*) and the
# sanitizers' (ASAN_OPTIONS, UBSAN_OPTIONS: LeakSanitizer off outside the
# unit tests), see tests/CMakeLists.txt, as NAME=VALUE words, for a shell
# started with env -i. Without them an explorer under TERM=linux exits 1
# in the sanitized build: ncurses loads the console's mouse library (gpm)
# for mousemask and unloads it, and LeakSanitizer reports its 10 bytes as
# "<unknown module>".
mbx_mpi_env() {
    env | grep -E '^(OMPI_[A-Za-z0-9_]+|ASAN_OPTIONS|UBSAN_OPTIONS)=[^ ]*$' | tr '\n' ' '
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

# What the MPI launcher under test does that the shell tests depend on.
# MBX_TEST_MPI comes from CTest (tests/CMakeLists.txt): mpich, openmpi or
# other (treated as mpich).
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

# A test marks every process of its job with a unique VAR=VALUE in the
# environment (mpiexec passes it on to its helpers and the ranks), so it can
# find them whichever launcher started them.
# mbx_tagged VAR=VALUE: the pids of the processes carrying the tag.
mbx_tagged() {
    grep -lzxF "$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

# mbx_tagged_rank VAR=VALUE RANK: the pid of MPI rank RANK among them.
mbx_tagged_rank() {
    local p
    for p in $(mbx_tagged "$1"); do
        if grep -Eqzx "(PMI_RANK|OMPI_COMM_WORLD_RANK)=$2" "/proc/$p/environ" 2>/dev/null; then
            echo "$p"
            return
        fi
    done
}

# mbx_tagged_gone VAR=VALUE [SECONDS]: 0 once no process carries the tag
# (waits up to SECONDS, 10 by default); else 1, and each one left is printed.
mbx_tagged_gone() {
    local i p
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        [ -z "$(mbx_tagged "$1")" ] && return 0
        sleep 0.1
    done
    for p in $(mbx_tagged "$1"); do echo "  left: $p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"; done
    return 1
}

# The closing line and exit status of a test script.
mbx_finish() {
    echo "$fails failure(s)"
    [ "$fails" -eq 0 ]
}
